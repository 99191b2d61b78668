package logman

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/pla"
)

// privateNote stands where logman query would show what only a set's
// owner and root may read (collectorset.Private, the runs' command lines
// and output).
const privateNote = "shown to the set's owner and root only"

// timeLayout is how logman query words times.
const timeLayout = "1/2/2006 3:04:05 PM"

func when(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.Local().Format(timeLayout)
}

// writeAlert writes an alert set's collector in `logman query NAME`'s
// Key: form, then its thresholds.
func writeAlert(b *strings.Builder, key func(k, v string), s *collectorset.Set, a *collectorset.Alerts) {
	b.WriteString("\n")
	key("Name", s.Name+`\`+a.Name)
	key("Type", "Alert")
	key("Sample Interval", fmt.Sprint(a.SampleInterval))
	key("Event Log", onOff(a.EventLog))
	if a.Task != "" {
		key("Task", a.Task)
		switch {
		case s.PrivateHidden:
			key("Task Arguments", privateNote)
		default:
			key("Task Arguments", a.TaskArguments)
			if a.TaskUserTextArguments != "" {
				key("Task User Text", a.TaskUserTextArguments)
			}
		}
	}
	if a.TriggerDataCollectorSet != "" {
		key("Start Set", a.TriggerDataCollectorSet)
	}
	if a.Hold > 1 {
		key("Hold", fmt.Sprintf("%d samples", a.Hold))
	}
	if a.Hysteresis > 0 {
		key("Hysteresis", strconv.FormatFloat(a.Hysteresis, 'f', -1, 64))
	}
	if a.OnChange {
		key("Act On", "a change of state (fired, cleared)")
	} else {
		key("Act On", "each sample past a threshold")
	}
	if a.ActionInterval > 0 {
		key("Action Rate Limit", "one run per "+collectorset.FormatSeconds(a.ActionInterval))
	}
	b.WriteString("\nThresholds:\n")
	for _, t := range a.Thresholds {
		b.WriteString("    " + t + "\n")
	}
}

// shownAlerts and shownEvents bound what logman query NAME lists of an
// alert's state (the status file holds it all).
const (
	shownAlerts = 50
	shownEvents = 10
)

// writeAlertState writes the alert's state as its collector last wrote
// it: each threshold and instance with its last value, whether it fires,
// when it last fired and how often, then the newest events.
func writeAlertState(b *strings.Builder, act *pla.Activity, err error) {
	switch {
	case err != nil:
		b.WriteString("\nAlert State: " + err.Error() + "\n")
		return
	case act == nil || len(act.Alerts) == 0:
		b.WriteString("\nAlert State: not judged yet (the set has not run)\n")
		return
	}
	fmt.Fprintf(b, "\nAlert State (as of %s):\n", when(act.Updated))
	for i, s := range act.Alerts {
		if i == shownAlerts {
			fmt.Fprintf(b, "    ... and %d more\n", len(act.Alerts)-shownAlerts)
			break
		}
		state := "clear"
		if s.Firing {
			state = "FIRING"
		}
		fmt.Fprintf(b, "    %s  %s\n        value %f at %s; fired %d times, last %s", s.Counter, state, s.Value, when(s.Sampled), s.Fired, when(s.LastFired))
		if !s.LastCleared.IsZero() {
			fmt.Fprintf(b, "; last cleared %s", when(s.LastCleared))
		}
		fmt.Fprintf(b, "\n        threshold %s\n", s.Threshold)
	}
	if len(act.Events) == 0 {
		return
	}
	ev := act.Events
	if len(ev) > shownEvents {
		ev = ev[len(ev)-shownEvents:]
	}
	fmt.Fprintf(b, "\nEvents (the newest %d of %d kept):\n", len(ev), len(act.Events))
	for _, e := range ev {
		fmt.Fprintf(b, "    %s  %s  %s\n", when(e.Time), e.Kind, e.Message)
	}
}

// writeActions writes the latest run of each of the set's commands (an
// alert's task and triggered set, a counter set's -rc) and how many runs
// failed.
func writeActions(b *strings.Builder, act *pla.Activity) {
	if act == nil || len(act.Actions) == 0 {
		return
	}
	b.WriteString("\nActions:\n")
	if act.PrivateHidden {
		b.WriteString("    (command lines and output: " + privateNote + ")\n")
	}
	for _, r := range act.Actions {
		what := map[string]string{"task": "Task", "trigger": "Start Set", "rc": "Run Command"}[r.Action]
		if what == "" {
			what = r.Action
		}
		fmt.Fprintf(b, "    %s: %d runs, %d failed, %d skipped\n", what, r.Runs, r.Failures, r.Skipped)
		if len(r.Command) > 0 {
			fmt.Fprintf(b, "        last: %s\n", strconv.Quote(strings.Join(r.Command, " ")))
		}
		switch {
		case r.Running:
			fmt.Fprintf(b, "        running since %s\n", when(r.Started))
		case !r.Started.IsZero() || r.Result != "":
			res := r.Result
			if r.Failed {
				res = "FAILED: " + res
			}
			fmt.Fprintf(b, "        %s: %s\n", when(r.Started), res)
		}
		if out := strings.TrimRight(r.Output, "\n"); out != "" {
			for _, l := range strings.Split(out, "\n") {
				b.WriteString("        | " + l + "\n")
			}
		}
	}
}
