package system

import (
	"strings"
	"testing"
)

// Fuzz targets of the control-group, pressure and hardware parsers: none
// may panic, and what they return must hold the bounds they promise.

func FuzzParsePressure(f *testing.F) {
	seedFile(f, "testdata/cgroup/hybrid/proc/pressure/cpu", "testdata/cgroup/hybrid/proc/pressure/io")
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := parsePressure(b)
		if err != nil {
			return
		}
		if !p.HasSome && !p.HasFull {
			t.Fatal("accepted without a some or full line")
		}
		for _, l := range []psiLine{p.Some, p.Full} {
			if l.Avg10 > 100_000*100+99 || l.Avg60 > 100_000*100+99 || l.Avg300 > 100_000*100+99 {
				t.Fatalf("average out of range: %+v", l)
			}
		}
	})
}

func FuzzParseIOStat(f *testing.F) {
	seedFile(f, "testdata/cgroup/v2/sys/fs/cgroup/system.slice/docker-3f2c1b0a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b.scope/io.stat")
	f.Fuzz(func(t *testing.T, b []byte) {
		one, err := parseIOStat(b)
		if err != nil {
			return
		}
		// Metamorphic: the lines twice give twice the sums (mod 2^64).
		s := string(b)
		if !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		two, err := parseIOStat([]byte(s + s))
		if err != nil {
			t.Fatalf("doubled: %v", err)
		}
		if two.ReadBytes != 2*one.ReadBytes || two.WriteOps != 2*one.WriteOps {
			t.Fatalf("once %+v, twice %+v", one, two)
		}
	})
}

func FuzzParseBlkioStat(f *testing.F) {
	seedFile(f, "testdata/cgroup/hybrid/sys/fs/cgroup/blkio/perfc-capture/worker/blkio.throttle.io_service_bytes_recursive")
	f.Add([]byte("8:0 Read 90112\n8:0 Write 4096\nTotal 94208\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _, _ = parseBlkioStat(b)
	})
}

func FuzzParseCPUMax(f *testing.F) {
	f.Add([]byte("max 100000\n"))
	f.Add([]byte("50000 100000\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		q, p, limited, err := parseCPUMax(b)
		if err != nil {
			return
		}
		if p == 0 {
			t.Fatal("period 0 accepted")
		}
		if !limited && q != 0 {
			t.Fatalf("no limit but quota %d", q)
		}
	})
}

func FuzzParseCgroupMounts(f *testing.F) {
	seedFile(f, "testdata/cgroup/hybrid/proc/self/mounts", "testdata/cgroup/v2/proc/self/mounts")
	f.Fuzz(func(t *testing.T, b []byte) {
		ms := parseCgroupMounts(b)
		v2, seen := 0, map[string]bool{}
		for _, m := range ms {
			if m.v2 {
				v2++
			}
			for _, c := range m.controllers {
				if seen[c] {
					t.Fatalf("controller %s twice", c)
				}
				seen[c] = true
			}
		}
		if v2 > 1 {
			t.Fatalf("%d v2 hierarchies", v2)
		}
	})
}

func FuzzShortenContainerIDs(f *testing.F) {
	f.Add("/system.slice/docker-3f2c1b0a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b.scope")
	f.Add("/docker/3f2c1b0a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b")
	f.Fuzz(func(t *testing.T, s string) {
		got := shortenContainerIDs(s)
		if len(got) > len(s) {
			t.Fatalf("%q grew to %q", s, got)
		}
		if strings.Count(got, "/") != strings.Count(s, "/") {
			t.Fatalf("%q: components changed: %q", s, got)
		}
		if shortenContainerIDs(got) != got {
			t.Fatalf("not idempotent: %q", got)
		}
	})
}

func FuzzParseCPUInfoMHz(f *testing.F) {
	seedFile(f, "testdata/hw/proc/cpuinfo")
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = parseCPUInfoMHz(b, func(cpu int, khz uint64) {
			if cpu < 0 || cpu >= maxCPUs {
				t.Fatalf("cpu %d", cpu)
			}
		})
	})
}

func FuzzParseSensorValue(f *testing.F) {
	seedFile(f, "testdata/hw/sys/class/hwmon/hwmon3/temp1_input")
	f.Add([]byte("-150\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := parseSensorValue(b)
		if err == nil && (v > 1<<62 || v < -(1<<62)) {
			t.Fatalf("%d out of range", v)
		}
	})
}
