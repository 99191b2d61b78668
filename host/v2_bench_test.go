package host

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/perfcounters/perfcounters/manifest"
	"github.com/perfcounters/perfcounters/provider"
	"github.com/perfcounters/perfcounters/shm"
)

// benchManifest declares one multipleAggregate set of n rawcount counters.
func benchManifest(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"><instrumentation>
<counters xmlns="http://schemas.microsoft.com/win/2005/12/counters" schemaVersion="1.1">
<provider providerName="Bench" providerGuid="{0A1B2C3D-0000-4000-8000-0000000000BE}" applicationIdentity="b" symbol="B">
<counterSet guid="{0A1B2C3D-0000-4000-8000-0000000000BF}" uri="bench" name="Perfc Bench" description="d" symbol="S" instances="multipleAggregate">
`)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `<counter id="%d" uri="c%d" name="Counter %d" description="d" type="perf_counter_large_rawcount" detailLevel="standard" aggregate="sum"/>`+"\n", i, i, i)
	}
	b.WriteString("</counterSet></provider></counters></instrumentation></instrumentationManifest>\n")
	return b.Bytes()
}

// BenchmarkV2Collect measures one collection of a registered set of 1,000
// instances x 20 counters published by a provider: the segment scan, the
// mapping to the registered counters, the _Total and the block building.
func BenchmarkV2Collect(b *testing.B) {
	if err := shm.CheckDir("/dev/shm"); err != nil {
		b.Skip(err)
	}
	seg, err := os.MkdirTemp("/dev/shm", "perfc-host-bench-")
	if err != nil {
		b.Skip(err)
	}
	defer os.RemoveAll(seg)
	const insts, ctrs = 1000, 20
	data := benchManifest(ctrs)
	m, err := manifest.Parse("bench.man", bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	state := b.TempDir()
	res, err := Register(state, m, data, "bench.man")
	if err != nil {
		b.Fatal(err)
	}
	p, err := provider.Start(m.Providers[0].GUID, provider.Options{Dir: seg, MaxInstances: 2 * insts, HeapSize: 8 << 20})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	s, err := p.AddSet(m.Providers[0].CounterSets[0])
	if err != nil {
		b.Fatal(err)
	}
	for i := range insts {
		in, err := s.CreateInstance("instance "+strconv.Itoa(i), 0)
		if err != nil {
			b.Fatal(err)
		}
		for c := uint32(1); c <= ctrs; c++ {
			in.Set(c, uint64(i)*100+uint64(c))
		}
	}
	h, err := New(Options{StateDir: state, SegmentDir: seg, MaxKeptFiles: 8})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	q := strconv.Itoa(int(res[0].Registration.Sets[0].NameIndex))
	ctx := context.Background()
	r, err := h.QueryValue(ctx, q)
	if err != nil || len(r.Problems) > 0 {
		b.Fatal(err, r.Problems)
	}
	b.SetBytes(int64(len(r.Block)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.QueryValue(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}
