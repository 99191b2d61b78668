// Package server is `perfc serve`'s HTTP server: it listens, speaks TLS,
// authenticates callers, gives them a role, bounds what requests may cost,
// and hands them to the handlers it is given — the API (remote's handler,
// under /v1/) and any other path the program mounts (/metrics) — all
// behind the same authentication and limits.
//
// Its configuration is a web-config.yml file in prometheus/exporter-
// toolkit's format (Config), plus perfc's own fields under `perfc:`
// (bearer tokens, roles). The listen policy (Options.Addr): loopback by
// default; any other address only with TLS and authentication configured.
// On loopback without configured authentication the server writes a
// random token to a file only the serving user can read, and callers must
// send it (docs/serve.md says why).
//
// A server may also serve a web page at "/" (Options.Page: perfmon's
// page) behind the same authentication. Browsers authenticate with what
// they hold: a Basic password (they ask for it), a client certificate,
// or a session cookie: the page's address carries a bearer token once
// (/?token=...), which the server exchanges for an HttpOnly,
// SameSite=Strict cookie of the same role and redirects to "/", so the
// token leaves the address bar. A loopback server answers only requests
// whose Host names loopback, so another site cannot reach it by
// rebinding a name of its own to 127.0.0.1.
package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/perfcounters/perfcounters/remote"
)

// DefaultAddr is where the server listens unless told otherwise: the IPv4
// loopback address, port 9641.
const DefaultAddr = "127.0.0.1:9641"

// Options configure a server. API is required; the rest have defaults.
type Options struct {
	// Addr is the address to listen on, host:port (DefaultAddr when
	// empty). A host other than a loopback address (an empty host,
	// 0.0.0.0 and :: included) needs TLS and authentication in Config.
	Addr string
	// ConfigFile is a web-config.yml file; empty means none (loopback
	// only). It must pass the trust checks (LoadConfig).
	ConfigFile string
	// Config is a configuration already read (tests); used when
	// ConfigFile is empty.
	Config *Config
	// API serves the versioned API: every path under remote.APIVersion+"/".
	API http.Handler
	// Handlers are other paths (http.ServeMux patterns, such as
	// remote.PathMetrics), served behind the same authentication and
	// limits; they need the monitor role.
	Handlers map[string]http.Handler
	// Page is the web page served at "/" (every path outside the API
	// and Handlers), behind the same authentication: perfmon's page
	// (internal/webui). With a page, a bearer token can be exchanged for
	// a browser session cookie: GET /?token=TOKEN sets the cookie
	// (HttpOnly, SameSite=Strict, Secure over TLS) and redirects to "/".
	// nil: "/" is 404 and no cookie is accepted.
	Page http.Handler
	// SessionLifetime is how long a session cookie is accepted;
	// DefaultSessionLifetime when 0.
	SessionLifetime time.Duration
	// Anonymous lets callers without credentials in as monitor; refused
	// unless the address is loopback.
	Anonymous bool
	// TokenFile is where, on loopback without configured authentication
	// (and not Anonymous), the generated token is written (mode 0600, in
	// a directory only the serving user may change); DefaultTokenFile
	// when empty. The file is removed at shutdown.
	TokenFile string
	// NoTokenFile keeps the generated loopback token in memory only
	// (Server.Token): for a program that hands it to its user itself,
	// as perfc perfmon prints its page's address.
	NoTokenFile bool
	// UID is, when UIDSet, the serving user: the owner (besides root)
	// the configuration, certificate and key files must have. Otherwise
	// it is os.Geteuid().
	UID    int
	UIDSet bool
	// Limits bound requests; zero fields take DefaultLimits.
	Limits Limits
	// BodyLimits raise Limits.MaxBodyBytes for the paths that take
	// large bodies (the page's log uploads, /v1/logs): request path ->
	// the most bytes a body sent there may have. The handler of the path
	// checks the caller's role for it; the gate only bounds the bytes.
	BodyLimits map[string]int64
	// Logger receives the server's notes; nil discards them.
	Logger *slog.Logger
	// Getenv reads the environment (DefaultTokenFile); nil: os.Getenv.
	Getenv func(string) string
}

// Server is a listening server; Serve runs it.
type Server struct {
	ln        net.Listener
	srv       *http.Server
	tls       bool
	tokenFile string
	token     string
	log       *slog.Logger
	limits    Limits
	auth      *authenticator
}

