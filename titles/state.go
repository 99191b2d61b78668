package titles

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The state file format, version 2 (UTF-8 text, LF line ends):
//
//	perfc-titles 2
//	base-index<TAB>1847
//	last-counter<TAB>4660
//	entries<TAB>1839
//	2<TAB>System<TAB>The System performance object ...
//	4660<TAB>My Object<TAB>
//	end
//
// The first line names the format and its version. Then come the header
// lines base-index and last-counter (both optional, each at most once)
// and entries (required: the number of entry lines), then one line per
// name index in ascending order: the even index, the name and the help
// text of index+1, either of which may be empty but not both. The last
// line is "end". A file cut short anywhere, even on a line boundary, lacks
// "end" or has fewer entries than it says, and is refused. In names and
// help texts a backslash, TAB, LF and CR are written as \\, \t, \n and \r;
// no other escape exists.
//
// Version 1 is version 2 without the entries header and the end line;
// Read still reads it (without detecting truncation).
const (
	stateMagic   = "perfc-titles "
	stateVersion = "2"
)

var textEscaper = strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`)

func unescapeText(s string) (string, error) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i+1 == len(s) {
			return "", fmt.Errorf("backslash at the end of a field")
		}
		i++
		switch s[i] {
		case '\\':
			b.WriteByte('\\')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		default:
			return "", fmt.Errorf("unknown escape \\%c", s[i])
		}
	}
	return b.String(), nil
}

// WriteTo writes the database in the state file format (see the comment
// on the format in state.go) and returns the number of bytes written.
func (db *DB) WriteTo(w io.Writer) (int64, error) {
	entries := db.Entries()
	db.mu.RLock()
	base, last := db.base, db.lastCounter
	db.mu.RUnlock()
	bw := bufio.NewWriter(w)
	var n int64
	write := func(s string) {
		k, _ := bw.WriteString(s)
		n += int64(k)
	}
	write(stateMagic + stateVersion + "\n")
	write("base-index\t" + strconv.FormatUint(uint64(base), 10) + "\n")
	write("last-counter\t" + strconv.FormatUint(uint64(last), 10) + "\n")
	write("entries\t" + strconv.Itoa(len(entries)) + "\n")
	for _, e := range entries {
		write(strconv.FormatUint(uint64(e.Index), 10) + "\t" + textEscaper.Replace(e.Name) + "\t" + textEscaper.Replace(e.Help) + "\n")
	}
	write("end\n")
	if err := bw.Flush(); err != nil {
		return n, fmt.Errorf("titles: write state: %w", err)
	}
	return n, nil
}

// Read reads a database written by WriteTo (format version 2, or the
// older version 1). Errors name the line; a version 2 file cut short is
// refused.
func Read(r io.Reader) (*DB, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, maxLine)
	line := 0
	fail := func(format string, args ...any) (*DB, error) {
		return nil, fmt.Errorf("titles: state line %d: "+format, append([]any{line}, args...)...)
	}
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("titles: state: %w", err)
		}
		return nil, errors.New("titles: state: empty file")
	}
	line = 1
	v2 := false
	switch first := sc.Text(); first {
	case stateMagic + "1":
	case stateMagic + stateVersion:
		v2 = true
	default:
		if v, ok := strings.CutPrefix(first, stateMagic); ok {
			return fail("unsupported version %q (want 1 or %s)", v, stateVersion)
		}
		return fail("not a perfc-titles file")
	}
	count, ended := -1, false
	n := 0
	db := newDB(0)
	var last uint32
	seenHeader := map[string]bool{}
	entries := false
	prev := uint32(0)
	for sc.Scan() {
		line++
		s := sc.Text()
		if ended {
			return fail("text after the end line")
		}
		if v2 && s == "end" {
			ended = true
			continue
		}
		f := strings.Split(s, "\t")
		if key := f[0]; key == "base-index" || key == "last-counter" || v2 && key == "entries" {
			if entries {
				return fail("header %s after the entries", key)
			}
			if seenHeader[key] {
				return fail("duplicate header %s", key)
			}
			seenHeader[key] = true
			if len(f) != 2 {
				return fail("header %s: want 2 TAB-separated fields, have %d", key, len(f))
			}
			v, err := strconv.ParseUint(f[1], 10, 32)
			if err != nil {
				return fail("header %s: bad value %q", key, f[1])
			}
			switch key {
			case "base-index":
				db.base = uint32(v)
			case "entries":
				count = int(v)
			default:
				last = uint32(v)
			}
			continue
		}
		if v2 && count < 0 {
			return fail("no entries header before the entries")
		}
		entries = true
		n++
		if len(f) != 3 {
			return fail("want 3 TAB-separated fields (index, name, help), have %d", len(f))
		}
		i, err := parseIndex(f[0])
		if err != nil {
			return fail("%v", err)
		}
		if i%2 != 0 {
			return fail("odd index %d (entries are keyed by name index)", i)
		}
		if i <= prev {
			return fail("index %d after %d (indexes must ascend)", i, prev)
		}
		prev = i
		name, err := unescapeText(f[1])
		if err != nil {
			return fail("name: %v", err)
		}
		help, err := unescapeText(f[2])
		if err != nil {
			return fail("help: %v", err)
		}
		if name == "" && help == "" {
			return fail("index %d has neither name nor help", i)
		}
		if err := checkText(name); err != nil {
			return fail("name %v", err)
		}
		if err := checkText(help); err != nil {
			return fail("help %v", err)
		}
		if name != "" {
			db.setName(i, name)
		}
		if help != "" {
			db.helps[i+1] = help
		}
	}
	if err := sc.Err(); err != nil {
		return fail("%v", err)
	}
	if v2 {
		switch {
		case count < 0:
			return nil, errors.New("titles: state: no entries header (the file is cut short)")
		case !ended:
			return nil, fmt.Errorf("titles: state: no end line after line %d (the file is cut short)", line)
		case n != count:
			return nil, fmt.Errorf("titles: state: %d entries, the header says %d (lines are missing)", n, count)
		}
	}
	if last%2 != 0 {
		return nil, fmt.Errorf("titles: state: last-counter %d is odd", last)
	}
	db.lastCounter = max(db.lastCounter, last)
	return db, nil
}
