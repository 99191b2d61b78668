package remote_test

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/internal/remotetest"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/remote/apiserver"
)

// plainServer serves h over plain HTTP/1.1 on loopback (perfc serve's
// default configuration) and counts the connections clients open.
type plainServer struct {
	srv   *httptest.Server
	conns atomic.Int32
}

func servePlain(t *testing.T, h http.Handler) *plainServer {
	t.Helper()
	p := &plainServer{}
	p.srv = httptest.NewUnstartedServer(h)
	p.srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			p.conns.Add(1)
		}
	}
	p.srv.Start()
	t.Cleanup(p.srv.Close)
	return p
}

func (p *plainServer) Config(name string) *remote.HostConfig {
	return &remote.HostConfig{Name: name, URL: p.srv.URL, BearerToken: remotetest.Token, Timeout: remote.Duration(5 * time.Second)}
}

// TestPlainClientEqualsTLS: a client of an http:// (loopback) host, which
// reads its answers on its own connection, gets the same samples, byte
// for byte, as a client of the same handler over TLS and HTTP/2 (net/http's
// Transport), keeps one connection for all its requests, and opens a new
// one when the server closes it.
func TestPlainClientEqualsTLS(t *testing.T) {
	h := remotetest.FixtureHost(t)
	hd := remotetest.Authenticated(remotetest.NewHandler(h, apiserver.Options{}))
	var plainReqs atomic.Int32
	ps := servePlain(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// net/http's Transport asks for gzip on its own; the client's
		// own connection does not.
		if r.TLS == nil && r.ProtoMajor == 1 && r.Header.Get("User-Agent") == "perfc" && r.Header.Get("Accept-Encoding") == "" {
			plainReqs.Add(1)
		}
		hd.ServeHTTP(w, r)
	}))
	ts := remotetest.Serve(t, hd, "")
	ctx := context.Background()
	pc, err := remote.Dial(ctx, ps.Config("served"))
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	tc, err := remote.Dial(ctx, ts.Config("served"))
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	// Processor, Memory and Network Interface: the fixture gives them the
	// same values at every sample (System's and PhysicalDisk's time bases
	// follow the real clock).
	objs := []uint32{238, 4, 510}
	for i := range 4 {
		if i == 2 {
			ps.srv.CloseClientConnections() // the server's idle timeout, say
		}
		got, err := pc.Sample(ctx, objs)
		if err != nil {
			t.Fatalf("sample %d over plain HTTP: %v", i, err)
		}
		want, err := tc.Sample(ctx, objs)
		if err != nil {
			t.Fatalf("sample %d over TLS: %v", i, err)
		}
		if !bytes.Equal(got.Blocks[0].Bytes(), want.Blocks[0].Bytes()) {
			t.Fatalf("sample %d: %d bytes over plain HTTP differ from the %d over TLS", i, len(got.Blocks[0].Bytes()), len(want.Blocks[0].Bytes()))
		}
		if len(got.Problems) != len(want.Problems) {
			t.Errorf("sample %d: %d problems over plain HTTP, %d over TLS", i, len(got.Problems), len(want.Problems))
		}
	}
	if n := ps.conns.Load(); n != 2 {
		t.Errorf("%d connections for 4 samples and the titles, want 2 (one before the server closed it, one after)", n)
	}
	if n := plainReqs.Load(); n < 6 { // Counter, Help and 4 samples
		t.Errorf("%d requests came from the client's own HTTP/1.1 connection, want 6", n)
	}
}

