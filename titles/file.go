package titles

import (
	"fmt"
	"io"
	"os"
)

// MaxFileSize bounds what LoadFile reads: a title file of every counter of
// a large Windows machine is under 1 MiB, so 16 MiB is ample, and a device
// such as /dev/zero or a huge file fails at once instead of exhausting
// memory.
const MaxFileSize = 16 << 20

// LoadFile reads the title file at path, of any kind Load accepts. A file
// (or device) longer than MaxFileSize is refused with an error naming it
// and the limit, after reading at most MaxFileSize+1 bytes; errors name
// the file.
func LoadFile(path string) (*DB, error) {
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
		return nil, fmt.Errorf("title file %s: %w", path, err)
	}
	if len(b) > MaxFileSize {
		return nil, tooLarge(path)
	}
	db, err := Load(b)
	if err != nil {
		return nil, fmt.Errorf("title file %s: %w", path, err)
	}
	return db, nil
}

func tooLarge(path string) error {
	return fmt.Errorf("title file %s: larger than the %d MiB limit for a title file", path, MaxFileSize>>20)
}
