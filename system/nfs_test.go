package system

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/procscan"
	"github.com/perfcounters/perfcounters/titles"
)

// The NFS tests read testdata/nfs (PROVENANCE.md there says where each file
// comes from): t0 holds real captures, t1 the same files with increments
// made by hand, meant as ten seconds later. Every expected value below is
// worked out by hand from the fixture text.

// nfsFixture returns a Collector over the /proc of testdata/nfs/<dir>.
func nfsFixture(dir string) *Collector {
	return NewCollector(os.DirFS("testdata/nfs/"+dir+"/proc"), fstest.MapFS{})
}

// nfsObj returns the NFS object named name of c, failing when c does not
// declare it.
func nfsObj(t *testing.T, c *Collector, name string) Object {
	t.Helper()
	for _, o := range c.nfsObjects() {
		if o.Set.Name == name {
			return o
		}
	}
	t.Fatalf("no object %q", name)
	return Object{}
}

// nfsRate computes counter's value for instance inst between samples s0 and
// s1 taken secs seconds apart, with calc (PDH's formulas).
func nfsRate(t *testing.T, s0, s1 *sample, inst, counter string, secs int64) float64 {
	t.Helper()
	i := s1.object.Set.CounterByName(counter)
	if i < 0 {
		t.Fatalf("no counter %q", counter)
	}
	typ := s1.object.Set.Counters[i].Type
	raw := func(s *sample, at int64) calc.Raw {
		var base uint64
		if typ.NeedsBase() {
			base = s.at(t, inst, i+1)
		}
		return calc.MakeRaw(typ, calc.Clocks{PerfTime: at, PerfFreq: 1e9, PerfTime100nSec: at / 100}, s.at(t, inst, i), base, 0)
	}
	r0, r1 := raw(s0, 1e9), raw(s1, (1+secs)*1e9)
	x, st := calc.Compute(typ, &r1, &r0)
	if st != calc.ValidData {
		t.Fatalf("%s(%s)\\%s: status %v", s1.object.Set.Name, inst, counter, st)
	}
	return x
}

// nfsUnavailable reports whether counter of instance inst ("" for a
// single-instance object) was marked unavailable.
func nfsUnavailable(t *testing.T, s *sample, inst, counter string) bool {
	t.Helper()
	i := s.object.Set.CounterByName(counter)
	if i < 0 {
		t.Fatalf("no counter %q", counter)
	}
	pos := slices.Index(s.names, inst)
	if !s.object.Set.Instancing.Multi() {
		pos = -1 // Single does not start an instance
	}
	for _, m := range s.missing {
		if m.inst == pos && (len(m.counters) == 0 || slices.Contains(m.counters, i)) {
			return true
		}
	}
	return false
}

// TestNFSDeclarations: the three objects are declared on the fixture, valid,
// every counter's help names the file it reads, and no counter name is one
// Windows or another object of this package already has (a title index
// has one help text, so a shared name would show another counter's).
func TestNFSDeclarations(t *testing.T) {
	c := nfsFixture("t0")
	objs := c.nfsObjects()
	var names []string
	for _, o := range objs {
		names = append(names, o.Set.Name)
	}
	if want := []string{"NFS Client", "NFS Server", "NFS Mount"}; !slices.Equal(names, want) {
		t.Fatalf("objects %q, want %q", names, want)
	}
	others := map[string]string{}
	for _, o := range append(hostCollector().Objects(), fixtureCollector("testdata/hw").LinuxObjects()...) {
		for _, ct := range o.Set.Counters {
			others[strings.ToLower(ct.Name)] = o.Set.Name
		}
	}
	files := map[string]string{"NFS Client": "/proc/net/rpc/nfs", "NFS Server": "/proc/net/rpc/nfsd", "NFS Mount": "/proc/self/mountstats"}
	mine := map[string]string{}
	for _, o := range objs {
		if err := o.Set.Validate(); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(o.Set.Help, files[o.Set.Name]) {
			t.Errorf("%s: help does not name %s", o.Set.Name, files[o.Set.Name])
		}
		for i, ct := range o.Set.Counters {
			if ct.ID != uint32(i) || !strings.Contains(ct.Help, files[o.Set.Name]) || !strings.Contains(ct.Help, "field") {
				t.Errorf("%s\\%s: ID %d, help %q: want ID %d and the file and field named", o.Set.Name, ct.Name, ct.ID, ct.Help, i)
			}
			if ct.Type.IsBase() {
				continue
			}
			k := strings.ToLower(ct.Name)
			if idx, ok := titles.EnglishIndex(ct.Name); ok {
				t.Errorf("%s\\%s: Windows has the name (index %d)", o.Set.Name, ct.Name, idx)
			}
			if other, ok := others[k]; ok {
				t.Errorf("%s\\%s: %s has the name", o.Set.Name, ct.Name, other)
			}
			if other, ok := mine[k]; ok {
				t.Errorf("%s\\%s: %s has the name", o.Set.Name, ct.Name, other)
			}
			mine[k] = o.Set.Name
		}
	}
}

