package system

import (
	"os"
	"slices"
	"testing"
	"time"
)

func TestParseCPUList(t *testing.T) {
	tests := []struct {
		in   string
		want []int
		ok   bool
	}{
		{"0-1\n", []int{0, 1}, true},
		{"0-3,8,10-11", []int{0, 1, 2, 3, 8, 10, 11}, true},
		{"5", []int{5}, true},
		{"", nil, true},
		{"3-1", nil, false},
		{"0-99999999", nil, false},
		{"a", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := parseCPUList([]byte(tt.in), nil)
			if ok != tt.ok || (ok && !slices.Equal(got, tt.want)) {
				t.Errorf("parseCPUList(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestUserHZTo100ns(t *testing.T) {
	tests := []struct {
		ticks uint64
		hz    int64
		want  uint64
	}{
		{1, 100, 100_000}, // 10 ms
		{338235, 100, 33823500000},
		{1024, 1024, 10_000_000}, // one second at a HZ that does not divide 1e7
		{3, 1024, 29296},         // 3/1024 s = 29296.875 (truncated)
		{1 << 40, 100, (1 << 40) * 100_000},
	}
	for _, tt := range tests {
		if got := userHZTo100ns(tt.ticks, tt.hz); got != tt.want {
			t.Errorf("userHZTo100ns(%d, %d) = %d, want %d", tt.ticks, tt.hz, got, tt.want)
		}
	}
}

func TestParseKernelStatHost(t *testing.T) {
	b, err := os.ReadFile("testdata/host/proc/stat")
	if err != nil {
		t.Fatal(err)
	}
	var st kernelStat
	if err := parseKernelStat(b, &st); err != nil {
		t.Fatal(err)
	}
	// From the fixture text: "cpu  4225 0 4386 676169 109 0 99 0 0 0".
	want := cpuTimes{User: 4225, System: 4386, Idle: 676169, IOWait: 109, SoftIRQ: 99}
	if st.Total != want {
		t.Errorf("total = %+v, want %+v", st.Total, want)
	}
	if !slices.Equal(st.IDs, []int{0, 1}) {
		t.Errorf("ids = %v", st.IDs)
	}
	if st.CPUs[1].Idle != 337951 || st.CPUs[1].IOWait != 92 {
		t.Errorf("cpu1 = %+v", st.CPUs[1])
	}
	if st.Ctxt != 344468 || st.BootTime != 1795381039 || st.ProcsRunning != 1 || st.Intr != 197045 {
		t.Errorf("ctxt %d btime %d running %d intr %d", st.Ctxt, st.BootTime, st.ProcsRunning, st.Intr)
	}
}

func TestParseKernelStatErrors(t *testing.T) {
	for _, in := range []string{"cpu0 1 2 3 4\n", ""} {
		var st kernelStat
		if err := parseKernelStat([]byte(in), &st); err == nil {
			t.Errorf("no error for %q (no aggregate cpu line)", in)
		}
	}
}

// TestParseKernelStatMalformed checks that a malformed number is reported
// (line, field, text) and its line marked, never read as 0.
func TestParseKernelStatMalformed(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		bad      []badField
		totalBad bool
		cpus     int       // cpuN lines kept
		cpuBad   []bool    // per kept line
		has      statLines // single-number lines read
	}{
		{"bad total", "cpu  1 2 x 4\nctxt 5\n", []badField{{1, "cpu", "x"}}, true, 0, nil, hasCtxt},
		{"bad cpu line", "cpu  1 2 3 4\ncpu0 1 -2 3 4\ncpu1 1 2 3 4\n", []badField{{2, "cpu0", "-2"}}, false, 2, []bool{true, false}, 0},
		{"bad cpu name", "cpu  1 2 3 4\ncpuX 1 2 3 4\n", []badField{{2, "cpu name", "cpuX"}}, false, 0, nil, 0},
		{"huge cpu id", "cpu  1 2 3 4\ncpu99999999 1 2 3 4\n", []badField{{2, "cpu name", "cpu99999999"}}, false, 0, nil, 0},
		{"bad ctxt", "cpu  1 2 3 4\nintr 7 1 2\nctxt 12a\nprocs_running\n", []badField{{3, "ctxt", "12a"}, {4, "procs_running", ""}}, false, 0, nil, hasIntr},
		{"overflow", "cpu  1 2 3 4\nprocesses 18446744073709551616\n", []badField{{2, "processes", "18446744073709551616"}}, false, 0, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var st kernelStat
			if err := parseKernelStat([]byte(tt.in), &st); err != nil {
				t.Fatalf("error %v: want the object delivered with its malformed values reported", err)
			}
			if !slices.Equal(st.Bad.list, tt.bad) || st.Bad.n != len(tt.bad) {
				t.Errorf("bad %+v (%d), want %+v", st.Bad.list, st.Bad.n, tt.bad)
			}
			if st.Total.Bad != tt.totalBad {
				t.Errorf("total bad %v, want %v", st.Total.Bad, tt.totalBad)
			}
			if len(st.CPUs) != tt.cpus {
				t.Fatalf("%d cpu lines, want %d", len(st.CPUs), tt.cpus)
			}
			for i, b := range tt.cpuBad {
				if st.CPUs[i].Bad != b {
					t.Errorf("cpu line %d bad %v, want %v", i, st.CPUs[i].Bad, b)
				}
				if b && st.CPUs[i] != (cpuTimes{Bad: true}) {
					t.Errorf("cpu line %d keeps values %+v of a malformed line", i, st.CPUs[i])
				}
			}
			if st.Has != tt.has {
				t.Errorf("has %06b, want %06b", st.Has, tt.has)
			}
		})
	}
}

func TestParseKernelStatShortLines(t *testing.T) {
	// A 2.6-era line with four fields only: the rest read as zero.
	var st kernelStat
	if err := parseKernelStat([]byte("cpu 1 2 3 4\ncpu0 1 2 3 4\n"), &st); err != nil {
		t.Fatal(err)
	}
	if st.Total != (cpuTimes{User: 1, Nice: 2, System: 3, Idle: 4}) {
		t.Errorf("total = %+v", st.Total)
	}
}

func TestParsePerCPUTable(t *testing.T) {
	in := "           CPU0       CPU1       CPU3\n" +
		"  0:         10          20         30   IO-APIC   2-edge      timer\n" +
		"LOC:          1           2          3   Local timer interrupts\n" +
		"ERR:          7\n" +
		"MIS:          0\n"
	ids := []int{0, 3} // CPU1 is not wanted; CPU3 is the second wanted one
	sums := make([]uint64, 2)
	if _, err := parsePerCPUTable([]byte(in), ids, sums, nil); err != nil {
		t.Fatal(err)
	}
	// CPU0: 10 + 1; CPU3: 30 + 3; the one-number ERR and MIS rows are
	// system-wide and not added to any CPU.
	if want := []uint64{11, 33}; !slices.Equal(sums, want) {
		t.Errorf("sums = %v, want %v", sums, want)
	}
	if _, err := parsePerCPUTable([]byte("CPU0 XPU1\n"), ids, sums, nil); err == nil {
		t.Error("bad header accepted")
	}
}

func TestParseKeyValues(t *testing.T) {
	b, err := os.ReadFile("testdata/host/proc/meminfo")
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"MemAvailable", "Committed_AS", "NoSuchKey"}
	dst := make([]uint64, 3)
	found := make([]bool, 3)
	parseKeyValues(b, keys, dst, found, &badFields{})
	// From the fixture text.
	if dst[0] != 24425904 || dst[1] != 67976 || !found[0] || !found[1] || found[2] {
		t.Errorf("dst %v found %v", dst, found)
	}
}

func TestParseDiskStats(t *testing.T) {
	b, err := os.ReadFile("testdata/host/proc/diskstats")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := parseDiskStats(b, nil, &badFields{})
	if err != nil {
		t.Fatal(err)
	}
	d := findDisk(ds, "vda")
	if d == nil {
		t.Fatal("no vda")
	}
	// " 254 0 vda 11567 4076 824930 4608 957 5875 376296 781 0 1852 5833 ..."
	want := [11]uint64{11567, 4076, 824930, 4608, 957, 5875, 376296, 781, 0, 1852, 5833}
	if d.F != want || d.Major != 254 {
		t.Errorf("vda = %v (major %d)", d.F, d.Major)
	}
	malformed := []struct {
		in    string
		disks int // lines kept (as Bad)
		bad   badField
	}{
		{"8 0 sda 1 2 3\n", 1, badField{1, "sda field 7", ""}},
		{"8 0 sda 1 2 3 4 5 6 7 8 9 1o 11\n", 1, badField{1, "sda field 13", "1o"}},
		{"x 0 sda 1 2 3 4 5 6 7 8 9 10 11\n", 0, badField{1, "major", "x"}},
		{"8 0\n", 0, badField{1, "device name", ""}},
	}
	for _, tc := range malformed {
		var bad badFields
		ds, err := parseDiskStats([]byte(tc.in), nil, &bad)
		if err != nil || len(ds) != tc.disks || len(bad.list) != 1 || bad.list[0] != tc.bad {
			t.Errorf("%q: %d disks, bad %+v, %v; want %d disks, bad %+v", tc.in, len(ds), bad.list, err, tc.disks, tc.bad)
			continue
		}
		for _, d := range ds {
			if !d.Bad || d.F != [11]uint64{} {
				t.Errorf("%q: %+v kept values of a malformed line", tc.in, d)
			}
		}
	}
}

func TestParseNetDev(t *testing.T) {
	in := "Inter-|   Receive\n face |bytes\n" +
		"  eth0: 11200157     572    1    2    0     0          0         7    55915     615    3    4    0     0       0          0\n" +
		"  ppp0:4294967296 1 0 0 0 0 0 0 5 6 0 0 0 0 0 0\n"
	ds, err := parseNetDev([]byte(in), nil, &badFields{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 || string(ds[0].Name) != "eth0" || string(ds[1].Name) != "ppp0" {
		t.Fatalf("got %d devices", len(ds))
	}
	e := ds[0].F
	if e[ndRxBytes] != 11200157 || e[ndRxErrs] != 1 || e[ndRxDrop] != 2 || e[ndRxMulticast] != 7 || e[ndTxBytes] != 55915 || e[ndTxErrs] != 3 || e[ndTxDrop] != 4 {
		t.Errorf("eth0 = %v", e)
	}
	if ds[1].F[ndRxBytes] != 4294967296 || ds[1].F[ndTxPackets] != 6 {
		t.Errorf("glued line = %v", ds[1].F)
	}
	var bad badFields
	ds, err = parseNetDev([]byte("a\nb\n  x: 1 2\n  y: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 1z\n"), nil, &bad)
	want := []badField{{3, "x field 3", ""}, {4, "y field 16", "1z"}}
	if err != nil || len(ds) != 2 || !ds[0].Bad || !ds[1].Bad || ds[1].F != [16]uint64{} || !slices.Equal(bad.list, want) {
		t.Errorf("malformed lines: %+v %v, bad %+v; want both interfaces kept as Bad with no values, bad %+v", ds, err, bad.list, want)
	}
}

func TestParseSNMP(t *testing.T) {
	b, err := os.ReadFile("testdata/host/proc/net/snmp")
	if err != nil {
		t.Fatal(err)
	}
	keys := []snmpKey{{"Tcp", "InSegs"}, {"Tcp", "MaxConn"}, {"Udp", "OutDatagrams"}, {"Ip", "InReceives"}, {"Tcp", "Nope"}}
	dst := make([]uint64, len(keys))
	found := make([]bool, len(keys))
	if err := parseSNMP(b, keys, dst, found, &badFields{}); err != nil {
		t.Fatal(err)
	}
	// Tcp InSegs 578, MaxConn -1 (not a counter: not found), Udp OutDatagrams 20, Ip InReceives 598.
	if dst[0] != 578 || found[1] || dst[2] != 20 || dst[3] != 598 || found[4] {
		t.Errorf("dst %v found %v", dst, found)
	}
	if err := parseSNMP([]byte("Tcp: A B\nUdp: 1 2\n"), keys, dst, found, &badFields{}); err == nil {
		t.Error("mismatched pair accepted")
	}
}

func TestCountEstablished(t *testing.T) {
	in := "  sl  local_address remote_address st tx_queue rx_queue\n" +
		"   0: 00000000000000000000000000000000:0016 00000000000000000000000000000000:0000 0A 00000000:00000000\n" +
		"   1: 0000000000000000FFFF00000100007F:0016 0000000000000000FFFF00000100007F:D2F4 01 00000000:00000000\n" +
		"   2: 0000000000000000FFFF00000100007F:0016 0000000000000000FFFF00000100007F:D2F6 08 00000000:00000000\n" +
		"   3: 0000000000000000FFFF00000100007F:0016 0000000000000000FFFF00000100007F:D2F8 06 00000000:00000000\n"
	n, err := countEstablished([]byte(in))
	if err != nil || n != 2 {
		t.Errorf("countEstablished = %d, %v; want 2", n, err)
	}
}

func TestParseMounts(t *testing.T) {
	in := "proc /proc proc rw 0 0\n" +
		"/dev/vda / ext4 rw 0 0\n" +
		"/dev/vda /etc/hosts ext4 rw 0 0\n" + // bind mount of the same device
		"tmpfs /run tmpfs rw 0 0\n" +
		"/dev/sdb1 /mnt/my\\040disk xfs rw 0 0\n" +
		"server:/export /net nfs4 rw 0 0\n" +
		"overlay / overlay rw 0 0\n" // same mount point again
	got := parseMounts([]byte(in), nil)
	want := []mountEntry{{"/dev/vda", "/", "ext4"}, {"/dev/sdb1", "/mnt/my disk", "xfs"}, {"server:/export", "/net", "nfs4"}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestUnescapeMount(t *testing.T) {
	tests := map[string]string{`a\040b`: "a b", `a\134b`: `a\b`, `x\04`: `x\04`, `\999`: `\999`, `plain`: "plain"}
	for in, want := range tests {
		if got := unescapeMount([]byte(in)); got != want {
			t.Errorf("unescapeMount(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseUptime(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"3429.43 6761.72\n", 3429430 * time.Millisecond, true},
		{"12 5", 12 * time.Second, true},
		{"1.5", 1500 * time.Millisecond, true},
		{"x", 0, false},
		{"1.", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseUptime([]byte(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseUptime(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseSwaps(t *testing.T) {
	b, err := os.ReadFile("testdata/many/proc/swaps")
	if err != nil {
		t.Fatal(err)
	}
	s := parseSwaps(b, nil)
	if len(s) != 2 || string(s[0].Name) != "/dev/sda2" || s[0].Size != 8388604 || s[0].Used != 1048576 || string(s[1].Name) != `/swap\040file` || s[1].Size != 2097148 {
		t.Errorf("got %+v", s)
	}
}

func TestParseLoadAvg(t *testing.T) {
	all := hasLoad1 | hasLoad5 | hasLoad15 | hasLoadTasks
	tests := []struct {
		in   string
		has  loadFields
		load [3]uint64
		r, n uint64
	}{
		{"0.81 0.48 0.19 1/92 6748\n", all, [3]uint64{81, 48, 19}, 1, 92},
		{"12.34 5.67 0.05 3/512 12345\n", all, [3]uint64{1234, 567, 5}, 3, 512},
		{"1234.00 0.5 7 40/40000 1", all, [3]uint64{123400, 50, 700}, 40, 40000},
		{"42949671.99 0.00 0.00 1/1 1", all, [3]uint64{4294967199, 0, 0}, 1, 1},                    // the largest that fits 32 bits
		{"42949672.00 0.00 0.00 1/1 1", all &^ hasLoad1, [3]uint64{0, 0, 0}, 1, 1},                 // would not
		{"0.123 -1 1. 1/2 3", hasLoadTasks, [3]uint64{}, 1, 2},                                     // three decimals, a sign, no decimals
		{"0.81 0.48", hasLoad1 | hasLoad5, [3]uint64{81, 48, 0}, 0, 0},                             // short line
		{"0.81 0.48 0.19 1-92 6748", hasLoad1 | hasLoad5 | hasLoad15, [3]uint64{81, 48, 19}, 0, 0}, // no slash
		{"", 0, [3]uint64{}, 0, 0},
	}
	for _, tt := range tests {
		var l loadAvg
		l.Load[2] = 99 // a previous reading must not survive
		if got := parseLoadAvg([]byte(tt.in), &l); got != tt.has || l.Has != tt.has || l.Load != tt.load || l.Running != tt.r || l.Threads != tt.n {
			t.Errorf("%q: %b %+v, want %b %v %d/%d", tt.in, got, l, tt.has, tt.load, tt.r, tt.n)
		}
	}
}

func TestMulDiv(t *testing.T) {
	if got := mulDiv(1<<62, 1_000_000_000, 1000); got != ^uint64(0) {
		t.Errorf("overflow not saturated: %d", got)
	}
	if got := mulDiv(4608, 1_000_000_000, 1000); got != 4_608_000_000 {
		t.Errorf("mulDiv = %d", got)
	}
}
