package counterpath

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// AnyIndex is the Index of a path whose instance index is the wildcard
// "#*" (HasIndex is true).
const AnyIndex = -1

// Path is a counter path split into its parts. Names hold the real
// (unescaped) text; String adds the escapes. The zero value is not a valid
// path: Object and Counter are required.
type Path struct {
	// Machine is the computer name without the leading `\\`; empty means
	// the local computer.
	Machine string
	// Object is the performance object (counter set) name.
	Object string
	// Parent is the parent instance name (Thread's parent is a Process);
	// empty when there is none. It needs an Instance.
	Parent string
	// Instance is the instance name; empty for a single-instance object.
	Instance string
	// Index tells apart instances with equal names (0 is the first of
	// them, counted in order of appearance per parent); AnyIndex is "#*".
	// It is meaningful only when HasIndex is set.
	Index int
	// HasIndex reports that the path carries "#index". PDH treats a path
	// without an index like "#0"; Match does too, but Parse and String keep
	// the difference so that they stay exact inverses.
	HasIndex bool
	// Counter is the counter name, written verbatim as the rest of the
	// path after its last separator.
	Counter string
}

// ParseError describes a counter path that does not parse: the path, the
// byte offset at which it went wrong and what was wrong there.
type ParseError struct {
	Path   string
	Offset int
	Msg    string
}

// Error formats as: counterpath: "PATH": MSG at byte OFFSET.
func (e *ParseError) Error() string {
	q := `"` + e.Path + `"`
	if !printable(e.Path) {
		q = strconv.Quote(e.Path)
	}
	return "counterpath: " + q + ": " + e.Msg + " at byte " + strconv.Itoa(e.Offset)
}

func printable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

// Parse splits a counter path, `[\\computer]\object[(parent/instance#index)]\counter`,
// into its parts (PdhParseCounterPath). Escapes (%XX) in the computer,
// object, parent and instance names are decoded; the counter name is taken
// verbatim. For every path it accepts, Parse(p.String()) == p, and
// p.String() is the canonical form of s.
func Parse(s string) (Path, error) {
	var p Path
	fail := func(off int, msg string) (Path, error) {
		return Path{}, &ParseError{Path: s, Offset: off, Msg: msg}
	}
	if s == "" {
		return fail(0, "empty path")
	}
	pos := 0
	if strings.HasPrefix(s, `\\`) {
		end := strings.IndexByte(s[2:], '\\')
		if end < 0 {
			return fail(len(s), `missing '\' after computer name`)
		}
		if end == 0 {
			return fail(2, "empty computer name")
		}
		name, off, msg := unescape(s[2:2+end], machineSpecials)
		if msg != "" {
			return fail(2+off, msg+" in computer name")
		}
		p.Machine = name
		pos = 2 + end
	}
	if s[pos] != '\\' {
		return fail(pos, `path must start with '\' or '\\computer'`)
	}
	pos++

	// Object: up to the instance section or the counter separator.
	objStart := pos
	for pos < len(s) && s[pos] != '(' && s[pos] != '\\' {
		if s[pos] == ')' {
			return fail(pos, "unexpected ')' in object name (write %29)")
		}
		pos++
	}
	if pos == objStart {
		return fail(objStart, "empty object name")
	}
	if pos == len(s) {
		return fail(pos, `missing '\' before counter name`)
	}
	name, off, msg := unescape(s[objStart:pos], objectSpecials)
	if msg != "" {
		return fail(objStart+off, msg+" in object name")
	}
	p.Object = name

	if s[pos] == '(' {
		secStart := pos + 1
		end := secStart
		for end < len(s) && s[end] != ')' {
			switch s[end] {
			case '\\':
				return fail(secStart, "missing ')' after instance")
			case '(':
				return fail(end, "unescaped '(' in instance name (write %28)")
			}
			end++
		}
		if end == len(s) {
			return fail(secStart, "missing ')' after instance")
		}
		if err := parseSection(s, secStart, end, &p); err != nil {
			return Path{}, err
		}
		pos = end + 1
		if pos == len(s) || s[pos] != '\\' {
			return fail(pos, `missing '\' before counter name after ')'`)
		}
	}
	// s[pos] == '\\': the rest is the counter name.
	if pos+1 == len(s) {
		return fail(pos+1, "empty counter name")
	}
	p.Counter = s[pos+1:]
	return p, nil
}

