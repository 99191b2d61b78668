package remote_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/remotetest"
	"github.com/perfcounters/perfcounters/internal/tool/typeperf"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/remote/apiserver"
)

// runTypeperf runs typeperf for two rows over src and returns its output.
func runTypeperf(t *testing.T, src pdh.Source, paths []string) string {
	t.Helper()
	var out, errw bytes.Buffer
	opts := typeperf.Options{Counters: paths, Interval: time.Millisecond, Samples: 2, Format: pdhcsv.CSV, Location: time.UTC}
	if err := typeperf.Run(context.Background(), src, opts, &out, &out, &errw); err != nil {
		t.Fatalf("typeperf %q: %v (%s)", paths, err, errw.String())
	}
	if errw.Len() > 0 {
		t.Fatalf("typeperf %q: %s", paths, errw.String())
	}
	return out.String()
}

// systemPaths are the counters of the system objects (what PCP's 171
// system values cover) and a wildcard over processes. System's time
// counters read the real clock, not the fixture's: they are left out.
var systemPaths = []string{
	`\Processor(*)\*`, `\Memory\*`, `\PhysicalDisk(*)\*`, `\Network Interface(*)\*`,
	`\System\Processes`, `\System\Threads`, `\System\Context Switches/sec`, `\System\Processor Queue Length`,
	`\Process(*)\% Processor Time`, `\Process(*)\ID Process`,
}

