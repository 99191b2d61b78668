package golden

import (
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Helper()               {}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "out.golden")
	*update = true
	Check(t, path, "a\nb\n")
	*update = false
	for _, tc := range []struct {
		got  string
		fail bool
	}{
		{"a\nb\n", false},
		{"a\nc\n", true},
		{"a\nb", true},
	} {
		r := &recorder{TB: t}
		Check(r, path, tc.got)
		if r.failed != tc.fail {
			t.Errorf("Check(%q): failed %v, want %v", tc.got, r.failed, tc.fail)
		}
	}
	r := &recorder{TB: t}
	Check(r, filepath.Join(dir, "missing.golden"), "x")
	if !r.failed {
		t.Error("a missing golden file passed")
	}
	if d := Diff("a\nb\nc", "a\nx\nc"); d != "- b\n+ x\n" {
		t.Errorf("Diff = %q", d)
	}
}
