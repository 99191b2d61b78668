package system

import (
	"slices"
	"testing"
)

func TestParsePressure(t *testing.T) {
	tests := []struct {
		in   string
		want psi
		bad  bool
	}{
		{"some avg10=30.28 avg60=15.21 avg300=27.04 total=7627488452\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
			psi{Some: psiLine{3028, 1521, 2704, 7627488452}, HasSome: true, HasFull: true}, false},
		// irq has only a full line (Linux 6.1).
		{"full avg10=0.10 avg60=0.05 avg300=0.01 total=9\n", psi{Full: psiLine{10, 5, 1, 9}, HasFull: true}, false},
		// A key the kernel may add later is skipped; one decimal is tenths.
		{"some avg10=1.5 avg60=0.00 avg300=0.00 total=1 newkey=x\n", psi{Some: psiLine{150, 0, 0, 1}, HasSome: true}, false},
		{"some avg10=100.00 avg60=0 avg300=0.00 total=5\n", psi{Some: psiLine{10000, 0, 0, 5}, HasSome: true}, false},
		{"", psi{}, true},
		{"garbage\n", psi{}, true},
		{"some avg10=1.234 total=1\n", psi{}, true},
		{"some avg10=x total=1\n", psi{}, true},
		{"some avg10=1.00 total=-1\n", psi{}, true},
		{"some avg10\n", psi{}, true},
		{"some avg10=. total=1\n", psi{}, true},
	}
	for _, tt := range tests {
		got, err := parsePressure([]byte(tt.in))
		if (err != nil) != tt.bad {
			t.Errorf("%q: err %v", tt.in, err)
			continue
		}
		if !tt.bad && got != tt.want {
			t.Errorf("%q: got %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestParseIOStat(t *testing.T) {
	tests := []struct {
		in   string
		want ioTotals
		bad  bool
	}{
		// Documentation/admin-guide/cgroup-v2.rst's example.
		{"8:16 rbytes=1459200 wbytes=314773504 rios=192 wios=353 dbytes=0 dios=0\n8:0 rbytes=90430464 wbytes=299008000 rios=8950 wios=1252 dbytes=50331648 dios=3021\n",
			ioTotals{91889664, 613781504, 9142, 1605}, false},
		{"", ioTotals{}, false},
		{"254:0 rbytes=1\n", ioTotals{ReadBytes: 1}, false},
		{"254:0 rbytes=x\n", ioTotals{}, true},
		{"sda rbytes=1\n", ioTotals{}, true},
		{"8:0 rbytes\n", ioTotals{}, true},
	}
	for _, tt := range tests {
		got, err := parseIOStat([]byte(tt.in))
		if (err != nil) != tt.bad || (!tt.bad && got != tt.want) {
			t.Errorf("%q: got %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseBlkioStat(t *testing.T) {
	tests := []struct {
		in          string
		read, write uint64
		bad         bool
	}{
		{"8:0 Read 90112\n8:0 Write 4096\n8:0 Sync 94208\n8:0 Async 0\n8:0 Discard 0\n8:0 Total 94208\n8:16 Read 1\n8:16 Write 2\nTotal 94211\n", 90113, 4098, false},
		{"Total 0\n", 0, 0, false},
		{"8:0 Read x\n", 0, 0, true},
		{"disk Read 1\n", 0, 0, true},
	}
	for _, tt := range tests {
		r, w, err := parseBlkioStat([]byte(tt.in))
		if (err != nil) != tt.bad || (!tt.bad && (r != tt.read || w != tt.write)) {
			t.Errorf("%q: got %d %d %v", tt.in, r, w, err)
		}
	}
}

func TestParseCPUMaxAndLimits(t *testing.T) {
	tests := []struct {
		in            string
		quota, period uint64
		limited, bad  bool
	}{
		{"max 100000\n", 0, 100000, false, false},
		{"50000 100000\n", 50000, 100000, true, false},
		{"50000 0\n", 0, 0, false, true},
		{"max\n", 0, 0, false, true},
		{"-1 100000\n", 0, 0, false, true},
	}
	for _, tt := range tests {
		q, p, l, err := parseCPUMax([]byte(tt.in))
		if (err != nil) != tt.bad || (!tt.bad && (q != tt.quota || p != tt.period || l != tt.limited)) {
			t.Errorf("cpu.max %q: %d %d %v %v", tt.in, q, p, l, err)
		}
	}
	if v, l, err := parseLimit([]byte("max\n")); err != nil || l || v != 0 {
		t.Errorf("memory.max max: %d %v %v", v, l, err)
	}
	if v, l, err := parseLimit([]byte("268435456\n")); err != nil || !l || v != 268435456 {
		t.Errorf("memory.max number: %d %v %v", v, l, err)
	}
	if _, _, err := parseLimit([]byte("lots\n")); err == nil {
		t.Error("memory.max lots accepted")
	}
	for in, want := range map[string]int64{"-1\n": -1, "50000\n": 50000, "0": 0} {
		if got, ok := parseSigned([]byte(in)); !ok || got != want {
			t.Errorf("parseSigned(%q) = %d, %v", in, got, ok)
		}
	}
	for _, in := range []string{"-", "--1", "1x", "", "-99999999999999999999"} {
		if _, ok := parseSigned([]byte(in)); ok {
			t.Errorf("parseSigned(%q) accepted", in)
		}
	}
}

func TestParseCgroupMounts(t *testing.T) {
	in := `tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0
cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,nosuid,cpu,cpuacct 0 0
cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0
cgroup /sys/fs/cgroup/systemd cgroup rw,relatime,name=systemd 0 0
cgroup /mnt/again cgroup rw,memory 0 0
cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0
cgroup2 /other cgroup2 rw 0 0
`
	got := parseCgroupMounts([]byte(in))
	want := []cgroupMount{
		{dir: "/sys/fs/cgroup/cpu,cpuacct", controllers: []string{"cpu", "cpuacct"}},
		{dir: "/sys/fs/cgroup/memory", controllers: []string{"memory"}},
		{dir: "/sys/fs/cgroup/unified", v2: true},
	}
	if !slices.EqualFunc(got, want, func(a, b cgroupMount) bool {
		return a.dir == b.dir && a.v2 == b.v2 && slices.Equal(a.controllers, b.controllers)
	}) {
		t.Errorf("got %+v", got)
	}
}

func TestShortenContainerIDs(t *testing.T) {
	const id = "3f2c1b0a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b"
	tests := []struct{ in, want string }{
		{"/system.slice/docker-" + id + ".scope", "/system.slice/docker-3f2c1b0a9e8d.scope"},
		{"/machine.slice/libpod-" + id + ".scope/container", "/machine.slice/libpod-3f2c1b0a9e8d.scope/container"},
		{"/kubepods.slice/kubepods-burstable.slice/cri-containerd-" + id + ".scope", "/kubepods.slice/kubepods-burstable.slice/cri-containerd-3f2c1b0a9e8d.scope"},
		{"/kubepods/burstable/podabc/crio-" + id, "/kubepods/burstable/podabc/crio-3f2c1b0a9e8d"},
		{"/docker/" + id, "/docker/3f2c1b0a9e8d"},
		{"/docker/" + id + "/nested/" + id, "/docker/3f2c1b0a9e8d/nested/3f2c1b0a9e8d"},
		{"/system.slice/nginx.service", "/system.slice/nginx.service"},
		{"/docker/" + id[:63], "/docker/" + id[:63]},                                         // 63 digits: not an id
		{"/docker/" + id[:63] + "G", "/docker/" + id[:63] + "G"},                             // not hex
		{"/system.slice/docker-" + id + "x.scope", "/system.slice/docker-" + id + "x.scope"}, // 65 characters
		{"/", "/"},
	}
	for _, tt := range tests {
		if got := shortenContainerIDs(tt.in); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseSensorValue(t *testing.T) {
	for in, want := range map[string]int64{"43850\n": 43850, "-150\n": -150, "0": 0} {
		if got, err := parseSensorValue([]byte(in)); err != nil || got != want {
			t.Errorf("%q: %d %v", in, got, err)
		}
	}
	for _, in := range []string{"", "-", "4.5", "abc", "99999999999999999999"} {
		if _, err := parseSensorValue([]byte(in)); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
	for milli, want := range map[int64][2]uint64{-273150: {0, 0}, 0: {273, 2732}, 45850: {319, 3190}, -40000: {233, 2332}} {
		k, tenths, ok := kelvin(milli)
		if !ok || k != want[0] || tenths != want[1] {
			t.Errorf("kelvin(%d) = %d, %d, %v; want %v", milli, k, tenths, ok, want)
		}
	}
	if _, _, ok := kelvin(-273151); ok {
		t.Error("below absolute zero accepted")
	}
}
