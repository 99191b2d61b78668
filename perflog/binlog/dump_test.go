package binlog

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/internal/golden"
)

// TestDump pins the listing of a small log: the Windows samples with a gap
// mark, compressed, and a circular log that has wrapped.
func TestDump(t *testing.T) {
	win, db := windowsSamples(t)
	dir := t.TempDir()
	t.Chdir(dir)
	writeGapLog(t, "windows.plog", Options{Compress: true, Titles: db, Location: time.UTC, Counters: []string{`\Processor(*)\% Processor Time`}}, win[:4], 2)
	var sb strings.Builder
	if err := Dump(&sb, "windows.plog"); err != nil {
		t.Fatal(err)
	}
	live := liveSamples(t, 60, 9)
	writeLog(t, "ring.plog", Options{Mode: Circular, MaxSize: minCircular, Location: time.UTC}, live)
	sb.WriteString("\n")
	if err := Dump(&sb, "ring.plog"); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join(testdataDir(t), "dump.golden"), sb.String())
}
