package blg

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

var writeSeeds = flag.Bool("seeds", false, "rewrite the committed FuzzOpen corpus from the real logs")

// repack rewrites a real log with small buffers (bs bytes) holding its
// log-file header and its first events up to limit bytes of events, so
// that a fuzz seed stays small and still reaches every decoder.
func repack(t testing.TB, file string, bs, limit int) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	obs := int(le.Uint32(b))
	out := make([]byte, 0, 4*bs)
	newBuffer := func(used0 []byte) {
		start := len(out)
		out = append(out, bytes.Repeat([]byte{0xFF}, bs)...)
		copy(out[start:], b[:bufferHeaderSize])
		le.PutUint32(out[start:], uint32(bs))
		copy(out[start+bufferHeaderSize:], used0)
		le.PutUint32(out[start+0x30:], uint32(bufferHeaderSize+len(used0)))
	}
	used := int(le.Uint32(b[0x30:]))
	newBuffer(b[bufferHeaderSize:used])
	var events [][]byte
	total := 0
	for off := obs; off < len(b) && total < limit; off += obs {
		u := int(le.Uint32(b[off+0x30:]))
		for p := off + bufferHeaderSize; p+eventHeaderSize <= off+u && total < limit; {
			n := int(le.Uint16(b[p:]))
			if n < eventHeaderSize {
				break
			}
			events = append(events, b[p:p+n])
			total += n
			p += (n + 7) &^ 7
		}
	}
	var cur []byte
	for _, e := range events {
		if bufferHeaderSize+len(cur)+len(e) > bs {
			newBuffer(cur)
			cur = nil
		}
		cur = append(cur, e...)
		for len(cur)%8 != 0 {
			cur = append(cur, 0)
		}
	}
	newBuffer(cur)
	return out
}

// seeds are small inputs reaching every decoder: the real logs repacked
// with small buffers, then truncated and bit-flipped.
func seeds(t testing.TB) map[string][]byte {
	m := map[string][]byte{
		"counter-samples": repack(t, "CounterSamples.blg", 4096, 3500),
		"bad-samples":     repack(t, "BadCounterSamples.blg", 8192, 7000),
	}
	sl := repack(t, "SampleLog.blg", 8152, 8100)
	m["sample-log-titles"] = sl
	csv, err := os.ReadFile(filepath.Join("testdata", "CorruptBlg.blg"))
	if err != nil {
		t.Fatal(err)
	}
	m["corrupt-csv"] = csv[:512]
	cs := m["counter-samples"]
	m["counter-samples-truncated"] = cs[:4096+2000]
	for i, at := range []int{4096 + 72 + 48 + 24 + 8 + 32, 4096 + 72 + 1008 + 48 + 24 + 8 + 4} {
		f := bytes.Clone(cs)
		f[at] ^= 0x40
		m[fmt.Sprintf("counter-samples-flip%d", i)] = f
	}
	return m
}

// TestSeedsRead: the repacked seeds are still logs (so the fuzzer starts
// from inputs that reach the sample decoders), and the committed corpus is
// what seeds makes.
func TestSeedsRead(t *testing.T) {
	for name, want := range map[string]int{"counter-samples": 4, "bad-samples": 3} {
		b := seeds(t)[name]
		l, err := Read(bytes.NewReader(b), int64(len(b)), name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if l.Len() != want {
			t.Errorf("%s: %d samples, want %d", name, l.Len(), want)
		}
		for range want {
			if _, err := l.Sample(context.Background(), nil); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzOpen")
	for name, b := range seeds(t) {
		file := filepath.Join(dir, name)
		enc := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
		if *writeSeeds {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(enc), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(file)
		if err != nil || string(got) != enc {
			t.Errorf("corpus file %s is not what seeds makes (run go test -run TestSeedsRead -seeds): %v", file, err)
		}
	}
}

// FuzzOpen: any bytes are read without panic, in time and memory linear in
// the input; every sample of an accepted log decodes or fails with an
// error. The log is read in place (as Open reads a small file), and
// nothing read from it may change its bytes; and read again through a
// window of a third of the log (requests in it, requests past it,
// requests larger than it), which must give the same samples.
func FuzzOpen(f *testing.F) {
	for _, b := range seeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		mem := bytes.Clone(b)
		l, err := readMemory(mem, "fuzz.blg")
		w, werr := read(&reader{r: bytes.NewReader(b), size: int64(len(b)), window: 1 + len(b)/3}, "fuzz.blg")
		if (err == nil) != (werr == nil) {
			t.Fatalf("in memory: %v; through a window: %v", err, werr)
		}
		if err != nil {
			if l != nil || w != nil {
				t.Fatal("a log and an error")
			}
			return
		}
		seed := maphash.MakeSeed()
		a := readAll(t, l, seed)
		if !bytes.Equal(mem, b) {
			t.Fatal("reading the log changed its bytes in memory")
		}
		if c := readAll(t, w, seed); !slices.Equal(a, c) {
			t.Fatalf("in memory and through a window, the samples differ (account %x, %x)", a, c)
		}
	})
}

// readAll reads every sample of l (Sample, then the dump), checking
// what FuzzOpen promises, and returns an account of what it read: a hash
// of each sample and of the dump, by seed.
func readAll(t *testing.T, l *Log, seed maphash.Seed) []uint64 {
	var acc []uint64
	var h maphash.Hash
	h.SetSeed(seed)
	num := func(v ...uint64) {
		for _, x := range v {
			maphash.WriteComparable(&h, x)
		}
	}
	if l.Titles() == nil || l.Location() == nil {
		t.Fatal("no titles or location")
	}
	for i := range l.Len() {
		_ = l.Time(i)
		s, err := l.Sample(context.Background(), nil)
		if errors.Is(err, io.EOF) {
			t.Fatalf("EOF at sample %d of %d", i, l.Len())
		}
		if err == nil && s == nil {
			t.Fatal("nil sample without error")
		}
		h.Reset()
		if err != nil {
			h.WriteString(err.Error())
		} else {
			num(uint64(s.Time.UnixNano()), uint64(len(s.Problems)))
			for _, blk := range s.Blocks {
				h.Write(blk.Bytes())
			}
		}
		acc = append(acc, h.Sum64())
	}
	if _, err := l.Sample(context.Background(), nil); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last sample: %v", err)
	}
	var listing bytes.Buffer // perfc dump of the same bytes
	if err := l.dump(&listing); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%d samples, ", l.Len()); !bytes.Contains(listing.Bytes(), []byte(want)) {
		t.Fatalf("the listing does not count %d samples:\n%s", l.Len(), listing.Bytes())
	}
	return append(acc, maphash.Bytes(seed, listing.Bytes()))
}
