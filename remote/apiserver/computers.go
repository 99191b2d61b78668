package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/remote"
)

// Backoff after a remote computer fails: it is not asked again before the
// delay, which doubles with each failure in a row up to maxRemoteBackoff
// (pdh.Fleet's rule), so a computer that does not answer costs its
// timeout once per delay, not once per request.
const (
	minRemoteBackoff = time.Second
	maxRemoteBackoff = 8 * time.Second
)

// Computers are the remote computers a Handler reads for its callers
// (Options.Computers): the entries of the server's hosts file,
// each read through a Client with the entry's URL and credentials. A
// caller names a computer by its entry's name only, never by an address,
// so the server sends its credentials nowhere but where its hosts file
// says. Create them with NewComputers; they may be used concurrently.
type Computers struct {
	list []*computer // sorted by name
	now  func() time.Time
}

// computer is one remote computer: its entry, its client (opened at the
// first request), and its failures.
type computer struct {
	cfg *remote.HostConfig

	mu      sync.Mutex
	client  *remote.Client
	retryAt time.Time
	backoff time.Duration
	lastErr error
}

// NewComputers returns the computers of hosts' entries (none when hosts
// is nil). Nothing is opened or connected until a request names one.
func NewComputers(hosts *remote.Hosts) *Computers {
	c := &Computers{now: time.Now}
	if hosts != nil {
		for _, cfg := range hosts.Hosts {
			c.list = append(c.list, &computer{cfg: cfg})
		}
	}
	slices.SortFunc(c.list, func(a, b *computer) int { return strings.Compare(a.cfg.Name, b.cfg.Name) })
	return c
}

// Names are the computers' names, sorted.
func (c *Computers) Names() []string {
	if c == nil {
		return nil
	}
	out := make([]string, len(c.list))
	for i, m := range c.list {
		out[i] = m.cfg.Name
	}
	return out
}

// Close drops the clients' idle connections.
func (c *Computers) Close() error {
	if c == nil {
		return nil
	}
	for _, m := range c.list {
		m.mu.Lock()
		if m.client != nil {
			m.client.Close()
		}
		m.mu.Unlock()
	}
	return nil
}

// lookup returns the computer of name (compared without case), nil when
// there is none.
func (c *Computers) lookup(name string) *computer {
	if c == nil {
		return nil
	}
	for _, m := range c.list {
		if strings.EqualFold(m.cfg.Name, name) {
			return m
		}
	}
	return nil
}

// errBackoff wraps the last failure of a computer waiting out its backoff.
type errBackoff struct{ err error }

func (e errBackoff) Error() string { return e.err.Error() }
func (e errBackoff) Unwrap() error { return e.err }

// use runs f with the computer's client unless the computer is waiting
// out its backoff (then the last failure comes back at once), and
// records f's failure or success. A 4xx answer (a path or object the
// computer does not have) is the caller's doing, not a failure of the
// computer.
func (m *computer) use(ctx context.Context, now func() time.Time, f func(*remote.Client) error) error {
	m.mu.Lock()
	if t := now(); t.Before(m.retryAt) {
		err := m.lastErr
		m.mu.Unlock()
		return errBackoff{err}
	}
	if m.client == nil {
		c, err := remote.Open(m.cfg)
		if err != nil {
			m.failLocked(now(), err)
			m.mu.Unlock()
			return err
		}
		m.client = c
	}
	c := m.client
	m.mu.Unlock()
	err := f(c)
	if ctx.Err() != nil {
		return err // the caller went away: says nothing of the computer
	}
	var se *remote.StatusError
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil && !(errors.As(err, &se) && se.Status >= 400 && se.Status < 500 && se.Status != http.StatusUnauthorized && se.Status != http.StatusForbidden) {
		m.failLocked(now(), err)
	} else {
		m.backoff, m.retryAt, m.lastErr = 0, time.Time{}, nil
	}
	return err
}

func (m *computer) failLocked(now time.Time, err error) {
	m.backoff = min(max(2*m.backoff, minRemoteBackoff), maxRemoteBackoff)
	m.retryAt = now.Add(m.backoff)
	m.lastErr = err
}

