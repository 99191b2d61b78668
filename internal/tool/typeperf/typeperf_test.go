package typeperf

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	goldenfile "github.com/perfcounters/perfcounters/internal/golden"

	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
	"github.com/perfcounters/perfcounters/titles"
)

// testZone is the fixed zone of the goldens: 5 hours west of UTC.
var testZone = time.FixedZone("Test Standard Time", -5*3600)

func openFixtures(t testing.TB) *pdh.BlockFiles {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtureDir, "titles.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := titles.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	bf, err := pdh.OpenBlockFiles(fixtureFiles(), db)
	if err != nil {
		t.Fatal(err)
	}
	return bf
}

// goldenCounters cover wildcard instances and counters, duplicate names
// (#1), parent/instance paths (Thread), a single-instance object, every
// counter type (the synthetic object) and a path that matches nothing.
var goldenCounters = []string{
	`\Processor(*)\% Processor Time`,
	`\Processor(_Total)\Interrupts/sec`,
	`\Memory\Available MBytes`,
	`\Process(*)\% Processor Time`,
	`\Process(svchost#1)\ID Process`,
	`\Process(svchost)\Working Set`,
	`\Thread(*)\% Processor Time`,
	`\Thread(svchost/0#1)\ID Thread`,
	`\Counter Types\*`,
	`\No Such Object\Nothing`,
}

func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"console.csv", Options{}},
		{"console.tsv", Options{Format: pdhcsv.TSV}},
		{"log.csv", Options{Log: true}},
		{"log.tsv", Options{Log: true, Format: pdhcsv.TSV}},
		{"console.table", Options{Form: FormTable}},
		{"console.jsonl", Options{Form: FormJSON}},
		{"console.table-wide", Options{Form: FormTable, Counters: []string{`\Processor(_Total)\% Processor Time`, `\Memory\Available MBytes`, `\Process(svchost#1)\ID Process`}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				opts := tc.opts
				if opts.Counters == nil {
					opts.Counters = goldenCounters
				}
				opts.Samples = 3
				opts.Location = testZone
				var out, errw bytes.Buffer
				console := &out
				var msgs bytes.Buffer
				if opts.Log {
					console = &msgs
				}
				if err := Run(t.Context(), openFixtures(t), opts, &out, console, &errw); err != nil {
					t.Fatal(err)
				}
				got := out.String()
				if opts.Log {
					got += "-- console --\n" + msgs.String()
				}
				got += "-- stderr --\n" + errw.String()
				golden(t, filepath.Join("testdata", tc.name+".golden"), got)
			})
		})
	}
}

