package wintz

import (
	"testing"
	"time"
)

// FuzzLocation: a rule read from a file (a binary log's INFO record) gives
// an error or a location that answers for any instant with an offset of
// at most a day; a rule derived from such a
// location, where there is one, builds a location that agrees with it
// over the year it was derived for.
func FuzzLocation(f *testing.F) {
	for _, r := range []string{
		"<Eastern Standard Time>5<Eastern Daylight Time>4,M3.2.0/2,M11.1.0/2",
		"<CET>-1<CEST>-2,M3.5.0/2,M10.5.0/3",
		"<+1030>-10:30<+11>-11,M10.1.0/2,M4.1.0/2",
		"<IST>-5:30", "EST5EDT,M3.2.0,M11.1.0", "<A>1<B", "J60/25,J300", "<X>24<Y>-24,0/0,365/0",
	} {
		f.Add(r, int32(-5*3600), "X")
	}
	f.Fuzz(func(t *testing.T, rule string, off int32, abbr string) {
		loc, err := RuleLocation("fuzz", rule, int(off%(26*3600)), abbr)
		if err == nil && (off%(26*3600) > maxOffset || off%(26*3600) < -maxOffset) {
			t.Fatalf("offset %d accepted", off%(26*3600))
		}
		if err != nil {
			return
		}
		for _, at := range []time.Time{
			time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 8, 7, 0, 0, 0, time.UTC),
			time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC),
		} {
			if _, o := at.In(loc).Zone(); o < -maxOffset || o > maxOffset {
				t.Fatalf("rule %q: offset %d at %v", rule, o, at)
			}
		}
		derived, ok := Rule(loc, 2026)
		if !ok {
			return
		}
		again, err := RuleLocation("again", derived, 0, "X")
		if err != nil {
			t.Fatalf("rule %q: derived %q does not build: %v", rule, derived, err)
		}
		for at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC); at.Year() == 2026; at = at.Add(time.Hour) {
			if a, b := zoneAt(loc, at), zoneAt(again, at); a != b {
				t.Fatalf("rule %q, derived %q: at %v %+v, rebuilt %+v", rule, derived, at, a, b)
			}
		}
	})
}
