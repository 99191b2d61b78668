package server

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/remote"
)

// mtlsYAML requires verified client certificates from the test CA with
// one of two SANs; ops.example.com has the log role.
func mtlsYAML(p *pki) string {
	return fmt.Sprintf(`tls_server_config:
  cert_file: %s
  key_file: %s
  client_ca_file: %s
  client_auth_type: RequireAndVerifyClientCert
  client_allowed_sans: [grafana.example.com, ops.example.com]
perfc:
  roles:
    log: [san:ops.example.com]
`, p.certFile, p.keyFile, p.caFile)
}

func TestMutualTLS(t *testing.T) {
	p := newPKI(t)
	s := serve(t, Options{Addr: "0.0.0.0:0", ConfigFile: writeConfig(t, t.TempDir(), mtlsYAML(p))})
	if !strings.HasPrefix(s.URL(), "https://") {
		t.Fatalf("URL %s, want https", s.URL())
	}
	_, port, _ := net.SplitHostPort(s.Addr().String())
	url := "https://127.0.0.1:" + port
	good, logger, expired, other, stranger := p.good.tls(t), p.logger.tls(t), p.expired.tls(t), p.other.tls(t), p.stranger.tls(t)
	cases := []struct {
		name      string
		cert      *tls.Certificate
		method    string
		path      string
		maxV      uint16
		status    int // 0: refused at the handshake
		role, who string
	}{
		{"no certificate", nil, "GET", remote.PathHost, 0, 0, "", ""},
		{"expired certificate", &expired, "GET", remote.PathHost, 0, 0, "", ""},
		{"expired certificate, TLS 1.2", &expired, "GET", remote.PathHost, tls.VersionTLS12, 0, "", ""},
		{"untrusted certificate", &other, "GET", remote.PathHost, 0, 0, "", ""},
		{"SAN not allowed", &stranger, "GET", remote.PathHost, 0, 0, "", ""},
		{"good certificate", &good, "GET", remote.PathHost, 0, 200, "monitor", "cert:grafana.example.com"},
		{"good certificate, TLS 1.2", &good, "GET", remote.PathHost, tls.VersionTLS12, 200, "monitor", "cert:grafana.example.com"},
		{"monitor certificate cannot start a set", &good, "POST", remote.PathSets + "/x/start", 0, 403, "", ""},
		{"log certificate starts a set", &logger, "POST", remote.PathSets + "/x/start", 0, 200, "log", "cert:ops.example.com"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := tlsClient(p, tc.cert, tls.VersionTLS12, tc.maxV)
			req, _ := http.NewRequest(tc.method, url+tc.path, nil)
			resp, err := c.Do(req)
			if tc.status == 0 {
				if err == nil {
					resp.Body.Close()
					t.Fatalf("status %d, want the handshake refused", resp.StatusCode)
				}
				t.Logf("refused: %v", err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			if tc.status != 200 {
				return
			}
			if resp.ProtoMajor != 2 {
				t.Errorf("protocol %s, want HTTP/2 over TLS", resp.Proto)
			}
			var got callerJSON
			if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
				t.Fatal(err)
			}
			if got.Role != tc.role || got.Who != tc.who {
				t.Errorf("caller %+v, want %s %s", got, tc.role, tc.who)
			}
		})
	}
}

// TestCBCSuitesRefused: a TLS 1.2 client offering only CBC-SHA suites
// (MAC-then-encrypt, padding oracles) gets no handshake by default; one
// offering an AEAD suite does.
func TestCBCSuitesRefused(t *testing.T) {
	p := newPKI(t)
	cfg := fmt.Sprintf("tls_server_config:\n  cert_file: %s\n  key_file: %s\n", p.certFile, p.keyFile) + authYAML(t)
	s := serve(t, Options{ConfigFile: writeConfig(t, t.TempDir(), cfg)})
	var cbc []uint16
	for _, cs := range tls.CipherSuites() {
		if strings.Contains(cs.Name, "_CBC_") && slices.Contains(cs.SupportedVersions, tls.VersionTLS12) {
			cbc = append(cbc, cs.ID)
		}
	}
	if len(cbc) == 0 {
		t.Fatal("Go offers no CBC suite to test with")
	}
	for _, c := range []struct {
		suites []uint16
		ok     bool
	}{{cbc, false}, {[]uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}, true}, {[]uint16{tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256}, true}} {
		// HTTP/1.1: an HTTP/2 client would refuse CBC itself (RFC 9113
		// 9.2.2), but HTTP/1.1 clients do not.
		conn, err := tls.Dial("tcp", s.Addr().String(), &tls.Config{RootCAs: p.roots(), ServerName: "localhost",
			MinVersion: tls.VersionTLS12, MaxVersion: tls.VersionTLS12, CipherSuites: c.suites, NextProtos: []string{"http/1.1"}})
		if err == nil {
			conn.Close()
		}
		if (err == nil) != c.ok {
			t.Errorf("TLS 1.2 client offering %v: error %v, want handshake %v", c.suites, err, c.ok)
		}
	}
}

