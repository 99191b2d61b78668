package system

import (
	"bytes"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The live tests compare objects with an independent reading of the same
// kernel file (split with bytes.Fields, not this package's parsers) taken
// just before and just after the collection.

func liveCollector(t *testing.T) *Collector {
	t.Helper()
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skip("no /proc on this host")
	}
	return NewCollector(os.DirFS("/proc"), os.DirFS("/sys"))
}

// procLine returns the fields of the first line of /proc/name whose first
// field is key.
func procLine(t *testing.T, name, key string) [][]byte {
	t.Helper()
	b, err := os.ReadFile("/proc/" + name)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		f := bytes.Fields(line)
		if len(f) > 0 && string(f[0]) == key {
			return f
		}
	}
	t.Fatalf("/proc/%s: no %q line", name, key)
	return nil
}

func num(t *testing.T, b []byte) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestLiveProcessorIdle brackets cpu0's raw % Processor Time (idle +
// iowait in 100 ns) between two direct readings of /proc/stat: idle time
// only grows, so before <= collected <= after holds exactly.
func TestLiveProcessorIdle(t *testing.T) {
	c := liveCollector(t)
	idle := func() uint64 {
		f := procLine(t, "stat", "cpu0")
		return (num(t, f[4]) + num(t, f[5])) * 100000 // USER_HZ 100
	}
	before := idle()
	s := collectObject(t, c, objectByName(t, c, "Processor"))
	after := idle()
	got := s.get(t, "0", "% Processor Time")
	if got < before || got > after {
		t.Errorf("cpu0 idle %d not within [%d, %d]", got, before, after)
	}
}

// TestLiveMemoryAvailable compares Available Bytes with MemAvailable.
// Memory is not monotonic, so the check allows 64 MiB beyond the range
// of two direct readings: other programs on a shared test machine
// allocate and free memory in the microseconds between the readings, and
// 64 MiB is far below any error of unit (a KiB/byte mix-up is 1024x).
func TestLiveMemoryAvailable(t *testing.T) {
	c := liveCollector(t)
	avail := func() uint64 { return num(t, procLine(t, "meminfo", "MemAvailable:")[1]) * 1024 }
	a := avail()
	s := collectObject(t, c, objectByName(t, c, "Memory"))
	b := avail()
	got := s.get(t, "", "Available Bytes")
	const slack = 64 << 20
	lo, hi := min(a, b), max(a, b)
	if got+slack < lo || got > hi+slack {
		t.Errorf("Available Bytes %d, /proc/meminfo says %d then %d", got, a, b)
	}
}

// TestLiveLogicalDiskRoot compares "/" free space with statfs("/"),
// allowing 64 MB for files written by other programs between the calls.
func TestLiveLogicalDiskRoot(t *testing.T) {
	c := liveCollector(t)
	s := collectObject(t, c, objectByName(t, c, "LogicalDisk"))
	if _, ok := s.vals["/"]; !ok {
		t.Skipf("/ is not a block-device or real file system here (instances %q)", s.names)
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs("/", &st); err != nil {
		t.Fatal(err)
	}
	freeMB := st.Bavail * uint64(st.Frsize) >> 20
	sizeMB := st.Blocks * uint64(st.Frsize) >> 20
	got := s.get(t, "/", "Free Megabytes")
	if d := int64(got) - int64(freeMB); d < -64 || d > 64 {
		t.Errorf("Free Megabytes %d, statfs says %d", got, freeMB)
	}
	i := s.object.Set.CounterByName("% Free Space")
	if base := s.at(t, "/", i+1); base != sizeMB {
		t.Errorf("size %d MB, statfs says %d", base, sizeMB)
	}
}

// TestLivePhysicalDisk brackets each disk's completed reads.
func TestLivePhysicalDisk(t *testing.T) {
	c := liveCollector(t)
	readsOf := func(dev string) uint64 {
		b, err := os.ReadFile("/proc/diskstats")
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			f := bytes.Fields(line)
			if len(f) > 3 && string(f[2]) == dev {
				return num(t, f[3])
			}
		}
		t.Fatalf("no %s in /proc/diskstats", dev)
		return 0
	}
	ents, err := os.ReadDir("/sys/block")
	if err != nil {
		t.Skip(err)
	}
	before := map[string]uint64{}
	for _, e := range ents {
		before[e.Name()] = readsOf(e.Name())
	}
	s := collectObject(t, c, objectByName(t, c, "PhysicalDisk"))
	for _, name := range s.names {
		if name == "_Total" {
			continue
		}
		dev := name[bytes.IndexByte([]byte(name), ' ')+1:]
		after := readsOf(dev)
		got := s.get(t, name, "Disk Reads/sec")
		// Disk Reads/sec is a DWORD: compare modulo 2^32.
		if uint32(got-before[dev]) > uint32(after-before[dev]) {
			t.Errorf("%s reads %d not within [%d, %d]", name, got, before[dev], after)
		}
	}
}

// bootTolerance is how far (in 100 ns) two estimates of the boot time may
// be apart: /proc/uptime counts in 10 ms steps, and the collection and the
// test read it a few milliseconds apart at most.
const bootTolerance = 250_000

// liveBootFileTime is the boot time as FILETIME, computed here as the clock
// less the first field of /proc/uptime read in the same moment.
func liveBootFileTime(t *testing.T) uint64 {
	t.Helper()
	b, err := os.ReadFile("/proc/uptime")
	now := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	sec, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		t.Fatalf("/proc/uptime %q: %v", b, err)
	}
	return uint64(now.UnixNano()/100) - uint64(sec*1e7) + 116444736000000000
}

