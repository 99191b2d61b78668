package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/perfcounters/perfcounters/internal/manpage"
)

// The manual pages are generated from the help screens (help.go and each
// command's file: the same helpScreen and flag set the /? screen is
// written from) and, for perfc-logs(5), from the log formats' documents.
// They are committed in dist/man; TestManPages regenerates them (go test
// ./cmd/perfc -run TestManPages -update) and fails when the committed
// pages differ.

// helpCapture is an output that makes printHelp hand over the command's
// flag set instead of writing its screen.
type helpCapture struct{ fs *flag.FlagSet }

func (*helpCapture) Write(p []byte) (int, error) { return len(p), nil }

// logDocs are the documents perfc-logs(5) is made of, relative to the
// repository's root, with the section each starts.
func logDocs() [][2]string {
	return [][2]string{
		{"perflog/binlog/FORMAT.md", "perfc binary log"},
		{"perflog/blg/FORMAT.md", "Windows binary log"},
		{"perflog/sqllog/SQL.md", "SQL log"},
	}
}

// manPages returns every page by file name (perfc.1, perfc-typeperf.1,
// ..., perfc-logs.5); root is the repository's root, where the log
// formats' documents are read.
func manPages(ctx context.Context, root string) (map[string][]byte, error) {
	cmds := commands()
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].name < cmds[j].name })
	screens := helpScreens()
	type entry struct {
		name, short string
		args        []string // what shows the help: the command's words and /?
		run         func(context.Context, *env, []string) error
	}
	var entries []entry
	for _, c := range cmds {
		if c.hidden {
			continue
		}
		entries = append(entries, entry{c.name, c.short, []string{"/?"}, c.run})
		if c.name == "logman" {
			entries = append(entries, entry{"logman service", "the collector service of Data Collector Sets (run by the systemd units)", []string{"service", "/?"}, c.run})
		}
	}
	pages := map[string][]byte{}
	var seeAlso []string
	for _, en := range entries {
		seeAlso = append(seeAlso, pageName(en.name)+"(1)")
	}
	seeAlso = append(seeAlso, "perfc-logs(5)")
	for _, en := range entries {
		h, ok := screens[en.name]
		if !ok {
			return nil, fmt.Errorf("command %s has no help screen", en.name)
		}
		capt := &helpCapture{}
		e := &env{stdout: capt, stderr: capt, stdin: strings.NewReader(""), getenv: func(string) string { return "" }}
		if err := en.run(ctx, e, en.args); err != nil {
			return nil, fmt.Errorf("%s %s: %w", en.name, strings.Join(en.args, " "), err)
		}
		p := commandPage(en.name, en.short, h, capt.fs, seeAlso)
		var b bytes.Buffer
		if err := p.Write(&b); err != nil {
			return nil, err
		}
		pages[p.Name+".1"] = b.Bytes()
	}
	var b bytes.Buffer
	if err := overviewPage(cmds, seeAlso).Write(&b); err != nil {
		return nil, err
	}
	pages["perfc.1"] = b.Bytes()
	logs, err := logsPage(root)
	if err != nil {
		return nil, err
	}
	b = bytes.Buffer{}
	if err := logs.Write(&b); err != nil {
		return nil, err
	}
	pages["perfc-logs.5"] = b.Bytes()
	return pages, nil
}

// pageName is a command's page: perfc-typeperf, perfc-logman-service.
func pageName(command string) string {
	return "perfc-" + strings.ReplaceAll(command, " ", "-")
}

// commandPage is a command's page, from its help screen and flag set.
func commandPage(name, short string, h helpScreen, fs *flag.FlagSet, seeAlso []string) *manpage.Page {
	p := &manpage.Page{Name: pageName(name), Section: "1", Source: "perfc", Manual: "perfc Manual", Summary: short}
	syn := manpage.Section{Title: "Synopsis"}
	usage := h.usage
	if len(usage) == 0 {
		usage = []string{"perfc " + name + " [options]"}
	}
	syn.Blocks = append(syn.Blocks, manpage.Block{Verbatim: usage})
	p.Sections = append(p.Sections, syn)
	if h.about != "" {
		p.Sections = append(p.Sections, manpage.Section{Title: "Description", Blocks: paragraphs(h.about)})
	}
	if len(h.params) > 0 {
		s := manpage.Section{Title: "Parameters"}
		for _, pr := range h.params {
			s.Blocks = append(s.Blocks, manpage.Block{Tag: pr[0], Text: pr[1]})
		}
		p.Sections = append(p.Sections, s)
	}
	opts := manpage.Section{Title: "Options"}
	for _, o := range helpOptions(h, fs) {
		opts.Blocks = append(opts.Blocks, manpage.Block{Tag: o[0], Text: o[1]})
	}
	if len(h.opts) == 0 {
		opts.Blocks = append(opts.Blocks, manpage.Block{Text: optionsNote})
	}
	p.Sections = append(p.Sections, opts)
	if h.notes != "" {
		p.Sections = append(p.Sections, manpage.Section{Title: "Notes", Blocks: paragraphs(h.notes)})
	}
	if len(h.examples) > 0 {
		s := manpage.Section{Title: "Examples"}
		for _, ex := range h.examples {
			var lines []string
			for _, l := range strings.Split(ex[1], "\n") {
				lines = append(lines, strings.TrimSpace(l))
			}
			s.Blocks = append(s.Blocks, manpage.Block{Text: ex[0]}, manpage.Block{Verbatim: lines, Indent: true})
		}
		p.Sections = append(p.Sections, s)
	}
	p.Sections = append(p.Sections, exitSection(), seeAlsoSection(p.Name+"(1)", seeAlso))
	return p
}

