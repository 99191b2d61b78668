package logman

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/state"
)

// TestQueryShowsWarnings: logman query NAME shows the newest lines of the
// set's warning log (the background collector's warnings) and where the
// whole log is; a set without warnings shows no section; delete removes
// the log and every other run-state file with the set.
func TestQueryShowsWarnings(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "alice")
	e := newEnv(t, dir, filepath.Join(base, "system"))
	for _, name := range []string{"few", "many", "none"} {
		mustOK(t, Create(e.o, Spec{Name: name, Counters: []string{`\Memory\Available Bytes`}, HasCounters: true}))
	}
	cases := []struct {
		name  string
		lines int
		head  string
		shown []int // the line numbers shown
	}{
		{"none", 0, "", nil},
		{"few", 3, "Warnings (in " + state.RunFilePath(dir, "few", state.WarningLogSuffix) + "):", []int{0, 1, 2}},
		{"many", 13, "Warnings (the newest 10; all in " + state.RunFilePath(dir, "many", state.WarningLogSuffix) + "):", []int{3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for i := range tc.lines {
				if err := state.AppendRunLog(dir, tc.name, fmt.Appendf(nil, "1/2/2026 3:04:05 AM  warning %d\n", i), 1<<16); err != nil {
					t.Fatal(err)
				}
			}
			e.out.Reset()
			mustOK(t, QuerySet(e.o, tc.name))
			out := e.out.String()
			if tc.head == "" {
				if strings.Contains(out, "Warnings") {
					t.Errorf("a set without warnings shows a warnings section:\n%s", out)
				}
				return
			}
			var want strings.Builder
			want.WriteString("\n" + tc.head + "\n")
			for _, i := range tc.shown {
				fmt.Fprintf(&want, "    1/2/2026 3:04:05 AM  warning %d\n", i)
			}
			want.WriteString("\nThe command completed successfully.\n")
			if !strings.HasSuffix(out, want.String()) {
				t.Errorf("query %s ends:\n%s\nwant it to end:\n%s", tc.name, out, want.String())
			}
		})
	}
	// Every run-state file goes with the set (issue 42: the record, lock
	// and status stayed, and a new set of the name showed the old one's
	// status).
	for _, suffix := range state.RunFileSuffixes {
		if err := state.WriteRunFile(dir, "many", suffix, []byte("{}\n")); err != nil {
			t.Fatal(err)
		}
	}
	l, err := state.LockRun(dir, "many")
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	e.out.Reset()
	mustOK(t, Delete(e.o, "many"))
	for _, suffix := range append(state.RunFileSuffixes[:], state.RunLockSuffix) {
		if _, err := os.Lstat(state.RunFilePath(dir, "many", suffix)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("run file %s after delete: %v, want it removed", suffix, err)
		}
	}
	mustOK(t, Create(e.o, Spec{Name: "many", Counters: []string{`\Memory\Available Bytes`}, HasCounters: true}))
	e.out.Reset()
	mustOK(t, QuerySet(e.o, "many"))
	if out := e.out.String(); strings.Contains(out, "Warnings") {
		t.Errorf("a new set of a deleted one's name shows the old one's warnings:\n%s", out)
	}
}
