package remote

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/internal/asuser"
)

// TestParseHosts: entries as a user writes them, with the defaults filled
// in, and every mistake an error naming the host and the field.
func TestParseHosts(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		host       string
		want       HostConfig // URL, Timeout, BodySizeLimit and credentials compared
		err        string
	}{
		{name: "full", yaml: `
hosts:
  db7:
    url: https://db7.example:9443
    bearer_token_file: db7.token
    tls_config: {ca_file: ca.pem, server_name: db7.example, min_version: TLS13}
    timeout: 500ms
    body_size_limit: 16MiB
`, host: "db7", want: HostConfig{URL: "https://db7.example:9443", BearerTokenFile: "db7.token",
			Timeout: Duration(500 * time.Millisecond), BodySizeLimit: 16 << 20}},
		{name: "default port", yaml: "hosts: {web1: {url: 'https://web1.example'}}", host: "web1",
			want: HostConfig{URL: "https://web1.example:9641"}},
		{name: "no url", yaml: "hosts: {web2: {}}", host: "web2", want: HostConfig{URL: "https://web2:9641"}},
		{name: "null entry", yaml: "hosts:\n  web3:\n", host: "web3", want: HostConfig{URL: "https://web3:9641"}},
		{name: "prefix kept", yaml: "hosts: {p: {url: 'https://proxy:8443/perfc/'}}", host: "p",
			want: HostConfig{URL: "https://proxy:8443/perfc"}},
		{name: "http loopback", yaml: "hosts: {lo: {url: 'http://127.0.0.1:9641'}}", host: "lo",
			want: HostConfig{URL: "http://127.0.0.1:9641"}},
		{name: "ipv6", yaml: "hosts: {v6: {url: 'https://[::1]'}}", host: "v6", want: HostConfig{URL: "https://[::1]:9641"}},
		{name: "basic", yaml: "hosts: {b: {basic_auth: {username: mon, password_file: /p}}}", host: "b",
			want: HostConfig{URL: "https://b:9641", BasicAuth: &BasicAuth{Username: "mon", PasswordFile: "/p"}}},
		{name: "size in bytes", yaml: "hosts: {s: {body_size_limit: 4096}}", host: "s",
			want: HostConfig{URL: "https://s:9641", BodySizeLimit: 4096}},
		{name: "empty file", yaml: "", host: ""},

		{name: "unknown field", yaml: "hosts: {db7: {address: x}}", err: "field address not found"},
		{name: "misspelt tls field", yaml: "hosts: {db7: {tls_config: {ca: x}}}", err: "field ca not found"},
		{name: "http remote", yaml: "hosts: {db7: {url: 'http://db7:9641'}}", err: "in clear"},
		{name: "ftp", yaml: "hosts: {db7: {url: 'ftp://db7'}}", err: `scheme "ftp"`},
		{name: "user in url", yaml: "hosts: {db7: {url: 'https://u:p@db7'}}", err: "without user"},
		{name: "bad port", yaml: "hosts: {db7: {url: 'https://db7:99999'}}", err: "port"},
		{name: "two tokens", yaml: "hosts: {db7: {bearer_token: a, bearer_token_file: b}}", err: "give one"},
		{name: "token and basic", yaml: "hosts: {db7: {bearer_token: a, basic_auth: {username: u}}}", err: "give one"},
		{name: "basic without user", yaml: "hosts: {db7: {basic_auth: {password: p}}}", err: "username is empty"},
		{name: "colon in user", yaml: "hosts: {db7: {basic_auth: {username: 'a:b'}}}", err: "holds ':'"},
		{name: "cert without key", yaml: "hosts: {db7: {tls_config: {cert_file: c.pem}}}", err: "go together"},
		{name: "old tls", yaml: "hosts: {db7: {tls_config: {min_version: TLS11}}}", err: "below TLS 1.2"},
		{name: "bad timeout", yaml: "hosts: {db7: {timeout: soon}}", err: "duration"},
		{name: "negative timeout", yaml: "hosts: {db7: {timeout: -1s}}", err: "positive"},
		{name: "bad size", yaml: "hosts: {db7: {body_size_limit: 2TiB}}", err: "size"},
		{name: "backslash in name", yaml: `hosts: {'db\7': {}}`, err: "cannot be part"},
		{name: "same name twice", yaml: "hosts: {db7: {}, DB7: {}}", err: "compared without case"},
		{name: "two documents", yaml: "hosts: {}\n---\nhosts: {}\n", err: "more than one"},
		{name: "not a map", yaml: "hosts: [db7]", err: "cannot unmarshal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := ParseHosts([]byte(tc.yaml))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.host == "" {
				if len(h.Hosts) != 0 {
					t.Errorf("hosts %v, want none", h.Hosts)
				}
				return
			}
			c, err := h.Lookup(strings.ToUpper(tc.host))
			if err != nil {
				t.Fatal(err)
			}
			w := tc.want
			if c.Name != tc.host || c.URL != w.URL || c.Timeout != w.Timeout || c.BodySizeLimit != w.BodySizeLimit ||
				c.BearerTokenFile != w.BearerTokenFile || (w.BasicAuth != nil) != (c.BasicAuth != nil) ||
				(w.BasicAuth != nil && *w.BasicAuth != *c.BasicAuth) {
				t.Errorf("got %+v, want %+v", c, w)
			}
		})
	}
}

// TestLookupUnknown: a host not in the file is an error saying how to
// add it, with the file's name and the default port.
func TestLookupUnknown(t *testing.T) {
	h := &Hosts{Path: "/home/u/.config/perfc/hosts.yml"}
	_, err := h.Lookup("db9")
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range []string{"db9", h.Path, "https://db9:9641"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q does not say %q", err, w)
		}
	}
}

