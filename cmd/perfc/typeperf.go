package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/perfcounters/perfcounters/internal/tool/typeperf"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog"
	"github.com/perfcounters/perfcounters/titles"
	"github.com/perfcounters/perfcounters/utf16le"
)

func typeperfCommand() command {
	return command{
		name:  "typeperf",
		usage: `{<counter [counter ...]> | -cf <filename> | -q [object] | -qx [object]} [options]`,
		short: "print counter values at an interval, in typeperf's PDH-CSV layout",
		run:   runTypeperf,
		help: helpScreen{
			about: "Typeperf writes performance data to the command window or to a log file.\nTo stop Typeperf, press CTRL+C.",
			usage: []string{
				"perfc typeperf { <counter [counter ...]>",
				"               | -cf <filename>",
				"               | -q [object]",
				"               | -qx [object]",
				"               } [options]",
			},
			params: [][2]string{
				{"<counter [counter ...]>", "Performance counters to monitor."},
			},
			notes: counterPathNote,
			examples: [][2]string{
				{"CPU load of this computer every second until CTRL+C:", `perfc typeperf "\Processor(_Total)\% Processor Time"`},
				{"Every counter and instance of PhysicalDisk, into a file:", "perfc typeperf -qx PhysicalDisk -o counters.txt"},
				{"The counters listed in counters.txt, 50 samples 5 seconds apart, into a TSV log:", "perfc typeperf -cf counters.txt -si 5 -sc 50 -f TSV -o domain2.tsv"},
				{"Windows syntax works as well:", `perfc typeperf "\Memory\Available MBytes" /si 2 /SC 3 /f csv`},
				{"An aligned table at a terminal, an instance per line (as sar prints):", `perfc typeperf -f table "\Processor(*)\% Processor Time" "\Processor(*)\% User Time" -sc 3`},
				{"JSON lines for a script, one object per sample:", `perfc typeperf -f json "\Memory\Available MBytes" -sc 3`},
			},
		},
	}
}

