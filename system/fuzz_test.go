package system

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/perfcounters/perfcounters/proctext"
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
		cols, err := parsePerCPUTable(b, ids, sums, nil)
		if err != nil {
			return
		}
		header, body := proctext.NextLine(b)
		if n := len(bytes.Fields(header)); len(cols) != n {
			t.Fatalf("%d columns from a header of %d fields", len(cols), n)
		}
		for _, k := range cols {
			if k < -1 || k >= len(ids) {
				t.Fatalf("column maps to %d, outside the %d ids", k, len(ids))
			}
		}
		// Metamorphic: the same rows twice give twice the sums (mod 2^64,
		// as the sums wrap).
		if len(body) > 0 && body[len(body)-1] != '\n' {
			body = append(slices.Clip(body), '\n')
		}
		twice := append(append(append(slices.Clone(header), '\n'), body...), body...)
		sums2 := make([]uint64, len(ids))
		if _, err := parsePerCPUTable(twice, ids, sums2, nil); err != nil {
			t.Fatalf("rows repeated: %v", err)
		}
		for i := range sums {
			if sums2[i] != 2*sums[i] {
				t.Fatalf("cpu %d: %d once, %d twice", ids[i], sums[i], sums2[i])
			}
		}
	})
}

func FuzzParseDiskStats(f *testing.F) {
	seedFile(f, "testdata/host/proc/diskstats")
	f.Fuzz(func(t *testing.T, b []byte) {
		ds, err := parseDiskStats(b, nil, &badFields{})
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
	f.Fuzz(func(t *testing.T, b []byte) {
		devs, err := parseNetDev(b, nil, &badFields{})
		if err != nil {
			return
		}
		if lines := bytes.Count(b, []byte("\n")) + 1; len(devs) > max(lines-2, 0) {
			t.Fatalf("%d interfaces from %d lines (two are headers)", len(devs), lines)
		}
		// Re-serialise and re-parse: the same interfaces and numbers.
		out := []byte("Inter-|\n face |\n")
		for _, d := range devs {
			if bytes.IndexByte(d.Name, ':') >= 0 || !bytes.Equal(d.Name, proctext.TrimSpace(d.Name)) {
				t.Fatalf("name %q", d.Name)
			}
			out = append(out, d.Name...)
			out = append(out, ':')
			for _, v := range d.F {
				out = strconv.AppendUint(append(out, ' '), v, 10)
			}
			out = append(out, '\n')
		}
		again, err := parseNetDev(out, nil, &badFields{})
		if err != nil || len(again) != len(devs) {
			t.Fatalf("re-parse of %q: %d interfaces, %v; want %d", out, len(again), err, len(devs))
		}
		for i := range devs {
			if !bytes.Equal(again[i].Name, devs[i].Name) || again[i].F != devs[i].F {
				t.Fatalf("interface %d: %q %v, re-parsed %q %v", i, devs[i].Name, devs[i].F, again[i].Name, again[i].F)
			}
		}
	})
}

func FuzzParseSNMP(f *testing.F) {
	seedFile(f, "testdata/host/proc/net/snmp")
	f.Fuzz(func(t *testing.T, b []byte) {
		keys := []snmpKey{{"Tcp", "InSegs"}, {"Ip", "InReceives"}, {"Tcp", "MaxConn"}}
		vals, found := make([]uint64, len(keys)), make([]bool, len(keys))
		var bad badFields
		countEstablished(b)
		if err := parseSNMP(b, keys, vals, found, &bad); err != nil {
			return
		}
		if lines := bytes.Count(b, []byte("\n")) + 1; bad.n > lines || len(bad.list) > maxBadFields {
			t.Fatalf("%d malformed values (%d kept) from %d lines", bad.n, len(bad.list), lines)
		}
		// Re-serialise what was found and re-parse: the same values, and
		// nothing found that was not.
		var out []byte
		for k, ok := range found {
			if ok {
				out = fmt.Appendf(out, "%s: %s\n%s: %d\n", keys[k].proto, keys[k].field, keys[k].proto, vals[k])
			}
		}
		vals2, found2 := make([]uint64, len(keys)), make([]bool, len(keys))
		if err := parseSNMP(out, keys, vals2, found2, &bad); err != nil || bad.n != 0 {
			t.Fatalf("re-parse of %q: %v, %d malformed", out, err, bad.n)
		}
		for k := range keys {
			if found2[k] != found[k] || found[k] && vals2[k] != vals[k] {
				t.Fatalf("%v: %v %d, re-parsed %v %d", keys[k], found[k], vals[k], found2[k], vals2[k])
			}
		}
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
	})
}

// FuzzParseLoadAvg: a load average read is a number of hundredths that
// fits the 32-bit fraction and, printed back as the kernel prints it
// (%d.%02d), gives a number equal to the field.
func FuzzParseLoadAvg(f *testing.F) {
	seedFile(f, "testdata/host/proc/loadavg", "testdata/vm/proc/loadavg")
	f.Add([]byte("42949671.99 1.5 7 0/0 1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var la loadAvg
		has := parseLoadAvg(b, &la)
		if has != la.Has {
			t.Fatalf("returned %b, Has %b", has, la.Has)
		}
		var fields [3][]byte
		rest := b
		for k := range fields {
			fields[k], rest = proctext.NextField(rest)
		}
		for k, v := range la.Load {
			if has&(hasLoad1<<k) == 0 {
				if v != 0 {
					t.Fatalf("load %d not read but %d", k, v)
				}
				continue
			}
			if v > 1<<32-1 {
				t.Fatalf("load %d: %d does not fit 32 bits", k, v)
			}
			back := fmt.Sprintf("%d.%02d", v/100, v%100)
			x, err1 := strconv.ParseFloat(string(fields[k]), 64)
			y, err2 := strconv.ParseFloat(back, 64)
			if err1 != nil || err2 != nil || x != y {
				t.Fatalf("field %q read as %s", fields[k], back)
			}
		}
	})
}
