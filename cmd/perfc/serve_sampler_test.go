package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
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

// countingSource is the host's live source, counted, and made to panic
// while told to.
type countingSource struct {
	src   pdh.Source
	mu    sync.Mutex
	n     int
	panic bool
}

func (c *countingSource) Sample(ctx context.Context, objects []uint32) (*pdh.Sample, error) {
	c.mu.Lock()
	c.n++
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
func (c *countingSource) set(p bool)             { c.mu.Lock(); c.panic = p; c.mu.Unlock() }

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
	h, err := host.New(host.Options{StateDir: t.TempDir(), SegmentDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	c := &consumers{src: &countingSource{src: h.Source()}}
	c.sampler = pdh.NewSampler(c.src, pdh.SamplerOptions{})
	c.api = apiserver.NewHandler(c.sampler, apiserver.Options{Registry: h, ComputerName: "T"})
	if c.metrics, err = prom.NewCollector(c.sampler.View(), prom.Options{Objects: []string{"Memory", "Processor"}}); err != nil {
		t.Fatal(err)
	}
	sel, err := otlp.ParseSelection("Memory")
	if err != nil {
		t.Fatal(err)
	}
	sel2, _ := otlp.ParseSelection("Processor")
	c.otlp, err = otlp.New(ctx, c.sampler.View(), otlp.Options{Exporter: &memExporter{}, Interval: time.Hour,
		Objects: []otlp.Selection{sel, sel2}})
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
	r := httptest.NewRequest("GET", remote.PathFormatted+"?"+q.Encode(), nil)
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
