// Package termtext owns showing text that came from outside (another
// computer's error, another user's process name) on a terminal: every
// character that a terminal acts on instead of showing (C0 and C1
// controls, DEL, the line and paragraph separators, the bidirectional
// overrides and isolates) and every byte that is not UTF-8 is written as
// a visible escape, so such text can neither move the cursor, recolour
// or retitle the terminal, nor forge a line of its own; and whether a
// writer is a terminal at all.
package termtext

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// Escape returns s with what a terminal would act on written as escapes:
// \n, \r and \t as such, other controls and bidirectional formatting
// characters as \xHH or \uHHHH, and each byte that is not UTF-8 as \xHH.
// Text without any is returned as it is, without a copy.
func Escape(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return r == utf8.RuneError || Acts(r) })
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for j := i; j < len(s); {
		r, n := utf8.DecodeRuneInString(s[j:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[j])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x100 && Acts(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case Acts(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[j : j+n])
		}
		j += n
	}
	return b.String()
}

// Acts reports a character a terminal acts on rather than shows: a C0 or
// C1 control, DEL, the line or paragraph separator, or a bidirectional
// embedding, override or isolate (what "Trojan Source" text uses to show
// one order and mean another).
func Acts(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x2028, r == 0x2029: // line and paragraph separators
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // bidirectional embeddings, overrides, isolates
		return true
	}
	return false
}

// IsTerminal reports whether w is a terminal (a character device that
// answers the terminal ioctl): where text for a person may update in
// place, and where binary output is refused.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
