package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// helpScreen is a command's /? text in the manner of the Windows tools'
// help screens: what it does, usage forms, parameters, then (generated
// from the flag set) every option, then notes and examples.
type helpScreen struct {
	about  string
	usage  []string
	params [][2]string // name, meaning
	// opts are the options of a command without a flag set (lodctr's
	// Windows /x:VALUE words); the others' come from their flag sets.
	opts     [][2]string // option, meaning
	notes    string
	examples [][2]string // what, command
}

// counterPathNote is the note on counter paths of the commands that take
// them.
const counterPathNote = "Counter is the full name of a performance counter in\n" +
	`"\\<Computer>\<Object>(<Instance>)\<Counter>" format,` + "\n" +
	`such as "\\Server1\Processor(0)\% User Time". The computer part is` + "\n" +
	"optional: this computer (or localhost), or a computer of your hosts\n" +
	"file (remote/HOSTS.md), read through its perfc serve. An instance\n" +
	"that starts with '/' is a mount point and keeps its slashes\n" +
	`("\LogicalDisk(/home)\% Free Space"); elsewhere the characters` + "\n" +
	"( ) / # \\ % of a name are written %XX (\"kworker%2F0:1\"), as -qx shows.\n" +
	`Watch one process by its id with "\Process V2(*:PID)\% Processor Time".`

// writeHelp writes the command's help screen; fs gives its options (nil:
// none). A writer that takes the flag set instead (the man pages' test)
// gets it, and no screen.
func (c *command) writeHelp(w io.Writer, fs *flag.FlagSet) {
	if t, ok := w.(interface{ takeFlags(*flag.FlagSet) }); ok {
		t.takeFlags(fs)
		return
	}
	h := c.help
	var b strings.Builder
	if h.about != "" {
		b.WriteString("\n" + h.about + "\n")
	}
	b.WriteString("\nUsage:\n")
	for _, u := range h.usage {
		b.WriteString("  " + u + "\n")
	}
	if len(h.params) > 0 {
		b.WriteString("\nParameters:\n")
		for _, p := range h.params {
			writeItem(&b, p[0], p[1])
		}
	}
	b.WriteString("\nOptions:\n")
	for _, o := range helpOptions(h, fs) {
		writeItem(&b, o[0], o[1])
	}
	if h.notes != "" {
		b.WriteString("\nNote:\n")
		for _, l := range strings.Split(h.notes, "\n") {
			b.WriteString("  " + l + "\n")
		}
	}
	if len(h.opts) == 0 {
		b.WriteString("\n  " + optionsNote + "\n")
	}
	if len(h.examples) > 0 {
		b.WriteString("\nExamples:\n")
		for _, ex := range h.examples {
			b.WriteString("  " + ex[0] + "\n    " + ex[1] + "\n")
		}
	}
	b.WriteString("\n")
	writeExitCodes(&b)
	b.WriteString("\n")
	io.WriteString(w, b.String())
}

// helpOptions lists a command's options as its help screen and man page
// show them: -? first, then the screen's own (commands without a flag
// set), then the flag set's, each with its meaning and default.
func helpOptions(h helpScreen, fs *flag.FlagSet) [][2]string {
	out := [][2]string{{"-?", "Displays context sensitive help."}}
	out = append(out, h.opts...)
	if fs != nil {
		fs.VisitAll(func(f *flag.Flag) {
			_, usage := flag.UnquoteUsage(f)
			// A zero default says nothing, and a usage that names its
			// default ("(default 60s)": the flag's own zero stands for it)
			// must not be contradicted.
			zero := f.DefValue == "" || f.DefValue == "0" || f.DefValue == "0s"
			if !isBool(f) && !zero && !strings.Contains(strings.ToLower(usage), "default") {
				usage += " Default is " + f.DefValue + "."
			}
			out = append(out, [2]string{fmtOption(f), usage})
		})
	}
	return out
}

// optionsNote is the note on option syntax of the commands with flag sets.
const optionsNote = "Options are written with - or / and in any case: -sc 5, /sc 5, -SC 5."

// writeExitCodes writes the exit statuses every command shares.
func writeExitCodes(b *strings.Builder) {
	b.WriteString("Exit status:\n")
	for _, c := range exitClasses() {
		fmt.Fprintf(b, "  %d  %s\n", c.code, c.what)
	}
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
