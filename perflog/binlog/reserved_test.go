package binlog

import (
	"bytes"
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
