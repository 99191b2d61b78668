package server

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// testCA is a certificate authority made for one test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newTestCA(t *testing.T, name string) *testCA {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// leaf is a certificate the CA issued, with its key, in PEM.
type leaf struct {
	certPEM, keyPEM []byte
	serial          int64
}

func (l leaf) tls(t *testing.T) tls.Certificate {
	t.Helper()
	c, err := tls.X509KeyPair(l.certPEM, l.keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// issue makes a certificate: a server's (for localhost and 127.0.0.1)
// or a client's with the DNS names given, valid from notBefore to
// notAfter.
func (ca *testCA) issue(t *testing.T, serial int64, server bool, dns []string, notBefore, notAfter time.Time) leaf {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: "perfc test"},
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		DNSNames:     dns,
	}
	if server {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
		tmpl.DNSNames = append(tmpl.DNSNames, "localhost")
	} else {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return leaf{
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}),
		serial:  serial,
	}
}

// pki is a test's certificates: a CA, the server's certificate and key
// written to files, and client certificates good, expired, from another
// CA, and with a SAN that is not allowed.
type pki struct {
	dir                          string
	ca                           *testCA
	caFile, certFile, keyFile    string
	server                       leaf
	good, logger, expired, other leaf
	stranger                     leaf
}

func newPKI(t *testing.T) *pki {
	t.Helper()
	dir := t.TempDir()
	now := time.Now()
	ca := newTestCA(t, "perfc test CA")
	p := &pki{dir: dir, ca: ca,
		caFile: filepath.Join(dir, "ca.crt"), certFile: filepath.Join(dir, "server.crt"), keyFile: filepath.Join(dir, "server.key")}
	p.server = ca.issue(t, 10, true, nil, now.Add(-time.Hour), now.Add(time.Hour))
	p.good = ca.issue(t, 20, false, []string{"grafana.example.com"}, now.Add(-time.Hour), now.Add(time.Hour))
	p.logger = ca.issue(t, 21, false, []string{"ops.example.com"}, now.Add(-time.Hour), now.Add(time.Hour))
	p.expired = ca.issue(t, 22, false, []string{"grafana.example.com"}, now.Add(-48*time.Hour), now.Add(-24*time.Hour))
	p.stranger = ca.issue(t, 23, false, []string{"stranger.example.com"}, now.Add(-time.Hour), now.Add(time.Hour))
	p.other = newTestCA(t, "another CA").issue(t, 24, false, []string{"grafana.example.com"}, now.Add(-time.Hour), now.Add(time.Hour))
	writeFile(t, p.caFile, ca.pem, 0o644)
	p.install(t, p.server)
	return p
}

// install writes l as the server's certificate and key, replacing the
// files by rename as certificate tools do.
func (p *pki) install(t *testing.T, l leaf) {
	t.Helper()
	writeFile(t, p.certFile+".new", l.certPEM, 0o644)
	writeFile(t, p.keyFile+".new", l.keyPEM, 0o600)
	for _, f := range []string{p.certFile, p.keyFile} {
		if err := os.Rename(f+".new", f); err != nil {
			t.Fatal(err)
		}
	}
}

// roots is a pool holding the test CA, for clients.
func (p *pki) roots() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(p.ca.cert)
	return pool
}

func writeFile(t *testing.T, path string, b []byte, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, b, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // umask
		t.Fatal(err)
	}
}
