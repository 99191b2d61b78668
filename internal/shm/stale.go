package shm

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// RemoveStale removes the segments in dir whose name starts with prefix
// (a provider GUID, or "" for all) and whose owner no longer holds its
// lock. Providers call it when they start, so that a crashed predecessor's
// segment goes even before any consumer scans.
func RemoveStale(dir, prefix string) []error {
	names, err := readNames(dir)
	if err != nil {
		return []error{err}
	}
	var errs []error
	for _, name := range names {
		if !strings.HasSuffix(name, fileSuffix) || strings.HasPrefix(name, ".") || !strings.HasPrefix(name, prefix) {
			continue
		}
		path := filepath.Join(dir, name)
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
		if err != nil {
			continue // not ours to judge
		}
		if unix.Flock(fd, unix.LOCK_SH|unix.LOCK_NB) == nil {
			if err := unix.Unlink(path); err != nil && !errors.Is(err, unix.ENOENT) {
				errs = append(errs, &SegmentError{Path: path, Reason: "stale segment not removed", Err: err})
			}
		}
		unix.Close(fd)
	}
	return errs
}

func readNames(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("shm: %w", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return names, fmt.Errorf("shm: %w", err)
	}
	return names, nil
}
