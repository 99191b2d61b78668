package main

import (
	"flag"
	"io"
	"strings"
)

// helpScreen is a command's /? text in the manner of the Windows tools'
// help screens: what it does, usage forms, parameters, then (generated
// from the flag set) every option, then notes and examples.
type helpScreen struct {
	about    string
	usage    []string
	params   [][2]string // name, meaning
	notes    string
	examples [][2]string // what, command
}

// helpScreens returns the help screens by command name.
func helpScreens() map[string]helpScreen {
	pathNote := "Counter is the full name of a performance counter in\n" +
		`"\\<Computer>\<Object>(<Instance>)\<Counter>" format,` + "\n" +
		`such as "\\Server1\Processor(0)\% User Time". The computer part is` + "\n" +
		"optional and may only name this computer (or localhost). An instance\n" +
		"that starts with '/' is a mount point and keeps its slashes\n" +
		`("\LogicalDisk(/home)\% Free Space"); elsewhere the characters` + "\n" +
		"( ) / # \\ % of a name are written %XX (\"kworker%2F0:1\"), as -qx shows.\n" +
		`Watch one process by its id with "\Process V2(*:PID)\% Processor Time".`
	return map[string]helpScreen{
		"logman": logmanHelp(),
		"serve":  serveHelp(),
		"typeperf": {
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
			notes: pathNote,
			examples: [][2]string{
				{"CPU load of this computer every second until CTRL+C:", `perfc typeperf "\Processor(_Total)\% Processor Time"`},
				{"The counters listed in counters.txt, 50 samples 5 seconds apart, into a TSV log:", "perfc typeperf -cf counters.txt -si 5 -sc 50 -f TSV -o domain2.tsv"},
				{"Every counter and instance of PhysicalDisk, into a file:", "perfc typeperf -qx PhysicalDisk -o counters.txt"},
				{"Windows syntax works as well:", `perfc typeperf "\Memory\Available MBytes" /si 2 /SC 3 /f csv`},
			},
		},
		"relog": {
			about: "Relog creates new performance logs from data in existing performance\nlogs by changing the sampling rate and/or converting the file format.\nIts inputs here are PERF_DATA_BLOCK files (perfc query, or captured on\nWindows).",
			usage: []string{"perfc relog <filename [filename ...]> [options]"},
			params: [][2]string{
				{"<filename [filename ...]>", "Performance files to relog. Quote a wildcard (\"logs/*.bin\") and relog expands it."},
			},
			notes: "Counters are given as in typeperf; copy them from the output of -q.\n" +
				"Several counters in one -c argument are separated by blanks before\n" +
				"each '\\' or put in double quotes.",
			examples: [][2]string{
				{"One counter of a set of captured blocks, into a CSV log:", `perfc relog "s*.bin" -c "\Processor(_Total)\% Processor Time" -o cpu.csv`},
				{"Two counters in one quoted list:", `perfc relog x.bin -c "\Memory\Available MBytes \Processor(_Total)\% Processor Time"`},
				{"Every second record, as TSV:", "perfc relog logfile.bin -f tsv -o logfile.tsv -t 2"},
				{"The counters and time range of the input:", "perfc relog logfile.bin -q -o counters.txt"},
			},
		},
		"query": {
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
		"dump": {
			about: "Dump prints raw PERF_DATA_BLOCK files, ours or captured on Windows, for\na person or (with -json) a program, and lists the records of binary logs:\nours (typeperf -f BIN) and Windows' (.blg).",
			usage: []string{"perfc dump [options] <filename [filename ...]>"},
			params: [][2]string{
				{"<filename [filename ...]>", "Block files to print, or binary logs to list."},
			},
			examples: [][2]string{
				{"A block captured on Windows Vista:", "perfc dump perfdata/testdata/windows/s01-0238-Processor.bin"},
				{"The records of a log Windows wrote:", "perfc dump perflog/blg/testdata/BadCounterSamples.blg"},
				{"For programs:", "perfc dump -json now.perfdata"},
				{"Names from another host's title list:", "perfc dump -titles counter.bin x.bin"},
			},
		},
		"ctrpp": {
			about: "Ctrpp generates Go constants and typed counter wrappers from a counters\nmanifest, as Windows' ctrpp generates C code.",
			usage: []string{"perfc ctrpp <manifest> [options]"},
			params: [][2]string{
				{"<manifest>", "Instrumentation manifest declaring the counter sets."},
			},
			examples: [][2]string{
				{"Generate the wrappers beside the program's sources:", "perfc ctrpp counters.man -o counters_gen.go"},
			},
		},
		"explain": {
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
		"perfmon": {
			about: "Perfmon serves Performance Monitor as a web page for this computer:\nline graph, histogram and report views of counters, and the Add Counters\ndialog with each counter's explain text. When a perfc serve of yours runs\nat 127.0.0.1:9641 (or at the address -serve names), Perfmon prints that\nserver's page, with the remote computers it reads, and exits. Otherwise\nit serves the page itself, on loopback only, until CTRL+C. The printed\naddress holds a key (the server's token, exchanged for a cookie when\nopened): only its holder reads the counters. A desktop opens the page in\nthe browser.\n\nLogs named on the command line (perfc's binary logs, BLG, CSV, TSV, or a\nSQL log set as SQL:DSN!logset) open in log mode, on a page of Perfmon's\nown: a time range over the whole log, line, area and stacked area views,\nand every instance the log holds. The page's \"Open log\" uploads a log\nfrom the browser.",
			usage: []string{"perfc perfmon [options] [LOG ...]"},
			examples: [][2]string{
				{"Serve the page on a free port and print its address:", "perfc perfmon"},
				{"Show a log recorded by Performance Monitor:", "perfc perfmon SampleLog.blg"},
				{"On a fixed port, without opening a browser:", "perfc perfmon -addr 127.0.0.1:8080 -noopen"},
				{"The page of the perfc serve on port 9700:", "perfc perfmon -serve 9700"},
			},
		},
		"version": {
			about: "Version prints perfc's module version, the commit it was built from\nwhen known, and the Go version.",
			usage: []string{"perfc version"},
		},
		"completion": {
			about: "Completion prints a shell script that completes perfc's commands,\noptions, and object and counter names from this computer.",
			usage: []string{"perfc completion bash"},
			examples: [][2]string{
				{"For this shell:", "source <(perfc completion bash)"},
				{"For every new shell:", "perfc completion bash > ~/.local/share/bash-completion/completions/perfc"},
			},
		},
	}
}

// writeHelp writes the help screen of command name; fs gives its options
// (nil: none).
func writeHelp(w io.Writer, name string, fs *flag.FlagSet) {
	h, ok := helpScreens()[name]
	var b strings.Builder
	if ok && h.about != "" {
		b.WriteString("\n" + h.about + "\n")
	}
	b.WriteString("\nUsage:\n")
	if ok && len(h.usage) > 0 {
		for _, u := range h.usage {
			b.WriteString("  " + u + "\n")
		}
	} else {
		b.WriteString("  perfc " + name + " [options]\n")
	}
	if ok && len(h.params) > 0 {
		b.WriteString("\nParameters:\n")
		for _, p := range h.params {
			writeItem(&b, p[0], p[1])
		}
	}
	b.WriteString("\nOptions:\n")
	writeItem(&b, "-?", "Displays context sensitive help.")
	if fs != nil {
		fs.VisitAll(func(f *flag.Flag) {
			_, usage := flag.UnquoteUsage(f)
			if !isBool(f) && f.DefValue != "" && f.DefValue != "0" && !strings.Contains(usage, "Default") {
				usage += " Default is " + f.DefValue + "."
			}
			writeItem(&b, fmtOption(f), usage)
		})
	}
	if ok && h.notes != "" {
		b.WriteString("\nNote:\n")
		for _, l := range strings.Split(h.notes, "\n") {
			b.WriteString("  " + l + "\n")
		}
	}
	b.WriteString("\n  Options are written with - or / and in any case: -sc 5, /sc 5, -SC 5.\n")
	if ok && len(h.examples) > 0 {
		b.WriteString("\nExamples:\n")
		for _, ex := range h.examples {
			b.WriteString("  " + ex[0] + "\n    " + ex[1] + "\n")
		}
	}
	b.WriteString("\n")
	io.WriteString(w, b.String())
}

// writeItem writes one "  name    meaning" entry, the meaning wrapped at
// 79 columns and indented to column 32, as Windows' help screens lay out.
func writeItem(b *strings.Builder, name, meaning string) {
	const col, width = 32, 79
	line := "  " + name
	if len(line) >= col {
		b.WriteString(line + "\n")
		line = ""
	}
	line += strings.Repeat(" ", col-len(line))
	n := col
	first := true
	for _, para := range strings.Split(meaning, "\n") {
		if !first {
			b.WriteString(line + "\n")
			line, n = strings.Repeat(" ", col), col
		}
		first = false
		words := strings.Fields(para)
		wrote := false
		for _, wd := range words {
			if wrote && n+1+len(wd) > width {
				b.WriteString(line + "\n")
				line, n, wrote = strings.Repeat(" ", col), col, false
			}
			if wrote {
				line += " "
				n++
			}
			line += wd
			n += len(wd)
			wrote = true
		}
	}
	b.WriteString(strings.TrimRight(line, " ") + "\n")
}

// helpOnly handles a command without options: its /? prints the help
// screen; any other option is a usage error.
func helpOnly(e *env, name string, args []string) ([]string, error) {
	fs := newFlags(name, e.stdout)
	return parseFlags(fs, args)
}
