package main

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/pdh"
)

// explainCommand reads objects' and counters' explain texts. It is a
// subcommand of its own rather than a typeperf option: typeperf keeps
// exactly Windows' options, and the text is wanted for one counter
// ("perfc explain "\Memory\Available MBytes"") as often as for a whole
// object, which typeperf -q's listing does not fit.
func explainCommand() command {
	return command{
		name:  "explain",
		usage: `<object | counter> [...]`,
		short: "print the explain (help) text of objects and counters",
		run:   runExplain,
	}
}

func runExplain(ctx context.Context, e *env, args []string) error {
	fs := newFlags("explain", e.stdout)
	nowarn := fs.Bool("nowarn", false, "Do not print warnings (also: environment PERFC_WARNINGS=off).")
	pos, err := parseFlags(fs, args)
	if err == errHelp {
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("no object or counter given")
	}
	h, err := newHost(e, *nowarn)
	if err != nil {
		return err
	}
	defer h.Close()
	src := h.Source()
	objs, err := pdh.EnumObjects(ctx, src)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, arg := range pos {
		object, counter := arg, "*"
		if strings.HasPrefix(arg, `\`) {
			p, err := counterpath.Parse(arg)
			if err != nil {
				return err
			}
			if !isLocalMachine(p.Machine) {
				return checkMachine("counter path", arg)
			}
			object, counter = p.Object, p.Counter
		}
		counters, instances, err := pdh.EnumObjectItems(ctx, src, object)
		if err != nil {
			return err
		}
		name := object
		if len(counters) > 0 {
			name = counters[0].Path.Object
		}
		if counter == "*" {
			for _, o := range objs {
				if strings.EqualFold(o.Name, name) {
					fmt.Fprintf(&b, "\\%s\n", o.Name)
					wrapText(&b, o.Help)
				}
			}
		}
		found := false
		for _, c := range counters {
			if counter != "*" && !strings.EqualFold(c.Path.Counter, counter) {
				continue
			}
			found = true
			p := c.Path
			if instances != nil {
				p.Instance = "*"
			}
			fmt.Fprintf(&b, "%s\n", p.String())
			wrapText(&b, c.Help)
		}
		if !found && counter != "*" {
			return fmt.Errorf("%s: object %s has no counter %q", arg, name, counter)
		}
	}
	_, err = fmt.Fprint(e.stdout, b.String())
	return err
}

// wrapText writes an explain text indented by two spaces, wrapped at 79
// columns, and a blank line; "(no explain text)" when it is empty.
func wrapText(b *strings.Builder, text string) {
	if strings.TrimSpace(text) == "" {
		text = "(no explain text)"
	}
	for _, para := range strings.Split(text, "\n") {
		n := 0
		for _, w := range strings.Fields(para) {
			if n > 0 && n+1+len(w) > 77 {
				b.WriteString("\n")
				n = 0
			}
			if n == 0 {
				b.WriteString("  ")
			} else {
				b.WriteString(" ")
				n++
			}
			b.WriteString(w)
			n += len(w)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

func versionCommand() command {
	return command{
		name:  "version",
		usage: "",
		short: "print perfc's version, commit and Go version",
		run:   runVersion,
	}
}

// runVersion prints "perfc VERSION" (the module version the binary was
// built as: a tag through go install module@version, "(devel)" from a
// clone), the commit and its time when the build recorded them (go build
// in a git checkout), and the Go version and platform.
func runVersion(ctx context.Context, e *env, args []string) error {
	pos, err := helpOnly(e, "version", args)
	if err == errHelp {
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("version takes no arguments")
	}
	_, err = fmt.Fprint(e.stdout, versionText())
	return err
}

func versionText() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "perfc (unknown version: built without module information)\n"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, at string
	modified := false
	var goos, goarch string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		case "GOOS":
			goos = s.Value
		case "GOARCH":
			goarch = s.Value
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "perfc %s (module %s)\n", v, bi.Main.Path)
	if rev != "" {
		fmt.Fprintf(&b, "commit %s", rev)
		if at != "" {
			fmt.Fprintf(&b, " (%s)", at)
		}
		if modified {
			b.WriteString(" with local changes")
		}
		b.WriteString("\n")
	} else {
		b.WriteString("commit unknown\n")
	}
	fmt.Fprintf(&b, "%s", bi.GoVersion)
	if goos != "" {
		fmt.Fprintf(&b, " %s/%s", goos, goarch)
	}
	b.WriteString("\n")
	return b.String()
}