// TestPlainClientAnswers: over plain HTTP the client checks answers as it
// does over the Transport: status, media type, size limit, problems
// header, a valid block; a redirect goes through the Transport's checks;
// a server that says Connection: close is asked again on a new
// connection; a refused token names the hosts file.
func TestPlainClientAnswers(t *testing.T) {
	other := httptest.NewServer(http.NotFoundHandler())
	defer other.Close()
	h := remotetest.FixtureHost(t)
	ctx := context.Background()
	counter, err := h.Engine.QueryValue(ctx, "Counter")
	if err != nil {
		t.Fatal(err)
	}
	help, err := h.Engine.QueryValue(ctx, "Help")
	if err != nil {
		t.Fatal(err)
	}
	block, err := h.Engine.QueryValue(ctx, "238")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		answer func(w http.ResponseWriter, r *http.Request)
		limit  remote.ByteSize
		want   string // "" for no error
	}{
		{"redirect elsewhere", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusFound)
		}, 0, "not the host's own address"},
		{"too big", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", remote.MediaBlock)
			w.Write(make([]byte, 5000))
		}, 4096, "limit of 4096"},
		{"too big, chunked", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", remote.MediaBlock)
			w.Write(make([]byte, 3000))
			w.(http.Flusher).Flush()
			w.Write(make([]byte, 3000))
		}, 4096, "limit of 4096"},
		{"json", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte("{}"))
		}, 0, `answered "application/json"`},
		{"not a block", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", remote.MediaBlock)
			w.Write(bytes.Repeat([]byte("PERF"), 100))
		}, 0, "not a valid block"},
		{"bad problems", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", remote.MediaBlock)
			w.Header().Set(remote.HeaderProblems, "[{")
			w.Write(block.Block)
		}, 0, remote.HeaderProblems},
		{"server error", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", remote.MediaJSON)
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"error":{"status":503,"code":"busy","reason":"too many requests at once"}}`))
		}, 0, "too many requests at once"},
		{"unauthorized", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
		}, 0, "check bearer_token_file"},
		{"connection close", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Connection", "close")
			w.Header().Set("Content-Type", remote.MediaBlock)
			w.Write(block.Block)
		}, 0, ""},
		{"chunked block", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", remote.MediaBlock)
			w.Write(block.Block[:100])
			w.(http.Flusher).Flush()
			w.Write(block.Block[100:])
		}, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := servePlain(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "Bearer "+remotetest.Token {
					w.WriteHeader(http.StatusUnauthorized)
					return
				}
				switch r.URL.Query().Get("value") {
				case "Counter":
					w.Header().Set("Content-Type", remote.MediaMultiSZ)
					w.Write(counter.Block)
				case "Help":
					w.Header().Set("Content-Type", remote.MediaMultiSZ)
					w.Write(help.Block)
				default:
					tc.answer(w, r)
				}
			}))
			cfg := s.Config("db7")
			cfg.BodySizeLimit = tc.limit
			c, err := remote.Open(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			for range 2 {
				_, err = c.Sample(ctx, []uint32{238})
				if tc.want == "" {
					if err != nil {
						t.Fatalf("error %v, want none", err)
					}
					continue
				}
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "db7: ") {
					t.Errorf("error %v, want one starting with the host and saying %q", err, tc.want)
				}
			}
		})
	}
}

// TestPlainClientTimeout: a host that does not answer costs a plain-HTTP
// client its timeout and an error that says so, and the client's next
// request works on a new connection.
func TestPlainClientTimeout(t *testing.T) {
	h := remotetest.FixtureHost(t)
	hd := remotetest.Authenticated(remotetest.NewHandler(h, apiserver.Options{}))
	var hang atomic.Bool
	arrived := make(chan struct{}, 1)
	s := servePlain(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hang.Load() && r.URL.Query().Get("value") == "238" {
			select {
			case arrived <- struct{}{}:
			default:
			}
			<-r.Context().Done() // until the client gives up
			return
		}
		hd.ServeHTTP(w, r)
	}))
	cfg := s.Config("slow")
	cfg.Timeout = remote.Duration(200 * time.Millisecond)
	c, err := remote.Dial(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	hang.Store(true)
	if _, err := c.Sample(context.Background(), []uint32{238}); err == nil || !strings.Contains(err.Error(), "no answer within 200ms") {
		t.Fatalf("error %v, want no answer within 200ms", err)
	}
	hang.Store(false)
	if _, err := c.Sample(context.Background(), []uint32{238}); err != nil {
		t.Fatalf("after the timeout: %v", err)
	}
	// A cancelled context ends a request too, with the context's error.
	hang.Store(true)
	<-arrived // the first hung request's
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived // this one's: the client waits for its answer
		cancel()
	}()
	if _, err := c.Sample(ctx, []uint32{238}); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("cancelled: error %v, want context canceled", err)
	}
}
