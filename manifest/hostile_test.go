package manifest

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// attrManifest is a manifest whose <provider> element carries n unknown
// attributes a0="x" ... a{n-1}="x", or a repeated one at the end when dup.
func attrManifest(n int, dup bool) []byte {
	var b bytes.Buffer
	b.WriteString("<instrumentationManifest><instrumentation><counters><provider")
	for i := range n {
		fmt.Fprintf(&b, " a%d=\"x\"", i)
	}
	if dup {
		b.WriteString(" a0=\"y\"")
	}
	b.WriteString("/></counters></instrumentation></instrumentationManifest>")
	return b.Bytes()
}

// TestManyAttributes: a repeat among thousands of attributes is still
// found (the map that replaced the pairwise search misses none).
func TestManyAttributes(t *testing.T) {
	for _, n := range []int{1, 8, 9, 5000} {
		_, err := Parse("m.man", bytes.NewReader(attrManifest(n, true)))
		if err == nil || !strings.Contains(err.Error(), "attribute a0 repeated") {
			t.Errorf("%d attributes and a repeat: %v", n, err)
		}
		_, err = Parse("m.man", bytes.NewReader(attrManifest(n, false)))
		if err == nil || strings.Contains(err.Error(), "repeated") {
			t.Errorf("%d distinct attributes: %v, want another error (the provider lacks its attributes)", n, err)
		}
	}
}

// BenchmarkHostileAttributes: one element with many attributes (3.2 MB
// took 96 s: each attribute was compared with every earlier one). The input
// grows 1x..8x; linear cost shows as constant ns/in-byte and B/in-byte.
func BenchmarkHostileAttributes(b *testing.B) {
	for _, s := range []int{1, 2, 4, 8} {
		data := attrManifest(25000*s, false)
		b.Run(fmt.Sprintf("attrs=%d", 25000*s), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			for b.Loop() {
				Parse("m.man", bytes.NewReader(data))
			}
			runtime.ReadMemStats(&m1)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(data)), "ns/in-byte")
			b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/float64(b.N)/float64(len(data)), "B/in-byte")
		})
	}
}
