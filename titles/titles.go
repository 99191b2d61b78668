// Package titles owns the title database: the names and help texts of
// performance objects and counters, keyed by title index. Names sit at even
// indexes and each help text at its name's index + 1, as on Windows.
//
// The database answers the registry's "Counter" and "Help" queries as
// REG_MULTI_SZ lists (CounterMultiSZ, HelpMultiSZ), keeps "Last Counter" and
// "Last Help", and registers and removes names with lodctr/unlodctr
// semantics (Register, Add, Remove). English returns the built-in English
// table, taken from a real Windows "Counter 009" list, so that built-in
// objects keep the indexes Windows users know (2 System, 4 Memory,
// 238 Processor, ...). Load reads a title list in any of the formats this
// package writes or Windows produces; WriteTo and Read persist a database in
// a small versioned text format for the state directory.
//
// # The header pair
//
// A Windows "Counter" list starts with the pair "1" -> "1847" before the
// first name ("2" -> "System"). In the real list kept in english.tsv the
// highest index is 4658, so the number is not Last Counter: it is Perflib's
// "Base Index" (1847 on every Windows since NT). DB keeps it as BaseIndex,
// writes it back first, and never treats it as a name.
//
// A DB is safe for concurrent use.
package titles

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// DefaultBaseIndex is the value of Windows' header pair "1" -> "1847"
// (Perflib's "Base Index"), used by New.
const DefaultBaseIndex = 1847

// NameHelp is a name and its help text, as given to Add.
type NameHelp struct {
	Name, Help string
}

// Entry is one name index with its name and help text, as returned by
// Entries. Name is empty when only a help text is stored at Index+1.
type Entry struct {
	Index      uint32
	Name, Help string
}

// DB is a title database. Create one with New, English, Load or one of the
// Parse functions.
type DB struct {
	mu    sync.RWMutex
	names map[uint32]string // even indexes
	helps map[uint32]string // odd indexes
	// byName maps the FoldHash of each name to the lowest index of a name
	// with that hash. It is built on the first lookup by name (nil until
	// then): a table read from a log or a registry list is mostly asked
	// for names by index. A lookup checks the name found; two names of one
	// hash (never seen in practice) are told apart by a scan.
	byName      map[uint64]uint32
	base        uint32 // the header pair's value; 0 = no header pair
	lastCounter uint32
}

// New returns an empty database whose Counter list starts with the header
// pair 1 -> DefaultBaseIndex.
func New() *DB {
	return newDB(DefaultBaseIndex)
}

func newDB(base uint32) *DB { return newDBSize(base, 0) }

// newDBSize is newDB with room for n names.
func newDBSize(base uint32, n int) *DB {
	return &DB{
		names: make(map[uint32]string, n),
		helps: make(map[uint32]string),
		base:  base,
	}
}

// checkText reports why s cannot be stored as a name or help text.
func checkText(s string) error {
	if strings.IndexByte(s, 0) >= 0 {
		return errors.New("contains NUL")
	}
	return nil
}

// setName stores a name; the caller holds the lock and has checked i.
func (db *DB) setName(i uint32, name string) {
	db.names[i] = name
	if db.byName != nil {
		h := FoldHash(name)
		if j, ok := db.byName[h]; !ok || i < j {
			db.byName[h] = i
		}
	}
	db.lastCounter = max(db.lastCounter, i)
}

// rebuildIndex drops byName after removals; the next lookup by name
// builds it again.
func (db *DB) rebuildIndex() { db.byName = nil }

// buildIndex builds byName if it is not built; the caller holds the write
// lock.
func (db *DB) buildIndex() {
	if db.byName != nil {
		return
	}
	db.byName = make(map[uint64]uint32, len(db.names))
	for i, name := range db.names {
		h := FoldHash(name)
		if j, ok := db.byName[h]; !ok || i < j {
			db.byName[h] = i
		}
	}
}

// lookup finds name in byName (built); the caller holds a lock.
func (db *DB) lookup(name string) (uint32, bool) {
	i, ok := db.byName[FoldHash(name)]
	if !ok {
		return 0, false
	}
	if strings.EqualFold(db.names[i], name) {
		return i, true
	}
	// Another name of the same hash: the lowest index of this one.
	var lowest uint32
	found := false
	for j, n := range db.names {
		if (!found || j < lowest) && strings.EqualFold(n, name) {
			lowest, found = j, true
		}
	}
	return lowest, found
}

// Name returns the name stored at index i, or "" if there is none.
func (db *DB) Name(i uint32) string {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return db.names[i]
}

// Help returns the help text stored at index i (a name's index + 1), or ""
// if there is none.
func (db *DB) Help(i uint32) string {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return db.helps[i]
}

// Index returns the index of name, compared case-insensitively. When the
// name occurs at several indexes the lowest wins, as with
// PdhLookupPerfIndexByName.
func (db *DB) Index(name string) (uint32, bool) {
	db.mu.RLock()
	if db.byName != nil {
		i, ok := db.lookup(name)
		db.mu.RUnlock()
		return i, ok
	}
	db.mu.RUnlock()
	db.mu.Lock()
	defer db.mu.Unlock()
	db.buildIndex()
	return db.lookup(name)
}

// BaseIndex returns the value of the header pair "1" that starts the
// Counter list, or 0 if the list has none.
func (db *DB) BaseIndex() uint32 {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return db.base
}

// LastCounter returns the highest name index in use ("Last Counter"); 0
// for an empty database.
func (db *DB) LastCounter() uint32 {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return db.lastCounter
}

// LastHelp returns "Last Help": LastCounter+1, or a higher help index if a
// help text is stored above it; 0 for an empty database.
func (db *DB) LastHelp() uint32 {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return db.lastHelp()
}

