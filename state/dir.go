package state

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Names inside the state directory.
const (
	lockFile     = "lock"
	titlesFile   = "titles"
	recordFile   = "providers.json"
	v1File       = "v1.json"
	manifestDir  = "manifests"
	recordFormat = 1 // version of providers.json and v1.json
	// maxStateFile bounds what is read of one state file: a registration
	// record, title database or manifest copy larger than this is refused
	// rather than read into memory.
	maxStateFile = 64 << 20
	// tempMarker is in the name of every temporary file a write creates:
	// "."+name+tempMarker+random hex.
	tempMarker = ".tmp-"
)

// Path returns the state directory: $PERFC_STATE_DIR when set, otherwise
// /var/lib/perfc for root (euid 0) and $XDG_STATE_HOME/perfc for other
// users, where an unset or relative XDG_STATE_HOME means
// $HOME/.local/state as the XDG base-directory specification says.
func Path(getenv func(string) string, euid int) (string, error) {
	if d := getenv("PERFC_STATE_DIR"); d != "" {
		return d, nil
	}
	if euid == 0 {
		return "/var/lib/perfc", nil
	}
	if x := getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "perfc"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("no state directory: set PERFC_STATE_DIR, XDG_STATE_HOME or HOME")
	}
	return filepath.Join(home, ".local", "state", "perfc"), nil
}

// dir is an opened, checked state directory with its lock held. Every
// file is opened relative to its descriptors, never by a path that a
// symbolic link could redirect.
type dir struct {
	path string
	euid int
	fd   int // the state directory
	mfd  int // manifests/, -1 when it does not exist
	lock int // the lock file, -1 when none (a reader of a never-written directory)
}

// open checks and opens the state directory path and takes its lock:
// exclusive for writers (the directory, manifests/ and the lock file are
// created when missing), shared for readers. A reader of a directory that
// does not exist gets (nil, nil): an empty state.
func open(path string, write bool) (*dir, error) {
	if path == "" {
		return nil, errors.New("no state directory")
	}
	path = filepath.Clean(path) // "dir/" would make the kernel follow a link named dir
	euid := os.Geteuid()
	if write {
		if err := mkdirChecked(path, euid); err != nil {
			return nil, err
		}
	}
	if err := statDir(path, euid); err != nil {
		if !write && errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fileError("state directory", path, err)
	}
	d := &dir{path: path, euid: euid, fd: fd, mfd: -1, lock: -1}
	if err := d.checkFD(fd, "state directory", path, true); err != nil {
		d.close()
		return nil, err
	}
	if err := d.takeLock(write); err != nil {
		d.close()
		return nil, err
	}
	if write {
		if err := unix.Mkdirat(fd, manifestDir, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
			d.close()
			return nil, fileError("manifest directory", d.join(manifestDir), err)
		}
	}
	mfd, err := unix.Openat(fd, manifestDir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	switch {
	case err == nil:
		d.mfd = mfd
		if err := d.checkFD(mfd, "manifest directory", d.join(manifestDir), true); err != nil {
			d.close()
			return nil, err
		}
	case errors.Is(err, unix.ENOENT) && !write:
	default:
		d.close()
		return nil, fileError("manifest directory", d.join(manifestDir), err)
	}
	if write {
		// A crash between creating a temporary file and renaming it
		// leaves the temporary file; nobody else writes now.
		d.removeTemps(d.fd)
		d.removeTemps(d.mfd)
	}
	return d, nil
}

// mkdirChecked creates the state directory (and missing parents) mode
// 0755, each component checked before it is used (mkdirTrusted). A
// directory that exists is left as it is, for statDir to judge.
func mkdirChecked(path string, euid int) error {
	if _, err := os.Lstat(path); err == nil {
		return nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	return mkdirTrusted("state directory", abs, euid)
}

func (d *dir) join(name string) string { return filepath.Join(d.path, name) }

// close releases the lock and the descriptors.
func (d *dir) close() {
	if d == nil {
		return
	}
	for _, fd := range []int{d.lock, d.mfd, d.fd} {
		if fd >= 0 {
			unix.Close(fd) // closing the lock file drops the lock
		}
	}
	d.fd, d.mfd, d.lock = -1, -1, -1
}

// checkFD checks an opened directory or file.
func (d *dir) checkFD(fd int, what, path string, wantDir bool) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fileError(what, path, err)
	}
	return checkStat(what, path, &st, wantDir, d.euid)
}

// fileError words an error of opening a state file or directory; a
// symbolic link (refused by O_NOFOLLOW) or a file where a directory
// belongs is a TrustError saying which: a file opened O_NOFOLLOW gives
// ELOOP for a link; a directory opened O_NOFOLLOW|O_DIRECTORY gives
// ENOTDIR for a link and for a file alike, told apart by lstat.
func fileError(what, path string, err error) error {
	reason := ""
	switch {
	case errors.Is(err, unix.ELOOP):
		reason = "is a symbolic link"
	case errors.Is(err, unix.ENOTDIR):
		reason = "is not a directory"
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			reason = "is a symbolic link"
		}
	default:
		return &os.PathError{Op: what, Path: path, Err: err}
	}
	return &TrustError{What: what, Path: path, Reason: reason, Fix: "remove it (rm " + path + ") and run the command again"}
}

