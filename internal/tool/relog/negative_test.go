package relog

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/perflog"
	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
	"github.com/perfcounters/perfcounters/titles"
)

// TestNegativeResultIsNoValue is issue 29's "a 2013 BLG gives -1.5587 for
// one \Processor(3)\% Processor Time": three samples of an inverse timer
// whose idle time ran ahead of the time base in the second interval
// (100 × (1 − 1.01 s / 1 s) = −1). PDH reports that as
// PDH_CALC_NEGATIVE_VALUE and its tools write no value; the same must hold
// in every output, written directly and read back from our binary log and
// SQLite.
func TestNegativeResultIsNoValue(t *testing.T) {
	ctx := context.Background()
	db := titles.English()
	proc, ok1 := db.Index("Processor")
	pct, ok2 := db.Index("% Processor Time")
	if !ok1 || !ok2 {
		t.Fatal("English titles lack Processor or % Processor Time")
	}
	dir := t.TempDir()
	// Idle time of CPU 3 at each sample, in 100 ns units; samples 1 s apart.
	// Interval 1: 1.01 s idle in 1 s (−1 %); interval 2: 0.5 s idle (50 %).
	files := processorBlocks(t, dir, proc, pct, []uint64{0, 10_100_000, 15_100_000})
	open := func(t *testing.T, names ...string) *perflog.Input {
		return openInput(t, names, perflog.OpenOptions{Titles: db})
	}
	record := func(t *testing.T, out string, f perflog.Format, from ...string) {
		relogInto(t, open(t, from...), out, f, perflog.CreateOptions{Location: time.UTC})
	}
	bin := filepath.Join(dir, "run.plog")
	lite := "SQL:" + filepath.Join(dir, "run.db") + "!run"
	tsv := filepath.Join(dir, "run.tsv")
	record(t, bin, perflog.BIN, files...)
	record(t, lite, perflog.SQL, files...)
	var tsvText bytes.Buffer
	if _, _, err := Run(ctx, open(t, files...).Source, Options{Format: pdhcsv.TSV, Location: time.UTC}, &tsvText); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tsv, tsvText.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	// The rows every input must give, computed by hand: the first sample of
	// a timer has no value, the second is negative (no value), the third
	// 100 × (1 − 0.5) = 50.
	want := []string{`" "`, `" "`, `"50"`}
	for _, in := range []struct {
		name  string
		files []string
	}{{"blocks", files}, {"BIN", []string{bin}}, {"SQLite", []string{lite}}, {"TSV", []string{tsv}}} {
		t.Run(in.name, func(t *testing.T) {
			var out bytes.Buffer
			if _, _, err := Run(ctx, open(t, in.files...).Source, Options{Location: time.UTC}, &out); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if len(lines) != 1+len(want) {
				t.Fatalf("%d lines, want %d:\n%s", len(lines), 1+len(want), out.String())
			}
			if !strings.HasSuffix(lines[0], `\\PC13\Processor(3)\% Processor Time"`) {
				t.Errorf("header %s", lines[0])
			}
			for i, w := range want {
				cells := strings.Split(lines[1+i], ",")
				if got := cells[len(cells)-1]; got != w {
					t.Errorf("row %d: %s, want %s (line %s)", i+1, got, w, lines[1+i])
				}
			}
		})
	}
}

// processorBlocks writes one block file per idle value: object proc with
// one inverse-timer counter pct, instance "3", samples 1 s apart on
// machine PC13, and returns their names.
func processorBlocks(t *testing.T, dir string, proc, pct uint32, idle []uint64) []string {
	t.Helper()
	const start = int64(130_000_000_000_000_000) // a FILETIME in 2012
	var files []string
	for k, n := range idle {
		now := start + int64(k)*10_000_000
		b := perfdata.NewBuilder(nil)
		b.Reset(perfdata.Header{
			SystemTime: perfdata.SystemTimeOf(time.Unix(0, (now-116444736000000000)*100)),
			PerfTime:   now, PerfFreq: 10_000_000, PerfTime100nSec: now,
			SystemName: "PC13",
		})
		counters := []perfdata.CounterSpec{{NameIndex: pct, HelpIndex: pct + 1, Type: countertype.PERF_100NSEC_TIMER_INV}}
		l, err := perfdata.NewLayout(counters)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: proc, HelpIndex: proc + 1, DefaultCounter: 0}, l, counters); err != nil {
			t.Fatal(err)
		}
		b.Instance("3", 0, 0, perfdata.NoUniqueID).Set(0, n)
		if err := b.EndObject(); err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(dir, "s"+string(rune('0'+k))+".bin")
		if err := os.WriteFile(f, b.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// TestProblemTally: a problem that touches some samples is said once,
// after the rows, with how many it touched; a machine that did not answer
// is named as the reader knows it.
func TestProblemTally(t *testing.T) {
	noMachine := pdh.Problem{Object: 238, ObjectName: "Processor", Machine: `\\s14185201`,
		Reason: `\\s14185201: PDH_CSTATUS_NO_MACHINE: the computer was not available (status 0x800007D0)`}
	other := pdh.Problem{Object: 2, ObjectName: "System", Reason: "provider failed"}
	var tl problemTally
	for _, s := range [][]pdh.Problem{nil, {noMachine, noMachine}, {noMachine, other}, nil, {noMachine}} {
		tl.add(s)
	}
	var got []string
	tl.report(func(s string) { got = append(got, s) })
	want := []string{`\\s14185201 did not answer in 3 of 5 samples`, `object System left out: provider failed in 1 of 5 samples`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q, want %q", got, want)
	}
}