// parseSection parses s[start:end], the text between '(' and ')'.
func parseSection(s string, start, end int, p *Path) error {
	fail := func(off int, msg string) error {
		return &ParseError{Path: s, Offset: off, Msg: msg}
	}
	sec := s[start:end]
	instStart := start
	specials := instanceSpecials
	if len(sec) > 0 && sec[0] == '/' {
		// A mount point (`\LogicalDisk(/home)`): no parent, and the
		// instance's own slashes stand for themselves.
		specials = mountSpecials
	} else if slash := strings.IndexByte(sec, '/'); slash >= 0 {
		name, off, msg := unescape(sec[:slash], instanceSpecials)
		if msg != "" {
			return fail(start+off, msg+" in parent instance name")
		}
		p.Parent = name
		instStart = start + slash + 1
	}
	inst := s[instStart:end]
	if hash := strings.LastIndexByte(inst, '#'); hash >= 0 {
		idx, err := parseIndex(inst[hash+1:])
		if err != "" {
			return fail(instStart+hash, err)
		}
		p.Index, p.HasIndex = idx, true
		inst = inst[:hash]
	}
	if inst == "" {
		return fail(instStart, "empty instance name")
	}
	name, off, msg := unescape(inst, specials)
	if msg != "" {
		return fail(instStart+off, msg+" in instance name")
	}
	p.Instance = name
	return nil
}

// parseIndex parses what follows '#': digits or '*'.
func parseIndex(s string) (int, string) {
	if s == "*" {
		return AnyIndex, ""
	}
	if s == "" {
		return 0, "'#' not followed by an instance index (write %23 for a '#' in a name)"
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, "'#' not followed by an instance index (write %23 for a '#' in a name)"
		}
		if n > (math.MaxInt32-int(c-'0'))/10 {
			return 0, "instance index " + s + " out of range"
		}
		n = n*10 + int(c-'0')
	}
	return n, ""
}

// ParseIndexSuffix splits an escaped instance name as written in a path,
// such as "svchost#3", into the name ("svchost", unescaped) and its index
// (3). hasIndex is false when there is no "#index" suffix; "#*" gives
// AnyIndex. A '#' that belongs to the name must be escaped as %23, so
// "C%23#2" is the name "C#" with index 2.
func ParseIndexSuffix(s string) (name string, index int, hasIndex bool, err error) {
	inst := s
	if hash := strings.LastIndexByte(s, '#'); hash >= 0 {
		idx, msg := parseIndex(s[hash+1:])
		if msg != "" {
			return "", 0, false, &ParseError{Path: s, Offset: hash, Msg: msg}
		}
		index, hasIndex = idx, true
		inst = s[:hash]
	}
	if inst == "" {
		return "", 0, false, &ParseError{Path: s, Offset: 0, Msg: "empty instance name"}
	}
	name, err = UnescapeInstance(inst)
	if err != nil {
		return "", 0, false, err
	}
	return name, index, hasIndex, nil
}

// String returns the path in canonical form (PdhMakeCounterPath), escaping
// the names as the package doc describes. For a valid Path p (see
// Validate), Parse(p.String()) returns p.
func (p Path) String() string {
	var b strings.Builder
	b.Grow(len(p.Machine) + len(p.Object) + len(p.Parent) + len(p.Instance) + len(p.Counter) + 16)
	if p.Machine != "" {
		b.WriteString(`\\`)
		b.WriteString(escape(p.Machine, machineSpecials))
	}
	b.WriteByte('\\')
	b.WriteString(escape(p.Object, objectSpecials))
	if p.Instance != "" {
		b.WriteByte('(')
		if p.Parent != "" {
			b.WriteString(escape(p.Parent, instanceSpecials))
			b.WriteByte('/')
		}
		if p.Parent == "" && p.Instance[0] == '/' {
			b.WriteString(escape(p.Instance, mountSpecials))
		} else {
			b.WriteString(escape(p.Instance, instanceSpecials))
		}
		if p.HasIndex {
			b.WriteByte('#')
			if p.Index == AnyIndex {
				b.WriteByte('*')
			} else {
				b.WriteString(strconv.Itoa(p.Index))
			}
		}
		b.WriteByte(')')
	}
	b.WriteByte('\\')
	b.WriteString(p.Counter)
	return b.String()
}

// Validate reports whether p can be written and parsed back unchanged: the
// object and counter names must not be empty, a parent or an index needs an
// instance, Index is 0 unless HasIndex, and the index is AnyIndex or in
// 0..math.MaxInt32.
func (p Path) Validate() error {
	switch {
	case p.Object == "":
		return errors.New("counterpath: empty object name")
	case p.Counter == "":
		return errors.New("counterpath: empty counter name")
	case p.Parent != "" && p.Instance == "":
		return errors.New("counterpath: parent instance " + strconv.Quote(p.Parent) + " without an instance")
	case p.HasIndex && p.Instance == "":
		return errors.New("counterpath: instance index without an instance")
	case !p.HasIndex && p.Index != 0:
		return errors.New("counterpath: Index " + strconv.Itoa(p.Index) + " set without HasIndex")
	case p.HasIndex && (p.Index < AnyIndex || p.Index > math.MaxInt32):
		return errors.New("counterpath: instance index " + strconv.Itoa(p.Index) + " out of range")
	}
	return nil
}
