package logview

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/wintz"
)

// ValuesRequest is the body of POST /v1/logs/{id}/values: counter paths
// (wildcards allowed, \Process(*)\% Processor Time) and the time range,
// both ends included (absent: the log's first or last sample).
type ValuesRequest struct {
	Paths []string   `json:"paths"`
	Start *time.Time `json:"start,omitempty"`
	End   *time.Time `json:"end,omitempty"`
}

// Values is the answer: the times of the samples in the range and, for
// each requested path in its order, every counter it stands for in any
// of those samples with one value per sample (null where the sample has
// no value: the instance was not there, a rate's first sample, a gap).
type Values struct {
	Log string `json:"log"`
	// First is the position of the range's first sample in the log.
	First    int             `json:"first"`
	Times    []time.Time     `json:"times"`
	Counters []ValuesCounter `json:"counters"`
}

// ValuesCounter answers one requested path: the status and reason when
// it does not resolve (remote's /v1/formatted statuses).
type ValuesCounter struct {
	Path   string       `json:"path"`
	Status string       `json:"status"`
	Reason string       `json:"reason,omitempty"`
	Type   string       `json:"type,omitempty"`
	Items  []ValuesItem `json:"items"`
}

// ValuesItem is one concrete counter: its path, PDH's instance name and
// its values, aligned with Values.Times.
type ValuesItem struct {
	Path     string `json:"path"`
	Instance string `json:"instance,omitempty"`
	Values   floats `json:"values"`
}

// floats are values with NaN for none, written null.
type floats []float64

// MarshalJSON writes the values, null for NaN.
func (f floats) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 2+len(f)*10)
	b = append(b, '[')
	for i, v := range f {
		if i > 0 {
			b = append(b, ',')
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b = append(b, "null"...)
			continue
		}
		b = strconv.AppendFloat(b, v, 'g', -1, 64)
	}
	return append(b, ']'), nil
}

