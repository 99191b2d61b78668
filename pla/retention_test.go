package pla

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/state"
)

// logHead is what a binary log starts with (binlog.IsLogHead): enough for
// retention to take a file for one.
const logHead = "\x89PLOG\r\n\x1a"

// listDir returns the names in dir, sorted.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// warningsOf returns the lines of a set's warning log.
func warningsOf(t *testing.T, dir, name string) []string {
	t.Helper()
	b, err := state.ReadRunFile(dir, name, state.WarningLogSuffix)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

// TestRetentionKeepsNewestFiles: a set rolling over to a new file every
// second, keeping 3 files, keeps exactly the newest 3 of its series, says
// in its warning log what it deleted, and never touches what is not its
// own in the same directory: another file, a file named as its series
// that is no log, a symbolic link named as its series, a log of another
// set whose name its series could make, a directory.
func TestRetentionKeepsNewestFiles(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir, root := stateDir(t), t.TempDir()
		outside := filepath.Join(t.TempDir(), "target.plog")
		if err := os.WriteFile(outside, []byte(logHead+"a log outside"), 0o600); err != nil {
			t.Fatal(err)
		}
		foreign := map[string]string{
			"notes.txt":          "not a log",
			"roll_000090.plog":   "named as the series, but no log",
			"roll_000091.csv":    logHead + "another format",
			"roll.plog":          logHead + "the name without versioning",
			"other_000001.plog":  logHead + "another set's log",
			"roll_0000001x.plog": logHead + "no series name",
		}
		for n, b := range foreign {
			if err := os.WriteFile(filepath.Join(root, n), []byte(b), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink(outside, filepath.Join(root, "roll_000092.plog")); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(root, "roll_000093.plog"), 0o700); err != nil {
			t.Fatal(err)
		}
		// A set of the same state directory whose one file is named as
		// the series would name a file.
		other := newSet("roll_000094", root)
		if err := createSet(dir, other); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "roll_000094.plog"), []byte(logHead+"set roll_000094's log"), 0o600); err != nil {
			t.Fatal(err)
		}

		set := newSet("roll", root, `\Memory\Available Bytes`)
		set.Segment, set.SegmentMaxDuration = true, 1
		set.Collector.FileNameFormat = collectorset.FileNameSerialNumber
		set.DataManager.SetRetention(collectorset.Retention{Files: 3, Policy: collectorset.DeleteOldest})
		const n = 10
		runFor(t, dir, set, newFakeSource(1), n)

		var series []string
		for _, name := range listDir(t, root) {
			if _, ok := foreign[name]; ok {
				continue
			}
			switch name {
			case "roll_000092.plog", "roll_000093.plog", "roll_000094.plog":
				continue
			}
			series = append(series, name)
		}
		want := []string{"roll_000008.plog", "roll_000009.plog", "roll_000010.plog"}
		if !slices.Equal(series, want) {
			t.Errorf("files of the series %v, want %v", series, want)
		}
		for name, b := range foreign {
			got, err := os.ReadFile(filepath.Join(root, name))
			if err != nil || string(got) != b {
				t.Errorf("%s: %q, %v; want it untouched", name, got, err)
			}
		}
		if fi, err := os.Lstat(filepath.Join(root, "roll_000092.plog")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("the link: %v, %v", fi, err)
		}
		if b, err := os.ReadFile(outside); err != nil || string(b) != logHead+"a log outside" {
			t.Errorf("the link's target: %q, %v", b, err)
		}
		if fi, err := os.Stat(filepath.Join(root, "roll_000093.plog")); err != nil || !fi.IsDir() {
			t.Errorf("the directory: %v, %v", fi, err)
		}
		if _, err := os.Stat(filepath.Join(root, "roll_000094.plog")); err != nil {
			t.Errorf("set roll_000094's log: %v", err)
		}
		// One line per file deleted, naming it, its size and why.
		var deleted []string
		for _, l := range warningsOf(t, dir, "roll") {
			if _, rest, ok := strings.Cut(l, "retention: deleted "); ok {
				deleted = append(deleted, rest)
			}
		}
		if len(deleted) != n-3 {
			t.Fatalf("%d deletions told, want %d:\n%s", len(deleted), n-3, strings.Join(deleted, "\n"))
		}
		for i, d := range deleted {
			path := filepath.Join(root, fmt.Sprintf("roll_%06d.plog", i+1))
			if !strings.HasPrefix(d, path+" (") || !strings.Contains(d, " bytes): the set keeps 3 log files") {
				t.Errorf("deletion %d told as %q, want %s, its size and the limit", i+1, d, path)
			}
		}
	})
}

