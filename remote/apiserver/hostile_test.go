package apiserver_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/internal/hostile"
	"github.com/perfcounters/perfcounters/internal/remotetest"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/remote/apiserver"
)

// Hostile requests (issue 28: no request costs more than time and memory
// linear in its size, remote/API.md "Common rules"), growing 1x..8x up to
// the API's limits, answered by the handler over the fixture host as
// perfc serve builds it. The cost is per request byte: the body of a
// POST, the query string of a GET.

// hostileRequest is one hostile request of size n: its method, target
// and body, and the status the handler must answer.
type hostileRequest struct {
	name  string
	base  int
	make  func(n int) (method, target, body string)
	code  int
	check func(t *testing.T, n int, w *httptest.ResponseRecorder)
}

// expanding is a path that expands to 39 values on the fixture host (13
// counters of its 3 interfaces; lo, a loopback, is not one): 1,000 of them
// (the most a request may hold) are 39,000, within the
// 100,000 values of an answer.
const expanding = `\Network Interface(*)\*`

// formattedBody is a POST /v1/formatted body of the paths.
func formattedBody(paths []string) string {
	b, _ := json.Marshal(remote.FormattedRequest{Paths: paths, Raw: true})
	return string(b)
}

// glob is a path of about n bytes whose instance pattern alternates
// stars and letters ("*a*a...*"), which the glob matches against every
// instance name in time that grows with both.
func glob(n int) string {
	return `\Process(` + strings.Repeat("*a", n/2) + `*)\ID Process`
}

// queryValue is the target of GET /v1/query with a value name of at
// most n bytes: the indexes index(0), index(1), ...
func queryValue(n int, index func(int) int) string {
	var v []byte
	for i := 0; ; i++ {
		next := fmt.Append(nil, index(i))
		if len(v)+1+len(next) > n {
			break
		}
		if len(v) > 0 {
			v = append(v, ' ')
		}
		v = append(v, next...)
	}
	return remote.PathQuery + "?" + url.Values{"value": {string(v)}}.Encode()
}

var hostileRequests = []hostileRequest{
	{"formatted/paths", 125, func(n int) (string, string, string) {
		paths := make([]string, n)
		for i := range paths {
			paths[i] = expanding
		}
		return "POST", remote.PathFormatted, formattedBody(paths)
	}, http.StatusOK, func(t *testing.T, n int, w *httptest.ResponseRecorder) {
		var ans remote.FormattedAnswer
		if err := json.Unmarshal(w.Body.Bytes(), &ans); err != nil {
			t.Fatal(err)
		}
		values := 0
		for _, c := range ans.Counters {
			values += len(c.Items)
		}
		if len(ans.Counters) != n || values != 39*n {
			t.Errorf("%d counters, %d values; want %d, %d", len(ans.Counters), values, n, 39*n)
		}
	}},
	// 2,000-byte patterns: 500 of them fill the 1 MiB body.
	{"formatted/globs", 62, func(n int) (string, string, string) {
		paths := make([]string, n)
		for i := range paths {
			paths[i] = glob(2000)
		}
		return "POST", remote.PathFormatted, formattedBody(paths)
	}, http.StatusOK, nil},
	// Title indexes of the host's objects, repeated up to the 8 KiB of a
	// value name.
	{"query/indexes", 256, func(n int) (string, string, string) {
		return "GET", queryValue(4*n, func(i int) int { return []int{238, 230, 232, 4, 2, 234, 236, 510}[i%8] }), ""
	}, http.StatusOK, nil},
	// Distinct indexes the host has no object for.
	{"query/absent", 256, func(n int) (string, string, string) {
		return "GET", queryValue(4*n, func(i int) int { return 100001 + 2*i }), ""
	}, http.StatusOK, nil},
	// JSON junk up to the 1 MiB limit: one path of escaped characters
	// (decoded, then refused: longer than a path may be); arrays nested
	// as deep as the body allows.
	{"junk/escapes", 128 << 10, func(n int) (string, string, string) {
		return "POST", remote.PathFormatted, `{"paths":["` + strings.Repeat(`\u0041`, (n-16)/6) + `"]}`
	}, http.StatusBadRequest, nil},
	{"junk/nested", 128 << 10, func(n int) (string, string, string) {
		return "POST", remote.PathFormatted, `{"paths":` + strings.Repeat("[", n/2-8) + strings.Repeat("]", n/2-8) + `}`
	}, http.StatusBadRequest, nil},
}

// serveHostile sends one request with the monitor role.
func serveHostile(hd http.Handler, method, target, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	if body != "" {
		r.Header.Set("Content-Type", remote.MediaJSON)
	}
	r = r.WithContext(remote.WithRole(r.Context(), remote.RoleMonitor, "hostile"))
	w := httptest.NewRecorder()
	hd.ServeHTTP(w, r)
	return w
}

// requestBytes is the size of a request as the per-byte cost counts it:
// its body, or for a GET its query string.
func requestBytes(target, body string) int {
	if body != "" {
		return len(body)
	}
	_, q, _ := strings.Cut(target, "?")
	return len(q)
}

// TestHostileRequests: every hostile request of the benchmarks, at its
// smallest and largest size (-short: the smallest), gets the answer it
// must (the values asked for, or the refusal) and stays within the API's
// limits.
func TestHostileRequests(t *testing.T) {
	hd := remotetest.NewHandler(remotetest.FixtureHost(t), apiserver.Options{})
	scales := []int{1, 8}
	if testing.Short() {
		scales = scales[:1]
	}
	for _, h := range hostileRequests {
		for _, s := range scales {
			n := h.base * s
			t.Run(fmt.Sprintf("%s=%d", h.name, n), func(t *testing.T) {
				method, target, body := h.make(n)
				_, query, _ := strings.Cut(target, "?")
				if len(body) > remote.MaxBody || len(query) > remote.MaxQueryString {
					t.Fatalf("a request of %d bytes: past the API's limits", requestBytes(target, body))
				}
				w := serveHostile(hd, method, target, body)
				if w.Code != h.code {
					t.Fatalf("%d %.300s; want %d", w.Code, w.Body, h.code)
				}
				if h.check != nil {
					h.check(t, n, w)
				}
			})
		}
	}
}

// BenchmarkHostileRequests: each hostile request at 1x..8x
// (hostile.Scales); linear cost shows as flat ns/in-byte and B/in-byte
// per request byte.
func BenchmarkHostileRequests(b *testing.B) {
	host := remotetest.FixtureHost(b)
	for _, h := range hostileRequests {
		for _, s := range hostile.Scales {
			n := h.base * s
			b.Run(fmt.Sprintf("%s=%d", h.name, n), func(b *testing.B) {
				// A handler of its own, whose shared sampler collects the
				// objects of this request once (the first request, before
				// the timing) and never again: what is timed is the
				// handler's work on the request, not the host's collection.
				hd := remotetest.NewHandler(host, apiserver.Options{MinInterval: 1 << 62})
				method, target, body := h.make(n)
				serveHostile(hd, method, target, body)
				hostile.Measure(b, requestBytes(target, body), func() {
					if w := serveHostile(hd, method, target, body); w.Code != h.code {
						b.Fatalf("%d %.300s", w.Code, w.Body)
					}
				})
			})
		}
	}
}
