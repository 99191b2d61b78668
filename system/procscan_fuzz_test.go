package system

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
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

func FuzzProcscanParseStat(f *testing.F) {
	addFixtureSeeds(f, "stat")
	f.Add([]byte("1 (a) b) R 1"))
	f.Add([]byte(")("))
	f.Fuzz(func(t *testing.T, b []byte) {
		var st procStat
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

func FuzzProcscanParseStatus(f *testing.F) {
	addFixtureSeeds(f, "status")
	addFixtureSeeds(f, "io")
	f.Fuzz(func(t *testing.T, b []byte) {
		var m procMem
		parseStatus(b, &m)
		var io procIO
		parseIO(b, &io)
		parseSchedstat(b)
	})
}

func FuzzProcscanProcStat(f *testing.F) {
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

func FuzzProcscanDirents(f *testing.F) {
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
		for _, p := range pids {
			if p <= 0 {
				t.Fatalf("pid %d", p)
			}
		}
	})
}
