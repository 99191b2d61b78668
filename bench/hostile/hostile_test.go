// Package hostile times what relog does with a block file (package pdh:
// read the file, resolve \230(*)\*, collect, format every instance of every
// counter) on hostile blocks that grow 1x..8x, so that linear cost shows as
// constant ns and B per input byte. See RESULTS.md, "Hostile inputs".
package hostile

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/titles"
)

// block writes one block of object 230 with n DWORD counters (distinct
// title indexes 1000, 1002, ...; ByteLength defLen) that all read the same
// four bytes at offset 4, and m unnamed instances with 8-byte counter
// blocks: the most values per byte the codec accepts (n = 32: about one per
// byte) when the counters are many and the instances empty.
func block(n, m int, defLen uint32) []byte {
	le := binary.LittleEndian
	b := make([]byte, 88)
	copy(b, "P\x00E\x00R\x00F\x00")
	le.PutUint32(b[8:], 1)
	le.PutUint32(b[12:], 1)
	le.PutUint32(b[16:], 1)
	le.PutUint32(b[24:], 88)
	le.PutUint32(b[28:], 1)
	le.PutUint64(b[72:], 128315940386596596) // PerfTime100nSec
	le.PutUint64(b[64:], 10000000)           // PerfFreq
	o := len(b)
	b = append(b, make([]byte, 64)...)
	le.PutUint32(b[o+8:], 64)
	le.PutUint32(b[o+12:], 230)
	le.PutUint32(b[o+32:], uint32(n))
	le.PutUint32(b[o+36:], 0xFFFFFFFF)
	le.PutUint32(b[o+40:], uint32(m))
	for i := range n {
		d := len(b)
		b = append(b, make([]byte, defLen)...)
		le.PutUint32(b[d:], defLen)
		le.PutUint32(b[d+4:], uint32(1000+2*i))
		le.PutUint32(b[d+28:], 0x00010000) // PERF_COUNTER_RAWCOUNT
		le.PutUint32(b[d+32:], 4)
		le.PutUint32(b[d+36:], 4)
	}
	le.PutUint32(b[o+4:], uint32(len(b)-o))
	for range m {
		in := len(b)
		b = append(b, make([]byte, 32)...)
		le.PutUint32(b[in:], 24)
		le.PutUint32(b[in+12:], 0xFFFFFFFF)
		le.PutUint32(b[in+24:], 8)
		le.PutUint32(b[in+28:], 7) // the value every counter reads
	}
	le.PutUint32(b[o:], uint32(len(b)-o))
	le.PutUint32(b[20:], uint32(len(b)))
	return b
}

// relogOnce does relog's work for one file and returns the values formatted.
func relogOnce(tb testing.TB, path string, db *titles.DB) int {
	src, err := pdh.OpenBlockFiles([]string{path}, db)
	if err != nil {
		tb.Fatal(err)
	}
	q := pdh.OpenQuery(src)
	if _, err := q.AddCounter(`\230(*)\*`); err != nil {
		tb.Fatal(err)
	}
	if err := q.Collect(context.Background()); err != nil {
		tb.Fatal(err)
	}
	n := 0
	var items []pdh.Item
	for _, c := range q.Counters() {
		items = c.AppendFormattedArray(items[:0], calc.FmtDouble|calc.FmtNoScale|calc.FmtNoCap100)
		for _, it := range items {
			if it.Status == calc.ValidData && it.Computed == 7 {
				n++
			}
		}
	}
	return n
}

// TestRelogHostile: every value of the hostile block is read and formatted
// (32 counters × m instances, each 7), so the benchmark times real work.
func TestRelogHostile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "h.bin")
	if err := os.WriteFile(p, block(32, 100, 40), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := relogOnce(t, p, titles.English()); got != 3200 {
		t.Errorf("%d values of 7, want 32 × 100", got)
	}
}

func benchRelog(b *testing.B, data []byte) {
	p := filepath.Join(b.TempDir(), "h.bin")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		b.Fatal(err)
	}
	db := titles.English()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for b.Loop() {
		relogOnce(b, p, db)
	}
	runtime.ReadMemStats(&m1)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(data)), "ns/in-byte")
	b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/float64(b.N)/float64(len(data)), "B/in-byte")
}

// BenchmarkRelogEmptyInstances: 32 counters aliasing one DWORD and many
// empty instances (the worst the value bound admits).
func BenchmarkRelogEmptyInstances(b *testing.B) {
	for _, s := range []int{1, 2, 4, 8} {
		m := 500 * s
		b.Run(fmt.Sprintf("instances=%d", m), func(b *testing.B) { benchRelog(b, block(32, m, 40)) })
	}
}

// BenchmarkRelogWideDefinitions: many 48-byte counter definitions, one
// instance (Counter(i) and BaseOf(i) used to walk i definitions).
func BenchmarkRelogWideDefinitions(b *testing.B) {
	for _, s := range []int{1, 2, 4, 8} {
		n := 2500 * s
		b.Run(fmt.Sprintf("counters=%d", n), func(b *testing.B) { benchRelog(b, block(n, 1, 48)) })
	}
}
