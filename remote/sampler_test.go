package remote_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/engine"
	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/remotetest"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/remote/apiserver"
)

// stepHost is an engine whose one counter, Step\Ops/sec, grows by 1,000
// at each collection while its clock moves one second: every rate over
// two of its samples is 1,000/s, whoever collects them.
type stepHost struct {
	*engine.Engine
	mu sync.Mutex
	n  int64 // collections so far
}

// stepClock reads the collections made so far as seconds.
type stepClock struct{ h *stepHost }

func (c stepClock) Wall() time.Time {
	return time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC).Add(time.Duration(c.h.count()) * time.Second)
}
func (c stepClock) Ticks() int64 { return c.h.count() * c.Freq() }
func (c stepClock) Freq() int64  { return 1_000_000_000 }

func (h *stepHost) count() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n
}

func newStepHost(t *testing.T) *stepHost {
	t.Helper()
	h := &stepHost{}
	h.Engine = engine.New(engine.Options{SystemName: "STEPHOST", Clock: stepClock{h}})
	set := &counterset.Set{Name: "Step", Help: "a counter that steps", Instancing: counterset.Single,
		Counters: []counterset.Counter{{Name: "Ops/sec", Help: "operations", Type: countertype.PERF_COUNTER_BULK_COUNT}}}
	err := h.Add(engine.Object{Set: set, Collect: func(_ *engine.Collection, w engine.Writer) error {
		h.mu.Lock()
		h.n++
		n := h.n
		h.mu.Unlock()
		w.Single().Set(0, uint64(n*1000))
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// dialStepHost serves a new stepHost (the API over TLS, as perfc serve
// answers) and returns a client of it named "served", closed when the
// test ends.
func dialStepHost(t *testing.T) *remote.Client {
	t.Helper()
	h := newStepHost(t)
	s := remotetest.Serve(t, remotetest.Authenticated(apiserver.NewHandler(host.EngineSource(h), apiserver.Options{Registry: host.EngineRegistry(h)})), "")
	c, err := remote.Dial(context.Background(), s.Config("served"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestSamplerOverClient: a pdh.Sampler in front of a remote.Client
// pairs two samples of the client and computes rates between them (a
// perfc serve whose source is another host: its /v1/formatted): the rate
// is the one typeperf prints of the host itself, 1,000/s, not 0, which it
// was when the client read each answer into the memory of the one before.
func TestSamplerOverClient(t *testing.T) {
	local := newStepHost(t)
	want := runTypeperf(t, host.EngineSource(local), []string{`\Step\Ops/sec`})
	if !strings.Contains(want, `"1000.000000"`) {
		t.Fatalf("typeperf of the host does not print 1000/s:\n%s", want)
	}

	c := dialStepHost(t)
	// The relay: the API over the client, its sampler in front of it.
	relay := remotetest.Serve(t, remotetest.Authenticated(apiserver.NewHandler(c, apiserver.Options{MinInterval: time.Nanosecond})), "")
	var got *float64
	for range 2 { // the first answer has no earlier sample to pair with
		body := strings.NewReader(`{"paths":["\\Step\\Ops/sec"]}`)
		req, err := http.NewRequest(http.MethodPost, relay.Srv.URL+remote.PathFormatted, body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+remotetest.Token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := relay.Srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var a remote.FormattedAnswer
		err = json.NewDecoder(resp.Body).Decode(&a)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s: %s, %v", remote.PathFormatted, resp.Status, err)
		}
		if len(a.Counters) != 1 || len(a.Counters[0].Items) != 1 {
			t.Fatalf("answer %+v", a)
		}
		got = a.Counters[0].Items[0].Value
	}
	if got == nil || *got != 1000 {
		t.Errorf("rate through the sampler of the client = %v, want 1000 (typeperf of the host)", fmtValue(got))
	}
}

// TestClientSamplesAreValues: a sample the client gave stays as it was
// while the client takes more (its block is in memory of its own).
func TestClientSamplesAreValues(t *testing.T) {
	c := dialStepHost(t)
	var kept []*pdh.Sample
	var copies []string
	for range 5 {
		smp, err := c.Sample(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, smp)
		copies = append(copies, string(smp.Blocks[0].Bytes()))
	}
	for i, smp := range kept {
		if string(smp.Blocks[0].Bytes()) != copies[i] {
			t.Errorf("sample %d changed after the client took %d more", i, len(kept)-1-i)
		}
	}
}

func fmtValue(v *float64) string {
	if v == nil {
		return "none"
	}
	return strconv.FormatFloat(*v, 'g', -1, 64)
}
