package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/internal/logview"
	"github.com/perfcounters/perfcounters/remote"
)

const sampleBLG = "../../internal/logview/testdata/SampleLog.blg"

// TestPerfmonLogs: the logs perfc perfmon is given on its command line
// (BLG, and relog's conversions of it to our binary log, CSV and a SQL
// log set) are listed by /v1/logs beside the API and answer the worked
// example of the conformance README (Processor(_Total)\% Processor Time
// 82.148113 at sample 2; a CSV holds the value as relog wrote it).
func TestPerfmonLogs(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "s.plog")
	csv := filepath.Join(dir, "s.csv")
	sql := "SQL:" + filepath.Join(dir, "s.db") + "!sample"
	for _, c := range [][]string{
		{"relog", sampleBLG, "-f", "bin", "-o", bin},
		{"relog", sampleBLG, "-f", "csv", "-o", csv},
		{"relog", sampleBLG, "-f", "sql", "-o", sql},
	} {
		if _, stderr, code := runPerfc(t, c...); code != 0 {
			t.Fatalf("perfc %s: exit %d: %s", strings.Join(c, " "), code, stderr)
		}
	}
	for _, tt := range []struct {
		log, format string
		prec        float64
	}{
		{sampleBLG, "BLG", 5e-7},
		{bin, "BIN", 5e-7},
		{sql, "SQL", 5e-7},
		{csv, "CSV", 5e-6},
	} {
		t.Run(tt.format, func(t *testing.T) {
			logs := logview.New(logview.Options{})
			defer logs.Close()
			info, err := logs.Open(context.Background(), []string{tt.log})
			if err != nil {
				t.Fatal(err)
			}
			api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "api", http.StatusTeapot) })
			h := withLogs(api, logs)
			role := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h.ServeHTTP(w, r.WithContext(remote.WithRole(r.Context(), remote.RoleMonitor, "perfmon")))
			})
			srv := httptest.NewServer(role)
			defer srv.Close()
			if r, err := http.Get(srv.URL + "/v1/host"); err != nil || r.StatusCode != http.StatusTeapot {
				t.Errorf("/v1/host does not reach the API: %v", err)
			}
			r, err := http.Get(srv.URL + logview.Path)
			if err != nil {
				t.Fatal(err)
			}
			var list logview.LogList
			json.NewDecoder(r.Body).Decode(&list)
			r.Body.Close()
			if len(list.Logs) != 1 || list.Logs[0].ID != info.ID || list.Logs[0].Formats[0] != tt.format || list.Logs[0].Samples != 11 {
				t.Fatalf("GET %s: %+v, want the %s log of 11 samples", logview.Path, list, tt.format)
			}
			body := []byte(`{"paths":["\\Processor(*)\\% Processor Time"]}`)
			r, err = http.Post(srv.URL+logview.Path+"/"+info.ID+"/values", "application/json", bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Body.Close()
			var ans struct {
				Counters []struct {
					Items []struct {
						Path   string
						Values []*float64
					}
				}
			}
			if err := json.NewDecoder(r.Body).Decode(&ans); err != nil || len(ans.Counters) != 1 {
				t.Fatalf("values: %v", err)
			}
			found := false
			for _, it := range ans.Counters[0].Items {
				if strings.HasSuffix(it.Path, `\Processor(_Total)\% Processor Time`) {
					found = true
					if v := it.Values[1]; v == nil || math.Abs(*v-82.148113) > tt.prec {
						t.Errorf("%s at sample 2: %v, want 82.148113", it.Path, v)
					}
				}
			}
			if !found || len(ans.Counters[0].Items) != 2 {
				t.Errorf("items: %+v, want Processor(0) and (_Total)", ans.Counters[0].Items)
			}
		})
	}
	// A log that does not open stops perfc perfmon with its name.
	_, stderr, code := runPerfc(t, "perfmon", "-noopen", filepath.Join(dir, "missing.blg"))
	if code == 0 || !strings.Contains(stderr, "missing.blg") {
		t.Errorf("perfc perfmon missing.blg: exit %d, %q; want a failure naming the log", code, stderr)
	}
}
