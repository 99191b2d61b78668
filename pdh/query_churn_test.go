package pdh

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/titles"
)

// TestQueryChurn: processes and threads with long, distinct names come and
// go (another user starting short-lived processes) while a query collects.
// What the query keeps per instance name — the name table, the instance
// lists of each object, the parents' names — follows the instances of the
// latest sample: after the churn it holds the live names only, and no
// list keeps the names or sample bytes of the instances gone past its
// length. The caches of the paths' checks go at the first Collect.
func TestQueryChurn(t *testing.T) {
	long := strings.Repeat("x", 300) // a long command name, as in the report
	cases := []struct {
		name    string
		paths   []string
		threads bool
	}{
		{"process wildcard", []string{`\Process(*)\% Processor Time`}, false},
		{"process by name", []string{`\Process(keep0)\% Processor Time`, `\Process(*)\ID Process`}, false},
		{"thread wildcard", []string{`\Thread(*)\% Processor Time`}, true},
		{"names only", []string{`\Process(*)\*`, `\Thread(keep1/0)\ID Thread`}, true},
	}
	const live, perSample, churnSamples, quiet = 3, 40, 50, 3
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var samples [][]byte
			pid := uint64(1000)
			for k := range churnSamples + quiet {
				var procs []proc
				var threads []thread
				for i := range live {
					procs = append(procs, proc{"keep" + strconv.Itoa(i), uint64(10 + i), 1, uint64(k) * 1000})
				}
				if k < churnSamples {
					for range perSample {
						pid++
						procs = append(procs, proc{long + strconv.FormatUint(pid, 10), pid, uint64(k), 0})
					}
				}
				if tc.threads {
					threads = []thread{}
					for i := range procs {
						threads = append(threads, thread{"0", uint32(i), procs[i].pid, procs[i].start, 0})
					}
				}
				samples = append(samples, buildSample(t, t0+int64(k)*second, procs, threads))
			}
			q := OpenQuery(&memSource{db: titles.English(), samples: samples})
			for _, p := range tc.paths {
				if _, err := q.AddCounter(p); err != nil {
					t.Fatal(err)
				}
			}
			for range churnSamples + quiet {
				if err := q.Collect(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			// The live processes' names; a thread's name ("0") is one more.
			want := live
			if tc.threads {
				want++
			}
			if len(q.names) != want {
				t.Errorf("name table holds %d names after the churn, want the %d live ones", len(q.names), want)
			}
			for _, s := range q.objs {
				for _, list := range [][]instInfo{s.cur, s.prev} {
					kept := 0
					for _, in := range list[len(list):cap(list)] {
						if in.name != "" || in.interned != nil || in.blk.Bytes() != nil {
							kept++
						}
					}
					if kept > 0 {
						t.Errorf("object %d: a list of %d instances keeps %d gone past its length", s.index, len(list), kept)
					}
				}
			}
			for k, pn := range q.parents {
				if slices.ContainsFunc(pn.names[len(pn.names):cap(pn.names)], func(n string) bool { return n != "" }) {
					t.Errorf("parents of %v keep names past their length of %d", k, len(pn.names))
				}
			}
			if q.inst.st != nil || q.inst.smp != nil || q.ctrs.st != nil || q.ctrs.smp != nil {
				t.Error("the caches of the paths' checks outlive the first Collect")
			}
		})
	}
}
