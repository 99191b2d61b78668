package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/internal/tool/relog"
	"github.com/perfcounters/perfcounters/pdh"
)

func relogCommand() command {
	return command{
		name:  "relog",
		usage: `FILE... [--titles FILE] [-c PATH... | -cf FILE] [-f CSV|TSV] [-o FILE] [-b TIME] [-e TIME] [-t N] [-q] [-y]`,
		short: "convert, filter, resample and summarise captured PERF_DATA_BLOCK files into PDH-CSV/TSV logs",
		run:   runRelog,
	}
}

func runRelog(ctx context.Context, e *env, args []string) error {
	fs := newFlags("relog", e.stderr)
	titlesFile := fs.String("titles", "", "title database for names: a `perfc query Counter` output or an index<TAB>name list (default: the local database)")
	var counters stringList
	fs.Var(&counters, "c", "counter `PATH` to keep (repeatable; further paths starting with \\ may follow)")
	cf := fs.String("cf", "", "`FILE` of counter paths to keep, one per line")
	format := fs.String("f", "CSV", "output format: CSV or TSV (BIN and SQL are not supported yet)")
	out := fs.String("o", "", "output `FILE` (default: standard output)")
	begin := fs.String("b", "", "begin `TIME` (M/d/yyyy h:mm:ss[AM|PM] or M/d/yyyy H:mm:ss)")
	end := fs.String("e", "", "end `TIME`, inclusive")
	every := fs.Int("t", 1, "write only every `N`th sample")
	q := fs.Bool("q", false, "list the counters and the time range of the input (with -o: the counters into the file)")
	yes := fs.Bool("y", false, "answer yes: overwrite an existing output file")
	appendOut := fs.Bool("a", false, "append to a binary log (not supported yet)")
	fs.String("config", "", "settings `FILE`: [option] lines each followed by its value lines")
	pos, err := parseWithConfig(fs, args, "config")
	if err == errHelp {
		return nil
	}
	if err != nil {
		return err
	}
	if *appendOut {
		return fmt.Errorf("-a: appending needs the binary log format, which is not supported yet")
	}
	// relog takes "-c PATH PATH ...": arguments that start with a
	// backslash are counter paths, never input files.
	var files []string
	for _, p := range pos {
		if strings.HasPrefix(p, `\`) {
			counters = append(counters, p)
		} else {
			files = append(files, p)
		}
	}
	if len(files) == 0 {
		return usagef("no input file given")
	}
	if *cf != "" {
		more, err := readCounterFile(*cf)
		if err != nil {
			return err
		}
		counters = append(counters, more...)
	}
	f, err := parseFormat(*format)
	if err != nil {
		return err
	}
	if *every < 1 {
		return usagef("-t %d: must be at least 1", *every)
	}
	opts := relog.Options{Counters: counters, Format: f, Every: *every, Location: time.Local}
	if *begin != "" {
		if opts.Begin, err = relog.ParseTime(*begin, time.Local); err != nil {
			return usagef("-b: %v", err)
		}
	}
	if *end != "" {
		if opts.End, err = relog.ParseTime(*end, time.Local); err != nil {
			return usagef("-e: %v", err)
		}
	}
	db, err := loadTitles(e, *titlesFile)
	if err != nil {
		return err
	}
	src, err := pdh.OpenBlockFiles(files, db)
	if err != nil {
		return err
	}
	if *q {
		if *out == "" {
			return relog.Summary(ctx, src, files, opts, e.stdout, nil)
		}
		w, closeOut, err := createOutput(*out, *yes, nil)
		if err != nil {
			return err
		}
		if err := relog.Summary(ctx, src, files, opts, e.stdout, w); err != nil {
			closeOut()
			return err
		}
		return closeOut()
	}
	w, closeOut, err := createOutput(*out, *yes, e.stdout)
	if err != nil {
		return err
	}
	if *out != "" {
		// The console report (Input, progress, Output) goes with the run.
		opts.Console, opts.Files, opts.OutFile = e.stdout, files, *out
	}
	opts.Warn = func(msg string) { fmt.Fprintf(e.stderr, "perfc relog: warning: %s\n", msg) }
	for _, n := range src.Notes() {
		opts.Warn(n)
	}
	_, _, err = relog.Run(ctx, src, opts, w)
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	return err
}
