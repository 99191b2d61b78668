package titles

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/perfcounters/perfcounters/utf16le"
)

// CounterMultiSZ returns the "Counter" value as Windows returns it: a
// REG_MULTI_SZ of UTF-16LE strings, each NUL-terminated, alternating index
// (decimal) and name in ascending index order, ending with an extra NUL.
// It starts with the header pair "1" -> BaseIndex unless BaseIndex is 0.
func (db *DB) CounterMultiSZ() []byte {
	db.mu.RLock()
	defer db.mu.RUnlock()
	var b []byte
	if db.base != 0 {
		b = utf16le.AppendNUL(b, "1")
		b = utf16le.AppendNUL(b, strconv.FormatUint(uint64(db.base), 10))
	}
	return appendPairs(b, db.names)
}

// HelpMultiSZ returns the "Help" value: pairs of odd index and help text in
// ascending index order, in the same encoding as CounterMultiSZ. It has no
// header pair.
func (db *DB) HelpMultiSZ() []byte {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return appendPairs(nil, db.helps)
}

func appendPairs(b []byte, m map[uint32]string) []byte {
	for _, i := range slices.Sorted(maps.Keys(m)) {
		if m[i] == "" { // an empty string would end the list early
			continue
		}
		b = utf16le.AppendNUL(b, strconv.FormatUint(uint64(i), 10))
		b = utf16le.AppendNUL(b, m[i])
	}
	return append(b, 0, 0)
}

// pair is one index/text pair read from a list, with where it was found.
type pair struct {
	index uint32
	text  string
	at    where // for errors
}

// where is a pair's place in its list: a byte offset of a MULTI_SZ or a
// line of a text list. It is written out only for an error.
type where struct {
	n    int
	line bool
}

func (w where) String() string {
	if w.line {
		return "line " + strconv.Itoa(w.n)
	}
	return "byte offset " + strconv.Itoa(w.n)
}

// splitMultiSZ walks a REG_MULTI_SZ list of index/text pairs. A list whose
// final extra NUL is missing is accepted (registry values are often
// stored that way); a string without its NUL is not.
func splitMultiSZ(what string, b []byte) ([]pair, error) {
	if len(b)%2 != 0 {
		return nil, fmt.Errorf("titles: %s MULTI_SZ: odd length %d bytes", what, len(b))
	}
	// The texts are decoded into one buffer and sliced from one string
	// made of it: one allocation for the list, not one a text.
	type span struct {
		index      uint32
		start, end int // of the text in buf
		at         int
	}
	// A pair is some 50 bytes in a real list (an index of 4 digits, a name
	// of 20 letters, two NULs, in UTF-16).
	spans := make([]span, 0, len(b)/48+1)
	buf := make([]byte, 0, len(b)/2)
	off := 0
	for off < len(b) {
		n := utf16le.IndexNUL(b[off:])
		if n < 0 {
			return nil, fmt.Errorf("titles: %s MULTI_SZ: string at byte offset %d has no NUL terminator", what, off)
		}
		if n == 0 { // the list's terminator
			if k := utf16le.IndexNonZero(b[off+2:]); k >= 0 {
				return nil, fmt.Errorf("titles: %s MULTI_SZ: data at byte offset %d after the list terminator at byte offset %d", what, off+2+k, off)
			}
			break
		}
		idxAt := off
		idx := b[off : off+n]
		off += n + 2
		if off >= len(b) || utf16le.IndexNUL(b[off:]) == 0 {
			idxText, _ := utf16le.Decode(idx)
			return nil, fmt.Errorf("titles: %s MULTI_SZ: index %q at byte offset %d has no text", what, idxText, idxAt)
		}
		n = utf16le.IndexNUL(b[off:])
		if n < 0 {
			return nil, fmt.Errorf("titles: %s MULTI_SZ: string at byte offset %d has no NUL terminator", what, off)
		}
		i, err := parseIndex16(idx)
		if err != nil {
			return nil, fmt.Errorf("titles: %s MULTI_SZ: %v at byte offset %d", what, err, idxAt)
		}
		start := len(buf)
		buf = utf16le.AppendDecode(buf, b[off:off+n])
		spans = append(spans, span{index: i, start: start, end: len(buf), at: idxAt})
		off += n + 2
	}
	texts := string(buf)
	out := make([]pair, len(spans))
	for k, sp := range spans {
		out[k] = pair{index: sp.index, text: texts[sp.start:sp.end], at: where{n: sp.at}}
	}
	return out, nil
}

