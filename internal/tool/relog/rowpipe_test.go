package relog

import (
	"bytes"

	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
)

// TestRowPipe: rows handed to the pipe are kept in order, each as
// pdhcsv.Writer.AppendRow makes it alone, with its cell count, whether
// the log is shorter than a batch, batches end on their row count or on
// their value count (wide rows), or rows widen as columns come.
func TestRowPipe(t *testing.T) {
	w := pdhcsv.NewWriter(&bytes.Buffer{}, pdhcsv.WriterOptions{Format: pdhcsv.CSV, Location: time.UTC})
	t0 := time.Date(2024, 3, 5, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		rows  int
		width func(i int) int
	}{
		{"one row", 1, func(int) int { return 3 }},
		{"under a batch", pipeRows - 1, func(int) int { return 26 }},
		{"batches of rows", 10*pipeRows + 7, func(int) int { return 26 }},
		{"batches of values", 40, func(int) int { return pipeValues/3 + 1 }},
		{"widening", 5 * pipeRows, func(i int) int { return 1 + i/7 }},
		{"no values", 3 * pipeRows, func(int) int { return 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows := newRowStore()
			defer rows.close()
			p := newRowPipe(w, rows)
			var want [][]byte
			var vals []pdhcsv.Value
			for i := range tc.rows {
				vals = vals[:0]
				for j := range tc.width(i) {
					vals = append(vals, pdhcsv.Value{Number: float64(i) + float64(j)/1000 + math.Pi, OK: (i+j)%5 != 0})
				}
				at := t0.Add(time.Duration(i) * time.Second)
				want = append(want, w.AppendRow(nil, at, vals))
				if err := p.add(at, vals); err != nil {
					t.Fatal(err)
				}
				clear(vals) // the pipe has its own copy
			}
			if err := p.finish(); err != nil {
				t.Fatal(err)
			}
			n := 0
			err := rows.each(func(row []byte, cells int) error {
				if n >= len(want) || !bytes.Equal(row, want[n]) || cells != tc.width(n) {
					t.Errorf("row %d: %q (%d cells)", n, clip(row), cells)
				}
				n++
				return nil
			})
			if err != nil || n != len(want) {
				t.Errorf("%d rows, %v; want %d", n, err, len(want))
			}
			if p.made > pipeBatches {
				t.Errorf("%d batches made, at most %d", p.made, pipeBatches)
			}
		})
	}
}

// TestRowPipeFails: a row the store cannot keep (no temporary file to
// spill to) stops the pipe: add or finish tells the error, and the
// goroutine ends; stop ends it too when the conversion fails elsewhere.
// Run in a synctest bubble, a goroutine left blocked fails the test.
func TestRowPipeFails(t *testing.T) {
	w := pdhcsv.NewWriter(&bytes.Buffer{}, pdhcsv.WriterOptions{Format: pdhcsv.CSV, Location: time.UTC})
	vals := make([]pdhcsv.Value, 26)
	rowLen := len(w.AppendRow(nil, time.Unix(0, 0), vals))
	for _, tc := range []struct {
		name       string
		spill      int  // bytes of rows kept before the temporary file
		goroutines bool // the row that fails is the goroutine's
	}{
		{"no temporary file, the caller's row", 0, false},
		{"no temporary file, the goroutine's row", (pipeRows + 3) * rowLen, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("TMPDIR", t.TempDir()+"/missing")
			synctest.Test(t, func(t *testing.T) {
				rows := newRowStore()
				rows.spill = tc.spill
				defer rows.close()
				p := newRowPipe(w, rows)
				var err error
				for i := 0; i < 100*pipeRows && err == nil; i++ {
					err = p.add(time.Unix(int64(i), 0), vals)
					synctest.Wait() // the goroutine is done with what it has
				}
				if err == nil {
					err = p.finish()
				}
				if err == nil {
					t.Fatal("rows kept with no temporary file to keep them in")
				}
				if started := p.state != pipeIdle; started != tc.goroutines {
					t.Errorf("goroutine started: %v, want %v", started, tc.goroutines)
				}
				p.stop()
				if p.state == pipeRunning {
					t.Errorf("the pipe's goroutine is still running after %v", err)
				}
			})
		})
	}
	t.Run("stopped", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			rows := newRowStore()
			defer rows.close()
			p := newRowPipe(w, rows)
			for i := range 3*pipeRows + 1 {
				if err := p.add(time.Unix(int64(i), 0), vals); err != nil {
					t.Fatal(err)
				}
			}
			p.stop()
			p.stop() // twice: nothing more
			if p.state != pipeDone {
				t.Error("stop left the goroutine running")
			}
		})
	})
}
