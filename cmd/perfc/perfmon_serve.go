package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/perfcounters/perfcounters/internal/logview"
	"github.com/perfcounters/perfcounters/internal/server"
	"github.com/perfcounters/perfcounters/internal/webui"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/remote/apiserver"
)

// perfmon and perfc serve: perfc perfmon shows the page of a running
// perfc serve of the same user when there is one (the default address,
// or the one -serve names), and otherwise serves the page itself with
// internal/server, as perfc serve does, on loopback with a key kept in
// memory.

// servePerfmon serves the page and api on the loopback address addr
// until ctx ends, printing the page's address with its key (opening a
// browser unless noopen).
func servePerfmon(ctx context.Context, e *env, addr string, api http.Handler, logs *logview.Handler, noopen bool) error {
	s, err := server.New(server.Options{
		Addr:        addr,
		API:         api,
		BodyLimits:  map[string]int64{logview.Path: logs.MaxUploadBytes()},
		Page:        webui.New(),
		NoTokenFile: true,
		Logger:      slog.New(slog.DiscardHandler),
		Getenv:      e.getenv,
	})
	if err != nil {
		return err
	}
	page := s.URL() + "/?" + server.TokenParam + "=" + s.Token()
	fmt.Fprintf(e.stdout, "Performance Monitor: %s\n(the address holds a key: it lets its holder read this host's counters as you; press Ctrl+C to stop)\n", page)
	if !noopen {
		defer openBrowser(e, page)()
	}
	return s.Serve(ctx)
}

// usePerfmonServe looks for a running perfc serve to show the page of:
// the one at addr when -serve names it (an error when it cannot be
// used), else the default loopback one (127.0.0.1:9641) when it runs for
// this user. It prints the page's address and reports whether it did.
func usePerfmonServe(ctx context.Context, e *env, addr string, named, noopen bool) (bool, error) {
	if !named {
		addr = server.DefaultAddr
	}
	page, note, err := findServe(ctx, e.getenv, addr, named)
	if err != nil {
		if named {
			return false, fmt.Errorf("-serve %s: %w", addr, err)
		}
		return false, nil
	}
	fmt.Fprintf(e.stdout, "Performance Monitor: %s\n(%s)\n", page, note)
	if !noopen {
		openBrowser(e, page) // the file stays: the browser reads it after this process ends
	}
	return true, nil
}

// findServe returns the page's address of the perfc serve at addr and a
// note on it. For a loopback server the address carries the server's
// loopback token, read from the token file that server writes
// (server.FindTokenFile: $XDG_RUNTIME_DIR/perfc/serve-PORT.token), when
// the file is this user's own and closed to others (mode 0600, not a
// link), and the server answers /v1/host with it as the token's holder
// and serves the page. A server of another address (or a loopback one
// authenticating otherwise) is named by a URL and gets the address
// without a key: the browser presents the user's password or
// certificate. A loopback server without a token file is used so only
// when named: the browser then signs in as to any other.
func findServe(ctx context.Context, getenv func(string) string, addr string, named bool) (page, note string, err error) {
	base, err := serveBase(addr)
	if err != nil {
		return "", "", err
	}
	u, _ := url.Parse(base)
	if u.Scheme == "https" || !isLoopbackName(u.Hostname()) {
		return base + "/", "the page of perfc serve at " + u.Host + ": sign in with your credentials for it", nil
	}
	tf := server.FindTokenFile(getenv, os.Geteuid(), u.Port())
	tok, err := readOwnToken(tf)
	if errors.Is(err, fs.ErrNotExist) && named {
		// A server authenticating otherwise (its web configuration, or
		// -anonymous) writes no token file.
		return base + "/", "the page of perfc serve at " + u.Host + ", which wrote no token file (" + tf + "): sign in with your credentials for it", nil
	}
	if err != nil {
		return "", "", err
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string) (*http.Response, []byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
		if err != nil {
			return nil, nil, err
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := c.Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return resp, b, err
	}
	resp, b, err := get(remote.PathHost)
	if err != nil {
		return "", "", fmt.Errorf("no perfc serve answers at %s (token file %s): %w", base, tf, err)
	}
	var info struct{ API, Who string }
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &info) != nil || info.API != remote.APIVersion || info.Who != "token:local" {
		return "", "", fmt.Errorf("the server at %s did not accept the token of %s as its own (%s)", base, tf, resp.Status)
	}
	resp, _, err = get("/")
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", base, err)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); resp.StatusCode != http.StatusOK || mt != "text/html" {
		return "", "", fmt.Errorf("perfc serve at %s serves no page (%s; was it started with -noui?)", base, resp.Status)
	}
	return base + "/?" + server.TokenParam + "=" + tok,
		"the page of perfc serve at " + u.Host + "; the address holds that server's key (from " + tf + "): it lets its holder read the counters as you", nil
}