// TestRetentionAtStart: a CSV set versioned -v nnnnnn writes a file each
// run; keeping 2, each start deletes the oldest beyond the one it writes
// and one more.
func TestRetentionAtStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir, root := stateDir(t), t.TempDir()
		src := newFakeSource(1)
		set := newSet("runs", root, `\Memory\Available Bytes`)
		set.Collector.LogFileFormat, set.Collector.FileNameFormat = collectorset.CommaSeparated, collectorset.FileNameSerialNumber
		set.DataManager.SetRetention(collectorset.Retention{Files: 2, Policy: collectorset.DeleteOldest})
		for range 4 {
			runFor(t, dir, set, src, 2)
		}
		if got, want := listDir(t, root), []string{"runs_000003.csv", "runs_000004.csv"}; !slices.Equal(got, want) {
			t.Errorf("files %v, want %v", got, want)
		}
	})
}

// retentionDir makes a log directory with files of the set "x" (numbered
// series, binary), each size bytes and last written at the time given.
func retentionDir(t *testing.T, files map[string]struct {
	size int
	mod  time.Time
}) string {
	t.Helper()
	root := t.TempDir()
	for name, f := range files {
		p := filepath.Join(root, name)
		if err := os.WriteFile(p, []byte(logHead+strings.Repeat("x", f.size-len(logHead))), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, f.mod, f.mod); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestRetentionPolicies: each limit and policy, on one directory, as a
// pass at a new file sees it (x_000006.plog is written).
func TestRetentionPolicies(t *testing.T) {
	now := time.Date(2026, 5, 12, 12, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	type file = struct {
		size int
		mod  time.Time
	}
	files := map[string]file{
		"x_000001.plog": {4000, now.Add(-10 * day)},
		"x_000002.plog": {1000, now.Add(-5 * day)},
		"x_000003.plog": {3000, now.Add(-3 * day)},
		"x_000004.plog": {2000, now.Add(-2 * time.Hour)},
		"x_000005.plog": {1000, now.Add(-time.Hour)},
		"x_000006.plog": {500, now}, // being written
	}
	const mb = 1000 // bytes in an MB here
	for _, tc := range []struct {
		name   string
		dm     collectorset.DataManager
		free   int64 // bytes free before any deletion; each deletion frees its size
		remain []int // the serial numbers left
		why    string
	}{
		{"count oldest", collectorset.DataManager{MaxFolderCount: 3, ResourcePolicy: collectorset.DeleteOldest}, 0, []int{4, 5, 6}, "keeps 3 log files"},
		{"count largest", collectorset.DataManager{MaxFolderCount: 3, ResourcePolicy: collectorset.DeleteLargest}, 0, []int{2, 5, 6}, "keeps 3 log files"},
		{"count 1", collectorset.DataManager{MaxFolderCount: 1, ResourcePolicy: collectorset.DeleteOldest}, 0, []int{6}, "keeps 1 log files"},
		{"age in days", collectorset.DataManager{FolderActions: []collectorset.FolderAction{{Age: 4, Actions: collectorset.DeleteData}}}, 0, []int{3, 4, 5, 6}, "at least 4 days"},
		{"age and size", collectorset.DataManager{FolderActions: []collectorset.FolderAction{{Age: 1, Size: 3, Actions: collectorset.DeleteData}}}, 0, []int{2, 4, 5, 6}, "at least 3 MB"},
		{"age of a CAB action", collectorset.DataManager{FolderActions: []collectorset.FolderAction{{Age: 1, Actions: collectorset.DeleteData | collectorset.CreateCab}}}, 0, []int{1, 2, 3, 4, 5, 6}, ""},
		{"perfc's age", collectorset.DataManager{MaxAge: 90 * 60}, 0, []int{5, 6}, "more than 90min"},
		{"size oldest", collectorset.DataManager{MaxSize: 5, ResourcePolicy: collectorset.DeleteOldest}, 0, []int{4, 5, 6}, "more than 5 MB (MaxSize)"},
		{"size largest", collectorset.DataManager{MaxSize: 5, ResourcePolicy: collectorset.DeleteLargest}, 0, []int{2, 4, 5, 6}, "more than 5 MB (MaxSize)"},
		{"free", collectorset.DataManager{MinFreeDisk: 6, ResourcePolicy: collectorset.DeleteOldest}, 1000, []int{3, 4, 5, 6}, "less than 6 MB (MinFreeDisk)"},
		{"free enough", collectorset.DataManager{MinFreeDisk: 6, ResourcePolicy: collectorset.DeleteOldest}, 6000, []int{1, 2, 3, 4, 5, 6}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := retentionDir(t, files)
			set := newSet("x", root)
			set.Segment, set.SegmentMaxDuration = true, 60
			set.DataManager = tc.dm
			set.DataManager.Enabled = true
			var said []string
			r := newRetention("", set, mb, func(m string) { said = append(said, m) })
			r.now = func() time.Time { return now }
			// Free: tc.free and what was deleted (11500 bytes at first).
			r.free = func(int) (int64, error) {
				var left int64
				for _, n := range listDir(t, root) {
					fi, _ := os.Stat(filepath.Join(root, n))
					left += fi.Size()
				}
				return tc.free + 11500 - left, nil
			}
			if err := r.pass(false, "x_000006.plog"); err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, k := range tc.remain {
				want = append(want, fmt.Sprintf("x_%06d.plog", k))
			}
			if got := listDir(t, root); !slices.Equal(got, want) {
				t.Errorf("left %v, want %v; told:\n%s", got, want, strings.Join(said, "\n"))
			}
			for _, m := range said {
				if strings.HasPrefix(m, "retention: deleted ") && !strings.Contains(m, tc.why) {
					t.Errorf("told %q, want the reason %q", m, tc.why)
				}
			}
			if tc.why == "" && slices.ContainsFunc(said, func(m string) bool { return strings.Contains(m, "deleted") }) {
				t.Errorf("told %q, want no deletion", said)
			}
		})
	}
}

// TestRetentionNeverDeletes: what is not the set's own closed log stays,
// whatever the limits say.
func TestRetentionNeverDeletes(t *testing.T) {
	root := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("x_000001.plog", logHead+"the file being written")
	write("x_000002.plog", "not a log")
	write("x_000003.plog", "")
	write("x_000004.tsv", logHead)
	write("y_000005.plog", logHead)
	write("x_0512.plog", logHead+"too few digits")
	write("x.plog", logHead+"the name without versioning")
	if err := syscall.Mkfifo(filepath.Join(root, "x_000006.plog"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "y_000005.plog"), filepath.Join(root, "x_000007.plog")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "x_000008.plog"), 0o700); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		write("x_000009.plog", logHead+"another user's")
		if err := os.Chown(filepath.Join(root, "x_000009.plog"), 12345, 12345); err != nil {
			t.Fatal(err)
		}
	}
	before := listDir(t, root)
	set := newSet("x", root)
	set.Collector.FileNameFormat = collectorset.FileNameSerialNumber
	set.DataManager = collectorset.DataManager{Enabled: true, MaxFolderCount: 1, MaxSize: 1, MinFreeDisk: 1 << 20, MaxAge: 1,
		FolderActions: []collectorset.FolderAction{{Actions: collectorset.DeleteData}}}
	var said []string
	r := newRetention("", set, 1, func(m string) { said = append(said, m) })
	r.now = func() time.Time { return time.Now().Add(1000 * time.Hour) }
	r.free = func(int) (int64, error) { return 0, nil }
	if err := r.pass(false, "x_000001.plog"); err != nil {
		t.Fatal(err)
	}
	if after := listDir(t, root); !slices.Equal(after, before) {
		t.Errorf("left %v, want all of %v; told %q", after, before, said)
	}
	if slices.ContainsFunc(said, func(m string) bool { return strings.Contains(m, "deleted") }) {
		t.Errorf("told %q", said)
	}
	// Checked before running, the free space that cannot be had refuses
	// the start.
	set.DataManager.CheckBeforeRunning = true
	if err := r.pass(true, "x_000001.plog"); !errors.Is(err, ErrRetention) || !strings.Contains(err.Error(), "MinFreeDisk") {
		t.Errorf("start: %v, want ErrRetention naming MinFreeDisk", err)
	}
}

