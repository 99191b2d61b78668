package system

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/countertype"
)

// The real Windows material the tests compare with, copied from the
// project's conformance material (testdata/windows/PROVENANCE.md): the
// counter definitions of a Vista machine's blocks, and its English title
// database.
const conformanceDir = "testdata/windows/"

type winCounter struct {
	Name string `json:"CounterName"`
	Type string `json:"CounterType"`
	Size uint32 `json:"CounterSize"`
}

// windowsObjects returns the counter definitions of each object in
// decoded.json, by object name.
func windowsObjects(t *testing.T) map[string][]winCounter {
	b, err := os.ReadFile(conformanceDir + "zach-pc-counters.json")
	if err != nil {
		t.Fatal(err)
	}
	var blocks []struct {
		Objects []struct {
			Name     string       `json:"ObjectName"`
			Index    uint32       `json:"ObjectNameTitleIndex"`
			Counters []winCounter `json:"counters"`
		} `json:"objects"`
	}
	if err := json.Unmarshal(b, &blocks); err != nil {
		t.Fatal(err)
	}
	m := map[string][]winCounter{}
	for _, bl := range blocks {
		for _, o := range bl.Objects {
			m[o.Name] = o.Counters
		}
	}
	return m
}

// TestWindowsCounterTypes checks that every counter we declare for an
// object Windows also has carries Windows' type and size, and comes in
// Windows' order (ours is a subsequence of theirs).
func TestWindowsCounterTypes(t *testing.T) {
	win := windowsObjects(t)
	c := hostCollector()
	checked := 0
	for _, o := range c.Objects() {
		wc, ok := win[o.Set.Name]
		if !ok {
			continue
		}
		checked++
		t.Run(o.Set.Name, func(t *testing.T) {
			j := 0
			for _, ct := range o.Set.Counters {
				if linuxOnlyCounters[o.Set.Name][ct.Name] {
					continue
				}
				for j < len(wc) && !(wc[j].Name == ct.Name && (wc[j].Type == typeHex(ct.Type))) {
					j++
				}
				if j == len(wc) {
					t.Errorf("counter %q (%v) not found in Windows' list after position of the previous one", ct.Name, ct.Type)
					return
				}
				if wc[j].Size != ct.ValueSize() {
					t.Errorf("counter %q: size %d, Windows %d", ct.Name, ct.ValueSize(), wc[j].Size)
				}
				j++
			}
		})
	}
	if checked != 7 { // Processor, Memory, System, PhysicalDisk, LogicalDisk, Network Interface, TCPv4
		t.Errorf("checked %d objects against Windows, want 7", checked)
	}
}

func typeHex(t countertype.Type) string {
	return "0x" + strings.ToUpper(strconv.FormatUint(uint64(t)|1<<32, 16)[1:])
}

// linuxOnlyObjects are the objects Windows has no counterpart of (what
// Windows never showed: control groups, pressure stall information);
// their counters have Linux's own names where Windows has none.
var linuxOnlyObjects = map[string]bool{"Control Group": true, "Pressure": true}

// linuxOnlyCounters are the counters of Windows' objects that Windows
// does not have: Linux's own quantities beside Windows' (issue 45), named
// as Linux names them and declared after Windows' counters.
var linuxOnlyCounters = map[string]map[string]bool{
	"Processor":             processorLinuxCounters,
	"Processor Information": processorLinuxCounters,
	"System": {"Load Average (1 minute)": true, "Load Average (5 minutes)": true, "Load Average (15 minutes)": true,
		"Running Tasks": true, "Blocked Tasks": true, "Forks/sec": true},
	"Memory": {"Buffer Bytes": true, "Cached Bytes": true, "Active Bytes": true, "Inactive Bytes": true, "Dirty Bytes": true,
		"Writeback Bytes": true, "Slab Reclaimable Bytes": true, "Slab Unreclaimable Bytes": true, "Shared Memory Bytes": true,
		"Huge Pages Total": true, "Huge Pages Free": true, "Huge Pages Reserved": true, "Huge Page Size Bytes": true},
}

var processorLinuxCounters = map[string]bool{"% Nice Time": true, "% IO Wait Time": true, "% Steal Time": true, "% Guest Time": true, "% Soft Interrupt Time": true}

// TestWindowsTitles checks object title indexes and counter spellings
// against the Windows English title database.
func TestWindowsTitles(t *testing.T) {
	f, err := os.Open(conformanceDir + "counter-names-009.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	byIndex := map[uint32]string{}
	names := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		i, name, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			continue
		}
		n, _ := strconv.ParseUint(i, 10, 32)
		byIndex[uint32(n)] = name
		names[name] = true
	}
	c := manyCollector() // with cpufreq, so every counter is declared
	for _, o := range c.Objects() {
		if o.Set.NameIndex != 0 && byIndex[o.Set.NameIndex] != o.Set.Name {
			t.Errorf("%s: index %d is %q in Windows", o.Set.Name, o.Set.NameIndex, byIndex[o.Set.NameIndex])
		}
		if linuxOnlyObjects[o.Set.Name] {
			if names[o.Set.Name] {
				t.Errorf("%s: a Linux-only object named as a Windows object", o.Set.Name)
			}
			continue
		}
		for _, ct := range o.Set.Counters {
			if linuxOnlyCounters[o.Set.Name][ct.Name] {
				if names[ct.Name] {
					t.Errorf("%s: Linux-only counter %q has a Windows counter's name", o.Set.Name, ct.Name)
				}
				continue
			}
			if !names[ct.Name] {
				t.Errorf("%s: counter %q is not a Windows counter name", o.Set.Name, ct.Name)
			}
		}
	}
}
