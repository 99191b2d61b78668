package state

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestRunFiles: run-state files round-trip, a missing one is
// fs.ErrNotExist, a symbolic link planted in place of one is refused, and
// names that are no set's are refused.
func TestRunFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if _, err := ReadRunFile(dir, "a", RunRecordSuffix); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("reading from a state directory that does not exist: %v, want not exist", err)
	}
	if err := WriteRunFile(dir, "a", RunRecordSuffix, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := WriteRunFile(dir, "a", RunRecordSuffix, []byte("two")); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadRunFile(dir, "a", RunRecordSuffix); err != nil || string(b) != "two" {
		t.Errorf("read %q, %v; want \"two\"", b, err)
	}
	if _, err := ReadRunFile(dir, "a", StopRequestSuffix); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing stop request: %v, want not exist", err)
	}
	if err := RemoveRunFile(dir, "a", RunRecordSuffix); err != nil {
		t.Fatal(err)
	}
	if err := RemoveRunFile(dir, "a", RunRecordSuffix); err != nil {
		t.Errorf("removing a missing file: %v", err)
	}
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "run", "b.json")); err != nil {
		t.Fatal(err)
	}
	var te *TrustError
	if _, err := ReadRunFile(dir, "b", RunRecordSuffix); !errors.As(err, &te) {
		t.Errorf("reading a symbolic link: %v, want a TrustError", err)
	}
	if err := RemoveRunFile(dir, "b", RunRecordSuffix); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(secret); err != nil || string(b) != "secret" {
		t.Errorf("removing the link touched its target: %q, %v", b, err)
	}
	for _, name := range []string{"", "../x", ".hidden", "a/b"} {
		if err := WriteRunFile(dir, name, RunRecordSuffix, nil); err == nil {
			t.Errorf("name %q accepted", name)
		}
	}
	if err := WriteRunFile(dir, "a", ".sh", nil); err == nil {
		t.Error("suffix .sh accepted")
	}
}
