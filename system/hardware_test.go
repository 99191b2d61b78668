package system

import (
	"os"
	"slices"
	"testing"
	"testing/fstest"
)

// TestHardwareFixture checks the hwmon and thermal objects on
// testdata/hw (PROVENANCE.md there); values by hand: Kelvin is
// (millidegrees + 273150) / 1000 rounded, tenths (… + 50) / 100.
func TestHardwareFixture(t *testing.T) {
	c := fixtureCollector("testdata/hw")
	objs := c.sensorObjects()
	var names []string
	for _, o := range objs {
		names = append(names, o.Set.Name)
	}
	if !slices.Equal(names, []string{"Temperature Sensor", "Fan", "Power Meter", "Thermal Zone Information"}) {
		t.Fatalf("objects %q", names)
	}
	tests := []struct {
		object    string
		instances []string
		inst      string
		vals      []uint64
	}{
		{"Temperature Sensor",
			[]string{"nvme:Composite", "nvme:Sensor 1", "nvme:Sensor 2", "nvme:Sensor 8", "hwmon4:foosensor", "hwmon4:foosensor"},
			"nvme:Sensor 2", []uint64{319, 3190}}, // 45850 m°C: 319.0 K
		{"Temperature Sensor", nil, "nvme:Composite", []uint64{317, 3170}},   // 43850: 317.0 K
		{"Temperature Sensor", nil, "hwmon4:foosensor", []uint64{328, 3282}}, // 55000: 328.15 K
		{"Fan", []string{"nct6775:fan1", "nct6775:fan2"}, "nct6775:fan1", []uint64{1132}},
		{"Power Meter", []string{"nct6775:power1", "nct6775:CPU"}, "nct6775:power1", []uint64{12500}}, // power1_average 12.5 W
		{"Power Meter", nil, "nct6775:CPU", []uint64{3950}},
		{"Thermal Zone Information", []string{"x86_pkg_temp", "acpitz"}, "acpitz", []uint64{301, 3010}}, // 27800: 300.95 K
		{"Thermal Zone Information", nil, "x86_pkg_temp", []uint64{320, 3202}},                          // 47000: 320.15 K
	}
	for _, tt := range tests {
		t.Run(tt.object+"/"+tt.inst, func(t *testing.T) {
			o := objs[slices.Index(names, tt.object)]
			s := collectObject(t, c, o)
			if tt.instances != nil && !slices.Equal(s.names, tt.instances) {
				t.Fatalf("instances %q, want %q", s.names, tt.instances)
			}
			if len(s.reasons) != 0 {
				t.Errorf("reasons %q", s.reasons)
			}
			for i, want := range tt.vals {
				if got := s.at(t, tt.inst, i); got != want {
					t.Errorf("%s: got %d, want %d", o.Set.Counters[i].Name, got, want)
				}
			}
		})
	}
}

// TestHardwareAbsent: a host without hwmon or thermal zones declares none
// of the objects (this development machine is one).
func TestHardwareAbsent(t *testing.T) {
	c := fixtureCollector("testdata/cgroup/v2")
	if objs := c.sensorObjects(); len(objs) != 0 {
		t.Fatalf("declared %d objects", len(objs))
	}
}

// TestCPUInfoFrequency: without cpufreq, Processor Information takes the
// frequency of /proc/cpuinfo ("cpu MHz : 2445.422" for both CPUs of
// testdata/hw/proc/cpuinfo) and declares no % of Maximum Frequency.
func TestCPUInfoFrequency(t *testing.T) {
	info, err := os.ReadFile("testdata/hw/proc/cpuinfo")
	if err != nil {
		t.Fatal(err)
	}
	proc := overlay{m: fstest.MapFS{"cpuinfo": {Data: info}}, base: os.DirFS("testdata/host/proc")}
	c := NewCollector(proc, os.DirFS("testdata/hw/sys"))
	o := c.processorInformationObject()
	if o.Set.CounterByName("Processor Frequency") < 0 || o.Set.CounterByName("% of Maximum Frequency") >= 0 {
		t.Fatalf("frequency counters: %d, %d", o.Set.CounterByName("Processor Frequency"), o.Set.CounterByName("% of Maximum Frequency"))
	}
	s := collectObject(t, c, o)
	for _, inst := range []string{"0,0", "0,1", "0,_Total", "_Total"} {
		if got := s.get(t, inst, "Processor Frequency"); got != 2445 {
			t.Errorf("%s: %d MHz, want 2445", inst, got)
		}
	}
}

func TestParseCPUInfoMHz(t *testing.T) {
	tests := []struct {
		in   string
		want map[int]uint64
		bad  bool
	}{
		{"processor\t: 0\ncpu MHz\t\t: 2445.422\nprocessor\t: 3\ncpu MHz\t\t: 800\n", map[int]uint64{0: 2445422, 3: 800000}, false},
		{"processor : 1\ncpu MHz : 3.5\n", map[int]uint64{1: 3500}, false},
		{"processor : 1\ncpu MHz : 1.23456\n", map[int]uint64{1: 1234}, false},
		{"cpu MHz : 1\n", nil, true},
		{"processor : x\n", nil, true},
		{"processor : 0\ncpu MHz : 1.2x\n", nil, true},
		{"processor : 0\ncpu MHz : \n", nil, true},
		{"processor : 99999\n", nil, true},
		{"model name : ARM\n", map[int]uint64{}, false},
	}
	for _, tt := range tests {
		got := map[int]uint64{}
		err := parseCPUInfoMHz([]byte(tt.in), func(c int, k uint64) { got[c] = k })
		if (err != nil) != tt.bad {
			t.Errorf("%q: err %v", tt.in, err)
			continue
		}
		if !tt.bad && !mapsEqual(got, tt.want) {
			t.Errorf("%q: got %v, want %v", tt.in, got, tt.want)
		}
	}
}

func mapsEqual(a, b map[int]uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
