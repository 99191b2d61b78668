package relog

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
)

// windowsLogs holds Windows' own text logs (PowerShell's CounterSamples,
// written by PDH; ../../../perflog/pdhcsv/testdata/windows/PROVENANCE.md).
const windowsLogs = "../../../perflog/pdhcsv/testdata/windows/powershell"

func openText(t *testing.T, path string) *pdhcsv.Log {
	t.Helper()
	l, err := pdhcsv.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// relogText relogs a text log and returns the output and the warnings.
func relogText(t *testing.T, l *pdhcsv.Log, opts Options) (string, []string) {
	t.Helper()
	var warns []string
	opts.Location = l.Location()
	opts.Warn = func(s string) { warns = append(warns, s) }
	var out bytes.Buffer
	if _, _, err := Run(t.Context(), l, opts, &out); err != nil {
		t.Fatal(err)
	}
	return out.String(), warns
}

// TestTextLogWindows: Windows' CSV and TSV relogged to CSV and TSV give
// Windows' own files byte for byte (the CSV and the TSV hold the same
// samples), and blank cells are not warned about.
func TestTextLogWindows(t *testing.T) {
	for _, in := range []string{"CounterSamples.csv", "CounterSamples.tsv"} {
		for _, f := range []pdhcsv.Format{pdhcsv.CSV, pdhcsv.TSV} {
			t.Run(in+" to "+f.String(), func(t *testing.T) {
				got, warns := relogText(t, openText(t, filepath.Join(windowsLogs, in)), Options{Format: f})
				want, err := os.ReadFile(filepath.Join(windowsLogs, "CounterSamples."+strings.ToLower(f.String())))
				if err != nil {
					t.Fatal(err)
				}
				if got != string(want) {
					t.Errorf("differs from Windows' file:\n%s", lineDiff(got, string(want)))
				}
				if len(warns) > 0 {
					t.Errorf("warnings %q", warns)
				}
			})
		}
	}
}

// TestTextLogOurs: the CSV and TSV files relog and typeperf write read
// back and relog to the same bytes: duplicate instances (svchost#1),
// parent instances (Thread(svchost/0)), every counter type's values.
func TestTextLogOurs(t *testing.T) {
	for _, tc := range []struct {
		file   string
		format pdhcsv.Format
	}{
		{"testdata/all.csv.golden", pdhcsv.CSV},
		{"testdata/all.tsv.golden", pdhcsv.TSV},
		{"testdata/filtered.csv.golden", pdhcsv.CSV},
		{"../typeperf/testdata/log.csv.golden", pdhcsv.CSV},
		{"../typeperf/testdata/log.tsv.golden", pdhcsv.TSV},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			in, _, _ := strings.Cut(string(data), "\n-- ") // the goldens end with notes after the log
			in += "\n"
			l, err := pdhcsv.ReadLog(strings.NewReader(in), tc.file, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			got, warns := relogText(t, l, Options{Format: tc.format})
			if got != in {
				t.Errorf("differs:\n%s", lineDiff(got, in))
			}
			if len(warns) > 0 {
				t.Errorf("warnings %q", warns)
			}
		})
	}
}

// TestTextLogInstances: instances a text log names only by a higher
// duplicate (svchost#2 without #0 and #1), parents, and blanks of a whole
// instance come back as written.
func TestTextLogInstances(t *testing.T) {
	in := `"(PDH-CSV 4.0) (Coordinated Universal Time)(0)","\\H\Process(svchost#2)\ID Process","\\H\Thread(svchost/0#1)\ID Thread","\\H\Thread(Idle/0)\ID Thread","\\H\Memory\Available MBytes","\\H\Process(svchost)\ID Process"` + "\n" +
		`"01/02/2024 03:04:05.006","7"," "," ","1.5"," "` + "\n" +
		`"01/02/2024 03:04:06.006","8","9","10"," ","11"` + "\n"
	l, err := pdhcsv.ReadLog(strings.NewReader(in), "x.csv", -1)
	if err != nil {
		t.Fatal(err)
	}
	got, warns := relogText(t, l, Options{})
	if got != in || len(warns) > 0 {
		t.Errorf("got\n%s\nwant\n%s\nwarnings %q", got, in, warns)
	}
}

