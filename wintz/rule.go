package wintz

// This file carries a time zone's rules where no IANA name does: the
// zones of logs written on Windows (a BLG's TIME_ZONE_INFORMATION, a text
// log's header) and of the logs we write from them. It builds a
// time.Location from a POSIX TZ rule (the footer form of a TZif file,
// RFC 8536 section 3.3), and derives such a rule from a time.Location,
// so a zone can be written to a file and read back with its
// daylight-saving rules and names.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"
)

// RuleLocation returns a location named name that follows rule, a POSIX TZ
// rule such as `<Eastern Standard Time>5<Eastern Daylight Time>4,M3.2.0/2,M11.1.0/2`.
// An empty rule gives a fixed zone of off seconds east of UTC whose
// abbreviation is abbr. Unlike time.FixedZone, the abbreviation need not be
// the name: a location named "X (text log)" can print "X".
func RuleLocation(name, rule string, off int, abbr string) (*time.Location, error) {
	if strings.ContainsAny(rule, "\n\x00") || strings.ContainsAny(abbr, "\x00") || len(rule) > 1024 || len(abbr) > 255 {
		return nil, errors.New("wintz: rule or abbreviation not usable in a TZif file")
	}
	if off < -maxOffset || off > maxOffset {
		return nil, fmt.Errorf("wintz: offset %d s is more than a day", off)
	}
	loc, err := time.LoadLocationFromTZData(name, tzif(rule, off, abbr))
	if err != nil {
		return nil, err
	}
	// A rule names at most two offsets, and a year holds every period of
	// each (a period may be hours long: DST from day 0 to day 365/23):
	// walk the periods of one year from bound to bound.
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).In(loc)
	for range 8 {
		if _, o := t.Zone(); o < -maxOffset || o > maxOffset {
			return nil, fmt.Errorf("wintz: rule %q gives an offset of %d s, more than a day", rule, o)
		}
		_, end := t.ZoneBounds()
		if end.IsZero() || end.Year() > 2026 {
			break
		}
		t = end
	}
	return loc, nil
}

// maxOffset bounds the offsets a location may have: a day (real zones are
// within 14 hours of UTC; POSIX allows 24:59:59).
const maxOffset = 24 * 3600

// tzif builds a version-2 TZif file with one local time type (off, abbr),
// no transitions, and rule as its footer (none when rule is "").
func tzif(rule string, off int, abbr string) []byte {
	var b []byte
	block := func() {
		b = append(b, "TZif2"...)
		b = append(b, make([]byte, 15)...)
		for _, n := range []int{0, 0, 0, 0, 1, len(abbr) + 1} { // isut, isstd, leap, time, type, char counts
			b = binary.BigEndian.AppendUint32(b, uint32(n))
		}
		b = binary.BigEndian.AppendUint32(b, uint32(int32(off)))
		b = append(b, 0, 0) // isdst, abbreviation index
		b = append(b, abbr...)
		b = append(b, 0)
	}
	block() // version 1 data
	block() // version 2 data (64-bit times; there are none)
	b = append(b, '\n')
	b = append(b, rule...)
	return append(b, '\n')
}

// zone is what a location says at an instant.
type zone struct {
	abbr string
	off  int
	dst  bool
}

func zoneAt(loc *time.Location, t time.Time) zone {
	t = t.In(loc)
	abbr, off := t.Zone()
	return zone{abbr, off, t.IsDST()}
}