func runTypeperf(ctx context.Context, c *command, e *env, args []string) error {
	fs := c.flags(e.stdout)
	var counters stringList
	fs.Var(&counters, "c", "Counter path to monitor (repeatable; paths may also be given as arguments).")
	cf := fs.String("cf", "", "File containing performance counters to monitor, one per line (UTF-8 or UTF-16 with a byte-order mark, or in the code page of -codepage; blank lines and lines starting with # are skipped).")
	codePage := fs.String("codepage", "", cfCodePageUsage)
	si := fs.String("si", "1", "Time between samples. Default is 1 second.")
	sc := fs.Int("sc", 0, "Number of samples to collect. Default is to sample until CTRL+C.")
	format := fs.String("f", "CSV", "Output format: CSV, TSV, BIN (perfc's binary log, .plog: smaller, crash-safe; pick it for perfc), BLG (Windows' binary log, .blg: pick it for Windows' tools) or SQL; or, for a person or a script, TABLE (an aligned table, as sar prints) or JSON (JSON lines, one object per sample). Default is CSV, Windows typeperf's PDH-CSV.")
	out := fs.String("o", "", "Path of output file (the format's extension is added when it has none), SQL:DSN!logset for SQL, or - for standard output in the file layout. Default is the console.")
	yes := fs.Bool("y", false, "Answer yes to all questions without prompting (overwrite the output file).")
	q := fs.Bool("q", false, "List installed counters (no instances). To list counters for one object, include the object name, such as Processor.")
	qx := fs.Bool("qx", false, "List installed counters with instances. To list counters for one object, include the object name, such as Processor.")
	fs.String("config", "", "Settings file containing command options: [option] lines, each followed by its values.")
	server := fs.String("s", "", "Server to monitor if no server is specified in the counter path: this computer (the default), or a computer of the hosts file ($PERFC_HOSTS or ~/.config/perfc/hosts.yml) that runs perfc serve.")
	nowarn := fs.Bool("nowarn", false, "Do not print warnings (also: environment PERFC_WARNINGS=off).")
	langOpt := fs.String("lang", "", langHelp)
	pos, err := parseWithConfig(fs, args, "config")
	if err == errHelp {
		return nil
	}
	if err != nil {
		return err
	}
	for _, p := range pos {
		// Counter paths start with '\' and object names with a letter: a
		// word starting with '/' here is a mistyped option, not a file.
		if strings.HasPrefix(p, "/") {
			return usagef("unknown option %s", p)
		}
	}
	form, isForm := typeperf.ParseForm(*format)
	if isForm {
		*format = "CSV" // the file layer sees a text output
	}
	f, err := perflog.ParseFormat(*format)
	if err != nil {
		return usagef("-f: %v (or TABLE, JSON)", err)
	}
	lang, err := chooseLang(e, *langOpt)
	if err != nil {
		return err
	}
	tf, text := f.Text()
	if !text && (*out == "" || *out == "-") {
		return usagef("-f %s writes a log file: name it with -o", f)
	}
	outName := perflog.OutputName(*out, f)

	if *q || *qx {
		if len(pos) > 1 {
			return usagef("-q/-qx take at most one object name, got %d", len(pos))
		}
		lo := typeperf.ListOptions{Instances: *qx}
		if len(pos) == 1 {
			lo.Object = pos[0]
		}
		src, closeSrc, langTitles, err := listSource(ctx, e, *server, *nowarn)
		if err != nil {
			return err
		}
		defer closeSrc()
		lo.Titles, _ = langNames(e, lang, src.Titles(), langTitles(lang), *langOpt != "", func(msg string) { e.warnings(*nowarn).Warn(msg, msg) })
		w, closeOut, err := createOutput(*out, *yes, e.stdout)
		if err != nil {
			return err
		}
		if err := typeperf.List(ctx, src, lo, w); err != nil {
			closeOut()
			return err
		}
		return closeOut()
	}

	paths := append(counters, pos...)
	if *cf != "" {
		cp, err := parseCodePage("-codepage", *codePage)
		if err != nil {
			return err
		}
		warn := e.warnings(*nowarn)
		more, err := readCounterList(*cf, cp, func(msg string) { warn.Warn("typeperf:cf", msg) })
		if err != nil {
			return err
		}
		paths = append(paths, more...)
	}
	if len(paths) == 0 {
		return usagef("no counter given")
	}
	paths, remotes := machinePaths(paths, *server)
	interval, err := typeperf.ParseInterval(*si)
	if err != nil {
		return usagef("-si: %v", err)
	}
	if *sc < 0 {
		return usagef("-sc %d: must not be negative", *sc)
	}
	h, err := newHost(e, *nowarn)
	if err != nil {
		return err
	}
	defer h.Close()
	opts := typeperf.Options{Counters: paths, Interval: interval, Samples: *sc, Format: tf, Log: *out != "", Form: form, Location: time.Local,
		Warn: e.warnings(*nowarn).Warn}
	src, closeSrc, err := fleetSource(ctx, e, h, remotes)
	if err != nil {
		if ctx.Err() != nil {
			// CTRL+C while a remote computer was being reached.
			return typeperf.Interrupted(e.stdout, opts)
		}
		return err
	}
	defer closeSrc()
	opts.Titles, opts.AltTitles = langNames(e, lang, src.Titles(), h.Engine.LangTitles(lang), *langOpt != "", func(msg string) { e.warnings(*nowarn).Warn(msg, msg) })
	if !text {
		warnBLGName(outName, f, func(msg string) { e.warnings(*nowarn).Warn(msg, msg) })
		rec, err := perflog.Create(ctx, outName, f, perflog.CreateOptions{Overwrite: *yes, Counters: paths,
			Location: time.Local, Titles: src.Titles()})
		if err != nil {
			return err
		}
		opts.Sink = rec
		err = typeperf.Run(ctx, src, opts, io.Discard, e.stdout, e.stderr)
		if cerr := rec.Close(); err == nil {
			err = cerr
		}
		return err
	}
	w, closeOut, err := createOutput(outName, *yes, e.stdout)
	if err != nil {
		return err
	}
	console := e.stdout
	if *out == "-" {
		console = e.stderr // keep the closing lines out of the log
	}
	err = typeperf.Run(ctx, src, opts, w, console, e.stderr)
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	return err
}

