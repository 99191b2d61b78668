package remote

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
	"golang.org/x/sys/unix"
)

// DefaultPort is the port of a host whose URL names none: perfc serve's
// default port.
const DefaultPort = 9641

// DefaultTimeout bounds one request to a host whose entry sets no
// timeout.
const DefaultTimeout = 2 * time.Second

// DefaultBodyLimit is the largest answer a client reads unless the
// host's body_size_limit says otherwise.
const DefaultBodyLimit = 64 << 20

// Limits on the files the hosts file names.
const (
	maxHostsFile  = 1 << 20  // the hosts file itself
	maxSecretFile = 64 << 10 // a token or password file
	maxPEMFile    = 1 << 20  // a certificate or key file
)

// EnvHosts names the environment variable that gives the hosts file's
// path, overriding the default ($XDG_CONFIG_HOME/perfc/hosts.yml).
const EnvHosts = "PERFC_HOSTS"

// Hosts is a parsed hosts file: the remote hosts a user's tools may read,
// by the names counter paths give them (`\\db7\...`).
type Hosts struct {
	// Path is the file the hosts were read from ("" when built in code).
	Path string
	// Hosts are the entries by name as the file spells them.
	Hosts map[string]*HostConfig `yaml:"hosts"`
}

// HostConfig is one host's entry. Field names follow Prometheus' scrape
// configuration where it has one (bearer_token_file, basic_auth,
// tls_config, body_size_limit), so operators can reuse what they know.
type HostConfig struct {
	// Name is the name the entry is filed under, which counter paths use
	// and which samples from the host carry as their system name.
	Name string `yaml:"-"`
	// URL is the server's root: https://db7:9641. A URL without a port
	// gets DefaultPort; http is accepted for loopback addresses only.
	URL string `yaml:"url"`
	// BearerToken is a token written in the file itself (the file must
	// then be readable by its owner only); BearerTokenFile names a file
	// that holds it.
	BearerToken     string     `yaml:"bearer_token"`
	BearerTokenFile string     `yaml:"bearer_token_file"`
	BasicAuth       *BasicAuth `yaml:"basic_auth"`
	TLS             TLSConfig  `yaml:"tls_config"`
	// Timeout bounds each request ("2s", "500ms"); DefaultTimeout when
	// absent.
	Timeout Duration `yaml:"timeout"`
	// BodySizeLimit bounds an answer's body ("64MiB", "1GB", or bytes);
	// DefaultBodyLimit when absent.
	BodySizeLimit ByteSize `yaml:"body_size_limit"`

	dir string // the hosts file's directory: relative file names start there
}

// BasicAuth is HTTP Basic authentication: a user name and a password
// written in the file or read from password_file.
type BasicAuth struct {
	Username     string `yaml:"username"`
	Password     string `yaml:"password"`
	PasswordFile string `yaml:"password_file"`
}

// TLSConfig configures the TLS client: the authority that signs the
// server's certificate (ca_file; the system's roots when absent), a client
// certificate for mutual TLS (cert_file and key_file), the name to check
// the server's certificate against (server_name), and the lowest version
// (min_version: TLS12, the default, or TLS13).
type TLSConfig struct {
	CAFile             string `yaml:"ca_file"`
	CertFile           string `yaml:"cert_file"`
	KeyFile            string `yaml:"key_file"`
	ServerName         string `yaml:"server_name"`
	InsecureSkipVerify bool   `yaml:"insecure_skip_verify"`
	MinVersion         string `yaml:"min_version"`
}

// Duration is a time.Duration read from YAML as "2s", "500ms", "1m".
type Duration time.Duration

// UnmarshalYAML reads a duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return fmt.Errorf("line %d: want a duration such as 2s or 500ms", n.Line)
	}
	v, err := time.ParseDuration(s)
	if err != nil || v <= 0 {
		return fmt.Errorf("line %d: duration %q: want a positive duration such as 2s or 500ms", n.Line, s)
	}
	*d = Duration(v)
	return nil
}

// ByteSize is a size read from YAML as a number of bytes or with a unit:
// KB, MB, GB (powers of 1024, as Prometheus reads them) or KiB, MiB, GiB.
type ByteSize int64

// UnmarshalYAML reads a size.
func (b *ByteSize) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return fmt.Errorf("line %d: want a size such as 64MiB", n.Line)
	}
	v, err := ParseByteSize(s)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*b = ByteSize(v)
	return nil
}

