package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/tool/typeperf"
	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
)

func typeperfCommand() command {
	return command{
		name:  "typeperf",
		usage: `{COUNTER... | -cf FILE | -q [OBJECT] | -qx [OBJECT]} [-si [[hh:]mm:]ss] [-sc N] [-f CSV|TSV] [-o FILE] [-y] [-config FILE]`,
		short: "print counter values at an interval, in typeperf's PDH-CSV layout",
		run:   runTypeperf,
	}
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, " ") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

func runTypeperf(ctx context.Context, e *env, args []string) error {
	fs := newFlags("typeperf", e.stderr)
	var counters stringList
	fs.Var(&counters, "c", "counter `PATH` (repeatable; paths may also be given as arguments)")
	cf := fs.String("cf", "", "`FILE` with one counter path per line")
	si := fs.String("si", "1", "sample interval `[[hh:]mm:]ss`")
	sc := fs.Int("sc", 0, "number of samples (default: until Ctrl+C)")
	format := fs.String("f", "CSV", "output format: CSV or TSV (BIN and SQL are not supported yet)")
	out := fs.String("o", "", "output `FILE` (PDH text log; default: the console)")
	yes := fs.Bool("y", false, "answer yes: overwrite an existing output file")
	q := fs.Bool("q", false, "list counters without instances (of the OBJECT argument, or all)")
	qx := fs.Bool("qx", false, "list counters with instances (of the OBJECT argument, or all)")
	fs.String("config", "", "settings `FILE`: [option] lines each followed by its value lines")
	server := fs.String("s", "", "computer to monitor (remote computers are not supported yet)")
	pos, err := parseWithConfig(fs, args, "config")
	if err == errHelp {
		return nil
	}
	if err != nil {
		return err
	}
	if *server != "" {
		return fmt.Errorf("-s %s: remote computers are not supported yet", *server)
	}
	f, err := parseFormat(*format)
	if err != nil {
		return err
	}
	hopts, err := hostOptions(e)
	if err != nil {
		return err
	}
	h, err := host.New(hopts)
	if err != nil {
		return err
	}
	defer h.Close()
	src := h.Source()

	if *q || *qx {
		if len(pos) > 1 {
			return usagef("-q/-qx take at most one object name, got %d", len(pos))
		}
		lo := typeperf.ListOptions{Instances: *qx}
		if len(pos) == 1 {
			lo.Object = pos[0]
		}
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
		more, err := readCounterFile(*cf)
		if err != nil {
			return err
		}
		paths = append(paths, more...)
	}
	if len(paths) == 0 {
		return usagef("no counter given")
	}
	interval, err := typeperf.ParseInterval(*si)
	if err != nil {
		return usagef("-si: %v", err)
	}
	if *sc < 0 {
		return usagef("-sc %d: must not be negative", *sc)
	}
	opts := typeperf.Options{Counters: paths, Interval: interval, Samples: *sc, Format: f, Log: *out != "", Location: time.Local}
	w, closeOut, err := createOutput(*out, *yes, e.stdout)
	if err != nil {
		return err
	}
	err = typeperf.Run(ctx, src, opts, w, e.stdout, e.stderr)
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	return err
}

// parseFormat accepts CSV and TSV, and says plainly that BIN and SQL are
// not built yet (exit status 1, not a usage error).
func parseFormat(s string) (pdhcsv.Format, error) {
	switch strings.ToUpper(s) {
	case "BIN", "SQL":
		return 0, fmt.Errorf("-f %s: format %s is not supported yet (use CSV or TSV)", s, strings.ToUpper(s))
	}
	f, err := pdhcsv.ParseFormat(s)
	if err != nil {
		return 0, usagef("-f: %v", err)
	}
	return f, nil
}

// createOutput opens the -o file (refusing to overwrite without -y, where
// typeperf and relog would ask), or returns the console.
func createOutput(path string, yes bool, console io.Writer) (io.Writer, func() error, error) {
	if path == "" {
		return console, func() error { return nil }, nil
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if !yes {
		flags |= os.O_EXCL
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil, nil, fmt.Errorf("%s exists: use -y to overwrite it", path)
	}
	if err != nil {
		return nil, nil, err
	}
	return f, f.Close, nil
}

// readCounterFile reads a -cf file: one counter path per line; blank lines
// and lines starting with '#' or ';' are skipped, CR line ends and a UTF-8
// byte-order mark allowed.
func readCounterFile(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var paths []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || l[0] == '#' || l[0] == ';' {
			continue
		}
		paths = append(paths, strings.Trim(l, `"`))
	}
	return paths, sc.Err()
}

// parseConfigFile turns a Windows settings file (-config) into arguments:
// a line "[name]" starts option -name and each following non-empty line is
// one of its values, the option repeated for each ("[c]" / "\Processor(_Total)\% Processor Time",
// "[si]" / "5", "[y]" alone). The file may be UTF-16LE with a byte-order
// mark, as Windows tools save it.
func parseConfigFile(data []byte) ([]string, error) {
	if bytes.HasPrefix(data, []byte{0xff, 0xfe}) {
		u := make([]rune, 0, len(data)/2)
		for i := 2; i+1 < len(data); i += 2 {
			u = append(u, rune(data[i])|rune(data[i+1])<<8)
		}
		data = []byte(string(u))
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var args []string
	opt, pending := "", false
	for n, line := range strings.Split(string(data), "\n") {
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

// parseWithConfig parses args; when they name a settings file (-config),
// its options come first and the command line's after them, so that the
// command line wins.
func parseWithConfig(fs *flag.FlagSet, args []string, name string) ([]string, error) {
	for i, a := range args {
		an := strings.TrimLeft(a, "-/")
		if (a != an) && strings.EqualFold(an, name) && i+1 < len(args) {
			data, err := os.ReadFile(args[i+1])
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
