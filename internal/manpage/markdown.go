package manpage

import (
	"regexp"
	"strings"
)

// FromMarkdown converts a Markdown document, as the project writes them,
// into sections: a level-1 heading starts a section (.SH), deeper ones a
// subsection (.SS); paragraphs are filled; list items become tagged
// paragraphs; tables and fenced code blocks are kept verbatim. Inline
// markup is reduced to its text: `code` and **strong** lose their marks,
// [text](target) becomes text. Text before the first heading goes into a
// section titled first.
func FromMarkdown(first, md string) []Section {
	var out []Section
	cur := &Section{Title: first}
	var para []string
	var item *Block
	flush := func() {
		if item != nil {
			item.Text = inline(item.Text)
			cur.Blocks = append(cur.Blocks, *item)
			item = nil
		}
		if len(para) > 0 {
			cur.Blocks = append(cur.Blocks, Block{Text: inline(strings.Join(para, " "))})
			para = nil
		}
	}
	push := func(s Section) {
		flush()
		if len(cur.Blocks) > 0 || cur.Title != first {
			out = append(out, *cur)
		}
		cur = &s
	}
	lines := strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "```"):
			flush()
			var code []string
			for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), "```"); i++ {
				code = append(code, strings.TrimRight(lines[i], " \t"))
			}
			cur.Blocks = append(cur.Blocks, Block{Verbatim: nonNil(code), Indent: true})
		case strings.HasPrefix(t, "#"):
			level := len(t) - len(strings.TrimLeft(t, "#"))
			title := inline(strings.TrimSpace(t[level:]))
			push(Section{Title: title, Sub: level > 1})
		case strings.HasPrefix(t, "|"):
			flush()
			var rows []string
			for ; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|"); i++ {
				rows = append(rows, inline(strings.TrimSpace(lines[i])))
			}
			i--
			cur.Blocks = append(cur.Blocks, Block{Verbatim: rows})
		case t == "":
			flush()
		case listItem.MatchString(l):
			flush()
			m := listItem.FindStringSubmatch(l)
			tag := m[1]
			if tag == "-" || tag == "*" {
				tag = "\u2022"
			}
			item = &Block{Tag: tag, Text: m[2]}
		case item != nil && (strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")):
			item.Text += " " + t
		default:
			if item != nil {
				flush()
			}
			para = append(para, t)
		}
	}
	push(Section{})
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

var (
	listItem = regexp.MustCompile(`^\s{0,3}([-*]|[0-9]+\.)\s+(.*)$`)
	link     = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// inline reduces Markdown's inline markup to its text.
func inline(s string) string {
	s = link.ReplaceAllString(s, "$1")
	s = strings.ReplaceAll(s, "**", "")
	s = strings.ReplaceAll(s, "`", "")
	return s
}
