package binlog

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/pdh"
)

// at returns a copy of s with the time t0 + i seconds, so that a sample's
// position can be told from its time.
func at(s *pdh.Sample, i int) *pdh.Sample {
	c := *s
	c.Time = time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
	return &c
}

// indexOf is the inverse of at.
func indexOf(t time.Time) int {
	return int(t.Sub(time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)) / time.Second)
}

// TestTruncatedEverywhere cuts small logs at every byte offset (so every
// byte of the last sample, as a writer killed in its write leaves it):
// each reads back to its last whole sample, says nothing when the cut is
// at a record's end and names the record cut otherwise, and appending to
// it afterwards works.
func TestTruncatedEverywhere(t *testing.T) {
	live := liveSamples(t, 5, 5)
	for _, compress := range []bool{false, true} {
		t.Run(fmt.Sprintf("compress=%v", compress), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "full.plog")
			sizes := writeLog(t, path, Options{Compress: compress, Location: time.UTC}, live)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// The records' offsets, from the writer's sizes being
			// sample ends and the framing: where each record starts.
			sc, err := scan(bytes.NewReader(data), int64(len(data)), path)
			if err != nil {
				t.Fatal(err)
			}
			starts := []int64{headerLen}
			for _, f := range sc.records {
				starts = append(starts, f.end())
			}
			if starts[len(starts)-1] != int64(len(data)) || sizes[len(sizes)-1] != int64(len(data)) {
				t.Fatalf("records end at %d, samples at %d, file %d bytes", starts[len(starts)-1], sizes[len(sizes)-1], len(data))
			}
			cut := filepath.Join(dir, "cut.plog")
			for x := 0; x <= len(data); x++ {
				l, err := Read(bytes.NewReader(data[:x]), int64(x), cut)
				if x < headerLen {
					if err == nil {
						l.Close()
						t.Fatalf("cut at %d: opened a log without its whole header", x)
					}
					// A crash while the header was written: appending
					// starts the log anew.
					if err := os.WriteFile(cut, data[:x], 0o644); err != nil {
						t.Fatal(err)
					}
					w, err := Create(cut, Options{Mode: Append, Compress: compress, Location: time.UTC})
					if err != nil {
						t.Fatalf("cut at %d: append: %v", x, err)
					}
					if err := w.WriteSample(live[0]); err != nil {
						t.Fatal(err)
					}
					if err := w.Close(); err != nil {
						t.Fatal(err)
					}
					if _, got := readAll(t, cut); len(got) != 1 {
						t.Fatalf("cut at %d, appended one: %d samples", x, len(got))
					}
					continue
				}
				if err != nil {
					t.Fatalf("cut at %d: %v", x, err)
				}
				want := 0
				for _, s := range sizes {
					if int64(x) >= s {
						want++
					}
				}
				got := readN(t, l, cut)
				if len(got) != want {
					t.Fatalf("cut at %d: %d samples, want %d", x, len(got), want)
				}
				for i := range got {
					if d := sameSample(got[i], live[i]); d != "" {
						t.Fatalf("cut at %d: sample %d: %s", x, i, d)
					}
				}
				i, boundary := slices.BinarySearch(starts, int64(x))
				if boundary && len(l.Notes()) > 0 {
					t.Fatalf("cut at %d (a record's end): notes %q", x, l.Notes())
				}
				if !boundary {
					want := fmt.Sprintf("torn record at byte %d ", starts[i-1])
					if len(l.Notes()) != 1 || !strings.Contains(l.Notes()[0], want) {
						t.Fatalf("cut at %d (inside the record at %d): notes %q, want one that says %q", x, starts[i-1], l.Notes(), want)
					}
				}
				l.Close()
				// Appending to the cut log: the samples before the cut, then
				// the new ones.
				if x%53 == 0 || x == len(data)-1 {
					if err := os.WriteFile(cut, data[:x], 0o644); err != nil {
						t.Fatal(err)
					}
					w, err := Create(cut, Options{Mode: Append, Compress: compress, Location: time.UTC})
					if err != nil {
						t.Fatalf("cut at %d: append: %v", x, err)
					}
					for _, s := range live[:2] {
						if err := w.WriteSample(s); err != nil {
							t.Fatalf("cut at %d: append: %v", x, err)
						}
					}
					if err := w.Close(); err != nil {
						t.Fatal(err)
					}
					l2, got := readAll(t, cut)
					if len(got) != want+2 || len(l2.Notes()) != 0 {
						t.Fatalf("cut at %d, appended 2: %d samples (want %d), notes %q", x, len(got), want+2, l2.Notes())
					}
					for i, s := range got {
						exp := live[min(i, len(live)-1)]
						if i >= want {
							exp = live[i-want]
						}
						if d := sameSample(s, exp); d != "" {
							t.Fatalf("cut at %d, appended: sample %d: %s", x, i, d)
						}
					}
					l2.Close()
				}
			}
		})
	}
}

