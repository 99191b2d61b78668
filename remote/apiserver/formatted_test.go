package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/engine"
	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/remote"
)

// bubbleClock is the engine's clock inside a synctest bubble: the fake
// time, with nanosecond ticks from the bubble's start.
type bubbleClock struct{ start time.Time }

func (c bubbleClock) Wall() time.Time { return time.Now() }
func (c bubbleClock) Ticks() int64    { return int64(time.Since(c.start)) }
func (c bubbleClock) Freq() int64     { return 1_000_000_000 }

// widgetInstances are the synthetic object's instances; the second "a"
// is PDH's a#1.
var widgetInstances = []string{"a", "b", "a"}

// Values of the synthetic Widget object in its n-th collection (n counts
// from 1), per instance position i: what the tests compute expected
// values from, independently of pdh.
func widgetOps(i int, n uint64) uint64   { return 10 * uint64(i+1) * n * n } // PERF_COUNTER_BULK_COUNT
func widgetLevel(i int, n uint64) uint64 { return 100*uint64(i) + n }        // PERF_COUNTER_RAWCOUNT
func widgetBusy(i int) (uint64, uint64)  { return uint64(i + 1), 4 }         // PERF_RAW_FRACTION over base

// synthetic is a real engine with two objects whose values follow the
// functions above: Widget (multi-instance) and Gadget (single, costly).
// It records the queries the handler asks it.
type synthetic struct {
	*engine.Engine
	mu      sync.Mutex
	queries []engine.Query
	n       uint64 // Widget collections so far
}

func (s *synthetic) Query(ctx context.Context, q engine.Query) (*engine.Result, error) {
	s.mu.Lock()
	s.queries = append(s.queries, engine.Query{Kind: q.Kind, Indexes: slices.Clone(q.Indexes)})
	s.mu.Unlock()
	return s.Engine.Query(ctx, q)
}

// Source is the engine's samples, through the queries recorded above.
func (s *synthetic) Source() pdh.Source { return host.EngineSource(s) }

// newSyntheticHandler is a handler over a new synthetic engine.
func newSyntheticHandler(t testing.TB, opts Options) *Handler {
	s := newSynthetic(t)
	opts.Registry = host.EngineRegistry(s)
	return NewHandler(s.Source(), opts)
}

func (s *synthetic) lastQuery() engine.Query {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queries[len(s.queries)-1]
}

func newSynthetic(t testing.TB) *synthetic {
	t.Helper()
	s := &synthetic{Engine: engine.New(engine.Options{SystemName: "WIDGETHOST", Clock: bubbleClock{time.Now()}})}
	widget := &counterset.Set{Name: "Widget", Help: "synthetic widgets", Instancing: counterset.Multiple, DefaultCounter: 1,
		Counters: []counterset.Counter{
			{Name: "Widget Ops/sec", Help: "operations per second", Type: countertype.PERF_COUNTER_BULK_COUNT},
			{Name: "Widget Level", Help: "a level", Type: countertype.PERF_COUNTER_RAWCOUNT, DetailLevel: counterset.DetailAdvanced},
			{Name: "Widget % Busy", Help: "busy share", Type: countertype.PERF_RAW_FRACTION},
			{Name: "Widget % Busy", Help: "busy share", Type: countertype.PERF_RAW_BASE},
		}}
	gadget := &counterset.Set{Name: "Gadget", Help: "a costly gadget", Costly: true, DefaultCounter: -1,
		Counters: []counterset.Counter{{Name: "Gadget Count", Help: "a count", Type: countertype.PERF_COUNTER_RAWCOUNT}}}
	err := s.Add(
		engine.Object{Set: widget, Collect: func(_ *engine.Collection, w engine.Writer) error {
			s.n++
			for i, name := range widgetInstances {
				v := w.Instance(name, 0, 0, -1)
				v.Set(0, widgetOps(i, s.n))
				v.Set(1, widgetLevel(i, s.n))
				b, base := widgetBusy(i)
				v.Set(2, b)
				v.Set(3, base)
			}
			return nil
		}},
		engine.Object{Set: gadget, Collect: func(_ *engine.Collection, w engine.Writer) error {
			w.Single().Set(0, 42)
			return nil
		}},
	)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *synthetic) index(t *testing.T, name string) uint32 {
	t.Helper()
	i, ok := s.Titles().Index(name)
	if !ok {
		t.Fatalf("no title %q", name)
	}
	return i
}

