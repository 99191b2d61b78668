package dump

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// hostileBlock writes, byte by byte and without the Builder, one block of
// one object 230 with n counter definitions of defLen bytes each (a DWORD
// PERF_COUNTER_RAWCOUNT of size sz at offset 4: every counter reads the same
// bytes) and m unnamed instances whose counter blocks are 8 bytes long.
func hostileBlock(n, m int, defLen, sz uint32) []byte {
	le := binary.LittleEndian
	b := make([]byte, 88, 88+64+n*int(defLen)+m*32)
	copy(b, "P\x00E\x00R\x00F\x00")
	le.PutUint32(b[8:], 1)  // LittleEndian
	le.PutUint32(b[12:], 1) // Version
	le.PutUint32(b[16:], 1) // Revision
	le.PutUint32(b[24:], 88)
	le.PutUint32(b[28:], 1) // one object
	o := len(b)
	b = append(b, make([]byte, 64)...)
	le.PutUint32(b[o+8:], 64)
	le.PutUint32(b[o+12:], 230)
	le.PutUint32(b[o+32:], uint32(n))
	le.PutUint32(b[o+36:], 0xFFFFFFFF)
	le.PutUint32(b[o+40:], uint32(m))
	for range n {
		d := len(b)
		b = append(b, make([]byte, defLen)...)
		le.PutUint32(b[d:], defLen)
		le.PutUint32(b[d+4:], 6)
		le.PutUint32(b[d+28:], 0x00010000) // PERF_COUNTER_RAWCOUNT
		le.PutUint32(b[d+32:], sz)
		le.PutUint32(b[d+36:], 4)
	}
	le.PutUint32(b[o+4:], uint32(len(b)-o))
	for range m {
		in := len(b)
		b = append(b, make([]byte, 32)...)
		le.PutUint32(b[in:], 24)
		le.PutUint32(b[in+12:], 0xFFFFFFFF)
		le.PutUint32(b[in+24:], 8)
	}
	le.PutUint32(b[o:], uint32(len(b)-o))
	le.PutUint32(b[20:], uint32(len(b)))
	return b
}

// TestHostileBlocks: the shapes the benchmarks time are refused or accepted
// as the value bound says (values = counters × instances against the
// object's bytes, computed here by hand), and what is accepted is dumped in
// full.
func TestHostileBlocks(t *testing.T) {
	for _, tt := range []struct {
		name       string
		n, m       int
		defLen, sz uint32
		refused    string
	}{
		// 64 + 3000×40 + 3000×32 = 216064 bytes, 9,000,000 values
		{"many counters, many empty instances", 3000, 3000, 40, 0, "3000 counters × 3000 counter blocks = 9000000 values in a 216064-byte object"},
		// 64 + 32×40 + 1000×32 = 33344 bytes, 32,000 values: accepted
		{"aliased counters at the bound", 32, 1000, 40, 4, ""},
		// 64 + 64×40 + 1000×32 = 34624 bytes, 64,000 values
		{"aliased counters past the bound", 64, 1000, 40, 4, "64000 values in a 34624-byte object"},
		{"48-byte definitions", 5000, 1, 48, 4, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := hostileBlock(tt.n, tt.m, tt.defLen, tt.sz)
			var out strings.Builder
			err := Write(&out, "h.bin", data, Options{})
			if tt.refused != "" {
				var fe *perfdata.FormatError
				if !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.refused) {
					t.Fatalf("err %v, want a format error with %q", err, tt.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// one value line per counter per instance
			if got, want := strings.Count(out.String(), "\n    6 "), tt.n*tt.m; got != want {
				t.Errorf("%d value lines, want %d", got, want)
			}
		})
	}
}

// The hostile-input benchmarks grow the input 1x, 2x, 4x, 8x; linear cost
// shows as constant ns and B per input byte (B/s and B/op over SetBytes).
var scales = []int{1, 2, 4, 8}

func benchDump(b *testing.B, data []byte, opts Options) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for b.Loop() {
		if err := Write(io.Discard, "h.bin", data, opts); err != nil && opts.JSON {
			b.Fatal(err)
		}
	}
	runtime.ReadMemStats(&m1)
	perByte(b, len(data), m1.TotalAlloc-m0.TotalAlloc)
}

// perByte reports the cost per input byte: ns/in-byte and B/in-byte
// (bytes allocated), constant when the cost is linear.
func perByte(b *testing.B, n int, alloc uint64) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/in-byte")
	b.ReportMetric(float64(alloc)/float64(b.N)/float64(n), "B/in-byte")
}

// BenchmarkHostileEmptyInstances: many counters and many empty instances,
// the shape that cost 3.3 GB for 272 KB: k counters × k instances, refused
// by the value bound in time linear in k² bytes... of which there are only
// 72k, so the benchmark grows k.
func BenchmarkHostileEmptyInstances(b *testing.B) {
	for _, s := range scales {
		k := 1000 * s
		b.Run(fmt.Sprintf("refused/k=%d", k), func(b *testing.B) {
			benchDump(b, hostileBlock(k, k, 40, 0), Options{})
		})
	}
	// The worst shape the bound accepts: 32 counters aliasing one DWORD,
	// one value per byte of the object, every value printed.
	for _, s := range scales {
		m := 2000 * s
		b.Run(fmt.Sprintf("accepted/instances=%d", m), func(b *testing.B) {
			benchDump(b, hostileBlock(32, m, 40, 4), Options{JSON: true, Titles: titles.English()})
		})
	}
}

// BenchmarkHostileWideDefinitions: counter definitions whose ByteLength is
// not 40 (8.8 MB took 43 s: Counter(i) walked i definitions).
func BenchmarkHostileWideDefinitions(b *testing.B) {
	for _, s := range scales {
		n := 25000 * s
		b.Run(fmt.Sprintf("counters=%d", n), func(b *testing.B) {
			benchDump(b, hostileBlock(n, 1, 48, 4), Options{JSON: true})
		})
	}
}
