package pdh

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// step is what a fake member does on one Sample: answer a block, fail,
// or (slow) block until its context ends.
type step struct {
	block    []byte
	err      error
	slow     bool
	problems []Problem
}

// fakeMember is a live source following a script, one step per Sample
// (the last step repeats).
type fakeMember struct {
	db         *titles.DB
	connectErr error

	mu     sync.Mutex
	script []step
	n      int
	asked  [][]uint32
}

func (f *fakeMember) Sample(ctx context.Context, objects []uint32) (*Sample, error) {
	f.mu.Lock()
	s := f.script[min(f.n, len(f.script)-1)]
	f.n++
	f.asked = append(f.asked, slices.Clone(objects))
	f.mu.Unlock()
	switch {
	case s.slow:
		<-ctx.Done()
		return nil, ctx.Err()
	case s.err != nil:
		return nil, s.err
	}
	smp, err := NewSample([][]byte{s.block})
	if err == nil {
		smp.Problems = s.problems
	}
	return smp, err
}

func (f *fakeMember) Titles() *titles.DB { return f.db }
func (f *fakeMember) Recorded() Recorded { return nil }
func (f *fakeMember) Connect(context.Context) error {
	if f.connectErr != nil {
		err := f.connectErr
		f.connectErr = nil // connects at the next try
		return err
	}
	return nil
}

// cpuAt is app's CPU time (100 ns) at sample k of a machine using pct
// percent of one CPU.
func cpuAt(k int, pct int64) uint64 { return uint64(int64(k) * second * pct / 100) }

// value reads a counter: its value (when it has one) and status.
func value(t *testing.T, c *Counter) (float64, bool, calc.Status) {
	t.Helper()
	v, err := c.Formatted(calc.FmtDouble | calc.FmtNoCap100)
	if err != nil {
		t.Fatal(err)
	}
	return v.Double, v.HasValue(), v.Status
}

// TestFleetHostDownAndBack: a member that fails costs only its own
// counters (status NoData, a Problem naming it), the other machine's
// values go on, and when it answers again its rates start over instead
// of being computed across the outage (BETA's 25 % before and 50 % after:
// a rate across the gap would give another number).
func TestFleetHostDownAndBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 6
		down := map[int]bool{2: true}
		var alpha, beta []step
		betaCPU := uint64(0)
		for k := range n {
			ts := t0 + int64(k)*second
			alpha = append(alpha, step{block: machineBlock(t, "ALPHA", ts, cpuAt(k, 50))})
			switch {
			case down[k]:
				beta = append(beta, step{err: errors.New("connection refused")})
				betaCPU += uint64(7 * second) // what a rate across the gap would see
			case k >= 3:
				betaCPU += uint64(second / 2)
				beta = append(beta, step{block: machineBlock(t, "beta-real-name", ts, betaCPU)})
			default:
				betaCPU += uint64(second / 4)
				beta = append(beta, step{block: machineBlock(t, "beta-real-name", ts, betaCPU)})
			}
		}
		a := &fakeMember{db: titles.English(), script: alpha}
		b := &fakeMember{db: titles.English(), script: beta}
		f, err := NewFleet(context.Background(), Member{Machine: "ALPHA", Source: a}, Member{Machine: "BETA", Source: b})
		if err != nil {
			t.Fatal(err)
		}
		q := OpenQuery(f)
		ca := mustAdd(t, q, `\Process(app)\% Processor Time`)
		cb := mustAdd(t, q, `\\beta\Process(app)\% Processor Time`)
		a.asked, b.asked = nil, nil
		a.n, b.n = 0, 0
		type want struct {
			ok     bool
			v      float64
			status calc.Status
		}
		wantB := []want{{false, 0, calc.ValidData}, {true, 25, calc.ValidData}, {false, 0, calc.NoData},
			{false, 0, calc.ValidData}, {true, 50, calc.ValidData}, {true, 50, calc.ValidData}}
		for k := range n {
			if k > 0 {
				time.Sleep(time.Second) // the interval, on the bubble's clock
			}
			if err := q.Collect(context.Background()); err != nil {
				t.Fatal(err)
			}
			v, ok, _ := value(t, ca)
			if k > 0 && (!ok || v != 50) {
				t.Errorf("sample %d: ALPHA %v (value %v), want 50", k, v, ok)
			}
			v, ok, st := value(t, cb)
			w := wantB[k]
			if ok != w.ok || (ok && v != w.v) || (!ok && w.status == calc.NoData && st != calc.NoData) {
				t.Errorf("sample %d: BETA %v (value %v, status %v), want %+v", k, v, ok, st, w)
			}
			hasProblem := slices.ContainsFunc(q.Problems(), func(p Problem) bool {
				return p.Machine == "BETA" && p.Object == 0 && strings.Contains(p.Reason, "connection refused")
			})
			if hasProblem != down[k] {
				t.Errorf("sample %d: problems %v; want BETA's failure: %v", k, q.Problems(), down[k])
			}
		}
		// Each machine was asked for Process only, every sample.
		for name, m := range map[string]*fakeMember{"ALPHA": a, "BETA": b} {
			if len(m.asked) != n {
				t.Errorf("%s asked %d times, want %d", name, len(m.asked), n)
			}
			for _, o := range m.asked {
				if !slices.Equal(o, []uint32{idxProcess}) {
					t.Errorf("%s asked for %v, want [%d]", name, o, idxProcess)
				}
			}
		}
	})
}

