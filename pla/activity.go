package pla

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/perfcounters/perfcounters/state"
)

// Activity is what a set's collector did besides writing its log: an
// alert set's alerts (each threshold and instance, its last value, when
// it last fired and how often) and its latest events, and the runs of
// the set's commands (an alert's task and triggered set, a counter set's
// -rc). It is the status file of the set (run/NAME.status in its owner's
// state directory), which `logman query NAME`, `perfc serve` and perfmon
// read.
type Activity struct {
	Set     string       `json:"set"`
	Updated time.Time    `json:"updated"`
	Alerts  []AlertState `json:"alerts,omitempty"`
	// Events are the latest firings and clears, oldest first (at most
	// MaxEvents).
	Events  []AlertEvent `json:"events,omitempty"`
	Actions []ActionRun  `json:"actions,omitempty"`
	// PrivateHidden: the runs' command lines and output are the set
	// owner's (and root's) to read, and this reader is neither.
	PrivateHidden bool `json:"-"`
}

// The bounds of a status file.
const (
	// MaxEvents bounds the events kept.
	MaxEvents = 50
	// MaxAlertStates bounds the alert states kept (threshold and
	// instance pairs): past it, instances that match a wildcard are
	// judged but not listed.
	MaxAlertStates = 2000
	// maxStatus bounds a status file read back.
	maxStatus = 4 << 20
	// maxOutput bounds the output of a command kept.
	maxOutput = 4 << 10
)

// AlertState is one threshold judged for one counter instance.
type AlertState struct {
	Threshold string `json:"threshold"` // as written: PATH>VALUE
	Counter   string `json:"counter"`   // the instance's concrete path
	// Firing: the alert has fired and not cleared.
	Firing bool `json:"firing"`
	// Past counts the consecutive samples past the threshold.
	Past        uint32    `json:"past"`
	Value       float64   `json:"value"`
	Sampled     time.Time `json:"sampled"`
	LastFired   time.Time `json:"lastFired,omitzero"`
	LastCleared time.Time `json:"lastCleared,omitzero"`
	// Fired counts the firings: every sample past the threshold (after
	// Hold samples) in Windows' meaning; each change to firing with
	// -onchange.
	Fired uint64 `json:"fired"`
}

// AlertEvent is one firing or clear.
type AlertEvent struct {
	Time      time.Time `json:"time"`
	Kind      string    `json:"kind"` // "fired" or "cleared"
	Counter   string    `json:"counter"`
	Threshold string    `json:"threshold"`
	Value     float64   `json:"value"`
	Message   string    `json:"message"`
}

// ActionRun is the latest run of one of a set's actions, and how many
// runs it had.
type ActionRun struct {
	// Action is "task" (an alert's -tn), "trigger" (-rdcs) or "rc" (a
	// counter set's command when a log closes).
	Action  string    `json:"action"`
	Command []string  `json:"command,omitempty"`
	Started time.Time `json:"started,omitzero"`
	Ended   time.Time `json:"ended,omitzero"`
	Running bool      `json:"running,omitempty"`
	// Result says how the latest run ended: "exit status 0", "killed at
	// its time limit of 1m0s", "could not start: ...".
	Result string `json:"result,omitempty"`
	Failed bool   `json:"failed,omitempty"`
	// Output is the end of what the command wrote (standard output and
	// error together), at most 4 KiB.
	Output   string `json:"output,omitempty"`
	Runs     uint64 `json:"runs"`
	Failures uint64 `json:"failures"`
	// Skipped counts the runs not made: the action still ran, or ran
	// within its rate limit (-arl).
	Skipped uint64 `json:"skipped"`
}

