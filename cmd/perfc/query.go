package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/tool/query"
	"github.com/perfcounters/perfcounters/state"
	"github.com/perfcounters/perfcounters/titles"
)

func queryCommand() command {
	return command{
		name:  "query",
		usage: `VALUE [-o FILE]   (VALUE: Global | Costly | Counter | Help | "238 230 ...")`,
		short: "write the raw answer to a registry value name (a PERF_DATA_BLOCK, or a title list) to a file or stdout",
		run:   runQuery,
	}
}

func runQuery(ctx context.Context, e *env, args []string) error {
	fs := newFlags("query", e.stderr)
	out := fs.String("o", "", "output file (default: standard output)")
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
	value := pos[0]
	for _, p := range pos[1:] { // "perfc query 238 2" means the list "238 2"
		value += " " + p
	}
	hopts, err := hostOptions(e)
	if err != nil {
		return err
	}
	eng, err := host.New(hopts)
	if err != nil {
		return err
	}
	defer eng.Close()
	var w io.Writer = e.stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
		if err := query.Run(ctx, eng.Engine, value, f, e.stderr); err != nil {
			return err
		}
		return f.Close()
	}
	return query.Run(ctx, eng.Engine, value, w, e.stderr)
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
