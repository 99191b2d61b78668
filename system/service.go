package system

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/proctext"
)

// Services from systemd (issue 46 item 3): the state of the host's
// service units as systemctl shows them, for the Service object and for
// windows_exporter's service metrics. systemd's public interface is used
// through its command line, never D-Bus (no dependency): "systemctl show"
// prints each unit's properties as KEY=VALUE lines, one blank line between
// units (systemctl(1), "show"), and "systemctl list-unit-files" one unit
// file a line, "UNIT STATE PRESET" (PRESET since systemd 245). Both are
// run with LC_ALL=C and TZ=UTC, so that time stamps read the same
// everywhere, under a time limit, their output bounded.

// ServiceUnit is one systemd service unit.
type ServiceUnit struct {
	Name        string    // the unit's name, "ssh.service"
	Description string    // Description=
	LoadState   string    // LoadState=: loaded, not-found, masked...; "" for a unit file not loaded
	ActiveState string    // ActiveState=: active, reloading, inactive, failed, activating, deactivating
	SubState    string    // SubState=: running, exited, dead...
	FileState   string    // UnitFileState=, or list-unit-files' STATE: enabled, disabled, static, masked...
	User        string    // User=: the user the service runs as ("" is root)
	ExecPath    string    // the program of the first ExecStart= (its argv[0]... path=)
	MainPID     uint32    // MainPID=: 0 when none runs
	Restarts    uint64    // NRestarts=: automatic restarts since the unit was loaded
	HasRestarts bool      // NRestarts= was given (systemd 235 and later)
	Started     time.Time // ExecMainStartTimestamp=: when the main process started; zero when unknown
}

// Windows' service states (SERVICE_STOPPED...SERVICE_PAUSED), the values
// of the Service object's State counter.
const (
	ServiceStopped         = 1
	ServiceStartPending    = 2
	ServiceStopPending     = 3
	ServiceRunning         = 4
	ServiceContinuePending = 5
	ServicePausePending    = 6
	ServicePaused          = 7
)

// Windows' start types (SERVICE_BOOT_START...SERVICE_DISABLED), the values
// of the Service object's Start Mode counter; StartUnknown where systemd
// gives no unit file state.
const (
	StartBoot     = 0
	StartSystem   = 1
	StartAuto     = 2
	StartManual   = 3
	StartDisabled = 4
	StartUnknown  = 5
)

// WindowsState is the unit's state as a Windows service state
// (ServiceStopped...): active and reloading are running, activating is
// start pending, deactivating stop pending, inactive and failed stopped
// (Failed tells the two apart).
func (u *ServiceUnit) WindowsState() int {
	switch u.ActiveState {
	case "active", "reloading", "refreshing":
		return ServiceRunning
	case "activating":
		return ServiceStartPending
	case "deactivating":
		return ServiceStopPending
	}
	return ServiceStopped
}

// Failed reports whether the unit is in the failed state.
func (u *ServiceUnit) Failed() bool { return u.ActiveState == "failed" }

// StartMode is the unit file state as a Windows start type: enabled
// (started at boot) is auto; static, indirect, disabled, linked, alias,
// generated and transient units start when asked (manual); masked ones
// cannot start (disabled); an empty or unknown state is StartUnknown.
func (u *ServiceUnit) StartMode() int {
	switch u.FileState {
	case "enabled", "enabled-runtime":
		return StartAuto
	case "static", "indirect", "disabled", "linked", "linked-runtime", "alias", "generated", "transient":
		return StartManual
	case "masked", "masked-runtime":
		return StartDisabled
	}
	return StartUnknown
}

// maxServiceUnits bounds the units one listing returns; maxSystemctlOutput
// the bytes read of one systemctl command; systemctlTimeout its run time.
const (
	maxServiceUnits    = 8192
	maxSystemctlOutput = 32 << 20
	systemctlTimeout   = 5 * time.Second
)

// serviceProps are the properties "systemctl show" is asked for.
const serviceProps = "Id,Description,LoadState,ActiveState,SubState,UnitFileState,User,ExecStart,MainPID,NRestarts,ExecMainStartTimestamp"

// SystemdRunning reports whether systemd is the init system, as
// sd_booted(3) decides: /run/systemd/system exists.
func SystemdRunning() bool {
	fi, err := os.Stat("/run/systemd/system")
	return err == nil && fi.IsDir()
}

