package server

import (
	"bytes"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
	"golang.org/x/crypto/bcrypt"

	"github.com/perfcounters/perfcounters/remote"
)

// MaxConfigBytes is the largest web configuration file read.
const MaxConfigBytes = 1 << 20

// Config is a web configuration file: prometheus/exporter-toolkit's
// web-config.yml, field for field, so operators reuse what they have,
// plus perfc's own fields under the key `perfc:` (bearer tokens and
// roles). Every field is optional; a field the file does not know is an
// error.
type Config struct {
	TLSServerConfig  *TLSConfig        `yaml:"tls_server_config"`
	HTTPServerConfig HTTPConfig        `yaml:"http_server_config"`
	BasicAuthUsers   map[string]string `yaml:"basic_auth_users"` // user: bcrypt hash
	RateLimit        RateLimit         `yaml:"rate_limit"`
	Perfc            Extensions        `yaml:"perfc"`

	// File is the file the configuration was read from ("" when parsed
	// from memory); relative paths in it are relative to its directory.
	File string `yaml:"-"`
	// roles maps an identity key ("user:alice", "token:ci", "san:x")
	// to its role, from Perfc.Roles.
	roles map[string]remote.Role
}

// TLSConfig is exporter-toolkit's tls_server_config.
type TLSConfig struct {
	CertFile          string   `yaml:"cert_file"`
	KeyFile           string   `yaml:"key_file"`
	ClientCAFile      string   `yaml:"client_ca_file"`
	ClientAuthType    string   `yaml:"client_auth_type"`
	ClientAllowedSANs []string `yaml:"client_allowed_sans"`
	MinVersion        string   `yaml:"min_version"`
	MaxVersion        string   `yaml:"max_version"`
	CipherSuites      []string `yaml:"cipher_suites"`
	CurvePreferences  []string `yaml:"curve_preferences"`
	// PreferServerCipherSuites is accepted for compatibility; Go's TLS
	// stack ignores it (it orders suites itself).
	PreferServerCipherSuites *bool `yaml:"prefer_server_cipher_suites"`

	clientAuth tls.ClientAuthType
	minVersion uint16
	maxVersion uint16
	suites     []uint16
	curves     []tls.CurveID
}

// HTTPConfig is exporter-toolkit's http_server_config.
type HTTPConfig struct {
	HTTP2   *bool             `yaml:"http2"` // default true
	Headers map[string]string `yaml:"headers"`
}

// RateLimit is exporter-toolkit's rate_limit: a token bucket refilled
// once per Interval holding Burst requests. perfc applies it per
// authenticated identity, and to failed or unauthenticated attempts per
// network (clientPrefix: an IPv4 address, an IPv6 /64, loopback as one);
// exporter-toolkit has one bucket for the whole server. Zero Interval: no
// rate limit.
type RateLimit struct {
	Interval time.Duration `yaml:"interval"`
	Burst    int           `yaml:"burst"`
}

// Extensions are perfc's own fields, under `perfc:`.
type Extensions struct {
	// BearerTokens names each accepted bearer token and holds the
	// SHA-256 of its text, never the text.
	BearerTokens map[string]Token `yaml:"bearer_tokens"`
	// Roles lists, per role (monitor or log), the identities that have
	// it: "user:NAME" (basic_auth_users), "token:NAME" (bearer_tokens)
	// or "san:VALUE" (a client certificate's DNS name, e-mail address,
	// IP address or URI). An identity listed nowhere is monitor.
	Roles map[string][]string `yaml:"roles"`
}

// Token is a bearer token as stored: the hex SHA-256 of its text.
type Token struct {
	SHA256 string `yaml:"sha256"`

	sum []byte
}

// Verifying reports whether the client_auth_type verifies client
// certificates against client_ca_file, so a certificate can identify a
// caller.
func (t *TLSConfig) verifying() bool {
	return t != nil && (t.clientAuth == tls.VerifyClientCertIfGiven || t.clientAuth == tls.RequireAndVerifyClientCert)
}

