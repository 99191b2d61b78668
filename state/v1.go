package state

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/perfcounters/perfcounters/titles"
)

// V1Registration registers an out-of-process V1 provider: an executable in
// any language speaking collect/PROTOCOL.md, started by the host's engine.
// It plays the part of a Windows service's Performance registry key and
// its .ini file: the executable (Library/Open/Collect/Close), the objects
// it serves (Object List), ExtCounterTestLevel, the names of the title
// indexes its objects use, and (for an .ini registration) First Counter,
// First Help, Last Counter and Last Help.
//
// A V1 provider writes title indexes into its own output. Registered from
// a JSON file (RegisterV1), it states them: Names lists the indexes it
// brings, each with its name and help, and RegisterV1 persists them in the
// state's title database (Last Counter moves past them). An index already
// holding a name is refused, unless another V1 provider brought it under
// the same name (two providers sharing a counter name), so a V1 provider
// never renames or removes a standard or lodctr-registered name; standard
// indexes are written into its output without being listed. Registered
// from an .ini file (RegisterV1Offsets, lodctr FILE.ini), it is given them,
// as Windows' lodctr gives a performance DLL its First Counter: its names
// get a block of new indexes, and the provider adds its offsets to First
// Counter and First Help, which the engine hands it (collect.Indexes).
type V1Registration struct {
	Name      string   `json:"name"`                // unique key, e.g. the service name
	Exec      string   `json:"exec"`                // absolute path of the executable
	Args      []string `json:"args,omitempty"`      // its arguments
	Objects   []uint32 `json:"objects,omitempty"`   // object title indexes it serves
	Names     []V1Name `json:"names,omitempty"`     // names and help of the indexes it uses
	TestLevel int      `json:"testLevel,omitempty"` // ExtCounterTestLevel 1..4; 0 = 1
	TimeoutMS int      `json:"timeoutMs,omitempty"` // collect timeout; 0 = the engine's default

	// The fields below are set when lodctr registered the provider from a
	// V1 .ini file (RegisterV1Offsets) and are empty otherwise.

	// Source is the .ini file as given to lodctr.
	Source string `json:"source,omitempty"`
	// Language is the language id ("009") whose text Names' Name and Help
	// hold (perfini.Provider.Language).
	Language string `json:"language,omitempty"`
	// FirstCounter, FirstHelp, LastCounter and LastHelp are what Windows'
	// lodctr writes under the service's Performance key: the first and
	// last name index given to the provider, and their help indexes
	// (name + 1). The provider learns them from the engine
	// (collect.Indexes, collect/PROTOCOL.md) and adds its offsets to them.
	FirstCounter uint32 `json:"firstCounter,omitempty"`
	FirstHelp    uint32 `json:"firstHelp,omitempty"`
	LastCounter  uint32 `json:"lastCounter,omitempty"`
	LastHelp     uint32 `json:"lastHelp,omitempty"`
}

// V1Name is one title index of a V1 provider: an even name index, its name
// and the help text stored at index+1.
type V1Name struct {
	Index uint32 `json:"index"`
	Name  string `json:"name"`
	Help  string `json:"help,omitempty"`
	// Symbol is the name's macro in the provider's symbol file (.ini
	// registrations).
	Symbol string `json:"symbol,omitempty"`
	// Localized holds the name and help text in every language the .ini
	// file gives them in, Language's included, by language id: three
	// upper-case hexadecimal digits ("009", "007"), the key of a
	// per-language title database. Omitted when empty.
	Localized map[string]V1Text `json:"localized,omitempty"`
}

// V1Text is a name and its help text in one language. Name is empty when
// the language gives only a help text.
type V1Text struct {
	Name string `json:"name,omitempty"`
	Help string `json:"help,omitempty"`
}

// DefaultV1TestLevel is the ExtCounterTestLevel given to a V1 provider that
// names none. Windows defaults to 4 (no tests); an out-of-process provider
// here is code the host does not control, so it gets the strictest level.
const DefaultV1TestLevel = 1

