package titles

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
)

// The names Windows gives its own objects and counters in other languages
// than English, for the objects and counters perfc builds in, are kept in
// localized/LLL.tsv: "English name<TAB>name in language LLL<TAB>source",
// one a line, '#' lines are comments. Each source is described in
// LANGUAGES.md ("Sources of localized names"); a name no source gives is
// absent, and stays English.

//go:embed localized/*.tsv
var localizedFS embed.FS

// localizedTable is one language's names: by English name (folded) and
// back, by the name in the language (folded) to the English name.
type localizedTable struct {
	byEnglish map[string]string
	toEnglish map[string]string
}

// localized parses every table once; the tables are part of the source
// and the tests parse them, so an error is a build mistake.
var localized = sync.OnceValue(func() map[Lang]*localizedTable {
	tables, err := parseLocalized(localizedFS)
	if err != nil {
		panic("titles: " + err.Error())
	}
	return tables
})

func parseLocalized(fsys fs.FS) (map[Lang]*localizedTable, error) {
	files, err := fs.Glob(fsys, "localized/*.tsv")
	if err != nil {
		return nil, err
	}
	out := map[Lang]*localizedTable{}
	for _, f := range files {
		id := strings.TrimSuffix(strings.TrimPrefix(f, "localized/"), ".tsv")
		l, err := ParseLang(id)
		if err != nil || l.String() != id || l == LangEnglish {
			return nil, fmt.Errorf("%s: the file name is not a language id other than English (009)", f)
		}
		b, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		t := &localizedTable{byEnglish: map[string]string{}, toEnglish: map[string]string{}}
		for n, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSuffix(line, "\r")
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			cells := strings.Split(line, "\t")
			if len(cells) != 3 || cells[0] == "" || cells[1] == "" || cells[2] == "" {
				return nil, fmt.Errorf("%s:%d: want English name, name and source, TAB-separated", f, n+1)
			}
			en, name := cells[0], cells[1]
			if err := checkText(name); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", f, n+1, err)
			}
			k := strings.ToLower(en)
			if _, dup := t.byEnglish[k]; dup {
				return nil, fmt.Errorf("%s:%d: %q is named twice", f, n+1, en)
			}
			t.byEnglish[k] = name
			if prev, ok := t.toEnglish[strings.ToLower(name)]; ok && !strings.EqualFold(prev, en) {
				// Two English names share the name in this language:
				// it maps back to neither.
				t.toEnglish[strings.ToLower(name)] = ""
				continue
			}
			t.toEnglish[strings.ToLower(name)] = en
		}
		out[l] = t
	}
	return out, nil
}

// LocalizedLangs are the languages with recorded Windows names, in
// increasing order.
func LocalizedLangs() []Lang {
	var out []Lang
	for l := range localized() {
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

// LocalizedName is the name Windows gives the object or counter named
// english (compared case-insensitively) in language l, when a source
// records it.
func LocalizedName(l Lang, english string) (string, bool) {
	t := localized()[l]
	if t == nil {
		return "", false
	}
	n, ok := t.byEnglish[strings.ToLower(english)]
	return n, ok
}

// EnglishOf is the English name of the object or counter Windows names
// name in language l (compared case-insensitively), when a source records
// it and no other English name shares it.
func EnglishOf(l Lang, name string) (string, bool) {
	t := localized()[l]
	if t == nil {
		return "", false
	}
	en := t.toEnglish[strings.ToLower(name)]
	return en, en != ""
}

// Localize returns the names of language l for the indexes of en whose
// name Windows gives a recorded name in l (LocalizedName), at en's
// indexes; nil when no names of l are recorded. keep, when not nil,
// chooses the indexes taken (the built-in objects' names, say). en is
// not changed.
func Localize(en *DB, l Lang, keep func(index uint32, name string) bool) *DB {
	t := localized()[l]
	if t == nil {
		return nil
	}
	out := New()
	for _, e := range en.Entries() {
		if e.Name == "" || (keep != nil && !keep(e.Index, e.Name)) {
			continue
		}
		if n, ok := t.byEnglish[strings.ToLower(e.Name)]; ok {
			out.mu.Lock()
			out.setName(e.Index, n)
			out.mu.Unlock()
		}
	}
	return out
}