// TestRetentionRefusesStart: a set whose data manager checks before
// running is not started, and makes no log, when the free space it keeps
// cannot be had; without the check it starts, with a warning.
func TestRetentionRefusesStart(t *testing.T) {
	for _, check := range []bool{true, false} {
		t.Run(fmt.Sprint("check ", check), func(t *testing.T) {
			root := t.TempDir()
			set := newSet("full", root, `\Memory\Available Bytes`)
			set.Collector.FileNameFormat = collectorset.FileNameSerialNumber
			set.DataManager.SetRetention(collectorset.Retention{Free: 100, Check: check, Policy: collectorset.DeleteOldest})
			var said []string
			r := newRetention("", set, 1<<20, func(m string) { said = append(said, m) })
			r.free = func(int) (int64, error) { return 5 << 20, nil }
			src := newFakeSource(1)
			out, err := openOutput(t.Context(), set, src, outputConfig{mb: 1 << 20, now: time.Now(), retain: r})
			if check {
				if !errors.Is(err, ErrRetention) || !strings.Contains(err.Error(), "less than 100 MB (MinFreeDisk)") {
					t.Errorf("start: %v, want ErrRetention with the free space", err)
				}
				if got := listDir(t, root); len(got) != 0 {
					t.Errorf("a refused start left %v", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			out.close()
			if len(said) != 1 || !strings.Contains(said[0], "less than 100 MB (MinFreeDisk)") {
				t.Errorf("told %q, want one warning of the free space", said)
			}
		})
	}
}

// TestSeriesNames: the names each naming scheme makes, and no others.
func TestSeriesNames(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(s *collectorset.Set)
		yes    []string
		no     []string
	}{
		{"one file", func(s *collectorset.Set) {}, []string{"x.plog"}, []string{"x_000001.plog", "x.csv", "xx.plog"}},
		{"-v nnnnnn", func(s *collectorset.Set) { s.Collector.FileNameFormat = collectorset.FileNameSerialNumber },
			[]string{"x_000001.plog", "x_1234567.plog"}, []string{"x.plog", "x_00001.plog", "x_000001.csv", "x_000001.plog.bak", "x_000001_2.plog", "y_000001.plog", "x_00000a.plog"}},
		{"-cnf", func(s *collectorset.Set) { s.Segment, s.SegmentMaxDuration = true, 60 }, []string{"x_000001.plog"}, []string{"x.plog", "x_05120633_2.plog"}},
		{"-cnf -v mmddhhmm", func(s *collectorset.Set) {
			s.Segment, s.SegmentMaxDuration, s.Collector.FileNameFormat = true, 60, collectorset.FileNameMonthDayHourMinute
		}, []string{"x_05120633.plog", "x_05120633_2.plog", "x_05120633_12.plog"}, []string{"x_000001.plog", "x_05120633_.plog", "x_05120633_02.plog", "x.plog"}},
		{"-v mmddhhmm csv", func(s *collectorset.Set) {
			s.Collector.FileNameFormat, s.Collector.LogFileFormat = collectorset.FileNameMonthDayHourMinute, collectorset.CommaSeparated
		}, []string{"x_05120633.csv"}, []string{"x_05120633.plog", "x_05120633_2.csv", "x_051206.csv"}},
		{"by hour", func(s *collectorset.Set) { s.Collector.FileNameFormat = collectorset.FileNameMonthDayHour }, []string{"x_051206.plog"}, []string{"x_05120633.plog"}},
		{"file name", func(s *collectorset.Set) {
			s.Collector.FileName, s.Collector.FileNameFormat = "perf", collectorset.FileNameSerialNumber
		}, []string{"perf_000001.plog"}, []string{"x_000001.plog"}},
	} {
		s := newSet("x", "/tmp")
		tc.change(s)
		f := seriesNames(s)
		for _, n := range tc.yes {
			if !f(n) {
				t.Errorf("%s: %s is not of the series", tc.name, n)
			}
		}
		for _, n := range tc.no {
			if f(n) {
				t.Errorf("%s: %s is of the series", tc.name, n)
			}
		}
	}
}

// TestStartsAsLog: the logs the collector writes are taken for logs.
func TestStartsAsLog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root := t.TempDir()
		for _, f := range []collectorset.LogFileFormat{collectorset.Binary, collectorset.CommaSeparated, collectorset.TabSeparated} {
			set := newSet("s"+f.Extension()[1:], root, `\Memory\Available Bytes`)
			set.Collector.LogFileFormat = f
			runFor(t, stateDir(t), set, newFakeSource(1), 1)
			b, err := os.ReadFile(set.OutputLocation(time.Now()))
			if err != nil {
				t.Fatal(err)
			}
			if !startsAsLog(b[:min(len(b), 32)], f) {
				t.Errorf("%s log starts %q: not taken for a log", f, b[:min(len(b), 32)])
			}
			for _, g := range []collectorset.LogFileFormat{collectorset.Binary, collectorset.CommaSeparated, collectorset.TabSeparated} {
				if g != f && startsAsLog(b, g) {
					t.Errorf("a %s log is taken for a %s log", f, g)
				}
			}
		}
	})
}

// TestRetentionAbsurdAge: a folder action kept for 4,294,967,295 days (a
// stored set read without CheckRunnable) deletes nothing; its age in
// nanoseconds once wrapped to a negative duration that every file passed.
func TestRetentionAbsurdAge(t *testing.T) {
	for _, days := range []uint32{106752, 1 << 31, 4294967295} {
		root := t.TempDir()
		for _, name := range []string{"x_000001.plog", "x_000002.plog"} {
			if err := os.WriteFile(filepath.Join(root, name), []byte(logHead), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		before := listDir(t, root)
		set := newSet("x", root)
		set.Collector.FileNameFormat = collectorset.FileNameSerialNumber
		set.DataManager = collectorset.DataManager{Enabled: true,
			FolderActions: []collectorset.FolderAction{{Age: days, Actions: collectorset.DeleteData}}}
		r := newRetention("", set, 1, func(string) {})
		r.now = func() time.Time { return time.Now().Add(100 * 365 * 24 * time.Hour) }
		if err := r.pass(false, "x_000002.plog"); err != nil {
			t.Fatal(err)
		}
		if after := listDir(t, root); !slices.Equal(after, before) {
			t.Errorf("%d days: left %v, want all of %v", days, after, before)
		}
	}
}