// HTTP2 reports whether HTTP/2 is offered (http_server_config.http2,
// default true).
func (c *Config) HTTP2() bool { return c.HTTPServerConfig.HTTP2 == nil || *c.HTTPServerConfig.HTTP2 }

// HasTLS reports whether the configuration serves TLS.
func (c *Config) HasTLS() bool { return c.TLSServerConfig != nil }

// HasAuth reports whether the configuration authenticates callers: basic
// users, bearer tokens, or client certificates verified against a CA.
func (c *Config) HasAuth() bool {
	return len(c.BasicAuthUsers) > 0 || len(c.Perfc.BearerTokens) > 0 || c.TLSServerConfig.verifying()
}

// ParseConfig reads a web configuration from data; file names it in
// errors and anchors its relative paths. Errors name the file and line.
func ParseConfig(file string, data []byte) (*Config, error) {
	if len(data) > MaxConfigBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d a web configuration may have", file, len(data), MaxConfigBytes)
	}
	c := &Config{File: file}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: %s", file, yamlMessage(err))
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %s", file, yamlMessage(err))
	}
	v := validator{file: file, root: &root}
	c.validate(&v)
	if v.err != nil {
		return nil, v.err
	}
	return c, nil
}

// yamlMessage rewrites a YAML decoding error for a user: one line per
// problem, "line N: ...", without Go type names.
func yamlMessage(err error) string {
	s := strings.TrimPrefix(err.Error(), "yaml: ")
	s = strings.TrimPrefix(s, "unmarshal errors:\n")
	s = unknownField.ReplaceAllString(s, "unknown field $1")
	s = goType.ReplaceAllStringFunc(s, func(m string) string {
		t := strings.TrimPrefix(m, "into ")
		switch {
		case strings.HasPrefix(t, "map["), strings.HasPrefix(t, "server."):
			return "where a mapping (key: value lines) belongs"
		case strings.HasPrefix(t, "[]"):
			return "where a list belongs"
		case t == "time.Duration":
			return "where a duration (such as 30s) belongs"
		case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
			return "where a whole number belongs"
		case t == "bool", t == "*bool":
			return "where true or false belongs"
		}
		return "where a string belongs"
	})
	s = strings.NewReplacer("cannot unmarshal !!seq", "a list", "cannot unmarshal !!map", "a mapping",
		"cannot unmarshal !!str", "the text", "cannot unmarshal !!int", "the number",
		"cannot unmarshal !!bool", "the value", "cannot unmarshal !!float", "the number").Replace(s)
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "; ")
}

var (
	unknownField = regexp.MustCompile(`field (\S+) not found in type \S+`)
	goType       = regexp.MustCompile(`into \S+`)
)

// validator collects the first semantic error, with the line of the
// field it is about.
type validator struct {
	file string
	root *yaml.Node
	err  error
}

// fail records an error about the field at path (keys from the top).
func (v *validator) fail(path []string, format string, args ...any) {
	if v.err != nil {
		return
	}
	where := v.file
	if n := lookup(v.root, path); n != nil {
		where = fmt.Sprintf("%s:%d", v.file, n.Line)
	}
	v.err = fmt.Errorf("%s: %s: %s", where, strings.Join(path, "."), fmt.Sprintf(format, args...))
}

// lookup returns the node of the key at path, or the deepest one found.
func lookup(n *yaml.Node, path []string) *yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	var found *yaml.Node
	for _, key := range path {
		if n.Kind != yaml.MappingNode {
			return found
		}
		next := (*yaml.Node)(nil)
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				found, next = n.Content[i], n.Content[i+1]
				break
			}
		}
		if next == nil {
			return found
		}
		n = next
	}
	return found
}

