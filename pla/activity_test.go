package pla

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/state"
)

// TestActivityPrivate: the command lines and output of a set's runs go
// to the private status file (mode 0600), the rest to the status file
// every user may read; ReadActivity puts them together again for a
// reader who may read both (issue 43 item 8).
func TestActivityPrivate(t *testing.T) {
	dir := t.TempDir()
	const secret = "--token=s3cret"
	ac := newActivity(dir, "hot", nil)
	ac.update(func(a *Activity) {
		r := a.action("task")
		r.Command, r.Output, r.Runs, r.Result = []string{"/usr/bin/notify", secret}, "printed "+secret+"\n", 1, "exit status 0"
		a.action("trigger").Runs = 2 // no command line: nothing private
	})
	pub, err := os.ReadFile(state.RunFilePath(dir, "hot", state.StatusSuffix))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(pub), "s3cret") || !strings.Contains(string(pub), `"runs": 1`) {
		t.Errorf("status file:\n%s", pub)
	}
	priv := state.RunFilePath(dir, "hot", state.PrivateStatusSuffix)
	fi, err := os.Stat(priv)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("private status file: %v, %v; want mode 0600", fi, err)
	}
	a, err := ReadActivity(dir, "hot")
	if err != nil {
		t.Fatal(err)
	}
	if a.PrivateHidden || len(a.Actions) != 2 || !slices.Equal(a.Actions[0].Command, []string{"/usr/bin/notify", secret}) || a.Actions[0].Output != "printed "+secret+"\n" || a.Actions[1].Runs != 2 {
		t.Errorf("read back: %+v", a)
	}
	// Its activity as it was, the set's runs unchanged in memory.
	if ac.a.Actions[0].Output == "" {
		t.Error("writing the files changed the activity kept in memory")
	}
	if _, err := os.Stat(filepath.Join(dir, "run", "hot.status")); err != nil {
		t.Error(err)
	}
}
