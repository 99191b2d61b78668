package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/titles"
)

// ParseFormattedParams reads the parameters of GET /v1/formatted: path
// (repeated), raw and nocap100 (booleans).
func ParseFormattedParams(v url.Values) (remote.FormattedRequest, error) {
	var req remote.FormattedRequest
	for k, vs := range v {
		switch k {
		case "path":
			req.Paths = vs
		case "raw", "nocap100":
			if len(vs) != 1 {
				return req, paramError(k, vs[len(vs)-1], "given more than once")
			}
			b, err := parseBool(vs[0])
			if err != nil {
				return req, paramError(k, vs[0], err.Error())
			}
			if k == "raw" {
				req.Raw = b
			} else {
				req.NoCap100 = b
			}
		default:
			return req, paramError(k, strings.Join(vs, ","), "unknown parameter (want path, raw or nocap100)")
		}
	}
	return req, checkPaths(req.Paths)
}

// ParseFormattedJSON reads the body of POST /v1/formatted: one
// FormattedRequest object, at most MaxBody bytes, no unknown fields.
func ParseFormattedJSON(r io.Reader) (remote.FormattedRequest, error) {
	var req remote.FormattedRequest
	b, err := io.ReadAll(io.LimitReader(r, remote.MaxBody+1))
	if err != nil {
		return req, fmt.Errorf("request body: %w", err)
	}
	if len(b) > remote.MaxBody {
		return req, &remote.Error{Status: http.StatusRequestEntityTooLarge, Code: "body_too_large",
			Reason: fmt.Sprintf("request body of more than %d bytes", remote.MaxBody)}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, fmt.Errorf("request body: %v", err)
	}
	if dec.More() {
		return req, errors.New("request body: more than one JSON value")
	}
	if _, err := dec.Token(); err != io.EOF {
		return req, errors.New("request body: data after the JSON object")
	}
	return req, checkPaths(req.Paths)
}

// checkPaths validates a request's paths: 1..MaxPaths of them, each
// non-empty, UTF-8, at most MaxPathLength bytes, and a counter path.
func checkPaths(paths []string) error {
	switch {
	case len(paths) == 0:
		return paramError("path", "", "no counter path given")
	case len(paths) > remote.MaxPaths:
		return paramError("path", paths[remote.MaxPaths], fmt.Sprintf("%d paths, more than %d", len(paths), remote.MaxPaths))
	}
	for i, p := range paths {
		name := fmt.Sprintf("path[%d]", i)
		switch {
		case len(p) > remote.MaxPathLength:
			return paramError(name, p, fmt.Sprintf("%d bytes, more than %d", len(p), remote.MaxPathLength))
		case !utf8.ValidString(p):
			return paramError(name, p, "not UTF-8")
		}
		if _, err := counterpath.Parse(p); err != nil {
			return paramError(name, p, err.Error())
		}
	}
	return nil
}

// paramError is the 400 error of a bad parameter.
func paramError(name, value, why string) *remote.Error {
	return &remote.Error{Status: http.StatusBadRequest, Code: "bad_parameter", Reason: fmt.Sprintf("parameter %s=%q: %s", name, clipText(value), why)}
}

func parseBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "", "1", "true", "yes":
		return true, nil
	case "0", "false", "no":
		return false, nil
	}
	return false, errors.New("want 1 or 0 (true or false)")
}

// serveRequestError answers an error of a request decoder: an *Error as
// it says, anything else as 400.
func serveRequestError(w http.ResponseWriter, err error) {
	var e *remote.Error
	if errors.As(err, &e) {
		serveError(w, e.Status, e.Code, e.Reason)
		return
	}
	serveError(w, http.StatusBadRequest, "bad_request", err.Error())
}

func (h *Handler) serveFormatted(w http.ResponseWriter, r *http.Request) {
	var req remote.FormattedRequest
	var err error
	if r.Method == http.MethodPost {
		if len(r.URL.RawQuery) > 0 {
			serveError(w, http.StatusBadRequest, "bad_parameter", "POST /v1/formatted takes its paths in the JSON body, not in the query string")
			return
		}
		if ct := r.Header.Get("Content-Type"); ct != "" {
			if mt, _, perr := mime.ParseMediaType(ct); perr != nil || mt != remote.MediaJSON {
				serveError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", fmt.Sprintf("Content-Type %q: want %s", clipText(ct), remote.MediaJSON))
				return
			}
		}
		req, err = ParseFormattedJSON(r.Body)
	} else {
		req, err = ParseFormattedParams(r.URL.Query())
	}
	if err != nil {
		serveRequestError(w, err)
		return
	}
	var ans *remote.FormattedAnswer
	if h.needsComputers(req.Paths) {
		ans, err = h.formattedAcross(r.Context(), req)
	} else {
		ans, err = h.formattedValues(r.Context(), req)
	}
	var apiErr *remote.Error
	if errors.As(err, &apiErr) {
		serveError(w, apiErr.Status, apiErr.Code, apiErr.Reason)
		return
	}
	if err != nil {
		if r.Context().Err() != nil {
			return
		}
		h.opts.Logger.Error("formatted values failed", "err", err)
		serveError(w, http.StatusServiceUnavailable, "collection_failed", fmt.Sprintf("the host's counters could not be collected: %v", err))
		return
	}
	serveJSON(w, http.StatusOK, ans)
}