// New checks the configuration and the listen policy, and listens. The
// server answers nothing until Serve.
func New(opts Options) (*Server, error) {
	if opts.API == nil {
		return nil, errors.New("server: no API handler")
	}
	for p := range opts.Handlers {
		if !strings.HasPrefix(p, "/") || p == "/" || strings.HasPrefix(p, remote.APIVersion+"/") || p == remote.APIVersion {
			return nil, fmt.Errorf("server: handler path %q: want an absolute path outside %s/, such as %s", p, remote.APIVersion, remote.PathMetrics)
		}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	uid := os.Geteuid()
	if opts.UIDSet {
		uid = opts.UID
	}
	addr := opts.Addr
	if addr == "" {
		addr = DefaultAddr
	}
	cfg := opts.Config
	if opts.ConfigFile != "" {
		c, err := LoadConfig(opts.ConfigFile, uid)
		if err != nil {
			return nil, err
		}
		cfg = c
	}
	if cfg == nil {
		cfg = &Config{}
		cfg.validate(&validator{})
	}
	loopback, err := isLoopback(addr)
	if err != nil {
		return nil, err
	}
	if !loopback {
		if err := remotePolicy(addr, cfg, opts.Anonymous); err != nil {
			return nil, err
		}
	}
	limits := opts.Limits.withDefaults()
	a := &authenticator{cfg: cfg, anonymous: opts.Anonymous,
		headerRequired: len(cfg.BasicAuthUsers) > 0 || len(cfg.Perfc.BearerTokens) > 0,
		bcryptOK:       newVerifiedCache(1024),
		checking:       make(chan struct{}, limits.MaxAuthenticating)}

	if len(cfg.BasicAuthUsers) > 0 {
		mixed := false
		if a.dummy, mixed, err = dummyHash(cfg.BasicAuthUsers); err != nil {
			return nil, err
		}
		if mixed {
			log.Warn("basic_auth_users: the bcrypt hashes have different costs, so the time an answer takes tells a user of a lower cost from an unknown name; make them all with one cost (htpasswd -nBC 10 USER)")
		}
	}

	var certs *certStore
	if cfg.HasTLS() {
		if certs, err = newCertStore(cfg.TLSServerConfig, uid, cfg.HTTP2(), log); err != nil {
			return nil, err
		}
	}

	s := &Server{tls: certs != nil, log: log, limits: limits, auth: a}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && loopback && !tcp.IP.IsLoopback() {
		ln.Close()
		return nil, fmt.Errorf("listen on %s: bound to %s, not a loopback address", addr, tcp.IP)
	}
	s.ln = ln
	port := 0
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok {
		port = tcp.Port
	}
	if loopback && !cfg.HasAuth() && !opts.Anonymous {
		// The token file is named after the port listened on (the one
		// the system chose for port 0).
		tf := opts.TokenFile
		if tf == "" && !opts.NoTokenFile {
			if tf, err = defaultTokenFile(getenv, uid, strconv.Itoa(port), log); err != nil {
				ln.Close()
				return nil, fmt.Errorf("token file: %w", err)
			}
		}
		var tok string
		if opts.NoTokenFile {
			tf = ""
			tok, err = newToken()
		} else {
			tok, err = writeTokenFile(tf, uid)
		}
		if err != nil {
			ln.Close()
			return nil, err
		}
		sum := sha256.Sum256([]byte(tok))
		a.local = sum[:]
		s.tokenFile, s.token = tf, tok
	}
	if opts.Page != nil {
		if a.sessions, err = newSessions(port, opts.SessionLifetime, certs != nil); err != nil {
			ln.Close()
			s.removeToken()
			return nil, err
		}
	}

	mux := http.NewServeMux()
	mux.Handle(remote.APIVersion+"/", opts.API)
	for p, h := range opts.Handlers {
		mux.Handle(p, h)
	}
	if opts.Page != nil {
		mux.Handle("/", opts.Page)
	} else {
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("%s: no such path (the API is under %s/)", r.URL.Path, remote.APIVersion))
		})
	}
	// A browser holding credentials of its own (a cached Basic password, a
	// client certificate) must not be made to start or stop a set by
	// another site's form: cross-origin requests that change something are
	// refused (net/http's CrossOriginProtection reads Sec-Fetch-Site and
	// Origin; programs that send neither are not browsers and pass).
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusForbidden, "cross_origin", "a cross-origin request from a browser may not change anything here")
	}))
	g := &gate{
		auth: a, next: cop.Handler(mux), limits: limits, headers: cfg.headers(),
		slots:      newSlots(limits.MaxConcurrent, limits.MaxPerIdentity),
		perNet:     newClientLimiter(cfg.RateLimit, limits.MaxClients),
		perID:      newClientLimiter(cfg.RateLimit, limits.MaxClients),
		log:        log,
		loopback:   loopback,
		bodyLimits: opts.BodyLimits,
	}
	var protos http.Protocols
	protos.SetHTTP1(true)
	if cfg.HTTP2() {
		if certs != nil {
			protos.SetHTTP2(true)
		} else {
			protos.SetUnencryptedHTTP2(true) // h2c with prior knowledge, loopback only
		}
	}
	s.srv = &http.Server{
		Handler:           g,
		MaxHeaderBytes:    limits.MaxHeaderBytes,
		ReadHeaderTimeout: limits.ReadHeaderTimeout,
		ReadTimeout:       limits.ReadTimeout,
		WriteTimeout:      limits.WriteTimeout,
		IdleTimeout:       limits.IdleTimeout,
		Protocols:         &protos,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	if certs != nil {
		s.srv.TLSConfig = certs.serverConfig()
	}
	if opts.Anonymous || cfg.RateLimit.Interval > 0 {
		// Anonymous callers, and the failures a rate limit counts on
		// loopback, are told apart by the local user who opened the
		// connection (found once per connection, when first asked).
		s.srv.ConnContext = withPeer
	}
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// URL is the server's base URL (https when it serves TLS).
func (s *Server) URL() string {
	scheme := "http"
	if s.tls {
		scheme = "https"
	}
	return scheme + "://" + s.ln.Addr().String()
}

// TokenFile is the file holding the generated loopback token, "" when
// the server has none.
func (s *Server) TokenFile() string { return s.tokenFile }

// Token is the generated loopback token, "" when there is none.
func (s *Server) Token() string { return s.token }

// Serve answers requests until ctx is done, then stops taking new ones,
// lets those in flight finish (within Limits.ShutdownTimeout), closes
// the rest, and removes the token file.
func (s *Server) Serve(ctx context.Context) error {
	defer s.removeToken()
	errc := make(chan error, 1)
	go func() {
		if s.tls {
			errc <- s.srv.ServeTLS(s.ln, "", "")
		} else {
			errc <- s.srv.Serve(s.ln)
		}
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.limits.ShutdownTimeout)
	defer cancel()
	err := s.srv.Shutdown(sctx)
	if err != nil {
		s.srv.Close()
	}
	<-errc
	return err
}

// Close stops a server that is not serving (New succeeded, Serve was not
// called).
func (s *Server) Close() error {
	s.removeToken()
	return s.srv.Close()
}

func (s *Server) removeToken() {
	if s.tokenFile != "" {
		os.Remove(s.tokenFile)
	}
}

// isLoopback reports whether addr's host is a loopback address: an IP
// literal in 127/8 or ::1, or "localhost". An empty host, 0.0.0.0 and ::
// listen on every address; other names are taken as not loopback.
func isLoopback(addr string) (bool, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return false, fmt.Errorf("listen address %q: want host:port, such as %s: %v", addr, DefaultAddr, err)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return false, fmt.Errorf("listen address %q: port %q is not a number from 0 to 65535", addr, port)
	}
	if strings.EqualFold(host, "localhost") {
		return true, nil
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback(), nil
}

// remotePolicy refuses a non-loopback address unless TLS and
// authentication are configured, and says how to configure them.
func remotePolicy(addr string, cfg *Config, anonymous bool) error {
	const how = `; write them in a web configuration file given with -config, for example:

  tls_server_config:
    cert_file: /etc/perfc/server.crt
    key_file: /etc/perfc/server.key
  basic_auth_users:
    alice: $2y$10$...   # htpasswd -nBC 10 alice
  perfc:
    bearer_tokens:
      grafana: {sha256: 9f86d08...}   # printf %%s "$TOKEN" | sha256sum

(client certificates: client_ca_file and client_auth_type: RequireAndVerifyClientCert; see docs/serve.md)`
	var missing []string
	if !cfg.HasTLS() {
		missing = append(missing, "TLS (tls_server_config: cert_file and key_file)")
	}
	if !cfg.HasAuth() {
		missing = append(missing, "authentication (basic_auth_users, perfc.bearer_tokens, or tls_server_config.client_ca_file with client_auth_type: RequireAndVerifyClientCert)")
	}
	if len(missing) > 0 {
		return fmt.Errorf("listen address %s is not loopback: serving other hosts needs %s"+how, addr, strings.Join(missing, " and "))
	}
	if anonymous {
		return fmt.Errorf("listen address %s is not loopback: anonymous callers are allowed on loopback only", addr)
	}
	return nil
}

// DefaultTokenFile is where the loopback token of a server on port is
// written by default: $XDG_RUNTIME_DIR/perfc/serve-PORT.token, else
// /run/perfc/serve-PORT.token for root, else
// $TMPDIR/perfc-UID/serve-PORT.token. The last lies in a directory every
// user may create entries in, where another user may have made
// perfc-UID first: the server then writes its token in a directory of
// its own with an unpredictable name, perfc-UID-RANDOM, which clients
// find with FindTokenFile.
func DefaultTokenFile(getenv func(string) string, uid int, port string) string {
	name := tokenFileName(port)
	if d := getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "perfc", name)
	}
	if uid == 0 {
		return filepath.Join("/run/perfc", name)
	}
	return filepath.Join(sharedTokenBase(getenv), fmt.Sprintf("perfc-%d", uid), name)
}

