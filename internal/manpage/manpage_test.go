package manpage

import (
	"bytes"
	"strings"
	"testing"
)

// TestWrite: a page's roff, line by line, with the escapes that keep
// options, paths and quotes as typed and a leading period from being a
// request.
func TestWrite(t *testing.T) {
	p := &Page{Name: "perfc-x", Section: "1", Source: "perfc", Manual: "perfc Manual", Summary: "do x",
		Sections: []Section{
			{Title: "Options", Blocks: []Block{{Tag: "-sc <samples>", Text: "Samples\nto take."}}},
			{Title: "Examples", Blocks: []Block{{Text: "Counters:"}, {Verbatim: []string{`perfc x "\Memory\Available Bytes" 'a'`, ".hidden"}, Indent: true}}},
			{Title: "Sub", Sub: true, Blocks: []Block{{Text: ".starts with a period"}}},
		}}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	want := `.\" Generated from perfc's help screens and documents; do not edit.
.nr HY 0
.TH "PERFC\-X" 1 "" "perfc" "perfc Manual"
.nh
.ad l
.SH NAME
perfc\-x \- do x
.SH "OPTIONS"
.TP
\-sc <samples>
Samples to take.
.SH "EXAMPLES"
.PP
Counters:
.RS 4
.EX
perfc x "\eMemory\eAvailable Bytes" \(aqa\(aq
\&.hidden
.EE
.RE
.SS "Sub"
.PP
\&.starts with a period
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestFromMarkdown: headings, paragraphs, lists, tables and code blocks.
func TestFromMarkdown(t *testing.T) {
	md := "Intro `code` and [a link](x.md).\n\n# Title\n\nText **bold**\nmore.\n\n## Sub\n\n- one\n  two\n- three\n\n| a | b |\n|---|---|\n\n```\ncode line\n```\n"
	got := FromMarkdown("First", md)
	want := []Section{
		{Title: "First", Blocks: []Block{{Text: "Intro code and a link."}}},
		{Title: "Title", Blocks: []Block{{Text: "Text bold more."}}},
		{Title: "Sub", Sub: true, Blocks: []Block{{Tag: "\u2022", Text: "one two"}, {Tag: "\u2022", Text: "three"},
			{Verbatim: []string{"| a | b |", "|---|---|"}}, {Verbatim: []string{"code line"}, Indent: true}}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d sections %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Title != w.Title || g.Sub != w.Sub || len(g.Blocks) != len(w.Blocks) {
			t.Fatalf("section %d: got %+v, want %+v", i, g, w)
		}
		for j := range w.Blocks {
			gb, wb := g.Blocks[j], w.Blocks[j]
			if gb.Tag != wb.Tag || gb.Text != wb.Text || gb.Indent != wb.Indent || strings.Join(gb.Verbatim, "\n") != strings.Join(wb.Verbatim, "\n") || (gb.Verbatim == nil) != (wb.Verbatim == nil) {
				t.Errorf("section %d block %d: got %+v, want %+v", i, j, gb, wb)
			}
		}
	}
}

// FuzzFromMarkdown: no document makes the converter or the writer panic,
// and no line of the roff starts a request the page did not mean (every
// line starting with a period is one of the macros the writer emits).
func FuzzFromMarkdown(f *testing.F) {
	f.Add("# T\n\ntext\n\n- a\n\n```\ncode\n```\n| x |\n")
	f.Add("```\nunclosed")
	f.Add(".TH x\n'foo\n\\fB")
	f.Fuzz(func(t *testing.T, md string) {
		p := &Page{Name: "x", Section: "5", Summary: "s", Sections: FromMarkdown("First", md)}
		var b bytes.Buffer
		if err := p.Write(&b); err != nil {
			t.Fatal(err)
		}
		macros := []string{".TH ", ".nr HY", ".nh", ".ad l", ".SH ", ".SS ", ".PP", ".TP", ".RS 4", ".RE", ".EX", ".EE", `.\" Generated`}
		for _, l := range strings.Split(b.String(), "\n") {
			if !strings.HasPrefix(l, ".") && !strings.HasPrefix(l, "'") {
				continue
			}
			ok := false
			for _, m := range macros {
				if strings.HasPrefix(l, m) {
					ok = true
				}
			}
			if !ok {
				t.Fatalf("line %q starts a request", l)
			}
		}
	})
}
