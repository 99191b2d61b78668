package wintz

import (
	"testing"
	"time"
)

// TestRuleRebuildsZones: for zones of the IANA database (the oracle: Go's
// own time zone data), the rule derived for a year, built back into a
// location, gives the same offset, abbreviation and daylight flag at every
// quarter hour of that year.
func TestRuleRebuildsZones(t *testing.T) {
	for _, tc := range []struct {
		zone string
		year int
		want string // the rule expected, written from the zone's published rules
	}{
		{"America/New_York", 2026, "<EST>5<EDT>4,M3.2.0/2,M11.1.0/2"},
		{"America/New_York", 2007, "<EST>5<EDT>4,M3.2.0/2,M11.1.0/2"},
		{"America/Los_Angeles", 2016, "<PST>8<PDT>7,M3.2.0/2,M11.1.0/2"},
		{"Europe/Paris", 2026, "<CET>-1<CEST>-2,M3.5.0/2,M10.5.0/3"},
		{"Europe/London", 2024, "<GMT>0<BST>-1,M3.5.0/1,M10.5.0/2"},
		{"Australia/Sydney", 2026, "<AEST>-10<AEDT>-11,M10.1.0/2,M4.1.0/3"},
		{"Australia/Lord_Howe", 2026, "<+1030>-10:30<+11>-11,M10.1.0/2,M4.1.0/2"},
		{"America/Sao_Paulo", 2016, "<-03>3<-02>2,M10.3.0/0,M2.3.0/0"},
		{"Asia/Kolkata", 2026, "<IST>-5:30"},
		{"UTC", 2026, "<UTC>0"},
	} {
		t.Run(tc.zone+"/"+time.Date(tc.year, 1, 1, 0, 0, 0, 0, time.UTC).Format("2006"), func(t *testing.T) {
			loc, err := time.LoadLocation(tc.zone)
			if err != nil {
				t.Skipf("no time zone data: %v", err)
			}
			rule, ok := Rule(loc, tc.year)
			if !ok {
				t.Fatalf("no rule for %s in %d", tc.zone, tc.year)
			}
			if rule != tc.want {
				t.Errorf("rule %q, want %q", rule, tc.want)
			}
			built, err := RuleLocation(tc.zone+" (rule)", rule, 0, "X")
			if err != nil {
				t.Fatalf("RuleLocation(%q): %v", rule, err)
			}
			sameYear(t, loc, built, tc.year)
		})
	}
}

// sameYear compares two locations at every quarter hour of year.
func sameYear(t *testing.T, want, got *time.Location, year int) {
	t.Helper()
	end := time.Date(year+1, 1, 1, 0, 0, 0, 0, time.UTC)
	bad := 0
	for at := time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC); at.Before(end); at = at.Add(15 * time.Minute) {
		if w, g := zoneAt(want, at), zoneAt(got, at); w != g {
			if bad++; bad <= 3 {
				t.Errorf("at %v: got %+v, want %+v", at, g, w)
			}
		}
	}
}

// TestRuleOfWindowsZone: a rule as a BLG's TIME_ZONE_INFORMATION gives
// (names with spaces; perflog/blg builds such locations) is found again
// from the location built from it.
func TestRuleOfWindowsZone(t *testing.T) {
	rule := "<Eastern Standard Time>5:00<Eastern Daylight Time>4:00,M3.2.0/2:00:00,M11.1.0/2:00:00"
	loc, err := RuleLocation("Eastern Standard Time", rule, -5*3600, "Eastern Standard Time")
	if err != nil {
		t.Fatal(err)
	}
	for _, year := range []int{2007, 2016, 2026} {
		got, ok := Rule(loc, year)
		if want := "<Eastern Standard Time>5<Eastern Daylight Time>4,M3.2.0/2,M11.1.0/2"; !ok || got != want {
			t.Fatalf("%d: rule %q %v, want %q", year, got, ok, want)
		}
		again, err := RuleLocation("x", got, 0, "x")
		if err != nil {
			t.Fatal(err)
		}
		sameYear(t, loc, again, year)
	}
	if a, _ := time.Date(2007, 8, 14, 19, 40, 0, 0, time.UTC).In(loc).Zone(); a != "Eastern Daylight Time" {
		t.Errorf("August 2007: %q, want Eastern Daylight Time", a)
	}
}

// TestFixedLocation: an empty rule is a fixed zone whose abbreviation is
// not its name.
func TestFixedLocation(t *testing.T) {
	loc, err := RuleLocation("Pacific Standard Time (text log)", "", -8*3600, "Pacific Standard Time")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2016, 7, 1, 12, 0, 0, 0, time.UTC).In(loc)
	if abbr, off := at.Zone(); abbr != "Pacific Standard Time" || off != -8*3600 || loc.String() != "Pacific Standard Time (text log)" {
		t.Errorf("zone %q %d, name %q", abbr, off, loc)
	}
	rule, ok := Rule(loc, 2016)
	if !ok || rule != "<Pacific Standard Time>8" {
		t.Errorf("rule %q %v", rule, ok)
	}
}

// TestRuleRefused: what a recurring rule cannot say is refused, and bad
// input to Location is an error, not a panic.
func TestRuleRefused(t *testing.T) {
	// Morocco suspends daylight time for Ramadan: four changes a year.
	if loc, err := time.LoadLocation("Africa/Casablanca"); err == nil {
		if r, ok := Rule(loc, 2012); ok {
			t.Errorf("Africa/Casablanca 2012: rule %q, want none (four changes)", r)
		}
	}
	for _, rule := range []string{"bad\nrule", string(make([]byte, 2000))} {
		if _, err := RuleLocation("x", rule, 0, "x"); err == nil {
			t.Errorf("RuleLocation(%q) accepted", rule)
		}
	}
	// A rule Go's reader cannot parse leaves the fixed zone of the file.
	loc, err := RuleLocation("x", "<A>1<B", 3600, "Y")
	if err != nil {
		t.Fatal(err)
	}
	if abbr, off := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC).In(loc).Zone(); abbr != "Y" || off != 3600 {
		t.Errorf("malformed rule: zone %q %d, want the fixed zone Y +3600", abbr, off)
	}
}
