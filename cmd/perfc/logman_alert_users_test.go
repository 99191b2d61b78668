package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/internal/asuser"
)

// TestAlertUsers is issue 30's two-user check of actions: Alice's alert
// task and her counter set's -rc run as Alice (never as root, never as
// Bob); her task that hangs is killed at its limit and reported by
// logman query; Bob's alert naming Alice's set in -rdcs finds no such
// set of his and starts nothing of hers, and his own task runs as Bob.
func TestAlertUsers(t *testing.T) {
	if step, ok := asuser.Step(); ok {
		alertUserStep(t, step)
		return
	}
	r, shared, sharedBin := usersWithPerfc(t)
	// The task: records its first argument's tag and the uid it ran as.
	script := filepath.Join(shared, "whoami.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho \"$2 $(id -u)\" >> \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(shared, "uids")
	if err := os.WriteFile(out, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	os.Chmod(out, 0o666)
	env := []string{"PERFC_BIN=" + sharedBin, "SHARED=" + shared, "SCRIPT=" + script, "UIDS=" + out, "PERFC_WARNINGS=off",
		"PERFC_SYSTEM_STATE_DIR=" + filepath.Join(shared, "system"), "PERFC_ACTION_TIMEOUT=1s"}
	if o, err := r.Run(asuser.Alice, "TestAlertUsers", "alice", append(env, "PERFC_STATE_DIR="+filepath.Join(shared, "alice"))...); err != nil {
		t.Fatalf("alice: %s", asuser.Failed(o, err))
	}
	if o, err := r.Run(asuser.Bob, "TestAlertUsers", "bob", append(env, "PERFC_STATE_DIR="+filepath.Join(shared, "bob"))...); err != nil {
		t.Fatalf("bob: %s", asuser.Failed(o, err))
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(string(b)), "\n")
	slices.Sort(got)
	got = slices.Compact(got)
	want := []string{fmt.Sprintf("alice-alert %d", asuser.Alice.UID), fmt.Sprintf("alice-rc %d", asuser.Alice.UID), fmt.Sprintf("bob-alert %d", asuser.Bob.UID)}
	if !slices.Equal(got, want) {
		t.Errorf("the commands ran as\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func alertUserStep(t *testing.T, step string) {
	perfc, must := stepPerfc(t)
	query := func(name, want string) {
		waitFor(t, fmt.Sprintf("logman query %s to show %q", name, want), 30*time.Second, func() bool {
			out, _ := perfc("logman", "query", name)
			return strings.Contains(out, want)
		})
	}
	script, uids, shared := os.Getenv("SCRIPT"), os.Getenv("UIDS"), os.Getenv("SHARED")
	always := `\Memory\Available Bytes>0`
	switch step {
	case "alice":
		must("logman", "create", "alert", "a-alert", "-th", always, "-si", "1", "-onchange", "-tn", script, "-targ", uids+" alice-alert")
		must("logman", "create", "alert", "a-hang", "-th", always, "-si", "1", "-onchange", "-tn", "/bin/sleep", "-targ", "60")
		must("logman", "create", "counter", "a-rc", "-c", `\Memory\Available Bytes`, "-si", "1", "-sc", "2",
			"-o", filepath.Join(shared, "alicelogs", "a-rc"), "-rc", script+" "+uids+" alice-rc")
		for _, s := range []string{"a-alert", "a-hang", "a-rc"} {
			must("logman", "start", s)
		}
		query("a-alert", "Task: 1 runs, 0 failed")
		query("a-hang", "FAILED: killed at its time limit of 1s")
		query("a-rc", "Run Command: 1 runs, 0 failed")
		must("logman", "stop", "a-alert")
		must("logman", "stop", "a-hang")
	case "bob":
		if out, code := perfc("logman", "update", "alert", "a-alert", "-tn", "/bin/true"); code == 0 || !strings.Contains(out, "not found") {
			t.Errorf("Bob changed Alice's alert: exit %d\n%s", code, out)
		}
		must("logman", "create", "alert", "b-alert", "-th", always, "-si", "1", "-onchange", "-tn", script, "-targ", uids+" bob-alert", "-rdcs", "a-alert")
		must("logman", "start", "b-alert")
		query("b-alert", "Task: 1 runs, 0 failed")
		query("b-alert", "Start Set: 1 runs, 1 failed")
		must("logman", "stop", "b-alert")
		if out, _ := perfc("logman", "query", "b-alert"); !strings.Contains(out, `FAILED: "a-alert": no data collector set of that name`) {
			t.Errorf("Bob's -rdcs of Alice's set name did not fail for want of a set of his own:\n%s", out)
		}
	}
}
