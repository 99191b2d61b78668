package prom

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestSelfMetrics: build information with Go's version, OS and
// architecture; per object asked for, success 1 when the sample has it
// and 0 when not (Thread: in the title database, not in the Windows
// samples), and a duration that is a number of seconds >= 0; both
// formats pass the checks of the goldens.
func TestSelfMetrics(t *testing.T) {
	objects := []string{"Processor", "Memory", "Thread"}
	for _, f := range []Format{Text, OpenMetrics} {
		col, err := NewCollector(windowsSource(t), Options{Objects: objects})
		if err != nil {
			t.Fatal(err)
		}
		b, err := col.Scrape(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		body := string(b)
		want := `perfc_exporter_build_info{version="`
		if !strings.Contains(body, want) || !strings.Contains(body, `goversion="`+runtime.Version()+`",goos="`+runtime.GOOS+`",goarch="`+runtime.GOARCH+`"} 1`) {
			t.Errorf("no build information in\n%s", body)
		}
		for obj, ok := range map[string]string{"Processor": "1", "Memory": "1", "Thread": "0"} {
			if line := `perfc_scrape_collector_success{collector="` + obj + `"} ` + ok; !strings.Contains(body, line+"\n") {
				t.Errorf("no %q", line)
			}
			prefix := `perfc_scrape_collector_duration_seconds{collector="` + obj + `"} `
			i := strings.Index(body, prefix)
			if i < 0 {
				t.Errorf("no duration of %s", obj)
				continue
			}
			v, _, _ := strings.Cut(body[i+len(prefix):], "\n")
			if d, err := strconv.ParseFloat(v, 64); err != nil || d < 0 {
				t.Errorf("duration of %s: %q", obj, v)
			}
		}
		if f == OpenMetrics {
			checkOpenMetrics(t, body)
		} else {
			promtoolCheck(t, body)
		}
	}
	// The classic profile is perfc's export before them: none.
	col, err := NewCollector(windowsSource(t), Options{Objects: objects, Profile: ProfileClassic})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := col.Scrape(context.Background(), Text)
	if strings.Contains(string(b), "_exporter_build_info") {
		t.Error("classic profile writes self-metrics")
	}
}

func TestNegotiateEncoding(t *testing.T) {
	for _, tc := range []struct{ header, want string }{
		{"", ""},
		{"gzip", "gzip"},
		{"x-gzip", "gzip"},
		{"zstd", "zstd"},
		{"gzip, zstd", "gzip"},
		{"gzip;q=0.5, zstd", "zstd"},
		{"zstd;q=0.9, gzip;q=1.0", "gzip"},
		{"gzip;q=0", ""},
		{"deflate, br", ""},
		{"*", "gzip"},
		{"*;q=0.1, zstd", "zstd"},
		{"identity", ""},
		{"gzip;q=nonsense", ""},
		{"GZIP ; Q=0.3", "gzip"},
		// Identity ranked above the codings asked for wins.
		{"identity;q=1, gzip;q=0.5", ""},
		{"gzip;q=0.5, identity;q=0.4", "gzip"},
		{"*;q=0, gzip;q=0.2", "gzip"},
		{"identity;q=0, zstd;q=0.1", "zstd"},
		{"*;q=0.5, identity;q=0.8", ""},
	} {
		if got := NegotiateEncoding(tc.header); got != tc.want {
			t.Errorf("NegotiateEncoding(%q) = %q, want %q", tc.header, got, tc.want)
		}
	}
}

// TestCompression: an answer asked for with gzip or zstd comes with that
// Content-Encoding and decompresses to the uncompressed answer; one
// asked for with neither comes as it is. Sizes are logged.
func TestCompression(t *testing.T) {
	h, err := NewHandler(linuxSource(t), Options{NoSelfMetrics: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	get := func(enc string) (*http.Response, []byte) {
		req, _ := http.NewRequest("GET", srv.URL, nil)
		if enc != "" {
			req.Header.Set("Accept-Encoding", enc)
		}
		// The transport would ask for gzip and undo it itself: set
		// the header by hand and read the bytes as they come.
		resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Header.Get("Content-Length") != strconv.Itoa(len(b)) {
			t.Errorf("%s: Content-Length %s for %d bytes", enc, resp.Header.Get("Content-Length"), len(b))
		}
		return resp, b
	}
	get("") // the source's first sample; every scrape after has its second
	_, plain := get("identity")
	for _, enc := range []string{"gzip", "zstd"} {
		resp, b := get(enc)
		if ce := resp.Header.Get("Content-Encoding"); ce != enc {
			t.Fatalf("%s: Content-Encoding %q", enc, ce)
		}
		var out []byte
		switch enc {
		case "gzip":
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if out, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		case "zstd":
			d, err := zstd.NewReader(nil)
			if err != nil {
				t.Fatal(err)
			}
			if out, err = d.DecodeAll(b, nil); err != nil {
				t.Fatal(err)
			}
			d.Close()
		}
		if !bytes.Equal(out, plain) {
			t.Errorf("%s: decompressed answer differs from the plain one", enc)
		}
		if len(b) >= len(plain) {
			t.Errorf("%s: %d bytes, not less than the plain %d", enc, len(b), len(plain))
		}
		t.Logf("%s: %d bytes for %d", enc, len(b), len(plain))
	}
	if resp, _ := get("identity"); resp.Header.Get("Content-Encoding") != "" {
		t.Errorf("identity answered with Content-Encoding %q", resp.Header.Get("Content-Encoding"))
	}
}
