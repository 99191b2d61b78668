package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/internal/asuser"
	"github.com/perfcounters/perfcounters/pla"
)

// TestLogmanUsers: sets run with the rights of the user whose state
// directory holds them; another user can neither stop them (Bob, Alice's
// set) nor stop a system set (Alice, root's), and query shows each user
// the system sets' true status.
func TestLogmanUsers(t *testing.T) {
	if step, ok := asuser.Step(); ok {
		logmanUserStep(t, step)
		return
	}
	r, shared, sharedBin := usersWithPerfc(t)
	sysDir := filepath.Join(shared, "system")
	aliceDir := filepath.Join(shared, "alice")
	root := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(sharedBin, args...)
		cmd.Env = append(os.Environ(), "PERFC_STATE_DIR="+sysDir, "PERFC_WARNINGS=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("perfc %s as root: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	root("logman", "create", "counter", "sys1", "-c", `\Memory\Available Bytes`, "-si", "1", "-o", filepath.Join(shared, "syslogs", "sys1"))
	root("logman", "start", "sys1")
	t.Cleanup(func() { root("logman", "stop", "sys1") })

	env := []string{"PERFC_BIN=" + sharedBin, "PERFC_SYSTEM_STATE_DIR=" + sysDir, "SHARED=" + shared, "PERFC_WARNINGS=off"}
	if out, err := r.Run(asuser.Alice, "TestLogmanUsers", "alice-start", append(env, "PERFC_STATE_DIR="+aliceDir)...); err != nil {
		t.Fatalf("alice: %s", asuser.Failed(out, err))
	}
	alicePID := func() *pla.Record {
		b, err := os.ReadFile(filepath.Join(aliceDir, "run", "a1.json"))
		if err != nil {
			t.Fatal(err)
		}
		var rec pla.Record
		if err := json.Unmarshal(b, &rec); err != nil {
			t.Fatal(err)
		}
		return &rec
	}
	rec := alicePID()
	t.Cleanup(func() { (&os.Process{Pid: rec.PID}).Kill() })
	if !(pla.Proc{}).Alive(rec) {
		t.Fatalf("Alice's collector is not running: %+v", rec)
	}
	if out, err := r.Run(asuser.Bob, "TestLogmanUsers", "bob", append(env, "ALICE_DIR="+aliceDir, "PERFC_STATE_DIR="+filepath.Join(shared, "bob"))...); err != nil {
		t.Fatalf("bob: %s", asuser.Failed(out, err))
	}
	if !(pla.Proc{}).Alive(rec) {
		t.Errorf("Alice's collector stopped after Bob's attempts: %+v", alicePID())
	}
	if out, err := r.Run(asuser.Alice, "TestLogmanUsers", "alice-stop", append(env, "PERFC_STATE_DIR="+aliceDir)...); err != nil {
		t.Fatalf("alice: %s", asuser.Failed(out, err))
	}
	if (pla.Proc{}).Alive(rec) {
		t.Error("Alice's collector runs after Alice stopped it")
	}
}

// logmanUserStep is one user's part of TestLogmanUsers.
// usersWithPerfc builds perfc and copies it into the shared directory of
// an asuser.Runner (skipping unless the test can switch users), where
// every user may run it.
func usersWithPerfc(t *testing.T) (r *asuser.Runner, shared, bin string) {
	t.Helper()
	built := buildPerfc(t)
	r = asuser.New(t)
	shared = r.SharedDir()
	bin = filepath.Join(shared, "perfc")
	data, err := os.ReadFile(built)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return r, shared, bin
}

// stepPerfc returns, for a step run as another user, a function that
// runs $PERFC_BIN with the step's environment (its output and exit
// status) and one that fails the step when the command fails.
func stepPerfc(t *testing.T) (perfc func(args ...string) (string, int), must func(args ...string) string) {
	perfc = func(args ...string) (string, int) {
		cmd := exec.Command(os.Getenv("PERFC_BIN"), args...)
		cmd.Env = os.Environ()
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	must = func(args ...string) string {
		t.Helper()
		out, code := perfc(args...)
		if code != 0 {
			t.Fatalf("perfc %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
		return out
	}
	return perfc, must
}

func logmanUserStep(t *testing.T, step string) {
	perfc, must := stepPerfc(t)
	status := func(out, name string) string {
		m := regexp.MustCompile(`(?m)^` + name + ` +Counter +(\w+)$`).FindStringSubmatch(out)
		if m == nil {
			return ""
		}
		return m[1]
	}
	shared := os.Getenv("SHARED")
	switch step {
	case "alice-start":
		must("logman", "create", "counter", "a1", "-c", `\Memory\Available Bytes`, "-si", "1", "-o", filepath.Join(shared, "alicelogs", "a1"))
		must("logman", "start", "a1")
		q := must("logman", "query")
		if status(q, "a1") != "Running" || status(q, "sys1") != "Running" {
			t.Errorf("Alice's query does not show her set and the system set running:\n%s", q)
		}
		out, code := perfc("logman", "stop", "sys1")
		if code == 0 || !strings.Contains(out, "Access is denied.") {
			t.Errorf("Alice stopping the system set: exit %d\n%s\nwant Access is denied.", code, out)
		}
		out, code = perfc("logman", "delete", "sys1")
		if code == 0 {
			t.Errorf("Alice deleted the running system set:\n%s", out)
		}
	case "bob":
		alice := os.Getenv("ALICE_DIR")
		out, code := perfc("logman", "stop", "a1")
		if code == 0 || !strings.Contains(out, "Data Collector Set was not found.") {
			t.Errorf("Bob stopping Alice's set from his own state: exit %d\n%s", code, out)
		}
		os.Setenv("PERFC_STATE_DIR", alice)
		out, code = perfc("logman", "stop", "a1")
		if code == 0 || !strings.Contains(out, "is owned by uid 61001") {
			t.Errorf("Bob stopping Alice's set with her state directory: exit %d\n%s\nwant a refusal of a state directory owned by uid 61001", code, out)
		}
		out, code = perfc("logman", "start", "a1")
		if code == 0 {
			t.Errorf("Bob started Alice's set:\n%s", out)
		}
		out, code = perfc("logman", "delete", "a1")
		if code == 0 || !strings.Contains(out, "is owned by uid 61001") {
			t.Errorf("Bob deleting Alice's set with her state directory: exit %d\n%s\nwant a refusal of a state directory owned by uid 61001", code, out)
		}
		// Holding the run lock of her set would keep her from starting
		// it again: Bob cannot open its lock file.
		if f, err := os.Open(filepath.Join(alice, "run", "a1.lock")); err == nil {
			f.Close()
			t.Error("Bob opened the run lock file of Alice's set")
		}
	case "alice-stop":
		must("logman", "stop", "a1")
		deadline := time.Now().Add(5 * time.Second)
		for status(must("logman", "query"), "a1") != "Stopped" {
			if time.Now().After(deadline) {
				t.Fatal("a1 does not show as stopped")
			}
			time.Sleep(50 * time.Millisecond)
		}
	default:
		t.Fatalf("unknown step %q", step)
	}
}
