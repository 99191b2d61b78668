package server

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/internal/asuser"
	"github.com/perfcounters/perfcounters/remote"
)

// A bcrypt hash (cost 4) of "secret", made once with bcrypt.GenerateFromPassword.
const secretHash = "$2a$04$QXmqSL80wu4GNLN.JHaqMO1YXQ2w1E7ZchBCviE5p9xmowc6yTffu"

func TestParseConfig(t *testing.T) {
	full := `# every field exporter-toolkit knows, and perfc's
tls_server_config:
  cert_file: server.crt
  key_file: /etc/perfc/server.key
  client_ca_file: ca.crt
  client_auth_type: VerifyClientCertIfGiven
  client_allowed_sans: [a.example.com]
  min_version: TLS13
  max_version: TLS13
  cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256]
  curve_preferences: [X25519, CurveP256]
  prefer_server_cipher_suites: true
http_server_config:
  http2: false
  headers:
    Strict-Transport-Security: max-age=31536000
basic_auth_users:
  alice: ` + secretHash + `
rate_limit:
  interval: 100ms
  burst: 20
perfc:
  bearer_tokens:
    ci: {sha256: 2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b}
  roles:
    log: [token:ci, san:a.example.com]
    monitor: [user:alice]
`
	c, err := ParseConfig("/etc/perfc/web.yml", []byte(full))
	if err != nil {
		t.Fatal(err)
	}
	tc := c.TLSServerConfig
	if tc.CertFile != "/etc/perfc/server.crt" || tc.KeyFile != "/etc/perfc/server.key" || tc.ClientCAFile != "/etc/perfc/ca.crt" {
		t.Errorf("files %q %q %q, want them relative to the configuration's directory", tc.CertFile, tc.KeyFile, tc.ClientCAFile)
	}
	if tc.clientAuth != tls.VerifyClientCertIfGiven || tc.minVersion != tls.VersionTLS13 || tc.maxVersion != tls.VersionTLS13 {
		t.Errorf("client auth %v, versions %x..%x", tc.clientAuth, tc.minVersion, tc.maxVersion)
	}
	if len(tc.suites) != 1 || tc.suites[0] != tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 || len(tc.curves) != 2 || tc.curves[0] != tls.X25519 {
		t.Errorf("suites %v curves %v", tc.suites, tc.curves)
	}
	if c.HTTP2() || c.RateLimit.Interval != 100*time.Millisecond || c.RateLimit.Burst != 20 {
		t.Errorf("http2 %v, rate %v/%d", c.HTTP2(), c.RateLimit.Interval, c.RateLimit.Burst)
	}
	for id, want := range map[string]remote.Role{"token:ci": remote.RoleLog, "san:a.example.com": remote.RoleLog, "user:alice": remote.RoleMonitor, "user:nobody": remote.RoleMonitor} {
		if got := c.roleOf(id); got != want {
			t.Errorf("role of %s: %v, want %v", id, got, want)
		}
	}
	if !c.HasTLS() || !c.HasAuth() {
		t.Error("HasTLS/HasAuth false")
	}

	empty, err := ParseConfig("empty.yml", nil)
	if err != nil {
		t.Fatalf("empty file: %v", err)
	}
	if empty.HasTLS() || empty.HasAuth() || !empty.HTTP2() {
		t.Errorf("empty file: TLS %v auth %v http2 %v", empty.HasTLS(), empty.HasAuth(), empty.HTTP2())
	}
}

