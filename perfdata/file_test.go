package perfdata

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestReadFileLimit: /dev/zero (endless) and a sparse file one byte over
// the limit are refused with the file and the limit named, reading and
// allocating no more than about the limit; a file at the limit is read.
func TestReadFileLimit(t *testing.T) {
	dir := t.TempDir()
	over := filepath.Join(dir, "over.bin")
	at := filepath.Join(dir, "at.bin")
	for p, size := range map[string]int64{over: MaxFileSize + 1, at: MaxFileSize} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, size); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"/dev/zero", over} {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		_, err := ReadFile(p)
		runtime.ReadMemStats(&m1)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "64 MiB limit") {
			t.Errorf("ReadFile(%s) = %v, want an error naming the file and the 64 MiB limit", p, err)
		}
		if a := m1.TotalAlloc - m0.TotalAlloc; a > 4*MaxFileSize {
			t.Errorf("ReadFile(%s) allocated %d bytes", p, a)
		}
	}
	if b, err := ReadFile(at); err != nil || len(b) != MaxFileSize {
		t.Errorf("ReadFile at the limit: %d bytes, %v", len(b), err)
	}
}

// BenchmarkReadFileDevZero: reading /dev/zero as a block file costs a
// bounded amount (about MaxFileSize read and allocated, then refused),
// not all of memory.
func BenchmarkReadFileDevZero(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadFile("/dev/zero"); err == nil {
			b.Fatal("/dev/zero accepted")
		}
	}
}
