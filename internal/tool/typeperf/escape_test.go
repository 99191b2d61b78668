package typeperf

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// hostileNames is a source whose one process another user named to
// clear the screen, retitle the terminal and forge a line of typeperf's.
type hostileNames struct{ k int }

const hostileName = "x\x1b[2J\x1b]0;owned\x07\n\"12/31/2099 00:00:00.000\",\"fake\"\u202e"

func (h *hostileNames) Titles() *titles.DB     { return titles.English() }
func (h *hostileNames) Recorded() pdh.Recorded { return nil }

func (h *hostileNames) Sample(ctx context.Context, _ []uint32) (*pdh.Sample, error) {
	h.k++
	now := fixtureStart.Add(time.Duration(h.k) * time.Second)
	b := perfdata.NewBuilder(nil)
	b.Reset(perfdata.Header{SystemTime: perfdata.SystemTimeOf(now), PerfTime: int64(h.k) * freq, PerfFreq: freq, PerfTime100nSec: filetime(now), SystemName: fixtureHost})
	cs := []perfdata.CounterSpec{{NameIndex: 784, HelpIndex: 785, DetailLevel: 100, Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT}}
	l, err := perfdata.NewLayout(cs)
	if err != nil {
		return nil, err
	}
	if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: 230, HelpIndex: 231, DetailLevel: 100}, l, cs); err != nil {
		return nil, err
	}
	b.Instance(hostileName, 0, 0, perfdata.NoUniqueID).Set(0, 4242)
	if err := b.EndObject(); err != nil {
		return nil, err
	}
	return pdh.NewSample([][]byte{bytes.Clone(b.Bytes())})
}

// TestConsoleEscapesNames: an instance name reaches the console, and a
// log, with the characters a terminal acts on escaped in its counter
// path (counterpath's %XX), so it can neither drive the terminal nor
// forge a line; JSON's instance field escapes them as JSON does.
func TestConsoleEscapesNames(t *testing.T) {
	const shown = `x%1B[2J%1B]0;owned%07%0A""12%2F31%2F2099 00:00:00.000"",""fake""%E2%80%AE`
	for _, tc := range []struct {
		name  string
		opts  Options
		want  string // in the output
		lines int    // of the console
	}{
		{"csv", Options{}, shown, 4},
		{"table", Options{Form: FormTable}, `Process(x\x1b[2J\x1b]0;owned\x07\n"12/31/2099 00:00:00.000","fake"\u202e)\ID Process`, 5},
		{"json", Options{Form: FormJSON}, `"path":"\\\\TESTHOST\\Process(x%1B[2J%1B]0;owned%07%0A`, 2},
		{"log", Options{Log: true}, shown, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				opts := tc.opts
				opts.Counters, opts.Samples, opts.Location = []string{`\Process(*)\ID Process`}, 2, testZone
				var out, console, errw bytes.Buffer
				if err := Run(t.Context(), &hostileNames{}, opts, &out, &console, &errw); err != nil {
					t.Fatal(err)
				}
				got := out.String()
				if !strings.Contains(got, tc.want) {
					t.Errorf("output\n%q\nwant it to hold %q", got, tc.want)
				}
				if tc.opts.Log {
					return
				}
				raw := got
				if tc.opts.Form == FormJSON {
					// JSON's instance field holds the name; JSON escapes
					// its C0 controls, not U+202E.
					raw = strings.ReplaceAll(raw, "\u202e\",", "")
				}
				if strings.ContainsAny(raw, "\x1b\x07\u202e") || strings.Count(got, "\n") != tc.lines {
					t.Errorf("console output holds raw control characters or forged lines (want %d lines):\n%q", tc.lines, got)
				}
			})
		})
	}
}

// silentSource is a computer that answered the first two samples (the
// paths were checked against it, the columns fixed) and none after.
type silentSource struct {
	*pdh.BlockFiles
	n int
}

func (s *silentSource) Recorded() pdh.Recorded { return nil }

func (s *silentSource) Sample(ctx context.Context, objs []uint32) (*pdh.Sample, error) {
	s.n++
	if s.n <= 2 { // the paths' check and the priming sample, which fixes the columns
		return s.BlockFiles.Sample(ctx, objs)
	}
	return &pdh.Sample{Problems: []pdh.Problem{{Object: 238, ObjectName: "Processor", Reason: "computer db7 does not answer"}}}, nil
}

// TestNothingCollected: rows that are all blank end the run with an
// error saying nothing was collected, never "The command completed
// successfully." (issue 43, also: typeperf said so when the only remote
// computer never answered).
func TestNothingCollected(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		opts := Options{Counters: []string{`\Processor(_Total)\% Processor Time`}, Samples: 3, Location: testZone}
		var out, errw bytes.Buffer
		err := Run(t.Context(), &silentSource{BlockFiles: openFixtures(t)}, opts, &out, &out, &errw)
		if !errors.Is(err, ErrNothingCollected) || !strings.Contains(err.Error(), "any of the 3 samples") {
			t.Errorf("Run: %v, want ErrNothingCollected over 3 samples", err)
		}
		if strings.Contains(out.String(), MsgCompleted) {
			t.Errorf("output says the command completed:\n%s", out.String())
		}
	})
}

// TestListInLanguage: -q and -qx with -lang list the names in that
// language (issue 44: they ignored -lang), and the object asked for is
// found by its name there.
func TestListInLanguage(t *testing.T) {
	bf := openFixtures(t)
	local := titles.New()
	for idx, name := range map[uint32]string{238: "Prozessor", 6: "Prozessorzeit (%)"} {
		if err := local.SetAt(idx, name, ""); err != nil {
			t.Fatal(err)
		}
	}
	german := titles.Over(bf.Titles(), local)
	var out bytes.Buffer
	if err := List(t.Context(), bf, ListOptions{Object: "Prozessor", Titles: german}, &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, `\Prozessor(*)\Prozessorzeit (%)`+"\n") || !strings.Contains(got, `\Prozessor(*)\Interrupts/sec`+"\n") {
		t.Errorf("list:\n%s", got)
	}
	out.Reset()
	if err := List(t.Context(), bf, ListOptions{Titles: german}, &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, `\Prozessor(*)\Prozessorzeit (%)`) || strings.Contains(got, `\Processor(`) {
		t.Errorf("list of every object:\n%s", got)
	}
}