func getFormatted(t *testing.T, h http.Handler, paths ...string) remote.FormattedAnswer {
	t.Helper()
	v := url.Values{"path": paths}
	r := httptest.NewRequest("GET", remote.PathFormatted+"?"+v.Encode(), nil)
	r = r.WithContext(remote.WithRole(r.Context(), remote.RoleMonitor, "t"))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Fatalf("GET %v: %d %s", paths, w.Code, w.Body)
	}
	var a remote.FormattedAnswer
	if err := json.Unmarshal(w.Body.Bytes(), &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestFormattedValues: the values answered are those computed by hand
// from the two raw samples the shared collections took: a rate between
// them, a raw count of the latest, a fraction; the first answer's rate
// is "new data" without a value, never 0.
func TestFormattedValues(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSynthetic(t)
		h := NewHandler(s.Source(), Options{Registry: host.EngineRegistry(s)})
		paths := []string{`\Widget(*)\Widget Ops/sec`, `\Widget(a#1)\Widget Level`, `\Widget(b)\Widget % Busy`}

		first := getFormatted(t, h, paths...)
		if first.Interval != 0 || first.Host != "WIDGETHOST" {
			t.Errorf("first answer: interval %v host %q", first.Interval, first.Host)
		}
		ops := first.Counters[0]
		if ops.Status != "PDH_CSTATUS_VALID_DATA" || len(ops.Items) != 3 || ops.Type != "PERF_COUNTER_BULK_COUNT" {
			t.Fatalf("first Ops/sec: %+v", ops)
		}
		for _, it := range ops.Items {
			if it.Status != calc.NewData.String() || it.Value != nil {
				t.Errorf("first rate %s: status %s value %v, want new data and no value", it.Instance, it.Status, it.Value)
			}
		}
		if got := []string{ops.Items[0].Instance, ops.Items[1].Instance, ops.Items[2].Instance}; !slices.Equal(got, []string{"a", "b", "a#1"}) {
			t.Errorf("instances %q, want PDH's a, b, a#1", got)
		}

		const wait = 1500 * time.Millisecond
		time.Sleep(wait)
		second := getFormatted(t, h, paths...)
		dt := wait.Seconds()
		if math.Abs(second.Interval-dt) > 1e-9 {
			t.Errorf("interval %v, want %v", second.Interval, dt)
		}
		for i, it := range second.Counters[0].Items {
			want := float64(widgetOps(i, 2)-widgetOps(i, 1)) / dt
			if it.Value == nil || math.Abs(*it.Value-want) > 1e-9 {
				t.Errorf("Ops/sec of %s = %v, want (%d-%d)/%v = %v", it.Instance, it.Value, widgetOps(i, 2), widgetOps(i, 1), dt, want)
			}
		}
		level := second.Counters[1]
		if len(level.Items) != 1 || level.Items[0].Value == nil || *level.Items[0].Value != float64(widgetLevel(2, 2)) {
			t.Errorf("Level of a#1: %+v, want %d", level, widgetLevel(2, 2))
		}
		busy := second.Counters[2]
		n, d := widgetBusy(1)
		if len(busy.Items) != 1 || busy.Items[0].Value == nil || *busy.Items[0].Value != 100*float64(n)/float64(d) {
			t.Errorf("%% Busy of b: %+v, want %v", busy, 100*float64(n)/float64(d))
		}
		if c := h.sampler.Collections(); c != 2 {
			t.Errorf("%d collections for two answers %v apart", c, wait)
		}
	})
}