func TestParseConfigErrors(t *testing.T) {
	const tlsHead = "tls_server_config:\n  cert_file: a\n  key_file: b\n"
	cases := []struct {
		name, text string
		want       string // the error, from its start (file:line: ...) or a part
	}{
		{"unknown top field", "basic_auth_users: {}\nweb_listen: x\n", "w.yml: line 2: unknown field web_listen"},
		{"unknown tls field", tlsHead + "  certfile: c\n", "w.yml: line 4: unknown field certfile"},
		{"unknown perfc field", "perfc:\n  tokens: {}\n", "w.yml: line 2: unknown field tokens"},
		{"unknown token field", "perfc:\n  bearer_tokens:\n    a: {sha: ab}\n", "w.yml: line 3: unknown field sha"},
		{"not YAML", "tls_server_config: [\n", "w.yml: line 1"},
		{"wrong type", "basic_auth_users: [a, b]\n", "w.yml: line 1"},
		{"TLS10", tlsHead + "  min_version: TLS10\n", "w.yml:4: tls_server_config.min_version: TLS10 is refused"},
		{"TLS11", tlsHead + "  min_version: TLS11\n", "w.yml:4: tls_server_config.min_version: TLS11 is refused"},
		{"bad version", tlsHead + "  min_version: SSL3\n", `w.yml:4: tls_server_config.min_version: "SSL3"`},
		{"max below min", tlsHead + "  min_version: TLS13\n  max_version: TLS12\n", "w.yml:5: tls_server_config.max_version: TLS12 is below"},
		{"cert without key", "tls_server_config:\n  cert_file: a\n", "w.yml:1: tls_server_config: both cert_file and key_file"},
		{"client auth type", tlsHead + "  client_auth_type: Always\n", `w.yml:4: tls_server_config.client_auth_type: "Always"`},
		{"verify without CA", tlsHead + "  client_auth_type: RequireAndVerifyClientCert\n", "client_ca_file"},
		{"CA without verify", tlsHead + "  client_ca_file: ca\n", "w.yml:4: tls_server_config.client_ca_file"},
		{"SANs without verify", tlsHead + "  client_allowed_sans: [x]\n", "w.yml:4: tls_server_config.client_allowed_sans"},
		{"insecure suite", tlsHead + "  cipher_suites: [TLS_RSA_WITH_RC4_128_SHA]\n", "w.yml:4: tls_server_config.cipher_suites"},
		{"curve", tlsHead + "  curve_preferences: [P256]\n", "w.yml:4: tls_server_config.curve_preferences"},
		{"header", "http_server_config:\n  headers:\n    Server: x\n", "w.yml:3: http_server_config.headers.Server"},
		{"not bcrypt", "basic_auth_users:\n  alice: secret\n", "w.yml:2: basic_auth_users.alice: not a bcrypt hash"},
		{"user with colon", "basic_auth_users:\n  'a:b': " + secretHash + "\n", "w.yml:2: basic_auth_users.a:b"},
		{"burst zero", "rate_limit:\n  interval: 1s\n", "w.yml:1: rate_limit.burst"},
		{"negative", "rate_limit:\n  interval: -1s\n  burst: 1\n", "w.yml:1: rate_limit"},
		{"bad duration", "rate_limit:\n  interval: often\n", "w.yml: line 2"},
		{"token not hex", "perfc:\n  bearer_tokens:\n    a: {sha256: zz}\n", "w.yml:3: perfc.bearer_tokens.a.sha256"},
		{"token short", "perfc:\n  bearer_tokens:\n    a: {sha256: abcd}\n", "perfc.bearer_tokens.a.sha256: want the 64 hex digits"},
		{"role name", "perfc:\n  roles:\n    admin: []\n", `w.yml:3: perfc.roles.admin: role "admin"`},
		{"role entry kind", "perfc:\n  roles:\n    log: [alice]\n", `w.yml:3: perfc.roles.log: "alice": write user:NAME`},
		{"role unknown user", "perfc:\n  roles:\n    log: [user:alice]\n", `"user:alice": no such user`},
		{"role unknown token", "perfc:\n  roles:\n    log: [token:ci]\n", `"token:ci": no such token`},
		{"role san without certificates", "perfc:\n  roles:\n    log: [san:x]\n", "certificate identities need verified client certificates"},
		{"role twice", "basic_auth_users:\n  alice: " + secretHash + "\nperfc:\n  roles:\n    log: [user:alice]\n    monitor: [user:alice]\n", "is listed under both"},
		{"too big", strings.Repeat("#", MaxConfigBytes+1), "more than the"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConfig("w.yml", []byte(tc.text))
			if err == nil {
				t.Fatalf("accepted, want an error with %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q, want %q in it", err, tc.want)
			}
			if goTypeName.MatchString(err.Error()) {
				t.Errorf("error %q names a Go type", err)
			}
		})
	}
}

var goTypeName = regexp.MustCompile(`server\.[A-Z]|\bstruct\b`)

