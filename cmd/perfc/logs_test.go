package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogFormatsCommand: relog writes our binary log by default (BIN, the
// .plog extension added), relogs it back to the same CSV as the blocks
// give, refuses to overwrite without -y, appends with -a (binary logs
// only), and goes through SQLite; typeperf -f BIN records live samples.
func TestLogFormatsCommand(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(blockDir, "sample-*.perfdata"))
	if len(files) != 4 {
		t.Fatalf("fixtures: %v", files)
	}
	dir := t.TempDir()
	titles := filepath.Join(blockDir, "titles.tsv")
	relog := func(args ...string) (string, string, int) {
		return runPerfc(t, append([]string{"relog"}, args...)...)
	}
	mustRelog := func(args ...string) string {
		t.Helper()
		out, errs, code := relog(args...)
		if code != 0 {
			t.Fatalf("relog %s: exit %d: %s", strings.Join(args, " "), code, errs)
		}
		return out
	}
	base := append(append([]string{}, files...), "--titles", titles)
	want := mustRelog(append(base, "-f", "csv", "-o", "-")...)

	out := filepath.Join(dir, "run")
	console := mustRelog(append(base, "-o", out)...)
	if !strings.Contains(console, "File:     "+out+".plog") {
		t.Errorf("relog -o %s: the console report does not name %s.plog:\n%s", out, out, console)
	}
	if got := mustRelog(out+".plog", "-f", "csv", "-o", "-"); got != want {
		t.Errorf("blocks -> BIN -> CSV differs from blocks -> CSV:\n%s\nwant\n%s", got, want)
	}
	mustRelog(out+".plog", "-f", "csv", "-o", filepath.Join(dir, "x"))
	if b, err := os.ReadFile(filepath.Join(dir, "x.csv")); err != nil || string(b) != want {
		t.Errorf("-o x -f csv: x.csv %v, %q", err, b)
	}
	if _, errs, code := relog(append(base, "-o", out+".plog")...); code == 0 || !strings.Contains(errs, "-y") {
		t.Errorf("overwriting without -y: exit %d, %q; want a refusal naming -y", code, errs)
	}
	mustRelog(append(base, "-o", out+".plog", "-a")...)
	if q := mustRelog(out+".plog", "-q"); !strings.Contains(q, "Samples:  8") {
		t.Errorf("after -a the log holds 4+4 samples; relog -q says:\n%s", q)
	}
	if _, errs, code := relog(append(base, "-f", "csv", "-o", filepath.Join(dir, "y.csv"), "-a")...); code != 2 || !strings.Contains(errs, "binary") {
		t.Errorf("-a with CSV: exit %d, %q; want a usage error saying -a is for binary logs", code, errs)
	}
	sql := "SQL:" + filepath.Join(dir, "run.db") + "!run"
	mustRelog(append(base, "-f", "sql", "-o", sql)...)
	if got := mustRelog(sql, "-f", "csv", "-o", "-"); got != want {
		t.Errorf("blocks -> SQLite -> CSV differs from blocks -> CSV:\n%s\nwant\n%s", got, want)
	}

	if _, err := readProcStat(); err != nil {
		t.Skipf("no /proc for typeperf: %v", err)
	}
	tp := filepath.Join(dir, "live")
	if _, errs, code := runPerfc(t, "typeperf", `\Processor(*)\% Processor Time`, `\Memory\Available Bytes`, "-f", "BIN", "-o", tp, "-sc", "2", "-si", "1"); code != 0 {
		t.Fatalf("typeperf -f BIN: exit %d: %s", code, errs)
	}
	csv := mustRelog(tp+".plog", "-f", "csv", "-o", "-")
	if lines := strings.Count(csv, "\n"); lines != 3 || !strings.Contains(csv, `\Memory\Available Bytes"`) || !strings.Contains(csv, `\Processor(_Total)\% Processor Time"`) {
		t.Errorf("typeperf -f BIN then relog: %d lines, want a header and 2 rows of the logged counters:\n%s", lines, csv)
	}
	if _, errs, code := runPerfc(t, "typeperf", `\Memory\Available Bytes`, "-f", "BIN", "-sc", "1"); code != 2 || !strings.Contains(errs, "-o") {
		t.Errorf("typeperf -f BIN without -o: exit %d, %q; want a usage error asking for -o", code, errs)
	}
}

