package prom

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/perfcounters/perfcounters/pdh"
)

// NewHandler returns the /metrics handler of src's counters: a Collector
// serving HTTP. See Collector.ServeHTTP.
func NewHandler(src pdh.Source, opts Options) (http.Handler, error) {
	return NewCollector(src, opts)
}

// Negotiate picks the format a scraper's Accept header asks for:
// OpenMetrics when it names application/openmetrics-text (with version
// 1.0.0, or none) at a quality above 0, else Prometheus' text format.
func Negotiate(accept string) Format {
	for item := range strings.SplitSeq(accept, ",") {
		params := strings.Split(item, ";")
		if !strings.EqualFold(strings.TrimSpace(params[0]), "application/openmetrics-text") {
			continue
		}
		ok := true
		for _, p := range params[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			switch strings.ToLower(strings.TrimSpace(k)) {
			case "version":
				ok = ok && strings.TrimSpace(v) == "1.0.0"
			case "q":
				if q, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil || q <= 0 {
					ok = false
				}
			}
		}
		if ok {
			return OpenMetrics
		}
	}
	return Text
}

// ServeHTTP answers GET and HEAD with one scrape in the format the
// Accept header asks for (Negotiate); a collection that fails is a 500
// with the reason as text, which Prometheus shows as the target's error.
func (col *Collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method "+r.Method+" not allowed on the metrics endpoint; use GET", http.StatusMethodNotAllowed)
		return
	}
	f := Negotiate(r.Header.Get("Accept"))
	fl, err := col.scrape(r.Context(), f)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer col.release(fl)
	body := fl.body
	h := w.Header()
	h.Set("Content-Type", f.ContentType())
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	w.Write(body)
}
