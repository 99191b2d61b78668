package relog

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog/binlog"
	"github.com/perfcounters/perfcounters/perflog/blg"
	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
)

func merge(t *testing.T, inputs ...pdh.Input) *pdh.Merged {
	t.Helper()
	m, err := pdh.Merge(inputs...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func run(t *testing.T, src pdh.Source, opts Options) (string, []string) {
	t.Helper()
	var warns []string
	opts.Warn = func(s string) { warns = append(warns, s) }
	var out bytes.Buffer
	if _, _, err := Run(t.Context(), src, opts, &out); err != nil {
		t.Fatal(err)
	}
	return out.String(), warns
}

// cells splits the lines of a text log into cells, quotes kept.
func cells(text, sep string) [][]string {
	var out [][]string
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		out = append(out, strings.Split(l, sep))
	}
	return out
}

// TestMergeTextLogs: Windows' CSV (charlieparker, 2016) and one of ours
// (TESTHOST, 2024) relogged together: every column of both, the rows of
// each in time order, blanks where an input has no sample.
func TestMergeTextLogs(t *testing.T) {
	ours, err := os.ReadFile("testdata/all.csv.golden")
	if err != nil {
		t.Fatal(err)
	}
	oursText, _, _ := strings.Cut(string(ours), "\n-- ")
	oursText += "\n"
	theirs, err := os.ReadFile(filepath.Join(windowsLogs, "CounterSamples.csv"))
	if err != nil {
		t.Fatal(err)
	}
	a := openText(t, filepath.Join(windowsLogs, "CounterSamples.csv"))
	b, err := pdhcsv.ReadLog(strings.NewReader(oursText), "all.csv", -1)
	if err != nil {
		t.Fatal(err)
	}
	got, warns := run(t, merge(t, pdh.Input{Name: "CounterSamples.csv", Source: a}, pdh.Input{Name: "all.csv", Source: b}), Options{Location: a.Location()})
	if len(warns) > 0 {
		t.Errorf("warnings %q", warns)
	}
	ta, tb := cells(string(theirs), ","), cells(oursText, ",")
	na, nb := len(ta[0])-1, len(tb[0])-1
	blanks := func(n int) []string { return slices.Repeat([]string{`" "`}, n) }
	want := [][]string{append(slices.Clone(ta[0]), tb[0][1:]...)}
	for _, r := range ta[1:] {
		want = append(want, append(slices.Clone(r), blanks(nb)...))
	}
	test := time.FixedZone("Test Standard Time", -300*60)
	pst := time.FixedZone("Pacific Standard Time", -480*60)
	for _, r := range tb[1:] {
		ts, err := time.ParseInLocation(`"01/02/2006 15:04:05.000"`, r[0], test)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, append(append([]string{ts.In(pst).Format(`"01/02/2006 15:04:05.000"`)}, blanks(na)...), r[1:]...))
	}
	g := cells(got, ",")
	if len(g) != len(want) {
		t.Fatalf("%d lines, want %d", len(g), len(want))
	}
	for i := range want {
		if len(g[i]) != len(want[i]) {
			t.Fatalf("line %d: %d cells, want %d", i+1, len(g[i]), len(want[i]))
		}
		for j := range want[i] {
			// Names are spelled as the first input that names the object
			// spells them ("processor" in Windows' file): one title table.
			if g[i][j] != want[i][j] && (i > 0 || !strings.EqualFold(g[i][j], want[i][j])) {
				t.Errorf("line %d cell %d: %s, want %s", i+1, j+1, g[i][j], want[i][j])
			}
		}
	}
}

// TestMergeOverlap: a log given twice is read once, with one warning.
func TestMergeOverlap(t *testing.T) {
	open := func() *blg.Log {
		l, err := blg.Open("../../../perflog/blg/testdata/SampleLog.blg")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	}
	opts := Options{Counters: []string{`\Processor(*)\% Processor Time`, `\Memory\*`}, Location: time.UTC}
	want, _ := run(t, open(), opts)
	got, warns := run(t, merge(t, pdh.Input{Name: "SampleLog.blg", Source: open()}, pdh.Input{Name: "SampleLog.blg", Source: open()}), opts)
	if got != want {
		t.Errorf("differs from the log read once:\n%s", lineDiff(got, want))
	}
	if len(warns) != 1 || !strings.HasPrefix(warns[0], "inputs overlap: the same file given twice (objects ") {
		t.Errorf("warnings %q, want one overlap", warns)
	}
}

