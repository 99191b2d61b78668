package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDumpLog: perfc dump lists the records of a binary log (.plog).
func TestDumpLog(t *testing.T) {
	log := filepath.Join("..", "..", "perflog", "binlog", "testdata", "v1.plog")
	out, errs, code := runPerfc(t, "dump", log)
	if code != 0 || !strings.Contains(out, "binary log "+log+": version 1") ||
		strings.Count(out, "  sample  ") != 11 || !strings.Contains(out, `gap: "collection stopped"`) {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, errs, out)
	}
}

// TestDumpBLG: perfc dump lists a Windows BLG's records, refuses a file
// named .blg that is not one with the BLG reader's reason, and points a
// PDH text log to relog.
func TestDumpBLG(t *testing.T) {
	dir := filepath.Join("..", "..", "perflog", "blg", "testdata")
	for _, tc := range []struct {
		file, want string
		code       int
	}{
		{"SampleLog.blg", "11 samples, 0 with values marked failed, 0 unreadable", 0},
		{"BadCounterSamples.blg", "275 samples, 5 with values marked failed, 0 unreadable", 0},
		{"CorruptBlg.blg", "not a Windows binary performance log (.blg)", 1},
		{"CounterSamples.csv", "a PDH text log (CSV)", 1},
	} {
		out, errs, code := runPerfc(t, "dump", filepath.Join(dir, tc.file))
		if code != tc.code || !strings.Contains(out+errs, tc.want) {
			t.Errorf("perfc dump %s: exit %d (want %d), want %q in\nstdout:\n%.400s\nstderr: %s", tc.file, code, tc.code, tc.want, out, errs)
		}
	}
}