func (d *dir) takeLock(write bool) error {
	flags, how := unix.O_RDONLY, unix.LOCK_SH
	if write {
		flags, how = unix.O_RDWR|unix.O_CREAT, unix.LOCK_EX
	}
	path := d.join(lockFile)
	// The lock file is its owner's only (0600): a lock needs only a read
	// descriptor, and another user holding a shared lock on it forever
	// would keep the owner's writers waiting forever. Another user (a user
	// reading the system sets in root's directory) reads without the lock:
	// every file is replaced whole by a rename, so a read sees each file
	// complete.
	fd, err := unix.Openat(d.fd, lockFile, flags|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0o600)
	if err != nil {
		if !write && (errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EACCES)) {
			return nil // never written, or another user's: nothing to lock
		}
		return fileError("state lock file", path, err)
	}
	d.lock = fd
	if err := d.checkFD(fd, "state lock file", path, false); err != nil {
		return err
	}
	if write {
		// A lock file made readable by an older version is closed to
		// others now.
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err == nil && st.Mode&0o077 != 0 && int(st.Uid) == d.euid {
			if err := unix.Fchmod(fd, 0o600); err != nil {
				return fileError("state lock file", path, err)
			}
		}
	}
	for {
		err = unix.Flock(fd, how)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		return fileError("state lock file", path, err)
	}
	return nil
}

// readAt reads name inside the directory descriptor dfd (shown as path),
// without following a symbolic link, after checking the file's owner and
// mode. A missing file is an error satisfying errors.Is(err, fs.ErrNotExist).
func (d *dir) readAt(dfd int, name, what, path string) ([]byte, error) {
	if dfd < 0 {
		return nil, &os.PathError{Op: what, Path: path, Err: fs.ErrNotExist}
	}
	fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, fileError(what, path, err)
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fileError(what, path, err)
	}
	if err := checkStat(what, path, &st, false, d.euid); err != nil {
		return nil, err
	}
	if st.Size > maxStateFile {
		return nil, fmt.Errorf("%s %s is larger than %d bytes", what, path, maxStateFile)
	}
	// Sized by the file (bounded above), one byte more to see it grow.
	b := make([]byte, 0, st.Size+1)
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF && len(b) <= maxStateFile {
			return b, nil
		}
		if err == io.EOF {
			return nil, fmt.Errorf("%s %s is larger than %d bytes", what, path, maxStateFile)
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", what, path, err)
		}
		if len(b) == cap(b) {
			if len(b) > maxStateFile {
				return nil, fmt.Errorf("%s %s is larger than %d bytes", what, path, maxStateFile)
			}
			b = append(b, 0)[:len(b)]
		}
	}
}

// read reads a file of the state directory itself.
func (d *dir) read(name, what string) ([]byte, error) {
	return d.readAt(d.fd, name, what, d.join(name))
}

// write replaces name inside the directory descriptor dfd (shown as dpath)
// with data: a new temporary file beside it, written, synced, renamed
// over the old one, and the directory synced so that the rename survives
// a crash. Every step's error is reported, the directory sync's included.
func (d *dir) writeAt(dfd int, dpath, name string, data []byte) error {
	return d.writeAtMode(dfd, dpath, name, data, 0o644)
}

// writeAtMode is writeAt giving the file mode perm (0600 for what only
// its owner and root may read).
func (d *dir) writeAtMode(dfd int, dpath, name string, data []byte, perm uint32) error {
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := "." + name + tempMarker + hex.EncodeToString(rnd[:])
	path := filepath.Join(dpath, name)
	fd, err := unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	f := os.NewFile(uintptr(fd), filepath.Join(dpath, tmp))
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(os.FileMode(perm)) // whatever the umask
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(dfd, tmp, dfd, name)
	}
	if err != nil {
		unix.Unlinkat(dfd, tmp, 0)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := unix.Fsync(dfd); err != nil {
		return fmt.Errorf("write %s: sync of directory %s: %w", path, dpath, err)
	}
	return nil
}

func (d *dir) write(name string, data []byte) error {
	return d.writeAt(d.fd, d.path, name, data)
}

// names lists the entries of the directory descriptor dfd.
func names(dfd int) []string {
	if dfd < 0 {
		return nil
	}
	nfd, err := unix.Dup(dfd)
	if err != nil {
		return nil
	}
	unix.CloseOnExec(nfd)
	f := os.NewFile(uintptr(nfd), "")
	defer f.Close()
	if _, err := unix.Seek(nfd, 0, io.SeekStart); err != nil {
		return nil
	}
	ns, _ := f.Readdirnames(-1)
	return ns
}

// removeTemps removes the temporary files an interrupted write left in
// the directory descriptor dfd. Only names of the form write gives are
// removed, and unlinkat never follows a symbolic link.
func (d *dir) removeTemps(dfd int) {
	for _, n := range names(dfd) {
		if strings.HasPrefix(n, ".") && strings.Contains(n, tempMarker) {
			unix.Unlinkat(dfd, n, 0)
		}
	}
}
