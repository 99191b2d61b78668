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

	"github.com/perfcounters/perfcounters/titles"
)

// liveFake is a live source whose samples carry the objects asked for
// (Process and Thread of the synthetic blocks; everything: Process
// only, as a Global without the costly Thread), stamped with the
// bubble's clock. It counts and records what it was asked for, and
// panics or fails while told to.
type liveFake struct {
	mu    sync.Mutex
	t     testing.TB
	asked [][]uint32
	panic bool
	fail  error
	block chan struct{} // when not nil, Sample waits for it
}

func (f *liveFake) Sample(ctx context.Context, objects []uint32) (*Sample, error) {
	f.mu.Lock()
	f.asked = append(f.asked, slices.Clone(objects))
	pan, fail, block := f.panic, f.fail, f.block
	f.mu.Unlock()
	if block != nil {
		<-block
	}
	if pan {
		panic("source exploded")
	}
	if fail != nil {
		return nil, fail
	}
	t100 := t0 + time.Now().UnixNano()/100
	var threads []thread
	if slices.Contains(objects, idxThread) {
		threads = []thread{{name: "0", parent: 0, tid: 1}}
	}
	return NewSample([][]byte{buildSample(f.t, t100, []proc{{name: "a", pid: 1}}, threads)})
}

func (f *liveFake) Titles() *titles.DB { return titles.English() }
func (f *liveFake) Recorded() Recorded { return nil }

func (f *liveFake) calls() [][]uint32 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.asked)
}

func (f *liveFake) set(pan bool, fail error) {
	f.mu.Lock()
	f.panic, f.fail = pan, fail
	f.mu.Unlock()
}

func TestSamplerSharesCollections(t *testing.T) {
	type ask struct {
		at      time.Duration // after the start
		objects []uint32
	}
	cases := []struct {
		name  string
		asks  []ask
		calls [][]uint32 // what the source is asked, in turn
		once  int        // the ask (from 1) made with Once, not Sample
	}{
		{"same objects in one second", []ask{{0, []uint32{idxProcess}}, {100 * time.Millisecond, []uint32{idxProcess}}, {900 * time.Millisecond, []uint32{idxProcess}}},
			[][]uint32{{idxProcess}}, 0},
		{"a second later: collects again", []ask{{0, []uint32{idxProcess}}, {time.Second, []uint32{idxProcess}}},
			[][]uint32{{idxProcess}, {idxProcess}}, 0},
		{"new objects wait for the next slot and get the union", []ask{{0, []uint32{idxProcess}}, {100 * time.Millisecond, []uint32{idxThread}}, {1200 * time.Millisecond, []uint32{idxProcess}}},
			[][]uint32{{idxProcess}, {idxProcess, idxThread}}, 0},
		{"objects not asked within Keep are dropped", []ask{{0, []uint32{idxThread}}, {2 * time.Second, []uint32{idxProcess}}, {70 * time.Second, []uint32{idxProcess}}},
			[][]uint32{{idxThread}, {idxProcess, idxThread}, {idxProcess}}, 0},
		{"everything answers a named object it holds", []ask{{0, nil}, {10 * time.Millisecond, []uint32{idxProcess}}},
			[][]uint32{nil}, 0},
		{"everything and an object it lacks: every object named", []ask{{0, nil}, {10 * time.Millisecond, []uint32{idxThread}}},
			[][]uint32{nil, {idxProcess, idxThread}}, 0},
		{"once: everything for one collection only", []ask{{0, []uint32{idxProcess}}, {time.Second, nil}, {2 * time.Second, []uint32{idxProcess}}},
			[][]uint32{{idxProcess}, nil, {idxProcess}}, 2},
		{"once: an object joins one collection only", []ask{{0, []uint32{idxProcess}}, {time.Second, []uint32{idxThread}}, {2 * time.Second, []uint32{idxProcess}}},
			[][]uint32{{idxProcess}, {idxProcess, idxThread}, {idxProcess}}, 2},
		{"once: answered by the latest when it holds the object", []ask{{0, []uint32{idxProcess, idxThread}}, {10 * time.Millisecond, []uint32{idxThread}}},
			[][]uint32{{idxProcess, idxThread}}, 2},
		{"once: a named object with everything wanted", []ask{{0, nil}, {time.Second, []uint32{idxThread}}, {2 * time.Second, nil}},
			[][]uint32{nil, {idxProcess, idxThread}, nil}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := &liveFake{t: t}
				s := NewSampler(src, SamplerOptions{})
				start := time.Now()
				for k, a := range tc.asks {
					time.Sleep(time.Until(start.Add(a.at)))
					ask := s.Sample
					if k+1 == tc.once {
						ask = s.Once
					}
					smp, err := ask(t.Context(), a.objects)
					if err != nil {
						t.Fatal(err)
					}
					for _, o := range a.objects {
						if !hasObject(smp, o) {
							t.Errorf("at %v: sample lacks object %d", a.at, o)
						}
					}
				}
				got := src.calls()
				if len(got) != len(tc.calls) {
					t.Fatalf("source asked %v, want %v", got, tc.calls)
				}
				for i := range got {
					if !slices.Equal(got[i], tc.calls[i]) || (got[i] == nil) != (tc.calls[i] == nil) {
						t.Errorf("collection %d asked %v, want %v", i, got[i], tc.calls[i])
					}
				}
				if n := s.Collections(); n != len(tc.calls) {
					t.Errorf("Collections() = %d, want %d", n, len(tc.calls))
				}
			})
		})
	}
}

