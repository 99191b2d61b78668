package apiserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/engine"
	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/remotetest"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/remote/apiserver"
)

// answer is what a registry answered a value name.
type answer struct {
	Block    []byte
	problems []pdh.Problem
}

// recorder is a Registry that keeps a copy of the last answer of the
// host it wraps, so a test can compare what the handler sent with
// exactly what the engine answered.
type recorder struct {
	*host.Host
	last *answer
}

func (r *recorder) ServeQuery(ctx context.Context, value string) ([]byte, bool, []pdh.Problem, error) {
	data, multi, ps, err := r.Host.ServeQuery(ctx, value)
	if err == nil {
		r.last = &answer{Block: bytes.Clone(data), problems: ps}
	}
	return data, multi, ps, err
}

// serve runs one request through the handler with the given role.
func serve(t *testing.T, hd http.Handler, role remote.Role, method, target string, body io.Reader) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, target, body)
	if role != remote.RoleNone {
		r = r.WithContext(remote.WithRole(r.Context(), role, "tester"))
	}
	w := httptest.NewRecorder()
	hd.ServeHTTP(w, r)
	return w
}

// errorOf decodes an error answer, failing the test when it is not the
// API's error JSON with the answer's status.
func errorOf(t *testing.T, w *httptest.ResponseRecorder) remote.Error {
	t.Helper()
	if ct := w.Header().Get("Content-Type"); ct != remote.MediaJSON {
		t.Fatalf("error answer of type %q: %s", ct, w.Body)
	}
	var eb remote.ErrorBody
	if err := json.Unmarshal(w.Body.Bytes(), &eb); err != nil {
		t.Fatalf("error body %q: %v", w.Body, err)
	}
	if eb.Error.Status != w.Code || eb.Error.Code == "" || eb.Error.Reason == "" {
		t.Fatalf("error body %+v with status %d", eb, w.Code)
	}
	return eb.Error
}

// TestQueryBlock: the answer to each kind of value is the engine's own
// answer to the same query, byte for byte, with the media type of its
// kind.
func TestQueryBlock(t *testing.T) {
	rec := &recorder{Host: remotetest.FixtureHost(t)}
	hd := remotetest.NewHandler(rec.Host, apiserver.Options{Registry: rec})
	for _, tc := range []struct {
		value string
		media string
	}{
		{"Global", remote.MediaBlock},
		{"global", remote.MediaBlock},
		{"Costly", remote.MediaBlock},
		{"238", remote.MediaBlock},
		{"2 4 238", remote.MediaBlock},
		{"999998", remote.MediaBlock}, // no such object: a block without objects
		{"Counter", remote.MediaMultiSZ},
		{"Help 009", remote.MediaMultiSZ},
	} {
		t.Run(tc.value, func(t *testing.T) {
			rec.last = nil
			w := serve(t, hd, remote.RoleMonitor, "GET", remote.PathQuery+"?value="+url.QueryEscape(tc.value), nil)
			if w.Code != http.StatusOK {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			if ct := w.Header().Get("Content-Type"); ct != tc.media {
				t.Errorf("Content-Type %q, want %q", ct, tc.media)
			}
			if cc := w.Header().Get("Cache-Control"); cc != "no-store" {
				t.Errorf("Cache-Control %q", cc)
			}
			want := rec.last
			if want == nil {
				t.Fatal("the handler answered without asking the engine")
			}
			if q, _ := engine.ParseQuery(tc.value); q.Kind == engine.QueryIndexes && len(want.Block) < 64 {
				t.Errorf("index query answered %d bytes", len(want.Block))
			}
			if !bytes.Equal(w.Body.Bytes(), want.Block) {
				t.Errorf("answer of %d bytes differs from the engine's block of %d bytes", w.Body.Len(), len(want.Block))
			}
			ps, err := remote.DecodeProblems(w.Header().Get(remote.HeaderProblems))
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) != len(want.problems) {
				t.Errorf("%d problems in the header, the engine has %d", len(ps), len(want.problems))
			}
		})
	}
}

