package perfini

import (
	"fmt"
	"strings"
)

// INI is an .ini file as lodctr reads it: the keys of its four sections,
// each with its line. Sections and keys of other names are ignored, as is
// everything before the first section (comments before [info]).
type INI struct {
	File       string     // the name given to ParseINI, for messages
	DriverName string     // [info] drivername: the provider's name (Windows' service key)
	DriverLine int        // its line
	SymbolFile string     // [info] symbolfile: the symbol file, beside the .ini
	SymbolLine int        // its line
	Languages  []Language // [languages], in file order, without repeats
	HasObjects bool       // the file has an [objects] section
	Objects    []Ref      // [objects] keys
	Text       []Ref      // [text] keys
	Warnings   []string   // what was accepted but may not do what was meant ("FILE:LINE: ...")
}

// Language is one language of [languages]: its id as three upper-case
// hexadecimal digits of the primary language id ("009" English, "007"
// German, "00C" French; "804", "404", "416", "816" for Chinese and
// Portuguese).
type Language struct {
	ID   string
	Line int
}

// Ref is one key of [objects] or [text]: SYMBOL_LANGID_NAME or
// SYMBOL_LANGID_HELP and its value.
type Ref struct {
	Symbol string // as the .ini spells it
	Lang   string // language id, normalized as Language.ID
	Help   bool   // a _HELP key; else _NAME
	Value  string // trimmed, one pair of enclosing quotes removed ([objects]: unused)
	Line   int
}

// section names lodctr reads, as ParseINI keys them.
const (
	secNone      = ""
	secOther     = "\x00other"
	secInfo      = "info"
	secLanguages = "languages"
	secObjects   = "objects"
	secText      = "text"
)

// ParseINI reads an .ini file's bytes; file names it in messages. Lines
// are "[section]", "key = value" (blanks around the key, the '=' and the
// value ignored; a value's enclosing quotes removed), blank, or comments
// (starting with ';' or "//"). Section names and keys compare without
// case. A refusal names the file and line; up to 10 are reported.
func ParseINI(file string, data []byte) (*INI, error) {
	text, warning, err := decode(file, data)
	if err != nil {
		return nil, err
	}
	ini := &INI{File: file}
	if warning != "" {
		ini.Warnings = append(ini.Warnings, warning)
	}
	var c errs
	sec := secNone
	secLine := map[string]int{}
	textKeys := map[refKey]int{} // [text] key -> index in ini.Text
	langs := map[string]int{}    // language id -> its line
	mapped := map[string]bool{}  // primary ids mapped to 804/416, warned once
	lines(text, func(n int, raw string) bool {
		if c.full() {
			return false
		}
		s := trim(raw)
		switch {
		case s == "", s[0] == ';', strings.HasPrefix(s, "//"):
			return true
		case s[0] == '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				c.add(file, n, "section header %q has no closing ']'", s)
				return true
			}
			name := strings.ToLower(trim(s[1:end]))
			switch name {
			case secInfo, secLanguages, secObjects, secText:
				if first, ok := secLine[name]; ok {
					c.add(file, n, "a second [%s] section (the first is at line %d): merge them", name, first)
				} else {
					secLine[name] = n
				}
				sec = name
				if name == secObjects {
					ini.HasObjects = true
				}
			default:
				sec = secOther // lodctr reads only its four sections
			}
			return true
		case sec == secNone || sec == secOther:
			return true // text no lodctr lookup reaches
		}
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			c.add(file, n, "[%s]: %q is not KEY=VALUE", sec, clip(s))
			return true
		}
		key, val := trim(k), unquote(trim(v))
		if key == "" {
			c.add(file, n, "[%s]: a value without a key", sec)
			return true
		}
		switch sec {
		case secInfo:
			var dst *string
			var at *int
			switch strings.ToLower(key) {
			case "drivername":
				dst, at = &ini.DriverName, &ini.DriverLine
			case "symbolfile":
				dst, at = &ini.SymbolFile, &ini.SymbolLine
			default:
				return true // trusted, and keys lodctr does not read
			}
			switch {
			case val == "":
				c.add(file, n, "[info] %s is empty", strings.ToLower(key))
				*at = n
			case firstControl(val) >= 0:
				c.add(file, n, "[info] %s contains the control character %U", strings.ToLower(key), firstControl(val))
				*at = n
			case *at != 0 && *dst != val:
				c.add(file, n, "[info] %s = %q, but line %d says %q", strings.ToLower(key), val, *at, *dst)
			case *at == 0:
				*dst, *at = val, n
			}
		case secLanguages:
			if key == "000" {
				// LANG_NEUTRAL: lodctr leaves it unused, and so does perfc.
				ini.Warnings = append(ini.Warnings, warn(file, n, "language 000 (neutral) is left unused, as lodctr leaves it"))
				return true
			}
			id, ok := parseLang(key)
			if !ok {
				c.add(file, n, "[languages]: %q is not a language id: three hexadecimal digits of the primary language id, such as 009 (English) or 007 (German), not a locale id such as 1033", clip(key))
				return true
			}
			if to, ok := primaryOnly[id]; ok {
				if !mapped[id] {
					ini.Warnings = append(ini.Warnings, warn(file, n, "language %s taken as %s, as lodctr takes a primary-only Chinese or Portuguese id", id, to))
					mapped[id] = true
				}
				id = to
			}
			if _, dup := langs[id]; dup {
				return true
			}
			if len(ini.Languages) >= MaxLanguages {
				c.add(file, n, "more than %d languages", MaxLanguages)
				return false
			}
			langs[id] = n
			ini.Languages = append(ini.Languages, Language{ID: id, Line: n})
		case secObjects, secText:
			r, why := parseRef(key)
			if why != "" && isNeutralRef(key) {
				return true // a name of language 000, which is left unused
			}
			if why != "" {
				c.add(file, n, "[%s]: key %q %s", sec, clip(key), why)
				return true
			}
			if to, ok := primaryOnly[r.Lang]; ok {
				r.Lang = to
			}
			r.Value, r.Line = val, n
			if sec == secObjects {
				if len(ini.Objects) >= MaxNames {
					c.add(file, n, "[objects] lists more than %d objects", MaxNames)
					return false
				}
				ini.Objects = append(ini.Objects, r)
				return true
			}
			if !r.Help && val == "" {
				c.add(file, n, "[text]: %s is empty: a NAME key holds the object's or counter's name", key)
				return true
			}
			if ch := firstControl(val); ch >= 0 && (!r.Help || ch == 0) {
				c.add(file, n, "[text]: %s contains the control character %U: text must not hold formatting characters such as tabs", key, ch)
				return true
			}
			rk := refKey{upper(r.Symbol), r.Lang, r.Help}
			if i, dup := textKeys[rk]; dup {
				if old := ini.Text[i]; old.Value != val {
					c.add(file, n, "[text]: %s = %q, but line %d gives it as %q", key, clip(val), old.Line, clip(old.Value))
				}
				return true
			}
			if len(ini.Text) >= 2*MaxNames*MaxLanguages {
				c.add(file, n, "[text] holds more than %d keys", 2*MaxNames*MaxLanguages)
				return false
			}
			textKeys[rk] = len(ini.Text)
			ini.Text = append(ini.Text, r)
		}
		return true
	})
	if !c.full() {
		switch {
		case secLine[secInfo] == 0:
			c.add(file, 0, "no [info] section: lodctr needs its drivername and symbolfile")
		default:
			if ini.DriverLine == 0 {
				c.add(file, secLine[secInfo], "[info] has no drivername (the provider's name)")
			}
			if ini.SymbolLine == 0 {
				c.add(file, secLine[secInfo], "[info] has no symbolfile (the .h file of the offsets)")
			}
		}
		if len(ini.Languages) == 0 {
			c.add(file, secLine[secLanguages], "no language in [languages]: list one key per language of [text], such as 009=English")
		}
		if secLine[secText] == 0 {
			c.add(file, 0, "no [text] section: lodctr takes the names and help texts from it")
		}
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	return ini, nil
}

