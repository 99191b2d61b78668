package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/perfcounters/perfcounters/export/otlp"
	"github.com/perfcounters/perfcounters/export/prom"
	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/remote/apiserver"
	"github.com/perfcounters/perfcounters/titles"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// countingSource is the host's live source, counted, with what each
// collection asked for, and made to panic while told to. It names the
// host's objects as the host's source does (pdh.ObjectLister).
type countingSource struct {
	src   pdh.Source
	mu    sync.Mutex
	n     int
	asked [][]uint32
	panic bool
}

func (c *countingSource) Sample(ctx context.Context, objects []uint32) (*pdh.Sample, error) {
	c.mu.Lock()
	c.n++
	c.asked = append(c.asked, slices.Clone(objects))
	pan := c.panic
	c.mu.Unlock()
	if pan {
		panic("the source broke")
	}
	return c.src.Sample(ctx, objects)
}
func (c *countingSource) Titles() *titles.DB     { return c.src.Titles() }
func (c *countingSource) Recorded() pdh.Recorded { return nil }
func (c *countingSource) count() int             { c.mu.Lock(); defer c.mu.Unlock(); return c.n }
func (c *countingSource) Objects(costly bool) ([]uint32, bool) {
	if l, ok := c.src.(pdh.ObjectLister); ok {
		return l.Objects(costly)
	}
	return nil, false
}

// since is what the collections after the first n asked for.
func (c *countingSource) since(n int) [][]uint32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.asked[n:])
}
func (c *countingSource) set(p bool) { c.mu.Lock(); c.panic = p; c.mu.Unlock() }

// consumers are perfc serve's three consumers of the host, wired as
// serve wires them: the API, /metrics and the OTLP push on one sampler.
type consumers struct {
	src     *countingSource
	sampler *pdh.Sampler
	api     http.Handler
	metrics *prom.Collector
	otlp    *otlp.Exporter
}

func newConsumers(t *testing.T, ctx context.Context) *consumers {
	t.Helper()
	sel, err := otlp.ParseSelection("Memory")
	if err != nil {
		t.Fatal(err)
	}
	sel2, _ := otlp.ParseSelection("Processor")
	return newConsumersOf(t, ctx, prom.Options{Objects: []string{"Memory", "Processor"}}, []otlp.Selection{sel, sel2})
}

// newConsumersOf wires the three consumers with the /metrics options and
// OTLP objects given (none: serve's defaults, every object).
func newConsumersOf(t *testing.T, ctx context.Context, mo prom.Options, sels []otlp.Selection) *consumers {
	t.Helper()
	h, err := host.New(host.Options{StateDir: t.TempDir(), SegmentDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	c := &consumers{src: &countingSource{src: h.Source()}}
	c.sampler = pdh.NewSampler(c.src, pdh.SamplerOptions{})
	c.api = apiserver.NewHandler(c.sampler, apiserver.Options{Registry: h, ComputerName: "T"})
	if c.metrics, err = prom.NewCollector(c.sampler.View(), mo); err != nil {
		t.Fatal(err)
	}
	c.otlp, err = otlp.New(ctx, c.sampler.View(), otlp.Options{Exporter: &memExporter{}, Interval: time.Hour,
		Objects: sels})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.otlp.Shutdown(context.Background()) })
	return c
}

// memExporter is an OTLP exporter that keeps nothing: the test counts
// collections, not what they export.
type memExporter struct{}

func (*memExporter) Temporality(sdkmetric.InstrumentKind) metricdata.Temporality {
	return metricdata.CumulativeTemporality
}
func (*memExporter) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return sdkmetric.DefaultAggregationSelector(k)
}
func (*memExporter) Export(context.Context, *metricdata.ResourceMetrics) error { return nil }
func (*memExporter) ForceFlush(context.Context) error                          { return nil }
func (*memExporter) Shutdown(context.Context) error                            { return nil }

func (c *consumers) askAPI(t *testing.T) int {
	t.Helper()
	q := url.Values{"path": {`\Memory\Available Bytes`, `\Processor(_Total)\% Processor Time`}}
	return c.get(t, remote.PathFormatted+"?"+q.Encode())
}

// get asks the API for target as a monitor and returns the status.
func (c *consumers) get(t *testing.T, target string) int {
	t.Helper()
	r := httptest.NewRequest("GET", target, nil)
	r = r.WithContext(remote.WithRole(r.Context(), remote.RoleMonitor, "t"))
	w := httptest.NewRecorder()
	c.api.ServeHTTP(w, r)
	return w.Code
}

func (c *consumers) scrape(t *testing.T) error {
	t.Helper()
	_, err := c.metrics.Scrape(t.Context(), prom.Text)
	return err
}

