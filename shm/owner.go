package shm

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// procStartTime returns field 22 (starttime, clock ticks after boot) of
// /proc/PID/stat. The comm field may contain spaces and parentheses, so
// fields are counted after the last ')'.
func procStartTime(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	return parseStartTime(b)
}

func parseStartTime(b []byte) (uint64, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("shm: /proc stat: no ')' after comm")
	}
	// After ") " come field 3 (state) onwards; starttime is field 22.
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 {
		return 0, fmt.Errorf("shm: /proc stat: %d fields after comm, want at least 20", len(f))
	}
	v, err := strconv.ParseUint(string(f[19]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("shm: /proc stat: starttime %q: %v", f[19], err)
	}
	return v, nil
}

// pidNamespace returns the inode of /proc/self/ns/pid, or 0 when it
// cannot be read (then pid checks are skipped).
func pidNamespace() uint64 {
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/ns/pid", &st); err != nil {
		return 0
	}
	return st.Ino
}

// ownerGone decides, for a segment whose lock is still held (provenDead
// said no), whether its owner has exited anyway: when reader and owner
// share a pid namespace, a missing pid or a different start time (a
// recycled pid, the lock inherited by another process) means gone. Such a
// segment is left out but not removed. The returned reason is empty when
// the owner is alive.
func ownerGone(pid uint32, start, ns, myNS uint64) string {
	if ns == 0 || myNS == 0 || ns != myNS || pid == 0 {
		return ""
	}
	if err := unix.Kill(int(pid), 0); errors.Is(err, unix.ESRCH) {
		return fmt.Sprintf("owner pid %d does not exist", pid)
	}
	st, err := procStartTime(int(pid))
	if err != nil {
		return "" // e.g. hidepid: assume alive
	}
	if st != start {
		return fmt.Sprintf("owner pid %d was recycled (start time %d, segment says %d)", pid, st, start)
	}
	return ""
}
