package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"github.com/perfcounters/perfcounters/engine"
	"github.com/perfcounters/perfcounters/export/otlp"
	"github.com/perfcounters/perfcounters/export/prom"
	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/logview"
	"github.com/perfcounters/perfcounters/internal/server"
	"github.com/perfcounters/perfcounters/internal/tool/logman"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/remote/apiserver"
)

func serveCommand() command {
	return command{
		name:  "serve",
		usage: "[-listen <host:port>] [-config <web-config.yml>] [-tokenfile <filename>] [-anonymous] [-metrics <options.json> | -nometrics] [-hosts <hosts.yml>] [-noui]",
		short: "serve this computer's performance data over the network (remote queries, TLS, authentication)",
		run:   runServe,
		help: helpScreen{
			about: "Serve answers remote queries for this computer's performance data:\n" +
				"the raw blocks of Global, Costly or index lists, the title lists,\n" +
				"object and counter enumeration with explain texts, and formatted\n" +
				"values as JSON (remote/API.md). Other computers read it with\n" +
				`\\host paths. It listens on loopback (` + server.DefaultAddr + `) unless told` + "\n" +
				"otherwise; any other address needs TLS and authentication. It serves\n" +
				"Performance Monitor's page at / behind the same authentication\n" +
				"(-noui: not), with the remote computers of its hosts file.",
			usage: []string{"perfc serve [options]"},
			notes: "Callers are monitor (read counters, titles and explain texts) or log\n" +
				"(also start and stop collector sets), as Windows' Performance Monitor\n" +
				"Users and Performance Log Users. On loopback without a web\n" +
				"configuration, the server writes a random token to a file only its\n" +
				"user can read, and callers must send it: other users of this computer\n" +
				"reach loopback too. The web configuration's file, certificates and\n" +
				"keys must belong to the serving user or root and be closed to others'\n" +
				"changes (keys also to their reading). Certificates are re-read when\n" +
				"they change. docs/serve.md has examples.",
			examples: [][2]string{
				{"Serve on loopback; local clients read the token file:", "perfc serve"},
				{"Serve the network with TLS and passwords or tokens:", "perfc serve -listen :9641 -config web-config.yml"},
				{"Let every local user read counters without a token:", "perfc serve -anonymous"},
				{"Open its page in the browser (prints the address with the key):", "perfc perfmon"},
			},
		},
	}
}

// serveOptions are serve's command line, read by parseServe.
type serveOptions struct {
	listen, config, tokenFile string
	metrics                   string // /metrics export options file (JSON)
	anonymous, nowarn         bool
	noMetrics                 bool
	noUI                      bool         // no perfmon page at /
	hosts                     string       // hosts file of the remote computers the page and API reach
	otlp                      otlp.Options // push over OTLP when otlpOn
	otlpOn                    bool
}

func parseServe(c *command, e *env, args []string) (serveOptions, error) {
	fs := c.flags(e.stdout)
	var o serveOptions
	fs.StringVar(&o.listen, "listen", server.DefaultAddr, "Address to listen on, `host:port`. Any address but a loopback one (127.0.0.1, ::1, localhost) needs TLS and authentication in the web configuration.")
	fs.StringVar(&o.config, "config", "", "Web configuration `filename` in the format of Prometheus exporters' web-config.yml: TLS, client certificates, basic_auth_users, rate_limit, and perfc's bearer tokens and roles (docs/serve.md).")
	fs.StringVar(&o.tokenFile, "tokenfile", "", "On loopback without authentication configured, the `filename` the server writes its random access token to (mode 0600). Default is $XDG_RUNTIME_DIR/perfc/serve-PORT.token (else /run/perfc for root, else $TMPDIR/perfc-UID, or a perfc-UID-RANDOM directory of its own when another user made that one).")
	fs.BoolVar(&o.anonymous, "anonymous", false, "On loopback, let callers without credentials read counters (role monitor): every local user can then read what this user can.")
	fs.StringVar(&o.metrics, "metrics", "", "Options `file` (JSON) of the OpenMetrics export at /metrics: objects, instance filters, _Total, formatted gauges (export/prom/MAPPING.md). Default: every object but Process, Process V2 and Thread.")
	fs.BoolVar(&o.noMetrics, "nometrics", false, "Do not serve /metrics.")
	fs.BoolVar(&o.noUI, "noui", false, "Do not serve perfmon's page at / (the API and /metrics only).")
	fs.StringVar(&o.hosts, "hosts", "", "Hosts `file` of the remote computers this server reads for its callers (perfmon's Add Counters, \\\\HOST paths in /v1/formatted): default $PERFC_HOSTS, else ~/.config/perfc/hosts.yml when it exists (remote/HOSTS.md).")
	fs.BoolVar(&o.nowarn, "nowarn", false, "Do not print warnings (also: environment PERFC_WARNINGS=off).")
	otlpFinish := o.otlp.Flags(fs, e.getenv)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return o, err
	}
	if o.otlpOn, err = otlpFinish(); err != nil {
		return o, usagef("%v", err)
	}
	if len(pos) > 0 {
		return o, usagef("serve takes no arguments, got %q", strings.Join(pos, " "))
	}
	if o.noMetrics && o.metrics != "" {
		return o, usagef("-metrics and -nometrics contradict each other")
	}
	return o, nil
}