// TestNFSAbsent: each object exists only where its file does.
func TestNFSAbsent(t *testing.T) {
	nfs, _ := os.ReadFile("testdata/nfs/t0/proc/net/rpc/nfs")
	nfsd, _ := os.ReadFile("testdata/nfs/t0/proc/net/rpc/nfsd")
	ms, _ := os.ReadFile("testdata/nfs/t0/proc/self/mountstats")
	local := []byte("device /dev/sda1 mounted on / with fstype ext4\ndevice proc mounted on /proc with fstype proc\n")
	tests := []struct {
		name string
		proc fstest.MapFS
		want []string
	}{
		{"nothing", fstest.MapFS{}, nil},
		{"local mounts only", fstest.MapFS{"self/mountstats": {Data: local}}, nil},
		{"client module", fstest.MapFS{"net/rpc/nfs": {Data: nfs}, "self/mountstats": {Data: local}}, []string{"NFS Client", "NFS Mount"}},
		{"server only", fstest.MapFS{"net/rpc/nfsd": {Data: nfsd}, "self/mountstats": {Data: local}}, []string{"NFS Server"}},
		{"mount, no client file", fstest.MapFS{"self/mountstats": {Data: ms}}, []string{"NFS Mount"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, o := range NewCollector(tc.proc, fstest.MapFS{}).nfsObjects() {
				got = append(got, o.Set.Name)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("objects %q, want %q", got, tc.want)
			}
		})
	}
	if objs := NewCollector(nil, fstest.MapFS{}).nfsObjects(); objs != nil {
		t.Errorf("no /proc: %d objects", len(objs))
	}
}

// TestNFSFileGone: an object declared when its file existed reports the
// file's absence at a later sample, and its values as unavailable.
func TestNFSFileGone(t *testing.T) {
	nfs, _ := os.ReadFile("testdata/nfs/t0/proc/net/rpc/nfs")
	proc := fstest.MapFS{"net/rpc/nfs": {Data: nfs}, "net/rpc/nfsd": {Data: nfs}}
	c := NewCollector(proc, fstest.MapFS{})
	objs := c.nfsObjects()
	delete(proc, "net/rpc/nfs")
	delete(proc, "net/rpc/nfsd")
	for _, o := range objs {
		s := collectObject(t, c, o)
		if len(s.reasons) != 1 || !strings.Contains(s.reasons[0], "/proc/") {
			t.Errorf("%s: reasons %q, want the missing file", o.Set.Name, s.reasons)
		}
		if o.Set.Name == "NFS Mount" {
			if len(s.names) != 0 {
				t.Errorf("NFS Mount: instances %q without mountstats", s.names)
			}
			continue
		}
		if len(s.missing) != 1 || len(s.missing[0].counters) != 0 {
			t.Errorf("%s: unavailable %v, want every counter", o.Set.Name, s.missing)
		}
	}
}

// nfsWant is one expected value: a raw value, or a rate over the ten
// seconds from t0 to t1.
type nfsWant struct {
	inst, counter string
	raw           uint64  // at t0
	rate          float64 // t0 to t1
}

