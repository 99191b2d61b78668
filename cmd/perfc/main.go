// Command perfc is the one binary of perfcounters: Windows performance
// counters on Linux. Its subcommands keep the syntax of the Windows tools
// (typeperf, relog, logman, lodctr, ...). This file maps a subcommand name to
// its command value (name, synopsis, help screen, run function) and turns
// errors into exit codes; each subcommand file only parses flags and calls
// a package.
package main

//go:generate go test -run ^TestManPages$ -update

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

// command is one subcommand: all there is to know of it. Its run function
// gets the command, whose flags method makes the flag set that prints
// its help screen.
type command struct {
	name  string
	usage string // one line: arguments
	short string // one line: what it does
	help  helpScreen
	run   func(ctx context.Context, c *command, e *env, args []string) error
	// hidden commands (the completion helper) are not listed.
	hidden bool
	// subs are commands named by the command's next word (logman
	// service), each named with it; their usage errors show this usage.
	subs []command
}

// env is what a subcommand may touch: its streams and environment.
type env struct {
	stdout, stderr io.Writer
	stdin          io.Reader
	getenv         func(string) string
	warn           *warner // set by warnings; nil until then
}

// warnings returns the command's warner, printing to stderr unless
// PERFC_WARNINGS=off or the command's -nowarn option (off) silences it.
func (e *env) warnings(off bool) *warner {
	if e.warn == nil {
		off = off || strings.EqualFold(e.getenv("PERFC_WARNINGS"), "off")
		e.warn = newWarner(e.stderr, off)
	}
	return e.warn
}

// usageError is a command-line mistake: exit status 2 (exitUsage) with
// the usage line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

func commands() []command {
	return []command{
		dumpCommand(),
		queryCommand(),
		typeperfCommand(), relogCommand(),
		logmanCommand(),
		lodctrCommand(),
		unlodctrCommand(),
		ctrppCommand(),
		serveCommand(),
		explainCommand(),
		perfmonCommand(),
		versionCommand(),
		completionCommand(),
		completeCommand(),
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
	if len(args) == 0 {
		printUsage(e.stderr, cmds)
		return exitUsage
	}
	if isVersion(args[0]) { // "perfc --version", as "perfc version"
		args = append([]string{"version"}, args[1:]...)
	}
	if isHelp(args[0]) {
		if len(args) > 1 && !isHelp(args[1]) { // "perfc help typeperf"
			return run(ctx, []string{args[1], "/?"}, e)
		}
		printUsage(e.stdout, cmds)
		return 0
	}
	name := strings.ToLower(args[0])
	for _, c := range cmds {
		if c.name != name {
			continue
		}
		cmd, rest := &c, args[1:]
		for i := range c.subs {
			if len(rest) > 0 && strings.EqualFold(c.subs[i].name, c.name+" "+rest[0]) {
				cmd, rest = &c.subs[i], rest[1:]
				break
			}
		}
		err := cmd.run(ctx, cmd, e, rest)
		code := exitCode(err)
		switch code {
		case exitOK:
		case exitUsage:
			fmt.Fprintf(e.stderr, "perfc %s: %v\nusage: perfc %s %s\nRun 'perfc %s /?' for help.\n", c.name, userMessage(err.Error()), c.name, c.usage, c.name)
		default:
			fmt.Fprintf(e.stderr, "perfc %s: %v\n", c.name, userMessage(err.Error()))
		}
		return code
	}
	fmt.Fprintf(e.stderr, "perfc: unknown command %q\n", args[0])
	printUsage(e.stderr, cmds)
	return exitUsage
}

// isVersion reports whether s asks for the version as other programs
// do: --version, -version, -v, /v (any case).
func isVersion(s string) bool {
	name, _, hasVal, ok := winOption(s)
	return ok && !hasVal && (strings.EqualFold(name, "version") || strings.EqualFold(name, "v"))
}

func isHelp(s string) bool {
	if strings.EqualFold(s, "help") {
		return true
	}
	name, _, hasVal, ok := winOption(s)
	return ok && !hasVal && isHelpOption(name)
}

func printUsage(w io.Writer, cmds []command) {
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].name < cmds[j].name })
	fmt.Fprintln(w, "perfc: Windows performance counters on Linux\n\nUsage:\n  perfc <command> [arguments] [options]\n\nCommands:")
	for _, c := range cmds {
		if c.hidden {
			continue
		}
		fmt.Fprintf(w, "  %-11s %s\n", c.name, c.short)
	}
	fmt.Fprintln(w, "\nOptions are written with - or / and in any case (-sc 5, /SC 5).\nRun 'perfc <command> /?' for a command's options and examples.")
}
