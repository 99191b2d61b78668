package utf16le

import (
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/transform"
)

// badInput is input a decoder cannot read: at is its offset in the src
// the decoder was given.
type badInput struct {
	at  int
	msg string
	// cut reports a character the input ends inside.
	cut bool
}

// decoder turns the bytes of one encoding into UTF-8.
type decoder interface {
	// decode appends the text of src to dst and says how many bytes of
	// src it read. Without atEOF it leaves an incomplete sequence at the
	// end of src for the next call; it stops at input it cannot read.
	decode(dst, src []byte, atEOF bool) ([]byte, int, *badInput)
}

// newDecoder returns the decoder of a code page (lookup must know it).
func newDecoder(cp CodePage) decoder {
	switch cp {
	case UTF8:
		return utf8Decoder{}
	case UTF16LE:
		return utf16Decoder{}
	case UTF16BE:
		return utf16Decoder{be: true}
	}
	p, _ := lookup(cp)
	if cm, ok := p.enc.(*charmap.Charmap); ok {
		d := &sbcsDecoder{cp: cp}
		for b := range 256 {
			d.table[b] = cm.DecodeByte(byte(b))
		}
		return d
	}
	return &dbcsDecoder{cp: cp, t: p.enc.NewDecoder()}
}

// utf8Decoder checks UTF-8: text passes unchanged, an invalid byte stops
// it.
type utf8Decoder struct{}

func (utf8Decoder) decode(dst, src []byte, atEOF bool) ([]byte, int, *badInput) {
	if utf8.Valid(src) {
		return append(dst, src...), len(src), nil
	}
	i := 0
	for i < len(src) {
		if src[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && size <= 1 {
			if !atEOF && !utf8.FullRune(src[i:]) {
				break
			}
			return append(dst, src[:i]...), i, &badInput{i, fmt.Sprintf("byte 0x%02X is not valid UTF-8", src[i]), !utf8.FullRune(src[i:])}
		}
		i += size
	}
	return append(dst, src[:i]...), i, nil
}

// utf16Decoder reads UTF-16 in either byte order: an unpaired surrogate
// or a lone last byte is an error, never a silent U+FFFD.
type utf16Decoder struct{ be bool }

func (d utf16Decoder) decode(dst, src []byte, atEOF bool) ([]byte, int, *badInput) {
	unit := func(i int) rune {
		if d.be {
			return rune(src[i])<<8 | rune(src[i+1])
		}
		return rune(src[i]) | rune(src[i+1])<<8
	}
	i := 0
	for ; i+1 < len(src); i += 2 {
		u := unit(i)
		switch {
		case utf16.IsSurrogate(u) && u < 0xDC00:
			if i+3 >= len(src) {
				if !atEOF {
					return dst, i, nil
				}
				return dst, i, &badInput{i, "a high surrogate at the end", true}
			}
			lo := unit(i + 2)
			if lo < 0xDC00 || lo >= 0xE000 {
				return dst, i, &badInput{i, "a high surrogate without its low one", false}
			}
			dst = utf8.AppendRune(dst, utf16.DecodeRune(u, lo))
			i += 2
		case utf16.IsSurrogate(u):
			return dst, i, &badInput{i, "a low surrogate without its high one", false}
		default:
			dst = utf8.AppendRune(dst, u)
		}
	}
	if i < len(src) && atEOF {
		return dst, i, &badInput{i, "UTF-16 text of an odd number of bytes: a lone byte at the end", true}
	}
	return dst, i, nil
}

// sbcsDecoder reads a single-byte code page through its table, taken
// from golang.org/x/text's charmap: a byte the code page leaves
// undefined is an error.
type sbcsDecoder struct {
	cp    CodePage
	table [256]rune
}

func (d *sbcsDecoder) decode(dst, src []byte, atEOF bool) ([]byte, int, *badInput) {
	for i := 0; i < len(src); {
		j := i
		for j < len(src) && src[j] < utf8.RuneSelf {
			j++
		}
		dst = append(dst, src[i:j]...)
		if i = j; i == len(src) {
			break
		}
		r := d.table[src[i]]
		if !validRune(r) {
			return dst, i, &badInput{i, fmt.Sprintf("byte 0x%02X is not a character of %s", src[i], d.cp), false}
		}
		dst = utf8.AppendRune(dst, r)
		i++
	}
	return dst, len(src), nil
}

// validRune reports a rune a legacy decoder gives for a character:
// not U+FFFD (what golang.org/x/text gives for an undefined byte or an
// invalid sequence) nor a C1 control (which no text log holds).
func validRune(r rune) bool {
	return r != utf8.RuneError && (r < 0x80 || r >= 0xA0)
}

// dbcsDecoder reads a double-byte code page (932, 936, 949, 950) with
// golang.org/x/text's decoder; a sequence the code page does not define
// is an error at its offset.
type dbcsDecoder struct {
	cp  CodePage
	t   transform.Transformer
	buf [8 << 10]byte
}

func (d *dbcsDecoder) decode(dst, src []byte, atEOF bool) ([]byte, int, *badInput) {
	n := 0
	for n < len(src) {
		// ASCII passes unchanged: every one of these code pages keeps it.
		j := n
		for j < len(src) && src[j] < utf8.RuneSelf {
			j++
		}
		dst = append(dst, src[n:j]...)
		n = j
		if n == len(src) {
			break
		}
		nDst, nSrc, err := d.t.Transform(d.buf[:], src[n:], atEOF)
		out := d.buf[:nDst]
		at := n
		for k := 0; k < len(out); {
			r, size := utf8.DecodeRune(out[k:])
			if !validRune(r) {
				// at is exact but for characters whose length charLen
				// does not know (GB18030's four-byte forms of the BMP):
				// keep it inside what this call read.
				at = max(n, min(at, n+nSrc-1))
				dst = append(dst, out[:k]...)
				cut := atEOF && at+1 == len(src)
				return dst, at, &badInput{at, fmt.Sprintf("bytes % X are not a character of %s", src[at:min(at+2, len(src))], d.cp), cut}
			}
			at += charLen(d.cp, true, r)
			k += size
		}
		dst = append(dst, out...)
		n += nSrc
		switch {
		case errors.Is(err, transform.ErrShortSrc):
			return dst, n, nil
		case errors.Is(err, transform.ErrShortDst):
			continue
		case err != nil:
			return dst, n, &badInput{n, err.Error(), false}
		case nSrc == 0:
			return dst, n, nil
		}
	}
	return dst, n, nil
}

// charLen is how many bytes the code page spends on r: one for ASCII and
// for every character of a single-byte code page; in the double-byte
// ones two, but one for the half-width katakana of 932 and the euro sign
// at 0x80 of 936, and four for the characters beyond the Basic
// Multilingual Plane that GB18030's four-byte form (read by 936's
// decoder) gives.
func charLen(cp CodePage, dbcs bool, r rune) int {
	switch {
	case r < utf8.RuneSelf || !dbcs:
		return 1
	case cp == 932 && r >= 0xFF61 && r <= 0xFF9F:
		return 1
	case cp == 936 && r == '€':
		return 1
	case r > 0xFFFF:
		return 4
	}
	return 2
}
