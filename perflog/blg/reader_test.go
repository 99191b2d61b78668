package blg

import (
	"bytes"
	"errors"
	"hash/maphash"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestReaderBytes: whatever the window and the order of requests, reader
// gives the bytes the log holds at the place asked, in memory and through
// a window, and an error (not a panic, not other bytes) for a place past
// the end or one the file no longer has.
func TestReaderBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 24))
	data := make([]byte, 50_000)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	type req struct {
		off int64
		n   int
	}
	var seq []req // forward in steps, as scan and a pass over samples read
	for off := int64(0); off < int64(len(data)); off += 4096 {
		seq = append(seq, req{off, min(4096, len(data)-int(off))})
		if off+4000 <= int64(len(data)) {
			seq = append(seq, req{off + 100, 64}, req{off + 3000, 1000})
		}
	}
	for range 2000 { // anywhere, as Seek reads
		off := rng.Int64N(int64(len(data)) + 1)
		seq = append(seq, req{off, rng.IntN(int(int64(len(data))-off) + 1)})
	}
	for _, window := range []int{1, 7, 4096, 4097, 10_000, 49_999, 50_000, 1 << 20} {
		readers := map[string]*reader{
			"memory": {mem: data, size: int64(len(data))},
			"window": {r: bytes.NewReader(data), size: int64(len(data)), window: window},
		}
		for name, r := range readers {
			for i, q := range seq {
				got, err := r.bytes(q.off, q.n)
				if err != nil || !bytes.Equal(got, data[q.off:q.off+int64(q.n)]) {
					t.Fatalf("%s, window %d, request %d (%d bytes at %d): wrong bytes, %v", name, window, i, q.n, q.off, err)
				}
				if cap(got) != len(got) {
					t.Fatalf("%s, window %d: %d bytes given with room for %d: an append would write over the log", name, window, len(got), cap(got))
				}
			}
			for _, q := range []req{{-1, 1}, {0, -1}, {int64(len(data)), 1}, {int64(len(data)) - 9, 10}, {1 << 62, 1 << 30}} {
				if got, err := r.bytes(q.off, q.n); err == nil || !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Errorf("%s, window %d: %d bytes at %d: %d bytes, %v; want io.ErrUnexpectedEOF", name, window, q.n, q.off, len(got), err)
				}
			}
		}
	}
	// A file that shrank after its size was taken: what it no longer
	// holds is an error, what it holds is read.
	r := &reader{r: bytes.NewReader(data[:30_000]), size: int64(len(data)), window: 8192}
	if _, err := r.bytes(29_000, 2000); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("past the shrunk end: %v", err)
	}
	if got, err := r.bytes(20_000, 2000); err != nil || !bytes.Equal(got, data[20_000:22_000]) {
		t.Errorf("before the shrunk end: %v", err)
	}
	if got, err := r.bytes(25_000, 5000); err != nil || !bytes.Equal(got, data[25_000:30_000]) {
		t.Errorf("up to the shrunk end: %v", err)
	}
}

// TestOpenWindow: a log larger than Open reads whole is read through its
// window, and gives what the same bytes give in memory. The real logs are
// made larger with unused buffers (as a preallocated file has) among
// their own, so that the window moves forward and back over records.
func TestOpenWindow(t *testing.T) {
	for _, name := range []string{"SampleLog.blg", "BadCounterSamples.blg", "CounterSamples.blg"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		bs := int(le.Uint32(b))
		unused := make([]byte, bs)
		le.PutUint32(unused, uint32(bs))
		var big []byte
		for i := 0; i < len(b); i += bs {
			big = append(big, b[i:i+bs]...)
			for range 3 {
				big = append(big, unused...)
			}
		}
		for len(big) <= wholeFile {
			big = append(big, unused...)
		}
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, big, 0o600); err != nil {
			t.Fatal(err)
		}
		l, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if l.r.r == nil {
			t.Fatalf("%s: %d bytes read whole, not through a window", name, len(big))
		}
		m, err := readMemory(big, path)
		if err != nil {
			t.Fatal(err)
		}
		if m.Len() == 0 {
			t.Fatalf("%s: no sample", name)
		}
		seed := maphash.MakeSeed()
		if got, want := readAll(t, l, seed), readAll(t, m, seed); !slices.Equal(got, want) || len(got) < m.Len() {
			t.Errorf("%s: through the window %x, in memory %x", name, got, want)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