// isLocalName reports whether a path's computer name is the handler's
// own: empty, ".", "localhost", or its computer name.
func (h *Handler) isLocalName(name string) bool {
	return name == "" || name == "." || strings.EqualFold(name, "localhost") ||
		(h.opts.ComputerName != "" && strings.EqualFold(name, h.opts.ComputerName))
}

// remoteComputer returns the remote computer a request names, nil for
// this computer; an unknown name is a 404 error naming the ones there
// are.
func (h *Handler) remoteComputer(name string) (*computer, error) {
	if h.isLocalName(name) {
		return nil, nil
	}
	if m := h.opts.Computers.lookup(name); m != nil {
		return m, nil
	}
	known := "none: it has no hosts file"
	if n := h.opts.Computers.Names(); len(n) > 0 {
		known = strings.Join(n, ", ")
	}
	return nil, &remote.Error{Status: http.StatusNotFound, Code: "no_computer",
		Reason: fmt.Sprintf("computer %q: not one this server reads (its hosts file lists %s)", clipText(name), known)}
}

// remoteError is the API error of a failed request to computer m: the
// computer's own 4xx answer passes through with its reason; anything
// else is 502 (504 for no answer in time).
func remoteError(m *computer, err error) *remote.Error {
	var se *remote.StatusError
	if errors.As(err, &se) && se.Status >= 400 && se.Status < 500 && se.Status != http.StatusUnauthorized && se.Status != http.StatusForbidden {
		return &remote.Error{Status: se.Status, Code: "remote_refused", Reason: clipText(se.Msg)}
	}
	status := http.StatusBadGateway
	if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "no answer within") {
		status = http.StatusGatewayTimeout
	}
	reason := err.Error()
	if !strings.HasPrefix(strings.ToLower(reason), strings.ToLower(m.cfg.Name)+":") {
		reason = m.cfg.Name + ": " + reason
	}
	var b errBackoff
	if errors.As(err, &b) {
		reason += " (not asked again yet)"
	}
	return &remote.Error{Status: status, Code: "remote_failed", Reason: clipText(reason)}
}

// remoteObjects answers /v1/objects for remote computer m: its own
// answer, with its name as the host and its instances' paths naming it.
func (h *Handler) remoteObjects(ctx context.Context, m *computer, p objectsParams) (any, error) {
	var out any
	err := m.use(ctx, h.computersNow(), func(c *remote.Client) error {
		if p.object != "" {
			e, err := c.Object(ctx, p.object, remote.DetailName(p.detail))
			if err != nil {
				return err
			}
			for i := range e.Instances {
				e.Instances[i].Path = onMachine(e.Instances[i].Path, m.cfg.Name)
			}
			out = e
			return nil
		}
		l, err := c.Objects(ctx, remote.DetailName(p.detail), p.costly)
		if err != nil {
			return err
		}
		l.Host = m.cfg.Name
		out = l
		return nil
	})
	if err != nil {
		return nil, remoteError(m, err)
	}
	return out, nil
}

func (h *Handler) computersNow() func() time.Time {
	if h.opts.Computers != nil && h.opts.Computers.now != nil {
		return h.opts.Computers.now
	}
	return time.Now
}

// onMachine writes counter path s with computer name (a path that does
// not parse is returned as it is).
func onMachine(s, name string) string {
	p, err := counterpath.Parse(s)
	if err != nil {
		return s
	}
	p.Machine = name
	return p.String()
}

