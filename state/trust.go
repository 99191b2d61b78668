package state

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// TrustError says why a directory or file of the state (or a V1
// provider's executable) is not trusted, and how to fix it.
type TrustError struct {
	What   string // what it is, e.g. "state directory"
	Path   string // the directory or file refused
	Reason string // what is wrong with it, e.g. "is writable by other users (mode 0777)"
	Fix    string // a command or step that repairs it
}

func (e *TrustError) Error() string {
	s := e.What + " " + e.Path + " " + e.Reason
	if e.Fix != "" {
		s += "; " + e.Fix
	}
	return s
}

// trustedOwner reports whether uid may own a file perfc trusts when it
// runs as euid: the effective user itself or root.
func trustedOwner(uid uint32, euid int) bool {
	return uid == 0 || int(uid) == euid
}

// checkStat checks the owner, type and mode of a state directory or file
// (what names it in messages) as fstat found it.
func checkStat(what, path string, st *unix.Stat_t, wantDir bool, euid int) error {
	typ := st.Mode & unix.S_IFMT
	switch {
	case typ == unix.S_IFLNK:
		return &TrustError{What: what, Path: path, Reason: "is a symbolic link", Fix: "remove it (rm " + path + ") and run the command again"}
	case wantDir && typ != unix.S_IFDIR:
		return &TrustError{What: what, Path: path, Reason: "is not a directory", Fix: "remove it (rm " + path + ") and run the command again"}
	case !wantDir && typ != unix.S_IFREG:
		return &TrustError{What: what, Path: path, Reason: "is not a regular file", Fix: "remove it (rm " + path + ") and run the command again"}
	}
	if !trustedOwner(st.Uid, euid) {
		// Another user's: never suggest a chown, which run as root would
		// take that user's directory or file away from them.
		fix := "it is another user's: do not use it; use a file of your own"
		if wantDir {
			fix = "it is another user's: use a state directory of your own instead (the default, or one named by PERFC_STATE_DIR)"
		}
		return &TrustError{What: what, Path: path, Reason: fmt.Sprintf("is owned by uid %d, not by uid %d or root", st.Uid, euid), Fix: fix}
	}
	if perm := st.Mode & 0o7777; perm&0o022 != 0 {
		want := perm & 0o755
		return &TrustError{What: what, Path: path, Reason: fmt.Sprintf("is writable by other users (mode %04o)", perm&0o7777),
			Fix: fmt.Sprintf("run: chmod %o %s", want, path)}
	}
	return nil
}

// checkAncestors checks the directories above path (following symbolic
// links, as the kernel does when it resolves path): each must be owned by
// root or euid, and not writable by other users unless it is sticky (as
// /tmp is), so that nobody else can rename or replace what lies below.
func checkAncestors(path string, euid int) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		var st unix.Stat_t
		if err := unix.Stat(d, &st); err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
		if !trustedOwner(st.Uid, euid) {
			return &TrustError{What: "directory", Path: d, Reason: fmt.Sprintf("is owned by uid %d, not by uid %d or root, and holds %s", st.Uid, euid, path),
				Fix: "choose a state or provider path under directories owned by you or root"}
		}
		if st.Mode&0o022 != 0 && st.Mode&unix.S_ISVTX == 0 {
			return &TrustError{What: "directory", Path: d, Reason: fmt.Sprintf("is writable by other users (mode %04o) and holds %s", st.Mode&0o777, path),
				Fix: fmt.Sprintf("run: chmod go-w %s, or choose a path under a directory only you or root can write", d)}
		}
		if d == "/" || d == filepath.Dir(d) {
			return nil
		}
	}
}

