package perfini

import (
	"fmt"
	"strconv"
	"strings"
)

// Symbols is a symbol file's object-like macros: every "#define NAME
// VALUE" line, with C's comments (// and /* */) and line continuations
// removed. Other lines (#ifndef guards, #include, declarations) are
// ignored. A value is read only when the .ini uses its symbol (Resolve):
// a decimal or 0x hexadecimal number (with an optional u/l suffix, in
// parentheses or not), or the name of another macro.
type Symbols struct {
	File string // the name given to ParseSymbols, for messages
	defs []define
	// byName maps a name to its first definition; byFold maps the
	// upper-cased name to every spelling's first definition.
	byName map[string]int
	byFold map[string][]int
}

type define struct {
	name, value string
	line        int
	redefined   int // the line of a later definition with another value; 0 if none
}

// maxDefines bounds the macros of one symbol file.
const maxDefines = 1 << 17

// ParseSymbols reads a symbol file's bytes; file names it in messages.
func ParseSymbols(file string, data []byte) (*Symbols, error) {
	// The symbols are C identifiers and numbers: a code page assumed for
	// the comments around them changes nothing, and is not said.
	text, _, err := decode(file, data)
	if err != nil {
		return nil, err
	}
	s := &Symbols{File: file, byName: map[string]int{}, byFold: map[string][]int{}}
	var c errs
	var logical strings.Builder
	start := 0         // the first physical line of the logical line
	inComment := false // inside /* */ across lines
	lines(text, func(n int, line string) bool {
		if c.full() {
			return false
		}
		if logical.Len() == 0 {
			start = n
		}
		if strings.HasSuffix(line, "\\") {
			logical.WriteString(line[:len(line)-1])
			return true
		}
		logical.WriteString(line)
		l := logical.String()
		logical.Reset()
		l, inComment = stripComments(l, inComment)
		d, why := parseDefine(l)
		switch {
		case why != "":
			c.add(file, start, "%s", why)
		case d.name == "":
		default:
			d.line = start
			s.add(&c, d)
		}
		return true
	})
	if err := c.err(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Symbols) add(c *errs, d define) {
	if i, ok := s.byName[d.name]; ok {
		if old := &s.defs[i]; old.value != d.value && old.redefined == 0 {
			old.redefined = d.line // an error only if the .ini uses it
		}
		return
	}
	if len(s.defs) >= maxDefines {
		c.add(s.File, d.line, "more than %d #define lines", maxDefines)
		return
	}
	s.byName[d.name] = len(s.defs)
	f := upper(d.name)
	s.byFold[f] = append(s.byFold[f], len(s.defs))
	s.defs = append(s.defs, d)
}

// stripComments removes C comments from a line; in says whether the line
// starts inside a /* */ comment, and the second result whether it ends in
// one. A comment becomes one space, as in C.
func stripComments(l string, in bool) (string, bool) {
	if !in && !strings.Contains(l, "/") {
		return l, false
	}
	var b strings.Builder
	for len(l) > 0 {
		if in {
			i := strings.Index(l, "*/")
			if i < 0 {
				return b.String(), true
			}
			l, in = l[i+2:], false
			b.WriteByte(' ')
			continue
		}
		i := strings.IndexByte(l, '/')
		if i < 0 || i+1 >= len(l) {
			b.WriteString(l)
			break
		}
		switch l[i+1] {
		case '/':
			b.WriteString(l[:i])
			return b.String(), false
		case '*':
			b.WriteString(l[:i])
			l, in = l[i+2:], true
		default:
			b.WriteString(l[:i+2])
			l = l[i+2:]
		}
	}
	return b.String(), in
}

// parseDefine reads "#define NAME VALUE" from a line without comments:
// d.name is empty for any other line, and for a function-like macro.
func parseDefine(l string) (d define, why string) {
	l = trim(l)
	if !strings.HasPrefix(l, "#") {
		return d, ""
	}
	l = trim(l[1:])
	rest, ok := strings.CutPrefix(l, "define")
	if !ok || rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return d, ""
	}
	rest = trim(rest)
	i := 0
	for i < len(rest) && isIdent(rest[i], i == 0) {
		i++
	}
	if i == 0 {
		return d, fmt.Sprintf("#define without a macro name: %q", clip(l))
	}
	if i < len(rest) && rest[i] == '(' {
		return d, "" // a function-like macro: no offset
	}
	if i < len(rest) && rest[i] != ' ' && rest[i] != '\t' {
		return d, fmt.Sprintf("#define %s: %q after the name is not C", rest[:i], clip(rest[i:]))
	}
	return define{name: rest[:i], value: trim(rest[i:])}, ""
}

