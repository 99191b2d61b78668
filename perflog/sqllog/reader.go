package sqllog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog/rawlog"
	"github.com/perfcounters/perfcounters/titles"
	"github.com/perfcounters/perfcounters/wintz"
)

// Log is a log set read from a database. It is a recorded pdh.Source:
// each RecordIndex is a sample, whose PERF_DATA_BLOCKs are rebuilt from
// the raw values of its CounterData rows (package rawlog), so that every
// counter computes what it computed when it was logged. The samples'
// times and counters are read when the log is opened; a sample's values
// are read when it is asked for, one query per sample. A Log is not safe
// for concurrent use.
type Log struct {
	db      *sql.DB
	d       dialect
	src     Source
	where   string
	logset  string
	guid    string
	loc     *time.Location
	records []record
	byID    map[int64]int // CounterID -> position in the counter list
	list    []rawlog.Counter
	paths   []string
	titles  *titles.DB
	plan    *rawlog.Plan
	inst    []string // the instance name each listed counter's values go under
	freq    int64
	pos     int
	notes   []string
}

type record struct {
	index int64
	time  time.Time
}

var _ pdh.Source = (*Log)(nil)
var _ pdh.Recorded = (*Log)(nil)

// maxInstanceIndex bounds InstanceIndex: a #n past it is not a real log's.
const maxInstanceIndex = 1 << 20

// Open opens the log set of src ("SQL:DSN!logset") for reading, finding
// the data source as Options.Resolve does with the process's environment.
func Open(ctx context.Context, src string) (*Log, error) { return OpenWith(ctx, src, Options{}) }