// TestValues checks cells of the console output against values worked out
// by hand from the fixture's raw numbers (fixtures_test.go).
func TestValues(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out bytes.Buffer
		err := Run(t.Context(), openFixtures(t), Options{Counters: goldenCounters, Samples: 3, Location: time.UTC}, &out, &out, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		lg, err := pdhcsv.Read(&out, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		col := func(name string) int {
			for i, c := range lg.Columns {
				if strings.EqualFold(c, name) {
					return i
				}
			}
			t.Fatalf("no column %s in %q", name, lg.Columns)
			return -1
		}
		cell := func(row int, name string) string {
			v := lg.Rows[row].Values[col(name)]
			if !v.OK {
				return " "
			}
			return strings.TrimRight(strings.TrimRight(strconvF(v.Number), "0"), ".")
		}
		for _, tc := range []struct {
			row        int
			name, want string
		}{
			// 100NSEC_TIMER_INV: idle 0.75 s per s -> 25 %.
			{0, `\\TESTHOST\Processor(0)\% Processor Time`, "25"},
			{0, `\\TESTHOST\Processor(1)\% Processor Time`, "75"},
			{2, `\\TESTHOST\Processor(_Total)\% Processor Time`, "50"},
			// COUNTER_COUNTER: +300 per second.
			{1, `\\TESTHOST\Processor(_Total)\Interrupts/sec`, "300"},
			{2, `\\TESTHOST\Memory\Available MBytes`, "2051"},
			// Working Set has DefaultScale -5; typeperf prints it unscaled.
			{0, `\\TESTHOST\Process(svchost)\Working Set`, "104857600"},
			// Rows 0: pid 100 (50 %) and pid 200 as #1 (25 %).
			{0, `\\TESTHOST\Process(svchost)\% Processor Time`, "50"},
			{0, `\\TESTHOST\Process(svchost#1)\% Processor Time`, "25"},
			// Row 1: pid 100 has exited; "svchost" is pid 200 now, still 25 %
			// (matched by pid and start time, not by name#index), and #1 is
			// the new pid 300: no rate before its second sample.
			{1, `\\TESTHOST\Process(svchost)\% Processor Time`, "25"},
			{1, `\\TESTHOST\Process(svchost#1)\% Processor Time`, " "},
			{1, `\\TESTHOST\Process(svchost#1)\ID Process`, "300"},
			{2, `\\TESTHOST\Process(svchost#1)\% Processor Time`, "10"},
			{1, `\\TESTHOST\Thread(svchost/0#1)\% Processor Time`, " "},
			{2, `\\TESTHOST\Thread(svchost/0#1)\ID Thread`, "301"},
			{0, `\\TESTHOST\Process(Idle)\% Processor Time`, "25"},
			// Synthetic types.
			{0, `\\TESTHOST\Counter Types\PERF_COUNTER_COUNTER`, "500"},
			{0, `\\TESTHOST\Counter Types\PERF_RAW_FRACTION`, "50"},
			{0, `\\TESTHOST\Counter Types\PERF_SAMPLE_FRACTION`, "25"},
			{0, `\\TESTHOST\Counter Types\PERF_100NSEC_TIMER`, "25"},
			{0, `\\TESTHOST\Counter Types\PERF_100NSEC_TIMER_INV`, "75"},
			{0, `\\TESTHOST\Counter Types\PERF_PRECISION_100NS_TIMER`, "25"},
			{0, `\\TESTHOST\Counter Types\PERF_AVERAGE_TIMER`, "0.05"},
			{0, `\\TESTHOST\Counter Types\PERF_AVERAGE_BULK`, "4096"},
			{0, `\\TESTHOST\Counter Types\PERF_COUNTER_QUEUELEN_TYPE`, "3"},
			{0, `\\TESTHOST\Counter Types\PERF_COUNTER_100NS_QUEUELEN_TYPE`, "3"},
			{0, `\\TESTHOST\Counter Types\PERF_DOUBLE_RAW`, "3.5"},
			// ELAPSED_TIME: started 100 s before sample 0; row 0 is sample 1.
			{0, `\\TESTHOST\Counter Types\PERF_ELAPSED_TIME`, "101"},
			{0, `\\TESTHOST\Counter Types\PERF_COUNTER_DELTA`, "500"},
			{0, `\\TESTHOST\Counter Types\PERF_COUNTER_RAWCOUNT`, "1010"},
		} {
			if got := cell(tc.row, tc.name); got != tc.want {
				t.Errorf("row %d %s = %q, want %q", tc.row, tc.name, got, tc.want)
			}
		}
		// Row times are the samples' header times (samples 1..3).
		for i, r := range lg.Rows {
			if want := fixtureStart.Add(time.Duration(i+1) * time.Second); !r.Time.Equal(want) {
				t.Errorf("row %d time %v, want %v", i, r.Time, want)
			}
		}
	})
}

func strconvF(x float64) string { return string(pdhcsvFixed(x)) }

func pdhcsvFixed(x float64) []byte {
	var b bytes.Buffer
	w := pdhcsv.NewWriter(&b, pdhcsv.WriterOptions{Style: pdhcsv.StyleConsole, Location: time.UTC})
	w.WriteHeader(pdhcsv.Zone{}, []string{"x"})
	w.WriteRow(time.Time{}, []pdhcsv.Value{{Number: x, OK: true}})
	s := b.String()
	s = s[strings.LastIndex(s, `,"`)+2:]
	return []byte(strings.TrimSuffix(strings.TrimSpace(s), `"`))
}

func TestNoValidCounter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out, errw bytes.Buffer
		err := Run(t.Context(), openFixtures(t), Options{Counters: []string{`\Nope\x`, `\Processor(nope)\% Processor Time`}, Samples: 1}, &out, &out, &errw)
		if !errors.Is(err, ErrNoValidCounters) {
			t.Fatalf("err %v, want ErrNoValidCounters", err)
		}
		if !strings.Contains(errw.String(), `\Nope\x`) {
			t.Errorf("bad path not reported: %q", errw.String())
		}
	})
}

// endless repeats one sample forever, advancing its clock by the fake
// time of the synctest bubble.
type endless struct {
	bf    *pdh.BlockFiles
	mu    sync.Mutex
	calls int
}

func (e *endless) Titles() *titles.DB { return e.bf.Titles() }

// Recorded is nil: the endless source behaves as a live one.
func (e *endless) Recorded() pdh.Recorded { return nil }

func (e *endless) Sample(ctx context.Context, objs []uint32) (*pdh.Sample, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls++
	if e.bf.Len() == 0 {
		return nil, io.EOF
	}
	b, err := e.bf.Sample(ctx, objs)
	if errors.Is(err, io.EOF) {
		if err := e.bf.Seek(0); err != nil {
			return nil, err
		}
		b, err = e.bf.Sample(ctx, objs)
	}
	return b, err
}

