package asuser_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/internal/asuser"
)

// TestRunsAsOtherUsers checks the helper itself: the child runs under the
// uid asked for, cannot read a root-only file, and one user cannot remove
// the other's file from the shared sticky directory.
func TestRunsAsOtherUsers(t *testing.T) {
	if step, ok := asuser.Step(); ok {
		dir := os.Getenv("DIR")
		switch step {
		case "whoami":
			os.Stdout.WriteString("uid=" + strconv.Itoa(os.Getuid()) + " euid=" + strconv.Itoa(os.Geteuid()) + "\n")
			if _, err := os.ReadFile(filepath.Join(dir, "..", "rootonly")); err == nil {
				t.Fatal("read a root-only file")
			}
			if err := os.WriteFile(filepath.Join(dir, "alice"), []byte("a"), 0o644); err != nil {
				t.Fatal(err)
			}
		case "remove":
			if err := os.Remove(filepath.Join(dir, "alice")); err == nil {
				t.Fatal("bob removed alice's file from a sticky directory")
			}
		}
		return
	}
	r := asuser.New(t)
	dir := r.SharedDir()
	if err := os.WriteFile(filepath.Join(dir, "..", "rootonly"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := r.Run(asuser.Alice, "TestRunsAsOtherUsers", "whoami", "DIR="+dir)
	if err != nil {
		t.Fatal(asuser.Failed(out, err))
	}
	if !strings.Contains(out, "uid=61001 euid=61001") {
		t.Fatalf("child did not run as alice:\n%s", out)
	}
	if out, err := r.Run(asuser.Bob, "TestRunsAsOtherUsers", "remove", "DIR="+dir); err != nil {
		t.Fatal(asuser.Failed(out, err))
	}
	if _, err := os.Stat(filepath.Join(dir, "alice")); err != nil {
		t.Fatalf("alice's file is gone: %v", err)
	}
}
