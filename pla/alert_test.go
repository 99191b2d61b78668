package pla

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/internal/asuser"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// seqSource is a live source whose values the test sets: \Memory\Available
// Bytes is mem[k] at its k-th sample (the last value once past the end),
// and \Process(NAME)\Working Set the values of procs[k] (instances come
// and go with the map's keys).
type seqSource struct {
	mu    sync.Mutex
	mem   []uint64
	procs []map[string]uint64
	k     int
}

func (f *seqSource) Sample(_ context.Context, objects []uint32) (*pdh.Sample, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := f.k
	f.k++
	at := time.Now()
	ml, _ := perfdata.NewLayout(memCounters)
	pl, _ := perfdata.NewLayout(procCounters)
	b := perfdata.NewBuilder(nil)
	b.Reset(perfdata.Header{DefaultObject: 4, PerfTime: at.UnixNano(), PerfFreq: 1_000_000_000,
		PerfTime100nSec: perfdata.FileTime(at), SystemTime: perfdata.SystemTimeOf(at), SystemName: "SEQHOST"})
	if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: 4, HelpIndex: 5, DetailLevel: 100, Single: true}, ml, memCounters); err != nil {
		return nil, err
	}
	if len(f.mem) > 0 {
		b.Single().Set(0, f.mem[min(k, len(f.mem)-1)])
	}
	if err := b.EndObject(); err != nil {
		return nil, err
	}
	if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: 230, HelpIndex: 231, DetailLevel: 100}, pl, procCounters); err != nil {
		return nil, err
	}
	if len(f.procs) > 0 {
		m := f.procs[min(k, len(f.procs)-1)]
		names := make([]string, 0, len(m))
		for n := range m {
			names = append(names, n)
		}
		slices.Sort(names)
		for i, n := range names {
			v := b.Instance(n, 0, 0, int32(i+1))
			v.Set(1, m[n])
		}
	}
	if err := b.EndObject(); err != nil {
		return nil, err
	}
	return pdh.NewSample([][]byte{bytes.Clone(b.Bytes())})
}

func (f *seqSource) Titles() *titles.DB     { return titles.English() }
func (f *seqSource) Recorded() pdh.Recorded { return nil }

// recorder is a script that appends its arguments, one line per run, to
// a file: the task of the tests' alerts.
func recorder(t *testing.T) (script, out string) {
	t.Helper()
	dir := t.TempDir()
	out = filepath.Join(dir, "runs.txt")
	script = filepath.Join(dir, "record.sh")
	body := "#!/bin/sh\nprintf '%s|' \"$@\" >> " + out + "\necho \"$PERFC_ALERT_STATE\" >> " + out + "\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return script, out
}

func lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

// runAlert runs an alert set over src for n samples on the fake clock and
// returns its activity.
func runAlert(t *testing.T, dir string, set *collectorset.Set, opts Options, n int) *Activity {
	t.Helper()
	runWith(t, dir, set, opts, n)
	act, err := ReadActivity(dir, set.Name)
	if err != nil || act == nil {
		t.Fatalf("activity: %v %v", act, err)
	}
	return act
}

func alertSet(name string, thresholds ...string) *collectorset.Set {
	s := collectorset.NewAlert(name)
	s.Alert.SampleInterval = 1
	s.Alert.Thresholds = thresholds
	return s
}

