package main

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/logview"
	"github.com/perfcounters/perfcounters/internal/webui"
	"github.com/perfcounters/perfcounters/remote"
)

// perfmonCommand serves perfmon's page (internal/webui) and the /v1 API
// (remote) over the local host, on loopback, for the user who runs it.
// perfc serve will serve the same page beside its API with its own
// authentication; this command is the one-user form.
func perfmonCommand() command {
	return command{
		name:  "perfmon",
		usage: "[-addr 127.0.0.1:PORT] [-noopen] [-maxupload BYTES] [LOG ...]",
		short: "watch counters (live, or of logs) in the browser: line, area, histogram, report",
		run:   runPerfmon,
	}
}

func runPerfmon(ctx context.Context, e *env, args []string) error {
	fs := newFlags("perfmon", e.stdout)
	addr := fs.String("addr", "127.0.0.1:0", "Loopback address and port to listen on (port 0: any free one).")
	noopen := fs.Bool("noopen", false, "Do not open a browser; only print the page's address.")
	nowarn := fs.Bool("nowarn", false, "Do not print warnings (also: environment PERFC_WARNINGS=off).")
	maxUpload := fs.Int64("maxupload", logview.DefaultMaxUploadBytes, "The largest log the page's \"Open log\" may upload, in bytes (logs named on the command line have no such limit).")
	pos, err := parseFlags(fs, args)
	if err == errHelp {
		return nil
	}
	if err != nil {
		return err
	}
	if err := checkLoopback(*addr); err != nil {
		return usagef("-addr %s: %v", *addr, err)
	}
	if *maxUpload <= 0 {
		return usagef("-maxupload %d: want a positive number of bytes", *maxUpload)
	}
	// Logs named on the command line (files, or SQL:DSN!logset as relog
	// takes them) are one log set the page starts with.
	logs := logview.New(logview.Options{MaxUploadBytes: *maxUpload})
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
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *addr, err)
	}
	token, err := newToken()
	if err != nil {
		ln.Close()
		return err
	}
	api := withLogs(remote.NewHandler(h, remote.HandlerOptions{ComputerName: host.ComputerName(), Version: buildVersion()}), logs)
	port := ln.Addr().(*net.TCPAddr).Port
	srv := &http.Server{
		Handler:           perfmonHandler(api, token, port),
		ReadHeaderTimeout: 10 * time.Second,
	}
	page := "http://" + ln.Addr().String() + "/?token=" + token
	fmt.Fprintf(e.stdout, "Performance Monitor: %s\n(the address holds a one-time key: it lets its holder read this host's counters as you; press Ctrl+C to stop)\n", page)
	if !*noopen {
		openBrowser(e, page)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serving %s: %w", ln.Addr(), err)
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		return nil
	}
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

// newToken returns a random key of 256 bits, URL-safe.
func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random key for the page: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// perfmonHandler serves the page at / and api at /v1/ to requests that
// hold the token, on a loopback server listening on port:
//
//   - the printed address carries the token once, as ?token=; the
//     answer sets it as a cookie (HttpOnly, SameSite=Strict, named after
//     the port, since cookies do not tell ports apart) and redirects to
//     the address without it, so it leaves the address bar and history;
//   - later requests carry the cookie, or "Authorization: Bearer TOKEN"
//     (scripts, curl);
//   - the Host header must name loopback and the port, so a web page of
//     another origin that rebinds a DNS name to 127.0.0.1 gets nothing.
//
// Every other request is 401 (403 for a foreign Host). Any local user
// can connect to loopback: the token is what keeps the counters the
// server's user sees to that user.
func perfmonHandler(api http.Handler, token string, port int) http.Handler {
	cookie := "perfc-perfmon-" + strconv.Itoa(port)
	page := webui.New()
	holds := func(s string) bool { return subtle.ConstantTimeCompare([]byte(s), []byte(token)) == 1 }
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopbackHost(r.Host, port) {
			http.Error(w, "forbidden: this page answers only at its loopback address", http.StatusForbidden)
			return
		}
		ok := false
		if c, err := r.Cookie(cookie); err == nil && holds(c.Value) {
			ok = true
		} else if a, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); found && holds(a) {
			ok = true
		}
		if q := r.URL.Query(); q.Has("token") && r.URL.Path == "/" && r.Method == http.MethodGet {
			if !holds(q.Get("token")) {
				w.Header().Set("WWW-Authenticate", `Bearer realm="perfc"`)
				http.Error(w, "unauthorized: this key is not the one perfc perfmon printed", http.StatusUnauthorized)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: cookie, Value: token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			q.Del("token")
			u := url.URL{Path: "/", RawQuery: q.Encode()}
			http.Redirect(w, r, u.String(), http.StatusSeeOther)
			return
		}
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="perfc"`)
			http.Error(w, "unauthorized: open the address perfc perfmon printed (it holds a one-time key)", http.StatusUnauthorized)
			return
		}
		if r.URL.Path == "/v1" || strings.HasPrefix(r.URL.Path, "/v1/") {
			api.ServeHTTP(w, r.WithContext(remote.WithRole(r.Context(), remote.RoleMonitor, "perfmon")))
			return
		}
		page.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether a request's Host header names this
// loopback server: 127.0.0.1, [::1] or localhost, and port.
func loopbackHost(hostHeader string, port int) bool {
	h, p, err := net.SplitHostPort(hostHeader)
	if err != nil || p != strconv.Itoa(port) {
		return false
	}
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// openBrowser opens page in the user's browser when there is a desktop
// (DISPLAY or WAYLAND_DISPLAY) and xdg-open; otherwise the printed
// address is all.
func openBrowser(e *env, page string) {
	if e.getenv("DISPLAY") == "" && e.getenv("WAYLAND_DISPLAY") == "" {
		return
	}
	xdg, err := exec.LookPath("xdg-open")
	if err != nil {
		return
	}
	cmd := exec.Command(xdg, page)
	if cmd.Start() == nil {
		go cmd.Wait()
	}
}
