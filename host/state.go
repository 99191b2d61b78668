package host

// The state directory keeps what `perfc lodctr` registers, so that every
// command and every run sees the same title indexes. It holds:
//
//	lock            an empty file; writers take an exclusive flock on it,
//	                readers a shared one, so a reader never sees the titles
//	                of one registration with the record of another
//	titles          the title database in the titles package's text format
//	                (titles.WriteTo / titles.Read): English Windows' names,
//	                the built-in Linux objects' registrations and every
//	                lodctr registration, with Last Counter
//	providers.json  the registration record (stateRecord): per provider its
//	                GUID, name, the manifest it came from, the copy kept here,
//	                and the title index given to each counter set and counter
//	manifests/      a copy of each registered manifest, named
//	                {PROVIDER-GUID}-<first 12 hex digits of its SHA-256>.man
//
// Every file is written to a temporary file in the same directory, synced
// and renamed over the old one. A registration writes the manifest copy,
// then titles, then providers.json; the record is the commit point. A crash
// before it leaves at worst unused names in titles (indexes nobody refers
// to) or an unreferenced manifest copy, never a record that points at
// missing titles or at another version of a manifest (copies are named by
// content, so a replaced registration's copy stays until the record no
// longer names it). A directory that does not exist is an empty state: the
// host then has English Windows' names and the built-in objects only.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/manifest"
	"github.com/perfcounters/perfcounters/titles"
)

// Names inside the state directory.
const (
	stateLockFile    = "lock"
	stateTitlesFile  = "titles"
	stateRecordFile  = "providers.json"
	stateManifestDir = "manifests"
	stateVersion     = 1
)

// StateDir returns the state directory: $PERFC_STATE_DIR when set,
// otherwise /var/lib/perfc for root (euid 0) and $XDG_STATE_HOME/perfc for
// other users, where an unset or relative XDG_STATE_HOME means
// $HOME/.local/state as the XDG base-directory specification says.
func StateDir(getenv func(string) string, euid int) (string, error) {
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
		return "", errors.New("host: no state directory: set PERFC_STATE_DIR, XDG_STATE_HOME or HOME")
	}
	return filepath.Join(home, ".local", "state", "perfc"), nil
}

// Registration is one provider registered with lodctr: where its manifest
// came from and the title indexes its counter sets and counters were given.
type Registration struct {
	GUID     string            `json:"guid"`     // provider GUID, {XXXXXXXX-...} upper case
	Name     string            `json:"name"`     // providerName, may be empty
	Source   string            `json:"source"`   // the manifest path given to lodctr
	Manifest string            `json:"manifest"` // the copy, relative to the state directory
	Sets     []SetRegistration `json:"sets"`
	// Publishers are the uids whose segments may publish the provider's
	// counter sets; empty means root only. Data from anyone else is
	// ignored and reported.
	Publishers []uint32 `json:"publishers,omitempty"`
}

// SetRegistration is a registered counter set and its title indexes.
type SetRegistration struct {
	GUID      string                `json:"guid"`
	Name      string                `json:"name"`
	NameIndex uint32                `json:"index"` // help text at NameIndex+1
	Counters  []CounterRegistration `json:"counters"`
}

// CounterRegistration is a registered counter. A base counter has no
// name of its own in the data: it repeats the index of the counter that
// uses it, as real Windows data does.
type CounterRegistration struct {
	ID        uint32 `json:"id"`
	Name      string `json:"name"`
	NameIndex uint32 `json:"index"`
}

// Indexes returns every name index the registration added to the title
// database (set names and the counters that are not bases).
func (r *Registration) Indexes() []uint32 {
	var out []uint32
	for _, s := range r.Sets {
		out = append(out, s.NameIndex)
		for _, c := range s.Counters {
			if !slices.Contains(out, c.NameIndex) {
				out = append(out, c.NameIndex)
			}
		}
	}
	return out
}