func checkNFS(t *testing.T, object string, wants []nfsWant) {
	t.Helper()
	c0, c1 := nfsFixture("t0"), nfsFixture("t1")
	s0 := collectObject(t, c0, nfsObj(t, c0, object))
	s1 := collectObject(t, c1, nfsObj(t, c1, object))
	for _, s := range []*sample{s0, s1} {
		if len(s.reasons) != 0 || len(s.missing) != 0 {
			t.Fatalf("%s: reasons %q, unavailable %v", object, s.reasons, s.missing)
		}
	}
	for _, w := range wants {
		if got := s0.get(t, w.inst, w.counter); got != w.raw {
			t.Errorf("%s(%s)\\%s raw = %d, want %d", object, w.inst, w.counter, got, w.raw)
		}
		if got := nfsRate(t, s0, s1, w.inst, w.counter, 10); math.Abs(got-w.rate) > 1e-9*math.Max(1, w.rate) {
			t.Errorf("%s(%s)\\%s = %v over 10 s, want %v", object, w.inst, w.counter, got, w.rate)
		}
	}
}

// TestNFSClient: NFS Client on t0 and t1.
func TestNFSClient(t *testing.T) {
	checkNFS(t, "NFS Client", []nfsWant{
		{"", "RPC Calls/sec", 4329785, 100},   // rpc +1000
		{"", "RPC Retransmissions/sec", 0, 2}, // +20
		{"", "% RPC Retransmissions", 0, 2},   // 20 of 1000 calls
		{"", "RPC Authentication Refreshes/sec", 4338291, 100},
		{"", "NFSv2 Calls/sec", 2 + 69 + 4410 + 99 + 2, 0},
		{"", "NFSv3 Calls/sec", 4327403, 100}, // the 22 counts of proc3 summed; +100 +600 +300
		{"", "NFSv4 Calls/sec", 1 + 1 + 1 + 2, 0},
		{"", "Read Calls/sec", 47747, 60},           // proc3 READ (field 8)
		{"", "Write Calls/sec", 7981, 30},           // proc3 WRITE (field 9)
		{"", "Getattr Calls/sec", 69 + 4084749, 10}, // proc2 and proc3 GETATTR
		{"", "Lookup Calls/sec", 4410 + 94754, 0},
		{"", "Readdir Calls/sec", 99 + 0 + 241, 0}, // proc2 READDIR, proc3 READDIR and READDIRPLUS
		{"", "Remove Calls/sec", 6962 + 2, 0},      // proc3 REMOVE, proc4 REMOVE (field 23)
		{"", "Fsstat Calls/sec", 2 + 4, 0},
		{"", "Commit Calls/sec", 39, 0},
		{"", "Symlink Calls/sec", 6356, 0},
		{"", "Rename Calls/sec", 7958, 0},
		{"", "Open Calls/sec", 0, 0},
	})
}

// TestNFSServer: NFS Server on t0 and t1.
func TestNFSServer(t *testing.T) {
	checkNFS(t, "NFS Server", []nfsWant{
		{"", "RPC Requests/sec", 18628, 50},
		{"", "RPC Bad Requests/sec", 3, 0.1},
		{"", "Reply Cache Hits/sec", 0, 1},
		{"", "Reply Cache Misses/sec", 6, 4},
		{"", "Reply Cache Uncached Requests/sec", 18622, 45},
		{"", "Stale File Handles/sec", 0, 0.3},
		{"", "Server Threads", 8, 8},
		{"", "Disk Bytes Read/sec", 157286400, 1048576},
		{"", "Disk Bytes Written/sec", 72864, 104857.6},
		{"", "Network Packets/sec", 972, 50},
		{"", "UDP Packets/sec", 55, 0},
		{"", "TCP Packets/sec", 917, 50},
		{"", "TCP Connections Accepted/sec", 1, 0.2},
		{"", "NFSv2 Requests/sec", 2 + 69 + 4410 + 99 + 2, 0},
		{"", "NFSv3 Requests/sec", 2 + 112 + 2719 + 111 + 27 + 216 + 2 + 1, 20},
		{"", "NFSv4 Compounds/sec", 2 + 10853, 30},
		{"", "NFSv4 Operations/sec", 33354, 105}, // the 72 counts summed; +250 +300 +200 +300
		{"", "Read Requests/sec", 150, 30},       // OP_READ (field 27); +100 (proc3) +200 (OP_READ)
		{"", "Write Requests/sec", 0, 5},
		{"", "Commit Requests/sec", 0, 1},
		{"", "Getattr Requests/sec", 69 + 112 + 8179, 29},
		{"", "Lookup Requests/sec", 4410 + 2719 + 5900, 0},
		{"", "Access Requests/sec", 111 + 1098, 0},
		{"", "Readdir Requests/sec", 99 + 27 + 216 + 1272, 0},
		{"", "Open Requests/sec", 2, 0},
		{"", "Close Requests/sec", 2, 0},
		{"", "Fsstat Requests/sec", 2, 0},
	})
}

