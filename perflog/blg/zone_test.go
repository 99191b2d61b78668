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
