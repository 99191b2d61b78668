package binlog

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/internal/golden"
)

// v1Counters is the counter list stored in testdata/v1.plog.
var v1Counters = []string{`\Processor(*)\% Processor Time`, `\Memory\Available Bytes`}

// TestVersion1File reads testdata/v1.plog, a log written by the first
// version of the writer (the 11 Windows samples, zstd, a gap before sample
// 6) and committed: readers must go on reading every earlier version. The
// file is written only when it is missing and the tests run with -update;
// it is never rewritten.
func TestVersion1File(t *testing.T) {
	win, db := windowsSamples(t)
	path := filepath.Join("testdata", "v1.plog")
	if _, err := os.Stat(path); os.IsNotExist(err) && golden.Update() {
		paris, err := time.LoadLocation("Europe/Paris")
		if err != nil {
			t.Fatal(err)
		}
		writeGapLog(t, path, Options{Compress: true, Titles: db, Location: paris, Counters: v1Counters}, win, 6)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if v := le.Uint16(data[8:]); v != 1 {
		t.Fatalf("testdata/v1.plog says version %d", v)
	}
	l, got := readAll(t, path)
	if len(got) != len(win) {
		t.Fatalf("%d samples, want %d", len(got), len(win))
	}
	for i := range got {
		if d := sameSample(got[i], win[i]); d != "" {
			t.Errorf("sample %d: %s", i, d)
		}
		if got[i].Gap != (i == 6) {
			t.Errorf("sample %d: Gap %v", i, got[i].Gap)
		}
	}
	if l.Host() != "ZACH-PC" || l.Location().String() != "Europe/Paris" || !slices.Equal(l.Counters(), v1Counters) || l.PerfFreq() != 3579545 {
		t.Errorf("host %q, zone %q, counters %q, PerfFreq %d", l.Host(), l.Location(), l.Counters(), l.PerfFreq())
	}
	if n := l.Titles().Name(230); n != "Process" {
		t.Errorf("title 230: %q", n)
	}
	if len(l.Notes()) != 0 {
		t.Errorf("notes %q", l.Notes())
	}
}
