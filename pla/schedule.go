package pla

import (
	"time"

	"github.com/perfcounters/perfcounters/collectorset"
)

// Window is one run of a set: from Start until Stop (zero: until it is
// stopped).
type Window struct {
	Start, Stop time.Time
}

// Open reports whether the window is open at t.
func (w Window) Open(t time.Time) bool {
	return !w.Start.After(t) && (w.Stop.IsZero() || t.Before(w.Stop))
}

// maxLookback bounds how many days before t NextWindow looks for a window
// still open at t (a Duration is at most 2^32-1 seconds, about 49,710
// days).
const maxLookback = 50000

// NextWindow returns the run window of s that is open at t, or else the
// first that opens after t; ok is false when s has no enabled schedule or
// none opens at or after t. Each schedule starts the set at its StartTime
// on each of its Days from its StartDate to its EndDate (none: no end),
// and each run lasts the set's Duration (0: until stopped, so the latest
// start at or before t is open). Of several windows open at t the one
// that started last wins; of future ones the first. It is a pure
// function of its arguments.
func NextWindow(s *collectorset.Set, t time.Time) (Window, bool) {
	if !s.SchedulesEnabled {
		return Window{}, false
	}
	dur := time.Duration(s.Duration) * time.Second
	var open, next Window
	var haveOpen, haveNext bool
	for _, sc := range s.Schedules {
		if sc.StartDate.IsZero() || sc.Days&collectorset.Everyday == 0 {
			continue
		}
		loc := sc.StartDate.Location()
		tl := t.In(loc)
		// Runs open at t started at most dur (or, without a duration, a
		// week: every weekday recurs in one) before t.
		back := int(dur/(24*time.Hour)) + 1
		if dur == 0 {
			back = 7
		}
		back = min(back, maxLookback)
		from := collectorset.DateOf(tl)
		if !sc.EndDate.IsZero() && sc.EndDate.Before(from) {
			from = collectorset.DateOf(sc.EndDate.In(loc))
		}
		y, m, d := from.Date()
		first := time.Date(y, m, d-back, 0, 0, 0, 0, loc)
		if first.Before(sc.StartDate) {
			first = collectorset.DateOf(sc.StartDate.In(loc))
		}
		fy, fm, fd := first.Date()
		for i := 0; i <= back+8; i++ {
			day := time.Date(fy, fm, fd+i, 0, 0, 0, 0, loc)
			if !sc.EndDate.IsZero() && day.After(sc.EndDate) {
				break
			}
			if sc.Days&collectorset.Day(day.Weekday()) == 0 {
				continue
			}
			w := Window{Start: day.Add(sc.StartTime)}
			if dur > 0 {
				w.Stop = w.Start.Add(dur)
			}
			switch {
			case w.Open(t):
				if !haveOpen || w.Start.After(open.Start) {
					open, haveOpen = w, true
				}
			case w.Start.After(t):
				if !haveNext || w.Start.Before(next.Start) {
					next, haveNext = w, true
				}
			}
			if w.Start.After(t) {
				break // later days of this schedule start later still
			}
		}
	}
	if haveOpen {
		return open, true
	}
	return next, haveNext
}
