package server

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/perfcounters/perfcounters/remote"
)

// benchGate is the gate of a server configured with authYAML, in front
// of a handler that does nothing.
func benchGate(b *testing.B) *gate {
	b.Helper()
	cfg, err := ParseConfig("b.yml", []byte(authYAML(&testing.T{})))
	if err != nil {
		b.Fatal(err)
	}
	l := DefaultLimits()
	return &gate{
		auth: &authenticator{cfg: cfg, headerRequired: true, bcryptOK: newVerifiedCache(16),
			checking: make(chan struct{}, l.MaxAuthenticating)},
		next:   http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}),
		limits: l, headers: cfg.headers(), slots: newSlots(l.MaxConcurrent, l.MaxPerIdentity),
		perNet: newClientLimiter(RateLimit{Interval: 1, Burst: 1 << 30}, l.MaxClients),
		perID:  newClientLimiter(RateLimit{Interval: 1, Burst: 1 << 30}, l.MaxClients),
		log:    slog.New(slog.DiscardHandler),
	}
}

// BenchmarkGate is what authentication, limits and the role check cost
// one request, without the network.
func BenchmarkGate(b *testing.B) {
	for _, bc := range []struct {
		name string
		hdr  map[string]string
	}{
		{"bearer", bearer(monitorToken)},
		{"basic-remembered", basicHeader("alice", alicePass)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			g := benchGate(b)
			req := httptest.NewRequest("GET", remote.PathHost, nil)
			for k, v := range bc.hdr {
				req.Header.Set(k, v)
			}
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				g.ServeHTTP(w, req)
				if w.Code != 200 {
					b.Fatalf("status %d", w.Code)
				}
			}
		})
	}
}
