package blg

import (
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/perfdata"
)

// TestZoneLocation: the TIME_ZONE_INFORMATION rules become a Location with
// Windows' names; expectations are the US rules of 2007 on (second Sunday
// of March, first Sunday of November, 2:00 local) and Go's own zone data.
func TestZoneLocation(t *testing.T) {
	pacific := Zone{
		Bias: 480, StandardName: "Pacific Standard Time", DaylightName: "Pacific Daylight Time", DaylightBias: -60,
		StandardDate: perfdata.SystemTime{Month: 11, DayOfWeek: 0, Day: 1, Hour: 2},
		DaylightDate: perfdata.SystemTime{Month: 3, DayOfWeek: 0, Day: 2, Hour: 2},
	}
	noDST := Zone{Bias: 180, StandardName: "SA Eastern Standard Time", DaylightName: "SA Eastern Standard Time"}
	east := Zone{Bias: -330, StandardName: "India Standard Time", DaylightName: "India Daylight Time"}
	unresolved := pacific
	unresolved.StandardName, unresolved.DaylightName = "@tzres.dll,-999", "@tzres.dll,-998"
	for _, tc := range []struct {
		name string
		z    Zone
		utc  time.Time
		want string // wall clock and zone name
	}{
		{"winter", pacific, time.Date(2016, 11, 26, 21, 46, 30, 0, time.UTC), "13:46:30 Pacific Standard Time -0800"},
		{"summer", pacific, time.Date(2016, 7, 1, 12, 0, 0, 0, time.UTC), "05:00:00 Pacific Daylight Time -0700"},
		{"just before spring forward", pacific, time.Date(2016, 3, 13, 9, 59, 59, 0, time.UTC), "01:59:59 Pacific Standard Time -0800"},
		{"spring forward", pacific, time.Date(2016, 3, 13, 10, 0, 0, 0, time.UTC), "03:00:00 Pacific Daylight Time -0700"},
		{"fall back", pacific, time.Date(2016, 11, 6, 9, 0, 0, 0, time.UTC), "01:00:00 Pacific Standard Time -0800"},
		{"no daylight rule", noDST, time.Date(2007, 7, 2, 12, 0, 0, 0, time.UTC), "09:00:00 SA Eastern Standard Time -0300"},
		{"east of UTC, half hour", east, time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), "05:30:00 India Standard Time +0530"},
		{"names kept as references", unresolved, time.Date(2016, 7, 1, 12, 0, 0, 0, time.UTC), "05:00:00 @tzres.dll,-998 -0700"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.utc.In(tc.z.Location()).Format("15:04:05 MST -0700")
			if got != tc.want {
				t.Errorf("%v: %s, want %s", tc.utc, got, tc.want)
			}
		})
	}
	// Cross-check the rule against Go's zone data where it is installed.
	if la, err := time.LoadLocation("America/Los_Angeles"); err == nil {
		loc := pacific.Location()
		for d := time.Date(2008, 1, 1, 0, 30, 0, 0, time.UTC); d.Year() < 2030; d = d.Add(7*time.Hour + 13*time.Minute) {
			_, o1 := d.In(loc).Zone()
			_, o2 := d.In(la).Zone()
			if o1 != o2 {
				t.Fatalf("%v: offset %d, America/Los_Angeles %d", d, o1, o2)
			}
		}
	}
}

// TestLocalTimeCache: localTime, which converts most wall-clock times
// with the offset it used last, gives what time.Date gives for every
// time of a walk over two years in zones with and without daylight
// saving time, forwards, backwards and in jumps, across every change of
// offset (the hours that are skipped or repeated included).
func TestLocalTimeCache(t *testing.T) {
	pacific := Zone{
		Bias: 480, StandardName: "Pacific Standard Time", DaylightName: "Pacific Daylight Time", DaylightBias: -60,
		StandardDate: perfdata.SystemTime{Month: 11, DayOfWeek: 0, Day: 1, Hour: 2},
		DaylightDate: perfdata.SystemTime{Month: 3, DayOfWeek: 0, Day: 2, Hour: 2},
	}
	south := Zone{ // Australia: daylight saving time over the new year
		Bias: -600, StandardName: "AUS Eastern Standard Time", DaylightName: "AUS Eastern Daylight Time", DaylightBias: -60,
		StandardDate: perfdata.SystemTime{Month: 4, DayOfWeek: 0, Day: 1, Hour: 3},
		DaylightDate: perfdata.SystemTime{Month: 10, DayOfWeek: 0, Day: 1, Hour: 2},
	}
	noDST := Zone{Bias: 180, StandardName: "SA Eastern Standard Time", DaylightName: "SA Eastern Standard Time"}
	start := time.Date(2015, 12, 20, 0, 7, 13, 5_000_000, time.UTC) // a wall-clock time, written as UTC
	for _, z := range []Zone{pacific, south, noDST} {
		l := &Log{loc: z.Location()}
		ft := perfdata.FileTime(start)
		steps := []int64{17 * 60 * 1e7, -23 * 60 * 1e7, 1e7, 40 * 24 * 3600 * 1e7, -39 * 24 * 3600 * 1e7}
		for i := range 80000 {
			ft += steps[i%len(steps)]
			w := perfdata.FileTimeToTime(ft)
			want := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), l.loc).UTC()
			if got := l.localTime(ft); !got.Equal(want) {
				t.Fatalf("%s: wall clock %s: got %s, want %s", z.StandardName, w.Format(time.DateTime), got, want)
			}
		}
	}
}

// TestZoneOf: the zone a writer records, from a location and the rule
// its input stated: the TIME_ZONE_INFORMATION fields Windows has for the
// zone (biases in minutes west, "Day-th DayOfWeek of Month" dates), read
// back to the same rule.
func TestZoneOf(t *testing.T) {
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Skip(err)
	}
	at := time.Date(2026, 12, 8, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		loc  *time.Location
		rule string
		want Zone
	}{
		{"Los Angeles, derived", la, "", Zone{Bias: 480, StandardName: "Pacific Standard Time", DaylightName: "Pacific Daylight Time",
			DaylightBias: -60, DaylightDate: perfdata.SystemTime{Month: 3, Day: 2, DayOfWeek: 0, Hour: 2}, StandardDate: perfdata.SystemTime{Month: 11, Day: 1, DayOfWeek: 0, Hour: 2}}},
		{"a stated rule", time.UTC, "<Eastern Standard Time>5:00<Eastern Daylight Time>4:00,M3.2.0/2:00:00,M11.1.0/2:00:00",
			Zone{Bias: 300, StandardName: "Eastern Standard Time", DaylightName: "Eastern Daylight Time", DaylightBias: -60,
				DaylightDate: perfdata.SystemTime{Month: 3, Day: 2, Hour: 2}, StandardDate: perfdata.SystemTime{Month: 11, Day: 1, Hour: 2}}},
		{"fixed, east of UTC", time.FixedZone("IST", 5*3600+1800), "", Zone{Bias: -330, StandardName: "IST", DaylightName: "IST"}},
		{"a rule not understood", time.FixedZone("X", 3600), "garbage", Zone{Bias: -60, StandardName: "X", DaylightName: "X"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ZoneOf(tc.loc, tc.rule, at)
			if got != tc.want {
				t.Errorf("ZoneOf = %+v\nwant     %+v", got, tc.want)
			}
			var b [tziSize]byte
			putTZI(b[:], got)
			if back := parseTZI(b[:]); back != got {
				t.Errorf("written and read back: %+v", back)
			}
		})
	}
}
