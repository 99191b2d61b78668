package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/tool/query"
	"github.com/perfcounters/perfcounters/state"
	"github.com/perfcounters/perfcounters/titles"
)

func queryCommand() command {
	return command{
		name:  "query",
		usage: `<value> [-o <filename>]   (value: Global | Costly | Counter | Help | "238 230 ...")`,
		short: "write the raw answer to a registry value name (a PERF_DATA_BLOCK, or a title list) to a file or stdout",
		run:   runQuery,
	}
}

func runQuery(ctx context.Context, e *env, args []string) error {
	fs := newFlags("query", e.stdout)
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
	if (*out == "" || *out == "-") && isTerminal(e.stdout) {
		return usagef("the answer to %q is binary: not writing it to a terminal (give -o <filename>, or redirect standard output)", value)
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
