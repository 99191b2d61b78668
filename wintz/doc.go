// Package wintz decides time zones once for the whole module: Windows'
// zone names and CLDR's table between them and IANA names (cldr.go,
// windows.go), the local zone whether TZ names it, points into zoneinfo
// or is unset (LocalName), a Windows TIME_ZONE_INFORMATION as a
// location (TZI), and zones known only by a POSIX TZ rule (RuleLocation,
// Rule). At is the one function that gives a person the zone of a log's
// time: PDH text logs' headers, relog, dump, perfmon's log view and
// /v1/logs all name a zone through it, so an August log of an Eastern
// machine says "Eastern Daylight Time" everywhere.
package wintz
