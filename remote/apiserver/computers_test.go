package apiserver_test

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/internal/remotetest"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/remote/apiserver"
)

// decode decodes a 200 answer's JSON into v.
func decode(t *testing.T, w *httptest.ResponseRecorder, v any) {
	t.Helper()
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	if err := json.Unmarshal(w.Body.Bytes(), v); err != nil {
		t.Fatalf("%s: %v", w.Body, err)
	}
}

// closedURL is the address of a port nothing listens on.
func closedURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// TestComputers: a server reads the remote computers of its hosts file
// for its callers: /v1/host lists them, /v1/objects?computer= lists a
// computer's objects and instances as that computer's server does, and
// /v1/formatted answers \\NAME paths with that computer's values beside
// this computer's; a computer that is down costs only its own paths
// (PDH_NO_DATA); a name not in the hosts file is refused.
func TestComputers(t *testing.T) {
	farHandler := remotetest.NewHandler(remotetest.FixtureHost(t), apiserver.Options{ComputerName: "far"})
	far := remotetest.Serve(t, remotetest.Authenticated(farHandler), "")
	down := &remote.HostConfig{Name: "down", URL: closedURL(t), BearerToken: remotetest.Token}
	hosts := &remote.Hosts{Hosts: map[string]*remote.HostConfig{"db7": far.Config("db7"), "down": down}}
	comps := apiserver.NewComputers(hosts)
	defer comps.Close()
	near := remotetest.NewHandler(remotetest.FixtureHost(t), apiserver.Options{ComputerName: "near", Computers: comps})

	var info struct {
		Name      string
		Computers []string
	}
	decode(t, serve(t, near, remote.RoleMonitor, "GET", remote.PathHost, nil), &info)
	if info.Name != "near" || !slices.Equal(info.Computers, []string{"db7", "down"}) {
		t.Errorf("/v1/host: %+v, want near with computers db7 and down", info)
	}

	// Objects: what db7's own server answers, under the name db7.
	var direct, via remote.ObjectList
	decode(t, serve(t, farHandler, remote.RoleMonitor, "GET", remote.PathObjects+"?detail=expert", nil), &direct)
	decode(t, serve(t, near, remote.RoleMonitor, "GET", remote.PathObjects+"?detail=expert&computer=DB7", nil), &via)
	if via.Host != "db7" || len(via.Objects) == 0 || len(via.Objects) != len(direct.Objects) {
		t.Fatalf("objects of db7: host %q, %d objects; want db7 and the %d its server lists", via.Host, len(via.Objects), len(direct.Objects))
	}
	for i := range direct.Objects {
		d, v := direct.Objects[i], via.Objects[i]
		if d.Name != v.Name || d.Help != v.Help || len(d.Counters) != len(v.Counters) {
			t.Errorf("object %d: %q (%d counters) via near, %q (%d) from db7", i, v.Name, len(v.Counters), d.Name, len(d.Counters))
		}
	}
	var proc remote.ObjectEntry
	decode(t, serve(t, near, remote.RoleMonitor, "GET", remote.PathObjects+"/Processor?computer=db7", nil), &proc)
	if len(proc.Instances) == 0 {
		t.Fatal("Processor of db7: no instances")
	}
	for _, in := range proc.Instances {
		if !strings.HasPrefix(in.Path, `\\db7\Processor(`) {
			t.Errorf("instance path %q, want it on \\\\db7", in.Path)
		}
	}
	for target, want := range map[string]int{
		remote.PathObjects + "?computer=nowhere":           404,
		remote.PathObjects + "/Processor?computer=nowhere": 404,
		remote.PathObjects + "/NoSuchObject?computer=db7":  404,
		remote.PathObjects + "?computer=down":              502,
	} {
		w := serve(t, near, remote.RoleMonitor, "GET", target, nil)
		if w.Code != want {
			t.Errorf("GET %s: %d, want %d: %s", target, w.Code, want, w.Body)
			continue
		}
		if e := errorOf(t, w); want == 404 && strings.Contains(target, "nowhere") && !strings.Contains(e.Reason, "db7, down") {
			t.Errorf("GET %s: reason %q, want the computers there are", target, e.Reason)
		}
	}
	if w := serve(t, near, remote.RoleNone, "GET", remote.PathObjects+"?computer=db7", nil); w.Code != 401 {
		t.Errorf("objects of db7 without a role: %d, want 401", w.Code)
	}

	// Formatted values across computers, in the request's order.
	paths := []string{`\Memory\Available Bytes`, `\\db7\Memory\Available Bytes`, `\\down\Memory\Available Bytes`,
		`\\db7\Processor(*)\% Processor Time`, `\\nowhere\Memory\Available Bytes`, `\\near\Memory\Available Bytes`}
	body, _ := json.Marshal(remote.FormattedRequest{Paths: paths})
	var ans remote.FormattedAnswer
	decode(t, serve(t, near, remote.RoleMonitor, "POST", remote.PathFormatted, strings.NewReader(string(body))), &ans)
	var want remote.FormattedAnswer
	decode(t, serve(t, farHandler, remote.RoleMonitor, "GET", remote.PathFormatted+`?path=\Memory\Available%20Bytes`, nil), &want)
	if len(ans.Counters) != len(paths) {
		t.Fatalf("answer with %d counters, want %d", len(ans.Counters), len(paths))
	}
	for i, c := range ans.Counters {
		if c.Path != paths[i] {
			t.Errorf("counter %d: path %q, want %q", i, c.Path, paths[i])
		}
	}
	valid := calc.ValidData.String()
	if c := ans.Counters[0]; c.Status != valid || len(c.Items) != 1 || c.Items[0].Value == nil {
		t.Errorf("local counter: %+v", c)
	}
	if c := ans.Counters[1]; c.Status != valid || len(c.Items) != 1 || c.Items[0].Path != `\\db7\Memory\Available Bytes` ||
		c.Items[0].Value == nil || *c.Items[0].Value != *want.Counters[0].Items[0].Value {
		t.Errorf("db7's counter: %+v, want %v as db7's server answers it", c, *want.Counters[0].Items[0].Value)
	}
	if c := ans.Counters[2]; c.Status != calc.NoData.String() || len(c.Items) != 0 || !strings.Contains(c.Reason, "down") {
		t.Errorf("counter of the computer that is down: %+v, want PDH_NO_DATA naming it", c)
	}
	if c := ans.Counters[3]; c.Status != valid || len(c.Items) == 0 || !strings.HasPrefix(c.Items[0].Path, `\\db7\Processor(`) {
		t.Errorf("db7's wildcard: %+v", c)
	}
	if c := ans.Counters[4]; c.Status == valid {
		t.Errorf("a computer not in the hosts file: %+v, want it refused", c)
	}
	if c := ans.Counters[5]; c.Status != valid || c.Items[0].Path != paths[5] || *c.Items[0].Value != *ans.Counters[0].Items[0].Value {
		t.Errorf(`\\near (this computer by its name): %+v`, c)
	}
}

