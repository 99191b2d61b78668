package collectorset

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ResourcePolicy says which of a set's logs its data manager deletes
// first when a limit is passed (MS-PLA ResourcePolicy).
type ResourcePolicy uint32

// The resource policies, with MS-PLA's values.
const (
	DeleteLargest ResourcePolicy = 0
	DeleteOldest  ResourcePolicy = 1
)

// String is the policy as `logman query NAME` shows it.
func (p ResourcePolicy) String() string {
	switch p {
	case DeleteLargest:
		return "Delete largest"
	case DeleteOldest:
		return "Delete oldest"
	}
	return fmt.Sprintf("ResourcePolicy(%d)", uint32(p))
}

// FolderActionSteps are what a folder action does (MS-PLA
// FolderActionSteps, bit flags), in this order.
type FolderActionSteps uint32

// The folder action steps, with MS-PLA's values.
const (
	CreateCab    FolderActionSteps = 0x1  // make NAME.cab of the folder
	DeleteData   FolderActionSteps = 0x2  // delete the folder's files but the report and the CAB
	SendCab      FolderActionSteps = 0x4  // send the CAB to SendCabTo
	DeleteCab    FolderActionSteps = 0x8  // delete the CAB
	DeleteReport FolderActionSteps = 0x10 // delete the report
)

// FolderAction is an action a set's data manager takes on each folder of
// its logs (on Linux: each log file) at least Age days old and at least
// Size MB large (MS-PLA IFolderAction; 0 excludes none).
type FolderAction struct {
	Age, Size uint32
	Actions   FolderActionSteps
	SendCabTo string
}

// Deletes reports whether the action only deletes data: perfc makes no
// CAB files, so an action that makes or sends one is kept as read and not
// done (deleting the data without its CAB would lose it).
func (a FolderAction) Deletes() bool {
	return a.Actions&DeleteData != 0 && a.Actions&(CreateCab|SendCab) == 0
}

// MaxFolderActionDays is the longest folder action age perfc takes: the
// longest -retain age (MaxAge's 32-bit seconds, about 136 years) in whole
// days. CheckRunnable refuses a longer one.
const MaxFolderActionDays = uint32(maxRetainAge / (24 * time.Hour))

// AgeDuration is the action's Age as a duration, saturated: an age past
// what a time.Duration holds (106,751 days) is the longest one, which no
// file reaches, never a wrapped (negative) duration that every file does.
func (a FolderAction) AgeDuration() time.Duration {
	const day = 24 * time.Hour
	if time.Duration(a.Age) > math.MaxInt64/day {
		return math.MaxInt64
	}
	return time.Duration(a.Age) * day
}

// Retention is what perfc's -retain option says of a set's data manager:
// limits on the set's log files, which go first, and whether a set that
// cannot meet them starts. The zero Retention keeps everything.
type Retention struct {
	// Files keeps at most this many log files, the one being written
	// included (MaxFolderCount); 0: no limit.
	Files uint32
	// Age deletes logs last written longer ago. Whole days are an MS-PLA
	// FolderAction (Age, DeleteData); other ages perfc's own MaxAge.
	Age time.Duration
	// Size bounds the MB the set's logs take together (MaxSize); Free
	// is the MB to keep free on their file system (MinFreeDisk).
	Size, Free uint32
	// Policy is which logs go first for Files, Size and Free.
	Policy ResourcePolicy
	// Check refuses to start the set when Files or Free cannot be met
	// (CheckBeforeRunning).
	Check bool
}

// IsZero reports whether r sets no limit.
func (r Retention) IsZero() bool { return r.Files == 0 && r.Age == 0 && r.Size == 0 && r.Free == 0 }

// maxRetainAge is the longest -retain age: MaxAge's seconds, and the
// days of a FolderAction, are 32-bit.
const maxRetainAge = time.Duration(math.MaxUint32) * time.Second