// ParseByteSize reads "65536", "64KiB", "64MB" (1024-based) and the like;
// the size must be positive and below 1 TiB.
func ParseByteSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"b", 1}} {
		if strings.HasSuffix(strings.ToLower(t), u.suffix) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v <= 0 || v > (1<<40)/mult {
		return 0, fmt.Errorf("size %q: want a positive number of bytes below 1 TiB, optionally with KiB, MiB or GiB", s)
	}
	return v * mult, nil
}

// DefaultHostsPath is where the hosts file is looked for: $PERFC_HOSTS,
// else $XDG_CONFIG_HOME/perfc/hosts.yml, else ~/.config/perfc/hosts.yml.
// getenv reads the environment (os.Getenv when nil).
func DefaultHostsPath(getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if p := getenv(EnvHosts); p != "" {
		return p, nil
	}
	if d := getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "perfc", "hosts.yml"), nil
	}
	home := getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", fmt.Errorf("no hosts file: set %s or XDG_CONFIG_HOME (%v)", EnvHosts, err)
		}
	}
	return filepath.Join(home, ".config", "perfc", "hosts.yml"), nil
}

// LoadHosts reads and checks the hosts file at path. The file must be a
// regular file (not a symbolic link) owned by the user running the tool
// (or by root), writable by its owner only, and readable by its owner
// only when it holds a secret itself (bearer_token, basic_auth.password).
// A missing file is an error that errors.Is(err, fs.ErrNotExist) reports.
func LoadHosts(path string) (*Hosts, error) {
	data, st, err := readChecked(path, maxHostsFile, "hosts file", false)
	if err != nil {
		return nil, err
	}
	h, err := ParseHosts(data)
	if err != nil {
		return nil, fmt.Errorf("hosts file %s: %w", path, err)
	}
	h.Path = path
	dir := filepath.Dir(path)
	secret := false
	for _, c := range h.Hosts {
		c.dir = dir
		secret = secret || c.BearerToken != "" || (c.BasicAuth != nil && c.BasicAuth.Password != "")
	}
	if secret {
		// The file holds a secret: like a key file, its owner only.
		if err := st.check(path, "hosts file (it holds a bearer_token or password)", true); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// ParseHosts reads a hosts file's YAML and checks every entry: unknown
// fields, a URL that is not http(s), http to a host that is not
// loopback, a credential given twice, a certificate without its key and
// a TLS version below 1.2 are errors naming the host and the field.
func ParseHosts(data []byte) (*Hosts, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var h Hosts
	if err := dec.Decode(&h); err != nil {
		if errors.Is(err, io.EOF) {
			return &Hosts{Hosts: map[string]*HostConfig{}}, nil
		}
		return nil, err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one YAML document")
	}
	if h.Hosts == nil {
		h.Hosts = map[string]*HostConfig{}
	}
	seen := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(h.Hosts)) {
		c := h.Hosts[name]
		if c == nil {
			c = &HostConfig{}
			h.Hosts[name] = c
		}
		c.Name = name
		if err := checkHostName(name); err != nil {
			return nil, err
		}
		if first, dup := seen[strings.ToLower(name)]; dup {
			return nil, fmt.Errorf("host %q: the same name as %q (host names are compared without case)", name, first)
		}
		seen[strings.ToLower(name)] = name
		if err := c.check(); err != nil {
			return nil, fmt.Errorf("host %s: %w", name, err)
		}
	}
	return &h, nil
}

// checkHostName accepts a name a counter path can carry after `\\`.
func checkHostName(name string) error {
	if name == "" || len(name) > 253 {
		return fmt.Errorf("host name %q: want 1 to 253 characters", name)
	}
	for _, r := range name {
		if r < 0x21 || r == 0x7f || strings.ContainsRune(`\/()#*"`, r) {
			return fmt.Errorf("host name %q: character %q cannot be part of a counter path's computer name", name, r)
		}
	}
	return nil
}

// check validates an entry and fills its defaults (URL, port).
func (c *HostConfig) check() error {
	raw := c.URL
	if raw == "" {
		raw = "https://" + c.Name
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("url %q: %v", c.URL, err)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return fmt.Errorf("url %q: scheme %q: want https (or http for a loopback address)", raw, u.Scheme)
	}
	if u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("url %q: want scheme://host[:port][/prefix], without user, query or fragment", raw)
	}
	if u.Port() == "" {
		u.Host = net.JoinHostPort(u.Hostname(), strconv.Itoa(DefaultPort))
	} else if p, err := strconv.Atoi(u.Port()); err != nil || p < 1 || p > 65535 {
		return fmt.Errorf("url %q: port %q: want 1 to 65535", raw, u.Port())
	}
	if u.Scheme == "http" && !isLoopback(u.Hostname()) {
		return fmt.Errorf("url %q: http to a host that is not loopback would send counters and credentials in clear: use https", raw)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	c.URL = u.String()
	if c.BearerToken != "" && c.BearerTokenFile != "" {
		return errors.New("bearer_token and bearer_token_file: give one")
	}
	if b := c.BasicAuth; b != nil {
		if c.BearerToken != "" || c.BearerTokenFile != "" {
			return errors.New("basic_auth and a bearer token: give one")
		}
		if b.Username == "" {
			return errors.New("basic_auth: username is empty")
		}
		if strings.ContainsRune(b.Username, ':') {
			return fmt.Errorf("basic_auth: username %q holds ':', which Basic authentication cannot carry", b.Username)
		}
		if b.Password != "" && b.PasswordFile != "" {
			return errors.New("basic_auth: password and password_file: give one")
		}
	}
	t := &c.TLS
	if (t.CertFile == "") != (t.KeyFile == "") {
		return errors.New("tls_config: cert_file and key_file go together")
	}
	if _, err := tlsVersion(t.MinVersion); err != nil {
		return fmt.Errorf("tls_config: %w", err)
	}
	if u.Scheme == "http" && (t.CAFile != "" || t.CertFile != "" || t.ServerName != "" || t.InsecureSkipVerify) {
		return fmt.Errorf("tls_config given for an http url %q", c.URL)
	}
	return nil
}

// tlsVersion reads min_version: TLS12 (the default) or TLS13.
func tlsVersion(s string) (uint16, error) {
	switch strings.ToUpper(s) {
	case "", "TLS12":
		return tls.VersionTLS12, nil
	case "TLS13":
		return tls.VersionTLS13, nil
	case "TLS10", "TLS11":
		return 0, fmt.Errorf("min_version %s: below TLS 1.2, refused", s)
	}
	return 0, fmt.Errorf("min_version %q: want TLS12 or TLS13", s)
}

// isLoopback reports whether host is localhost or a loopback address.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ErrUnknownHost is what Lookup's error wraps for a computer that is not
// in the hosts file.
var ErrUnknownHost = errors.New("computer not in the hosts file")

// unknownHostError says how to add the computer; it is ErrUnknownHost.
type unknownHostError struct{ msg string }

func (e *unknownHostError) Error() string { return e.msg }
func (e *unknownHostError) Unwrap() error { return ErrUnknownHost }

// Lookup returns the entry of host name (compared without case), or an
// error saying how to add it.
func (h *Hosts) Lookup(name string) (*HostConfig, error) {
	if h != nil {
		for k, c := range h.Hosts {
			if strings.EqualFold(k, name) {
				return c, nil
			}
		}
	}
	where := "the hosts file"
	if h != nil && h.Path != "" {
		where = "the hosts file " + h.Path
	}
	return nil, &unknownHostError{fmt.Sprintf("computer %s: not in %s: add it (hosts: {%s: {url: https://%s:%d}}, see %s or remote/HOSTS.md)",
		name, where, name, name, DefaultPort, EnvHosts)}
}

// file resolves a file name of the entry against the hosts file's
// directory.
func (c *HostConfig) file(name string) string {
	if name == "" || filepath.IsAbs(name) || c.dir == "" {
		return name
	}
	return filepath.Join(c.dir, name)
}

// readTrusted reads a file a user's own configuration names, refusing
// what another user could have written or could read: a symbolic link,
// anything but a regular file, a file owned by another user (root is
// trusted), a file writable by group or others, and, when secret, a file
// readable by group or others. The checks are made on the opened file
// (O_NOFOLLOW, then fstat), so the file checked is the file read.
func readTrusted(path string, limit int64, what string, secret bool) ([]byte, error) {
	data, _, err := readChecked(path, limit, what, secret)
	return data, err
}

// fileStat is what the checks read of an opened file.
type fileStat struct {
	uid  uint32
	perm uint32
}

// check applies readTrusted's rules of owner and mode.
func (st fileStat) check(path, what string, secret bool) error {
	me := uint32(os.Geteuid())
	if st.uid != me && st.uid != 0 {
		return fmt.Errorf("%s %s: owned by uid %d, not by you (uid %d) or root: refused (another user could change it)", what, path, st.uid, me)
	}
	if st.perm&0o022 != 0 {
		return fmt.Errorf("%s %s: mode %04o lets group or others write it: refused (chmod go-w %s)", what, path, st.perm, path)
	}
	if secret && st.perm&0o044 != 0 {
		return fmt.Errorf("%s %s: mode %04o lets group or others read a secret: refused (chmod 600 %s)", what, path, st.perm, path)
	}
	if secret && st.uid != me {
		return fmt.Errorf("%s %s: a secret owned by uid %d, not by you (uid %d): refused", what, path, st.uid, me)
	}
	return nil
}

// readChecked is readTrusted, also returning the file's owner and mode.
func readChecked(path string, limit int64, what string, secret bool) ([]byte, fileStat, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return nil, fileStat{}, fmt.Errorf("%s %s: a symbolic link: refused (name the file itself)", what, path)
		}
		return nil, fileStat{}, &os.PathError{Op: "open " + what, Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	var sys unix.Stat_t
	if err := unix.Fstat(fd, &sys); err != nil {
		return nil, fileStat{}, fmt.Errorf("%s %s: %w", what, path, err)
	}
	if sys.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, fileStat{}, fmt.Errorf("%s %s: not a regular file: refused", what, path)
	}
	st := fileStat{uid: sys.Uid, perm: sys.Mode & 0o777}
	if err := st.check(path, what, secret); err != nil {
		return nil, st, err
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, st, fmt.Errorf("%s %s: %w", what, path, err)
	}
	if int64(len(data)) > limit {
		return nil, st, fmt.Errorf("%s %s: larger than %d bytes", what, path, limit)
	}
	return data, st, nil
}