// OpenWith is Open with the lookups of opts (Location is not used: the
// log set records its own zone).
func OpenWith(ctx context.Context, src string, opts Options) (*Log, error) {
	dsn, logset, err := ParseDestination(src)
	if err != nil {
		return nil, err
	}
	s, err := opts.Resolve(dsn)
	if err != nil {
		return nil, err
	}
	db, d, err := connect(ctx, s, false)
	if err != nil {
		return nil, err
	}
	l := &Log{db: db, d: d, src: s, logset: logset, where: fmt.Sprintf("SQL log %s!%s", collectorset.RedactDSN(dsn), logset)}
	if err := l.open(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return l, nil
}

// LogsetsWith lists the log sets (DisplayToID.DisplayString) of a data
// source, found with the lookups of opts.
func LogsetsWith(ctx context.Context, dsn string, opts Options) ([]string, error) {
	s, err := opts.Resolve(dsn)
	if err != nil {
		return nil, err
	}
	db, d, err := connect(ctx, s, false)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	where := "SQL data source " + collectorset.RedactDSN(dsn)
	if err := checkSchema(ctx, db, d, where); err != nil {
		return nil, err
	}
	return logsets(ctx, db, s, where)
}

func logsets(ctx context.Context, db *sql.DB, s Source, where string) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT DisplayString FROM DisplayToID ORDER BY DisplayString`)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, scrub(err, s))
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("%s: DisplayToID: %w", where, err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", where, scrub(err, s))
	}
	return out, nil
}

func (l *Log) open(ctx context.Context) error {
	if err := checkSchema(ctx, l.db, l.d, l.where); err != nil {
		return err
	}
	var minutes sql.NullInt64
	var zone sql.NullString
	var nrec sql.NullInt64
	err := l.db.QueryRowContext(ctx, l.d.q(`SELECT GUID, MinutesToUTC, TimeZoneName, NumberOfRecords FROM DisplayToID WHERE DisplayString = ?`), l.logset).
		Scan(&l.guid, &minutes, &zone, &nrec)
	if errors.Is(err, sql.ErrNoRows) {
		names, lerr := logsets(ctx, l.db, l.src, l.where)
		if lerr != nil {
			return lerr
		}
		have := "it has none"
		if len(names) > 0 {
			if len(names) > 20 {
				names = append(names[:20], "...")
			}
			have = "it has " + strings.Join(names, ", ")
		}
		return fmt.Errorf("%s: no log set %q in data source %s (%s)", l.where, l.logset, l.src.Name, have)
	}
	if err != nil {
		return fmt.Errorf("%s: DisplayToID: %w", l.where, scrub(err, l.src))
	}
	l.loc = time.UTC
	named := "" // the zone name DisplayToID gives with its offset
	if minutes.Valid {
		if minutes.Int64 < -24*60 || minutes.Int64 > 24*60 {
			return fmt.Errorf("%s: DisplayToID.MinutesToUTC %d is not a time-zone offset (-1440..1440)", l.where, minutes.Int64)
		}
		name := strings.TrimRight(zone.String, " \x00")
		if name == "" {
			name = "Local"
		}
		l.loc = time.FixedZone(name, -int(minutes.Int64)*60)
		named = name
	}
	if err := l.readRecords(ctx); err != nil {
		return err
	}
	if named != "" && len(l.records) > 0 {
		// A Windows zone's name (what relog and perfc write) gives its
		// rules, so rows convert to local time across daylight-saving
		// changes as the log that was stored did.
		if loc, ok := wintz.FromWindowsName(named, int(minutes.Int64), l.records[0].time); ok {
			l.loc = loc
		}
	}
	if nrec.Valid && nrec.Int64 != int64(len(l.records)) {
		l.notes = append(l.notes, fmt.Sprintf("DisplayToID.NumberOfRecords says %d samples, CounterData holds %d", nrec.Int64, len(l.records)))
	}
	if err := l.readDetails(ctx); err != nil {
		return err
	}
	var err2 error
	if l.titles, err2 = rawlog.Titles(l.list, nil); err2 != nil {
		return fmt.Errorf("%s: %w", l.where, err2)
	}
	if l.plan, err2 = rawlog.NewPlan(l.list, l.titles); err2 != nil {
		return fmt.Errorf("%s: %w", l.where, err2)
	}
	return nil
}

// readRecords reads each sample's RecordIndex and time.
func (l *Log) readRecords(ctx context.Context) error {
	indexed, err := hasRecordIndex(ctx, l.db, l.d)
	if err != nil {
		return fmt.Errorf("%s: CounterData's indexes: %w", l.where, scrub(err, l.src))
	}
	// With the index on (GUID, RecordIndex), a loose index scan: one
	// lookup per sample, not a pass over every row. Without it (tables
	// made by relog), one pass.
	query, args := `SELECT RecordIndex, MIN(CounterDateTime) FROM CounterData WHERE GUID = ? GROUP BY RecordIndex ORDER BY RecordIndex`, []any{l.guid}
	if indexed {
		query = `WITH RECURSIVE r(i) AS (
	SELECT MIN(RecordIndex) FROM CounterData WHERE GUID = ?
	UNION ALL
	SELECT (SELECT MIN(RecordIndex) FROM CounterData WHERE GUID = ? AND RecordIndex > r.i) FROM r WHERE r.i IS NOT NULL)
SELECT i, (SELECT CounterDateTime FROM CounterData WHERE GUID = ? AND RecordIndex = r.i LIMIT 1) FROM r WHERE i IS NOT NULL`
		args = []any{l.guid, l.guid, l.guid}
	}
	rows, err := l.db.QueryContext(ctx, l.d.q(query), args...)
	if err != nil {
		return fmt.Errorf("%s: CounterData: %w", l.where, scrub(err, l.src))
	}
	defer rows.Close()
	sorted := true
	for rows.Next() {
		var r record
		var stamp string
		if err := rows.Scan(&r.index, &stamp); err != nil {
			return fmt.Errorf("%s: CounterData: %w", l.where, err)
		}
		if r.time, err = parseTime(stamp); err != nil {
			return fmt.Errorf("%s: CounterData, RecordIndex %d: CounterDateTime %w", l.where, r.index, err)
		}
		if n := len(l.records); n > 0 && r.time.Before(l.records[n-1].time) {
			sorted = false
		}
		l.records = append(l.records, r)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: CounterData: %w", l.where, scrub(err, l.src))
	}
	if !sorted {
		slices.SortStableFunc(l.records, func(a, b record) int { return a.time.Compare(b.time) })
		l.notes = append(l.notes, "the records' times do not rise with their RecordIndex; the samples are read in time order")
	}
	return nil
}

// hasRecordIndex reports whether CounterData has the index on (GUID,
// RecordIndex) that writers add (SQL.md).
func hasRecordIndex(ctx context.Context, db *sql.DB, d dialect) (bool, error) {
	query := `SELECT COUNT(*) FROM pragma_index_list('CounterData') WHERE name = 'CounterData_Record'`
	if d.pg {
		query = `SELECT COUNT(*) FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'counterdata' AND indexname = 'counterdata_record'`
	}
	var n int
	err := db.QueryRowContext(ctx, query).Scan(&n)
	return n > 0, err
}

// parseTime reads a CounterDateTime: "yyyy-mm-dd hh:mm:ss.fff" in UTC,
// with or without relog's closing NUL (and the blanks a char(24) column
// pads with).
func parseTime(s string) (time.Time, error) {
	t := strings.TrimRight(s, " \x00")
	v, err := time.Parse("2006-01-02 15:04:05.999999999", t)
	if err != nil {
		if len(t) > 40 {
			t = t[:40] + "..."
		}
		return time.Time{}, fmt.Errorf("%q is not a time yyyy-mm-dd hh:mm:ss.fff", t)
	}
	return v, nil
}

// readDetails reads the CounterDetails rows the log set's data refer to.
func (l *Log) readDetails(ctx context.Context) error {
	// The CounterIDs the log set uses, by a loose scan of the primary key
	// (GUID, CounterID, RecordIndex): one lookup per counter.
	rows, err := l.db.QueryContext(ctx, l.d.q(`WITH RECURSIVE c(id) AS (
	SELECT MIN(CounterID) FROM CounterData WHERE GUID = ?
	UNION ALL
	SELECT (SELECT MIN(CounterID) FROM CounterData WHERE GUID = ? AND CounterID > c.id) FROM c WHERE c.id IS NOT NULL)
SELECT CounterID, MachineName, ObjectName, CounterName, CounterType, DefaultScale,
InstanceName, InstanceIndex, ParentName, TimeBaseA, TimeBaseB FROM CounterDetails
WHERE CounterID IN (SELECT id FROM c WHERE id IS NOT NULL) ORDER BY CounterID`), l.guid, l.guid)
	if err != nil {
		return fmt.Errorf("%s: CounterDetails: %w", l.where, scrub(err, l.src))
	}
	defer rows.Close()
	l.byID = map[int64]int{}
	for rows.Next() {
		var id, typ, scale int64
		var machine, object, counter string
		var inst, parent sql.NullString
		var index, tbA, tbB sql.NullInt64
		if err := rows.Scan(&id, &machine, &object, &counter, &typ, &scale, &inst, &index, &parent, &tbA, &tbB); err != nil {
			return fmt.Errorf("%s: CounterDetails: %w", l.where, err)
		}
		where := func(field string, v int64) error {
			return fmt.Errorf("%s: CounterDetails, CounterID %d: %s %d outside a 32-bit int", l.where, id, field, v)
		}
		for _, f := range []struct {
			name string
			v    int64
		}{{"CounterType", typ}, {"DefaultScale", scale}, {"TimeBaseA", tbA.Int64}, {"TimeBaseB", tbB.Int64}} {
			if f.v < math.MinInt32 || f.v > math.MaxUint32 {
				return where(f.name, f.v)
			}
		}
		if index.Int64 < 0 || index.Int64 > maxInstanceIndex {
			return fmt.Errorf("%s: CounterDetails, CounterID %d: InstanceIndex %d outside 0..%d", l.where, id, index.Int64, maxInstanceIndex)
		}
		machine = strings.TrimRight(machine, " \x00")
		if object == "" || counter == "" {
			return fmt.Errorf("%s: CounterDetails, CounterID %d: empty ObjectName or CounterName", l.where, id)
		}
		c := rawlog.Counter{Machine: machine, Object: object, Instance: inst.String, Parent: parent.String, Index: uint32(index.Int64),
			Name: counter, Type: countertype.Type(uint32(typ)), TimeBase: int64(join(tbA.Int64, tbB.Int64)), Scale: int32(scale)}
		in := c.Instance
		if c.Index > 0 {
			in = fmt.Sprintf("%s#%d", in, c.Index)
		}
		l.byID[id] = len(l.list)
		l.list = append(l.list, c)
		l.inst = append(l.inst, in)
		l.paths = append(l.paths, c.Path())
		if tb := c.Type.TimeBase(); l.freq == 0 && tb == countertype.PERF_TIMER_TICK && c.TimeBase > 0 {
			l.freq = c.TimeBase
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: CounterDetails: %w", l.where, scrub(err, l.src))
	}
	if l.freq == 0 {
		l.freq = 10_000_000
	}
	return nil
}

// GUID is the log set's GUID (DisplayToID.GUID).
func (l *Log) GUID() string { return l.guid }

// Location is the time zone the log set recorded (DisplayToID's
// TimeZoneName and MinutesToUTC, a fixed offset); UTC when it recorded
// none.
func (l *Log) Location() *time.Location { return l.loc }

// Notes says what the reader found inconsistent in the log set and how it
// went on.
func (l *Log) Notes() []string { return l.notes }

// Close closes the database.
func (l *Log) Close() error { return l.db.Close() }

// Titles names the objects and counters of the rebuilt blocks: English
// Windows' indexes where the names are known there, new ones otherwise.
func (l *Log) Titles() *titles.DB { return l.titles }

// Recorded returns the Log itself.
func (l *Log) Recorded() pdh.Recorded { return l }

// Counters returns nil: the rebuilt blocks hold only the counters the log
// set has values for, so every counter of every object they hold is the
// recording's (a tool asked for none shows them all, every instance of
// every sample included). Paths lists them one by one.
func (l *Log) Counters() []string { return nil }

// Paths are the counter paths of the log set's CounterDetails rows (one
// per counter instance, machine included), in the order of their
// CounterIDs.
func (l *Log) Paths() []string { return l.paths }

// Len is the number of samples.
func (l *Log) Len() int { return len(l.records) }

// Pos is the position of the sample the next Sample returns.
func (l *Log) Pos() int { return l.pos }

// Seek makes the next Sample return sample i.
func (l *Log) Seek(i int) error {
	if i < 0 || i > len(l.records) {
		return fmt.Errorf("%s: sample %d out of range 0..%d", l.where, i, len(l.records))
	}
	l.pos = i
	return nil
}

// Time is the time of sample i (CounterDateTime, UTC).
func (l *Log) Time(i int) time.Time { return l.records[i].time }

// Sample reads the next sample's rows and rebuilds its blocks; objects is
// ignored. A row that cannot be a raw value is an error naming its
// RecordIndex and CounterID; the position still advances.
func (l *Log) Sample(ctx context.Context, objects []uint32) (*pdh.Sample, error) {
	if l.pos >= len(l.records) {
		return nil, io.EOF
	}
	r := l.records[l.pos]
	l.pos++
	rows, err := l.db.QueryContext(ctx, l.d.q(`SELECT CounterID, FirstValueA, FirstValueB, SecondValueA, SecondValueB, MultiCount
FROM CounterData WHERE GUID = ? AND RecordIndex = ?`), l.guid, r.index)
	if err != nil {
		return nil, fmt.Errorf("%s: RecordIndex %d: %w", l.where, r.index, scrub(err, l.src))
	}
	defer rows.Close()
	type cell struct {
		k int
		v rawlog.Value
	}
	var cells []cell
	for rows.Next() {
		var id int64
		var v [5]sql.NullInt64
		if err := rows.Scan(&id, &v[0], &v[1], &v[2], &v[3], &v[4]); err != nil {
			return nil, fmt.Errorf("%s: RecordIndex %d: %w", l.where, r.index, err)
		}
		k, ok := l.byID[id]
		if !ok {
			return nil, fmt.Errorf("%s: RecordIndex %d: CounterID %d has no CounterDetails row", l.where, r.index, id)
		}
		names := [5]string{"FirstValueA", "FirstValueB", "SecondValueA", "SecondValueB", "MultiCount"}
		for j := range v {
			if v[j].Int64 < math.MinInt32 || v[j].Int64 > math.MaxUint32 {
				return nil, fmt.Errorf("%s: RecordIndex %d, CounterID %d: %s %d outside a 32-bit int", l.where, r.index, id, names[j], v[j].Int64)
			}
		}
		val := rawlog.Value{Status: rawlog.CStatusValid, First: int64(join(v[0].Int64, v[1].Int64)),
			Second: int64(join(v[2].Int64, v[3].Int64)), Multi: uint32(v[4].Int64)}
		cells = append(cells, cell{k, val})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: RecordIndex %d: %w", l.where, r.index, scrub(err, l.src))
	}
	// Instances appear in the order of their CounterDetails rows, which
	// writers add in the order the instances were seen.
	slices.SortFunc(cells, func(a, b cell) int { return a.k - b.k })
	set := l.plan.Rows()
	for _, c := range cells {
		if err := set.SetParent(c.k, l.list[c.k].Parent, l.inst[c.k], c.v); err != nil {
			return nil, fmt.Errorf("%s: RecordIndex %d: %w", l.where, r.index, err)
		}
	}
	s, err := set.Build(r.time, l.freq)
	if err != nil {
		return nil, fmt.Errorf("%s: RecordIndex %d: %w", l.where, r.index, err)
	}
	return s, nil
}
