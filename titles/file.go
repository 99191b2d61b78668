package titles

import (
	"fmt"

	"github.com/perfcounters/perfcounters/filecap"
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
	b, err := filecap.ReadFile(path, "title file", MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("title file %w", err)
	}
	db, err := Load(b)
	if err != nil {
		return nil, fmt.Errorf("title file %s: %w", path, err)
	}
	return db, nil
}
