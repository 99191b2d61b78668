package main

import (
	"flag"
	"fmt"
	"io"
)

// newFlags returns a FlagSet that reports errors instead of exiting, so
// run maps them to exit status 2, and that accepts the Windows help
// spelling "/?".
func newFlags(name string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("perfc "+name, flag.ContinueOnError)
	fs.SetOutput(w)
	return fs
}

// parseFlags parses args, accepting flags after positional arguments as the
// Windows tools do ("relog a.blg -f csv -o x.csv"), and "/?" as -?.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	for _, a := range args {
		if a == "/?" || a == "-?" {
			fmt.Fprintf(fs.Output(), "usage of %s:\n", fs.Name())
			fs.PrintDefaults()
			return nil, errHelp
		}
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil, errHelp
			}
			return nil, usagef("%v", err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
		if rest[0] == "--" {
			return append(pos[:len(pos)-1], args...), nil
		}
	}
}

// errHelp ends a command that printed its help on request (exit status 0).
var errHelp = helpShown{}

type helpShown struct{}

func (helpShown) Error() string { return "help shown" }
