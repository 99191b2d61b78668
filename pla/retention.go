package pla

// Retention: a set's data manager (MS-PLA IDataManager, -retain) acting
// on the set's log files, at start and at each new file of a rollover
// series.

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/perflog/binlog"
	"github.com/perfcounters/perfcounters/state"
	"golang.org/x/sys/unix"
)

// retention applies the data manager of one running set to its log files
// in its RootPath. It only ever deletes files that are the set's own:
// regular files (never a symbolic link, which is not followed either),
// owned by the collector's user, whose names are those the set's naming
// scheme makes (seriesNames) and no other set of its state directory's
// makes in the same directory, and whose content starts as a log of the
// set's format does. It never deletes the file being written. What it
// deletes, with the size and the reason, goes to warn (the set's warning
// log, which logman query NAME shows).
type retention struct {
	dir  string // the set's state directory ("": its other sets are not looked at)
	set  *collectorset.Set
	mb   int64 // bytes in the data manager's MB (Options.MB)
	warn func(string)
	now  func() time.Time
	// free returns the bytes the collector's user may still write on
	// the file system of the open directory dirfd.
	free func(dirfd int) (int64, error)
	uid  int
}

// newRetention returns the retention of set, run from the state
// directory dir; nil when its data manager is off or it writes no files
// (SQL).
func newRetention(dir string, set *collectorset.Set, mb int64, warn func(string)) *retention {
	if !set.DataManager.Enabled || set.Collector.LogFileFormat == collectorset.Sql {
		return nil
	}
	if mb <= 0 {
		mb = 1 << 20
	}
	return &retention{dir: dir, set: set, mb: mb, warn: warn, now: time.Now, free: statfsFree, uid: os.Geteuid()}
}

// statfsFree is the space of dirfd's file system that an unprivileged
// user may still fill.
func statfsFree(dirfd int) (int64, error) {
	var st unix.Statfs_t
	if err := unix.Fstatfs(dirfd, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * st.Bsize, nil
}

func (r *retention) say(msg string) {
	if r.warn != nil {
		r.warn(msg)
	}
}

// logFile is one of the set's log files that retention may delete.
type logFile struct {
	name   string
	size   int64
	mod    time.Time
	serial int64 // the order of its name in the series (serialIn)
}

// ErrRetention is the error of starting a set whose data manager checks
// before running (CheckBeforeRunning) when its limits cannot be met.
var ErrRetention = errors.New("the set's data manager limits are not met (CheckBeforeRunning)")

// pass applies the data manager once: to the start of the set (start:
// before its log is opened; keep are the names of the file it writes
// next) or to a new file of its series (keep: that file). The file to be
// written counts as one of MaxFolderCount's. At start with
// CheckBeforeRunning, a file count or free space still not met after
// deleting what may be deleted is an error (ErrRetention); otherwise
// problems are warnings.
func (r *retention) pass(start bool, keep ...string) error {
	dm := &r.set.DataManager
	root := r.set.RootPath
	fail := func(err error) error {
		if start && dm.CheckBeforeRunning {
			return fmt.Errorf("set %q: %w: %v", r.set.Name, ErrRetention, err)
		}
		r.say(fmt.Sprintf("retention of Data Collector Set %q: %v", r.set.Name, err))
		return nil
	}
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fail(&os.PathError{Op: "open log directory", Path: root, Err: err})
	}
	d := os.NewFile(uintptr(fd), root)
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return fail(&os.PathError{Op: "read log directory", Path: root, Err: err})
	}
	others, err := r.otherSeries()
	if err != nil {
		// Which names other sets write cannot be told: delete nothing.
		return fail(fmt.Errorf("nothing deleted: the other sets of %s could not be read: %v", r.dir, err))
	}
	ours := seriesNames(r.set)
	var files []logFile
	var kept int64 // bytes of the file(s) being written
	slices.Sort(names)
	for _, n := range names {
		if !ours(n) || slices.ContainsFunc(others, func(f func(string) bool) bool { return f(n) }) {
			continue
		}
		if slices.Contains(keep, n) {
			var st unix.Stat_t
			if unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
				kept += st.Size
			}
			continue
		}
		if f, ok := r.ownLog(fd, n); ok {
			files = append(files, f)
		}
	}
	if start {
		for i, a := range dm.FolderActions {
			if !a.Deletes() && a.Actions&collectorset.DeleteData != 0 {
				r.say(fmt.Sprintf("retention of Data Collector Set %q: folder action %d (actions 0x%x) is not done: it makes a CAB file, which perfc does not make, so its data are kept", r.set.Name, i+1, uint32(a.Actions)))
			}
		}
	}
	// stuck counts the files that could not be deleted: they are left
	// alone from then on, but still there.
	stuck := 0
	del := func(f logFile, why string) bool {
		if err := unix.Unlinkat(fd, f.name, 0); err != nil {
			r.say(fmt.Sprintf("retention of Data Collector Set %q: could not delete %s: %v", r.set.Name, filepath.Join(root, f.name), err))
			stuck++
			kept += f.size
			return false
		}
		r.say(fmt.Sprintf("retention: deleted %s (%d bytes): %s", filepath.Join(root, f.name), f.size, why))
		return true
	}
	// Ages first: each file on its own.
	now := r.now()
	files = slices.DeleteFunc(files, func(f logFile) bool {
		why := r.tooOld(f, now)
		if why != "" {
			del(f, why)
		}
		return why != ""
	})
	// Then the limits, the files in the policy's order. The file to be
	// written counts as one.
	r.order(files)
	count := func() int { return len(files) + stuck + 1 }
	if n := int(dm.MaxFolderCount); n > 0 {
		for len(files) > 0 && count() > n {
			del(files[0], fmt.Sprintf("the set keeps %d log files, the one being written included (MaxFolderCount)", n))
			files = files[1:]
		}
	}
	if dm.MaxSize > 0 {
		limit := int64(dm.MaxSize) * r.mb
		total := kept
		for _, f := range files {
			total += f.size
		}
		for len(files) > 0 && total > limit {
			if del(files[0], fmt.Sprintf("the set's logs took %d bytes, more than %d MB (MaxSize)", total, dm.MaxSize)) {
				total -= files[0].size
			}
			files = files[1:]
		}
	}
	var problems []error
	if n := int(dm.MaxFolderCount); n > 0 && count() > n {
		problems = append(problems, fmt.Errorf("%d log files would be kept, more than %d (MaxFolderCount): %d could not be deleted", count(), n, stuck))
	}
	if dm.MinFreeDisk > 0 {
		need := int64(dm.MinFreeDisk) * r.mb
		free, err := r.free(fd)
		for err == nil && free < need && len(files) > 0 {
			del(files[0], fmt.Sprintf("%d bytes were free on the file system of %s, less than %d MB (MinFreeDisk)", free, root, dm.MinFreeDisk))
			files = files[1:]
			free, err = r.free(fd)
		}
		switch {
		case err != nil:
			problems = append(problems, fmt.Errorf("the free space of %s: %v", root, err))
		case free < need:
			problems = append(problems, fmt.Errorf("%d bytes are free on the file system of %s, less than %d MB (MinFreeDisk), and no more of the set's logs are left to delete", free, root, dm.MinFreeDisk))
		}
	}
	if len(problems) > 0 {
		return fail(errors.Join(problems...))
	}
	return nil
}

