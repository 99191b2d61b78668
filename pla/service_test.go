package pla

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/perflog/binlog"
	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
	"github.com/perfcounters/perfcounters/perflog/sqllog"
)

// runFor runs set in a service over src for n samples (the first at
// start, one a second after) on the fake clock, then stops it.
func runFor(t *testing.T, dir string, set *collectorset.Set, src *fakeSource, n int) {
	t.Helper()
	runWith(t, dir, set, testOptions(src), n)
}

// runWith is runFor in a service with opts.
func runWith(t *testing.T, dir string, set *collectorset.Set, opts Options, n int) {
	t.Helper()
	svc := NewService(t.Context(), opts)
	if err := svc.Start(dir, set, time.Time{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Duration(n-1)*time.Second + time.Second/2)
	synctest.Wait()
	svc.StopAll("test done")
	svc.Wait()
}

// logLen opens a binary log and returns its sample count and times.
func logLen(t testing.TB, path string) (int, []time.Time) {
	t.Helper()
	l, err := binlog.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var ts []time.Time
	for i := range l.Len() {
		ts = append(ts, l.Time(i))
	}
	return l.Len(), ts
}

func TestRolloverBySize(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root := t.TempDir()
		set := newSet("bysize", root)
		set.Segment, set.SegmentMaxSize = true, 1 // 1 "MB" = 16 KiB here
		set.Collector.FileNameFormat = collectorset.FileNameSerialNumber
		const n = 200
		runFor(t, stateDir(t), set, newFakeSource(20), n)
		files, _ := filepath.Glob(filepath.Join(root, "*"))
		if len(files) < 3 {
			t.Fatalf("files %v: want a series of at least 3 over %d samples", files, n)
		}
		total := 0
		for i, f := range files {
			if want := filepath.Join(root, fmt.Sprintf("bysize_%06d.plog", i+1)); f != want {
				t.Errorf("file %d is %s, want %s", i, f, want)
			}
			fi, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Size() > 16<<10 {
				t.Errorf("%s: %d bytes, more than -max (16 KiB here)", f, fi.Size())
			}
			k, _ := logLen(t, f)
			total += k
		}
		if total != n {
			t.Errorf("%d samples in the series, want %d", total, n)
		}
	})
}

func TestRolloverByTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root := t.TempDir()
		set := newSet("bytime", root, `\Memory\Available Bytes`)
		set.Segment, set.SegmentMaxDuration = true, 10
		set.Collector.FileNameFormat = collectorset.FileNameSerialNumber
		runFor(t, stateDir(t), set, newFakeSource(1), 35)
		for i, want := range []int{10, 10, 10, 5} {
			got, _ := logLen(t, filepath.Join(root, fmt.Sprintf("bytime_%06d.plog", i+1)))
			if got != want {
				t.Errorf("file %d: %d samples, want %d", i+1, got, want)
			}
		}
		if _, err := os.Stat(filepath.Join(root, "bytime_000005.plog")); err == nil {
			t.Error("a fifth file was made")
		}
	})
}

func TestRolloverDated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root := t.TempDir()
		set := newSet("dated", root, `\Memory\Available Bytes`)
		set.Segment, set.SegmentMaxDuration = true, 60
		set.Collector.FileNameFormat = collectorset.FileNameMonthDayHourMinute
		t0 := time.Now()
		runFor(t, stateDir(t), set, newFakeSource(1), 150)
		var want []string
		for _, k := range []int{0, 60, 120} {
			at := t0.Add(time.Duration(k) * time.Second).Local()
			want = append(want, filepath.Join(root, "dated_"+fmt.Sprintf("%02d%02d%02d%02d", int(at.Month()), at.Day(), at.Hour(), at.Minute())+".plog"))
		}
		got, _ := filepath.Glob(filepath.Join(root, "*"))
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("files\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

func TestCircularStaysWithinMax(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root := t.TempDir()
		set := newSet("circ", root)
		set.Collector.LogCircular, set.SegmentMaxSize = true, 4 // 64 KiB here
		const n = 1500
		t0 := time.Now()
		runFor(t, stateDir(t), set, newFakeSource(20), n)
		path := filepath.Join(root, "circ.plog")
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > 64<<10 {
			t.Errorf("circular log of %d bytes, more than -max (64 KiB here)", fi.Size())
		}
		k, ts := logLen(t, path)
		if k == 0 || k >= n/3 {
			t.Fatalf("%d samples kept of %d: the ring did not wrap many times", k, n)
		}
		for i := 1; i < len(ts); i++ {
			if !ts[i].After(ts[i-1]) {
				t.Fatalf("sample %d at %v is not after sample %d at %v", i, ts[i], i-1, ts[i-1])
			}
		}
		if last := t0.Add((n - 1) * time.Second); !ts[len(ts)-1].Equal(last) {
			t.Errorf("newest sample at %v, want %v (the last written)", ts[len(ts)-1], last)
		}
	})
}

