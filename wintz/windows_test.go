package wintz

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
	_ "time/tzdata" // the zones below even on a machine without /usr/share/zoneinfo
)

// TestAt checks the zone of several times as the first header cell of a
// PDH text log shows it (At), for several zones,
// in standard and daylight time. Expected names and biases are Windows'
// (the Pacific ones as PDH wrote them in the PowerShell sample logs; the
// others from Windows' zone names, bias = UTC minus local, DST included).
func TestAt(t *testing.T) {
	winter := time.Date(2016, 1, 15, 12, 0, 0, 0, time.UTC)
	summer := time.Date(2016, 7, 15, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		zone string
		at   time.Time
		want string
	}{
		{"America/Los_Angeles", winter, `"(PDH-CSV 4.0) (Pacific Standard Time)(480)"`},
		{"America/Los_Angeles", summer, `"(PDH-CSV 4.0) (Pacific Daylight Time)(420)"`},
		{"US/Pacific", summer, `"(PDH-CSV 4.0) (Pacific Daylight Time)(420)"`},
		{"America/New_York", summer, `"(PDH-CSV 4.0) (Eastern Daylight Time)(240)"`},
		{"Europe/Paris", winter, `"(PDH-CSV 4.0) (Romance Standard Time)(-60)"`},
		{"Europe/Paris", summer, `"(PDH-CSV 4.0) (Romance Daylight Time)(-120)"`},
		{"Europe/London", summer, `"(PDH-CSV 4.0) (GMT Daylight Time)(-60)"`},
		{"Asia/Kolkata", summer, `"(PDH-CSV 4.0) (India Standard Time)(-330)"`},
		{"Asia/Calcutta", winter, `"(PDH-CSV 4.0) (India Standard Time)(-330)"`},
		{"Australia/Sydney", winter, `"(PDH-CSV 4.0) (AUS Eastern Daylight Time)(-660)"`},
		{"Australia/Sydney", summer, `"(PDH-CSV 4.0) (AUS Eastern Standard Time)(-600)"`},
		{"America/Caracas", summer, `"(PDH-CSV 4.0) (Venezuela Standard Time)(240)"`},
		{"Asia/Jerusalem", summer, `"(PDH-CSV 4.0) (Jerusalem Daylight Time)(-180)"`},
		{"UTC", summer, `"(PDH-CSV 4.0) (Coordinated Universal Time)(0)"`},
		{"Etc/UTC", winter, `"(PDH-CSV 4.0) (Coordinated Universal Time)(0)"`},
		{"Europe/Samara", winter, `"(PDH-CSV 4.0) (Russia TZ 3 Standard Time)(-240)"`},
	}
	for _, tt := range tests {
		t.Run(tt.zone+"/"+tt.at.Month().String(), func(t *testing.T) {
			loc, err := time.LoadLocation(tt.zone)
			if err != nil {
				t.Fatal(err)
			}
			z := At(tt.at.In(loc))
			if got := fmt.Sprintf(`"(PDH-CSV 4.0) (%s)(%d)"`, z.Name, z.Bias); got != tt.want {
				t.Errorf("header cell = %s\nwant          %s", got, tt.want)
			}
		})
	}
	// A zone Windows has no name for keeps Go's abbreviation.
	z := At(summer.In(time.FixedZone("XYZ", 5*3600+1800)))
	if z != (Zone{Name: "XYZ", Bias: -330}) {
		t.Errorf("fixed zone: %+v", z)
	}
}

func TestWindowsKeyTable(t *testing.T) {
	// Every IANA zone appears once in the table: a duplicate would make
	// the answer depend on line order.
	seen := map[string]string{}
	for _, l := range splitLines(windowsZoneTable) {
		key, zones, ok := cut(l)
		if !ok {
			t.Fatalf("malformed line %q", l)
		}
		for _, z := range fields(zones) {
			if prev, dup := seen[z]; dup {
				t.Errorf("%s under both %q and %q", z, prev, key)
			}
			seen[z] = key
		}
	}
	if len(seen) < 400 {
		t.Errorf("only %d zones in the table", len(seen))
	}
	for _, l := range splitLines(ianaAliases) {
		alias, canon, ok := cutSpace(l)
		if !ok {
			t.Fatalf("malformed alias %q", l)
		}
		if _, ok := seen[canon]; !ok {
			t.Errorf("alias %s points to %s, which the table lacks", alias, canon)
		}
	}
}

