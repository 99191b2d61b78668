// Command perfc is the one binary of perfcounters: Windows performance
// counters on Linux. Its subcommands keep the syntax of the Windows tools
// (typeperf, relog, logman, lodctr, ...). This file maps a subcommand name to
// its file's run function and turns errors into exit codes; each subcommand
// file only parses flags and calls a package.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

// command is one subcommand.
type command struct {
	name  string
	usage string // one line: arguments
	short string // one line: what it does
	run   func(ctx context.Context, env *env, args []string) error
}

// env is what a subcommand may touch: its streams and environment.
type env struct {
	stdout, stderr io.Writer
	stdin          io.Reader
	getenv         func(string) string
}

// usageError is a command-line mistake: exit status 2 with the usage line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

func commands() []command {
	return []command{
		dumpCommand(),
		queryCommand(),
		typeperfCommand(), relogCommand(),
		lodctrCommand(),
		unlodctrCommand(),
		ctrppCommand(),
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], &env{stdout: os.Stdout, stderr: os.Stderr, stdin: os.Stdin, getenv: os.Getenv})
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, e *env) int {
	cmds := commands()
	if len(args) == 0 || isHelp(args[0]) {
		printUsage(e.stderr, cmds)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	name := strings.ToLower(args[0])
	for _, c := range cmds {
		if c.name != name {
			continue
		}
		err := c.run(ctx, e, args[1:])
		var ue usageError
		switch {
		case err == nil:
			return 0
		case errors.As(err, &ue):
			fmt.Fprintf(e.stderr, "perfc %s: %v\nusage: perfc %s %s\n", c.name, err, c.name, c.usage)
			return 2
		default:
			fmt.Fprintf(e.stderr, "perfc %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(e.stderr, "perfc: unknown command %q\n", args[0])
	printUsage(e.stderr, cmds)
	return 2
}

func isHelp(s string) bool {
	switch strings.ToLower(s) {
	case "-h", "-help", "--help", "/?", "-?", "help":
		return true
	}
	return false
}

func printUsage(w io.Writer, cmds []command) {
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].name < cmds[j].name })
	fmt.Fprintln(w, "perfc: Windows performance counters on Linux\n\nusage: perfc COMMAND [arguments]\n\ncommands:")
	for _, c := range cmds {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.short)
	}
	fmt.Fprintln(w, "\nRun 'perfc COMMAND -?' for a command's options.")
}