// TestFormattedRaw: raw=1 adds the raw values of the latest sample.
func TestFormattedRaw(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSynthetic(t)
		h := NewHandler(s.Source(), Options{Registry: host.EngineRegistry(s)})
		v := url.Values{"path": {`\Widget(b)\Widget % Busy`}, "raw": {"1"}}
		r := httptest.NewRequest("GET", remote.PathFormatted+"?"+v.Encode(), nil)
		r = r.WithContext(remote.WithRole(r.Context(), remote.RoleMonitor, "t"))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		var a remote.FormattedAnswer
		if err := json.Unmarshal(w.Body.Bytes(), &a); err != nil {
			t.Fatal(err)
		}
		n, d := widgetBusy(1)
		it := a.Counters[0].Items[0]
		if it.Raw == nil || it.Raw.First != n || it.Raw.Second != d || it.Raw.Type != "PERF_RAW_FRACTION" {
			t.Errorf("raw %+v, want first %d second %d", it.Raw, n, d)
		}
	})
}

// TestFormattedPathStatus: a path that does not resolve costs only its
// own entry, with the status and a reason.
func TestFormattedPathStatus(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSynthetic(t)
		h := NewHandler(s.Source(), Options{Registry: host.EngineRegistry(s)})
		a := getFormatted(t, h, `\Nothing\X`, `\Widget(zz)\Widget Level`, `\Widget(*)\No Such`, `\Widget(b)\Widget Level`)
		for i, want := range []calc.Status{calc.NoObject, calc.NoInstance, calc.NoCounter, calc.ValidData} {
			c := a.Counters[i]
			if c.Status != want.String() {
				t.Errorf("%s: status %s (%s), want %s", c.Path, c.Status, c.Reason, want)
			}
			if want != calc.ValidData && c.Reason == "" {
				t.Errorf("%s: no reason", c.Path)
			}
		}
	})
}

// TestSharedCollection: ten clients polling every second, each at its own
// phase, cost one collection per MinInterval, not one per request; and
// ten clients at the same instant cost one.
func TestSharedCollection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSynthetic(t)
		h := NewHandler(s.Source(), Options{Registry: host.EngineRegistry(s)})
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() { getFormatted(t, h, `\Widget(*)\Widget Ops/sec`) })
		}
		wg.Wait()
		if c := h.sampler.Collections(); c != 1 {
			t.Errorf("10 simultaneous clients: %d collections, want 1", c)
		}

		const clients, polls = 10, 30
		for k := range clients {
			wg.Go(func() {
				time.Sleep(time.Duration(k) * 97 * time.Millisecond) // each its own phase
				for p := range polls {
					a := getFormatted(t, h, `\Widget(*)\Widget Ops/sec`, `\Widget(*)\Widget Level`)
					for _, it := range a.Counters[0].Items {
						if p > 0 && it.Status != calc.ValidData.String() {
							t.Errorf("client %d poll %d: %s %s", k, p, it.Instance, it.Status)
						}
					}
					time.Sleep(time.Second)
				}
			})
		}
		start := time.Now()
		before := h.sampler.Collections()
		wg.Wait()
		elapsed := time.Since(start)
		got := h.sampler.Collections() - before
		// At most one collection per started second of polling.
		if limit := int(elapsed/time.Second) + 1; got > limit || got < polls-1 {
			t.Errorf("%d clients x %d polls over %v: %d collections, want at most %d", clients, polls, elapsed, got, limit)
		}
	})
}

// TestSamplerNewObjectWaits: a client asking for an object the latest
// collection lacks waits for the next slot rather than adding a
// collection; the union then holds both objects, and an object nobody
// asked for within KeepObjects leaves it.
func TestSamplerNewObjectWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSynthetic(t)
		widget, gadget := s.index(t, "Widget"), s.index(t, "Gadget")
		h := NewHandler(s.Source(), Options{Registry: host.EngineRegistry(s), KeepObjects: 10 * time.Second})
		t0 := time.Now()
		getFormatted(t, h, `\Widget(*)\Widget Level`)
		time.Sleep(200 * time.Millisecond)
		a := getFormatted(t, h, `\Gadget\Gadget Count`)
		if waited := time.Since(t0); waited != time.Second {
			t.Errorf("the Gadget request was answered %v after the first collection, want the next slot (1s)", waited)
		}
		if c := a.Counters[0]; len(c.Items) != 1 || c.Items[0].Value == nil || *c.Items[0].Value != 42 {
			t.Errorf("Gadget: %+v", c)
		}
		if q := s.lastQuery(); !slices.Equal(q.Indexes, sortedPair(widget, gadget)) {
			t.Errorf("second collection asked %v, want the union %v", q.Indexes, sortedPair(widget, gadget))
		}
		if c := h.sampler.Collections(); c != 2 {
			t.Errorf("%d collections, want 2", c)
		}
		// Only Gadget is asked for from now on: past KeepObjects, Widget
		// leaves the collections.
		for range 12 {
			time.Sleep(time.Second)
			getFormatted(t, h, `\Gadget\Gadget Count`)
		}
		if q := s.lastQuery(); !slices.Equal(q.Indexes, []uint32{gadget}) {
			t.Errorf("collection after Widget went unasked for 12s asked %v, want [%d]", q.Indexes, gadget)
		}
	})
}

