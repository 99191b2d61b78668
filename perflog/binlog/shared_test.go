package binlog

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfcounters/perfcounters/pdh"
)

// TestShared: writers sharing one Shared, written in turns, each read
// back exactly what it was given: two of the same samples from the start
// (whose files are then the same bytes as a writer's without sharing,
// past the header), one that starts later (its record numbers, so its
// dictionary ids, differ) and one of other samples. The shared cache
// saves compressing, never changes what a log holds.
func TestShared(t *testing.T) {
	samples := liveSamplesN(t, 8, 7, 2000) // large: compressed with the previous sample as dictionary
	other := liveSamplesN(t, 8, 9, 2000)
	dir := t.TempDir()
	sh := NewShared()
	type log struct {
		name    string
		from    int // the turn of its first sample
		samples []*pdh.Sample
		w       *Writer
	}
	logs := []*log{{name: "a", samples: samples}, {name: "b", samples: samples}, {name: "late", from: 2, samples: samples[2:]}, {name: "other", samples: other}}
	for _, l := range logs {
		opts := DefaultOptions()
		opts.Shared = sh
		w, err := Create(filepath.Join(dir, l.name+".plog"), opts)
		if err != nil {
			t.Fatal(err)
		}
		l.w = w
	}
	for turn := range samples {
		for _, l := range logs {
			if i := turn - l.from; i >= 0 && i < len(l.samples) {
				if err := l.w.WriteSample(l.samples[i]); err != nil {
					t.Fatalf("%s: sample %d: %v", l.name, i, err)
				}
			}
		}
	}
	for _, l := range logs {
		if err := l.w.Close(); err != nil {
			t.Fatal(err)
		}
		_, got := readAll(t, filepath.Join(dir, l.name+".plog"))
		if len(got) != len(l.samples) {
			t.Fatalf("%s: %d samples, want %d", l.name, len(got), len(l.samples))
		}
		for i := range got {
			if d := sameSample(got[i], l.samples[i]); d != "" {
				t.Errorf("%s: sample %d: %s", l.name, i, d)
			}
		}
	}
	alone := filepath.Join(dir, "alone.plog")
	writeLog(t, alone, DefaultOptions(), samples)
	want, err := os.ReadFile(alone)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		got, err := os.ReadFile(filepath.Join(dir, name+".plog"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[headerLen:], want[headerLen:]) {
			t.Errorf("%s: written with the shared cache, its records differ from those of a writer without (%d bytes, want %d)", name, len(got), len(want))
		}
	}
}
