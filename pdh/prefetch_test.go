package pdh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/perfcounters/perfcounters/titles"
)

// lastingMem is a memSource marked Lasting (NewSample copies nothing, and
// the sample bytes are never changed: its samples last) that remembers
// the objects each sample it returned was asked for.
type lastingMem struct {
	*memSource
	mu    sync.Mutex
	asked map[*Sample][]uint32
}

func (*lastingMem) SamplesLast() {}

func (m *lastingMem) Sample(ctx context.Context, objects []uint32) (*Sample, error) {
	s, err := m.memSource.Sample(ctx, objects)
	if s != nil {
		m.mu.Lock()
		if m.asked == nil {
			m.asked = map[*Sample][]uint32{}
		}
		m.asked[s] = slices.Clone(objects)
		m.mu.Unlock()
	}
	return s, err
}

func (m *lastingMem) objectsOf(s *Sample) []uint32 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.asked[s]
}

// prefetchOp is one step of TestPrefetch: a Sample for objects, a Seek to
// seek, or (wait) the Prefetcher's Wait, which reading directly skips.
type prefetchOp struct {
	objects []uint32
	seek    int // -1: no seek
	wait    bool
}

func sampleOp(objects ...uint32) prefetchOp { return prefetchOp{objects: objects, seek: -1} }
func seekOp(i int) prefetchOp               { return prefetchOp{seek: i} }
func waitOp() prefetchOp                    { return prefetchOp{seek: -1, wait: true} }

// TestPrefetch reads a recording through a Prefetcher and directly, with
// the same steps, and wants the same samples, errors, positions and
// objects asked of the source (after a Wait, the source stands where the
// Prefetcher's Pos says).
func TestPrefetch(t *testing.T) {
	good := func(i int) []byte {
		return buildSample(t, int64(1000+i)*1e7, []proc{{name: "p", pid: 1, start: 1, cpu: uint64(i)}}, nil)
	}
	bad := []byte("not a block")
	rec := func(n int, badAt ...int) [][]byte {
		out := make([][]byte, n)
		for i := range out {
			out[i] = good(i)
		}
		for _, b := range badAt {
			out[b] = bad
		}
		return out
	}
	all := func(n int) []prefetchOp {
		var ops []prefetchOp
		for range n + 1 {
			ops = append(ops, sampleOp(idxProcess))
		}
		return ops
	}
	tests := []struct {
		name    string
		samples [][]byte
		ops     []prefetchOp
	}{
		{"every sample then EOF", rec(5), all(5)},
		{"one sample", rec(1), all(1)},
		{"empty recording", rec(0), all(0)},
		{"a damaged sample in the middle", rec(5, 2), all(5)},
		{"a damaged last sample", rec(4, 3), all(4)},
		{"objects change between samples", rec(5), []prefetchOp{
			sampleOp(idxProcess), sampleOp(idxThread), sampleOp(), sampleOp(), sampleOp(idxProcess, idxThread), sampleOp()}},
		{"seek back and forth", rec(6), []prefetchOp{
			sampleOp(), sampleOp(), seekOp(0), sampleOp(), seekOp(4), sampleOp(), sampleOp(), sampleOp(), seekOp(6), sampleOp(), seekOp(1), sampleOp()}},
		{"wait between samples", rec(4), []prefetchOp{
			sampleOp(), waitOp(), sampleOp(), waitOp(), waitOp(), sampleOp(), sampleOp(), sampleOp()}},
		{"seek out of range", rec(3), []prefetchOp{sampleOp(), seekOp(3), sampleOp(), seekOp(0), sampleOp()}},
	}
	for _, tc := range tests {
		// In a synctest bubble, which fails when a goroutine (the
		// Prefetcher's reader) is left blocked after the test.
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				direct := &lastingMem{memSource: &memSource{db: titles.English(), samples: tc.samples}}
				ahead := &lastingMem{memSource: &memSource{db: direct.db, samples: tc.samples}}
				pf := Prefetch(ahead)
				var got, want bytes.Buffer
				for i, op := range tc.ops {
					switch {
					case op.wait:
						if err := pf.Wait(); err != nil {
							t.Fatalf("step %d: Wait: %v", i, err)
						}
						if ahead.next != pf.Pos() {
							t.Fatalf("step %d: after Wait the source stands at %d, the Prefetcher at %d", i, ahead.next, pf.Pos())
						}
						continue
					case op.seek >= 0:
						fmt.Fprintf(&got, "seek %d: %v\n", op.seek, pf.Seek(op.seek))
						fmt.Fprintf(&want, "seek %d: %v\n", op.seek, direct.Seek(op.seek))
					default:
						s, err := pf.Sample(ctx, op.objects)
						describe(&got, s, err, ahead.objectsOf(s))
						s, err = direct.Sample(ctx, op.objects)
						describe(&want, s, err, direct.objectsOf(s))
					}
					fmt.Fprintf(&got, "pos %d\n", pf.Pos())
					fmt.Fprintf(&want, "pos %d\n", direct.Pos())
				}
				if err := pf.Wait(); err != nil {
					t.Fatal(err)
				}
				if got.String() != want.String() {
					t.Errorf("through the Prefetcher:\n%s\nread directly:\n%s", got.String(), want.String())
				}
				if ahead.next != pf.Pos() {
					t.Errorf("after Wait the source stands at %d, the Prefetcher at %d", ahead.next, pf.Pos())
				}
				if pf.Len() != direct.Len() {
					t.Errorf("Len %d, want %d", pf.Len(), direct.Len())
				}
			})
		})
	}
}

// describe writes what a test compares of a Sample result: the error, or
// the time, the objects it was read for and the blocks' bytes.
func describe(w io.Writer, s *Sample, err error, objects []uint32) {
	if err != nil {
		fmt.Fprintf(w, "error %v\n", err)
		return
	}
	fmt.Fprintf(w, "sample %s for %v", s.Time.UTC().Format("15:04:05.000"), objects)
	for _, b := range s.Blocks {
		fmt.Fprintf(w, " %x", b.Bytes())
	}
	fmt.Fprintln(w)
}

// TestPrefetchCanceled: a context cancelled while a sample was read ahead
// is not the next call's error when that call's context is live.
func TestPrefetchCanceled(t *testing.T) {
	samples := [][]byte{
		buildSample(t, 1e10, []proc{{name: "p", pid: 1, start: 1}}, nil),
		buildSample(t, 2e10, []proc{{name: "p", pid: 1, start: 1, cpu: 5}}, nil),
	}
	src := &lastingMem{memSource: &memSource{db: titles.English(), samples: samples}}
	pf := Prefetch(src)
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := pf.Sample(ctx, nil); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := pf.Sample(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Sample with a cancelled context: %v, want context.Canceled", err)
	}
	s, err := pf.Sample(context.Background(), nil)
	if err != nil {
		t.Fatalf("Sample with a live context after a cancelled one: %v", err)
	}
	if want := FileTimeToTime(2e10); !s.Time.Equal(want) {
		t.Errorf("second sample's time %v, want %v", s.Time, want)
	}
	if _, err := pf.Sample(context.Background(), nil); err != io.EOF {
		t.Errorf("after the last sample: %v, want io.EOF", err)
	}
}
