package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/perfcounters/perfcounters/internal/termtext"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// maxErrorBody bounds the body of an error answer a client reads.
const maxErrorBody = 64 << 10

// Client is one remote host read through its perfc serve API: a live
// pdh.Source whose samples carry the host's name as the user wrote it
// (the entry's name), whatever the remote computer calls itself, so that
// `\\db7\...` paths match its blocks. Its title database is fetched from
// the host (Counter and Help) when it connects, and fetched again when a
// sample names an object index it does not know.
//
// Open makes no request; the first Sample (or Connect) connects. A Client
// may be used from several goroutines; its samples are the caller's until
// the next Sample.
type Client struct {
	name    string
	base    string // the URL root, without a trailing slash
	hc      *http.Client
	cfg     HostConfig // the entry, for reading its credential files again
	credMu  sync.Mutex // guards cred
	cred    credentials
	timeout time.Duration
	limit   int64

	mu        sync.Mutex // one request sequence at a time: buffers and titles
	db        *titles.DB
	connected bool
	tried     map[uint32]bool // unknown object indexes a refresh did not name

	plain *plainConn // the client's own connection to an http:// host; nil for https
}

// Open returns a client of the host cfg describes, with its credentials
// and TLS settings loaded (and checked: see LoadHosts) but no connection
// made. cfg.Name is the machine name of its samples.
func Open(cfg *HostConfig) (*Client, error) {
	if cfg == nil || cfg.Name == "" {
		return nil, errors.New("remote: a host entry without a name")
	}
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("host %s: %w", cfg.Name, err)
	}
	cred, err := cfg.loadCredentials()
	if err != nil {
		return nil, err
	}
	tr := &http.Transport{
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 4,
		IdleConnTimeout:     90 * time.Second,
	}
	if strings.HasPrefix(cfg.URL, "https:") {
		if tr.TLSClientConfig, err = cfg.tlsClientConfig(); err != nil {
			return nil, err
		}
	}
	c := &Client{
		name:    cfg.Name,
		base:    cfg.URL,
		cfg:     *cfg,
		cred:    cred,
		timeout: time.Duration(cfg.Timeout),
		limit:   int64(cfg.BodySizeLimit),
		db:      titles.New(),
		plain:   newPlainConn(cfg.URL, cred),
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if c.limit <= 0 {
		c.limit = DefaultBodyLimit
	}
	base, _ := url.Parse(cfg.URL) // checked by cfg.check
	c.hc = &http.Client{Transport: tr, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if req.URL.Scheme != base.Scheme || req.URL.Host != base.Host {
			return fmt.Errorf("redirected to %s: not the host's own address, refused", req.URL.Redacted())
		}
		if len(via) >= 3 {
			return errors.New("more than 3 redirects")
		}
		return nil
	}}
	return c, nil
}

