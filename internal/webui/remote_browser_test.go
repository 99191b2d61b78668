package webui_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/perfcounters/perfcounters/internal/remotetest"
	"github.com/perfcounters/perfcounters/internal/server"
	"github.com/perfcounters/perfcounters/internal/webui"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/remote/apiserver"
)

// TestAddCountersRemote drives the page in chromium against a server
// that reads a remote computer (a second server, as its hosts file
// names it db7): the dialog's computer list has db7; choosing it lists
// db7's objects, counters, instances and explain texts (asked of db7's
// server); a counter of db7 is added as \\db7\Memory\Available Bytes and
// its line gets db7's values.
func TestAddCountersRemote(t *testing.T) {
	ctx := browser(t)
	const farToken = "t0ken-of-db7-for-the-page-test"
	var farObjects, farFormatted atomic.Int64
	far := remotetest.NewHandler(fixtureHost(t), apiserver.Options{ComputerName: "FAR", MinInterval: 100 * time.Millisecond})
	farSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer "+farToken {
			r = r.WithContext(remote.WithRole(r.Context(), remote.RoleMonitor, "near"))
		}
		switch {
		case strings.HasPrefix(r.URL.Path, remote.PathObjects):
			farObjects.Add(1)
		case r.URL.Path == remote.PathFormatted:
			farFormatted.Add(1)
		}
		far.ServeHTTP(w, r)
	}))
	t.Cleanup(farSrv.Close)
	comps := apiserver.NewComputers(&remote.Hosts{Hosts: map[string]*remote.HostConfig{
		"db7": {Name: "db7", URL: farSrv.URL, BearerToken: farToken, Timeout: remote.Duration(5 * time.Second)},
	}})
	t.Cleanup(func() { comps.Close() })
	near := remotetest.NewHandler(fixtureHost(t), apiserver.Options{ComputerName: "NEAR", MinInterval: 100 * time.Millisecond, Computers: comps})
	mux := http.NewServeMux()
	mux.Handle("/v1/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		near.ServeHTTP(w, r.WithContext(remote.WithRole(r.Context(), remote.RoleMonitor, "test")))
	}))
	mux.Handle("/", webui.New())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	p := page{t, ctx}
	wantMem := grouped(fixtureMemAvailable(t))
	p.openWithoutDefault(srv.URL)
	p.wait("the host's name", `document.getElementById('host').textContent === '\\\\NEAR'`)
	p.click("#add")
	p.wait("the dialog's objects", `document.querySelectorAll('#ac-objects option').length > 3`)
	if got := evalJS[[]string](p, `[...document.querySelectorAll('#ac-computer option')].map(o => o.value + '=' + o.textContent)`); strings.Join(got, "|") != `=NEAR (local)|db7=\\db7` {
		t.Fatalf("the dialog's computers: %q, want this one and db7", got)
	}
	if n := farObjects.Load(); n != 0 {
		t.Errorf("db7 asked for its objects %d times before it was chosen", n)
	}
	p.choose("ac-computer", "db7")
	// db7's list is asked of db7's server, shown, and its first object
	// selected, whose details are asked of db7's server too: two requests
	// (the dialog's status line then speaks of that object, so the wait is
	// on the requests and the list, not on the status).
	deadline := time.Now().Add(30 * time.Second)
	for farObjects.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // polling the far server's counter
	}
	if farObjects.Load() < 2 {
		t.Fatalf("db7 chosen, but its server was asked %d times for objects, want its list and its first object", farObjects.Load())
	}
	p.wait("db7's objects", `document.getElementById('ac-computer').value === 'db7' && [...document.querySelectorAll('#ac-objects option')].some(o => o.value === 'Memory') && /instances of|no instances|counters of/.test(document.getElementById('ac-status').textContent)`)
	p.choose("ac-objects", "Processor")
	p.wait("Processor's instances on db7", `[...document.querySelectorAll('#ac-instances option')].some(o => o.value === '_Total')`)
	p.choose("ac-objects", "Memory")
	p.wait("Memory's counters on db7", `[...document.querySelectorAll('#ac-counters option')].some(o => o.value === 'Available Bytes')`)
	p.choose("ac-counters", "Available Bytes")
	p.wait("the explain text from db7", `document.getElementById('ac-description').textContent.length > 40`)
	p.click("#ac-add")
	p.wait("the counter of db7 added", `document.getElementById('ac-status').textContent.includes('\\\\db7\\Memory\\Available Bytes')`)
	p.click("#ac-close")

	path := `\\db7\Memory\Available Bytes`
	if got := evalJS[[]string](p, `perfmon.requests()`); len(got) != 1 || got[0] != path {
		t.Fatalf("paths the page asks for: %q, want %q", got, path)
	}
	p.wait("3 values of db7", `perfmon.series().some(s => s.path === `+js(path)+` && s.values.filter(v => v !== null).length >= 3)`)
	p.wait("the value bar shows db7's value", `document.getElementById('vb-last').textContent === `+js(wantMem))
	p.wait("the legend names db7", `[...document.querySelectorAll('#legend-rows td')].some(td => td.textContent === '\\\\db7')`)
	if farFormatted.Load() < 3 {
		t.Errorf("db7's server answered %d formatted requests, want one per sample", farFormatted.Load())
	}

	// db7 goes down: its line has no data, the page goes on.
	farSrv.Close()
	p.wait("no data from db7", `(() => { const s = perfmon.series().find(s => s.path === `+js(path)+`); return s && s.values[s.values.length - 1] === null })()`)
	p.wait("the status line names db7", `document.getElementById('status').textContent.includes('db7')`)
}

// TestPageThroughServer: the page served by internal/server (as perfc
// serve and perfc perfmon serve it) opens in chromium from the address
// with its key: the key leaves the address bar, the session cookie is
// out of the page's reach (HttpOnly), and the page's GETs and POSTs pass
// with it; a browser without the cookie gets 401.
func TestPageThroughServer(t *testing.T) {
	ctx := browser(t)
	api := remotetest.NewHandler(fixtureHost(t), apiserver.Options{ComputerName: "SERVED", MinInterval: 100 * time.Millisecond})
	s, err := server.New(server.Options{Addr: "127.0.0.1:0", API: api, Page: webui.New(), NoTokenFile: true})
	if err != nil {
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(sctx) }()
	t.Cleanup(func() { stop(); <-done })

	p := page{t, ctx}
	p.do("open the address with its key", chromedp.Navigate(s.URL()+"/?"+server.TokenParam+"="+s.Token()))
	p.wait("the host's name", `document.getElementById('host').textContent === '\\\\SERVED'`)
	if got := evalJS[string](p, `location.href`); got != s.URL()+"/" {
		t.Errorf("address after opening: %q, want %q (the key gone)", got, s.URL()+"/")
	}
	if got := evalJS[string](p, `document.cookie`); got != "" {
		t.Errorf("document.cookie %q: the session cookie must be HttpOnly", got)
	}
	evalJS[bool](p, `perfmon.addPaths(['\\Memory\\Available Bytes']) >= 0`)
	p.wait("values through the cookie", `perfmon.series().some(s => s.values.filter(v => v !== null).length >= 2)`)

	// Another browser context (no cookies of the first), without the key.
	other, cancel := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
	defer cancel()
	q := page{t, other}
	q.do("open the page without the key", chromedp.Navigate(s.URL()+"/"))
	if got := evalJS[string](q, `document.body.textContent`); !strings.Contains(got, "401") && !strings.Contains(got, "authentication required") {
		t.Errorf("the page without credentials: %.200q, want a 401", got)
	}
}
