// Package perfini reads the two files from which Windows' lodctr registers
// the counter names of a V1 provider (a performance DLL, seed 002): the
// .ini file, with its [info] (drivername, symbolfile), [languages],
// [objects] and [text] sections, and its symbol file, a C header whose
// #define lines give each object's and counter's offset from the
// provider's First Counter. It owns the rules of those files, each written
// down with its public source in INI.md: lenient where Windows' lodctr is
// (blanks around '=', keys in any case, a symbol spelled in another case
// than in the header, a symbolfile whose case differs from the file's
// name, comments and text before [info]) and refusing the rest with
// file:line and why.
//
// ParseINI and ParseSymbols read one file each from its bytes (UTF-16 with
// or without a byte-order mark, UTF-8, ASCII: utf16le.Text); Resolve joins
// them into a Provider, the names by offset with their text in every
// language; Load does all three from an .ini path, finding the symbol file
// beside it. Nothing here gives a name its title index: package state does
// that (after Last Counter, one block: index = First Counter + offset,
// help = First Help + offset).
package perfini

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/perfcounters/perfcounters/utf16le"
)

// Bounds on what one provider's files may hold. Every input costs time
// and memory linear in its size within them.
const (
	// MaxFileSize bounds an .ini or a symbol file.
	MaxFileSize = 4 << 20
	// MaxNames bounds the objects and counters one .ini names (the
	// symbols that get a title index).
	MaxNames = 16384
	// MaxLanguages bounds the languages of [languages].
	MaxLanguages = 128
	// maxErrors is how many refusals one call reports before it stops.
	maxErrors = 10
)

// Error is a refusal at a place in a file: "FILE:LINE: what is wrong".
// Line is 0 when the problem belongs to the whole file.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return e.File + ":" + strconv.Itoa(e.Line) + ": " + e.Msg
	}
	return e.File + ": " + e.Msg
}

// errs collects refusals up to maxErrors; a parser stops reading when
// it has that many.
type errs struct {
	list []error
}

func (c *errs) add(file string, line int, format string, args ...any) {
	if len(c.list) < maxErrors {
		c.list = append(c.list, &Error{File: file, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
}

func (c *errs) full() bool { return len(c.list) >= maxErrors }

func (c *errs) err() error {
	if len(c.list) == 0 {
		return nil
	}
	list := c.list
	if c.full() {
		list = append(list[:len(list):len(list)], fmt.Errorf("(reading stopped after %d problems: fix these first)", maxErrors))
	}
	return errors.Join(list...)
}

// decode turns a file's bytes into text through utf16le, the project's
// one decoder of text files as Windows saves them: UTF-16 or UTF-8 as
// such, and bytes that are not UTF-8 as the ANSI code page they are
// guessed to be (Windows' lodctr reads such a file in the system's ANSI
// code page, which a file does not name). warning says which code page
// was assumed, with the line it was decided on; a byte that code page
// leaves undefined is an error naming its line.
func decode(file string, b []byte) (text, warning string, err error) {
	if len(b) > MaxFileSize {
		return "", "", &Error{File: file, Msg: fmt.Sprintf("larger than %d bytes", MaxFileSize)}
	}
	s, err := utf16le.Text(b)
	if err != nil {
		return "", "", &Error{File: file, Msg: err.Error()}
	}
	if utf8.ValidString(s) {
		return dropEOF(s), "", nil
	}
	tr := utf16le.NewTextReader(bytes.NewReader(b), utf16le.Auto)
	out, err := io.ReadAll(tr)
	if err != nil {
		var de *utf16le.DecodeError
		if errors.As(err, &de) {
			return "", "", &Error{File: file, Line: de.Line, Msg: de.Error()}
		}
		return "", "", &Error{File: file, Msg: err.Error()}
	}
	d := tr.Decision()
	if d.Assumed() {
		warning = warn(file, d.Line, "%s", d)
	}
	return dropEOF(string(out)), warning, nil
}

// dropEOF removes the end-of-file mark (Ctrl-Z, 0x1A) that old DOS
// editors wrote at the end of a text file, with the blanks around it:
// Windows' profile functions never see it as a line.
func dropEOF(s string) string {
	t := strings.TrimRight(s, "\x1a\r\n \t")
	if len(t) == len(strings.TrimRight(s, "\r\n \t")) {
		return s // no mark at the end
	}
	return t + "\n"
}

// lines calls f with each line of s (line ends LF or CRLF) and its
// 1-based number, until f returns false.
func lines(s string, f func(n int, line string) bool) {
	for n := 1; ; n++ {
		line, rest, more := strings.Cut(s, "\n")
		if !f(n, strings.TrimSuffix(line, "\r")) || !more {
			return
		}
		s = rest
	}
}

// trim removes the blanks around keys, values and lines.
func trim(s string) string { return strings.Trim(s, " \t\v\f\r") }

// upper folds ASCII letters to upper case: symbols are C identifiers,
// compared without case as lodctr's profile lookups compare them.
func upper(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'a' <= c && c <= 'z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'a' <= c && c <= 'z' {
					b[j] = c - ('a' - 'A')
				}
			}
			return string(b)
		}
	}
	return s
}

// firstControl returns the first control character of s, or -1.
func firstControl(s string) rune {
	for _, r := range s {
		if r < 0x20 || r == 0x7F || 0x80 <= r && r < 0xA0 {
			return r
		}
	}
	return -1
}
