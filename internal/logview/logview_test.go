package logview_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/internal/logview"
	"github.com/perfcounters/perfcounters/remote"
)

const sampleLog = "testdata/SampleLog.blg"

// serve mounts h as perfc perfmon does, every request with the monitor
// role.
func serve(t *testing.T, h *logview.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(remote.WithRole(r.Context(), remote.RoleMonitor, "test")))
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { h.Close() })
	return srv
}

func call(t *testing.T, method, url, ctype string, body []byte, out any) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(buf.Bytes(), out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, url, err, buf.String())
		}
	}
	return resp.StatusCode, buf.String()
}

func upload(t *testing.T, srv *httptest.Server, name string, b []byte) logview.LogInfo {
	t.Helper()
	var info logview.LogInfo
	if st, body := call(t, "POST", srv.URL+logview.Path+"?name="+name, "application/octet-stream", b, &info); st != http.StatusCreated {
		t.Fatalf("upload %s: %d %s", name, st, body)
	}
	return info
}

// worked are the conformance README's worked examples for samples 1 and 2
// of SampleLog.blg ("Worked examples"): the path, the sample (0: the
// first, 1: the second) and the value at the precision printed there.
var worked = []struct {
	path   string
	sample int
	want   float64
	prec   float64
}{
	{`\Processor(_Total)\% Processor Time`, 1, 82.148113, 1e-6},
	{`\Process(Idle)\% Processor Time`, 1, 17.851887, 1e-6},
	{`\Processor(_Total)\Interrupts/sec`, 1, 1228.377778, 1e-6},
	{`\System\System Up Time`, 0, 2002.161, 1e-3},
	{`\LogicalDisk(C:)\% Free Space`, 0, 75.188011, 1e-6},
	{`\LogicalDisk(C:)\% Disk Time`, 1, 31.173144, 1e-6},
	{`\LogicalDisk(C:)\Avg. Disk sec/Transfer`, 1, 0.008179256, 1e-9},
	{`\LogicalDisk(C:)\Avg. Disk Bytes/Transfer`, 1, 38505.761, 1e-3},
	{`\LogicalDisk(_Total)\Avg. Disk Queue Length`, 1, 0.311726, 1e-6},
	{`\Memory\% Committed Bytes In Use`, 0, 37.764457, 1e-6},
}

type valuesAnswer struct {
	First    int      `json:"first"`
	Times    []string `json:"times"`
	Counters []struct {
		Path, Status, Reason string
		Items                []struct {
			Path, Instance string
			Values         []*float64
		}
	}
}

