package collectorset

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/perfcounters/perfcounters/counterpath"
)

// Alerts is a set's alert collector (MS-PLA IAlertDataCollector): counter
// thresholds judged at each sample, and what to do each time one is past
// its limit. A set holds either a counter collector or an alert
// collector (Set.Alert).
//
// Windows' meaning is the default: every sample in which a counter is past
// its threshold is a firing, and each firing writes the event (EventLog),
// runs the task (Task with TaskArguments) and starts the triggered set.
// Hold, Hysteresis, OnChange and ActionInterval are perfc's own, from
// pmie's and Prometheus' rules; absent (zero) they change nothing of
// Windows' meaning.
type Alerts struct {
	Name string // the collector's name; logman names it as the set
	// Thresholds are the counter paths with their limits, as written:
	// PATH>VALUE or PATH<VALUE (-th). A path with wildcards judges every
	// instance it matches, each on its own.
	Thresholds []string
	// EventLog writes an event each time a threshold is crossed (-el).
	EventLog bool
	// SampleInterval is in seconds (-si).
	SampleInterval uint32
	// Task is the command run each time a threshold is crossed (-tn);
	// TaskArguments its arguments (-targ), in which {counter}, {date},
	// {name}, {threshold}, {usertext} and {value} are replaced;
	// TaskUserTextArguments the text {usertext} stands for.
	Task                  string
	TaskArguments         string
	TaskUserTextArguments string
	TaskRunAsSelf         bool
	// TriggerDataCollectorSet names a set of the same owner started each
	// time a threshold is crossed (-rdcs).
	TriggerDataCollectorSet string
	// Hold is how many consecutive samples a counter must be past its
	// threshold before the alert fires (-hold; 0 and 1: the first).
	Hold uint32
	// Hysteresis is how far back past its threshold a counter must come
	// before a fired alert clears (-hyst; 0: as soon as it is no longer
	// past it).
	Hysteresis float64
	// OnChange makes a change of firing state (fired, cleared) the unit
	// of an action instead of every sample past the threshold
	// (-onchange): the task runs when the alert fires and when it clears.
	OnChange bool
	// ActionInterval is the least time, in seconds, between two runs of
	// one action (the task, the triggered set; -arl); 0: no limit.
	ActionInterval uint32
}

// Threshold is one alert threshold: a counter path, the direction and the
// limit.
type Threshold struct {
	Path  string // the counter path as written
	Above bool   // PATH>VALUE; false: PATH<VALUE
	Value float64
}

// ParseThreshold reads PATH>VALUE or PATH<VALUE, the form of logman's
// -th and MS-PLA's Alert element. The operator is the last '>' or '<'
// (an instance name may hold either); blanks around it are allowed.
func ParseThreshold(s string) (Threshold, error) {
	i := strings.LastIndexAny(s, "<>")
	if i < 0 {
		return Threshold{}, fmt.Errorf("threshold %q: want COUNTER>VALUE or COUNTER<VALUE", s)
	}
	path, num := strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:])
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return Threshold{}, fmt.Errorf("threshold %q: %q is not a number", s, num)
	}
	if _, err := counterpath.Parse(path); err != nil {
		return Threshold{}, fmt.Errorf("threshold %q: %v", s, err)
	}
	return Threshold{Path: path, Above: s[i] == '>', Value: v}, nil
}

// Op is the threshold's operator: ">" or "<".
func (t Threshold) Op() string {
	if t.Above {
		return ">"
	}
	return "<"
}

// String writes the threshold as ParseThreshold reads it.
func (t Threshold) String() string {
	return t.Path + t.Op() + strconv.FormatFloat(t.Value, 'f', -1, 64)
}

// Past reports whether v is past the threshold.
func (t Threshold) Past(v float64) bool {
	if t.Above {
		return v > t.Value
	}
	return v < t.Value
}