// ParseRetention reads -retain's value, case-insensitively: limits
// separated by commas or blanks, each at most once.
//
//	N, N files      keep at most N log files (the one being written included)
//	Nd, Nh, Nmin    delete logs last written more than N days, hours, minutes ago
//	NMB, NGB, NTB   keep the set's logs within this size together
//	free=NMB        delete logs while less than this is free on their file system (also GB, TB)
//	oldest|largest  which logs go first for the limits above; default oldest
//	check           refuse to start the set when the file count or free space cannot be met
//
// A number and its unit may stand apart ("3 files", "500 MB", "7 days").
// At least one limit is needed; numbers are whole and at least 1.
func ParseRetention(s string) (Retention, error) {
	words := strings.Fields(strings.ReplaceAll(strings.ToLower(s), ",", " "))
	if len(words) == 0 {
		return Retention{}, fmt.Errorf("-retain %q: give a limit: N (files), Nd/Nh/Nmin (age), NMB/NGB (size), free=NMB", s)
	}
	var r Retention
	seen := map[string]bool{}
	once := func(what string) error {
		if seen[what] {
			return fmt.Errorf("-retain %q: %s given twice", s, what)
		}
		seen[what] = true
		return nil
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch w {
		case "oldest", "largest":
			if err := once("the policy (oldest or largest)"); err != nil {
				return Retention{}, err
			}
			r.Policy = DeleteOldest
			if w == "largest" {
				r.Policy = DeleteLargest
			}
			continue
		case "check":
			r.Check = true
			continue
		}
		free := false
		if rest, ok := strings.CutPrefix(w, "free"); ok {
			free = true
			w = strings.TrimLeft(rest, "=:")
			if w == "" {
				if i+1 >= len(words) {
					return Retention{}, fmt.Errorf("-retain %q: free needs a size: free=500MB", s)
				}
				i++
				w = words[i]
			}
		}
		digits := len(w) - len(strings.TrimLeft(w, "0123456789"))
		if digits == 0 {
			return Retention{}, fmt.Errorf("-retain %q: %q is no limit: want N (files), Nd/Nh/Nmin, NMB/NGB/NTB, free=NMB, oldest, largest or check", s, words[i])
		}
		n, err := strconv.ParseUint(w[:digits], 10, 64)
		if err != nil || n > math.MaxUint32 {
			return Retention{}, fmt.Errorf("-retain %q: %s is too large", s, w[:digits])
		}
		if n == 0 {
			return Retention{}, fmt.Errorf("-retain %q: %s: a limit is at least 1", s, words[i])
		}
		unit := w[digits:]
		if unit == "" && i+1 < len(words) && isRetainUnit(words[i+1]) {
			i++
			unit = words[i]
		}
		if free {
			mb, err := retainMB(s, n, unit)
			if err != nil {
				return Retention{}, err
			}
			if err := once("free"); err != nil {
				return Retention{}, err
			}
			r.Free = mb
			continue
		}
		switch unit {
		case "", "file", "files":
			if err := once("the file count"); err != nil {
				return Retention{}, err
			}
			r.Files = uint32(n)
		case "d", "day", "days", "h", "hour", "hours", "min", "mins", "minute", "minutes":
			if err := once("the age"); err != nil {
				return Retention{}, err
			}
			per := time.Minute
			switch unit[0] {
			case 'd':
				per = 24 * time.Hour
			case 'h':
				per = time.Hour
			}
			if n > uint64(maxRetainAge/per) {
				return Retention{}, fmt.Errorf("-retain %q: an age of %d %s is too long", s, n, unit)
			}
			r.Age = time.Duration(n) * per
		default:
			mb, err := retainMB(s, n, unit)
			if err != nil {
				return Retention{}, err
			}
			if err := once("the size"); err != nil {
				return Retention{}, err
			}
			r.Size = mb
		}
	}
	if r.IsZero() {
		return Retention{}, fmt.Errorf("-retain %q: give a limit: N (files), Nd/Nh/Nmin (age), NMB/NGB (size), free=NMB", s)
	}
	if !seen["the policy (oldest or largest)"] {
		r.Policy = DeleteOldest
	}
	return r, nil
}

func isRetainUnit(w string) bool {
	switch w {
	case "file", "files", "d", "day", "days", "h", "hour", "hours", "min", "mins", "minute", "minutes", "mb", "gb", "tb":
		return true
	}
	return false
}

// retainMB converts n of unit (MB, GB or TB) to MB.
func retainMB(s string, n uint64, unit string) (uint32, error) {
	var per uint64
	switch unit {
	case "mb":
		per = 1
	case "gb":
		per = 1 << 10
	case "tb":
		per = 1 << 20
	default:
		return 0, fmt.Errorf("-retain %q: unit %q: want files, d, h, min, MB, GB or TB", s, unit)
	}
	if n > math.MaxUint32/per {
		return 0, fmt.Errorf("-retain %q: %d %s is more than %d MB", s, n, strings.ToUpper(unit), uint32(math.MaxUint32))
	}
	return uint32(n * per), nil
}

