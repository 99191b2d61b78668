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
// it serves (Object List), ExtCounterTestLevel, and the names of the title
// indexes its objects use.
//
// A V1 provider writes title indexes into its own output, so it states them
// here rather than being given them: Names lists the indexes it brings,
// each with its name and help, and RegisterV1 persists them in the state's
// title database (Last Counter moves past them, as lodctr does for a V1
// .ini file). An index already holding a name is refused, unless another
// V1 provider brought it under the same name (two providers sharing a
// counter name), so a V1 provider never renames or removes a standard or
// lodctr-registered name; standard indexes are written into its output
// without being listed.
type V1Registration struct {
	Name      string   `json:"name"`                // unique key, e.g. the service name
	Exec      string   `json:"exec"`                // absolute path of the executable
	Args      []string `json:"args,omitempty"`      // its arguments
	Objects   []uint32 `json:"objects,omitempty"`   // object title indexes it serves
	Names     []V1Name `json:"names,omitempty"`     // names and help of the indexes it uses
	TestLevel int      `json:"testLevel,omitempty"` // ExtCounterTestLevel 1..4; 0 = 1
	TimeoutMS int      `json:"timeoutMs,omitempty"` // collect timeout; 0 = the engine's default
}

// V1Name is one title index of a V1 provider: an even name index, its name
// and the help text stored at index+1.
type V1Name struct {
	Index uint32 `json:"index"`
	Name  string `json:"name"`
	Help  string `json:"help,omitempty"`
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
	}
	return nil
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
	same := func(e entry[V1Registration]) bool { return e.raw == nil && e.reg.Name == r.Name }
	var rest []V1Registration
	var k = -1
	for i, e := range rec.entries {
		switch {
		case same(e):
			k = i
			continue
		case e.raw != nil:
			if strings.EqualFold(e.key, r.Name) {
				return fmt.Errorf("V1 provider %q: %w", r.Name, e.err)
			}
			continue
		case strings.EqualFold(e.reg.Name, r.Name):
			return fmt.Errorf("V1 provider %q: a V1 provider %q is registered; names differ in more than case", r.Name, e.reg.Name)
		}
		for _, o := range r.Objects {
			if slices.Contains(e.reg.Objects, o) {
				return fmt.Errorf("V1 provider %q: object %d is served by the V1 provider %q", r.Name, o, e.reg.Name)
			}
		}
		rest = append(rest, e.reg)
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
			return fmt.Errorf("no V1 provider %q is registered in %s", name, path)
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
	if err := db.Remove(presentIndexes(db, v1OwnIndexes(old.reg, rec.valid()))); err != nil {
		return fmt.Errorf("unregister V1 provider %q: %w", name, err)
	}
	return d.writeTitles(db)
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
