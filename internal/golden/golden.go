// Package golden compares a test's exact output with a golden file kept in
// testdata, and rewrites the file when the tests run with -update, so that
// every output format the tools promise (typeperf's CSV, relog's report,
// dump's text, ctrpp's code, help screens) is pinned byte for byte in one
// way. Only test code imports it.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update is the -update flag of every test binary that imports golden.
var update = flag.Bool("update", false, "rewrite golden files (and generated fixtures) with what the tests produce")

// Update reports whether the tests run with -update: tests that generate
// fixtures of their own regenerate them then.
func Update() bool { return *update }

// Check compares got with the file at path. Under -update it writes got
// there instead (creating the directory). A difference fails the test with
// the lines that differ.
func Check(t testing.TB, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run go test -update to accept):\n%s", path, Diff(string(want), got))
	}
}

// Diff lists the lines of two texts that differ, "- want" then "+ got",
// by line number.
func Diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, c string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			c = g[i]
		}
		if a != c {
			b.WriteString("- " + a + "\n+ " + c + "\n")
		}
	}
	return b.String()
}
