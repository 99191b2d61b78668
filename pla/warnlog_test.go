package pla

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/perfcounters/perfcounters/state"
)

// TestWarningLog: warnings land in the set's warning log with their
// time; one repeated within repeatEvery is counted and written again
// with its count after; Flush writes the counts pending; and every
// warning also goes to the service's own output.
func TestWarningLog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := stateDir(t)
		var also []string
		l := NewWarningLog(dir, "s", func(m string) { also = append(also, m) })
		t0 := time.Now()
		at := func(d time.Duration) string { return t0.Add(d).Local().Format(WarningTimeLayout) }
		steps := []struct {
			after time.Duration // since t0
			msg   string
		}{
			{0, "counter \\X\\Y: no such object"},
			{time.Second, "counter \\X\\Y: no such object"},
			{2 * time.Second, "counter \\X\\Y: no such object"},
			{3 * time.Second, "sample failed:\nline two"},
			{11 * time.Minute, "counter \\X\\Y: no such object"},
			{12 * time.Minute, "counter \\X\\Y: no such object"},
		}
		for _, s := range steps {
			time.Sleep(time.Until(t0.Add(s.after)))
			l.Warn(s.msg)
		}
		l.Flush()
		want := strings.Join([]string{
			at(0) + "  counter \\X\\Y: no such object",
			at(3*time.Second) + "  sample failed: line two",
			at(11*time.Minute) + "  counter \\X\\Y: no such object (2 more times since " + at(0) + ")",
			at(12*time.Minute) + "  counter \\X\\Y: no such object (1 more time since " + at(11*time.Minute) + ")",
		}, "\n") + "\n"
		b, err := state.ReadRunFile(dir, "s", state.WarningLogSuffix)
		if err != nil || string(b) != want {
			t.Errorf("warning log:\n%s(%v)\nwant:\n%s", b, err, want)
		}
		if len(also) != len(steps) {
			t.Errorf("%d warnings passed on, want %d", len(also), len(steps))
		}
	})
}

// TestWarningLogBounded: a collector warning about ever new things keeps
// its log within WarningLogLimit, the newest warning last.
func TestWarningLogBounded(t *testing.T) {
	dir := stateDir(t)
	l := NewWarningLog(dir, "s", nil)
	long := strings.Repeat("x", maxWarning*2)
	for i := range 100 {
		l.Warn(fmt.Sprintf("warning %d %s", i, long))
	}
	b, err := state.ReadRunFile(dir, "s", state.WarningLogSuffix)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > WarningLogLimit || !strings.Contains(string(b), "warning 99 ") {
		t.Errorf("%d bytes (limit %d), newest warning kept: %v", len(b), WarningLogLimit, strings.Contains(string(b), "warning 99 "))
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if len(line) > maxWarning+100 {
			t.Fatalf("a line of %d bytes: a warning is cut at %d", len(line), maxWarning)
		}
	}
}

// TestServiceWarningsKept: the warnings of a set's collector (a counter
// that does not exist here) are in the set's warning log, where logman
// query shows them; before, a background collector dropped them.
func TestServiceWarningsKept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newFakeSource(1)
		svc := NewService(t.Context(), testOptions(src))
		dir := stateDir(t)
		set := newSet("warned", t.TempDir(), `\Memory\Available Bytes`, `\No Such Object\Whatever`)
		if err := svc.Start(dir, set, time.Time{}); err != nil {
			t.Fatal(err)
		}
		svc.StopAll("done")
		svc.Wait()
		b, err := state.ReadRunFile(dir, "warned", state.WarningLogSuffix)
		if err != nil || !strings.Contains(string(b), `\No Such Object\Whatever`) {
			t.Errorf("warning log %q, %v: want the missing counter named", b, err)
		}
	})
}