// ReadActivity reads the status file of the set name in the state
// directory dir; nil, nil when there is none. The command lines and
// output of its runs come from the private status file, which only the
// set's owner and root may read: for another reader they are left empty
// and PrivateHidden is set.
func ReadActivity(dir, name string) (*Activity, error) {
	b, err := state.ReadRunFile(dir, name, state.StatusSuffix)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(b) > maxStatus {
		return nil, fmt.Errorf("status file of Data Collector Set %q in %s is larger than %d bytes", name, dir, maxStatus)
	}
	var a Activity
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("status file of Data Collector Set %q in %s/run: %v", name, dir, err)
	}
	b, err = state.ReadRunFile(dir, name, state.PrivateStatusSuffix)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, fs.ErrPermission):
		a.PrivateHidden = len(a.Actions) > 0
	case err != nil:
		return nil, err
	default:
		var runs []privateRun
		if err := json.Unmarshal(b, &runs); err != nil {
			return nil, fmt.Errorf("private status file of Data Collector Set %q in %s/run: %v", name, dir, err)
		}
		for _, r := range runs {
			if i := slices.IndexFunc(a.Actions, func(x ActionRun) bool { return x.Action == r.Action }); i >= 0 {
				a.Actions[i].Command, a.Actions[i].Output = r.Command, r.Output
			}
		}
	}
	return &a, nil
}

// privateRun is what the private status file keeps of one action's
// latest run.
type privateRun struct {
	Action  string   `json:"action"`
	Command []string `json:"command,omitempty"`
	Output  string   `json:"output,omitempty"`
}

// activity is a running set's Activity, written to its status file as
// it changes. It is safe for concurrent use: commands end in goroutines
// of their own.
type activity struct {
	mu   sync.Mutex
	dir  string
	a    Activity
	warn func(string)
}

func newActivity(dir, name string, warn func(string)) *activity {
	return &activity{dir: dir, a: Activity{Set: name}, warn: warn}
}

// update changes the activity under its lock and writes it.
func (ac *activity) update(f func(a *Activity)) {
	ac.mu.Lock()
	defer ac.mu.Unlock()
	f(&ac.a)
	ac.a.Updated = time.Now()
	// The command lines and output go to the private status file (mode
	// 0600), written first; the status file every user may read holds
	// the rest.
	pub := ac.a
	pub.Actions = slices.Clone(ac.a.Actions)
	private := make([]privateRun, 0, len(pub.Actions))
	for i := range pub.Actions {
		r := &pub.Actions[i]
		if len(r.Command) > 0 || r.Output != "" {
			private = append(private, privateRun{Action: r.Action, Command: r.Command, Output: r.Output})
		}
		r.Command, r.Output = nil, ""
	}
	var err error
	if len(private) > 0 {
		var b []byte
		if b, err = json.MarshalIndent(private, "", " "); err == nil {
			err = state.WriteRunFile(ac.dir, ac.a.Set, state.PrivateStatusSuffix, append(b, '\n'))
		}
	}
	if err == nil {
		var b []byte
		if b, err = json.MarshalIndent(&pub, "", " "); err == nil {
			err = state.WriteRunFile(ac.dir, ac.a.Set, state.StatusSuffix, append(b, '\n'))
		}
	}
	if err != nil && ac.warn != nil {
		ac.warn("writing the status file: " + err.Error())
	}
}

// action returns the run record of the action named (created when
// missing). The lock is held.
func (a *Activity) action(name string) *ActionRun {
	for i := range a.Actions {
		if a.Actions[i].Action == name {
			return &a.Actions[i]
		}
	}
	a.Actions = append(a.Actions, ActionRun{Action: name})
	return &a.Actions[len(a.Actions)-1]
}

// addEvent appends an event, dropping the oldest past MaxEvents.
func (a *Activity) addEvent(e AlertEvent) {
	if len(a.Events) >= MaxEvents {
		a.Events = append(a.Events[:0], a.Events[len(a.Events)-MaxEvents+1:]...)
	}
	a.Events = append(a.Events, e)
}

// sortAlerts orders alert states by threshold, then counter.
func sortAlerts(s []AlertState) {
	slices.SortFunc(s, func(a, b AlertState) int {
		if c := strings.Compare(a.Threshold, b.Threshold); c != 0 {
			return c
		}
		return strings.Compare(a.Counter, b.Counter)
	})
}
