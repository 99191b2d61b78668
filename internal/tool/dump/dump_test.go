package dump

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	goldenfile "github.com/perfcounters/perfcounters/internal/golden"

	"github.com/perfcounters/perfcounters/titles"
)

// windowsDir holds real blocks captured on Windows Vista (see its PROVENANCE.md).
var windowsDir = filepath.Join("..", "..", "..", "perfdata", "testdata", "windows")

// realBlocks returns the 88 real blocks committed in perfdata/testdata/windows
// (sample 1) and its s02-s11 directory (samples 2 to 11).
func realBlocks(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(windowsDir, "*.bin"))
	more, _ := filepath.Glob(filepath.Join(windowsDir, "s02-s11", "*.bin"))
	if len(files) != 8 || len(more) != 80 {
		t.Fatalf("want the 8 + 80 committed Windows blocks, found %d + %d", len(files), len(more))
	}
	return append(files, more...)
}

func TestGolden(t *testing.T) {
	db := titles.English()
	data, err := os.ReadFile(filepath.Join(windowsDir, "s01-0238-Processor.bin"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		golden string
		opts   Options
	}{
		{"processor.txt.golden", Options{Titles: db}},
		{"processor.json.golden", Options{Titles: db, JSON: true}},
		{"processor-noname.txt.golden", Options{}},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			var out bytes.Buffer
			if err := Write(&out, "s01-0238-Processor.bin", data, tt.opts); err != nil {
				t.Fatal(err)
			}
			goldenfile.Check(t, filepath.Join("testdata", tt.golden), out.String())
		})
	}
}

// TestProcessorValues checks the decoded JSON against the values the
// conformance README records for this block (sample 1).
func TestProcessorValues(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(windowsDir, "s01-0238-Processor.bin"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Decode("", data, titles.English())
	if err != nil {
		t.Fatal(err)
	}
	if b.SystemName != "ZACH-PC" || b.PerfFreq != 3579545 || b.PerfTime100nSec != 128315940386596596 || len(b.Objects) != 1 {
		t.Fatalf("header %+v", b)
	}
	o := b.Objects[0]
	if o.Name != "Processor" || len(o.Counters) != 15 || len(o.Instances) != 2 || o.Instances[1].Name != "_Total" {
		t.Fatalf("object %s, %d counters, instances %+v", o.Name, len(o.Counters), o.Instances)
	}
	if o.Counters[0].Name != "% Processor Time" || o.Counters[0].Type != "PERF_100NSEC_TIMER_INV" {
		t.Errorf("counter 0 = %+v", o.Counters[0])
	}
	if got := o.Instances[1].Values[0].Raw; got != 12558750000 {
		t.Errorf("_Total %% Processor Time raw = %d, want 12558750000", got)
	}
}

func TestEveryRealBlock(t *testing.T) {
	db := titles.English()
	for _, f := range realBlocks(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, js := range []bool{false, true} {
			var out bytes.Buffer
			if err := Write(&out, f, data, Options{Titles: db, JSON: js}); err != nil {
				t.Errorf("%s: %v", f, err)
			}
			if js && !json.Valid(out.Bytes()) {
				t.Errorf("%s: invalid JSON", f)
			}
		}
	}
}

// TestDamagedBlocks truncates and bit-flips real blocks: a truncated block
// is always an error naming an offset; a flipped one is either decoded or
// an error, never a panic.
func TestDamagedBlocks(t *testing.T) {
	for _, f := range realBlocks(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n < len(data); n += 1 + n/16 {
			err := Write(io.Discard, f, data[:n], Options{})
			if err == nil {
				t.Fatalf("%s truncated to %d bytes: no error", f, n)
			}
			if !strings.Contains(err.Error(), "offset") {
				t.Fatalf("%s truncated to %d bytes: error %q names no offset", f, n, err)
			}
		}
		// Flip bits in the structure part of the block (headers and
		// definitions come first) densely, and sparsely after it.
		flipped := bytes.Clone(data)
		for bit := 0; bit < 8*len(data); bit += 3 + bit/64 {
			flipped[bit/8] ^= 1 << (bit % 8)
			_ = Write(io.Discard, f, flipped, Options{JSON: bit%2 == 0})
			flipped[bit/8] ^= 1 << (bit % 8)
		}
	}
}
