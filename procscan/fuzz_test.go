package procscan

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// addFixtureSeeds adds every file of the fixture tree named name as a seed.
func addFixtureSeeds(f *testing.F, name string) {
	paths, _ := filepath.Glob("testdata/proc-pids/basic/*/" + name)
	more, _ := filepath.Glob("testdata/proc-pids/basic/*/task/*/" + name)
	for _, p := range append(paths, more...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
}

func FuzzParseStat(f *testing.F) {
	addFixtureSeeds(f, "stat")
	f.Add([]byte("1 (a) b) R 1"))
	f.Add([]byte(")("))
	f.Fuzz(func(t *testing.T, b []byte) {
		var st Stat
		comm, err := parseStat(b, &st)
		if err != nil {
			return
		}
		// comm is the text between the first '(' and the last ')'.
		open, close := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if open < 0 || close <= open || !bytes.Equal(comm, b[open+1:close]) {
			t.Fatalf("comm %q from %q", comm, b)
		}
	})
}

func FuzzParseStatus(f *testing.F) {
	addFixtureSeeds(f, "status")
	addFixtureSeeds(f, "io")
	addFixtureSeeds(f, "schedstat")
	f.Add([]byte("VmRSS:\t12x kB\nrchar: -1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		// Each parser's result, written back in the kernel's format and
		// parsed again, gives the same values; a rejected input yields no
		// value for the malformed field.
		var m Mem
		if parseStatus(b, &m) {
			out := fmt.Appendf(nil, "VmPeak:\t%d kB\nVmSize:\t%d kB\nVmHWM:\t%d kB\nVmRSS:\t%d kB\nRssAnon:\t%d kB\nVmData:\t%d kB\nVmStk:\t%d kB\nVmSwap:\t%d kB\n",
				m.VMPeak/1024, m.VMSize/1024, m.VMHWM/1024, m.VMRSS/1024, m.RSSAnon/1024, m.VMData/1024, m.VMStk/1024, m.VMSwap/1024)
			var m2 Mem
			if !parseStatus(out, &m2) || m2 != m {
				t.Fatalf("status %+v, re-parsed from %q: %+v", m, out, m2)
			}
		}
		var io IO
		if parseIO(b, &io) {
			out := fmt.Appendf(nil, "rchar: %d\nwchar: %d\nsyscr: %d\nsyscw: %d\n", io.RChar, io.WChar, io.SyscR, io.SyscW)
			var io2 IO
			if !parseIO(out, &io2) || io2 != io {
				t.Fatalf("io %+v, re-parsed from %q: %+v", io, out, io2)
			}
		}
		if n, ok := parseSchedstat(b); ok {
			out := fmt.Appendf(nil, "1 2 %d\n", n)
			if n2, ok2 := parseSchedstat(out); !ok2 || n2 != n {
				t.Fatalf("schedstat %d, re-parsed from %q: %d %v", n, out, n2, ok2)
			}
		} else if n != 0 {
			t.Fatalf("rejected schedstat %q gave %d", b, n)
		}
	})
}

func FuzzProcStat(f *testing.F) {
	if b, err := os.ReadFile("testdata/proc-pids/basic/stat"); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var ci cpuIdle
		if parseProcStatIdle(b, &ci) == nil {
			var sum uint64
			for _, v := range ci.perCPU {
				sum += v
			}
			if sum != ci.total {
				t.Fatalf("total %d, per-CPU sum %d", ci.total, sum)
			}
		}
	})
}

func FuzzDirents(f *testing.F) {
	var seed []byte
	for _, n := range []string{".", "..", "1", "self", "42"} {
		seed = append(seed, dirent64(n)...)
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, b []byte) {
		pids := appendDirentPIDs(nil, b)
		if n := countDirentNumbers(b); n < len(pids) {
			t.Fatalf("%d numeric names but %d pids", n, len(pids))
		}
		if procs, _ := countDirentProcs(b); procs != len(pids) {
			t.Fatalf("countDirentProcs: %d processes, appendDirentPIDs: %d", procs, len(pids))
		}
		for _, p := range pids {
			if p <= 0 {
				t.Fatalf("pid %d", p)
			}
		}
	})
}

// FuzzProcessName: whatever comm and command line another user gives a
// process, its instance name is bounded (comm's 15 bytes, or argv[0]'s
// base name cut to MaxArgv0Name, plus the reserved-name suffix), never a
// reserved name, and never holds a NUL or a '/' from the path.
func FuzzProcessName(f *testing.F) {
	f.Add("abcdefghijklmno", []byte("/usr/bin/abcdefghijklmnopqrst\x00-x\x00"))
	f.Add("_Total", []byte("_Total\x00"))
	f.Add("bash", []byte{})
	f.Add("abcdefghijklmno", []byte("/x/abcdefghijklmno\xff\xfe\x00"))
	f.Fuzz(func(t *testing.T, comm string, cmdline []byte) {
		if len(comm) > commTruncated || strings.ContainsAny(comm, "\x00\n)") {
			return // the kernel's comm: at most 15 bytes; ")" and NUL would end it in stat
		}
		stat := "42 (" + comm + ") S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 100 1 1 1 1 1 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0"
		fsys := fstest.MapFS{
			"42/stat":    {Data: []byte(stat)},
			"42/cmdline": {Data: cmdline},
		}
		s := NewScanner(FS(fsys))
		defer s.Close()
		if err := s.Scan(nil); err != nil {
			return
		}
		if len(s.Processes()) != 1 {
			t.Fatalf("comm %q: %d processes scanned, want 1", comm, len(s.Processes()))
		}
		for _, p := range s.Processes() {
			if len(p.Name) > MaxArgv0Name+len(reservedSuffix) || Reserved(p.Name) || strings.ContainsAny(p.Name, "\x00/") && p.Name != comm {
				t.Fatalf("comm %q, cmdline %q: name %q", comm, cmdline, p.Name)
			}
			if !strings.HasPrefix(p.Name, comm) {
				t.Fatalf("comm %q: name %q does not start with it", comm, p.Name)
			}
		}
	})
}