func TestExistingFile(t *testing.T) {
	root := t.TempDir()
	src := newFakeSource(1)
	for _, tc := range []struct {
		name      string
		format    collectorset.LogFileFormat
		append    bool
		overwrite bool
		wantErr   bool
		wantRows  int // samples (binary) or lines (text) after the second run of 2 samples
	}{
		{"bin new", collectorset.Binary, false, false, true, 2},
		{"bin -ow", collectorset.Binary, false, true, false, 2},
		{"bin -a", collectorset.Binary, true, false, false, 4},
		{"csv new", collectorset.CommaSeparated, false, false, true, 3},
		{"csv -ow", collectorset.CommaSeparated, false, true, false, 3},
		{"csv -a", collectorset.CommaSeparated, true, false, false, 5}, // one header
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				dir := stateDir(t)
				set := newSet("ex", filepath.Join(root, strings.ReplaceAll(tc.name, " ", "_")), `\Memory\Available Bytes`)
				set.Collector.LogFileFormat = tc.format
				runFor(t, dir, set, src, 2)
				set.Collector.LogAppend, set.Collector.LogOverwrite = tc.append, tc.overwrite
				svc := NewService(t.Context(), testOptions(src))
				err := svc.Start(dir, set, time.Time{})
				if (err != nil) != tc.wantErr {
					t.Fatalf("second start: %v, want error %v", err, tc.wantErr)
				}
				if err == nil {
					time.Sleep(time.Second + time.Second/2)
					synctest.Wait()
					svc.StopAll("done")
				}
				svc.Wait()
				path := set.OutputLocation(time.Now())
				var got int
				if tc.format == collectorset.Binary {
					got, _ = logLen(t, path)
				} else {
					b, err := os.ReadFile(path)
					if err != nil {
						t.Fatal(err)
					}
					got = strings.Count(string(b), "\n")
					if strings.Count(string(b), "PDH-CSV") != 1 {
						t.Errorf("%d headers in\n%s", strings.Count(string(b), "PDH-CSV"), b)
					}
					if _, err := pdhcsv.Open(path); err != nil {
						t.Errorf("reading the CSV back: %v", err)
					}
				}
				if got != tc.wantRows {
					t.Errorf("%d rows, want %d", got, tc.wantRows)
				}
			})
		})
	}
}

func TestSQLAppends(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "perf.db")
		set := newSet("sqlset", "", `\Memory\Available Bytes`)
		set.Collector.LogFileFormat, set.Collector.DataSourceName = collectorset.Sql, db
		dir := stateDir(t)
		src := newFakeSource(1)
		runFor(t, dir, set, src, 3)
		runFor(t, dir, set, src, 2)
		l, err := sqllog.Open(context.Background(), "SQL:"+db+"!sqlset")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		if l.Len() != 5 {
			t.Errorf("%d records in the SQL log set after runs of 3 and 2 samples, want 5", l.Len())
		}
	})
}

// TestSharedCollection: sets of one interval reading the same objects
// share one sample per tick.
func TestSharedCollection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newFakeSource(3)
		svc := NewService(t.Context(), testOptions(src))
		dir, root := stateDir(t), t.TempDir()
		for i := range 10 {
			if err := svc.Start(dir, newSet(fmt.Sprintf("s%d", i), root), time.Time{}); err != nil {
				t.Fatal(err)
			}
		}
		before := src.taken()
		time.Sleep(10*time.Second + time.Second/2)
		synctest.Wait()
		if got := src.taken() - before; got != 10 {
			t.Errorf("%d samples taken in 10 ticks of 10 sets, want 10 (one per tick)", got)
		}
		svc.StopAll("done")
		svc.Wait()
		for i := range 10 {
			if k, _ := logLen(t, filepath.Join(root, fmt.Sprintf("s%d.plog", i))); k != 11 {
				t.Errorf("set s%d: %d samples, want 11", i, k)
			}
		}
		// Started together, the sets start from one sample, so their
		// logs hold the same records (past the file header, which
		// says when each file was made).
		want, err := os.ReadFile(filepath.Join(root, "s0.plog"))
		if err != nil {
			t.Fatal(err)
		}
		const header = 64
		for i := 1; i < 10; i++ {
			got, err := os.ReadFile(filepath.Join(root, fmt.Sprintf("s%d.plog", i)))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) < header || !bytes.Equal(got[header:], want[header:]) {
				t.Errorf("set s%d: its log's records differ from set s0's (%d bytes, %d)", i, len(got), len(want))
			}
		}
	})
}

