package logman

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
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

// TestRemoteSetsEdit: the API's create, update and delete go through
// logman's, with its checks marked by remote's errors; a system set is
// the serving user's to see, not to change.
func TestRemoteSetsEdit(t *testing.T) {
	base := t.TempDir()
	sys := newEnv(t, filepath.Join(base, "system"), filepath.Join(base, "system"))
	mustOK(t, Create(sys.o, Spec{Name: "sysset", Counters: []string{`\Memory\Available Bytes`}, HasCounters: true}))
	e := newEnv(t, filepath.Join(base, "alice"), filepath.Join(base, "system"))
	r := RemoteSets{Options: e.o}
	ctx := context.Background()
	cs := []string{`\Memory\Available Bytes`}
	if err := r.Create(ctx, "web", remote.SetDefinition{Counters: &cs, Interval: ptr("5"), Version: ptr("nnnnnn")}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		def  remote.SetDefinition
		want error
	}{
		{remote.SetDefinition{Counters: &cs}, remote.ErrSetExists},
		{remote.SetDefinition{}, remote.ErrSetInvalid},
		{remote.SetDefinition{Counters: &cs, Format: ptr("xls")}, remote.ErrSetInvalid},
		{remote.SetDefinition{Type: "Trace", Counters: &cs}, remote.ErrSetInvalid},
		{remote.SetDefinition{Counters: &cs, Format: ptr("sql")}, remote.ErrSetInvalid},
		{remote.SetDefinition{Counters: &cs, Output: ptr("SQL:/tmp/x.db!web")}, remote.ErrSetInvalid},
	} {
		name := "web"
		if tc.want != remote.ErrSetExists {
			name = "new"
		}
		if err := r.Create(ctx, name, tc.def); !errors.Is(err, tc.want) {
			t.Errorf("Create(%+v) = %v, want %v", tc.def, err, tc.want)
		}
	}
	if err := r.Update(ctx, "web", remote.SetDefinition{Version: ptr(""), RunFor: ptr("10:00")}); err != nil {
		t.Fatal(err)
	}
	list, err := r.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var web, sysEntry remote.SetEntry
	for _, s := range list {
		switch s.Name {
		case "web":
			web = s
		case "sysset":
			sysEntry = s
		}
	}
	if d := web.Definition; d == nil || d.Version != nil || *d.RunFor != "00:10:00" || *d.Interval != "5" || web.System {
		t.Errorf("web after update: %+v %+v", web, web.Definition)
	}
	if !sysEntry.System {
		t.Errorf("the system set not marked: %+v", sysEntry)
	}
	// The system sets' directory is root's: here, one the serving user
	// may not write.
	if os.Geteuid() != 0 {
		sysDir := filepath.Join(base, "system")
		if err := os.Chmod(sysDir, 0o500); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(sysDir, 0o700)
		if err := r.Update(ctx, "sysset", remote.SetDefinition{Interval: ptr("5")}); !errors.Is(err, remote.ErrSetDenied) {
			t.Errorf("update of a system set: %v", err)
		}
	}
	if err := r.Update(ctx, "web", remote.SetDefinition{Thresholds: &cs}); !errors.Is(err, remote.ErrSetInvalid) {
		t.Errorf("thresholds of a counter set: %v", err)
	}
	// A file of the set's name that is no log of its format is not
	// handed out.
	csv := filepath.Join(base, "data.csv")
	if err := os.WriteFile(csv, []byte("user,password\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := r.Create(ctx, "data", remote.SetDefinition{Counters: &cs, Format: ptr("csv"), Output: ptr(csv)}); err != nil {
		t.Fatal(err)
	}
	if runs, err := r.Runs(ctx, "data"); err != nil || len(runs) != 1 {
		t.Fatalf("runs of data: %v %v", runs, err)
	}
	if f, err := r.OpenRun(ctx, "data", "data.csv"); !errors.Is(err, remote.ErrNoSet) {
		if f != nil {
			f.Close()
		}
		t.Errorf("a CSV file that is no log handed out: %v", err)
	}
	if err := os.WriteFile(csv, []byte("\"(PDH-CSV 4.0)\",\"\\\\h\\Memory\\Available Bytes\"\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if f, err := r.OpenRun(ctx, "data", "data.csv"); err != nil {
		t.Errorf("a CSV log not handed out: %v", err)
	} else {
		b, _ := io.ReadAll(f)
		f.Close()
		if !strings.HasPrefix(string(b), `"(PDH-CSV 4.0)"`) {
			t.Errorf("the log handed out from %q", b)
		}
	}
	if err := r.Delete(ctx, "nosuch"); !errors.Is(err, remote.ErrNoSet) {
		t.Errorf("delete of no set: %v", err)
	}
	if err := r.Delete(ctx, "web"); err != nil {
		t.Errorf("delete: %v", err)
	}
}

// TestRunFileName: a set's logs are the names its scheme makes, no other.
func TestRunFileName(t *testing.T) {
	s := collectorset.New("web", "/logs")
	own := runFileName(s)
	for name, want := range map[string]bool{
		"web.plog": true, "web_000001.plog": true, "web_12081530.plog": true, "web_12081530_2.plog": true,
		"web.csv": false, "web_.plog": false, "web_x1.plog": false, "webby.plog": false, "other_000001.plog": false, "web_000001.plog.tmp": false,
	} {
		if own(name) != want {
			t.Errorf("%s: %v, want %v", name, !want, want)
		}
	}
}
