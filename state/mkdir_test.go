package state

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestMkdirLogDir: the log directory is made component by component from
// checked directories; nothing is created through another user's link or
// inside a directory others can write (issue 43 item 9: logman start made
// the directory first and checked it after).
func TestMkdirLogDir(t *testing.T) {
	euid := os.Geteuid()
	root := t.TempDir()
	mk := func(p string, mode os.FileMode) string {
		t.Helper()
		p = filepath.Join(root, p)
		if err := os.Mkdir(p, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // whatever the umask
			t.Fatal(err)
		}
		return p
	}
	mk("ok", 0o755)
	mk("open", 0o777)
	mk("sticky", os.ModeSticky|0o777)
	mk("target", 0o755)
	if err := os.Symlink(filepath.Join(root, "ok"), filepath.Join(root, "mylink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../ok", filepath.Join(root, "sticky", "rel")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		err        string // "" when made
		notMade    string // a directory that must not exist after
	}{
		{"new below a checked directory", "ok/a/b/logs", "", ""},
		{"exists", "ok", "", ""},
		{"in a sticky directory", "sticky/logs", "", ""},
		{"through my own link", "mylink/x/logs", "", ""},
		{"through my own relative link", "sticky/rel/y", "", ""},
		{"under a directory others write", "open/logs", "writable by other users", "open/logs"},
		{"deep under it", "open/a/b", "writable by other users", "open/a"},
		{"the directory itself open", "open", "writable by other users", ""},
		{"a file on the way", "ok/file/logs", "not a directory", "ok/file/logs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "a file on the way" {
				if err := os.WriteFile(filepath.Join(root, "ok", "file"), nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := MkdirLogDir(filepath.Join(root, tc.path), euid)
			if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("MkdirLogDir(%s): %v, want %q", tc.path, err, tc.err)
			}
			if tc.err == "" {
				if fi, err := os.Stat(filepath.Join(root, tc.path)); err != nil || !fi.IsDir() {
					t.Errorf("%s not made: %v", tc.path, err)
				}
			}
			if tc.notMade != "" {
				if _, err := os.Lstat(filepath.Join(root, tc.notMade)); !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
					t.Errorf("%s exists: %v", tc.notMade, err)
				}
			}
		})
	}
	if err := MkdirLogDir("relative/logs", euid); err == nil {
		t.Error("a relative path was accepted")
	}
}

// TestMkdirLogDirOtherUsersLink: as root, another user's link in a sticky
// directory (a /tmp) is never followed: before, root made the log
// directory wherever the link pointed and CheckLogDir then passed it.
func TestMkdirLogDirOtherUsersLink(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a link to another user")
	}
	root := t.TempDir()
	tmp := filepath.Join(root, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tmp, os.ModeSticky|0o777); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(root, "etc") // root's
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tmp, "evil")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(link, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(tmp, "theirs")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(other, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, err, notMade string }{
		{filepath.Join(link, "logs"), "symbolic link owned by uid 4242", filepath.Join(target, "logs")},
		{filepath.Join(other, "logs"), "owned by uid 4242", filepath.Join(other, "logs")},
	} {
		err := MkdirLogDir(tc.path, 0)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("MkdirLogDir(%s): %v, want %q", tc.path, err, tc.err)
		}
		if _, err := os.Lstat(tc.notMade); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was made: %v", tc.notMade, err)
		}
	}
}
