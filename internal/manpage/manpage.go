// Package manpage owns the writing of Unix manual pages: a Page (title,
// sections of paragraphs, tagged items and verbatim blocks) written as
// roff with the man macros (man(7)), and the conversion of the
// project's Markdown documents (headings, paragraphs, lists, tables,
// code blocks) into such sections. It knows nothing of perfc's commands:
// cmd/perfc builds the pages from its help screens.
//
// The output is deterministic (no date), so that generated pages can be
// committed and compared with what the generator writes.
package manpage

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Page is one manual page.
type Page struct {
	Name     string // the page's name, e.g. "perfc-typeperf"
	Section  string // the manual section, e.g. "1"
	Source   string // the footer's source, e.g. "perfc"
	Manual   string // the header's manual title, e.g. "perfc Manual"
	Summary  string // NAME line after the dash
	Sections []Section
}

// Section is one .SH section (or, with Sub, an .SS subsection) in order.
type Section struct {
	Title  string
	Sub    bool // a subsection (.SS) of the section before it
	Blocks []Block
}

// Block is one paragraph, tagged item or verbatim block of a section.
// Exactly one of its kinds is used: Text alone is a filled paragraph;
// Tag and Text an indented tagged paragraph (.TP); Verbatim lines are
// written unfilled (.EX), indented by Indent when set.
type Block struct {
	Tag      string
	Text     string
	Verbatim []string
	Indent   bool
}

// Write writes the page as roff.
func (p *Page) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, ".\\\" Generated from perfc's help screens and documents; do not edit.\n")
	bw.WriteString(".nr HY 0\n") // groff: no hyphenation in this page
	fmt.Fprintf(bw, ".TH %s %s \"\" %s %s\n", quoteArg(strings.ToUpper(p.Name)), p.Section, quoteArg(p.Source), quoteArg(p.Manual))
	bw.WriteString(".nh\n.ad l\n") // no hyphenation, ragged right: words and options as typed
	bw.WriteString(".SH NAME\n")
	fmt.Fprintf(bw, "%s \\- %s\n", Escape(p.Name), Escape(p.Summary))
	for _, s := range p.Sections {
		if s.Sub {
			fmt.Fprintf(bw, ".SS %s\n", quoteArg(s.Title))
		} else {
			fmt.Fprintf(bw, ".SH %s\n", quoteArg(strings.ToUpper(s.Title)))
		}
		for _, b := range s.Blocks {
			writeBlock(bw, b)
		}
	}
	return bw.Flush()
}

func writeBlock(w *bufio.Writer, b Block) {
	switch {
	case b.Verbatim != nil:
		if b.Indent {
			w.WriteString(".RS 4\n")
		}
		w.WriteString(".EX\n")
		for _, l := range b.Verbatim {
			w.WriteString(escapeLine(l) + "\n")
		}
		w.WriteString(".EE\n")
		if b.Indent {
			w.WriteString(".RE\n")
		}
	case b.Tag != "":
		w.WriteString(".TP\n")
		w.WriteString(escapeLine(b.Tag) + "\n")
		w.WriteString(escapeLine(fill(b.Text)) + "\n")
	default:
		w.WriteString(".PP\n")
		w.WriteString(escapeLine(fill(b.Text)) + "\n")
	}
}

// fill joins a paragraph's lines into one (roff fills it).
func fill(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Escape escapes text for roff: backslashes, hyphen-minus (so that
// options and paths are copied as typed), and quotes that typesetting
// would curl.
func Escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\e`)
		case '-':
			b.WriteString(`\-`)
		case '\'':
			b.WriteString(`\(aq`)
		case '`':
			b.WriteString(`\(ga`)
		case '~':
			b.WriteString(`\(ti`)
		case '^':
			b.WriteString(`\(ha`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// escapeLine escapes one line of text, and keeps a line that starts with
// a period or apostrophe from being read as a request.
func escapeLine(s string) string {
	e := Escape(s)
	if strings.HasPrefix(e, ".") || strings.HasPrefix(e, "'") {
		e = `\&` + e
	}
	return e
}

// quoteArg quotes a macro argument.
func quoteArg(s string) string {
	return `"` + strings.ReplaceAll(Escape(s), `"`, `\(dq`) + `"`
}
