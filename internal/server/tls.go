package server

import (
	"crypto/tls"
	"crypto/x509"
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
	stamps [3]fileStamp
	cur    *tls.Config
}

func newCertStore(t *TLSConfig, uid int, h2 bool, log *slog.Logger) (*certStore, error) {
	s := &certStore{t: t, uid: uid, h2: h2, log: log}
	s.stamps = s.stampNow()
	c, err := s.load()
	if err != nil {
		return nil, err
	}
	s.cur = c
	return s, nil
}

func (s *certStore) stampNow() [3]fileStamp {
	return [3]fileStamp{stampOf(s.t.CertFile), stampOf(s.t.KeyFile), stampOf(s.t.ClientCAFile)}
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
	if now == s.stamps {
		return s.cur, nil
	}
	c, err := s.load()
	if err != nil {
		// Keep serving with the certificates that worked; try again at
		// the next handshake.
		s.log.Warn("TLS files changed but cannot be used; serving the previous ones", "err", err)
		return s.cur, nil
	}
	s.stamps, s.cur = now, c
	s.log.Info("TLS files re-read", "cert_file", s.t.CertFile)
	return c, nil
}

// load reads the files and builds the handshake configuration.
func (s *certStore) load() (*tls.Config, error) {
	t := s.t
	certPEM, err := readTrusted(t.CertFile, "tls_server_config.cert_file", kindConfig, s.uid, maxPEMBytes)
	if err != nil {
		return nil, err
	}
	keyPEM, err := readTrusted(t.KeyFile, "tls_server_config.key_file", kindSecret, s.uid, maxPEMBytes)
	if err != nil {
		return nil, err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("tls_server_config: certificate %s and key %s: %w", t.CertFile, t.KeyFile, err)
	}
	c := &tls.Config{
		Certificates:     []tls.Certificate{cert},
		MinVersion:       t.minVersion,
		MaxVersion:       t.maxVersion,
		CipherSuites:     t.suites,
		CurvePreferences: t.curves,
		ClientAuth:       t.clientAuth,
		NextProtos:       []string{"http/1.1"},
	}
	if s.h2 {
		c.NextProtos = []string{"h2", "http/1.1"}
	}
	if t.ClientCAFile != "" {
		caPEM, err := readTrusted(t.ClientCAFile, "tls_server_config.client_ca_file", kindConfig, s.uid, maxPEMBytes)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caPEM) {
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