// TestTypeperfServedEqualsLocal: typeperf over `\\served` paths (the
// client, over HTTP/2 and TLS, to the real handler over the fixture host)
// prints what typeperf prints locally over the same host, cell for cell,
// the machine name in the header aside. The fixture's clock is fixed, so
// both read the same blocks.
func TestTypeperfServedEqualsLocal(t *testing.T) {
	h := remotetest.FixtureHost(t)
	var notH2 atomic.Int32
	hd := remotetest.Authenticated(remotetest.NewHandler(h, apiserver.Options{}))
	s := remotetest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor != 2 || r.TLS == nil {
			notH2.Add(1)
		}
		hd.ServeHTTP(w, r)
	}), "")
	c, err := remote.Dial(context.Background(), s.Config("served"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	defer func() {
		if n := notH2.Load(); n > 0 {
			t.Errorf("%d requests were not HTTP/2 over TLS", n)
		}
	}()
	local := runTypeperf(t, h.Source(), systemPaths)
	var remotePaths []string
	for _, p := range systemPaths {
		remotePaths = append(remotePaths, `\\served`+p)
	}
	got := runTypeperf(t, c, remotePaths)
	sys := strings.ToUpper(blockSystem(t, h))
	want := strings.ReplaceAll(local, `"\\`+sys+`\`, `"\\served\`)
	if got != want {
		t.Errorf("typeperf over \\\\served differs from local:\n got %.600s\nwant %.600s", got, want)
	}
	if n := strings.Count(strings.SplitN(got, "\n", 3)[1], ","); n < 100 {
		t.Errorf("only %d columns: the system objects were not read", n)
	}

	// The same through a fleet of the local host and the served one.
	f, err := pdh.NewFleet(context.Background(), pdh.Member{Machine: sys, Source: h.Source(), Timeout: time.Minute}, pdh.Member{Machine: "served", Source: c, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	both := runTypeperf(t, f, append(slices.Clone(systemPaths), remotePaths...))
	lines := strings.Split(both, "\n")
	if len(lines) < 3 || strings.Count(lines[2], ",") != 2*strings.Count(strings.Split(local, "\n")[2], ",") {
		t.Errorf("fleet: %d columns, want twice the local %d", strings.Count(lines[2], ","), strings.Count(strings.Split(local, "\n")[2], ","))
	}
}

// blockSystem is the system name of the host's blocks.
func blockSystem(t *testing.T, h *host.Host) string {
	smp, err := h.Source().Sample(context.Background(), []uint32{238})
	if err != nil {
		t.Fatal(err)
	}
	return smp.Blocks[0].Header().SystemName
}

// TestForeignQuery: QueryValue through the client returns the host's own
// block for an index list, byte for byte (what `QueryValue("Foreign
// served 238")` answers), and its title lists.
func TestForeignQuery(t *testing.T) {
	h := remotetest.FixtureHost(t)
	s := remotetest.Serve(t, remotetest.Authenticated(remotetest.NewHandler(h, apiserver.Options{})), "")
	c, err := remote.Open(s.Config("served"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"238", "4 238", "Counter"} {
		got, _, err := c.QueryValue(context.Background(), v)
		if err != nil {
			t.Fatal(err)
		}
		want, err := h.Engine.QueryValue(context.Background(), v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Block) {
			t.Errorf("%s: %d bytes, the host's own answer is %d bytes", v, len(got), len(want.Block))
		}
	}
}

// TestClientRefused: wrong credentials, an untrusted certificate and an
// error answer are errors that name the host and say why.
func TestClientRefused(t *testing.T) {
	h := remotetest.FixtureHost(t)
	s := remotetest.Serve(t, remotetest.Authenticated(remotetest.NewHandler(h, apiserver.Options{})), "")
	for _, tc := range []struct {
		name string
		edit func(*remote.HostConfig)
		want []string
	}{
		{"wrong token", func(c *remote.HostConfig) { c.BearerToken = "wrong" }, []string{"db7: the server refused the credentials", "401", "hosts file"}},
		{"no token", func(c *remote.HostConfig) { c.BearerToken = "" }, []string{"db7: the server refused the credentials"}},
		{"untrusted certificate", func(c *remote.HostConfig) { c.TLS.CAFile = "" }, []string{"db7", "certificate"}},
		{"wrong server name", func(c *remote.HostConfig) { c.TLS.ServerName = "other.example" }, []string{"db7", "certificate"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := s.Config("db7")
			tc.edit(cfg)
			_, err := remote.Dial(context.Background(), cfg)
			if err == nil {
				t.Fatal("connected")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestClientAnswers: answers a server must not give are refused with the
// host's name and the reason: a redirect to another host, a body beyond
// the limit, a media type that is not a block, a block that does not
// parse, a problems header that is not JSON.
func TestClientAnswers(t *testing.T) {
	other := httptest.NewServer(http.NotFoundHandler())
	defer other.Close()
	h := remotetest.FixtureHost(t)
	counter, err := h.Engine.QueryValue(context.Background(), "Counter")
	if err != nil {
		t.Fatal(err)
	}
	help, err := h.Engine.QueryValue(context.Background(), "Help")
	if err != nil {
		t.Fatal(err)
	}
	block, err := h.Engine.QueryValue(context.Background(), "238")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		answer func(w http.ResponseWriter, r *http.Request)
		limit  remote.ByteSize
		want   string
	}{
		{"redirect", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusFound)
		}, 0, "not the host's own address"},
		{"too big", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", remote.MediaBlock)
			w.Write(make([]byte, 5000))
		}, 4096, "limit of 4096"},
		{"json", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte("{}"))
		}, 0, `answered "application/json"`},
		{"not a block", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", remote.MediaBlock)
			w.Write(bytes.Repeat([]byte("PERF"), 100))
		}, 0, "not a valid block"},
		{"bad problems", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", remote.MediaBlock)
			w.Header().Set(remote.HeaderProblems, "[{")
			w.Write(block.Block)
		}, 0, remote.HeaderProblems},
		{"server error", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", remote.MediaJSON)
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"error":{"status":503,"code":"busy","reason":"too many requests at once"}}`))
		}, 0, "too many requests at once"},
		{"server error with escapes", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", remote.MediaJSON)
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"error":{"status":503,"code":"busy","reason":"busy\u001b[2J\u001b]0;owned\u0007\nperfc: all counters are fine\u202e"}}`))
		}, 0, `busy\x1b[2J\x1b]0;owned\x07\nperfc: all counters are fine\u202e`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := remotetest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Query().Get("value") {
				case "Counter":
					w.Header().Set("Content-Type", remote.MediaMultiSZ)
					w.Write(counter.Block)
				case "Help":
					w.Header().Set("Content-Type", remote.MediaMultiSZ)
					w.Write(help.Block)
				default:
					tc.answer(w, r)
				}
			}), "")
			cfg := s.Config("db7")
			cfg.BodySizeLimit = tc.limit
			c, err := remote.Open(cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Sample(context.Background(), []uint32{238})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "db7: ") {
				t.Errorf("error %v, want one starting with the host and saying %q", err, tc.want)
			}
			if err != nil && strings.ContainsAny(err.Error(), "\x1b\x07\n\u202e") {
				t.Errorf("error %q shows the other computer's control characters raw", err)
			}
		})
	}
}

