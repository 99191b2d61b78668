package pla

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/perfcounters/perfcounters/pdh"
)

// TestAlertChurn: what an alert set keeps per instance follows the
// instances of the latest sample, and a full state table still judges
// the newest instances. The runaway process ("zz", listed after every
// other) goes past the threshold at its first sample.
func TestAlertChurn(t *testing.T) {
	const n = MaxAlertStates
	fresh := func(k, count int, v uint64) map[string]uint64 {
		m := map[string]uint64{}
		for i := range count {
			m[fmt.Sprintf("p%d-%d", k, i)] = v
		}
		return m
	}
	with := func(m map[string]uint64, name string, v uint64) map[string]uint64 {
		m[name] = v
		return m
	}
	// live is the same n processes in every sample, at v.
	live := func(v uint64) map[string]uint64 { return fresh(0, n, v) }
	cases := []struct {
		name  string
		hold  uint32
		procs []map[string]uint64
		// the samples at which zz fires (OnChange: at each change to
		// firing), the states kept at the end, whether the table-full
		// warning is due
		fires  []int
		states int
		warned bool
	}{
		// n short-lived processes a sample: the table is full of the
		// previous sample's, which go before the new ones are judged.
		{"short-lived processes", 1, []map[string]uint64{
			fresh(1, n, 1), fresh(2, n, 1), with(fresh(3, n, 1), "zz", 500), with(fresh(4, n, 1), "zz", 500),
			{"zz": 500}, {"zz": 500},
		}, []int{2}, 1, false},
		// n live processes below the threshold: zz takes the place of one,
		// and its history counts towards the hold.
		{"full of idle instances", 2, []map[string]uint64{
			live(1), live(1), with(live(1), "zz", 500), with(live(1), "zz", 500), with(live(1), "zz", 500),
		}, []int{3}, n, false},
		// n live processes past the threshold, firing: zz is judged
		// without its history, and the warning log says the table is full.
		{"full of firing instances", 1, []map[string]uint64{
			live(500), live(500), with(live(500), "zz", 500),
		}, []int{2}, n, true},
		// Processes come and go, a few at a time: the table returns to
		// the live ones.
		{"churn", 1, []map[string]uint64{
			fresh(1, 50, 1), fresh(2, 50, 1), fresh(3, 50, 1), with(fresh(4, 50, 1), "zz", 500),
			{"zz": 500}, {"zz": 500},
		}, []int{3}, 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			set := alertSet("churn", `\Process(*)\Working Set>100`)
			set.Alert.Hold, set.Alert.OnChange, set.Alert.EventLog = tc.hold, true, true
			var warnings []string
			warn := func(msg string) { warnings = append(warnings, msg) }
			var fires []int
			sample := 0
			log := func(_ string, e AlertEvent) error {
				if e.Kind == "fired" && e.Counter == `\Process(zz)\Working Set` {
					fires = append(fires, sample)
				}
				return nil
			}
			paths := alertPaths(set)
			o, err := newAlertOutput(set, newActivity(stateDir(t), set.Name, warn), nil, log, nil, warn, paths, paths)
			if err != nil {
				t.Fatal(err)
			}
			// The path's check takes the first sample, Collect the others.
			q := pdh.OpenQuery(&seqSource{procs: append(tc.procs[:1:1], tc.procs...)})
			for _, p := range paths {
				if _, err := q.AddCounter(p); err != nil {
					t.Fatal(err)
				}
			}
			for sample = range tc.procs {
				if err := q.Collect(context.Background()); err != nil {
					t.Fatal(err)
				}
				if err := o.write(context.Background(), q); err != nil {
					t.Fatal(err)
				}
				if len(o.state) > MaxAlertStates {
					t.Fatalf("%d states kept, more than %d", len(o.state), MaxAlertStates)
				}
			}
			if !slices.Equal(fires, tc.fires) {
				t.Errorf("zz fired at samples %v, want %v", fires, tc.fires)
			}
			if len(o.state) != tc.states {
				t.Errorf("%d states kept, want %d", len(o.state), tc.states)
			}
			if got := slices.Contains(warnings, msgAlertTableFull); got != tc.warned {
				t.Errorf("table-full warning %v, want %v (warnings %q)", got, tc.warned, warnings)
			}
		})
	}
}

// TestAlertTableFullMessage: the warning names the table's real bound.
func TestAlertTableFullMessage(t *testing.T) {
	if maxAlertStatesText != strconv.Itoa(MaxAlertStates) {
		t.Errorf("maxAlertStatesText %s, MaxAlertStates %d", maxAlertStatesText, MaxAlertStates)
	}
}
