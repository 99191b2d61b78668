package pla

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/perfcounters/perfcounters/state"
)

// Bounds of a set's warning log (run/NAME.log in its owner's state
// directory, shown by `logman query NAME`).
const (
	// WarningLogLimit bounds the file: past it, its oldest lines go.
	WarningLogLimit = 64 << 10
	// repeatEvery is how often a warning that keeps coming (a counter
	// missing from every sample) is written again, with its count.
	repeatEvery = 10 * time.Minute
	// maxWarning bounds one warning's text, in bytes.
	maxWarning = 2 << 10
	// maxDistinct bounds the warnings whose repeats are counted.
	maxDistinct = 256
)

// WarningTimeLayout is the time at the start of each line of a warning
// log, as logman query words times.
const WarningTimeLayout = "1/2/2006 3:04:05 PM"

// WarningLog writes the warnings of one set's collector into the set's
// warning log, where the operator sees them (`logman query NAME`); a
// background collector has no terminal. A warning repeated within
// repeatEvery is counted, not written, and written again with its count
// after. It is safe for concurrent use.
type WarningLog struct {
	dir, name string
	// also receives every warning too (the collector service's
	// standard error, the journal under systemd); nil: none.
	also func(string)
	now  func() time.Time
	mu   sync.Mutex
	seen map[string]*repeated
	// failed is set once writing the log failed: the failure is told
	// to also once, not at every warning.
	failed bool
}

type repeated struct {
	last  time.Time // when it was last written
	count int       // times since, not written
}

// NewWarningLog returns the warning log of the set name of the state
// directory dir; also, when not nil, receives each warning as well.
func NewWarningLog(dir, name string, also func(string)) *WarningLog {
	return &WarningLog{dir: dir, name: name, also: also, now: time.Now, seen: map[string]*repeated{}}
}

// Warn records msg.
func (l *WarningLog) Warn(msg string) {
	if l == nil {
		return
	}
	if l.also != nil {
		l.also(msg)
	}
	msg = strings.Join(strings.Fields(msg), " ") // one line
	if len(msg) > maxWarning {
		msg = msg[:maxWarning] + "..."
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	line := msg
	if r, ok := l.seen[msg]; ok {
		if now.Sub(r.last) < repeatEvery {
			r.count++
			return
		}
		if r.count > 0 {
			line += repeats(r)
		}
		r.last, r.count = now, 0
	} else {
		if len(l.seen) >= maxDistinct {
			clear(l.seen)
		}
		l.seen[msg] = &repeated{last: now}
	}
	err := state.AppendRunLog(l.dir, l.name, []byte(now.Local().Format(WarningTimeLayout)+"  "+line+"\n"), WarningLogLimit)
	if err != nil && !l.failed && l.also != nil {
		l.failed = true
		l.also(fmt.Sprintf("the warning log of Data Collector Set %q: %v", l.name, err))
	}
}

// Flush writes the counts of the warnings repeated since they were last
// written (at the end of a run).
func (l *WarningLog) Flush() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	var b []byte
	for msg, r := range l.seen {
		if r.count > 0 {
			b = fmt.Appendf(b, "%s  %s%s\n", now.Local().Format(WarningTimeLayout), msg, repeats(r))
			r.last, r.count = now, 0
		}
	}
	if len(b) == 0 {
		return
	}
	if err := state.AppendRunLog(l.dir, l.name, b, WarningLogLimit); err != nil && !l.failed && l.also != nil {
		l.failed = true
		l.also(fmt.Sprintf("the warning log of Data Collector Set %q: %v", l.name, err))
	}
}

// repeats words the count of a warning's repeats since it was written.
func repeats(r *repeated) string {
	times := "times"
	if r.count == 1 {
		times = "time"
	}
	return fmt.Sprintf(" (%d more %s since %s)", r.count, times, r.last.Local().Format(WarningTimeLayout))
}