// paragraphs splits a help text at its blank lines: a paragraph laid out
// by hand (a line indented, or columns of blanks) is kept verbatim, any
// other is filled.
func paragraphs(text string) []manpage.Block {
	var out []manpage.Block
	for _, para := range strings.Split(text, "\n\n") {
		lines := strings.Split(strings.Trim(para, "\n"), "\n")
		laid := false
		for _, l := range lines {
			if strings.HasPrefix(l, " ") || strings.Contains(strings.TrimSpace(l), "   ") {
				laid = true
			}
		}
		if laid {
			out = append(out, manpage.Block{Verbatim: lines})
		} else {
			out = append(out, manpage.Block{Text: strings.Join(lines, "\n")})
		}
	}
	return out
}

func exitSection() manpage.Section {
	s := manpage.Section{Title: "Exit status", Blocks: []manpage.Block{{Text: "Every perfc command exits with one of these statuses, by the class of its failure:"}}}
	for _, c := range exitClasses() {
		s.Blocks = append(s.Blocks, manpage.Block{Tag: strconv.Itoa(c.code), Text: c.what})
	}
	return s
}

func seeAlsoSection(self string, pages []string) manpage.Section {
	var others []string
	for _, p := range append([]string{"perfc(1)"}, pages...) {
		if p != self {
			others = append(others, p)
		}
	}
	return manpage.Section{Title: "See also", Blocks: []manpage.Block{{Text: strings.Join(others, ", ")}}}
}

// overviewPage is perfc(1): the commands and what is common to them.
func overviewPage(cmds []command, seeAlso []string) *manpage.Page {
	p := &manpage.Page{Name: "perfc", Section: "1", Source: "perfc", Manual: "perfc Manual", Summary: "Windows performance counters on Linux"}
	p.Sections = append(p.Sections,
		manpage.Section{Title: "Synopsis", Blocks: []manpage.Block{{Verbatim: []string{"perfc <command> [arguments] [options]", "perfc help <command>", "perfc --version"}}}},
		manpage.Section{Title: "Description", Blocks: []manpage.Block{{Text: "perfc is one binary holding the Windows performance tools (typeperf, relog, logman, lodctr, ...) for Linux counters. Each command's page describes its options; 'perfc <command> /?' prints the same text as its help screen."}}})
	s := manpage.Section{Title: "Commands"}
	for _, c := range cmds {
		if !c.hidden {
			s.Blocks = append(s.Blocks, manpage.Block{Tag: c.name, Text: c.short + " (" + pageName(c.name) + "(1))"})
		}
	}
	s.Blocks = append(s.Blocks, manpage.Block{Text: "Options are written with - or / and in any case (-sc 5, /SC 5). perfc --version, perfc -v and perfc version print the version, commit and build date."})
	p.Sections = append(p.Sections, s, exitSection(), seeAlsoSection("perfc(1)", seeAlso))
	return p
}

// logsPage is perfc-logs(5): the log formats' documents.
func logsPage(root string) (*manpage.Page, error) {
	p := &manpage.Page{Name: "perfc-logs", Section: "5", Source: "perfc", Manual: "perfc Manual", Summary: "the log formats perfc writes and reads: its binary log, Windows' .blg, SQL logs"}
	p.Sections = append(p.Sections, manpage.Section{Title: "Description", Blocks: []manpage.Block{{Text: "This page holds the documents of the log formats, as the source tree keeps them beside their code: " +
		strings.Join(func() []string {
			var l []string
			for _, d := range logDocs() {
				l = append(l, d[0])
			}
			return l
		}(), ", ") + ". Text logs (CSV, TSV) are PDH's, as Windows writes them."}}})
	for _, d := range logDocs() {
		md, err := os.ReadFile(filepath.Join(root, d[0]))
		if err != nil {
			return nil, err
		}
		p.Sections = append(p.Sections, manpage.FromMarkdown(d[1], string(md))...)
	}
	p.Sections = append(p.Sections, manpage.Section{Title: "See also", Blocks: []manpage.Block{{Text: "perfc(1), perfc-typeperf(1), perfc-relog(1), perfc-logman(1), perfc-dump(1)"}}})
	return p, nil
}