// Validate checks a registration's fields (not its executable's trust:
// see CheckExecutable).
func (r *V1Registration) Validate() error {
	switch {
	case strings.TrimSpace(r.Name) == "":
		return errors.New("V1 provider: no name")
	case !filepath.IsAbs(r.Exec):
		return fmt.Errorf("V1 provider %q: exec %q is not an absolute path", r.Name, r.Exec)
	case r.TestLevel < 0 || r.TestLevel > 4:
		return fmt.Errorf("V1 provider %q: test level %d (want 1 to 4)", r.Name, r.TestLevel)
	case r.TimeoutMS < 0:
		return fmt.Errorf("V1 provider %q: negative timeout", r.Name)
	}
	if err := checkName("V1 provider name", r.Name); err != nil {
		return err
	}
	for _, n := range r.Names {
		if n.Index == 0 || n.Index%2 != 0 || n.Name == "" {
			return fmt.Errorf("V1 provider %q: name %q at index %d (want an even index and a name)", r.Name, n.Name, n.Index)
		}
		if err := checkName("V1 provider "+r.Name+": name", n.Name); err != nil {
			return err
		}
		for lang, t := range n.Localized {
			if !isLanguageID(lang) {
				return fmt.Errorf("V1 provider %q: name %q: language %q is not three upper-case hexadecimal digits", r.Name, n.Name, lang)
			}
			if err := checkName("V1 provider "+r.Name+": name in language "+lang, t.Name); err != nil {
				return err
			}
		}
	}
	if r.Language != "" && !isLanguageID(r.Language) {
		return fmt.Errorf("V1 provider %q: language %q is not three upper-case hexadecimal digits", r.Name, r.Language)
	}
	return r.validateRange()
}

// validateRange checks First/Last Counter/Help: all zero, or a range of
// even name indexes with their help indexes, holding every name and
// object of the registration.
func (r *V1Registration) validateRange() error {
	if r.FirstCounter == 0 {
		if r.FirstHelp != 0 || r.LastCounter != 0 || r.LastHelp != 0 {
			return fmt.Errorf("V1 provider %q: First Help, Last Counter or Last Help without a First Counter", r.Name)
		}
		return nil
	}
	if r.FirstCounter%2 != 0 || r.LastCounter%2 != 0 || r.LastCounter < r.FirstCounter || r.FirstHelp != r.FirstCounter+1 || r.LastHelp != r.LastCounter+1 {
		return fmt.Errorf("V1 provider %q: First Counter %d, First Help %d, Last Counter %d, Last Help %d are not a range of even name indexes and their help indexes",
			r.Name, r.FirstCounter, r.FirstHelp, r.LastCounter, r.LastHelp)
	}
	in := func(i uint32) bool { return r.FirstCounter <= i && i <= r.LastCounter }
	for _, n := range r.Names {
		if !in(n.Index) {
			return fmt.Errorf("V1 provider %q: name %q at index %d is outside its First Counter %d .. Last Counter %d", r.Name, n.Name, n.Index, r.FirstCounter, r.LastCounter)
		}
	}
	for _, o := range r.Objects {
		if !in(o) {
			return fmt.Errorf("V1 provider %q: object %d is outside its First Counter %d .. Last Counter %d", r.Name, o, r.FirstCounter, r.LastCounter)
		}
	}
	return nil
}