// TestComputerDownNoStall: a computer that does not answer costs a
// request its timeout once, then nothing while it waits out its backoff
// (it is not asked), and is asked again after it.
func TestComputerDownNoStall(t *testing.T) {
	var asked atomic.Int32
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hang.Close()
	defer close(release) // before Close, which waits for the handlers
	cfg := &remote.HostConfig{Name: "slow", URL: hang.URL, BearerToken: remotetest.Token, Timeout: remote.Duration(100 * time.Millisecond)}
	comps := apiserver.NewComputers(&remote.Hosts{Hosts: map[string]*remote.HostConfig{"slow": cfg}})
	now := time.Date(2026, 11, 24, 5, 0, 0, 0, time.UTC)
	apiserver.SetComputersClock(comps, func() time.Time { return now })
	near := remotetest.NewHandler(remotetest.FixtureHost(t), apiserver.Options{ComputerName: "near", Computers: comps})
	body := `{"paths":["\\Memory\\Available Bytes","\\\\slow\\Memory\\Available Bytes"]}`
	for k, step := range []struct {
		advance time.Duration
		asked   int32
	}{{0, 1}, {0, 1}, {500 * time.Millisecond, 1}, {600 * time.Millisecond, 2}, {time.Second, 2}, {time.Second, 3}} {
		now = now.Add(step.advance)
		var ans remote.FormattedAnswer
		decode(t, serve(t, near, remote.RoleMonitor, "POST", remote.PathFormatted, strings.NewReader(body)), &ans)
		if ans.Counters[0].Status != calc.ValidData.String() || ans.Counters[1].Status != calc.NoData.String() {
			t.Errorf("request %d: statuses %s, %s; want the local value and no data of slow", k, ans.Counters[0].Status, ans.Counters[1].Status)
		}
		if got := asked.Load(); got != step.asked {
			t.Errorf("request %d: slow asked %d times, want %d (backoff 1 s, then 2 s)", k, got, step.asked)
		}
	}
}
