package binlog

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/klauspost/compress/zstd"
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
	// varying: samples of one block, of two (this one's and other's), and
	// of none, in turn: a sample then leaves state it did not code (a key
	// or a block position of an earlier one), which the coding cache
	// must not take for the state its blocks determine.
	varying := func(a, b []*pdh.Sample) []*pdh.Sample {
		out := make([]*pdh.Sample, len(a))
		for i := range a {
			switch i % 3 {
			case 0:
				out[i] = a[i]
			case 1:
				c, err := pdh.NewSample([][]byte{a[i].Blocks[0].Bytes(), b[i].Blocks[0].Bytes()})
				if err != nil {
					t.Fatal(err)
				}
				c.Time = a[i].Time
				out[i] = c
			case 2:
				out[i] = &pdh.Sample{Time: a[i].Time}
			}
		}
		return out
	}
	smallVarying := varying(small, smallOther)
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
		{"varying", []log{{"a", 0, smallVarying}, {"b", 0, smallVarying}, {"c", 1, smallVarying[1:]}, {"d", 2, smallVarying[2:]}, {"e", 0, small}}},
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

// TestSharedCacheHits: a sample that writers of the same samples write is
// coded and compressed once; the cache hands the others the same bytes.
// Writers started a sample apart (staggered) take the coding from their
// second sample on and the compression from their third (the dictionary
// of their second is their first sample, coded whole): their previous
// samples have other sequence numbers, so the frames they take differ in
// their dictionary id only.
func TestSharedCacheHits(t *testing.T) {
	samples := liveSamplesN(t, 6, 7, 2000)
	for _, staggered := range []bool{false, true} {
		t.Run(fmt.Sprint("staggered=", staggered), func(t *testing.T) {
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
					first := 0 // the writer's first sample
					if staggered {
						first = k
					}
					if i < first {
						continue
					}
					before, coded := sh.misses, sh.codings
					if err := w.WriteSample(s); err != nil {
						t.Fatal(err)
					}
					if k == 0 || i == first && k > 0 && staggered {
						if sh.misses == before {
							t.Errorf("sample %d, writer %d: nothing compressed", i, k)
						}
						continue
					}
					// A staggered writer's second sample has its own first
					// (coded whole) as its dictionary.
					if n := sh.misses - before; n != 0 && !(staggered && i == first+1) {
						t.Errorf("sample %d, writer %d: %d records compressed, want 0 (the first writer's, from the cache)", i, k, n)
					}
					if n := sh.codings - coded; n != 0 {
						t.Errorf("sample %d, writer %d: %d samples coded, want 0 (the first writer's, from the cache)", i, k, n)
					}
				}
			}
		})
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

// TestWithDictID: a frame compressed with a dictionary under one id, its
// header given another id, is the very frame the compressor makes under
// that id, and decompresses with the dictionary under it: for ids of each
// field size and frames of one segment (small) and with a window.
func TestWithDictID(t *testing.T) {
	dict := bytes.Repeat([]byte("dictionary content of a previous sample "), 300)
	small := []byte("a small payload, compressed as a single segment: a small payload")
	large := bytes.Repeat([]byte("a payload much like the dictionary content of a previous sample, "), 3000)
	compress := func(id uint32, pl []byte) []byte {
		z, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false), zstd.WithEncoderDictRaw(id, dict))
		if err != nil {
			t.Fatal(err)
		}
		defer z.Close()
		return z.EncodeAll(pl, nil)
	}
	ids := []uint32{7, 255, 256, 0x8000, 0xFFFF, 0x10000, prevDictID(1 << 40)}
	for _, pl := range [][]byte{small, large} {
		for _, from := range ids {
			z := compress(from, pl)
			for _, to := range ids {
				got, ok := withDictID([]byte("prefix"), z, to)
				if !ok {
					t.Fatalf("%d bytes, id %#x to %#x: not rewritten", len(pl), from, to)
				}
				if want := append([]byte("prefix"), compress(to, pl)...); !bytes.Equal(got, want) {
					t.Errorf("%d bytes, id %#x to %#x: frame differs from the one compressed under %#x", len(pl), from, to, to)
				}
				d, err := zstd.NewReader(nil, zstd.WithDecoderDictRaw(to, dict))
				if err != nil {
					t.Fatal(err)
				}
				out, err := d.DecodeAll(got[len("prefix"):], nil)
				d.Close()
				if err != nil || !bytes.Equal(out, pl) {
					t.Errorf("%d bytes, id %#x to %#x: decodes to %d bytes, %v", len(pl), from, to, len(out), err)
				}
			}
		}
	}
	for _, bad := range [][]byte{nil, []byte("\x28\xb5\x2f\xfd"), compress(0, small)[:3]} {
		if _, ok := withDictID(nil, bad, 0x8000); ok {
			t.Errorf("%x: rewritten, want not a frame with a dictionary id", bad)
		}
	}
	plain, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, ok := withDictID(nil, plain.EncodeAll(small, nil), 0x8000); ok {
		t.Error("a frame without a dictionary id: rewritten")
	}
}
