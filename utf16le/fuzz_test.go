package utf16le

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// FuzzDecodeMultiSZ: DecodeMultiSZ never panics on any bytes; a list it
// accepts encodes back to a list that decodes to the same strings; and any
// list of non-empty, NUL-free strings survives AppendMultiSZ then
// DecodeMultiSZ, each invalid UTF-8 byte becoming U+FFFD as in a Go
// []rune conversion. The committed corpus (testdata/fuzz/FuzzDecodeMultiSZ)
// holds a real title-list prefix and damaged lists.
func FuzzDecodeMultiSZ(f *testing.F) {
	f.Add([]byte{0, 0}, "2|System|4|Memory")
	f.Fuzz(func(t *testing.T, b []byte, joined string) {
		list, err := DecodeMultiSZ(b)
		if err == nil {
			enc, err := AppendMultiSZ(nil, list)
			if err != nil {
				t.Fatalf("AppendMultiSZ(DecodeMultiSZ(%x) = %q): %v", b, list, err)
			}
			again, err := DecodeMultiSZ(enc)
			if err != nil || !slices.Equal(again, list) {
				t.Fatalf("DecodeMultiSZ(AppendMultiSZ(%q)) = %q, %v", list, again, err)
			}
		}

		items := strings.Split(joined, "|")
		enc, err := AppendMultiSZ(nil, items)
		valid := !slices.ContainsFunc(items, func(s string) bool { return s == "" || strings.ContainsRune(s, 0) })
		if (err == nil) != valid {
			t.Fatalf("AppendMultiSZ(%q) error %v, want error %v", items, err, !valid)
		}
		if !valid {
			return
		}
		got, err := DecodeMultiSZ(enc)
		if err != nil {
			t.Fatalf("DecodeMultiSZ(AppendMultiSZ(%q)): %v", items, err)
		}
		want := make([]string, len(items))
		for k, s := range items {
			want[k] = string([]rune(s))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("DecodeMultiSZ(AppendMultiSZ(%q)) = %q, want %q", items, got, want)
		}
	})
}

// FuzzTextReader: NewTextReader never panics on any bytes and any code
// page named; what it returns without an error is valid UTF-8 and the
// same through reads of one byte; a decoding error names a line no
// further than the text read. The committed corpus
// (testdata/fuzz/FuzzTextReader) holds each Windows code page's text, a
// byte-order mark of each kind and damaged UTF-16.
func FuzzTextReader(f *testing.F) {
	f.Add([]byte("\"\\\\PC\\Disco f\xedsico(0 C:)\\% de tiempo de disco\"\r\n"), 0)
	f.Add([]byte{0xFF, 0xFE, 'a', 0, 0x3D, 0xD8}, 0)
	f.Add([]byte("\x83v\x83\x8d\x83Z\x83b\x83T"), 932)
	f.Fuzz(func(t *testing.T, b []byte, cp int) {
		given := CodePage(cp)
		if _, ok := lookup(given); !ok {
			given = Auto
		}
		tr := NewTextReader(bytes.NewReader(b), given)
		out, err := io.ReadAll(tr)
		if !utf8.Valid(out) {
			t.Fatalf("%x read as invalid UTF-8 %q", b, out)
		}
		var de *DecodeError
		switch {
		case err == nil:
		case errors.As(err, &de):
			if de.Line < 1 || de.Line > bytes.Count(out, []byte{'\n'})+1 || de.Offset < 0 || de.Offset > int64(len(b)) {
				t.Fatalf("%x: error %v at line %d, offset %d, after %q", b, err, de.Line, de.Offset, out)
			}
		default:
			t.Fatalf("%x: error %v of type %T", b, err, err)
		}
		tr2 := NewTextReader(iotest.OneByteReader(bytes.NewReader(b)), given)
		out2, err2 := io.ReadAll(tr2)
		if !bytes.Equal(out, out2) || (err == nil) != (err2 == nil) || tr.Decision().CodePage != tr2.Decision().CodePage {
			t.Fatalf("%x: %q, %v (%v) read whole; %q, %v (%v) a byte at a time", b, out, err, tr.Decision(), out2, err2, tr2.Decision())
		}
	})
}

// FuzzGuess: the guess among the ANSI code pages is deterministic, names
// one of them, and is one that reads every byte given; alike and rival
// code pages are others, each named once.
func FuzzGuess(f *testing.F) {
	f.Add([]byte("\\\\\xcf\xca\\\xcf\xf0\xee\xf6\xe5\xf1\xf1\xee\xf0"), true)
	f.Add([]byte("\xc7\xc1\xb7\xce\xbc\xbc\xbc\xad \xbd\xc3\xb0\xa3"), true)
	f.Fuzz(func(t *testing.T, b []byte, atEOF bool) {
		if len(b) > Window {
			b = b[:Window]
		}
		cp, alike, rivals := guess(b, atEOF)
		cp2, alike2, rivals2 := guess(b, atEOF)
		if cp != cp2 || !slices.Equal(alike, alike2) || !slices.Equal(rivals, rivals2) {
			t.Fatalf("%x: %v %v %v, then %v %v %v", b, cp, alike, rivals, cp2, alike2, rivals2)
		}
		if !slices.Contains(ANSICodePages(), cp) {
			t.Fatalf("%x: guessed %v", b, cp)
		}
		if _, _, bad := newDecoder(cp).decode(nil, b, atEOF); bad != nil && cp != 1252 {
			t.Fatalf("%x: guessed %v, which cannot read it: %s", b, cp, bad.msg)
		}
		seen := map[CodePage]bool{cp: true}
		for _, c := range slices.Concat(alike, rivals) {
			if seen[c] || !slices.Contains(ANSICodePages(), c) {
				t.Fatalf("%x: %v named twice or not an ANSI code page (%v %v %v)", b, c, cp, alike, rivals)
			}
			seen[c] = true
		}
	})
}
