package state

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/perfcounters/perfcounters/manifest"
	"github.com/perfcounters/perfcounters/titles"
)

// The title databases of other languages than English sit beside the
// titles file as titles-LLL (titles-007), in the same format, holding
// only the names registered in that language: a manifest's localized
// string tables, a V1 provider's ini text. They share the English
// database's indexes, as Perflib's language subkeys do.
const langFilePrefix = titlesFile + "-"

func langFile(l titles.Lang) string { return langFilePrefix + l.String() }

// readLang reads the title database of language l; nil when there is none.
func (d *dir) readLang(l titles.Lang) (*titles.DB, error) {
	if d == nil {
		return nil, nil
	}
	b, err := d.read(langFile(l), "title database")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	db, err := titles.Read(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("title database %s: %w", d.join(langFile(l)), err)
	}
	return db, nil
}

// langs lists the languages that have a title database file.
func (d *dir) langs() []titles.Lang {
	if d == nil {
		return nil
	}
	var out []titles.Lang
	for _, n := range names(d.fd) {
		s, ok := strings.CutPrefix(n, langFilePrefix)
		if !ok || len(s) != 3 {
			continue
		}
		if l, err := titles.ParseLang(s); err == nil && l.String() == strings.ToUpper(s) && l != titles.LangEnglish {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// langEdit is the pending change of the language databases of one
// registration or removal: loaded once, written once.
type langEdit struct {
	d   *dir
	dbs map[titles.Lang]*titles.DB
}

func newLangEdit(d *dir) *langEdit { return &langEdit{d: d, dbs: map[titles.Lang]*titles.DB{}} }

// db returns language l's database, loading or creating it.
func (e *langEdit) db(l titles.Lang) (*titles.DB, error) {
	if db := e.dbs[l]; db != nil {
		return db, nil
	}
	db, err := e.d.readLang(l)
	if err != nil {
		return nil, err
	}
	if db == nil {
		db = titles.New()
	}
	e.dbs[l] = db
	return db, nil
}

// remove takes indexes out of every language's database.
func (e *langEdit) remove(idx []uint32) error {
	for _, l := range e.d.langs() {
		db, err := e.db(l)
		if err != nil {
			return err
		}
		if err := db.Remove(presentIndexes(db, idx)); err != nil {
			return fmt.Errorf("title database %s: %w", langFile(l), err)
		}
	}
	return nil
}

// localize enters the names a manifest's string tables give reg's sets
// and counters, in each culture's language. English cultures, cultures of
// no known language and names written literally are left out (the English
// database has them); a string missing from a culture's table leaves that
// index unnamed in the language.
func (e *langEdit) localize(p *manifest.Provider, reg *Registration, cultures map[string]map[string]string) error {
	for culture, table := range cultures {
		l, err := titles.ParseLang(culture)
		if err != nil || l == titles.LangEnglish {
			continue
		}
		var db *titles.DB
		set := func(idx uint32, nameID, helpID string) error {
			name, help := table[nameID], table[helpID]
			if nameID == "" || strings.TrimSpace(name) == "" {
				return nil
			}
			if db == nil {
				if db, err = e.db(l); err != nil {
					return err
				}
			}
			return db.SetAt(idx, name, help)
		}
		for i := range p.CounterSets {
			if i >= len(reg.Sets) || i >= len(p.Sets) {
				break
			}
			sr, info := &reg.Sets[i], &p.Sets[i]
			if err := set(sr.NameIndex, info.NameID, info.HelpID); err != nil {
				return err
			}
			s := p.CounterSets[i]
			for j := range s.Counters {
				if sharesIndex(s, j) || j >= len(sr.Counters) || j >= len(info.Counters) {
					continue
				}
				if err := set(sr.Counters[j].NameIndex, info.Counters[j].NameID, info.Counters[j].HelpID); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// localizeV1 enters the names of a V1 .ini registration in the
// databases of their languages (every language but English, whose names
// are the English database's).
func (e *langEdit) localizeV1(names []V1Name) error {
	for _, n := range names {
		for id, t := range n.Localized {
			l, err := titles.ParseLang(id)
			if err != nil || l == titles.LangEnglish || strings.TrimSpace(t.Name) == "" {
				continue
			}
			db, err := e.db(l)
			if err != nil {
				return err
			}
			if err := db.SetAt(n.Index, t.Name, t.Help); err != nil {
				return fmt.Errorf("title database %s: %w", langFile(l), err)
			}
		}
	}
	return nil
}

// write writes every database the edit touched.
func (e *langEdit) write() error {
	for l, db := range e.dbs {
		var b bytes.Buffer
		if _, err := db.WriteTo(&b); err != nil {
			return err
		}
		if err := e.d.write(langFile(l), b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// LangTitles returns the title database of language l in the state
// directory path: the names registered in that language over Windows'
// own names in it (WindowsNames); nil, and no error, when there are
// neither. English (titles.LangEnglish) is Titles.
func LangTitles(path string, l titles.Lang) (*titles.DB, error) {
	if path == "" {
		return WindowsNames(l, nil), nil
	}
	d, err := open(path, false)
	if err != nil {
		return nil, err
	}
	defer d.close()
	db, err := d.readLang(l)
	if err != nil {
		return nil, err
	}
	return WindowsNames(l, db), nil
}

// WindowsNames returns registered (the names registered in language l;
// nil for none) over the names Windows gives its own objects and counters
// in l at English Windows' indexes, as far as they are recorded
// (titles.Localize over titles.English): what a Windows of that language
// lists for them, so that a path copied from its perfmon
// (\Prozessor(_Total)\Prozessorzeit (%)) names the same counter here.
// The recorded names are those of the objects perfc builds in (host);
// registered returned as it is when l has none.
func WindowsNames(l titles.Lang, registered *titles.DB) *titles.DB {
	if l == titles.LangEnglish {
		return registered
	}
	en := titles.English()
	// Only the index an English name has (its lowest): another index of
	// the same English name may have another name in l.
	win := titles.Localize(en, l, func(i uint32, name string) bool {
		j, _ := en.Index(name)
		return j == i
	})
	switch {
	case win == nil:
		return registered
	case registered == nil:
		return win
	}
	return titles.Over(win, registered)
}