// CheckExecutable checks that a V1 provider's executable may be run by
// this process (effective uid euid): the file it names (symbolic links
// resolved) is a regular file owned by root or euid and not writable by
// other users, and so is every directory above it (sticky directories
// such as /tmp excepted). Otherwise another user could replace the code
// that perfc runs, as root when root runs it. The host calls it before
// it starts a provider; lodctr calls it when the provider is registered.
func CheckExecutable(path string, euid int) error {
	if !filepath.IsAbs(path) {
		return fmt.Errorf("V1 provider executable %q is not an absolute path", path)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Errorf("V1 provider executable: %w", err)
	}
	var st unix.Stat_t
	if err := unix.Stat(real, &st); err != nil {
		return fmt.Errorf("V1 provider executable %s: %w", real, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Mode&0o111 == 0 {
		return fmt.Errorf("V1 provider executable %s is not an executable file", real)
	}
	if err := checkStat("V1 provider executable", real, &st, false, euid); err != nil {
		var te *TrustError
		if errors.As(err, &te) {
			te.Reason += "; refusing to run it"
		}
		return err
	}
	if err := checkAncestors(real, euid); err != nil {
		var te *TrustError
		if errors.As(err, &te) {
			te.Reason += "; refusing to run the V1 provider " + path
		}
		return err
	}
	return nil
}

// statDir checks the state directory path itself (not following a
// symbolic link) and the directories above it.
func statDir(path string, euid int) error {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return &os.PathError{Op: "state directory", Path: path, Err: err}
	}
	if err := checkStat("state directory", path, &st, true, euid); err != nil {
		return err
	}
	return checkAncestors(path, euid)
}

// CheckLogDir checks a directory that a collector set writes its logs
// into, for a process of effective uid euid (root for the system sets):
// the directory itself (not followed if it is a symbolic link) is owned
// by euid or root and not writable by other users, and so is every
// directory above it (sticky ones such as /tmp excepted). Otherwise
// another user could put a symbolic link where the next log goes, or
// swap the directory, and a root collector would write where that user
// chose.
func CheckLogDir(path string, euid int) error {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return &os.PathError{Op: "log directory", Path: path, Err: err}
	}
	if err := checkStat("log directory", path, &st, true, euid); err != nil {
		return err
	}
	return checkAncestors(path, euid)
}

// maxLinkHops bounds the symbolic links MkdirLogDir follows, as the
// kernel's ELOOP does.
const maxLinkHops = 40

// MkdirLogDir creates the log directory path and its missing parents
// (mode 0755) for a process of effective uid euid, checking each
// component before it is used: it walks from / with directory
// descriptors, follows a symbolic link only when root or euid owns it,
// enters a directory only when root or euid owns it and other users
// cannot write it (sticky directories such as /tmp excepted), and
// creates a missing component with mkdirat in the directory it has just
// checked. So a directory is never made through another user's link or
// inside a directory another user could change; the last component must
// pass CheckLogDir's test of the directory itself. CheckLogDir still
// judges the path as the collector will open it.
func MkdirLogDir(path string, euid int) error { return mkdirTrusted("log directory", path, euid) }

// mkdirTrusted is MkdirLogDir for a directory of any kind (what names it
// in messages: "log directory", "state directory").
func mkdirTrusted(what, path string, euid int) error {
	fd, err := openTrusted(what, path, euid, true)
	if err == nil {
		unix.Close(fd)
	}
	return err
}

// ReadInputFile reads a file a command is given to register (lodctr's
// .ini, its symbol file, a manifest) for a process of effective uid
// euid, at most limit bytes: it is reached from / without following a
// symbolic link that neither root nor euid owns, and read only when it
// is a regular file that root or euid owns and no other user can write.
// So another user's link, or file, never makes root register (and show
// every user, in the titles) what a file of root's, or of theirs, holds.
func ReadInputFile(path, what string, limit int64, euid int) ([]byte, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	fd, err := openTrusted(what, abs, euid, false)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s %s is larger than %d bytes", what, path, limit)
	}
	return data, nil
}