// TestNFSMount: NFS Mount on t0 and t1; only /mnt/nfs/test changes.
func TestNFSMount(t *testing.T) {
	const kube = "/var/lib/kubelet/pods/1c2215a7-0d92-4df5-83ce-a807bcc2f8c8/volumes/kubernetes.io~nfs/home-automation--node-red-data--pv0001"
	const m = "/mnt/nfs/test"
	c := nfsFixture("t0")
	s := collectObject(t, c, nfsObj(t, c, "NFS Mount"))
	if want := []string{m, kube, "<mountpoint>"}; !slices.Equal(s.names, want) {
		t.Fatalf("instances %q, want %q", s.names, want)
	}
	checkNFS(t, "NFS Mount", []nfsWant{
		{m, "Normal Read Bytes/sec", 1207640230, 1048576}, // +10 MiB
		{m, "Normal Write Bytes/sec", 0, 209715.2},        // +2 MiB
		{m, "Direct Read Bytes/sec", 0, 0},
		{m, "Direct Write Bytes/sec", 0, 0},
		{m, "Server Read Bytes/sec", 1210214218, 1048576},
		{m, "Server Write Bytes/sec", 0, 209715.2},
		{m, "Calls/sec", 1298 + 2927395007, 10}, // READ +80, WRITE +20
		{m, "Reads/sec", 1298, 8},
		{m, "Writes/sec", 0, 2},
		{m, "Retransmissions/sec", 0, 0.2}, // ACCESS has fewer transmissions than operations: 0
		{m, "% Retransmissions", 0, 2},     // 2 of 100 calls
		{m, "Major Timeouts/sec", 0, 0.1},
		{m, "Avg. Read RTT (ms)", 79386, 5},          // 400 ms over 80 reads
		{m, "Avg. Read Execute Time (ms)", 79407, 6}, // 480 / 80
		{m, "Avg. Write RTT (ms)", 0, 5},             // 100 / 20
		{m, "Avg. Write Execute Time (ms)", 0, 7},    // 140 / 20
		{kube, "Normal Read Bytes/sec", 2021340783, 0},
		{kube, "Normal Write Bytes/sec", 39056395530, 0},
		{kube, "Server Read Bytes/sec", 1788561151, 0},
		{kube, "Server Write Bytes/sec", 39087991255, 0},
		{kube, "Calls/sec", 733186, 0}, // field 1 of its 59 per-op lines
		{kube, "Reads/sec", 34096, 0},
		{kube, "Writes/sec", 322308, 0},
		{kube, "Avg. Read RTT (ms)", 464840, 0}, // no read in the interval: 0
		{kube, "Avg. Write Execute Time (ms)", 411864389, 0},
		{"<mountpoint>", "Normal Read Bytes/sec", 3104202770327296, 0},
		{"<mountpoint>", "Server Read Bytes/sec", 2013200952170479, 0},
		{"<mountpoint>", "Calls/sec", 16 + 512052 + 16713 + 211705 + 2654501510 + 56356 + 2 + 1, 0},
		{"<mountpoint>", "Avg. Read RTT (ms)", 31407021389, 0},
		{"<mountpoint>", "Avg. Read Execute Time (ms)", 37927280438, 0},
	})
}

