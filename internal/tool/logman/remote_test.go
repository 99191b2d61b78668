package logman

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/remote"
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
