package binlog

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/wintz"
)

// TestZoneRule: a log written in a zone that only its rules describe (no
// IANA name: a BLG's zone, a text log's) reads back with the same offsets
// and names on both sides of its daylight-saving changes; a zone with an
// IANA name is stored by that name, without a rule; and an INFO record
// from before the rule field reads as it did (a fixed zone).
func TestZoneRule(t *testing.T) {
	windows, err := wintz.RuleLocation("Eastern Standard Time",
		"<Eastern Standard Time>5<Eastern Daylight Time>4,M3.2.0/2,M11.1.0/2", -5*3600, "Eastern Standard Time")
	if err != nil {
		t.Fatal(err)
	}
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skipf("no time zone data: %v", err)
	}
	at := time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		loc      *time.Location
		wantRule string
	}{
		{"rules only", windows, "<Eastern Standard Time>5<Eastern Daylight Time>4,M3.2.0/2,M11.1.0/2"},
		{"IANA", paris, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := gapOnlyLog(t, tc.loc, at)
			if l.first.rule != tc.wantRule {
				t.Errorf("INFO zone rule %q, want %q", l.first.rule, tc.wantRule)
			}
			for _, when := range []time.Time{
				time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC), at,
				time.Date(2026, 3, 8, 6, 59, 59, 0, time.UTC), time.Date(2026, 3, 8, 7, 0, 0, 0, time.UTC), // New York's change
				time.Date(2027, 12, 24, 0, 0, 0, 0, time.UTC),
			} {
				wa, wo := when.In(tc.loc).Zone()
				ga, gofs := when.In(l.Location()).Zone()
				if wa != ga || wo != gofs {
					t.Errorf("at %v: read back %s %d, written %s %d", when, ga, gofs, wa, wo)
				}
			}
		})
	}
	// An INFO payload as written before the rule field: it ends at cause.
	var b []byte
	for _, s := range []string{"h", "Pacific Standard Time (text log)", ""} {
		b = appendString(b, s)
	}
	b = binary.AppendVarint(b, -28800) // UTC offset
	b = append(b, 0, 0)                // PerfFreq 0, no counter list
	b = appendString(b, "perfc binlog")
	b = append(b, 0) // cause
	in, err := parseInfo(b)
	if err != nil || in.rule != "" || in.offset != -28800 || in.zone != "Pacific Standard Time (text log)" {
		t.Errorf("old INFO: %+v, %v", in, err)
	}
}

// TestZoneName: the INFO record names the zone by its IANA name however
// TZ spells it (a name, ":name", a path into zoneinfo, a link to one, as
// /etc/localtime is), not as the user spelled it ("Local", a path); a zone
// without an IANA name keeps its own name.
func TestZoneName(t *testing.T) {
	if _, err := time.LoadLocation("Europe/Paris"); err != nil {
		t.Skipf("no time zone data: %v", err)
	}
	// time.Local reads TZ once, when first used: use it now, so that it
	// is the test process's zone whatever TZ says below, as a program's
	// time.Local is whatever it was started with. Only the names follow TZ.
	_ = time.Local.String()
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
	for _, tc := range []struct {
		name, tz   string
		loc        *time.Location
		zone, iana string
	}{
		{"TZ a name", "Europe/Paris", time.Local, "Europe/Paris", "Europe/Paris"},
		{"TZ :name", ":Europe/Paris", time.Local, "Europe/Paris", "Europe/Paris"},
		{"TZ a path", "/usr/share/zoneinfo/Europe/Paris", time.Local, "Europe/Paris", "Europe/Paris"},
		{"TZ a link", ":" + link, time.Local, "Europe/Paris", "Europe/Paris"},
		{"UTC", "Europe/Paris", time.UTC, "UTC", "UTC"},
		{"fixed zone", "Europe/Paris", time.FixedZone("XST", 5*3600+1800), "XST", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("TZ", tc.tz)
			l := gapOnlyLog(t, tc.loc, time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC))
			if l.first.zone != tc.zone || l.first.iana != tc.iana {
				t.Errorf("INFO zone %q, IANA %q; want %q, %q", l.first.zone, l.first.iana, tc.zone, tc.iana)
			}
		})
	}
}
