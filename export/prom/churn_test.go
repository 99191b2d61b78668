package prom

import (
	"context"
	"fmt"
	"strings"
	"testing"

	ct "github.com/perfcounters/perfcounters/countertype"
)

// TestNamesOfLiveInstances: a collector exporting an object whose
// instances come and go (processes with names of their own) keeps the
// decoded names of the instances of the last scrapes only, not of every
// instance it ever saw, and names the live ones right.
func TestNamesOfLiveInstances(t *testing.T) {
	const scrapes, live = 200, 5
	src := &fixedSource{}
	for k := range scrapes {
		var names []string
		for i := range live {
			names = append(names, fmt.Sprintf("churn-%03d-%d-%s", k, i, strings.Repeat("x", 40)))
		}
		blk, db := buildBlock(t, []counterCase{{name: "Value", typ: ct.PERF_COUNTER_RAWCOUNT, n: uint64(k)}}, int64(k+1)*testPerfFreq, names)
		src.db = db
		src.samples = append(src.samples, sampleOf(t, blk))
	}
	col, err := NewCollector(src, Options{Objects: []string{"Test Object"}, NoSelfMetrics: true})
	if err != nil {
		t.Fatal(err)
	}
	var body []byte
	for k := range scrapes {
		if body, err = col.Scrape(context.Background(), Text); err != nil {
			t.Fatal(err)
		}
		if n := len(col.st.names) + len(col.st.oldNames); n > 2*live {
			t.Fatalf("after scrape %d the name table holds %d names, want at most %d (the last two scrapes' instances)", k, n, 2*live)
		}
	}
	for i := range live {
		if want := fmt.Sprintf("churn-%03d-%d-", scrapes-1, i); !strings.Contains(string(body), want) {
			t.Errorf("the last scrape lacks instance %s*", want)
		}
	}
	if strings.Contains(string(body), fmt.Sprintf("churn-%03d-", scrapes-2)) {
		t.Error("the last scrape names an instance of the scrape before")
	}
}
