package system

import (
	"os"
	"testing"
)

// The fuzz targets feed arbitrary bytes to each parser: none may panic,
// and what they return must stay within the bounds they promise.

func seedFile(f *testing.F, paths ...string) {
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

func FuzzParseKernelStat(f *testing.F) {
	seedFile(f, "testdata/host/proc/stat", "testdata/many/proc/stat")
	f.Add([]byte("cpu 1 2 3 4\ncpu0 1 2 3 4\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var st kernelStat
		if err := parseKernelStat(b, &st); err != nil {
			return
		}
		if len(st.CPUs) != len(st.IDs) {
			t.Fatalf("%d cpus, %d ids", len(st.CPUs), len(st.IDs))
		}
		for _, id := range st.IDs {
			if id < 0 || id >= maxCPUs {
				t.Fatalf("cpu id %d", id)
			}
		}
	})
}

func FuzzParsePerCPUTable(f *testing.F) {
	seedFile(f, "testdata/host/proc/interrupts", "testdata/host/proc/softirqs", "testdata/many/proc/interrupts")
	f.Fuzz(func(t *testing.T, b []byte) {
		ids := []int{0, 1, 3}
		sums := make([]uint64, len(ids))
		parsePerCPUTable(b, ids, sums, nil)
	})
}

func FuzzParseDiskStats(f *testing.F) {
	seedFile(f, "testdata/host/proc/diskstats")
	f.Fuzz(func(t *testing.T, b []byte) {
		ds, err := parseDiskStats(b, nil)
		if err == nil {
			for _, d := range ds {
				if len(d.Name) == 0 {
					t.Fatal("empty device name accepted")
				}
			}
		}
	})
}

func FuzzParseNetDev(f *testing.F) {
	seedFile(f, "testdata/host/proc/net/dev")
	f.Fuzz(func(t *testing.T, b []byte) { parseNetDev(b, nil) })
}

func FuzzParseSNMP(f *testing.F) {
	seedFile(f, "testdata/host/proc/net/snmp")
	f.Fuzz(func(t *testing.T, b []byte) {
		keys := []snmpKey{{"Tcp", "InSegs"}, {"Ip", "InReceives"}}
		parseSNMP(b, keys, make([]uint64, 2), make([]bool, 2), &badFields{})
		countEstablished(b)
	})
}

func FuzzParseMounts(f *testing.F) {
	seedFile(f, "testdata/host/proc/self/mounts", "testdata/host/proc/swaps", "testdata/many/proc/swaps")
	f.Add([]byte(`/dev/a /x\040y ext4 rw 0 0` + "\n" + `a \1 b`))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, m := range parseMounts(b, nil) {
			if m.dir == "" || pseudoFS(m.fstype) {
				t.Fatalf("kept %+v", m)
			}
		}
		parseSwaps(b, nil)
	})
}

func FuzzParseCPUList(f *testing.F) {
	f.Add([]byte("0-3,8,10-11\n"))
	f.Add([]byte("0-253,255"))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, ok := parseCPUList(b, nil)
		if ok {
			for _, c := range l {
				if c < 0 || c >= maxCPUs {
					t.Fatalf("cpu %d", c)
				}
			}
		}
		parseUptime(b)
		var la loadAvg
		parseLoadAvg(b, &la)
	})
}