// TestMergeBLGAndBlocks: Windows' wildcard BLG and the blocks cut from it
// merge with a text log of another machine sampled at other times.
func TestMergeBLGAndBlocks(t *testing.T) {
	l, err := blg.Open("../../../perflog/blg/testdata/CounterSamples.blg")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	bf, _ := fixtures(t)
	m := merge(t, pdh.Input{Name: "CounterSamples.blg", Source: l}, pdh.Input{Name: "blocks", Source: bf})
	if m.Len() != l.Len()+bf.Len() {
		t.Fatalf("%d samples, want %d", m.Len(), l.Len()+bf.Len())
	}
	got, _ := run(t, m, Options{Counters: []string{`\\charlieparker\memory\% committed bytes in use`, `\\TESTHOST\Memory\Available MBytes`}, Location: time.UTC})
	g := cells(got, ",")
	if len(g) != 1+m.Len() || g[1][1] != `"86.93735103284412"` || g[1][2] != `" "` || g[len(g)-1][1] != `" "` || g[len(g)-1][2] != `"2051"` {
		t.Errorf("merged output:\n%s", got)
	}
}

// TestEveryMixed: -t 2 over inputs of raw values (blocks) and formatted
// values (a CSV of another machine at the same times): the raw counters
// are recomputed over the kept samples, exactly as from the blocks alone;
// the formatted ones are averaged; the warning says which.
func TestEveryMixed(t *testing.T) {
	csv := `"(PDH-CSV 4.0) (Coordinated Universal Time)(0)","\\OTHER\Memory\Available MBytes","\\OTHER\Processor(_Total)\% Processor Time"` + "\n" +
		`"03/05/2024 12:00:00.000","10"," "` + "\n" +
		`"03/05/2024 12:00:01.000","20","5"` + "\n" +
		`"03/05/2024 12:00:02.000","40"," "` + "\n" +
		`"03/05/2024 12:00:03.000","80","7"` + "\n"
	paths := []string{`\\TESTHOST\Processor(_Total)\Interrupts/sec`, `\\TESTHOST\Processor(_Total)\% Processor Time`}
	raw, _ := fixtures(t)
	alone, _ := run(t, raw, Options{Counters: paths, Every: 2, Location: time.UTC})

	text, err := pdhcsv.ReadLog(strings.NewReader(csv), "other.csv", -1)
	if err != nil {
		t.Fatal(err)
	}
	blocks, _ := fixtures(t)
	m := merge(t, pdh.Input{Name: "blocks", Source: blocks}, pdh.Input{Name: "other.csv", Source: text})
	if m.Len() != 4 {
		t.Fatalf("%d merged samples, want 4", m.Len())
	}
	got, warns := run(t, m, Options{Counters: append(slices.Clone(paths), `\\OTHER\Memory\Available MBytes`, `\\OTHER\Processor(*)\*`), Every: 2, Location: time.UTC})
	wantWarn := "some counters of the input hold formatted values only (CSV/TSV): -t 2 averages their values over 2 samples instead of recomputing them from raw values; counters with raw values are recomputed"
	if len(warns) != 1 || warns[0] != wantWarn {
		t.Errorf("warnings %q, want %q", warns, wantWarn)
	}
	a, g := cells(alone, ","), cells(got, ",")
	// Kept: samples 0 and 2. OTHER's values: 10 and " " at 0; (20+40)/2
	// and 5 (the only one) at 2.
	want := [][]string{{`"10"`, `" "`}, {`"30"`, `"5"`}}
	if len(g) != 3 || len(a) != 3 {
		t.Fatalf("got\n%s\nalone\n%s", got, alone)
	}
	for r := range g {
		if !slices.Equal(g[r][:3], a[r]) {
			t.Errorf("line %d: raw columns %q, want %q (the blocks alone)", r+1, g[r][:3], a[r])
		}
		if r > 0 && !slices.Equal(g[r][3:], want[r-1]) {
			t.Errorf("line %d: formatted columns %q, want %q", r+1, g[r][3:], want[r-1])
		}
	}
}

