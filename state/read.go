package state

import (
	"errors"

	"github.com/perfcounters/perfcounters/titles"
)

// State is what a state directory held when Read read it. What could not
// be read is left out and reported in Problems; each problem names the
// file and how to repair it.
type State struct {
	Path   string
	Titles *titles.DB // the title database; nil when there is none (or it is damaged)
	// Languages are the title databases of other languages, by language:
	// the names registered in each over Windows' own names in it
	// (WindowsNames), every language that has either.
	Languages map[titles.Lang]*titles.DB
	Providers []Registration   // the V2 registrations that could be read
	Sets      []RegisteredSet  // their counter sets, parsed, with their title indexes
	V1        []V1Registration // the V1 registrations that could be read
	Problems  []error          // damaged files and entries, left out
}

// Read reads the state directory path under a shared lock. A directory
// that does not exist is an empty state. A directory or file that fails
// the trust checks (owner, mode, symbolic link) is an error: nothing of
// it is used. A damaged file costs only what it describes: a damaged
// registration file its registrations (or, for one bad entry, that
// entry), a damaged manifest copy its provider, a damaged title database
// every registration (their names live in it).
func Read(path string) (*State, error) {
	st := &State{Path: path}
	defer st.addWindowsNames()
	if path == "" {
		return st, nil
	}
	d, err := open(path, false)
	if err != nil || d == nil {
		return st, err
	}
	defer d.close()
	v2, err := readV2(d)
	if err != nil {
		return nil, err
	}
	v1, err := readV1(d)
	if err != nil {
		return nil, err
	}
	db, err := d.readTitles()
	var te *TrustError
	if errors.As(err, &te) {
		return nil, err
	}
	if err != nil {
		st.Problems = append(st.Problems, err)
		return st, nil
	}
	st.Titles = db
	for _, l := range d.langs() {
		ldb, err := d.readLang(l)
		if errors.As(err, &te) {
			return nil, err
		}
		if err != nil {
			st.Problems = append(st.Problems, err)
			continue
		}
		if st.Languages == nil {
			st.Languages = map[titles.Lang]*titles.DB{}
		}
		st.Languages[l] = ldb
	}
	st.Problems = append(st.Problems, v2.problems()...)
	st.Problems = append(st.Problems, v1.problems()...)
	st.Providers, st.V1 = v2.valid(), v1.valid()
	if db == nil && len(st.Providers)+len(st.V1) > 0 {
		st.Problems = append(st.Problems, &missingTitles{path: d.join(titlesFile)})
		st.Providers, st.V1 = nil, nil
	}
	for i := range st.Providers {
		sets, problems := d.registeredSets(&st.Providers[i])
		st.Sets = append(st.Sets, sets...)
		st.Problems = append(st.Problems, problems...)
	}
	return st, nil
}

// addWindowsNames lays the registered names of each language over
// Windows' names in it (WindowsNames).
func (st *State) addWindowsNames() {
	if st == nil {
		return
	}
	for _, l := range titles.LocalizedLangs() {
		if st.Languages == nil {
			st.Languages = map[titles.Lang]*titles.DB{}
		}
		st.Languages[l] = WindowsNames(l, st.Languages[l])
	}
}

type missingTitles struct{ path string }

func (e *missingTitles) Error() string {
	return "title database " + e.path + " is missing while providers are registered: they are left out; repair: unregister them (perfc unlodctr) and register them again"
}

// Titles returns the title database of the state directory path without
// reading any registration beyond it: the titles file (which holds every
// registered name), or English Windows' names when there is none, with
// the built-in objects' names entered by builtin (nil: none). It is what
// a command that only needs names (dump, relog) reads.
func Titles(path string, builtin func(*titles.DB) error) (*titles.DB, error) {
	if path == "" {
		d := (*dir)(nil)
		return d.currentTitles(builtin)
	}
	d, err := open(path, false)
	if err != nil {
		return nil, err
	}
	defer d.close()
	return d.currentTitles(builtin)
}