// formattedAcross answers a formatted request whose paths name remote
// computers: this computer's paths from the shared collections
// (formattedValues), each remote computer's from its own server (one
// request per computer, all at once, each within its hosts-file
// timeout). A computer that fails or waits out its backoff costs only
// its own paths: their status is PDH_NO_DATA with the reason.
func (h *Handler) formattedAcross(ctx context.Context, req remote.FormattedRequest) (*remote.FormattedAnswer, error) {
	type group struct {
		m     *computer
		index []int // positions in req.Paths
		req   remote.FormattedRequest
		ans   *remote.FormattedAnswer
		err   error
	}
	local := group{req: remote.FormattedRequest{Raw: req.Raw, NoCap100: req.NoCap100}}
	var remotes []*group
	for i, s := range req.Paths {
		p, _ := counterpath.Parse(s) // checked by the decoder
		m := (*computer)(nil)
		if !h.isLocalName(p.Machine) {
			m = h.opts.Computers.lookup(p.Machine)
		}
		if m == nil {
			if p.Machine != "" && h.isLocalName(p.Machine) {
				// This computer by one of its names, whatever its blocks
				// call it.
				p.Machine = ""
				s = p.String()
			}
			local.index = append(local.index, i)
			local.req.Paths = append(local.req.Paths, s)
			continue
		}
		k := slices.IndexFunc(remotes, func(g *group) bool { return g.m == m })
		if k < 0 {
			k = len(remotes)
			remotes = append(remotes, &group{m: m, req: remote.FormattedRequest{Raw: req.Raw, NoCap100: req.NoCap100}})
		}
		g := remotes[k]
		p.Machine = ""
		g.index = append(g.index, i)
		g.req.Paths = append(g.req.Paths, p.String())
	}
	var wg sync.WaitGroup
	for _, g := range remotes {
		wg.Go(func() {
			g.err = g.m.use(ctx, h.computersNow(), func(c *remote.Client) error {
				var err error
				g.ans, err = c.Formatted(ctx, g.req)
				if err == nil && len(g.ans.Counters) != len(g.req.Paths) {
					err = fmt.Errorf("%s: answered %d counters for %d paths", g.m.cfg.Name, len(g.ans.Counters), len(g.req.Paths))
				}
				return err
			})
		})
	}
	if len(local.req.Paths) > 0 {
		local.ans, local.err = h.formattedValues(ctx, local.req)
	}
	wg.Wait()
	if local.err != nil {
		return nil, local.err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ans := &remote.FormattedAnswer{Host: h.opts.ComputerName, Counters: make([]remote.FormattedCounter, len(req.Paths))}
	if local.ans != nil {
		ans.Host, ans.Time, ans.Interval, ans.Problems = local.ans.Host, local.ans.Time, local.ans.Interval, local.ans.Problems
		for k, i := range local.index {
			fc := local.ans.Counters[k]
			fc.Path = req.Paths[i]
			if p, _ := counterpath.Parse(req.Paths[i]); p.Machine != "" {
				// Asked by one of this computer's names: the items keep it.
				for j := range fc.Items {
					fc.Items[j].Path = onMachine(fc.Items[j].Path, p.Machine)
				}
			}
			ans.Counters[i] = fc
		}
	}
	for _, g := range remotes {
		name := g.m.cfg.Name
		if g.err != nil {
			reason := remoteError(g.m, g.err).Reason
			for _, i := range g.index {
				ans.Counters[i] = remote.FormattedCounter{Path: req.Paths[i], Status: calc.NoData.String(), Reason: reason, Items: []remote.FormattedItem{}}
			}
			continue
		}
		if local.ans == nil && g.ans.Time.After(ans.Time) {
			ans.Time = g.ans.Time
		}
		for k, i := range g.index {
			fc := g.ans.Counters[k]
			fc.Path = req.Paths[i]
			for j := range fc.Items {
				fc.Items[j].Path = onMachine(fc.Items[j].Path, name)
			}
			if fc.Items == nil {
				fc.Items = []remote.FormattedItem{}
			}
			ans.Counters[i] = fc
		}
		for _, p := range g.ans.Problems {
			if p.ObjectName == "" {
				p.ObjectName = `\\` + name
			} else {
				p.ObjectName = `\\` + name + `\` + p.ObjectName
			}
			ans.Problems = append(ans.Problems, p)
		}
	}
	if ans.Time.IsZero() {
		// No computer answered and none is this one: the time of asking,
		// so a page's graph moves on with no data.
		ans.Time = h.computersNow()().UTC()
	}
	return ans, nil
}

// needsComputers reports whether a request's paths name computers while
// the handler reads remote ones: formattedAcross then sorts them.
func (h *Handler) needsComputers(paths []string) bool {
	if h.opts.Computers == nil || len(h.opts.Computers.list) == 0 {
		return false
	}
	for _, s := range paths {
		if p, err := counterpath.Parse(s); err == nil && p.Machine != "" {
			return true
		}
	}
	return false
}
