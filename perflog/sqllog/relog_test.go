package sqllog_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/internal/tool/relog"
	"github.com/perfcounters/perfcounters/perflog/sqllog"
)

// TestRelogFromSQL: relog to CSV from a SQL log gives the file relog
// writes from the samples that were logged: byte for byte for a list of
// counters; asked for none, the same columns (in the log's object order)
// with the same values.
func TestRelogFromSQL(t *testing.T) {
	ctx := context.Background()
	for _, be := range sqllog.BackendsForTest(t) {
		t.Run(be.Name, func(t *testing.T) {
			opts := be.Opts(t)
			sqllog.LogWindows(t, "SQL:perf!r", opts)
			l, err := sqllog.OpenWith(ctx, "SQL:perf!r", opts)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			for _, list := range [][]string{sqllog.WindowsPaths, nil} {
				var want, got bytes.Buffer
				ro := relog.Options{Counters: list, Location: time.UTC}
				if _, _, err := relog.Run(ctx, sqllog.WindowsSource(t), ro, &want); err != nil {
					t.Fatal(err)
				}
				if _, _, err := relog.Run(ctx, l, ro, &got); err != nil {
					t.Fatal(err)
				}
				if list != nil {
					if !bytes.Equal(got.Bytes(), want.Bytes()) {
						t.Errorf("counters %q: the CSV from SQL differs", list)
					}
					continue
				}
				if g, w := byColumn(t, got.Bytes()), byColumn(t, want.Bytes()); len(g) != len(w) {
					t.Errorf("all counters: %d columns from SQL, %d from the samples", len(g), len(w))
				} else {
					for col, v := range w {
						if g[col] != v {
							t.Errorf("all counters: column %s: %q from SQL, %q from the samples", col, g[col], v)
							break
						}
					}
				}
			}
		})
	}
}

// byColumn maps each header cell of a CSV (fields without commas inside)
// to its column's cells joined.
func byColumn(t *testing.T, csv []byte) map[string]string {
	lines := bytes.Split(bytes.TrimSpace(csv), []byte("\n"))
	head := bytes.Split(lines[0], []byte(","))
	out := map[string]string{}
	for _, l := range lines[1:] {
		f := bytes.Split(l, []byte(","))
		if len(f) != len(head) {
			t.Fatalf("%d fields under %d headers", len(f), len(head))
		}
		for j := 1; j < len(f); j++ {
			out[string(head[j])] += string(f[j]) + "|"
		}
	}
	return out
}
