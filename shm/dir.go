package shm

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The trust model (SECURITY.md): segments live in per-user directories
// <base>/perfc-<uid> (or perfc-<uid>-<random> when that name was taken by
// someone else), owned by that uid, never a symbolic link, not writable by
// group or others. Only the directory's owner can then create, rename or
// remove a file in it, so a segment's publisher is the owner of its
// directory, which must also own the file.

// userDirPrefix starts every per-user segment directory's name.
const userDirPrefix = "perfc-"

// Bounds on what one scan considers, so that no user can make a consumer
// hold many descriptors or read without limit (SECURITY.md).
const (
	maxUserDirs    = 256 // per-user directories considered per scan, in all
	maxDirsPerUser = 4   // directories of one uid (its own name and fallbacks)
	maxSegsPerUser = 64  // segments of one uid
	maxSegments    = 1024
	maxReported    = 16 // untrusted directories reported by name per scan
	readdirBatch   = 256
)

// UserDirName returns the name of uid's segment directory under the base.
func UserDirName(uid uint32) string {
	return userDirPrefix + strconv.FormatUint(uint64(uid), 10)
}

// parseUserDir returns the uid a directory name claims: "perfc-<uid>" or
// "perfc-<uid>-<hex>" (a fallback name).
func parseUserDir(name string) (uid uint32, fallback, ok bool) {
	rest, found := strings.CutPrefix(name, userDirPrefix)
	if !found {
		return 0, false, false
	}
	num, suffix, hasSuffix := strings.Cut(rest, "-")
	if num == "" || len(num) > 10 || strings.TrimLeft(num, "0123456789") != "" || (len(num) > 1 && num[0] == '0') {
		return 0, false, false
	}
	v, err := strconv.ParseUint(num, 10, 32)
	if err != nil {
		return 0, false, false
	}
	if hasSuffix {
		if suffix == "" || len(suffix) > 32 || strings.TrimLeft(suffix, "0123456789abcdef") != "" {
			return 0, false, false
		}
	}
	return uint32(v), hasSuffix, true
}

// TrustError says why a directory or file was not trusted, and how to fix it.
type TrustError struct {
	Path   string
	Reason string
	Fix    string
}

func (e *TrustError) Error() string {
	s := "segment directory " + e.Path + " is not trusted: " + e.Reason
	if e.Fix != "" {
		s += " (" + e.Fix + ")"
	}
	return s
}

// checkBase decides whether the base directory may hold per-user
// directories: owned by root or by the caller, and, when others may write
// to it, sticky (as /dev/shm is), so that nobody renames or removes another
// user's directory.
func checkBase(path string, st *unix.Stat_t) error {
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return &TrustError{Path: path, Reason: "not a directory", Fix: "set PERFC_SHM_DIR to a directory such as /dev/shm"}
	}
	euid := uint32(os.Geteuid())
	if st.Uid != 0 && st.Uid != euid {
		return &TrustError{Path: path, Reason: fmt.Sprintf("owned by uid %d, neither root nor you (uid %d)", st.Uid, euid),
			Fix: "use a base owned by root, such as /dev/shm, or one of your own"}
	}
	if st.Mode&0o022 != 0 && st.Mode&unix.S_ISVTX == 0 {
		return &TrustError{Path: path, Reason: fmt.Sprintf("writable by other users without the sticky bit (mode %04o): any user could rename the directories in it", st.Mode&0o7777),
			Fix: "chmod +t " + path + ", or chmod go-w " + path}
	}
	return nil
}

// checkUserDir decides whether an opened per-user directory is trusted for
// uid: a directory (the caller opened it with O_NOFOLLOW|O_DIRECTORY) owned
// by uid and not writable by group or others.
func checkUserDir(path string, st *unix.Stat_t, uid uint32) error {
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return &TrustError{Path: path, Reason: "not a directory", Fix: "remove it"}
	}
	if st.Uid != uid {
		return &TrustError{Path: path, Reason: fmt.Sprintf("owned by uid %d, not by uid %d as its name says", st.Uid, uid),
			Fix: "someone created it in that user's place; remove it as root: rm -r " + path}
	}
	if st.Mode&0o022 != 0 {
		return &TrustError{Path: path, Reason: fmt.Sprintf("writable by group or others (mode %04o)", st.Mode&0o7777),
			Fix: "chmod go-w " + path}
	}
	return nil
}