// TestUploadWorkedExamples uploads SampleLog.blg, finds its objects and
// every instance, and asks for the worked examples' counters over
// samples 1..2.
func TestUploadWorkedExamples(t *testing.T) {
	dir := t.TempDir()
	h := logview.New(logview.Options{TempDir: dir})
	srv := serve(t, h)
	b, err := os.ReadFile(sampleLog)
	if err != nil {
		t.Fatal(err)
	}
	info := upload(t, srv, "SampleLog.blg", b)
	if info.Samples != 11 || len(info.Computers) != 1 || info.Computers[0] != "ZACH-PC" || info.Names[0] != "SampleLog.blg" {
		t.Errorf("log info: %+v, want 11 samples of ZACH-PC named SampleLog.blg", info)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the upload left %d entries in the temporary directory", len(left))
	}
	// Uploads are not listed: only their uploader knows their id.
	var list logview.LogList
	call(t, "GET", srv.URL+logview.Path, "", nil, &list)
	if len(list.Logs) != 0 {
		t.Errorf("GET %s lists %d logs, want none (uploads are not listed)", logview.Path, len(list.Logs))
	}

	var objs remote.ObjectList
	if st, body := call(t, "GET", srv.URL+logview.Path+"/"+info.ID+"/objects", "", nil, &objs); st != 200 {
		t.Fatalf("objects: %d %s", st, body)
	}
	var names []string
	for _, o := range objs.Objects {
		names = append(names, o.Name)
	}
	if got := strings.Join(names, ","); got != "LogicalDisk,TCPv4,Memory,Network Interface,PhysicalDisk,Process,Processor,System" {
		t.Errorf("objects: %s", got)
	}
	// Every instance of Process over the log: more than any one sample
	// has (49 to 52), the #n duplicates told apart.
	var proc remote.ObjectEntry
	call(t, "GET", srv.URL+logview.Path+"/"+info.ID+"/objects/Process", "", nil, &proc)
	has := map[string]bool{}
	for _, i := range proc.Instances {
		has[i.Display] = true
	}
	if len(proc.Instances) < 52 || !has["svchost#12"] || !has["Idle"] || !has["_Total"] {
		t.Errorf("Process instances over the log: %d (svchost#12 %v, Idle %v, _Total %v), want at least 52", len(proc.Instances), has["svchost#12"], has["Idle"], has["_Total"])
	}

	var times logview.Times
	call(t, "GET", srv.URL+logview.Path+"/"+info.ID+"/times", "", nil, &times)
	if len(times.Times) != 11 || !times.Times[0].Equal(info.Start) || !times.Times[10].Equal(info.End) || times.Times[1].Sub(times.Times[0]) < 59e9 {
		t.Errorf("times: %v, want 11 from %v to %v, 60 s apart", times.Times, info.Start, info.End)
	}
	// The log was recorded in Eastern daylight time: its first sample's
	// wall clock is its blocks' SystemTime, 15:40:38 (conformance
	// perfdata/README.md), four hours behind UTC.
	if len(times.Offsets) != len(times.Times) {
		t.Fatalf("%d offsets for %d times", len(times.Offsets), len(times.Times))
	}
	for i, off := range times.Offsets {
		if off != -4*3600 {
			t.Errorf("sample %d: offset %d s, want -14400 (EDT)", i+1, off)
		}
	}
	if wall := times.Times[0].Add(time.Duration(times.Offsets[0]) * time.Second).Format("15:04:05"); wall != "15:40:38" {
		t.Errorf("first sample's wall clock %s, want 15:40:38", wall)
	}

	// Samples 1 and 2 by time.
	paths := make([]string, len(worked))
	for i, w := range worked {
		paths[i] = w.path
	}
	req, _ := json.Marshal(map[string]any{"paths": paths, "start": info.Start, "end": info.Start.Add(60e9)})
	var ans valuesAnswer
	if st, body := call(t, "POST", srv.URL+logview.Path+"/"+info.ID+"/values", "application/json", req, &ans); st != 200 {
		t.Fatalf("values: %d %s", st, body)
	}
	if len(ans.Times) != 2 || ans.First != 0 {
		t.Fatalf("values over samples 1..2: %d times from %d, want 2 from 0", len(ans.Times), ans.First)
	}
	for i, w := range worked {
		c := ans.Counters[i]
		if len(c.Items) != 1 {
			t.Errorf("%s: %s %s, %d items", w.path, c.Status, c.Reason, len(c.Items))
			continue
		}
		v := c.Items[0].Values[w.sample]
		if v == nil || math.Abs(*v-w.want) > w.prec/2 {
			t.Errorf("%s at sample %d: %v, want %v", w.path, w.sample+1, fmtp(v), w.want)
		}
		if w.sample == 1 && strings.Contains(w.path, "/sec") && c.Items[0].Values[0] != nil {
			t.Errorf("%s at sample 1: %v, want null (a rate has no value at the log's first sample)", w.path, *c.Items[0].Values[0])
		}
	}
	// From sample 2 on, the rate's first value comes from sample 1.
	req, _ = json.Marshal(map[string]any{"paths": []string{`\Processor(*)\Interrupts/sec`, `\Nothing\x`}, "start": info.Start.Add(30e9)})
	ans = valuesAnswer{}
	call(t, "POST", srv.URL+logview.Path+"/"+info.ID+"/values", "application/json", req, &ans)
	if len(ans.Times) != 10 || ans.First != 1 || len(ans.Counters[0].Items) != 2 {
		t.Fatalf("values from sample 2: %d times from %d, %d items", len(ans.Times), ans.First, len(ans.Counters[0].Items))
	}
	if v := ans.Counters[0].Items[1].Values[0]; ans.Counters[0].Items[1].Instance != "_Total" || v == nil || math.Abs(*v-1228.377778) > 5e-7 {
		t.Errorf("Processor(%s) Interrupts/sec at sample 2: %v, want 1228.377778", ans.Counters[0].Items[1].Instance, fmtp(v))
	}
	if c := ans.Counters[1]; c.Status != "PDH_CSTATUS_NO_OBJECT" || !strings.Contains(c.Reason, "Nothing") {
		t.Errorf("unknown object: %s %s", c.Status, c.Reason)
	}
}

func fmtp(v *float64) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(*v)
}

