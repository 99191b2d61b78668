package perfdata

import (
	"fmt"
	"io"
	"os"
)

// MaxFileSize bounds a block file: a PERF_DATA_BLOCK of every object of a
// large machine is a few MiB (ours of a host with 565 processes is 860 KB),
// so 64 MiB is ample, and a device such as /dev/zero or a huge file fails
// at once instead of exhausting memory.
const MaxFileSize = 64 << 20

// ReadFile reads the block file at path, refusing one (or a device) longer
// than MaxFileSize with an error naming it and the limit, after reading at
// most MaxFileSize+1 bytes.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > MaxFileSize {
		return nil, tooLarge(path)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(b) > MaxFileSize {
		return nil, tooLarge(path)
	}
	return b, nil
}

func tooLarge(path string) error {
	return fmt.Errorf("%s: larger than the %d MiB limit for a block file", path, MaxFileSize>>20)
}
