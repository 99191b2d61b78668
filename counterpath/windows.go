package counterpath

import "strings"

// ParseWindows reads a path as Windows writes it in its logs (the column
// headers of a PDH-CSV or TSV file): PDH writes instance names as they
// are, without the escapes Parse asks for, so an instance such as a
// process named "setup(2)" comes as `\Process(setup(2))\ID Process`.
// A path Parse reads is returned as Parse reads it. Otherwise, when the
// path has an instance section, the counter is taken to be what follows
// the last '\' and the instance section to run from the first '(' after
// the object name to the ')' just before that '\'; the parentheses (and
// percent signs) inside it are read as part of the names, and '/' and
// '#n' keep their meaning. A path that still does not parse is an error:
// Parse's error for the path as given.
func ParseWindows(s string) (Path, error) {
	p, err := Parse(s)
	if err == nil {
		return p, nil
	}
	k := strings.LastIndexByte(s, '\\')
	if k <= 0 || k == len(s)-1 || s[k-1] != ')' {
		return Path{}, err
	}
	head := s[:k]
	objStart := 0
	if strings.HasPrefix(head, `\\`) {
		e := strings.IndexByte(head[2:], '\\')
		if e < 0 {
			return Path{}, err
		}
		objStart = 2 + e
	}
	open := strings.IndexByte(head[objStart:], '(')
	if open < 0 {
		return Path{}, err
	}
	open += objStart
	inner := head[open+1 : len(head)-1]
	if !strings.ContainsAny(inner, "()") {
		return Path{}, err // not what this reading is for
	}
	q, err2 := Parse(head[:open+1] + windowsInstanceEscapes.Replace(inner) + ")" + s[k:])
	if err2 != nil {
		return Path{}, err
	}
	return q, nil
}

// windowsInstanceEscapes escapes the characters of an instance section
// that Windows leaves as they are and Parse reads as syntax or escapes.
var windowsInstanceEscapes = strings.NewReplacer("%", "%25", "(", "%28", ")", "%29")