// TestRunTimeAndSampleCount: -rf and -sc stop a set, with the reason
// recorded.
func TestRunTimeAndSampleCount(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rf, sc  uint32
		samples int
		reason  string
	}{
		{"rf", 5, 0, 5, "run time"},
		{"sc", 0, 7, 7, "samples (-sc)"},
		{"sc 1", 0, 1, 1, "samples (-sc)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				dir, root := stateDir(t), t.TempDir()
				set := newSet("limited", root, `\Memory\Available Bytes`)
				set.Duration, set.Collector.MaxSamples = tc.rf, tc.sc
				svc := NewService(t.Context(), testOptions(newFakeSource(1)))
				if err := svc.Start(dir, set, time.Time{}); err != nil {
					t.Fatal(err)
				}
				if done, _ := svc.Done(dir, set.Name); done != nil {
					<-done
				}
				svc.Wait()
				if k, _ := logLen(t, filepath.Join(root, "limited.plog")); k != tc.samples {
					t.Errorf("%d samples, want %d", k, tc.samples)
				}
				rec, err := ReadRecord(dir, set.Name)
				if err != nil || rec == nil || rec.Stopped.IsZero() || !strings.Contains(rec.Reason, tc.reason) {
					t.Errorf("record %+v (%v): want stopped with %q", rec, err, tc.reason)
				}
			})
		})
	}
}

// TestSerialNumbers: each run of a set versioned -v nnnnnn writes the
// next file; a run after a crash continues the dead collector's file
// after a gap mark, and a rollover series after a crash goes on with the
// next number.
func TestSerialNumbers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir, root := stateDir(t), t.TempDir()
		src := newFakeSource(1)
		set := newSet("ser", root, `\Memory\Available Bytes`)
		set.Collector.FileNameFormat = collectorset.FileNameSerialNumber
		runFor(t, dir, set, src, 2)
		runFor(t, dir, set, src, 3)
		for i, want := range []int{2, 3} {
			if k, _ := logLen(t, filepath.Join(root, fmt.Sprintf("ser_%06d.plog", i+1))); k != want {
				t.Errorf("run %d: %d samples in ser_%06d.plog, want %d", i+1, k, i+1, want)
			}
		}
		// A crash: the record names a process that is gone.
		rec, err := ReadRecord(dir, "ser")
		if err != nil || rec == nil {
			t.Fatal(rec, err)
		}
		rec.Stopped, rec.Reason, rec.StartTicks = time.Time{}, "", rec.StartTicks+1
		if err := WriteRecord(dir, rec); err != nil {
			t.Fatal(err)
		}
		runFor(t, dir, set, src, 2)
		n, gaps := gapsOf(t, filepath.Join(root, "ser_000002.plog"))
		if n != 5 || len(gaps) != 1 || gaps[0] != 3 {
			t.Errorf("after the crash ser_000002.plog holds %d samples with gaps at %v; want 5 with a gap at 3", n, gaps)
		}
		if _, err := os.Stat(filepath.Join(root, "ser_000003.plog")); err == nil {
			t.Error("the run after the crash started a new file")
		}

		// A rollover series after a crash.
		roll := newSet("roll", root, `\Memory\Available Bytes`)
		roll.Collector.FileNameFormat = collectorset.FileNameSerialNumber
		roll.Segment, roll.SegmentMaxDuration = true, 2
		runFor(t, dir, roll, src, 5) // roll_000001 .. roll_000003
		rec, _ = ReadRecord(dir, "roll")
		rec.Stopped, rec.StartTicks = time.Time{}, rec.StartTicks+1
		if err := WriteRecord(dir, rec); err != nil {
			t.Fatal(err)
		}
		runFor(t, dir, roll, src, 2)
		got, _ := filepath.Glob(filepath.Join(root, "roll_*"))
		var want []string
		for i := 1; i <= 4; i++ {
			want = append(want, filepath.Join(root, fmt.Sprintf("roll_%06d.plog", i)))
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("rollover files %v, want %v", got, want)
		}
		if _, gaps := gapsOf(t, want[3]); len(gaps) != 1 || gaps[0] != 0 {
			t.Errorf("the file after the crash has gaps at %v, want one at its first sample", gaps)
		}
	})
}

