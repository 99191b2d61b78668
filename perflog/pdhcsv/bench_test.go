package pdhcsv

import (
	"io"
	"testing"
	"time"
)

// BenchmarkWriteRow writes a 200-column log row (a \Process(*)\% Processor
// Time capture) in both styles.
func BenchmarkWriteRow(b *testing.B) {
	cols := make([]string, 200)
	vals := make([]Value, 200)
	for i := range cols {
		cols[i] = `\\HOST\Process(p)\% Processor Time`
		vals[i] = Value{Number: float64(i) * 1.2345678901234567, OK: i%7 != 0}
	}
	for _, st := range []struct {
		name  string
		style Style
	}{{"log", StyleLog}, {"console", StyleConsole}} {
		b.Run(st.name, func(b *testing.B) {
			var n countWriter
			w := NewWriter(&n, WriterOptions{Style: st.style, Location: time.UTC})
			w.WriteHeader(Zone{Name: "UTC", Bias: 0}, cols)
			t := time.Date(2024, 1, 2, 3, 4, 5, 6e6, time.UTC)
			w.WriteRow(t, vals)
			b.SetBytes(int64(n.last))
			b.ReportAllocs()
			for b.Loop() {
				w.WriteRow(t, vals)
			}
		})
	}
}

type countWriter struct{ last int }

func (c *countWriter) Write(p []byte) (int, error) { c.last = len(p); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)
