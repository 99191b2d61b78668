package apiserver_test

import (
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/perfcounters/perfcounters/internal/remotetest"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/remote/apiserver"
)

// BenchmarkFormattedShared is one formatted request answered from the
// shared samples (no collection: the interval is long), over the real
// host on the fixture tree: the cost one more polling browser page adds.
func BenchmarkFormattedShared(b *testing.B) {
	root := remotetest.FixtureHost(b)
	hd := remotetest.NewHandler(root, apiserver.Options{MinInterval: 1 << 62})
	target := remote.PathFormatted + "?" + url.Values{"path": {`\Processor(*)\*`, `\Memory\*`}}.Encode()
	do := func() {
		r := httptest.NewRequest("GET", target, nil)
		r = r.WithContext(remote.WithRole(r.Context(), remote.RoleMonitor, "bench"))
		w := httptest.NewRecorder()
		hd.ServeHTTP(w, r)
		if w.Code != 200 {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
	do()
	b.ReportAllocs()
	for b.Loop() {
		do()
	}
}

// BenchmarkQueryGlobal is /v1/query?value=Global over the same host: the
// engine's collection plus the handler's cost.
func BenchmarkQueryGlobal(b *testing.B) {
	hd := remotetest.NewHandler(remotetest.FixtureHost(b), apiserver.Options{})
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest("GET", remote.PathQuery+"?value=Global", nil)
		r = r.WithContext(remote.WithRole(r.Context(), remote.RoleMonitor, "bench"))
		w := httptest.NewRecorder()
		hd.ServeHTTP(w, r)
		if w.Code != 200 {
			b.Fatalf("%d", w.Code)
		}
	}
}
