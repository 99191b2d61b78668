package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/remote"
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
// and refuses any other one: for commands that read this computer only
// (explain).
func checkMachine(what, name string) error {
	name = strings.TrimPrefix(name, `\\`)
	if isLocalMachine(name) {
		return nil
	}
	return fmt.Errorf("%s %s: this command reads this computer only (%s; localhost works too)", what, name, host.ComputerName())
}

// machinePaths routes counter paths to their computers: a path naming
// this computer loses its computer part (isLocalMachine), so that it
// matches the local host's samples and prints with its one spelling
// (`\\localhost\Memory\...` becomes `\Memory\...`, shown as
// `\\VM\Memory\...`); a path naming none gets server's (-s) when that is
// another computer; a path naming another computer keeps it, and that
// computer is in remotes (once, as first written). A path that does not
// parse is left for the query to report.
func machinePaths(paths []string, server string) (out, remotes []string) {
	server = strings.TrimPrefix(server, `\\`)
	if isLocalMachine(server) {
		server = ""
	}
	out = make([]string, 0, len(paths))
	for _, s := range paths {
		p, err := counterpath.Parse(s)
		if err != nil {
			out = append(out, s)
			continue
		}
		switch {
		case p.Machine == "" && server == "":
			out = append(out, s)
			continue
		case p.Machine == "":
			p.Machine = server
		case isLocalMachine(p.Machine):
			p.Machine = ""
			out = append(out, p.String())
			continue
		}
		if !slices.ContainsFunc(remotes, func(r string) bool { return strings.EqualFold(r, p.Machine) }) {
			remotes = append(remotes, p.Machine)
		}
		out = append(out, p.String())
	}
	return out, remotes
}

// loadHosts reads the hosts file ($PERFC_HOSTS, else
// $XDG_CONFIG_HOME/perfc/hosts.yml): the remote computers' addresses and
// credentials. A missing file is no hosts, so that naming a computer
// says where to add it.
func loadHosts(e *env) (*remote.Hosts, error) {
	path, err := remote.DefaultHostsPath(e.getenv)
	if err != nil {
		return nil, err
	}
	h, err := remote.LoadHosts(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &remote.Hosts{Path: path + " (which does not exist)"}, nil
	}
	return h, err
}

// openRemote opens a client of the remote computer name, through the
// hosts file.
func openRemote(e *env, name string) (*remote.Client, error) {
	hosts, err := loadHosts(e)
	if err != nil {
		return nil, err
	}
	cfg, err := hosts.Lookup(name)
	if err != nil {
		return nil, err
	}
	return remote.Open(cfg)
}

// fleetSource is the source of a query over this computer and the remote
// computers named (none: the local host alone): a pdh.Fleet whose first
// member is the local host, each remote one a client of the hosts file's
// entry, which may be down (its counters then have no data until it
// answers). close drops the clients' connections.
func fleetSource(ctx context.Context, e *env, h *host.Host, remotes []string) (src pdh.Source, close func(), err error) {
	if len(remotes) == 0 {
		return h.Source(), func() {}, nil
	}
	// This computer's collection is never "too slow" to wait for: a
	// Global of thousands of processes may take seconds.
	members := []pdh.Member{{Machine: host.ComputerName(), Source: h.Source(), Timeout: time.Hour}}
	var clients []*remote.Client
	close = func() {
		for _, c := range clients {
			c.Close()
		}
	}
	for _, name := range remotes {
		c, err := openRemote(e, name)
		if err != nil {
			close()
			return nil, nil, err
		}
		clients = append(clients, c)
		members = append(members, pdh.Member{Machine: name, Source: c, Timeout: c.Timeout()})
	}
	f, err := pdh.NewFleet(ctx, members...)
	if err != nil {
		close()
		return nil, nil, err
	}
	return f, close, nil
}