// Dial opens a client (Open) and connects it (Connect).
func Dial(ctx context.Context, cfg *HostConfig) (*Client, error) {
	c, err := Open(cfg)
	if err != nil {
		return nil, err
	}
	if err := c.Connect(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Machine is the host's name as its samples carry it.
func (c *Client) Machine() string { return c.name }

// URL is the server's root URL.
func (c *Client) URL() string { return c.base }

// Timeout is the bound on each request.
func (c *Client) Timeout() time.Duration { return c.timeout }

// Close drops the client's idle connections.
func (c *Client) Close() error {
	c.hc.CloseIdleConnections()
	if p := c.plain; p != nil {
		p.mu.Lock()
		p.close()
		p.mu.Unlock()
	}
	return nil
}

// Connect fetches the host's title database (Counter and Help) if it has
// not been fetched yet.
func (c *Client) Connect(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.connectLocked(ctx)
}

func (c *Client) connectLocked(ctx context.Context) error {
	if c.connected {
		return nil
	}
	if err := c.fetchTitles(ctx); err != nil {
		return err
	}
	c.connected = true
	return nil
}

// fetchTitles reads Counter and Help and adds them to the client's
// database (in place: a query holding it sees the new names).
func (c *Client) fetchTitles(ctx context.Context) error {
	names, _, err := c.get(ctx, "Counter", MediaMultiSZ)
	if err != nil {
		return err
	}
	db, err := titles.ParseMultiSZ(names)
	if err != nil {
		return fmt.Errorf("%s: its Counter titles: %w", c.name, err)
	}
	help, _, err := c.get(ctx, "Help", MediaMultiSZ)
	if err != nil {
		return err
	}
	if err := db.SetHelpMultiSZ(help); err != nil {
		return fmt.Errorf("%s: its Help texts: %w", c.name, err)
	}
	for _, e := range db.Entries() {
		if e.Name != "" {
			// An index the host renamed since keeps its first name: a
			// query already resolved paths against it.
			_ = c.db.SetAt(e.Index, e.Name, e.Help)
		}
	}
	return nil
}

// Titles is the host's title database (empty until it connects).
func (c *Client) Titles() *titles.DB { return c.db }

// Recorded returns nil: a remote host is live.
func (c *Client) Recorded() pdh.Recorded { return nil }

// Sample asks the host for the objects (Global when none) and returns its
// block, renamed to the client's machine name when the host calls itself
// otherwise, with the host's problems (Machine set to the client's name).
func (c *Client) Sample(ctx context.Context, objects []uint32) (*pdh.Sample, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.connectLocked(ctx); err != nil {
		return nil, err
	}
	value := "Global"
	if len(objects) > 0 {
		var sb strings.Builder
		for i, o := range objects {
			if i > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(strconv.FormatUint(uint64(o), 10))
		}
		value = sb.String()
	}
	// Each answer is read into memory of its own: the sample is a value
	// the caller may keep (a pdh.Sampler pairs it with the next one).
	body, probs, err := c.get(ctx, value, MediaBlock)
	if err != nil {
		return nil, err
	}
	smp, err := c.sampleOf(body, probs)
	if err != nil {
		return nil, err
	}
	c.learnTitles(ctx, smp.Blocks[0])
	return smp, nil
}

// sampleOf parses a block answer into a sample of the client's machine.
func (c *Client) sampleOf(body []byte, probs []Problem) (*pdh.Sample, error) {
	blk, err := perfdata.Parse(body)
	if err != nil {
		return nil, fmt.Errorf("%s: its answer is not a valid block: %w", c.name, err)
	}
	if blk, err = pdh.WithSystemName(blk, c.name); err != nil {
		return nil, fmt.Errorf("%s: %w", c.name, err)
	}
	h := blk.Header()
	t := perfdata.FileTimeToTime(h.PerfTime100nSec)
	if h.PerfTime100nSec == 0 {
		t = h.SystemTime.Time()
	}
	smp := &pdh.Sample{Blocks: []perfdata.Block{blk}, Time: t}
	for _, p := range probs {
		pp := pdh.Problem{Object: p.Object, ObjectName: p.ObjectName, Machine: c.name, Reason: p.Reason, Partial: p.Partial}
		for _, m := range p.Missing {
			pp.Missing = append(pp.Missing, pdh.MissingValues{Instance: m.Instance, Counters: m.Counters})
		}
		smp.Problems = append(smp.Problems, pp)
	}
	return smp, nil
}

// learnTitles fetches the titles again when the block names an object
// the database does not know (a provider registered on the host since),
// once per unknown index.
func (c *Client) learnTitles(ctx context.Context, blk perfdata.Block) {
	var unknown []uint32
	for it := blk.Objects(); it.Next(); {
		idx := it.Object().NameIndex()
		if c.db.Name(idx) == "" && !c.tried[idx] {
			unknown = append(unknown, idx)
		}
	}
	if len(unknown) == 0 {
		return
	}
	if err := c.fetchTitles(ctx); err != nil {
		return // the names stay unknown this time; the next sample retries
	}
	for _, idx := range unknown {
		if c.db.Name(idx) == "" {
			if c.tried == nil {
				c.tried = map[uint32]bool{}
			}
			c.tried[idx] = true
		}
	}
}

// QueryValue asks the host for a registry value name (Global, Costly,
// "Counter", "Help" or an index list) and returns its answer as the host
// sent it (a PERF_DATA_BLOCK, or a MULTI_SZ title list for Counter and
// Help), with the problems the host reported beside it: what
// `QueryValue("Foreign db7 238")` answers.
func (c *Client) QueryValue(ctx context.Context, value string) ([]byte, []Problem, error) {
	want := MediaBlock
	if f := strings.Fields(value); len(f) > 0 && (strings.EqualFold(f[0], "Counter") || strings.EqualFold(f[0], "Help")) {
		want = MediaMultiSZ
	}
	return c.get(ctx, value, want)
}

// get sends GET /v1/query?value=... and reads the answer into memory of
// its own: the body (of media type want, at most the client's limit) and the problems
// header. Errors name the host, the URL and what went wrong.
func (c *Client) get(ctx context.Context, value, want string) ([]byte, []Problem, error) {
	body, probs, err := c.getOnce(ctx, value, want)
	if refused(err) && c.reloadCredentials() {
		return c.getOnce(ctx, value, want)
	}
	return body, probs, err
}

// refused reports an answer 401: the server did not take the credentials.
func refused(err error) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Status == http.StatusUnauthorized
}

// credentials returns the credentials requests carry now.
func (c *Client) credentials() credentials {
	c.credMu.Lock()
	defer c.credMu.Unlock()
	return c.cred
}

// reloadCredentials reads the entry's credential files again after the
// server refused what they held when the client opened: a loopback
// perfc serve writes a new token at every start, and an administrator
// rotates a token by rewriting its file. It reports whether the
// credentials changed, so that the refused request is worth one more try;
// credentials written in the hosts file itself are not read again.
func (c *Client) reloadCredentials() bool {
	if c.cfg.BearerTokenFile == "" && (c.cfg.BasicAuth == nil || c.cfg.BasicAuth.PasswordFile == "") {
		return false
	}
	cred, err := c.cfg.loadCredentials()
	if err != nil {
		return false // the refusal says what to check
	}
	c.credMu.Lock()
	changed := cred != c.cred
	c.cred = cred
	c.credMu.Unlock()
	if changed && c.plain != nil {
		c.plain.mu.Lock()
		c.plain.setAuth(cred)
		c.plain.mu.Unlock()
	}
	return changed
}

// getOnce is one GET of get.
func (c *Client) getOnce(ctx context.Context, value, want string) ([]byte, []Problem, error) {
	if p := c.plain; p != nil && p.mu.TryLock() {
		body, probs, err := c.getPlain(ctx, p, value, want)
		p.mu.Unlock()
		if err != errUseTransport {
			return body, probs, err
		}
	}
	u := c.base + PathQuery + "?value=" + url.QueryEscape(value)
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %s: %w", c.name, u, err)
	}
	req.Header.Set("Accept", want)
	req.Header.Set("User-Agent", "perfc")
	setAuth(req, c.credentials())
	resp, err := c.hc.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
			return nil, nil, &unavailableError{fmt.Errorf("%s: %s: no answer within %v", c.name, u, c.timeout)}
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, nil, &unavailableError{fmt.Errorf("%s: %s: %w", c.name, u, err)}
	}
	defer resp.Body.Close()
	return c.readAnswer(resp, u, want)
}

