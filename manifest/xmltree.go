package manifest

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/perfcounters/perfcounters/utf16le"
)

// The namespaces a manifest's elements may be in. Real manifests put
// <counters> in the counters namespace and everything around it in the events
// namespace; hand-written ones often use no namespace at all.
const (
	nsEvents   = "http://schemas.microsoft.com/win/2004/08/events"
	nsCounters = "http://schemas.microsoft.com/win/2005/12/counters"
)

// Limits that keep a hostile file from costing unbounded memory or stack.
const (
	maxInputSize = 32 << 20
	maxDepth     = 128
)

// node is one element of the parsed document, with where it starts so that
// errors can name a line.
type node struct {
	name     string // local name
	attrs    []xml.Attr
	start    int // byte offset of '<'
	end      int // byte offset just past the start tag's '>'
	line     int // line of '<'
	children []*node
}

// attr returns the value of the unprefixed attribute name and whether it is
// present.
func (n *node) attr(name string) (string, bool) {
	for _, a := range n.attrs {
		if a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

// doc is a parsed document with the text it came from.
type doc struct {
	file  string
	data  []byte
	root  *node
	lines []int // byte offsets of line starts
}

// lineOf returns the 1-based line number of a byte offset.
func (d *doc) lineOf(off int) int {
	lo, hi := 0, len(d.lines)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if d.lines[m] <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return 1
	}
	return lo
}

// attrLine returns the line on which attribute name is written in n's start
// tag, or n's line when it cannot be found.
func (d *doc) attrLine(n *node, name string) int {
	if n.start < 0 || n.end > len(d.data) || n.start >= n.end {
		return n.line
	}
	tag := d.data[n.start:n.end]
	for i := 0; i+len(name) <= len(tag); {
		j := bytes.Index(tag[i:], []byte(name))
		if j < 0 {
			break
		}
		j += i
		before := j > 0 && isXMLSpace(tag[j-1])
		k := j + len(name)
		for k < len(tag) && isXMLSpace(tag[k]) {
			k++
		}
		if before && k < len(tag) && tag[k] == '=' {
			return d.lineOf(n.start + j)
		}
		i = j + 1
	}
	return n.line
}

func isXMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// readDoc reads a whole document into a tree of the elements in the accepted
// namespaces (elements of other namespaces are skipped with their content).
func readDoc(file string, r io.Reader) (*doc, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxInputSize+1))
	if err != nil {
		return nil, &Error{File: file, Rule: fmt.Sprintf("read: %v", err)}
	}
	if len(data) > maxInputSize {
		return nil, &Error{File: file, Rule: fmt.Sprintf("file larger than %d bytes", maxInputSize)}
	}
	data, err = toUTF8(data)
	if err != nil {
		return nil, &Error{File: file, Line: 1, Rule: err.Error()}
	}
	d := &doc{file: file, data: data, lines: []int{0}}
	for i, c := range data {
		if c == '\n' {
			d.lines = append(d.lines, i+1)
		}
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	// The bytes are UTF-8 by now whatever the declaration says; other
	// encodings are not used by manifests and are refused.
	dec.CharsetReader = func(label string, in io.Reader) (io.Reader, error) {
		switch strings.ToLower(label) {
		case "utf-8", "utf8", "utf-16", "utf-16le", "utf-16be", "unicode", "us-ascii", "ascii":
			return in, nil
		}
		return nil, fmt.Errorf("unsupported encoding %q", label)
	}
	var stack []*node
	skip := 0 // depth inside an element of a foreign namespace
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			line := d.lineOf(int(dec.InputOffset()))
			var se *xml.SyntaxError
			msg := err.Error()
			if errors.As(err, &se) {
				line, msg = se.Line, se.Msg
			}
			return nil, &Error{File: file, Line: line, Rule: "malformed XML: " + msg}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			end := int(dec.InputOffset())
			if skip > 0 {
				skip++
				continue
			}
			if len(stack) >= maxDepth {
				return nil, &Error{File: file, Line: d.lineOf(end), Element: t.Name.Local, Rule: fmt.Sprintf("elements nested deeper than %d", maxDepth)}
			}
			switch t.Name.Space {
			case "", nsEvents, nsCounters:
			default:
				skip = 1
				continue
			}
			start := bytes.LastIndexByte(data[:min(end, len(data))], '<')
			if start < 0 {
				start = 0
			}
			n := &node{name: t.Name.Local, start: start, end: end, line: d.lineOf(start)}
			// Past a few attributes a map, not n.attr, finds repeats: an
			// element with thousands of attributes must cost linear time.
			var seen map[string]struct{}
			if len(t.Attr) > 8 {
				seen = make(map[string]struct{}, len(t.Attr))
			}
			n.attrs = make([]xml.Attr, 0, len(t.Attr))
			for _, a := range t.Attr {
				if a.Name.Space != "" || a.Name.Local == "xmlns" {
					continue
				}
				dup := false
				if seen != nil {
					_, dup = seen[a.Name.Local]
					seen[a.Name.Local] = struct{}{}
				} else {
					_, dup = n.attr(a.Name.Local)
				}
				if dup {
					e := &Error{File: file, Line: d.attrLine(n, a.Name.Local), Element: label(n), Attr: a.Name.Local}
					e.Rule = fmt.Sprintf("attribute %s repeated", a.Name.Local)
					return nil, e
				}
				n.attrs = append(n.attrs, a)
			}
			if len(stack) == 0 {
				if d.root != nil {
					return nil, &Error{File: file, Line: n.line, Rule: "malformed XML: more than one root element"}
				}
				d.root = n
			} else {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			if skip > 0 {
				skip--
				continue
			}
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	if d.root == nil {
		return nil, &Error{File: file, Line: 1, Rule: "no XML element in the file"}
	}
	return d, nil
}

// toUTF8 returns the document as UTF-8: UTF-16 (either byte order, with or
// without a byte-order mark, as Windows tools often save manifests) is
// transcoded; a UTF-8 byte-order mark is dropped (utf16le.Text).
func toUTF8(b []byte) ([]byte, error) {
	s, err := utf16le.Text(b)
	return []byte(s), err
}
