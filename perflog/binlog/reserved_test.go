package binlog

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestFileIsItsRecords: a writer appends each sample's records with one
// write and reserves nothing: after every sample the file is exactly its
// records (Size), and the live file reads back every sample so far with
// no note.
func TestFileIsItsRecords(t *testing.T) {
	live := liveSamples(t, 12, 21)
	for _, c := range []struct {
		name string
		opts Options
	}{
		{"plain", Options{Location: time.UTC}},
		{"zstd", Options{Compress: true, Location: time.UTC}},
		{"max size", Options{MaxSize: 1 << 20, Location: time.UTC}},
		{"rollover", Options{Rollover: Rollover{Size: 9_999}, Location: time.UTC}},
		{"append", Options{Mode: Append, Compress: true, Location: time.UTC}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.plog")
			w, err := Create(path, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			first := map[string]int{} // the first sample of each file
			for i, s := range live {
				if err := w.WriteSample(s); err != nil {
					t.Fatalf("sample %d: %v", i, err)
				}
				p := w.Path()
				if _, ok := first[p]; !ok {
					first[p] = i
				}
				if n := int64(len(fileBytes(t, p))); n != w.Size() {
					t.Fatalf("sample %d: %s has %d bytes, its records %d", i, filepath.Base(p), n, w.Size())
				}
				l, got := readAll(t, p)
				if want := i + 1 - first[p]; len(got) != want || len(l.Notes()) != 0 {
					t.Fatalf("sample %d: the live file %s reads %d samples, notes %q; want %d and none", i, filepath.Base(p), len(got), l.Notes(), want)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestEarlierBuildReservedSpace reads testdata/reserved.plog, what a
// writer of an earlier build (daf9828) left when it was killed: its
// records, then the zeros it had reserved ahead of them to the end of the
// file (testdata/PROVENANCE.md). Those zeros end the log silently; zeros
// followed by anything else, or cut to a length that is not a multiple of
// 8, are a torn record at the offset where the zeros start. Appending
// cuts the zeros and goes on after the last record.
func TestEarlierBuildReservedSpace(t *testing.T) {
	win, _ := windowsSamples(t)
	const samples = 5
	data := fileBytes(t, filepath.Join("testdata", "reserved.plog"))
	sc, err := scan(bytes.NewReader(data), int64(len(data)), "reserved.plog")
	if err != nil {
		t.Fatal(err)
	}
	end := int(sc.newest().end())
	if end >= len(data) || !allZero(data[end:]) || (len(data)-end)%8 != 0 {
		t.Fatalf("testdata/reserved.plog: records to byte %d of %d, then not a multiple of 8 zero bytes", end, len(data))
	}
	lastRec := data[sc.records[len(sc.records)-1].off:end]
	torn := "torn record at byte " + strconv.Itoa(end) + " "
	for _, c := range []struct {
		name string
		edit func(b []byte) []byte
		note string // "" none
	}{
		{"as left", func(b []byte) []byte { return b }, ""},
		{"cut to a record's end", func(b []byte) []byte { return b[:end] }, ""},
		{"zeros cut short", func(b []byte) []byte { return b[:len(b)-3] }, torn},
		{"a byte after the zeros' start", func(b []byte) []byte { b[end+4096] = 1; return b }, torn},
		{"the last byte", func(b []byte) []byte { b[len(b)-1] = 0x80; return b }, torn},
		{"half a record in the zeros", func(b []byte) []byte { copy(b[end:], lastRec[:len(lastRec)/2]); return b }, torn},
		{"a whole record after zeros", func(b []byte) []byte {
			copy(b[end+64:], lastRec)
			return b
		}, fmt.Sprintf("bytes %d to %d are damaged", end, end+64)},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := c.edit(bytes.Clone(data))
			l, err := Read(bytes.NewReader(b), int64(len(b)), "reserved.plog")
			if err != nil {
				t.Fatal(err)
			}
			got := readN(t, l, "reserved.plog")
			if len(got) != samples {
				t.Fatalf("%d samples, want %d", len(got), samples)
			}
			for i := range got {
				if d := sameSample(got[i], win[i]); d != "" {
					t.Errorf("sample %d: %s", i, d)
				}
			}
			switch n := l.Notes(); {
			case c.note == "" && len(n) != 0:
				t.Errorf("notes %q, want none", n)
			case c.note != "" && (len(n) == 0 || !strings.Contains(n[0], c.note)):
				t.Errorf("notes %q, want one that says %q", n, c.note)
			}
		})
	}

	path := filepath.Join(t.TempDir(), "reserved.plog")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Create(path, Options{Mode: Append, Compress: true, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range win[samples:] {
		if err := w.WriteSample(s); err != nil {
			t.Fatal(err)
		}
	}
	size := w.Size()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := int64(len(fileBytes(t, path))); n != size {
		t.Fatalf("appended file of %d bytes, its records %d", n, size)
	}
	l, got := readAll(t, path)
	if len(got) != len(win) || len(l.Notes()) != 0 {
		t.Fatalf("after appending: %d samples, notes %q; want %d and none", len(got), l.Notes(), len(win))
	}
	for i := range got {
		if d := sameSample(got[i], win[i]); d != "" {
			t.Errorf("after appending: sample %d: %s", i, d)
		}
	}
}

// TestZerosAfterLastRecord: zeros after the last record end the log
// silently only as a multiple of 8 bytes; otherwise they are what is left
// of a record cut short, and the reader says so.
func TestZerosAfterLastRecord(t *testing.T) {
	live := liveSamples(t, 3, 23)
	path := filepath.Join(t.TempDir(), "x.plog")
	writeLog(t, path, Options{Location: time.UTC}, live)
	data := fileBytes(t, path)
	for _, n := range []int{8, 16, 40, 4096, 4, 12, 41} {
		p := filepath.Join(t.TempDir(), "z.plog")
		if err := os.WriteFile(p, append(bytes.Clone(data), make([]byte, n)...), 0o644); err != nil {
			t.Fatal(err)
		}
		l, got := readAll(t, p)
		torn := len(l.Notes()) == 1 && strings.Contains(l.Notes()[0], "torn record at byte "+strconv.Itoa(len(data)))
		if len(got) != len(live) || (n%8 == 0) == torn || (n%8 == 0 && len(l.Notes()) != 0) {
			t.Errorf("%d zero bytes after the last record: %d samples, notes %q", n, len(got), l.Notes())
		}
	}
}

// fileBytes reads the file at path.
func fileBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
