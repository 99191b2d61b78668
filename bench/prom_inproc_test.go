package bench

import (
	"context"
	"testing"

	"github.com/perfcounters/perfcounters/export/prom"
	"github.com/perfcounters/perfcounters/host"
)

// BenchmarkPromInProcess splits our scrape: the collection alone
// (collect: the engine's sample of the four objects) and the whole
// Scrape (collection and OpenMetrics text), called in process; and the
// collection of each object alone (collect/OBJECT).
func BenchmarkPromInProcess(b *testing.B) {
	h, err := host.New(host.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	src := h.Source()
	db := h.Titles()
	var idx []uint32
	for _, n := range promObjects {
		i, _ := db.Index(n)
		idx = append(idx, i)
	}
	ctx := context.Background()
	b.Run("collect", func(b *testing.B) {
		loop(b, func() {
			if _, err := src.Sample(ctx, idx); err != nil {
				b.Fatal(err)
			}
		})
	})
	// Each object alone (System too, for the remote fetch's objects).
	for _, n := range append(promObjects[:len(promObjects):len(promObjects)], "System") {
		i, _ := db.Index(n)
		b.Run("collect/"+n, func(b *testing.B) {
			loop(b, func() {
				if _, err := src.Sample(ctx, []uint32{i}); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
	b.Run("scrape", func(b *testing.B) {
		col, err := prom.NewCollector(src, prom.Options{Objects: promObjects})
		if err != nil {
			b.Fatal(err)
		}
		loop(b, func() {
			if _, err := col.Scrape(ctx, prom.OpenMetrics); err != nil {
				b.Fatal(err)
			}
		})
	})
}
