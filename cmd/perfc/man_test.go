package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/internal/manpage"
)

// manDir is where the generated manual pages are committed.
const manDir = "../../dist/man"

// helpCommands are the commands with help screens, as their words are
// typed (logman service is two).
var helpCommands = [][]string{
	{"typeperf"}, {"relog"}, {"logman"}, {"logman", "service"}, {"query"}, {"dump"}, {"lodctr"}, {"unlodctr"},
	{"ctrpp"}, {"explain"}, {"perfmon"}, {"version"}, {"completion"}, {"serve"},
}

// TestManPages: the committed pages in dist/man are what the generator
// writes from the help screens and the log formats' documents (go test
// -run TestManPages -update regenerates them), and dist/man holds no
// other page.
func TestManPages(t *testing.T) {
	pages, err := manPages(context.Background(), "../..")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name, b := range pages {
		names = append(names, name)
		golden(t, filepath.Join(manDir, name), string(b))
	}
	have, _ := filepath.Glob(filepath.Join(manDir, "*.[0-9]"))
	for _, f := range have {
		if !slices.Contains(names, filepath.Base(f)) {
			t.Errorf("%s is not a generated page: remove it", f)
		}
	}
	for _, words := range helpCommands {
		if _, ok := pages[pageName(strings.Join(words, " "))+".1"]; !ok {
			t.Errorf("no page for %s", strings.Join(words, " "))
		}
	}
}

// TestManAgreesWithHelp: each help screen, as /? prints it, and its page
// say the same: every usage line, option, example command and exit
// status of the screen is in the page (in roff, as manpage escapes
// text), and the page's options are the screen's.
func TestManAgreesWithHelp(t *testing.T) {
	pages, err := manPages(context.Background(), "../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, words := range helpCommands {
		name := strings.Join(words, " ")
		t.Run(name, func(t *testing.T) {
			out, errs, code := runPerfc(t, append(slices.Clone(words), "/?")...)
			if code != 0 || errs != "" {
				t.Fatalf("/?: exit %d, stderr %q", code, errs)
			}
			page := string(pages[pageName(name)+".1"])
			if page == "" {
				t.Fatal("no page")
			}
			scr := screenParts(out)
			if len(scr.usage) == 0 || len(scr.options) == 0 || len(scr.exit) != len(exitClasses()) {
				t.Fatalf("screen parts not found: %+v", scr)
			}
			check := func(what string, items []string) {
				for _, s := range items {
					if !strings.Contains(page, manpage.Escape(s)) {
						t.Errorf("%s %q of the help screen is not in the page", what, s)
					}
				}
			}
			check("usage", scr.usage)
			check("option", scr.options)
			check("example", scr.examples)
			check("exit status", scr.exit)
			// The page lists exactly the screen's options, as .TP tags.
			var tags []string
			lines := strings.Split(page, "\n")
			sect := ""
			for i, l := range lines {
				if strings.HasPrefix(l, ".SH ") {
					sect = l
				}
				if sect == `.SH "OPTIONS"` && l == ".TP" && i+1 < len(lines) {
					tags = append(tags, lines[i+1])
				}
			}
			var want []string
			for _, o := range scr.options {
				want = append(want, manpage.Escape(o))
			}
			if !slices.Equal(tags, want) {
				t.Errorf("page's options %q, screen's %q", tags, want)
			}
		})
	}
}

// screenParts are what a help screen's text lists.
type helpParts struct {
	usage, options, examples, exit []string
}

// screenParts reads a /? screen by its layout (help.go's writeHelp):
// sections start at column 0 and end with ':', an option's line is
// "  -x ..." (its name and placeholder end at two blanks), an example
// is a description at 2 columns and the command at 4.
func screenParts(out string) helpParts {
	var p helpParts
	sect := ""
	for _, l := range strings.Split(out, "\n") {
		if l != "" && !strings.HasPrefix(l, " ") && strings.HasSuffix(l, ":") {
			sect = l
			continue
		}
		switch sect {
		case "Usage:":
			if s := strings.TrimSpace(l); s != "" {
				p.usage = append(p.usage, s)
			}
		case "Options:":
			if strings.HasPrefix(l, "  -") || strings.HasPrefix(l, "  /") {
				opt, _, _ := strings.Cut(strings.TrimSpace(l), "  ")
				p.options = append(p.options, opt)
			}
		case "Examples:":
			if strings.HasPrefix(l, "    ") {
				p.examples = append(p.examples, strings.TrimSpace(l))
			}
		case "Exit status:":
			if s := strings.TrimSpace(l); s != "" {
				_, what, _ := strings.Cut(s, "  ")
				p.exit = append(p.exit, what)
			}
		}
	}
	return p
}

// TestManRender: man -l renders every generated page without a warning
// of groff or man, and the rendered text shows the examples' commands
// as typed (no curled quote or Unicode hyphen a copy would carry).
func TestManRender(t *testing.T) {
	if _, err := exec.LookPath("man"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("man is not installed (.ci/run installs man-db and groff)")
		}
		t.Skip("man is not installed")
	}
	pages, err := manPages(context.Background(), "../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, b := range pages {
		t.Run(name, func(t *testing.T) {
			f := filepath.Join(dir, name)
			if err := os.WriteFile(f, b, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("man", "--warnings", "-l", f)
			cmd.Env = append(os.Environ(), "MANPAGER=cat", "PAGER=cat", "MANWIDTH=200", "LC_ALL=C.UTF-8", "MAN_KEEP_FORMATTING=")
			var o, e bytes.Buffer
			cmd.Stdout, cmd.Stderr = &o, &e
			if err := cmd.Run(); err != nil {
				t.Fatalf("man -l %s: %v\n%s", name, err, e.String())
			}
			if e.Len() > 0 {
				t.Errorf("man -l %s warns:\n%s", name, e.String())
			}
			text := o.String()
			if !strings.Contains(text, "EXIT STATUS") && strings.HasSuffix(name, ".1") {
				t.Errorf("%s: rendered page has no EXIT STATUS", name)
			}
			if !strings.HasSuffix(name, ".1") || name == "perfc.1" {
				return
			}
			cmdName := strings.TrimSuffix(strings.TrimPrefix(name, "perfc-"), ".1")
			words := strings.Split(cmdName, "-")
			out, _, _ := runPerfc(t, append(words, "/?")...)
			for _, ex := range screenParts(out).examples {
				if !strings.Contains(text, ex) {
					t.Errorf("rendered %s lacks the example %q as typed", name, ex)
				}
			}
		})
	}
}
