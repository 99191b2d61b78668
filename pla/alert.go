package pla

import (
	"context"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/pdh"
)

// AlertValueOptions are how an alert formats a counter's value before it
// compares it with a threshold: the value typeperf prints (a double, not
// multiplied by the counter's display scale, percentages capped at 100
// as PDH caps them).
const AlertValueOptions = calc.FmtDouble | calc.FmtNoScale

// EventLogger receives the events of alert sets with -el (Windows'
// Microsoft-Windows-Diagnosis-PLA/Operational event 2031): the program
// sends them to syslog, which the journal keeps.
type EventLogger func(set string, e AlertEvent) error

// alertOutput judges an alert set's thresholds at each sample: the
// output of a set whose collector is an alert collector. It writes no
// log; its state and events go to the set's activity.
//
// Its state table (state) holds one entry for each threshold and
// instance of the latest sample: an instance gone (a process ended)
// takes its entry with it before a new instance takes a place. The
// table holds at most MaxAlertStates entries. Past it, a new instance
// takes the place of an entry with nothing to remember (not firing, not
// past its threshold: judging it afresh gives the same), whose counts
// and times go; when every entry has something to remember, the new
// instance is judged without its history (as at its first sample, so
// a Hold of more than one sample never fires it) and the set's warning
// log says so. No instance is left unjudged.
type alertOutput struct {
	set   *collectorset.Set
	th    []collectorset.Threshold
	paths map[string][]int // a counter's path as added -> its thresholds
	state map[string]*alertEntry
	act   *activity
	run   *actions
	log   EventLogger
	warn  func(string)
	// start starts the triggered set (-rdcs) of the alert's owner.
	start func(name string) error
	items []pdh.Item
	// judged are the current sample's values, in order, each with its
	// entry (nil: a new instance); idle the keys of entries that may
	// give their place (room), found once a sample when the table is
	// full.
	judged  []judgedValue
	idle    []string
	idleSet bool
}

// judgedValue is one threshold's value of one instance in a sample.
type judgedValue struct {
	key, counter string
	th           int
	value        float64
	e            *alertEntry
}

// alertEntry is the judging state of one threshold for one instance.
type alertEntry struct {
	th      int
	counter string
	past    uint32
	firing  bool
	value   float64
	sampled time.Time
	fired   uint64
	lastF   time.Time
	lastC   time.Time
	seen    bool // in the current sample
}

// msgAlertTableFull is the warning of an alert set whose state table is
// full of instances past their thresholds or firing: the new ones are
// judged without their history.
const msgAlertTableFull = "the alert judges more than " + maxAlertStatesText + " threshold and instance pairs past their thresholds or firing: the newest are judged without their history (hold, firing state)"

// maxAlertStatesText is MaxAlertStates in decimal (TestAlertTableFullMessage).
const maxAlertStatesText = "2000"

// newAlertOutput judges the thresholds of s. raw are the distinct paths
// of its thresholds (alertPaths) and routed the same paths as the set's
// query adds them (with the computer they are read from): a counter of
// the query finds its thresholds by either.
func newAlertOutput(s *collectorset.Set, act *activity, run *actions, log EventLogger, start func(string) error, warn func(string), raw, routed []string) (*alertOutput, error) {
	th, err := s.Alert.ParsedThresholds()
	if err != nil {
		return nil, err
	}
	o := &alertOutput{set: s, th: th, paths: map[string][]int{}, state: map[string]*alertEntry{}, act: act, run: run, log: log, start: start, warn: warn}
	for i, t := range th {
		o.paths[t.Path] = append(o.paths[t.Path], i)
	}
	for i := range min(len(raw), len(routed)) {
		if routed[i] != raw[i] {
			o.paths[routed[i]] = o.paths[raw[i]]
		}
	}
	return o, nil
}

// counterPaths are the distinct counter paths of the thresholds, which
// the set's query adds.
func alertPaths(s *collectorset.Set) []string {
	th, _ := s.Alert.ParsedThresholds()
	var out []string
	seen := map[string]bool{}
	for _, t := range th {
		if !seen[t.Path] {
			seen[t.Path] = true
			out = append(out, t.Path)
		}
	}
	return out
}

func (o *alertOutput) gap(time.Time, string) error { return nil }
func (o *alertOutput) close() error                { return nil }
func (o *alertOutput) location() string            { return "" }

