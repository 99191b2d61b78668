package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/manifest"
	"github.com/perfcounters/perfcounters/provider"
	"github.com/perfcounters/perfcounters/shm/shmtest"
)

// alertBench is a host for alert tests: a state directory, a V2 provider
// of the test's own publishing \Perfc Print Queue\Jobs, a syslog socket
// that collects what alert sets write there, and the perfc binary run
// as a real program in that environment.
type alertBench struct {
	t      *testing.T
	bin    string
	env    []string
	jobs   func(v uint64)
	mu     sync.Mutex
	syslog []string
}

func newAlertBench(t *testing.T) *alertBench {
	bin := buildPerfc(t)
	dir := t.TempDir()
	seg := shmtest.Dir(t)
	sock := filepath.Join(dir, "syslog.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	b := &alertBench{t: t, bin: bin, env: append(os.Environ(), "PERFC_STATE_DIR="+filepath.Join(dir, "state"), "PERFC_SHM_DIR="+seg,
		"PERFC_SYSLOG=unixgram:"+sock, "PERFC_WARNINGS=off", "LANG=C.UTF-8")}
	go func() {
		buf := make([]byte, 8192)
		for {
			n, err := conn.Read(buf)
			if err != nil {
				return
			}
			b.mu.Lock()
			b.syslog = append(b.syslog, string(buf[:n]))
			b.mu.Unlock()
		}
	}()
	const man = "testdata/localized.man"
	b.perfc("lodctr", "/m:"+man)
	m, err := manifest.ParseFile(man)
	if err != nil {
		t.Fatal(err)
	}
	p, err := provider.Start(m.Providers[0].GUID, provider.Options{Dir: seg, MaxInstances: 4, HeapSize: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	set, err := p.AddSet(m.Providers[0].CounterSets[0])
	if err != nil {
		t.Fatal(err)
	}
	in := set.Single()
	b.jobs = func(v uint64) {
		if err := in.Set(1, v); err != nil {
			t.Fatal(err)
		}
	}
	b.jobs(10)
	return b
}

// perfc runs the binary and fails the test when it fails.
func (b *alertBench) perfc(args ...string) string {
	b.t.Helper()
	out, err := b.try(args...)
	if err != nil {
		b.t.Fatalf("perfc %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (b *alertBench) try(args ...string) (string, error) {
	cmd := exec.Command(b.bin, args...)
	cmd.Env = b.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (b *alertBench) logged() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.syslog...)
}

// recordScript writes a task that appends its arguments, one run a line,
// to the file out, with the firing state of its environment.
func recordScript(t *testing.T) (script, out string) {
	dir := t.TempDir()
	out = filepath.Join(dir, "runs.txt")
	script = filepath.Join(dir, "record.sh")
	body := "#!/bin/sh\nprintf '%s|' \"$@\" >> " + out + "\necho \"$PERFC_ALERT_STATE\" >> " + out + "\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return script, out
}

func fileLines(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

// TestAlertSet is issue 30's alert check on a counter the test controls:
// the alert fires once the threshold is crossed and held for the samples
// asked, runs its command once per firing with the arguments
// substituted, writes the syslog entry, starts the named counter set,
// clears when the value comes back, and logman query shows it all. The
// same is then done by an alert imported from a Windows-style export.
func TestAlertSet(t *testing.T) {
	b := newAlertBench(t)
	script, runs := recordScript(t)
	capture := filepath.Join(t.TempDir(), "capture")
	b.perfc("logman", "create", "counter", "capture", "-c", `\Perfc Print Queue\Jobs`, "-si", "1", "-o", capture)
	b.perfc("logman", "create", "alert", "jobs", "-th", `\Perfc Print Queue\Jobs>50`, "-si", "1", "-hold", "2", "-onchange",
		"-el", "-tn", script, "-targ", "{name} {counter} {value} {threshold}", "-rdcs", "capture")
	if out := b.perfc("logman", "query"); !strings.Contains(out, "jobs                                    Alert                         Stopped") {
		t.Errorf("logman query:\n%s", out)
	}
	b.perfc("logman", "start", "jobs")
	t.Cleanup(func() { b.try("logman", "stop", "jobs"); b.try("logman", "stop", "capture") })

	b.jobs(80)
	waitFor(t, "the alert to fire", 30*time.Second, func() bool { return len(fileLines(runs)) >= 1 })
	want := `jobs|\Perfc Print Queue\Jobs|80.000000|50.000000|fired`
	if got := fileLines(runs); got[0] != want {
		t.Errorf("task run %q, want %q", got[0], want)
	}
	waitFor(t, "the syslog entry", 10*time.Second, func() bool { return len(b.logged()) >= 1 })
	if got := b.logged()[0]; !strings.Contains(got, "perfc-pla") ||
		!strings.Contains(got, `Data Collector Set jobs: Performance counter \Perfc Print Queue\Jobs has tripped its alert threshold. The counter value of 80.000000 is over the limit value of 50.000000.`) {
		t.Errorf("syslog entry %q", got)
	}
	waitFor(t, "the triggered set to run", 30*time.Second, func() bool {
		out, _ := b.try("logman", "query", "capture")
		return strings.Contains(out, "Status:               Running")
	})

	b.jobs(10)
	waitFor(t, "the alert to clear", 30*time.Second, func() bool { return len(fileLines(runs)) >= 2 })
	got := fileLines(runs)
	if len(got) != 2 || got[1] != `jobs|\Perfc Print Queue\Jobs|10.000000|50.000000|cleared` {
		t.Errorf("task runs %q: want one firing, then one clear", got)
	}
	out := b.perfc("logman", "query", "jobs")
	for _, w := range []string{"Type:                 Alert", "Hold:                 2 samples", `\Perfc Print Queue\Jobs  clear`,
		"fired 1 times", "Task: 2 runs, 0 failed", "Start Set: 1 runs, 0 failed", "exit status 0", "fired  Performance counter", "cleared  Performance counter"} {
		if !strings.Contains(out, w) {
			t.Errorf("logman query jobs lacks %q:\n%s", w, out)
		}
	}
	b.perfc("logman", "stop", "jobs")
	b.perfc("logman", "stop", "capture")

	// The same through an alert imported from a Windows export: its
	// thresholds, task and triggered set as Windows wrote them, made to
	// judge the test's counter.
	xml, err := os.ReadFile("../../collectorset/testdata/windows-cpu_alert.xml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := collectorset.ParseXML(xml, "windows-cpu_alert.xml")
	if err != nil {
		t.Fatal(err)
	}
	s.Alert.Thresholds = []string{`\Perfc Print Queue\Jobs>50`}
	s.Alert.SampleInterval, s.Alert.Task = 1, script
	imported := filepath.Join(t.TempDir(), "imported.xml")
	if err := os.WriteFile(imported, collectorset.EncodeUTF16(s.XML()), 0o644); err != nil {
		t.Fatal(err)
	}
	b.perfc("logman", "import", "winalert", "-xml", imported)
	if out := b.perfc("logman", "query", "winalert"); !strings.Contains(out, "Start Set:            cpu_log") || !strings.Contains(out, "Event Log:            On") {
		t.Errorf("imported alert:\n%s", out)
	}
	b.perfc("logman", "update", "alert", "winalert", "-rdcs", "capture")
	os.Remove(runs)
	b.perfc("logman", "start", "winalert")
	t.Cleanup(func() { b.try("logman", "stop", "winalert") })
	b.jobs(90)
	waitFor(t, "the imported alert to fire", 30*time.Second, func() bool { return len(fileLines(runs)) >= 1 })
	// Windows' TaskArguments \{usertext\} with user text "{name}
	// {counter} {value} {threshold} {date}": one argument.
	if got := fileLines(runs)[0]; !strings.HasPrefix(got, `winalert \Perfc Print Queue\Jobs 90.000000 50.000000 `) || !strings.HasSuffix(got, "|fired") {
		t.Errorf("imported alert's task run %q", got)
	}
	b.perfc("logman", "stop", "winalert")
	if out := b.perfc("logman", "export", "winalert", "-xml", "-"); !strings.Contains(out, "<AlertDataCollector>") || !strings.Contains(out, "<TriggerDataCollectorSet>capture</TriggerDataCollectorSet>") {
		t.Errorf("export:\n%s", out)
	}
}

// TestAlertSetOptions: alert options on a counter set and counter options
// on an alert set are refused at create and update, with the reason.
func TestAlertSetOptions(t *testing.T) {
	state := t.TempDir()
	vars := map[string]string{"PERFC_STATE_DIR": state}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"logman", "create", "alert", "a", "-th", `\Memory\Available Bytes<100`, "-f", "csv"}, "-f of a counter set"},
		{[]string{"logman", "create", "alert", "a", "-th", `\Memory\Available Bytes`}, "want COUNTER>VALUE"},
		{[]string{"logman", "create", "alert", "a"}, "at least one threshold"},
		{[]string{"logman", "create", "alert", "a", "-th", `\Memory\Available Bytes<100`, "-rdcs", "a"}, "cannot start itself"},
		{[]string{"logman", "create", "alert", "a", "-th", `\Memory\Available Bytes<100`, "-hyst", "-1"}, "at least 0"},
		{[]string{"logman", "create", "counter", "c", "-c", `\Memory\Available Bytes`, "-th", `\Memory\Available Bytes<100`}, "-th of an alert set"},
		{[]string{"logman", "create", "trace", "t"}, "trace"},
	}
	for _, c := range cases {
		_, errs, code := runEnv(vars, c.args...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, %q; want an error with %q", c.args, code, errs, c.want)
		}
	}
	if out, errs, code := runEnv(vars, "logman", "create", "counter", "c", "-c", `\Memory\Available Bytes`); code != 0 {
		t.Fatalf("create counter: %s %s", out, errs)
	}
	if _, errs, code := runEnv(vars, "logman", "update", "alert", "c", "-el"); code == 0 || !strings.Contains(errs, "c is a counter set") {
		t.Errorf("update alert on a counter set: exit %d, %q", code, errs)
	}
	// -cf of an alert lists thresholds, one a line.
	cf := filepath.Join(t.TempDir(), "thresholds.txt")
	if err := os.WriteFile(cf, []byte("\\Memory\\Available Bytes<100\r\n\\Processor(*)\\% Processor Time>95\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errs, code := runEnv(vars, "logman", "create", "alert", "fromfile", "-cf", cf, "-th", `\Memory\Committed Bytes>1e12`); code != 0 {
		t.Fatalf("create alert -cf: %s %s", out, errs)
	}
	out, _, _ := runEnv(vars, "logman", "query", "fromfile")
	if !strings.Contains(out, "Thresholds:\n    \\Memory\\Committed Bytes>1e12\n    \\Memory\\Available Bytes<100\n    \\Processor(*)\\% Processor Time>95\n") {
		t.Errorf("thresholds of -th and -cf:\n%s", out)
	}
}
