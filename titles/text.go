package titles

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"maps"
	"strings"
	"sync"

	"github.com/perfcounters/perfcounters/utf16le"
)

//go:embed english.tsv
var englishTSV string

// English returns a new database holding the English Windows title table
// (english.tsv: 1,838 names of a real Windows Vista "Counter 009" list,
// indexes 2 to 4658, no help texts), with BaseIndex 1847. Each call returns
// a fresh, independent copy.
func English() *DB {
	e := english()
	return &DB{names: maps.Clone(e.names), helps: maps.Clone(e.helps), byName: maps.Clone(e.byName), base: e.base, lastCounter: e.lastCounter}
}

// EnglishIndex is English().Index(name) without the copy: the index of
// name (case-insensitive, lowest) in the built-in English table.
func EnglishIndex(name string) (uint32, bool) { return english().Index(name) }

// EnglishLastCounter is English().LastCounter().
func EnglishLastCounter() uint32 { return english().lastCounter }

// english is the built-in table, parsed and indexed once and never
// changed: the functions above copy it or only read it.
var english = sync.OnceValue(func() *DB {
	db, err := parseTSV(englishTSV)
	if err != nil {
		// english.tsv is part of the source; the tests parse it.
		panic("titles: embedded english.tsv: " + err.Error())
	}
	db.buildIndex()
	return db
})

// maxLine bounds one line of a text title file.
const maxLine = 1 << 20

// ParseTSV reads a title list in the text form "index<TAB>name", one pair
// a line (the rest of the line after the first TAB is the name). Empty
// lines and lines starting with '#' are skipped; a UTF-8 byte-order mark
// and CR line ends are allowed. The pair with index 1 is the header pair
// (BaseIndex). Errors name the line.
func ParseTSV(r io.Reader) (*DB, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("titles: TSV: %w", err)
	}
	return parseTSV(string(b))
}

// parseTSV is ParseTSV over text in memory; the names are substrings of
// it.
func parseTSV(text string) (*DB, error) {
	pairs := make([]pair, 0, strings.Count(text, "\n")+1)
	line := 0
	for len(text) > 0 {
		line++
		s := text
		if nl := strings.IndexByte(text, '\n'); nl >= 0 {
			s, text = text[:nl], text[nl+1:]
		} else {
			text = ""
		}
		if len(s) > maxLine {
			return nil, fmt.Errorf("titles: TSV line %d: longer than %d bytes", line, maxLine)
		}
		s = strings.TrimSuffix(s, "\r")
		if line == 1 {
			s = strings.TrimPrefix(s, "\uFEFF")
		}
		if s == "" || s[0] == '#' {
			continue
		}
		tab := strings.IndexByte(s, '\t')
		if tab < 0 {
			return nil, fmt.Errorf("titles: TSV line %d: no TAB between index and name", line)
		}
		i, err := parseIndex(s[:tab])
		if err != nil {
			return nil, fmt.Errorf("titles: TSV line %d: %v", line, err)
		}
		if err := checkText(s[tab+1:]); err != nil {
			return nil, fmt.Errorf("titles: TSV line %d: name %v", line, err)
		}
		pairs = append(pairs, pair{index: i, text: s[tab+1:], at: where{n: line, line: true}})
	}
	return buildNames("TSV", pairs)
}

// Load reads a title file of any supported kind, recognised by its first
// bytes:
//
//   - a "Counter" REG_MULTI_SZ value (UTF-16LE, as saved from the
//     registry or by CounterMultiSZ), with or without a byte-order mark;
//   - a TSV list (ParseTSV) in UTF-8, or in UTF-16LE with a byte-order mark
//     or starting with an ASCII character (as Windows tools save text);
//   - a state file written by WriteTo.
func Load(b []byte) (*DB, error) {
	if len(b) == 0 {
		return nil, errors.New("titles: load: empty file")
	}
	utf16 := false
	if len(b) >= 2 && b[0] == 0xFF && b[1] == 0xFE {
		b, utf16 = b[2:], true
	} else if len(b) >= 2 && b[0] != 0 && b[0] < 0x80 && b[1] == 0 {
		utf16 = true
	}
	if utf16 {
		if utf16le.IndexNUL(b) >= 0 {
			return ParseMultiSZ(b)
		}
		s, err := utf16le.Decode(b)
		if err != nil {
			return nil, fmt.Errorf("titles: load: UTF-16 text: %w", err)
		}
		b = []byte(s)
	}
	if bytes.HasPrefix(b, []byte(stateMagic)) {
		return Read(bytes.NewReader(b))
	}
	return ParseTSV(bytes.NewReader(b))
}
