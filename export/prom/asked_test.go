package prom

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/titles"
)

// askedSource is a live source that records what each collection asked
// for, and names its objects as its source does (pdh.ObjectLister).
type askedSource struct {
	src   *host.LiveSource
	mu    sync.Mutex
	asked [][]uint32
}

func (a *askedSource) Sample(ctx context.Context, objects []uint32) (*pdh.Sample, error) {
	a.mu.Lock()
	a.asked = append(a.asked, slices.Clone(objects))
	a.mu.Unlock()
	return a.src.Sample(ctx, objects)
}
func (a *askedSource) Objects(costly bool) ([]uint32, bool) { return a.src.Objects(costly) }
func (a *askedSource) Titles() *titles.DB                   { return a.src.Titles() }
func (a *askedSource) Recorded() pdh.Recorded               { return nil }

// TestDefaultProfileReadsNoProcess: /metrics of the default profile over
// the live host (through the shared sampler, as perfc serve wires it)
// discovers the host's objects from their list, without collecting them,
// and collects only those it exports: never Global, never Process or
// Thread (every process's and thread's files), which it does not export.
func TestDefaultProfileReadsNoProcess(t *testing.T) {
	h := newHost(t, host.Options{StateDir: t.TempDir(), SegmentDir: t.TempDir()})
	src := &askedSource{src: host.EngineSource(h)}
	sampler := pdh.NewSampler(src, pdh.SamplerOptions{MaxAge: 1})
	col, err := NewCollector(sampler.View(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var body []byte
	for range 2 {
		if body, err = col.Scrape(context.Background(), Text); err != nil {
			t.Fatal(err)
		}
	}
	db := h.Titles()
	var never []uint32
	for _, name := range []string{"Process", "Thread", "Process V2"} {
		idx, ok := db.Index(name)
		if !ok {
			t.Fatalf("no object %s on the host", name)
		}
		never = append(never, idx)
	}
	if len(src.asked) != 2 {
		t.Errorf("%d collections for 2 scrapes, want 2", len(src.asked))
	}
	for i, objs := range src.asked {
		if objs == nil {
			t.Errorf("collection %d asked for every object (Global)", i)
		}
		for _, x := range never {
			if slices.Contains(objs, x) {
				t.Errorf("collection %d asked for %s", i, db.Name(x))
			}
		}
	}
	for _, want := range []string{"perfc_memory_", "perfc_processor_"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("the export lacks %s*", want)
		}
	}
}