func tokenFileName(port string) string { return "serve-" + port + ".token" }

// sharedTokenBase is the shared directory ($TMPDIR, else /tmp) the token
// directory of a user without a runtime directory lies in, "" when the
// default lies in a place of the user's own ($XDG_RUNTIME_DIR) or root's
// (/run).
func sharedTokenBase(getenv func(string) string) string {
	tmp := getenv("TMPDIR")
	if tmp == "" || !filepath.IsAbs(tmp) {
		tmp = "/tmp"
	}
	return tmp
}

// tokenDirShared reports whether DefaultTokenFile lies in
// sharedTokenBase.
func tokenDirShared(getenv func(string) string, uid int) bool {
	d := getenv("XDG_RUNTIME_DIR")
	return (d == "" || !filepath.IsAbs(d)) && uid != 0
}

// FindTokenFile is the token file a loopback server of uid on port wrote
// with the default location: DefaultTokenFile when it exists in a
// directory of uid's (or root's) closed to others' changes, else the
// same name in one of uid's own perfc-UID-RANDOM directories (see
// DefaultTokenFile), else DefaultTokenFile (which does not exist). A
// directory of another user is never looked in: its files are not the
// server's. The file found must still be checked when read.
func FindTokenFile(getenv func(string) string, uid int, port string) string {
	def := DefaultTokenFile(getenv, uid, port)
	if ownDir(filepath.Dir(def), uid) == nil {
		if _, err := os.Lstat(def); err == nil {
			return def
		}
	}
	if tokenDirShared(getenv, uid) {
		for _, dir := range ownTokenDirs(sharedTokenBase(getenv), uid) {
			f := filepath.Join(dir, tokenFileName(port))
			if _, err := os.Lstat(f); err == nil {
				return f
			}
		}
	}
	return def
}

