package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/engine"
	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/logview"
	"github.com/perfcounters/perfcounters/internal/server"
	"github.com/perfcounters/perfcounters/internal/tool/logman"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog"
	"github.com/perfcounters/perfcounters/remote/apiserver"
	"github.com/perfcounters/perfcounters/sysperf"
)

// perfmonCommand shows perfmon's page (internal/webui): the page of a
// running perfc serve of this user when there is one, else its own
// server of the page and the /v1 API (remote) over the local host, on
// loopback, for the user who runs it (perfmon_serve.go).
func perfmonCommand() command {
	return command{
		name:  "perfmon",
		usage: "[-addr 127.0.0.1:PORT | -serve ADDR] [-noopen] [-maxupload BYTES] [-codepage CP] [LOG ...] | /report [-duration D] [-o FILE] [LOG ...]",
		short: "watch counters (live, or of logs) in the browser: line, area, histogram, report",
		run:   runPerfmon,
		help: helpScreen{
			about: "Perfmon serves Performance Monitor as a web page for this computer:\nline graph, histogram and report views of counters, and the Add Counters\ndialog with each counter's explain text. When a perfc serve of yours runs\nat 127.0.0.1:9641 (or at the address -serve names), Perfmon prints that\nserver's page, with the remote computers it reads, and exits. Otherwise\nit serves the page itself, on loopback only, until CTRL+C. The printed\naddress holds a key (the server's token, exchanged for a cookie when\nopened): only its holder reads the counters. A desktop opens the page in\nthe browser.\n\nLogs named on the command line (perfc's binary logs, BLG, CSV, TSV, or a\nSQL log set as SQL:DSN!logset) open in log mode, on a page of Perfmon's\nown: a time range over the whole log, line, area and stacked area views,\nand every instance the log holds. The page's \"Open log\" uploads a log\nfrom the browser.\n\n/report makes the System Performance report, as Windows' perfmon /report:\nit collects for 60 seconds (-duration), judges what it saw by the rules of\nsysperf/rules.json (CPU saturated, memory pressure, swapping, disk queue\nand latency, network errors, throttled control groups, pressure stalls),\nand writes a self-contained HTML page (-o; default\nperfc-report-COMPUTER-DATE.html here): a summary, the warnings, and each\nresource with its top processes, every number linked to its counter.\nWith logs it reports on them instead of on this computer.",
			usage: []string{"perfc perfmon [options] [LOG ...]"},
			examples: [][2]string{
				{"Serve the page on a free port and print its address:", "perfc perfmon"},
				{"Show a log recorded by Performance Monitor:", "perfc perfmon SampleLog.blg"},
				{"On a fixed port, without opening a browser:", "perfc perfmon -addr 127.0.0.1:8080 -noopen"},
				{"The page of the perfc serve on port 9700:", "perfc perfmon -serve 9700"},
				{"The System Performance report of the next 3 seconds:", "perfc perfmon /report -duration 3s -o report.html"},
			},
		},
	}
}

func runPerfmon(ctx context.Context, c *command, e *env, args []string) error {
	fs := c.flags(e.stdout)
	addr := fs.String("addr", "127.0.0.1:0", "Loopback address and port to listen on (port 0: any free one); perfmon then serves the page itself.")
	serveAt := fs.String("serve", "", "Show the page of the perfc serve at `ADDR` (a port, host:port or https://HOST:PORT); by default the one at "+server.DefaultAddr+" when it runs for you, else perfmon serves the page itself.")
	noopen := fs.Bool("noopen", false, "Do not open a browser; only print the page's address.")
	nowarn := fs.Bool("nowarn", false, "Do not print warnings (also: environment PERFC_WARNINGS=off).")
	maxUpload := fs.Int64("maxupload", logview.DefaultMaxUploadBytes, "The largest log the page's \"Open log\" may upload, in bytes (logs named on the command line have no such limit).")
	report := fs.Bool("report", false, "Make the System Performance report: collect for -duration, then write it as an HTML page (-o) and exit.")
	duration := fs.Duration("duration", sysperf.DefaultDuration, "With /report: how long to collect (a log is read to its end).")
	reportOut := fs.String("o", "", "With /report: the report's `file` (default perfc-report-COMPUTER-DATE.html in the current directory).")
	codePage := fs.String("codepage", "", "The `codepage` of text logs whose bytes do not say theirs (no byte-order mark, not UTF-8), for the logs named here and those the page opens: 1252, cp1251, windows-1251, shift_jis, ... Default is the likeliest ANSI code page, noted with the log.")
	pos, err := parseFlags(fs, args)
	if err == errHelp {
		return nil
	}
	if err != nil {
		return err
	}
	addrSet := false
	fs.Visit(func(f *flag.Flag) { addrSet = addrSet || f.Name == "addr" })
	if *report {
		if addrSet || *serveAt != "" {
			return usagef("/report and -addr or -serve: the report is a file, not a page served")
		}
		return runReport(ctx, e, pos, *duration, *reportOut, *nowarn)
	}
	if *duration != sysperf.DefaultDuration || *reportOut != "" {
		return usagef("-duration and -o go with /report")
	}
	if addrSet && *serveAt != "" {
		return usagef("-addr and -serve: give one (-addr serves the page here, -serve shows a running server's)")
	}
	if *serveAt != "" && len(pos) > 0 {
		return usagef("-serve and logs: logs open on a page Perfmon serves itself; leave out -serve (or open the log with the page's Open log)")
	}
	if !addrSet && len(pos) == 0 {
		if used, err := usePerfmonServe(ctx, e, *serveAt, *serveAt != "", *noopen); used || err != nil {
			return err
		}
	}
	if err := checkLoopback(*addr); err != nil {
		return usagef("-addr %s: %v", *addr, err)
	}
	if *maxUpload <= 0 {
		return usagef("-maxupload %d: want a positive number of bytes", *maxUpload)
	}
	// Logs named on the command line (files, or SQL:DSN!logset as relog
	// takes them) are one log set the page starts with.
	cp, err := parseCodePage("-codepage", *codePage)
	if err != nil {
		return err
	}
	logs := logview.New(logview.Options{MaxUploadBytes: *maxUpload, CodePage: cp})
	defer logs.Close()
	if len(pos) > 0 {
		info, err := logs.Open(ctx, pos)
		if err != nil {
			return err
		}
		for _, n := range info.Notes {
			fmt.Fprintf(e.stdout, "note: %s\n", n)
		}
	}
	h, err := newHost(e, *nowarn)
	if err != nil {
		return err
	}
	defer h.Close()
	// The caller's collector sets, so that the page marks a counter one
	// of their alerts has tripped.
	lo, err := logmanOptions(e, true)
	if err != nil {
		return err
	}
	api := withLogs(apiserver.NewHandler(h.Source(), apiserver.Options{Registry: h, Clock: engine.SystemClock(),
		ComputerName: host.ComputerName(), Version: buildVersion(), Computers: perfmonComputers(e, *nowarn),
		Sets: logman.RemoteSets{Options: lo}}), logs)
	return servePerfmon(ctx, e, *addr, api, logs, *noopen)
}

