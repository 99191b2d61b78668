package webui_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/logview"
	"github.com/perfcounters/perfcounters/internal/remotetest"
	"github.com/perfcounters/perfcounters/internal/tool/logman"
	"github.com/perfcounters/perfcounters/internal/webui"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/pla"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/remote/apiserver"
)

// serviceRunner is logman's Runner over a collector service in this
// process (pla.Service) reading the fixture host: the sets the page
// starts record for real, into their logs.
type serviceRunner struct{ s *pla.Service }

func (r serviceRunner) Status(dir string, set *collectorset.Set) (bool, string) {
	if r.s.Running(dir, set.Name) {
		return true, "collecting in the test's service"
	}
	return false, ""
}

func (r serviceRunner) Start(_ context.Context, dir string, set *collectorset.Set) error {
	return r.s.Start(dir, set, time.Time{})
}

func (r serviceRunner) Stop(_ context.Context, dir string, set *collectorset.Set) error {
	done, _ := r.s.Done(dir, set.Name)
	if err := r.s.Stop(dir, set.Name, "stopped from the page"); err != nil {
		return err
	}
	if done != nil {
		<-done
	}
	return nil
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// setsUser is one serving user's collector sets, as perfc perfmon and
// perfc serve give the API (logman.RemoteSets), over state directories
// of the test's: its own, and the system's that every user shares.
func setsUser(t *testing.T, h *host.Host, stateDir, systemDir, logDir string) logman.RemoteSets {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	svc := pla.NewService(ctx, pla.Options{NewSource: func() (pdh.Source, io.Closer, error) { return h.Source(), nopCloser{}, nil }})
	t.Cleanup(func() { svc.StopAll("test ended"); cancel(); svc.Wait() })
	return logman.RemoteSets{Options: logman.Options{
		UserDir: stateDir, SystemDir: systemDir, User: "tester",
		Runner:      serviceRunner{svc},
		DefaultRoot: func(name string) string { return filepath.Join(logDir, name) },
		Stdout:      io.Discard,
	}}
}

// serveSets mounts the page, the API with sets and /v1/logs, every
// request with role.
func serveSets(t *testing.T, h *host.Host, sets remote.Sets, role remote.Role) *httptest.Server {
	t.Helper()
	api := remotetest.NewHandler(h, apiserver.Options{ComputerName: "FIXTURE", MinInterval: 100 * time.Millisecond, Sets: sets})
	logs := logview.New(logview.Options{})
	t.Cleanup(func() { logs.Close() })
	with := func(hd http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hd.ServeHTTP(w, r.WithContext(remote.WithRole(r.Context(), role, "tester")))
		})
	}
	mux := http.NewServeMux()
	mux.Handle(logview.Path, with(logs))
	mux.Handle(logview.Path+"/", with(logs))
	mux.Handle("/v1/", with(api))
	mux.Handle("/", webui.New())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// dirs makes a user's state directory, a system state directory and a