// TestCancel runs without -sc and cancels after 2.5 intervals: exactly
// two rows, then the closing lines and a nil error, and the interval wait
// ends at once on cancellation.
func TestCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		src := &endless{bf: openFixtures(t)}
		var out bytes.Buffer
		done := make(chan error, 1)
		start := time.Now()
		go func() {
			done <- Run(ctx, src, Options{Counters: []string{`\Memory\Available MBytes`}, Interval: 2 * time.Second}, &out, &out, io.Discard)
		}()
		time.Sleep(5 * time.Second) // fake time: two intervals and a half
		cancel()
		synctest.Wait()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatal("Run did not return after cancellation")
		}
		if el := time.Since(start); el != 5*time.Second {
			t.Errorf("Run returned %v after start, want at cancellation (5s)", el)
		}
		lines := strings.Split(out.String(), "\n")
		want := []string{"", `"(PDH-CSV 4.0)","\\TESTHOST\Memory\Available MBytes"`}
		if len(lines) != 7 || lines[0] != want[0] || lines[1] != want[1] || lines[4] != MsgExiting || lines[5] != MsgCompleted {
			t.Errorf("output:\n%s", out.String())
		}
		// A live source shows what it has by taking a sample: one checks
		// the paths as they are added, then priming and the two rows.
		if src.calls != 4 {
			t.Errorf("%d samples taken, want 4 (path check + priming + 2 rows)", src.calls)
		}
	})
}

// waitingSource is a live source whose samples never come: each waits
// for its context to end, as a remote computer that does not answer.
type waitingSource struct{ asked chan struct{} }

func (w waitingSource) Sample(ctx context.Context, _ []uint32) (*pdh.Sample, error) {
	select {
	case w.asked <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return nil, ctx.Err()
}
func (waitingSource) Titles() *titles.DB     { return titles.English() }
func (waitingSource) Recorded() pdh.Recorded { return nil }

// TestCancelBeforeFirstSample: CTRL+C while the paths are being checked
// against a source that does not answer ends as typeperf ends, with the
// closing lines and no error (issue 42: "context canceled", exit 1, no
// closing lines); a table prints nothing.
func TestCancelBeforeFirstSample(t *testing.T) {
	for _, tc := range []struct {
		form Form
		want string
	}{
		{FormPDH, MsgExiting + "\n" + MsgCompleted + "\n"},
		{FormTable, ""},
	} {
		ctx, cancel := context.WithCancel(t.Context())
		src := waitingSource{asked: make(chan struct{}, 1)}
		var out, errw bytes.Buffer
		done := make(chan error, 1)
		go func() {
			done <- Run(ctx, src, Options{Counters: []string{`\Memory\Available MBytes`}, Form: tc.form}, &out, &out, &errw)
		}()
		<-src.asked
		cancel()
		if err := <-done; err != nil {
			t.Errorf("form %v: %v", tc.form, err)
		}
		if out.String() != tc.want || errw.Len() != 0 {
			t.Errorf("form %v: output %q, errors %q; want %q and none", tc.form, out.String(), errw.String(), tc.want)
		}
	}
}

func golden(t *testing.T, path, got string) { t.Helper(); goldenfile.Check(t, path, got) }

func TestList(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts ListOptions
	}{
		{"q", ListOptions{}},
		{"qx-thread", ListOptions{Object: "thread", Instances: true}},
		{"qx", ListOptions{Instances: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := List(t.Context(), openFixtures(t), tc.opts, &out); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "list-"+tc.name+".golden"), out.String())
		})
	}
	if err := List(t.Context(), openFixtures(t), ListOptions{Object: "Nope"}, io.Discard); err == nil {
		t.Error("unknown object listed")
	}
}