// listSource is what typeperf -q and -qx list: this computer, or the
// remote computer -s names (connected now: a list needs its answer), and
// the names of a language (-lang) there: this computer's, none of another.
func listSource(ctx context.Context, e *env, server string, nowarn bool) (pdh.Source, func(), func(titles.Lang) *titles.DB, error) {
	server = strings.TrimPrefix(server, `\\`)
	if isLocalMachine(server) {
		h, err := newHost(e, nowarn)
		if err != nil {
			return nil, nil, nil, err
		}
		return h.Source(), func() { h.Close() }, h.Engine.LangTitles, nil
	}
	c, err := openRemote(e, server)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := c.Connect(ctx); err != nil {
		c.Close()
		return nil, nil, nil, err
	}
	// Another computer's names come in English (-lang names nothing there).
	return c, func() { c.Close() }, func(titles.Lang) *titles.DB { return nil }, nil
}

// createOutput opens the -o file (refusing to overwrite without -y, where
// typeperf and relog would ask), or returns the console for no file or
// "-" (standard output).
func createOutput(path string, yes bool, console io.Writer) (io.Writer, func() error, error) {
	if path == "" || path == "-" {
		return console, func() error { return nil }, nil
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if !yes {
		flags |= os.O_EXCL
	}
	special := false
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&(os.ModeDevice|os.ModeNamedPipe) != 0 {
		flags, special = os.O_WRONLY, true // a device or a pipe (/dev/null): written to, nothing to overwrite
	}
	// A log is private to its user (mode 0600: the counters of a
	// machine tell others what runs on it), and never written through a
	// symbolic link.
	f, err := os.OpenFile(path, flags|syscall.O_NOFOLLOW, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil, nil, fmt.Errorf("%s exists: use -y to overwrite it (%w)", path, fs.ErrExist)
	}
	if errors.Is(err, syscall.ELOOP) {
		return nil, nil, fmt.Errorf("%s is a symbolic link: logs are not written through links", path)
	}
	if err != nil {
		return nil, nil, err
	}
	if special {
		// Opened without O_EXCL: a file put in the pipe's place since
		// (another user's, in a shared folder) is not written to.
		if fi, err := f.Stat(); err != nil || fi.Mode().IsRegular() {
			f.Close()
			return nil, nil, fmt.Errorf("%s exists: use -y to overwrite it (%w)", path, fs.ErrExist)
		}
	}
	return f, f.Close, nil
}

// parseConfigFile turns a Windows settings file (-config) into arguments:
// a line "[name]" starts option -name and each following non-empty line is
// one of its values, the option repeated for each ("[c]" / "\Processor(_Total)\% Processor Time",
// "[si]" / "5", "[y]" alone). The file may be UTF-16 with a byte-order
// mark, as Windows tools save it (utf16le.Text).
func parseConfigFile(data []byte) ([]string, error) {
	text, err := utf16le.Text(data)
	if err != nil {
		return nil, err
	}
	var args []string
	opt, pending := "", false
	for n, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		if l == "" {
			continue
		}
		if strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]") {
			name := strings.TrimSpace(l[1 : len(l)-1])
			if name == "" {
				return nil, fmt.Errorf("line %d: empty option name", n+1)
			}
			opt, pending = "-"+strings.TrimLeft(name, "-/"), true
			args = append(args, opt)
			continue
		}
		if opt == "" {
			return nil, fmt.Errorf("line %d: value %q before any [option] line", n+1, l)
		}
		if !pending { // a further value repeats the option: [c] with several paths
			args = append(args, opt)
		}
		args = append(args, l)
		pending = false
	}
	return args, nil
}

// maxConfigSize bounds a settings file (-config): far beyond any real one.
const maxConfigSize = 1 << 20

// readCapped reads a file of at most max bytes; a larger one (or an
// endless device) is an error naming it.
func readCapped(name string, max int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: larger than %d KiB: not a settings file", name, max>>10)
	}
	return data, nil
}

// parseWithConfig parses args; when they name a settings file (-config),
// its options come first and the command line's after them, so that the
// command line wins.
func parseWithConfig(fs *flag.FlagSet, args []string, name string) ([]string, error) {
	for i, a := range args {
		an := strings.TrimLeft(a, "-/")
		if (a != an) && strings.EqualFold(an, name) && i+1 < len(args) {
			data, err := readCapped(args[i+1], maxConfigSize)
			if err != nil {
				return nil, err
			}
			cfg, err := parseConfigFile(data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", args[i+1], err)
			}
			args = append(cfg, args...)
			break
		}
	}
	return parseFlags(fs, args)
}
