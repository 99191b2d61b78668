package procscan

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

const fixture = "testdata/proc-pids/basic"

// fixtureStat reads fields 4.. of a stat file of the fixture with
// strings.Fields, independently of parseStat: the expectations of the
// scanner tests.
func fixtureStat(t *testing.T, path string) (comm string, f []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixture, path))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	return s[open+1 : close], strings.Fields(s[close+1:])
}

func atoi(t *testing.T, s string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestScanFixture scans the fixture through both readers, twice each (the
// second scan of a live Reader reads through kept descriptors), and checks
// each process's pid, name, times and threads against the files.
func TestScanFixture(t *testing.T) {
	live, err := Open(fixture, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	for _, tc := range []struct {
		name string
		r    *Reader
	}{{"Open", live}, {"FS", FS(os.DirFS(fixture))}} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewScanner(tc.r)
			defer s.Close()
			for scan := 1; scan <= 2; scan++ {
				var reasons []string
				if err := s.Scan(func(r string) { reasons = append(reasons, r) }); err != nil {
					t.Fatal(err)
				}
				s.ReadDetails(AllDetails)
				s.ReadThreads(func(r string) { reasons = append(reasons, r) })
				var pids []int32
				for _, p := range s.Processes() {
					pids = append(pids, p.PID)
					dir := strconv.Itoa(int(p.PID))
					comm, f := fixtureStat(t, dir+"/stat")
					if p.Name != comm && !strings.HasPrefix(p.Name, comm) {
						t.Errorf("scan %d pid %d: name %q, comm %q", scan, p.PID, p.Name, comm)
					}
					if want := p.Name + ":" + dir; p.NameV2 != want {
						t.Errorf("scan %d pid %d: NameV2 %q, want %q", scan, p.PID, p.NameV2, want)
					}
					// f[0] is field 3 (state); field n is f[n-3].
					if p.Stat.UTime != atoi(t, f[14-3]) || p.Stat.STime != atoi(t, f[15-3]) || p.Stat.StartTime != atoi(t, f[22-3]) {
						t.Errorf("scan %d pid %d: stat %+v, file %v", scan, p.PID, p.Stat, f)
					}
					tasks, _ := os.ReadDir(filepath.Join(fixture, dir, "task"))
					var want []int32
					for _, d := range tasks {
						if _, err := os.Stat(filepath.Join(fixture, dir, "task", d.Name(), "stat")); err == nil {
							want = append(want, int32(atoi(t, d.Name())))
						}
					}
					slices.Sort(want)
					if i := slices.Index(want, p.PID); i > 0 {
						want = append([]int32{p.PID}, slices.Delete(want, i, i+1)...)
					}
					var got []int32
					for _, th := range p.Threads {
						got = append(got, th.TID)
					}
					if !slices.Equal(got, want) {
						t.Errorf("scan %d pid %d: threads %v, want %v", scan, p.PID, got, want)
					}
				}
				// 103 has no stat: it vanished between listing and read.
				if want := []int32{1, 9, 100, 101, 102, 104}; !slices.Equal(pids, want) {
					t.Errorf("scan %d: processes %v, want %v", scan, pids, want)
				}
				if s.Vanished() != 1 {
					t.Errorf("scan %d: vanished %d, want 1 (103)", scan, s.Vanished())
				}
				if perCPU, total, ok := s.Idle(); !ok || len(perCPU) == 0 || total == 0 {
					t.Errorf("scan %d: idle %v %d %v", scan, perCPU, total, ok)
				}
			}
		})
	}
	if live.Kept() == 0 {
		t.Error("Open with the default options kept no descriptor")
	}
}

// TestOptions: MaxKept < 0 keeps no descriptor, a positive MaxKept bounds
// them, and the default never changes RLIMIT_NOFILE.
func TestOptions(t *testing.T) {
	var before syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &before); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opts    Options
		maxKept int // -1: any positive number
	}{
		{Options{MaxKept: -1}, 0},
		{Options{MaxKept: 5}, 5},
		{Options{}, -1},
	} {
		r, err := Open(fixture, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		s := NewScanner(r)
		for range 2 {
			if err := s.Scan(nil); err != nil {
				t.Fatal(err)
			}
			s.ReadDetails(AllDetails)
			s.ReadThreads(nil)
		}
		if k := r.Kept(); tc.maxKept >= 0 && k != tc.maxKept || tc.maxKept < 0 && k == 0 {
			t.Errorf("%+v: %d descriptors kept, want %d", tc.opts, k, tc.maxKept)
		}
		s.Close()
		r.Close()
		var after syscall.Rlimit
		if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &after); err != nil {
			t.Fatal(err)
		}
		if after != before {
			t.Errorf("%+v: RLIMIT_NOFILE changed from %+v to %+v", tc.opts, before, after)
		}
	}
}

// TestOpenErrorNamesRoot: a root that cannot be opened is an error that
// names it.
func TestOpenErrorNamesRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "missing")
	_, err := Open(root, Options{})
	if err == nil || !strings.Contains(err.Error(), root) {
		t.Errorf("Open(%q) = %v, want an error naming it", root, err)
	}
}

// TestKeptAccounting scans the live /proc with a child, ends the child and
// scans again: the child is forgotten, and the Reader's count of kept
// descriptors equals the descriptors the scanner's processes and threads
// and the Reader's host-wide files hold.
func TestKeptAccounting(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Skip("cannot start sleep:", err)
	}
	defer func() { child.Process.Kill(); child.Wait() }()
	r, err := Open("/proc", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s := NewScanner(r)
	defer s.Close()
	sample := func() {
		if err := s.Scan(nil); err != nil {
			t.Fatal(err)
		}
		s.ReadDetails(AllDetails)
		s.ReadThreads(nil)
	}
	sample()
	sample()
	if !slices.ContainsFunc(s.Processes(), func(p *Process) bool { return int(p.PID) == child.Process.Pid }) {
		t.Fatalf("child %d not scanned", child.Process.Pid)
	}
	child.Process.Kill()
	child.Wait()
	sample()
	if _, ok := s.entries[int32(child.Process.Pid)]; ok {
		t.Error("ended child still kept")
	}
	open := len(r.src.(*osSource).rootKept)
	for _, e := range s.entries {
		for _, fd := range append(e.fds[:], e.taskFD, e.fdDirFD) {
			if fd >= 0 {
				open++
			}
		}
		for _, th := range e.Threads {
			for _, fd := range []int{th.fdStat, th.fdSched} {
				if fd >= 0 {
					open++
				}
			}
		}
	}
	if k := r.Kept(); k != open {
		t.Errorf("kept count %d, descriptors held %d", k, open)
	}
}
