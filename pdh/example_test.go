package pdh_test

import (
	"context"
	"fmt"
	"log"
	"path/filepath"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// fixtureBlocks are four samples, one second apart, written by perfc on
// a test host (see internal/tool/typeperf/testdata).
var fixtureBlocks = filepath.Join("..", "internal", "tool", "typeperf", "testdata", "blocks")

// A query over recorded samples: add counters by path (wildcards allowed),
// collect, read formatted values. A rate needs two samples: the first
// gives NewData, never a made-up 0.
func Example() {
	ctx := context.Background()
	q := pdh.OpenQuery(fixtureSource())
	cpu, err := q.AddCounter(`\Processor(_Total)\% Processor Time`)
	if err != nil {
		log.Fatal(err)
	}
	mem, err := q.AddCounter(`\Memory\Available MBytes`)
	if err != nil {
		log.Fatal(err)
	}
	for range 2 {
		if err := q.Collect(ctx); err != nil {
			log.Fatal(err)
		}
		c, _ := cpu.Formatted(calc.FmtDouble)
		m, _ := mem.Formatted(calc.FmtDouble)
		if c.Status != calc.ValidData {
			fmt.Printf("%s  cpu (no rate yet)  memory %g MB\n", q.Time().Format("15:04:05"), m.Double)
			continue
		}
		fmt.Printf("%s  cpu %g%%  memory %g MB\n", q.Time().Format("15:04:05"), c.Double, m.Double)
	}
	// Output:
	// 12:00:00  cpu (no rate yet)  memory 2048 MB
	// 12:00:01  cpu 50%  memory 2049 MB
}

// memorySource is a data source of one's own: anything that yields
// PERF_DATA_BLOCKs (a socket, a message queue, a test) plugs into pdh by
// implementing Sample, Titles and Recorded.
type memorySource struct {
	read func() []byte // one reading of the data
}

func (m *memorySource) Sample(ctx context.Context, objects []uint32) (*pdh.Sample, error) {
	return pdh.NewSample([][]byte{m.read()})
}

func (m *memorySource) Titles() *titles.DB { return titles.English() }

// Recorded is nil: this source behaves as a live one.
func (m *memorySource) Recorded() pdh.Recorded { return nil }

// A Source of one's own: here each reading is a block built in memory with
// the codec, holding the Memory object (title index 4) with Available
// Bytes (24). A live source is read when counters are added (to check
// their paths) and at every Collect.
func ExampleSource() {
	block := func(t100 int64, avail uint64) []byte {
		specs := []perfdata.CounterSpec{{NameIndex: 24, HelpIndex: 25, Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT, Size: 8}}
		l, err := perfdata.NewLayout(specs)
		if err != nil {
			log.Fatal(err)
		}
		b := perfdata.NewBuilder(nil)
		b.Reset(perfdata.Header{PerfTime: t100, PerfFreq: 1e7, PerfTime100nSec: t100, SystemName: "EXAMPLE"})
		if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: 4, HelpIndex: 5, Single: true}, l, specs); err != nil {
			log.Fatal(err)
		}
		b.Single().Set(0, avail)
		if err := b.EndObject(); err != nil {
			log.Fatal(err)
		}
		return append([]byte(nil), b.Bytes()...)
	}
	const t0 = 133_000_000_000_000_000 // a FILETIME in 2022
	readings := 0
	src := &memorySource{read: func() []byte {
		readings++
		return block(t0+int64(readings)*1e7, uint64(readings)<<29)
	}}
	q := pdh.OpenQuery(src)
	c, err := q.AddCounter(`\Memory\Available Bytes`)
	if err != nil {
		log.Fatal(err)
	}
	for range 2 {
		if err := q.Collect(context.Background()); err != nil {
			log.Fatal(err)
		}
		v, _ := c.Formatted(calc.FmtLarge)
		fmt.Println(q.Machine(), v.Large)
	}
	// Output:
	// EXAMPLE 1073741824
	// EXAMPLE 1610612736
}