// TestLocalZoneName: every spelling of TZ gives the zone's IANA name: a
// name, ":name", a path into a zoneinfo directory, or a link to one (as
// /etc/localtime is); a file outside every zoneinfo directory gives none.
func TestLocalZoneName(t *testing.T) {
	dir := t.TempDir()
	paris := filepath.Join(dir, "zoneinfo", "Europe", "Paris")
	if err := os.MkdirAll(filepath.Dir(paris), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(paris, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "localtime")
	if err := os.Symlink(paris, link); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "myzone")
	if err := os.WriteFile(other, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ tz, want string }{
		{"Europe/Paris", "Europe/Paris"},
		{":America/Los_Angeles", "America/Los_Angeles"},
		{"/usr/share/zoneinfo/Asia/Tokyo", "Asia/Tokyo"},
		{"/usr/share/zoneinfo/posix/Asia/Tokyo", "Asia/Tokyo"},
		{"", "UTC"},
		{paris, "Europe/Paris"},
		{link, "Europe/Paris"},
		{":" + link, "Europe/Paris"},
		{other, ""},
	} {
		t.Setenv("TZ", tt.tz)
		if got := LocalName(); got != tt.want {
			t.Errorf("TZ=%q: %q, want %q", tt.tz, got, tt.want)
		}
	}
	// TZ=:/etc/localtime is the system's zone, whatever /etc/localtime is.
	t.Setenv("TZ", "")
	os.Unsetenv("TZ")
	system := LocalName()
	t.Setenv("TZ", ":/etc/localtime")
	if got := LocalName(); got != system {
		t.Errorf("TZ=:/etc/localtime: %q, want %q (TZ unset)", got, system)
	}
}

func splitLines(s string) []string {
	var out []string
	for _, l := range bytes.Split([]byte(s), []byte("\n")) {
		if len(l) > 0 {
			out = append(out, string(l))
		}
	}
	return out
}

func cut(l string) (string, string, bool) {
	i := bytes.IndexByte([]byte(l), '\t')
	if i < 0 {
		return "", "", false
	}
	return l[:i], l[i+1:], true
}

func cutSpace(l string) (string, string, bool) {
	f := fields(l)
	if len(f) != 2 {
		return "", "", false
	}
	return f[0], f[1], true
}

func fields(s string) []string {
	var out []string
	for _, f := range bytes.Fields([]byte(s)) {
		out = append(out, string(f))
	}
	return out
}

// TestZoneLocation: the location of a header's zone names it exactly as
// the header does, also for names a time-zone table knows otherwise.
func TestZoneLocationNamesBack(t *testing.T) {
	for _, z := range []Zone{{Name: "Pacific Standard Time", Bias: 480}, {Name: "UTC", Bias: 0}, {Name: "CET", Bias: -60}, {Name: "Europe/Paris", Bias: -60}, {Name: "India Standard Time", Bias: -330}, {Name: "Coordinated Universal Time", Bias: 0}} {
		tm := time.Date(2024, 7, 1, 12, 0, 0, 0, time.UTC)
		if got := At(tm.In(z.Location())); got != z {
			t.Errorf("%+v: At gives %+v", z, got)
		}
	}
}

// TestIANAName: a location gives its IANA name however it was loaded:
// by name, from a path into a zoneinfo directory (as time.Local is when
// TZ is a path), or not at all (fixed zones, rules).
func TestIANAName(t *testing.T) {
	data, err := os.ReadFile("/usr/share/zoneinfo/Europe/Paris")
	if err != nil {
		t.Skip("no zoneinfo tree:", err)
	}
	byPath, err := time.LoadLocationFromTZData("/usr/share/zoneinfo/Europe/Paris", data)
	if err != nil {
		t.Fatal(err)
	}
	byName, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	rule, err := RuleLocation("X", "<XST>5<XDT>4,M3.2.0/2,M11.1.0/2", -5*3600, "XST")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		loc  *time.Location
		want string
	}{
		{byName, "Europe/Paris"},
		{byPath, "Europe/Paris"},
		{time.FixedZone("XYZ", 3600), ""},
		{rule, ""},
		{time.UTC, "UTC"},
	} {
		if got := IANAName(tc.loc); got != tc.want {
			t.Errorf("IANAName(%s) = %q, want %q", tc.loc, got, tc.want)
		}
	}
	summer := time.Date(2024, 7, 1, 12, 0, 0, 0, time.UTC)
	if a, b := At(summer.In(byPath)), At(summer.In(byName)); a != b || a.Name != "Romance Daylight Time" {
		t.Errorf("At by path %+v, by name %+v; want both Romance Daylight Time", a, b)
	}
}