// TestNFSOtherFiles reads the other captures once: an older client file
// (proc4 48) and a busy NFSv3 server.
func TestNFSOtherFiles(t *testing.T) {
	nfs, _ := os.ReadFile("testdata/nfs/other/nfs.node_exporter")
	nfsd, _ := os.ReadFile("testdata/nfs/other/nfsd.procfs")
	c := NewCollector(fstest.MapFS{"net/rpc/nfs": {Data: nfs}, "net/rpc/nfsd": {Data: nfsd}}, fstest.MapFS{})
	cl := collectObject(t, c, nfsObj(t, c, "NFS Client"))
	sv := collectObject(t, c, nfsObj(t, c, "NFS Server"))
	for _, s := range []*sample{cl, sv} {
		if len(s.reasons) != 0 || len(s.missing) != 0 {
			t.Fatalf("%s: reasons %q, unavailable %v", s.object.Set.Name, s.reasons, s.missing)
		}
	}
	for _, w := range []struct {
		s       *sample
		counter string
		want    uint64
	}{
		{cl, "RPC Calls/sec", 1218785755},
		{cl, "RPC Retransmissions/sec", 374636},
		{cl, "Read Calls/sec", 45 + 29391916 + 51},      // proc2 field 8, proc3 field 8, proc4 field 3
		{cl, "Open Calls/sec", 85 + 24},                 // proc4 OPEN and OPEN_NOATTR (fields 6, 8)
		{cl, "Lock Calls/sec", 39 + 68 + 59},            // proc4 LOCK, LOCKT, LOCKU (fields 16-18)
		{cl, "Getattr Calls/sec", 57 + 1061909262 + 88}, // proc4 GETATTR (field 20)
		{sv, "RPC Requests/sec", 44177753},
		{sv, "Server Threads", 1024},
		{sv, "Disk Bytes Written/sec", 2470085989},
		{sv, "Write Requests/sec", 21668847},
		{sv, "Commit Requests/sec", 1989658},
		{sv, "Readdir Requests/sec", 1101 + 56245},
		{sv, "Rmdir Requests/sec", 1253},
		{sv, "Stale File Handles/sec", 276},
		{sv, "NFSv4 Operations/sec", 0},
	} {
		if got := w.s.get(t, "", w.counter); got != w.want {
			t.Errorf("%s\\%s = %d, want %d", w.s.object.Set.Name, w.counter, got, w.want)
		}
	}
}