// readN reads every sample of an open log, failing on an error.
func readN(t *testing.T, l *Log, name string) []*pdh.Sample {
	t.Helper()
	var out []*pdh.Sample
	for i := 0; i < l.Len(); i++ {
		s, err := l.Sample(t.Context(), nil)
		if err != nil {
			t.Fatalf("%s: sample %d: %v", name, i, err)
		}
		out = append(out, s)
	}
	return out
}

// TestAppendDifferentSource appends samples of another host, with other
// titles, to a log: both runs read back, each with its names.
func TestAppendDifferentSource(t *testing.T) {
	win, db := windowsSamples(t)
	live := liveSamples(t, 5, 6)
	path := filepath.Join(t.TempDir(), "x.plog")
	writeLog(t, path, Options{Compress: true, Titles: db, Location: time.UTC}, win[:3])
	w, err := Create(path, Options{Mode: Append, Compress: true, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteGap(live[0].Time, "another host"); err != nil {
		t.Fatal(err)
	}
	for _, s := range live {
		if err := w.WriteSample(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	l, got := readAll(t, path)
	want := append(slices.Clone(win[:3]), live...)
	if len(got) != len(want) {
		t.Fatalf("%d samples, want %d", len(got), len(want))
	}
	for i := range got {
		if d := sameSample(got[i], want[i]); d != "" {
			t.Errorf("sample %d: %s", i, d)
		}
		if got[i].Gap != (i == 3) {
			t.Errorf("sample %d: Gap %v", i, got[i].Gap)
		}
	}
	if l.Host() != "ZACH-PC" || l.Titles().Name(238) != "Processor" {
		t.Errorf("host %q, title 238 %q", l.Host(), l.Titles().Name(238))
	}
}

// TestCircular writes many laps into small circular logs: the file never
// grows past MaxSize, reads in time order, always ends at the newest
// sample written, and holds the samples before it without holes.
func TestCircular(t *testing.T) {
	live := liveSamples(t, 50, 7)
	for _, c := range []struct {
		compress bool
		max      int64
	}{{false, minCircular}, {true, minCircular}, {false, 40000}} {
		t.Run(fmt.Sprintf("compress=%v,max=%d", c.compress, c.max), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ring.plog")
			opts := Options{Mode: Circular, MaxSize: c.max, Compress: c.compress, Location: time.UTC}
			w, err := Create(path, opts)
			if err != nil {
				t.Fatal(err)
			}
			const n = 700
			for i := range n {
				if i == 400 {
					// Close and append: the ring goes on where it was.
					if err := w.Close(); err != nil {
						t.Fatal(err)
					}
					if w, err = Create(path, Options{Mode: Append, Compress: c.compress, Location: time.UTC}); err != nil {
						t.Fatal(err)
					}
				}
				if err := w.WriteSample(at(live[i%len(live)], i)); err != nil {
					t.Fatalf("sample %d: %v", i, err)
				}
				fi, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Size() > c.max {
					t.Fatalf("after sample %d the file has %d bytes, more than MaxSize %d", i, fi.Size(), c.max)
				}
				if i%97 == 0 || i == n-1 {
					checkRing(t, path, i, live)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			checkRing(t, path, n-1, live)
		})
	}
}

// checkRing reads a circular log whose newest sample is last.
func checkRing(t *testing.T, path string, last int, live []*pdh.Sample) {
	t.Helper()
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got := readN(t, l, path)
	if len(got) == 0 {
		t.Fatalf("after sample %d: no samples", last)
	}
	first := indexOf(got[0].Time)
	for k, s := range got {
		i := first + k
		if indexOf(s.Time) != i {
			t.Fatalf("after sample %d: sample %d is number %d, want %d (time order, no holes)", last, k, indexOf(s.Time), i)
		}
		if d := sameSample(s, at(live[i%len(live)], i)); d != "" {
			t.Fatalf("after sample %d: sample %d: %s", last, i, d)
		}
	}
	if end := first + len(got) - 1; end != last {
		t.Fatalf("the log ends at sample %d, want %d", end, last)
	}
	if last > 100 && len(got) < 10 {
		t.Errorf("only %d samples kept", len(got))
	}
}

// TestRollover checks the file names of size and time rollover and that
// every file is a complete log.
func TestRollover(t *testing.T) {
	live := liveSamples(t, 40, 8)
	t.Run("size", func(t *testing.T) {
		dir := t.TempDir()
		base := filepath.Join(dir, "cpu.plog")
		opts := Options{Location: time.UTC, Rollover: Rollover{Size: 4096, First: 7}}
		w, err := Create(base, opts)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, s := range live {
			if err := w.WriteSample(s); err != nil {
				t.Fatal(err)
			}
			if len(paths) == 0 || paths[len(paths)-1] != w.Path() {
				paths = append(paths, w.Path())
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if len(paths) < 3 {
			t.Fatalf("%d files, want several", len(paths))
		}
		var all []*pdh.Sample
		for k, p := range paths {
			if want := filepath.Join(dir, fmt.Sprintf("cpu_%06d.plog", 7+k)); p != want {
				t.Errorf("file %d: %s, want %s", k, p, want)
			}
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Size() > 4096 {
				t.Errorf("%s: %d bytes, more than 4096", p, fi.Size())
			}
			_, got := readAll(t, p)
			all = append(all, got...)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != len(paths) {
			t.Errorf("%d files in the directory, want %d", len(entries), len(paths))
		}
		if len(all) != len(live) {
			t.Fatalf("%d samples in all files, want %d", len(all), len(live))
		}
		for i := range all {
			if d := sameSample(all[i], live[i]); d != "" {
				t.Errorf("sample %d: %s", i, d)
			}
		}
	})
	t.Run("time", func(t *testing.T) {
		dir := t.TempDir()
		base := filepath.Join(dir, "cpu.plog")
		ny, err := time.LoadLocation("America/New_York")
		if err != nil {
			t.Fatal(err)
		}
		opts := Options{Location: ny, Compress: true, Rollover: Rollover{Interval: 5 * time.Minute, Names: DatedNames}}
		w, err := Create(base, opts)
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Date(2026, 11, 23, 17, 58, 0, 0, time.UTC) // 12:58 in New York
		var paths []string
		for i := range 12 {
			s := *live[i]
			s.Time = t0.Add(time.Duration(i) * 2 * time.Minute)
			if i == 6 {
				s.Time = s.Time.Add(-30 * time.Second) // same minute as the file before
			}
			if err := w.WriteSample(&s); err != nil {
				t.Fatal(err)
			}
			if len(paths) == 0 || paths[len(paths)-1] != w.Path() {
				paths = append(paths, w.Path())
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		// Samples at 12:58, 13:00, ... 13:08, 13:09:30, 13:12, ... (New
		// York); a file starts with the first sample 5 minutes or more
		// after the current file's first: 12:58, 13:04 (>= 13:03),
		// 13:09:30 (>= 13:09), 13:16 (>= 13:14:30).
		want := []string{"cpu_11231258.plog", "cpu_11231304.plog", "cpu_11231309.plog", "cpu_11231316.plog"}
		var names []string
		for _, p := range paths {
			names = append(names, filepath.Base(p))
		}
		if !slices.Equal(names, want) {
			t.Errorf("files %q, want %q", names, want)
		}
	})
}
