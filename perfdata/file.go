package perfdata

import "github.com/perfcounters/perfcounters/filecap"

// MaxFileSize bounds a block file: a PERF_DATA_BLOCK of every object of a
// large machine is a few MiB (ours of a host with 565 processes is 860 KB),
// so 64 MiB is ample, and a device such as /dev/zero or a huge file fails
// at once instead of exhausting memory.
const MaxFileSize = 64 << 20

// ReadFile reads the block file at path, refusing one (or a device) longer
// than MaxFileSize with an error naming it and the limit, after reading at
// most MaxFileSize+1 bytes.
func ReadFile(path string) ([]byte, error) {
	return filecap.ReadFile(path, "block file", MaxFileSize)
}