// TestRefusals: what is over a limit, or not a log, is refused with a
// JSON error naming the file and the limit.
func TestRefusals(t *testing.T) {
	b, err := os.ReadFile(sampleLog)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	h := logview.New(logview.Options{TempDir: dir, MaxUploadBytes: 400 << 10, MaxValues: 100})
	srv := serve(t, h)
	tests := []struct {
		name   string
		method string
		url    string
		body   []byte
		status int
		reason string
	}{
		{"too large", "POST", "?name=big.blg", b, 413, "big.blg: 458752 bytes, more than 409600"},
		{"not a log", "POST", "?name=notes.txt", []byte("hello, world\n"), 422, "notes.txt"},
		{"empty", "POST", "?name=e.blg", nil, 400, "e.blg: empty upload"},
		{"bad name", "POST", "?name=a/b", []byte("x"), 400, "want a file name"},
		{"no log", "GET", "/0123/objects", nil, 404, `no open log "0123"`},
		{"method", "PUT", "", nil, 405, "want GET, POST"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, body := call(t, tt.method, srv.URL+logview.Path+tt.url, "application/octet-stream", tt.body, nil)
			var e remote.ErrorBody
			json.Unmarshal([]byte(body), &e)
			if st != tt.status || !strings.Contains(e.Error.Reason, tt.reason) {
				t.Errorf("%d %s, want %d and a reason with %q", st, body, tt.status, tt.reason)
			}
		})
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("refused uploads left %d entries in the temporary directory", len(left))
	}
	// MaxValues: 11 samples of Process(*) is well over 100 values.
	h2 := logview.New(logview.Options{MaxValues: 100})
	info, err := h2.Open(context.Background(), []string{sampleLog})
	if err != nil {
		t.Fatal(err)
	}
	srv2 := serve(t, h2)
	var list logview.LogList
	call(t, "GET", srv2.URL+logview.Path, "", nil, &list)
	if len(list.Logs) != 1 || list.Logs[0].ID != info.ID || list.Logs[0].Names[0] != sampleLog {
		t.Errorf("GET %s: %+v, want the log opened by the server", logview.Path, list)
	}
	st, body := call(t, "POST", srv2.URL+logview.Path+"/"+info.ID+"/values", "application/json", []byte(`{"paths":["\\Process(*)\\% Processor Time"]}`), nil)
	if st != 413 || !strings.Contains(body, "more than 100 values") {
		t.Errorf("values over the limit: %d %s", st, body)
	}
	st, body = call(t, "DELETE", srv2.URL+logview.Path+"/"+info.ID, "", nil, nil)
	if st != 403 {
		t.Errorf("DELETE of a log the server opened: %d %s, want 403", st, body)
	}
	// Without a role (a server that forgot authentication): nothing.
	raw := httptest.NewServer(h2)
	defer raw.Close()
	if st, _ := call(t, "GET", raw.URL+logview.Path, "", nil, nil); st != 403 {
		t.Errorf("GET without a role: %d, want 403", st)
	}
}

// TestOpenErrors: a log that does not open says which file and why.
func TestOpenErrors(t *testing.T) {
	h := logview.New(logview.Options{})
	defer h.Close()
	missing := filepath.Join(t.TempDir(), "missing.blg")
	if _, err := h.Open(context.Background(), []string{missing}); err == nil || !strings.Contains(err.Error(), "missing.blg") {
		t.Errorf("opening a missing log: %v, want an error naming it", err)
	}
}

func TestDecodeValuesRequest(t *testing.T) {
	long := `\a\` + strings.Repeat("x", remote.MaxPathLength)
	many, _ := json.Marshal(map[string]any{"paths": make([]string, remote.MaxPaths+1)})
	tests := []struct{ body, err string }{
		{`{"paths":["\\Memory\\Available Bytes"]}`, ""},
		{`{"paths":["\\P(*)\\*"],"start":"2007-08-14T15:40:38Z","end":"2007-08-14T15:50:00Z"}`, ""},
		{`{"paths":[]}`, "paths: none given"},
		{`{}`, "paths: none given"},
		{`{"paths":["\\a\\b"],"x":1}`, "unknown field"},
		{`{"paths":["\\a\\b"]} {}`, "more after"},
		{`{"paths":["Memory"]}`, "paths[0]"},
		{`{"paths":["` + strings.ReplaceAll(long, `\`, `\\`) + `"]}`, "paths[0]: 2051 bytes"},
		{string(many), "paths: 1001"},
		{`{"paths":["\\a\\b"],"start":"2007-08-14T15:50:00Z","end":"2007-08-14T15:40:00Z"}`, "is after end"},
		{`{"paths":["\\a\\b"],"start":"yesterday"}`, "not the JSON"},
		{`[1]`, "not the JSON"},
	}
	for _, tt := range tests {
		_, err := logview.DecodeValuesRequest(strings.NewReader(tt.body))
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%.60s: %v", tt.body, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%.60s: %v, want an error with %q", tt.body, err, tt.err)
		}
	}
}

func FuzzDecodeValuesRequest(f *testing.F) {
	f.Add([]byte(`{"paths":["\\Memory\\Available Bytes"]}`))
	f.Add([]byte(`{"paths":["\\P(*)\\*"],"start":"2007-08-14T15:40:38Z","end":"2007-08-14T15:50:00Z"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		req, err := logview.DecodeValuesRequest(bytes.NewReader(b))
		if err != nil {
			return
		}
		if len(req.Paths) == 0 || len(req.Paths) > remote.MaxPaths {
			t.Fatalf("accepted %d paths", len(req.Paths))
		}
		if req.Start != nil && req.End != nil && req.Start.After(*req.End) {
			t.Fatal("accepted start after end")
		}
	})
}