// TestRelogThroughBINAndSQL: a log relogged to our binary log, or to
// SQLite, and from there to CSV gives the CSV relog writes from the log
// itself, the time zone included: Windows' BLGs and CSV carry zones known
// only by their rules and names (Eastern daylight time in August for
// SampleLog, a fixed Pacific Standard Time for the CSV), which the binary
// log keeps as a POSIX rule and a SQL log set as a Windows zone name with
// its bias. (A PDH-CSV, whose blank cells are not values, is not taken
// through SQL: its counters come back in CounterDetails order, the order
// in which each first had a value.)
func TestRelogThroughBINAndSQL(t *testing.T) {
	blgDir := filepath.Join("..", "..", "perflog", "blg", "testdata")
	for _, in := range []string{"SampleLog.blg", "CounterSamples.blg", "BadCounterSamples.blg", "CounterSamples.csv"} {
		t.Run(in, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(blgDir, in)
			direct := filepath.Join(dir, "direct.csv")
			if _, errs, code := runPerfc(t, "relog", src, "-f", "CSV", "-o", direct); code != 0 {
				t.Fatalf("relog to CSV: exit %d: %s", code, errs)
			}
			want, err := os.ReadFile(direct)
			if err != nil {
				t.Fatal(err)
			}
			through := []string{filepath.Join(dir, "x.plog")}
			if strings.HasSuffix(in, ".blg") {
				through = append(through, "SQL:"+filepath.Join(dir, "x.db")+"!run")
			}
			for i, mid := range through {
				again := filepath.Join(dir, fmt.Sprintf("again%d.csv", i))
				for _, args := range [][]string{
					{"relog", src, "-o", mid},
					{"relog", mid, "-f", "CSV", "-o", again},
				} {
					if _, errs, code := runPerfc(t, args...); code != 0 {
						t.Fatalf("perfc %s: exit %d: %s", strings.Join(args, " "), code, errs)
					}
				}
				got, err := os.ReadFile(again)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					gh, _, _ := strings.Cut(string(got), "\n")
					wh, _, _ := strings.Cut(string(want), "\n")
					t.Errorf("through %s, the CSV differs (%d and %d bytes); headers:\n got %.120s\nwant %.120s", mid, len(got), len(want), gh, wh)
				}
			}
		})
	}
}

// TestRelogBeginEndInLogZone: -b and -e are read in the log's zone, the
// zone of the times relog prints, not the machine's (UTC here): cut from
// CounterSamples.blg (Pacific time) they keep exactly the rows of
// Windows' own CSV whose times lie between them.
func TestRelogBeginEndInLogZone(t *testing.T) {
	dir := filepath.Join("..", "..", "perflog", "blg", "testdata")
	out := filepath.Join(t.TempDir(), "cut.csv")
	_, errs, code := runPerfc(t, "relog", filepath.Join(dir, "CounterSamples.blg"), "-b", "11/26/2016 1:47:00PM", "-e", "11/26/2016 13:47:10", "-f", "CSV", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	win, err := os.ReadFile(filepath.Join(dir, "CounterSamples.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(strings.ReplaceAll(string(win), "\r\n", "\n"), "\n"), "\n")
	var want []string
	for _, l := range lines[1:] {
		if stamp, _, _ := strings.Cut(l, ","); stamp >= `"11/26/2016 13:47:00` && stamp <= `"11/26/2016 13:47:10` {
			want = append(want, l)
		}
	}
	rows := strings.Split(strings.TrimRight(strings.ReplaceAll(string(got), "\r\n", "\n"), "\n"), "\n")
	if len(want) != 4 || len(rows) != len(want)+1 {
		t.Fatalf("%d rows, want the %d of Windows' CSV between the times:\n%s", len(rows)-1, len(want), got)
	}
	for i, w := range want {
		if rows[i+1] != w {
			t.Errorf("row %d:\n got %.150s\nwant %.150s", i+1, rows[i+1], w)
		}
	}
}
