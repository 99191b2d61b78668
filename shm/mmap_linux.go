package shm

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// replaceWithAnon maps private anonymous memory over mem (MAP_FIXED), which
// drops the shared mapping of the segment file in the same step.
func replaceWithAnon(mem []byte) error {
	if len(mem) == 0 {
		return nil
	}
	_, _, e := unix.Syscall6(unix.SYS_MMAP, uintptr(unsafe.Pointer(&mem[0])), uintptr(len(mem)),
		unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_FIXED, ^uintptr(0), 0)
	if e != 0 {
		return fmt.Errorf("remap anonymous: %w", e)
	}
	return nil
}
