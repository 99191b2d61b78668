package otlp

import (
	"testing"

	ct "github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// TestLinuxObjectRules maps package system's Linux-only objects (built
// here as blocks with their English names, as the host registers them)
// to the container and hardware conventions; values by hand.
func TestLinuxObjectRules(t *testing.T) {
	db := titles.English()
	reg := func(name string) uint32 {
		i, err := db.Register(name, "")
		if err != nil {
			t.Fatal(err)
		}
		return i
	}
	cg := reg("Control Group")
	user, kern := reg("Current % User Mode Time"), reg("Current % Kernel Mode Time")
	mem, ws := reg("Memory Usage Bytes"), reg("Memory Working Set Bytes")
	pf, maj := reg("Memory Page Faults/sec"), reg("Memory Major Page Faults/sec")
	rd, wr := reg("Block Read Bytes/sec"), reg("Block Write Bytes/sec")
	ts, hp := reg("Temperature Sensor"), reg("High Precision Temperature")
	fan, rpm := reg("Fan"), reg("Fan Speed (RPM)")
	blk := buildBlock(t, perfdata.Header{PerfTime: 1, PerfFreq: 1e7, PerfTime100nSec: t0, SystemName: "T"}, []objDef{
		{
			spec: perfdata.ObjectSpec{NameIndex: cg},
			counters: []perfdata.CounterSpec{
				c(user, ct.PERF_PRECISION_100NS_TIMER), c(user, ct.PERF_LARGE_RAW_BASE),
				c(kern, ct.PERF_PRECISION_100NS_TIMER), c(kern, ct.PERF_LARGE_RAW_BASE),
				c(mem, ct.PERF_COUNTER_LARGE_RAWCOUNT), c(ws, ct.PERF_COUNTER_LARGE_RAWCOUNT),
				c(pf, ct.PERF_COUNTER_BULK_COUNT), c(maj, ct.PERF_COUNTER_BULK_COUNT),
				c(rd, ct.PERF_COUNTER_BULK_COUNT), c(wr, ct.PERF_COUNTER_BULK_COUNT),
			},
			instances: []instDef{{name: "/system.slice/docker-3f2c1b0a9e8d.scope", vals: []uint64{
				61391500, 2e11, 28530590, 2e11, 139350016, 87842816, 132306, 524, 91889664, 613781504}}},
		},
		{
			spec:      perfdata.ObjectSpec{NameIndex: ts},
			counters:  []perfdata.CounterSpec{c(hp, ct.PERF_COUNTER_RAWCOUNT)},
			instances: []instDef{{name: "nvme:Composite", vals: []uint64{3170}}, {name: "nvme:Composite", vals: []uint64{2680}}},
		},
		{
			spec:      perfdata.ObjectSpec{NameIndex: fan},
			counters:  []perfdata.CounterSpec{c(rpm, ct.PERF_COUNTER_RAWCOUNT)},
			instances: []instDef{{name: "nct6775:fan1", vals: []uint64{1132}}},
		},
	})
	s, err := pdh.NewSample([][]byte{blk})
	if err != nil {
		t.Fatal(err)
	}
	e := bareExporter(&memSource{db: db}, Options{})
	for _, o := range []uint32{cg, ts, fan} {
		e.export[o] = &Selection{}
	}
	e.useRules()
	cap := walkCapture(e, s)
	const g = `perf.instance=/system.slice/docker-3f2c1b0a9e8d.scope`
	want := map[string]float64{
		"container.cpu.time{cpu.mode=user," + g + "}":                              6.13915, // 100 ns units / 10^7
		"container.cpu.time{cpu.mode=system," + g + "}":                            2.853059,
		"container.memory.usage{" + g + "}":                                        139350016,
		"container.memory.working_set{" + g + "}":                                  87842816,
		"container.memory.paging.faults{" + g + ",system.paging.fault.type=major}": 524,
		"container.memory.paging.faults{" + g + ",system.paging.fault.type=minor}": 132306 - 524,
		"container.disk.io{disk.io.direction=read," + g + "}":                      91889664,
		"container.disk.io{disk.io.direction=write," + g + "}":                     613781504,
		"hw.temperature{hw.id=nvme:Composite}":                                     44, // 3170 tenths of K: 43.85 °C
		"hw.temperature{hw.id=nvme:Composite#1}":                                   -5, // 2680: -5.15 °C
		"hw.fan.speed{hw.id=nct6775:fan1}":                                         1132,
	}
	for k, v := range want {
		if got, ok := cap.vals[k]; !ok || !near(got, v) {
			t.Errorf("%s = %v (%v), want %v", k, got, ok, v)
		}
	}
	// The counters the table carries are not also exported generically.
	for k := range cap.vals {
		if k == "perfc.control_group.current_user_mode_time{"+g+"}" || k == "perfc.fan.fan_speed_rpm{perf.instance=nct6775:fan1}" {
			t.Errorf("%s exported twice", k)
		}
	}
	if t.Failed() {
		t.Logf("all: %v", cap.vals)
	}
}
