package pdh

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/perfcounters/perfcounters/titles"
)

// countedLive is a live source (no recording) that serves its samples in
// turn, counting the reads and the objects each asked for.
type countedLive struct{ m memSource }

func (l *countedLive) Sample(ctx context.Context, objects []uint32) (*Sample, error) {
	return l.m.Sample(ctx, objects)
}
func (l *countedLive) Titles() *titles.DB { return l.m.db }
func (l *countedLive) Recorded() Recorded { return nil }

// TestAddCountersReadsOnce: AddCounters of two objects reads the source
// once for both, and that read is the first Collect when it comes at
// once (typeperf -sc 1: two reads for the first row, not four); a Collect
// later than primeFresh, or a path added after, reads afresh; a recording
// is never primed (its Collect must move on).
func TestAddCountersReadsOnce(t *testing.T) {
	db := dbOf(t, map[uint32]string{10000: "Queue", 10002: "Jobs", 10004: "Printer", 10006: "Pages"})
	samples := func() [][]byte {
		var out [][]byte
		for k := range 4 {
			ft := t0 + int64(k)*second
			out = append(out, block(t, "PC", ft, obj{10000, 10002, uint64(10 + k)}, obj{10004, 10006, uint64(20 + k)}))
		}
		return out
	}
	paths := []string{`\Queue(*)\Jobs`, `\Printer(*)\Pages`}
	cases := []struct {
		name      string
		wait      time.Duration
		addLater  bool
		wantReads int // after AddCounters and one Collect
		wantFirst uint64
	}{
		{"at once", 0, false, 1, 10},
		{"late", time.Second, false, 2, 11},
		{"path added after", 0, true, 2, 11},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := &countedLive{m: memSource{db: db, samples: samples()}}
				q := OpenQuery(src)
				cs, errs := q.AddCounters(t.Context(), paths)
				if slices.ContainsFunc(errs, func(e error) bool { return e != nil }) {
					t.Fatal(errs)
				}
				if len(src.m.asked) != 1 || !slices.Equal(src.m.asked[0], []uint32{10000, 10004}) {
					t.Fatalf("AddCounters asked %v, want one read of [10000 10004]", src.m.asked)
				}
				if c.addLater {
					if _, err := q.AddCounter(`\Queue(*)\Jobs`); err != nil {
						t.Fatal(err)
					}
				}
				time.Sleep(c.wait)
				if err := q.Collect(t.Context()); err != nil {
					t.Fatal(err)
				}
				if len(src.m.asked) != c.wantReads {
					t.Errorf("%d reads after the first Collect, want %d", len(src.m.asked), c.wantReads)
				}
				raw := cs[0].Raw()
				if len(raw) != 1 {
					t.Fatalf("%d raw items", len(raw))
				}
				v := raw[0].Raw.FirstValue
				if v != c.wantFirst {
					t.Errorf("first value %d, want %d", v, c.wantFirst)
				}
			})
		})
	}
	// A recording: AddCounters reads once, and Collect still reads.
	rec := &memSource{db: db, samples: samples()}
	q := OpenQuery(rec)
	if _, errs := q.AddCounters(t.Context(), paths); slices.ContainsFunc(errs, func(e error) bool { return e != nil }) {
		t.Fatal(errs)
	}
	if err := q.Collect(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(rec.asked) != 2 {
		t.Errorf("recording: %d reads, want 2 (the path check, the Collect)", len(rec.asked))
	}
}