// TestDefaultHostsPath: $PERFC_HOSTS, then $XDG_CONFIG_HOME, then
// ~/.config.
func TestDefaultHostsPath(t *testing.T) {
	for _, tc := range []struct{ env, xdg, home, want string }{
		{"/etc/perfc/hosts.yml", "/x", "/h", "/etc/perfc/hosts.yml"},
		{"", "/x", "/h", "/x/perfc/hosts.yml"},
		{"", "", "/h", "/h/.config/perfc/hosts.yml"},
		{"", "relative", "/h", "/h/.config/perfc/hosts.yml"},
	} {
		env := map[string]string{EnvHosts: tc.env, "XDG_CONFIG_HOME": tc.xdg, "HOME": tc.home}
		got, err := DefaultHostsPath(func(k string) string { return env[k] })
		if err != nil || got != tc.want {
			t.Errorf("%+v: %q, %v", tc, got, err)
		}
	}
}

// TestLoadHostsFiles: the file checks that need no second user: a
// symbolic link, a directory, a group-writable file, a file with a secret
// readable by others, a secret file readable by others, a missing file.
func TestLoadHostsFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	plain := write("plain.yml", "hosts: {db7: {bearer_token_file: db7.token}}", 0o644)
	write("db7.token", "tok\n", 0o600)
	link := filepath.Join(dir, "link.yml")
	if err := os.Symlink(plain, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		err        string
	}{
		{"plain", plain, ""},
		{"symlink", link, "symbolic link"},
		{"directory", dir, "not a regular file"},
		{"group-writable", write("gw.yml", "hosts: {}", 0o664), "write it"},
		{"inline secret readable", write("inline.yml", "hosts: {db7: {bearer_token: x}}", 0o644), "read a secret"},
		{"inline secret private", write("inline600.yml", "hosts: {db7: {bearer_token: x}}", 0o600), ""},
		{"missing", filepath.Join(dir, "none.yml"), "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadHosts(tc.path)
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), tc.path) {
				t.Fatalf("error %v, want one naming %s and saying %q", err, tc.path, tc.err)
			}
			if tc.name == "missing" && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("missing file: %v is not fs.ErrNotExist", err)
			}
		})
	}
	// The token file of the plain hosts file is read relative to it; made
	// group-readable, it is refused.
	h, err := LoadHosts(plain)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := h.Lookup("db7")
	cr, err := c.loadCredentials()
	if err != nil || cr.bearer != "tok" {
		t.Fatalf("token %q, %v", cr.bearer, err)
	}
	if err := os.Chmod(filepath.Join(dir, "db7.token"), 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := c.loadCredentials(); err == nil || !strings.Contains(err.Error(), "read a secret") {
		t.Errorf("group-readable token file: %v", err)
	}
	if _, err := Open(c); err == nil {
		t.Error("Open with a group-readable token file: no error")
	}
}

// TestHostsTrustAsUsers: as two real users, Bob refuses a hosts file
// Alice owns (she could point his tools at her server and read his
// tokens), and Alice refuses her own token file once she made it group
// readable. Before the checks, LoadHosts read both.
func TestHostsTrustAsUsers(t *testing.T) {
	if step, ok := asuser.Step(); ok {
		hostsTrustStep(t, step)
		return
	}
	r := asuser.New(t)
	shared := r.SharedDir()
	aliceDir := filepath.Join(shared, "alice")
	if err := os.Mkdir(aliceDir, 0o755); err != nil {
		t.Fatal(err)
	}
	r.Own(aliceDir, asuser.Alice)
	env := "DIR=" + aliceDir
	for _, s := range []struct {
		u    asuser.User
		step string
	}{{asuser.Alice, "alice-writes"}, {asuser.Bob, "bob-refuses"}, {asuser.Alice, "alice-secret"}} {
		if out, err := r.Run(s.u, "TestHostsTrustAsUsers", s.step, env); err != nil {
			t.Fatalf("%s: %s", s.step, asuser.Failed(out, err))
		}
	}
}

func hostsTrustStep(t *testing.T, step string) {
	dir := os.Getenv("DIR")
	hosts := filepath.Join(dir, "hosts.yml")
	token := filepath.Join(dir, "db7.token")
	switch step {
	case "alice-writes":
		if err := os.WriteFile(hosts, []byte("hosts: {db7: {url: 'https://db7', bearer_token_file: db7.token}}"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(token, []byte("alice-token"), 0o600); err != nil {
			t.Fatal(err)
		}
		h, err := LoadHosts(hosts)
		if err != nil {
			t.Fatalf("Alice's own hosts file: %v", err)
		}
		c, _ := h.Lookup("db7")
		if _, err := Open(c); err != nil {
			t.Fatalf("Alice's own token: %v", err)
		}
	case "bob-refuses":
		_, err := LoadHosts(hosts)
		if err == nil || !strings.Contains(err.Error(), "owned by uid 61001") {
			t.Fatalf("Bob loading Alice's hosts file: %v, want a refusal naming her uid", err)
		}
	case "alice-secret":
		if err := os.Chmod(token, 0o640); err != nil {
			t.Fatal(err)
		}
		h, err := LoadHosts(hosts)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := h.Lookup("db7")
		if _, err := Open(c); err == nil || !strings.Contains(err.Error(), "mode 0640 lets group or others read a secret") {
			t.Fatalf("a group-readable token file: %v, want a refusal", err)
		}
	default:
		t.Fatalf("unknown step %q", step)
	}
}