// TestServeCollectsOnce: the API, a /metrics scrape and an OTLP push in
// the same interval cost the host one collection.
func TestServeCollectsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newConsumers(t, t.Context()) // OTLP's first sample: one collection
		for round := range 3 {
			before := c.src.count()
			if err := c.otlp.ForceFlush(t.Context()); err != nil {
				t.Fatalf("round %d: OTLP: %v", round, err)
			}
			if err := c.scrape(t); err != nil {
				t.Fatalf("round %d: /metrics: %v", round, err)
			}
			if code := c.askAPI(t); code != http.StatusOK {
				t.Fatalf("round %d: API: %d", round, code)
			}
			if n := c.src.count() - before; n != 1 {
				t.Errorf("round %d: the three consumers collected %d times in one interval, want 1", round, n)
			}
			time.Sleep(time.Second)
		}
	})
}

// TestServeReadsWhatIsAsked: serve's consumers with their defaults
// (/metrics of every object, OTLP of every object, the API) collect only
// the objects they read: never Global, never Process or Thread (every
// process's and thread's files), which they do not export. An
// enumeration of the host's objects reads every object once, and the
// collections after it go back to what the consumers read; the API's
// description of one object reads that object.
func TestServeReadsWhatIsAsked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newConsumersOf(t, t.Context(), prom.Options{}, nil)
		db := c.sampler.Titles()
		perProcess := map[uint32]string{}
		for _, name := range []string{"Process", "Thread", "Process V2"} {
			idx, ok := db.Index(name)
			if !ok {
				t.Fatalf("no object %s on the host", name)
			}
			perProcess[idx] = name
		}
		memory, _ := db.Index("Memory")
		check := func(step string, asked [][]uint32, n int) {
			t.Helper()
			if len(asked) != n {
				t.Errorf("%s: %d collections %v, want %d", step, len(asked), asked, n)
			}
			for _, objs := range asked {
				if objs == nil {
					t.Errorf("%s: a collection of every object (Global)", step)
				}
				for _, o := range objs {
					if name, ok := perProcess[o]; ok {
						t.Errorf("%s: a collection read %s", step, name)
					}
				}
			}
		}
		check("OTLP's first sample", c.src.since(0), 1)
		for round := range 2 {
			n := c.src.count()
			if err := c.otlp.ForceFlush(t.Context()); err != nil {
				t.Fatal(err)
			}
			if err := c.scrape(t); err != nil {
				t.Fatal(err)
			}
			if code := c.askAPI(t); code != http.StatusOK {
				t.Fatalf("API: %d", code)
			}
			check(fmt.Sprintf("round %d", round), c.src.since(n), 1)
			time.Sleep(time.Second)
		}

		n := c.src.count()
		if code := c.get(t, remote.PathObjects+"?object=Memory"); code != http.StatusOK {
			t.Fatalf("/v1/objects?object=Memory: %d", code)
		}
		if asked := c.src.since(n); len(asked) > 1 || (len(asked) == 1 && !slices.Contains(asked[0], memory)) {
			t.Errorf("describing Memory collected %v", asked)
		}
		check("describing Memory", c.src.since(n), len(c.src.since(n)))

		time.Sleep(time.Second)
		n = c.src.count()
		if code := c.get(t, remote.PathObjects); code != http.StatusOK {
			t.Fatalf("/v1/objects: %d", code)
		}
		if asked := c.src.since(n); len(asked) != 1 || asked[0] != nil {
			t.Errorf("the enumeration of objects collected %v, want one collection of every object", asked)
		}
		time.Sleep(time.Second)
		n = c.src.count()
		if err := c.otlp.ForceFlush(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := c.scrape(t); err != nil {
			t.Fatal(err)
		}
		check("after the enumeration", c.src.since(n), 1)
	})
}

// TestServePanics: a panic of the source, or of a consumer, is an error
// for that call; the next request to the API, /metrics and OTLP each
// succeeds.
func TestServePanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newConsumers(t, t.Context())
		time.Sleep(time.Second)
		c.src.set(true)
		if code := c.askAPI(t); code != http.StatusServiceUnavailable {
			t.Errorf("API over a panicking source: %d, want 503", code)
		}
		if err := c.scrape(t); err == nil || !strings.Contains(err.Error(), "panicked") {
			t.Errorf("/metrics over a panicking source: %v", err)
		}
		if err := c.otlp.ForceFlush(t.Context()); err == nil || !strings.Contains(err.Error(), "panicked") {
			t.Errorf("OTLP over a panicking source: %v", err)
		}
		c.src.set(false)
		time.Sleep(time.Second)
		if code := c.askAPI(t); code != http.StatusOK {
			t.Errorf("API after the panic: %d", code)
		}
		if err := c.scrape(t); err != nil {
			t.Errorf("/metrics after the panic: %v", err)
		}
		if err := c.otlp.ForceFlush(t.Context()); err != nil {
			t.Errorf("OTLP after the panic: %v", err)
		}

		// A consumer that panics on its own (here: given a source that
		// panics directly, with no sampler in between) fails that call
		// only.
		direct := &countingSource{src: c.src.src, panic: true}
		m, err := prom.NewCollector(direct, prom.Options{Objects: []string{"Memory"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Scrape(t.Context(), prom.Text); err == nil {
			t.Error("a panicking /metrics collection succeeded")
		}
		direct.set(false)
		if _, err := m.Scrape(t.Context(), prom.Text); err != nil {
			t.Errorf("/metrics after its own panic: %v", err)
		}
	})
}