// credentials are what an entry's secrets resolve to.
type credentials struct {
	bearer     string
	user, pass string
	basic      bool
}

// loadCredentials reads the entry's token or password (from the file
// when it names one, checked as a secret).
func (c *HostConfig) loadCredentials() (credentials, error) {
	var cr credentials
	switch {
	case c.BearerToken != "":
		cr.bearer = c.BearerToken
	case c.BearerTokenFile != "":
		b, err := readTrusted(c.file(c.BearerTokenFile), maxSecretFile, "bearer_token_file of "+c.Name, true)
		if err != nil {
			return cr, err
		}
		cr.bearer = strings.TrimSpace(string(b))
		if cr.bearer == "" {
			return cr, fmt.Errorf("bearer_token_file of %s (%s): empty", c.Name, c.file(c.BearerTokenFile))
		}
	case c.BasicAuth != nil:
		cr.basic, cr.user, cr.pass = true, c.BasicAuth.Username, c.BasicAuth.Password
		if c.BasicAuth.PasswordFile != "" {
			b, err := readTrusted(c.file(c.BasicAuth.PasswordFile), maxSecretFile, "basic_auth password_file of "+c.Name, true)
			if err != nil {
				return cr, err
			}
			cr.pass = strings.TrimRight(string(b), "\r\n")
		}
	}
	if strings.ContainsAny(cr.bearer, "\r\n\x00") {
		return cr, fmt.Errorf("bearer token of %s: holds a line break or NUL", c.Name)
	}
	return cr, nil
}