// readAnswer checks an answer and reads its body: the status (an error
// answer's JSON reason), the media type, the size and the problems
// header.
func (c *Client) readAnswer(resp *http.Response, u, want string) ([]byte, []Problem, error) {
	if resp.StatusCode != http.StatusOK {
		return nil, nil, c.statusError(resp, u)
	}
	mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil || mt != want {
		return nil, nil, fmt.Errorf("%s: %s: answered %q, want %s", c.name, u, resp.Header.Get("Content-Type"), want)
	}
	probs, err := DecodeProblems(resp.Header.Get(HeaderProblems))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %s: %w", c.name, u, err)
	}
	if resp.ContentLength > c.limit {
		return nil, nil, fmt.Errorf("%s: %s: answer of %d bytes, more than the limit of %d (body_size_limit)", c.name, u, resp.ContentLength, c.limit)
	}
	var buf []byte
	if resp.ContentLength > 0 {
		buf = make([]byte, 0, resp.ContentLength+1) // one read to the end
	}
	body, err := readLimited(resp.Body, buf, c.limit)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %s: %w", c.name, u, err)
	}
	return body, probs, nil
}

// readLimited reads r to its end into buf, growing it, and fails beyond
// limit bytes.
func readLimited(r io.Reader, buf []byte, limit int64) ([]byte, error) {
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			n := min(max(2*cap(buf), 64<<10), int(min(limit+1, 1<<40)))
			if n <= cap(buf) {
				return nil, fmt.Errorf("answer larger than the limit of %d bytes (body_size_limit)", limit)
			}
			nb := make([]byte, len(buf), n)
			copy(nb, buf)
			buf = nb
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, fmt.Errorf("answer larger than the limit of %d bytes (body_size_limit)", limit)
		}
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// statusError describes an error answer, with the server's reason.
func (c *Client) statusError(resp *http.Response, u string) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	reason := ""
	var eb ErrorBody
	if json.Unmarshal(b, &eb) == nil && eb.Error.Reason != "" {
		reason = eb.Error.Reason
	} else if s := strings.TrimSpace(string(b)); s != "" && len(s) < 200 && !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 }) {
		reason = s
	}
	if reason != "" {
		reason = ": " + termtext.Escape(reason) // the other computer's words, shown on this one's terminal
	}
	status := termtext.Escape(resp.Status)
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		return &StatusError{Host: c.name, URL: u, Status: resp.StatusCode,
			Msg: fmt.Sprintf("%s: the server refused the credentials (%s%s) at %s: check bearer_token_file, basic_auth or tls_config of %s in the hosts file",
				c.name, status, reason, u, c.name)}
	case http.StatusForbidden:
		return &StatusError{Host: c.name, URL: u, Status: resp.StatusCode,
			Msg: fmt.Sprintf("%s: the server does not allow this to your credentials (%s%s) at %s", c.name, status, reason, u)}
	}
	return &StatusError{Host: c.name, URL: u, Status: resp.StatusCode,
		Msg: fmt.Sprintf("%s: %s: %s%s", c.name, u, status, reason)}
}

// StatusError is an error answer of a host.
type StatusError struct {
	Host   string
	URL    string
	Status int
	Msg    string
}

func (e *StatusError) Error() string { return e.Msg }

// ErrUnavailable is what the errors of a host that could not be reached
// wrap: no connection (refused, unreachable, name not resolved), a failed
// TLS handshake, or no answer within the host's timeout.
var ErrUnavailable = errors.New("host unavailable")

// unavailableError is a request that reached no answer; it is
// ErrUnavailable and also the transport's error.
type unavailableError struct{ err error }

func (e *unavailableError) Error() string { return e.err.Error() }
func (e *unavailableError) Unwrap() []error {
	return []error{ErrUnavailable, e.err}
}