type refKey struct {
	sym, lang string
	help      bool
}

// primaryOnly maps the primary-only Chinese and Portuguese ids to the ids
// lodctr uses for them (INI.md).
var primaryOnly = map[string]string{"004": "804", "016": "416"}

// parseLang reads a language id: exactly three hexadecimal digits, not 000.
func parseLang(s string) (string, bool) {
	if len(s) != 3 || s == "000" {
		return "", false
	}
	for i := 0; i < 3; i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return "", false
		}
	}
	return upper(s), true
}

// parseRef splits SYMBOL_LANGID_NAME or SYMBOL_LANGID_HELP (any case);
// why says what is wrong when it is neither.
func parseRef(key string) (Ref, string) {
	const form = "is not SYMBOL_LANGID_NAME or SYMBOL_LANGID_HELP"
	i := strings.LastIndexByte(key, '_')
	if i < 0 {
		return Ref{}, form
	}
	var r Ref
	switch suffix := key[i+1:]; {
	case strings.EqualFold(suffix, "NAME"):
	case strings.EqualFold(suffix, "HELP"):
		r.Help = true
	default:
		return Ref{}, form + " (it must end in _NAME or _HELP)"
	}
	rest := key[:i]
	j := strings.LastIndexByte(rest, '_')
	if j <= 0 {
		return Ref{}, form
	}
	lang, ok := parseLang(rest[j+1:])
	if !ok {
		return Ref{}, form + " (" + clip(rest[j+1:]) + " is not a three-digit hexadecimal language id)"
	}
	r.Symbol, r.Lang = trim(rest[:j]), lang
	if r.Symbol == "" {
		return Ref{}, form
	}
	return r, ""
}

// isNeutralRef reports a [objects] or [text] key of language 000
// (SYMBOL_000_NAME, SYMBOL_000_HELP).
func isNeutralRef(key string) bool {
	i := strings.LastIndexByte(key, '_')
	if i < 0 {
		return false
	}
	rest := key[:i]
	j := strings.LastIndexByte(rest, '_')
	return j > 0 && rest[j+1:] == "000"
}

// unquote removes one pair of enclosing single or double quotes, as the
// profile functions do.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// clip shortens a quoted piece of input for a message.
func clip(s string) string {
	const n = 80
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "..."
}

func warn(file string, line int, format string, args ...any) string {
	return (&Error{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}).Error()
}