// openBase opens and checks the base directory. When create is set and
// the base does not exist, it is created (mode 0755, owned by the caller).
func openBase(base string, create bool) (fd int, err error) {
	fd, err = unix.Open(base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) && create {
		if err := unix.Mkdir(base, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
			return -1, fmt.Errorf("shm: create segment base directory %s: %w", base, err)
		}
		fd, err = unix.Open(base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return -1, &os.PathError{Op: "open segment base directory", Path: base, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, &os.PathError{Op: "stat", Path: base, Err: err}
	}
	if err := checkBase(base, &st); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// openUserDir opens name under baseFD without following a symbolic link
// and checks it is trusted for uid. It returns the stat of the directory.
func openUserDir(baseFD int, path, name string, uid uint32) (int, error) {
	fd, err := unix.Openat(baseFD, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		switch {
		case errors.Is(err, unix.ELOOP):
			return -1, &TrustError{Path: path, Reason: "a symbolic link", Fix: "remove it as root: rm " + path}
		case errors.Is(err, unix.ENOTDIR):
			return -1, &TrustError{Path: path, Reason: "not a directory", Fix: "remove it as root: rm " + path}
		}
		return -1, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if err := checkUserDir(path, &st, uid); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// readDirNames lists the directory open as fd (which stays open; it is
// read from its start) with getdents64 into buf, appending to names those
// keep accepts, at most limit of them; it returns how many accepted names
// were beyond the limit. keep must not retain its argument (it points into
// buf). A nil buf gets a fresh one.
func readDirNames(fd int, path string, keep func(string) bool, limit int, buf []byte, names []string) (_ []string, excess int, err error) {
	if _, err := unix.Seek(fd, 0, 0); err != nil {
		return names, 0, &os.PathError{Op: "list", Path: path, Err: err}
	}
	if len(buf) < 4096 {
		buf = make([]byte, 8192)
	}
	kept := 0
	for {
		n, err := unix.Getdents(fd, buf)
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return names, excess, &os.PathError{Op: "list", Path: path, Err: err}
		}
		if n <= 0 {
			return names, excess, nil
		}
		for rec := buf[:n]; len(rec) >= 19; {
			// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
			reclen := int(le.Uint16(rec[16:]))
			if reclen < 19 || reclen > len(rec) {
				break
			}
			name := rec[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			ino := le.Uint64(rec[0:])
			rec = rec[reclen:]
			if ino == 0 || len(name) == 0 {
				continue
			}
			if !keep(unsafe.String(&name[0], len(name))) {
				continue
			}
			if kept < limit {
				names = append(names, string(name))
				kept++
			} else {
				excess++
			}
		}
	}
}

// ownDir is the caller's trusted segment directory, open.
type ownDir struct {
	fd   int
	path string
	warn error // the preferred name was squatted (reported, not fatal)
}

// openOwnDir opens (creating it if needed) the caller's segment directory
// under base: perfc-<euid>, or when that name is held by something the
// caller cannot trust (another user's directory, a symbolic link, a file),
// an existing fallback perfc-<euid>-<hex> of the caller's, or a new one
// with an unpredictable name.
func openOwnDir(base string, create bool) (ownDir, error) {
	baseFD, err := openBase(base, create)
	if err != nil {
		return ownDir{}, err
	}
	defer unix.Close(baseFD)
	uid := uint32(os.Geteuid())
	name := UserDirName(uid)
	path := filepath.Join(base, name)
	made := false
	if create {
		if err := unix.Mkdirat(baseFD, name, 0o755); err == nil {
			made = true
		} else if !errors.Is(err, unix.EEXIST) {
			return ownDir{}, fmt.Errorf("shm: create segment directory %s: %w", path, err)
		}
	}
	fd, err := openUserDir(baseFD, path, name, uid)
	if err == nil {
		if made { // the umask may have narrowed it; consumers of other users list it
			unix.Fchmod(fd, 0o755)
		}
		return ownDir{fd: fd, path: path}, nil
	}
	var te *TrustError
	if !errors.As(err, &te) {
		return ownDir{}, err
	}
	var st unix.Stat_t
	if unix.Fstatat(baseFD, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR && st.Uid == uid {
		// Ours but writable by others: refuse rather than trust what
		// others may have put in it.
		return ownDir{}, err
	}
	// Squatted: use a fallback of ours, or make one nobody can predict.
	squat := fmt.Errorf("shm: %w; using a directory with an unpredictable name instead", err)
	cands, _, _ := readDirNames(baseFD, base, func(n string) bool {
		u, fb, ok := parseUserDir(n)
		if !ok || !fb || u != uid {
			return false
		}
		var st unix.Stat_t // only the caller's own: others' names cannot crowd them out
		return unix.Fstatat(baseFD, n, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && checkUserDir(n, &st, uid) == nil
	}, maxDirsPerUser, nil, nil)
	slices.Sort(cands)
	for _, c := range cands {
		if fd, err := openUserDir(baseFD, filepath.Join(base, c), c, uid); err == nil {
			return ownDir{fd: fd, path: filepath.Join(base, c), warn: squat}, nil
		}
	}
	if !create {
		return ownDir{}, err
	}
	for range 8 {
		var r [8]byte
		rand.Read(r[:])
		c := name + "-" + hex.EncodeToString(r[:])
		if err := unix.Mkdirat(baseFD, c, 0o755); err != nil {
			if errors.Is(err, unix.EEXIST) {
				continue
			}
			return ownDir{}, fmt.Errorf("shm: create segment directory %s: %w", filepath.Join(base, c), err)
		}
		fd, err := openUserDir(baseFD, filepath.Join(base, c), c, uid)
		if err != nil {
			return ownDir{}, err
		}
		unix.Fchmod(fd, 0o755)
		return ownDir{fd: fd, path: filepath.Join(base, c), warn: squat}, nil
	}
	return ownDir{}, fmt.Errorf("shm: no segment directory could be created under %s: %w", base, err)
}

// IsResourceError reports whether err comes from running out of a resource
// of the reading process or the system (descriptors, memory), as opposed to
// a problem with a segment: such an error must be reported as such, never
// as missing data.
func IsResourceError(err error) bool {
	return errors.Is(err, unix.EMFILE) || errors.Is(err, unix.ENFILE) || errors.Is(err, unix.ENOMEM)
}
