// Package filecap reads a whole input file with a size limit, so that a
// device (/dev/zero), a pipe that never ends or a huge file given where a
// small one is expected costs at most the limit in time and memory, and is
// refused with an error that names the file and the limit.
package filecap

import (
	"fmt"
	"io"
	"os"
)

// TooLargeError is the refusal of a file longer than the limit.
type TooLargeError struct {
	Path  string
	Kind  string // what the file was read as: "block file", "title file"
	Limit int64  // bytes
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: larger than the %s limit for a %s", e.Path, size(e.Limit), e.Kind)
}

// size writes a limit the way a person reads it: whole MiB when it is one.
func size(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d-byte", n)
}

// ReadFile reads the file at path, read as kind, refusing one longer than
// limit after reading at most limit+1 bytes (a regular file's size is
// checked before anything is read).
func ReadFile(path, kind string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > limit {
		return nil, &TooLargeError{Path: path, Kind: kind, Limit: limit}
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, &TooLargeError{Path: path, Kind: kind, Limit: limit}
	}
	return b, nil
}
