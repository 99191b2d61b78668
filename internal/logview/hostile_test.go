package logview_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/perfcounters/perfcounters/internal/hostile"
	"github.com/perfcounters/perfcounters/internal/logview"
	"github.com/perfcounters/perfcounters/remote"
)

// Hostile uploads and values requests (issue 28: memory and time linear
// in the request), growing 1x..8x: an upload is written, opened with
// perflog.Open and catalogued (every sample read), then closed; a values
// request of many paths is answered over an uploaded log. The cost is
// per request byte.

// hostileUpload is one hostile log: its upload name, the size of the
// smallest, and its forger, which returns the log and the samples it
// holds.
type hostileUpload struct {
	name  string
	base  int
	forge func(t testing.TB, n int) (file string, data []byte, samples int)
}

func fill(r, c int) string { return fmt.Sprint(r + c) }

var hostileUploads = []hostileUpload{
	// A header of n counter columns, 4 rows.
	{"csv-wide/columns", 5000, func(t testing.TB, n int) (string, []byte, int) {
		return "h.csv", hostile.CSV(hostile.Counters(n), 4, fill), 4
	}},
	// n rows of two columns.
	{"csv-rows/rows", 20000, func(t testing.TB, n int) (string, []byte, int) {
		return "h.csv", hostile.CSV(hostile.Counters(2), n, fill), n
	}},
	// A counter list of n counters of one object, 4 samples.
	{"blg-list/entries", 2500, func(t testing.TB, n int) (string, []byte, int) {
		list := make([]hostile.BLGCounter, n)
		for i := range list {
			list[i] = hostile.BLGCounter{Machine: "H", Object: "Object", Counter: fmt.Sprintf("Counter %07d", i)}
		}
		return "h.blg", hostile.BLG(t, list, 4, nil), 4
	}},
	// One wildcard-instance counter, 4 samples of n instances each (the
	// catalog lists every instance, up to MaxInstances: 100,000).
	{"blg-instances/instances", 10000, func(t testing.TB, n int) (string, []byte, int) {
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("i%07d", i)
		}
		list := []hostile.BLGCounter{{Machine: "H", Object: "Object", Instance: "*", Counter: "Counter"}}
		return "h.blg", hostile.BLG(t, list, 4, names), 4
	}},
}

// do sends one request to h with the monitor role.
func do(h http.Handler, method, target string, body []byte) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, bytes.NewReader(body))
	r = r.WithContext(remote.WithRole(r.Context(), remote.RoleMonitor, "hostile"))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// uploadOnce uploads a log and closes it, returning what the upload
// answered.
func uploadOnce(tb testing.TB, h http.Handler, file string, data []byte) logview.LogInfo {
	w := do(h, "POST", logview.Path+"?name="+file, data)
	var info logview.LogInfo
	if w.Code != http.StatusCreated || json.Unmarshal(w.Body.Bytes(), &info) != nil {
		tb.Fatalf("upload: %d %.300s", w.Code, w.Body)
	}
	if w := do(h, "DELETE", logview.Path+"/"+info.ID, nil); w.Code != http.StatusNoContent {
		tb.Fatalf("delete: %d %.300s", w.Code, w.Body)
	}
	return info
}

// valuesLog is the log the values requests read: a CSV of 1,000 counter
// columns and 4 rows.
func valuesLog() []byte { return hostile.CSV(hostile.Counters(1000), 4, fill) }

// valuesBody asks for n of valuesLog's counters by name.
func valuesBody(n int) []byte {
	b, _ := json.Marshal(logview.ValuesRequest{Paths: hostile.Counters(1000)[:n]})
	return b
}

// TestHostileUploads: the hostile logs of the benchmarks, at a quarter of
// their smallest size, upload whole (every sample), and a values request
// for n counters answers n counters of 4 values each.
func TestHostileUploads(t *testing.T) {
	h := logview.New(logview.Options{TempDir: t.TempDir()})
	defer h.Close()
	for _, u := range hostileUploads {
		t.Run(fmt.Sprintf("%s=%d", u.name, u.base/4), func(t *testing.T) {
			file, data, samples := u.forge(t, u.base/4)
			if info := uploadOnce(t, h, file, data); info.Samples != samples || len(info.Notes) != 0 {
				t.Errorf("%d samples, notes %q; want %d, none", info.Samples, info.Notes, samples)
			}
		})
	}
	w := do(h, "POST", logview.Path+"?name=v.csv", valuesLog())
	var info logview.LogInfo
	if w.Code != http.StatusCreated || json.Unmarshal(w.Body.Bytes(), &info) != nil {
		t.Fatalf("upload: %d %.300s", w.Code, w.Body)
	}
	w = do(h, "POST", logview.Path+"/"+info.ID+"/values", valuesBody(500))
	var ans logview.Values
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &ans) != nil {
		t.Fatalf("values: %d %.300s", w.Code, w.Body)
	}
	if len(ans.Counters) != 500 || len(ans.Times) != 4 || len(ans.Counters[499].Items) != 1 || len(ans.Counters[499].Items[0].Values) != 4 {
		t.Errorf("values: %d counters over %d times", len(ans.Counters), len(ans.Times))
	}
}

// BenchmarkHostileUpload: uploading (and closing) each hostile log at
// 1x..8x (hostile.Scales), per byte uploaded.
func BenchmarkHostileUpload(b *testing.B) {
	h := logview.New(logview.Options{TempDir: b.TempDir()})
	defer h.Close()
	for _, u := range hostileUploads {
		for _, s := range hostile.Scales {
			n := u.base * s
			file, data, _ := u.forge(b, n)
			b.Run(fmt.Sprintf("%s=%d", u.name, n), func(b *testing.B) {
				hostile.Measure(b, len(data), func() { uploadOnce(b, h, file, data) })
			})
		}
	}
}

// BenchmarkHostileValues: a values request naming 125..1000 counters (the
// most a request may name) of an uploaded log, per request byte.
func BenchmarkHostileValues(b *testing.B) {
	h := logview.New(logview.Options{TempDir: b.TempDir()})
	defer h.Close()
	w := do(h, "POST", logview.Path+"?name=v.csv", valuesLog())
	var info logview.LogInfo
	if w.Code != http.StatusCreated || json.Unmarshal(w.Body.Bytes(), &info) != nil {
		b.Fatalf("upload: %d %.300s", w.Code, w.Body)
	}
	for _, s := range hostile.Scales {
		n := 125 * s
		body := valuesBody(n)
		b.Run(fmt.Sprintf("values/paths=%d", n), func(b *testing.B) {
			hostile.Measure(b, len(body), func() {
				if w := do(h, "POST", logview.Path+"/"+info.ID+"/values", body); w.Code != http.StatusOK {
					b.Fatalf("values: %d %.300s", w.Code, w.Body)
				}
			})
		})
	}
}
