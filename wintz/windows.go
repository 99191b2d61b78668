package wintz

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Zone is a time zone as Windows names it at an instant: the name
// ("Pacific Daylight Time") and the bias in minutes, UTC minus local
// time, daylight saving included (420).
type Zone struct {
	Name string
	Bias int
}

// Location returns a fixed location that At names exactly as z: the
// zone's name as its abbreviation, under a location name no table knows
// (a zone named "UTC" would otherwise be renamed "Coordinated Universal
// Time"). A text log's header zone reads its times with it.
func (z Zone) Location() *time.Location {
	if strings.ContainsRune(z.Name, 0) || len(z.Name) > 255 {
		return time.FixedZone(z.Name, -z.Bias*60)
	}
	if loc, err := RuleLocation(z.Name+" (text log)", "", -z.Bias*60, z.Name); err == nil {
		return loc
	}
	return time.FixedZone(z.Name, -z.Bias*60)
}

// At returns the zone of t's location at t as Windows names it: the one
// function that gives a person the zone of a log's time (PDH text logs'
// headers, relog, dump, perfmon's log view and /v1/logs). The name is
// Windows' name of the zone, standard or daylight as t falls ("Pacific
// Standard Time", "Pacific Daylight Time"); the bias is UTC minus local
// time in minutes, daylight saving included (480 and 420).
//
// The Windows name comes from the IANA name of t's location through CLDR's
// windowsZones table (WindowsKey); for time.Local, whose name is "Local",
// the IANA name is found as LocalName finds it. A location built from a
// Windows zone (a BLG's TIME_ZONE_INFORMATION, RuleLocation) already
// carries Windows' names; a zone the table does not know (a fixed zone, a
// POSIX TZ rule) keeps the abbreviation Go gives it ("CET", "UTC",
// "+0530").
func At(t time.Time) Zone {
	abbr, off := t.Zone()
	z := Zone{Name: abbr, Bias: -off / 60}
	if key, ok := WindowsKey(IANAName(t.Location())); ok {
		std, dlt := WindowsNames(key)
		z.Name = std
		if t.IsDST() {
			z.Name = dlt
		}
	}
	return z
}

// WindowsKey returns the Windows time-zone key of an IANA zone name
// ("America/Los_Angeles" gives "Pacific Standard Time"), from CLDR's
// windowsZones table (zones_table.go), accepting the tz database's other
// spellings of a zone ("Asia/Kolkata", "US/Pacific", "UTC").
func WindowsKey(iana string) (string, bool) {
	if iana == "" {
		return "", false
	}
	t := zoneKeys()
	if canon, ok := t.aliases[iana]; ok {
		iana = canon
	}
	key, ok := t.keys[iana]
	return key, ok
}

// FromWindowsName returns the IANA location of the Windows time zone a log
// names: a standard or daylight name as PDH-CSV headers and SQL logs'
// DisplayToID.TimeZoneName hold it ("Eastern Standard Time", "Eastern
// Daylight Time"), with bias, the minutes west of UTC the log recorded
// with it. The location is the zone CLDR gives the name's key for
// territory 001 (America/New_York), taken only when it keeps that bias in
// the year of at — in its standard time for a standard name, its daylight
// time for a daylight name — so that a name with a bias of its own is not
// given another zone's rules. ok is false otherwise.
func FromWindowsName(name string, bias int, at time.Time) (loc *time.Location, ok bool) {
	t := zoneKeys()
	key, found := t.byName[name]
	if !found {
		return nil, false
	}
	iana := t.first[key]
	loc, err := time.LoadLocation(iana)
	if err != nil {
		return nil, false
	}
	std, dlt := WindowsNames(key)
	y := at.UTC().Year()
	for m := time.January; m <= time.December; m++ {
		tm := time.Date(y, m, 1, 12, 0, 0, 0, time.UTC).In(loc)
		_, off := tm.Zone()
		if off == -bias*60 && (name == std && !tm.IsDST() || name == dlt && tm.IsDST()) {
			return loc, true
		}
	}
	return nil, false
}

// zoneTables are the tables WindowsKey and FromWindowsName read, as maps.
type zoneTables struct {
	aliases map[string]string // tz alias -> canonical name
	keys    map[string]string // IANA zone -> Windows key (the first that lists it)
	byName  map[string]string // standard or daylight name -> Windows key
	first   map[string]string // Windows key -> its territory 001 zone
}

