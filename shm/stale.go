package shm

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// RemoveStale removes the caller's own segments under base (in its
// perfc-<uid> directory and fallbacks) whose name starts with prefix (a
// provider GUID and a dot, or "" for all) and whose owner no longer holds
// its lock. Create does this for its own provider GUID.
func RemoveStale(base, prefix string) []error {
	if base == "" {
		base = DefaultDir
	}
	d, err := openOwnDir(base, false)
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		return []error{err}
	}
	defer unix.Close(d.fd)
	return removeStaleIn(d.fd, d.path, prefix)
}

// removeStaleIn removes the dead segments of the caller's directory dirFD
// whose names start with prefix. A file is removed only once proven to be
// a dead segment of the directory's owner (provenDead).
func removeStaleIn(dirFD int, dirPath, prefix string) []error {
	names, _, err := readDirNames(dirFD, dirPath, func(n string) bool {
		return strings.HasSuffix(n, fileSuffix) && !strings.HasPrefix(n, ".") && strings.HasPrefix(n, prefix)
	}, maxSegments, nil, nil)
	if err != nil {
		return []error{err}
	}
	var errs []error
	uid := uint32(os.Geteuid())
	for _, name := range names {
		path := filepath.Join(dirPath, name)
		fd, err := unix.Openat(dirFD, name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
		if err != nil {
			continue // not ours to judge
		}
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && provenDead(fd, &st, uid) != "" {
			if err := unix.Unlinkat(dirFD, name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
				errs = append(errs, &SegmentError{Path: path, Reason: "stale segment not removed", Err: err})
			}
		}
		unix.Close(fd)
	}
	return errs
}

// provenDead says why the open file fd (with stat st) is a dead segment
// of uid, or "" unless it is proven so: a regular file owned by uid, with a
// segment's magic and version, whose owner no longer holds its lock.
func provenDead(fd int, st *unix.Stat_t, uid uint32) string {
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Uid != uid || st.Size < headerSize {
		return ""
	}
	// The lock first: a live owner holds it, and that is the common case.
	if unix.Flock(fd, unix.LOCK_SH|unix.LOCK_NB) != nil {
		return ""
	}
	var h [16]byte
	if n, err := unix.Pread(fd, h[:], 0); err != nil || n != len(h) {
		return ""
	}
	if string(h[:8]) != string(magic[:]) || le.Uint32(h[hdrVersion:]) != Version || le.Uint32(h[hdrHeaderSize:]) != headerSize {
		return ""
	}
	return "owner no longer holds its lock"
}