var clientAuthTypes = map[string]tls.ClientAuthType{
	"":                           tls.NoClientCert,
	"NoClientCert":               tls.NoClientCert,
	"RequestClientCert":          tls.RequestClientCert,
	"RequireAnyClientCert":       tls.RequireAnyClientCert,
	"VerifyClientCertIfGiven":    tls.VerifyClientCertIfGiven,
	"RequireAndVerifyClientCert": tls.RequireAndVerifyClientCert,
}

var tlsVersions = map[string]uint16{
	"TLS10": tls.VersionTLS10,
	"TLS11": tls.VersionTLS11,
	"TLS12": tls.VersionTLS12,
	"TLS13": tls.VersionTLS13,
}

var curves = map[string]tls.CurveID{
	"CurveP256":      tls.CurveP256,
	"CurveP384":      tls.CurveP384,
	"CurveP521":      tls.CurveP521,
	"X25519":         tls.X25519,
	"X25519MLKEM768": tls.X25519MLKEM768,
}

// allowedHeaders are the response headers http_server_config.headers may
// set, as exporter-toolkit allows.
var allowedHeaders = []string{
	"Strict-Transport-Security", "X-Content-Type-Options", "X-Frame-Options",
	"X-XSS-Protection", "Content-Security-Policy",
}

