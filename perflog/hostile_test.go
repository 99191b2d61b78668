package perflog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/internal/hostile"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
)

// Hostile logs of every format perflog.Open reads (issue 28: memory and
// time linear in the input), read as relog reads them: opened by
// content, a query of the log's counter list (or of Object(*)\* for every
// object of every sample when it has none), every sample collected and
// every value formatted. The binary log's own hostile inputs (bombs) are
// perflog/binlog's.

// readEvery reads every sample of the log at name as relog does and
// returns the samples and the valid values it formatted.
func readEvery(tb testing.TB, name string) (samples, values int) {
	tb.Helper()
	ctx := context.Background()
	in, err := Open(ctx, []string{name}, OpenOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	defer in.Close()
	src := in.Source
	paths := src.Recorded().Counters()
	if len(paths) == 0 {
		paths = everyObject(tb, src)
	}
	q := pdh.OpenQuery(src)
	q.SetHistory(2)
	for _, p := range paths {
		if _, err := q.AddCounter(p); err != nil {
			tb.Fatalf("%s: %v", p, err)
		}
	}
	var items []pdh.Item
	for {
		err := q.Collect(ctx)
		if errors.Is(err, io.EOF) {
			return samples, values
		}
		if err != nil {
			tb.Fatal(err)
		}
		samples++
		for _, c := range q.Counters() {
			items = c.AppendFormattedArray(items[:0], calc.FmtDouble|calc.FmtNoScale|calc.FmtNoCap100)
			for _, it := range items {
				if it.Value.Status == calc.ValidData {
					values++
				}
			}
		}
	}
}

// everyObject is relog's list when a log has none: \\machine\Object(*)\*
// (or \\machine\Object\*) for every object of every sample, in order of
// first appearance; the source is rewound.
func everyObject(tb testing.TB, src pdh.Source) []string {
	tb.Helper()
	seen := map[string]bool{}
	var paths []string
	for {
		s, err := src.Sample(context.Background(), nil)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			tb.Fatal(err)
		}
		for _, blk := range s.Blocks {
			for it := blk.Objects(); it.Next(); {
				o := it.Object()
				p := counterpath.Path{Machine: blk.Header().SystemName, Object: src.Titles().Name(o.NameIndex()), Counter: "*"}
				if o.NumInstances() != perfdata.NoInstances {
					p.Instance = "*"
				}
				if k := strings.ToLower(p.String()); !seen[k] {
					seen[k] = true
					paths = append(paths, p.String())
				}
			}
		}
	}
	if err := src.Recorded().Seek(0); err != nil {
		tb.Fatal(err)
	}
	return paths
}

// hostileLog is one hostile input: its name (and what grows), the size
// of the smallest, and its forger, which returns for size n the file's
// name and its bytes (nil for an SQL log set, which it writes itself),
// and the samples and valid values a reader must find in it.
type hostileLog struct {
	name  string
	base  int
	forge func(tb testing.TB, n int) (file string, data []byte, samples, values int)
}

const hostileSamples = 4 // the samples of the wide logs

// blgLogs are the hostile BLGs: a counter list of many counters of one
// object, or of one counter of many instances, with 4 samples of
// PDH_RAW_COUNTER values; one wildcard-instance counter whose 4 samples
// list many instances; and many samples of one counter (many small
// records).
var blgLogs = []hostileLog{
	{"list-counters/entries", 2500, func(tb testing.TB, n int) (string, []byte, int, int) {
		list := make([]hostile.BLGCounter, n)
		for i := range list {
			list[i] = hostile.BLGCounter{Machine: "H", Object: "Object", Counter: fmt.Sprintf("Counter %07d", i)}
		}
		return "h.blg", hostile.BLG(tb, list, hostileSamples, nil), hostileSamples, hostileSamples * n
	}},
	{"list-instances/entries", 2500, func(tb testing.TB, n int) (string, []byte, int, int) {
		list := make([]hostile.BLGCounter, n)
		for i := range list {
			list[i] = hostile.BLGCounter{Machine: "H", Object: "Object", Instance: fmt.Sprintf("i%07d", i), Counter: "Counter"}
		}
		return "h.blg", hostile.BLG(tb, list, hostileSamples, nil), hostileSamples, hostileSamples * n
	}},
	{"wildcard/instances", 10000, func(tb testing.TB, n int) (string, []byte, int, int) {
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("i%07d", i)
		}
		list := []hostile.BLGCounter{{Machine: "H", Object: "Object", Instance: "*", Counter: "Counter"}}
		return "h.blg", hostile.BLG(tb, list, hostileSamples, names), hostileSamples, hostileSamples * n
	}},
	{"records/samples", 5000, func(tb testing.TB, n int) (string, []byte, int, int) {
		list := []hostile.BLGCounter{{Machine: "H", Object: "Object", Counter: "Counter"}}
		return "h.blg", hostile.BLG(tb, list, n, nil), n, n
	}},
}

