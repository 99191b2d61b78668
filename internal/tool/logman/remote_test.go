package logman

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/pla"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/state"
)

// recordingRunner records the sets started and stopped.
type recordingRunner struct {
	fakeRunner
	calls *[]string
}

func (r recordingRunner) Start(_ context.Context, _ string, s *collectorset.Set) error {
	*r.calls = append(*r.calls, "start "+s.Name)
	return nil
}

func (r recordingRunner) Stop(_ context.Context, _ string, s *collectorset.Set) error {
	*r.calls = append(*r.calls, "stop "+s.Name)
	return nil
}

// TestRemoteSets: perfc serve's view of the sets lists the serving user's
// and the system sets with their status and output, starts and stops them
// through the runner, and answers an unknown name with remote.ErrNoSet.
func TestRemoteSets(t *testing.T) {
	base := t.TempDir()
	sys := newEnv(t, filepath.Join(base, "system"), filepath.Join(base, "system"))
	mustOK(t, Create(sys.o, Spec{Name: "System Performance", Counters: []string{`\Processor(*)\*`}, HasCounters: true}))
	e := newEnv(t, filepath.Join(base, "alice"), filepath.Join(base, "system"))
	mustOK(t, Create(e.o, Spec{Name: "web", Counters: []string{`\Memory\Available Bytes`}, HasCounters: true, Output: ptr("logs/web")}))
	var calls []string
	e.o.Runner = recordingRunner{fakeRunner: fakeRunner{running: map[string]string{"web": "collector pid 4242"}}, calls: &calls}
	r := RemoteSets{Options: e.o}
	ctx := context.Background()

	got, err := r.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []remote.SetEntry{
		{Name: "web", Running: true, Detail: "collector pid 4242"},
		{Name: "System Performance"},
	}
	if len(got) != len(want) {
		t.Fatalf("List = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].Name != want[i].Name || got[i].Running != want[i].Running || got[i].Detail != want[i].Detail {
			t.Errorf("set %d = %+v, want %+v", i, got[i], want[i])
		}
		if got[i].Output == "" {
			t.Errorf("set %s: no output location", got[i].Name)
		}
	}

	// A running set is not started twice: logman's error comes back.
	if err := r.Start(ctx, "web"); err == nil || errors.Is(err, remote.ErrNoSet) {
		t.Errorf("start of a running set: err = %v, want logman's already-running error", err)
	}

	cases := []struct {
		name, verb string
		noSet      bool
		call       string
	}{
		{"web", "stop", false, "stop web"},
		{"System Performance", "start", false, "start System Performance"},
		{"nosuch", "start", true, ""},
		{"nosuch", "stop", true, ""},
	}
	for _, tc := range cases {
		calls = calls[:0]
		var err error
		if tc.verb == "start" {
			err = r.Start(ctx, tc.name)
		} else {
			err = r.Stop(ctx, tc.name)
		}
		if tc.noSet {
			if !errors.Is(err, remote.ErrNoSet) {
				t.Errorf("%s %s: err = %v, want remote.ErrNoSet", tc.verb, tc.name, err)
			}
			if len(calls) != 0 {
				t.Errorf("%s %s: runner called: %v", tc.verb, tc.name, calls)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %s: %v", tc.verb, tc.name, err)
		}
		if !slices.Equal(calls, []string{tc.call}) {
			t.Errorf("%s %s: runner calls %v, want [%s]", tc.verb, tc.name, calls, tc.call)
		}
	}
}

// TestRemoteSetsAlerts: an alert set is listed with its type and the
// alert state its collector wrote (its status file), firing only while
// the set runs; logman query shows the same state.
func TestRemoteSetsAlerts(t *testing.T) {
	base := t.TempDir()
	e := newEnv(t, filepath.Join(base, "alice"), filepath.Join(base, "system"))
	mustOK(t, Create(e.o, Spec{Name: "hot", Alert: true, Thresholds: []string{`\Processor(*)\% Processor Time>90`}, HasThresholds: true}))
	fired := time.Date(2026, 11, 29, 5, 0, 0, 0, time.UTC)
	act := pla.Activity{Set: "hot", Updated: fired, Alerts: []pla.AlertState{
		{Threshold: `\Processor(*)\% Processor Time>90`, Counter: `\Processor(0)\% Processor Time`, Firing: true, Value: 97, Fired: 4, LastFired: fired, Sampled: fired},
		{Threshold: `\Processor(*)\% Processor Time>90`, Counter: `\Processor(1)\% Processor Time`, Value: 12, Sampled: fired},
	}, Actions: []pla.ActionRun{{Action: "task", Command: []string{"/bin/notify", "x"}, Runs: 4, Failures: 1, Result: "exit status 2", Failed: true, Output: "no route\n", Started: fired}}}
	b, err := json.Marshal(act)
	if err != nil {
		t.Fatal(err)
	}
	if err := state.WriteRunFile(filepath.Join(base, "alice"), "hot", state.StatusSuffix, b); err != nil {
		t.Fatal(err)
	}
	for _, running := range []bool{true, false} {
		run := map[string]string{}
		if running {
			run["hot"] = "pid 1"
		}
		e.o.Runner = fakeRunner{running: run}
		got, err := RemoteSets{Options: e.o}.List(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want := []remote.AlertEntry{
			{Threshold: `\Processor(*)\% Processor Time>90`, Counter: `\Processor(0)\% Processor Time`, Firing: running, Value: 97, Fired: 4, LastFired: fired, Sampled: fired},
			{Threshold: `\Processor(*)\% Processor Time>90`, Counter: `\Processor(1)\% Processor Time`, Value: 12, Sampled: fired},
		}
		if len(got) != 1 || got[0].Type != "Alert" || !slices.EqualFunc(got[0].Alerts, want, func(a, b remote.AlertEntry) bool { return a == b }) {
			t.Errorf("running %v: List = %+v, want the alert's state %+v", running, got, want)
		}
	}
	var out strings.Builder
	e.o.Stdout = &out
	mustOK(t, QuerySet(e.o, "hot"))
	for _, w := range []string{`\Processor(0)\% Processor Time  FIRING`, "fired 4 times", `\Processor(1)\% Processor Time  clear`,
		"Task: 4 runs, 1 failed, 0 skipped", "FAILED: exit status 2", "| no route"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("logman query hot lacks %q:\n%s", w, out.String())
		}
	}
}