// Back reports whether v has come back from the threshold by at least
// hyst: a fired alert clears then.
func (t Threshold) Back(v, hyst float64) bool {
	if t.Above {
		return v <= t.Value-hyst
	}
	return v >= t.Value+hyst
}

// ParsedThresholds returns the collector's thresholds parsed.
func (a *Alerts) ParsedThresholds() ([]Threshold, error) {
	out := make([]Threshold, 0, len(a.Thresholds))
	var errs []error
	for _, s := range a.Thresholds {
		t, err := ParseThreshold(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, t)
	}
	return out, errors.Join(errs...)
}

// MaxThresholds bounds the thresholds of one alert collector.
const MaxThresholds = 10000

// validate checks an alert collector's thresholds and settings.
func (a *Alerts) validate(setName string) []error {
	var errs []error
	if len(a.Thresholds) == 0 {
		errs = append(errs, errors.New("an alert needs at least one threshold (-th COUNTER>VALUE)"))
	}
	if len(a.Thresholds) > MaxThresholds {
		errs = append(errs, fmt.Errorf("%d thresholds: at most %d", len(a.Thresholds), MaxThresholds))
	} else if _, err := a.ParsedThresholds(); err != nil {
		errs = append(errs, err)
	}
	if a.SampleInterval < MinSampleInterval {
		errs = append(errs, fmt.Errorf("sample interval %d: must be at least %d second", a.SampleInterval, MinSampleInterval))
	}
	if math.IsNaN(a.Hysteresis) || math.IsInf(a.Hysteresis, 0) || a.Hysteresis < 0 {
		errs = append(errs, fmt.Errorf("hysteresis %v: want a number of at least 0", a.Hysteresis))
	}
	if a.Task == "" && (a.TaskArguments != "" || a.TaskUserTextArguments != "") {
		errs = append(errs, errors.New("task arguments (-targ) without a task (-tn)"))
	}
	if strings.ContainsRune(a.Task, 0) || strings.ContainsRune(a.TaskArguments, 0) || strings.ContainsRune(a.TaskUserTextArguments, 0) {
		errs = append(errs, errors.New("the task or its arguments hold a NUL character"))
	}
	if t := a.TriggerDataCollectorSet; t != "" {
		if err := CheckName(t); err != nil {
			errs = append(errs, fmt.Errorf("-rdcs: %v", err))
		} else if SameName(t, setName) {
			errs = append(errs, fmt.Errorf("-rdcs %s: an alert set cannot start itself", t))
		}
	}
	return errs
}

// Substitute replaces Windows' alert substitution variables in a task's
// argument text: {counter}, {date}, {name}, {threshold}, {usertext} and
// {value}. Braces escaped with a backslash (\{name\}), as Windows asks
// for them in TaskArguments, are read as plain braces first. A variable
// it does not know is left as written.
func Substitute(text string, vars map[string]string) string {
	text = strings.NewReplacer(`\{`, "{", `\}`, "}").Replace(text)
	var b strings.Builder
	for {
		i := strings.IndexByte(text, '{')
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		j := strings.IndexByte(text[i:], '}')
		if j < 0 {
			b.WriteString(text)
			return b.String()
		}
		name := strings.ToLower(text[i+1 : i+j])
		b.WriteString(text[:i])
		if v, ok := vars[name]; ok {
			b.WriteString(v)
		} else {
			b.WriteString(text[i : i+j+1])
		}
		text = text[i+j+1:]
	}
}

// SplitArgs splits a command line into words as Windows' command line
// rules do for the common cases: blanks separate words, double quotes
// group blanks into a word, and a backslash before a double quote makes
// it literal. No shell reads it: no variable, glob or redirection is
// expanded.
func SplitArgs(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && s[i+1] == '"':
			cur.WriteByte('"')
			inWord = true
			i++
		case c == '"':
			quoted = !quoted
			inWord = true
		case (c == ' ' || c == '\t') && !quoted:
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("command line %q: a double quote is not closed", s)
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}
