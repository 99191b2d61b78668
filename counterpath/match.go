package counterpath

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// HasWildcard reports whether p is a pattern: its parent, instance or
// counter name contains '*', or its index is "#*". The object name is never
// a wildcard (PDH does not expand objects).
func (p Path) HasWildcard() bool {
	return strings.IndexByte(p.Parent, '*') >= 0 ||
		strings.IndexByte(p.Instance, '*') >= 0 ||
		strings.IndexByte(p.Counter, '*') >= 0 ||
		(p.HasIndex && p.Index == AnyIndex)
}

// Match reports whether the concrete path c is one of the paths that
// pattern stands for. Names compare case-insensitively (Unicode simple
// folding, as Windows compares counter names). In the pattern's parent,
// instance and counter names '*' matches any run of characters, so "svc*"
// and "*" both work; in c every character is literal. The rules:
//
//   - Machine: an empty pattern machine matches any machine; otherwise the
//     names must be equal.
//   - Object: equal names (no wildcard).
//   - Instance: both empty (single-instance object), or the pattern matches.
//   - Parent: the pattern's parent matches c's parent; an empty pattern
//     parent matches only an empty parent, except that a pattern instance of
//     exactly "*" takes every instance whatever its parent (as
//     PdhExpandWildCardPath does for `\Thread(*)\...`).
//   - Index: "#*" matches any index; "#n" matches n, and "#0" also a path
//     without index. Without an index, a pattern with a wildcard instance
//     matches any index, and a literal instance matches index 0 or none.
//   - Counter: the pattern matches.
func Match(pattern, c Path) bool {
	if pattern.Machine != "" && !strings.EqualFold(pattern.Machine, c.Machine) {
		return false
	}
	if !strings.EqualFold(pattern.Object, c.Object) {
		return false
	}
	if !Glob(pattern.Counter, c.Counter) {
		return false
	}
	if pattern.Instance == "" || c.Instance == "" {
		return pattern.Instance == "" && c.Instance == ""
	}
	if !Glob(pattern.Instance, c.Instance) {
		return false
	}
	switch {
	case pattern.Parent != "":
		if !Glob(pattern.Parent, c.Parent) {
			return false
		}
	case pattern.Instance != "*" && c.Parent != "":
		return false
	}
	cIndex := 0
	if c.HasIndex {
		cIndex = c.Index
	}
	switch {
	case pattern.HasIndex && pattern.Index == AnyIndex:
		return true
	case pattern.HasIndex:
		return cIndex == pattern.Index
	case strings.IndexByte(pattern.Instance, '*') >= 0:
		return true
	default:
		return cIndex == 0
	}
}

// Glob matches name against pattern, where '*' in pattern matches any run
// of runes (possibly empty) and every other rune matches itself under
// simple case folding, as PDH matches instance names. It runs in
// O(len(pattern)·len(name)) at worst, without recursion. It is the
// module's one glob: counter paths, and the instance selections of the
// exports.
func Glob(pattern, name string) bool {
	p, n := 0, 0
	starP, starN := -1, 0
	for n < len(name) {
		if p < len(pattern) && pattern[p] == '*' {
			starP, starN = p, n
			p++
			continue
		}
		if p < len(pattern) {
			pr, ps := utf8.DecodeRuneInString(pattern[p:])
			nr, ns := utf8.DecodeRuneInString(name[n:])
			if foldEqual(pr, nr, pattern[p:p+ps], name[n:n+ns]) {
				p += ps
				n += ns
				continue
			}
		}
		if starP < 0 {
			return false
		}
		// Let the last '*' take one more rune of name and retry.
		_, ns := utf8.DecodeRuneInString(name[starN:])
		starN += ns
		p, n = starP+1, starN
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// foldEqual compares two runes under simple folding; invalid bytes compare
// by their raw bytes so that distinct invalid sequences stay distinct.
func foldEqual(a, b rune, as, bs string) bool {
	if a == utf8.RuneError || b == utf8.RuneError {
		return as == bs
	}
	if a == b {
		return true
	}
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}
