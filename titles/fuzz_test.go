package titles

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// englishHead returns the first n lines of the embedded English table, a
// real title list, as a seed.
func englishHead(n int) string {
	lines := strings.SplitAfter(englishTSV, "\n")
	return strings.Join(lines[:min(n, len(lines))], "")
}

func addSeeds(f *testing.F) {
	f.Add(unhex(f, goldenCounterHex))
	f.Add(unhex(f, goldenHelpHex))
	head, err := ParseTSV(strings.NewReader(englishHead(60)))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(head.CounterMultiSZ())
	f.Add([]byte(englishHead(30)))
	var state bytes.Buffer
	if _, err := smallDB(f).WriteTo(&state); err != nil {
		f.Fatal(err)
	}
	f.Add(state.Bytes())
	f.Add([]byte{0xFF, 0xFE, '2', 0, '\t', 0, 'S', 0, '\n', 0})
	f.Add([]byte{'1', 0, 0, 0, 0, 0})
}

// FuzzParseMultiSZ: ParseMultiSZ never panics, and a list it accepts
// re-encodes to a list that parses to the same database and bytes.
func FuzzParseMultiSZ(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		db, err := ParseMultiSZ(b)
		if err != nil {
			return
		}
		enc := db.CounterMultiSZ()
		again, err := ParseMultiSZ(enc)
		if err != nil {
			t.Fatalf("re-parse of %x: %v", enc, err)
		}
		sameDB(t, again, db) // names decoded from UTF-16 are valid UTF-8
		if !bytes.Equal(again.CounterMultiSZ(), enc) {
			t.Fatal("encoding not stable")
		}
		_ = db.SetHelpMultiSZ(b) // must not panic either
	})
}

// FuzzLoad: Load never panics; whatever it accepts survives the MULTI_SZ
// and state formats.
func FuzzLoad(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		db, err := Load(b)
		if err != nil {
			return
		}
		var state bytes.Buffer
		if _, err := db.WriteTo(&state); err != nil {
			t.Fatal(err)
		}
		back, err := Read(bytes.NewReader(state.Bytes()))
		if err != nil {
			t.Fatalf("Read(WriteTo): %v\n%q", err, state.Bytes())
		}
		sameDB(t, back, db)
		fromMulti, err := ParseMultiSZ(db.CounterMultiSZ())
		if err != nil {
			t.Fatalf("ParseMultiSZ(CounterMultiSZ): %v", err)
		}
		for _, e := range db.Entries() {
			if utf8.ValidString(e.Name) && fromMulti.Name(e.Index) != e.Name {
				t.Fatalf("name %d: %q became %q", e.Index, e.Name, fromMulti.Name(e.Index))
			}
		}
	})
}
