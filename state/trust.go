package state

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

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
