package binlog

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/perfcounters/perfcounters/pdh"
)

// TestSharedIndependent: writers sharing one compression cache, written in
// turns (in an order that changes from turn to turn), each write the very
// bytes (past the file header, which says when the file was made) that a
// writer without the cache writes alone from the same samples, and read
// back exactly what they were given. The cases mix writers of the same
// samples from the start (one given the very *pdh.Sample values, one
// copies of them), writers started later, one of other samples, and one
// given the same samples for three turns and then others: what a log
// holds never depends on the other writers.
func TestSharedIndependent(t *testing.T) {
	big := liveSamplesN(t, 8, 7, 2000) // large: compressed with the previous sample as dictionary
	bigOther := liveSamplesN(t, 8, 9, 2000)
	small := liveSamplesN(t, 10, 7, 300)
	smallOther := liveSamplesN(t, 10, 9, 300)
	copies := func(s []*pdh.Sample) []*pdh.Sample {
		c := make([]*pdh.Sample, len(s))
		for i, smp := range s {
			c[i] = copySample(t, smp)
		}
		return c
	}
	fork := func(a, b []*pdh.Sample, at int) []*pdh.Sample {
		return append(slices.Clone(a[:at]), b[at:]...)
	}
	type log struct {
		name    string
		from    int // the turn of its first sample
		samples []*pdh.Sample
	}
	for _, c := range []struct {
		name string
		logs []log
	}{
		{"together", []log{{"a", 0, big}, {"b", 0, copies(big)}, {"other", 0, bigOther}, {"fork", 0, fork(big, bigOther, 3)}}},
		{"fork first", []log{{"fork", 0, fork(small, smallOther, 3)}, {"a", 0, small}, {"b", 0, small}}},
		{"staggered", []log{{"a", 0, small}, {"other", 0, smallOther}, {"b", 2, copies(small[2:])}, {"c", 4, small[4:]}}},
		{"staggered big", []log{{"a", 0, big}, {"b", 1, big[1:]}, {"c", 5, copies(big[5:])}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			sh := NewShared()
			ws := make([]*Writer, len(c.logs))
			turns := 0
			for _, l := range c.logs {
				turns = max(turns, l.from+len(l.samples))
			}
			for turn := range turns {
				order := make([]int, len(c.logs))
				for i := range order {
					order[i] = i
				}
				if turn%2 == 1 {
					slices.Reverse(order)
				}
				for _, k := range order {
					l := c.logs[k]
					i := turn - l.from
					if i < 0 || i >= len(l.samples) {
						continue
					}
					if ws[k] == nil {
						opts := DefaultOptions()
						opts.Shared = sh
						w, err := Create(filepath.Join(dir, l.name+".plog"), opts)
						if err != nil {
							t.Fatal(err)
						}
						ws[k] = w
					}
					if err := ws[k].WriteSample(l.samples[i]); err != nil {
						t.Fatalf("%s: sample %d: %v", l.name, i, err)
					}
				}
			}
			for k, l := range c.logs {
				path := filepath.Join(dir, l.name+".plog")
				closeAndCheck(t, ws[k], path, l.samples)
				alone := filepath.Join(dir, l.name+"-alone.plog")
				writeLog(t, alone, DefaultOptions(), l.samples)
				got, want := fileBytes(t, path), fileBytes(t, alone)
				if len(got) < headerLen || !bytes.Equal(got[headerLen:], want[headerLen:]) {
					t.Errorf("%s: written beside other writers with a shared cache, its records differ from those written alone (%d bytes, want %d)", l.name, len(got), len(want))
				}
			}
		})
	}
}

// TestSharedCacheHits: a record that writers of the same samples write is
// compressed once; the cache hands the others the same bytes.
func TestSharedCacheHits(t *testing.T) {
	samples := liveSamplesN(t, 4, 7, 2000)
	sh := NewShared()
	var ws []*Writer
	for i := range 3 {
		opts := DefaultOptions()
		opts.Shared = sh
		w, err := Create(filepath.Join(t.TempDir(), fmt.Sprintf("w%d.plog", i)), opts)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		ws = append(ws, w)
	}
	for i, s := range samples {
		for k, w := range ws {
			before := sh.misses
			if err := w.WriteSample(s); err != nil {
				t.Fatal(err)
			}
			if n := sh.misses - before; k > 0 && n != 0 {
				t.Errorf("sample %d, writer %d: %d records compressed, want 0 (the first writer's, from the cache)", i, k, n)
			} else if k == 0 && n == 0 {
				t.Errorf("sample %d, writer 0: nothing compressed", i)
			}
		}
	}
}

// closeAndCheck closes w and reads its log at path back: exactly want.
func closeAndCheck(t *testing.T, w *Writer, path string, want []*pdh.Sample) {
	t.Helper()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_, got := readAll(t, path)
	if len(got) != len(want) {
		t.Fatalf("%s: %d samples, want %d", filepath.Base(path), len(got), len(want))
	}
	for i := range got {
		if d := sameSample(got[i], want[i]); d != "" {
			t.Errorf("%s: sample %d: %s", filepath.Base(path), i, d)
		}
	}
}

// copySample returns a sample equal to s in new memory.
func copySample(t *testing.T, s *pdh.Sample) *pdh.Sample {
	t.Helper()
	var blocks [][]byte
	for _, b := range s.Blocks {
		blocks = append(blocks, bytes.Clone(b.Bytes()))
	}
	c, err := pdh.NewSample(blocks)
	if err != nil {
		t.Fatal(err)
	}
	c.Time, c.Gap = s.Time, s.Gap
	for _, p := range s.Problems {
		p.Missing = slices.Clone(p.Missing)
		c.Problems = append(c.Problems, p)
	}
	return c
}