// TestMergeInterleaved: inputs whose samples alternate in time: each
// input's rates are computed between its own samples, as from it alone,
// and its columns are blank in the other input's samples.
func TestMergeInterleaved(t *testing.T) {
	csv := `"(PDH-CSV 4.0) (Coordinated Universal Time)(0)","\\OTHER\Memory\Available MBytes"` + "\n" +
		`"03/05/2024 12:00:00.500","10"` + "\n" +
		`"03/05/2024 12:00:01.500","20"` + "\n" +
		`"03/05/2024 12:00:02.500"," "` + "\n"
	paths := []string{`\\TESTHOST\Processor(_Total)\Interrupts/sec`, `\\TESTHOST\Processor(*)\% Processor Time`}
	raw, _ := fixtures(t)
	alone, _ := run(t, raw, Options{Counters: paths, Location: time.UTC})
	text, err := pdhcsv.ReadLog(strings.NewReader(csv), "other.csv", -1)
	if err != nil {
		t.Fatal(err)
	}
	blocks, _ := fixtures(t)
	m := merge(t, pdh.Input{Name: "blocks", Source: blocks}, pdh.Input{Name: "other.csv", Source: text})
	got, _ := run(t, m, Options{Counters: append(slices.Clone(paths), `\\OTHER\Memory\*`), Location: time.UTC})
	a, c := cells(alone, ","), cells(csv, ",")
	want := [][]string{append(slices.Clone(a[0]), c[0][1])}
	for r := 1; r < len(a); r++ {
		want = append(want, append(slices.Clone(a[r]), `" "`))
		if r < len(c) {
			want = append(want, append(append([]string{c[r][0]}, slices.Repeat([]string{`" "`}, len(a[r])-1)...), c[r][1]))
		}
	}
	g := cells(got, ",")
	if len(g) != len(want) {
		t.Fatalf("got\n%s", got)
	}
	for i := range want {
		if !slices.Equal(g[i], want[i]) {
			t.Errorf("line %d: %q, want %q", i+1, g[i], want[i])
		}
	}
}

// TestMergeMachinesSameTime: two machines' text logs at the same times
// become one sample each; a blank of one machine blanks none of the
// other's values of the same object.
func TestMergeMachinesSameTime(t *testing.T) {
	a := `"(PDH-CSV 4.0) (Coordinated Universal Time)(0)","\\A\Memory\Available MBytes","\\A\Processor(_Total)\% Processor Time"` + "\n" +
		`"03/05/2024 12:00:00.000"," "," "` + "\n" +
		`"03/05/2024 12:00:01.000","2","3"` + "\n"
	b := `"(PDH-CSV 4.0) (Coordinated Universal Time)(0)","\\B\Memory\Available MBytes","\\B\Processor(_Total)\% Processor Time"` + "\n" +
		`"03/05/2024 12:00:00.000","5","6"` + "\n" +
		`"03/05/2024 12:00:01.000"," "," "` + "\n"
	la, err := pdhcsv.ReadLog(strings.NewReader(a), "a.csv", -1)
	if err != nil {
		t.Fatal(err)
	}
	lb, err := pdhcsv.ReadLog(strings.NewReader(b), "b.csv", -1)
	if err != nil {
		t.Fatal(err)
	}
	m := merge(t, pdh.Input{Name: "a.csv", Source: la}, pdh.Input{Name: "b.csv", Source: lb})
	if m.Len() != 2 {
		t.Fatalf("%d samples, want 2", m.Len())
	}
	got, warns := run(t, m, Options{Location: time.UTC})
	want := `"(PDH-CSV 4.0) (Coordinated Universal Time)(0)","\\A\Memory\Available MBytes","\\A\Processor(_Total)\% Processor Time","\\B\Memory\Available MBytes","\\B\Processor(_Total)\% Processor Time"` + "\n" +
		`"03/05/2024 12:00:00.000"," "," ","5","6"` + "\n" +
		`"03/05/2024 12:00:01.000","2","3"," "," "` + "\n"
	if got != want || len(warns) > 0 {
		t.Errorf("got\n%s\nwant\n%s\nwarnings %q", got, want, warns)
	}

	// -t 2 with a third row: the kept sample 2 averages rows 1 and 2 of
	// each machine on its own.
	a += `"03/05/2024 12:00:02.000","4"," "` + "\n"
	b += `"03/05/2024 12:00:02.000","7","8"` + "\n"
	if la, err = pdhcsv.ReadLog(strings.NewReader(a), "a.csv", -1); err != nil {
		t.Fatal(err)
	}
	if lb, err = pdhcsv.ReadLog(strings.NewReader(b), "b.csv", -1); err != nil {
		t.Fatal(err)
	}
	got, _ = run(t, merge(t, pdh.Input{Name: "a.csv", Source: la}, pdh.Input{Name: "b.csv", Source: lb}), Options{Location: time.UTC, Every: 2})
	want = want[:strings.LastIndex(want[:len(want)-1], "\n")+1] + `"03/05/2024 12:00:02.000","3","3","7","8"` + "\n"
	if got != want {
		t.Errorf("-t 2: got\n%s\nwant\n%s", got, want)
	}
}

