package prom_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/perfcounters/perfcounters/export/prom"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/titles"
)

// Mount the export at /metrics. Here the source is a Windows capture
// (raw block files); a program passes its live host's source
// (host.Host.Source) instead.
func ExampleNewHandler() {
	f, _ := os.Open("testdata/windows/counter-names-009.tsv")
	db, _ := titles.ParseTSV(f)
	f.Close()
	files, _ := filepath.Glob("testdata/windows/s01-*.bin")
	src, _ := pdh.OpenBlockFiles(files, db)

	h, err := prom.NewHandler(src, prom.Options{Objects: []string{"Processor"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", h)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	req, _ := http.NewRequest("GET", srv.URL+"/metrics", nil)
	req.Header.Set("Accept", "application/openmetrics-text;version=1.0.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Header.Get("Content-Type"))
	for _, l := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(l, "# TYPE perfc_processor_time_seconds") || strings.HasPrefix(l, `perfc_processor_time_seconds_total{cpu="0"`) || l == "# EOF" {
			fmt.Println(l)
		}
	}
	// Output:
	// application/openmetrics-text; version=1.0.0; charset=utf-8
	// # TYPE perfc_processor_time_seconds counter
	// perfc_processor_time_seconds_total{cpu="0",mode="user"} 204.1875
	// perfc_processor_time_seconds_total{cpu="0",mode="privileged"} 542.890625
	// perfc_processor_time_seconds_total{cpu="0",mode="dpc"} 8.265625
	// perfc_processor_time_seconds_total{cpu="0",mode="interrupt"} 4.953125
	// perfc_processor_time_seconds_total{cpu="0",mode="idle"} 1255.875
	// # EOF
}
