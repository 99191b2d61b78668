package pdh

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// multiSource replays samples of several blocks each (several machines).
type multiSource struct {
	db      *titles.DB
	samples [][][]byte
	gaps    map[int]bool
	next    int
}

func (m *multiSource) Sample(context.Context, []uint32) (*Sample, error) {
	if m.next >= len(m.samples) {
		return nil, io.EOF
	}
	m.next++
	s, err := NewSample(m.samples[m.next-1])
	if err != nil {
		return nil, err
	}
	s.Gap = m.gaps[m.next-1]
	return s, nil
}

func (m *multiSource) Titles() *titles.DB { return m.db }
func (m *multiSource) Recorded() Recorded { return m }
func (m *multiSource) Counters() []string { return nil }
func (m *multiSource) Len() int           { return len(m.samples) }
func (m *multiSource) Pos() int           { return m.next }
func (m *multiSource) Seek(i int) error   { m.next = i; return nil }
func (m *multiSource) Time(int) time.Time { return time.Time{} }

// machineBlock is buildSample's Process object under another system name.
func machineBlock(t *testing.T, system string, t100 int64, cpu uint64) []byte {
	t.Helper()
	b := buildSample(t, t100, []proc{{name: "app", pid: 7, start: 1, cpu: cpu}}, nil)
	blk, err := NewSample([][]byte{b})
	if err != nil {
		t.Fatal(err)
	}
	// Rebuild with the system name: the header is all that differs.
	h := blk.Blocks[0].Header()
	h.SystemName = system
	nb := perfdata.NewBuilder(nil)
	nb.Reset(h)
	for it := blk.Blocks[0].Objects(); it.Next(); {
		if err := nb.AppendObjects(it.Object().Bytes(), 1); err != nil {
			t.Fatal(err)
		}
	}
	return append([]byte(nil), nb.Bytes()...)
}

// TestMachinesSideBySide: one sample holding the same object of two
// machines gives each machine's path its own values (the CPU rates of
// app differ: 50 % on ALPHA, 25 % on BETA), an unknown machine is a
// NoMachine path error naming both, and a path without machine reads the
// sample's first machine.
func TestMachinesSideBySide(t *testing.T) {
	var samples [][][]byte
	for k, s := range []struct{ a, b uint64 }{{0, 0}, {5e6, 2.5e6}, {1e7, 5e6}} {
		ts := t0 + int64(k)*second
		samples = append(samples, [][]byte{machineBlock(t, "ALPHA", ts, s.a), machineBlock(t, "BETA", ts, s.b)})
	}
	src := &multiSource{db: titles.English(), samples: samples}
	q := OpenQuery(src)
	cases := []struct {
		path string
		want float64
	}{
		{`\\ALPHA\Process(app)\% Processor Time`, 50},
		{`\\beta\Process(app)\% Processor Time`, 25},
		{`\Process(app)\% Processor Time`, 50},
	}
	var cs []*Counter
	for _, c := range cases {
		ctr, err := q.AddCounter(c.path)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		cs = append(cs, ctr)
	}
	if _, err := q.AddCounter(`\\GAMMA\Process(app)\% Processor Time`); err == nil {
		t.Fatal(`\\GAMMA: no error for a machine the source does not have`)
	} else if pe, ok := err.(*PathError); !ok || pe.Part != "machine" || len(pe.Have) != 2 {
		t.Fatalf(`\\GAMMA: %v, want a machine PathError naming ALPHA and BETA`, err)
	}
	for range 3 {
		if err := q.Collect(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cases {
		v, err := cs[i].Formatted(calc.FmtDouble | calc.FmtNoCap100)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		if v.Double != c.want {
			t.Errorf("%s = %v, want %v", c.path, v.Double, c.want)
		}
	}
	smp, err := q.Sample()
	if err != nil {
		t.Fatal(err)
	}
	if len(smp.Blocks) != 2 {
		t.Fatalf("Query.Sample: %d blocks, want the 2 machines' blocks", len(smp.Blocks))
	}
}

// TestGapRestartsRates: a sample marked Gap gives two-sample counters no
// value (instead of a rate across the gap), and the next sample computes
// again.
func TestGapRestartsRates(t *testing.T) {
	cpu := []uint64{0, uint64(second / 2), uint64(second), uint64(second + second/4)}
	var samples [][][]byte
	for k, c := range cpu {
		samples = append(samples, [][]byte{buildSample(t, t0+int64(k)*second, []proc{{name: "app", pid: 7, start: 1, cpu: c}}, nil)})
	}
	src := &multiSource{db: titles.English(), samples: samples, gaps: map[int]bool{2: true}}
	q := OpenQuery(src)
	c := mustAdd(t, q, `\Process(app)\% Processor Time`)
	want := []struct {
		ok bool
		v  float64
	}{{false, 0}, {true, 50}, {false, 0}, {true, 25}}
	for k, w := range want {
		if err := q.Collect(context.Background()); err != nil {
			t.Fatal(err)
		}
		v, err := c.Formatted(calc.FmtDouble | calc.FmtNoCap100)
		if err != nil {
			t.Fatal(err)
		}
		if w.ok != v.HasValue() || (w.ok && v.Double != w.v) {
			t.Errorf("sample %d: %v (status %v); want a value: %v, %v", k, v.Double, v.Status, w.ok, w.v)
		}
	}
}
