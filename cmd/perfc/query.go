package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/perfcounters/perfcounters/engine"
	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/termtext"
	"github.com/perfcounters/perfcounters/internal/tool/query"
	"github.com/perfcounters/perfcounters/state"
	"github.com/perfcounters/perfcounters/titles"
)

func queryCommand() command {
	return command{
		name:  "query",
		usage: `<value> [-o <filename>]   (value: Global | Costly | Counter | Help | "238 230 ..." | "Foreign HOST 238 ...")`,
		short: "write the raw answer to a registry value name (a PERF_DATA_BLOCK, or a title list) to a file or stdout",
		run:   runQuery,
		help: helpScreen{
			about: "Query writes the raw answer of the registry performance-data interface\n(RegQueryValueEx on HKEY_PERFORMANCE_DATA) for a value name: a\nPERF_DATA_BLOCK, or the title list of Counter or Help.",
			usage: []string{`perfc query <value> [-o <filename>]`},
			params: [][2]string{
				{"<value>", `Global, Costly, Counter, Help, or object title indexes such as "238 230".`},
			},
			notes: "The answer is binary: it is not written to a terminal.",
			examples: [][2]string{
				{"This computer's objects as one block:", "perfc query Global -o now.perfdata"},
				{"Processor and Thread (Thread brings its parent Process):", `perfc query "238 232" -o cpu.perfdata`},
				{"The title database, into a pipe:", "perfc query Counter | od -c | head"},
			},
		},
	}
}

func runQuery(ctx context.Context, c *command, e *env, args []string) error {
	fs := c.flags(e.stdout)
	out := fs.String("o", "", "Output filename, or - for standard output. Default is standard output, which must not be a terminal (the answer is binary).")
	nowarn := fs.Bool("nowarn", false, "Do not print warnings (also: environment PERFC_WARNINGS=off).")
	pos, err := parseFlags(fs, args)
	if err == errHelp {
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("no value name given")
	}
	value := strings.Join(pos, " ") // "perfc query 238 2" means the list "238 2"
	if (*out == "" || *out == "-") && termtext.IsTerminal(e.stdout) {
		return usagef("the answer to %q is binary: not writing it to a terminal (give -o <filename>, or redirect standard output)", value)
	}
	if q, err := engine.ParseQuery(value); err == nil && q.Kind == engine.QueryForeign {
		return runForeign(ctx, e, q, *out)
	}
	h, err := newHost(e, *nowarn)
	if err != nil {
		return err
	}
	defer h.Close()
	if *out == "" || *out == "-" {
		return query.Run(ctx, h.Engine, value, e.stdout, e.stderr)
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	if err := query.Run(ctx, h.Engine, value, f, e.stderr); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// runForeign answers "Foreign HOST idx ...": HOST's block of the objects
// (Global when none), asked of HOST's perfc serve through the hosts file,
// written as HOST sent it; HOST's problems go to stderr. This computer's
// name (or localhost) is answered here.
func runForeign(ctx context.Context, e *env, q engine.Query, out string) error {
	value := "Global"
	if len(q.Indexes) > 0 {
		idx := make([]string, len(q.Indexes))
		for i, x := range q.Indexes {
			idx[i] = strconv.FormatUint(uint64(x), 10)
		}
		value = strings.Join(idx, " ")
	}
	var body []byte
	if isLocalMachine(strings.TrimPrefix(q.Host, `\\`)) {
		h, err := newHost(e, false)
		if err != nil {
			return err
		}
		defer h.Close()
		r, err := h.Engine.QueryValue(ctx, value)
		if err != nil {
			return err
		}
		body = r.Block
		for _, p := range r.Problems {
			fmt.Fprintf(e.stderr, "perfc query: warning: %v\n", p)
		}
		for _, p := range r.Partial {
			fmt.Fprintf(e.stderr, "perfc query: note: %v\n", p)
		}
	} else {
		c, err := openRemote(e, strings.TrimPrefix(q.Host, `\\`))
		if err != nil {
			return err
		}
		defer c.Close()
		b, probs, err := c.QueryValue(ctx, value)
		if err != nil {
			return err
		}
		body = b
		for _, p := range probs {
			what := "warning"
			if p.Partial {
				what = "note"
			}
			fmt.Fprintf(e.stderr, "perfc query: %s: %s: object %s (%d): %s\n", what, c.Machine(), p.ObjectName, p.Object, p.Reason)
		}
	}
	if out == "" || out == "-" {
		_, err := e.stdout.Write(body)
		return err
	}
	return os.WriteFile(out, body, 0o644)
}

// localTitles returns the title database of this host: English Windows'
// names, the built-in Linux objects' registrations and what lodctr
// registered, read from the state directory without building a host.
func localTitles(e *env) (*titles.DB, error) {
	hopts, err := hostOptions(e)
	if err != nil {
		return nil, err
	}
	db, err := state.Titles(hopts.StateDir, host.BuiltinTitles)
	if err != nil {
		return nil, fmt.Errorf("local title database: %w", err)
	}
	return db, nil
}