func TestConfigTrust(t *testing.T) {
	uid := os.Geteuid()
	cases := []struct {
		name  string
		mode  os.FileMode
		owner int // -1: the test's user
		want  string
	}{
		{"own 0600", 0o600, -1, ""},
		{"own 0644", 0o644, -1, ""},
		{"group-writable", 0o664, -1, "mode 0664 lets its group change it; chmod go-w"},
		{"world-writable", 0o646, -1, "lets other users change it"},
		{"another user's", 0o600, 61001, "owned by uid 61001, not by the serving user"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := writeConfig(t, t.TempDir(), "basic_auth_users: {}\n")
			if err := os.Chmod(p, tc.mode); err != nil {
				t.Fatal(err)
			}
			if tc.owner >= 0 {
				if uid != 0 {
					t.Skip("needs root to give a file to another user")
				}
				if err := os.Chown(p, tc.owner, tc.owner); err != nil {
					t.Fatal(err)
				}
			}
			_, err := LoadConfig(p, uid)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("LoadConfig: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p)):
				t.Fatalf("LoadConfig: %v, want an error naming %s with %q", err, p, tc.want)
			}
		})
	}
	t.Run("directory", func(t *testing.T) {
		if _, err := LoadConfig(t.TempDir(), uid); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("LoadConfig(directory): %v", err)
		}
	})
	t.Run("missing", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "none.yml")
		if _, err := LoadConfig(p, uid); err == nil || !strings.Contains(err.Error(), p) {
			t.Fatalf("LoadConfig(missing): %v", err)
		}
	})
}

func TestKeyFileTrust(t *testing.T) {
	p := newPKI(t)
	cfg := "tls_server_config:\n  cert_file: " + p.certFile + "\n  key_file: " + p.keyFile + "\n"
	for _, tc := range []struct {
		file string
		mode os.FileMode
		want string
	}{
		{p.keyFile, 0o640, "mode 0640 lets its group read the private key; chmod 600"},
		{p.keyFile, 0o604, "lets other users read the private key"},
		{p.certFile, 0o666, "tls_server_config.cert_file " + p.certFile + ": mode 0666 lets its group and other users change it"},
	} {
		writeFile(t, p.certFile, p.server.certPEM, 0o644)
		writeFile(t, p.keyFile, p.server.keyPEM, 0o600)
		if err := os.Chmod(tc.file, tc.mode); err != nil {
			t.Fatal(err)
		}
		_, err := New(Options{Addr: "127.0.0.1:0", API: stubAPI(), Anonymous: true, ConfigFile: writeConfig(t, t.TempDir(), cfg)})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s mode %04o: %v, want %q", tc.file, tc.mode, err, tc.want)
		}
	}
}

// TestConfigOfAnotherUser runs the server's configuration checks as Bob:
// Alice's file, and Bob's own file left group-writable, are refused; Bob's
// own private file is read.
func TestConfigOfAnotherUser(t *testing.T) {
	if step, ok := asuser.Step(); ok {
		_, err := LoadConfig(os.Getenv("CONFIG"), os.Geteuid())
		want := os.Getenv("WANT")
		switch {
		case want == "" && err != nil:
			t.Fatalf("step %s: %v", step, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Fatalf("step %s: %v, want %q", step, err, want)
		}
		// The server refuses to start on it too.
		s, err := New(Options{Addr: "127.0.0.1:0", API: stubAPI(), Anonymous: true, ConfigFile: os.Getenv("CONFIG")})
		if (err == nil) != (want == "") {
			t.Fatalf("step %s: New: %v", step, err)
		}
		if err == nil {
			s.Close()
		}
		return
	}
	r := asuser.New(t)
	dir := r.SharedDir()
	cases := []struct {
		step  string
		owner asuser.User
		mode  os.FileMode
		want  string
	}{
		{"alices", asuser.Alice, 0o644, "owned by uid 61001, not by the serving user (uid 61002)"},
		{"group-writable", asuser.Bob, 0o664, "lets its group change it"},
		{"own", asuser.Bob, 0o600, ""},
	}
	for _, tc := range cases {
		p := filepath.Join(dir, tc.step+".yml")
		writeFile(t, p, []byte("basic_auth_users: {}\n"), tc.mode)
		r.Own(p, tc.owner)
		out, err := r.Run(asuser.Bob, "TestConfigOfAnotherUser", tc.step, "CONFIG="+p, "WANT="+tc.want)
		if err != nil {
			t.Errorf("%s: %s", tc.step, asuser.Failed(out, err))
		}
	}
}
