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

// NegotiateEncoding picks the compression an Accept-Encoding header asks
// for: "zstd" or "gzip", whichever has the higher quality (gzip when
// equal: it is what Prometheus asks for), or "" (identity) when the
// header names neither at a quality above 0. "*" stands for both.
func NegotiateEncoding(accept string) string {
	q := map[string]float64{}
	for item := range strings.SplitSeq(accept, ",") {
		params := strings.Split(item, ";")
		name := strings.ToLower(strings.TrimSpace(params[0]))
		v := 1.0
		for _, p := range params[1:] {
			k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.EqualFold(strings.TrimSpace(k), "q") {
				f, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
				if err != nil || f < 0 || f > 1 {
					f = 0
				}
				v = f
			}
		}
		switch name {
		case "gzip", "x-gzip":
			q["gzip"] = v
		case "zstd":
			q["zstd"] = v
		case "*":
			for _, n := range []string{"gzip", "zstd"} {
				if _, ok := q[n]; !ok {
					q[n] = v
				}
			}
		}
	}
	best, bq := "", 0.0
	for _, n := range []string{"gzip", "zstd"} {
		if q[n] > bq {
			best, bq = n, q[n]
		}
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
