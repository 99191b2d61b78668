// Package apiserver answers the /v1 API of perfc serve (remote/API.md)
// over any pdh.Source, through a pdh.Sampler: formatted values, object
// and instance enumeration, collector sets, and, with a Registry, the
// raw blocks and title lists of /v1/query. It owns the request limits
// and the reading of remote computers on behalf of callers (Computers);
// the wire it speaks is package remote's, and authentication is the
// caller's (internal/server sets the role with remote.WithRole).
package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/titles"
)

// Registry is what only a registry-style engine answers beside a
// pdh.Source: the raw blocks and title lists of /v1/query (the value
// names of HKEY_PERFORMANCE_DATA), and the Costly objects, which a
// Global collection leaves out. The local host (host.Host) satisfies it.
type Registry interface {
	// ServeQuery answers a value name ("Global", "Costly", "Counter
	// 009", "Help 009" or title indexes) with a fresh block, or with the
	// MULTI_SZ list of the title database (multiSZ), and the problems of
	// the block's objects. A value it cannot read is an error with a
	// method BadValue() bool that returns true (400 Bad Request); any
	// other error is the host's (500).
	ServeQuery(ctx context.Context, value string) (data []byte, multiSZ bool, problems []pdh.Problem, err error)
	// Costly collects the Costly objects.
	Costly(ctx context.Context) (*pdh.Sample, error)
}

// Clock is the clock the host stamps its blocks with, which /v1/host
// reports: the wall time, and the performance counter's ticks and
// frequency. The engine's clock satisfies it.
type Clock interface {
	Wall() time.Time
	Ticks() int64
	Freq() int64
}

// wallClock is the default Clock: the wall clock, in FILETIME units.
type wallClock struct{}

func (wallClock) Wall() time.Time { return time.Now() }
func (wallClock) Ticks() int64    { return time.Now().UnixNano()/100 + 116444736000000000 }
func (wallClock) Freq() int64     { return 10_000_000 }

// Options configure NewHandler. Zero values select the defaults.
type Options struct {
	// ComputerName is the host's name as /v1/host reports it
	// (host.ComputerName()); default: the system name of the host's
	// blocks, read from a header-only query.
	ComputerName string
	// Version is the server's version string reported by /v1/host.
	Version string
	// Clock gives /v1/host its time, PerfTime and PerfFreq: the clock the
	// host stamps blocks with (engine.SystemClock() for the local host);
	// default: the wall clock, in FILETIME units.
	Clock Clock
	// Registry answers /v1/query and lists the Costly objects; nil:
	// /v1/query answers 501 Not Implemented and no object is Costly.
	Registry Registry
	// MinInterval is the shortest time between two collections of the
	// handler's own sampler (SamplerOptions.MaxAge) behind /v1/formatted
	// and /v1/objects, whatever the number of clients, when the source
	// given to NewHandler is not a *pdh.Sampler; default 1 s.
	MinInterval time.Duration
	// KeepObjects is how long an object stays in the handler's own
	// sampler's collections after the last request that asked for it
	// (SamplerOptions.Keep); default 60 s.
	KeepObjects time.Duration
	// Sets manages collector sets (/v1/sets); nil answers 501 there.
	Sets remote.Sets
	// LoopbackRole is the role of a request that reaches the handler
	// without one (no authentication configured) over a loopback
	// connection; RoleNone, the default, refuses such requests with
	// 401. Any local user can connect to loopback: RoleMonitor lets every
	// local user read what the server's user reads.
	LoopbackRole remote.Role
	// Logger receives server-side failures (5xx answers); default discard.
	Logger *slog.Logger
	// Computers are the remote computers the handler reads for its
	// callers (/v1/host lists them; /v1/objects?computer=NAME and
	// \\NAME\... paths of /v1/formatted reach them); nil: none.
	Computers *Computers
}

// Handler answers the /v1 API over a source. Create it with NewHandler.
type Handler struct {
	opts Options
	db   *titles.DB
	// sampler is the shared collection of the host: the union of the
	// objects formatted values were asked for, and the Global sample the
	// object enumeration reads. costly collects the Costly objects for
	// the enumeration (nil: no Registry).
	sampler, costly *pdh.Sampler
	maxItems        int // MaxItems; tests lower it
}