// runServe serves the local host until interrupted (SIGINT, SIGTERM).
func runServe(ctx context.Context, c *command, e *env, args []string) error {
	o, err := parseServe(c, e, args)
	if err == errHelp {
		return nil
	}
	if err != nil {
		return err
	}
	h, err := newHost(e, o.nowarn)
	if err != nil {
		return err
	}
	defer h.Close()
	level := slog.LevelInfo
	if o.nowarn || strings.EqualFold(e.getenv("PERFC_WARNINGS"), "off") {
		level = slog.LevelError
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level}))
	lo, err := logmanOptions(e, o.nowarn)
	if err != nil {
		return err
	}
	comps, err := serveComputers(e, o.hosts)
	if err != nil {
		return err
	}
	defer comps.Close()
	// Logs (/v1/logs) for the page's Open log: uploads need the log
	// role here (they hold disk and memory, and every caller's share
	// the same few places).
	logs := logview.New(logview.Options{UploadRole: remote.RoleLog})
	defer logs.Close()
	// One collection point in front of the host for the API, /metrics
	// and the OTLP push: asked in the same second, they collect once.
	sampler := pdh.NewSampler(h.Source(), pdh.SamplerOptions{})
	api := withLogs(apiserver.NewHandler(sampler, apiserver.Options{
		Registry:     h,
		Clock:        engine.SystemClock(),
		Computers:    comps,
		ComputerName: host.ComputerName(),
		Version:      strings.TrimSpace(strings.SplitN(versionText(), "\n", 2)[0]),
		Logger:       log,
		Sets:         logman.RemoteSets{Options: lo},
	}), logs)
	handlers := map[string]http.Handler{}
	if !o.noMetrics {
		mo := prom.Options{}
		if o.metrics != "" {
			b, err := server.ReadTrustedConfig(o.metrics, "metrics export options", os.Geteuid(), 1<<20)
			if err != nil {
				return err
			}
			if mo, err = prom.ParseOptions(b); err != nil {
				return fmt.Errorf("%s: %w", o.metrics, err)
			}
		}
		sets := logman.RemoteSets{Options: lo}
		mo.Cumulative = host.Cumulative()
		mo.Alerts = func(ctx context.Context) []prom.Alert { return alertSeries(ctx, sets) }
		withWindowsExporterFacts(&mo)
		m, err := prom.NewCollector(sampler.View(), mo)
		if err != nil {
			return err
		}
		handlers[remote.PathMetrics] = m
	}
	s, err := server.New(server.Options{
		Addr:       o.listen,
		ConfigFile: o.config,
		API:        api,
		BodyLimits: map[string]int64{logview.Path: logs.MaxUploadBytes()},
		Handlers:   handlers,
		Page:       servePage(o),
		Anonymous:  o.anonymous,
		TokenFile:  o.tokenFile,
		Logger:     log,
		Getenv:     e.getenv,
	})
	if err != nil {
		return err
	}
	var pushed chan error
	if o.otlpOn {
		oo := o.otlp
		oo.Logger = log
		if oo.ProcessResources {
			// The source is this host: process.command_line from /proc.
			oo.CommandLine = otlp.ProcCommandLine
		}
		exp, err := otlp.New(ctx, sampler.View(), oo)
		if err != nil {
			return err
		}
		pctx, stop := context.WithCancel(ctx)
		defer stop()
		pushed = make(chan error, 1)
		go func() { pushed <- exp.Run(pctx) }()
		// The pusher ends with the server, whyever the server ends.
		defer func() { stop(); <-pushed }()
	}
	fmt.Fprintf(e.stdout, "perfc serve: listening on %s (API under %s/)\n", s.URL(), remote.APIVersion)
	if o.otlpOn {
		every := o.otlp.Interval
		if every <= 0 {
			every = otlp.DefaultInterval
		}
		fmt.Fprintf(e.stdout, "Pushing counters over OTLP to %s every %v.\n", o.otlp.Endpoint, every)
	}
	if tf := s.TokenFile(); tf != "" {
		fmt.Fprintf(e.stdout, "Clients authenticate with the token in %s (Authorization: Bearer <token>); it is removed when the server stops.\n", tf)
	}
	if !o.noUI {
		fmt.Fprintln(e.stdout, pageNote(s))
	}
	if n := comps.Names(); len(n) > 0 {
		fmt.Fprintf(e.stdout, "Remote computers its callers may read (hosts file): %s.\n", strings.Join(n, ", "))
	}
	fmt.Fprintln(e.stdout, "Press CTRL+C to stop.")
	if err := s.Serve(ctx); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, "perfc serve: stopped")
	return nil
}

// alertSeries are the alert sets' states for /metrics (a set that cannot
// be read is left out, as logman query leaves it out).
func alertSeries(ctx context.Context, sets logman.RemoteSets) []prom.Alert {
	list, err := sets.List(ctx)
	if err != nil {
		return nil
	}
	var out []prom.Alert
	for _, s := range list {
		for _, a := range s.Alerts {
			out = append(out, prom.Alert{Set: s.Name, Threshold: a.Threshold, Counter: a.Counter, Firing: a.Firing, Fired: a.Fired})
		}
	}
	return out
}