// runReport makes the System Performance report of this computer, or of
// the logs named, and writes it.
func runReport(ctx context.Context, e *env, logs []string, d time.Duration, out string, nowarn bool) error {
	if d <= 0 {
		return usagef("-duration %v: want a positive duration", d)
	}
	var src pdh.Source
	computer := host.ComputerName()
	if len(logs) > 0 {
		in, err := perflog.Open(ctx, logs, perflog.OpenOptions{})
		if err != nil {
			return err
		}
		defer in.Close()
		src, computer = in.Source, strings.Join(logs, ", ")
	} else {
		h, err := newHost(e, nowarn)
		if err != nil {
			return err
		}
		defer h.Close()
		src = h.Source()
		fmt.Fprintf(e.stdout, "Collecting for %v (CTRL+C: the report of what was collected until then)...\n", d)
	}
	r, err := sysperf.Collect(ctx, src, sysperf.Options{Duration: d, Computer: computer})
	if err != nil {
		return err
	}
	if out == "" {
		out = sysperf.DefaultFileName(host.ComputerName(), r.Start)
	}
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if err := r.WriteHTML(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	red, yellow := r.Counts()
	fmt.Fprintf(e.stdout, "The report is %s: %d red and %d yellow warnings", out, red, yellow)
	if r.Summary.Busiest != "" {
		fmt.Fprintf(e.stdout, "; busiest resource %s", r.Summary.Busiest)
	}
	fmt.Fprintln(e.stdout, ".")
	return nil
}

// withLogs serves logs' API (/v1/logs) beside api.
func withLogs(api http.Handler, logs *logview.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(logview.Path, logs)
	mux.Handle(logview.Path+"/", logs)
	mux.Handle("/", api)
	return mux
}

// buildVersion is the module version the binary was built as, for
// /v1/host ("(devel)" from a clone).
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.Main.Version
	}
	return ""
}

// checkLoopback refuses an address that is not a loopback one: without
// TLS and accounts (perfc serve's) the page is for this computer only.
func checkLoopback(addr string) error {
	hostPart, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if hostPart == "localhost" {
		return nil
	}
	ip := net.ParseIP(hostPart)
	if ip == nil || !ip.IsLoopback() {
		return errors.New("perfmon listens on loopback only (127.0.0.1, ::1, localhost); serve counters over the network with perfc serve")
	}
	return nil
}

// openBrowser opens page in the user's browser when there is a desktop
// (DISPLAY or WAYLAND_DISPLAY) and xdg-open; otherwise the printed
// address is all. The page's address holds its key, and a command line is
// read by every local user (ps): the launcher is given a file only this
// user can read, which sends the browser on to the address. It returns a
// function that removes the file (for a server that ends with this
// process; a page of perfc serve keeps its file, private like the
// server's token file).
func openBrowser(e *env, page string) (cleanup func()) {
	cmd, dir, err := launchBrowser(e, page)
	if err != nil || cmd == nil {
		return func() {}
	}
	go cmd.Wait()
	return func() { os.RemoveAll(dir) }
}

// launchBrowser starts xdg-open on a private file that forwards to page:
// a directory of mode 0700 (os.MkdirTemp) holding an HTML file of mode
// 0600. cmd is nil when there is no desktop or no xdg-open.
func launchBrowser(e *env, page string) (cmd *exec.Cmd, dir string, err error) {
	if e.getenv("DISPLAY") == "" && e.getenv("WAYLAND_DISPLAY") == "" {
		return nil, "", nil
	}
	xdg, err := exec.LookPath("xdg-open")
	if err != nil {
		return nil, "", nil
	}
	dir, err = os.MkdirTemp("", "perfc-perfmon-")
	if err != nil {
		return nil, "", err
	}
	file := filepath.Join(dir, "open.html")
	q := strconv.Quote(page)
	html := "<!doctype html>\n<meta charset=\"utf-8\"><meta name=\"referrer\" content=\"no-referrer\">\n" +
		"<title>Performance Monitor</title>\n<script>location.replace(" + q + ")</script>\n" +
		"<p><a href=" + q + ">Performance Monitor</a></p>\n"
	if err := os.WriteFile(file, []byte(html), 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, "", err
	}
	cmd = exec.Command(xdg, file)
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, "", err
	}
	return cmd, dir, nil
}
