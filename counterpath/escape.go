package counterpath

import (
	"strings"
	"unicode/utf8"

	"github.com/perfcounters/perfcounters/internal/termtext"
)

// Each name component is escaped with its own set of syntax characters;
// the escape character '%' and control characters are in every set.
const (
	machineSpecials  = `\`
	objectSpecials   = `()\`
	instanceSpecials = `()/#\`
	// mountSpecials is the set of an instance without a parent whose name
	// starts with '/', a mount point such as "/home": its slashes are
	// written as they are (see the package doc).
	mountSpecials = `()#\`
)

const hexDigits = "0123456789ABCDEF"

// EscapeInstance returns name written for the instance (or parent) part of
// a counter path: the bytes '(', ')', '/', '#', '\', '%', control characters
// (below U+0020 and U+007F), the bytes of the other characters a terminal
// acts on rather than shows (termtext.Acts: C1 controls, separators,
// bidirectional overrides) and bytes that are not valid UTF-8 become %XX
// (two upper-case hex digits of the byte), so that a name another user
// chose can neither drive a terminal nor forge a line where a path is
// shown. '*' is not escaped: in a pattern
// it is a wildcard, in a concrete name it is literal (see the package doc).
func EscapeInstance(name string) string {
	return escape(name, instanceSpecials)
}

// UnescapeInstance reverses EscapeInstance. It fails on a '%' that is not
// followed by two hex digits and on a raw '(', ')', '/', '#' or '\', which
// cannot stand for themselves in an instance name.
func UnescapeInstance(s string) (string, error) {
	out, off, msg := unescape(s, instanceSpecials)
	if msg != "" {
		return "", &ParseError{Path: s, Offset: off, Msg: msg}
	}
	return out, nil
}

func needsEscape(c byte, specials string) bool {
	if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == ' ' {
		return false // no set of specials holds a letter, a digit or a space
	}
	return c < 0x20 || c == 0x7f || c == '%' || strings.IndexByte(specials, c) >= 0
}

func escape(s, specials string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || needsEscape(c, specials) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if needsEscape(c, specials) {
				b.WriteByte('%')
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&15])
			} else {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || termtext.Acts(r) {
			for _, c := range []byte(s[i : i+n]) {
				b.WriteByte('%')
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&15])
			}
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// unescape decodes %XX escapes in s and rejects raw special characters. On
// failure it returns the byte offset within s and a message.
func unescape(s, specials string) (string, int, string) {
	if strings.IndexByte(s, '%') < 0 {
		for i := 0; i < len(s); i++ {
			if strings.IndexByte(specials, s[i]) >= 0 {
				return "", i, "unescaped '" + s[i:i+1] + "' (write %" + string(hexDigits[s[i]>>4]) + string(hexDigits[s[i]&15]) + ")"
			}
		}
		return s, 0, ""
	}
	buf := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) {
				return "", i, "'%' not followed by two hex digits"
			}
			hi, ok1 := unhex(s[i+1])
			lo, ok2 := unhex(s[i+2])
			if !ok1 || !ok2 {
				return "", i, "'%' not followed by two hex digits"
			}
			buf = append(buf, hi<<4|lo)
			i += 2
		case strings.IndexByte(specials, c) >= 0:
			return "", i, "unescaped '" + s[i:i+1] + "' (write %" + string(hexDigits[c>>4]) + string(hexDigits[c&15]) + ")"
		default:
			buf = append(buf, c)
		}
	}
	return string(buf), 0, ""
}
