package remote

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

	"github.com/perfcounters/perfcounters/engine"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/titles"
)

// Backend is the local host a handler serves: the engine's queries and
// the title database that names their indexes, and the host's samples.
// *host.Host satisfies it.
type Backend interface {
	// Query answers a parsed registry query with a fresh block (or a
	// MULTI_SZ list for Counter and Help): /v1/query.
	Query(ctx context.Context, q engine.Query) (*engine.Result, error)
	// Titles is the title database of the blocks. It is read, never
	// changed, by the handler.
	Titles() *titles.DB
	// Source is the host's live samples, which the handler collects
	// through a pdh.Sampler (HandlerOptions.Sampler, or its own). When
	// the source also satisfies Costly, the handler lists its Costly
	// objects too.
	Source() pdh.Source
}

// Costly is what a live source that has Costly objects (which a Global
// collection leaves out) offers besides pdh.Source.
type Costly interface {
	// Costly collects the Costly objects.
	Costly(ctx context.Context) (*pdh.Sample, error)
}

// Limits of the API. Requests beyond them are refused with 400 or 413
// before any work is done; API.md lists them.
const (
	// MaxQueryString is the most bytes of a request's query string.
	MaxQueryString = 64 << 10
	// MaxBody is the most bytes of a request body (POST /v1/formatted).
	MaxBody = 1 << 20
	// MaxPaths is the most counter paths of one formatted request.
	MaxPaths = 1000
	// MaxPathLength is the most bytes of one counter path (PDH's
	// PDH_MAX_COUNTER_PATH is 2048 characters).
	MaxPathLength = 2048
	// MaxValueLength is the most bytes of a query's value name.
	MaxValueLength = 8 << 10
	// MaxNameLength is the most bytes of an object or set name in a path.
	MaxNameLength = 1024
	// MaxItems is the most values of one formatted answer (paths with
	// wildcards expand to one value per instance and counter).
	MaxItems = 100_000
)

// HandlerOptions configure NewHandler. Zero values select the defaults.
type HandlerOptions struct {
	// ComputerName is the host's name as /v1/host reports it
	// (host.ComputerName()); default: the system name of the host's
	// blocks, read from a header-only query.
	ComputerName string
	// Version is the server's version string reported by /v1/host.
	Version string
	// Clock gives /v1/host its time, PerfTime and PerfFreq: the clock the
	// engine stamps blocks with; default engine.SystemClock().
	Clock engine.Clock
	// Sampler is the collection point the handler shares with the
	// program's other consumers of the host (/metrics, OTLP), so that
	// they collect once an interval between them; nil: the handler's
	// own, over Backend.Source, with MinInterval and KeepObjects.
	Sampler *pdh.Sampler
	// MinInterval is the shortest time between two collections of the
	// handler's own sampler (SamplerOptions.MaxAge) behind /v1/formatted
	// and /v1/objects, whatever the number of clients; default 1 s.
	MinInterval time.Duration
	// KeepObjects is how long an object stays in the handler's own
	// sampler's collections after the last request that asked for it
	// (SamplerOptions.Keep); default 60 s.
	KeepObjects time.Duration
	// Sets manages collector sets (/v1/sets); nil answers 501 there.
	Sets Sets
	// LoopbackRole is the role of a request that reaches the handler
	// without one (no authentication configured) over a loopback
	// connection; RoleNone, the default, refuses such requests with
	// 401. Any local user can connect to loopback: RoleMonitor lets every
	// local user read what the server's user reads.
	LoopbackRole Role
	// Logger receives server-side failures (5xx answers); default discard.
	Logger *slog.Logger
	// Computers are the remote computers the handler reads for its
	// callers (/v1/host lists them; /v1/objects?computer=NAME and
	// \\NAME\... paths of /v1/formatted reach them); nil: none.
	Computers *Computers
}

// Handler answers the /v1 API over a Backend. Create it with NewHandler.
type Handler struct {
	b    Backend
	opts HandlerOptions
	// sampler is the shared collection of the host: the union of the
	// objects formatted values were asked for, and the Global sample the
	// object enumeration reads. costly collects the Costly objects for
	// the enumeration (nil: the source has none).
	sampler, costly *pdh.Sampler
	maxItems        int // MaxItems; tests lower it
}

