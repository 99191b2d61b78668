package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/pla"
	"github.com/perfcounters/perfcounters/state"
)

// logmanServiceCommand is logman's sub-command service.
func logmanServiceCommand() command {
	return command{
		name:  "logman service",
		short: "the collector service of Data Collector Sets (run by the systemd units)",
		run:   runLogmanService,
		help: helpScreen{
			about: "Logman service is the collector service: it runs every Data Collector Set\nof the caller's state directory that is marked to start at boot (-boot)\nor scheduled (-b, -e, -r), for root the system sets, until it is\nstopped. The systemd units perfc-logman.service run it (docs/systemd.md).\nWith -run or -supervise it is the collector process of one set, which\nlogman start starts in the background.",
			usage: []string{
				"perfc logman service",
				"perfc logman service -run <name> -dir <directory>",
				"perfc logman service -supervise <name> -dir <directory>",
			},
			notes: "Environment: PERFC_STATE_DIR (the state directory), PERFC_LOG_DIR\n(where logs go by default), PERFC_SYSLOG (where alert events go:\nNETWORK:ADDRESS, default the local syslog socket), PERFC_ACTION_TIMEOUT\n(the longest an alert's command or a set's -rc command may run).",
		},
	}
}

// runLogmanService is `perfc logman service`, not listed in the help: the
// collector service that the systemd units run (every set of the caller's
// state directory marked to run at boot or scheduled; for root, the
// system sets), and, with -run NAME -dir DIR, the collector process of
// one set that `perfc logman start` starts in the background.
func runLogmanService(ctx context.Context, c *command, e *env, args []string) error {
	fs := c.flags(e.stdout)
	one := fs.String("run", "", "Run the one Data Collector Set `name` (the collector process of logman start).")
	sup := fs.String("supervise", "", "Run the collector of the Data Collector Set `name` and start it again when it crashes.")
	dir := fs.String("dir", "", "The state `directory` holding the set of -run or -supervise.")
	pos, err := parseFlags(fs, args)
	if err == errHelp {
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("logman service: unexpected argument %q", pos[0])
	}
	// A file size limit (ulimit -f) must end the log cleanly with an
	// error, not kill the collector halfway through a record; the
	// collector has no terminal whose hangup should stop it.
	signal.Ignore(syscall.SIGXFSZ, syscall.SIGHUP)
	warn := e.warnings(false)
	opts := pla.Options{
		NewSource: func() (pdh.Source, io.Closer, error) {
			h, err := newHost(e, true)
			if err != nil {
				return nil, nil, err
			}
			return h.Source(), h, nil
		},
		// Another computer a set records is read as typeperf reads it:
		// through its perfc serve, with the credentials of this user's
		// hosts file (the set's owner's: a collector runs as its owner).
		OpenComputer: func(name string) (*pla.Computer, error) {
			c, err := openRemote(e, name)
			if err != nil {
				return nil, err
			}
			return &pla.Computer{Source: c, Timeout: c.Timeout(), Close: c.Close}, nil
		},
		IsLocal: isLocalMachine,
		Warn:    func(msg string) { warn.Warn("logman:"+msg, msg) },
		// An alert's triggered set (-rdcs) is a set of the alert's own
		// state directory, started as logman start starts it.
		StartSet: func(dir, name string) error {
			def, err := state.ReadCollectorSet(dir, name)
			if err != nil {
				return err
			}
			// Its collector knows an alert started it (a new file each
			// run, pla.Options.Triggered).
			r := collectorRunner()
			r.Command = func(dir, name string) *exec.Cmd {
				c := collectorCommand("-supervise", name, dir)
				c.Env = append(os.Environ(), pla.TriggeredEnv+"=1")
				return c
			}
			return r.Start(ctx, dir, def)
		},
	}
	if opts.EventLog, err = syslogFrom(e.getenv("PERFC_SYSLOG")); err != nil {
		return err
	}
	if v := e.getenv("PERFC_ACTION_TIMEOUT"); v != "" {
		if opts.ActionTimeout, err = time.ParseDuration(v); err != nil || opts.ActionTimeout <= 0 {
			return usagef("PERFC_ACTION_TIMEOUT=%s: want a duration such as 30s or 5m", v)
		}
	}
	if *sup != "" {
		if *dir == "" {
			return usagef("logman service -supervise needs -dir")
		}
		// Its warnings (the collector crashed and is started again) go
		// where the set's are: its warning log, shown by logman query.
		wl := pla.NewWarningLog(*dir, *sup, opts.Warn)
		return pla.Supervise(ctx, func() *exec.Cmd { return collectorCommand("-run", *sup, *dir) }, pla.Ready(e.getenv), wl.Warn)
	}
	if *one != "" {
		if *dir == "" {
			return usagef("logman service -run needs -dir")
		}
		opts.Triggered = e.getenv(pla.TriggeredEnv) == "1"
		// The supervisor that started this collector, when it is still
		// its parent.
		if pid, err := strconv.Atoi(e.getenv(pla.SupervisorEnv)); err == nil && pid == os.Getppid() {
			opts.Supervisor = pid
		}
		return pla.RunOne(ctx, opts, *dir, *one, pla.Ready(e.getenv))
	}
	own, err := state.Path(e.getenv, os.Geteuid())
	if err != nil {
		return err
	}
	return pla.Serve(ctx, pla.ServeOptions{Options: opts, Dirs: []string{own}})
}

// syslogFrom reads PERFC_SYSLOG, where alert events (-el) go: empty is
// the local syslog socket (/dev/log, which the journal reads);
// NETWORK:ADDRESS another (unixgram:/run/x.sock, udp:127.0.0.1:514).
func syslogFrom(v string) (pla.EventLogger, error) {
	if v == "" {
		return pla.Syslog("", ""), nil
	}
	network, addr, ok := strings.Cut(v, ":")
	switch {
	case !ok || addr == "":
		return nil, usagef("PERFC_SYSLOG=%s: want NETWORK:ADDRESS, such as unixgram:/dev/log or udp:127.0.0.1:514", v)
	case network != "unix" && network != "unixgram" && network != "udp" && network != "tcp":
		return nil, usagef("PERFC_SYSLOG=%s: the network is unix, unixgram, udp or tcp", v)
	}
	return pla.Syslog(network, addr), nil
}

// collectorRunner is logman's Runner: a set started by `perfc logman
// start` runs in the background as `perfc logman service -supervise NAME
// -dir DIR`, a supervisor that runs the collector (`-run NAME -dir DIR`)
// and starts it again when it crashes.
func collectorRunner() pla.Runner {
	return pla.Runner{Command: func(dir, name string) *exec.Cmd { return collectorCommand("-supervise", name, dir) }}
}

// collectorCommand is perfc logman service with mode (-run or
// -supervise) for the set name of the state directory dir.
func collectorCommand(mode, name, dir string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		exe = "/proc/self/exe"
	}
	return exec.Command(exe, "logman", "service", mode, name, "-dir", dir)
}
