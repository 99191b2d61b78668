package pdhcsv

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// ZoneOf returns the zone of t's location at t as a PDH text log's header
// names it: Windows' name of the zone, standard or daylight as t falls
// ("Pacific Standard Time", "Pacific Daylight Time"), and the bias in
// minutes, UTC minus local time, daylight saving included (480 and 420).
//
// The Windows name comes from the IANA name of t's location through CLDR's
// windowsZones table (WindowsZoneKey); for time.Local, whose name is
// "Local", the IANA name is found as LocalZoneName finds it. A zone the
// table does not know (a fixed zone, a POSIX TZ rule) keeps the
// abbreviation Go gives it ("CET", "UTC", "+0530").
func ZoneOf(t time.Time) Zone {
	abbr, off := t.Zone()
	z := Zone{Name: abbr, Bias: -off / 60}
	name := t.Location().String()
	if name == "Local" {
		name = LocalZoneName()
	}
	if key, ok := WindowsZoneKey(name); ok {
		std, dlt := WindowsZoneNames(key)
		z.Name = std
		if t.IsDST() {
			z.Name = dlt
		}
	}
	return z
}

// WindowsZoneKey returns the Windows time-zone key of an IANA zone name
// ("America/Los_Angeles" gives "Pacific Standard Time"), from CLDR's
// windowsZones table (zones_table.go), accepting the tz database's other
// spellings of a zone ("Asia/Kolkata", "US/Pacific", "UTC").
func WindowsZoneKey(iana string) (string, bool) {
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

// ZoneLocation returns the IANA location of the Windows time zone a log
// names: a standard or daylight name as PDH-CSV headers and SQL logs'
// DisplayToID.TimeZoneName hold it ("Eastern Standard Time", "Eastern
// Daylight Time"), with bias, the minutes west of UTC the log recorded
// with it. The location is the zone CLDR gives the name's key for
// territory 001 (America/New_York), taken only when it keeps that bias in
// the year of at — in its standard time for a standard name, its daylight
// time for a daylight name — so that a name with a bias of its own is not
// given another zone's rules. ok is false otherwise.
func ZoneLocation(name string, bias int, at time.Time) (loc *time.Location, ok bool) {
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
	std, dlt := WindowsZoneNames(key)
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

// zoneTables are the tables WindowsZoneKey and ZoneLocation read, as maps.
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
				std, dlt := WindowsZoneNames(key)
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

// WindowsZoneNames returns the standard and daylight names Windows gives
// the zone with key key (TIME_ZONE_INFORMATION's StandardName and
// DaylightName, which PDH writes in log headers). Most keys are the
// standard name, and the daylight name replaces "Standard" with
// "Daylight" ("GMT Standard Time", "GMT Daylight Time"); a few keys differ
// from their names, listed here from the Windows time-zone registry
// (UTC is "Coordinated Universal Time", Israel's is "Jerusalem ...").
func WindowsZoneNames(key string) (standard, daylight string) {
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

// LocalZoneName returns the IANA name of the process's local zone, the
// zone time.Local reads: the TZ environment variable when set (a name, or
// ":name", or a path into a zoneinfo directory; an empty TZ is UTC), else
// the target of the /etc/localtime link below a zoneinfo directory, else
// the contents of /etc/timezone (Debian). "" when none tells.
func LocalZoneName() string {
	if tz, ok := os.LookupEnv("TZ"); ok {
		tz = strings.TrimPrefix(tz, ":")
		switch {
		case tz == "":
			return "UTC"
		case filepath.IsAbs(tz):
			return zoneFromPath(tz)
		}
		return tz
	}
	if target, err := filepath.EvalSymlinks("/etc/localtime"); err == nil {
		if name := zoneFromPath(target); name != "" {
			return name
		}
	}
	if data, err := os.ReadFile("/etc/timezone"); err == nil && len(data) < 256 {
		return strings.TrimSpace(string(data))
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
