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

// fileBytes reads the file at path.
func fileBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReservedSpace: a linear log being written is longer than its records
// by zeros reserved for the next ones. A reader (of the live file, or of
// the file a killed writer left) ends the log at the last record without a
// note of damage; appending goes on after it; Close cuts the file back to
// its records.
func TestReservedSpace(t *testing.T) {
	live := liveSamples(t, 12, 21)
	for _, compress := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, "live.plog")
		w, err := Create(path, Options{Compress: compress, Location: time.UTC})
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range live[:8] {
			if err := w.WriteSample(s); err != nil {
				t.Fatalf("sample %d: %v", i, err)
			}
			data := fileBytes(t, path)
			end := w.Size()
			if int64(len(data)) <= end || int64(len(data)) > end+tailChunk+int64(os.Getpagesize()) || len(data)%os.Getpagesize() != 0 {
				t.Fatalf("compress=%v, sample %d: a file of %d bytes for records to %d: want space reserved after them, at most %d bytes, to a page boundary", compress, i, len(data), end, tailChunk)
			}
			if !allZero(data[end:]) {
				t.Fatalf("compress=%v, sample %d: the reserved space after byte %d is not zeros", compress, i, end)
			}
		}
		// What a writer killed now leaves: the file as it is.
		crashed := filepath.Join(dir, "crashed.plog")
		if err := os.WriteFile(crashed, fileBytes(t, path), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{path, crashed} {
			l, got := readAll(t, p)
			if len(got) != 8 || len(l.Notes()) != 0 {
				t.Fatalf("compress=%v, %s: %d samples, notes %q; want 8 and none", compress, filepath.Base(p), len(got), l.Notes())
			}
			for i := range got {
				if d := sameSample(got[i], live[i]); d != "" {
					t.Fatalf("compress=%v, %s: sample %d: %s", compress, filepath.Base(p), i, d)
				}
			}
		}
		end := w.Size()
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Size() != end {
			t.Fatalf("compress=%v: after Close the file has %v bytes (%v), want its records' %d", compress, fi.Size(), err, end)
		}

		// Appending to the crashed file: after its last record.
		w, err = Create(crashed, Options{Mode: Append, Compress: compress, Location: time.UTC})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range live[8:] {
			if err := w.WriteSample(s); err != nil {
				t.Fatal(err)
			}
		}
		end = w.Size()
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if n := int64(len(fileBytes(t, crashed))); n != end {
			t.Fatalf("compress=%v: appended file of %d bytes, want %d", compress, n, end)
		}
		l, got := readAll(t, crashed)
		if len(got) != len(live) || len(l.Notes()) != 0 {
			t.Fatalf("compress=%v: after appending: %d samples, notes %q; want %d and none", compress, len(got), l.Notes(), len(live))
		}
		for i := range got {
			if d := sameSample(got[i], live[i]); d != "" {
				t.Fatalf("compress=%v: after appending: sample %d: %s", compress, i, d)
			}
		}
	}
}

// TestReservedSpaceWithinLimits: a log with a maximum size, or a rollover
// series, is never reserved past its limit.
func TestReservedSpaceWithinLimits(t *testing.T) {
	live := liveSamples(t, 40, 22)
	for _, c := range []struct {
		name string
		opts Options
		max  int64
	}{
		{"max", Options{MaxSize: 20_001, Location: time.UTC}, 20_001},
		{"rollover", Options{Rollover: Rollover{Size: 9_999}, Location: time.UTC}, 9_999},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "x.plog")
		w, err := Create(path, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range live {
			if err := w.WriteSample(s); err != nil {
				if strings.Contains(err.Error(), ErrFull.Error()) {
					break
				}
				t.Fatalf("%s: sample %d: %v", c.name, i, err)
			}
			fi, err := os.Stat(w.Path())
			if err != nil {
				t.Fatal(err)
			}
			if fi.Size() > max(c.max, w.Size()) || fi.Size()%8 != 0 {
				t.Fatalf("%s: sample %d: %s has %d bytes (records to %d), limit %d", c.name, i, w.Path(), fi.Size(), w.Size(), c.max)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestZerosAfterLastRecord: zeros after the last record are reserved space
// only as a multiple of 8 bytes; otherwise they are what is left of a
// record cut short, and the reader says so.
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

// TestFileCutUnderWriter: a log file cut short by someone else while its
// writer maps it makes the next write fail with an error (the mapping's
// SIGBUS is caught), not crash the program.
func TestFileCutUnderWriter(t *testing.T) {
	live := liveSamples(t, 4, 24)
	path := filepath.Join(t.TempDir(), "x.plog")
	w, err := Create(path, Options{Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.WriteSample(live[0]); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	err = w.WriteSample(live[1])
	if err == nil || !strings.Contains(err.Error(), "the file changed under the writer") || !strings.Contains(err.Error(), path) {
		t.Fatalf("writing to a log cut to 0 bytes: %v", err)
	}
	if err := w.WriteSample(live[2]); err == nil {
		t.Fatal("the writer went on after the failed write")
	}
}
