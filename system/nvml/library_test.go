//go:build nvml && linux

package nvml

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// fakeLibrary compiles testdata/fakenvml.c into a shared library in a
// temporary directory and returns its path; the test is skipped where gcc
// is missing.
func fakeLibrary(t *testing.T) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not found: the NVML stand-in cannot be built")
	}
	so := filepath.Join(t.TempDir(), "libfakenvml.so")
	if out, err := exec.Command(gcc, "-shared", "-fPIC", "-O1", "-o", so, "testdata/fakenvml.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return so
}

func TestDevicesFromFakeLibrary(t *testing.T) {
	l, err := Open(fakeLibrary(t))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	devs, err := l.Devices()
	if err != nil {
		t.Fatal(err)
	}
	want := []Device{
		{Index: 0, BusID: "0000:01:00.0", MemTotal: 85899345920, MemFree: 85899345920 - 1234567168, MemUsed: 1234567168, MemoryOK: true,
			GPUUtil: 37, MemUtil: 11, UtilizationOK: true,
			Processes: []Process{
				{PID: 4242, UsedMemory: 536870912 + 1048576, MemoryKnown: true, Compute: true, Graphics: true},
				{PID: 77, Compute: true},
			}},
		{Index: 1, BusID: "0001:c1:00.0", GPUUtil: 38, MemUtil: 11, UtilizationOK: true},
	}
	if len(devs) != len(want) {
		t.Fatalf("%d devices, want %d: %+v", len(devs), len(want), devs)
	}
	for i := range want {
		g, w := devs[i], want[i]
		if !slices.Equal(g.Processes, w.Processes) {
			t.Errorf("device %d processes %+v, want %+v", i, g.Processes, w.Processes)
		}
		g.Processes, w.Processes = nil, nil
		if !reflect.DeepEqual(g, w) {
			t.Errorf("device %d = %+v, want %+v", i, g, w)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Devices(); err == nil {
		t.Fatal("Devices after Close succeeded")
	}
}

func TestOpenMissingLibrary(t *testing.T) {
	if _, err := Open(filepath.Join(t.TempDir(), "libnvidia-ml.so.1")); err == nil {
		t.Fatal("Open of a missing file succeeded")
	}
}

// TestLiveAgreesWithNvidiaSMI runs only where an NVIDIA GPU and its
// driver are present: the memory NVML reports through this loader equals
// nvidia-smi's, to the MiB it prints (and the processes' memory too).
func TestLiveAgreesWithNvidiaSMI(t *testing.T) {
	if _, err := os.Stat("/dev/nvidia0"); err != nil {
		t.Skip("no /dev/nvidia0")
	}
	smi, err := exec.LookPath("nvidia-smi")
	if err != nil {
		t.Skip("no nvidia-smi")
	}
	l, err := Open(DefaultLibrary)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	devs, err := l.Devices()
	if err != nil || len(devs) == 0 {
		t.Fatalf("Devices: %v, %v", devs, err)
	}
	out, err := exec.Command(smi, "--query-gpu=pci.bus_id,memory.used,memory.total", "--format=csv,noheader,nounits").Output()
	if err != nil {
		t.Fatal(err)
	}
	const mib = 1 << 20
	for line := range strings.Lines(string(out)) {
		f := strings.Split(strings.TrimSpace(line), ", ")
		if len(f) != 3 {
			continue
		}
		bus, _ := NormalizeBusID(f[0])
		used, _ := strconv.ParseUint(f[1], 10, 64)
		total, _ := strconv.ParseUint(f[2], 10, 64)
		i := slices.IndexFunc(devs, func(d Device) bool { return d.BusID == bus })
		if i < 0 {
			t.Errorf("nvidia-smi's %s not among %+v", bus, devs)
			continue
		}
		d := devs[i]
		t.Logf("%s: NVML used %d total %d bytes; nvidia-smi %d / %d MiB", bus, d.MemUsed, d.MemTotal, used, total)
		if d.MemTotal/mib != total {
			t.Errorf("%s: total %d MiB, nvidia-smi %d", bus, d.MemTotal/mib, total)
		}
		// Used memory moves between the two reads: within 64 MiB.
		if diff := int64(d.MemUsed/mib) - int64(used); diff < -64 || diff > 64 {
			t.Errorf("%s: used %d MiB, nvidia-smi %d", bus, d.MemUsed/mib, used)
		}
	}
	apps, err := exec.Command(smi, "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits").Output()
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(apps)) {
		f := strings.Split(strings.TrimSpace(line), ", ")
		if len(f) != 2 {
			continue
		}
		pid, _ := strconv.ParseUint(f[0], 10, 32)
		found := false
		for _, d := range devs {
			for _, p := range d.Processes {
				found = found || p.PID == uint32(pid)
			}
		}
		if !found {
			t.Errorf("nvidia-smi's compute process %d is not in NVML's lists", pid)
		}
	}
}
