package relog

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	goldenfile "github.com/perfcounters/perfcounters/internal/golden"

	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog"
	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
	"github.com/perfcounters/perfcounters/titles"
)

// The synthetic fixtures are built by ../typeperf's generator test
// (TestFixtures there): four samples one second apart from 2024-03-05
// 12:00:00 UTC, host TESTHOST.
const fixtureDir = "../typeperf/testdata/blocks"

var testZone = time.FixedZone("Test Standard Time", -5*3600)

// openInput opens names with opts; the input is closed when the test ends.
func openInput(t *testing.T, names []string, opts perflog.OpenOptions) *perflog.Input {
	t.Helper()
	in, err := perflog.Open(context.Background(), names, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	return in
}

// relogInto relogs all of in, unchanged, into a new log out of format f
// made with opts and the input's titles, in opts.Location.
func relogInto(t *testing.T, in *perflog.Input, out string, f perflog.Format, opts perflog.CreateOptions) {
	t.Helper()
	ctx := context.Background()
	opts.Titles = in.Source.Titles()
	rec, err := perflog.Create(ctx, out, f, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Run(ctx, in.Source, Options{Sink: rec, Location: opts.Location}, nil); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
}

func loadDB(t testing.TB, file string) *titles.DB {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("titles missing: %v", err)
	}
	db, err := titles.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func fixtures(t testing.TB) (*pdh.BlockFiles, []string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(fixtureDir, "sample-*.perfdata"))
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	bf, err := pdh.OpenBlockFiles(files, loadDB(t, filepath.Join(fixtureDir, "titles.tsv")))
	if err != nil {
		t.Fatal(err)
	}
	return bf, files
}

func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"all.csv", Options{}},
		{"all.tsv", Options{Format: pdhcsv.TSV}},
		{"filtered.csv", Options{Counters: []string{`\Process(*)\% Processor Time`, `\Thread(*)\ID Thread`, `\Memory\Available MBytes`}}},
		{"every2.csv", Options{Counters: []string{`\Processor(*)\*`}, Every: 2}},
		{"range.csv", Options{Counters: []string{`\Processor(_Total)\Interrupts/sec`},
			Begin: time.Date(2024, 3, 5, 7, 0, 2, 0, testZone), End: time.Date(2024, 3, 5, 7, 0, 2, 0, testZone)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bf, _ := fixtures(t)
			opts := tc.opts
			opts.Location = testZone
			var out bytes.Buffer
			in, written, err := Run(t.Context(), bf, opts, &out)
			if err != nil {
				t.Fatal(err)
			}
			got := out.String() + "-- stats --\n" + statsLine(in) + statsLine(written)
			golden(t, filepath.Join("testdata", tc.name+".golden"), got)
		})
	}
}

func statsLine(s Stats) string {
	return s.Begin.UTC().Format(time.RFC3339) + " " + s.End.UTC().Format(time.RFC3339) + " " + strconv.Itoa(s.Samples) + "\n"
}

