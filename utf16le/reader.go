package utf16le

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Window is how many bytes, from the line of the first byte that is not
// ASCII, a TextReader looks at to decide an encoding the text does not
// state. Bytes before that are ASCII, which every code page reads alike.
const Window = 256 << 10

// How says how a TextReader chose the encoding of its text.
type How int

// The ways, from the surest.
const (
	// ByASCII: the text is ASCII, which every code page reads alike.
	ByASCII How = iota
	// ByMark: a byte-order mark (EF BB BF, FF FE, FE FF) says.
	ByMark
	// ByCaller: the code page the caller named.
	ByCaller
	// ByZeros: UTF-16 without a mark, by the zero byte beside its first
	// (ASCII) character.
	ByZeros
	// ByUTF8: no mark, and the text is valid UTF-8 (which text in an ANSI
	// code page with non-ASCII letters is only by rare accident: "é" in
	// 1252 is the byte E9, never valid UTF-8 before a letter).
	ByUTF8
	// ByGuess: none of the above; the likeliest ANSI code page.
	ByGuess
)

// Decision is how a TextReader read its text.
type Decision struct {
	// CodePage is the encoding read: UTF8 for ASCII text.
	CodePage CodePage
	By       How
	// Given is the code page the caller named (Auto: none); when By is
	// ByMark or ByUTF8 and Given differs from CodePage, the bytes
	// overruled it.
	Given CodePage
	// Alike are the other ANSI code pages that read the text exactly as
	// CodePage does (a guess only).
	Alike []CodePage
	// Rivals are the ANSI code pages that read it differently but about
	// as plausibly (a guess only): the guess is uncertain between them.
	Rivals []CodePage
	// Line is the line of the first byte that is not ASCII (0: none), on
	// which the decision rests.
	Line int
}

// Assumed reports an encoding the text does not state: a guess, or
// UTF-16 known by its zero bytes. A reader should tell its user.
func (d Decision) Assumed() bool { return d.By == ByGuess || d.By == ByZeros }

// Overruled reports a code page the caller named that the text's bytes
// overruled (a byte-order mark, or valid UTF-8).
func (d Decision) Overruled() bool {
	return d.Given != Auto && d.Given != d.CodePage && (d.By == ByMark || d.By == ByUTF8)
}

// String says, for a person, how the text was read: "no byte-order mark
// and not UTF-8: read as code page 1251 (windows-1251, Cyrillic), guessed
// from its non-ASCII bytes (line 1 on)", then the code pages that read
// them alike and those that make the guess uncertain. A warning about an
// assumed or overruled encoding is this sentence.
func (d Decision) String() string {
	var b strings.Builder
	switch d.By {
	case ByASCII:
		return "ASCII text, read alike in every code page"
	case ByMark:
		fmt.Fprintf(&b, "read as %s, as its byte-order mark says", d.CodePage.Describe())
	case ByCaller:
		fmt.Fprintf(&b, "read as %s, as named", d.CodePage.Describe())
	case ByZeros:
		fmt.Fprintf(&b, "no byte-order mark: read as %s by the zero bytes of its characters", d.CodePage.Describe())
	case ByUTF8:
		fmt.Fprintf(&b, "no byte-order mark: read as UTF-8, which its non-ASCII bytes are (from line %d)", d.Line)
	case ByGuess:
		fmt.Fprintf(&b, "no byte-order mark and not UTF-8: read as %s, guessed from its non-ASCII bytes (line %d on)", d.CodePage.Describe(), d.Line)
		if len(d.Alike) > 0 {
			fmt.Fprintf(&b, "; %s read them alike", numbers(d.Alike))
		}
		if len(d.Rivals) > 0 {
			fmt.Fprintf(&b, "; uncertain: %s read them differently, about as plausibly", list(d.Rivals))
		}
	}
	if d.Overruled() {
		fmt.Fprintf(&b, "; the code page named, %s, is not used", d.Given)
	}
	return b.String()
}

