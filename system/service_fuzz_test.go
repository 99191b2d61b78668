package system

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/perfcounters/perfcounters/proctext"
)

// FuzzParseSystemctlShow feeds arbitrary bytes to the parsers of
// systemctl's output (show and list-unit-files): neither may panic, and
// what they return stays within their bounds: at most maxServiceUnits
// units, names valid UTF-8 within an instance name's length, template
// units never listed. The committed corpus is in
// testdata/fuzz/FuzzParseSystemctlShow.
func FuzzParseSystemctlShow(f *testing.F) {
	for _, p := range []string{"testdata/systemd/show.txt", "testdata/systemd/list-unit-files.txt"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("Id=a.service\nMainPID=99999999999\nNRestarts=\nExecMainStartTimestamp=Tue 2026-12-08 01:02:03 CET\n\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		units, _ := ParseSystemctlShow(b, nil)
		if len(units) > maxServiceUnits {
			t.Fatalf("%d units", len(units))
		}
		for _, u := range units {
			for _, s := range []string{u.Name, u.Description, u.User, u.ExecPath, u.ActiveState, u.FileState} {
				if !utf8.ValidString(s) || len(s) > 4*proctext.MaxInstanceName {
					t.Fatalf("value %q", s)
				}
			}
			if u.Name == "" {
				t.Fatal("a unit without a name")
			}
			if st := u.WindowsState(); st < ServiceStopped || st > ServicePaused {
				t.Fatalf("state %d", st)
			}
		}
		files := ParseUnitFiles(b)
		if len(files) > maxServiceUnits {
			t.Fatalf("%d unit files", len(files))
		}
		for _, f := range files {
			if strings.HasSuffix(f.Name, "@.service") || !strings.HasSuffix(f.Name, ".service") {
				t.Fatalf("unit file %q", f.Name)
			}
		}
		merged := MergeUnitFiles(units, files)
		if len(merged) > maxServiceUnits {
			t.Fatalf("%d merged", len(merged))
		}
	})
}
