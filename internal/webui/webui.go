// Package webui is perfmon in the browser: the page `perfc perfmon` (and
// `perfc serve`) shows, with a line graph, a histogram and a report of
// counters, a legend and value bar, and an Add Counters dialog. The page
// is plain JavaScript (ES modules) and uPlot, all embedded in the binary:
// it loads nothing from elsewhere and works on an offline machine. It
// talks only to the /v1 API of package remote (API.md), on the same
// origin: /v1/host, /v1/objects, /v1/objects/{name} and one POST
// /v1/formatted per update interval with every path the page shows. The
// Add Counters dialog lists the remote computers /v1/host names
// (computers: those the server reads through its hosts file); choosing
// one asks /v1/objects with computer=NAME, and its counters are added as
// \\NAME\Object(instance)\Counter, answered by the server in the same
// POST.
//
// In log mode (assets/logs.js) it reads a log through /v1/logs
// (internal/logview, whose API.md describes it): a log the server was
// given, or one the page's "Open log…" uploads. It asks once for the
// values of every path over the whole log (past the server's limit on
// values per answer, over part of it) and slices them by the time
// range (drag in the overview, zoom, whole log, From/To sample); the
// value bar shows the range's Last, Average, Minimum, Maximum and
// Duration, the report and histogram the value at the range's end
// (ReportValueType Current, as perfmon's report of a log) or the range's
// average, minimum or maximum, and the line, area and stacked area views
// (DisplayType 4 and 5, for logs only) every sample of the range. A
// log's times are shown in its own wall clock (the zone it was recorded
// in), live ones in the browser's local time; the title names the
// computer whose counters are shown (the log's in log mode).
//
// The page is Windows' console (assets/sets.js): a node tree on the left
// (Monitoring Tools > Performance Monitor; Data Collector Sets > User
// Defined, System; Reports > User Defined and each set) switches the
// right pane. Data Collector Sets lists the server's sets (GET /v1/sets)
// with their state, last run and next scheduled start, and starts,
// stops, deletes, creates (from the graph's counters or from scratch)
// and changes them through POST /v1/sets, PATCH and DELETE
// /v1/sets/{name} and POST /v1/sets/{name}/start|stop, each property in
// the syntax of its logman option (an alert's thresholds too); a caller
// of the monitor role sees them with those buttons disabled. Reports
// lists each counter set's logs (GET /v1/sets/{name}/runs); one click
// downloads one (runs/{file}) and opens it in log mode with the set's
// counters, and the file a running set writes is reopened every few
// seconds while shown, so that the graph follows the recording.
//
// As Windows' Performance Monitor, the page opens live with
// \Processor(_Total)\% Processor Time plotted, unless a #settings= link
// (or a log the server was given) chose what it shows, or the user
// removed that counter earlier in the tab's session (sessionStorage).
// The graphs' axes are drawn by one code path (assets/axes.js): time
// labels whose form follows the span and the ticks' step (HH:MM:SS.f to
// dates, model.js timeLabel), and a vertical scale of ten equal steps
// that the histogram shares. The page fills the window: the legend, or
// the report in its view, scrolls within what the graph leaves.
//
// A server mounts it beside the API, both behind its authentication:
//
//	s, err := server.New(server.Options{API: apiserver.NewHandler(h.Source(), opts), Page: webui.New()})
//
// The page sends no credentials of its own: its requests carry what the
// browser holds for the origin (a cookie, Basic authentication, a client
// certificate), so the authentication must accept one of those for the
// page's GETs and its POSTs to /v1/formatted. internal/server does
// (Options.Page): Basic, client certificates, and bearer tokens
// exchanged for a session cookie at /?token=, which perfc serve and perfc
// perfmon both use.
//
// The built files of npm packages (assets/vendor) are made by
// ui/build.sh from ui/package-lock.json and committed; their SOURCES file
// records where each comes from and its sha256.
package webui

import (
	"bytes"
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

//go:embed assets
var assets embed.FS

// ContentSecurityPolicy is the policy every answer of the handler
// carries: the page runs only its own scripts and styles and connects
// only to its own origin.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the page and its files. Create it with New.
type Handler struct {
	files fs.FS
}

// New returns the handler of the page. Mount it at the server's root
// beside the /v1 API (apiserver.NewHandler), behind the same
// authentication: the page's requests go to /v1/... of the same origin.
// It answers GET and HEAD of "/" (the page) and of the files the page
// loads; anything else is 404 or 405.
func New() *Handler {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded tree always has assets/
	}
	return &Handler{files: sub}
}

// ServeHTTP answers a request for the page or one of its files.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", ContentSecurityPolicy)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-cache")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed: the page answers GET and HEAD", http.StatusMethodNotAllowed)
		return
	}
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if name == "" {
		name = "index.html"
	}
	if name == "SOURCES" || strings.HasSuffix(name, "/SOURCES") || !fs.ValidPath(name) {
		http.NotFound(w, r)
		return
	}
	b, err := fs.ReadFile(h.files, name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	if ct := contentType(name); ct != "" {
		hd.Set("Content-Type", ct)
	}
	// Embedded files have no time: no Last-Modified.
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
}

// contentType is the media type of an embedded file, by its extension
// (set here so the answer does not depend on the host's mime tables).
func contentType(name string) string {
	switch path.Ext(name) {
	case ".html":
		return "text/html; charset=utf-8"
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	case ".LICENSE", ".txt":
		return "text/plain; charset=utf-8"
	}
	return ""
}
