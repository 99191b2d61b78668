package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/wintz"
)

// TestOneZoneName: every writer and viewer of a log names its zone one
// way, whichever way TZ gives the local zone (a path into zoneinfo, a
// name, ":name", or unset for /etc/localtime), and a log from another
// zone keeps its own name through every conversion: typeperf's CSV
// header, relog's CSV of our binary log, dump of the binary log, and, for
// Windows' SampleLog.blg (Eastern, August 2007), relog to CSV, to our
// binary log and back, and dump, all say "Eastern Daylight Time".
func TestOneZoneName(t *testing.T) {
	bin := buildPerfc(t)
	blg, err := filepath.Abs(filepath.Join("..", "..", "perflog", "blg", "testdata", "SampleLog.blg"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("/usr/share/zoneinfo/Europe/Paris"); err != nil {
		t.Skip("no zoneinfo tree at /usr/share/zoneinfo: TZ as a path cannot be tried")
	}
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	header := regexp.MustCompile(`^"\(PDH-CSV 4\.0\) \(([^)]*)\)\((-?\d+)\)"`)
	seen := regexp.MustCompile(`seen as "([^"]*)"`)
	run := func(tz string, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "PERFC_STATE_DIR="+t.TempDir())
		cmd.Env = slicesDeleteTZ(cmd.Env)
		if tz != "unset" {
			cmd.Env = append(cmd.Env, "TZ="+tz)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("TZ=%s perfc %q: %v\n%s", tz, args, err, out)
		}
		return string(out)
	}
	headerName := func(file string) string {
		t.Helper()
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m := header.FindStringSubmatch(string(b))
		if m == nil {
			t.Fatalf("%s: no PDH-CSV zone in %.80q", file, b)
		}
		return m[1]
	}
	seenName := func(dump string) string {
		t.Helper()
		m := seen.FindStringSubmatch(dump)
		if m == nil {
			t.Fatalf("dump names no zone:\n%.400s", dump)
		}
		return m[1]
	}

	// The local zone: Paris given three ways; its Windows name now.
	want := wintz.At(time.Now().In(paris)).Name
	for _, tz := range []string{"/usr/share/zoneinfo/Europe/Paris", "Europe/Paris", ":Europe/Paris"} {
		dir := t.TempDir()
		csv, plog, back := filepath.Join(dir, "x.csv"), filepath.Join(dir, "x.plog"), filepath.Join(dir, "back.csv")
		run(tz, "typeperf", `\Memory\Available MBytes`, "-si", "1", "-sc", "2", "-f", "CSV", "-o", csv, "-y")
		run(tz, "typeperf", `\Memory\Available MBytes`, "-si", "1", "-sc", "2", "-f", "BIN", "-o", plog, "-y")
		run(tz, "relog", plog, "-f", "CSV", "-o", back, "-y")
		for what, got := range map[string]string{
			"typeperf -f CSV":                headerName(csv),
			"relog of typeperf's binary log": headerName(back),
			"dump of the binary log":         seenName(run(tz, "dump", plog)),
		} {
			if got != want {
				t.Errorf("TZ=%s: %s names the zone %q, want %q", tz, what, got, want)
			}
		}
	}

	// The machine's own zone, TZ unset: every tool agrees with the others.
	{
		dir := t.TempDir()
		csv, plog, back := filepath.Join(dir, "x.csv"), filepath.Join(dir, "x.plog"), filepath.Join(dir, "back.csv")
		run("unset", "typeperf", `\Memory\Available MBytes`, "-si", "1", "-sc", "2", "-f", "CSV", "-o", csv, "-y")
		run("unset", "typeperf", `\Memory\Available MBytes`, "-si", "1", "-sc", "2", "-f", "BIN", "-o", plog, "-y")
		run("unset", "relog", plog, "-f", "CSV", "-o", back, "-y")
		a, b, c := headerName(csv), headerName(back), seenName(run("unset", "dump", plog))
		if a != b || b != c {
			t.Errorf("TZ unset: typeperf says %q, relog %q, dump %q", a, b, c)
		}
	}

	// A log from another zone keeps its zone, whatever the local one.
	for _, tz := range []string{"/usr/share/zoneinfo/Europe/Paris", "Asia/Tokyo", "unset"} {
		dir := t.TempDir()
		csv, plog, back := filepath.Join(dir, "s.csv"), filepath.Join(dir, "s.plog"), filepath.Join(dir, "back.csv")
		run(tz, "relog", blg, "-f", "CSV", "-o", csv, "-y")
		run(tz, "relog", blg, "-f", "BIN", "-o", plog, "-y")
		run(tz, "relog", plog, "-f", "CSV", "-o", back, "-y")
		blgDump := run(tz, "dump", blg)
		for what, got := range map[string]string{
			"relog of the BLG to CSV":              headerName(csv),
			"relog of the BLG to BIN, then to CSV": headerName(back),
			"dump of the BIN":                      seenName(run(tz, "dump", plog)),
		} {
			if got != "Eastern Daylight Time" {
				t.Errorf("TZ=%s: %s names the zone %q, want Eastern Daylight Time", tz, what, got)
			}
		}
		if !strings.Contains(blgDump, "time zone Eastern Daylight Time (bias 240 minutes)") {
			t.Errorf("TZ=%s: dump of the BLG:\n%.400s", tz, blgDump)
		}
	}
}

// slicesDeleteTZ drops TZ from an environment.
func slicesDeleteTZ(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TZ=") {
			out = append(out, kv)
		}
	}
	return out
}
