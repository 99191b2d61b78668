package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/perfcounters/perfcounters/calc"

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
		help: helpScreen{
			about: "Explain prints the explain (help) text of objects and counters, as\nperfmon's \"Show description\" does.",
			usage: []string{"perfc explain <object | counter> [...]"},
			params: [][2]string{
				{"<object>", "An object name such as Processor: its text and every counter's."},
				{"<counter>", `A counter path such as "\Processor\% Processor Time"; '*' as the counter name selects every counter.`},
			},
			examples: [][2]string{
				{"One counter:", `perfc explain "\Memory\Available MBytes"`},
				{"An object and its counters:", "perfc explain LogicalDisk"},
			},
		},
	}
}

func runExplain(ctx context.Context, c *command, e *env, args []string) error {
	fs := c.flags(e.stdout)
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
			return fmt.Errorf("%s: object %s has no counter %q (%w)", arg, name, counter, calc.NoCounter)
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
