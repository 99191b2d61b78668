package sqllog

import (
	"context"
	"testing"

	"github.com/perfcounters/perfcounters/pdh"
)

// For the external tests (relog_test.go), which may import packages that
// import this one.

// BackendForTest is a database the tests run against.
type BackendForTest struct {
	Name string
	Opts func(testing.TB) Options
}

// BackendsForTest are SQLite, and PostgreSQL where PERFC_TEST_POSTGRES is set.
func BackendsForTest(t testing.TB) []BackendForTest {
	var out []BackendForTest
	for _, b := range backends(t) {
		out = append(out, BackendForTest{b.name, b.opts})
	}
	return out
}

// WindowsSource opens the real Windows samples; WindowsPaths are the
// counters the tests log from them.
func WindowsSource(t testing.TB) *pdh.BlockFiles { return openWindows(t) }

// WindowsPaths are the counters the tests log.
var WindowsPaths = winPaths

// LogWindows writes the real samples to dest.
func LogWindows(t *testing.T, dest string, opts Options) {
	ctx := context.Background()
	w, err := Create(ctx, dest, opts)
	if err != nil {
		t.Fatal(err)
	}
	observe(t, ctx, openWindows(t), winPaths, w, 0, 11)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
