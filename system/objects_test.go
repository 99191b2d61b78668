package system

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/perfcounters/perfcounters/perfdata"
)

func TestObjectDeclarations(t *testing.T) {
	c := hostCollector()
	seen := map[string]bool{}
	objs := append(c.Objects(), fixtureCollector("testdata/hw").LinuxObjects()...)
	if len(objs) != len(c.Objects())+6 {
		t.Fatalf("%d objects: want the host's and the 6 Linux-only ones", len(objs))
	}
	for _, o := range objs {
		t.Run(o.Set.Name, func(t *testing.T) {
			if err := o.Set.Validate(); err != nil {
				t.Fatal(err)
			}
			if seen[o.Set.Name] {
				t.Fatal("duplicate object")
			}
			seen[o.Set.Name] = true
			if o.Set.Help == "" || o.Collect == nil {
				t.Fatal("no help or no collect function")
			}
			for i, ct := range o.Set.Counters {
				if ct.Help == "" {
					t.Errorf("counter %d %q: no help", i, ct.Name)
				}
				if ct.ID != uint32(i) {
					t.Errorf("counter %d %q: ID %d", i, ct.Name, ct.ID)
				}
			}
		})
	}
}

func TestProcessorHost(t *testing.T) {
	c := hostCollector()
	s := collectObject(t, c, objectByName(t, c, "Processor"))
	if !slices.Equal(s.names, []string{"0", "1", "_Total"}) {
		t.Fatalf("instances %q", s.names)
	}
	// By hand from testdata/host/proc/stat (USER_HZ 100: 1 tick = 100000 x 100 ns):
	// cpu0 2000 0 2153 338218 17 0 48; cpu 4225 0 4386 676169 109 0 99 over 2 CPUs.
	// Interrupt sums from the CPU columns of interrupts and softirqs.
	tests := []struct {
		inst, counter string
		want          uint64
	}{
		{"0", "% Processor Time", (338218 + 17) * 100000},
		{"0", "% Idle Time", (338218 + 17) * 100000},
		{"0", "% User Time", 2000 * 100000},
		{"0", "% Privileged Time", (2153 + 48) * 100000},
		{"0", "% DPC Time", 48 * 100000},
		{"0", "% Interrupt Time", 0},
		{"0", "Interrupts/sec", 100830},
		{"1", "Interrupts/sec", 96253},
		{"0", "DPCs Queued/sec", 71587},
		{"1", "DPCs Queued/sec", 78922},
		{"_Total", "% Processor Time", (676169 + 109) * 100000 / 2},
		{"_Total", "% User Time", 4225 * 100000 / 2},
		{"_Total", "% Privileged Time", (4386 + 99) * 100000 / 2},
		{"_Total", "Interrupts/sec", 100830 + 96253},
		{"_Total", "DPCs Queued/sec", 71587 + 78922},
	}
	for _, tt := range tests {
		t.Run(tt.inst+"/"+tt.counter, func(t *testing.T) {
			if got := s.get(t, tt.inst, tt.counter); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}

// manyCollector reads the constructed 256-CPU host, with cpufreq files
// made here (cur = 1000000+1000N kHz, max 3000000 kHz).
func manyCollector() *Collector {
	m := fstest.MapFS{}
	for n := 0; n < 256; n++ {
		dir := "devices/system/cpu/cpu" + strconv.Itoa(n) + "/cpufreq/"
		m[dir+"scaling_cur_freq"] = &fstest.MapFile{Data: []byte(strconv.Itoa(1000000+1000*n) + "\n")}
		m[dir+"cpuinfo_max_freq"] = &fstest.MapFile{Data: []byte("3000000\n")}
	}
	return NewCollector(os.DirFS("testdata/many/proc"), overlay{m, os.DirFS("testdata/many/sys")},
		WithClock(func() time.Time { return time.Unix(1763900000, 0) }),
		WithUptime(func() time.Duration { return 100000 * time.Second }))
}

// manyTimes is the fixture's formula (testdata/many/README).
func manyTimes(n uint64) cpuTimes {
	return cpuTimes{User: 1000 + n, Nice: n % 3, System: 500 + 2*n, Idle: 100000 + 10*n, IOWait: n % 7, IRQ: n % 5, SoftIRQ: n % 11}
}

func manyOnline() []uint64 {
	var ids []uint64
	for n := uint64(0); n < 256; n++ {
		if n != 254 {
			ids = append(ids, n)
		}
	}
	return ids
}

func TestProcessorMany(t *testing.T) {
	c := manyCollector()
	s := collectObject(t, c, objectByName(t, c, "Processor"))
	ids := manyOnline()
	if len(s.names) != len(ids)+1 || s.names[len(s.names)-1] != "_Total" {
		t.Fatalf("%d instances, last %q", len(s.names), s.names[len(s.names)-1])
	}
	if _, ok := s.vals["254"]; ok {
		t.Error("offline CPU 254 reported")
	}
	var idle, user, intr, soft uint64
	for _, n := range ids {
		tm := manyTimes(n)
		name := strconv.FormatUint(n, 10)
		if got, want := s.get(t, name, "% Processor Time"), (tm.Idle+tm.IOWait)*100000; got != want {
			t.Errorf("cpu %d idle = %d, want %d", n, got, want)
		}
		if got, want := s.get(t, name, "Interrupts/sec"), 3*n+1; got != want {
			t.Errorf("cpu %d interrupts = %d, want %d", n, got, want)
		}
		if got, want := s.get(t, name, "DPCs Queued/sec"), 10*n+1; got != want {
			t.Errorf("cpu %d softirqs = %d, want %d", n, got, want)
		}
		idle += tm.Idle + tm.IOWait
		user += tm.User + tm.Nice
		intr += 3*n + 1
		soft += 10*n + 1
	}
	k := uint64(len(ids))
	if got, want := s.get(t, "_Total", "% Processor Time"), idle*100000/k; got != want {
		t.Errorf("_Total idle = %d, want %d", got, want)
	}
	if got, want := s.get(t, "_Total", "% User Time"), user*100000/k; got != want {
		t.Errorf("_Total user = %d, want %d", got, want)
	}
	if got := s.get(t, "_Total", "Interrupts/sec"); got != intr {
		t.Errorf("_Total interrupts = %d, want %d", got, intr)
	}
	if got := s.get(t, "_Total", "DPCs Queued/sec"); got != soft {
		t.Errorf("_Total softirqs = %d, want %d", got, soft)
	}
}

func TestProcessorInformationMany(t *testing.T) {
	c := manyCollector()
	o := objectByName(t, c, "Processor Information")
	if o.Set.CounterByName("Processor Frequency") < 0 {
		t.Fatal("cpufreq present but no frequency counter")
	}
	s := collectObject(t, c, o)
	var want []string
	for _, n := range manyOnline() {
		want = append(want, fmt.Sprintf("%d,%d", n/128, n))
	}
	want = append(want, "0,_Total", "1,_Total", "_Total")
	if !slices.Equal(s.names, want) {
		t.Fatalf("instances: got %d %q..., want %d", len(s.names), s.names[:3], len(want))
	}
	// CPU 200: 1000000+200000 kHz = 1200 MHz, 40% of 3000000.
	if got := s.get(t, "1,200", "Processor Frequency"); got != 1200 {
		t.Errorf("cpu 200 MHz = %d", got)
	}
	if got := s.get(t, "1,200", "% of Maximum Frequency"); got != 40 {
		t.Errorf("cpu 200 %% of max = %d", got)
	}
	// Node 0 holds CPUs 0..127: average idle and frequency.
	var idle, khz uint64
	for n := uint64(0); n < 128; n++ {
		tm := manyTimes(n)
		idle += tm.Idle + tm.IOWait
		khz += 1000000 + 1000*n
	}
	if got, want := s.get(t, "0,_Total", "% Processor Time"), idle*100000/128; got != want {
		t.Errorf("node 0 idle = %d, want %d", got, want)
	}
	if got, want := s.get(t, "0,_Total", "Processor Frequency"), khz/128/1000; got != want {
		t.Errorf("node 0 MHz = %d, want %d", got, want)
	}
	if got, want := s.get(t, "0,_Total", "% of Maximum Frequency"), khz*100/(128*3000000); got != want {
		t.Errorf("node 0 %% of max = %d, want %d", got, want)
	}
	// Node totals hold the sum of their CPUs' interrupts.
	var intr uint64
	for n := uint64(128); n < 256; n++ {
		if n != 254 {
			intr += 3*n + 1
		}
	}
	if got := s.get(t, "1,_Total", "Interrupts/sec"); got != intr {
		t.Errorf("node 1 interrupts = %d, want %d", got, intr)
	}
}

func TestProcessorInformationNoCPUFreq(t *testing.T) {
	c := hostCollector()
	o := objectByName(t, c, "Processor Information")
	if o.Set.CounterByName("Processor Frequency") >= 0 {
		t.Fatal("frequency declared without cpufreq")
	}
	s := collectObject(t, c, o)
	if !slices.Equal(s.names, []string{"0,0", "0,1", "0,_Total", "_Total"}) {
		t.Fatalf("instances %q", s.names)
	}
	if got := s.get(t, "0,1", "% Processor Time"); got != (337951+92)*100000 {
		t.Errorf("cpu1 idle = %d", got)
	}
}

func TestMemoryHost(t *testing.T) {
	c := hostCollector()
	s := collectObject(t, c, objectByName(t, c, "Memory"))
	// By hand from testdata/host/proc/meminfo and vmstat.
	tests := []struct {
		counter string
		want    uint64
	}{
		{"Available Bytes", 24425904 * 1024},
		{"Available KBytes", 24425904},
		{"Available MBytes", 24425904 / 1024},
		{"Committed Bytes", 67976 * 1024},
		{"Commit Limit", 12341808 * 1024},
		{"Cache Bytes", (72632 + 2556) * 1024},
		{"Free & Zero Page List Bytes", 24501096 * 1024},
		{"Modified Page List Bytes", 324 * 1024},
		{"Page Faults/sec", 1496942},
		{"Page Reads/sec", 521},
		{"Pages/sec", 0},
		{"% Committed Bytes In Use", 67976 / 1024},
	}
	for _, tt := range tests {
		if got := s.get(t, "", tt.counter); got != tt.want {
			t.Errorf("%s = %d, want %d", tt.counter, got, tt.want)
		}
	}
	i := s.object.Set.CounterByName("% Committed Bytes In Use")
	if got := s.at(t, "", i+1); got != 12341808/1024 {
		t.Errorf("commit base = %d", got)
	}
}

func TestSystemHost(t *testing.T) {
	c := hostCollector()
	s := collectObject(t, c, objectByName(t, c, "System"))
	now := time.Date(2026, 11, 22, 21, 0, 0, 0, time.UTC)
	if s.pfreq != 10_000_000 || s.ptime != now.Unix()*10_000_000+116444736000000000 {
		t.Errorf("object time %d / %d", s.ptime, s.pfreq)
	}
	// The clock (2026-11-22 21:00:00 UTC, Unix 1795381200) less the uptime
	// (3429.43 s): Unix 1795377770.57, as FILETIME.
	if got, want := s.get(t, "", "System Up Time"), uint64(1795377770*10_000_000+5_700_000+116444736000000000); got != want {
		t.Errorf("boot FILETIME = %d, want %d", got, want)
	}
	if got := s.get(t, "", "Context Switches/sec"); got != 344468 {
		t.Errorf("ctxt = %d", got)
	}
	if got := s.get(t, "", "Threads"); got != 92 {
		t.Errorf("threads = %d", got)
	}
	if got := s.get(t, "", "Processor Queue Length"); got != 0 { // procs_running 1 on 2 CPUs
		t.Errorf("queue = %d", got)
	}
}

func TestSystemMany(t *testing.T) {
	c := manyCollector()
	s := collectObject(t, c, objectByName(t, c, "System"))
	if got := s.get(t, "", "Processor Queue Length"); got != 300-255 {
		t.Errorf("queue = %d, want 45", got)
	}
	if got := s.get(t, "", "Threads"); got != 40000 {
		t.Errorf("threads = %d", got)
	}
}

func TestObjectsCount(t *testing.T) {
	proc := fstest.MapFS{
		"1/stat":    {Data: []byte("x")},
		"42/stat":   {Data: []byte("x")},
		"self/stat": {Data: []byte("x")},
		"0abc/x":    {Data: []byte("x")},
		"loadavg":   {Data: []byte("0.00 0.01 0.05 1/7 99\n")},
	}
	c := NewCollector(proc, fstest.MapFS{})
	s := collectObject(t, c, objectByName(t, c, "Objects"))
	if p, th := s.get(t, "", "Processes"), s.get(t, "", "Threads"); p != 2 || th != 7 {
		t.Errorf("processes %d threads %d, want 2 and 7", p, th)
	}
}

func TestPhysicalDiskHost(t *testing.T) {
	c := hostCollector()
	s := collectObject(t, c, objectByName(t, c, "PhysicalDisk"))
	// loop0 and zram0 have size 0 in testdata/host/sys/block and are left out.
	if !slices.Equal(s.names, []string{"0 vda", "_Total"}) {
		t.Fatalf("instances %q", s.names)
	}
	const ts = 3429430 * 10000 // uptime 3429.43 s in 100 ns
	// vda: 11567 reads, 824930 sectors read, 4608 ms reading, 957 writes,
	// 376296 sectors written, 781 ms writing, 0 in flight, 1852 ms busy,
	// 5833 weighted ms.
	tests := []struct {
		counter string
		want    uint64
	}{
		{"Current Disk Queue Length", 0},
		{"% Disk Time", 5833 * 10000},
		{"Avg. Disk Queue Length", 5833 * 10000},
		{"% Disk Read Time", 4608 * 10000},
		{"% Disk Write Time", 781 * 10000},
		{"Avg. Disk sec/Read", 4608 * 1_000_000}, // ms in PerfFreq (1e9) ticks
		{"Avg. Disk sec/Write", 781 * 1_000_000},
		{"Avg. Disk sec/Transfer", (4608 + 781) * 1_000_000},
		{"Disk Reads/sec", 11567},
		{"Disk Writes/sec", 957},
		{"Disk Transfers/sec", 11567 + 957},
		{"Disk Read Bytes/sec", 824930 * 512},
		{"Disk Write Bytes/sec", 376296 * 512},
		{"Disk Bytes/sec", (824930 + 376296) * 512},
		{"Avg. Disk Bytes/Read", 824930 * 512},
		{"% Idle Time", ts - 1852*10000},
	}
	for _, tt := range tests {
		for _, inst := range []string{"0 vda", "_Total"} {
			if got := s.get(t, inst, tt.counter); got != tt.want {
				t.Errorf("%s %s = %d, want %d", inst, tt.counter, got, tt.want)
			}
		}
	}
	set := s.object.Set
	for _, name := range []string{"% Disk Time", "% Idle Time"} {
		if got := s.at(t, "0 vda", set.CounterByName(name)+1); got != ts {
			t.Errorf("%s base = %d, want %d", name, got, ts)
		}
	}
	if got := s.at(t, "0 vda", set.CounterByName("Avg. Disk sec/Read")+1); got != 11567 {
		t.Errorf("sec/Read base = %d", got)
	}
}

func TestPhysicalDiskPartitionsExcluded(t *testing.T) {
	proc := fstest.MapFS{
		"diskstats": {Data: []byte("   8 0 sda 10 0 80 5 20 0 160 7 1 9 12\n   8 1 sda1 4 0 32 2 6 0 48 3 0 4 5\n 259 0 nvme0n1 1 0 8 1 2 0 16 2 0 2 3\n")},
		"uptime":    {Data: []byte("100.00 50.00\n")},
	}
	sys := fstest.MapFS{
		"block/sda/size":     {Data: []byte("1000\n")},
		"block/nvme0n1/size": {Data: []byte("2000\n")},
	}
	c := NewCollector(proc, sys, WithUptime(func() time.Duration { return 100 * time.Second }))
	s := collectObject(t, c, objectByName(t, c, "PhysicalDisk"))
	// fs.ReadDir sorts: nvme0n1 before sda.
	if !slices.Equal(s.names, []string{"0 nvme0n1", "1 sda", "_Total"}) {
		t.Fatalf("instances %q", s.names)
	}
	if got := s.get(t, "_Total", "Disk Reads/sec"); got != 11 {
		t.Errorf("_Total reads = %d, want 11 (sda1 must not count)", got)
	}
	// Percent bases of _Total are the timestamp times the disk count.
	i := s.object.Set.CounterByName("% Idle Time")
	if got, want := s.at(t, "_Total", i+1), uint64(2*100*10_000_000); got != want {
		t.Errorf("_Total idle base = %d, want %d", got, want)
	}
	if got, want := s.at(t, "_Total", i), uint64(2*100*10_000_000-(9+2)*10000); got != want {
		t.Errorf("_Total idle = %d, want %d", got, want)
	}
}

func TestLogicalDiskHost(t *testing.T) {
	c := hostCollector()
	s := collectObject(t, c, objectByName(t, c, "LogicalDisk"))
	if !slices.Equal(s.names, []string{"/", "_Total"}) {
		t.Fatalf("instances %q", s.names)
	}
	// Faked statfs: 65536000 blocks of 4096 B = 256000 MB, 50000000 available = 195312.5 MB.
	i := s.object.Set.CounterByName("% Free Space")
	if got := s.at(t, "/", i); got != 195312 {
		t.Errorf("free = %d", got)
	}
	if got := s.at(t, "/", i+1); got != 256000 {
		t.Errorf("size = %d", got)
	}
	if got := s.get(t, "/", "Free Megabytes"); got != 195312 {
		t.Errorf("free MB = %d", got)
	}
	// "/" is mounted from /dev/vda: its activity is vda's.
	if got := s.get(t, "/", "Disk Reads/sec"); got != 11567 {
		t.Errorf("reads = %d", got)
	}
	if got := s.get(t, "_Total", "Free Megabytes"); got != 195312 {
		t.Errorf("_Total free MB = %d", got)
	}
}

func TestNetworkInterfaceHost(t *testing.T) {
	c := hostCollector()
	s := collectObject(t, c, objectByName(t, c, "Network Interface"))
	// lo's flags (testdata/host/sys/class/net/lo/flags, 0x9) have
	// IFF_LOOPBACK: left out, as Windows lists no loopback interface.
	if !slices.Equal(s.names, []string{"ifb0", "ifb1", "eth0"}) {
		t.Fatalf("instances %q", s.names)
	}
	// eth0: rx 11200157 bytes 572 packets; tx 55915 bytes 615 packets.
	tests := []struct {
		counter string
		want    uint64
	}{
		{"Bytes Total/sec", 11200157 + 55915},
		{"Bytes Received/sec", 11200157},
		{"Bytes Sent/sec", 55915},
		{"Packets/sec", 572 + 615},
		{"Packets Received Unicast/sec", 572},
		{"Packets Received Non-Unicast/sec", 0},
	}
	for _, tt := range tests {
		if got := s.get(t, "eth0", tt.counter); got != tt.want {
			t.Errorf("%s = %d, want %d", tt.counter, got, tt.want)
		}
	}
	// eth0's speed is -1 (virtio) and ifb0/ifb1 have none (EINVAL, here
	// no file): Current Bandwidth has no value, not 0.
	bw := s.object.Set.CounterByName("Current Bandwidth")
	for i := range s.names {
		if !slices.ContainsFunc(s.missing, func(m mark) bool { return m.inst == i && slices.Contains(m.counters, bw) }) {
			t.Errorf("%s: Current Bandwidth not marked unavailable (%v)", s.names[i], s.missing)
		}
	}
}

// TestNetworkInterfaceLoopbackAndSpeed checks which interfaces are left
// out as loopbacks (by IFF_LOOPBACK, or by the name lo where the flags
// cannot be read) and that a known speed is a value.
func TestNetworkInterfaceLoopbackAndSpeed(t *testing.T) {
	tests := []struct {
		name  string
		sys   fstest.MapFS
		names []string
		speed map[string]uint64 // known speeds in bit/s; others unavailable
	}{
		{"no /sys files: lo by name", fstest.MapFS{}, []string{"ifb0", "ifb1", "eth0"}, nil},
		{"flags say lo is not a loopback, eth0 is", fstest.MapFS{
			"class/net/lo/flags":   {Data: []byte("0x1003\n")},
			"class/net/eth0/flags": {Data: []byte("0x9\n")},
			"class/net/lo/speed":   {Data: []byte("1000\n")},
		}, []string{"lo", "ifb0", "ifb1"}, map[string]uint64{"lo": 1_000_000_000}},
		{"unreadable flags fall back to the name", fstest.MapFS{
			"class/net/lo/flags":   {Data: []byte("nine\n")},
			"class/net/eth0/speed": {Data: []byte("10000\n")},
		}, []string{"ifb0", "ifb1", "eth0"}, map[string]uint64{"eth0": 10_000_000_000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCollector(os.DirFS("testdata/host/proc"), tt.sys)
			s := collectObject(t, c, objectByName(t, c, "Network Interface"))
			if !slices.Equal(s.names, tt.names) {
				t.Fatalf("instances %q, want %q", s.names, tt.names)
			}
			bw := s.object.Set.CounterByName("Current Bandwidth")
			for i, n := range s.names {
				missing := slices.ContainsFunc(s.missing, func(m mark) bool { return m.inst == i && slices.Contains(m.counters, bw) })
				want, known := tt.speed[n]
				if missing == known {
					t.Errorf("%s: bandwidth unavailable = %v, want %v", n, missing, !known)
				}
				if known {
					if got := s.get(t, n, "Current Bandwidth"); got != want {
						t.Errorf("%s: bandwidth = %d, want %d", n, got, want)
					}
				}
			}
		})
	}
}

func TestProtocolsHost(t *testing.T) {
	c := hostCollector()
	// By hand from testdata/host/proc/net/snmp and snmp6.
	tests := []struct {
		object, counter string
		want            uint64
	}{
		{"TCPv4", "Segments/sec", 578 + 617},
		{"TCPv4", "Segments Received/sec", 578},
		{"TCPv4", "Connections Active", 13},
		{"TCPv4", "Connections Passive", 2},
		{"TCPv4", "Connections Established", 0},
		{"IPv4", "Datagrams/sec", 598 + 633},
		{"IPv4", "Datagrams Received Delivered/sec", 598},
		{"UDPv4", "Datagrams Received/sec", 19},
		{"UDPv4", "Datagrams Sent/sec", 20},
		{"ICMP", "Received Dest. Unreachable", 1},
		{"ICMP", "Messages Received/sec", 1},
		{"IPv6", "Datagrams/sec", 1 + 10},
		{"ICMPv6", "Messages/sec", 1 + 9},
		{"UDPv6", "Datagrams/sec", 0},
		{"TCPv6", "Connections Established", 0},
	}
	cache := map[string]*sample{}
	for _, tt := range tests {
		t.Run(tt.object+"/"+tt.counter, func(t *testing.T) {
			s := cache[tt.object]
			if s == nil {
				s = collectObject(t, c, objectByName(t, c, tt.object))
				cache[tt.object] = s
			}
			if got := s.get(t, "", tt.counter); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
	for name, s := range cache {
		if len(s.reasons) != 0 || len(s.missing) != 0 {
			t.Errorf("%s: partial on a complete host: %q, unavailable %v", name, s.reasons, s.missing)
		}
	}
}

func TestPagingFileMany(t *testing.T) {
	proc := fstest.MapFS{"swaps": {Data: must(os.ReadFile("testdata/many/proc/swaps"))}}
	c := NewCollector(proc, fstest.MapFS{})
	o := objectByName(t, c, "Paging File")
	s := collectObject(t, c, o)
	if !slices.Equal(s.names, []string{"/dev/sda2", "/swap file", "_Total"}) {
		t.Fatalf("instances %q", s.names)
	}
	want := map[string][4]uint64{
		"/dev/sda2":  {1048576, 8388604, 1048576, 8388604},
		"/swap file": {0, 2097148, 0, 2097148},
		"_Total":     {1048576, 8388604 + 2097148, 1048576, 8388604 + 2097148},
	}
	for inst, w := range want {
		for i := range w {
			if got := s.at(t, inst, i); got != w[i] {
				t.Errorf("%s[%d] = %d, want %d", inst, i, got, w[i])
			}
		}
	}
	// Use drops: the peak stays.
	proc["swaps"] = &fstest.MapFile{Data: []byte("Filename Type Size Used Priority\n/dev/sda2 partition 8388604 4096 -2\n")}
	s = collectObject(t, c, o)
	if got := s.at(t, "/dev/sda2", 0); got != 4096 {
		t.Errorf("usage = %d", got)
	}
	if got := s.at(t, "/dev/sda2", 2); got != 1048576 {
		t.Errorf("peak = %d, want 1048576", got)
	}
}

func TestMissingFilesAreWarnings(t *testing.T) {
	// /proc/stat only: Processor still reports, with zero interrupt counts
	// and warnings naming the missing tables.
	proc := fstest.MapFS{"stat": {Data: []byte("cpu  1 0 1 8 0 0 0 0\ncpu0 1 0 1 8 0 0 0 0\n")}}
	c := NewCollector(proc, fstest.MapFS{})
	s := collectObject(t, c, objectByName(t, c, "Processor"))
	if got := s.get(t, "0", "Interrupts/sec"); got != 0 {
		t.Errorf("interrupts = %d", got)
	}
	if len(s.reasons) != 2 {
		t.Errorf("reasons %q, want 2", s.reasons)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestNoFileSystems collects every object from a Collector without /proc
// and /sys: each fails or reports nothing, none panics.
func TestNoFileSystems(t *testing.T) {
	c := NewCollector(nil, nil)
	for _, o := range c.Objects() {
		t.Run(o.Set.Name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("panic: %v", r)
				}
			}()
			r := &nilWriter{}
			_ = o.Collect(c, nopCol{}, r)
		})
	}
}

type nilWriter struct{}

func (nilWriter) Instance(string, uint32, uint32, int32) perfdata.Values { return perfdata.Values{} }
func (nilWriter) Single() perfdata.Values                                { return perfdata.Values{} }
func (nilWriter) SetObjectTime(int64, int64)                             {}

// TestMalformedValuesReported replaces one number of a host fixture file
// with text: the object is still delivered, the reason names the file,
// line and field, and the counters fed by the value are unavailable.
func TestMalformedValuesReported(t *testing.T) {
	stat := string(must(os.ReadFile("testdata/host/proc/stat")))
	meminfo := string(must(os.ReadFile("testdata/host/proc/meminfo")))
	tests := []struct {
		object, file, old, new string
		reason                 string // the file's line is found by the test
		marks                  []mark
	}{
		{"Memory", "meminfo", "MemAvailable:   24425904", "MemAvailable:   24x25904", `MemAvailable: "24x25904" is not a number`,
			[]mark{{-1, []int{memAvailableBytes, memAvailableKBytes, memAvailableMBytes}}}},
		{"System", "stat", "ctxt 344468", "ctxt 3444z8", `ctxt: "3444z8" is not a number`,
			[]mark{{-1, []int{sysContextSwitches}}}},
		{"Processor", "stat", "cpu1 ", "cpu1 q", `cpu1: "q`,
			[]mark{{1, []int{cpuProcessorTime, cpuUserTime, cpuPrivilegedTime, cpuDPCTime, cpuInterruptTime, cpuIdleTime,
				cpuNiceTime, cpuIOWaitTime, cpuStealTime, cpuGuestTime, cpuSoftIRQTime}}}},
	}
	for _, tt := range tests {
		t.Run(tt.object, func(t *testing.T) {
			src := map[string]string{"stat": stat, "meminfo": meminfo}[tt.file]
			if !strings.Contains(src, tt.old) {
				t.Fatalf("fixture %s has no %q", tt.file, tt.old)
			}
			line := strings.Count(src[:strings.Index(src, tt.old)], "\n") + 1
			bad := strings.Replace(src, tt.old, tt.new, 1)
			proc := overlay{m: fstest.MapFS{tt.file: {Data: []byte(bad)}}, base: os.DirFS("testdata/host/proc")}
			c := NewCollector(proc, os.DirFS("testdata/host/sys"), WithClock(time.Now), WithUptime(func() time.Duration { return time.Hour }))
			s := collectObject(t, c, objectByName(t, c, tt.object))
			want := fmt.Sprintf("/proc/%s line %d: %s", tt.file, line, tt.reason)
			found := false
			for _, r := range s.reasons {
				found = found || strings.HasPrefix(r, want)
			}
			if !found {
				t.Errorf("reasons %q, want one starting %q", s.reasons, want)
			}
			if fmt.Sprint(s.missing) != fmt.Sprint(tt.marks) {
				t.Errorf("unavailable %v, want %v", s.missing, tt.marks)
			}
		})
	}
}
