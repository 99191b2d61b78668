//go:build nvml && linux

package system

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/perfcounters/perfcounters/system/nvml"
)

// TestGPUThroughNVMLLoader declares the GPU objects over the NVML
// stand-in of package nvml (compiled with gcc), loaded by the real loader:
// its first device (0000:01:00.0, 1234567168 bytes used; process 4242
// with 512 MiB of compute and 1 MiB of graphics memory) and its second
// (0001:c1:00.0, whose memory call fails).
func TestGPUThroughNVMLLoader(t *testing.T) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not found: the NVML stand-in cannot be built")
	}
	so := filepath.Join(t.TempDir(), "libfakenvml.so")
	if out, err := exec.Command(gcc, "-shared", "-fPIC", "-o", so, "nvml/testdata/fakenvml.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	lib, err := nvml.Open(so)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	g := newGPUTree(t)
	proc := os.DirFS(filepath.Join(g.root, "proc"))
	c := NewCollector(proc, os.DirFS(filepath.Join(g.root, "sys")))
	objs := c.gpuObjectsWith(proc, lib)
	if len(objs) != 4 {
		t.Fatalf("%d objects", len(objs))
	}
	const luid0, luid1 = "luid_0x00000000_0x00000100_phys_0", "luid_0x00000001_0x0000C100_phys_0"
	am := collectObjectSeq(t, c, findObject(t, objs, "GPU Adapter Memory"), 1)
	if got := am.get(t, luid0, "Dedicated Usage"); got != 1234567168 {
		t.Errorf("Dedicated Usage = %d", got)
	}
	if _, ok := am.vals[luid1]; !ok {
		t.Errorf("no instance of the second device: %q", am.names)
	}
	pm := collectObjectSeq(t, c, findObject(t, objs, "GPU Process Memory"), 1)
	if got := pm.get(t, "pid_4242_"+luid0, "Dedicated Usage"); got != 512<<20+1<<20 {
		t.Errorf("process 4242 Dedicated Usage = %d", got)
	}
}