// TestRangeAndEvery pins -b/-e/-t semantics independently of the goldens.
func TestRangeAndEvery(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  Options
		times []int // seconds after 12:00:00 UTC of the rows written
		first string
	}{
		{"all", Options{}, []int{0, 1, 2, 3}, " "},
		{"every 2", Options{Every: 2}, []int{0, 2}, " "},
		{"every 3", Options{Every: 3}, []int{0, 3}, " "},
		// -b keeps the sample before it to prime the rate: 300/s at once.
		{"begin", Options{Begin: time.Date(2024, 3, 5, 12, 0, 2, 0, time.UTC)}, []int{2, 3}, "300"},
		{"end inclusive", Options{End: time.Date(2024, 3, 5, 12, 0, 1, 0, time.UTC)}, []int{0, 1}, " "},
		// every 2 over 2 s: (5600-5000)/2 s = 300/s.
		{"every 2 from 2", Options{Every: 2, Begin: time.Date(2024, 3, 5, 12, 0, 1, 0, time.UTC)}, []int{2}, "300"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bf, _ := fixtures(t)
			opts := tc.opts
			opts.Counters = []string{`\Processor(_Total)\Interrupts/sec`}
			opts.Location = time.UTC
			var out bytes.Buffer
			if _, _, err := Run(t.Context(), bf, opts, &out); err != nil {
				t.Fatal(err)
			}
			lg, err := pdhcsv.Read(&out, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(lg.Rows) != len(tc.times) {
				t.Fatalf("%d rows, want %d\n%s", len(lg.Rows), len(tc.times), out.String())
			}
			for i, r := range lg.Rows {
				if want := time.Date(2024, 3, 5, 12, 0, tc.times[i], 0, time.UTC); !r.Time.Equal(want) {
					t.Errorf("row %d at %v, want %v", i, r.Time, want)
				}
			}
			first := " "
			if v := lg.Rows[0].Values[0]; v.OK {
				first = strconv.FormatFloat(v.Number, 'g', -1, 64)
			}
			if first != tc.first {
				t.Errorf("first value %q, want %q", first, tc.first)
			}
		})
	}
}

func TestParseTime(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Time
	}{
		{"8/14/2007 3:40:38PM", time.Date(2007, 8, 14, 15, 40, 38, 0, time.UTC)},
		{"8/14/2007 3:40:38 pm", time.Date(2007, 8, 14, 15, 40, 38, 0, time.UTC)},
		{"8/14/2007 12:05:00AM", time.Date(2007, 8, 14, 0, 5, 0, 0, time.UTC)},
		{"08/14/2007 15:40:38", time.Date(2007, 8, 14, 15, 40, 38, 0, time.UTC)},
		{"8/14/2007 15:40", time.Date(2007, 8, 14, 15, 40, 0, 0, time.UTC)},
	} {
		got, err := ParseTime(tc.in, time.UTC)
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("%q: %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "2007-08-14", "13/14/2007 1:00:00", "8/14/2007 25:00:00"} {
		if _, err := ParseTime(bad, time.UTC); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestSummary(t *testing.T) {
	bf, files := fixtures(t)
	var out bytes.Buffer
	if err := Summary(t.Context(), bf, files, Options{Counters: []string{`\Processor(*)\*`, `\Memory\*`}, Location: testZone}, &out, nil); err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "summary.golden"), out.String())
}

// TestConsoleReport: with a console, Run prints what Windows' relog prints
// while converting: the Input section, the progress in percent, and the
// Output section.
func TestConsoleReport(t *testing.T) {
	bf, files := fixtures(t)
	var out, console bytes.Buffer
	opts := Options{Counters: []string{`\Memory\Available MBytes`}, Location: testZone,
		Console: &console, Files: files[:1], OutFile: "out.csv"}
	opts.End = time.Date(2024, 3, 5, 12, 0, 1, 0, time.UTC)
	if _, _, err := Run(t.Context(), bf, opts, &out); err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "console.golden"), console.String())
}

// TestConsoleReportEvery: under -t the Input section speaks of every
// sample of the input (4 fixtures) and the Output section of those kept
// (samples 0 and 2), in the one-pass text path and with a sink.
func TestConsoleReportEvery(t *testing.T) {
	for _, sink := range []bool{false, true} {
		bf, files := fixtures(t)
		var out, console bytes.Buffer
		opts := Options{Counters: []string{`\Memory\Available MBytes`}, Location: testZone, Every: 2,
			Console: &console, Files: files, OutFile: "out"}
		if sink {
			dir := t.TempDir()
			rec, err := perflog.Create(t.Context(), filepath.Join(dir, "out.plog"), perflog.BIN, perflog.CreateOptions{Titles: bf.Titles(), Location: testZone})
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Close()
			opts.Sink = rec
		}
		if _, _, err := Run(t.Context(), bf, opts, &out); err != nil {
			t.Fatal(err)
		}
		in, outSec, ok := strings.Cut(console.String(), "Output")
		if !ok || !strings.Contains(in, "Samples:  4") || !strings.Contains(outSec, "Samples:  2") {
			t.Errorf("sink %v: console report\n%s\nwant Input with 4 samples and Output with 2", sink, console.String())
		}
	}
}