// errNotOwnDir: a token directory exists but is not one the server may
// use (another user's, open to others' changes, not a directory).
var errNotOwnDir = errors.New("not a directory of the serving user closed to others")

// ownDir checks that dir (not followed if a link) is a directory of uid
// or root that no other user may change.
func ownDir(dir string, uid int) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, _ := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory (%s): %w", dir, fileType(fi.Mode()), errNotOwnDir)
	case st == nil || (int(st.Uid) != uid && st.Uid != 0):
		return fmt.Errorf("directory %s belongs to another user: %w", dir, errNotOwnDir)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("directory %s (mode %04o) lets other users change it (chmod go-w %s): %w", dir, fi.Mode().Perm(), dir, errNotOwnDir)
	}
	return nil
}

func fileType(m os.FileMode) string {
	if m&os.ModeSymlink != 0 {
		return "a symbolic link"
	}
	if m.IsRegular() {
		return "a file"
	}
	return m.Type().String()
}

// ownTokenDirs lists uid's perfc-UID-RANDOM directories in base: those
// of uid, mode 0700 (as os.MkdirTemp makes them), not links. Another
// user may make directories of that name too; they are not listed.
func ownTokenDirs(base string, uid int) []string {
	m, _ := filepath.Glob(filepath.Join(base, fmt.Sprintf("perfc-%d-*", uid)))
	var out []string
	for _, d := range m {
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) == uid {
			out = append(out, d)
		}
	}
	return out
}

