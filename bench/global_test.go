package bench

import (
	"context"
	"testing"

	"github.com/perfcounters/perfcounters/host"
)

// BenchmarkOurGlobal is one whole `Global` query of the local engine: every
// built-in object (Processor ... Objects, Process, Process V2, Thread) into
// one PERF_DATA_BLOCK, as `perfc query Global` does. It is the full
// collection issue 3 asks about; the Process+Thread benchmarks above isolate
// the part that scales with processes and threads.
func BenchmarkOurGlobal(b *testing.B) {
	h, err := host.New(host.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	size := 0
	loop(b, func() {
		r, err := h.QueryValue(ctx, "Global")
		if err != nil {
			b.Fatal(err)
		}
		size = len(r.Block)
	})
	b.ReportMetric(float64(size), "block-bytes")
}