// TestQueryErrors: every bad value is a 400 naming the parameter.
func TestQueryErrors(t *testing.T) {
	hd := remotetest.NewHandler(remotetest.FixtureHost(t), apiserver.Options{})
	for _, tc := range []struct {
		name, target, want string
	}{
		{"missing", remote.PathQuery, "value"},
		{"empty", remote.PathQuery + "?value=", "value"},
		{"twice", remote.PathQuery + "?value=Global&value=Costly", "more than once"},
		{"foreign", remote.PathQuery + "?value=" + url.QueryEscape("Foreign db7 238"), "Foreign query (host db7)"},
		{"words after global", remote.PathQuery + "?value=" + url.QueryEscape("Global 2"), "unexpected words"},
		{"not an index", remote.PathQuery + "?value=" + url.QueryEscape("2 four"), `"four" is not a title index`},
		{"index too big", remote.PathQuery + "?value=4294967296", "not a title index"},
		{"bad language", remote.PathQuery + "?value=" + url.QueryEscape("Counter ../x"), "language"},
		{"not utf-8", remote.PathQuery + "?value=%ff", "not UTF-8"},
		{"too long", remote.PathQuery + "?value=" + strings.Repeat("2+", remote.MaxValueLength), "more than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := serve(t, hd, remote.RoleMonitor, "GET", tc.target, nil)
			if w.Code != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %s", w.Code, w.Body)
			}
			e := errorOf(t, w)
			if !strings.Contains(e.Reason, tc.want) || !strings.Contains(e.Reason, "value") {
				t.Errorf("reason %q does not say %q about parameter value", e.Reason, tc.want)
			}
		})
	}
}

// fakeSets records what the handler asked of the collector sets.
type fakeSets struct {
	started, stopped []string
}

func (f *fakeSets) List(context.Context) ([]remote.SetEntry, error) {
	return []remote.SetEntry{{Name: "daily", Running: true, Detail: "pid 42"}, {Name: "weekly"}}, nil
}

func (f *fakeSets) Start(_ context.Context, name string) error {
	if name != "daily" && name != "weekly" {
		return fmt.Errorf("set %q: %w", name, remote.ErrNoSet)
	}
	f.started = append(f.started, name)
	return nil
}

func (f *fakeSets) Stop(_ context.Context, name string) error {
	if name != "daily" && name != "weekly" {
		return fmt.Errorf("set %q: %w", name, remote.ErrNoSet)
	}
	f.stopped = append(f.stopped, name)
	return nil
}

