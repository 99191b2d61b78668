package prom

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/golden"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// stepClock is a fixed clock that advances by one second per reading of
// the wall time (one per collection).
type stepClock struct {
	wall  time.Time
	ticks int64
}

func (c *stepClock) Wall() time.Time { return c.wall }
func (c *stepClock) Ticks() int64    { return c.ticks }
func (c *stepClock) Freq() int64     { return 1_000_000_000 }

// linuxFixture is where the Linux host samples are kept: two blocks the
// local host collected from the /proc and /sys fixture tree of package
// system (system/testdata/host), with a fixed clock one second apart,
// and the titles that name them. go test -update regenerates them.
const linuxFixture = "testdata/linux"

// linuxObjects are the objects of the Linux fixture: node_exporter's
// cpu, meminfo, diskstats and netdev collectors' families, System and
// Pressure.
var linuxObjects = []string{"Processor", "Memory", "PhysicalDisk", "Network Interface", "System", "Pressure"}

func TestGenerateLinuxFixture(t *testing.T) {
	if !golden.Update() {
		t.Skip("run with -update to regenerate " + linuxFixture)
	}
	clk := &stepClock{wall: time.Date(2026, 11, 24, 1, 0, 0, 0, time.UTC), ticks: 5_000_000_000_000}
	h := newHost(t, host.Options{ProcRoot: "../../system/testdata/host/proc", SysRoot: "../../system/testdata/host/sys", Clock: clk})
	db := h.Titles()
	var idx []uint32
	for _, n := range linuxObjects {
		i, ok := db.Index(n)
		if !ok {
			t.Fatalf("no object %s", n)
		}
		idx = append(idx, i)
	}
	src := h.Source()
	if err := os.MkdirAll(linuxFixture, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		smp, err := src.Sample(context.Background(), idx)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(linuxFixture, "sample-"+string(rune('0'+i))+".perfdata"), smp.Blocks[0].Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		clk.wall = clk.wall.Add(time.Second)
		clk.ticks += 1_000_000_000
	}
	f, err := os.Create(filepath.Join(linuxFixture, "titles.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := db.WriteTo(f); err != nil {
		t.Fatal(err)
	}
}

// linuxSource returns the Linux fixture's two samples.
func linuxSource(t testing.TB) *fixedSource {
	t.Helper()
	f, err := os.Open(filepath.Join(linuxFixture, "titles.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	db, err := titles.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	src := &fixedSource{db: db}
	for i := range 2 {
		b, err := perfdata.ReadFile(filepath.Join(linuxFixture, "sample-"+string(rune('0'+i))+".perfdata"))
		if err != nil {
			t.Fatal(err)
		}
		smp, err := pdh.NewSample([][]byte{b})
		if err != nil {
			t.Fatal(err)
		}
		src.samples = append(src.samples, smp)
	}
	return src
}
