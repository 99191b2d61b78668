package pla

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/internal/asuser"
	"github.com/perfcounters/perfcounters/state"
)

// TestOutputRefusesLinks: a set never writes through a symbolic link,
// whatever the format, and a log directory that is a link or open to
// other users is refused before anything is written (issue 28, item 2:
// a root set truncated, overwrote and appended to another user's files
// through links in its output directory). The target file is left as it
// was.
func TestOutputRefusesLinks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		format collectorset.LogFileFormat
		append bool
		link   func(root, target string) error // plants the link in the set's log directory
		want   string
	}{
		{"binary log is a link", collectorset.Binary, false, func(root, target string) error {
			return os.Symlink(target, filepath.Join(root, "s.plog"))
		}, "symbolic link"},
		{"Windows BLG is a link", collectorset.BLG, false, func(root, target string) error {
			return os.Symlink(target, filepath.Join(root, "s.blg"))
		}, "symbolic link"},
		{"csv log is a link, -a", collectorset.CommaSeparated, true, func(root, target string) error {
			return os.Symlink(target, filepath.Join(root, "s.csv"))
		}, "symbolic link"},
		{"tsv log is a link", collectorset.TabSeparated, false, func(root, target string) error {
			return os.Symlink(target, filepath.Join(root, "s.tsv"))
		}, "symbolic link"},
		{"log directory is a link", collectorset.Binary, false, func(root, target string) error {
			if err := os.Remove(root); err != nil {
				return err
			}
			return os.Symlink(filepath.Dir(target), root)
		}, "is a symbolic link"},
		{"log directory writable by others", collectorset.Binary, false, func(root, target string) error {
			return os.Chmod(root, 0o777)
		}, "writable by other users"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			root := filepath.Join(base, "logs")
			if err := os.Mkdir(root, 0o755); err != nil {
				t.Fatal(err)
			}
			victim := filepath.Join(t.TempDir(), "victim")
			if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := tc.link(root, victim); err != nil {
				t.Fatal(err)
			}
			set := newSet("s", root)
			set.Collector.LogFileFormat = tc.format
			set.Collector.LogAppend = tc.append
			set.Collector.LogOverwrite = !tc.append
			svc := NewService(t.Context(), testOptions(newFakeSource(2)))
			err := svc.Start(stateDir(t), set, time.Time{})
			svc.StopAll("test done")
			svc.Wait()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Start: %v, want a refusal with %q", err, tc.want)
			}
			if b, err := os.ReadFile(victim); err != nil || string(b) != "precious\n" {
				t.Errorf("the link's target became %q (%v)", b, err)
			}
		})
	}
}

// TestCheckLogDirOwner: as root, a log directory owned by another user is
// refused for root's sets (its owner could swap what root writes).
func TestCheckLogDirOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a directory to another user")
	}
	dir := filepath.Join(t.TempDir(), "logs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	err := state.CheckLogDir(dir, 0)
	var te *state.TrustError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "owned by uid 4242") {
		t.Fatalf("CheckLogDir: %v, want a refusal naming uid 4242", err)
	}
}

// TestStartMakesNoDirectoryThroughLinks: as root, a set whose log
// directory lies through another user's link in a sticky directory (a
// /tmp), or below another user's directory, is refused before anything is
// created (issue 43 item 9: logman start made the directory, as root,
// where the link pointed, and the checks then passed it).
func TestStartMakesNoDirectoryThroughLinks(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a link to another user")
	}
	base := t.TempDir()
	tmp := filepath.Join(base, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tmp, os.ModeSticky|0o777); err != nil {
		t.Fatal(err)
	}
	rootsOwn := filepath.Join(base, "etc")
	if err := os.Mkdir(rootsOwn, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tmp, "evil")
	if err := os.Symlink(rootsOwn, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(link, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	set := newSet("s", filepath.Join(link, "perflogs"))
	svc := NewService(t.Context(), testOptions(newFakeSource(2)))
	err := svc.Start(stateDir(t), set, time.Time{})
	svc.StopAll("test done")
	svc.Wait()
	if err == nil || !strings.Contains(err.Error(), "symbolic link owned by uid 4242") {
		t.Errorf("Start: %v, want a refusal naming the link", err)
	}
	if _, err := os.Lstat(filepath.Join(rootsOwn, "perflogs")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("root made %s through another user's link: %v", filepath.Join(rootsOwn, "perflogs"), err)
	}
}

// TestLogsPrivate: a set's new logs are private to its user (mode 0600):
// the counters of a machine tell other users what runs on it.
func TestLogsPrivate(t *testing.T) {
	for _, f := range []collectorset.LogFileFormat{collectorset.Binary, collectorset.CommaSeparated} {
		root := t.TempDir()
		set := newSet("p", root)
		set.Collector.LogFileFormat = f
		svc := NewService(t.Context(), testOptions(newFakeSource(2)))
		if err := svc.Start(stateDir(t), set, time.Time{}); err != nil {
			t.Fatal(err)
		}
		svc.StopAll("test done")
		svc.Wait()
		files, _ := filepath.Glob(filepath.Join(root, "p*"))
		if len(files) == 0 {
			t.Fatalf("%v: no log written", f)
		}
		for _, file := range files {
			if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o600 {
				t.Errorf("%s: mode %v (%v), want 0600", file, st.Mode().Perm(), err)
			}
		}
	}
}

// TestRootSetIntoAnotherUsersDirectory: as two users, as the attack was
// made (issue 28, item 2). Alice, unprivileged, makes a directory and puts
// a link named as a root set's next log into it, pointing at a root-only
// file; root's set told to log there refuses the directory (it is
// Alice's) and the file stays as it was. Root's set into a directory of
// root's in the same shared place works.
func TestRootSetIntoAnotherUsersDirectory(t *testing.T) {
	if step, ok := asuser.Step(); ok {
		if step == "alice-plants" {
			dir := filepath.Join(os.Getenv("SHARED"), "alice-logs")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(os.Getenv("VICTIM"), filepath.Join(dir, "rootset.plog")); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	r := asuser.New(t)
	shared := r.SharedDir()
	victim := filepath.Join(shared, "root-only")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := r.Run(asuser.Alice, "TestRootSetIntoAnotherUsersDirectory", "alice-plants", "SHARED="+shared, "VICTIM="+victim); err != nil {
		t.Fatalf("alice: %s", asuser.Failed(out, err))
	}
	for _, tc := range []struct {
		dir  string
		want string // "" succeeds
	}{
		{filepath.Join(shared, "alice-logs"), "owned by uid 61001"},
		{filepath.Join(shared, "root-logs"), ""},
	} {
		set := newSet("rootset", tc.dir)
		svc := NewService(t.Context(), testOptions(newFakeSource(2)))
		err := svc.Start(stateDir(t), set, time.Time{})
		svc.StopAll("test done")
		svc.Wait()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("root's set into %s: %v", tc.dir, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("root's set into %s: %v, want a refusal with %q", tc.dir, err, tc.want)
		}
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "precious\n" {
		t.Errorf("the root-only file became %q (%v)", b, err)
	}
}