// TestRoutes: each route's answer to each role, method and bad request:
// the status and, for errors, the API's error JSON with its code.
func TestRoutes(t *testing.T) {
	sets := &fakeSets{}
	hd := remotetest.NewHandler(remotetest.FixtureHost(t), apiserver.Options{Sets: sets, ComputerName: "FIXTURE", Version: "test"})
	const (
		none    = remote.RoleNone
		monitor = remote.RoleMonitor
		log     = remote.RoleLog
	)
	for _, tc := range []struct {
		role           remote.Role
		method, target string
		body           string
		status         int
		code           string // error code; "" for a success
	}{
		// Authentication and roles.
		{none, "GET", remote.PathQuery + "?value=Global", "", 401, "unauthorized"},
		{none, "GET", remote.PathHost, "", 401, "unauthorized"},
		{none, "GET", "/nowhere", "", 401, "unauthorized"},
		{remote.Role(-1), "GET", remote.PathHost, "", 401, "unauthorized"},
		{monitor, "GET", remote.PathHost, "", 200, ""},
		{monitor, "GET", remote.PathSets, "", 200, ""},
		{monitor, "POST", remote.PathSets + "/daily/start", "", 403, "forbidden"},
		{monitor, "POST", remote.PathSets + "/daily/stop", "", 403, "forbidden"},
		{log, "POST", remote.PathSets + "/daily/start", "", 200, ""},
		{log, "POST", remote.PathSets + "/weekly/stop", "", 200, ""},
		{log, "POST", remote.PathSets + "/nosuch/start", "", 404, "no_set"},
		{log, "POST", remote.PathSets + "/daily/pause", "", 404, "not_found"},
		{log, "POST", remote.PathSets + "/daily", "", 405, "method_not_allowed"},
		{monitor, "PATCH", remote.PathSets + "/daily", `{"interval":"5"}`, 403, "forbidden"},
		{monitor, "DELETE", remote.PathSets + "/daily", "", 403, "forbidden"},
		{monitor, "POST", remote.PathSets, `{"name":"x","counters":["\\Memory\\Available Bytes"]}`, 403, "forbidden"},
		{log, "DELETE", remote.PathSets + "/daily", "", 501, "no_sets"},
		{monitor, "GET", remote.PathSets + "/daily/runs", "", 501, "no_sets"},
		{log, "GET", remote.PathSets + "/daily/start", "", 405, "method_not_allowed"},
		{log, "POST", remote.PathSets, "", 501, "no_sets"},
		{log, "PUT", remote.PathSets, "", 405, "method_not_allowed"},
		{log, "POST", remote.PathSets + "/daily/start?x=1", "", 400, "bad_parameter"},
		// Paths and methods.
		{monitor, "GET", "/", "", 404, "not_found"},
		{monitor, "GET", "/v2/query?value=Global", "", 404, "not_found"},
		{monitor, "GET", remote.PathQuery + "/x", "", 404, "not_found"},
		{monitor, "POST", remote.PathQuery + "?value=Global", "", 405, "method_not_allowed"},
		{monitor, "DELETE", remote.PathObjects, "", 405, "method_not_allowed"},
		{monitor, "PUT", remote.PathFormatted, "", 405, "method_not_allowed"},
		{monitor, "HEAD", remote.PathQuery + "?value=Global", "", 200, ""},
		// Parameters.
		{monitor, "GET", remote.PathQuery + "?value=Global&extra=1", "", 400, "bad_parameter"},
		{monitor, "GET", remote.PathHost + "?x", "", 400, "bad_parameter"},
		{monitor, "GET", remote.PathQuery + "?value=Global;x", "", 400, "bad_query"},
		{monitor, "GET", remote.PathQuery + "?value=" + strings.Repeat("x", remote.MaxQueryString), "", 414, "query_too_long"},
		{monitor, "GET", remote.PathObjects + "?detail=guru", "", 400, "bad_parameter"},
		{monitor, "GET", remote.PathObjects + "?costly=maybe", "", 400, "bad_parameter"},
		{monitor, "GET", remote.PathObjects + "?detail=novice&detail=expert", "", 400, "bad_parameter"},
		{monitor, "GET", remote.PathObjects + "/Memory?object=System", "", 400, "bad_parameter"},
		{monitor, "GET", remote.PathObjects + "/No%20Such%20Object", "", 404, "no_object"},
		{monitor, "GET", remote.PathObjects + "/Memory", "", 200, ""},
		{monitor, "GET", remote.PathObjects + "/4", "", 200, ""},
		{monitor, "GET", remote.PathObjects + "?detail=expert&costly=0", "", 200, ""},
		{monitor, "GET", remote.PathFormatted, "", 400, "bad_parameter"},
		{monitor, "GET", remote.PathFormatted + "?path=" + url.QueryEscape(`\Memory`), "", 400, "bad_parameter"},
		{monitor, "GET", remote.PathFormatted + "?path=" + url.QueryEscape(`\Memory\Available Bytes`) + "&raw=2", "", 400, "bad_parameter"},
		{monitor, "GET", remote.PathFormatted + "?path=" + url.QueryEscape(`\Memory\Available Bytes`) + "&color=red", "", 400, "bad_parameter"},
		{monitor, "GET", remote.PathFormatted + "?path=" + url.QueryEscape(`\Memory\Available Bytes`), "", 200, ""},
		{monitor, "POST", remote.PathFormatted, `{"paths":["\\Memory\\Available Bytes"]}`, 200, ""},
		{monitor, "POST", remote.PathFormatted, `{"paths":["\\Memory\\Available Bytes"],"colour":1}`, 400, "bad_request"},
		{monitor, "POST", remote.PathFormatted, `{"paths":[]}`, 400, "bad_parameter"},
		{monitor, "POST", remote.PathFormatted, `{"paths":["\\Memory\\Available Bytes"]} {}`, 400, "bad_request"},
		{monitor, "POST", remote.PathFormatted, `[1,2]`, 400, "bad_request"},
		{monitor, "POST", remote.PathFormatted, `{"paths":["` + strings.Repeat("x", remote.MaxBody) + `"]}`, 413, "body_too_large"},
		{monitor, "POST", remote.PathFormatted + "?path=x", `{}`, 400, "bad_parameter"},
	} {
		name := fmt.Sprintf("%s %s %s", tc.role, tc.method, tc.target)
		if len(name) > 80 {
			name = name[:80]
		}
		t.Run(name, func(t *testing.T) {
			var body io.Reader
			if tc.body != "" {
				body = strings.NewReader(tc.body)
			}
			w := serve(t, hd, tc.role, tc.method, tc.target, body)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body)
			}
			if tc.code == "" {
				return
			}
			if e := errorOf(t, w); e.Code != tc.code {
				t.Errorf("code %q, want %q (%s)", e.Code, tc.code, e.Reason)
			}
			if tc.status == 401 && w.Header().Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
			if tc.status == 405 && w.Header().Get("Allow") == "" {
				t.Error("405 without Allow")
			}
		})
	}
	if !slices.Equal(sets.started, []string{"daily"}) || !slices.Equal(sets.stopped, []string{"weekly"}) {
		t.Errorf("sets started %q stopped %q; only the log role's requests may act", sets.started, sets.stopped)
	}
}

