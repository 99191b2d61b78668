package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// flags returns the command's FlagSet, which reports errors instead of
// exiting, so run maps them to exit status 2, and whose Usage writes the
// help screen to w (standard output, as the Windows tools print /?).
// Parse it with parseFlags, which adds the Windows option syntax.
func (c *command) flags(w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("perfc "+c.name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() { c.writeHelp(fs.Output(), fs) }
	return fs
}

// winOption splits one command-line word in the Windows tools' option
// syntax: a leading '/', '-' or "--", then the option name, then an
// optional ":value" or "=value" ("/m:file.man", "-si=5"). ok is false for
// words that are not options: "-" (standard input or output), "--", and
// anything without a name. The caller decides whether a word starting
// with '/' is an option or an absolute path by looking the name up.
func winOption(s string) (name, value string, hasValue, ok bool) {
	var rest string
	switch {
	case s == "" || s == "-" || s == "--" || s == "/":
		return "", "", false, false
	case strings.HasPrefix(s, "--"):
		rest = s[2:]
	case s[0] == '-' || s[0] == '/':
		rest = s[1:]
	default:
		return "", "", false, false
	}
	if rest == "" {
		return "", "", false, false
	}
	if i := strings.IndexAny(rest, ":="); i > 0 {
		return rest[:i], rest[i+1:], true, true
	}
	return rest, "", false, true
}

// isHelpOption reports whether name (as winOption returns it) asks for help:
// "?", "h" or "help", in any case.
func isHelpOption(name string) bool {
	switch strings.ToLower(name) {
	case "?", "h", "help":
		return true
	}
	return false
}

// parseFlags parses args the way the Windows tools read their command
// lines, and returns the positional arguments:
//
//   - an option starts with '-', "--" or '/' ("/sc 1", "-sc 1", "--sc 1");
//   - option names are case-insensitive ("-SI 2", "/f TSV", "/Q Memory");
//   - options may follow positional arguments ("relog a.blg -f csv -o x.csv");
//   - a value may also be attached with ':' or '=' ("/si:5", "-o=x.csv");
//   - "/?", "-?", "-h", "-help" print the command's help screen and end
//     the command (errHelp, exit status 0);
//   - "--" ends the options: every later word is positional.
//
// A word starting with '/' whose name is no option of the command is a
// positional argument (an absolute file name such as /tmp/x.csv); one
// starting with '-' is an unknown option, a usage error. A value taken by
// an option is never itself read as an option ("-o /q", "-sc -1").
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	byName := map[string]*flag.Flag{}
	fs.VisitAll(func(f *flag.Flag) { byName[strings.ToLower(f.Name)] = f })
	var opts, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		name, val, hasVal, ok := winOption(a)
		if !ok {
			pos = append(pos, a)
			continue
		}
		if isHelpOption(name) && byName[strings.ToLower(name)] == nil {
			fs.Usage()
			return nil, errHelp
		}
		f := byName[strings.ToLower(name)]
		if f == nil {
			if a[0] == '/' {
				pos = append(pos, a) // an absolute file name, not an option
				continue
			}
			return nil, usagef("unknown option %s", a)
		}
		if isBool(f) {
			if hasVal {
				opts = append(opts, "-"+f.Name+"="+val)
			} else {
				opts = append(opts, "-"+f.Name)
			}
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, usagef("option %s needs a value", a)
			}
			i++
			val = args[i]
		}
		opts = append(opts, "-"+f.Name+"="+val)
	}
	// The flag package prints its own errors and usage: silence both, run
	// prints the error with the usage line.
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(opts)
	fs.SetOutput(out)
	fs.Usage = usage
	if err != nil {
		if err == flag.ErrHelp {
			fs.Usage()
			return nil, errHelp
		}
		return nil, usagef("%v", err)
	}
	return pos, nil
}

// isBool reports whether f is a flag that takes no value.
func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// errHelp ends a command that printed its help on request (exit status 0).
var errHelp = helpShown{}

type helpShown struct{}

func (helpShown) Error() string { return "help shown" }

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, " ") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

// fmtOption is how help screens write an option with its value
// placeholder, in the Windows tools' words ("-si <[[hh:]mm:]ss>").
func fmtOption(f *flag.Flag) string {
	if isBool(f) {
		return "-" + f.Name
	}
	ph, _ := flag.UnquoteUsage(f)
	if !strings.Contains(f.Usage, "`") {
		switch f.Name {
		case "cf", "config", "o", "titles":
			ph = "filename"
		case "f":
			ph = "CSV|TSV|BIN|BLG|SQL"
		case "s":
			ph = "computer_name"
		case "sc":
			ph = "samples"
		case "si":
			ph = "[[hh:]mm:]ss"
		case "c":
			ph = "path [path ...]"
		case "t":
			ph = "value"
		case "b", "e":
			ph = "M/d/yyyy h:mm:ss[AM|PM]"
		case "p":
			ph = "package"
		default:
			ph = "value"
		}
	}
	return fmt.Sprintf("-%s <%s>", f.Name, ph)
}