// NewHandler returns the HTTP handler of the /v1 API (API.md) over src,
// the live source of the host it serves. A *pdh.Sampler is used as it
// is, so that the handler collects with the program's other consumers
// of the host (/metrics, OTLP); any other source gets a sampler of the
// handler's own. The handler serves the paths under APIVersion and
// answers 404 for any other; mount it at the server's root. The
// authentication middleware sets the caller's role with WithRole before
// it; the handler checks the role on every request itself.
func NewHandler(src pdh.Source, opts Options) *Handler {
	if opts.Clock == nil {
		opts.Clock = wallClock{}
	}
	if opts.MinInterval <= 0 {
		opts.MinInterval = time.Second
	}
	if opts.KeepObjects <= 0 {
		opts.KeepObjects = time.Minute
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	h := &Handler{opts: opts, db: src.Titles(), maxItems: remote.MaxItems}
	so := pdh.SamplerOptions{MaxAge: opts.MinInterval, Keep: opts.KeepObjects}
	if s, ok := src.(*pdh.Sampler); ok {
		h.sampler = s
	} else {
		h.sampler = pdh.NewSampler(src, so)
	}
	if opts.Registry != nil {
		h.costly = pdh.NewSampler(costlySource{opts.Registry, h.db}, so)
	}
	return h
}

// ServeHTTP routes a request. No input makes it panic: a panic of a
// backend becomes a 500 answer.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			h.opts.Logger.Error("handler panicked", "path", r.URL.Path, "panic", v)
			serveError(w, http.StatusInternalServerError, "internal", "the server failed to answer this request; its log says why")
		}
	}()
	w.Header().Set("Cache-Control", "no-store")
	role := h.role(r)
	if role < remote.RoleMonitor {
		w.Header().Set("WWW-Authenticate", `Bearer realm="perfc"`)
		serveError(w, http.StatusUnauthorized, "unauthorized", "authentication required: this server accepts only authenticated callers (see the server's web configuration)")
		return
	}
	if len(r.URL.RawQuery) > remote.MaxQueryString {
		serveError(w, http.StatusRequestURITooLong, "query_too_long",
			fmt.Sprintf("query string of %d bytes, more than %d", len(r.URL.RawQuery), remote.MaxQueryString))
		return
	}
	if _, err := url.ParseQuery(r.URL.RawQuery); err != nil {
		serveError(w, http.StatusBadRequest, "bad_query", fmt.Sprintf("query string: %v", err))
		return
	}
	p := r.URL.Path
	switch {
	case p == remote.PathQuery:
		if allow(w, r, http.MethodGet) {
			h.serveQuery(w, r)
		}
	case p == remote.PathHost:
		if allow(w, r, http.MethodGet) {
			h.serveHost(w, r, role)
		}
	case p == remote.PathObjects:
		if allow(w, r, http.MethodGet) {
			h.serveObjects(w, r, r.URL.Query().Get("object"))
		}
	case strings.HasPrefix(p, remote.PathObjects+"/"):
		if allow(w, r, http.MethodGet) {
			h.serveObjects(w, r, strings.TrimPrefix(p, remote.PathObjects+"/"))
		}
	case p == remote.PathFormatted:
		if allow(w, r, http.MethodGet, http.MethodPost) {
			h.serveFormatted(w, r)
		}
	case p == remote.PathSets || strings.HasPrefix(p, remote.PathSets+"/"):
		h.serveSets(w, r, role, strings.TrimPrefix(p, remote.PathSets))
	default:
		serveError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no such API path %q (this server speaks %s: see API.md)", clipText(p), remote.APIVersion))
	}
}