// TestSetsAbsent: a server without collector sets answers 501.
func TestSetsAbsent(t *testing.T) {
	hd := remotetest.NewHandler(remotetest.FixtureHost(t), apiserver.Options{})
	for _, tc := range []struct{ method, target string }{{"GET", remote.PathSets}, {"POST", remote.PathSets + "/x/start"}} {
		w := serve(t, hd, remote.RoleLog, tc.method, tc.target, nil)
		if w.Code != http.StatusNotImplemented || errorOf(t, w).Code != "no_sets" {
			t.Errorf("%s %s: %d %s", tc.method, tc.target, w.Code, w.Body)
		}
	}
}

// TestLoopbackRole: LoopbackRole is given to requests without a role over
// loopback only; a role the middleware set is kept.
func TestLoopbackRole(t *testing.T) {
	hd := remotetest.NewHandler(remotetest.FixtureHost(t), apiserver.Options{LoopbackRole: remote.RoleMonitor, ComputerName: "X"})
	// Without LoopbackRole, loopback is no credential.
	r := httptest.NewRequest("GET", remote.PathHost, nil)
	r.RemoteAddr = "127.0.0.1:5000"
	w := httptest.NewRecorder()
	remotetest.NewHandler(remotetest.FixtureHost(t), apiserver.Options{}).ServeHTTP(w, r)
	if w.Code != http.StatusUnauthorized {
		t.Errorf("loopback without LoopbackRole: %d, want 401", w.Code)
	}
	for _, tc := range []struct {
		addr string
		role remote.Role
		want int
		who  string
	}{
		{"127.0.0.1:5000", remote.RoleNone, 200, "monitor"},
		{"[::1]:5000", remote.RoleNone, 200, "monitor"},
		{"[::ffff:127.0.0.1]:5000", remote.RoleNone, 200, "monitor"},
		{"192.0.2.7:5000", remote.RoleNone, 401, ""},
		{"[2001:db8::1]:5000", remote.RoleNone, 401, ""},
		{"garbage", remote.RoleNone, 401, ""},
		{"192.0.2.7:5000", remote.RoleLog, 200, "log"},
	} {
		r := httptest.NewRequest("GET", remote.PathHost, nil)
		r.RemoteAddr = tc.addr
		if tc.role != remote.RoleNone {
			r = r.WithContext(remote.WithRole(r.Context(), tc.role, "x"))
		}
		w := httptest.NewRecorder()
		hd.ServeHTTP(w, r)
		if w.Code != tc.want {
			t.Errorf("%s with role %s: %d, want %d", tc.addr, tc.role, w.Code, tc.want)
			continue
		}
		if tc.want == 200 {
			var info struct{ Role string }
			json.Unmarshal(w.Body.Bytes(), &info)
			if info.Role != tc.who {
				t.Errorf("%s: role %q, want %q", tc.addr, info.Role, tc.who)
			}
		}
	}
}

