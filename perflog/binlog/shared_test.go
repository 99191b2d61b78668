package binlog

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/perfcounters/perfcounters/pdh"
)

// TestShared: writers sharing one Shared, written in turns (in an order
// that changes from turn to turn), each read back exactly what it was
// given: two of the same samples from the start, one given the very
// *pdh.Sample values and the other copies of them (whose files are then
// the same bytes as a writer's without sharing, past the header, and
// which code on one lineage), one of other samples, and one that is given
// the same samples for three turns and then others (its lineage goes on
// without it: it starts a new epoch). Sharing saves coding and
// compressing, never changes what a log holds.
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
	fork := append(slices.Clone(samples[:3]), other[3:]...)
	copies := make([]*pdh.Sample, len(samples))
	for i, smp := range samples {
		copies[i] = copySample(t, smp)
	}
	logs := []*log{{name: "a", samples: samples}, {name: "b", samples: copies}, {name: "other", samples: other}, {name: "fork", samples: fork}}
	for _, l := range logs {
		l.w = sharedWriter(t, filepath.Join(dir, l.name+".plog"), sh)
	}
	for turn := range samples {
		order := slices.Clone(logs[:3])
		if turn%2 == 1 {
			slices.Reverse(order)
		}
		order = append(order, logs[3]) // fork writes last (TestSharedForkFirst: first)
		for _, l := range order {
			if i := turn - l.from; i >= 0 && i < len(l.samples) {
				if err := l.w.WriteSample(l.samples[i]); err != nil {
					t.Fatalf("%s: sample %d: %v", l.name, i, err)
				}
			}
		}
	}
	if a, b := logs[0].w.lin, logs[1].w.lin; a == nil || a != b || a.gen != uint64(len(samples)) {
		t.Errorf("a and b coded on lineages %p and %p (%d samples): want one, of all %d", a, b, a.gen, len(samples))
	}
	for _, l := range logs[2:] {
		if l.w.lin == logs[0].w.lin {
			t.Errorf("%s coded on the lineage of a and b", l.name)
		}
	}
	for _, l := range logs {
		closeAndCheck(t, l.w, filepath.Join(dir, l.name+".plog"), l.samples)
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

// TestSharedForkFirst: when the writer that leaves the samples of its
// lineage is the first to write, it takes the lineage with it; the others
// start a new epoch, code together again from there, and every log reads
// back what it was given.
func TestSharedForkFirst(t *testing.T) {
	samples := liveSamplesN(t, 8, 7, 300)
	other := liveSamplesN(t, 8, 9, 300)
	fork := append(slices.Clone(samples[:3]), other[3:]...)
	dir := t.TempDir()
	sh := NewShared()
	names := []string{"fork", "a", "b"}
	given := [][]*pdh.Sample{fork, samples, samples}
	var ws []*Writer
	for _, n := range names {
		ws = append(ws, sharedWriter(t, filepath.Join(dir, n+".plog"), sh))
	}
	for turn := range samples {
		for i, w := range ws {
			if err := w.WriteSample(given[i][turn]); err != nil {
				t.Fatalf("%s: sample %d: %v", names[i], turn, err)
			}
		}
	}
	if ws[1].lin == nil || ws[1].lin != ws[2].lin || ws[0].lin == ws[1].lin {
		t.Errorf("lineages at the end: fork %p, a %p, b %p; want a and b on one, fork on another", ws[0].lin, ws[1].lin, ws[2].lin)
	}
	for i, w := range ws {
		closeAndCheck(t, w, filepath.Join(dir, names[i]+".plog"), given[i])
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

// TestSharedStaggered: writers of the same samples started at different
// turns (and one of other samples) end up coding on one lineage: each log
// that starts invites the others, which start a new epoch at their next
// sample. Every log reads back what it was given, and from the last start
// on each sample is coded once for the writers of the same samples.
func TestSharedStaggered(t *testing.T) {
	samples := liveSamplesN(t, 10, 7, 300)
	other := liveSamplesN(t, 10, 9, 300)
	dir := t.TempDir()
	sh := NewShared()
	type log struct {
		name    string
		from    int
		samples []*pdh.Sample
		w       *Writer
	}
	logs := []*log{{name: "a", samples: samples}, {name: "other", samples: other}, {name: "b", from: 2, samples: samples[2:]}, {name: "c", from: 4, samples: samples[4:]}}
	var codedAt []uint64
	for turn := range samples {
		for _, l := range logs {
			i := turn - l.from
			if i < 0 {
				continue
			}
			if l.w == nil {
				l.w = sharedWriter(t, filepath.Join(dir, l.name+".plog"), sh)
			}
			// Each log's first sample is a copy, as the service gives a
			// set that starts its own first sample.
			smp := l.samples[i]
			if i == 0 {
				smp = copySample(t, smp)
			}
			if err := l.w.WriteSample(smp); err != nil {
				t.Fatalf("%s: sample %d: %v", l.name, i, err)
			}
		}
		codedAt = append(codedAt, sh.Coded())
	}
	a, b, c := logs[0].w.lin, logs[2].w.lin, logs[3].w.lin
	if a == nil || a != b || a != c || logs[1].w.lin == a {
		t.Errorf("lineages at the end: a %p, b %p, c %p, other %p; want a, b and c on one, other on another", a, b, c, logs[1].w.lin)
	}
	// From turn 6 (c joined at turn 5), two codings a turn: one for a, b
	// and c, one for other.
	for turn := 6; turn < len(codedAt); turn++ {
		if d := codedAt[turn] - codedAt[turn-1]; d != 2 {
			t.Errorf("turn %d: %d samples coded, want 2", turn, d)
		}
	}
	for _, l := range logs {
		closeAndCheck(t, l.w, filepath.Join(dir, l.name+".plog"), l.samples)
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

// sharedWriter creates a log at path with the default options and sh.
func sharedWriter(t *testing.T, path string, sh *Shared) *Writer {
	t.Helper()
	opts := DefaultOptions()
	opts.Shared = sh
	w, err := Create(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	return w
}
