package sqllog

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/internal/pgtest"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/titles"
)

// winDir holds 11 real samples of 8 objects Windows Vista wrote (88
// PERF_DATA_BLOCKs), with duplicate instance names (svchost#n).
const winDir = "../../perfdata/testdata/windows"

// winPaths are the counters logged from them: every counter of every
// instance of each object.
var winPaths = []string{`\Processor(*)\*`, `\Process(*)\*`, `\LogicalDisk(*)\*`, `\PhysicalDisk(*)\*`,
	`\System\*`, `\Memory\*`, `\Network Interface(*)\*`, `\TCPv4\*`}

func openWindows(t testing.TB) *pdh.BlockFiles {
	t.Helper()
	first, _ := filepath.Glob(filepath.Join(winDir, "s*.bin"))
	rest, _ := filepath.Glob(filepath.Join(winDir, "s02-s11", "s*.bin"))
	paths := append(first, rest...)
	if len(paths) != 88 {
		t.Fatalf("%d blocks in %s, want 88", len(paths), winDir)
	}
	f, err := os.Open(filepath.Join(winDir, "counter-names-009.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	db, err := titles.ParseTSV(f)
	if err != nil {
		t.Fatal(err)
	}
	bf, err := pdh.OpenBlockFiles(paths, db)
	if err != nil {
		t.Fatal(err)
	}
	return bf
}

// backend is one database to test against: the options that make the
// data source name "perf" resolve to it.
type backend struct {
	name string
	opts func(t testing.TB) Options
}

func backends(t testing.TB) []backend {
	out := []backend{{"sqlite", sqliteOpts}}
	if pgtest.Available(t) {
		out = append(out, backend{"postgres", postgresOpts})
	}
	return out
}

// env makes a Getenv of a few variables and nothing else.
func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func sqliteOpts(t testing.TB) Options {
	p := filepath.Join(t.TempDir(), "perf.db")
	return Options{Getenv: env(EnvName("perf"), "sqlite:"+p), ConfigFile: filepath.Join(t.TempDir(), "none.conf"), Location: time.UTC}
}

// postgresOpts gives the test a schema of its own in the test database,
// dropped at the end.
func postgresOpts(t testing.TB) Options {
	return Options{Getenv: env(EnvName("perf"), pgtest.Schema(t)), ConfigFile: filepath.Join(t.TempDir(), "none.conf"), Location: time.UTC}
}

// rawKey is what must survive the database: PDH_RAW_COUNTER's values.
type want struct {
	first, second, multi uint64
	time, freq           uint64
	timed                bool
	typ                  countertype.Type
	computed             float64
	status               calc.Status
}

// observe collects src with paths and returns, per sample, every item by
// path. When w is not nil each sample is written to it.
func observe(t *testing.T, ctx context.Context, src pdh.Source, paths []string, w *Writer, from, to int) []map[string]want {
	t.Helper()
	q := pdh.OpenQuery(src)
	for _, p := range paths {
		if _, err := q.AddCounter(p); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	if rec := src.Recorded(); rec != nil {
		if err := rec.Seek(from); err != nil {
			t.Fatal(err)
		}
	}
	var out []map[string]want
	for n := from; n < to; n++ {
		if err := q.Collect(ctx); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			t.Fatal(err)
		}
		m := map[string]want{}
		for _, c := range q.Counters() {
			raws := c.Raw()
			items := c.FormattedArray(calc.FmtDouble | calc.FmtNoScale | calc.FmtNoCap100)
			for i, r := range raws {
				if !r.Raw.Status.OK() {
					continue
				}
				p := r.Path
				p.Machine = ""
				timed := r.Type.NeedsTwoSamples() || r.Type == countertype.PERF_ELAPSED_TIME
				m[p.String()] = want{first: r.Raw.FirstValue, second: r.Raw.SecondValue, multi: r.Raw.MultiCount,
					time: r.Raw.Time, freq: r.Raw.Freq, timed: timed, typ: r.Type, computed: items[i].Computed, status: items[i].Status}
			}
		}
		out = append(out, m)
		if w != nil {
			if err := w.WriteQuery(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

func compare(t *testing.T, got, exp []map[string]want) {
	t.Helper()
	if len(got) != len(exp) {
		t.Fatalf("%d samples read back, %d written", len(got), len(exp))
	}
	bad := 0
	for i := range exp {
		if len(got[i]) != len(exp[i]) {
			t.Errorf("sample %d: %d values read back, %d written", i, len(got[i]), len(exp[i]))
		}
		for p, e := range exp[i] {
			g, ok := got[i][p]
			if !ok {
				if bad++; bad < 10 {
					t.Errorf("sample %d: %s not read back", i, p)
				}
				continue
			}
			okv := g.first == e.first && g.second == e.second && g.multi == e.multi && g.typ == e.typ &&
				(!e.timed || g.time == e.time && g.freq == e.freq) &&
				g.status == e.status && (g.computed == e.computed || math.IsNaN(g.computed) && math.IsNaN(e.computed))
			if !okv {
				if bad++; bad < 10 {
					t.Errorf("sample %d: %s\n got  %+v\n want %+v", i, p, g, e)
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d values differ", bad)
	}
}

// TestRoundTrip logs the real Windows samples and reads them back: every
// raw value, type, time base and computed value is what the original
// blocks give.
func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, be := range backends(t) {
		t.Run(be.name, func(t *testing.T) {
			opts := be.opts(t)
			w, err := Create(ctx, "SQL:perf!run 1", opts)
			if err != nil {
				t.Fatal(err)
			}
			exp := observe(t, ctx, openWindows(t), winPaths, w, 0, 11)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			l, err := OpenWith(ctx, "SQL:perf!run 1", opts)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if l.Len() != 11 {
				t.Fatalf("Len = %d, want 11", l.Len())
			}
			if len(l.Notes()) != 0 {
				t.Errorf("notes: %q", l.Notes())
			}
			bf := openWindows(t)
			for i := range 11 {
				// CounterDateTime keeps milliseconds.
				if want := bf.Time(i).Truncate(time.Millisecond); !l.Time(i).Equal(want) {
					t.Errorf("Time(%d) = %v, want %v", i, l.Time(i), want)
				}
			}
			got := observe(t, ctx, l, winPaths, nil, 0, 11)
			compare(t, got, exp)
			if n := len(exp[3]); n < 1000 {
				t.Errorf("only %d values a sample: the test logs too little", n)
			}
			all := map[string]bool{}
			for _, m := range exp {
				for p := range m {
					all[p] = true
				}
			}
			if len(l.Paths()) != len(all) {
				t.Errorf("Paths() has %d paths, the samples %d different ones", len(l.Paths()), len(all))
			}
		})
	}
}

// TestAppend writes a run in two parts (the second Create finds the log
// set and appends to it) and reads the same as one run; another log set in
// the same database stays apart.
func TestAppend(t *testing.T) {
	ctx := context.Background()
	for _, be := range backends(t) {
		t.Run(be.name, func(t *testing.T) {
			opts := be.opts(t)
			src := openWindows(t)
			var exp []map[string]want
			var guids []string
			for _, part := range [][2]int{{0, 4}, {4, 11}} {
				w, err := Create(ctx, "SQL:perf!a", opts)
				if err != nil {
					t.Fatal(err)
				}
				guids = append(guids, w.GUID())
				exp = append(exp, observe(t, ctx, src, []string{`\Processor(*)\*`}, w, part[0], part[1])...)
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
			}
			if guids[0] != guids[1] {
				t.Errorf("second Create made a new log set: GUID %s then %s", guids[0], guids[1])
			}
			w, err := Create(ctx, "SQL:perf!b", opts)
			if err != nil {
				t.Fatal(err)
			}
			observe(t, ctx, openWindows(t), []string{`\Memory\*`}, w, 0, 3)
			w.Close()
			sets, err := LogsetsWith(ctx, "perf", opts)
			if err != nil || strings.Join(sets, ",") != "a,b" {
				t.Errorf("Logsets = %q, %v; want a, b", sets, err)
			}
			l, err := OpenWith(ctx, "SQL:perf!a", opts)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			// the whole run, read from the original in one pass
			whole := observe(t, ctx, openWindows(t), []string{`\Processor(*)\*`}, nil, 0, 11)
			// the first sample after the restart is computed from the one
			// before it in the original: the reader reads one run too.
			compare(t, exp[:4], whole[:4])
			compare(t, observe(t, ctx, l, []string{`\Processor(*)\*`}, nil, 0, 11), whole)
			db, _, err := connect(ctx, mustResolve(t, opts), false)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var n int
			var start, stop string
			if err := db.QueryRow(`SELECT NumberOfRecords, LogStartTime, LogStopTime FROM DisplayToID WHERE DisplayString = 'a'`).Scan(&n, &start, &stop); err != nil {
				t.Fatal(err)
			}
			if n != 11 || strings.TrimSpace(start) != l.Time(0).Format(timeLayout) || strings.TrimSpace(stop) != l.Time(10).Format(timeLayout) {
				t.Errorf("DisplayToID: NumberOfRecords %d, LogStartTime %q, LogStopTime %q; want 11, %s, %s", n, start, stop, l.Time(0).Format(timeLayout), l.Time(10).Format(timeLayout))
			}
		})
	}
}

func mustResolve(t *testing.T, o Options) Source {
	t.Helper()
	s, err := o.Resolve("perf")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestConcurrentWriters has two writers log into one database at once,
// each into its own log set and both into a shared one: every log set
// reads back whole, and the counters both write share CounterDetails rows.
func TestConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	for _, be := range backends(t) {
		t.Run(be.name, func(t *testing.T) {
			opts := be.opts(t)
			paths := []string{`\Processor(*)\*`, `\LogicalDisk(*)\*`}
			exp := observe(t, ctx, openWindows(t), paths, nil, 0, 11)
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i, set := range []string{"host a", "host b"} {
				wg.Go(func() {
					errs[i] = func() error {
						w, err := Create(ctx, "SQL:perf!"+set, opts)
						if err != nil {
							return err
						}
						defer w.Close()
						shared, err := Create(ctx, "SQL:perf!shared", opts)
						if err != nil {
							return err
						}
						defer shared.Close()
						q := pdh.OpenQuery(openWindows(t))
						for _, p := range paths {
							if _, err := q.AddCounter(p); err != nil {
								return err
							}
						}
						for {
							if err := q.Collect(ctx); errors.Is(err, io.EOF) {
								return nil
							} else if err != nil {
								return err
							}
							if err := w.WriteQuery(ctx, q); err != nil {
								return err
							}
							if err := shared.WriteQuery(ctx, q); err != nil {
								return err
							}
						}
					}()
				})
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			for _, set := range []string{"host a", "host b"} {
				l, err := OpenWith(ctx, "SQL:perf!"+set, opts)
				if err != nil {
					t.Fatal(err)
				}
				compare(t, observe(t, ctx, l, paths, nil, 0, 11), exp)
				l.Close()
			}
			l, err := OpenWith(ctx, "SQL:perf!shared", opts)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if l.Len() != 22 {
				t.Errorf("shared log set: %d samples, want 22 (11 from each writer)", l.Len())
			}
			db, _, err := connect(ctx, mustResolve(t, opts), false)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var rows, distinct int
			if err := db.QueryRow(`SELECT COUNT(*), COUNT(DISTINCT MachineName || ObjectName || CounterName || COALESCE(InstanceName, '') || CounterType) FROM CounterDetails`).Scan(&rows, &distinct); err != nil {
				t.Fatal(err)
			}
			if rows != distinct || rows != len(exp[0]) {
				t.Errorf("CounterDetails: %d rows, %d distinct counters, %d counters logged: writers must share the rows", rows, distinct, len(exp[0]))
			}
		})
	}
}

// schemaRow is one line of testdata/relog-schema.tsv.
type schemaRow struct{ table, column, typ, null, key string }

func readSchema(t *testing.T) []schemaRow {
	f, err := os.Open("testdata/relog-schema.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []schemaRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		c := strings.Split(sc.Text(), "\t")
		if len(c) != 5 {
			t.Fatalf("testdata/relog-schema.tsv: %q", sc.Text())
		}
		out = append(out, schemaRow{c[0], c[1], c[2], c[3], c[4]})
	}
	if len(out) != 30 {
		t.Fatalf("%d columns in testdata/relog-schema.tsv, want 30", len(out))
	}
	return out
}

// TestSchema reads the tables back from the database's catalog and
// compares them with relog's schema: the same columns in the same order,
// each SQL Server type as its documented equivalent (SQL.md), the same
// nullability and keys.
func TestSchema(t *testing.T) {
	ctx := context.Background()
	equiv := map[string]map[string]string{
		"sqlite": {"uniqueidentifier": "CHAR(36)", "int": "INTEGER", "int IDENTITY(1,1)": "INTEGER", "char(24)": "CHAR(24)",
			"char(32)": "CHAR(32)", "float": "FLOAT", "varchar(1024)": "VARCHAR(1024)"},
		"postgres": {"uniqueidentifier": "uuid", "int": "integer", "int IDENTITY(1,1)": "integer", "char(24)": "character(24)",
			"char(32)": "character(32)", "float": "double precision", "varchar(1024)": "character varying(1024)"},
	}
	ref := readSchema(t)
	for _, be := range backends(t) {
		t.Run(be.name, func(t *testing.T) {
			opts := be.opts(t)
			w, err := Create(ctx, "SQL:perf!x", opts)
			if err != nil {
				t.Fatal(err)
			}
			w.Close()
			db, d, err := connect(ctx, mustResolve(t, opts), false)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			got := map[string][]Column{}
			keys := map[string]string{}
			for _, tab := range []string{"CounterData", "CounterDetails", "DisplayToID"} {
				if got[tab], err = columns(ctx, db, d, tab); err != nil {
					t.Fatal(err)
				}
				for col, key := range catalogKeys(t, db, d, tab) {
					keys[tab+"."+col] = key
				}
			}
			pos := map[string]int{}
			for _, r := range ref {
				i := pos[r.table]
				pos[r.table]++
				if i >= len(got[r.table]) {
					t.Errorf("%s.%s: missing", r.table, r.column)
					continue
				}
				c := got[r.table][i]
				if !strings.EqualFold(c.Name, r.column) {
					t.Errorf("%s column %d: %s, want %s", r.table, i+1, c.Name, r.column)
				}
				if want := equiv[be.name][r.typ]; c.Type != want {
					t.Errorf("%s.%s: type %s, want %s (for SQL Server's %s)", r.table, r.column, c.Type, want, r.typ)
				}
				// SQLite's INTEGER PRIMARY KEY is NOT NULL without saying so.
				if c.NotNull != (r.null == "NOT NULL") && !(be.name == "sqlite" && r.typ == "int IDENTITY(1,1)") {
					t.Errorf("%s.%s: NOT NULL %v, want %s", r.table, r.column, c.NotNull, r.null)
				}
				if k := keys[r.table+"."+strings.ToLower(r.column)]; k != r.key {
					t.Errorf("%s.%s: key %q, want %q", r.table, r.column, k, r.key)
				}
			}
			for tab, n := range pos {
				if len(got[tab]) != n {
					t.Errorf("table %s: %d columns, want %d", tab, len(got[tab]), n)
				}
			}
		})
	}
}

// catalogKeys reads which columns of a table are in its primary key or a
// unique constraint, from the catalog (lower-case column names).
func catalogKeys(t *testing.T, db *sql.DB, d dialect, table string) map[string]string {
	out := map[string]string{}
	var rows *sql.Rows
	var err error
	if d.pg {
		rows, err = db.Query(`SELECT k.column_name, CASE c.constraint_type WHEN 'PRIMARY KEY' THEN 'PK' ELSE 'UNIQUE' END
FROM information_schema.table_constraints c JOIN information_schema.key_column_usage k
ON k.constraint_name = c.constraint_name AND k.table_schema = c.table_schema
WHERE c.table_schema = current_schema() AND c.table_name = $1 AND c.constraint_type IN ('PRIMARY KEY', 'UNIQUE')`, strings.ToLower(table))
	} else {
		rows, err = db.Query(`SELECT lower(i.name), CASE l.origin WHEN 'pk' THEN 'PK' ELSE 'UNIQUE' END
FROM pragma_index_list(?) l, pragma_index_info(l.name) i WHERE l."unique" AND l.origin != 'c'
UNION SELECT lower(name), 'PK' FROM pragma_table_info(?) WHERE pk > 0`, table, table)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var col, key string
		if err := rows.Scan(&col, &key); err != nil {
			t.Fatal(err)
		}
		out[strings.ToLower(col)] = key
	}
	return out
}

// TestProcessIdentity logs one counter of Process, whose instances the
// query pairs by process id and start time, not by name#n: a process
// that exits and another that takes its name#n (rundll32#1 in sample 7 of
// the Windows samples) must not pair when read back either. The log keeps
// the identifying counters (ID Process, Elapsed Time) beside the one
// asked for; every value read back, first and second sample of each
// process included, is what the original blocks give.
func TestProcessIdentity(t *testing.T) {
	ctx := context.Background()
	paths := []string{`\Process(*)\% Processor Time`}
	for _, be := range backends(t) {
		t.Run(be.name, func(t *testing.T) {
			opts := be.opts(t)
			w, err := Create(ctx, "SQL:perf!procs", opts)
			if err != nil {
				t.Fatal(err)
			}
			exp := observe(t, ctx, openWindows(t), paths, w, 0, 11)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			// The samples hold the case this is about: a value that is
			// new data (a new process) under a name#n seen before.
			renamed := 0
			for i := 1; i < len(exp); i++ {
				for p, e := range exp[i] {
					if _, before := exp[i-1][p]; before && e.status == calc.NewData {
						renamed++
					}
				}
			}
			if renamed == 0 {
				t.Fatal("no process takes another's name#n in the samples: the test checks nothing")
			}
			l, err := OpenWith(ctx, "SQL:perf!procs", opts)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			compare(t, observe(t, ctx, l, paths, nil, 0, 11), exp)
			ids := 0
			for _, p := range l.Paths() {
				if strings.HasSuffix(p, `\ID Process`) {
					ids++
				}
			}
			if ids == 0 {
				t.Error("the log keeps no ID Process")
			}
		})
	}
}
