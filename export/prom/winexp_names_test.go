package prom

import (
	"testing"

	ct "github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/titles"
)

// TestWindowsExporterProcessNames: the windows_exporter profile leaves
// out the _Total instance only, and a Processor Information group's
// "N,_Total" only in that object: a process whose name ends in ",_Total"
// (any user chooses a process's name) is written like any other (issue
// 43 item 3). The process named _Total itself never reaches a block
// (procscan names it _Total_1).
func TestWindowsExporterProcessNames(t *testing.T) {
	names := []string{"Idle", "bash", "x,_Total", "0,_Total", "_Total_1", "_Total"}
	blk, _ := buildBlock(t, []counterCase{{name: "Working Set", typ: ct.PERF_COUNTER_LARGE_RAWCOUNT, n: 4096}}, testPerfFreq, names)
	db := titles.New() // the same indexes, the object named Process
	for i, n := range []string{"Process", "Working Set"} {
		if err := db.SetAt(uint32(1000+2*i), n, n+"."); err != nil {
			t.Fatal(err)
		}
	}
	src := &fixedSource{db: db, samples: []*pdh.Sample{sampleOf(t, blk)}}
	wx := series(t, scrapeTwice(t, src, Options{Profile: ProfileWindowsExporter, NoSelfMetrics: true, Objects: []string{"Process"}}, Text))
	for _, tc := range []struct {
		process string
		written bool
	}{
		{"Idle", true}, {"bash", true}, {"x,_Total", true}, {"0,_Total", true}, {"_Total_1", true}, {"_Total", false},
	} {
		k := `windows_process_working_set_bytes{process="` + tc.process + `"}`
		if _, ok := wx[k]; ok != tc.written {
			t.Errorf("%s written %v, want %v", k, ok, tc.written)
		}
	}
}