// TestFleetSlowHost: a member that does not answer holds the sample back
// for its own timeout only, the others' values are there, and while it
// waits out its backoff the next sample does not wait for it at all.
func TestFleetSlowHost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var alpha []step
		for k := range 4 {
			alpha = append(alpha, step{block: machineBlock(t, "ALPHA", t0+int64(k)*second, cpuAt(k, 50))})
		}
		a := &fakeMember{db: titles.English(), script: alpha}
		b := &fakeMember{db: titles.English(), script: []step{{block: machineBlock(t, "BETA", t0, 0)}, {block: machineBlock(t, "BETA", t0, 0)}, {slow: true}}}
		const timeout = 300 * time.Millisecond
		f, err := NewFleet(context.Background(), Member{Machine: "ALPHA", Source: a},
			Member{Machine: "BETA", Source: b, Timeout: timeout})
		if err != nil {
			t.Fatal(err)
		}
		q := OpenQuery(f)
		ca := mustAdd(t, q, `\Process(app)\% Processor Time`)
		cb := mustAdd(t, q, `\\BETA\Process(app)\% Processor Time`)
		a.n = 0
		wantWait := []time.Duration{0, timeout, 0, 0}
		for k := range 4 {
			time.Sleep(time.Second / 4)
			start := time.Now()
			if err := q.Collect(context.Background()); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d != wantWait[k] {
				t.Errorf("sample %d took %v, want %v", k, d, wantWait[k])
			}
			if _, _, st := value(t, cb); k > 0 && st != calc.NoData {
				t.Errorf("sample %d: BETA status %v, want NoData", k, st)
			}
			if v, ok, _ := value(t, ca); k > 0 && (!ok || v != 50) {
				t.Errorf("sample %d: ALPHA %v (value %v), want 50", k, v, ok)
			}
		}
		if len(b.asked) != 3 { // AddCounter's check, the first sample, the slow one; then backoff
			t.Errorf("BETA asked %d times, want 3", len(b.asked))
		}
	})
}

// TestFleetUnreachableAtStart: a member that cannot connect when the
// fleet opens is named in Notes, its paths are still accepted (their
// object resolved by name), their values are NoData until it answers,
// and then they have values.
func TestFleetUnreachableAtStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var alpha, beta []step
		for k := range 4 {
			ts := t0 + int64(k)*second
			alpha = append(alpha, step{block: machineBlock(t, "ALPHA", ts, cpuAt(k, 50))})
			if k < 2 {
				beta = append(beta, step{err: errors.New("no route to host")})
			} else {
				beta = append(beta, step{block: machineBlock(t, "BETA", ts, cpuAt(k, 20))})
			}
		}
		a := &fakeMember{db: titles.English(), script: alpha}
		b := &fakeMember{db: titles.New(), script: beta, connectErr: errors.New("no route to host")}
		f, err := NewFleet(context.Background(), Member{Machine: "ALPHA", Source: a}, Member{Machine: "BETA", Source: b})
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Notes()) != 1 || !strings.Contains(f.Notes()[0], "BETA") {
			t.Errorf("notes %q, want one naming BETA", f.Notes())
		}
		q := OpenQuery(f)
		if _, err := q.AddCounter(`\Process(app)\% Processor Time`); err != nil {
			t.Fatal(err)
		}
		cb, err := q.AddCounter(`\\BETA\Process(app)\% Processor Time`)
		if err != nil {
			t.Fatalf("a member that does not answer yet: %v, want the path accepted", err)
		}
		if _, err := q.AddCounter(`\\GAMMA\Process(app)\% Processor Time`); err == nil {
			t.Error(`\\GAMMA, no member of the fleet: accepted`)
		}
		b.n = 0
		wantOK := []bool{false, false, false, true}
		for k := range 4 {
			time.Sleep(8 * time.Second) // past any backoff
			if err := q.Collect(context.Background()); err != nil {
				t.Fatal(err)
			}
			v, ok, st := value(t, cb)
			if ok != wantOK[k] || (ok && v != 20) {
				t.Errorf("sample %d: BETA %v (value %v, status %v), want a value %v (20)", k, v, ok, st, wantOK[k])
			}
			if k < 2 && st != calc.NoData {
				t.Errorf("sample %d: BETA status %v, want NoData", k, st)
			}
		}
	})
}

