package server

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"
)

// maxPEMBytes bounds a certificate, key or CA file.
const maxPEMBytes = 1 << 20

// fileStamp identifies a file's content cheaply: a rotation (rewrite,
// rename over, symbolic link switched) changes at least one field.
type fileStamp struct {
	dev, ino uint64
	size     int64
	mtime    time.Time
	ctime    syscall.Timespec
}

func stampOf(path string) fileStamp {
	if path == "" {
		return fileStamp{}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{size: -1}
	}
	s := fileStamp{size: fi.Size(), mtime: fi.ModTime()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.dev, s.ino, s.ctime = uint64(st.Dev), st.Ino, st.Ctim
	}
	return s
}

// certStore gives every TLS handshake the configuration built from the
// certificate, key and client CA files as they are now: when any of them
// changed since the last handshake (its stamp differs), they are read
// again. A rotation caught half done (a new certificate with the old key)
// keeps the previous configuration until the files agree again.
type certStore struct {
	t   *TLSConfig
	uid int
	h2  bool
	log *slog.Logger

	mu     sync.Mutex
	stamps [3]fileStamp // of the files when last looked at
	sum    [32]byte     // of the contents cur was built from
	cur    *tls.Config
}

func newCertStore(t *TLSConfig, uid int, h2 bool, log *slog.Logger) (*certStore, error) {
	s := &certStore{t: t, uid: uid, h2: h2, log: log}
	s.stamps = s.stampNow()
	files, sum, err := s.read()
	if err != nil {
		return nil, err
	}
	c, err := s.build(files)
	if err != nil {
		return nil, err
	}
	s.cur, s.sum = c, sum
	return s, nil
}

func (s *certStore) stampNow() [3]fileStamp {
	return [3]fileStamp{stampOf(s.t.CertFile), stampOf(s.t.KeyFile), stampOf(s.t.ClientCAFile)}
}

// racyWindow is how long after a file's last change its stamp may not
// tell a second change: the kernel stamps files with a clock that ticks
// every few milliseconds, so two writes of the same size within a tick
// look alike. Files changed this recently are compared by content.
const racyWindow = 2 * time.Second

// racy reports whether a stamp is too recent to be trusted (racyWindow).
func racy(stamps [3]fileStamp, now time.Time) bool {
	for _, st := range stamps {
		ctime := time.Unix(st.ctime.Sec, st.ctime.Nsec)
		if now.Sub(st.mtime) < racyWindow || now.Sub(ctime) < racyWindow {
			return true
		}
	}
	return false
}

// serverConfig is the tls.Config the server starts with: every handshake
// gets its real configuration from configForClient.
func (s *certStore) serverConfig() *tls.Config {
	return &tls.Config{MinVersion: s.t.minVersion, GetConfigForClient: s.configForClient}
}

func (s *certStore) configForClient(*tls.ClientHelloInfo) (*tls.Config, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.stampNow()
	if now == s.stamps && !racy(now, time.Now()) {
		return s.cur, nil
	}
	changed := now != s.stamps
	s.stamps = now
	files, sum, err := s.read()
	if err == nil && sum == s.sum {
		return s.cur, nil
	}
	var c *tls.Config
	if err == nil {
		c, err = s.build(files)
	}
	if err != nil {
		// Keep serving with the certificates that worked; read again
		// when the files change.
		if changed {
			s.log.Warn("TLS files changed but cannot be used; serving the previous ones", "err", err)
		}
		return s.cur, nil
	}
	s.cur, s.sum = c, sum
	s.log.Info("TLS files re-read", "cert_file", s.t.CertFile)
	return c, nil
}

// tlsFiles are the contents of the certificate, key and client CA files.
type tlsFiles struct{ cert, key, ca []byte }

// read reads the files, with their trust checks, and returns them with
// a digest of all three.
func (s *certStore) read() (tlsFiles, [32]byte, error) {
	t := s.t
	var f tlsFiles
	var err error
	if f.cert, err = readTrusted(t.CertFile, "tls_server_config.cert_file", kindConfig, s.uid, maxPEMBytes); err != nil {
		return f, [32]byte{}, err
	}
	if f.key, err = readTrusted(t.KeyFile, "tls_server_config.key_file", kindSecret, s.uid, maxPEMBytes); err != nil {
		return f, [32]byte{}, err
	}
	if t.ClientCAFile != "" {
		if f.ca, err = readTrusted(t.ClientCAFile, "tls_server_config.client_ca_file", kindConfig, s.uid, maxPEMBytes); err != nil {
			return f, [32]byte{}, err
		}
	}
	h := sha256.New()
	for _, b := range [][]byte{f.cert, f.key, f.ca} {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	return f, [32]byte(h.Sum(nil)), nil
}

// defaultSuites are the TLS 1.2 cipher suites offered when the
// configuration names none: forward-secret (ECDHE) and authenticated
// encryption (AES-GCM, ChaCha20-Poly1305) only. Go's own default also
// takes the CBC-SHA suites, whose MAC-then-encrypt construction has given
// padding oracles (Lucky Thirteen); every client of this decade speaks
// one of these, and TLS 1.3 (whose suites are all AEAD) is offered first.
var defaultSuites = []uint16{
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
}

// build makes the handshake configuration of the files' contents.
func (s *certStore) build(f tlsFiles) (*tls.Config, error) {
	t := s.t
	cert, err := tls.X509KeyPair(f.cert, f.key)
	if err != nil {
		return nil, fmt.Errorf("tls_server_config: certificate %s and key %s: %w", t.CertFile, t.KeyFile, err)
	}
	suites := t.suites
	if len(suites) == 0 {
		suites = defaultSuites
	}
	c := &tls.Config{
		Certificates:     []tls.Certificate{cert},
		MinVersion:       t.minVersion,
		MaxVersion:       t.maxVersion,
		CipherSuites:     suites,
		CurvePreferences: t.curves,
		ClientAuth:       t.clientAuth,
		NextProtos:       []string{"http/1.1"},
	}
	if s.h2 {
		c.NextProtos = []string{"h2", "http/1.1"}
	}
	if t.ClientCAFile != "" {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(f.ca) {
			return nil, fmt.Errorf("tls_server_config.client_ca_file %s: no PEM certificate in it", t.ClientCAFile)
		}
		c.ClientCAs = pool
	}
	if len(t.ClientAllowedSANs) > 0 {
		allowed := t.ClientAllowedSANs
		c.VerifyPeerCertificate = func(_ [][]byte, chains [][]*x509.Certificate) error {
			if len(chains) == 0 || len(chains[0]) == 0 {
				return nil // no certificate given (VerifyClientCertIfGiven)
			}
			for _, san := range certSANs(chains[0][0]) {
				if slices.Contains(allowed, san) {
					return nil
				}
			}
			return errors.New("client certificate: none of its subject alternative names is in client_allowed_sans")
		}
	}
	return c, nil
}

// certSANs lists a certificate's subject alternative names as text:
// DNS names, e-mail addresses, IP addresses and URIs.
func certSANs(c *x509.Certificate) []string {
	var out []string
	out = append(out, c.DNSNames...)
	out = append(out, c.EmailAddresses...)
	for _, ip := range c.IPAddresses {
		out = append(out, ip.String())
	}
	for _, u := range c.URIs {
		out = append(out, u.String())
	}
	return out
}
