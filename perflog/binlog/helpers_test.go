package binlog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

var windowsDir = filepath.Join("..", "..", "perfdata", "testdata", "windows")

// windowsSamples are the 11 samples of ZACH-PC (88 blocks), with the
// title database cut from the same log.
func windowsSamples(t testing.TB) ([]*pdh.Sample, *titles.DB) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(windowsDir, "s01-*.bin"))
	if err != nil {
		t.Fatal(err)
	}
	more, err := filepath.Glob(filepath.Join(windowsDir, "s02-s11", "s*.bin"))
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, more...)
	if len(paths) != 88 {
		t.Fatalf("%d block files, want 88", len(paths))
	}
	f, err := os.Open(filepath.Join(windowsDir, "counter-names-009.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	db, err := titles.ParseTSV(f)
	if err != nil {
		t.Fatal(err)
	}
	bf, err := pdh.OpenBlockFiles(paths, db)
	if err != nil {
		t.Fatal(err)
	}
	var out []*pdh.Sample
	for {
		s, err := bf.Sample(context.Background(), nil)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if len(out) != 11 {
		t.Fatalf("%d samples, want 11", len(out))
	}
	return out, db
}

// liveSamples builds n samples the way our engine does: a single-instance
// object, an object whose instances come and go (processes, with text and
// 4-byte counters), and an object with no instances, with counters that
// move like real ones. Deterministic for a seed.
func liveSamples(t testing.TB, n int, seed uint64) []*pdh.Sample {
	t.Helper()
	return liveSamplesN(t, n, seed, 20)
}

// liveSamplesN is liveSamples with procs processes at the start.
func liveSamplesN(t testing.TB, n int, seed uint64, procs0 int) []*pdh.Sample {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	memCounters := []perfdata.CounterSpec{
		{NameIndex: 24, HelpIndex: 25, DetailLevel: 100, Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT},
		{NameIndex: 26, HelpIndex: 27, DetailLevel: 100, Type: countertype.PERF_COUNTER_RAWCOUNT},
	}
	procCounters := []perfdata.CounterSpec{
		{NameIndex: 6, HelpIndex: 7, DetailLevel: 100, Type: countertype.PERF_100NSEC_TIMER},
		{NameIndex: 180, HelpIndex: 181, DetailLevel: 100, Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT},
		{NameIndex: 784, HelpIndex: 785, DetailLevel: 100, Type: countertype.PERF_COUNTER_RAWCOUNT},
		{NameIndex: 1410, HelpIndex: 1411, DetailLevel: 600, Type: countertype.PERF_SIZE_VARIABLE_LEN | countertype.PERF_TYPE_TEXT | countertype.PERF_TEXT_UNICODE, Size: 32},
	}
	ml, err := perfdata.NewLayout(memCounters)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := perfdata.NewLayout(procCounters)
	if err != nil {
		t.Fatal(err)
	}
	type proc struct {
		name string
		pid  int32
		cpu  uint64
		mem  uint64
	}
	var procs []proc
	nextPID := int32(100)
	for range procs0 {
		procs = append(procs, proc{name: fmt.Sprintf("proc%d", nextPID), pid: nextPID, mem: rng.Uint64N(1 << 30)})
		nextPID++
	}
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	var out []*pdh.Sample
	var mem uint64 = 1 << 33
	b := perfdata.NewBuilder(nil)
	for i := range n {
		at := t0.Add(time.Duration(i) * time.Second)
		// Processes end and start.
		if rng.IntN(3) == 0 && len(procs) > 1 {
			k := rng.IntN(len(procs))
			procs = append(procs[:k], procs[k+1:]...)
		}
		if rng.IntN(3) == 0 {
			procs = append(procs, proc{name: fmt.Sprintf("proc%d", nextPID), pid: nextPID})
			nextPID++
		}
		b.Reset(perfdata.Header{DefaultObject: 4, PerfTime: int64(i) * 1_000_000_000, PerfFreq: 1_000_000_000,
			PerfTime100nSec: perfdata.FileTime(at), SystemTime: perfdata.SystemTimeOf(at), SystemName: "LIVEHOST"})
		if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: 4, HelpIndex: 5, DetailLevel: 100, Single: true}, ml, memCounters); err != nil {
			t.Fatal(err)
		}
		mem += rng.Uint64N(1<<20) - 1<<19
		v := b.Single()
		v.Set(0, mem)
		v.Set(1, uint64(rng.IntN(100)))
		if err := b.EndObject(); err != nil {
			t.Fatal(err)
		}
		if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: 230, HelpIndex: 231, DetailLevel: 100}, pl, procCounters); err != nil {
			t.Fatal(err)
		}
		for k := range procs {
			p := &procs[k]
			p.cpu += rng.Uint64N(10_000_000)
			if rng.IntN(4) == 0 {
				p.mem += rng.Uint64N(1 << 16)
			}
			v := b.Instance(p.name, 0, 0, p.pid)
			v.Set(0, p.cpu)
			v.Set(1, p.mem)
			v.Set(2, uint64(p.pid))
			v.SetText(3, "/usr/bin/"+p.name, false)
		}
		if err := b.EndObject(); err != nil {
			t.Fatal(err)
		}
		// An object with no instances at all this time (a metadata object).
		if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: 238, HelpIndex: 239, DetailLevel: 100}, ml, memCounters); err != nil {
			t.Fatal(err)
		}
		if err := b.EndObject(); err != nil {
			t.Fatal(err)
		}
		s, err := pdh.NewSample([][]byte{bytes.Clone(b.Bytes())})
		if err != nil {
			t.Fatal(err)
		}
		if i%7 == 3 {
			s.Problems = []pdh.Problem{{Object: 510, ObjectName: "Network Interface", Reason: "provider timed out", Partial: true,
				Missing: []pdh.MissingValues{{Instance: 2, Counters: []uint32{10, 12}}, {Instance: -1}}}}
		}
		out = append(out, s)
	}
	return out
}