// TestFleetTitlesRemapped: a member whose title database numbers Process
// otherwise (9000 instead of 230, where 9000 is free in the union) has its
// blocks renumbered into the union's numbers, so `\\BETA\Process(...)`
// finds its object, and it is asked for its own number.
func TestFleetTitlesRemapped(t *testing.T) {
	betaDB := titles.New()
	for _, e := range titles.English().Entries() {
		if e.Name == "" {
			continue
		}
		i := e.Index
		if i == idxProcess {
			i = 9000
		}
		if err := betaDB.SetAt(i, e.Name, e.Help); err != nil {
			t.Fatal(err)
		}
	}
	var alpha, beta []step
	for k := range 3 {
		ts := t0 + int64(k)*second
		alpha = append(alpha, step{block: machineBlock(t, "ALPHA", ts, cpuAt(k, 50))})
		blk, err := NewSample([][]byte{machineBlock(t, "BETA", ts, cpuAt(k, 30))})
		if err != nil {
			t.Fatal(err)
		}
		moved, err := remapBlock(blk.Blocks[0], map[uint32]uint32{idxProcess: 9000})
		if err != nil {
			t.Fatal(err)
		}
		beta = append(beta, step{block: moved.Bytes()})
	}
	a := &fakeMember{db: titles.English(), script: alpha}
	b := &fakeMember{db: betaDB, script: beta}
	f, err := NewFleet(context.Background(), Member{Machine: "ALPHA", Source: a}, Member{Machine: "BETA", Source: b})
	if err != nil {
		t.Fatal(err)
	}
	q := OpenQuery(f)
	cb := mustAdd(t, q, `\\BETA\Process(app)\% Processor Time`)
	b.asked = nil
	for range 2 {
		if err := q.Collect(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if v, ok, st := value(t, cb); !ok || v != 30 {
		t.Errorf("BETA %v (value %v, status %v), want 30", v, ok, st)
	}
	for _, o := range b.asked {
		if !slices.Equal(o, []uint32{9000}) {
			t.Errorf("BETA asked for %v, want its own number [9000]", o)
		}
	}
}

// TestWithSystemName: a block is renamed when its system name differs
// (without case) and returned as it is otherwise.
func TestWithSystemName(t *testing.T) {
	raw := machineBlock(t, "db7-prod.example", t0, 5)
	s, err := NewSample([][]byte{raw})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		same bool
	}{{"DB7-PROD.EXAMPLE", true}, {"db7", false}, {"a-much-longer-name-than-the-original-one", false}} {
		got, err := WithSystemName(s.Blocks[0], tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if tc.same {
			if &got.Bytes()[0] != &raw[0] {
				t.Errorf("%s: block copied, want it returned as it is", tc.name)
			}
			continue
		}
		if got.Header().SystemName != tc.name {
			t.Errorf("renamed to %q, want %q", got.Header().SystemName, tc.name)
		}
		if got.NumObjects() != s.Blocks[0].NumObjects() || !slices.Equal(objectBytes(got), objectBytes(s.Blocks[0])) {
			t.Errorf("%s: the objects changed in renaming", tc.name)
		}
	}
}

func objectBytes(b interface{ Bytes() []byte }) []byte {
	raw := b.Bytes()
	hl := int(uint32(raw[24]) | uint32(raw[25])<<8 | uint32(raw[26])<<16 | uint32(raw[27])<<24)
	return raw[hl:]
}

// TestFleetProblemIsNotDown: a machine that answered, with a problem of
// its sample as a whole (a server's "more problems left out"), is not
// down: an object it lacks is NoObject, not NoData.
func TestFleetProblemIsNotDown(t *testing.T) {
	a := &fakeMember{db: titles.English(), script: []step{{block: machineBlock(t, "ALPHA", t0, 0)}}}
	b := &fakeMember{db: titles.English(), script: []step{
		{block: machineBlock(t, "BETA", t0, 0)},
		{block: buildEmpty(t, "BETA"), problems: []Problem{{Reason: "12 more problems left out"}}},
	}}
	f, err := NewFleet(context.Background(), Member{Machine: "ALPHA", Source: a}, Member{Machine: "BETA", Source: b})
	if err != nil {
		t.Fatal(err)
	}
	q := OpenQuery(f)
	c := mustAdd(t, q, `\\BETA\Process(app)\% Processor Time`)
	if err := q.Collect(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, _, st := value(t, c); st != calc.NoObject {
		t.Errorf("status %v, want NoObject (BETA answered without Process)", st)
	}
	if !slices.ContainsFunc(q.Problems(), func(p Problem) bool { return p.Machine == "BETA" }) {
		t.Errorf("problems %v: BETA's problem lost", q.Problems())
	}
}

// buildEmpty is a block of system without objects.
func buildEmpty(t *testing.T, system string) []byte {
	t.Helper()
	b := perfdata.NewBuilder(nil)
	b.Reset(perfdata.Header{PerfTime: t0, PerfFreq: 1e7, PerfTime100nSec: t0, SystemName: system})
	return slices.Clone(b.Bytes())
}