// formattedValues answers a request from the shared collections.
func (h *Handler) formattedValues(ctx context.Context, req remote.FormattedRequest) (*remote.FormattedAnswer, error) {
	db := h.db
	ans := &remote.FormattedAnswer{Counters: make([]remote.FormattedCounter, len(req.Paths))}
	paths := make([]counterpath.Path, len(req.Paths))
	var objects []uint32
	known := make([]bool, len(req.Paths))
	for i, s := range req.Paths {
		p, _ := counterpath.Parse(s) // checked by the decoder
		paths[i] = p
		ans.Counters[i] = remote.FormattedCounter{Path: s, Items: []remote.FormattedItem{}}
		idx, ok := objectIndex(db, p.Object)
		if !ok {
			ans.Counters[i].Status = calc.NoObject.String()
			ans.Counters[i].Reason = fmt.Sprintf("no object named %q on this host (GET %s lists them)", p.Object, remote.PathObjects)
			continue
		}
		known[i] = true
		objects = append(objects, idx)
	}
	prev, cur, err := h.sampler.Pair(ctx, objects)
	if err != nil {
		return nil, err
	}
	// The host's name as /v1/host says it; the blocks' system name when
	// the handler was given none.
	ans.Host = h.opts.ComputerName
	if ans.Host == "" && len(cur.Sample.Blocks) > 0 {
		ans.Host = cur.Sample.Blocks[0].Header().SystemName
	}
	ans.Time = cur.Sample.Time.UTC()
	if prev != nil {
		ans.Interval = cur.Sample.Time.Sub(prev.Sample.Time).Seconds()
	}

	src := newPairSource(db, prev, cur)
	q := pdh.OpenQuery(src)
	q.SetHistory(2)
	// The paths are counted as they expand, before anything is allocated
	// for values past the limit: six requests of 1,000 wildcard paths
	// must not hold the server's memory.
	q.SetMaxItems(h.maxItems)
	counters := make([]*pdh.Counter, len(req.Paths))
	if err := src.Seek(src.Len() - 1); err != nil {
		return nil, err
	}
	for i, s := range req.Paths {
		if !known[i] {
			continue
		}
		c, err := q.AddCounterContext(ctx, s)
		if err != nil {
			st := calc.InvalidPath
			var pe *pdh.PathError
			if errors.As(err, &pe) {
				st = pe.Status
			}
			ans.Counters[i].Status = st.String()
			ans.Counters[i].Reason = strings.TrimPrefix(err.Error(), "pdh: ")
			continue
		}
		counters[i] = c
	}
	if err := src.Seek(0); err != nil {
		return nil, err
	}
	for range src.Len() {
		if err := q.Collect(ctx); err != nil {
			var tm *pdh.TooManyError
			if errors.As(err, &tm) {
				return nil, &remote.Error{Status: http.StatusRequestEntityTooLarge, Code: "answer_too_large",
					Reason: fmt.Sprintf("the paths expand to more than %d values; ask for fewer instances or counters", h.maxItems)}
			}
			return nil, err
		}
	}
	// The problems of what the answer holds: a shared collection may
	// cover objects (and report problems of values) nobody asked for here.
	ans.Problems = wireProblems(q.ProblemsShown())
	opts := calc.FmtDouble
	if req.NoCap100 {
		opts |= calc.FmtNoCap100
	}
	total := 0
	for i, c := range counters {
		if c == nil {
			continue
		}
		fc := &ans.Counters[i]
		info := c.Info()
		if info.Type != 0 || info.NameIndex != 0 {
			fc.Type = info.Type.String()
		}
		fc.Status = calc.ValidData.String()
		items := c.FormattedArray(opts)
		var raws []pdh.RawItem
		if req.Raw {
			raws = c.Raw()
		}
		if len(items) == 0 && !paths[i].HasWildcard() {
			// One value that is not there: say why (no instance, no
			// object in this sample).
			v, _ := c.Formatted(opts)
			fc.Status = v.Status.String()
			continue
		}
		if len(items) == 0 && !objectPresent(cur.Sample, paths[i].Object, db) {
			fc.Status = calc.NoObject.String()
			fc.Reason = fmt.Sprintf("object %q is not in the latest sample", paths[i].Object)
			continue
		}
		if total += len(items); total > h.maxItems {
			return nil, &remote.Error{Status: http.StatusRequestEntityTooLarge, Code: "answer_too_large",
				Reason: fmt.Sprintf("the paths expand to more than %d values (at %s); ask for fewer instances or counters", h.maxItems, clipText(req.Paths[i]))}
		}
		fc.Items = make([]remote.FormattedItem, 0, len(items))
		for k, it := range items {
			fi := remote.FormattedItem{Path: it.Path.String(), Instance: it.Instance, Status: it.Value.Status.String()}
			if x := it.Value.Double; it.Value.Status == calc.ValidData && !math.IsNaN(x) && !math.IsInf(x, 0) {
				fi.Value = &x
			}
			if k < len(raws) {
				rw := raws[k].Raw
				fi.Raw = &remote.RawData{Type: raws[k].Type.String(), Status: rw.Status.String(), First: rw.FirstValue,
					Second: rw.SecondValue, MultiCount: rw.MultiCount, Time: rw.Time, Freq: rw.Freq}
			}
			fc.Items = append(fc.Items, fi)
		}
	}
	return ans, nil
}

// objectIndex is the title index a path's object names: a decimal index,
// or the name's (lowest) index in the title database, as pdh resolves it.
// An index without a name in the database is no object (the engine names
// every object it has), which bounds what requests can add to the shared
// sampler's union by the size of the title database.
func objectIndex(db *titles.DB, name string) (uint32, bool) {
	if n, err := strconv.ParseUint(name, 10, 32); err == nil {
		return uint32(n), db.Name(uint32(n)) != ""
	}
	return db.Index(name)
}

// objectPresent reports whether the sample holds the object name names.
func objectPresent(smp *pdh.Sample, name string, db *titles.DB) bool {
	idx, ok := objectIndex(db, name)
	if !ok {
		return false
	}
	for _, b := range smp.Blocks {
		if _, ok := b.Object(idx); ok {
			return true
		}
	}
	return false
}
