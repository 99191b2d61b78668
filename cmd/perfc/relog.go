package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/internal/tool/relog"
	"github.com/perfcounters/perfcounters/perflog"
)

func relogCommand() command {
	return command{
		name:  "relog",
		usage: `<filename [filename ...]> [options]`,
		short: "convert, filter, resample and summarise logs (BIN, BLG, CSV, TSV, SQL, captured blocks) into BIN, CSV, TSV or SQL",
		run:   runRelog,
		help: helpScreen{
			about: "Relog creates new performance logs from data in existing performance\nlogs by changing the sampling rate and/or converting the file format.\nIt reads Windows' binary logs (.blg), perfc's binary logs (typeperf -f\nBIN), PDH-CSV and PDH-TSV text logs, SQL log sets (SQL:DSN!logset), and\nPERF_DATA_BLOCK files (perfc query, or captured on Windows); it writes\nall but the last (-f BLG: Windows' binary log, for Windows' tools).",
			usage: []string{"perfc relog <filename [filename ...]> [options]"},
			params: [][2]string{
				{"<filename [filename ...]>", "Performance files to relog. Quote a wildcard (\"logs/*.bin\") and relog expands it."},
			},
			notes: "Counters are given as in typeperf; copy them from the output of -q.\n" +
				"Several counters in one -c argument are separated by blanks before\n" +
				"each '\\' or put in double quotes.\n" +
				"Text logs are read in the encoding their bytes show: a byte-order\n" +
				"mark, UTF-8, else the ANSI code page a localized Windows wrote them\n" +
				"in, guessed (with a warning) unless -codepage names it. Text logs are\n" +
				"written in UTF-8; -ocodepage utf-8-bom makes one Excel opens with its\n" +
				"names intact, -ocodepage 1251 one for Windows tools of that code page.",
			examples: [][2]string{
				{"One counter of a set of captured blocks, into a CSV log:", `perfc relog "s*.bin" -c "\Processor(_Total)\% Processor Time" -o cpu.csv`},
				{"Two counters in one quoted list:", `perfc relog x.bin -c "\Memory\Available MBytes \Processor(_Total)\% Processor Time"`},
				{"Every second record, as TSV:", "perfc relog logfile.bin -f tsv -o logfile.tsv -t 2"},
				{"The counters and time range of the input:", "perfc relog logfile.bin -q -o counters.txt"},
				{"A Russian Windows' CSV, for Excel:", "perfc relog ru.csv -codepage 1251 -ocodepage utf-8-bom -o ru-excel.csv"},
			},
		},
	}
}

