package system

import "testing"

// TestIdleHold checks that the idle time the Processor objects show never
// advances more than the clock (so % Processor Time = 100 × (1 − ΔN/ΔD)
// never goes negative), that the excess shows later, and that nothing but
// an excess is changed. Times are FILETIME units (1 s = 10^7); ticks are
// USER_HZ = 100, so 1 s holds 100 ticks.
func TestIdleHold(t *testing.T) {
	const s = 10_000_000
	type step struct {
		now      int64
		idle     uint64 // cpu0's idle ticks read from /proc/stat
		iowait   uint64
		wantIdle uint64 // what is shown
		wantIO   uint64
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"ahead by a tick, then room", []step{
			{1 * s, 1000, 0, 1000, 0},
			{2*s + s/1000, 1101, 0, 1100, 0}, // 1.001 s = 100 whole ticks; 101 read
			{3 * s, 1150, 0, 1150, 0},        // 0.999 s = 99 ticks of room; 50 read
		}},
		{"never more than read", []step{
			{1 * s, 500, 20, 500, 20},
			{2 * s, 540, 30, 540, 30},
		}},
		{"idle first, then iowait", []step{
			{1 * s, 500, 20, 500, 20},
			{2 * s, 500, 125, 495, 125}, // 105 ticks in 100: 5 held, from idle
			{3 * s, 600, 130, 590, 130}, // 730 read, 620 shown before: 10 held
		}},
		{"clock went back: nothing held", []step{
			{5 * s, 500, 0, 500, 0},
			{4 * s, 700, 0, 700, 0},
		}},
		{"unknown time: nothing held", []step{
			{0, 500, 0, 500, 0},
			{0, 900, 0, 900, 0},
		}},
		{"counter reset is shown as read", []step{
			{1 * s, 500, 0, 500, 0},
			{2 * s, 10, 0, 10, 0},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var h idleHold
			for i, st := range c.steps {
				ks := kernelStat{
					CPUs:  []cpuTimes{{Idle: st.idle, IOWait: st.iowait}},
					IDs:   []int{0},
					Total: cpuTimes{Idle: st.idle, IOWait: st.iowait},
				}
				h.apply(&ks, st.now, 100)
				got := ks.CPUs[0]
				if got.Idle != st.wantIdle || got.IOWait != st.wantIO {
					t.Errorf("step %d: idle %d iowait %d, want %d %d", i, got.Idle, got.IOWait, st.wantIdle, st.wantIO)
				}
				if ks.Total != got {
					t.Errorf("step %d: aggregate %+v, want %+v (one CPU)", i, ks.Total, got)
				}
			}
		})
	}
}

// TestIdleHoldCPUs checks CPUs by id (one going offline and another coming
// online) and the aggregate line's limit of n × the elapsed ticks.
func TestIdleHoldCPUs(t *testing.T) {
	const s = 10_000_000
	var h idleHold
	ks := kernelStat{
		CPUs:  []cpuTimes{{Idle: 100}, {Idle: 200}},
		IDs:   []int{0, 1},
		Total: cpuTimes{Idle: 300},
	}
	h.apply(&ks, s, 100)
	ks = kernelStat{
		CPUs:  []cpuTimes{{Idle: 205}, {Idle: 310}}, // 105 and 110 ticks in 100
		IDs:   []int{0, 1},
		Total: cpuTimes{Idle: 515},
	}
	h.apply(&ks, 2*s, 100)
	if ks.CPUs[0].Idle != 200 || ks.CPUs[1].Idle != 300 || ks.Total.Idle != 500 {
		t.Errorf("held %d %d total %d, want 200 300 500", ks.CPUs[0].Idle, ks.CPUs[1].Idle, ks.Total.Idle)
	}
	// CPU 1 goes offline, CPU 2 (never seen) comes online: CPU 2 is shown
	// as read, and the aggregate (a different CPU count) too.
	ks = kernelStat{
		CPUs:  []cpuTimes{{Idle: 290}, {Idle: 7000}},
		IDs:   []int{0, 2},
		Total: cpuTimes{Idle: 7290},
	}
	h.apply(&ks, 3*s, 100)
	if ks.CPUs[0].Idle != 290 || ks.CPUs[1].Idle != 7000 || ks.Total.Idle != 7290 {
		t.Errorf("after hotplug %d %d total %d, want 290 7000 7290", ks.CPUs[0].Idle, ks.CPUs[1].Idle, ks.Total.Idle)
	}
	if len(h.cpus) != 2 {
		t.Errorf("%d CPUs remembered, want 2 (CPU 1 forgotten)", len(h.cpus))
	}
}