// isLanguageID reports whether s is a language id as V1Name.Localized
// keys them: three upper-case hexadecimal digits.
func isLanguageID(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func readV1(d *dir) (record[V1Registration], error) {
	return readRecord(d, v1File, true, (*V1Registration).Validate)
}

// RegisterV1 stores r in the state directory path, replacing a
// registration of the same name. Its executable must pass
// CheckExecutable. A provider whose name differs only in case from
// another's, or that serves an object another V1 provider serves, is
// refused. The names it states are entered into the state's title
// database at their indexes, as lodctr enters a V1 .ini file's names into
// the registry: Last Counter moves past them, so a manifest registered
// later never takes an index a V1 provider writes. They must not clash
// with a name already there (English Windows' names, the built-in
// objects, lodctr's registrations, other V1 providers). opts.Publishers
// is not used.
func RegisterV1(path string, r V1Registration, opts RegisterOptions) error {
	if err := r.Validate(); err != nil {
		return err
	}
	d, err := open(path, true)
	if err != nil {
		return err
	}
	defer d.close()
	if err := CheckExecutable(r.Exec, d.euid); err != nil {
		return err
	}
	rec, err := readV1(d)
	if err != nil {
		return err
	}
	if err := rec.writable(); err != nil {
		return err
	}
	k, rest, err := v1Place(rec, r.Name)
	if err != nil {
		return err
	}
	if err := v1ObjectClash(rest, r); err != nil {
		return err
	}
	db, err := d.currentTitles(opts.Builtin)
	if err != nil {
		return err
	}
	// The earlier registration's names go first, so that a replacement may
	// rename its own indexes (and change their help texts).
	if k >= 0 {
		if err := db.Remove(presentIndexes(db, v1OwnIndexes(rec.entries[k].reg, rest))); err != nil {
			return fmt.Errorf("V1 provider %q: removing its earlier names: %w", r.Name, err)
		}
	}
	for _, n := range r.Names {
		// An index named by anything but another V1 provider under the same
		// name is refused, even when the names agree: Names lists the names
		// a provider brings, and they leave with it (UnregisterV1), which
		// must never take a standard name away. A provider writes standard
		// indexes into its output without listing them.
		if old := db.Name(n.Index); old != "" && (!strings.EqualFold(old, n.Name) || len(v1OwnIndexes(V1Registration{Names: []V1Name{n}}, rest)) > 0) {
			return fmt.Errorf("V1 provider %q: index %d already names %q (list only the names the provider introduces)", r.Name, n.Index, old)
		}
		if err := db.SetAt(n.Index, n.Name, n.Help); err != nil {
			return fmt.Errorf("V1 provider %q: %w", r.Name, err)
		}
	}
	// Titles first, then the record (the commit point), as Register does:
	// a crash between them leaves at worst unused names.
	if err := d.writeTitles(db); err != nil {
		return err
	}
	if k >= 0 {
		rec.entries[k] = entry[V1Registration]{reg: r}
	} else {
		rec.entries = append(rec.entries, entry[V1Registration]{reg: r})
	}
	return d.writeV1(rec)
}

// V1Offset is one name of a V1 provider registered from an .ini file
// (perfini.Name): its offset from First Counter and its text.
type V1Offset struct {
	Offset    uint32
	Symbol    string // its macro in the symbol file
	Object    bool   // an object (listed in the .ini's [objects]); else a counter
	Name      string // in the registration's Language
	Help      string
	Localized map[string]V1Text // every language's name and help, by language id
}

// RegisterV1Offsets registers r as Windows' lodctr registers a V1 .ini
// file: the names (offsets 0, 2, 4 ... in that order) get consecutive
// title indexes in one block after Last Counter (titles.DB.Add, the
// allocation manifests get), so that index = First Counter + offset and
// help index = First Help + offset. r's FirstCounter, FirstHelp,
// LastCounter and LastHelp are set to the block, its Names to the names
// at their indexes (with Symbol and Localized), and its Objects to the
// indexes of the names marked Object; r must come without them. The
// executable must pass CheckExecutable.
//
// An earlier registration of the same name is replaced: its names are
// removed first, so registering the same file again gives the same
// indexes when nothing was registered after it. A provider whose name
// differs only in case from another V1 provider's is refused, and so is
// an object named as a built-in object (opts.Reserved), a registered
// V2 counter set or another V1 provider's object (names compared without
// case): it would shadow it, or be shadowed. It returns the registration
// as stored.
func RegisterV1Offsets(path string, r V1Registration, names []V1Offset, opts RegisterOptions) (V1Registration, error) {
	fail := func(err error) (V1Registration, error) { return V1Registration{}, err }
	if len(r.Names) > 0 || len(r.Objects) > 0 || r.FirstCounter|r.FirstHelp|r.LastCounter|r.LastHelp != 0 {
		return fail(fmt.Errorf("V1 provider %q: names, objects and First/Last Counter come from the offsets", r.Name))
	}
	if len(names) == 0 {
		return fail(fmt.Errorf("V1 provider %q: no names", r.Name))
	}
	for i, n := range names {
		if n.Offset != uint32(2*i) {
			return fail(fmt.Errorf("V1 provider %q: name %q has the offset %d, want %d: offsets are 0, 2, 4 ... in order", r.Name, n.Name, n.Offset, 2*i))
		}
	}
	if err := r.Validate(); err != nil {
		return fail(err)
	}
	d, err := open(path, true)
	if err != nil {
		return fail(err)
	}
	defer d.close()
	if err := CheckExecutable(r.Exec, d.euid); err != nil {
		return fail(err)
	}
	rec, err := readV1(d)
	if err != nil {
		return fail(err)
	}
	if err := rec.writable(); err != nil {
		return fail(err)
	}
	k, rest, err := v1Place(rec, r.Name)
	if err != nil {
		return fail(err)
	}
	v2, err := readV2(d)
	if err != nil {
		return fail(err)
	}
	if err := v1ObjectNames(r.Name, names, opts.Reserved, v2.valid(), rest); err != nil {
		return fail(err)
	}
	db, err := d.currentTitles(opts.Builtin)
	if err != nil {
		return fail(err)
	}
	langs := newLangEdit(d)
	if k >= 0 {
		own := v1OwnIndexes(rec.entries[k].reg, rest)
		if err := db.Remove(presentIndexes(db, own)); err != nil {
			return fail(fmt.Errorf("V1 provider %q: removing its earlier names: %w", r.Name, err))
		}
		if err := langs.remove(own); err != nil {
			return fail(fmt.Errorf("V1 provider %q: removing its earlier names: %w", r.Name, err))
		}
	}
	nh := make([]titles.NameHelp, len(names))
	for i, n := range names {
		nh[i] = titles.NameHelp{Name: n.Name, Help: n.Help}
	}
	first, err := db.Add(nh)
	if err != nil {
		return fail(fmt.Errorf("V1 provider %q: %w", r.Name, err))
	}
	r.FirstCounter, r.FirstHelp = first, first+1
	r.LastCounter = first + names[len(names)-1].Offset
	r.LastHelp = r.LastCounter + 1
	for _, n := range names {
		i := first + n.Offset
		r.Names = append(r.Names, V1Name{Index: i, Name: n.Name, Help: n.Help, Symbol: n.Symbol, Localized: n.Localized})
		if n.Object {
			r.Objects = append(r.Objects, i)
		}
	}
	if err := r.Validate(); err != nil {
		return fail(err)
	}
	if err := v1ObjectClash(rest, r); err != nil {
		return fail(err)
	}
	if err := langs.localizeV1(r.Names); err != nil {
		return fail(fmt.Errorf("V1 provider %q: %w", r.Name, err))
	}
	// Titles first, then the record (the commit point), as RegisterV1.
	if err := d.writeTitles(db); err != nil {
		return fail(err)
	}
	if err := langs.write(); err != nil {
		return fail(err)
	}
	if k >= 0 {
		rec.entries[k] = entry[V1Registration]{reg: r}
	} else {
		rec.entries = append(rec.entries, entry[V1Registration]{reg: r})
	}
	if err := d.writeV1(rec); err != nil {
		return fail(err)
	}
	return r, nil
}

// v1ObjectNames refuses an object of an .ini registration named as a
// built-in object, a V2 counter set or another V1 provider's object.
func v1ObjectNames(provider string, names []V1Offset, reserved []string, v2 []Registration, v1 []V1Registration) error {
	for _, n := range names {
		if !n.Object {
			continue
		}
		if i := slices.IndexFunc(reserved, func(s string) bool { return strings.EqualFold(s, n.Name) }); i >= 0 {
			return fmt.Errorf("V1 provider %q: object %q: %q is the name of a built-in object of this computer; choose another name", provider, n.Name, reserved[i])
		}
		for _, r := range v2 {
			for _, s := range r.Sets {
				if strings.EqualFold(s.Name, n.Name) {
					return fmt.Errorf("V1 provider %q: object %q: the counter set %q of provider %s (%s) from %s has that name: object names must be unique", provider, n.Name, s.Name, r.GUID, r.Name, r.Source)
				}
			}
		}
		for _, r := range v1 {
			for _, m := range r.Names {
				if slices.Contains(r.Objects, m.Index) && strings.EqualFold(m.Name, n.Name) {
					return fmt.Errorf("V1 provider %q: object %q: the V1 provider %q has an object of that name (index %d): object names must be unique", provider, n.Name, r.Name, m.Index)
				}
			}
		}
	}
	return nil
}

// v1Place finds where a registration of name goes: k is the entry of its
// earlier registration (-1 if none), rest the other valid registrations.
// A name differing only in case from another provider's is refused, and
// so is replacing a damaged entry of that name.
func v1Place(rec record[V1Registration], name string) (k int, rest []V1Registration, err error) {
	k = -1
	for i, e := range rec.entries {
		switch {
		case e.raw == nil && e.reg.Name == name:
			k = i
			continue
		case e.raw != nil:
			if strings.EqualFold(e.key, name) {
				return 0, nil, fmt.Errorf("V1 provider %q: %w", name, e.err)
			}
			continue
		case strings.EqualFold(e.reg.Name, name):
			return 0, nil, fmt.Errorf("V1 provider %q: a V1 provider %q is registered; names differ in more than case", name, e.reg.Name)
		}
		rest = append(rest, e.reg)
	}
	return k, rest, nil
}

// v1ObjectClash refuses r when it serves an object another V1 provider
// serves.
func v1ObjectClash(rest []V1Registration, r V1Registration) error {
	for _, e := range rest {
		for _, o := range r.Objects {
			if slices.Contains(e.Objects, o) {
				return fmt.Errorf("V1 provider %q: object %d is served by the V1 provider %q", r.Name, o, e.Name)
			}
		}
	}
	return nil
}

func (d *dir) writeV1(rec record[V1Registration]) error {
	b, err := marshalRecord(rec.entries)
	if err != nil {
		return err
	}
	return d.write(v1File, b)
}

// v1OwnIndexes returns the name indexes of r that no registration of
// others names: those its removal takes out of the title database.
func v1OwnIndexes(r V1Registration, others []V1Registration) []uint32 {
	var out []uint32
	for _, n := range r.Names {
		shared := slices.ContainsFunc(others, func(o V1Registration) bool {
			return slices.ContainsFunc(o.Names, func(m V1Name) bool { return m.Index == n.Index })
		})
		if !shared && !slices.Contains(out, n.Index) {
			out = append(out, n.Index)
		}
	}
	return out
}

// UnregisterV1 removes the V1 provider registered under name (exactly, or
// else case-insensitively when only one matches so), and the names it
// entered that no other V1 provider uses. A name matching several
// providers is refused with their list.
func UnregisterV1(path, name string) error {
	d, err := open(path, true)
	if err != nil {
		return err
	}
	defer d.close()
	rec, err := readV1(d)
	if err != nil {
		return err
	}
	if err := rec.writable(); err != nil {
		return err
	}
	k := slices.IndexFunc(rec.entries, func(e entry[V1Registration]) bool {
		return e.raw == nil && e.reg.Name == name || e.raw != nil && e.key == name
	})
	if k < 0 {
		var match []int
		for i, e := range rec.entries {
			if e.raw == nil && strings.EqualFold(e.reg.Name, name) {
				match = append(match, i)
			}
		}
		switch len(match) {
		case 0:
			return &ProviderNotFoundError{fmt.Sprintf("no V1 provider %q is registered in %s", name, path)}
		case 1:
			k = match[0]
		default:
			var b strings.Builder
			for _, i := range match {
				fmt.Fprintf(&b, "\n  %s (%s)", rec.entries[i].reg.Name, rec.entries[i].reg.Exec)
			}
			return fmt.Errorf("%d V1 providers are registered as %q; name one exactly:%s", len(match), name, b.String())
		}
	}
	old := rec.entries[k]
	rec.entries = slices.Delete(rec.entries, k, k+1)
	// The record first: once it no longer names the provider, its titles
	// are only unused names (Unregister's order).
	if err := d.writeV1(rec); err != nil {
		return err
	}
	if old.raw != nil {
		return nil // a damaged entry: its names cannot be known
	}
	db, err := d.readTitles()
	if err != nil || db == nil {
		return err // no titles file: nothing was persisted
	}
	own := v1OwnIndexes(old.reg, rec.valid())
	if err := db.Remove(presentIndexes(db, own)); err != nil {
		return fmt.Errorf("unregister V1 provider %q: %w", name, err)
	}
	langs := newLangEdit(d)
	if err := langs.remove(own); err != nil {
		return fmt.Errorf("unregister V1 provider %q: %w", name, err)
	}
	if err := d.writeTitles(db); err != nil {
		return err
	}
	return langs.write()
}

// ReadV1 returns the V1 providers registered in the state directory path
// (none when it or its v1.json does not exist), and the problems of
// damaged entries, which are left out.
func ReadV1(path string) ([]V1Registration, []error, error) {
	d, err := open(path, false)
	if err != nil {
		return nil, nil, err
	}
	defer d.close()
	rec, err := readV1(d)
	if err != nil {
		return nil, nil, err
	}
	return rec.valid(), rec.problems(), nil
}

// TitleEntries returns the names the registration states as title
// database entries, as the engine takes them.
func (r *V1Registration) TitleEntries() []titles.Entry {
	out := make([]titles.Entry, len(r.Names))
	for i, n := range r.Names {
		out[i] = titles.Entry{Index: n.Index, Name: n.Name, Help: n.Help}
	}
	return out
}