// TestAlertFiring: the rules of firing and clearing, each from a sequence
// of values whose firings are counted by hand: Windows' meaning (every
// sample past the threshold runs the task), hold, hysteresis, firing
// state changes as the unit of an action, and the action rate limit.
func TestAlertFiring(t *testing.T) {
	cases := []struct {
		name   string
		vals   []uint64
		edit   func(a *collectorset.Alerts)
		th     string
		runs   []string // the task's runs: value|state
		fired  uint64
		firing bool
	}{
		{"windows: every sample past", []uint64{10, 60, 70, 40, 80}, nil, ">50",
			[]string{"60.000000|fired", "70.000000|fired", "80.000000|fired"}, 3, true},
		{"below", []uint64{10, 60, 5, 40}, nil, "<20",
			[]string{"10.000000|fired", "5.000000|fired"}, 2, false},
		{"hold 3", []uint64{60, 60, 40, 60, 60, 60, 60}, func(a *collectorset.Alerts) { a.Hold = 3 }, ">50",
			[]string{"60.000000|fired", "60.000000|fired"}, 2, true},
		{"on change", []uint64{60, 70, 80, 40, 60}, func(a *collectorset.Alerts) { a.OnChange = true }, ">50",
			[]string{"60.000000|fired", "40.000000|cleared", "60.000000|fired"}, 2, true},
		{"hysteresis", []uint64{60, 48, 44, 60}, func(a *collectorset.Alerts) { a.OnChange, a.Hysteresis = true, 5 }, ">50",
			[]string{"60.000000|fired", "44.000000|cleared", "60.000000|fired"}, 2, true},
		{"hold and on change", []uint64{60, 40, 60, 60, 60, 60, 10}, func(a *collectorset.Alerts) { a.OnChange, a.Hold = true, 2 }, ">50",
			[]string{"60.000000|fired", "10.000000|cleared"}, 1, false},
		{"rate limit", []uint64{60, 60, 60, 60, 60}, func(a *collectorset.Alerts) { a.ActionInterval = 3 }, ">50",
			[]string{"60.000000|fired", "60.000000|fired"}, 5, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				script, out := recorder(t)
				set := alertSet("a", `\Memory\Available Bytes`+c.th)
				set.Alert.Task, set.Alert.TaskArguments = script, "{value}"
				if c.edit != nil {
					c.edit(set.Alert)
				}
				act := runAlert(t, stateDir(t), set, testOptions(&seqSource{mem: c.vals}), len(c.vals))
				if got := lines(t, out); !slices.Equal(got, c.runs) {
					t.Errorf("task runs %q, want %q", got, c.runs)
				}
				if len(act.Alerts) != 1 {
					t.Fatalf("alerts %+v", act.Alerts)
				}
				a := act.Alerts[0]
				if a.Fired != c.fired || a.Firing != c.firing || a.Value != float64(c.vals[len(c.vals)-1]) {
					t.Errorf("state %+v, want fired %d, firing %v", a, c.fired, c.firing)
				}
			})
		})
	}
}

// TestAlertInstances: a wildcard judges each instance on its own; an
// instance that goes away takes its state with it (cleared), and one of
// the same name that comes back starts afresh.
func TestAlertInstances(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		script, out := recorder(t)
		set := alertSet("w", `\Process(*)\Working Set>100`)
		set.Alert.Task, set.Alert.TaskArguments, set.Alert.OnChange = script, "{counter} {value}", true
		src := &seqSource{procs: []map[string]uint64{
			{"web": 50, "db": 500},
			{"web": 150, "db": 500},
			{"web": 150},
			{"web": 50, "db": 50},
		}}
		act := runAlert(t, stateDir(t), set, testOptions(src), 4)
		want := []string{
			`\Process(db)\Working Set|500.000000|fired`,
			`\Process(web)\Working Set|150.000000|fired`,
			`\Process(db)\Working Set|500.000000|cleared`, // it went away
			`\Process(web)\Working Set|50.000000|cleared`,
		}
		got := lines(t, out)
		for i := range got { // "{counter} {value}" is two words of the command line
			got[i] = strings.Replace(got[i], "Working|Set", "Working Set", 1)
		}
		if !slices.Equal(got, want) {
			t.Errorf("task runs\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		var kinds []string
		for _, e := range act.Events {
			kinds = append(kinds, e.Kind+" "+e.Counter)
		}
		if len(act.Alerts) != 2 || act.Alerts[0].Fired != 0 || act.Alerts[1].Fired != 1 {
			t.Errorf("alerts %+v (db is a new instance: never fired)", act.Alerts)
		}
		if len(act.Events) != 4 || !strings.Contains(act.Events[0].Message, "has tripped its alert threshold. The counter value of 500.000000 is over the limit value of 100.000000") {
			t.Errorf("events %q", kinds)
		}
	})
}

// TestAlertEventLogAndTrigger: -el sends Windows' event text to the
// event logger; -rdcs starts the named set of the alert's own state
// directory, once per firing.
func TestAlertEventLogAndTrigger(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var events []string
		var started []string
		dir := stateDir(t)
		opts := testOptions(&seqSource{mem: []uint64{10, 60, 10}})
		opts.EventLog = func(set string, e AlertEvent) error {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, EventText(set, e))
			return nil
		}
		opts.StartSet = func(d, name string) error {
			mu.Lock()
			defer mu.Unlock()
			if d != dir {
				t.Errorf("StartSet in %s, want the alert's own %s", d, dir)
			}
			started = append(started, name)
			return nil
		}
		set := alertSet("el", `\Memory\Available Bytes>50`)
		set.Alert.EventLog, set.Alert.TriggerDataCollectorSet = true, "capture"
		act := runAlert(t, dir, set, opts, 3)
		want := `Data Collector Set el: Performance counter \Memory\Available Bytes has tripped its alert threshold. The counter value of 60.000000 is over the limit value of 50.000000. 50.000000 is the alert threshold value.`
		if len(events) != 1 || events[0] != want {
			t.Errorf("events %q, want [%q]", events, want)
		}
		if !slices.Equal(started, []string{"capture"}) {
			t.Errorf("started %q", started)
		}
		if len(act.Actions) != 1 || act.Actions[0].Action != "trigger" || act.Actions[0].Runs != 1 || act.Actions[0].Failed {
			t.Errorf("actions %+v", act.Actions)
		}
	})
}