func sortedPair(a, b uint32) []uint32 {
	if a > b {
		a, b = b, a
	}
	return []uint32{a, b}
}

// TestObjectsSynthetic: the object list and one object's detail, with
// detail levels, costly objects, bases and PDH's instance names.
func TestObjectsSynthetic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSynthetic(t)
		h := NewHandler(s.Source(), Options{Registry: host.EngineRegistry(s)})
		get := func(target string, v any) {
			t.Helper()
			r := httptest.NewRequest("GET", target, nil)
			r = r.WithContext(remote.WithRole(r.Context(), remote.RoleMonitor, "t"))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != http.StatusOK {
				t.Fatalf("GET %s: %d %s", target, w.Code, w.Body)
			}
			if err := json.Unmarshal(w.Body.Bytes(), v); err != nil {
				t.Fatal(err)
			}
		}
		names := func(l remote.ObjectList) []string {
			var out []string
			for _, o := range l.Objects {
				out = append(out, o.Name)
			}
			return out
		}
		var l remote.ObjectList
		get(remote.PathObjects, &l)
		if got := names(l); !slices.Equal(got, []string{"Widget"}) {
			t.Errorf("objects %q, want [Widget] (Gadget is costly)", got)
		}
		get(remote.PathObjects+"?costly=1", &l)
		if got := names(l); !slices.Equal(got, []string{"Widget", "Gadget"}) || !l.Objects[1].Costly {
			t.Errorf("objects with costly=1: %q", got)
		}
		w := l.Objects[0]
		if len(w.Counters) != 3 || w.DefaultCounter != "Widget Level" || !w.MultiInstance || w.Instances != nil {
			t.Fatalf("Widget: %+v", w)
		}
		busy := w.Counters[2]
		if busy.Base == nil || busy.Base.Type != "PERF_RAW_BASE" || busy.Type != "PERF_RAW_FRACTION" || busy.Help != "busy share" {
			t.Errorf("%% Busy: %+v", busy)
		}
		if !w.Counters[0].TwoSamples || w.Counters[1].TwoSamples || w.Counters[1].DetailLevel != "advanced" {
			t.Errorf("counters %+v", w.Counters)
		}
		get(remote.PathObjects+"?detail=novice", &l)
		if n := len(l.Objects[0].Counters); n != 2 {
			t.Errorf("novice: %d counters, want 2 (Level is advanced)", n)
		}
		var e remote.ObjectEntry
		get(remote.PathObjects+"/widget", &e)
		var disp []string
		for _, in := range e.Instances {
			disp = append(disp, in.Display)
		}
		if !slices.Equal(disp, []string{"a", "b", "a#1"}) || e.Instances[2].Index != 1 || e.Instances[2].Name != "a" {
			t.Errorf("instances %+v", e.Instances)
		}
		if p := e.Instances[2].Path; p != `\Widget(a#1)\Widget Ops/sec` {
			t.Errorf("instance path %q", p)
		}
		get(remote.PathObjects+"?object=Gadget", &e)
		if e.Name != "Gadget" || !e.Costly || e.MultiInstance {
			t.Errorf("Gadget: %+v", e)
		}
		if c := h.sampler.Collections() + h.costly.Collections(); c != 2 {
			t.Errorf("%d catalog collections for answers within one interval, want 2", c)
		}
	})
}