func gapsOf(t *testing.T, path string) (int, []int) {
	t.Helper()
	l, err := binlog.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var gaps []int
	for i := range l.Len() {
		s, err := l.Sample(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if s.Gap {
			gaps = append(gaps, i)
		}
	}
	return l.Len(), gaps
}

// TestSQLMaxRecords: -max of a SQL log counts records: the set stops
// when its log set holds that many, with the reason in its record, and
// a start on the full log set fails saying so.
func TestSQLMaxRecords(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "perf.db")
		set := newSet("sqlmax", "", `\Memory\Available Bytes`)
		set.Collector.LogFileFormat, set.Collector.DataSourceName = collectorset.Sql, db
		set.Collector.SegmentMaxRecords = 3
		dir := stateDir(t)
		src := newFakeSource(1)
		svc := NewService(t.Context(), testOptions(src))
		if err := svc.Start(dir, set, time.Time{}); err != nil {
			t.Fatal(err)
		}
		done, reason := svc.Done(dir, set.Name)
		time.Sleep(5*time.Second + time.Second/2) // 6 samples offered
		synctest.Wait()
		select {
		case <-done:
		default:
			t.Fatal("the set still runs after 6 samples with -max 3 records")
		}
		if r := reason(); !strings.Contains(r, "maximum number of records") {
			t.Errorf("reason %q, want it to say the log set holds its maximum number of records", r)
		}
		rec, err := ReadRecord(dir, set.Name)
		if err != nil || rec == nil || rec.Stopped.IsZero() || !strings.Contains(rec.Reason, "-max") {
			t.Errorf("record %+v, %v: want a clean stop naming -max", rec, err)
		}
		err = svc.Start(dir, set, time.Time{})
		if !errors.Is(err, sqllog.ErrFull) {
			t.Errorf("start on the full log set: %v, want sqllog.ErrFull", err)
		}
		svc.StopAll("done")
		svc.Wait()
		l, err := sqllog.Open(context.Background(), "SQL:"+db+"!sqlmax")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		if l.Len() != 3 {
			t.Errorf("%d records in the SQL log set with -max 3, want 3", l.Len())
		}
	})
}

// TestTriggeredRuns: a set an alert starts (Options.Triggered) that
// writes one file, neither overwriting nor appending, gets a new file
// each run; started by hand, its second run is refused because the file
// exists (issue 44: an alert's -rdcs set failed at every firing after
// the first).
func TestTriggeredRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir, root := stateDir(t), t.TempDir()
		src := newFakeSource(1)
		set := newSet("fired", root, `\Memory\Available Bytes`)
		opts := testOptions(src)
		opts.Triggered = true
		for range 3 {
			svc := NewService(t.Context(), opts)
			if err := svc.Start(dir, set, time.Time{}); err != nil {
				t.Fatal(err)
			}
			time.Sleep(1500 * time.Millisecond)
			synctest.Wait()
			svc.StopAll("test done")
			svc.Wait()
		}
		for i := 1; i <= 3; i++ {
			if k, _ := logLen(t, filepath.Join(root, fmt.Sprintf("fired_%06d.plog", i))); k != 2 {
				t.Errorf("run %d: %d samples, want 2", i, k)
			}
		}
		// By hand, the set as defined: one file, then refused.
		plain := newSet("plain", root, `\Memory\Available Bytes`)
		runFor(t, dir, plain, src, 2)
		svc := NewService(t.Context(), testOptions(src))
		if err := svc.Start(dir, plain, time.Time{}); !errors.Is(err, ErrFileExists) {
			t.Errorf("second start by hand: %v, want ErrFileExists", err)
		}
		svc.StopAll("test done")
		svc.Wait()
	})
}