// TestActionLimits: a command that hangs is killed at its limit with what
// it started, and reported; a second run while one runs is skipped.
func TestActionLimits(t *testing.T) {
	dir := t.TempDir()
	act := newActivity(stateDir(t), "limits", nil)
	var wg sync.WaitGroup
	a := newActions(t.Context(), dir, 300*time.Millisecond, 0, act, &wg)
	pidFile := filepath.Join(dir, "child.pid")
	a.command("task", []string{"/bin/sh", "-c", "sleep 60 & echo $! > " + pidFile + "; echo started; wait"}, nil)
	a.command("task", []string{"/bin/true"}, nil) // the first still runs
	wg.Wait()
	r := act.a.Actions[0]
	if r.Runs != 1 || r.Skipped != 1 || r.Failures != 1 || !r.Failed || !strings.Contains(r.Result, "killed at its time limit of 300ms") || r.Output != "started\n" {
		t.Errorf("run %+v", r)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	fmt.Sscan(string(b), &pid)
	if pid <= 0 {
		t.Fatalf("pid file %q", b)
	}
	// The background sleep went with its group (a zombie until init
	// reaps it counts as gone).
	if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && !strings.Contains(string(st), ") Z") {
		t.Errorf("the command's child %d outlived the limit: %s", pid, st)
	}
	a.command("task", []string{"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, nil)
	wg.Wait()
	r = act.a.Actions[0]
	if r.Runs != 2 || r.Result != "exit status 3" || r.Output != "out\nerr\n" {
		t.Errorf("run %+v", r)
	}
	a.command("missing", []string{"/nonexistent/command"}, nil)
	wg.Wait()
	if r := act.a.Actions[1]; !r.Failed || !strings.Contains(r.Result, "could not start") {
		t.Errorf("run %+v", r)
	}
}

// TestActionRunsAsOwner: the service runs as root; a set whose state
// directory belongs to an unprivileged user runs its commands as that
// user, never as root.
func TestActionRunsAsOwner(t *testing.T) {
	r := asuser.New(t) // skips unless the test can switch users
	dir := filepath.Join(r.SharedDir(), "alice-state")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, int(asuser.Alice.UID), int(asuser.Alice.GID)); err != nil {
		t.Fatal(err)
	}
	act := newActivity(t.TempDir(), "owner", nil)
	var wg sync.WaitGroup
	a := newActions(t.Context(), dir, 10*time.Second, 0, act, &wg)
	a.command("task", []string{"/bin/sh", "-c", "id -u; id -g; echo $HOME"}, nil)
	wg.Wait()
	got := act.a.Actions[0]
	want := fmt.Sprintf("%d\n%d\n", asuser.Alice.UID, asuser.Alice.GID)
	if !strings.HasPrefix(got.Output, want) || got.Failed {
		t.Errorf("the command ran as %q (%s), want uid and gid %q", got.Output, got.Result, want)
	}
}

// TestCloseCommand: a counter set's -rc runs once for each file closed,
// at each rollover and at the stop, with the file's name.
func TestCloseCommand(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root := t.TempDir()
		script, out := recorder(t)
		set := newSet("rc", root, `\Memory\Available Bytes`)
		set.Segment, set.SegmentMaxDuration = true, 3
		set.Collector.FileNameFormat = collectorset.FileNameSerialNumber
		set.Task, set.TaskArguments = script, "{name}"
		runFor(t, stateDir(t), set, newFakeSource(1), 7)
		var want []string
		for i := 1; i <= 3; i++ {
			want = append(want, fmt.Sprintf("rc|%s|", filepath.Join(root, fmt.Sprintf("rc_%06d.plog", i))))
		}
		if got := lines(t, out); !slices.Equal(got, want) {
			t.Errorf("-rc runs\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}
