package state

// Data collector set definitions (perfc logman): one file per set,
// sets/NAME.xml, in the DataCollectorSet XML that logman export writes,
// readable by every user, and beside it sets/NAME.private, mode 0600, with
// what only the set's owner and root may read (collectorset.Private).

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/perfcounters/perfcounters/collectorset"
	"golang.org/x/sys/unix"
)

// Names of the collector set definitions.
const (
	setsDir = "sets"
	setExt  = ".xml"
	// privateExt names the file beside a definition that holds what only
	// the set's owner and root may read (collectorset.Private), mode 0600.
	privateExt = ".private"
)

// ErrCollectorSetNotFound is returned (wrapped) for a set name no
// definition has.
var ErrCollectorSetNotFound = errors.New("no data collector set of that name")

// ErrCollectorSetExists is returned (wrapped) when a set is created with
// the name of one that exists (names are compared without regard to case).
var ErrCollectorSetExists = errors.New("a data collector set of that name exists")

// ErrProviderNotFound is what the error of a provider name, GUID or
// driver name that no registration has wraps (lodctr's and unlodctr's).
var ErrProviderNotFound = errors.New("no provider of that name is registered")

// ProviderNotFoundError says which provider is not registered where; it
// is ErrProviderNotFound.
type ProviderNotFoundError struct{ Msg string }

func (e *ProviderNotFoundError) Error() string { return e.Msg }

// Unwrap returns ErrProviderNotFound.
func (e *ProviderNotFoundError) Unwrap() error { return ErrProviderNotFound }

// CollectorSets is what ReadCollectorSets found in a state directory.
type CollectorSets struct {
	Path string              // the state directory
	Sets []*collectorset.Set // the definitions read, by name (Status is Stopped)
	// Files holds each set's definition file, by the set's name.
	Files map[string]string
	// Problems holds one error per definition that could not be read (a
	// damaged file, one that fails the trust checks): each names the file
	// and costs only that set.
	Problems []error
}

// SetFileError is a definition file that could not be read; it costs
// only its set.
type SetFileError struct {
	Name string // the set's name, from the file name
	File string
	Err  error
}

func (e *SetFileError) Error() string {
	return fmt.Sprintf("Data Collector Set %q (%s) is left out: %v; repair: remove it (perfc logman delete %q, or rm %s) and create it again", e.Name, e.File, e.Err, e.Name, e.File)
}

func (e *SetFileError) Unwrap() error { return e.Err }

// setsHandle is the sets/ directory of an opened state directory.
type setsHandle struct {
	d    *dir
	fd   int // -1 when sets/ does not exist
	path string
}

func (h *setsHandle) close() {
	if h.fd >= 0 {
		unix.Close(h.fd)
	}
	h.d.close()
}

