package prom

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/perfcounters/perfcounters/pdh"
)

// NewHandler returns the /metrics handler of src's counters: a Collector
// serving HTTP. See Collector.ServeHTTP.
func NewHandler(src pdh.Source, opts Options) (http.Handler, error) {
	return NewCollector(src, opts)
}

// Negotiate picks the format a scraper's Accept header ranks highest
// among those this package writes, by the header's quality values (RFC
// 9110 §12.5.1): OpenMetrics 1.0.0 (application/openmetrics-text, with
// version 1.0.0 or none) or Prometheus' text format 0.0.4 (text/plain,
// with version 0.0.4 or none; text/* and */* stand for it). At equal
// quality the more specific range wins, and between the two formats
// OpenMetrics. An empty header, or one that accepts neither (only the
// protobuf format, or a quality of 0), gets the text format, as
// Prometheus' client libraries answer.
func Negotiate(accept string) Format {
	best, bestQ := Text, 0.0
	for item := range strings.SplitSeq(accept, ",") {
		params := strings.Split(item, ";")
		mt := strings.ToLower(strings.TrimSpace(params[0]))
		q, version, ok := mediaParams(params[1:])
		if !ok || q <= 0 {
			continue
		}
		var f Format
		switch mt {
		case "application/openmetrics-text":
			if version != "" && version != "1.0.0" {
				continue
			}
			f = OpenMetrics
		case "text/plain":
			if version != "" && version != "0.0.4" {
				continue
			}
			f = Text
		case "text/*", "*/*":
			f = Text
		default:
			continue
		}
		if q > bestQ || (q == bestQ && f == OpenMetrics) {
			best, bestQ = f, q
		}
	}
	return best
}

// mediaParams reads the parameters of one Accept or Accept-Encoding
// range: its quality (1 when absent) and version; ok is false for a
// quality that is not a number from 0 to 1.
func mediaParams(params []string) (q float64, version string, ok bool) {
	q = 1
	for _, p := range params {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		v = strings.Trim(strings.TrimSpace(v), `"`)
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "q":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f < 0 || f > 1 {
				return 0, "", false
			}
			q = f
		case "version":
			version = v
		}
	}
	return q, version, true
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
	h.Add("Vary", "Accept-Encoding")
	var zbuf *[]byte
	switch enc := NegotiateEncoding(r.Header.Get("Accept-Encoding")); enc {
	case "gzip", "zstd":
		zbuf = col.encoded.Get().(*[]byte)
		defer col.encoded.Put(zbuf)
		*zbuf, err = col.compress(enc, (*zbuf)[:0], body)
		if err != nil {
			http.Error(w, "metrics export: compressing: "+err.Error(), http.StatusInternalServerError)
			return
		}
		body = *zbuf
		h.Set("Content-Encoding", enc)
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	w.Write(body)
}

// NegotiateEncoding picks the compression an Accept-Encoding header
// ranks highest by its quality values (RFC 9110 §12.5.3): "zstd",
// "gzip" or "" (identity). A coding the header does not name takes the
// quality of "*", if any; identity is acceptable unless the header
// gives it (or "*", without naming it) a quality of 0. At equal quality
// gzip goes before zstd (gzip is what Prometheus asks for) and both
// before identity, as the client asked for compression.
func NegotiateEncoding(accept string) string {
	q := map[string]float64{}
	star, hasStar := 0.0, false
	for item := range strings.SplitSeq(accept, ",") {
		params := strings.Split(item, ";")
		name := strings.ToLower(strings.TrimSpace(params[0]))
		v, _, ok := mediaParams(params[1:])
		if !ok || name == "" {
			continue
		}
		switch name {
		case "x-gzip":
			name = "gzip"
		case "*":
			star, hasStar = v, true
			continue
		}
		q[name] = v
	}
	quality := func(n string) float64 {
		if v, ok := q[n]; ok {
			return v
		}
		if hasStar {
			return star
		}
		if n == "identity" {
			return 1.0 / 1024 // acceptable, ranked below any coding asked for
		}
		return 0
	}
	best, bq := "", 0.0
	for _, n := range []string{"gzip", "zstd", "identity"} {
		if v := quality(n); v > bq {
			best, bq = n, v
		}
	}
	if best == "identity" {
		best = ""
	}
	return best
}

// compress appends body compressed with enc to dst.
func (col *Collector) compress(enc string, dst, body []byte) ([]byte, error) {
	if enc == "zstd" {
		col.zstdOnce.Do(func() {
			col.zstdEnc, col.zstdErr = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
		})
		if col.zstdErr != nil {
			return dst, col.zstdErr
		}
		return col.zstdEnc.EncodeAll(body, dst), nil
	}
	buf := bytes.NewBuffer(dst)
	zw, _ := col.gzips.Get().(*gzip.Writer)
	if zw == nil {
		var err error
		if zw, err = gzip.NewWriterLevel(buf, gzip.BestSpeed); err != nil {
			return dst, err
		}
	} else {
		zw.Reset(buf)
	}
	defer col.gzips.Put(zw)
	if _, err := zw.Write(body); err != nil {
		return dst, err
	}
	if err := zw.Close(); err != nil {
		return dst, err
	}
	return buf.Bytes(), nil
}