// stateRecord is providers.json.
type stateRecord struct {
	Version   int            `json:"version"`
	Providers []Registration `json:"providers"`
}

// state is what a state directory held when it was read.
type state struct {
	dir    string
	titles *titles.DB // nil: no titles file yet
	rec    stateRecord
}

// ReadRegistrations returns the providers registered in the state
// directory dir, in registration order; none when dir does not exist.
func ReadRegistrations(dir string) ([]Registration, error) {
	st, err := readState(dir)
	if err != nil {
		return nil, err
	}
	return st.rec.Providers, nil
}

// readState reads dir under a shared lock.
func readState(dir string) (*state, error) {
	if dir == "" {
		return &state{}, nil
	}
	unlock, err := lockState(dir, false)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return readStateLocked(dir)
}

func readStateLocked(dir string) (*state, error) {
	st := &state{dir: dir, rec: stateRecord{Version: stateVersion}}
	b, err := os.ReadFile(filepath.Join(dir, stateTitlesFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("host: state: %w", err)
	default:
		db, err := titles.Read(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("host: state %s: %w", filepath.Join(dir, stateTitlesFile), err)
		}
		st.titles = db
	}
	b, err = os.ReadFile(filepath.Join(dir, stateRecordFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("host: state: %w", err)
	default:
		path := filepath.Join(dir, stateRecordFile)
		if err := json.Unmarshal(b, &st.rec); err != nil {
			return nil, fmt.Errorf("host: state %s: %w", path, err)
		}
		if st.rec.Version != stateVersion {
			return nil, fmt.Errorf("host: state %s: version %d not supported (want %d)", path, st.rec.Version, stateVersion)
		}
		if len(st.rec.Providers) > 0 && st.titles == nil {
			return nil, fmt.Errorf("host: state %s: %d providers registered but no %s file", dir, len(st.rec.Providers), stateTitlesFile)
		}
	}
	return st, nil
}

// lockState takes the state directory's lock: exclusive for writers (the
// directory and lock file are created), shared for readers (a directory
// or lock file that does not exist means nothing was ever written, and
// there is nothing to lock).
func lockState(dir string, write bool) (unlock func() error, err error) {
	path := filepath.Join(dir, stateLockFile)
	flags, how := unix.O_RDONLY, unix.LOCK_SH
	if write {
		if err := os.MkdirAll(filepath.Join(dir, stateManifestDir), 0o755); err != nil {
			return nil, fmt.Errorf("host: state: %w", err)
		}
		flags, how = unix.O_RDWR|unix.O_CREAT, unix.LOCK_EX
	}
	fd, err := unix.Open(path, flags|unix.O_CLOEXEC, 0o644)
	if err != nil {
		if !write && errors.Is(err, unix.ENOENT) {
			return func() error { return nil }, nil
		}
		return nil, fmt.Errorf("host: state lock %s: %w", path, err)
	}
	for {
		err = unix.Flock(fd, how)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("host: state lock %s: %w", path, err)
	}
	return func() error { return unix.Close(fd) }, nil // closing drops the lock
}

// writeFileAtomic replaces dir/name with data: a temporary file in the
// same directory, synced, renamed over the old one, and the directory
// synced so the rename survives a crash.
func writeFileAtomic(dir, name string, data []byte) error {
	f, err := os.CreateTemp(dir, "."+filepath.Base(name)+".tmp-*")
	if err != nil {
		return fmt.Errorf("host: state: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("host: state: write %s: %w", filepath.Join(dir, name), err)
	}
	if d, err := os.Open(filepath.Dir(filepath.Join(dir, name))); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

func (st *state) writeTitles(db *titles.DB) error {
	var b bytes.Buffer
	if _, err := db.WriteTo(&b); err != nil {
		return err
	}
	return writeFileAtomic(st.dir, stateTitlesFile, b.Bytes())
}

func (st *state) writeRecord() error {
	b, err := json.MarshalIndent(&st.rec, "", "\t")
	if err != nil {
		return fmt.Errorf("host: state: %w", err)
	}
	return writeFileAtomic(st.dir, stateRecordFile, append(b, '\n'))
}

// removeUnusedCopies deletes manifest copies that no registration names.
func (st *state) removeUnusedCopies() {
	ents, err := os.ReadDir(filepath.Join(st.dir, stateManifestDir))
	if err != nil {
		return
	}
	for _, e := range ents {
		rel := filepath.Join(stateManifestDir, e.Name())
		if !strings.HasSuffix(e.Name(), ".man") || slices.ContainsFunc(st.rec.Providers, func(r Registration) bool { return r.Manifest == rel }) {
			continue
		}
		os.Remove(filepath.Join(st.dir, rel))
	}
}

// NormalizeGUID returns a GUID as manifests and the registration record
// spell it, {XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX} upper case, accepting
// it with or without braces in any case; ok is false for anything else.
func NormalizeGUID(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
		s = s[1 : len(s)-1]
	}
	if len(s) != 36 {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return "", false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return "", false
			}
		}
	}
	return "{" + strings.ToUpper(s) + "}", true
}

// RegisterResult says what Register did.
type RegisterResult struct {
	Registration Registration
	Replaced     *Registration // the earlier registration of the same provider GUID, removed; nil if none
}

// Register registers every provider of a parsed manifest in the state
// directory dir, as lodctr /m does: each counter set and each counter that
// is not a base gets a new name index after Last Counter (titles.Add, in
// manifest order: set, then its counters), a base counter repeats the
// index of the counter that uses it, and a copy of data (the manifest's
// bytes) is kept. A provider GUID registered before is replaced: its names
// are removed first. source is the manifest path as given, for the record.
func Register(dir string, m *manifest.Manifest, data []byte, source string) ([]RegisterResult, error) {
	if dir == "" {
		return nil, errors.New("host: register: no state directory")
	}
	if m == nil || len(m.Providers) == 0 {
		return nil, errors.New("host: register: manifest has no provider")
	}
	unlock, err := lockState(dir, true)
	if err != nil {
		return nil, err
	}
	defer unlock()
	st, err := readStateLocked(dir)
	if err != nil {
		return nil, err
	}
	db, err := st.currentTitles()
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	var out []RegisterResult
	for pi := range m.Providers {
		p := &m.Providers[pi]
		guid, ok := NormalizeGUID(p.GUID)
		if !ok {
			return nil, fmt.Errorf("host: register: provider %q: bad GUID %q", p.Name, p.GUID)
		}
		res := RegisterResult{}
		if k := st.find(guid); k >= 0 {
			old := st.rec.Providers[k]
			if err := db.Remove(presentIndexes(db, old.Indexes())); err != nil {
				return nil, fmt.Errorf("host: register: removing the earlier registration of %s: %w", guid, err)
			}
			st.rec.Providers = slices.Delete(st.rec.Providers, k, k+1)
			res.Replaced = &old
		}
		reg, err := assign(db, p, guid)
		if err != nil {
			return nil, err
		}
		reg.Source = source
		reg.Manifest = filepath.Join(stateManifestDir, guid+"-"+hex.EncodeToString(sum[:6])+".man")
		if err := writeFileAtomic(dir, reg.Manifest, data); err != nil {
			return nil, err
		}
		st.rec.Providers = append(st.rec.Providers, reg)
		res.Registration = reg
		out = append(out, res)
	}
	if err := st.writeTitles(db); err != nil {
		return nil, err
	}
	if err := st.writeRecord(); err != nil {
		return nil, err
	}
	st.removeUnusedCopies()
	return out, nil
}

// assign gives a provider's sets and counters their title indexes.
func assign(db *titles.DB, p *manifest.Provider, guid string) (Registration, error) {
	reg := Registration{GUID: guid, Name: p.Name}
	var names []titles.NameHelp
	for _, s := range p.CounterSets {
		names = append(names, titles.NameHelp{Name: s.Name, Help: s.Help})
		for i, c := range s.Counters {
			if !sharesIndex(s, i) {
				names = append(names, titles.NameHelp{Name: c.Name, Help: c.Help})
			}
		}
	}
	if len(names) == 0 {
		return reg, nil // a provider with no counter sets registers nothing
	}
	first, err := db.Add(names)
	if err != nil {
		return reg, fmt.Errorf("host: register %s: %w", guid, err)
	}
	next := first
	take := func() uint32 { i := next; next += 2; return i }
	for _, s := range p.CounterSets {
		sg, _ := NormalizeGUID(s.GUID)
		sr := SetRegistration{GUID: sg, Name: s.Name, NameIndex: take()}
		var last uint32
		for i, c := range s.Counters {
			idx := last
			if !sharesIndex(s, i) {
				idx = take()
			}
			last = idx
			sr.Counters = append(sr.Counters, CounterRegistration{ID: c.ID, Name: c.Name, NameIndex: idx})
		}
		reg.Sets = append(reg.Sets, sr)
	}
	return reg, nil
}

// sharesIndex reports whether counter i of s is a base counter, which
// takes no name index of its own: the engine writes the index of the
// counter before it (its user) on it. A set's first counter always gets
// one, as the engine gives it.
func sharesIndex(s *counterset.Set, i int) bool {
	return i > 0 && s.Counters[i].Type.IsBase()
}

// presentIndexes keeps the indexes that still hold a name, so that a title
// file edited by hand does not make an unregistration impossible.
func presentIndexes(db *titles.DB, idx []uint32) []uint32 {
	return slices.DeleteFunc(slices.Clone(idx), func(i uint32) bool { return db.Name(i) == "" })
}

// find returns the position of the provider registered under guid, or -1.
func (st *state) find(guid string) int {
	return slices.IndexFunc(st.rec.Providers, func(r Registration) bool { return r.GUID == guid })
}

// currentTitles returns the title database every command of this host
// would use: the state's titles (English Windows' names when there is no
// titles file) with the built-in objects and the registered counter sets
// entered, exactly as New enters them.
func (st *state) currentTitles() (*titles.DB, error) {
	h, err := build(Options{}, st)
	if err != nil {
		return nil, err
	}
	db := h.Titles()
	h.Close()
	return db, nil
}

// Unregister removes the provider registered under key — a provider GUID
// (braces optional, any case) or a provider name (case-insensitive) — from
// the state directory dir, as unlodctr does: its names and help texts leave
// the title database and its manifest copy is deleted.
func Unregister(dir, key string) (*Registration, error) {
	if dir == "" {
		return nil, errors.New("host: unregister: no state directory")
	}
	unlock, err := lockState(dir, true)
	if err != nil {
		return nil, err
	}
	defer unlock()
	st, err := readStateLocked(dir)
	if err != nil {
		return nil, err
	}
	k := -1
	if g, ok := NormalizeGUID(key); ok {
		k = st.find(g)
	} else {
		k = slices.IndexFunc(st.rec.Providers, func(r Registration) bool { return r.Name != "" && strings.EqualFold(r.Name, key) })
	}
	if k < 0 {
		return nil, fmt.Errorf("host: unregister: no provider %q is registered in %s", key, dir)
	}
	old := st.rec.Providers[k]
	db := st.titles
	if db == nil {
		return nil, fmt.Errorf("host: unregister: state %s has no %s file", dir, stateTitlesFile)
	}
	if err := db.Remove(presentIndexes(db, old.Indexes())); err != nil {
		return nil, fmt.Errorf("host: unregister %s: %w", old.GUID, err)
	}
	st.rec.Providers = slices.Delete(st.rec.Providers, k, k+1)
	// The record first: once it no longer names the provider, its titles
	// are only unused names.
	if err := st.writeRecord(); err != nil {
		return nil, err
	}
	if err := st.writeTitles(db); err != nil {
		return nil, err
	}
	st.removeUnusedCopies()
	return &old, nil
}