// String is r as -retain reads it: "3,7d,500MB,free=1GB", with "largest"
// and "check" when they are set; "" for the zero Retention.
func (r Retention) String() string {
	var parts []string
	if r.Files > 0 {
		parts = append(parts, strconv.FormatUint(uint64(r.Files), 10))
	}
	if r.Age > 0 {
		parts = append(parts, FormatAge(r.Age))
	}
	if r.Size > 0 {
		parts = append(parts, formatMB(r.Size))
	}
	if r.Free > 0 {
		parts = append(parts, "free="+formatMB(r.Free))
	}
	if len(parts) == 0 {
		return ""
	}
	if r.Policy == DeleteLargest {
		parts = append(parts, "largest")
	}
	if r.Check {
		parts = append(parts, "check")
	}
	return strings.Join(parts, ",")
}

// FormatAge writes an age as -retain reads it: whole days as Nd, whole
// hours as Nh, else minutes (Nmin, rounded up).
func FormatAge(d time.Duration) string {
	switch {
	case d%(24*time.Hour) == 0:
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	return fmt.Sprintf("%dmin", (d+time.Minute-1)/time.Minute)
}

func formatMB(mb uint32) string {
	switch {
	case mb >= 1<<20 && mb%(1<<20) == 0:
		return fmt.Sprintf("%dTB", mb>>20)
	case mb >= 1<<10 && mb%(1<<10) == 0:
		return fmt.Sprintf("%dGB", mb>>10)
	}
	return fmt.Sprintf("%dMB", mb)
}

// Retention reads m as -retain would have set it: its limits when it is
// enabled (the zero Retention when not). Its age is the shortest of MaxAge
// and the ages of its folder actions that only delete, of any file size.
func (m *DataManager) Retention() Retention {
	if !m.Enabled {
		return Retention{}
	}
	r := Retention{Files: m.MaxFolderCount, Size: m.MaxSize, Free: m.MinFreeDisk, Policy: m.ResourcePolicy, Check: m.CheckBeforeRunning}
	r.Age = time.Duration(m.MaxAge) * time.Second
	for _, a := range m.FolderActions {
		if d := a.AgeDuration(); a.Deletes() && a.Size == 0 && (r.Age == 0 || d < r.Age) {
			r.Age = d
		}
	}
	return r
}

// SetRetention makes m what -retain says: the zero Retention turns the
// data manager off and clears its limits (--retain); another replaces its
// limits, policy and ages and turns it on. Folder actions that do more than
// delete (Windows' CAB files) are kept as read either way; the report, rule
// and events file names too.
func (m *DataManager) SetRetention(r Retention) {
	var kept []FolderAction
	for _, a := range m.FolderActions {
		if !a.Deletes() {
			kept = append(kept, a)
		}
	}
	m.FolderActions = kept
	m.Enabled, m.CheckBeforeRunning = !r.IsZero(), r.Check && !r.IsZero()
	m.MaxFolderCount, m.MaxSize, m.MinFreeDisk, m.MaxAge = r.Files, r.Size, r.Free, 0
	m.ResourcePolicy = 0
	if r.IsZero() {
		return
	}
	m.ResourcePolicy = r.Policy
	switch {
	case r.Age == 0:
	case r.Age%(24*time.Hour) == 0:
		m.FolderActions = append(m.FolderActions, FolderAction{Age: uint32(r.Age / (24 * time.Hour)), Actions: DeleteData})
	default:
		m.MaxAge = uint32((r.Age + time.Second - 1) / time.Second)
	}
}

// checkDataManager checks the values of a data manager that perfc acts
// on.
func checkDataManager(m *DataManager) error {
	var errs []error
	if m.ResourcePolicy != DeleteLargest && m.ResourcePolicy != DeleteOldest {
		errs = append(errs, fmt.Errorf("resource policy %d is neither delete largest (0) nor delete oldest (1)", uint32(m.ResourcePolicy)))
	}
	for i, a := range m.FolderActions {
		if a.Actions&^(CreateCab|DeleteData|SendCab|DeleteCab|DeleteReport) != 0 {
			errs = append(errs, fmt.Errorf("folder action %d: actions 0x%x have unknown bits", i+1, uint32(a.Actions)))
		}
		if a.Age > MaxFolderActionDays {
			errs = append(errs, fmt.Errorf("folder action %d: an age of %d days is more than perfc keeps a log (%d days); 0 excludes no age", i+1, a.Age, MaxFolderActionDays))
		}
	}
	return errors.Join(errs...)
}