// zoneKeys parses the embedded tables once; they are never changed
// after.
var zoneKeys = sync.OnceValue(func() zoneTables {
	t := zoneTables{aliases: map[string]string{}, keys: map[string]string{}, byName: map[string]string{}, first: map[string]string{}}
	for _, l := range strings.Split(ianaAliases, "\n") {
		if alias, canon, ok := strings.Cut(l, " "); ok {
			if _, dup := t.aliases[alias]; !dup {
				t.aliases[alias] = canon
			}
		}
	}
	for _, l := range strings.Split(windowsZoneTable, "\n") {
		key, zones, ok := strings.Cut(l, "\t")
		if !ok {
			continue
		}
		if f := strings.Fields(zones); len(f) > 0 {
			if _, dup := t.first[key]; !dup {
				t.first[key] = f[0]
				std, dlt := WindowsNames(key)
				for _, n := range []string{std, dlt} {
					if _, dup := t.byName[n]; !dup {
						t.byName[n] = key
					}
				}
			}
		}
		for _, z := range strings.Fields(zones) {
			if _, dup := t.keys[z]; !dup {
				t.keys[z] = key
			}
		}
	}
	return t
})

// WindowsNames returns the standard and daylight names Windows gives
// the zone with key key (TIME_ZONE_INFORMATION's StandardName and
// DaylightName, which PDH writes in log headers). Most keys are the
// standard name, and the daylight name replaces "Standard" with
// "Daylight" ("GMT Standard Time", "GMT Daylight Time"); a few keys differ
// from their names, listed here from the Windows time-zone registry
// (UTC is "Coordinated Universal Time", Israel's is "Jerusalem ...").
func WindowsNames(key string) (standard, daylight string) {
	standard = key
	switch key {
	case "UTC":
		standard = "Coordinated Universal Time"
	case "Israel Standard Time":
		standard = "Jerusalem Standard Time"
	case "Russia Time Zone 3", "Russia Time Zone 10", "Russia Time Zone 11":
		standard = "Russia TZ " + strings.TrimPrefix(key, "Russia Time Zone ") + " Standard Time"
	}
	daylight = strings.Replace(standard, "Standard Time", "Daylight Time", 1)
	return standard, daylight
}

// IANAName returns the IANA name of loc: its name when the tz database
// knows it (a location loaded from a path into zoneinfo: the part below
// it), LocalName for time.Local, "" otherwise (a fixed zone, a zone built
// from a rule).
func IANAName(loc *time.Location) string {
	name := loc.String()
	if loc == time.Local || name == "Local" {
		// time.Local is named "Local", or (TZ a path) by the path.
		return LocalName()
	}
	if filepath.IsAbs(name) {
		if name = zoneFromFile(name); name == "" {
			return ""
		}
	}
	if _, ok := WindowsKey(name); ok {
		return name
	}
	if _, err := time.LoadLocation(name); err == nil {
		return name
	}
	return ""
}

// LocalName returns the IANA name of the process's local zone, the
// zone time.Local reads, decided here once for every writer and viewer:
// the TZ environment variable when set (a name, or ":name", or a path
// into a zoneinfo directory, whose name is the part below it, or a link
// to one; an empty TZ is UTC, and TZ=:/etc/localtime is the system's
// zone, as when TZ is unset), else the target of the /etc/localtime link
// below a zoneinfo directory, else the contents of /etc/timezone
// (Debian). "" when none tells, or when the name found does not load.
func LocalName() string {
	name := localName()
	if name == "" {
		return ""
	}
	if _, err := time.LoadLocation(name); err != nil {
		return ""
	}
	return name
}

func localName() string {
	if tz, ok := os.LookupEnv("TZ"); ok {
		tz = strings.TrimPrefix(tz, ":")
		switch {
		case tz == "":
			return "UTC"
		case filepath.IsAbs(tz):
			if name := zoneFromFile(tz); name != "" || filepath.Clean(tz) != "/etc/localtime" {
				return name
			}
			// TZ=:/etc/localtime (as systemd suggests) is the system's
			// zone: a copied file is named by /etc/timezone, as below.
		default:
			return tz
		}
	}
	if name := zoneFromFile("/etc/localtime"); name != "" {
		return name
	}
	if data, err := os.ReadFile("/etc/timezone"); err == nil && len(data) < 256 {
		return strings.TrimSpace(string(data))
	}
	return ""
}

// zoneFromFile returns the zone name of a zoneinfo file: the part of its
// path below a zoneinfo directory, else of the path its links lead to
// (/etc/localtime -> /usr/share/zoneinfo/Europe/Paris gives
// "Europe/Paris"); "" for a file outside every zoneinfo directory.
func zoneFromFile(p string) string {
	if name := zoneFromPath(p); name != "" {
		return name
	}
	if target, err := filepath.EvalSymlinks(p); err == nil {
		return zoneFromPath(target)
	}
	return ""
}

// zoneFromPath returns the zone name of a file below a zoneinfo directory
// (".../zoneinfo/Europe/Paris" gives "Europe/Paris"), "" for other paths.
func zoneFromPath(p string) string {
	p = filepath.ToSlash(filepath.Clean(p))
	i := strings.LastIndex(p, "/zoneinfo/")
	if i < 0 {
		return ""
	}
	name := p[i+len("/zoneinfo/"):]
	// zoneinfo/posix/ and zoneinfo/right/ hold the same zones.
	name = strings.TrimPrefix(strings.TrimPrefix(name, "posix/"), "right/")
	return name
}