// tlsClientConfig builds the TLS configuration of the entry: the CA file
// (trusted like a configuration file: yours or root's, not writable by
// others), the client certificate, and the key (a secret).
func (c *HostConfig) tlsClientConfig() (*tls.Config, error) {
	t := &c.TLS
	minV, err := tlsVersion(t.MinVersion)
	if err != nil {
		return nil, fmt.Errorf("host %s: tls_config: %w", c.Name, err)
	}
	cfg := &tls.Config{MinVersion: minV, ServerName: t.ServerName, InsecureSkipVerify: t.InsecureSkipVerify,
		NextProtos: []string{"h2", "http/1.1"}}
	if t.CAFile != "" {
		pem, err := readTrusted(c.file(t.CAFile), maxPEMFile, "tls_config ca_file of "+c.Name, false)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tls_config ca_file of %s (%s): no PEM certificate in it", c.Name, c.file(t.CAFile))
		}
		cfg.RootCAs = pool
	}
	if t.CertFile != "" {
		certPEM, err := readTrusted(c.file(t.CertFile), maxPEMFile, "tls_config cert_file of "+c.Name, false)
		if err != nil {
			return nil, err
		}
		keyPEM, err := readTrusted(c.file(t.KeyFile), maxPEMFile, "tls_config key_file of "+c.Name, true)
		if err != nil {
			return nil, err
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("tls_config of %s: cert_file %s and key_file %s: %v", c.Name, c.file(t.CertFile), c.file(t.KeyFile), err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}
