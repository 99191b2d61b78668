package relog

import (
	"bytes"
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/internal/pgtest"
	"github.com/perfcounters/perfcounters/perflog"
	"github.com/perfcounters/perfcounters/perflog/sqllog"
)

// windowsDir holds the 88 blocks Windows' Perflib returned for 11 samples
// of a wildcard collection (perfdata/testdata/windows/PROVENANCE.md).
const windowsDir = "../../../perfdata/testdata/windows"

// TestSameRowsFromEveryRawFormat records one run (the 11 Windows samples
// of 8 objects) into our binary log, SQLite and PostgreSQL, and checks
// that relog writes the same CSV from each of them as from the blocks
// themselves — in full, every 2nd sample (-t 2), cut by time (-b/-e)
// and filtered (-c) — and that BIN -> BIN -> CSV equals BIN -> CSV.
func TestSameRowsFromEveryRawFormat(t *testing.T) {
	ctx := context.Background()
	files, _ := filepath.Glob(filepath.Join(windowsDir, "s*.bin"))
	more, _ := filepath.Glob(filepath.Join(windowsDir, "s*", "*.bin"))
	files = append(files, more...)
	if len(files) != 88 {
		t.Fatalf("%d Windows blocks, want 88", len(files))
	}
	db := loadDB(t, filepath.Join(windowsDir, "counter-names-009.tsv"))
	dir := t.TempDir()
	var sqlOpts sqllog.Options // PostgreSQL's data source name "pg", once it is known
	open := func(t *testing.T, names ...string) *perflog.Input {
		return openInput(t, names, perflog.OpenOptions{Titles: db, SQL: sqlOpts})
	}
	record := func(t *testing.T, out string, f perflog.Format, from ...string) {
		relogInto(t, open(t, from...), out, f, perflog.CreateOptions{Location: time.UTC, SQL: sqlOpts})
	}
	bin := filepath.Join(dir, "run.plog")
	bin2 := filepath.Join(dir, "again.plog")
	lite := "SQL:" + filepath.Join(dir, "run.db") + "!run"
	record(t, bin, perflog.BIN, files...)
	record(t, bin2, perflog.BIN, bin)
	record(t, lite, perflog.SQL, files...)
	inputs := []struct {
		name  string
		files []string
	}{{"blocks", files}, {"BIN", []string{bin}}, {"BIN->BIN", []string{bin2}}, {"SQLite", []string{lite}}}
	if pgtest.Available(t) {
		pg := "SQL:pg!run"
		pgURL := pgtest.Schema(t)
		sqlOpts.Getenv = func(k string) string {
			if k == sqllog.EnvName("pg") {
				return pgURL
			}
			return ""
		}
		sqlOpts.ConfigFile = filepath.Join(dir, "no-sql.conf")
		record(t, pg, perflog.SQL, files...)
		inputs = append(inputs, struct {
			name  string
			files []string
		}{"PostgreSQL", []string{pg}})
	}
	times := open(t, files...).Source.Recorded()
	cases := []struct {
		name string
		opts Options
	}{
		{"all", Options{}},
		{"-t 2", Options{Every: 2}},
		// relog's -b and -e are whole seconds (SQL keeps milliseconds).
		{"-b -e", Options{Begin: times.Time(3).Truncate(time.Second), End: times.Time(8).Truncate(time.Second)}},
		{"-c", Options{Counters: []string{`\Processor(*)\% Processor Time`, `\Memory\Available Bytes`, `\PhysicalDisk(_Total)\Avg. Disk sec/Transfer`, `\Process(svchost*)\IO Data Bytes/sec`}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var want []byte
			for k, in := range inputs {
				var out bytes.Buffer
				opts := c.opts
				opts.Location = time.UTC
				src := open(t, in.files...)
				if _, _, err := Run(ctx, src.Source, opts, &out); err != nil {
					t.Fatalf("%s: %v", in.name, err)
				}
				if k == 0 {
					want = out.Bytes()
					if bytes.Count(want, []byte("\n")) < 2 {
						t.Fatalf("%s: %d lines", in.name, bytes.Count(want, []byte("\n")))
					}
					continue
				}
				if !bytes.Equal(out.Bytes(), want) {
					t.Errorf("%s -> CSV differs from blocks -> CSV:\n%s", in.name, firstDiff(want, out.Bytes()))
				}
			}
		})
	}
}

// firstDiff shows the first line where two outputs differ.
func firstDiff(a, b []byte) string {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := 0; i < len(la) || i < len(lb); i++ {
		var x, y []byte
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if !bytes.Equal(x, y) {
			return "line " + strconv.Itoa(i+1) + ":\n want " + clip(x) + "\n got  " + clip(y)
		}
	}
	return "(same lines)"
}

func clip(b []byte) string {
	if len(b) > 400 {
		return string(b[:400]) + "..."
	}
	return string(b)
}
