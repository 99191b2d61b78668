package system

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fixtureSystemctl answers "show" and "list-unit-files" with the files
// of testdata/systemd (PROVENANCE.md), and fails otherwise.
func fixtureSystemctl(t testing.TB) systemctlRunner {
	t.Helper()
	show, err := os.ReadFile("testdata/systemd/show.txt")
	if err != nil {
		t.Fatal(err)
	}
	files, err := os.ReadFile("testdata/systemd/list-unit-files.txt")
	if err != nil {
		t.Fatal(err)
	}
	return func(_ context.Context, args ...string) ([]byte, error) {
		switch args[0] {
		case "show":
			return show, nil
		case "list-unit-files":
			return files, nil
		}
		return nil, errors.New("unexpected systemctl " + args[0])
	}
}

// TestServicesFixture reads the fixture host's units as Services does;
// the expectations are read off show.txt and list-unit-files.txt by hand.
func TestServicesFixture(t *testing.T) {
	units, err := servicesWith(context.Background(), fixtureSystemctl(t))
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		state, start int
		failed       bool
		pid          uint32
		restarts     uint64
		user, exec   string
		started      string // RFC 3339, "" unknown
	}
	wants := map[string]want{
		"apt-daily-upgrade.service":        {ServiceStopped, StartManual, false, 0, 0, "", "", ""}, // unit file only
		"apt-daily.service":                {ServiceStopped, StartManual, false, 0, 0, "", "/usr/lib/apt/apt.systemd.daily update", ""},
		"cron.service":                     {ServiceRunning, StartAuto, false, 612, 0, "", "/usr/sbin/cron -f $EXTRA_OPTS", "2026-12-08T00:10:04Z"},
		"mysql.service":                    {ServiceStartPending, StartManual, false, 901, 0, "mysql", "/usr/sbin/mysqld", "2026-12-08T00:12:00Z"},
		"nginx.service":                    {ServiceStopped, StartDisabled, false, 0, 0, "", "", ""},
		"plymouth-start.service":           {ServiceStopped, StartUnknown, false, 0, 0, "", "", ""},
		"prometheus-node-exporter.service": {ServiceStopped, StartAuto, true, 0, 5, "prometheus", "/usr/bin/prometheus-node-exporter $ARGS", "2026-12-08T00:10:05Z"},
		"rsync.service":                    {ServiceStopped, StartManual, false, 0, 0, "", "", ""}, // unit file only, disabled
		"ssh.service":                      {ServiceRunning, StartAuto, false, 701, 2, "", "/usr/sbin/sshd -D $SSHD_OPTS", "2026-12-08T00:10:05Z"},
		"systemd-journald.service":         {ServiceRunning, StartManual, false, 301, 0, "", "/usr/lib/systemd/systemd-journald", "2026-12-08T00:10:01Z"},
	}
	if len(units) != len(wants) {
		var names []string
		for _, u := range units {
			names = append(names, u.Name)
		}
		t.Fatalf("%d units %v, want %d", len(units), names, len(wants))
	}
	for i, u := range units {
		if i > 0 && units[i-1].Name >= u.Name {
			t.Errorf("not sorted: %s before %s", units[i-1].Name, u.Name)
		}
		w, ok := wants[u.Name]
		if !ok {
			t.Errorf("unexpected unit %s", u.Name)
			continue
		}
		var started string
		if !u.Started.IsZero() {
			started = u.Started.UTC().Format(time.RFC3339)
		}
		got := want{u.WindowsState(), u.StartMode(), u.Failed(), u.MainPID, u.Restarts, u.User, u.ExecPath, started}
		if got != w {
			t.Errorf("%s: %+v, want %+v", u.Name, got, w)
		}
	}
}