// DecodeValuesRequest reads a values request: one JSON object of the
// fields of ValuesRequest and no others, 1..remote.MaxPaths paths each a
// counter path of at most remote.MaxPathLength bytes, start not after
// end. The error names the field and value at fault.
func DecodeValuesRequest(r io.Reader) (ValuesRequest, error) {
	var req ValuesRequest
	b, err := io.ReadAll(io.LimitReader(r, MaxRequestBytes+1))
	if err != nil {
		return req, fmt.Errorf("reading the request: %w", err)
	}
	if len(b) > MaxRequestBytes {
		return req, fmt.Errorf("request of more than %d bytes", MaxRequestBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, fmt.Errorf("request is not the JSON of {\"paths\": [...], \"start\": time, \"end\": time}: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return req, errors.New("request: more after its JSON object")
	}
	switch {
	case len(req.Paths) == 0:
		return req, errors.New("paths: none given")
	case len(req.Paths) > remote.MaxPaths:
		return req, fmt.Errorf("paths: %d, more than %d", len(req.Paths), remote.MaxPaths)
	}
	for i, p := range req.Paths {
		switch {
		case len(p) > remote.MaxPathLength:
			return req, fmt.Errorf("paths[%d]: %d bytes, more than %d", i, len(p), remote.MaxPathLength)
		case !utf8.ValidString(p) || strings.ContainsRune(p, 0):
			return req, fmt.Errorf("paths[%d]=%q: not UTF-8 text", i, clip(p))
		}
		if _, err := counterpath.Parse(p); err != nil {
			return req, fmt.Errorf("paths[%d]=%q: %v", i, clip(p), err)
		}
	}
	if req.Start != nil && req.End != nil && req.Start.After(*req.End) {
		return req, fmt.Errorf("start %s is after end %s", req.Start.Format(time.RFC3339Nano), req.End.Format(time.RFC3339Nano))
	}
	return req, nil
}

// Times is the JSON of GET /v1/logs/{id}/times: the time of every sample
// of the log (UTC), which a values request's start and end may name
// exactly.
type Times struct {
	Times []time.Time `json:"times"`
	// Offsets are each time's offset from UTC in seconds east, in the
	// zone the log was recorded in (Info.Zone): what a page adds to show
	// the log's wall-clock times, as relog writes them.
	Offsets []int `json:"offsets"`
	// Zones names the zone of each offset that Offsets holds (the key is
	// the offset in decimal), as Windows names it at those times
	// (wintz.At): "Eastern Daylight Time" for the August samples of an
	// Eastern log, "Eastern Standard Time" for its January ones.
	Zones map[string]string `json:"zones,omitempty"`
}

func (h *Handler) serveTimes(w http.ResponseWriter, l *openLog) {
	l.mu.Lock()
	rec := l.in.Source.Recorded()
	n := rec.Len()
	if n > h.opts.MaxValues {
		l.mu.Unlock()
		serveError(w, http.StatusRequestEntityTooLarge, "answer_too_large", fmt.Sprintf("%s: %d samples, more than the %d values an answer may hold", strings.Join(l.info.Names, ", "), n, h.opts.MaxValues))
		return
	}
	loc := l.in.Location
	if loc == nil {
		loc = time.Local // as relog labels a log that does not say
	}
	ans := Times{Times: make([]time.Time, n), Offsets: make([]int, n), Zones: map[string]string{}}
	for i := range n {
		t := rec.Time(i)
		ans.Times[i] = t.UTC()
		_, ans.Offsets[i] = t.In(loc).Zone()
		if k := strconv.Itoa(ans.Offsets[i]); ans.Zones[k] == "" {
			ans.Zones[k] = wintz.At(t.In(loc)).Name
		}
	}
	l.mu.Unlock()
	serveJSON(w, http.StatusOK, ans)
}

// tooLarge is an answer over Options.MaxValues.
type tooLarge struct{ msg string }

func (e *tooLarge) Error() string { return e.msg }

func (h *Handler) serveValues(w http.ResponseWriter, r *http.Request, l *openLog) {
	req, err := DecodeValuesRequest(r.Body)
	if err != nil {
		serveError(w, http.StatusBadRequest, "bad_request", err.Error())
		return
	}
	ans, err := l.values(r.Context(), req, h.opts.MaxValues)
	var tl *tooLarge
	switch {
	case errors.As(err, &tl):
		serveError(w, http.StatusRequestEntityTooLarge, "answer_too_large", err.Error())
	case err != nil:
		if r.Context().Err() != nil {
			return
		}
		serveError(w, http.StatusUnprocessableEntity, "bad_log", err.Error())
	default:
		serveJSON(w, http.StatusOK, ans)
	}
}

// values computes req over the log: pdh's formatted values (PDH_FMT_DOUBLE,
// percentages capped at 100, no scale: the page applies scales) at each
// sample of the range, the sample before the range read first so the
// range's first rate has its value. At most maxValues values are kept.
func (l *openLog) values(ctx context.Context, req ValuesRequest, maxValues int) (*Values, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	src := l.in.Source
	rec := src.Recorded()
	n := rec.Len()
	from, to := 0, n-1
	if req.Start != nil {
		for from < n && rec.Time(from).Before(*req.Start) {
			from++
		}
	}
	if req.End != nil {
		for to >= 0 && rec.Time(to).After(*req.End) {
			to--
		}
	}
	ans := &Values{Log: l.info.ID, First: from, Times: []time.Time{}, Counters: make([]ValuesCounter, len(req.Paths))}
	for i, p := range req.Paths {
		ans.Counters[i] = ValuesCounter{Path: p, Items: []ValuesItem{}}
	}
	if from > to {
		// An empty range: no sample, nothing to compute.
		for i := range ans.Counters {
			ans.Counters[i].Status = calc.NoData.String()
			ans.Counters[i].Reason = "no sample of the log in the range"
		}
		return ans, nil
	}
	count := to - from + 1
	if count > maxValues {
		return nil, &tooLarge{fmt.Sprintf("the range holds %d samples, more than the %d values an answer may hold: select a shorter range", count, maxValues)}
	}
	for i := from; i <= to; i++ {
		ans.Times = append(ans.Times, rec.Time(i).UTC())
	}
	defer rec.Seek(0)
	q := pdh.OpenQuery(src)
	q.SetHistory(2)
	counters := make([]*pdh.Counter, len(req.Paths))
	for i, s := range req.Paths {
		fc := &ans.Counters[i]
		p, _ := counterpath.Parse(s) // checked by the decoder
		o := l.cat.find(p.Object)
		if o == nil {
			fc.Status = calc.NoObject.String()
			fc.Reason = fmt.Sprintf("no object %q in the log", clip(p.Object))
			continue
		}
		// Resolve the path in the first sample that holds its object.
		if err := rec.Seek(o.first); err != nil {
			return nil, err
		}
		c, err := q.AddCounterContext(ctx, s)
		if err != nil {
			st := calc.InvalidPath
			var pe *pdh.PathError
			if errors.As(err, &pe) {
				st = pe.Status
			}
			fc.Status = st.String()
			fc.Reason = strings.TrimPrefix(err.Error(), "pdh: ")
			continue
		}
		counters[i] = c
		fc.Status = calc.ValidData.String()
		if info := c.Info(); info.Type != 0 || info.NameIndex != 0 {
			fc.Type = info.Type.String()
		}
	}
	start := max(from-1, 0)
	if err := rec.Seek(start); err != nil {
		return nil, err
	}
	cols := make([]map[string]int, len(req.Paths))
	for i := range cols {
		cols[i] = map[string]int{}
	}
	cells := 0
	var items []pdh.Item
	for k := start; k <= to; k++ {
		if err := q.Collect(ctx); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("%s: sample %d (%s): %w", strings.Join(l.info.Names, ", "), k+1, rec.Time(k).UTC().Format("2006-01-02 15:04:05.000"), err)
		}
		if k < from {
			continue
		}
		at := k - from
		for i, c := range counters {
			if c == nil {
				continue
			}
			items = c.AppendFormattedArray(items[:0], calc.FmtDouble)
			fc := &ans.Counters[i]
			for _, it := range items {
				key := it.Path.String()
				j, ok := cols[i][key]
				if !ok {
					if cells += count; cells > maxValues {
						return nil, &tooLarge{fmt.Sprintf("the paths stand for more than %d values over the %d samples of the range (at %s): ask for fewer counters or instances, or select a shorter range",
							maxValues, count, clip(key))}
					}
					j = len(fc.Items)
					cols[i][key] = j
					vals := make(floats, count)
					for x := range vals {
						vals[x] = math.NaN()
					}
					fc.Items = append(fc.Items, ValuesItem{Path: key, Instance: it.Instance, Values: vals})
				}
				if it.Value.Status == calc.ValidData {
					fc.Items[j].Values[at] = it.Value.Double
				}
			}
		}
	}
	return ans, nil
}
