package dump

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	goldenfile "github.com/perfcounters/perfcounters/internal/golden"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog/binlog"
	"github.com/perfcounters/perfcounters/titles"
)

// TestLog lists the records of a binary log written from the first three
// Windows samples, with a gap before the third.
func TestLog(t *testing.T) {
	blocks := realBlocks(t)
	for i, b := range blocks {
		abs, err := filepath.Abs(b)
		if err != nil {
			t.Fatal(err)
		}
		blocks[i] = abs
	}
	golden, err := filepath.Abs(filepath.Join("testdata", "log.txt.golden"))
	if err != nil {
		t.Fatal(err)
	}
	db := titles.English()
	bf, err := pdh.OpenBlockFiles(blocks, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	w, err := binlog.Create("x.plog", binlog.Options{Compress: true, Titles: db, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		s, err := bf.Sample(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			if err := w.WriteGap(s.Time.Add(-time.Second), "collection restarted"); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.WriteSample(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !IsLog("x.plog") || IsLog(blocks[0]) {
		t.Errorf("IsLog: log %v, block %v", IsLog("x.plog"), IsLog(blocks[0]))
	}
	var sb strings.Builder
	if err := Log(&sb, "x.plog"); err != nil {
		t.Fatal(err)
	}
	goldenfile.Check(t, golden, sb.String())
}