func runRelog(ctx context.Context, c *command, e *env, args []string) error {
	fs := c.flags(e.stdout)
	titlesFile := fs.String("titles", "", "Title database for names: a 'perfc query Counter' output or an index<TAB>name list. Default is this computer's.")
	var counters stringList
	fs.Var(&counters, "c", "Counters to filter from the input log: one or more paths, in one quoted list or as separate arguments starting with \\.")
	cf := fs.String("cf", "", "File listing performance counters to filter from the input log, one per line (UTF-8 or UTF-16 with a byte-order mark, or in the code page of -codepage). Default is all counters.")
	codePage := fs.String("codepage", "", codePageUsage)
	outCodePage := fs.String("ocodepage", "", outputCodePageUsage)
	format := fs.String("f", "", "Output file format: CSV, TSV, BIN (perfc's binary log, .plog: smaller, crash-safe, appendable), BLG (Windows' binary log, .blg, for Windows' tools) or SQL. Default is the -o file's extension (.csv, .tsv, .plog), else BIN; CSV on standard output without -o.")
	out := fs.String("o", "", "Output file path (the format's extension is added when it has none), SQL:DSN!logset for SQL, or - for standard output. Default is standard output.")
	begin := fs.String("b", "", "Begin time for copying first record from input file: M/d/yyyy h:mm:ss[AM|PM] or M/d/yyyy H:mm:ss.")
	end := fs.String("e", "", "End time for copying last record from input file: M/d/yyyy h:mm:ss[AM|PM] or M/d/yyyy H:mm:ss.")
	every := fs.Int("t", 1, "Only write every nth record into the output file. Default is to write every record.")
	q := fs.Bool("q", false, "List performance counters and time range of input files (with -o: the counters into that file).")
	yes := fs.Bool("y", false, "Answer yes to all questions without prompting (overwrite the output file).")
	appendOut := fs.Bool("a", false, "Append output file instead of overwriting. This option applies to binary logs; SQL log sets always append.")
	fs.String("config", "", "Settings file containing command options: [option] lines, each followed by its values.")
	nowarn := fs.Bool("nowarn", false, "Do not print warnings (also: environment PERFC_WARNINGS=off).")
	langOpt := fs.String("lang", "", "Write the log's object and counter names in this language where it has them: a Perflib id (009 English, 007 German, ...) or a tag such as en-US. Default: the log's own names. -c takes English names beside the log's either way.")
	for _, a := range args {
		if a == "-s" || a == "/s" || a == "-S" || a == "/S" {
			// Windows' relog has no -s: it reads logs, not computers.
			return usagef("relog has no -s: it converts logs, as Windows' relog does. To log a remote computer, record it with typeperf -s HOST -f BIN -o FILE (or \\\\HOST\\... paths), then relog that file; relog -c \\\\HOST\\... keeps one computer's counters of a log")
		}
	}
	pos, err := parseWithConfig(fs, args, "config")
	if err == errHelp {
		return nil
	}
	if err != nil {
		return err
	}
	warn := e.warnings(*nowarn)
	warnf := func(msg string) { warn.Warn("relog:"+msg, msg) }
	cp, err := parseCodePage("-codepage", *codePage)
	if err != nil {
		return err
	}
	ocp, obom, err := parseOutputCodePage(*outCodePage)
	if err != nil {
		return err
	}
	// relog takes "-c PATH PATH ...": arguments that start with a
	// backslash are counter paths, never input files.
	var names []string
	for _, p := range pos {
		if strings.HasPrefix(p, `\`) {
			counters = append(counters, p)
		} else {
			names = append(names, p)
		}
	}
	if len(names) == 0 {
		return usagef("no input file given")
	}
	files, err := expandInputs(names)
	if err != nil {
		return err
	}
	counters = splitCounterLists(counters)
	if *cf != "" {
		more, err := readCounterList(*cf, cp, warnf)
		if err != nil {
			return err
		}
		counters = append(counters, more...)
	}
	f, err := outputFormat(*format, *out)
	if err != nil {
		return err
	}
	if _, ok := f.Text(); !ok && *outCodePage != "" {
		return usagef("-ocodepage is the encoding of a text log (-f CSV or TSV), not of -f %s", f)
	}
	if *appendOut && f != perflog.BIN && f != perflog.SQL {
		return usagef("-a appends to perfc's binary logs (-f BIN), not to %s files", f)
	}
	outName := perflog.OutputName(*out, f)
	if *every < 1 {
		return usagef("-t %d: must be at least 1", *every)
	}
	opts := relog.Options{Counters: counters, Every: *every, Location: time.Local}
	if tf, ok := f.Text(); ok {
		opts.Format = tf
	}
	// -b and -e are checked here and read in the input's zone below.
	for _, bt := range []struct{ flag, text string }{{"-b", *begin}, {"-e", *end}} {
		if bt.text != "" {
			if _, err := relog.ParseTime(bt.text, time.UTC); err != nil {
				return usagef("%s: %v", bt.flag, err)
			}
		}
	}
	db, err := loadTitles(e, *titlesFile)
	if err != nil {
		return err
	}
	in, err := perflog.Open(ctx, files, perflog.OpenOptions{Titles: db, CodePage: cp})
	if err != nil {
		return err
	}
	defer in.Close()
	opts.Warn = warnf
	for _, n := range in.Notes {
		opts.Warn(n)
	}
	src := in.Source
	opts.Location, opts.Kinds = in.Location, in.Kinds()
	// -b and -e are wall-clock times of the log's zone, the times relog
	// prints (its Input section, the rows), as Windows' relog compares
	// them with the log's local time stamps.
	if *begin != "" {
		opts.Begin, _ = relog.ParseTime(*begin, in.Location)
	}
	if *end != "" {
		opts.End, _ = relog.ParseTime(*end, in.Location)
	}
	if *q {
		if *out == "" {
			return relog.Summary(ctx, src, files, opts, e.stdout, nil)
		}
		w, closeOut, err := createOutput(*out, *yes, e.stdout)
		if err != nil {
			return err
		}
		if err := relog.Summary(ctx, src, files, opts, e.stdout, w); err != nil {
			closeOut()
			return err
		}
		return closeOut()
	}
	if *langOpt != "" {
		l, err := chooseLang(e, *langOpt)
		if err != nil {
			return err
		}
		if opts.Titles, err = relogNames(e, l, src.Titles(), opts.Warn); err != nil {
			return err
		}
	}
	sinkTitles := src.Titles()
	if opts.Titles != nil {
		sinkTitles = opts.Titles
	}
	if _, ok := f.Text(); !ok {
		if outName == "" || outName == "-" {
			return usagef("-f %s writes a log file: name it with -o", f)
		}
		warnBLGName(outName, f, opts.Warn)
		list := counters
		if len(list) == 0 {
			list = src.Recorded().Counters()
		}
		rec, err := perflog.Create(ctx, outName, f, perflog.CreateOptions{Append: *appendOut, Overwrite: *yes,
			Counters: list, Location: opts.Location, Rule: in.Rule, Titles: sinkTitles})
		if err != nil {
			return err
		}
		opts.Sink = rec
		opts.Console, opts.Files, opts.OutFile = e.stdout, files, rec.Name()
		_, _, err = relog.Run(ctx, src, opts, nil)
		if cerr := rec.Close(); err == nil {
			err = cerr
		}
		return err
	}
	w, closeOut, err := createConversionOutput(outName, *yes, e.stdout)
	if err != nil {
		return err
	}
	if w, closeOut, err = encodedOutput(w, closeOut, outName, ocp, obom); err != nil {
		return err
	}
	if outName != "" && outName != "-" {
		// The console report (Input, progress, Output) goes with the run.
		opts.Console, opts.Files, opts.OutFile = e.stdout, files, outName
	}
	_, _, err = relog.Run(ctx, src, opts, w)
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	return err
}

// createConversionOutput is createOutput for a conversion's text log: a
// file is written through a buffer (flushed by the returned close), not
// one write per row as typeperf's live rows are, which cost more than
// the row. The console stays unbuffered, its rows in order with the
// warnings.
func createConversionOutput(path string, yes bool, console io.Writer) (io.Writer, func() error, error) {
	w, closeFile, err := createOutput(path, yes, console)
	if err != nil || path == "" || path == "-" {
		return w, closeFile, err
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	return bw, func() error {
		ferr := bw.Flush()
		if cerr := closeFile(); ferr == nil {
			ferr = cerr
		}
		return ferr
	}, nil
}

// warnBLGName says that a binary log named .blg is ours, not Windows'.
func warnBLGName(name string, f perflog.Format, warn func(string)) {
	if f == perflog.BIN && strings.EqualFold(filepath.Ext(name), ".blg") {
		warn(name + ": written in perfc's binary log format (.plog), which Windows' tools cannot read (-f BLG writes Windows' format); perfc reads it back under any name")
	}
}

// outputFormat is -f's format, or, without -f, the -o file's by its
// extension (.csv, .tsv, .plog; SQL:... is SQL), else BIN as Windows'
// relog defaults; without -o (standard output) CSV.
func outputFormat(flag, out string) (perflog.Format, error) {
	if flag != "" {
		f, err := perflog.ParseFormat(flag)
		if err != nil {
			return 0, usagef("-f: %v", err)
		}
		return f, nil
	}
	switch {
	case out == "" || out == "-":
		return perflog.CSV, nil
	case perflog.IsSQL(out):
		return perflog.SQL, nil
	}
	switch strings.ToLower(filepath.Ext(out)) {
	case ".csv":
		return perflog.CSV, nil
	case ".tsv":
		return perflog.TSV, nil
	}
	return perflog.BIN, nil
}

// expandInputs expands wildcards in input file names inside perfc, as
// Windows' relog does ("relog "logs/*.bin"", quoted so that the shell
// leaves it alone): a name with '*', '?' or '[' that is not itself an
// existing file stands for the files it matches, in name order. A pattern
// that matches nothing, or a malformed one, is an error naming it.
func expandInputs(names []string) ([]string, error) {
	var files []string
	for _, n := range names {
		if !strings.ContainsAny(n, "*?[") {
			files = append(files, n)
			continue
		}
		if _, err := os.Stat(n); err == nil {
			files = append(files, n)
			continue
		}
		m, err := filepath.Glob(n)
		if err != nil {
			return nil, fmt.Errorf("input %s: %v", n, err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("input %s: no file matches", n)
		}
		files = append(files, m...)
	}
	return files, nil
}

// splitCounterLists splits each -c value that holds several counter paths
// ("quote the list", as Windows' relog documents it) into single paths:
// a double-quoted part is one path, and outside quotes a new path starts
// at a blank followed by '\' (every path starts with '\', and blanks
// inside a path, as in "% Processor Time", stay). So
// "\Processor(_Total)\% Processor Time \Memory\Available Bytes" and
// `"\A\b c" "\D\e"` each give two paths.
func splitCounterLists(vals []string) []string {
	var out []string
	for _, v := range vals {
		var cur strings.Builder
		flush := func() {
			if p := strings.TrimSpace(cur.String()); p != "" {
				out = append(out, p)
			}
			cur.Reset()
		}
		inQuote := false
		for i := 0; i < len(v); i++ {
			c := v[i]
			switch {
			case c == '"':
				if inQuote {
					flush()
				} else if strings.TrimSpace(cur.String()) == "" {
					cur.Reset()
				} else {
					cur.WriteByte(c) // a quote inside a path: keep it
					continue
				}
				inQuote = !inQuote
			case !inQuote && (c == ' ' || c == '\t') && i+1 < len(v) && nextPathStart(v[i+1:]):
				flush()
			default:
				cur.WriteByte(c)
			}
		}
		flush()
	}
	return out
}

// nextPathStart reports whether s, after blanks, starts a counter path.
func nextPathStart(s string) bool {
	return strings.HasPrefix(strings.TrimLeft(s, " \t"), `\`)
}