// write judges every threshold against the query's latest sample.
func (o *alertOutput) write(_ context.Context, q *pdh.Query) error {
	now := q.Time()
	if now.IsZero() {
		now = time.Now()
	}
	a := o.set.Alert
	hold := max(a.Hold, 1)
	var fired, cleared, gone []*alertEntry
	for _, e := range o.state {
		e.seen = false
	}
	o.judged = o.judged[:0]
	for _, c := range q.Counters() {
		idx := o.paths[c.Path().String()]
		if len(idx) == 0 {
			idx = o.paths[pathText(c.Path())]
		}
		o.items = c.AppendFormattedArray(o.items[:0], AlertValueOptions)
		for _, it := range o.items {
			if !it.Value.HasValue() {
				continue
			}
			counter := it.Path.String()
			for _, i := range idx {
				key := strconv.Itoa(i) + "\x00" + counter
				e := o.state[key]
				if e != nil {
					e.seen = true
				}
				o.judged = append(o.judged, judgedValue{key: key, counter: counter, th: i, value: it.Value.Double, e: e})
			}
		}
	}
	// An instance gone (a process ended) takes its state with it, before
	// the new instances take their places.
	for k, e := range o.state {
		if !e.seen {
			if e.firing {
				e.firing, e.lastC = false, now
				gone = append(gone, e)
			}
			delete(o.state, k)
		}
	}
	o.idle, o.idleSet = o.idle[:0], false
	full := false
	for _, j := range o.judged {
		e := j.e
		if e == nil {
			if e = o.state[j.key]; e == nil { // not added by a value before
				e = &alertEntry{th: j.th, counter: j.counter}
				if o.room() {
					o.state[j.key] = e
				} else {
					full = true // judged without its history
				}
			}
		}
		e.seen, e.value, e.sampled = true, j.value, now
		t := o.th[j.th]
		v := j.value
		switch {
		case e.firing && t.Back(v, a.Hysteresis):
			e.firing, e.past, e.lastC = false, 0, now
			cleared = append(cleared, e)
		case t.Past(v):
			e.past++
			if e.past >= hold && (!e.firing || !a.OnChange) {
				e.firing, e.lastF = true, now
				e.fired++
				fired = append(fired, e)
			}
		case !e.firing:
			e.past = 0
		}
	}
	cleared = append(cleared, gone...)
	if full && o.warn != nil {
		o.warn(msgAlertTableFull)
	}
	o.act.update(func(x *Activity) {
		x.Alerts = x.Alerts[:0]
		for _, e := range o.state {
			x.Alerts = append(x.Alerts, AlertState{Threshold: a.Thresholds[e.th], Counter: e.counter, Firing: e.firing, Past: e.past,
				Value: e.value, Sampled: e.sampled, LastFired: e.lastF, LastCleared: e.lastC, Fired: e.fired})
		}
		sortAlerts(x.Alerts)
		for _, e := range fired {
			x.addEvent(o.event(e, "fired", now))
		}
		for _, e := range cleared {
			x.addEvent(o.event(e, "cleared", now))
		}
	})
	for _, e := range fired {
		o.act1(e, "fired", now)
	}
	if a.OnChange {
		for _, e := range cleared {
			o.act1(e, "cleared", now)
		}
	}
	return nil
}

// room reports whether the state table has a place for one more entry,
// making one when it is full by dropping an entry with nothing to
// remember (see alertOutput).
func (o *alertOutput) room() bool {
	if len(o.state) < MaxAlertStates {
		return true
	}
	if !o.idleSet {
		o.idleSet = true
		for k, e := range o.state {
			if !e.firing && e.past == 0 {
				o.idle = append(o.idle, k)
			}
		}
	}
	for len(o.idle) > 0 {
		k := o.idle[len(o.idle)-1]
		o.idle = o.idle[:len(o.idle)-1]
		if e := o.state[k]; e != nil && !e.firing && e.past == 0 {
			delete(o.state, k)
			return true
		}
	}
	return false
}

// pathText is a path as a threshold names it: without the computer
// name of this computer.
func pathText(p counterpath.Path) string {
	p.Machine = ""
	return p.String()
}