func TestOldTLSRefused(t *testing.T) {
	p := newPKI(t)
	cfg := fmt.Sprintf("tls_server_config:\n  cert_file: %s\n  key_file: %s\n", p.certFile, p.keyFile) + authYAML(t)
	s := serve(t, Options{ConfigFile: writeConfig(t, t.TempDir(), cfg)})
	for _, v := range []uint16{tls.VersionTLS10, tls.VersionTLS11} {
		t.Run(tls.VersionName(v), func(t *testing.T) {
			c := tlsClient(p, nil, v, v)
			resp, err := c.Get(s.URL() + remote.PathHost)
			if err == nil {
				resp.Body.Close()
				t.Fatalf("%s client got status %d, want the handshake refused", tls.VersionName(v), resp.StatusCode)
			}
			if !strings.Contains(err.Error(), "version") {
				t.Errorf("error %v, want a protocol version refusal", err)
			}
		})
	}
	// TLS 1.2 and 1.3 get through to authentication.
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		c := tlsClient(p, nil, v, v)
		resp, err := c.Get(s.URL() + remote.PathHost)
		if err != nil {
			t.Fatalf("%s: %v", tls.VersionName(v), err)
		}
		resp.Body.Close()
		if resp.StatusCode != 401 {
			t.Errorf("%s without credentials: status %d, want 401", tls.VersionName(v), resp.StatusCode)
		}
	}
}

func TestCertificateRotation(t *testing.T) {
	p := newPKI(t)
	s := serve(t, Options{ConfigFile: writeConfig(t, t.TempDir(), mtlsYAML(p))})
	good := p.good.tls(t)
	serial := func() int64 {
		t.Helper()
		c := tlsClient(p, &good, tls.VersionTLS12, 0)
		resp, err := c.Get(s.URL() + remote.PathHost)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
		return resp.TLS.PeerCertificates[0].SerialNumber.Int64()
	}
	if got := serial(); got != p.server.serial {
		t.Fatalf("server certificate serial %d, want %d", got, p.server.serial)
	}
	now := time.Now()
	next := p.ca.issue(t, 11, true, nil, now.Add(-time.Hour), now.Add(time.Hour))
	p.install(t, next)
	if got := serial(); got != 11 {
		t.Fatalf("after rotation: serial %d, want 11", got)
	}
	// A half-done rotation (a new certificate, the old key) keeps the
	// last good pair.
	third := p.ca.issue(t, 12, true, nil, now.Add(-time.Hour), now.Add(time.Hour))
	writeFile(t, p.certFile, third.certPEM, 0o644)
	if got := serial(); got != 11 {
		t.Fatalf("with a mismatched key: serial %d, want the previous 11", got)
	}
	writeFile(t, p.keyFile, third.keyPEM, 0o600)
	if got := serial(); got != 12 {
		t.Fatalf("after the key followed: serial %d, want 12", got)
	}
	// A client CA rotated: certificates of the old CA are refused.
	ca2 := newTestCA(t, "rotated CA")
	writeFile(t, p.caFile, ca2.pem, 0o644)
	c := tlsClient(p, &good, tls.VersionTLS12, 0)
	if resp, err := c.Get(s.URL() + remote.PathHost); err == nil {
		resp.Body.Close()
		t.Fatalf("after the client CA changed: status %d, want the old CA's certificate refused", resp.StatusCode)
	}
}

// TestCertificateAndPassword: with basic users configured, a verified
// client certificate is the gate at the handshake and the password is
// still needed (exporter-toolkit's rule).
func TestCertificateAndPassword(t *testing.T) {
	p := newPKI(t)
	cfg := fmt.Sprintf(`tls_server_config:
  cert_file: %s
  key_file: %s
  client_ca_file: %s
  client_auth_type: RequireAndVerifyClientCert
`, p.certFile, p.keyFile, p.caFile) + authYAML(t)
	s := serve(t, Options{ConfigFile: writeConfig(t, t.TempDir(), cfg)})
	good := p.good.tls(t)
	c := tlsClient(p, &good, tls.VersionTLS12, 0)
	checkError(t, do(t, c, "GET", s.URL()+remote.PathHost, nil), 401)
	a := do(t, c, "GET", s.URL()+remote.PathHost, basicHeader("alice", alicePass))
	if a.status != 200 || !strings.Contains(string(a.body), `"who":"user:alice"`) {
		t.Fatalf("certificate and password: %d %s", a.status, a.body)
	}
	// Without a certificate the password alone does not pass the handshake.
	if resp, err := tlsClient(p, nil, tls.VersionTLS12, 0).Get(s.URL() + remote.PathHost); err == nil {
		resp.Body.Close()
		t.Fatalf("no certificate: status %d, want the handshake refused", resp.StatusCode)
	}
}

// TestCertificateRewriteWithinATick: a rewrite the files' stamps do not
// show (two writes within one tick of the kernel's file clock) is still
// seen, by content, while the files are recent.
func TestCertificateRewriteWithinATick(t *testing.T) {
	p := newPKI(t)
	c, err := ParseConfig(filepath.Join(p.dir, "web.yml"), []byte("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := newCertStore(c.TLSServerConfig, os.Geteuid(), true, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	serial := func() int64 {
		t.Helper()
		cfg, err := cs.configForClient(nil)
		if err != nil {
			t.Fatal(err)
		}
		leaf, err := x509.ParseCertificate(cfg.Certificates[0].Certificate[0])
		if err != nil {
			t.Fatal(err)
		}
		return leaf.SerialNumber.Int64()
	}
	if got := serial(); got != p.server.serial {
		t.Fatalf("serial %d, want %d", got, p.server.serial)
	}
	now := time.Now()
	next := p.ca.issue(t, 13, true, nil, now.Add(-time.Hour), now.Add(time.Hour))
	writeFile(t, p.certFile, next.certPEM, 0o644)
	writeFile(t, p.keyFile, next.keyPEM, 0o600)
	cs.stamps = cs.stampNow() // as if the stamps had not moved
	if got := serial(); got != 13 {
		t.Fatalf("after a rewrite within a tick: serial %d, want 13", got)
	}
	if !racy(cs.stamps, now) || racy(cs.stamps, now.Add(time.Hour)) {
		t.Error("racy: files changed now are racy now and not an hour later")
	}
}