// TestUploadRole: a server that asks the log role for uploads (perfc
// serve) refuses a monitor's upload and takes a log's; reading needs
// monitor only.
func TestUploadRole(t *testing.T) {
	b, err := os.ReadFile(sampleLog)
	if err != nil {
		t.Fatal(err)
	}
	h := logview.New(logview.Options{TempDir: t.TempDir(), UploadRole: remote.RoleLog})
	t.Cleanup(func() { h.Close() })
	as := func(role remote.Role) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r.WithContext(remote.WithRole(r.Context(), role, "test")))
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	monitor, logger := as(remote.RoleMonitor), as(remote.RoleLog)
	if st, body := call(t, "POST", monitor.URL+logview.Path+"?name=SampleLog.blg", "application/octet-stream", b, nil); st != http.StatusForbidden || !strings.Contains(body, "needs the log role") {
		t.Errorf("a monitor's upload: %d %s, want 403 naming the log role", st, body)
	}
	var info logview.LogInfo
	if st, body := call(t, "POST", logger.URL+logview.Path+"?name=SampleLog.blg", "application/octet-stream", b, &info); st != http.StatusCreated {
		t.Fatalf("a log role's upload: %d %s, want 201", st, body)
	}
	var times logview.Times
	if st, body := call(t, "GET", monitor.URL+logview.Path+"/"+info.ID+"/times", "", nil, &times); st != http.StatusOK || len(times.Times) != 11 {
		t.Errorf("a monitor reading the uploaded log: %d %s", st, body)
	}
}

// TestUploadCodePage: a text log in a Russian Windows' code page uploads
// with its names intact: guessed, with a note naming the log and the code
// page, or read in the ?codepage= named, in a Windows admin's spelling;
// an unknown code page is refused. Its Cyrillic paths answer values.
func TestUploadCodePage(t *testing.T) {
	b, err := os.ReadFile("../../perflog/pdhcsv/testdata/codepage/ru-cp1251.csv")
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, logview.New(logview.Options{TempDir: t.TempDir()}))
	guessed := upload(t, srv, "ru.csv", b)
	if len(guessed.Notes) != 1 || !strings.HasPrefix(guessed.Notes[0], "ru.csv: no byte-order mark and not UTF-8: read as code page 1251 (windows-1251, Cyrillic)") {
		t.Errorf("notes %q", guessed.Notes)
	}
	named := upload(t, srv, "ru.csv&codepage=windows-1251", b)
	if len(named.Notes) != 0 || named.Computers[0] != `\\ПК` && named.Computers[0] != "ПК" {
		t.Errorf("named 1251: notes %q, computers %q", named.Notes, named.Computers)
	}
	var objs remote.ObjectList
	if st, body := call(t, "GET", srv.URL+logview.Path+"/"+named.ID+"/objects", "", nil, &objs); st != 200 || !strings.Contains(body, "Процессор") || !strings.Contains(body, "загруженности процессора") {
		t.Errorf("objects: %d %s", st, body)
	}
	var vals valuesAnswer
	st, body := call(t, "POST", srv.URL+logview.Path+"/"+named.ID+"/values", "application/json", []byte(`{"paths":["\\Процессор(*)\\% загруженности процессора"]}`), &vals)
	if st != 200 || len(vals.Counters) != 1 || len(vals.Counters[0].Items) != 1 || *vals.Counters[0].Items[0].Values[0] != 1.5 {
		t.Errorf("values: %d %s", st, body)
	}
	st, body = call(t, "POST", srv.URL+logview.Path+"?name=ru.csv&codepage=klingon", "application/octet-stream", b, nil)
	if st != 400 || !strings.Contains(body, `parameter codepage=\"klingon\": unknown code page`) {
		t.Errorf("codepage=klingon: %d %s", st, body)
	}
	// The server's code page for the logs it opens.
	h := logview.New(logview.Options{CodePage: 1251})
	defer h.Close()
	info, err := h.Open(t.Context(), []string{"../../perflog/pdhcsv/testdata/codepage/ru-cp1251.csv"})
	if err != nil || len(info.Notes) != 0 {
		t.Errorf("Options.CodePage 1251: %v, notes %q", err, info.Notes)
	}
}