// TestNFSMalformed: a malformed line or field is reported naming the file,
// the line and the field, and only the counters it feeds are unavailable.
func TestNFSMalformed(t *testing.T) {
	proc3 := "proc3 22 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22\n"
	mount := "device srv:/x mounted on /m with fstype nfs statvers=1.1\n"
	ops := "\tper-op statistics\n\t        READ: 1 1 0 0 0 0 0 0 0\n"
	tests := []struct {
		name, object, file, data string
		reason                   string   // a reason the collection must report
		gone                     []string // counters that must be unavailable
		kept                     []string // counters that must not be
	}{
		{"client rpc value", "NFS Client", "net/rpc/nfs", "rpc 10 x 3\n" + proc3,
			`/proc/net/rpc/nfs line 1: rpc field 2: "x" is not a number`,
			[]string{"RPC Calls/sec", "% RPC Retransmissions", "RPC Authentication Refreshes/sec"}, []string{"NFSv3 Calls/sec", "Read Calls/sec"}},
		{"client short proc3", "NFS Client", "net/rpc/nfs", "rpc 1 2 3\nproc3 22 1 2 3\nproc4 2 5 6\n",
			"/proc/net/rpc/nfs line 2: proc3 field 5: missing",
			[]string{"NFSv3 Calls/sec", "Read Calls/sec", "Access Calls/sec"}, []string{"RPC Calls/sec", "NFSv4 Calls/sec", "Open Calls/sec"}},
		{"client procedure count", "NFS Client", "net/rpc/nfs", "rpc 1 2 3\nproc3 99999 1\n",
			"/proc/net/rpc/nfs line 2: proc3 field 1: 99999 procedures, more than 1024",
			[]string{"NFSv3 Calls/sec", "Write Calls/sec"}, []string{"RPC Calls/sec"}},
		{"client no rpc line", "NFS Client", "net/rpc/nfs", proc3,
			"/proc/net/rpc/nfs: no rpc line",
			[]string{"RPC Calls/sec", "RPC Retransmissions/sec"}, []string{"NFSv3 Calls/sec"}},
		{"server rc short", "NFS Server", "net/rpc/nfsd", "rc 1 2\nfh 0\nio 1 2\nth 8\nnet 1 2 3 4\nrpc 1 0\n" + proc3,
			"/proc/net/rpc/nfsd line 1: rc field 3: missing",
			[]string{"Reply Cache Hits/sec", "Reply Cache Misses/sec", "Reply Cache Uncached Requests/sec"}, []string{"RPC Requests/sec", "Server Threads", "Read Requests/sec"}},
		{"server no th line", "NFS Server", "net/rpc/nfsd", "rc 1 2 3\nfh 0\nio 1 2\nnet 1 2 3 4\nrpc 1 0\n",
			"/proc/net/rpc/nfsd: no th line",
			[]string{"Server Threads"}, []string{"Disk Bytes Read/sec", "Read Requests/sec"}},
		{"server proc4ops value", "NFS Server", "net/rpc/nfsd", "rc 1 2 3\nfh 0\nio 1 2\nth 8\nnet 1 2 3 4\nrpc 1 0\nproc4ops 3 0 1 -2\n",
			`/proc/net/rpc/nfsd line 7: proc4ops field 4: "-2" is not a number`,
			[]string{"NFSv4 Operations/sec", "Read Requests/sec", "Access Requests/sec"}, []string{"Mkdir Requests/sec", "NFSv4 Compounds/sec"}},
		{"mount bytes value", "NFS Mount", "self/mountstats", mount + "\tage:\t1\n\tbytes:\t1 2 x 4 5 6 7 8\n" + ops,
			`/proc/self/mountstats line 3: bytes field 3: "x" is not a number`,
			[]string{"Normal Read Bytes/sec", "Server Write Bytes/sec"}, []string{"Calls/sec", "Avg. Read RTT (ms)"}},
		{"mount short op line", "NFS Mount", "self/mountstats", mount + "\tbytes:\t1 2 3 4 5 6 7 8\n\tper-op statistics\n\t        READ: 1 2 3\n",
			"/proc/self/mountstats line 4: READ field 4: missing",
			[]string{"Calls/sec", "Reads/sec", "Avg. Read RTT (ms)", "% Retransmissions"}, []string{"Normal Read Bytes/sec"}},
		{"mount no bytes line", "NFS Mount", "self/mountstats", mount + ops,
			`/proc/self/mountstats line 1: mount "/m": no bytes line`,
			[]string{"Normal Read Bytes/sec"}, []string{"Reads/sec"}},
		{"mount bad device line", "NFS Mount", "self/mountstats", "device x mounted at /y\n" + mount + "\tbytes:\t1 2 3 4 5 6 7 8\n" + ops,
			`/proc/self/mountstats line 1: "device x mounted at /y" is not "device D mounted on M with fstype T"`,
			nil, []string{"Normal Read Bytes/sec", "Reads/sec"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			proc := fstest.MapFS{tc.file: {Data: []byte(tc.data)}}
			if tc.object == "NFS Mount" {
				proc["net/rpc/nfs"] = &fstest.MapFile{Data: []byte("rpc 0 0 0\n")}
			}
			c := NewCollector(proc, fstest.MapFS{})
			s := collectObject(t, c, nfsObj(t, c, tc.object))
			if !slices.Contains(s.reasons, tc.reason) {
				t.Errorf("reasons %q, want %q", s.reasons, tc.reason)
			}
			inst := ""
			if tc.object == "NFS Mount" {
				inst = "/m"
				if !slices.Contains(s.names, inst) {
					t.Fatalf("instances %q, want /m", s.names)
				}
			}
			for _, n := range tc.gone {
				if !nfsUnavailable(t, s, inst, n) {
					t.Errorf("%s is not marked unavailable", n)
				}
			}
			for _, n := range tc.kept {
				if nfsUnavailable(t, s, inst, n) {
					t.Errorf("%s is marked unavailable", n)
				}
			}
		})
	}
}

// TestNFSMountWants: a query for byte counters only leaves the per-op
// lines unparsed, so a malformed one is not reported.
func TestNFSMountWants(t *testing.T) {
	data := "device srv:/x mounted on /m with fstype nfs\n\tbytes:\t1 2 3 4 5 6 7 8\n\tper-op statistics\n\t        READ: 1 x\n"
	c := NewCollector(fstest.MapFS{"self/mountstats": {Data: []byte(data)}}, fstest.MapFS{})
	o := nfsObj(t, c, "NFS Mount")
	b := collectObjectWant(t, c, o, []int{nmNormalRead})
	if len(b.reasons) != 0 || b.get(t, "/m", "Normal Read Bytes/sec") != 1 {
		t.Errorf("bytes only: reasons %q, value %d", b.reasons, b.get(t, "/m", "Normal Read Bytes/sec"))
	}
	all := collectObject(t, c, o)
	if len(all.reasons) != 1 || !strings.Contains(all.reasons[0], "line 4: READ field 2") {
		t.Errorf("every counter: reasons %q", all.reasons)
	}
}