// defaultTokenFile is where the server writes its token when not told:
// DefaultTokenFile, its directory made (0700) when missing; when that
// directory lies in the shared base and is not the serving user's to
// use (another user made it first, or made it a link), one of the
// user's own perfc-UID-RANDOM directories there, made with
// os.MkdirTemp when there is none.
func defaultTokenFile(getenv func(string) string, uid int, port string, log *slog.Logger) (string, error) {
	def := DefaultTokenFile(getenv, uid, port)
	err := prepareTokenDir(filepath.Dir(def), uid)
	if err == nil || !errors.Is(err, errNotOwnDir) || !tokenDirShared(getenv, uid) {
		return def, err
	}
	base := sharedTokenBase(getenv)
	dirs := ownTokenDirs(base, uid)
	dir := ""
	if len(dirs) > 0 {
		dir = dirs[0]
	} else {
		d, merr := os.MkdirTemp(base, fmt.Sprintf("perfc-%d-", uid))
		if merr != nil {
			return "", fmt.Errorf("token file %s: %v; and no directory of one's own could be made instead: %w", def, err, merr)
		}
		dir = d
	}
	if cerr := ownDir(dir, uid); cerr != nil {
		return "", fmt.Errorf("token file %s: %v; and %w", def, err, cerr)
	}
	log.Warn("the token directory is not this user's; writing the token in a directory of this user's own instead (remove the other one as root, or set XDG_RUNTIME_DIR)", "err", err, "dir", dir)
	return filepath.Join(dir, tokenFileName(port)), nil
}

// prepareTokenDir makes dir (0700) when missing and checks it is the
// serving user's (ownDir).
func prepareTokenDir(dir string, uid int) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	return ownDir(dir, uid)
}

// writeTokenFile makes a random token and writes it to path, mode 0600,
// creating its directory (0700) when missing. The directory must belong
// to uid (or root) and be closed to others' changes, so no other user
// can replace the file or read the token.
func writeTokenFile(path string, uid int) (string, error) {
	dir := filepath.Dir(path)
	if err := prepareTokenDir(dir, uid); err != nil {
		if errors.Is(err, errNotOwnDir) {
			return "", fmt.Errorf("token file %s: %v; remove it or choose another with -tokenfile", path, err)
		}
		return "", fmt.Errorf("token file %s: %w", path, err)
	}
	tok, err := newToken()
	if err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, ".token-*")
	if err != nil {
		return "", fmt.Errorf("token file %s: %w", path, err)
	}
	_, werr := tmp.WriteString(tok + "\n")
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("token file %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("token file %s: %w", path, err)
	}
	return tok, nil
}

