package procscan

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// prefixRunes is the longest prefix of s of at most n bytes made of
// whole runes, rune by rune: the expectation of a cut name.
func prefixRunes(s string, n int) string {
	out := ""
	for _, r := range s {
		if len(out)+utf8.RuneLen(r) > n {
			break
		}
		out += string(r)
	}
	return out
}

// countingFS counts the bytes read from files named cmdline.
type countingFS struct {
	fs.FS
	read *int
}

type countingFile struct {
	fs.File
	read *int
}

func (c countingFS) Open(name string) (fs.File, error) {
	f, err := c.FS.Open(name)
	if err != nil || filepath.Base(name) != "cmdline" {
		return f, err
	}
	return countingFile{f, c.read}, nil
}

func (f countingFile) Read(b []byte) (int, error) {
	n, err := f.File.Read(b)
	*f.read += n
	return n, err
}

// TestNameBounds: a process's instance name is bounded where it is made,
// whatever argv[0] another user gives a process: the name taken from
// argv[0] is at most MaxArgv0Name bytes, cut on a rune boundary; at most
// cmdlineHead bytes of the command line are read; an argv[0] longer than
// that (no path of an executable) leaves the name comm; a reserved name (_Total, _Global_, Idle,
// any case) gets "_1" (issue 43 items 1 and 3).
func TestNameBounds(t *testing.T) {
	const comm15 = "abcdefghijklmno"
	long := comm15 + strings.Repeat("x", 128<<10-len(comm15)-1) // one argument at the kernel's limit
	runes := comm15 + strings.Repeat("é", 200)                  // byte 255 falls inside an "é"
	cases := []struct {
		name, comm string
		cmdline    string
		want       string
	}{
		{"short comm", "bash", "/bin/bash\x00-l\x00", "bash"},
		{"long executable name", comm15, "/usr/bin/" + comm15 + "pqrst\x00arg\x00", comm15 + "pqrst"},
		{"argv0 of 128 KiB", comm15, "/x/" + long + "\x00", comm15},
		{"base name of 300 bytes", comm15, "/x/" + long[:300] + "\x00", prefixRunes(long[:300], 255)},
		{"argv0 of 128 KiB, no NUL", comm15, long, comm15},
		{"cut inside a rune", comm15, runes + "\x00", prefixRunes(runes, 255)},
		{"path longer than PATH_MAX", comm15, "/" + strings.Repeat("d", 5000) + "/" + comm15 + "pq\x00", comm15},
		{"argv0 not starting with comm", comm15, "/bin/other-name-entirely\x00", comm15},
		{"_Total", "_Total", "_Total\x00", "_Total_1"},
		{"_total", "_total", "", "_total_1"},
		{"Idle", "Idle", "", "Idle_1"},
		{"IDLE", "IDLE", "", "IDLE_1"},
		{"_Global_", "_Global_", "", "_Global__1"},
		{"_Total_1 is no reserved name", "_Total_1", "", "_Total_1"},
		{"x,_Total", "x,_Total", "", "x,_Total"},
		{"Idle2", "Idle2", "", "Idle2"},
	}
	dir := t.TempDir()
	for i, tc := range cases {
		pid := strconv.Itoa(1000 + i)
		if err := os.MkdirAll(filepath.Join(dir, pid), 0o755); err != nil {
			t.Fatal(err)
		}
		stat := pid + " (" + tc.comm + ") S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 " + strconv.Itoa(100+i) + " 1 1 1 1 1 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0"
		for name, b := range map[string]string{"stat": stat, "cmdline": tc.cmdline} {
			if err := os.WriteFile(filepath.Join(dir, pid, name), []byte(b), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	live, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	read := 0
	for _, r := range []struct {
		name string
		r    *Reader
	}{{"Open", live}, {"FS", FS(countingFS{os.DirFS(dir), &read})}} {
		t.Run(r.name, func(t *testing.T) {
			s := NewScanner(r.r)
			defer s.Close()
			if err := s.Scan(nil); err != nil {
				t.Fatal(err)
			}
			got := map[int32]*Process{}
			for _, p := range s.Processes() {
				got[p.PID] = p
			}
			for i, tc := range cases {
				p := got[int32(1000+i)]
				if p == nil {
					t.Errorf("%s: process not scanned", tc.name)
					continue
				}
				if p.Name != tc.want {
					t.Errorf("%s: name %q (%d bytes), want %q (%d bytes)", tc.name, abbrev(p.Name), len(p.Name), abbrev(tc.want), len(tc.want))
				}
				if want := tc.want + ":" + strconv.Itoa(1000+i); p.NameV2 != want {
					t.Errorf("%s: V2 name %q, want %q", tc.name, abbrev(p.NameV2), abbrev(want))
				}
			}
		})
	}
	// Seven processes have a comm of 15 bytes: at most PATH_MAX of each
	// command line is read.
	if max := 7 * 4096; read > max {
		t.Errorf("%d bytes of cmdline read, more than %d", read, max)
	}
}

func abbrev(s string) string {
	if len(s) <= 40 {
		return s
	}
	return s[:20] + "..." + s[len(s)-20:] + " (" + strconv.Itoa(len(s)) + " bytes)"
}

// TestReservedNameLive: a process that any user names _Total (its
// executable's name, which the kernel makes its comm) is _Total_1 on the
// live /proc, so \Process(_Total) stays the sum for every reader (issue
// 43 item 3).
func TestReservedNameLive(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep:", err)
	}
	r, err := Open("/proc", Options{MaxKept: -1})
	if err != nil {
		t.Skip("no /proc:", err)
	}
	defer r.Close()
	for _, tc := range []struct{ exe, want string }{{"_Total", "_Total_1"}, {"IDLE", "IDLE_1"}, {"_Global_", "_Global__1"}} {
		exe := filepath.Join(t.TempDir(), tc.exe)
		if err := os.Symlink(sleep, exe); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(exe, "60")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pid := int32(cmd.Process.Pid)
		// The child is ours from fork on, but takes its name at exec:
		// scan until its comm is the executable's (no sleep between).
		s := NewScanner(r)
		var name string
		for range 100000 {
			if err := s.Scan(nil); err != nil {
				t.Fatal(err)
			}
			for _, p := range s.Processes() {
				if p.PID == pid {
					name = p.Name
				}
			}
			if name == tc.want || Reserved(name) {
				break
			}
		}
		s.Close()
		cmd.Process.Kill()
		cmd.Wait()
		if name != tc.want {
			t.Errorf("process %s: name %q, want %q", tc.exe, name, tc.want)
		}
	}
}