// NewHandler returns the HTTP handler of the /v1 API (API.md) over the
// local host b. It serves the paths under APIVersion and answers 404 for
// any other; mount it at the server's root. The authentication
// middleware sets the caller's role with WithRole before it; the handler
// checks the role on every request itself.
func NewHandler(b Backend, opts HandlerOptions) *Handler {
	if opts.Clock == nil {
		opts.Clock = engine.SystemClock()
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
	h := &Handler{b: b, opts: opts, maxItems: MaxItems, sampler: opts.Sampler}
	so := pdh.SamplerOptions{MaxAge: opts.MinInterval, Keep: opts.KeepObjects}
	src := b.Source()
	if h.sampler == nil {
		h.sampler = pdh.NewSampler(src, so)
	}
	if c, ok := src.(Costly); ok {
		h.costly = pdh.NewSampler(costlySource{c, b.Titles()}, so)
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
	if role < RoleMonitor {
		w.Header().Set("WWW-Authenticate", `Bearer realm="perfc"`)
		serveError(w, http.StatusUnauthorized, "unauthorized", "authentication required: this server accepts only authenticated callers (see the server's web configuration)")
		return
	}
	if len(r.URL.RawQuery) > MaxQueryString {
		serveError(w, http.StatusRequestURITooLong, "query_too_long",
			fmt.Sprintf("query string of %d bytes, more than %d", len(r.URL.RawQuery), MaxQueryString))
		return
	}
	if _, err := url.ParseQuery(r.URL.RawQuery); err != nil {
		serveError(w, http.StatusBadRequest, "bad_query", fmt.Sprintf("query string: %v", err))
		return
	}
	p := r.URL.Path
	switch {
	case p == PathQuery:
		if allow(w, r, http.MethodGet) {
			h.serveQuery(w, r)
		}
	case p == PathHost:
		if allow(w, r, http.MethodGet) {
			h.serveHost(w, r, role)
		}
	case p == PathObjects:
		if allow(w, r, http.MethodGet) {
			h.serveObjects(w, r, r.URL.Query().Get("object"))
		}
	case strings.HasPrefix(p, PathObjects+"/"):
		if allow(w, r, http.MethodGet) {
			h.serveObjects(w, r, strings.TrimPrefix(p, PathObjects+"/"))
		}
	case p == PathFormatted:
		if allow(w, r, http.MethodGet, http.MethodPost) {
			h.serveFormatted(w, r)
		}
	case p == PathSets || strings.HasPrefix(p, PathSets+"/"):
		h.serveSets(w, r, role, strings.TrimPrefix(p, PathSets))
	default:
		serveError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no such API path %q (this server speaks %s: see API.md)", clipText(p), APIVersion))
	}
}

// role is the caller's role: the one the authentication middleware set,
// or LoopbackRole for a request without one over loopback.
func (h *Handler) role(r *http.Request) Role {
	role, _ := Caller(r.Context())
	if role != RoleNone || h.opts.LoopbackRole == RoleNone {
		return role
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return RoleNone
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.Unmap().IsLoopback() {
		return RoleNone
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
	serveJSON(w, status, ErrorBody{Error: Error{Status: status, Code: code, Reason: reason}})
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
	w.Header().Set("Content-Type", MediaJSON)
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
	q, err := ParseQueryValue(v)
	if err != nil {
		badParam(w, "value", v, err.Error())
		return
	}
	res, err := h.b.Query(r.Context(), q)
	if err != nil {
		if r.Context().Err() != nil {
			return // the caller went away
		}
		h.opts.Logger.Error("query failed", "value", v, "err", err)
		serveError(w, http.StatusInternalServerError, "query_failed", fmt.Sprintf("query %q: %v", clipText(v), err))
		return
	}
	media := MediaBlock
	if q.Kind == engine.QueryCounter || q.Kind == engine.QueryHelp {
		media = MediaMultiSZ
	}
	hdr := w.Header()
	hdr.Set("Content-Type", media)
	hdr.Set("Content-Length", strconv.Itoa(len(res.Block)))
	hdr.Set("X-Content-Type-Options", "nosniff")
	if ps := ResultProblems(res); len(ps) > 0 {
		if s, err := problemsHeader(ps); err == nil {
			hdr.Set(HeaderProblems, s)
		}
	}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(res.Block)
	}
}

// ParseQueryValue reads the value parameter of PathQuery: what
// engine.ParseQuery reads, but for Foreign (a server does not chain to
// other hosts), with its length bounded and its language checked.
func ParseQueryValue(v string) (engine.Query, error) {
	if v == "" {
		return engine.Query{}, errors.New(`missing (want "Global", "Costly", "Counter [lang]", "Help [lang]" or title indexes)`)
	}
	if len(v) > MaxValueLength {
		return engine.Query{}, fmt.Errorf("%d bytes, more than %d", len(v), MaxValueLength)
	}
	if !utf8.ValidString(v) {
		return engine.Query{}, errors.New("not UTF-8")
	}
	q, err := engine.ParseQuery(v)
	if err != nil {
		return engine.Query{}, errors.New(strings.TrimPrefix(err.Error(), "engine: "))
	}
	switch q.Kind {
	case engine.QueryForeign:
		return engine.Query{}, fmt.Errorf("a Foreign query (host %s): this server answers for its own host only; ask %s's server", clipText(q.Host), clipText(q.Host))
	case engine.QueryCounter, engine.QueryHelp:
		if q.Lang != "" && !isLang(q.Lang) {
			return engine.Query{}, fmt.Errorf("language %q: want a hexadecimal language id such as 009", clipText(q.Lang))
		}
	}
	return q, nil
}

// isLang reports whether s is a language id as the registry spells it
// (three or four hexadecimal digits, "009").
func isLang(s string) bool {
	if len(s) < 1 || len(s) > 4 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// ResultProblems converts an engine result's problems to their wire form:
// dropped objects, then partial ones with their placeholder values.
func ResultProblems(r *engine.Result) []Problem {
	if len(r.Problems) == 0 && len(r.Partial) == 0 {
		return nil
	}
	out := make([]Problem, 0, len(r.Problems)+len(r.Partial))
	for _, p := range r.Problems {
		reason := "unknown"
		if p.Err != nil {
			reason = p.Err.Error()
		}
		if p.Provider != "" {
			reason = "V1 provider " + p.Provider + ": " + reason
		}
		out = append(out, Problem{Object: p.NameIndex, ObjectName: p.Object, Reason: reason})
	}
	for _, p := range r.Partial {
		reason := "partial data"
		if p.Err != nil {
			reason = p.Err.Error()
		}
		wp := Problem{Object: p.NameIndex, ObjectName: p.Object, Reason: reason, Partial: true}
		for _, m := range p.Missing {
			wp.Missing = append(wp.Missing, MissingValues{Instance: m.Instance, Counters: m.Counters})
		}
		out = append(out, wp)
	}
	return out
}

// problemsHeader encodes problems within MaxProblemsHeader: when they do
// not fit, problems are left out from the end and a last one says how
// many.
func problemsHeader(ps []Problem) (string, error) {
	s, err := EncodeProblems(ps)
	if err != nil || len(s) <= MaxProblemsHeader {
		return s, err
	}
	// Halve the kept count until it fits, then grow it back by steps:
	// at most O(log n) encodings of at most the whole list.
	lo, hi := 0, len(ps) // lo fits (with its note), hi does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if t, err := EncodeProblems(cutProblems(ps, mid)); err == nil && len(t) <= MaxProblemsHeader {
			lo = mid
		} else {
			hi = mid
		}
	}
	return EncodeProblems(cutProblems(ps, lo))
}

// cutProblems keeps the first n problems, with their texts and missing
// lists bounded, and a last problem counting the ones left out.
func cutProblems(ps []Problem, n int) []Problem {
	out := make([]Problem, 0, n+1)
	for _, p := range ps[:n] {
		p.Reason = clipText(p.Reason)
		if len(p.Missing) > 64 {
			p.Missing = p.Missing[:64]
		}
		out = append(out, p)
	}
	return append(out, Problem{Reason: fmt.Sprintf("%d more problems left out (header limit %d bytes)", len(ps)-n, MaxProblemsHeader)})
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
	// callers (HandlerOptions.Computers), by name.
	Computers []string `json:"computers,omitempty"`
}

func (h *Handler) serveHost(w http.ResponseWriter, r *http.Request, role Role) {
	if !onlyParams(w, r) {
		return
	}
	_, who := Caller(r.Context())
	c := h.opts.Clock
	info := hostInfo{
		Name:      h.opts.ComputerName,
		Time:      c.Wall().UTC(),
		PerfTime:  c.Ticks(),
		PerfFreq:  c.Freq(),
		Version:   h.opts.Version,
		API:       APIVersion,
		Role:      role.String(),
		Who:       who,
		Computers: h.opts.Computers.Names(),
	}
	if info.Name == "" {
		if cur, err := h.sampler.Sample(r.Context(), nil); err == nil && len(cur.Blocks) > 0 {
			info.Name = cur.Blocks[0].Header().SystemName
		}
	}
	serveJSON(w, http.StatusOK, info)
}