func TestParseSystemctlShowErrors(t *testing.T) {
	for _, tc := range []struct{ in, err string }{
		{"Id=a.service\nMainPID=x\n", "line 2: MainPID"},
		{"Id=a.service\nNRestarts=-1\n", "line 2: NRestarts"},
		{"Id=a.service\nno equals sign\n", "line 2: no '='"},
	} {
		_, err := ParseSystemctlShow([]byte(tc.in), nil)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: error %v, want one with %q", tc.in, err, tc.err)
		}
	}
	// of several ExecStart commands, the first is the service's program
	units, err := ParseSystemctlShow([]byte("Id=a.service\nExecStart={ path=/bin/true ; argv[]=/bin/true one ; ignore_errors=no }\nExecStart={ path=/bin/false ; argv[]=/bin/false two ; ignore_errors=no }\n"), nil)
	if err != nil || len(units) != 1 || units[0].ExecPath != "/bin/true one" {
		t.Errorf("two ExecStart lines: %+v, %v", units, err)
	}
	// a block without Id is skipped; CRLF and a missing final newline are read
	units, err = ParseSystemctlShow([]byte("MainPID=3\n\nId=b.service\r\nMainPID=4"), nil)
	if err != nil || len(units) != 1 || units[0].Name != "b.service" || units[0].MainPID != 4 {
		t.Errorf("got %+v, %v", units, err)
	}
	// too many units
	var b strings.Builder
	for i := range maxServiceUnits + 2 {
		b.WriteString("Id=u" + strconv.Itoa(i) + ".service\n\n")
	}
	units, err = ParseSystemctlShow([]byte(b.String()), nil)
	if err == nil || len(units) > maxServiceUnits {
		t.Errorf("%d units, error %v; want at most %d and an error", len(units), err, maxServiceUnits)
	}
}

// TestServiceObject collects Service over the fixture: one instance per
// loaded unit (show.txt), the values read off it by hand.
func TestServiceObject(t *testing.T) {
	c := NewCollector(nil, nil)
	s := collectObject(t, c, serviceObject(fixtureSystemctl(t)))
	if len(s.names) != 8 {
		t.Fatalf("instances %q, want the 8 units of show.txt", s.names)
	}
	for _, tc := range []struct {
		inst, counter string
		want          uint64
	}{
		{"ssh.service", "State", ServiceRunning},
		{"ssh.service", "Restarts", 2},
		{"ssh.service", "Main PID", 701},
		{"ssh.service", "Start Mode", StartAuto},
		{"ssh.service", "Failed", 0},
		{"prometheus-node-exporter.service", "Failed", 1},
		{"prometheus-node-exporter.service", "State", ServiceStopped},
		{"prometheus-node-exporter.service", "Restarts", 5},
		{"nginx.service", "Start Mode", StartDisabled},
		{"mysql.service", "State", ServiceStartPending},
	} {
		if got := s.get(t, tc.inst, tc.counter); got != tc.want {
			t.Errorf("%s %s = %d, want %d", tc.inst, tc.counter, got, tc.want)
		}
	}
	if len(s.reasons) != 0 || len(s.missing) != 0 {
		t.Errorf("partial %q, missing %v", s.reasons, s.missing)
	}
}

// TestServiceObjectWithoutSystemd: the object is not declared where
// process 1 is not systemd (a fixture /proc without 1/comm, and this
// machine when its init is another program).
func TestServiceObjectWithoutSystemd(t *testing.T) {
	c := NewCollector(nil, nil)
	if objs := c.serviceObjects(); len(objs) != 0 {
		t.Errorf("without /proc: %d objects", len(objs))
	}
	comm, _ := os.ReadFile("/proc/1/comm")
	if strings.TrimSpace(string(comm)) == "systemd" {
		t.Skip("systemd is process 1 here")
	}
	c = NewCollector(os.DirFS("/proc"), nil)
	if objs := c.serviceObjects(); len(objs) != 0 {
		t.Errorf("process 1 is %q, yet Service is declared", strings.TrimSpace(string(comm)))
	}
	if SystemdRunning() {
		return // /run/systemd/system without systemd as process 1 (a container's bind mount)
	}
	if _, err := Services(context.Background()); !errors.Is(err, ErrNoSystemd) {
		t.Errorf("Services without systemd: %v, want ErrNoSystemd", err)
	}
}

// TestServicesLive compares Services with "systemctl show UNIT" of each
// running unit, where systemd is process 1.
func TestServicesLive(t *testing.T) {
	comm, _ := os.ReadFile("/proc/1/comm")
	if strings.TrimSpace(string(comm)) != "systemd" || !SystemdRunning() {
		t.Skipf("systemd is not process 1 here (process 1 is %q): no units to compare", strings.TrimSpace(string(comm)))
	}
	units, err := Services(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(units) == 0 {
		t.Fatal("systemd runs, yet no service units")
	}
	n := 0
	for _, u := range units {
		if u.LoadState == "" || n >= 20 {
			continue
		}
		n++
		out, err := exec.Command("systemctl", "show", "-p", "ActiveState,UnitFileState", "--", u.Name).Output()
		if err != nil {
			t.Fatalf("systemctl show %s: %v", u.Name, err)
		}
		got := string(out)
		// a unit may change state between the two commands; the file state does not
		if !strings.Contains(got, "UnitFileState="+u.FileState+"\n") {
			t.Errorf("%s: systemctl show says %q, Services file state %q", u.Name, got, u.FileState)
		}
	}
}