// serveBase reads -serve's value: a port, host:port, or an http(s) URL;
// it returns the server's root URL.
func serveBase(addr string) (string, error) {
	if p, err := strconv.Atoi(addr); err == nil && p > 0 && p < 65536 {
		return "http://127.0.0.1:" + addr, nil
	}
	if strings.HasPrefix(addr, "http://") || strings.HasPrefix(addr, "https://") {
		u, err := url.Parse(addr)
		if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || strings.Trim(u.Path, "/") != "" {
			return "", errors.New("want a port, host:port or a server's root URL such as https://db7:9641")
		}
		if u.Port() == "" {
			u.Host = net.JoinHostPort(u.Hostname(), strconv.Itoa(remote.DefaultPort))
		}
		return u.Scheme + "://" + u.Host, nil
	}
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", errors.New("want a port, host:port or a server's root URL such as https://db7:9641")
	}
	if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("port %q: want 1 to 65535", p)
	}
	if h == "" {
		h = "127.0.0.1"
	}
	if !isLoopbackName(h) {
		return "https://" + net.JoinHostPort(h, p), nil
	}
	return "http://" + net.JoinHostPort(h, p), nil
}

// isLoopbackName reports whether h is localhost or a loopback address.
func isLoopbackName(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// readOwnToken reads a loopback token file perfc serve wrote: a regular
// file (not a link, one name only) of this user, readable and writable
// by this user only, in a directory of this user (or root) closed to
// others' changes, holding 64 hexadecimal digits; anything else is
// refused, since another user could have put it there to show us their
// counters as ours, or hard-linked another file of ours there to learn
// its content when we send it as a token.
func readOwnToken(path string) (string, error) {
	var dst unix.Stat_t
	dir := filepath.Dir(path)
	if err := unix.Lstat(dir, &dst); err != nil {
		return "", &os.PathError{Op: "token file directory", Path: dir, Err: err}
	}
	if me := uint32(os.Geteuid()); dst.Mode&unix.S_IFMT != unix.S_IFDIR || (dst.Uid != me && dst.Uid != 0) || dst.Mode&0o022 != 0 {
		return "", fmt.Errorf("token file %s: its directory %s is not yours (or root's) and closed to others' changes: refused", path, dir)
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return "", fmt.Errorf("token file %s: a symbolic link: refused", path)
		}
		return "", &os.PathError{Op: "open token file", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return "", fmt.Errorf("token file %s: %w", path, err)
	}
	switch me := uint32(os.Geteuid()); {
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return "", fmt.Errorf("token file %s: not a regular file: refused", path)
	case st.Uid != me:
		return "", fmt.Errorf("token file %s: owned by uid %d, not by you (uid %d): refused", path, st.Uid, me)
	case st.Mode&0o077 != 0:
		return "", fmt.Errorf("token file %s: mode %04o lets others at it (perfc serve writes 0600): refused", path, st.Mode&0o777)
	case st.Nlink != 1:
		return "", fmt.Errorf("token file %s: %d names (hard links) where perfc serve writes one: refused", path, st.Nlink)
	}
	b, err := io.ReadAll(io.LimitReader(f, 4097))
	if err != nil {
		return "", fmt.Errorf("token file %s: %w", path, err)
	}
	tok := strings.TrimSuffix(string(b), "\n")
	if len(tok) != 64 || strings.ContainsFunc(tok, func(r rune) bool { return !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') }) {
		return "", fmt.Errorf("token file %s: not a token of perfc serve (64 hexadecimal digits)", path)
	}
	return tok, nil
}

// servePage is the page perfc serve serves at / (nil with -noui).
func servePage(o serveOptions) http.Handler {
	if o.noUI {
		return nil
	}
	return webui.New()
}

// pageNote says where perfc serve's page is and how a browser gets in.
func pageNote(s *server.Server) string {
	if s.TokenFile() != "" {
		return fmt.Sprintf("Performance Monitor: %s/?%s=<the token> once (or run perfc perfmon, which prints it).", s.URL(), server.TokenParam)
	}
	return fmt.Sprintf("Performance Monitor: %s/ (the browser presents a password, a client certificate, or ?%s=<a bearer token> once).", s.URL(), server.TokenParam)
}

// serveComputers are the remote computers perfc serve reads for its
// callers: the entries of the hosts file -hosts names (which must
// exist), else of the default one ($PERFC_HOSTS, else
// ~/.config/perfc/hosts.yml) when it exists.
func serveComputers(e *env, path string) (*apiserver.Computers, error) {
	var hosts *remote.Hosts
	var err error
	if path != "" {
		hosts, err = remote.LoadHosts(path)
	} else {
		hosts, err = loadHosts(e)
	}
	if err != nil {
		return nil, err
	}
	return apiserver.NewComputers(hosts), nil
}

// perfmonComputers are the remote computers perfmon's own server reads
// for its page: those of the user's hosts file, as perfc serve's; a
// hosts file that cannot be read is a warning, and the page has this
// computer only.
func perfmonComputers(e *env, nowarn bool) *apiserver.Computers {
	c, err := serveComputers(e, "")
	if err != nil {
		e.warnings(nowarn).Warn("hosts", fmt.Sprintf("remote computers left out of the page: %v", err))
		return nil
	}
	return c
}
