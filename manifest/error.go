package manifest

import (
	"fmt"
	"strings"
)

// Error is a manifest that cannot be loaded: where (file, line, element,
// attribute) and which rule it breaks.
type Error struct {
	File    string // the name given to Parse, or the path given to ParseFile
	Line    int    // 1-based line of the attribute or element; 0 if unknown
	Element string // the element as written in messages, e.g. `<counter id="3">`; may be empty
	Attr    string // the attribute the rule is about; may be empty
	Rule    string // what is wrong, e.g. "baseID 7 names a perf_counter_rawcount, want perf_average_base"
}

// Error formats as "file:line: <element>: rule".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Element != "" {
		b.WriteString(e.Element)
		b.WriteString(": ")
	}
	b.WriteString(e.Rule)
	return b.String()
}
