package apiserver

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/remote"
)

// FuzzParseFormattedParams: a query string of GET /v1/formatted either
// gives 1..MaxPaths valid counter paths within the limits or an error.
func FuzzParseFormattedParams(f *testing.F) {
	for _, s := range []string{
		`path=%5CMemory%5CAvailable+Bytes`,
		`path=%5CProcessor(*)%5C*&raw=1&nocap100=true`,
		`path=x`, `raw=1`, `path=%5CA%5CB&raw=maybe`, `path=%5CA%5CB&color=red`, `path=%ff`, `path=%5CA(%5CB`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		req, err := ParseFormattedParams(v)
		if err != nil {
			return
		}
		checkRequest(t, req)
	})
}

// FuzzParseFormattedJSON: the body of POST /v1/formatted.
func FuzzParseFormattedJSON(f *testing.F) {
	for _, s := range []string{
		`{"paths":["\\Memory\\Available Bytes"]}`,
		`{"paths":["\\Processor(*)\\*"],"raw":true,"noCap100":true}`,
		`{"paths":[]}`, `{"paths":["x"]}`, `{"paths":["\\A\\B"],"x":1}`, `{"paths":["\\A\\B"]}{}`, `[]`, `null`, ``,
		`{"paths":["\\A\\B"],"paths":["\\C\\D"]}`, `{"paths":["\ud800"]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := ParseFormattedJSON(strings.NewReader(string(body)))
		if err != nil {
			return
		}
		checkRequest(t, req)
	})
}

func checkRequest(t *testing.T, req remote.FormattedRequest) {
	t.Helper()
	if len(req.Paths) == 0 || len(req.Paths) > remote.MaxPaths {
		t.Fatalf("%d paths accepted", len(req.Paths))
	}
	for _, p := range req.Paths {
		if len(p) > remote.MaxPathLength || !utf8.ValidString(p) {
			t.Fatalf("path %q accepted beyond the limits", p)
		}
		if _, err := counterpath.Parse(p); err != nil {
			t.Fatalf("path %q accepted: %v", p, err)
		}
	}
}

// FuzzParseObjectsParams: the parameters of /v1/objects.
func FuzzParseObjectsParams(f *testing.F) {
	for _, s := range []string{"", "detail=novice", "detail=WIZARD&costly=1", "object=Memory", "object=", "detail=x", "costly=2", "x=1", "object=%00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		p, err := parseObjectsParams(v)
		if err != nil {
			return
		}
		if p.detail < 100 || p.detail > 400 || (p.object != "" && checkName(p.object) != nil) {
			t.Fatalf("%q: accepted %+v", raw, p)
		}
	})
}

// FuzzHandler sends any method, path, query and body to the handler over
// a synthetic engine: it never panics, and every answer that is not a
// success is the API's JSON error with the answer's status.
func FuzzHandler(f *testing.F) {
	for _, s := range []struct{ method, target, body string }{
		{"GET", "/v1/query?value=Global", ""},
		{"GET", "/v1/query?value=Counter", ""},
		{"GET", "/v1/formatted?path=%5CWidget(*)%5C*&raw=1", ""},
		{"POST", "/v1/formatted", `{"paths":["\\Widget(a#1)\\Widget Level","\\Gadget\\*"]}`},
		{"GET", "/v1/objects?costly=1&detail=expert", ""},
		{"GET", "/v1/objects/Widget", ""},
		{"POST", "/v1/sets/x/start", ""},
		{"GET", "/v1/host", ""},
		{"PATCH", "/v1/../etc/passwd", "x"},
	} {
		f.Add(s.method, s.target, s.body)
	}
	// One handler for every input, as a server has: state left by one
	// request must not break the next.
	h := newSyntheticHandler(f, Options{MinInterval: time.Millisecond})
	f.Fuzz(func(t *testing.T, method, target, body string) {
		u, err := url.ParseRequestURI(target)
		if err != nil || method == "" || strings.ContainsAny(method, " \t\r\n") {
			return
		}
		r := httptest.NewRequest("GET", "/", strings.NewReader(body))
		r.Method = method
		r.URL = u
		r = r.WithContext(remote.WithRole(r.Context(), remote.RoleLog, "fuzz"))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code < 400 {
			return
		}
		var eb remote.ErrorBody
		if err := json.Unmarshal(w.Body.Bytes(), &eb); err != nil || eb.Error.Status != w.Code || eb.Error.Reason == "" {
			t.Fatalf("%s %s: %d with body %q", method, target, w.Code, w.Body)
		}
		if w.Code >= 500 && w.Code != http.StatusNotImplemented {
			t.Fatalf("%s %s: server error %d: %s", method, target, w.Code, w.Body)
		}
	})
}
