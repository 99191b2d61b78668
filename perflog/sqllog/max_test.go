package sqllog

import (
	"context"
	"errors"
	"testing"

	"github.com/perfcounters/perfcounters/pdh"
)

// TestMaxRecords: a log set with a record limit (logman's -max for SQL
// logs) takes samples until its NumberOfRecords is the limit, counting
// the records of earlier writers (SQL logs append), and refuses the next
// with ErrFull, leaving the log set whole.
func TestMaxRecords(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name     string
		before   int   // samples written before, without a limit
		max      int64 // the limit of the second writer
		offered  int   // samples the second writer is given
		accepted int   // of them written
	}{
		{"empty log set", 0, 3, 5, 3},
		{"limit not reached", 0, 10, 4, 4},
		{"records already there count", 2, 3, 4, 1},
		{"full already", 3, 3, 2, 0},
		{"over full already", 4, 3, 1, 0},
		{"no limit", 2, 0, 5, 5},
	}
	for _, be := range backends(t) {
		for _, tc := range cases {
			t.Run(be.name+"/"+tc.name, func(t *testing.T) {
				opts := be.opts(t)
				src := openWindows(t)
				if tc.before > 0 {
					w, err := Create(ctx, "SQL:perf!m", opts)
					if err != nil {
						t.Fatal(err)
					}
					observe(t, ctx, src, []string{`\Memory\*`}, w, 0, tc.before)
					w.Close()
				}
				lim := opts
				lim.MaxRecords = tc.max
				w, err := Create(ctx, "SQL:perf!m", lim)
				if err != nil {
					t.Fatal(err)
				}
				defer w.Close()
				q := newMemoryQuery(t, src, tc.before)
				wrote := 0
				for i := range tc.offered {
					if err := q.Collect(ctx); err != nil {
						t.Fatal(err)
					}
					err := w.WriteQuery(ctx, q)
					if i < tc.accepted {
						if err != nil {
							t.Fatalf("sample %d: %v", i, err)
						}
						wrote++
						continue
					}
					if !errors.Is(err, ErrFull) {
						t.Fatalf("sample %d past the limit %d: error %v, want ErrFull", i, tc.max, err)
					}
				}
				db, _, err := connect(ctx, mustResolve(t, opts), false)
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				var n, idx int
				if err := db.QueryRow(`SELECT NumberOfRecords FROM DisplayToID WHERE DisplayString = 'm'`).Scan(&n); err != nil {
					t.Fatal(err)
				}
				if err := db.QueryRow(`SELECT COUNT(DISTINCT RecordIndex) FROM CounterData`).Scan(&idx); err != nil {
					t.Fatal(err)
				}
				if want := tc.before + wrote; n != want || idx != want {
					t.Errorf("NumberOfRecords %d, record indexes in CounterData %d; want %d", n, idx, want)
				}
			})
		}
	}
}

func TestMaxRecordsNegative(t *testing.T) {
	opts := sqliteOpts(t)
	opts.MaxRecords = -1
	if w, err := Create(context.Background(), "SQL:perf!m", opts); err == nil {
		w.Close()
		t.Fatal("Create with MaxRecords -1: no error")
	}
}

// newMemoryQuery is a query of \Memory\* on the recorded src, at its
// sample from.
func newMemoryQuery(t *testing.T, src pdh.Source, from int) *pdh.Query {
	t.Helper()
	q := pdh.OpenQuery(src)
	if _, err := q.AddCounter(`\Memory\*`); err != nil {
		t.Fatal(err)
	}
	if err := src.Recorded().Seek(from); err != nil {
		t.Fatal(err)
	}
	return q
}