// collectObjectWant is collectObject for a query naming the counters want.
func collectObjectWant(t *testing.T, c *Collector, o Object, want []int) *sample {
	t.Helper()
	inner := o.Collect
	o.Collect = func(c *Collector, col Collection, w Writer) error {
		col.(*probe).want = want
		return inner(c, col, w)
	}
	return collectObject(t, c, o)
}

// TestNFSMountNames: a mount point is unescaped (\040 is a space) and cut to
// 1,024 bytes on a rune boundary; several NFS mounts keep file order.
func TestNFSMountNames(t *testing.T) {
	long := "/" + strings.Repeat("a", 1022) + "€€"
	data := "device srv:/x mounted on /mnt/my\\040share with fstype nfs4 statvers=1.1\n\tbytes:\t0 0 0 0 0 0 0 0\n\tper-op statistics\n" +
		"device tmpfs mounted on /tmp with fstype tmpfs\n" +
		"device srv:/y mounted on " + long + " with fstype nfs statvers=1.1\n\tbytes:\t0 0 0 0 0 0 0 0\n\tper-op statistics\n"
	c := NewCollector(fstest.MapFS{"self/mountstats": {Data: []byte(data)}}, fstest.MapFS{})
	o := nfsObj(t, c, "NFS Mount")
	for range 2 { // the second sample reuses the names
		s := collectObject(t, c, o)
		want := []string{"/mnt/my share", runePrefix(long, 1024)}
		if !slices.Equal(s.names, want) || len(s.reasons) != 0 {
			t.Fatalf("instances %q, reasons %q; want %q", s.names, s.reasons, want)
		}
		if n := s.names[1]; len(n) > 1024 || !utf8.ValidString(n) {
			t.Errorf("name of %d bytes", len(n))
		}
	}
}

// TestNFSMountBound: at most maxNFSMounts mounts are shown, and the rest is
// reported.
func TestNFSMountBound(t *testing.T) {
	var b bytes.Buffer
	for i := range maxNFSMounts + 3 {
		b.WriteString("device s:/x mounted on /m")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(" with fstype nfs\n\tbytes:\t0 0 0 0 0 0 0 0\n\tper-op statistics\n")
	}
	var p nfsProblems
	ms := parseMountStats(b.Bytes(), true, nil, &p)
	if len(ms) != maxNFSMounts || p.n != 1 || !strings.Contains(p.list[0], "more than 4096 NFS mounts") {
		t.Errorf("%d mounts, problems %q", len(ms), p.list)
	}
}

// TestLiveNFSClient compares NFS Client with nfsstat -c where the host has
// an NFS client (skipped elsewhere, as on this project's machines).
func TestLiveNFSClient(t *testing.T) {
	if _, err := os.Stat("/proc/net/rpc/nfs"); err != nil {
		t.Skip("no /proc/net/rpc/nfs on this host")
	}
	nfsstat, err := exec.LookPath("nfsstat")
	if err != nil {
		t.Skip("no nfsstat")
	}
	c := liveCollector(t)
	o := nfsObj(t, c, "NFS Client")
	calls := func() uint64 {
		out, err := exec.Command(nfsstat, "-c", "-r").Output()
		if err != nil {
			t.Skipf("nfsstat -c -r: %v", err)
		}
		// "Client rpc stats:\ncalls      retrans    authrefrsh\nN M K"
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) >= 1 && f[0] == "calls" && sc.Scan() {
				var n uint64
				for _, ch := range strings.Fields(sc.Text())[0] {
					n = n*10 + uint64(ch-'0')
				}
				return n
			}
		}
		t.Skipf("nfsstat -c -r printed no calls line: %q", out)
		return 0
	}
	before := calls()
	s := collectObject(t, c, o)
	after := calls()
	got := s.get(t, "", "RPC Calls/sec")
	if got < before || got > after {
		t.Errorf("RPC Calls = %d, nfsstat said %d before and %d after", got, before, after)
	}
}

// TestNFSAllocs: once the instance names are made, a sample of the three
// objects allocates nothing (the parsed files and the names are kept
// between samples).
func TestNFSAllocs(t *testing.T) {
	r, err := procscan.Open("testdata/nfs/t0/proc", procscan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := NewCollector(nil, fstest.MapFS{}, WithProcReader(r))
	objs := c.nfsObjects()
	if len(objs) != 3 {
		t.Fatalf("%d objects", len(objs))
	}
	checkSampleAllocs(t, c, objs)
}
