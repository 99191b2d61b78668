package pla

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/state"
)

// Record is a set's run-state file (run/NAME.json in its owner's state
// directory): which process runs or ran the set, and how it ended.
type Record struct {
	Set string `json:"set"`
	// PID is the process collecting the set; StartTicks its start time
	// in clock ticks after boot (/proc/PID/stat field 22) and BootID the
	// boot it ran in (/proc/sys/kernel/random/boot_id): together they
	// tell the process from a later one that reuses its pid.
	PID        int    `json:"pid"`
	StartTicks uint64 `json:"startTicks"`
	BootID     string `json:"bootId"`
	// Shared: the process is a service running several sets; it is asked
	// to stop one with a stop request file, not a signal.
	Shared bool `json:"shared,omitempty"`
	// SupervisorPID and SupervisorTicks name the supervisor that restarts
	// the collector when it crashes (logman start's sets); 0: none.
	SupervisorPID   int       `json:"supervisorPid,omitempty"`
	SupervisorTicks uint64    `json:"supervisorStartTicks,omitempty"`
	Started         time.Time `json:"started"`
	Output          string    `json:"output,omitempty"`
	// Serial is the serial number in the log's name (-v nnnnnn) of this
	// run; NextSerial, after a clean stop, the next run's (Windows
	// numbers each run's file anew).
	Serial     uint32 `json:"serial,omitempty"`
	NextSerial uint32 `json:"nextSerial,omitempty"`
	// Stopped is when the collection ended cleanly (zero while it runs,
	// and after a crash); Reason why.
	Stopped time.Time `json:"stopped,omitzero"`
	Reason  string    `json:"reason,omitempty"`
}

// maxRecord bounds a run-state file: one set's record is a few hundred
// bytes.
const maxRecord = 64 << 10

// ReadRecord reads the run-state record of the set name in the state
// directory dir; nil, nil when there is none.
func ReadRecord(dir, name string) (*Record, error) {
	b, err := state.ReadRunFile(dir, name, state.RunRecordSuffix)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(b) > maxRecord {
		return nil, fmt.Errorf("run-state file of Data Collector Set %q in %s is larger than %d bytes", name, dir, maxRecord)
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("run-state file of Data Collector Set %q in %s/run: %v", name, dir, err)
	}
	return &r, nil
}

// WriteRecord writes r as the run-state record of its set in dir,
// atomically.
func WriteRecord(dir string, r *Record) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return state.WriteRunFile(dir, r.Set, state.RunRecordSuffix, append(b, '\n'))
}

// Proc reads process identities from a /proc tree.
type Proc struct {
	Root string // "" is /proc
}

func (p Proc) root() string {
	if p.Root == "" {
		return "/proc"
	}
	return p.Root
}

// BootID returns the identity of the running boot.
func (p Proc) BootID() (string, error) {
	b, err := os.ReadFile(p.root() + "/sys/kernel/random/boot_id")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// Stat returns a process's state letter and start time in clock ticks
// after boot (/proc/PID/stat fields 3 and 22).
func (p Proc) Stat(pid int) (stateLetter byte, startTicks uint64, err error) {
	b, err := os.ReadFile(p.root() + "/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, err
	}
	// The command name (field 2) is in parentheses and may hold blanks
	// and parentheses: the fields after it follow the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("%s/%d/stat: no ')' after the command name", p.root(), pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0, 0, fmt.Errorf("%s/%d/stat: %d fields after the command name, want at least 20", p.root(), pid, len(f))
	}
	st, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil || len(f[0]) != 1 {
		return 0, 0, fmt.Errorf("%s/%d/stat: state %q, start time %q", p.root(), pid, f[0], f[19])
	}
	return f[0][0], st, nil
}

// Self returns the calling process's identity for a Record.
func (p Proc) Self() (pid int, startTicks uint64, bootID string, err error) {
	pid = os.Getpid()
	if _, startTicks, err = p.Stat(pid); err != nil {
		return 0, 0, "", err
	}
	bootID, err = p.BootID()
	return pid, startTicks, bootID, err
}

// Alive reports whether the process r names runs now: its pid exists in
// this boot, has the start time recorded, and is no zombie. A record of a
// clean stop is never alive.
func (p Proc) Alive(r *Record) bool {
	if r == nil || r.PID <= 0 || !r.Stopped.IsZero() {
		return false
	}
	if boot, err := p.BootID(); err != nil || boot != r.BootID {
		return false
	}
	st, ticks, err := p.Stat(r.PID)
	return err == nil && ticks == r.StartTicks && st != 'Z' && st != 'X' && st != 'x'
}

// SupervisorAlive reports whether the supervisor r names runs now.
func (p Proc) SupervisorAlive(r *Record) bool {
	if r == nil || r.SupervisorPID <= 0 || !r.Stopped.IsZero() {
		return false
	}
	return p.Alive(&Record{PID: r.SupervisorPID, StartTicks: r.SupervisorTicks, BootID: r.BootID})
}

// Crashed reports whether r records a collection that ended without a
// clean stop (killed, crashed, or the computer restarted).
func (p Proc) Crashed(r *Record) bool {
	return r != nil && r.PID > 0 && r.Stopped.IsZero() && !p.Alive(r)
}