// Rule returns a POSIX TZ rule that gives loc's offsets, abbreviations and
// daylight-saving flags at every instant of the given year: a standard
// zone alone (`<CET>-1`) when loc does not change that year, or a standard
// and a daylight zone with the dates of the two changes, each written as
// "the n-th weekday of the month" (the week 5, "the last", wherever the
// day is the month's last such weekday) at the local time it happens. ok
// is false when loc changes in another way that year (more than two
// changes, or changes that are not one into daylight time and one out of
// it), which a recurring rule cannot say.
func Rule(loc *time.Location, year int) (rule string, ok bool) {
	start := time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC).Add(-14 * time.Hour) // local midnight of Jan 1 everywhere
	end := time.Date(year+1, 1, 1, 0, 0, 0, 0, time.UTC).Add(14 * time.Hour)
	first := zoneAt(loc, start)
	type change struct {
		at       time.Time // the first instant of the new zone
		from, to zone
	}
	// Each zone's end (time.Time.ZoneBounds) is the next change, however
	// short the zone in force: a location may even have a daylight time
	// of an hour (a rule that starts and ends it on the same day).
	var changes []change
	var bounds []time.Time // every zone's start, changes or not
	prev := first
	for t, n := start, 0; ; n++ {
		_, next := t.In(loc).ZoneBounds()
		if next.IsZero() || next.After(end) || !next.After(t) {
			break // no change before the end (none at all: zero)
		}
		if n == maxBounds {
			return "", false
		}
		t = next
		bounds = append(bounds, t)
		z := zoneAt(loc, t)
		if z == prev {
			continue // a change to the same offset, name and flag
		}
		changes = append(changes, change{t, prev, z})
		prev = z
	}
	// Changes in the slack around the year belong to the year before or
	// after: keep those whose local date is in the year.
	kept := changes[:0]
	for _, c := range changes {
		if c.at.Add(time.Duration(c.from.off)*time.Second).UTC().Year() == year {
			kept = append(kept, c)
		}
	}
	changes = kept
	switch {
	case len(changes) == 0:
		if first.dst || !nameOK(first.abbr) {
			return "", false
		}
		rule = "<" + first.abbr + ">" + offset(first.off)
		return rule, agrees(loc, rule, start, end, bounds)
	case len(changes) != 2:
		return "", false
	}
	on, off := changes[0], changes[1]
	if !on.to.dst {
		on, off = off, on
	}
	if !on.to.dst || off.to.dst || on.from != off.to || off.from != on.to || !nameOK(on.from.abbr) || !nameOK(on.to.abbr) {
		return "", false
	}
	std, dst := on.from, on.to
	rule = fmt.Sprintf("<%s>%s<%s>%s,%s,%s", std.abbr, offset(std.off), dst.abbr, offset(dst.off),
		date(on.at, std.off), date(off.at, dst.off))
	return rule, agrees(loc, rule, start, end, bounds)
}

// agrees reports whether the location rule builds says what loc says
// from start to end: every hour, and a second before and at each of
// loc's zone bounds. A rule read back evaluates each year on its own, as
// the time package does; a location whose changes do not repeat that
// way (a daylight time that runs across the new year on some days of a
// year and not others) has no rule.
func agrees(loc *time.Location, rule string, start, end time.Time, bounds []time.Time) bool {
	again, err := RuleLocation("check", rule, 0, "X")
	if err != nil {
		return false
	}
	same := func(t time.Time) bool { return zoneAt(loc, t) == zoneAt(again, t) }
	for _, b := range bounds {
		if !same(b) || !same(b.Add(-time.Second)) {
			return false
		}
	}
	for t := start; !t.After(end); t = t.Add(time.Hour) {
		if !same(t) {
			return false
		}
	}
	return true
}

// maxBounds bounds the zones Rule walks through in a year (a recurring
// rule has two, some locations a few more that change nothing).
const maxBounds = 64

// nameOK reports a name usable inside <...> of a POSIX rule.
func nameOK(s string) bool {
	return len(s) >= 3 && len(s) < 200 && !strings.ContainsAny(s, "<>,\n\x00")
}

// offset writes off (seconds east of UTC) as a POSIX offset (hours west).
func offset(off int) string {
	w := -off
	sign := ""
	if w < 0 {
		sign, w = "-", -w
	}
	s := fmt.Sprintf("%s%d", sign, w/3600)
	if m, sec := w%3600/60, w%60; m != 0 || sec != 0 {
		s += fmt.Sprintf(":%02d", m)
		if sec != 0 {
			s += fmt.Sprintf(":%02d", sec)
		}
	}
	return s
}

// date writes the instant at, in local time of offset off (the zone in
// force before the change), as POSIX's Mm.w.d/time.
func date(at time.Time, off int) string {
	l := at.Add(time.Duration(off) * time.Second).UTC()
	week := (l.Day()-1)/7 + 1
	if l.Day()+7 > daysIn(l.Year(), l.Month()) {
		week = 5 // the last such weekday of the month
	}
	secs := l.Hour()*3600 + l.Minute()*60 + l.Second()
	s := fmt.Sprintf("M%d.%d.%d/%d", int(l.Month()), week, int(l.Weekday()), secs/3600)
	if m, sec := secs%3600/60, secs%60; m != 0 || sec != 0 {
		s += fmt.Sprintf(":%02d", m)
		if sec != 0 {
			s += fmt.Sprintf(":%02d", sec)
		}
	}
	return s
}

func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
