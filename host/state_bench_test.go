package host

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/perfcounters/perfcounters/manifest"
)

// largeManifest declares provider k with sets counter sets of n counters,
// each with a description, as a large real manifest has.
func largeManifest(k, sets, n int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"><instrumentation>
<counters xmlns="http://schemas.microsoft.com/win/2005/12/counters" schemaVersion="1.1">
<provider providerName="Large%d" providerGuid="{0A1B2C3D-0000-4000-8000-0000%04X0000}" applicationIdentity="b" symbol="L">
`, k, k)
	for s := range sets {
		fmt.Fprintf(&b, `<counterSet guid="{0A1B2C3D-0000-4000-8000-0000%04X%04X}" uri="large.%d.%d" name="Large %d Set %d" description="A set of provider %d." symbol="S%d" instances="multipleAggregate">
`, k, s+1, k, s, k, s, k, s)
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, `<counter id="%d" uri="large.%d.%d.c%d" name="Counter %d" description="How many things counter %d of set %d has seen since the provider started." type="perf_counter_large_rawcount" detailLevel="standard" aggregate="sum"/>`+"\n", i, k, s, i, i, i, s)
		}
		b.WriteString("</counterSet>\n")
	}
	b.WriteString("</provider></counters></instrumentation></instrumentationManifest>\n")
	return b.Bytes()
}

// BenchmarkNewRegistered measures New with 20 registered manifests of 4
// sets x 100 counters (about 80 KB of XML each): "parsed" reads the parsed
// forms lodctr keeps, "xml" the same directory without them, which
// parses every manifest copy as commands did before; "empty" is New with
// nothing registered, the floor. cpu-ns/op is the process's CPU time per
// New, which other load on the machine does not inflate.
func BenchmarkNewRegistered(b *testing.B) {
	dir := b.TempDir()
	parsed := filepath.Join(dir, "parsed")
	xml := filepath.Join(dir, "xml")
	for _, state := range []string{parsed, xml} {
		for k := range 20 {
			data := largeManifest(k+1, 4, 100)
			m, err := manifest.Parse("large.man", bytes.NewReader(data))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Register(state, m, data, "large.man"); err != nil {
				b.Fatal(err)
			}
		}
	}
	forms, _ := filepath.Glob(filepath.Join(xml, "manifests", "*.sets.gob"))
	if len(forms) != 20 {
		b.Fatalf("%d parsed forms, want 20", len(forms))
	}
	for _, f := range forms {
		os.Remove(f)
	}
	empty := filepath.Join(dir, "empty")
	for _, state := range []string{empty, parsed, xml} {
		b.Run(filepath.Base(state), func(b *testing.B) {
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				h, err := New(Options{StateDir: state, SegmentDir: dir, MaxKeptFiles: 8})
				if err != nil {
					b.Fatal(err)
				}
				if state != empty && len(h.Titles().Entries()) < 20*4*101 {
					b.Fatal("registered names missing")
				}
				h.Close()
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is the CPU time (user and system) this process has used, in
// nanoseconds: a cost that other processes sharing the machine do not
// inflate, unlike wall time.
func cpuTime() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
