package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/host"
	"golang.org/x/sys/unix"
)

// newHost returns the local host with the command's warnings wired in:
// every warning of the engine and the host reaches stderr once per cause
// (see warner) unless nowarn or PERFC_WARNINGS=off.
func newHost(e *env, nowarn bool) (*host.Host, error) {
	hopts, err := hostOptions(e)
	if err != nil {
		return nil, err
	}
	hopts.Logger = slog.New(e.warnings(nowarn).Handler())
	return host.New(hopts)
}

// isLocalMachine reports whether a computer name given with -s or in a
// path (`\\NAME\...`) is this computer: its name as Windows prints it
// (host.ComputerName), its full host name, "localhost" or "." — in any
// case, as Windows compares computer names.
func isLocalMachine(name string) bool {
	if name == "" || name == "." || strings.EqualFold(name, "localhost") || strings.EqualFold(name, host.ComputerName()) {
		return true
	}
	h, err := os.Hostname()
	return err == nil && strings.EqualFold(name, h)
}

// checkMachine accepts an empty name or this computer's (isLocalMachine)
// and refuses any other one, which would need remote collection.
func checkMachine(what, name string) error {
	name = strings.TrimPrefix(name, `\\`)
	if isLocalMachine(name) {
		return nil
	}
	return fmt.Errorf("%s %s: remote computers are not supported yet (this computer is %s; localhost works too)", what, name, host.ComputerName())
}

// localPaths returns paths with the computer part of those naming this
// computer removed, so that they match the local host's samples and print
// with its one spelling (`\\localhost\Memory\...` becomes `\Memory\...`,
// shown as `\\VM\Memory\...`). A path naming another computer is an
// error; a path that does not parse is left for the query to report.
func localPaths(paths []string) ([]string, error) {
	out := make([]string, 0, len(paths))
	for _, s := range paths {
		if !strings.HasPrefix(s, `\\`) {
			out = append(out, s)
			continue
		}
		p, err := counterpath.Parse(s)
		if err != nil {
			out = append(out, s)
			continue
		}
		if !isLocalMachine(p.Machine) {
			return nil, fmt.Errorf("%s: remote computers are not supported yet (this computer is %s; localhost works too)", s, host.ComputerName())
		}
		p.Machine = ""
		out = append(out, p.String())
	}
	return out, nil
}

// isTerminal reports whether w is a terminal, where binary output is
// refused.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