// tooOld says why f is past an age limit of the data manager: perfc's
// MaxAge, or a folder action that only deletes (its age in days and its
// size in MB both reached; 0 excludes none); "" when it is not.
func (r *retention) tooOld(f logFile, now time.Time) string {
	dm := &r.set.DataManager
	age := now.Sub(f.mod)
	if m := time.Duration(dm.MaxAge) * time.Second; m > 0 && age > m {
		limit := m.String()
		if m%time.Minute == 0 {
			limit = collectorset.FormatAge(m)
		}
		return fmt.Sprintf("last written %s ago, more than %s (-retain)", age.Round(time.Second), limit)
	}
	for i, a := range dm.FolderActions {
		if !a.Deletes() || age < a.AgeDuration() || f.size < int64(a.Size)*r.mb {
			continue
		}
		why := fmt.Sprintf("last written %s ago", age.Round(time.Second))
		if a.Age > 0 {
			why += fmt.Sprintf(", at least %d days", a.Age)
		}
		if a.Size > 0 {
			why += fmt.Sprintf(", and at least %d MB", a.Size)
		}
		return why + fmt.Sprintf(" (folder action %d: delete data)", i+1)
	}
	return ""
}

// order sorts files as the resource policy deletes them: the oldest
// first (by when each was last written, then by the number in its name),
// or the largest first.
func (r *retention) order(files []logFile) {
	oldest := func(a, b logFile) int {
		if c := a.mod.Compare(b.mod); c != 0 {
			return c
		}
		if c := cmp.Compare(a.serial, b.serial); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	}
	if r.set.DataManager.ResourcePolicy == collectorset.DeleteLargest {
		slices.SortStableFunc(files, func(a, b logFile) int {
			if c := cmp.Compare(b.size, a.size); c != 0 {
				return c
			}
			return oldest(a, b)
		})
		return
	}
	slices.SortStableFunc(files, oldest)
}

// ownLog checks that the entry name of the directory dirfd is a log
// retention may delete: a regular file (not a link), owned by the
// collector's user, that starts as a log of the set's format does.
func (r *retention) ownLog(dirfd int, name string) (logFile, bool) {
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || int(st.Uid) != r.uid {
		return logFile{}, false
	}
	// Opened (without following a link, without blocking) to read its
	// start; fstat makes sure it is still the file looked at.
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return logFile{}, false
	}
	defer unix.Close(fd)
	var st2 unix.Stat_t
	if unix.Fstat(fd, &st2) != nil || st2.Ino != st.Ino || st2.Dev != st.Dev || st2.Mode&unix.S_IFMT != unix.S_IFREG {
		return logFile{}, false
	}
	head := make([]byte, 32)
	n, err := unix.Pread(fd, head, 0)
	if err != nil || !startsAsLog(head[:n], r.set.Collector.LogFileFormat) {
		return logFile{}, false
	}
	return logFile{name: name, size: st2.Size, mod: time.Unix(st2.Mtim.Unix()), serial: r.serialIn(name)}, true
}