// numbers lists code pages by number: "1250, 1254 and 1258".
func numbers(cps []CodePage) string {
	parts := make([]string, len(cps))
	for i, cp := range cps {
		parts[i] = fmt.Sprint(int(cp))
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// list names code pages: "1250 (Central European), 1254 (Turkish)".
func list(cps []CodePage) string {
	parts := make([]string, len(cps))
	for i, cp := range cps {
		p, _ := lookup(cp)
		parts[i] = fmt.Sprintf("%d (%s)", int(cp), p.about)
	}
	return strings.Join(parts, ", ")
}

// DecodeError is text a TextReader cannot decode in the encoding it
// decided on.
type DecodeError struct {
	// Offset is the byte offset of the input that could not be read, Line
	// the line of the text it is on (1-based).
	Offset int64
	Line   int
	// Decision is how the reader had decided to read the text.
	Decision Decision
	// AtEnd reports input the text ends inside (an incomplete character:
	// a writer stopped mid-character).
	AtEnd bool
	Msg   string
}

// Error says where and what: "line 3, byte 67: byte 0x81 is not a
// character of windows-1252", and, for an encoding decided from the text
// before, which it was.
func (e *DecodeError) Error() string {
	s := fmt.Sprintf("line %d, byte %d: %s", e.Line, e.Offset, e.Msg)
	switch e.Decision.By {
	case ByUTF8, ByGuess:
		s += fmt.Sprintf(" (the text before it read as %s)", e.Decision.CodePage.Describe())
	}
	return s
}

// TextReader decodes a text file as Windows tools save it into UTF-8, as
// it is read: UTF-16 in either byte order with a byte-order mark (what
// PowerShell and Windows' "Unicode" write), UTF-16 without one when its
// first character is ASCII (its other byte zero), UTF-8 with a mark, and
// text without a mark in UTF-8 when it is valid UTF-8, else in the code
// page the caller named, else in the likeliest ANSI code page (guess:
// Western European, Cyrillic, Central European, Japanese, Chinese,
// Korean, Greek, Turkish, Baltic, Hebrew, Arabic, Vietnamese, Thai).
//
// A byte-order mark is dropped. The decision rests on the bytes from the
// line of the first byte that is not ASCII up to Window bytes on;
// Decision says what it was. Input the decided encoding cannot read (a
// byte the code page leaves undefined, an unpaired surrogate, invalid
// UTF-8 after a window that was valid) is a *DecodeError naming its line
// and offset, never a silent U+FFFD. Memory is bounded by Window and the
// caller's reads; time is linear in the input.
type TextReader struct {
	r       io.Reader
	given   CodePage
	started bool
	dec     decoder // nil until decided
	d       Decision
	base    []byte // raw's backing buffer
	raw     []byte // input read, not yet decoded
	off     int64  // input offset of raw[0]
	eof     bool   // r has no more
	rerr    error  // r's error other than io.EOF
	obuf    []byte // out's backing buffer
	out     []byte // decoded, not yet returned
	lines   int    // line ends decoded so far
	ctx     []byte // the ASCII text before the first byte not ASCII, from its line's start
	err     error  // sticky: io.EOF, rerr or a *DecodeError
}

// NewTextReader returns a reader of r's text in UTF-8. cp names the code
// page of text whose bytes do not say theirs (no byte-order mark, not
// valid UTF-8); Auto guesses it. Naming UTF16LE or UTF16BE reads text
// without a mark as that.
func NewTextReader(r io.Reader, cp CodePage) *TextReader {
	return &TextReader{r: r, given: cp, d: Decision{Given: cp}}
}

// Decision is how the text was read; complete once Read has returned
// text past the first byte that is not ASCII, or io.EOF.
func (t *TextReader) Decision() Decision { return t.d }

// Read reads decoded text.
func (t *TextReader) Read(p []byte) (int, error) {
	for len(t.out) == 0 {
		if t.err != nil {
			return 0, t.err
		}
		t.obuf = t.obuf[:0]
		t.step()
	}
	n := copy(p, t.out)
	t.out = t.out[n:]
	return n, nil
}

// minRead is the least room fill reads into.
const minRead = 32 << 10

// fill reads more input.
func (t *TextReader) fill() {
	if t.eof {
		return
	}
	if cap(t.raw)-len(t.raw) < minRead {
		need := len(t.raw) + minRead
		if cap(t.base) < need {
			t.base = make([]byte, max(need, 2*cap(t.base), 2*minRead))
		}
		n := copy(t.base[:cap(t.base)], t.raw)
		t.raw = t.base[:n]
	}
	n, err := t.r.Read(t.raw[len(t.raw):cap(t.raw)])
	t.raw = t.raw[:len(t.raw)+n]
	if err != nil {
		t.eof = true
		if err != io.EOF {
			t.rerr = err
		}
	}
}

// fillTo reads until raw holds n bytes or the input ends.
func (t *TextReader) fillTo(n int) {
	for len(t.raw) < n && !t.eof {
		if cap(t.raw)-len(t.raw) < minRead && cap(t.base) < n {
			t.base = make([]byte, n+minRead)
			k := copy(t.base, t.raw)
			t.raw = t.base[:k]
		}
		t.fill()
	}
}

// emit hands decoded text to Read (b stays untouched until Read has
// returned all of it: step runs only when out is empty).
func (t *TextReader) emit(b []byte) {
	t.lines += bytes.Count(b, []byte{'\n'})
	t.out = b
}

func (t *TextReader) consume(n int) {
	t.raw = t.raw[n:]
	t.off += int64(n)
}

// decided sets the encoding.
func (t *TextReader) decided(cp CodePage, by How) {
	t.d.CodePage, t.d.By = cp, by
	t.dec = newDecoder(cp)
}

// step makes progress: out gets text, or err is set.
func (t *TextReader) step() {
	if t.rerr != nil && len(t.raw) == 0 {
		t.err = t.rerr
		return
	}
	if !t.started {
		t.fillTo(3)
		t.started = true
		t.start()
		return
	}
	if t.dec == nil {
		t.ascii()
		return
	}
	if len(t.raw) == 0 || !t.eof {
		t.fill()
	}
	atEOF := t.eof && t.rerr == nil
	out, n, bad := t.dec.decode(t.obuf[:0], t.raw, atEOF)
	t.obuf = out
	t.emit(out)
	t.consume(n)
	switch {
	case bad != nil:
		t.err = &DecodeError{Offset: t.off, Line: t.lines + 1, Decision: t.d, Msg: bad.msg, AtEnd: bad.cut}
	case len(t.raw) > 0 && t.rerr != nil:
		t.err = t.rerr
	case len(t.raw) == 0 && t.eof:
		if t.rerr != nil {
			t.err = t.rerr
		} else {
			t.err = io.EOF
		}
	}
}

// start reads a byte-order mark, or the zero bytes of UTF-16 without one.
func (t *TextReader) start() {
	b := t.raw
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		t.consume(3)
		t.decided(UTF8, ByMark)
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		t.consume(2)
		t.decided(UTF16LE, ByMark)
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		t.consume(2)
		t.decided(UTF16BE, ByMark)
	case t.given == UTF16LE || t.given == UTF16BE:
		t.decided(t.given, ByCaller)
	case len(b) >= 2 && b[0] != 0 && b[0] < utf8.RuneSelf && b[1] == 0:
		t.decided(UTF16LE, ByZeros)
	case len(b) >= 2 && b[0] == 0 && b[1] != 0 && b[1] < utf8.RuneSelf:
		t.decided(UTF16BE, ByZeros)
	}
}

// ascii passes ASCII text on until the first byte that is not, where it
// decides the encoding.
func (t *TextReader) ascii() {
	if len(t.raw) == 0 {
		if t.eof {
			if t.rerr != nil {
				t.err = t.rerr
				return
			}
			t.d.CodePage, t.d.By = UTF8, ByASCII
			t.err = io.EOF
			return
		}
		t.fill()
		return
	}
	i := 0
	for i < len(t.raw) && t.raw[i] < utf8.RuneSelf {
		i++
	}
	if i > 0 {
		t.keepContext(t.raw[:i])
		t.emit(t.raw[:i])
		t.consume(i)
		return
	}
	t.fillTo(Window)
	if t.rerr != nil {
		t.err = t.rerr
		return
	}
	w := t.raw[:min(len(t.raw), Window)]
	atEOF := t.eof && len(w) == len(t.raw)
	t.d.Line = t.lines + 1
	switch {
	case validUTF8(w, atEOF):
		t.decided(UTF8, ByUTF8)
	case t.given != Auto:
		t.decided(t.given, ByCaller)
	default:
		sample := append(append([]byte(nil), t.ctx...), w...)
		cp, alike, rivals := guess(sample, atEOF)
		t.decided(cp, ByGuess)
		t.d.Alike, t.d.Rivals = alike, rivals
	}
}

// keepContext keeps the end of the current line of ASCII text, at most
// 256 bytes, for guess to see the letters before a non-ASCII one.
func (t *TextReader) keepContext(b []byte) {
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		t.ctx = t.ctx[:0]
		b = b[i+1:]
	}
	t.ctx = append(t.ctx, b...)
	if len(t.ctx) > 256 {
		t.ctx = append(t.ctx[:0], t.ctx[len(t.ctx)-256:]...)
	}
}

// validUTF8 reports b valid UTF-8, but for an incomplete character at
// its end when !atEOF.
func validUTF8(b []byte, atEOF bool) bool {
	if utf8.Valid(b) {
		return true
	}
	if atEOF {
		return false
	}
	for k := 1; k < utf8.UTFMax && k <= len(b); k++ {
		if utf8.RuneStart(b[len(b)-k]) {
			return !utf8.FullRune(b[len(b)-k:]) && utf8.Valid(b[:len(b)-k])
		}
	}
	return false
}
