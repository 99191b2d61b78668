package webui_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/perfcounters/perfcounters/internal/remotetest"
	"github.com/perfcounters/perfcounters/internal/webui"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/remote/apiserver"
)

// alertSets is the host's collector sets as GET /v1/sets lists them:
// one alert set whose threshold on \Memory\Available Bytes fires while
// firing is true.
type alertSets struct {
	mu     sync.Mutex
	firing bool
}

func (a *alertSets) List(context.Context) ([]remote.SetEntry, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return []remote.SetEntry{{Name: "low_memory", Running: true, Type: "Alert", Alerts: []remote.AlertEntry{{
		Threshold: `\Memory\Available Bytes<1e15`, Counter: `\Memory\Available Bytes`, Firing: a.firing, Value: 123456, Fired: 2}}}}, nil
}
func (a *alertSets) Start(context.Context, string) error { return remote.ErrNoSet }
func (a *alertSets) Stop(context.Context, string) error  { return remote.ErrNoSet }

func (a *alertSets) set(v bool) {
	a.mu.Lock()
	a.firing = v
	a.mu.Unlock()
}

// TestAlertMarkInBrowser: the legend marks a counter that an alert set of
// the host has tripped, says which alert in the counter's tooltip, and
// takes the mark away once the alert clears; other counters stay
// unmarked.
func TestAlertMarkInBrowser(t *testing.T) {
	ctx := browser(t)
	h := fixtureHost(t)
	sets := &alertSets{firing: true}
	api := remotetest.NewHandler(h, apiserver.Options{ComputerName: "FIXTURE", MinInterval: 100 * time.Millisecond, Sets: sets})
	mux := http.NewServeMux()
	mux.Handle("/v1/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		api.ServeHTTP(w, r.WithContext(remote.WithRole(r.Context(), remote.RoleMonitor, "test")))
	}))
	mux.Handle("/", webui.New())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	p := page{t, ctx}
	p.do("open the page", chromedp.Navigate(srv.URL))
	p.wait("the host's name", `document.getElementById('host').textContent !== ''`)
	evalJS[int](p, `perfmon.addPaths(['\\Memory\\Available Bytes', '\\Memory\\Committed Bytes'])`)
	mem := `document.querySelector('#legend tr[data-path="\\\\Memory\\\\Available Bytes"]')`
	other := `document.querySelector('#legend tr[data-path="\\\\Memory\\\\Committed Bytes"]')`
	p.wait("the tripped counter marked", mem+`?.classList.contains('alert-tripped')`)
	if got := evalJS[string](p, mem+`.querySelector('button.name').title`); got != `alert set low_memory: \Memory\Available Bytes<1e15 fired (value 123,456, 2 times)` {
		t.Errorf("tooltip %q", got)
	}
	if evalJS[bool](p, other+`.classList.contains('alert-tripped')`) {
		t.Error("a counter no alert judges is marked")
	}
	sets.set(false)
	p.wait("the mark gone once the alert cleared", `!`+mem+`.classList.contains('alert-tripped')`)
}