// TestHostKilledAndRestarted: a served host closed mid-run gives its
// columns no data (the local ones go on), and when a server starts again
// on the same address its columns have values again, rates starting
// over.
func TestHostKilledAndRestarted(t *testing.T) {
	h := remotetest.FixtureHost(t)
	hd := remotetest.Authenticated(remotetest.NewHandler(h, apiserver.Options{}))
	s := remotetest.Serve(t, hd, "")
	cfg := s.Config("served")
	cfg.Timeout = remote.Duration(3 * time.Second)
	c, err := remote.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sys := blockSystem(t, h)
	f, err := pdh.NewFleet(context.Background(), pdh.Member{Machine: sys, Source: h.Source(), Timeout: time.Minute},
		pdh.Member{Machine: "served", Source: c, Timeout: 10 * time.Second, Retry: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	q := pdh.OpenQuery(f)
	local, err := q.AddCounter(`\Memory\Available Bytes`)
	if err != nil {
		t.Fatal(err)
	}
	far, err := q.AddCounter(`\\served\Memory\Available Bytes`)
	if err != nil {
		t.Fatal(err)
	}
	read := func(c *pdh.Counter) calc.Value {
		v, err := c.Formatted(calc.FmtDouble)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	addr := s.Srv.Listener.Addr().String()
	for k, st := range []string{"up", "up", "down", "down", "restarted", "up"} {
		switch st {
		case "down":
			s.Srv.Close()
		case "restarted":
			s = remotetest.Serve(t, hd, addr)
		}
		if err := q.Collect(context.Background()); err != nil {
			t.Fatal(err)
		}
		lv, fv := read(local), read(far)
		if !lv.HasValue() {
			t.Errorf("sample %d (%s): local status %v", k, st, lv.Status)
		}
		if st == "down" {
			if fv.Status != calc.NoData {
				t.Errorf("sample %d: served status %v, want NoData", k, fv.Status)
			}
			if !slices.ContainsFunc(q.Problems(), func(p pdh.Problem) bool { return p.Machine == "served" && p.Object == 0 }) {
				t.Errorf("sample %d: problems %v, want one of served", k, q.Problems())
			}
			continue
		}
		if !fv.HasValue() || fv.Double != lv.Double {
			t.Errorf("sample %d (%s): served %v (status %v), want the local %v", k, st, fv.Double, fv.Status, lv.Double)
		}
	}
}

// TestSlowHost: a served host whose handler does not answer costs the
// sample its timeout at most, its columns are NoData, and another served
// host and the local one have their values.
func TestSlowHost(t *testing.T) {
	h := remotetest.FixtureHost(t)
	hd := remotetest.Authenticated(remotetest.NewHandler(h, apiserver.Options{}))
	var slow atomic.Bool
	release := make(chan struct{})
	defer close(release)
	slowHandler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slow.Load() && strings.Contains(r.URL.RawQuery, "value=4") {
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		hd.ServeHTTP(w, r)
	})
	fast := remotetest.Serve(t, hd, "")
	lag := remotetest.Serve(t, slowHandler, "")
	cf, err := remote.Open(fast.Config("fast"))
	if err != nil {
		t.Fatal(err)
	}
	cfgSlow := lag.Config("slow")
	// Generous for a loaded machine: a normal answer must never take it.
	const timeout = 2 * time.Second
	cfgSlow.Timeout = remote.Duration(time.Minute) // the fleet's bound is the one that acts
	cs, err := remote.Open(cfgSlow)
	if err != nil {
		t.Fatal(err)
	}
	sys := blockSystem(t, h)
	f, err := pdh.NewFleet(context.Background(), pdh.Member{Machine: sys, Source: h.Source(), Timeout: time.Minute},
		pdh.Member{Machine: "fast", Source: cf, Timeout: 10 * time.Second}, pdh.Member{Machine: "slow", Source: cs, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	q := pdh.OpenQuery(f)
	var cs3 [3]*pdh.Counter
	for i, p := range []string{`\Memory\Available Bytes`, `\\fast\Memory\Available Bytes`, `\\slow\Memory\Available Bytes`} {
		if cs3[i], err = q.AddCounter(p); err != nil {
			t.Fatal(err)
		}
	}
	slow.Store(true)
	start := time.Now()
	if err := q.Collect(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < timeout || d > timeout+20*time.Second {
		t.Errorf("the sample took %v; want the slow host's timeout %v (and far less than a minute)", d, timeout)
	}
	for i, want := range []calc.Status{calc.ValidData, calc.ValidData, calc.NoData} {
		v, err := cs3[i].Formatted(calc.FmtDouble)
		if err != nil {
			t.Fatal(err)
		}
		if v.Status != want && !(want == calc.ValidData && v.HasValue()) {
			t.Errorf("counter %d: status %v, want %v", i, v.Status, want)
		}
	}
	if !slices.ContainsFunc(q.Problems(), func(p pdh.Problem) bool {
		return p.Machine == "slow" && strings.Contains(p.Reason, "no answer within")
	}) {
		t.Errorf("problems %v, want the slow host's timeout", q.Problems())
	}
	// During its backoff the slow host is not asked: no wait at all.
	start = time.Now()
	if err := q.Collect(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d >= timeout {
		t.Errorf("a sample during the slow host's backoff took %v", d)
	}
}

// TestClientTitlesRefreshed: a block naming an object the client's
// titles do not know makes it fetch the titles again (a provider
// registered on the host since the client connected).
func TestClientTitlesRefreshed(t *testing.T) {
	h := remotetest.FixtureHost(t)
	hd := remotetest.NewHandler(h, apiserver.Options{})
	var hideMemory atomic.Bool
	hideMemory.Store(true)
	s := remotetest.Serve(t, remotetest.Authenticated(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := r.URL.Query().Get("value")
		if hideMemory.Load() && v == "Counter" {
			// The title list without Memory (4): as if it was registered later.
			res, err := h.Engine.QueryValue(r.Context(), "Counter")
			if err != nil {
				t.Error(err)
				return
			}
			w.Header().Set("Content-Type", remote.MediaMultiSZ)
			w.Write(dropTitle(res.Block, "4", "Memory"))
			return
		}
		hd.ServeHTTP(w, r)
	})), "")
	c, err := remote.Dial(context.Background(), s.Config("served"))
	if err != nil {
		t.Fatal(err)
	}
	if n := c.Titles().Name(4); n != "" {
		t.Fatalf("titles name 4 %q before the refresh", n)
	}
	hideMemory.Store(false)
	if _, err := c.Sample(context.Background(), []uint32{4}); err != nil {
		t.Fatal(err)
	}
	if n := c.Titles().Name(4); n != "Memory" {
		t.Errorf("after a block with object 4: titles name it %q, want Memory", n)
	}
}

// dropTitle removes the pair index/name from a Counter MULTI_SZ.
func dropTitle(multi []byte, index, name string) []byte {
	enc := func(s string) []byte {
		var b []byte
		for _, r := range s {
			b = append(b, byte(r), byte(r>>8))
		}
		return append(b, 0, 0)
	}
	pair := append(enc(index), enc(name)...)
	out := bytes.Replace(multi, pair, nil, 1)
	if bytes.Equal(out, multi) {
		panic(errors.New("dropTitle: pair not found"))
	}
	return out
}
