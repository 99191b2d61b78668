// Package utf16le reads and writes UTF-16LE strings inside byte buffers, the
// string encoding of every Windows performance-data structure: counted
// strings, NUL-terminated strings and REG_MULTI_SZ lists; and the one
// decoder of text files as Windows tools save them (Text: counter lists,
// settings files, MS-PLA XML, manifests). Every read is bounds-checked;
// malformed input yields an error, never a panic.
package utf16le

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrOddLength reports a byte string whose length is not a multiple of two.
var ErrOddLength = errors.New("utf16le: odd byte length")

// ErrNoTerminator reports a string or list that runs to the end of its buffer
// without the NUL(s) that should end it.
var ErrNoTerminator = errors.New("utf16le: missing NUL terminator")

// Decode converts b (UTF-16LE code units, no terminator expected) to a Go
// string. Unpaired surrogates become U+FFFD, as in unicode/utf16.
func Decode(b []byte) (string, error) {
	if len(b)%2 != 0 {
		return "", ErrOddLength
	}
	return decode(b), nil
}

func decode(b []byte) string {
	// Fast path: pure ASCII needs no surrogate handling and one allocation.
	ascii := true
	for i := 0; i+1 < len(b); i += 2 {
		if b[i+1] != 0 || b[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		var sb strings.Builder
		sb.Grow(len(b) / 2)
		for i := 0; i+1 < len(b); i += 2 {
			sb.WriteByte(b[i])
		}
		return sb.String()
	}
	return string(AppendDecode(make([]byte, 0, len(b)), b))
}

// AppendDecode appends b (UTF-16LE code units, no terminator expected; a
// trailing odd byte is ignored) to dst as UTF-8 and returns the extended
// slice. Unpaired surrogates become U+FFFD, as in Decode. Decoding many
// strings into one buffer, then slicing one string made of it, costs one
// allocation instead of one a string.
func AppendDecode(dst, b []byte) []byte {
	out := dst
	for i := 0; i+1 < len(b); i += 2 {
		u := uint16(b[i]) | uint16(b[i+1])<<8
		r := rune(u)
		if utf16.IsSurrogate(r) {
			if i+3 < len(b) {
				u2 := uint16(b[i+2]) | uint16(b[i+3])<<8
				if dec := utf16.DecodeRune(r, rune(u2)); dec != utf8.RuneError {
					out = utf8.AppendRune(out, dec)
					i += 2
					continue
				}
			}
			r = utf8.RuneError
		}
		if r < utf8.RuneSelf {
			out = append(out, byte(r))
			continue
		}
		out = utf8.AppendRune(out, r)
	}
	return out
}

// DecodeLenient decodes b up to its first NUL code unit, or all of it if
// there is none; a trailing odd byte is ignored. It suits fields whose
// length is given separately and may or may not include the NUL.
func DecodeLenient(b []byte) string {
	b = b[:len(b)&^1]
	if n := IndexNUL(b); n >= 0 {
		b = b[:n]
	}
	return decode(b)
}

// IndexNUL returns the byte offset of the first NUL code unit in b (aligned
// to two bytes), or -1.
func IndexNUL(b []byte) int {
	for i := 0; i+1 < len(b); i += 2 {
		if b[i] == 0 && b[i+1] == 0 {
			return i
		}
	}
	return -1
}

// EncodedLen returns the number of bytes s takes as UTF-16LE, without NUL.
func EncodedLen(s string) int {
	n := 0
	for _, r := range s {
		n += 2 * utf16.RuneLen(r) // ranging a string never yields surrogates
	}
	return n
}

// Append appends s as UTF-16LE to dst, without a terminator.
func Append(dst []byte, s string) []byte {
	for _, r := range s {
		if r >= 0x10000 {
			r1, r2 := utf16.EncodeRune(r)
			dst = append(dst, byte(r1), byte(r1>>8), byte(r2), byte(r2>>8))
			continue
		}
		if utf16.IsSurrogate(r) || r > utf8.MaxRune {
			r = utf8.RuneError
		}
		dst = append(dst, byte(r), byte(r>>8))
	}
	return dst
}

// AppendNUL appends s as UTF-16LE followed by a NUL code unit.
func AppendNUL(dst []byte, s string) []byte {
	return append(Append(dst, s), 0, 0)
}

// DecodeMultiSZ decodes a REG_MULTI_SZ value: NUL-terminated strings one
// after another, the list ended by an extra NUL. An empty list is a single
// NUL code unit (or, leniently, no bytes at all). The error names the byte
// offset at which the list went wrong.
func DecodeMultiSZ(b []byte) ([]string, error) {
	if len(b)%2 != 0 {
		return nil, fmt.Errorf("%w (%d bytes)", ErrOddLength, len(b))
	}
	var out []string
	off := 0
	for off < len(b) {
		n := IndexNUL(b[off:])
		if n < 0 {
			return nil, fmt.Errorf("utf16le: MULTI_SZ string at offset %d: %w", off, ErrNoTerminator)
		}
		if n == 0 { // the list's final NUL
			if rest := b[off+2:]; len(rest) > 0 && IndexNonZero(rest) >= 0 {
				return nil, fmt.Errorf("utf16le: MULTI_SZ: %d bytes of data after the list terminator at offset %d", len(rest), off)
			}
			return out, nil
		}
		out = append(out, decode(b[off:off+n]))
		off += n + 2
	}
	if len(b) == 0 {
		return nil, nil
	}
	return nil, fmt.Errorf("utf16le: MULTI_SZ: list at offset %d: %w (no final empty string)", off, ErrNoTerminator)
}

// IndexNonZero returns the index of the first non-zero byte of b, or -1.
func IndexNonZero(b []byte) int {
	for i, c := range b {
		if c != 0 {
			return i
		}
	}
	return -1
}

// AppendMultiSZ appends list as a REG_MULTI_SZ value: each string followed
// by a NUL, then a final NUL. Strings must not contain NUL; an empty string
// would end the list early, so AppendMultiSZ rejects both.
func AppendMultiSZ(dst []byte, list []string) ([]byte, error) {
	for i, s := range list {
		if s == "" {
			return dst, fmt.Errorf("utf16le: MULTI_SZ item %d is empty", i)
		}
		for _, r := range s {
			if r == 0 {
				return dst, fmt.Errorf("utf16le: MULTI_SZ item %d contains NUL", i)
			}
		}
		dst = AppendNUL(dst, s)
	}
	return append(dst, 0, 0), nil
}
