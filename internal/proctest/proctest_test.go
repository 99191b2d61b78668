package proctest

import (
	"os/exec"
	"testing"
	"time"
)

func TestExited(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer cmd.Wait()
	if Exited(t, cmd.Process.Pid, 50*time.Millisecond) {
		t.Fatal("a running process reported as exited")
	}
	cmd.Process.Kill()
	if !Exited(t, cmd.Process.Pid, 5*time.Second) {
		t.Fatal("a killed process not reported as exited")
	}
}
