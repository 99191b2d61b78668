package otlp

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/host"
)

// BenchmarkExportHost is one collection and export of the live host's
// core objects (Processor, Memory, PhysicalDisk, Network Interface,
// System) to a loopback OTLP/gRPC receiver: a sample, the mapping into
// metric data and the request, as every Options.Interval costs.
func BenchmarkExportHost(b *testing.B) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		b.Skipf("no /proc: %v", err)
	}
	for _, bc := range []struct {
		name string
		opts Options
	}{
		{"core", Options{}},
		{"core+process", Options{Processes: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h, err := host.New(host.Options{SegmentDir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			rcv, addr := startGRPC(b)
			o := bc.opts
			o.Endpoint, o.Insecure, o.Interval = addr, true, time.Hour
			for _, name := range []string{"Processor", "Memory", "PhysicalDisk", "Network Interface", "System"} {
				o.Objects = append(o.Objects, Selection{Object: name})
			}
			e, err := New(context.Background(), h.Source(), o)
			if err != nil {
				b.Fatal(err)
			}
			defer e.Shutdown(context.Background())
			ctx := context.Background()
			e.ForceFlush(ctx) // the first export, as every later one
			b.ReportAllocs()
			for b.Loop() {
				if err := e.ForceFlush(ctx); err != nil {
					b.Fatal(err)
				}
			}
			_, req, _ := rcv.last()
			points := 0
			for _, rm := range req.ResourceMetrics {
				for _, sm := range rm.ScopeMetrics {
					for _, m := range sm.Metrics {
						points += len(m.GetSum().GetDataPoints()) + len(m.GetGauge().GetDataPoints())
					}
				}
			}
			b.ReportMetric(float64(points), "points/export")
		})
	}
}
