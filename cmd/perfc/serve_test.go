package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	"google.golang.org/protobuf/proto"
)

func TestServeRefusesNetworkWithoutTLS(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		_, errs, code := runPerfc(t, "serve", "-LISTEN", addr)
		if code != 1 || !strings.Contains(errs, "is not loopback") || !strings.Contains(errs, "tls_server_config") || !strings.Contains(errs, "basic_auth_users") {
			t.Errorf("serve -listen %s: exit %d, %q; want exit 1 saying how to configure TLS and authentication", addr, code, errs)
		}
	}
}

func TestServeUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "extra"}, "serve takes no arguments"},
		{[]string{"serve", "-listen"}, "needs a value"},
		{[]string{"serve", "-port", "1"}, "unknown option -port"},
	} {
		_, errs, code := runPerfc(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d, %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
	out, _, code := runPerfc(t, "serve", "/?")
	if code != 0 || !strings.Contains(out, "-listen <host:port>") || !strings.Contains(out, "-config <filename>") || !strings.Contains(out, "Default is 127.0.0.1:9641") {
		t.Errorf("serve /?: exit %d:\n%s", code, out)
	}
}

// TestServeLoopback starts perfc serve on a free loopback port, reads the
// address and the token file from what it prints, queries it with and
// without the token, and stops it as CTRL+C does.
func TestServeLoopback(t *testing.T) {
	state := t.TempDir()
	tf := filepath.Join(t.TempDir(), "run", "serve.token")
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var errs strings.Builder
	done := make(chan int, 1)
	go func() {
		code := run(ctx, []string{"serve", "/listen:127.0.0.1:0", "-tokenfile", tf, "-nowarn"}, &env{stdout: pw, stderr: &errs, stdin: strings.NewReader(""),
			getenv: stateEnv(state)})
		pw.Close()
		done <- code
	}()
	sc := bufio.NewScanner(pr)
	if !sc.Scan() {
		t.Fatalf("no output; stderr %s, exit %d", errs.String(), <-done)
	}
	line := sc.Text()
	url, ok := strings.CutPrefix(line, "perfc serve: listening on ")
	url, _, _ = strings.Cut(url, " ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q, want the address", line)
	}
	if !sc.Scan() || !strings.Contains(sc.Text(), tf) {
		t.Fatalf("second line %q, want the token file %s", sc.Text(), tf)
	}
	go io.Copy(io.Discard, pr)
	tok, err := os.ReadFile(tf)
	if err != nil {
		t.Fatal(err)
	}
	get := func(auth string, path ...string) (int, []byte) {
		p := "/v1/host"
		if len(path) > 0 {
			p = path[0]
		}
		req, _ := http.NewRequest("GET", url+p, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	if st, _ := get(""); st != 401 {
		t.Errorf("without the token: status %d, want 401", st)
	}
	st, b := get("Bearer " + strings.TrimSpace(string(tok)))
	var info struct{ Role, Who, API string }
	if st != 200 || json.Unmarshal(b, &info) != nil || info.Role != "log" || info.API != "/v1" {
		t.Errorf("with the token: %d %s, want 200 from /v1 as log", st, b)
	}
	// /metrics and the collector sets are served, behind the same token.
	if st, _ := get("", "/metrics"); st != 401 {
		t.Errorf("/metrics without the token: status %d, want 401", st)
	}
	st, b = get("Bearer "+strings.TrimSpace(string(tok)), "/metrics")
	if st != 200 || !strings.Contains(string(b), "# TYPE perfc_memory_") {
		t.Errorf("/metrics with the token: %d, want 200 with the Memory object's series; got %.300s", st, b)
	}
	st, b = get("Bearer "+strings.TrimSpace(string(tok)), "/v1/sets")
	var sets struct{ Sets []struct{ Name string } }
	if st != 200 || json.Unmarshal(b, &sets) != nil {
		t.Errorf("/v1/sets with the token: %d %s, want 200 and the list", st, b)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d after CTRL+C: %s", code, errs.String())
	}
	if _, err := os.Stat(tf); !os.IsNotExist(err) {
		t.Errorf("token file after the server stopped: %v", err)
	}
}

// TestServeOTLP: perfc serve with -otlp-endpoint pushes the host's
// counters over OTLP/HTTP to a receiver (the OTLP protocol's own protobuf
// request, decoded here), with the semantic-convention names, and stops
// pushing when the server stops.
func TestServeOTLP(t *testing.T) {
	got := make(chan *colmetricpb.ExportMetricsServiceRequest, 16)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		req := &colmetricpb.ExportMetricsServiceRequest{}
		if err != nil || r.URL.Path != "/v1/metrics" || proto.Unmarshal(b, req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		out, _ := proto.Marshal(&colmetricpb.ExportMetricsServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
		select {
		case got <- req:
		default:
		}
	}))
	defer recv.Close()
	state := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errs strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "/listen:127.0.0.1:0", "-tokenfile", filepath.Join(t.TempDir(), "tok"), "-nowarn", "-nometrics",
			"-otlp-endpoint", recv.URL, "-otlp-protocol", "http/protobuf", "-otlp-interval", "1s"},
			&env{stdout: &syncWriter{w: &out}, stderr: &syncWriter{w: &errs}, stdin: strings.NewReader(""),
				getenv: stateEnv(state)})
	}()
	names := map[string]bool{}
	deadline := time.After(60 * time.Second)
	for !names["system.memory.usage"] || !names["system.cpu.time"] {
		select {
		case req := <-got:
			for _, rm := range req.ResourceMetrics {
				for _, sm := range rm.ScopeMetrics {
					for _, m := range sm.Metrics {
						names[m.Name] = true
					}
				}
			}
		case code := <-done:
			t.Fatalf("serve ended (exit %d) before an export: %s", code, errs.String())
		case <-deadline:
			t.Fatalf("no export with system.memory.usage and system.cpu.time within 60 s; got %v", names)
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d after CTRL+C: %s", code, errs.String())
	}
}

// syncWriter serializes writes of the server's goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