// readAll reads every sample of the log at path.
func readAll(t testing.TB, path string) (*Log, []*pdh.Sample) {
	t.Helper()
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var out []*pdh.Sample
	for {
		s, err := l.Sample(context.Background(), nil)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: sample %d: %v", path, len(out), err)
		}
		out = append(out, s)
	}
	if len(out) != l.Len() {
		t.Fatalf("%s: read %d samples, Len says %d", path, len(out), l.Len())
	}
	return l, out
}

// sameSample reports how got differs from want ("" when equal): blocks
// byte for byte, time, problems.
func sameSample(got, want *pdh.Sample) string {
	if len(got.Blocks) != len(want.Blocks) {
		return fmt.Sprintf("%d blocks, want %d", len(got.Blocks), len(want.Blocks))
	}
	for i := range got.Blocks {
		g, w := got.Blocks[i].Bytes(), want.Blocks[i].Bytes()
		if !bytes.Equal(g, w) {
			at := 0
			for at < min(len(g), len(w)) && g[at] == w[at] {
				at++
			}
			return fmt.Sprintf("block %d: %d bytes, want %d; first difference at byte %d", i, len(g), len(w), at)
		}
	}
	if !got.Time.Equal(want.Time) {
		return fmt.Sprintf("time %v, want %v", got.Time, want.Time)
	}
	if fmt.Sprint(got.Problems) != fmt.Sprint(want.Problems) {
		return fmt.Sprintf("problems %v, want %v", got.Problems, want.Problems)
	}
	return ""
}

// writeLog writes samples to a new log with opts and returns the file
// sizes after each sample.
func writeLog(t testing.TB, path string, opts Options, samples []*pdh.Sample) []int64 {
	t.Helper()
	w, err := Create(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int64
	for i, s := range samples {
		if err := w.WriteSample(s); err != nil {
			t.Fatalf("sample %d: %v", i, err)
		}
		sizes = append(sizes, w.Size())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return sizes
}

// writeGapLog writes samples to a new log with opts as writeLog does, with
// a "collection stopped" gap mark a second before sample gap.
func writeGapLog(t testing.TB, path string, opts Options, samples []*pdh.Sample, gap int) {
	t.Helper()
	w, err := Create(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range samples {
		if i == gap {
			if err := w.WriteGap(s.Time.Add(-time.Second), "collection stopped"); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.WriteSample(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// gapOnlyLog writes a log in loc holding one gap mark at at and opens it;
// it is closed when the test ends.
func gapOnlyLog(t *testing.T, loc *time.Location, at time.Time) *Log {
	t.Helper()
	path := filepath.Join(t.TempDir(), "z.plog")
	w, err := Create(path, Options{Location: loc, Host: "h"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteGap(at, "stopped"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// testdataDir is this package's testdata directory, absolute (tests may
// change the working directory).
func testdataDir(t testing.TB) string {
	t.Helper()
	return filepath.Join(pkgDir, "testdata")
}

var pkgDir = func() string {
	d, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	return d
}()

// sampleAt seeks l to sample i, reads it and fails the test unless it is
// want.
func sampleAt(t testing.TB, l *Log, i int, want *pdh.Sample) *pdh.Sample {
	t.Helper()
	if err := l.Seek(i); err != nil {
		t.Fatal(err)
	}
	s, err := l.Sample(t.Context(), nil)
	if err != nil {
		t.Fatalf("sample %d: %v", i, err)
	}
	if d := sameSample(s, want); d != "" {
		t.Fatalf("sample %d after seek: %s", i, d)
	}
	return s
}