func hasObject(s *Sample, idx uint32) bool {
	for _, blk := range s.Blocks {
		for it := blk.Objects(); it.Next(); {
			if it.Object().NameIndex() == idx {
				return true
			}
		}
	}
	return false
}

// Consumers that arrive while a collection runs wait for it and share it.
func TestSamplerConcurrentShare(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		block := make(chan struct{})
		src := &liveFake{t: t, block: block}
		s := NewSampler(src, SamplerOptions{})
		var wg sync.WaitGroup
		got := make([]*Sample, 5)
		for i := range got {
			wg.Go(func() {
				smp, err := s.View().Sample(t.Context(), []uint32{idxProcess})
				if err != nil {
					t.Error(err)
				}
				got[i] = smp
			})
		}
		synctest.Wait()
		close(block)
		wg.Wait()
		for i := range got {
			if got[i] != got[0] {
				t.Errorf("consumer %d got another sample than consumer 0", i)
			}
		}
		if n := len(src.calls()); n != 1 {
			t.Errorf("%d collections, want 1", n)
		}
	})
}

// A view never answers the same collection twice: the second call waits
// for the next slot and collects.
func TestSamplerViewNeverRepeats(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &liveFake{t: t}
		s := NewSampler(src, SamplerOptions{MaxAge: 2 * time.Second})
		v := s.View()
		start := time.Now()
		a, err := v.Sample(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		// Another consumer's view shares the first collection.
		if b, err := s.View().Sample(t.Context(), nil); err != nil || b != a {
			t.Fatalf("second view: %p, %v; want the first collection %p", b, err, a)
		}
		b, err := v.Sample(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if b == a {
			t.Fatal("the view answered the same collection twice")
		}
		if waited := time.Since(start); waited != 2*time.Second {
			t.Errorf("waited %v for the next collection, want MaxAge (2s)", waited)
		}
		if !b.Time.After(a.Time) {
			t.Errorf("second sample at %v, not after %v", b.Time, a.Time)
		}
	})
}

// A panicking source is an error for the collection, for the consumers
// that waited for it too, and the next collection works.
func TestSamplerSourcePanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		block := make(chan struct{})
		src := &liveFake{t: t, panic: true, block: block}
		s := NewSampler(src, SamplerOptions{})
		errs := make([]error, 3)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Go(func() { _, errs[i] = s.Sample(t.Context(), []uint32{idxProcess}) })
		}
		synctest.Wait()
		close(block)
		wg.Wait()
		for i, err := range errs {
			if err == nil || !strings.Contains(err.Error(), "panicked") || !strings.Contains(err.Error(), "source exploded") {
				t.Errorf("consumer %d: err = %v, want the panic as an error", i, err)
			}
		}
		src.set(false, nil)
		src.mu.Lock()
		src.block = nil
		src.mu.Unlock()
		// Within MaxAge of the failure the error stands (the source is not
		// asked once per consumer); after it, the source is asked again.
		if _, err := s.Sample(t.Context(), []uint32{idxProcess}); err == nil {
			t.Error("a request right after the failure collected again")
		}
		time.Sleep(time.Second)
		if _, err := s.Sample(t.Context(), []uint32{idxProcess}); err != nil {
			t.Errorf("after the panic: %v", err)
		}
		if n := len(src.calls()); n != 2 {
			t.Errorf("source asked %d times, want 2", n)
		}
	})
}

func TestSamplerErrorAndCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &liveFake{t: t, fail: errors.New("host gone")}
		s := NewSampler(src, SamplerOptions{})
		if _, err := s.Sample(t.Context(), nil); err == nil || !strings.Contains(err.Error(), "host gone") {
			t.Fatalf("err = %v", err)
		}
		src.set(false, nil)
		time.Sleep(time.Second)
		if _, err := s.Sample(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
		// A consumer whose context ends while it waits for the next slot
		// gets the context's error, and the sampler is not harmed.
		v := s.View()
		if _, err := v.Sample(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		if _, err := v.Sample(ctx, nil); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want the deadline", err)
		}
		if _, err := v.Sample(t.Context(), nil); err != nil {
			t.Error(err)
		}
	})
}

func TestSamplerPair(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &liveFake{t: t}
		s := NewSampler(src, SamplerOptions{Keep: 10 * time.Second})
		prev, cur, err := s.Pair(t.Context(), nil)
		if err != nil || prev != nil || cur == nil {
			t.Fatalf("first pair: %v %v %v", prev, cur, err)
		}
		time.Sleep(time.Second)
		prev2, cur2, err := s.Pair(t.Context(), nil)
		if err != nil || prev2 != cur || cur2 == cur {
			t.Fatalf("second pair: prev %p (want %p), cur %p, %v", prev2, cur, cur2, err)
		}
		time.Sleep(11 * time.Second)
		prev3, _, err := s.Pair(t.Context(), nil)
		if err != nil || prev3 != nil {
			t.Fatalf("a pair further apart than Keep: prev %p, %v", prev3, err)
		}
	})
}
