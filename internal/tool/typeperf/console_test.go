package typeperf

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
)

// runForm runs typeperf over the fixtures in one form and returns stdout.
func runForm(t *testing.T, form Form, counters []string) string {
	t.Helper()
	var out bytes.Buffer
	synctest.Test(t, func(t *testing.T) {
		opts := Options{Counters: counters, Samples: 3, Location: testZone, Form: form}
		if err := Run(t.Context(), openFixtures(t), opts, &out, &out, io.Discard); err != nil {
			t.Fatal(err)
		}
	})
	return out.String()
}

// csvCells reads typeperf's console CSV: the header's paths and each row's
// cells (time first).
func csvCells(t *testing.T, text string) (head []string, rows [][]string) {
	t.Helper()
	r := csv.NewReader(strings.NewReader(strings.TrimLeft(text, "\n")))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs[1:] {
		if len(rec) == len(recs[0]) {
			rows = append(rows, rec)
		}
	}
	return recs[0], rows
}

// TestJSONLinesAgreeWithCSV: every JSON line parses, and each value is the
// console CSV's cell for the same path and sample (null where CSV writes
// " "); paths split into their parts as counterpath writes them.
func TestJSONLinesAgreeWithCSV(t *testing.T) {
	head, rows := csvCells(t, runForm(t, FormPDH, goldenCounters))
	type value struct {
		Computer, Object, Parent, Instance, Counter, Path string
		Value                                             *float64
	}
	var lines []struct {
		Time   string
		Values []value
	}
	sc := bufio.NewScanner(strings.NewReader(runForm(t, FormJSON, goldenCounters)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l struct {
			Time   string
			Values []value
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %d: %v", len(lines)+1, err)
		}
		lines = append(lines, l)
	}
	if len(lines) != len(rows) {
		t.Fatalf("%d JSON lines, %d CSV rows", len(lines), len(rows))
	}
	for i, l := range lines {
		if len(l.Values) != len(head)-1 {
			t.Fatalf("line %d: %d values, want %d", i, len(l.Values), len(head)-1)
		}
		for k, v := range l.Values {
			if v.Path != head[k+1] {
				t.Errorf("line %d value %d: path %q, CSV column %q", i, k, v.Path, head[k+1])
			}
			rebuilt := `\\` + v.Computer + `\` + v.Object
			if v.Instance != "" {
				in := v.Instance
				if v.Parent != "" {
					in = v.Parent + "/" + in
				}
				rebuilt += "(" + in + ")"
			}
			if rebuilt += `\` + v.Counter; rebuilt != v.Path {
				t.Errorf("parts of %q rebuild %q", v.Path, rebuilt)
			}
			cell := rows[i][k+1]
			if cell == " " {
				if v.Value != nil {
					t.Errorf("line %d %s: %v where CSV has no value", i, v.Path, *v.Value)
				}
				continue
			}
			want, err := strconv.ParseFloat(cell, 64)
			if err != nil {
				t.Fatal(err)
			}
			if v.Value == nil || math.Abs(*v.Value-want) > 5e-7*math.Max(1, math.Abs(want)) {
				t.Errorf("line %d %s: %v, CSV %s", i, v.Path, v.Value, cell)
			}
		}
	}
}

// TestTableAgreesWithCSV: the one-line table has a row per sample whose
// cells are the CSV's values with two decimals, blank where CSV has none.
func TestTableAgreesWithCSV(t *testing.T) {
	counters := []string{`\Processor(_Total)\% Processor Time`, `\Memory\Available MBytes`, `\Process(svchost#1)\% Processor Time`}
	_, rows := csvCells(t, runForm(t, FormPDH, counters))
	table := strings.Split(strings.TrimSpace(runForm(t, FormTable, counters)), "\n")
	// banner, blank, header, then the rows
	if len(table) != 3+len(rows) || !strings.HasPrefix(table[2], "Time ") {
		t.Fatalf("table:\n%s", strings.Join(table, "\n"))
	}
	for i, row := range rows {
		line := table[3+i]
		for k, cell := range row[1:] {
			want := ""
			if cell != " " {
				f, _ := strconv.ParseFloat(cell, 64)
				want = strconv.FormatFloat(f, 'f', 2, 64)
			}
			fields := strings.Fields(line)
			got := ""
			if k+1 < len(fields) {
				got = fields[k+1]
			}
			if want != "" && got != want {
				t.Errorf("row %d column %d: %q, want %q (line %q)", i, k, got, want, line)
			}
		}
	}
}