// openSets opens the state directory path and its sets/ directory, for
// reading or (creating what is missing) writing. A reader of a state
// directory without sets gets a handle with fd -1, or nil when the state
// directory itself does not exist.
func openSets(path string, write bool) (*setsHandle, error) {
	d, err := open(path, write)
	if err != nil || d == nil {
		return nil, err
	}
	h := &setsHandle{d: d, fd: -1, path: d.join(setsDir)}
	if write {
		if err := unix.Mkdirat(d.fd, setsDir, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
			d.close()
			return nil, fileError("collector set directory", h.path, err)
		}
	}
	fd, err := unix.Openat(d.fd, setsDir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	switch {
	case err == nil:
		h.fd = fd
		if err := d.checkFD(fd, "collector set directory", h.path, true); err != nil {
			h.close()
			return nil, err
		}
	case errors.Is(err, unix.ENOENT) && !write:
	default:
		d.close()
		return nil, fileError("collector set directory", h.path, err)
	}
	if write {
		d.removeTemps(h.fd)
	}
	return h, nil
}

// files lists the definition files: set name (from the file name) to file
// name, in name order.
func (h *setsHandle) files() [][2]string {
	var out [][2]string
	for _, n := range names(h.fd) {
		stem, ok := strings.CutSuffix(n, setExt)
		if !ok || strings.HasPrefix(n, ".") || collectorset.CheckName(stem) != nil {
			continue
		}
		out = append(out, [2]string{stem, n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// find returns the file of the set named name (without regard to case).
func (h *setsHandle) find(name string) (stem, file string, ok bool) {
	for _, f := range h.files() {
		if collectorset.SameName(f[0], name) {
			return f[0], f[1], true
		}
	}
	return "", "", false
}

// read reads and checks one definition file.
func (h *setsHandle) read(stem, file string) (*collectorset.Set, error) {
	path := filepath.Join(h.path, file)
	b, err := h.d.readAt(h.fd, file, "collector set definition", path)
	if err != nil {
		return nil, &SetFileError{Name: stem, File: path, Err: err}
	}
	s, err := collectorset.ParseXML(b, path)
	if err == nil {
		// The file's name is the set's name.
		s.Name, s.Status = stem, collectorset.Stopped
		err = s.Validate()
	}
	if err != nil {
		return nil, &SetFileError{Name: stem, File: path, Err: err}
	}
	ppath := filepath.Join(h.path, stem+privateExt)
	pb, err := h.d.readAt(h.fd, stem+privateExt, "collector set private part", ppath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, fs.ErrPermission):
		s.PrivateHidden = true // another user's set: its arguments are not shown
	case err != nil:
		return nil, &SetFileError{Name: stem, File: ppath, Err: err}
	default:
		var p collectorset.Private
		if err := json.Unmarshal(pb, &p); err != nil {
			return nil, &SetFileError{Name: stem, File: ppath, Err: err}
		}
		s.JoinPrivate(p)
	}
	return s, nil
}

// ReadCollectorSets reads every data collector set definition of the
// state directory path under a shared lock. A state directory that does
// not exist, or holds no sets, has none. The state directory or its sets/
// failing the trust checks is an error; a definition that cannot be read
// (damaged, a symbolic link, owned by another user, not a regular file)
// is left out and reported in Problems, naming its file.
func ReadCollectorSets(path string) (*CollectorSets, error) {
	cs := &CollectorSets{Path: path, Files: map[string]string{}}
	h, err := openSets(path, false)
	if err != nil || h == nil {
		return cs, err
	}
	defer h.close()
	for _, f := range h.files() {
		s, err := h.read(f[0], f[1])
		if err != nil {
			cs.Problems = append(cs.Problems, err)
			continue
		}
		cs.Sets = append(cs.Sets, s)
		cs.Files[s.Name] = filepath.Join(h.path, f[1])
	}
	return cs, nil
}

// ReadCollectorSet reads the definition of the set named name (without
// regard to case) in the state directory path. A name no definition has
// is an error satisfying errors.Is(err, ErrCollectorSetNotFound); a
// damaged definition is a *SetFileError naming the file.
func ReadCollectorSet(path, name string) (*collectorset.Set, error) {
	h, err := openSets(path, false)
	if err != nil {
		return nil, err
	}
	if h == nil {
		return nil, notFound(name)
	}
	defer h.close()
	stem, file, ok := h.find(name)
	if !ok {
		return nil, notFound(name)
	}
	return h.read(stem, file)
}

func notFound(name string) error {
	return fmt.Errorf("%q: %w", name, ErrCollectorSetNotFound)
}

// setBytes is what a definition file holds: the set's XML, without a
// status (a definition has none) and without its private parts, and what
// its private file holds (nil when it has none).
func setBytes(s *collectorset.Set) (public, private []byte, err error) {
	if err := s.Validate(); err != nil {
		return nil, nil, err
	}
	c, p := s.SplitPrivate()
	c.Status, c.PrivateHidden = collectorset.Stopped, false
	if !p.IsZero() {
		if private, err = json.Marshal(p); err != nil {
			return nil, nil, err
		}
	}
	return c.XML(), private, nil
}

// writeSet writes the definition file and, before it, the private file
// beside it (removed when the set has no private parts).
func (h *setsHandle) writeSet(file string, public, private []byte) error {
	stem := strings.TrimSuffix(file, setExt)
	if private != nil {
		if err := h.d.writeAtMode(h.fd, h.path, stem+privateExt, private, 0o600); err != nil {
			return err
		}
	} else if err := h.removePrivate(stem); err != nil {
		return err
	}
	return h.d.writeAt(h.fd, h.path, file, public)
}

// removePrivate removes the private file of the definition stem; a
// missing one is no error.
func (h *setsHandle) removePrivate(stem string) error {
	if err := unix.Unlinkat(h.fd, stem+privateExt, 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return &os.PathError{Op: "remove", Path: filepath.Join(h.path, stem+privateExt), Err: err}
	}
	return nil
}

// CreateCollectorSet stores a new set's definition in the state directory
// path (created when missing), atomically. A set of the same name
// (without regard to case) is an error satisfying errors.Is(err,
// ErrCollectorSetExists), unless replace is true (logman's -ow), when it
// is replaced.
func CreateCollectorSet(path string, s *collectorset.Set, replace bool) error {
	data, private, err := setBytes(s)
	if err != nil {
		return err
	}
	h, err := openSets(path, true)
	if err != nil {
		return err
	}
	defer h.close()
	_, old, exists := h.find(s.Name)
	if exists && !replace {
		return fmt.Errorf("%q: %w", s.Name, ErrCollectorSetExists)
	}
	if err := h.writeSet(s.Name+setExt, data, private); err != nil {
		return err
	}
	// The old file (its name in another case) goes after the new one is
	// in place, so that a crash leaves one of them.
	if exists && old != s.Name+setExt {
		return h.remove(old)
	}
	return nil
}

// UpdateCollectorSet replaces the definition of an existing set (found
// by s.Name without regard to case; its file keeps its name), atomically.
// A damaged definition may be replaced: that is its repair.
func UpdateCollectorSet(path string, s *collectorset.Set) error {
	data, private, err := setBytes(s)
	if err != nil {
		return err
	}
	h, err := openSets(path, true)
	if err != nil {
		return err
	}
	defer h.close()
	_, file, ok := h.find(s.Name)
	if !ok {
		return notFound(s.Name)
	}
	return h.writeSet(file, data, private)
}

// DeleteCollectorSet removes the definition of the set named name
// (without regard to case), damaged or not, and returns the file removed.
// The removal never follows a symbolic link: a link planted as a
// definition is removed itself, never what it points at.
func DeleteCollectorSet(path, name string) (string, error) {
	h, err := openSets(path, true)
	if err != nil {
		return "", err
	}
	defer h.close()
	_, file, ok := h.find(name)
	if !ok {
		return "", notFound(name)
	}
	if err := h.remove(file); err != nil {
		return "", err
	}
	return filepath.Join(h.path, file), nil
}

// remove unlinks a definition file and syncs the directory.
func (h *setsHandle) remove(file string) error {
	path := filepath.Join(h.path, file)
	if err := h.removePrivate(strings.TrimSuffix(file, setExt)); err != nil {
		return err
	}
	if err := unix.Unlinkat(h.fd, file, 0); err != nil {
		return &os.PathError{Op: "remove", Path: path, Err: err}
	}
	if err := unix.Fsync(h.fd); err != nil {
		return fmt.Errorf("remove %s: sync of directory %s: %w", path, h.path, err)
	}
	return nil
}