// textLogs are the hostile PDH-CSV logs: a header of many counter
// columns; cells hundreds of KiB long (numbers behind a run of zeros);
// many rows.
var textLogs = []hostileLog{
	{"wide/columns", 5000, func(tb testing.TB, n int) (string, []byte, int, int) {
		data := hostile.CSV(hostile.Counters(n), hostileSamples, func(r, c int) string { return fmt.Sprint(r + c) })
		return "h.csv", data, hostileSamples, hostileSamples * n
	}},
	{"long-cells/cell-bytes", 256 << 10, func(tb testing.TB, n int) (string, []byte, int, int) {
		zeros := strings.Repeat("0", n)
		data := hostile.CSV(hostile.Counters(2), hostileSamples, func(r, c int) string { return zeros + fmt.Sprint(r+c+1) })
		return "h.csv", data, hostileSamples, hostileSamples * 2
	}},
	{"rows/rows", 20000, func(tb testing.TB, n int) (string, []byte, int, int) {
		data := hostile.CSV(hostile.Counters(2), n, func(r, c int) string { return fmt.Sprint(r + c) })
		return "h.csv", data, n, 2 * n
	}},
}

// sqlLogs are the hostile SQL log sets (SQLite): many CounterDetails rows
// (one counter of many instances) in 4 samples; many samples
// (RecordIndex) of one row each.
var sqlLogs = []hostileLog{
	{"details/counters", 2500, func(tb testing.TB, n int) (string, []byte, int, int) {
		return sqlHostile(tb, n, hostileSamples), nil, hostileSamples, hostileSamples * n
	}},
	{"data/samples", 5000, func(tb testing.TB, n int) (string, []byte, int, int) {
		return sqlHostile(tb, 1, n), nil, n, n
	}},
}