// TestProblemsHeaderCut: problems beyond MaxProblemsHeader are cut and
// the last one counts those left out.
func TestProblemsHeaderCut(t *testing.T) {
	var ps []remote.Problem
	for i := range 5000 {
		ps = append(ps, remote.Problem{Object: uint32(i), ObjectName: fmt.Sprintf("Object %d", i), Reason: strings.Repeat("é", 20)})
	}
	for _, n := range []int{0, 1, 10, 5000} {
		s, err := problemsHeader(ps[:n])
		if err != nil {
			t.Fatal(err)
		}
		if len(s) > remote.MaxProblemsHeader {
			t.Fatalf("%d problems: header of %d bytes", n, len(s))
		}
		got, err := remote.DecodeProblems(s)
		if err != nil {
			t.Fatal(err)
		}
		whole, _ := remote.EncodeProblems(ps[:n])
		if len(whole) <= remote.MaxProblemsHeader {
			if len(got) != n {
				t.Errorf("%d problems that fit: %d decoded", n, len(got))
			}
			continue
		}
		last := got[len(got)-1]
		if want := fmt.Sprintf("%d more problems left out", n-(len(got)-1)); !strings.HasPrefix(last.Reason, want) {
			t.Errorf("last problem %q, want %q", last.Reason, want)
		}
		if len(got) < 100 {
			t.Errorf("only %d problems kept", len(got))
		}
	}
}

// failing is a backend whose queries fail, counting them.
type failing struct {
	*synthetic
	calls int
}

func (f *failing) Query(context.Context, engine.Query) (*engine.Result, error) {
	f.calls++
	return nil, fmt.Errorf("the host is on fire")
}

func (f *failing) Source() pdh.Source { return host.EngineSource(f) }

// TestCollectionFails: a failing host is a 503 with its reason, and
// clients within the interval get that answer without asking it again.
func TestCollectionFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &failing{synthetic: newSynthetic(t)}
		h := NewHandler(f.Source(), Options{Registry: host.EngineRegistry(f.synthetic)})
		do := func() *httptest.ResponseRecorder {
			r := httptest.NewRequest("GET", remote.PathFormatted+"?path="+url.QueryEscape(`\Widget(*)\*`), nil)
			r = r.WithContext(remote.WithRole(r.Context(), remote.RoleMonitor, "t"))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			return w
		}
		for range 5 {
			w := do()
			var eb remote.ErrorBody
			json.Unmarshal(w.Body.Bytes(), &eb)
			if w.Code != http.StatusServiceUnavailable || !strings.Contains(eb.Error.Reason, "on fire") {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
		}
		if f.calls != 1 {
			t.Errorf("%d queries of a failing host within one interval, want 1", f.calls)
		}
		time.Sleep(time.Second)
		do()
		if f.calls != 2 {
			t.Errorf("%d queries after the interval, want 2", f.calls)
		}
	})
}

// TestFormattedTooLarge: paths that expand to more values than the limit
// are refused with 413, not answered at any size.
func TestFormattedTooLarge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newSyntheticHandler(t, Options{})
		h.maxItems = 10 // Widget(*)\* is 3 instances x 3 counters = 9 values
		for _, tc := range []struct {
			paths []string
			want  int
		}{
			{[]string{`\Widget(*)\*`}, http.StatusOK},
			{[]string{`\Widget(*)\*`, `\Widget(a)\Widget Level`}, http.StatusOK},
			{[]string{`\Widget(*)\*`, `\Widget(*)\Widget Level`}, http.StatusRequestEntityTooLarge},
		} {
			r := httptest.NewRequest("GET", remote.PathFormatted+"?"+url.Values{"path": tc.paths}.Encode(), nil)
			r = r.WithContext(remote.WithRole(r.Context(), remote.RoleMonitor, "t"))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.want {
				t.Errorf("%q: %d, want %d: %s", tc.paths, w.Code, tc.want, w.Body)
			}
		}
	})
}

// TestFormattedHostName: the answer names the host as /v1/host does (the
// handler's ComputerName), not as the blocks' header happens to (perfmon's
// status line and title showed two names).
func TestFormattedHostName(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSynthetic(t)
		h := NewHandler(s.Source(), Options{Registry: host.EngineRegistry(s), ComputerName: "FIXTURE"})
		if got := getFormatted(t, h, `\Widget(*)\Widget Level`).Host; got != "FIXTURE" {
			t.Errorf("host %q, want FIXTURE", got)
		}
	})
}
