package host

// The state directory (registrations, titles, manifest copies) is owned
// by the state package; the host reads it there (New) and keeps these
// names for the code that serves registered counter sets.

import (
	"os"
	"strings"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/engine"
	"github.com/perfcounters/perfcounters/procscan"
	statedir "github.com/perfcounters/perfcounters/state"
	"github.com/perfcounters/perfcounters/system"
	"github.com/perfcounters/perfcounters/titles"
)

// Registration is a V2 provider's registration (state.Registration).
type Registration = statedir.Registration

// SetRegistration is a registered counter set (state.SetRegistration).
type SetRegistration = statedir.SetRegistration

// BuiltinTitles enters the names of the built-in objects into db exactly
// as New's engine enters them (English Windows' index when the name has
// one, a new index after Last Counter otherwise), without reading /proc:
// what a registration (state.RegisterOptions.Builtin) and a command that
// only needs names (state.Titles) pass to the state package.
func BuiltinTitles(db *titles.DB) error {
	e := engine.New(engine.Options{Titles: db})
	for _, set := range builtinObjects() {
		if err := e.Add(engine.Object{Set: set, Collect: func(*engine.Collection, engine.Writer) error { return nil }}); err != nil {
			return err
		}
	}
	return nil
}

// BuiltinLangTitles returns the names of the built-in objects and their
// counters in language l, at the indexes BuiltinTitles gives them in en
// (nil: English Windows' list): the names Windows gives them in l where a
// source records one (titles.LocalizedName), none for the objects and
// counters Windows does not have, which stay English. nil when l has no
// recorded names. What "Counter LLL" lists of the built-in objects, and
// what the tools read paths in.
func BuiltinLangTitles(en *titles.DB, l titles.Lang) (*titles.DB, error) {
	dbs, err := builtinLanguages(en, nil, builtinObjects())
	if err != nil {
		return nil, err
	}
	return dbs[l], nil
}

// builtinLanguages returns langs (the registered names of each language
// over Windows' names: state.State.Languages) with the names of the
// built-in objects sets and their counters in each language that has
// recorded names, at the indexes the engine gives them in en (nil:
// English Windows' list) — Windows' index for Windows' names, a new one
// for the others (Processor Information, whose name Windows' older list
// lacks). langs is not changed.
func builtinLanguages(en *titles.DB, langs map[titles.Lang]*titles.DB, sets []*counterset.Set) (map[titles.Lang]*titles.DB, error) {
	if en == nil {
		en = titles.English()
	}
	en = titles.Over(en, titles.New()) // a copy: the engine enters the names itself
	e := engine.New(engine.Options{Titles: en})
	for _, set := range sets {
		if err := e.Add(engine.Object{Set: set, Collect: func(*engine.Collection, engine.Writer) error { return nil }}); err != nil {
			return nil, err
		}
	}
	builtin := map[uint32]bool{}
	for _, set := range sets {
		if i, ok := en.Index(set.Name); ok {
			builtin[i] = true
		}
		for _, c := range set.Counters {
			if i, ok := en.Index(c.Name); ok {
				builtin[i] = true
			}
		}
	}
	out := make(map[titles.Lang]*titles.DB, len(langs))
	for l, db := range langs {
		out[l] = db
	}
	for _, l := range titles.LocalizedLangs() {
		loc := titles.Localize(en, l, func(i uint32, _ string) bool { return builtin[i] })
		if reg := out[l]; reg != nil {
			// Registered names, and Windows' names of Windows' indexes
			// already there, come first.
			loc = titles.Over(loc, reg)
		}
		out[l] = loc
	}
	return out, nil
}

// Cumulative reports whether counter of the built-in object named
// object (English names, compared case-insensitively) is a raw count that
// only grows (counterset.Counter.Cumulative): export/prom's
// Options.Cumulative.
func Cumulative() func(object, counter string) bool {
	set := map[[2]string]bool{}
	for _, o := range builtinObjects() {
		for _, c := range o.Counters {
			if c.Cumulative {
				set[[2]string{strings.ToLower(o.Name), strings.ToLower(c.Name)}] = true
			}
		}
	}
	return func(object, counter string) bool {
		return set[[2]string{strings.ToLower(object), strings.ToLower(counter)}]
	}
}

// BuiltinObjects are the names of the host's built-in objects, which no
// registered counter set may take (state.RegisterOptions.Reserved).
func BuiltinObjects() []string {
	var names []string
	for _, o := range builtinObjects() {
		names = append(names, o.Name)
	}
	return names
}

// builtinObjects are the declarations of the host's built-in objects
// (nothing is read).
func builtinObjects() []*counterset.Set {
	c := system.NewCollector(nil, nil)
	procs := system.NewProcessObjects(procscan.FS(os.DirFS("/proc"))) // names only: nothing is read
	defer procs.Close()
	var sets []*counterset.Set
	for _, o := range append(append(c.Objects(), procs.Process(), procs.ProcessV2(), procs.Thread()), c.LinuxObjects()...) {
		sets = append(sets, o.Set)
	}
	return sets
}
