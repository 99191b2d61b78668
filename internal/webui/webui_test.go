package webui_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/internal/webui"
)

func TestServe(t *testing.T) {
	h := webui.New()
	index, err := os.ReadFile(filepath.Join("assets", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	app, err := os.ReadFile(filepath.Join("assets", "app.js"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		method, path string
		status       int
		ctype        string
		body         []byte
	}{
		{"GET", "/", 200, "text/html; charset=utf-8", index},
		{"HEAD", "/", 200, "text/html; charset=utf-8", nil},
		{"GET", "/index.html", 200, "text/html; charset=utf-8", index},
		{"GET", "/app.js", 200, "text/javascript; charset=utf-8", app},
		{"GET", "/model.js", 200, "text/javascript; charset=utf-8", nil},
		{"GET", "/axes.js", 200, "text/javascript; charset=utf-8", nil},
		{"GET", "/style.css", 200, "text/css; charset=utf-8", nil},
		{"GET", "/vendor/uPlot.iife.min.js", 200, "text/javascript; charset=utf-8", nil},
		{"GET", "/vendor/uPlot.min.css", 200, "text/css; charset=utf-8", nil},
		{"GET", "/vendor/SOURCES", 404, "", nil},
		{"GET", "/nothing.js", 404, "", nil},
		{"GET", "/../webui.go", 404, "", nil},
		{"GET", "/vendor/", 404, "", nil},
		{"POST", "/", 405, "", nil},
		{"DELETE", "/app.js", 405, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(tt.method, tt.path, nil))
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d", w.Code, tt.status)
			}
			if got := w.Header().Get("Content-Security-Policy"); got != webui.ContentSecurityPolicy {
				t.Errorf("Content-Security-Policy %q", got)
			}
			if got := w.Header().Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options %q", got)
			}
			if tt.ctype != "" && w.Header().Get("Content-Type") != tt.ctype {
				t.Errorf("Content-Type %q, want %q", w.Header().Get("Content-Type"), tt.ctype)
			}
			if tt.body != nil && !bytes.Equal(w.Body.Bytes(), tt.body) {
				t.Errorf("body of %d bytes, not the file's %d", w.Body.Len(), len(tt.body))
			}
			if tt.method == "HEAD" && w.Body.Len() != 0 {
				t.Errorf("HEAD answered %d bytes of body", w.Body.Len())
			}
			if tt.status == 405 && w.Header().Get("Allow") != "GET, HEAD" {
				t.Errorf("Allow %q", w.Header().Get("Allow"))
			}
		})
	}
}

// TestOffline: the page names no resource outside its own origin, so it
// works on a machine without internet (the CSP would block one anyway).
func TestOffline(t *testing.T) {
	ext := regexp.MustCompile(`(?i)(src|href)\s*=\s*["'](https?:)?//|@import|url\(\s*["']?https?:|fetch\(\s*["']https?:`)
	for _, name := range []string{"index.html", "app.js", "model.js", "axes.js", "logs.js", "session.js", "sets.js", "style.css"} {
		b, err := os.ReadFile(filepath.Join("assets", name))
		if err != nil {
			t.Fatal(err)
		}
		if m := ext.Find(b); m != nil {
			t.Errorf("%s loads from elsewhere: %q", name, m)
		}
	}
	// Every file index.html loads is served.
	b, _ := os.ReadFile(filepath.Join("assets", "index.html"))
	refs := regexp.MustCompile(`(?:src|href)="([^"]+)"`).FindAllSubmatch(b, -1)
	if len(refs) < 4 {
		t.Fatalf("index.html loads %d files, want the 2 styles and 2 scripts", len(refs))
	}
	h := webui.New()
	for _, m := range refs {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/"+string(m[1]), nil))
		if w.Code != http.StatusOK {
			t.Errorf("index.html loads %s: %d", m[1], w.Code)
		}
	}
}

// TestVendoredAssets checks the committed npm files against the lock
// file: assets/vendor/SOURCES (written by ui/build.sh) must name each
// package at the version and integrity package-lock.json pins, each
// committed file must have the sha256 SOURCES records, and, where
// ui/node_modules is installed (.ci/run runs build.sh first), equal the
// installed package's file byte for byte.
func TestVendoredAssets(t *testing.T) {
	lockb, err := os.ReadFile(filepath.Join("ui", "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	var lock struct {
		Packages map[string]struct {
			Version   string `json:"version"`
			Integrity string `json:"integrity"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(lockb, &lock); err != nil {
		t.Fatalf("ui/package-lock.json: %v", err)
	}
	f, err := os.Open(filepath.Join("assets", "vendor", "SOURCES"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	files, pkgs := 0, map[string]bool{}
	for line := 1; sc.Scan(); line++ {
		w := strings.Fields(sc.Text())
		switch {
		case len(w) == 0 || strings.HasPrefix(w[0], "#"):
		case w[0] == "package" && len(w) == 4:
			p, ok := lock.Packages["node_modules/"+w[1]]
			if !ok || p.Version != w[2] || p.Integrity != w[3] {
				t.Errorf("SOURCES:%d: %s %s %s, but the lock has %q %q (run internal/webui/ui/build.sh)", line, w[1], w[2], w[3], p.Version, p.Integrity)
			}
			pkgs[w[1]] = true
		case w[0] == "file" && len(w) == 5:
			files++
			b, err := os.ReadFile(filepath.Join("assets", "vendor", w[1]))
			if err != nil {
				t.Errorf("SOURCES:%d: %v", line, err)
				continue
			}
			if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != w[2] {
				t.Errorf("SOURCES:%d: assets/vendor/%s has sha256 %x, SOURCES says %s (edited by hand? run internal/webui/ui/build.sh)", line, w[1], sum, w[2])
			}
			if !pkgs[w[3]] {
				t.Errorf("SOURCES:%d: file of package %s, which SOURCES does not list", line, w[3])
			}
			src := filepath.Join("ui", "node_modules", w[3], w[4])
			nb, err := os.ReadFile(src)
			switch {
			case err == nil && !bytes.Equal(nb, b):
				t.Errorf("assets/vendor/%s differs from %s (run internal/webui/ui/build.sh)", w[1], src)
			case err != nil && os.Getenv("CI") == "true":
				t.Errorf("%v: .ci/run builds the assets before the tests", err)
			}
		default:
			t.Errorf("SOURCES:%d: %q is no package or file line", line, sc.Text())
		}
	}
	if files == 0 {
		t.Fatal("SOURCES lists no file")
	}
	entries, err := os.ReadDir(filepath.Join("assets", "vendor"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != files+1 {
		t.Errorf("assets/vendor holds %d files, SOURCES lists %d (and itself)", len(entries), files)
	}
}