// TestLiveSystemUpTime compares the boot FILETIME with the clock less
// /proc/uptime read in the same moment (btime of /proc/stat is whole
// seconds, up to a second off).
func TestLiveSystemUpTime(t *testing.T) {
	c := liveCollector(t)
	s := collectObject(t, c, objectByName(t, c, "System"))
	want := liveBootFileTime(t)
	if got := s.get(t, "", "System Up Time"); int64(got-want) < -bootTolerance || int64(got-want) > bootTolerance {
		t.Errorf("boot FILETIME %d, want %d (now less /proc/uptime) within %d", got, want, bootTolerance)
	}
	if up := (s.ptime - int64(s.get(t, "", "System Up Time"))) / 10_000_000; up <= 0 {
		t.Errorf("up time %d s", up)
	}
}

// TestLiveBusyCPU burns one CPU for a second between two samples and
// checks that the formula of PERF_100NSEC_TIMER_INV on _Total (average
// busy percentage) agrees with /proc/stat's own busy share, read directly
// at the same moments, and shows at least most of one CPU's worth.
func TestLiveBusyCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("burns a CPU for a second")
	}
	c := liveCollector(t)
	o := objectByName(t, c, "Processor")
	totals := func() (idle, all uint64) {
		f := procLine(t, "stat", "cpu")
		for i, x := range f[1:] {
			if i >= 8 { // guest and guest_nice are included in user and nice
				break
			}
			v := num(t, x)
			all += v
			if i == 3 || i == 4 {
				idle += v
			}
		}
		return idle, all
	}
	i0, a0 := totals()
	t0 := time.Now()
	s0 := collectObject(t, c, o)
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		x := 0
		for time.Since(t0) < time.Second {
			x++
		}
		_ = x
		close(done)
	}()
	<-done
	s1 := collectObject(t, c, o)
	t1 := time.Now()
	i1, a1 := totals()
	d100ns := float64(t1.Sub(t0).Nanoseconds()) / 100
	ours := 100 * (1 - float64(s1.get(t, "_Total", "% Processor Time")-s0.get(t, "_Total", "% Processor Time"))/d100ns)
	kernel := 100 * (1 - float64(i1-i0)/float64(a1-a0))
	n := float64(runtime.NumCPU())
	t.Logf("%%Processor Time _Total: ours %.1f, /proc/stat %.1f, %v CPUs", ours, kernel, n)
	if ours < kernel-10 || ours > kernel+10 {
		t.Errorf("ours %.1f%%, /proc/stat %.1f%%", ours, kernel)
	}
	if ours < 0.8*100/n {
		t.Errorf("ours %.1f%% is below 80%% of one CPU out of %v", ours, n)
	}
}

// TestLiveNetworkAndTCP brackets an interface's received bytes and TCP's
// received segments, both monotonic, between two direct readings, and
// checks that the loopback interface is left out.
func TestLiveNetworkAndTCP(t *testing.T) {
	c := liveCollector(t)
	first := collectObject(t, c, objectByName(t, c, "Network Interface"))
	if slices.Contains(first.names, "lo") {
		t.Errorf("the loopback interface lo is listed: %q", first.names)
	}
	if len(first.names) == 0 {
		t.Skip("no network interface but the loopback")
	}
	nic := first.names[0]
	loRx := func() uint64 {
		f := procLine(t, "net/dev", nic+":")
		return num(t, f[1])
	}
	inSegs := func() uint64 {
		b, err := os.ReadFile("/proc/net/snmp")
		if err != nil {
			t.Fatal(err)
		}
		var hdr [][]byte
		for _, line := range bytes.Split(b, []byte("\n")) {
			f := bytes.Fields(line)
			if len(f) == 0 || string(f[0]) != "Tcp:" {
				continue
			}
			if hdr == nil {
				hdr = f
				continue
			}
			for i := range hdr {
				if string(hdr[i]) == "InSegs" {
					return num(t, f[i])
				}
			}
		}
		t.Fatal("no Tcp InSegs")
		return 0
	}
	a, sa := loRx(), inSegs()
	ni := collectObject(t, c, objectByName(t, c, "Network Interface"))
	tcp := collectObject(t, c, objectByName(t, c, "TCPv4"))
	b, sb := loRx(), inSegs()
	if got := ni.get(t, nic, "Bytes Received/sec"); got < a || got > b {
		t.Errorf("%s bytes received %d not within [%d, %d]", nic, got, a, b)
	}
	// Segments Received/sec is a DWORD: compare modulo 2^32.
	if got := tcp.get(t, "", "Segments Received/sec"); uint32(got-sa) > uint32(sb-sa) {
		t.Errorf("TCP segments received %d not within [%d, %d]", got, sa, sb)
	}
}

// TestSinceBootMatchesUptime compares SinceBoot with /proc/uptime read in
// the same moment.
func TestSinceBootMatchesUptime(t *testing.T) {
	liveCollector(t)
	b, err := os.ReadFile("/proc/uptime")
	got := SinceBoot()
	if err != nil {
		t.Fatal(err)
	}
	sec, err := strconv.ParseFloat(strings.Fields(string(b))[0], 64)
	if err != nil {
		t.Fatal(err)
	}
	if d := got - time.Duration(sec*float64(time.Second)); d < 0 || d > 25*time.Millisecond {
		t.Errorf("SinceBoot %v, /proc/uptime %.2f s: %v apart (want 0 to 25 ms: uptime counts in 10 ms steps)", got, sec, d)
	}
}