func isIdent(c byte, first bool) bool {
	return c == '_' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || !first && '0' <= c && c <= '9'
}

// lookup finds the macro an .ini names: the one spelled exactly so, else
// the only one whose name differs only in case (lodctr compares them
// without case). It returns -1 and why when there is none or several.
func (s *Symbols) lookup(sym string) (int, string) {
	if i, ok := s.byName[sym]; ok {
		return i, ""
	}
	switch m := s.byFold[upper(sym)]; len(m) {
	case 0:
		return -1, fmt.Sprintf("%s is not defined in the symbol file %s", sym, s.File)
	case 1:
		return m[0], ""
	default:
		var names []string
		for _, i := range m {
			names = append(names, fmt.Sprintf("%s (line %d)", s.defs[i].name, s.defs[i].line))
		}
		return -1, fmt.Sprintf("%s matches %s of the symbol file %s, which differ only in case: spell it as one of them", sym, strings.Join(names, " and "), s.File)
	}
}

// offset evaluates macro i: a number, or another macro's name followed
// through at most 32 steps. The error names the symbol file and line.
func (s *Symbols) offset(i int) (uint32, error) {
	first := &s.defs[i]
	for step := 0; ; step++ {
		d := &s.defs[i]
		if d.redefined != 0 {
			return 0, &Error{File: s.File, Line: d.redefined, Msg: fmt.Sprintf("%s is defined again with another value (first at line %d: %q)", d.name, d.line, clip(d.value))}
		}
		// A C statement's semicolon ("#define OBJ 2;", common in real
		// symbol files) is no part of the number, as lodctr reads it.
		v := trim(strings.TrimRight(d.value, "; \t"))
		for len(v) >= 2 && v[0] == '(' && v[len(v)-1] == ')' {
			v = trim(v[1 : len(v)-1])
		}
		if n, ok, why := parseNumber(v); ok {
			return n, nil
		} else if why != "" {
			return 0, &Error{File: s.File, Line: d.line, Msg: fmt.Sprintf("%s: %s", d.name, why)}
		}
		j, ok := s.byName[v]
		switch {
		case v == "":
			return 0, &Error{File: s.File, Line: d.line, Msg: fmt.Sprintf("%s has no value: lodctr needs its offset", d.name)}
		case !ok:
			return 0, &Error{File: s.File, Line: d.line, Msg: fmt.Sprintf("%s = %q is not an offset: lodctr reads a decimal or 0x hexadecimal number, or the name of a macro defined here", d.name, clip(d.value))}
		case step >= 32 || j == i:
			return 0, &Error{File: s.File, Line: first.line, Msg: fmt.Sprintf("%s: the chain of macro names does not end in a number", first.name)}
		}
		i = j
	}
}

// byOffset maps each offset a macro of the file evaluates to to the
// first such macro's name (for offsets no [text] key names): each macro
// is evaluated once.
func (s *Symbols) byOffset() map[uint32]string {
	m := map[uint32]string{}
	for i := range s.defs {
		if n, err := s.offset(i); err == nil {
			if _, seen := m[n]; !seen {
				m[n] = s.defs[i].name
			}
		}
	}
	return m
}

// parseNumber reads a C integer constant: decimal or 0x hexadecimal with
// an optional u/l suffix. ok is false and why empty when v is not a
// number at all; why says what is wrong with one lodctr cannot take.
func parseNumber(v string) (n uint32, ok bool, why string) {
	if v == "" || v[0] < '0' || v[0] > '9' {
		if strings.HasPrefix(v, "-") {
			return 0, false, "a negative offset: offsets are even numbers from 0"
		}
		return 0, false, ""
	}
	digits := strings.TrimRight(v, "uUlL")
	base := 10
	switch {
	case len(digits) > 2 && (digits[:2] == "0x" || digits[:2] == "0X"):
		base, digits = 16, digits[2:]
	case len(digits) > 1 && digits[0] == '0':
		return 0, false, fmt.Sprintf("%q has a leading 0, an octal number in C: write the offset in decimal", v)
	}
	x, err := strconv.ParseUint(digits, base, 32)
	if err != nil {
		return 0, false, fmt.Sprintf("%q is not a 32-bit decimal or 0x hexadecimal number", clip(v))
	}
	return uint32(x), true, ""
}