// sqlHostile writes a SQLite database in relog's schema (SQL.md) holding
// one log set, "hostile", of counters instances of one
// PERF_COUNTER_RAWCOUNT counter (one CounterDetails row each) and samples
// samples, each a value of every instance, and returns its SQL:
// source name.
func sqlHostile(tb testing.TB, counters, samples int) string {
	tb.Helper()
	file := filepath.Join(tb.TempDir(), "h.db")
	db, err := sql.Open("sqlite", file)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	t0 := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	stamp := func(i int) string { return t0.Add(time.Duration(i) * time.Second).Format("2006-01-02 15:04:05.000") }
	const guid = "6F9619FF-8B86-4011-B42D-00C04FC964FF"
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		tb.Fatal(err)
	}
	exec := func(q string, args ...any) {
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
	exec(sqliteSchema)
	exec(`INSERT INTO DisplayToID VALUES (?, 0, 'hostile', ?, ?, ?, 0, 'Coordinated Universal Time')`, guid, stamp(0), stamp(samples-1), samples)
	det, err := tx.PrepareContext(ctx, `INSERT INTO CounterDetails (MachineName, ObjectName, CounterName, CounterType, DefaultScale, InstanceName, InstanceIndex, TimeBaseA, TimeBaseB) VALUES ('\\H', 'Object', 'Counter', 65536, 0, ?, 0, 10000000, 0)`)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range counters {
		if _, err := det.ExecContext(ctx, fmt.Sprintf("i%07d", i)); err != nil {
			tb.Fatal(err)
		}
	}
	data, err := tx.PrepareContext(ctx, `INSERT INTO CounterData VALUES (?, ?, ?, ?, ?, ?, 0, 0, 0, 1)`)
	if err != nil {
		tb.Fatal(err)
	}
	for r := range samples {
		for c := range counters {
			v := r + c
			if _, err := data.ExecContext(ctx, guid, c+1, r+1, stamp(r), float64(v), v); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	return "SQL:" + file + "!hostile"
}

// sqliteSchema is the SQLite schema of perflog/sqllog (SQL.md, "Tables").
const sqliteSchema = `
CREATE TABLE DisplayToID (GUID CHAR(36) NOT NULL PRIMARY KEY, RunID INTEGER NULL, DisplayString VARCHAR(1024) NOT NULL UNIQUE,
	LogStartTime CHAR(24) NULL, LogStopTime CHAR(24) NULL, NumberOfRecords INTEGER NULL, MinutesToUTC INTEGER NULL, TimeZoneName CHAR(32) NULL);
CREATE TABLE CounterDetails (CounterID INTEGER PRIMARY KEY AUTOINCREMENT, MachineName VARCHAR(1024) NOT NULL, ObjectName VARCHAR(1024) NOT NULL,
	CounterName VARCHAR(1024) NOT NULL, CounterType INTEGER NOT NULL, DefaultScale INTEGER NOT NULL, InstanceName VARCHAR(1024) NULL,
	InstanceIndex INTEGER NULL, ParentName VARCHAR(1024) NULL, ParentObjectID INTEGER NULL, TimeBaseA INTEGER NULL, TimeBaseB INTEGER NULL);
CREATE TABLE CounterData (GUID CHAR(36) NOT NULL, CounterID INTEGER NOT NULL, RecordIndex INTEGER NOT NULL, CounterDateTime CHAR(24) NOT NULL,
	CounterValue FLOAT NOT NULL, FirstValueA INTEGER NULL, FirstValueB INTEGER NULL, SecondValueA INTEGER NULL, SecondValueB INTEGER NULL,
	MultiCount INTEGER NULL, PRIMARY KEY (GUID, CounterID, RecordIndex));
CREATE INDEX CounterData_Record ON CounterData (GUID, RecordIndex);
CREATE INDEX CounterDetails_Path ON CounterDetails (MachineName, ObjectName, CounterName);
`

// place writes a forged log to a temporary file (SQL log sets are
// written by their forger) and returns the name to open and its size.
func place(tb testing.TB, file string, data []byte) (string, int) {
	tb.Helper()
	if data == nil {
		db := strings.TrimSuffix(strings.TrimPrefix(file, "SQL:"), "!hostile")
		fi, err := os.Stat(db)
		if err != nil {
			tb.Fatal(err)
		}
		return file, int(fi.Size())
	}
	return hostile.WriteTemp(tb, file, data), len(data)
}

// TestHostileLogs: every hostile log of the benchmarks, at a quarter and
// half of its smallest size, reads whole: every sample, every value.
func TestHostileLogs(t *testing.T) {
	for _, set := range [][]hostileLog{blgLogs, textLogs, sqlLogs} {
		for _, h := range set {
			for _, n := range []int{h.base / 4, h.base / 2} {
				t.Run(fmt.Sprintf("%s=%d", h.name, n), func(t *testing.T) {
					file, data, samples, values := h.forge(t, n)
					name, _ := place(t, file, data)
					gotS, gotV := readEvery(t, name)
					if gotS != samples || gotV != values {
						t.Errorf("%d samples, %d valid values; want %d, %d", gotS, gotV, samples, values)
					}
				})
			}
		}
	}
}

// benchHostile times readEvery over a set of hostile logs at every scale
// (hostile.Scales), per input byte.
func benchHostile(b *testing.B, set []hostileLog) {
	for _, h := range set {
		for _, s := range hostile.Scales {
			n := h.base * s
			file, data, _, _ := h.forge(b, n)
			b.Run(fmt.Sprintf("%s=%d", h.name, n), func(b *testing.B) {
				name, size := place(b, file, data)
				hostile.Measure(b, size, func() { readEvery(b, name) })
			})
		}
	}
}

// BenchmarkHostileBLG: Windows' binary logs, growing 1x..8x.
func BenchmarkHostileBLG(b *testing.B) { benchHostile(b, blgLogs) }

// BenchmarkHostileText: PDH-CSV text logs, growing 1x..8x.
func BenchmarkHostileText(b *testing.B) { benchHostile(b, textLogs) }

// BenchmarkHostileSQL: SQL log sets in SQLite, growing 1x..8x.
func BenchmarkHostileSQL(b *testing.B) { benchHostile(b, sqlLogs) }
