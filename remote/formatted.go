package remote

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
	"time"
	"unicode/utf8"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/titles"
)

// FormattedRequest is what POST /v1/formatted sends (and GET says with
// parameters): the counter paths, and whether raw values come too.
type FormattedRequest struct {
	// Paths are counter paths, wildcards allowed (\Processor(*)\*).
	Paths []string `json:"paths"`
	// Raw adds each value's raw counter data (PDH_RAW_COUNTER).
	Raw bool `json:"raw,omitempty"`
	// NoCap100 leaves percentages above 100 as computed
	// (PDH_FMT_NOCAP100).
	NoCap100 bool `json:"noCap100,omitempty"`
}

// FormattedAnswer is the JSON of /v1/formatted.
type FormattedAnswer struct {
	// Host is the system name of the sample's block.
	Host string `json:"host"`
	// Time is when the latest sample was taken (UTC).
	Time time.Time `json:"time"`
	// Interval is the seconds between the two samples values are computed
	// from; 0 when there is one sample yet.
	Interval float64 `json:"interval"`
	// Counters answer the request's paths, in its order.
	Counters []FormattedCounter `json:"counters"`
	// Problems are the objects the host could not deliver (or delivered
	// partly) in the latest sample.
	Problems []Problem `json:"problems,omitempty"`
}

// FormattedCounter is the answer for one requested path: its values per
// instance (and counter), or a status and reason when the path does not
// resolve.
type FormattedCounter struct {
	Path   string `json:"path"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	// Type is the counter type (winperf name) of the path's first
	// counter; empty when the path does not resolve.
	Type  string          `json:"type,omitempty"`
	Items []FormattedItem `json:"items"`
}

// FormattedItem is one value: the concrete path, PDH's instance name
// ("parent/name#n"), the value (null unless status is
// PDH_CSTATUS_VALID_DATA) and, when asked, the raw data.
type FormattedItem struct {
	Path     string   `json:"path"`
	Instance string   `json:"instance,omitempty"`
	Value    *float64 `json:"value"`
	Status   string   `json:"status"`
	Raw      *RawData `json:"raw,omitempty"`
}

// RawData is a raw counter value (PDH_RAW_COUNTER) with its type.
type RawData struct {
	Type       string `json:"type"`
	Status     string `json:"status"`
	First      uint64 `json:"first"`
	Second     uint64 `json:"second"`
	MultiCount uint64 `json:"multiCount,omitempty"`
	Time       uint64 `json:"time"`
	Freq       uint64 `json:"freq"`
}

// ParseFormattedParams reads the parameters of GET /v1/formatted: path
// (repeated), raw and nocap100 (booleans).
func ParseFormattedParams(v url.Values) (FormattedRequest, error) {
	var req FormattedRequest
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
func ParseFormattedJSON(r io.Reader) (FormattedRequest, error) {
	var req FormattedRequest
	b, err := io.ReadAll(io.LimitReader(r, MaxBody+1))
	if err != nil {
		return req, fmt.Errorf("request body: %w", err)
	}
	if len(b) > MaxBody {
		return req, &Error{Status: http.StatusRequestEntityTooLarge, Code: "body_too_large",
			Reason: fmt.Sprintf("request body of more than %d bytes", MaxBody)}
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
	case len(paths) > MaxPaths:
		return paramError("path", paths[MaxPaths], fmt.Sprintf("%d paths, more than %d", len(paths), MaxPaths))
	}
	for i, p := range paths {
		name := fmt.Sprintf("path[%d]", i)
		switch {
		case len(p) > MaxPathLength:
			return paramError(name, p, fmt.Sprintf("%d bytes, more than %d", len(p), MaxPathLength))
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
func paramError(name, value, why string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "bad_parameter", Reason: fmt.Sprintf("parameter %s=%q: %s", name, clipText(value), why)}
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
	var e *Error
	if errors.As(err, &e) {
		serveError(w, e.Status, e.Code, e.Reason)
		return
	}
	serveError(w, http.StatusBadRequest, "bad_request", err.Error())
}

func (h *Handler) serveFormatted(w http.ResponseWriter, r *http.Request) {
	var req FormattedRequest
	var err error
	if r.Method == http.MethodPost {
		if len(r.URL.RawQuery) > 0 {
			serveError(w, http.StatusBadRequest, "bad_parameter", "POST /v1/formatted takes its paths in the JSON body, not in the query string")
			return
		}
		if ct := r.Header.Get("Content-Type"); ct != "" {
			if mt, _, perr := mime.ParseMediaType(ct); perr != nil || mt != MediaJSON {
				serveError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", fmt.Sprintf("Content-Type %q: want %s", clipText(ct), MediaJSON))
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
	var ans *FormattedAnswer
	if h.needsComputers(req.Paths) {
		ans, err = h.formattedAcross(r.Context(), req)
	} else {
		ans, err = h.formattedValues(r.Context(), req)
	}
	var apiErr *Error
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
func (h *Handler) formattedValues(ctx context.Context, req FormattedRequest) (*FormattedAnswer, error) {
	db := h.b.Titles()
	ans := &FormattedAnswer{Counters: make([]FormattedCounter, len(req.Paths))}
	paths := make([]counterpath.Path, len(req.Paths))
	var objects []uint32
	known := make([]bool, len(req.Paths))
	for i, s := range req.Paths {
		p, _ := counterpath.Parse(s) // checked by the decoder
		paths[i] = p
		ans.Counters[i] = FormattedCounter{Path: s, Items: []FormattedItem{}}
		idx, ok := objectIndex(db, p.Object)
		if !ok {
			ans.Counters[i].Status = calc.NoObject.String()
			ans.Counters[i].Reason = fmt.Sprintf("no object named %q on this host (GET %s lists them)", p.Object, PathObjects)
			continue
		}
		known[i] = true
		objects = append(objects, idx)
	}
	prev, cur, err := h.sampler.Pair(ctx, objects)
	if err != nil {
		return nil, err
	}
	if len(cur.Sample.Blocks) > 0 {
		ans.Host = cur.Sample.Blocks[0].Header().SystemName
	}
	ans.Time = cur.Sample.Time.UTC()
	if prev != nil {
		ans.Interval = cur.Sample.Time.Sub(prev.Sample.Time).Seconds()
	}
	for _, p := range cur.Sample.Problems {
		wp := Problem{Object: p.Object, ObjectName: p.ObjectName, Reason: p.Reason, Partial: p.Partial}
		for _, m := range p.Missing {
			wp.Missing = append(wp.Missing, MissingValues{Instance: m.Instance, Counters: m.Counters})
		}
		ans.Problems = append(ans.Problems, wp)
	}

	src := newPairSource(db, prev, cur)
	q := pdh.OpenQuery(src)
	q.SetHistory(2)
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
			return nil, err
		}
	}
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
			return nil, &Error{Status: http.StatusRequestEntityTooLarge, Code: "answer_too_large",
				Reason: fmt.Sprintf("the paths expand to more than %d values (at %s); ask for fewer instances or counters", h.maxItems, clipText(req.Paths[i]))}
		}
		fc.Items = make([]FormattedItem, 0, len(items))
		for k, it := range items {
			fi := FormattedItem{Path: it.Path.String(), Instance: it.Instance, Status: it.Value.Status.String()}
			if x := it.Value.Double; it.Value.Status == calc.ValidData && !math.IsNaN(x) && !math.IsInf(x, 0) {
				fi.Value = &x
			}
			if k < len(raws) {
				rw := raws[k].Raw
				fi.Raw = &RawData{Type: raws[k].Type.String(), Status: rw.Status.String(), First: rw.FirstValue,
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