// TestMergeBinlogKeepsItsComputer: a binary log's counter list names no
// computer; merged with a BLG of another computer that records whole
// objects, the output holds exactly what the inputs recorded: the log's
// one counter, with its computer, and the BLG's objects, not every
// counter of the log's objects (issue 44).
func TestMergeBinlogKeepsItsComputer(t *testing.T) {
	bf, _ := fixtures(t)
	path := filepath.Join(t.TempDir(), "mem.plog")
	writeBinlog(t, path, bf, binlog.Options{Titles: bf.Titles(), Location: time.UTC, Counters: []string{`\Processor(_Total)\Interrupts/sec`}})
	plog, err := binlog.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer plog.Close()
	l, err := blg.Open("../../../perflog/blg/testdata/SampleLog.blg") // whole objects
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got, _ := run(t, merge(t, pdh.Input{Name: "mem.plog", Source: plog}, pdh.Input{Name: "SampleLog.blg", Source: l}), Options{Location: time.UTC})
	header := cells(got, ",")[0]
	var theirs, ours []string
	for _, c := range header[1:] {
		switch {
		case strings.HasPrefix(c, `"\\TESTHOST\`):
			ours = append(ours, c)
		default:
			theirs = append(theirs, c)
		}
	}
	if want := []string{`"\\TESTHOST\Processor(_Total)\Interrupts/sec"`}; !slices.Equal(ours, want) {
		t.Errorf("the binary log's columns %q, want %q", ours, want)
	}
	if err := l.Seek(0); err != nil {
		t.Fatal(err)
	}
	alone, _ := run(t, l, Options{Location: time.UTC})
	if want := cells(alone, ",")[0][1:]; !slices.Equal(theirs, want) {
		t.Errorf("the BLG's columns: %d, want its own %d", len(theirs), len(want))
	}
	// With a text log of another computer that lists the same counter,
	// each input's column stays its own.
	csv := `"(PDH-CSV 4.0) (Coordinated Universal Time)(0)","\\OTHER\Processor(_Total)\Interrupts/sec"` + "\n" +
		`"03/05/2024 12:00:00.000","10"` + "\n"
	text, err := pdhcsv.ReadLog(strings.NewReader(csv), "other.csv", -1)
	if err != nil {
		t.Fatal(err)
	}
	if err := plog.Seek(0); err != nil {
		t.Fatal(err)
	}
	got, _ = run(t, merge(t, pdh.Input{Name: "other.csv", Source: text}, pdh.Input{Name: "mem.plog", Source: plog}), Options{Location: time.UTC})
	if header, want := cells(got, ",")[0][1:], []string{`"\\OTHER\Processor(_Total)\Interrupts/sec"`, `"\\TESTHOST\Processor(_Total)\Interrupts/sec"`}; !slices.Equal(header, want) {
		t.Errorf("columns %q, want %q", header, want)
	}
}

// writeBinlog writes every sample of src into a new binary log at path.
func writeBinlog(t *testing.T, path string, src pdh.Source, opts binlog.Options) {
	t.Helper()
	w, err := binlog.Create(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	for {
		s, err := src.Sample(t.Context(), nil)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteSample(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
