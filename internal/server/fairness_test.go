package server

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/remote"
)

// TestSlowBodiesOfOneIdentity: a caller with the least role opens twice
// as many requests as the server has slots, each sending one byte of its
// body and then holding it; another caller's request still gets in.
func TestSlowBodiesOfOneIdentity(t *testing.T) {
	api, inHandler := drainingAPI()
	const total = 8
	s := serve(t, Options{API: api, ConfigFile: writeConfig(t, t.TempDir(), authYAML(t)), Limits: Limits{MaxConcurrent: total}})
	addr := s.Addr().String()
	var answered atomic.Int32
	for i := range total {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if _, err := fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{", remote.PathHost, addr, monitorToken); err != nil {
			t.Fatalf("attacking request %d: %v", i, err)
		}
		go func() {
			// A refused request is answered at once; one let in waits
			// for the rest of its body.
			if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
				resp.Body.Close()
				answered.Add(1)
			}
		}()
	}
	// Every attacking request is in the handler or answered.
	deadline := time.Now().Add(30 * time.Second)
	for int(inHandler.Load()+answered.Load()) < total {
		if time.Now().After(deadline) {
			t.Fatalf("%d attacking requests in the handler, %d answered, of %d", inHandler.Load(), answered.Load(), total)
		}
		time.Sleep(5 * time.Millisecond)
	}
	a := do(t, &http.Client{}, "GET", s.URL()+remote.PathHost, bearer(logToken))
	if a.status != 200 {
		t.Fatalf("another caller while the first holds %d slow requests: status %d: %s", inHandler.Load(), a.status, a.body)
	}
}

// TestRateLimitPerNetwork: failed and unauthenticated attempts from
// several addresses of one network (here loopback's, which any local
// user may send from) share one bucket.
func TestRateLimitPerNetwork(t *testing.T) {
	s := serve(t, Options{ConfigFile: writeConfig(t, t.TempDir(), authYAML(t)+"rate_limit:\n  interval: 1h\n  burst: 2\n")})
	from := func(ip string) *http.Client {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
		return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	}
	for i, h := range []map[string]string{nil, basicHeader("alice", "guess 1"), basicHeader("alice", "guess 2"), basicHeader("alice", alicePass), nil} {
		a := do(t, from(fmt.Sprintf("127.0.0.%d", 2+i)), "GET", s.URL()+remote.PathHost, h)
		want := 401
		if i >= 2 {
			want = 429
		}
		checkError(t, a, want)
	}
}

// TestSlotsShare: a lone caller may use half the slots; past its share
// it borrows no more once half are taken, and others still get theirs.
func TestSlotsShare(t *testing.T) {
	s := newSlots(16, 2)
	n := 0
	for {
		if _, ok, _ := s.acquire("a"); !ok {
			break
		}
		n++
	}
	if n != 8 {
		t.Fatalf("a lone caller got %d of 16 slots, want 8", n)
	}
	for i := range 2 {
		if _, ok, _ := s.acquire("b"); !ok {
			t.Fatalf("b's slot %d refused while a holds %d", i+1, n)
		}
	}
	if _, ok, own := s.acquire("b"); ok || !own {
		t.Fatalf("b past its share: ok %v own %v, want refused as its share", ok, own)
	}
}

// TestSocketOwner: the owner of a loopback connection's client end is
// found in the kernel's socket table, over IPv4 and IPv6.
func TestSocketOwner(t *testing.T) {
	for _, network := range []string{"tcp4", "tcp6"} {
		host := map[string]string{"tcp4": "127.0.0.1:0", "tcp6": "[::1]:0"}[network]
		ln, err := net.Listen(network, host)
		if err != nil {
			t.Logf("%s: %v", network, err)
			continue
		}
		defer ln.Close()
		c, err := net.Dial(network, ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		sc, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer sc.Close()
		if got, want := peerUser(withPeer(context.Background(), sc)), "uid:"+strconv.Itoa(os.Geteuid()); got != want {
			t.Errorf("%s: peer %q, want %q", network, got, want)
		}
	}
}

// TestNetworkBucket: a network's bucket is looked at without being
// spent; failures spend it, past empty into debt, which later attempts
// wait out.
func TestNetworkBucket(t *testing.T) {
	l := newClientLimiter(RateLimit{Interval: time.Second, Burst: 2}, 10)
	now := time.Unix(1_000_000_000, 0)
	for range 5 {
		if spent, _ := l.spent("net:a", now); spent {
			t.Fatal("a network never charged is spent")
		}
	}
	if l.size() != 0 {
		t.Errorf("%d buckets made by looking", l.size())
	}
	for range 3 { // one more than the burst: raced past the check
		l.charge("net:a", now)
	}
	spent, wait := l.spent("net:a", now)
	if !spent || wait != 2*time.Second {
		t.Errorf("after 3 failures with burst 2: spent %v, wait %v; want spent, 2s (the debt, then a token)", spent, wait)
	}
	if spent, _ := l.spent("net:a", now.Add(2*time.Second)); spent {
		t.Error("still spent once the debt is paid")
	}
}