func TestParseInterval(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"1", time.Second}, {"90", 90 * time.Second}, {"01:30", 90 * time.Second},
		{"1:00:05", time.Hour + 5*time.Second}, {" 5 ", 5 * time.Second},
		{"8760:00:00", 8760 * time.Hour}, {"31536000", 8760 * time.Hour},
	} {
		if got, err := ParseInterval(tc.in); err != nil || got != tc.want {
			t.Errorf("%q: %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "0", "-1", "1.5", "1:60", "1:2:3:4", "a", "+5", "0:00:00", "1::2", ":5"} {
		if _, err := ParseInterval(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	// Overflowing and over-long intervals are refused with the limit named.
	for _, long := range []string{"99999999:00:00", "8760:00:01", "31536001", "9223372036854775807",
		"99999999999999999999999", "2562047:47:16", "153722867:00"} {
		_, err := ParseInterval(long)
		if err == nil || !strings.Contains(err.Error(), "longer than the longest allowed, 8760 hours") {
			t.Errorf("%q: err = %v", long, err)
		}
	}
}

// troubled wraps the fixtures and adds problems to every sample: Memory's
// only value unreadable, and the Processor object dropped by a failing
// provider.
type troubled struct {
	*pdh.BlockFiles
	n int
}

func (s *troubled) Recorded() pdh.Recorded { return s.BlockFiles }

func (s *troubled) Sample(ctx context.Context, objs []uint32) (*pdh.Sample, error) {
	smp, err := s.BlockFiles.Sample(ctx, objs)
	if err != nil {
		return nil, err
	}
	s.n++
	smp.Problems = []pdh.Problem{
		{Object: 4, ObjectName: "Memory", Partial: true, Reason: "/proc/meminfo: line " + strconv.Itoa(s.n) + ": malformed number",
			Missing: []pdh.MissingValues{{Instance: -1}}},
		{Object: 238, ObjectName: "Processor", Reason: "V1 provider cpu: collect timed out after 500ms"},
		// Not about the query's output: an object it does not read, and
		// placeholders of an instance it does not show.
		{Object: 99999, ObjectName: "Other", Reason: "V1 provider other: collect timed out after 500ms"},
		{Object: 238, ObjectName: "Processor", Partial: true, Reason: "cpu1: unreadable",
			Missing: []pdh.MissingValues{{Instance: 1}}},
		{Object: 4, ObjectName: "Memory", Partial: true, Missing: []pdh.MissingValues{{Instance: -1}}}, // quiet
	}
	return smp, nil
}

// TestProblemsReported: what a source could not deliver reaches the user:
// each problem once per cause (the line number in the reason changes every
// sample), and a value the source marked unreadable is a blank cell, never
// a valid 0. Problems about what the output does not show (an object not
// read, an instance not shown) and quiet ones are not told.
func TestProblemsReported(t *testing.T) {
	src := &troubled{BlockFiles: openFixtures(t)}
	var out bytes.Buffer
	var warned []string
	seen := map[string]bool{}
	opts := Options{Counters: []string{`\Memory\Available MBytes`, `\Processor(_Total)\% Processor Time`}, Samples: 3,
		Location: time.UTC, Log: true, Interval: time.Nanosecond,
		Warn: func(cause, msg string) {
			if !seen[cause] {
				seen[cause] = true
				warned = append(warned, msg)
			}
		}}
	if err := Run(t.Context(), src, opts, &out, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"object Memory incomplete: /proc/meminfo: line 2: malformed number",
		"object Processor left out: V1 provider cpu: collect timed out after 500ms",
	}
	if !slices.Equal(warned, want) {
		t.Errorf("warned %q, want %q", warned, want)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("want a header and 3 rows, got:\n%s", out.String())
	}
	for _, row := range lines[1:] {
		cells := strings.Split(row, ",")
		if cells[1] != `" "` {
			t.Errorf("row %s: Available MBytes must be blank (unreadable), got %s", row, cells[1])
		}
	}
}

// TestMatchesNothing: a wildcard path that matches no instance is named
// once, with the reason, and the other paths are printed; alone, it is
// named before "no valid counters".
func TestMatchesNothing(t *testing.T) {
	for _, c := range []struct {
		paths   []string
		wantErr bool
	}{
		{[]string{`\Process(zzz*)\% Processor Time`, `\Processor(_Total)\% Processor Time`}, false},
		{[]string{`\Process(zzz*)\% Processor Time`}, true},
	} {
		synctest.Test(t, func(t *testing.T) {
			var out, errw bytes.Buffer
			err := Run(t.Context(), openFixtures(t), Options{Counters: c.paths, Samples: 2}, &out, &out, &errw)
			if got := errors.Is(err, ErrNoValidCounters); got != c.wantErr {
				t.Fatalf("%q: err %v", c.paths, err)
			}
			want := "Warning: \\Process(zzz*)\\% Processor Time matches nothing: the object Process has no instances on this computer now, so the path has no column.\n"
			if errw.String() != want {
				t.Errorf("%q: stderr %q, want %q", c.paths, errw.String(), want)
			}
			if !c.wantErr && !strings.Contains(out.String(), `\Processor(_Total)\% Processor Time"`) {
				t.Errorf("%q: output lacks the other path:\n%s", c.paths, out.String())
			}
		})
	}
}

// TestLostBackslash: a path that reads as another computer's once the
// backslash a shell's double quotes took is put back gets the hint.
func TestLostBackslash(t *testing.T) {
	cases := []struct{ path, want string }{
		{`\db7\Processor(_Total)\% Processor Time`, ` (did you mean \\db7\Processor(_Total)\% Processor Time, of the computer db7? In double quotes a shell turns \\ into \: quote paths with single quotes)`},
		{`\Memroy\Available Bytes`, ""},
		{`\\db7\Memory\Available Bytes`, ""},
		{`Memory`, ""},
	}
	for _, c := range cases {
		if got := lostBackslash(c.path); got != c.want {
			t.Errorf("lostBackslash(%q) = %q, want %q", c.path, got, c.want)
		}
	}
}