// startsAsLog reports whether head is the start of a log of format f:
// the binary log's magic bytes (binlog.IsLog), or a PDH text log's first
// cell.
func startsAsLog(head []byte, f collectorset.LogFileFormat) bool {
	switch f {
	case collectorset.Binary:
		return binlog.IsLogHead(head)
	case collectorset.BLG:
		// An event-trace buffer starts with its size: 4 KiB to 16 MiB,
		// a multiple of 8 (perflog/blg/FORMAT.md section 1).
		if len(head) < 4 {
			return false
		}
		bs := binary.LittleEndian.Uint32(head)
		return bs >= 4<<10 && bs <= 16<<20 && bs%8 == 0
	case collectorset.CommaSeparated, collectorset.TabSeparated:
		head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
		head = bytes.TrimPrefix(head, []byte(`"`))
		tag := "(PDH-CSV 4.0)"
		if f == collectorset.TabSeparated {
			tag = "(PDH-TSV 4.0)"
		}
		return bytes.HasPrefix(head, []byte(tag))
	}
	return false
}

// serialIn orders the names of one series: the number of NAME_NNNNNN.ext
// or NAME_MMddHHmm[_K].ext, with K (from 2) after the file of the minute
// without one; -1 for NAME.ext.
func (r *retention) serialIn(name string) int64 {
	v := strings.TrimSuffix(strings.TrimPrefix(name, logName(r.set)+"_"), r.set.Collector.LogFileFormat.Extension())
	d, k, _ := strings.Cut(v, "_")
	if digits(d) == 0 || len(d) > 12 || len(k) > 6 {
		return -1
	}
	var n, m int64
	for _, c := range d {
		n = n*10 + int64(c-'0')
	}
	for _, c := range k {
		if c < '0' || c > '9' {
			return -1
		}
		m = m*10 + int64(c-'0')
	}
	return n*1_000_000 + m
}

// otherSeries are the name tests of the other sets of the state directory
// whose logs go to the same directory in the same format: a name one of
// them makes too is not known to be this set's, and is left alone.
func (r *retention) otherSeries() ([]func(string) bool, error) {
	if r.dir == "" {
		return nil, nil
	}
	cs, err := state.ReadCollectorSets(r.dir)
	if err != nil {
		return nil, err
	}
	root := filepath.Clean(r.set.RootPath)
	var out []func(string) bool
	for _, o := range cs.Sets {
		if collectorset.SameName(o.Name, r.set.Name) || o.Collector.LogFileFormat.Extension() != r.set.Collector.LogFileFormat.Extension() ||
			o.Collector.LogFileFormat == collectorset.Sql || filepath.Clean(o.RootPath) != root {
			continue
		}
		out = append(out, seriesNames(o))
	}
	return out, nil
}

// seriesNames returns the test of the file names (in RootPath) that the
// naming scheme of s makes for its logs: a rollover series by date
// NAME_MMddHHmm.ext (and NAME_MMddHHmm_K.ext for a second file of one
// minute), a numbered one or -v nnnnnn NAME_NNNNNN.ext (six digits or
// more), -v mmddhhmm NAME_MMddHHmm.ext, by hour NAME_MMddHH.ext, and
// without versioning NAME.ext, the one file.
func seriesNames(s *collectorset.Set) func(string) bool {
	c := &s.Collector
	stem, ext := logName(s), c.LogFileFormat.Extension()
	dated := c.FileNameFormat&(collectorset.FileNameMonthDayHourMinute|collectorset.FileNameMonthDayHour) != 0
	var suffix func(v string) bool
	switch {
	case s.Rolls() && dated:
		suffix = func(v string) bool {
			d, k, two := strings.Cut(v, "_")
			return digits(d) == 8 && (!two || digits(k) > 0 && k[0] != '0')
		}
	case s.Rolls() || c.FileNameFormat&collectorset.FileNameSerialNumber != 0:
		suffix = func(v string) bool { return digits(v) >= 6 }
	case c.FileNameFormat&collectorset.FileNameMonthDayHourMinute != 0:
		suffix = func(v string) bool { return digits(v) == 8 }
	case c.FileNameFormat&collectorset.FileNameMonthDayHour != 0:
		suffix = func(v string) bool { return digits(v) == 6 }
	default:
		return func(name string) bool { return name == stem+ext }
	}
	return func(name string) bool {
		v, ok := strings.CutPrefix(name, stem+"_")
		if !ok {
			return false
		}
		v, ok = strings.CutSuffix(v, ext)
		return ok && suffix(v)
	}
}

// digits is the length of s when it is all decimal digits, else 0.
func digits(s string) int {
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0
		}
	}
	return len(s)
}