// role is the caller's role: the one the authentication middleware set,
// or LoopbackRole for a request without one over loopback.
func (h *Handler) role(r *http.Request) remote.Role {
	role, _ := remote.Caller(r.Context())
	if role != remote.RoleNone || h.opts.LoopbackRole == remote.RoleNone {
		return role
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return remote.RoleNone
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.Unmap().IsLoopback() {
		return remote.RoleNone
	}
	return h.opts.LoopbackRole
}

// allow answers 405 unless r's method is one of methods (HEAD counts as
// GET).
func allow(w http.ResponseWriter, r *http.Request, methods ...string) bool {
	m := r.Method
	if m == http.MethodHead {
		m = http.MethodGet
	}
	for _, x := range methods {
		if m == x {
			return true
		}
	}
	w.Header().Set("Allow", strings.Join(methods, ", "))
	serveError(w, http.StatusMethodNotAllowed, "method_not_allowed",
		fmt.Sprintf("%s %s: method not allowed (want %s)", clipText(r.Method), clipText(r.URL.Path), strings.Join(methods, " or ")))
	return false
}

// serveError writes the JSON error answer.
func serveError(w http.ResponseWriter, status int, code, reason string) {
	serveJSON(w, status, remote.ErrorBody{Error: remote.Error{Status: status, Code: code, Reason: reason}})
}

// badParam answers 400 naming the parameter and its value.
func badParam(w http.ResponseWriter, name, value, why string) {
	serveError(w, http.StatusBadRequest, "bad_parameter", fmt.Sprintf("parameter %s=%q: %s", name, clipText(value), why))
}

func serveJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"status":500,"code":"internal","reason":"the answer could not be encoded"}}`)
	}
	w.Header().Set("Content-Type", remote.MediaJSON)
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// clip shortens a request's text quoted in an error, so an error answer
// stays small whatever the request.
func clipText(s string) string {
	const n = 200
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "..."
}

// singleParam returns the one value of a parameter, or answers 400 when
// it is given more than once.
func singleParam(w http.ResponseWriter, r *http.Request, name string) (string, bool) {
	vs := r.URL.Query()[name]
	switch len(vs) {
	case 0:
		return "", true
	case 1:
		return vs[0], true
	}
	badParam(w, name, vs[1], "given more than once")
	return "", false
}

// onlyParams answers 400 when r has a parameter other than names.
func onlyParams(w http.ResponseWriter, r *http.Request, names ...string) bool {
	for k, vs := range r.URL.Query() {
		if !slices.Contains(names, k) {
			want := "no parameters"
			if len(names) > 0 {
				want = strings.Join(names, ", ")
			}
			badParam(w, k, strings.Join(vs, ","), "unknown parameter (want "+want+")")
			return false
		}
	}
	return true
}

// serveQuery answers PathQuery: the engine's block (or MULTI_SZ list)
// byte for byte, its problems in the Perfc-Problems header.
func (h *Handler) serveQuery(w http.ResponseWriter, r *http.Request) {
	if !onlyParams(w, r, "value") {
		return
	}
	v, ok := singleParam(w, r, "value")
	if !ok {
		return
	}
	if err := checkQueryValue(v); err != nil {
		badParam(w, "value", v, err.Error())
		return
	}
	if h.opts.Registry == nil {
		serveError(w, http.StatusNotImplemented, "no_registry", "this server's source answers formatted values and objects, not registry queries")
		return
	}
	data, multiSZ, problems, err := h.opts.Registry.ServeQuery(r.Context(), v)
	if err != nil {
		var bad interface{ BadValue() bool }
		if errors.As(err, &bad) && bad.BadValue() {
			badParam(w, "value", v, err.Error())
			return
		}
		if r.Context().Err() != nil {
			return // the caller went away
		}
		h.opts.Logger.Error("query failed", "value", v, "err", err)
		serveError(w, http.StatusInternalServerError, "query_failed", fmt.Sprintf("query %q: %v", clipText(v), err))
		return
	}
	media := remote.MediaBlock
	if multiSZ {
		media = remote.MediaMultiSZ
	}
	hdr := w.Header()
	hdr.Set("Content-Type", media)
	hdr.Set("Content-Length", strconv.Itoa(len(data)))
	hdr.Set("X-Content-Type-Options", "nosniff")
	if ps := wireProblems(problems); len(ps) > 0 {
		if s, err := problemsHeader(ps); err == nil {
			hdr.Set(remote.HeaderProblems, s)
		}
	}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(data)
	}
}

// checkQueryValue checks the value parameter of PathQuery before the
// registry reads it: present, bounded, UTF-8.
func checkQueryValue(v string) error {
	switch {
	case v == "":
		return errors.New(`missing (want "Global", "Costly", "Counter [lang]", "Help [lang]" or title indexes)`)
	case len(v) > remote.MaxValueLength:
		return fmt.Errorf("%d bytes, more than %d", len(v), remote.MaxValueLength)
	case !utf8.ValidString(v):
		return errors.New("not UTF-8")
	}
	return nil
}

// wireProblems converts a sample's problems to their wire form.
func wireProblems(ps []pdh.Problem) []remote.Problem {
	if len(ps) == 0 {
		return nil
	}
	out := make([]remote.Problem, 0, len(ps))
	for _, p := range ps {
		wp := remote.Problem{Object: p.Object, ObjectName: p.ObjectName, Reason: p.Reason, Partial: p.Partial}
		for _, m := range p.Missing {
			wp.Missing = append(wp.Missing, remote.MissingValues{Instance: m.Instance, Counters: m.Counters})
		}
		out = append(out, wp)
	}
	return out
}

// problemsHeader encodes problems within MaxProblemsHeader: when they do
// not fit, problems are left out from the end and a last one says how
// many.
func problemsHeader(ps []remote.Problem) (string, error) {
	s, err := remote.EncodeProblems(ps)
	if err != nil || len(s) <= remote.MaxProblemsHeader {
		return s, err
	}
	// Halve the kept count until it fits, then grow it back by steps:
	// at most O(log n) encodings of at most the whole list.
	lo, hi := 0, len(ps) // lo fits (with its note), hi does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if t, err := remote.EncodeProblems(cutProblems(ps, mid)); err == nil && len(t) <= remote.MaxProblemsHeader {
			lo = mid
		} else {
			hi = mid
		}
	}
	return remote.EncodeProblems(cutProblems(ps, lo))
}

// cutProblems keeps the first n problems, with their texts and missing
// lists bounded, and a last problem counting the ones left out.
func cutProblems(ps []remote.Problem, n int) []remote.Problem {
	out := make([]remote.Problem, 0, n+1)
	for _, p := range ps[:n] {
		p.Reason = clipText(p.Reason)
		if len(p.Missing) > 64 {
			p.Missing = p.Missing[:64]
		}
		out = append(out, p)
	}
	return append(out, remote.Problem{Reason: fmt.Sprintf("%d more problems left out (header limit %d bytes)", len(ps)-n, remote.MaxProblemsHeader)})
}

// hostInfo is the JSON of PathHost.
type hostInfo struct {
	Name     string    `json:"name"`
	Time     time.Time `json:"time"`
	PerfFreq int64     `json:"perfFreq"`
	PerfTime int64     `json:"perfTime"`
	Version  string    `json:"version"`
	API      string    `json:"api"`
	Role     string    `json:"role"`
	Who      string    `json:"who"`
	// Computers are the remote computers this server reads for its
	// callers (Options.Computers), by name.
	Computers []string `json:"computers,omitempty"`
}

func (h *Handler) serveHost(w http.ResponseWriter, r *http.Request, role remote.Role) {
	if !onlyParams(w, r) {
		return
	}
	_, who := remote.Caller(r.Context())
	c := h.opts.Clock
	info := hostInfo{
		Name:      h.opts.ComputerName,
		Time:      c.Wall().UTC(),
		PerfTime:  c.Ticks(),
		PerfFreq:  c.Freq(),
		Version:   h.opts.Version,
		API:       remote.APIVersion,
		Role:      role.String(),
		Who:       who,
		Computers: h.opts.Computers.Names(),
	}
	if info.Name == "" {
		if cur, err := h.sampler.Once(r.Context(), nil); err == nil && len(cur.Blocks) > 0 {
			info.Name = cur.Blocks[0].Header().SystemName
		}
	}
	serveJSON(w, http.StatusOK, info)
}
