package utf16le

import (
	"errors"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/transform"
)

// TextWriter encodes the UTF-8 text written to it in a code page, for a
// program that reads text files in that one: UTF-8 with or without a
// byte-order mark, UTF-16 in either byte order with one (Windows'
// "Unicode"), or an ANSI or OEM code page, with golang.org/x/text's
// encoders. A character the code page cannot write is an error naming it
// and its line, never a silent '?'.
type TextWriter struct {
	w       io.Writer
	cp      CodePage
	enc     transform.Transformer // ANSI and OEM code pages
	mark    []byte                // written before the first text
	pending []byte                // an incomplete UTF-8 character, kept for the next Write
	buf     []byte
	line    int // line ends written so far
	err     error
}

// NewTextWriter returns a TextWriter onto w in code page cp. bom asks for
// a byte-order mark with UTF-8; UTF-16 always has one, the ANSI and OEM
// code pages none.
func NewTextWriter(w io.Writer, cp CodePage, bom bool) (*TextWriter, error) {
	p, ok := lookup(cp)
	if !ok {
		return nil, fmt.Errorf("code page %d: %s", int(cp), supported())
	}
	t := &TextWriter{w: w, cp: cp}
	switch cp {
	case UTF8:
		if bom {
			t.mark = []byte{0xEF, 0xBB, 0xBF}
		}
	case UTF16LE:
		t.mark = []byte{0xFF, 0xFE}
	case UTF16BE:
		t.mark = []byte{0xFE, 0xFF}
	default:
		t.enc = p.enc.NewEncoder()
	}
	return t, nil
}

// Write encodes p (UTF-8; a character may be split between calls).
func (t *TextWriter) Write(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	src := p
	if len(t.pending) > 0 {
		src = append(t.pending, p...)
	}
	// Keep an incomplete last character for the next Write.
	cut := len(src)
	for k := 1; k < utf8.UTFMax && k <= len(src); k++ {
		if utf8.RuneStart(src[len(src)-k]) {
			if !utf8.FullRune(src[len(src)-k:]) {
				cut = len(src) - k
			}
			break
		}
	}
	if err := t.encode(src[:cut]); err != nil {
		t.err = err
		return 0, err
	}
	t.pending = append(t.pending[:0], src[cut:]...)
	return len(p), nil
}

// Close reports text that ends inside a character; it writes the byte-order
// mark of an empty text. It does not close the underlying writer.
func (t *TextWriter) Close() error {
	if t.err != nil {
		return t.err
	}
	if len(t.pending) > 0 {
		t.err = fmt.Errorf("line %d: the text ends inside a UTF-8 character", t.line+1)
		return t.err
	}
	return t.encode(nil)
}

func (t *TextWriter) encode(s []byte) error {
	t.buf = append(t.buf[:0], t.mark...)
	t.mark = nil
	unicode := t.cp == UTF8 || t.cp == UTF16LE || t.cp == UTF16BE
	if unicode && !utf8.Valid(s) {
		return fmt.Errorf("line %d: the text is not valid UTF-8", t.line+1+countLines(s[:firstInvalid(s)]))
	}
	switch {
	case t.cp == UTF8:
		t.buf = append(t.buf, s...)
	case t.cp == UTF16LE || t.cp == UTF16BE:
		var units [2]uint16
		for _, r := range string(s) {
			for _, u := range utf16.AppendRune(units[:0], r) {
				if t.cp == UTF16BE {
					t.buf = append(t.buf, byte(u>>8), byte(u))
				} else {
					t.buf = append(t.buf, byte(u), byte(u>>8))
				}
			}
		}
	default:
		for len(s) > 0 {
			var dst [16 << 10]byte
			nDst, nSrc, err := t.enc.Transform(dst[:], s, true)
			t.buf = append(t.buf, dst[:nDst]...)
			t.line += countLines(s[:nSrc])
			s = s[nSrc:]
			if err != nil && !errors.Is(err, transform.ErrShortDst) {
				r, _ := utf8.DecodeRune(s)
				return fmt.Errorf("line %d: %q (U+%04X) is not a character of %s: write this text in UTF-8 or UTF-16", t.line+1, r, r, t.cp.Describe())
			}
		}
	}
	if unicode {
		t.line += countLines(s)
	}
	if len(t.buf) == 0 {
		return nil
	}
	_, err := t.w.Write(t.buf)
	return err
}

func countLines(b []byte) int {
	n := 0
	for _, c := range b {
		if c == '\n' {
			n++
		}
	}
	return n
}

func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(b)
}