// event words a firing or clear as Windows' event 2031 words a firing.
func (o *alertOutput) event(e *alertEntry, kind string, now time.Time) AlertEvent {
	t := o.th[e.th]
	var msg string
	switch {
	case kind == "fired" && t.Above:
		msg = fmt.Sprintf("Performance counter %s has tripped its alert threshold. The counter value of %f is over the limit value of %f. %f is the alert threshold value.", e.counter, e.value, t.Value, t.Value)
	case kind == "fired":
		msg = fmt.Sprintf("Performance counter %s has tripped its alert threshold. The counter value of %f is under the limit value of %f. %f is the alert threshold value.", e.counter, e.value, t.Value, t.Value)
	default:
		msg = fmt.Sprintf("Performance counter %s is back within its alert threshold %s%f: the counter value is %f.", e.counter, t.Op(), t.Value, e.value)
	}
	return AlertEvent{Time: now, Kind: kind, Counter: e.counter, Threshold: o.set.Alert.Thresholds[e.th], Value: e.value, Message: msg}
}

// act1 does what a firing (or, with -onchange, a clear) asks for: the
// event, the task, the triggered set.
func (o *alertOutput) act1(e *alertEntry, kind string, now time.Time) {
	a := o.set.Alert
	if a.EventLog && o.log != nil {
		if err := o.log(o.set.Name, o.event(e, kind, now)); err != nil && o.warn != nil {
			o.warn("writing the alert's event to the system log: " + err.Error())
		}
	}
	if a.Task != "" {
		argv, env, err := o.taskCommand(e, kind, now)
		if err != nil {
			o.act.update(func(x *Activity) {
				r := x.action("task")
				r.Result, r.Failed = "could not start: "+err.Error(), true
				r.Failures++
			})
		} else {
			o.run.command("task", argv, env)
		}
	}
	if name := a.TriggerDataCollectorSet; name != "" && kind == "fired" && o.start != nil {
		o.run.do("trigger", "start "+name, func() error { return o.start(name) })
	}
}

// maxTaskCounter bounds, in bytes, the counter path a task gets ({counter}
// in its words, $PERFC_ALERT_COUNTER): another user names the instance
// (a process's argv[0]), and the kernel refuses a command whose one
// argument passes 128 KiB ("argument list too long"). Names made on this
// host are at most 1,024 bytes (proctext.MaxInstanceName), at most 3 KiB
// escaped in a path; a computer's or a provider's may be longer, and is
// cut on a rune boundary.
const maxTaskCounter = 8 << 10

// cutPath cuts a counter path (UTF-8: counterpath escapes every other
// byte) to at most n bytes, on a rune boundary.
func cutPath(p string, n int) string {
	if len(p) <= n {
		return p
	}
	for n > 0 && !utf8.RuneStart(p[n]) {
		n--
	}
	return p[:n]
}

// taskCommand is the task's command line and environment for a firing
// (or, with -onchange, a clear) of e.
func (o *alertOutput) taskCommand(e *alertEntry, kind string, now time.Time) (argv, env []string, err error) {
	a := o.set.Alert
	t := o.th[e.th]
	counter := cutPath(e.counter, maxTaskCounter)
	vars := map[string]string{
		"counter":   counter,
		"date":      now.Local().Format("1/2/2006 3:04:05 PM"),
		"name":      a.Name,
		"threshold": strconv.FormatFloat(t.Value, 'f', 6, 64),
		"value":     strconv.FormatFloat(e.value, 'f', 6, 64),
		"state":     kind,
	}
	vars["usertext"] = collectorset.Substitute(a.TaskUserTextArguments, vars)
	argv, err = taskArgv(a.Task, a.TaskArguments, vars)
	if err != nil {
		return nil, nil, err
	}
	return argv, []string{
		"PERFC_ALERT_SET=" + o.set.Name, "PERFC_ALERT_NAME=" + a.Name, "PERFC_ALERT_COUNTER=" + counter,
		"PERFC_ALERT_VALUE=" + vars["value"], "PERFC_ALERT_THRESHOLD=" + a.Thresholds[e.th],
		"PERFC_ALERT_DATE=" + now.UTC().Format(time.RFC3339), "PERFC_ALERT_STATE=" + kind,
	}, nil
}

// taskArgv is the command line of a task: the words of the task (-tn)
// then those of its arguments (-targ), each word with the firing's
// values substituted in it. A value never splits into more words, so a
// counter's instance name cannot add arguments.
func taskArgv(task, args string, vars map[string]string) ([]string, error) {
	words, err := collectorset.SplitArgs(task)
	if err != nil {
		return nil, err
	}
	more, err := collectorset.SplitArgs(args)
	if err != nil {
		return nil, err
	}
	argv := append(words, more...)
	for i, w := range argv {
		argv[i] = collectorset.Substitute(w, vars)
	}
	return argv, nil
}