// parseIndex16 is parseIndex over UTF-16LE text.
func parseIndex16(b []byte) (uint32, error) {
	var v uint64
	for i := 0; i+1 < len(b); i += 2 {
		c := b[i]
		if b[i+1] != 0 || c < '0' || c > '9' || v > 1<<32 {
			s, _ := utf16le.Decode(b)
			return parseIndex(s) // its error, or its value for a long run of zeros
		}
		v = v*10 + uint64(c-'0')
	}
	if len(b) == 0 || v == 0 || v > 1<<32-1 {
		s, _ := utf16le.Decode(b)
		return parseIndex(s)
	}
	return uint32(v), nil
}

// parseIndex reads a decimal title index (1 to 2^32-1).
func parseIndex(s string) (uint32, error) {
	if s == "" {
		return 0, fmt.Errorf("empty index")
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("non-numeric index %q", s)
		}
	}
	v, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("index %s out of range", s)
	}
	if v == 0 {
		return 0, fmt.Errorf("index 0")
	}
	return uint32(v), nil
}

// buildNames makes a DB from the pairs of a Counter list: pair 1 is the
// header, every other index must be even and appear once, and names must
// not be empty.
func buildNames(what string, pairs []pair) (*DB, error) {
	db := newDBSize(0, len(pairs))
	header := false
	for k, p := range pairs {
		if p.index == 1 {
			if header {
				return nil, fmt.Errorf("titles: %s: duplicate index 1 at %s (first at %s)", what, p.at, firstAt(pairs[:k], 1))
			}
			header = true
			v, err := parseIndex(p.text)
			if err != nil {
				return nil, fmt.Errorf("titles: %s: header pair 1 at %s: value: %v", what, p.at, err)
			}
			db.base = v
			continue
		}
		if p.index%2 != 0 {
			return nil, fmt.Errorf("titles: %s: odd index %d at %s (names have even indexes)", what, p.index, p.at)
		}
		if p.text == "" {
			return nil, fmt.Errorf("titles: %s: index %d at %s has an empty name", what, p.index, p.at)
		}
		if _, dup := db.names[p.index]; dup {
			return nil, fmt.Errorf("titles: %s: duplicate index %d at %s (first at %s)", what, p.index, p.at, firstAt(pairs[:k], p.index))
		}
		db.setName(p.index, p.text)
	}
	return db, nil
}

// firstAt is where index first occurs in pairs (for a duplicate's message).
func firstAt(pairs []pair, index uint32) where {
	for _, p := range pairs {
		if p.index == index {
			return p.at
		}
	}
	return where{}
}

// ParseMultiSZ reads a "Counter" REG_MULTI_SZ value (as CounterMultiSZ
// writes it, or as read from a Windows registry) into a new DB. Errors name
// the byte offset of the bad string: odd length, a string without NUL, a
// non-numeric, zero, odd or duplicate index, an index without its text.
func ParseMultiSZ(b []byte) (*DB, error) {
	pairs, err := splitMultiSZ("Counter", b)
	if err != nil {
		return nil, err
	}
	return buildNames("Counter MULTI_SZ", pairs)
}

// SetHelpMultiSZ reads a "Help" REG_MULTI_SZ value and stores its texts,
// replacing texts at the same indexes. Help indexes must be odd and at
// least 3 and appear once; on error nothing is stored.
func (db *DB) SetHelpMultiSZ(b []byte) error {
	pairs, err := splitMultiSZ("Help", b)
	if err != nil {
		return err
	}
	seen := make(map[uint32]where, len(pairs))
	for _, p := range pairs {
		if first, dup := seen[p.index]; dup {
			return fmt.Errorf("titles: Help MULTI_SZ: duplicate index %d at %s (first at %s)", p.index, p.at, first)
		}
		seen[p.index] = p.at
		if p.index%2 == 0 || p.index == 1 {
			return fmt.Errorf("titles: Help MULTI_SZ: index %d at %s is not a help index (odd, from 3)", p.index, p.at)
		}
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	for _, p := range pairs {
		db.helps[p.index] = p.text
	}
	return nil
}
