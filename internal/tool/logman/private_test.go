package logman

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/internal/asuser"
	"github.com/perfcounters/perfcounters/state"
)

const (
	privateArg    = "--token=s3cret-task-argument"
	privateOutput = "s3cret output of the task"
	privateDSN    = "postgres://perfc:s3cret-password@db/perf"
)

// TestSystemSetPrivate: a system alert's task arguments, its task's
// command line and output, and a system SQL set's password are root's:
// Bob sees the sets and their status in logman query, and no file of the
// state directory he can read holds them (issue 43 item 8: logman query
// and the status file showed them to every user).
func TestSystemSetPrivate(t *testing.T) {
	if step, ok := asuser.Step(); ok {
		privateStep(t, step)
		return
	}
	r := asuser.New(t)
	sys := filepath.Join(r.SharedDir(), "system")
	root := newEnv(t, sys, sys)
	mustOK(t, Create(root.o, Spec{Name: "hot", Alert: true, Thresholds: []string{`\Processor(*)\% Processor Time>90`}, HasThresholds: true,
		AlertTask: ptr("/usr/bin/notify"), AlertArgs: ptr(privateArg + " {counter}")}))
	mustOK(t, Create(root.o, Spec{Name: "db", Counters: []string{`\Memory\Available MBytes`}, HasCounters: true,
		Format: ptr("sql"), Output: ptr("SQL:" + privateDSN + "!run")}))
	// The collector's activity, as pla writes it (pla's TestActivityPrivate
	// checks the writing): the runs in the status file, their command lines
	// and output in the private one.
	mustOK(t, state.WriteRunFile(sys, "hot", state.StatusSuffix, []byte(`{"set":"hot","actions":[{"action":"task","runs":1,"failures":0,"skipped":0,"result":"exit status 0"}]}`)))
	mustOK(t, state.WriteRunFile(sys, "hot", state.PrivateStatusSuffix, []byte(`[{"action":"task","command":["/usr/bin/notify","`+privateArg+`"],"output":"`+privateOutput+`"}]`)))
	// Root, the owner, sees all of it.
	root.out.Reset()
	mustOK(t, QuerySet(root.o, "hot"))
	for _, want := range []string{privateArg, privateOutput} {
		if !strings.Contains(root.out.String(), want) {
			t.Errorf("root's logman query hot lacks %q:\n%s", want, root.out.String())
		}
	}
	if s, err := state.ReadCollectorSet(sys, "db"); err != nil || s.Collector.DataSourceName != privateDSN {
		t.Errorf("root reads db's data source as %q, %v", s.Collector.DataSourceName, err)
	}
	if out, err := r.Run(asuser.Bob, "TestSystemSetPrivate", "bob", "SYS="+sys, "BOB_DIR="+filepath.Join(r.SharedDir(), "bob")); err != nil {
		t.Fatal(asuser.Failed(out, err))
	}
}

func privateStep(t *testing.T, step string) {
	if step != "bob" {
		t.Fatalf("unknown step %q", step)
	}
	sys := os.Getenv("SYS")
	e := newEnv(t, os.Getenv("BOB_DIR"), sys)
	mustOK(t, QuerySet(e.o, "hot"))
	got := e.out.String()
	for _, want := range []string{"Task:                 /usr/bin/notify", "Task Arguments:       " + privateNote, "(command lines and output: " + privateNote + ")", "1 runs, 0 failed"} {
		if !strings.Contains(got, want) {
			t.Errorf("bob's logman query hot lacks %q:\n%s", want, got)
		}
	}
	e.out.Reset()
	mustOK(t, QuerySet(e.o, "db"))
	got += e.out.String()
	for _, secret := range []string{"s3cret"} {
		if strings.Contains(got, secret) {
			t.Errorf("bob's logman query shows %q:\n%s", secret, got)
		}
	}
	// No file Bob can read holds a secret.
	filepath.WalkDir(sys, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), "s3cret") {
			t.Errorf("%s, readable by bob, holds a secret:\n%s", p, b)
		}
		return nil
	})
}