// log directory, private as state wants them.
func dirs(t *testing.T) (state, system, logs string) {
	t.Helper()
	base := t.TempDir()
	for _, d := range []string{"state", "system", "logs"} {
		if err := os.Mkdir(filepath.Join(base, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(base, "state"), filepath.Join(base, "system"), filepath.Join(base, "logs")
}

// call asks the API as the test's client: the status and the body.
func call(t *testing.T, srv *httptest.Server, method, path, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, srv.URL+path, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestSetsAPI: the API creates, lists, changes, starts, stops and deletes
// the serving user's sets through logman (its checks and messages), lists
// a set's logs and hands one out; another user's sets are not listed and
// cannot be reached; the monitor role sees and may not change (403).
func TestSetsAPI(t *testing.T) {
	h := fixtureHost(t)
	st, sys, logDir := dirs(t)
	alice := setsUser(t, h, st, sys, logDir)
	bobState, _, bobLogs := dirs(t)
	bob := setsUser(t, h, bobState, sys, bobLogs)
	srv := serveSets(t, h, alice, remote.RoleLog)
	bobSrv := serveSets(t, h, bob, remote.RoleLog)
	ro := serveSets(t, h, alice, remote.RoleMonitor)

	if code, body := call(t, srv, "POST", "/v1/sets", `{"name":"web","counters":["\\Memory\\Available Bytes"],"interval":"1","format":"bin"}`); code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	if code, body := call(t, srv, "POST", "/v1/sets", `{"name":"web","counters":["\\Memory\\Available Bytes"]}`); code != 409 || !strings.Contains(body, "set_exists") {
		t.Errorf("create again: %d %s", code, body)
	}
	if code, body := call(t, srv, "POST", "/v1/sets", `{"name":"bad","counters":["\\Memory\\Available Bytes"],"interval":"soon"}`); code != 400 || !strings.Contains(body, "bad_set") {
		t.Errorf("create with -si soon: %d %s", code, body)
	}
	if code, body := call(t, srv, "POST", "/v1/sets", `{"name":"hot","type":"Alert","thresholds":["\\Memory\\Available Bytes<1"],"interval":"1"}`); code != 201 {
		t.Fatalf("create alert: %d %s", code, body)
	}
	if code, body := call(t, srv, "PATCH", "/v1/sets/hot", `{"thresholds":["\\Memory\\Available Bytes>1"]}`); code != 200 {
		t.Errorf("change the threshold: %d %s", code, body)
	}
	if code, body := call(t, srv, "PATCH", "/v1/sets/hot", `{"thresholds":["\\Memory\\Available Bytes=1"]}`); code != 400 {
		t.Errorf("a threshold of no comparison: %d %s", code, body)
	}
	if code, body := call(t, srv, "PATCH", "/v1/sets/web", `{"runFor":"1:00:00","begin":"11/23/2030 8:00:00AM","repeat":true}`); code != 200 {
		t.Errorf("schedule and run time: %d %s", code, body)
	}
	var list remote.SetList
	_, body := call(t, srv, "GET", "/v1/sets", "")
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Sets) != 2 {
		t.Fatalf("sets %s", body)
	}
	web, hot := list.Sets[0], list.Sets[1]
	if web.Name == "hot" {
		web, hot = hot, web
	}
	if d := web.Definition; d == nil || d.Counters == nil || (*d.Counters)[0] != `\Memory\Available Bytes` || *d.RunFor != "01:00:00" || d.Begin == nil || !*d.Repeat || *d.Interval != "1" {
		t.Errorf("web's definition %s", body)
	}
	if web.NextStart.IsZero() {
		t.Errorf("web's next start not given: %s", body)
	}
	if d := hot.Definition; d == nil || d.Thresholds == nil || (*d.Thresholds)[0] != `\Memory\Available Bytes>1` {
		t.Errorf("hot's definition %s", body)
	}

	// Bob's server lists none of Alice's sets and reaches none.
	if _, body := call(t, bobSrv, "GET", "/v1/sets", ""); strings.Contains(body, "web") || strings.Contains(body, "hot") {
		t.Errorf("another user's server lists Alice's sets: %s", body)
	}
	for _, r := range [][2]string{{"POST", "/v1/sets/web/start"}, {"DELETE", "/v1/sets/web"}, {"GET", "/v1/sets/web/runs"}} {
		if code, body := call(t, bobSrv, r[0], r[1], ""); code != 404 {
			t.Errorf("%s %s on another user's server: %d %s", r[0], r[1], code, body)
		}
	}
	if code, body := call(t, bobSrv, "PATCH", "/v1/sets/web", `{"interval":"5"}`); code != 404 {
		t.Errorf("PATCH on another user's server: %d %s", code, body)
	}

	// The monitor role reads and may not change.
	if code, _ := call(t, ro, "GET", "/v1/sets", ""); code != 200 {
		t.Errorf("monitor lists: %d", code)
	}
	for _, r := range [][3]string{{"POST", "/v1/sets/web/start", ""}, {"DELETE", "/v1/sets/web", ""}, {"PATCH", "/v1/sets/web", `{"interval":"5"}`},
		{"POST", "/v1/sets", `{"name":"x","counters":["\\Memory\\Available Bytes"]}`}} {
		if code, body := call(t, ro, r[0], r[1], r[2]); code != 403 {
			t.Errorf("monitor %s %s: %d %s", r[0], r[1], code, body)
		}
	}

	// Start, record, stop; the log is listed and handed out.
	if code, body := call(t, srv, "PATCH", "/v1/sets/web", `{"begin":"","runFor":""}`); code != 200 {
		t.Errorf("manual start and stop: %d %s", code, body)
	}
	if code, body := call(t, srv, "POST", "/v1/sets/web/start", ""); code != 200 {
		t.Fatalf("start: %d %s", code, body)
	}
	if code, body := call(t, srv, "DELETE", "/v1/sets/web", ""); code != 409 || !strings.Contains(body, "set_in_use") {
		t.Errorf("delete a running set: %d %s", code, body)
	}
	time.Sleep(2500 * time.Millisecond)
	_, body = call(t, srv, "GET", "/v1/sets/web/runs", "")
	var runs remote.SetRuns
	if err := json.Unmarshal([]byte(body), &runs); err != nil || len(runs.Runs) != 1 || !runs.Runs[0].Current || runs.Runs[0].Size == 0 {
		t.Fatalf("runs while recording: %s", body)
	}
	if code, body := call(t, srv, "POST", "/v1/sets/web/stop", ""); code != 200 {
		t.Fatalf("stop: %d %s", code, body)
	}
	code, data := call(t, srv, "GET", "/v1/sets/web/runs/"+runs.Runs[0].File, "")
	want, _ := os.ReadFile(filepath.Join(logDir, "web", runs.Runs[0].File))
	if code != 200 || len(want) == 0 || !bytes.Equal([]byte(data), want) {
		t.Errorf("the log handed out: %d, %d bytes, want %d", code, len(data), len(want))
	}
	if code, _ := call(t, srv, "GET", "/v1/sets/web/runs/..%2Fweb.plog", ""); code != 400 && code != 404 {
		t.Errorf("a path out of the set's directory: %d", code)
	}
	if code, _ := call(t, srv, "GET", "/v1/sets/web/runs/other.plog", ""); code != 404 {
		t.Errorf("a file not the set's: %d", code)
	}
	if code, body := call(t, srv, "DELETE", "/v1/sets/web", ""); code != 200 {
		t.Errorf("delete: %d %s", code, body)
	}
}
