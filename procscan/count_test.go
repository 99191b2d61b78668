package procscan

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// direntTyped encodes one linux_dirent64 record with its d_type.
func direntTyped(name string, typ byte) []byte {
	n := (19 + len(name) + 1 + 7) &^ 7
	b := make([]byte, n)
	binary.LittleEndian.PutUint16(b[16:], uint16(n))
	b[18] = typ
	copy(b[19:], name)
	return b
}

func TestCountDirentProcs(t *testing.T) {
	const dir, reg, lnk = 4, 8, 10
	tests := []struct {
		name        string
		ents        []string
		types       []byte
		procs, dirs int
	}{
		{"proc root", []string{".", "..", "fs", "sys", "self", "net", "1", "42", "cpuinfo"}, []byte{dir, dir, dir, dir, lnk, lnk, dir, dir, reg}, 2, 4},
		{"not processes", []string{"0", "01", "2147483648", "12a"}, []byte{dir, dir, dir, dir}, 0, 4},
		{"largest pid", []string{"2147483647", "4194304"}, []byte{dir, dir}, 2, 0},
		{"numeric file", []string{"7"}, []byte{reg}, 1, 0},
		{"empty", nil, nil, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf []byte
			for i, n := range tc.ents {
				buf = append(buf, direntTyped(n, tc.types[i])...)
			}
			procs, dirs := countDirentProcs(buf)
			if procs != tc.procs || dirs != tc.dirs {
				t.Errorf("got %d processes, %d directories; want %d, %d", procs, dirs, tc.procs, tc.dirs)
			}
			if len(buf) > 0 {
				// A truncated last record is not read.
				p, d := countDirentProcs(buf[:len(buf)-3])
				if p+d > tc.procs+tc.dirs {
					t.Errorf("truncated: %d + %d entries", p, d)
				}
			}
		})
	}
}

func TestVerifyCount(t *testing.T) {
	tests := []struct {
		nlink, procs, dirs uint64
		offset             uint64
		ok                 bool
	}{
		{588, 577, 11, 11, true}, // the host's pid namespace, nothing hidden
		{588, 570, 11, 0, false}, // hidepid: 7 processes not listed
		{1200, 40, 11, 0, false}, // a pid namespace of its own
		{11, 0, 11, 11, true},    // no process listed at all, and none counted
		{13, 5, 2, 0, false},     // not procfs: a link count of its own
		{0, 0, 0, 0, true},       // degenerate, still consistent
	}
	for _, tc := range tests {
		off, ok := verifyCount(tc.nlink, tc.procs, tc.dirs)
		if off != tc.offset || ok != tc.ok {
			t.Errorf("verifyCount(%d, %d, %d) = %d, %v; want %d, %v", tc.nlink, tc.procs, tc.dirs, off, ok, tc.offset, tc.ok)
		}
	}
}

// listedProcesses counts /proc's process entries the plain way: every
// entry whose name is a decimal number without a leading zero that fits a
// pid (31 bits).
func listedProcesses(t *testing.T, dir string) uint64 {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := uint64(0)
	for _, e := range ents {
		name := e.Name()
		if _, err := strconv.ParseUint(name, 10, 31); err == nil && name[0] != '0' {
			n++
		}
	}
	return n
}

// TestProcessCountLive: the process count of the live /proc, taken from
// the root's link count once a listing has verified it, equals a count of
// os.ReadDir's entries whenever that count held still around it, across
// more than one verification period and while processes start and end.
func TestProcessCountLive(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	r, err := Open("/proc", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s := r.src.(*osSource)
	var buf []byte
	var children []*exec.Cmd
	defer func() {
		for _, c := range children {
			c.Process.Kill()
			c.Wait()
		}
	}()
	compared, fromLinks := 0, 0
	for i := range 3 * verifyEvery {
		if i%20 == 10 && len(children) < 4 {
			c := exec.Command("sleep", "60")
			if err := c.Start(); err == nil {
				children = append(children, c)
			}
		}
		if i%20 == 15 && len(children) > 0 {
			c := children[len(children)-1]
			children = children[:len(children)-1]
			c.Process.Kill()
			c.Wait()
		}
		before := listedProcesses(t, "/proc")
		fast := s.procfs && s.count.known && s.count.since < verifyEvery
		n, err := s.processes(&buf)
		if err != nil {
			t.Fatal(err)
		}
		after := listedProcesses(t, "/proc")
		if before != after {
			continue // a process came or went: no single right answer
		}
		compared++
		if fast {
			fromLinks++
		}
		if n != before {
			t.Fatalf("count %d (from the link count: %v), os.ReadDir lists %d processes", n, fast, before)
		}
	}
	if compared < verifyEvery {
		t.Fatalf("only %d of %d counts could be compared (the host's processes never held still)", compared, 3*verifyEvery)
	}
	t.Logf("%d counts compared, %d of them from the link count", compared, fromLinks)
}

// TestProcessCountDirectory: a tree that is not procfs is listed at every
// count (its link count is its own), by Open's reader and by FS's
// alike.
func TestProcessCountDirectory(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"1", "22", "0", "01", "self", "4294967296"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "7"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var buf []byte
	for i, add := range []string{"", "5", "", "333"} {
		if add != "" {
			if err := os.Mkdir(filepath.Join(root, add), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		want := listedProcesses(t, root)
		got, err := r.Processes(&buf)
		if err != nil {
			t.Fatal(err)
		}
		gotFS, err := FS(os.DirFS(root)).Processes(nil)
		if err != nil {
			t.Fatal(err)
		}
		if got != want || gotFS != want {
			t.Errorf("step %d: Open counts %d, FS %d, want %d", i, got, gotFS, want)
		}
	}
}