func (c *Config) validate(v *validator) {
	dir := ""
	if c.File != "" {
		dir = filepath.Dir(c.File)
	}
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) || dir == "" {
			return p
		}
		return filepath.Join(dir, p)
	}
	if t := c.TLSServerConfig; t != nil {
		p := func(k string) []string { return []string{"tls_server_config", k} }
		if t.CertFile == "" || t.KeyFile == "" {
			v.fail([]string{"tls_server_config"}, "both cert_file and key_file are needed (cert_file: server.crt, key_file: server.key)")
		}
		t.CertFile, t.KeyFile, t.ClientCAFile = abs(t.CertFile), abs(t.KeyFile), abs(t.ClientCAFile)
		ca, ok := clientAuthTypes[t.ClientAuthType]
		if !ok {
			v.fail(p("client_auth_type"), "%q: want NoClientCert, RequestClientCert, RequireAnyClientCert, VerifyClientCertIfGiven or RequireAndVerifyClientCert", t.ClientAuthType)
		}
		t.clientAuth = ca
		if t.ClientCAFile != "" && ca == tls.NoClientCert {
			v.fail(p("client_ca_file"), "a client CA is given but client_auth_type does not ask for client certificates (set client_auth_type: RequireAndVerifyClientCert)")
		}
		if t.verifying() && t.ClientCAFile == "" {
			v.fail(p("client_auth_type"), "%s verifies client certificates: name their CA with client_ca_file", t.ClientAuthType)
		}
		if len(t.ClientAllowedSANs) > 0 && !t.verifying() {
			v.fail(p("client_allowed_sans"), "allowed SANs need verified client certificates (client_auth_type: RequireAndVerifyClientCert or VerifyClientCertIfGiven)")
		}
		t.minVersion = tls.VersionTLS12
		if t.MinVersion != "" {
			ver, ok := tlsVersions[t.MinVersion]
			switch {
			case !ok:
				v.fail(p("min_version"), "%q: want TLS12 or TLS13", t.MinVersion)
			case ver < tls.VersionTLS12:
				v.fail(p("min_version"), "%s is refused: TLS below 1.2 is broken; use TLS12 (the default) or TLS13", t.MinVersion)
			}
			t.minVersion = ver
		}
		if t.MaxVersion != "" {
			ver, ok := tlsVersions[t.MaxVersion]
			switch {
			case !ok:
				v.fail(p("max_version"), "%q: want TLS12 or TLS13", t.MaxVersion)
			case ver < t.minVersion:
				v.fail(p("max_version"), "%s is below min_version (%s)", t.MaxVersion, tls.VersionName(t.minVersion))
			}
			t.maxVersion = ver
		}
		secure := map[string]uint16{}
		for _, s := range tls.CipherSuites() {
			secure[s.Name] = s.ID
		}
		for _, name := range t.CipherSuites {
			id, ok := secure[name]
			if !ok {
				v.fail(p("cipher_suites"), "%q is not a cipher suite Go's TLS offers as secure (such as TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256)", name)
			}
			t.suites = append(t.suites, id)
		}
		for _, name := range t.CurvePreferences {
			id, ok := curves[name]
			if !ok {
				v.fail(p("curve_preferences"), "%q: want CurveP256, CurveP384, CurveP521, X25519 or X25519MLKEM768", name)
			}
			t.curves = append(t.curves, id)
		}
	}
	for name := range c.HTTPServerConfig.Headers {
		if !slices.ContainsFunc(allowedHeaders, func(h string) bool { return strings.EqualFold(h, name) }) {
			v.fail([]string{"http_server_config", "headers", name}, "this header may not be set; allowed: %s", strings.Join(allowedHeaders, ", "))
		}
	}
	for user, hash := range c.BasicAuthUsers {
		k := []string{"basic_auth_users", user}
		if user == "" || strings.ContainsAny(user, ":\x00") {
			v.fail(k, "a user name must not be empty nor hold ':'")
		}
		if _, err := bcrypt.Cost([]byte(hash)); err != nil {
			v.fail(k, "not a bcrypt hash (make one with: htpasswd -nBC 10 %s)", user)
		}
	}
	if c.RateLimit.Interval < 0 || c.RateLimit.Burst < 0 {
		v.fail([]string{"rate_limit"}, "interval and burst must not be negative")
	}
	if c.RateLimit.Interval > 0 && c.RateLimit.Burst < 1 {
		v.fail([]string{"rate_limit", "burst"}, "must be at least 1 when an interval is set")
	}
	for name, tok := range c.Perfc.BearerTokens {
		sum, err := hex.DecodeString(tok.SHA256)
		if err != nil || len(sum) != 32 {
			v.fail([]string{"perfc", "bearer_tokens", name, "sha256"}, "want the 64 hex digits of the token's SHA-256 (printf %%s \"$TOKEN\" | sha256sum)")
		}
		if name == "" {
			v.fail([]string{"perfc", "bearer_tokens"}, "a token needs a name")
		}
		tok.sum = sum
		c.Perfc.BearerTokens[name] = tok
	}
	c.roles = map[string]remote.Role{}
	for rname, ids := range c.Perfc.Roles {
		k := []string{"perfc", "roles", rname}
		role, err := remote.ParseRole(rname)
		if err != nil {
			v.fail(k, "%v", err)
			continue
		}
		for _, id := range ids {
			kind, name, _ := strings.Cut(id, ":")
			switch {
			case name == "":
				v.fail(k, "%q: write user:NAME, token:NAME or san:VALUE", id)
			case kind == "user":
				if _, ok := c.BasicAuthUsers[name]; !ok {
					v.fail(k, "%q: no such user in basic_auth_users", id)
				}
			case kind == "token":
				if _, ok := c.Perfc.BearerTokens[name]; !ok {
					v.fail(k, "%q: no such token in perfc.bearer_tokens", id)
				}
			case kind == "san":
				if !c.TLSServerConfig.verifying() {
					v.fail(k, "%q: certificate identities need verified client certificates (tls_server_config.client_auth_type)", id)
				}
			default:
				v.fail(k, "%q: write user:NAME, token:NAME or san:VALUE", id)
			}
			if prev, ok := c.roles[id]; ok && prev != role {
				v.fail(k, "%q is listed under both %s and %s", id, prev, role)
			}
			c.roles[id] = role
		}
	}
}

// roleOf returns the role of an identity key, monitor unless listed.
func (c *Config) roleOf(key string) remote.Role {
	if r, ok := c.roles[key]; ok {
		return r
	}
	return remote.RoleMonitor
}

// headers returns the response headers to set, canonicalised.
func (c *Config) headers() http.Header {
	h := http.Header{}
	for k, v := range c.HTTPServerConfig.Headers {
		h.Set(k, v)
	}
	return h
}
