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