// openTrusted opens path for a process of effective uid euid, checking
// each component before it is used: it walks from / with directory
// descriptors and follows a symbolic link only when root or euid owns it.
// With mkdir it makes each missing directory (mode 0755) with mkdirat in
// the directory it has just checked, enters a directory only when root or
// euid owns it and other users cannot write it (sticky directories such as
// /tmp excepted), and returns the last directory once it passes checkStat;
// without, it returns the last component, opened for reading, once it is
// a regular file that passes checkStat.
func openTrusted(what, path string, euid int, mkdir bool) (int, error) {
	if !filepath.IsAbs(path) {
		return -1, fmt.Errorf("%s %q is not an absolute path", what, path)
	}
	openRoot := func() (int, error) {
		fd, err := unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, &os.PathError{Op: "open", Path: "/", Err: err}
		}
		return fd, nil
	}
	fd, err := openRoot()
	if err != nil {
		return -1, err
	}
	defer func() {
		if fd >= 0 {
			unix.Close(fd)
		}
	}()
	comps := strings.Split(strings.Trim(filepath.Clean(path), "/"), "/")
	cur, hops := "/", 0
	for len(comps) > 0 {
		c := comps[0]
		comps = comps[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			// Clean removed every ".." but those a link's target brings:
			// go up by path, walking again from /.
			comps = append(strings.Split(strings.Trim(filepath.Dir(cur), "/"), "/"), comps...)
			nfd, err := openRoot()
			if err != nil {
				return -1, err
			}
			unix.Close(fd)
			fd, cur = nfd, "/"
			continue
		}
		next := filepath.Join(cur, c)
		var st unix.Stat_t
		err := unix.Fstatat(fd, c, &st, unix.AT_SYMLINK_NOFOLLOW)
		if mkdir && errors.Is(err, unix.ENOENT) {
			// fd is a directory checked below: only its owner (euid or
			// root) can have put anything in it, or, when it is sticky,
			// nobody can take away what euid makes in it.
			if err := unix.Mkdirat(fd, c, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
				return -1, &os.PathError{Op: "mkdir", Path: next, Err: err}
			}
			err = unix.Fstatat(fd, c, &st, unix.AT_SYMLINK_NOFOLLOW)
		}
		if err != nil {
			return -1, &os.PathError{Op: what, Path: next, Err: err}
		}
		if st.Mode&unix.S_IFMT == unix.S_IFLNK {
			if !trustedOwner(st.Uid, euid) {
				return -1, &TrustError{What: what, Path: path, Reason: fmt.Sprintf("lies through %s, a symbolic link owned by uid %d, not by uid %d or root", next, st.Uid, euid),
					Fix: "name a path that holds no other user's links"}
			}
			if hops++; hops > maxLinkHops {
				return -1, &os.PathError{Op: what, Path: path, Err: unix.ELOOP}
			}
			target, err := readlinkat(fd, c)
			if err != nil {
				return -1, &os.PathError{Op: "readlink", Path: next, Err: err}
			}
			if filepath.IsAbs(target) {
				nfd, err := openRoot()
				if err != nil {
					return -1, err
				}
				unix.Close(fd)
				fd, cur = nfd, "/"
			}
			comps = append(strings.Split(strings.Trim(target, "/"), "/"), comps...)
			continue
		}
		last := len(comps) == 0
		flags := unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_CLOEXEC
		if mkdir || !last {
			flags |= unix.O_DIRECTORY
		} else {
			flags |= unix.O_NONBLOCK // a FIFO is refused below, never waited on
		}
		nfd, err := unix.Openat(fd, c, flags, 0)
		if err != nil {
			return -1, &os.PathError{Op: what, Path: next, Err: err}
		}
		unix.Close(fd)
		fd, cur = nfd, next
		if err := unix.Fstat(fd, &st); err != nil {
			return -1, &os.PathError{Op: what, Path: cur, Err: err}
		}
		if last {
			if err := checkStat(what, path, &st, mkdir, euid); err != nil {
				return -1, err
			}
			if !mkdir {
				if err := unix.SetNonblock(fd, false); err != nil {
					return -1, err
				}
			}
			fd, nfd = -1, fd
			return nfd, nil
		}
		if !mkdir {
			continue // only the file read is judged; the links on the way were
		}
		if !trustedOwner(st.Uid, euid) {
			return -1, &TrustError{What: "directory", Path: cur, Reason: fmt.Sprintf("is owned by uid %d, not by uid %d or root, and holds the %s %s", st.Uid, euid, what, path),
				Fix: "choose a path under directories owned by you or root"}
		}
		if st.Mode&0o022 != 0 && st.Mode&unix.S_ISVTX == 0 {
			return -1, &TrustError{What: "directory", Path: cur, Reason: fmt.Sprintf("is writable by other users (mode %04o) and holds the %s %s", st.Mode&0o777, what, path),
				Fix: fmt.Sprintf("run: chmod go-w %s, or choose a path under one only you or root can write", cur)}
		}
	}
	// path is / itself.
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return -1, &os.PathError{Op: what, Path: path, Err: err}
	}
	if err := checkStat(what, path, &st, mkdir, euid); err != nil {
		return -1, err
	}
	fd, nfd := -1, fd
	return nfd, nil
}

// readlinkat reads the target of the link name in the directory dfd.
func readlinkat(dfd int, name string) (string, error) {
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlinkat(dfd, name, buf)
	if err != nil {
		return "", err
	}
	if n == len(buf) {
		return "", unix.ENAMETOOLONG
	}
	return string(buf[:n]), nil
}
