package remote

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/perfdata"
)

// FuzzDecodeProblems: any Perfc-Problems header value decodes or is an
// error, never a panic, and what decodes encodes to a value that decodes
// to the same problems.
func FuzzDecodeProblems(f *testing.F) {
	f.Add(`[{"object":238,"objectName":"Processor","reason":"provider failed"}]`)
	f.Add(`[{"object":230,"objectName":"Process","reason":"unreadable","partial":true,"missing":[{"instance":3,"counters":[6,784]},{"instance":-1}]}]`)
	f.Add(`[]`)
	f.Add(`[{"object":1,"objectName":"\u00e9\ud83d\ude00","reason":"x"}]`)
	f.Add(`[{"object":2,"objectName":"\u001b[2J","reason":"x\nperfc: fake line\u009b"}]`)
	f.Fuzz(func(t *testing.T, v string) {
		ps, err := DecodeProblems(v)
		if err != nil {
			return
		}
		for _, p := range ps {
			// Another computer's texts reach a terminal escaped.
			if strings.ContainsFunc(p.Reason+p.ObjectName, func(r rune) bool { return r < 0x20 || r >= 0x7f && r <= 0x9f }) {
				t.Fatalf("decoded problem %q / %q holds control characters", p.ObjectName, p.Reason)
			}
		}
		enc, err := EncodeProblems(ps)
		if err != nil {
			t.Fatal(err)
		}
		for i := range len(enc) {
			if enc[i] >= 0x80 {
				t.Fatalf("encoded header holds a non-ASCII byte at %d", i)
			}
		}
		back, err := DecodeProblems(enc)
		if err != nil || len(back) != len(ps) {
			t.Fatalf("round trip: %d problems, %v (had %d)", len(back), err, len(ps))
		}
	})
}

// FuzzParseHosts: any hosts file parses or is an error, never a panic;
// every entry of one that parses has a URL with a port.
func FuzzParseHosts(f *testing.F) {
	f.Add([]byte("hosts:\n  db7:\n    url: https://db7.example:9443\n    bearer_token_file: db7.token\n    tls_config: {ca_file: ca.pem, min_version: TLS13}\n    timeout: 2s\n"))
	f.Add([]byte("hosts: {a: {basic_auth: {username: u, password_file: p}}, b: {url: 'http://[::1]:1'}}"))
	f.Add([]byte("hosts: {x: {body_size_limit: 64MiB}}"))
	f.Add([]byte("hosts: &a {x: *a}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ParseHosts(data)
		if err != nil {
			return
		}
		for name, c := range h.Hosts {
			if c.Name != name || !strings.Contains(c.URL, "://") {
				t.Fatalf("entry %q: %+v", name, c)
			}
		}
	})
}

// FuzzClientAnswer: any answer of a server (status, media type, problems
// header, body) is read or refused with an error naming the host, never
// a panic, and a sample that is read carries the client's machine name.
func FuzzClientAnswer(f *testing.F) {
	b := perfdata.NewBuilder(nil)
	b.Reset(perfdata.Header{PerfTime: 1, PerfFreq: 1e7, PerfTime100nSec: 133_000_000_000_000_000, SystemName: "DB7-REAL"})
	l, err := perfdata.NewLayout([]perfdata.CounterSpec{{NameIndex: 6, HelpIndex: 7, Type: 0x10000}})
	if err != nil {
		f.Fatal(err)
	}
	if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: 238, HelpIndex: 239, Single: true}, l, []perfdata.CounterSpec{{NameIndex: 6, HelpIndex: 7, Type: 0x10000}}); err != nil {
		f.Fatal(err)
	}
	b.Single().Set(0, 42)
	if err := b.EndObject(); err != nil {
		f.Fatal(err)
	}
	block := bytes.Clone(b.Bytes())
	f.Add(200, MediaBlock, "", block)
	f.Add(200, MediaBlock, `[{"object":238,"objectName":"Processor","reason":"x","partial":true,"missing":[{"instance":-1}]}]`, block)
	f.Add(401, MediaJSON, "", []byte(`{"error":{"status":401,"code":"unauthorized","reason":"no"}}`))
	f.Add(200, MediaBlock+"; charset=x", "", block[:100])
	f.Add(500, "text/plain", "", []byte("boom\x00"))
	f.Fuzz(func(t *testing.T, status int, media, problems string, body []byte) {
		c := &Client{name: "db7", limit: 1 << 20}
		resp := &http.Response{StatusCode: status, Status: strconv.Itoa(status), Header: http.Header{},
			Body: io.NopCloser(bytes.NewReader(body)), ContentLength: -1}
		resp.Header.Set("Content-Type", media)
		if problems != "" {
			resp.Header.Set(HeaderProblems, problems)
		}
		raw, probs, err := c.readAnswer(resp, "https://db7:9641/v1/query?value=238", MediaBlock)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "db7: ") {
				t.Fatalf("error %q does not start with the host", err)
			}
			return
		}
		smp, err := c.sampleOf(raw, probs)
		if err != nil {
			return
		}
		if got := smp.Blocks[0].Header().SystemName; got != "db7" && !strings.EqualFold(got, "db7") {
			t.Fatalf("sample of machine %q, want db7", got)
		}
		for _, p := range smp.Problems {
			if p.Machine != "db7" {
				t.Fatalf("problem of machine %q", p.Machine)
			}
		}
	})
}

// FuzzPlainAnswer: any bytes a server sends back on a plain-HTTP
// connection (the client's own, see plainConn) are read as an answer or
// refused with an error naming the host, never a panic, and the
// connection is kept only after a whole answer.
func FuzzPlainAnswer(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Type: " + MediaBlock + "\r\nContent-Length: 4\r\n\r\nPERF"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Type: " + MediaBlock + "\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nPERF\r\n0\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 302 Found\r\nLocation: http://elsewhere/\r\nContent-Length: 0\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"))
	f.Fuzz(func(t *testing.T, answer []byte) {
		c := &Client{name: "db7", base: "http://127.0.0.1:1", limit: 1 << 16, timeout: 5 * time.Second}
		p := newPlainConn(c.base, credentials{bearer: "t"})
		client, server := net.Pipe()
		defer server.Close()
		go func() {
			// Read the request's head, answer, and close.
			br := bufio.NewReader(server)
			for {
				l, err := br.ReadString('\n')
				if err != nil || l == "\r\n" {
					break
				}
			}
			server.Write(answer)
			server.Close()
		}()
		p.conn, p.br = client, bufio.NewReader(client)
		_, _, answered, err := c.roundTrip(context.Background(), p, "238", MediaBlock, c.base+PathQuery+"?value=238")
		if err != nil && err != errUseTransport && answered && !strings.HasPrefix(err.Error(), "db7: ") {
			t.Fatalf("error %q of an answer does not start with the host", err)
		}
		if err != nil && p.conn != nil {
			t.Fatalf("connection kept after %v", err)
		}
		p.close()
	})
}
