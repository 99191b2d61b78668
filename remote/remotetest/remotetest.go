// Package remotetest forwards to internal/remotetest, where the remote
// API's test support now lives, for the tests that still import it by
// this path (cmd/perfc's and pla's). Delete it when they import
// internal/remotetest; nothing else may import it (internal/deps).
package remotetest

import (
	"net/http"
	"testing"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/remotetest"
	"github.com/perfcounters/perfcounters/remote/apiserver"
)

// Server is internal/remotetest's Server.
type Server = remotetest.Server

// FixtureHost is internal/remotetest's FixtureHost.
func FixtureHost(t testing.TB) *host.Host {
	t.Helper()
	return remotetest.FixtureHost(t)
}

// NewHandler is internal/remotetest's NewHandler.
func NewHandler(h *host.Host, opts apiserver.Options) *apiserver.Handler {
	return remotetest.NewHandler(h, opts)
}

// Authenticated is internal/remotetest's Authenticated.
func Authenticated(h http.Handler) http.Handler { return remotetest.Authenticated(h) }

// Serve is internal/remotetest's Serve.
func Serve(t testing.TB, h http.Handler, addr string) *Server {
	t.Helper()
	return remotetest.Serve(t, h, addr)
}
