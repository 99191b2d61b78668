package pdhcsv

import (
	"io"
	"math/rand/v2"
	"strconv"
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

// BenchmarkAppendG17 formats fractions as a rate counter gives them
// (0 to 100 with 17 significant digits): AppendG17 against strconv's own
// %.17g, which it must equal (TestG17Strconv).
func BenchmarkAppendG17(b *testing.B) {
	xs := make([]float64, 1024)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range xs {
		xs[i] = r.Float64() * 100
	}
	for _, f := range []struct {
		name string
		fn   func([]byte, float64) []byte
	}{
		{"AppendG17", AppendG17},
		{"strconv", func(b []byte, x float64) []byte { return strconv.AppendFloat(b, x, 'g', 17, 64) }},
	} {
		b.Run(f.name, func(b *testing.B) {
			buf := make([]byte, 0, 64)
			i := 0
			for b.Loop() {
				buf = f.fn(buf[:0], xs[i&1023])
				i++
			}
		})
	}
}