// TestShuffledInputs: input files given in any order are read in time
// order (a *.bin glob of files 1..11 sorts 1, 10, 11, 2, ...), and the
// output is the same as from the files in order.
func TestShuffledInputs(t *testing.T) {
	_, files := fixtures(t)
	db := loadDB(t, filepath.Join(fixtureDir, "titles.tsv"))
	run := func(files []string) string {
		bf, err := pdh.OpenBlockFiles(files, db)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if _, _, err := Run(t.Context(), bf, Options{Location: testZone, Every: 1}, &out); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	want := run(files)
	for _, order := range [][]int{{3, 2, 1, 0}, {1, 3, 0, 2}, {2, 0, 3, 1}} {
		shuffled := make([]string, len(order))
		for i, j := range order {
			shuffled[i] = files[j]
		}
		if got := run(shuffled); got != want {
			t.Errorf("order %v: output differs from the files in time order:\n%s\nwant:\n%s", order, got, want)
		}
		bf, err := pdh.OpenBlockFiles(shuffled, db)
		if err != nil {
			t.Fatal(err)
		}
		if len(bf.Notes()) == 0 {
			t.Errorf("order %v: merging out-of-order inputs was not reported", order)
		}
	}
	// -t 2 over shuffled inputs keeps samples 0 and 2 of the time order.
	bf, err := pdh.OpenBlockFiles([]string{files[3], files[1], files[2], files[0]}, db)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	in, written, err := Run(t.Context(), bf, Options{Location: time.UTC, Every: 2, Counters: []string{`\Memory\Available MBytes`}}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if in.Samples != 2 || written.Samples != 2 || !written.Begin.Equal(time.Date(2024, 3, 5, 12, 0, 0, 0, time.UTC)) ||
		!written.End.Equal(time.Date(2024, 3, 5, 12, 0, 2, 0, time.UTC)) {
		t.Errorf("-t 2: read %+v, wrote %+v; want samples at 12:00:00 and 12:00:02", in, written)
	}
}

// TestRealWindowsBlocks relogs the 88 real blocks of a Windows Vista
// machine (11 samples, 60 s apart) with its own title list. The values
// between samples 1 and 2 must be the worked examples of
// shared/conformance/perfdata/README.md, derived there by hand from the
// raw values.
func TestRealWindowsBlocks(t *testing.T) {
	// Copies of the blocks (perfdata/testdata/windows/PROVENANCE.md).
	dir := "../../../perfdata/testdata/windows"
	first, _ := filepath.Glob(filepath.Join(dir, "s*.bin"))
	rest, _ := filepath.Glob(filepath.Join(dir, "s02-s11", "s*.bin"))
	files := append(first, rest...)
	if len(files) != 88 {
		t.Fatalf("%d real blocks in %s, want 88", len(files), dir)
	}
	bf, err := pdh.OpenBlockFiles(files, loadDB(t, filepath.Join(dir, "counter-names-009.tsv")))
	if err != nil {
		t.Fatal(err)
	}
	counters := []string{
		`\Processor(_Total)\% Processor Time`,
		`\Process(Idle)\% Processor Time`,
		`\Processor(_Total)\Interrupts/sec`,
		`\System\System Up Time`,
		`\LogicalDisk(C:)\% Free Space`,
		`\LogicalDisk(C:)\% Disk Time`,
		`\LogicalDisk(C:)\Avg. Disk sec/Transfer`,
		`\LogicalDisk(C:)\Avg. Disk Bytes/Transfer`,
		`\LogicalDisk(_Total)\Avg. Disk Queue Length`,
		`\Memory\% Committed Bytes In Use`,
	}
	var out bytes.Buffer
	in, _, err := Run(t.Context(), bf, Options{Counters: counters, Location: time.UTC}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if in.Samples != 11 {
		t.Errorf("%d samples, want 11", in.Samples)
	}
	golden(t, filepath.Join("testdata", "zach-pc.csv.golden"), out.String())
	lg, err := pdhcsv.Read(bytes.NewReader(out.Bytes()), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The README's figures, with the precision it gives them.
	for i, tc := range []struct {
		row  int
		want float64
		prec int // decimals in the README
	}{
		{1, 82.148113, 6},
		{1, 17.851887, 6},
		{1, 1228.377778, 6},
		{0, 2002.161, 3},
		{0, 75.188011, 6},
		{1, 31.173144, 6},
		{1, 0.008179256, 9},
		{1, 38505.761, 3},
		{1, 0.311726, 6},
		{0, 37.764457, 6},
	} {
		if !strings.HasPrefix(lg.Columns[i], `\\ZACH-PC\`) {
			t.Errorf("column %d %q lacks the machine", i, lg.Columns[i])
		}
		v := lg.Rows[tc.row].Values[i]
		got := strconv.FormatFloat(v.Number, 'f', tc.prec, 64)
		if !v.OK || got != strconv.FormatFloat(tc.want, 'f', tc.prec, 64) {
			t.Errorf("%s row %d = %s (ok %v), want %v", counters[i], tc.row, got, v.OK, tc.want)
		}
	}
	// Rate counters have no value in the first row; the two RAW_FRACTION
	// counters and the elapsed time do.
	for i, v := range lg.Rows[0].Values {
		single := i == 3 || i == 4 || i == 9
		if v.OK != single {
			t.Errorf("first row, %s: has value %v, want %v", counters[i], v.OK, single)
		}
	}
}

func golden(t *testing.T, path, got string) { t.Helper(); goldenfile.Check(t, path, got) }

// TestOverlappingInputs: the same capture given twice is reported as
// overlapping inputs, once, and read once.
func TestOverlappingInputs(t *testing.T) {
	_, files := fixtures(t)
	db := loadDB(t, filepath.Join(fixtureDir, "titles.tsv"))
	bf, err := pdh.OpenBlockFiles(append(slices.Clone(files), files[1]), db)
	if err != nil {
		t.Fatal(err)
	}
	var warned []string
	var out bytes.Buffer
	in, _, err := Run(t.Context(), bf, Options{Location: time.UTC, Counters: []string{`\Memory\Available MBytes`},
		Warn: func(m string) { warned = append(warned, m) }}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if in.Samples != 4 {
		t.Errorf("%d samples read, want 4 (the repeated file is the same sample)", in.Samples)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "inputs overlap") || !strings.Contains(warned[0], filepath.Base(files[1])) {
		t.Errorf("warnings %q, want one naming the overlapping input", warned)
	}
}

// TestProgressOnTerminal: on a terminal the percentage is updated in
// place ("\r25.00%"); on anything else (console.golden) only its end is
// written, so a file or pipe gets no line of every percentage (issue 43).
func TestProgressOnTerminal(t *testing.T) {
	bf, _ := fixtures(t)
	var b strings.Builder
	p := newProgress(&b, bf.Recorded(), "\n")
	if p.live {
		t.Fatal("a strings.Builder taken for a terminal")
	}
	p.live = true // as newProgress finds it on a terminal
	for range bf.Recorded().Len() {
		if _, err := bf.Sample(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
		p.update()
	}
	if got, want := b.String()+p.done(), "\r25.00%\r50.00%\r75.00%\r100.00%\n\n"; got != want {
		t.Errorf("progress %q, want %q", got, want)
	}
}
