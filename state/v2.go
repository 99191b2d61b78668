package state

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/sys/unix"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/manifest"
	"github.com/perfcounters/perfcounters/titles"
)

// Registration is one V2 provider registered with lodctr: where its
// manifest came from, the title indexes its counter sets and counters
// were given, and who may publish its sets' values.
type Registration struct {
	GUID     string            `json:"guid"`     // provider GUID, {XXXXXXXX-...} upper case
	Name     string            `json:"name"`     // providerName, may be empty
	Source   string            `json:"source"`   // the manifest path given to lodctr
	Manifest string            `json:"manifest"` // the copy, relative to the state directory
	Sets     []SetRegistration `json:"sets"`
	// Publishers are the uids allowed to publish the sets' shared-memory
	// segments: the registering user unless lodctr /u: named others. A
	// registration written before the field existed reads as the uid that
	// owns providers.json.
	Publishers []uint32 `json:"publishers"`
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

// validate checks what a reader relies on in one registration record.
func (r *Registration) validate() error {
	g, ok := NormalizeGUID(r.GUID)
	if !ok || g != r.GUID {
		return fmt.Errorf("provider GUID %q is not a {XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX} GUID", r.GUID)
	}
	dirName, base := filepath.Split(r.Manifest)
	if dirName != manifestDir+"/" || !strings.HasPrefix(base, r.GUID+"-") || !strings.HasSuffix(base, ".man") {
		return fmt.Errorf("provider %s: manifest copy %q is not %s/%s-HASH.man", r.GUID, r.Manifest, manifestDir, r.GUID)
	}
	for _, s := range r.Sets {
		if g, ok := NormalizeGUID(s.GUID); !ok || g != s.GUID {
			return fmt.Errorf("provider %s: counter set GUID %q is not a GUID", r.GUID, s.GUID)
		}
		if s.NameIndex == 0 || s.NameIndex%2 != 0 {
			return fmt.Errorf("provider %s: counter set %q: title index %d is not an even index", r.GUID, s.Name, s.NameIndex)
		}
		for _, c := range s.Counters {
			if c.NameIndex == 0 || c.NameIndex%2 != 0 {
				return fmt.Errorf("provider %s: counter %q: title index %d is not an even index", r.GUID, c.Name, c.NameIndex)
			}
		}
	}
	return nil
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

func readV2(d *dir) (record[Registration], error) {
	rec, err := readRecord(d, recordFile, false, (*Registration).validate)
	for i := range rec.entries {
		if e := &rec.entries[i]; e.raw == nil && e.reg.Publishers == nil {
			e.reg.Publishers = []uint32{rec.owner}
		}
	}
	return rec, err
}

// openV2 opens the state directory path for a change of its V2 record and
// reads the record; a record this version may not rewrite is an error.
func openV2(path string) (*dir, record[Registration], error) {
	d, err := open(path, true)
	if err != nil {
		return nil, record[Registration]{}, err
	}
	rec, err := readV2(d)
	if err == nil {
		err = rec.writable()
	}
	if err != nil {
		d.close()
		return nil, record[Registration]{}, err
	}
	return d, rec, nil
}

// RegisterOptions configure Register.
type RegisterOptions struct {
	// Builtin enters the names of the host's built-in objects into a
	// title database, as the host's engine enters them, so that the
	// indexes given here never collide with theirs; nil enters none.
	Builtin func(*titles.DB) error
	// Reserved are the names of the host's built-in objects
	// (host.BuiltinObjects): no counter set may take one, in any case,
	// since it would shadow the built-in object or be shadowed by it.
	Reserved []string
	// Publishers are the uids allowed to publish the provider's sets;
	// empty means the registering user (the effective uid).
	Publishers []uint32
}

// RegisterResult says what Register did.
type RegisterResult struct {
	Registration Registration
	Replaced     *Registration // the earlier registration of the same provider GUID, removed; nil if none
}

// checkName refuses names that would corrupt output or title files:
// control characters (TAB, LF, ESC ...) in a provider, set or counter name.
func checkName(what, name string) error {
	if i := strings.IndexFunc(name, unicode.IsControl); i >= 0 {
		return fmt.Errorf("%s %q contains the control character %U: names must be printable", what, name, []rune(name[i:])[0])
	}
	return nil
}

func checkManifestNames(p *manifest.Provider) error {
	if err := checkName("provider name", p.Name); err != nil {
		return err
	}
	for _, s := range p.CounterSets {
		if err := checkName("counter set name", s.Name); err != nil {
			return err
		}
		for _, c := range s.Counters {
			if err := checkName("counter name", c.Name); err != nil {
				return fmt.Errorf("counter set %q: %w", s.Name, err)
			}
		}
	}
	return nil
}

// conflict refuses a counter set whose GUID or name another provider
// already registered: two providers would publish into, or show as, one
// object.
func conflict(regs []Registration, guid string, s *counterset.Set) error {
	sg, _ := NormalizeGUID(s.GUID)
	for _, r := range regs {
		if r.GUID == guid {
			continue // the same provider: an update
		}
		for _, o := range r.Sets {
			if o.GUID == sg {
				return fmt.Errorf("counter set %q has the GUID %s of counter set %q, registered by provider %s (%s) from %s: a counter set GUID belongs to one provider", s.Name, sg, o.Name, r.GUID, r.Name, r.Source)
			}
			if strings.EqualFold(o.Name, s.Name) {
				return fmt.Errorf("counter set name %q is already registered by provider %s (%s) from %s: object names must be unique", s.Name, r.GUID, r.Name, r.Source)
			}
		}
	}
	return nil
}

// Register registers every provider of a parsed manifest in the state
// directory path, as lodctr /m does: each counter set and each counter that
// is not a base gets a new name index after Last Counter (titles.Add, in
// manifest order: set, then its counters), a base counter repeats the
// index of the counter that uses it, and a copy of data (the manifest's
// bytes) is kept with its parsed form. A provider GUID registered before
// is replaced: its names are removed first. A counter set whose GUID or
// name another provider registered is refused, and so are names with
// control characters. source is the manifest path as given, for the record.
func Register(path string, m *manifest.Manifest, data []byte, source string, opts RegisterOptions) ([]RegisterResult, error) {
	if m == nil || len(m.Providers) == 0 {
		return nil, errors.New("register: the manifest has no provider")
	}
	d, rec, err := openV2(path)
	if err != nil {
		return nil, err
	}
	defer d.close()
	db, err := d.currentTitles(opts.Builtin)
	if err != nil {
		return nil, err
	}
	publishers := opts.Publishers
	if len(publishers) == 0 {
		publishers = []uint32{uint32(d.euid)}
	}
	sum := sha256.Sum256(data)
	langs := newLangEdit(d)
	var out []RegisterResult
	for pi := range m.Providers {
		p := &m.Providers[pi]
		guid, ok := NormalizeGUID(p.GUID)
		if !ok {
			return nil, fmt.Errorf("register: provider %q: bad GUID %q", p.Name, p.GUID)
		}
		if err := checkManifestNames(p); err != nil {
			return nil, fmt.Errorf("register: provider %s: %w", guid, err)
		}
		regs := rec.valid()
		for _, s := range p.CounterSets {
			if i := slices.IndexFunc(opts.Reserved, func(r string) bool { return strings.EqualFold(r, s.Name) }); i >= 0 {
				return nil, fmt.Errorf("register: provider %s: counter set %q: %q is the name of a built-in object of this computer; choose another name", guid, s.Name, opts.Reserved[i])
			}
			if err := conflict(regs, guid, s); err != nil {
				return nil, fmt.Errorf("register: provider %s: %w", guid, err)
			}
		}
		for i, s := range p.CounterSets {
			for _, o := range p.CounterSets[:i] {
				if strings.EqualFold(o.Name, s.Name) || o.GUID == s.GUID {
					return nil, fmt.Errorf("register: provider %s declares counter set %q (%s) twice", guid, s.Name, s.GUID)
				}
			}
		}
		res := RegisterResult{}
		if k := slices.IndexFunc(rec.entries, func(e entry[Registration]) bool { return e.raw == nil && e.reg.GUID == guid }); k >= 0 {
			old := rec.entries[k].reg
			if err := db.Remove(presentIndexes(db, old.Indexes())); err != nil {
				return nil, fmt.Errorf("register: removing the earlier registration of %s: %w", guid, err)
			}
			if err := langs.remove(old.Indexes()); err != nil {
				return nil, fmt.Errorf("register: removing the earlier registration of %s: %w", guid, err)
			}
			rec.entries = slices.Delete(rec.entries, k, k+1)
			res.Replaced = &old
		}
		reg, err := assign(db, p, guid)
		if err != nil {
			return nil, err
		}
		if err := langs.localize(p, &reg, m.Cultures); err != nil {
			return nil, fmt.Errorf("register %s: %w", guid, err)
		}
		reg.Source = source
		reg.Publishers = slices.Clone(publishers)
		reg.Manifest = manifestDir + "/" + guid + "-" + hex.EncodeToString(sum[:6]) + ".man"
		if err := d.writeCopy(reg, data, p); err != nil {
			return nil, err
		}
		rec.entries = append(rec.entries, entry[Registration]{reg: reg})
		res.Registration = reg
		out = append(out, res)
	}
	if err := d.writeTitles(db); err != nil {
		return nil, err
	}
	if err := langs.write(); err != nil {
		return nil, err
	}
	if err := d.writeV2(rec); err != nil {
		return nil, err
	}
	d.removeUnusedCopies(rec)
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
		return reg, fmt.Errorf("register %s: %w", guid, err)
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

// currentTitles returns the title database the host would use: the
// state's titles (English Windows' names when there is no titles file)
// with the built-in objects' names entered. A damaged titles file is an
// error: writing over it would lose every registration's names.
func (d *dir) currentTitles(builtin func(*titles.DB) error) (*titles.DB, error) {
	db, err := d.readTitles()
	if err != nil {
		return nil, err
	}
	if db == nil {
		db = titles.English()
	}
	if builtin != nil {
		if err := builtin(db); err != nil {
			return nil, fmt.Errorf("entering the built-in objects' names: %w", err)
		}
	}
	return db, nil
}

// readTitles reads the title database; nil when there is none.
func (d *dir) readTitles() (*titles.DB, error) {
	if d == nil {
		return nil, nil
	}
	b, err := d.read(titlesFile, "title database")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	db, err := titles.Read(bytes.NewReader(b))
	if err != nil {
		path := d.join(titlesFile)
		return nil, fmt.Errorf("title database %s is damaged: %v; repair: remove it together with %s and %s (rm %s %s %s) and register the providers again", path, err,
			recordFile, v1File, path, d.join(recordFile), d.join(v1File))
	}
	return db, nil
}

func (d *dir) writeTitles(db *titles.DB) error {
	var b bytes.Buffer
	if _, err := db.WriteTo(&b); err != nil {
		return err
	}
	return d.write(titlesFile, b.Bytes())
}

func (d *dir) writeV2(rec record[Registration]) error {
	b, err := marshalRecord(rec.entries)
	if err != nil {
		return err
	}
	return d.write(recordFile, b)
}

// removeUnusedCopies deletes manifest copies (and their parsed forms)
// that no registration names, through the manifests/ descriptor: a
// symbolic link put in its place can never redirect the removal.
func (d *dir) removeUnusedCopies(rec record[Registration]) {
	used := func(base string) bool {
		return slices.ContainsFunc(rec.entries, func(e entry[Registration]) bool {
			if e.raw != nil {
				return bytes.Contains(e.raw, []byte(strings.TrimSuffix(base, ".man"))) // keep what a damaged entry may name
			}
			return e.reg.Manifest == manifestDir+"/"+base
		})
	}
	for _, n := range names(d.mfd) {
		base, ok := strings.CutSuffix(n, parsedSuffix)
		if ok {
			base += ".man"
		} else if !strings.HasSuffix(n, ".man") {
			continue
		} else {
			base = n
		}
		if !used(base) {
			unix.Unlinkat(d.mfd, n, 0)
		}
	}
}

// Unregister removes the provider registered under key — a provider GUID
// (braces optional, any case) or a provider name (case-insensitive) — from
// the state directory path, as unlodctr does: its names and help texts
// leave the title database and its manifest copy is deleted. A name that
// more than one provider has is refused with the list of their GUIDs. A
// damaged entry is removed by its GUID.
func Unregister(path, key string) (*Registration, error) {
	d, rec, err := openV2(path)
	if err != nil {
		return nil, err
	}
	defer d.close()
	var match []int
	if g, ok := NormalizeGUID(key); ok {
		for i, e := range rec.entries {
			if k, _ := NormalizeGUID(e.key); e.raw != nil && k == g || e.raw == nil && e.reg.GUID == g {
				match = append(match, i)
			}
		}
	} else {
		for i, e := range rec.entries {
			if e.raw == nil && e.reg.Name != "" && strings.EqualFold(e.reg.Name, key) || e.raw != nil && e.key == key {
				match = append(match, i)
			}
		}
	}
	switch {
	case len(match) == 0:
		return nil, &ProviderNotFoundError{fmt.Sprintf("no provider %q is registered in %s", key, path)}
	case len(match) > 1:
		var b strings.Builder
		for _, i := range match {
			if r := rec.entries[i].reg; rec.entries[i].raw == nil {
				fmt.Fprintf(&b, "\n  %s %q from %s", r.GUID, r.Name, r.Source)
			} else {
				fmt.Fprintf(&b, "\n  %q (a damaged entry)", rec.entries[i].key)
			}
		}
		return nil, fmt.Errorf("%d providers are registered as %q; name one by its GUID:%s", len(match), key, b.String())
	}
	k := match[0]
	old := rec.entries[k]
	rec.entries = slices.Delete(rec.entries, k, k+1)
	if old.raw != nil {
		// A damaged entry: its titles cannot be known; drop the record only.
		if err := d.writeV2(rec); err != nil {
			return nil, err
		}
		d.removeUnusedCopies(rec)
		return &Registration{GUID: old.key}, nil
	}
	db, err := d.readTitles()
	if err != nil {
		return nil, err
	}
	if db == nil {
		return nil, fmt.Errorf("unregister: state directory %s has no %s file", path, titlesFile)
	}
	if err := db.Remove(presentIndexes(db, old.reg.Indexes())); err != nil {
		return nil, fmt.Errorf("unregister %s: %w", old.reg.GUID, err)
	}
	langs := newLangEdit(d)
	if err := langs.remove(old.reg.Indexes()); err != nil {
		return nil, fmt.Errorf("unregister %s: %w", old.reg.GUID, err)
	}
	// The record first: once it no longer names the provider, its titles
	// are only unused names.
	if err := d.writeV2(rec); err != nil {
		return nil, err
	}
	if err := d.writeTitles(db); err != nil {
		return nil, err
	}
	if err := langs.write(); err != nil {
		return nil, err
	}
	d.removeUnusedCopies(rec)
	return &old.reg, nil
}

// ReadRegistrations returns the V2 providers registered in the state
// directory path, in registration order (none when it does not exist),
// and the problems of damaged entries, which are left out.
func ReadRegistrations(path string) ([]Registration, []error, error) {
	d, err := open(path, false)
	if err != nil {
		return nil, nil, err
	}
	defer d.close()
	rec, err := readV2(d)
	if err != nil {
		return nil, nil, err
	}
	return rec.valid(), rec.problems(), nil
}

// copyPath returns a registration's manifest copy name inside manifests/.
func copyName(reg *Registration) string { return strings.TrimPrefix(reg.Manifest, manifestDir+"/") }
