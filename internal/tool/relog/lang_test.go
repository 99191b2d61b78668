package relog

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/perflog"
	"github.com/perfcounters/perfcounters/titles"
)

// TestGermanLog is issue 29's "a log written on a German machine can be
// relogged with English paths where the mapping is known": the blocks
// carry Windows' English indexes (238 Processor, 6 % Processor Time) and
// the log's title table names them in German, as a German Windows'
// Perflib 007 list does. -c takes the German path as the log names it and
// the English path through Windows' English list; the rows are the same,
// and the log's names are written. With Titles (relog -lang 009) the
// English names are written instead.
func TestGermanLog(t *testing.T) {
	ctx := context.Background()
	const proc, pct = 238, 6
	de := titles.New()
	for _, n := range []struct {
		i    uint32
		name string
	}{{proc, "Prozessor"}, {pct, "Prozessorzeit (%)"}} {
		if err := de.SetAt(n.i, n.name, ""); err != nil {
			t.Fatal(err)
		}
	}
	files := processorBlocks(t, t.TempDir(), proc, pct, []uint64{0, 5_000_000, 12_500_000})
	run := func(t *testing.T, opts Options) string {
		t.Helper()
		in, err := perflog.Open(ctx, files, perflog.OpenOptions{Titles: de})
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		var out bytes.Buffer
		opts.Location = time.UTC
		if _, _, err := Run(ctx, in.Source, opts, &out); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	// Rows computed by hand: no value on the first sample, then
	// 100 × (1 − 0.5) = 50 and 100 × (1 − 0.75) = 25.
	rows := "\"12/14/2012 23:06:40.000\",\" \"\n\"12/14/2012 23:06:41.000\",\"50\"\n\"12/14/2012 23:06:42.000\",\"25\"\n"
	german := "\"(PDH-CSV 4.0) (Coordinated Universal Time)(0)\",\"\\\\PC13\\Prozessor(3)\\Prozessorzeit (%)\"\n" + rows
	english := "\"(PDH-CSV 4.0) (Coordinated Universal Time)(0)\",\"\\\\PC13\\Processor(3)\\% Processor Time\"\n" + rows
	cases := []struct {
		name string
		opts Options
		want string
	}{
		{"all", Options{}, german},
		{"-c German", Options{Counters: []string{`\Prozessor(*)\Prozessorzeit (%)`}}, german},
		{"-c English", Options{Counters: []string{`\Processor(*)\% Processor Time`}}, german},
		{"-c English, other case", Options{Counters: []string{`\processor(3)\% processor time`}}, german},
		{"-lang 009", Options{Titles: titles.Over(de, titles.English())}, english},
		{"-lang 009, -c German", Options{Titles: titles.Over(de, titles.English()), Counters: []string{`\Prozessor(3)\Prozessorzeit (%)`}}, english},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := run(t, c.opts); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
	in, err := perflog.Open(ctx, files, perflog.OpenOptions{Titles: de})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	_, _, err = Run(ctx, in.Source, Options{Counters: []string{`\Processor(*)\No Such Counter`}}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "No Such Counter") {
		t.Errorf("an unknown English counter: %v, want an error naming it", err)
	}
	// Beside a path that matches, a path that cannot be mapped is said.
	for _, sink := range []bool{false, true} {
		var warns []string
		opts := Options{Counters: []string{`\Processor(*)\% Processor Time`, `\Processor(*)\No Such Counter`},
			Warn: func(s string) { warns = append(warns, s) }}
		if sink {
			rec, err := perflog.Create(ctx, filepath.Join(t.TempDir(), "x.plog"), perflog.BIN, perflog.CreateOptions{Titles: de, Location: time.UTC})
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Close()
			opts.Sink = rec
		}
		if err := in.Source.Recorded().Seek(0); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Run(ctx, in.Source, opts, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		if len(warns) != 1 || !strings.HasPrefix(warns[0], `left out: \Processor(*)\No Such Counter: `) {
			t.Errorf("sink %v: warnings %q, want the path left out, once", sink, warns)
		}
	}
}

// TestZoneTravels is issue 27's "a reader hands the writer the zone it
// read, so a rule is written, not re-derived": a BLG's
// TIME_ZONE_INFORMATION (Pacific time, with daylight saving) becomes the
// POSIX rule of the input, a binary log written from it records that rule
// as it is, and the binary log read back states the same rule.
func TestZoneTravels(t *testing.T) {
	ctx := context.Background()
	blgFile := "../../../perflog/blg/testdata/CounterSamples.blg"
	in, err := perflog.Open(ctx, []string{blgFile}, perflog.OpenOptions{Titles: titles.English()})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	// Written by hand from the BLG's zone (bias 480, daylight bias -60,
	// second Sunday of March and first Sunday of November at 2:00).
	const want = "<Pacific Standard Time>8:00<Pacific Daylight Time>7:00,M3.2.0/2:00:00,M11.1.0/2:00:00"
	if in.Rule != want {
		t.Fatalf("the BLG's rule %q, want %q", in.Rule, want)
	}
	out := filepath.Join(t.TempDir(), "x.plog")
	relogInto(t, in, out, perflog.BIN, perflog.CreateOptions{Location: in.Location, Rule: in.Rule})
	back, err := perflog.Open(ctx, []string{out}, perflog.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	if back.Rule != want {
		t.Errorf("the binary log's rule %q, want %q", back.Rule, want)
	}
	aug := time.Date(2016, 8, 1, 12, 0, 0, 0, time.UTC)
	if n1, _ := aug.In(in.Location).Zone(); func() string { n2, _ := aug.In(back.Location).Zone(); return n2 }() != n1 {
		t.Errorf("an August time: %q in the BLG's zone, another name read back", n1)
	}
}