// gate is the chain every request passes: limits, authentication, the
// caller's role, then the handlers.
type gate struct {
	auth          *authenticator
	next          http.Handler
	limits        Limits
	headers       http.Header
	slots         *slots
	perNet, perID *clientLimiter
	log           *slog.Logger
	// loopback: the server listens on loopback and answers only requests
	// whose Host names loopback (loopbackHostHeader).
	loopback   bool
	bodyLimits map[string]int64 // Options.BodyLimits
}

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	for k, v := range g.headers {
		w.Header()[k] = v
	}
	// Until the request is let through, an answer (a refusal) closes an
	// HTTP/1 connection whose request has a body, instead of waiting for
	// the body to come so the connection can be reused: a refused caller
	// sending a slow body would keep a connection waiting until
	// ReadTimeout for each request refused. (HTTP/2 resets the stream.)
	if r.ContentLength != 0 && r.ProtoMajor == 1 {
		w.Header().Set("Connection", "close")
	}
	if len(r.RequestURI) > g.limits.MaxURLBytes {
		writeError(w, http.StatusRequestURITooLong, "uri_too_long", fmt.Sprintf("request target of %d bytes, more than %d", len(r.RequestURI), g.limits.MaxURLBytes))
		return
	}
	maxBody := g.limits.MaxBodyBytes
	if n, ok := g.bodyLimits[r.URL.Path]; ok && n > maxBody {
		maxBody = n
	}
	if r.ContentLength > maxBody {
		writeError(w, http.StatusRequestEntityTooLarge, "body_too_large", fmt.Sprintf("request body of %d bytes, more than %d", r.ContentLength, maxBody))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if g.loopback && !loopbackHostHeader(r.Host) {
		writeError(w, http.StatusForbidden, "forbidden_host", fmt.Sprintf("Host %q: this server listens on loopback and answers only at a loopback address (127.0.0.1, [::1], localhost)", clipHost(r.Host)))
		return
	}
	// Failed and unauthenticated attempts are counted against their
	// network (clientPrefix), and a network that has spent its bucket is
	// refused before its credentials are checked, so guessing passwords
	// from many addresses of one network is as slow as from one. An
	// authenticated caller is counted as its identity instead, wherever
	// it sends from.
	now := time.Now()
	netKey := "net:" + clientPrefix(r.RemoteAddr)
	if netKey == "net:loopback" && g.perNet != nil {
		// On loopback the kernel tells which local user opened the
		// connection (peerUser), and a user cannot choose it: each local
		// user's failures spend that user's bucket, not every local
		// caller's. Unknown owners share the loopback bucket.
		if u := peerUser(r.Context()); u != "" {
			netKey += ":" + u
		}
	}
	if spent, wait := g.perNet.spent(netKey, now); spent {
		tooMany(w, wait)
		return
	}
	if g.exchange(w, r, func() { g.perNet.charge(netKey, now) }) {
		return
	}
	res := g.auth.authenticate(r)
	if res.busy {
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, "busy", fmt.Sprintf("the server is checking %d passwords; try again", g.limits.MaxAuthenticating))
		return
	}
	if res.status != 0 {
		g.perNet.charge(netKey, now)
		g.refuse(w, r, res)
		return
	}
	if ok, wait := g.perID.allow("id:"+res.limitKey(), now); !ok {
		tooMany(w, wait)
		return
	}
	// Slots are taken once the caller is known: it may hold at most its
	// share (Limits.MaxPerIdentity) of them, however slowly it sends its
	// bodies (Limits.ReadTimeout bounds each), so other callers still
	// find slots. Refused callers hold none.
	release, ok, own := g.slots.acquire(res.limitKey())
	if !ok {
		w.Header().Set("Retry-After", "1")
		if own {
			writeError(w, http.StatusServiceUnavailable, "busy", fmt.Sprintf("%s has %d requests in progress, its share while the server is busy; try again", res.who, g.limits.MaxPerIdentity))
		} else {
			writeError(w, http.StatusServiceUnavailable, "busy", fmt.Sprintf("the server is answering %d requests; try again", g.limits.MaxConcurrent))
		}
		return
	}
	defer release()
	if need := requiredRole(r); res.role < need {
		writeError(w, http.StatusForbidden, "forbidden", fmt.Sprintf("%s %s needs the %s role; %s has %s", r.Method, r.URL.Path, need, res.who, res.role))
		return
	}
	w.Header().Del("Connection")
	g.next.ServeHTTP(w, r.WithContext(remote.WithRole(r.Context(), res.role, res.who)))
}

// refuse answers a request whose credentials were not accepted: 401
// with the schemes accepted (a browser asks for a Basic password when
// Basic is one), forgetting a refused session cookie.
func (g *gate) refuse(w http.ResponseWriter, r *http.Request, res authResult) {
	for _, c := range g.auth.challenge() {
		w.Header().Add("WWW-Authenticate", c)
	}
	if res.clearCookie && g.auth.sessions != nil {
		http.SetCookie(w, g.auth.sessions.cookie("", nil))
	}
	g.log.Debug("refused", "remote", r.RemoteAddr, "path", r.URL.Path, "reason", res.reason)
	writeError(w, res.status, "unauthorized", res.reason)
}

// clipHost shortens a Host header quoted in an error.
func clipHost(h string) string {
	if len(h) > 100 {
		return h[:100] + "..."
	}
	return h
}

// newToken returns a random token of 256 bits, in hexadecimal.
func newToken() (string, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(raw[:]), nil
}

// requiredRole is the least role a request needs: changing collector sets
// needs log, everything else monitor. The API handler checks again.
func requiredRole(r *http.Request) remote.Role {
	p := r.URL.Path
	if (p == remote.PathSets || strings.HasPrefix(p, remote.PathSets+"/")) && r.Method != http.MethodGet && r.Method != http.MethodHead {
		return remote.RoleLog
	}
	return remote.RoleMonitor
}

func tooMany(w http.ResponseWriter, wait time.Duration) {
	secs := int((wait + time.Second - 1) / time.Second)
	w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
	writeError(w, http.StatusTooManyRequests, "rate_limited", fmt.Sprintf("too many requests; try again in %d s (rate_limit)", max(secs, 1)))
}

// writeError answers with remote's error JSON.
func writeError(w http.ResponseWriter, status int, code, reason string) {
	w.Header().Set("Content-Type", remote.MediaJSON)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(remote.ErrorBody{Error: remote.Error{Status: status, Code: code, Reason: reason}})
}