// TestTextLogFilterCut: -c with wildcards and -b/-e select the columns
// and rows of Windows' CSV, cell for cell as Windows wrote them.
func TestTextLogFilterCut(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(windowsLogs, "CounterSamples.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	pst := time.FixedZone("PST", -8*3600)
	for _, tc := range []struct {
		name string
		opts Options
		cols []int // cells of Windows' lines kept (0 is the time)
		rows []int // lines kept (0 is the header)
	}{
		{"network wildcard", Options{Counters: []string{`\\charlieparker\network interface(*)\*`}}, []int{0, 1, 2, 3, 4, 5}, nil},
		{"one instance", Options{Counters: []string{`\processor(_total)\% processor time`, `\memory\*`}}, []int{0, 6, 7, 8}, nil},
		{"isatap*", Options{Counters: []string{`\network interface(isatap*)\bytes total/sec`}}, []int{0, 3, 4}, nil},
		{"cut", Options{Counters: []string{`\physicaldisk(*)\*`},
			Begin: time.Date(2016, 11, 26, 13, 46, 36, 0, pst), End: time.Date(2016, 11, 26, 13, 46, 46, 0, pst)}, []int{0, 9, 10}, []int{3, 4, 5, 6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := relogText(t, openText(t, filepath.Join(windowsLogs, "CounterSamples.csv")), tc.opts)
			rows := tc.rows
			if rows == nil {
				for r := 1; r < len(lines); r++ {
					rows = append(rows, r)
				}
			}
			var want strings.Builder
			for _, r := range append([]int{0}, rows...) {
				cells := strings.Split(lines[r], ",")
				var keep []string
				for _, c := range tc.cols {
					keep = append(keep, cells[c])
				}
				want.WriteString(strings.Join(keep, ",") + "\n")
			}
			if got != want.String() {
				t.Errorf("differs:\n%s", lineDiff(got, want.String()))
			}
		})
	}
}

// TestTextLogEvery: -t N over formatted values gives each kept sample p
// the average of the values of samples p-N+1..p (blanks left out; all
// blank gives a blank) and warns once.
func TestTextLogEvery(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(windowsLogs, "CounterSamples.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// The expected values, from the file's cells parsed here.
	var table [][]string
	for _, line := range strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")[1:] {
		cells := strings.Split(line, ",")
		for i := range cells {
			cells[i] = strings.Trim(cells[i], `"`)
		}
		table = append(table, cells)
	}
	for _, n := range []int{2, 3, 7, 30} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			got, warns := relogText(t, openText(t, filepath.Join(windowsLogs, "CounterSamples.csv")), Options{Every: n})
			wantWarn := "input holds formatted values only (CSV/TSV): -t " + strconv.Itoa(n) + " averages each counter's values over " + strconv.Itoa(n) + " samples instead of recomputing them from raw values"
			if len(warns) != 1 || warns[0] != wantWarn {
				t.Errorf("warnings %q, want one: %q", warns, wantWarn)
			}
			lg, err := pdhcsv.Read(strings.NewReader(got), nil)
			if err != nil {
				t.Fatal(err)
			}
			var kept []int
			for p := 0; p < len(table); p += n {
				kept = append(kept, p)
			}
			if len(lg.Rows) != len(kept) {
				t.Fatalf("%d rows, want %d", len(lg.Rows), len(kept))
			}
			for r, p := range kept {
				if ts := lg.Rows[r].Time.In(time.FixedZone("PST", -8*3600)).Format("01/02/2006 15:04:05.000"); ts != table[p][0] {
					t.Errorf("row %d at %s, want %s", r, ts, table[p][0])
				}
				for c := 1; c < len(table[p]); c++ {
					sum, k := 0.0, 0
					for q := max(p-n+1, 0); q <= p; q++ {
						if v, err := strconv.ParseFloat(table[q][c], 64); err == nil {
							sum += v
							k++
						}
					}
					g := lg.Rows[r].Values[c-1]
					switch {
					case k == 0 && g.OK:
						t.Errorf("row %d col %d: %v, want a blank", r, c, g.Number)
					case k > 0 && !g.OK:
						t.Errorf("row %d col %d: blank, want %v", r, c, sum/float64(k))
					case k > 0 && math.Abs(g.Number-sum/float64(k)) > 1e-12*math.Abs(sum/float64(k)):
						t.Errorf("row %d col %d: %v, want %v", r, c, g.Number, sum/float64(k))
					}
				}
			}
		})
	}
}

func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + g[i] + "\nwant: " + w[i]
		}
	}
	return "got " + strconv.Itoa(len(g)) + " lines, want " + strconv.Itoa(len(w))
}

// BenchmarkRelogText relogs a CSV of 1,000 rows × 200 columns (10 machines'
// worth of processes) to CSV; values/s is the figure to compare.
func BenchmarkRelogText(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`"(PDH-CSV 4.0) (Coordinated Universal Time)(0)"`)
	for c := range 200 {
		sb.WriteString(`,"\\H` + strconv.Itoa(c%10) + `\Process(p` + strconv.Itoa(c/20) + `)\Counter ` + strconv.Itoa(c%20/10) + `"`)
	}
	sb.WriteString("\n")
	t0 := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	for r := range 1000 {
		sb.WriteString(`"` + t0.Add(time.Duration(r)*time.Second).Format(pdhcsv.TimeLayout) + `"`)
		for c := range 200 {
			sb.WriteString(`,"` + strconv.FormatFloat(float64(r*c)/7, 'g', 17, 64) + `"`)
		}
		sb.WriteString("\n")
	}
	in := sb.String()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		l, err := pdhcsv.ReadLog(strings.NewReader(in), "bench.csv", -1)
		if err != nil {
			b.Fatal(err)
		}
		var out bytes.Buffer
		if _, _, err := Run(b.Context(), l, Options{Location: time.UTC}, &out); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*200*1000/b.Elapsed().Seconds(), "values/s")
}