func (db *DB) lastHelp() uint32 {
	var h uint32
	if db.lastCounter > 0 {
		h = db.lastCounter + 1
	}
	for i := range db.helps {
		h = max(h, i)
	}
	return h
}

// Len returns the number of names.
func (db *DB) Len() int {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return len(db.names)
}

// Entries returns every name index that has a name or a help text, in
// ascending order.
func (db *DB) Entries() []Entry {
	db.mu.RLock()
	defer db.mu.RUnlock()
	idx := make(map[uint32]struct{}, len(db.names))
	for i := range db.names {
		idx[i] = struct{}{}
	}
	for i := range db.helps {
		idx[i-1] = struct{}{}
	}
	keys := slices.Sorted(maps.Keys(idx))
	out := make([]Entry, len(keys))
	for k, i := range keys {
		out[k] = Entry{Index: i, Name: db.names[i], Help: db.helps[i+1]}
	}
	return out
}

// Register gives a built-in object or counter its index. If name already
// has one (from the English table or an earlier registration; compared
// case-insensitively, lowest index), that index is reused and help is
// stored if the index has no help text yet. Otherwise name gets the next
// even index after Last Counter and help goes to the index after it.
func (db *DB) Register(name, help string) (uint32, error) {
	if name == "" {
		return 0, errors.New("titles: register: empty name")
	}
	if err := checkText(name); err != nil {
		return 0, fmt.Errorf("titles: register: name %q %v", name, err)
	}
	if err := checkText(help); err != nil {
		return 0, fmt.Errorf("titles: register: help text of %q %v", name, err)
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	db.buildIndex()
	if i, ok := db.lookup(name); ok {
		if help != "" && db.helps[i+1] == "" {
			db.helps[i+1] = help
		}
		return i, nil
	}
	i, err := db.next(1)
	if err != nil {
		return 0, fmt.Errorf("titles: register %q: %w", name, err)
	}
	db.setName(i, name)
	if help != "" {
		db.helps[i+1] = help
	}
	return i, nil
}

// next returns the first of n new name indexes after Last Counter.
func (db *DB) next(n int) (uint32, error) {
	first := uint64(db.lastCounter) + 2
	if db.lastCounter == 0 {
		first = 2
	}
	if first+2*uint64(n) > 1<<32-2 {
		return 0, fmt.Errorf("no room for %d names after index %d", n, db.lastCounter)
	}
	return uint32(first), nil
}

// Add registers names as lodctr does: they get consecutive even indexes
// starting at the first even index after Last Counter, in the order given,
// each help text at its name's index + 1, and Last Counter moves to the
// last of them. Names need not be unique (Index finds the lowest). Add
// returns the first index; on error nothing is added.
func (db *DB) Add(names []NameHelp) (uint32, error) {
	if len(names) == 0 {
		return 0, errors.New("titles: add: no names")
	}
	for k, nh := range names {
		if nh.Name == "" {
			return 0, fmt.Errorf("titles: add: name %d is empty", k)
		}
		if err := checkText(nh.Name); err != nil {
			return 0, fmt.Errorf("titles: add: name %d %q %v", k, nh.Name, err)
		}
		if err := checkText(nh.Help); err != nil {
			return 0, fmt.Errorf("titles: add: help text of name %d %q %v", k, nh.Name, err)
		}
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	first, err := db.next(len(names))
	if err != nil {
		return 0, fmt.Errorf("titles: add: %w", err)
	}
	for k, nh := range names {
		i := first + 2*uint32(k)
		db.setName(i, nh.Name)
		if nh.Help != "" {
			db.helps[i+1] = nh.Help
		}
	}
	return first, nil
}

// Remove deletes the names at the given (even) indexes and their help
// texts, as unlodctr does. The freed indexes are not handed out again by
// Add or Register, which always append after Last Counter; Last Counter
// shrinks only when the highest name was removed, to the highest name that
// remains. Every index must hold a name; on error nothing is removed.
func (db *DB) Remove(indexes []uint32) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	for _, i := range indexes {
		if i%2 != 0 {
			return fmt.Errorf("titles: remove: index %d is odd (names have even indexes)", i)
		}
		if _, ok := db.names[i]; !ok {
			return fmt.Errorf("titles: remove: no name at index %d", i)
		}
	}
	top := false
	for _, i := range indexes {
		delete(db.names, i)
		delete(db.helps, i+1)
		top = top || i == db.lastCounter
	}
	if top {
		db.lastCounter = 0
		for i := range db.names {
			db.lastCounter = max(db.lastCounter, i)
		}
	}
	db.rebuildIndex()
	return nil
}

// FoldHash is a hash of s that ignores case as strings.EqualFold does
// (FNV-1a over the smallest rune of each rune's case-folding orbit):
// strings EqualFold finds equal hash alike, without the
// copy that lowering them costs. Names are indexed by it, and tools key
// counter paths by it.
func FoldHash(s string) uint64 { return FoldHashAdd(foldHashStart, s) }

// foldHashStart is the FoldHash of "" (FNV-1a's offset basis).
const foldHashStart = 14695981039346656037

// FoldHashAdd continues a FoldHash: FoldHashAdd(FoldHash(a), b) ==
// FoldHash(a+b) when a ends on a whole UTF-8 sequence. A tool that hashes
// many strings of one prefix hashes the prefix once.
func FoldHashAdd(h uint64, s string) uint64 {
	const prime = 1099511628211
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			h = (h ^ uint64(c)) * prime
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		h = (h ^ uint64(m)) * prime
	}
	return h
}