// TestHostInfo: /v1/host says the name, the clock's time and ticks, the
// version and the caller.
func TestHostInfo(t *testing.T) {
	hd := remotetest.NewHandler(remotetest.FixtureHost(t), apiserver.Options{ComputerName: "DB7", Version: "1.2.3", Clock: remotetest.FixedClock{}})
	w := serve(t, hd, remote.RoleLog, "GET", remote.PathHost, nil)
	var got map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	c := remotetest.FixedClock{}
	want := map[string]any{"name": "DB7", "time": c.Wall().Format(time.RFC3339Nano), "perfFreq": float64(c.Freq()),
		"perfTime": float64(c.Ticks()), "version": "1.2.3", "api": "/v1", "role": "log", "who": "tester"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	// Without a configured name, the blocks' system name.
	hd = remotetest.NewHandler(remotetest.FixtureHost(t), apiserver.Options{})
	w = serve(t, hd, remote.RoleMonitor, "GET", remote.PathHost, nil)
	json.Unmarshal(w.Body.Bytes(), &got)
	if got["name"] != host.ComputerName() {
		t.Errorf("name %v, want %s", got["name"], host.ComputerName())
	}
}

// TestFormattedRealHost: a formatted value of the real host over the
// fixture tree is what /proc/meminfo says, read here directly.
func TestFormattedRealHost(t *testing.T) {
	hd := remotetest.NewHandler(remotetest.FixtureHost(t), apiserver.Options{})
	b, err := os.ReadFile(filepath.Join("..", "..", "system", "testdata", "host", "proc", "meminfo"))
	if err != nil {
		t.Fatal(err)
	}
	var kb float64
	for line := range strings.Lines(string(b)) {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "MemAvailable:" {
			kb, _ = strconv.ParseFloat(f[1], 64)
		}
	}
	if kb == 0 {
		t.Fatal("no MemAvailable in the fixture")
	}
	w := serve(t, hd, remote.RoleMonitor, "POST", remote.PathFormatted, strings.NewReader(`{"paths":["\\Memory\\Available Bytes","\\Processor(*)\\% Processor Time"]}`))
	var a remote.FormattedAnswer
	if err := json.Unmarshal(w.Body.Bytes(), &a); err != nil {
		t.Fatalf("%v: %s", err, w.Body)
	}
	if it := a.Counters[0].Items; len(it) != 1 || it[0].Value == nil || *it[0].Value != kb*1024 || it[0].Path != `\Memory\Available Bytes` {
		t.Errorf("Available Bytes %+v, want %v", a.Counters[0], kb*1024)
	}
	cpu := a.Counters[1]
	if len(cpu.Items) < 2 || cpu.Items[len(cpu.Items)-1].Instance != "_Total" {
		t.Fatalf("Processor(*): %+v", cpu)
	}
	for _, it := range cpu.Items {
		if it.Status != "PDH_CSTATUS_NEW_DATA" || it.Value != nil {
			t.Errorf("first sample of %s: %s %v, want new data without a value", it.Path, it.Status, it.Value)
		}
	}
}