// ErrNoSystemd is returned by Services where systemd is not the init
// system.
var ErrNoSystemd = errors.New("systemd is not running as the init system (no /run/systemd/system)")

// Services returns the host's service units: every loaded one (systemctl
// show of "*.service", --all) and every service unit file not loaded
// (list-unit-files: inactive, with its file state), sorted by name,
// template units ("foo@.service") left out. It fails with ErrNoSystemd
// where systemd is not running.
func Services(ctx context.Context) ([]ServiceUnit, error) {
	if !SystemdRunning() {
		return nil, ErrNoSystemd
	}
	return servicesWith(ctx, runSystemctl)
}

// servicesWith is Services over a runner of systemctl (tests give
// fixtures).
func servicesWith(ctx context.Context, run systemctlRunner) ([]ServiceUnit, error) {
	show, err := run(ctx, "show", "--all", "--property="+serviceProps, "--", "*.service")
	if err != nil {
		return nil, err
	}
	units, err := ParseSystemctlShow(show, nil)
	if err != nil {
		return nil, err
	}
	files, err := run(ctx, "list-unit-files", "--type=service", "--no-legend")
	if err != nil {
		return nil, err
	}
	return MergeUnitFiles(units, ParseUnitFiles(files)), nil
}

// runSystemctl runs systemctl with args (and --no-pager --plain) under
// systemctlTimeout, and returns its output, at most maxSystemctlOutput
// bytes.
func runSystemctl(ctx context.Context, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, systemctlTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "systemctl", append([]string{"--no-pager", "--plain"}, args...)...)
	cmd.Env = []string{"LC_ALL=C", "TZ=UTC", "SYSTEMD_COLORS=0", "PATH=" + os.Getenv("PATH")}
	var out limitedBuffer
	out.max = maxSystemctlOutput
	var stderr limitedBuffer
	stderr.max = 4096
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err := cmd.Run()
	if out.over {
		return nil, fmt.Errorf("systemctl %s: more than %d bytes of output", args[0], maxSystemctlOutput)
	}
	if err != nil {
		return nil, fmt.Errorf("systemctl %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out.Bytes(), nil
}

// limitedBuffer keeps at most max bytes written to it and notes more.
type limitedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if n := b.max - b.Len(); len(p) > n {
		b.over = true
		if n > 0 {
			b.Buffer.Write(p[:n])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// systemdTimeLayout is how systemctl show writes a time stamp with
// LC_ALL=C and TZ=UTC ("Tue 2026-12-08 01:02:03 UTC").
const systemdTimeLayout = "Mon 2006-01-02 15:04:05 MST"

// ParseSystemctlShow appends to units the units of "systemctl show"
// output (KEY=VALUE lines, units separated by blank lines; lines of
// other keys are ignored). A block without Id= is skipped; a value that
// does not parse (MainPID=x) is an error naming its line. At most
// maxServiceUnits units are read.
func ParseSystemctlShow(b []byte, units []ServiceUnit) ([]ServiceUnit, error) {
	var u ServiceUnit
	have := false
	flush := func() {
		if have && u.Name != "" {
			units = append(units, u)
		}
		u, have = ServiceUnit{}, false
	}
	line := 0
	for len(b) > 0 {
		var l []byte
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			l, b = b[:i], b[i+1:]
		} else {
			l, b = b, nil
		}
		line++
		l = bytes.TrimSuffix(l, []byte{'\r'})
		if len(l) == 0 {
			flush()
			if len(units) >= maxServiceUnits {
				return units, fmt.Errorf("systemctl show: more than %d units", maxServiceUnits)
			}
			continue
		}
		k, v, ok := bytes.Cut(l, []byte{'='})
		if !ok {
			return units, fmt.Errorf("systemctl show: line %d: no '=' in %q", line, trimQuote(l))
		}
		have = true
		switch string(k) {
		case "Id":
			u.Name = text(v)
		case "Description":
			u.Description = text(v)
		case "LoadState":
			u.LoadState = text(v)
		case "ActiveState":
			u.ActiveState = text(v)
		case "SubState":
			u.SubState = text(v)
		case "UnitFileState":
			u.FileState = text(v)
		case "User":
			u.User = text(v)
		case "ExecStart":
			// one line per command of a unit that has several: the first
			if u.ExecPath == "" {
				u.ExecPath = execPath(v)
			}
		case "MainPID":
			n, err := strconv.ParseUint(string(v), 10, 32)
			if err != nil {
				return units, fmt.Errorf("systemctl show: line %d: MainPID %q: not a process id", line, trimQuote(v))
			}
			u.MainPID = uint32(n)
		case "NRestarts":
			if len(v) == 0 {
				continue
			}
			n, err := strconv.ParseUint(string(v), 10, 64)
			if err != nil {
				return units, fmt.Errorf("systemctl show: line %d: NRestarts %q: not a count", line, trimQuote(v))
			}
			u.Restarts, u.HasRestarts = n, true
		case "ExecMainStartTimestamp":
			if len(v) == 0 || string(v) == "n/a" {
				continue
			}
			t, err := time.Parse(systemdTimeLayout, string(v))
			if err != nil {
				// another locale or time zone than asked for: unknown, not an error
				continue
			}
			u.Started = t
		}
	}
	flush()
	if len(units) > maxServiceUnits {
		return units[:maxServiceUnits], fmt.Errorf("systemctl show: more than %d units", maxServiceUnits)
	}
	return units, nil
}

// text is a value as a string, cut to an instance name's length.
func text(v []byte) string {
	return proctext.CutName(string(bytes.ToValidUTF8(v, []byte("\uFFFD"))), proctext.MaxInstanceName)
}

// trimQuote is the start of a malformed line for an error message.
func trimQuote(b []byte) string {
	if len(b) > 64 {
		b = b[:64]
	}
	return string(b)
}

// execPath is the program of an ExecStart= value
// ("{ path=/usr/sbin/sshd ; argv[]=/usr/sbin/sshd -D ; ... }"): the
// first argv[] entry's line, else path=.
func execPath(v []byte) string {
	s := string(v)
	if i := strings.Index(s, "argv[]="); i >= 0 {
		rest := s[i+len("argv[]="):]
		if j := strings.Index(rest, " ;"); j >= 0 {
			rest = rest[:j]
		}
		return text([]byte(strings.TrimSpace(rest)))
	}
	if i := strings.Index(s, "path="); i >= 0 {
		rest := s[i+len("path="):]
		if j := strings.Index(rest, " ;"); j >= 0 {
			rest = rest[:j]
		}
		return text([]byte(strings.TrimSpace(rest)))
	}
	return ""
}

// UnitFile is one line of "systemctl list-unit-files".
type UnitFile struct {
	Name  string // "ssh.service"
	State string // enabled, disabled, static, masked...
}

// ParseUnitFiles reads "systemctl list-unit-files --no-legend" output:
// UNIT STATE [PRESET], separated by blanks. Lines with fewer fields, a
// legend left in ("UNIT FILE STATE"), and template units are skipped.
// At most maxServiceUnits are read.
func ParseUnitFiles(b []byte) []UnitFile {
	var out []UnitFile
	for l := range strings.SplitSeq(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || f[0] == "UNIT" || !strings.HasSuffix(f[0], ".service") || strings.HasSuffix(f[0], "@.service") {
			continue
		}
		out = append(out, UnitFile{Name: text([]byte(f[0])), State: text([]byte(f[1]))})
		if len(out) >= maxServiceUnits {
			break
		}
	}
	return out
}

// MergeUnitFiles adds to the loaded units the unit files not among them
// (inactive, their file state given; aliases, another name of a unit,
// left out), fills a loaded unit's empty file
// state from its file, and sorts the whole by name; at most
// maxServiceUnits are kept.
func MergeUnitFiles(units []ServiceUnit, files []UnitFile) []ServiceUnit {
	idx := make(map[string]int, len(units))
	for i := range units {
		idx[units[i].Name] = i
	}
	for _, f := range files {
		if i, ok := idx[f.Name]; ok {
			if units[i].FileState == "" {
				units[i].FileState = f.State
			}
			continue
		}
		if f.State == "alias" {
			continue // another name of a unit listed under its own
		}
		if len(units) >= maxServiceUnits {
			break
		}
		idx[f.Name] = len(units)
		units = append(units, ServiceUnit{Name: f.Name, ActiveState: "inactive", SubState: "dead", FileState: f.State})
	}
	sortUnits(units)
	return units
}

// sortUnits orders units by name.
func sortUnits(units []ServiceUnit) {
	slices.SortFunc(units, func(a, b ServiceUnit) int { return strings.Compare(a.Name, b.Name) })
}

// Service counter indexes.
const (
	svcState = iota
	svcFailed
	svcStartMode
	svcPID
	svcRestarts
)

// systemctlRunner runs systemctl with the given arguments.
type systemctlRunner func(ctx context.Context, args ...string) ([]byte, error)

// serviceObject declares Service: one instance per loaded service unit,
// from systemctl run by run.
func serviceObject(run systemctlRunner) Object {
	cs := []counterset.Counter{
		ctr("State", tRaw, 0, detNovice, "State is the unit's state as a Windows service state: 1 stopped (systemd's inactive or failed), 2 start pending (activating), 3 stop pending (deactivating), 4 running (active, reloading): ActiveState of systemctl show."),
		ctr("Failed", tRaw, 0, detNovice, "Failed is 1 while the unit is in systemd's failed state (it stopped with an error, or was restarted too often), else 0."),
		ctr("Start Mode", tRaw, 0, detAdvanced, "Start Mode is the unit file state as a Windows start type: 2 auto (enabled), 3 manual (static, indirect, disabled and other units started when asked), 4 disabled (masked), 5 unknown: UnitFileState of systemctl show."),
		ctr("Main PID", tRaw, 0, detAdvanced, "Main PID is the process id of the service's main process (MainPID of systemctl show), 0 when none runs."),
		grows(ctr("Restarts", tRaw, 0, detNovice, "Restarts is the number of times systemd restarted the service automatically since the unit was loaded (NRestarts of systemctl show, systemd 235 and later).")),
	}
	set := newSet("Service", 0, counterset.Multiple, detNovice, svcState,
		"The Service object shows systemd's service units (one instance per loaded unit, named as the unit): their state, start mode, main process and restarts, read from systemctl show (systemd's command-line interface). The object is declared where systemd is the init system (process 1 is systemd) when the program starts.",
		cs)
	var units []ServiceUnit // reused between samples
	return Object{Set: set, Collect: func(c *Collector, col Collection, w Writer) error {
		var err error
		units, err = collectService(context.Background(), run, col, w, units[:0])
		return err
	}}
}

// serviceObjects returns Service where the Collector's /proc shows
// systemd as process 1 (1/comm) and systemd's run-time directory exists.
func (c *Collector) serviceObjects() []Object {
	if c.proc == nil {
		return nil
	}
	b, err := c.readProc("1/comm")
	if err != nil || strings.TrimSpace(string(b)) != "systemd" || !SystemdRunning() {
		return nil
	}
	return []Object{serviceObject(runSystemctl)}
}

// collectService fills Service from systemctl show, run by run, into
// units (reused): loaded units only, as units never loaded have no state
// to show. A failed systemctl leaves the object without instances,
// reported as partial.
func collectService(ctx context.Context, run systemctlRunner, col Collection, w Writer, units []ServiceUnit) ([]ServiceUnit, error) {
	b, err := run(ctx, "show", "--all", "--property="+serviceProps, "--", "*.service")
	if err != nil {
		partialf(col, "%v", err)
		return units, nil
	}
	units, err = ParseSystemctlShow(b, units)
	if err != nil {
		partialf(col, "%v", err)
	}
	sortUnits(units)
	writeServices(col, w, units)
	return units, nil
}

// writeServices writes one instance per unit; Restarts is unavailable
// where systemd did not give NRestarts.
func writeServices(col Collection, w Writer, units []ServiceUnit) {
	for i := range units {
		u := &units[i]
		v := w.Instance(u.Name, 0, 0, -1)
		v.Set(svcState, uint64(u.WindowsState()))
		var failed uint64
		if u.Failed() {
			failed = 1
		}
		v.Set(svcFailed, failed)
		v.Set(svcStartMode, uint64(u.StartMode()))
		v.Set(svcPID, uint64(u.MainPID))
		v.Set(svcRestarts, u.Restarts)
		if !u.HasRestarts {
			col.Unavailable(svcRestarts)
		}
	}
}
