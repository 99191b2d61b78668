package sqllog

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/wintz"
)

// Options configure Create and OpenWith.
type Options struct {
	// Location is the time zone whose name and offset a new log set
	// records (DisplayToID.TimeZoneName, MinutesToUTC); nil is time.Local.
	// Times themselves are stored in UTC.
	Location *time.Location
	// Getenv looks up environment variables (PERFC_SQL_DSN_<NAME>,
	// XDG_CONFIG_HOME, HOME); nil is os.Getenv.
	Getenv func(string) string
	// ConfigFile is the data source file; "" is DefaultConfigFile.
	ConfigFile string
	// MaxRecords limits the records (samples) of a log set written by
	// Create's Writer: a sample that would make the log set's
	// NumberOfRecords pass it is not written, and WriteQuery returns an
	// error satisfying errors.Is(err, ErrFull). The count is the log
	// set's, records already there included (SQL logs always append), as
	// logman's -max counts records for SQL logs. 0: no limit.
	MaxRecords int64
}

// ErrFull is the error of a sample refused because its log set holds
// Options.MaxRecords records.
var ErrFull = errors.New("the log set holds its maximum number of records (-max)")

func (o Options) getenv() func(string) string {
	if o.Getenv != nil {
		return o.Getenv
	}
	return os.Getenv
}

// fmtOpts are the options of the formatted value stored in CounterValue:
// unscaled and uncapped, as relog writes its text logs.
const fmtOpts = calc.FmtDouble | calc.FmtNoScale | calc.FmtNoCap100

// timeLayout is CounterDateTime without relog's closing NUL (SQL.md).
const timeLayout = "2006-01-02 15:04:05.000"

// batchRows is how many CounterData rows one INSERT carries.
const batchRows = 100

// Writer appends samples to a log set. It is not safe for concurrent use;
// several Writers (in one process or many, on one host or many) may write
// into one database at once.
type Writer struct {
	db     *sql.DB
	d      dialect
	src    Source
	logset string
	guid   string
	where  string
	// ids are the CounterDetails rows of the latest sample's items, and
	// next those of the sample being written: an item absent from a
	// sample (its process gone) leaves the cache, and is looked up in
	// the database again should it return.
	ids, next map[detailKey]int64
	items     []pdh.Item
	rows      []dataRow
	seen      map[int64]bool
	insert    string // the INSERT of a full batch
	max       int64  // Options.MaxRecords
	closed    bool
}

// detailKey is one CounterDetails row.
type detailKey struct {
	machine, object, counter string
	instance                 string
	hasInstance              bool
	index                    int
	parent                   string
	typ                      countertype.Type
	scale                    int32
	timeBase                 int64
}

type dataRow struct {
	key    detailKey
	id     int64
	value  float64
	first  uint64
	second uint64
	multi  uint64
}

// Create opens the log set of dest ("SQL:DSN!logset") for appending,
// creating the tables where they are missing and the log set (a new
// DisplayToID row with a new GUID) where it does not exist; a log set that
// exists is appended to, as SQL logs always are.
func Create(ctx context.Context, dest string, opts Options) (*Writer, error) {
	dsn, logset, err := ParseDestination(dest)
	if err != nil {
		return nil, err
	}
	src, err := opts.Resolve(dsn)
	if err != nil {
		return nil, err
	}
	db, d, err := connect(ctx, src, true)
	if err != nil {
		return nil, err
	}
	if opts.MaxRecords < 0 {
		db.Close()
		return nil, fmt.Errorf("SQL log %s!%s: a maximum of %d records", collectorset.RedactDSN(dsn), logset, opts.MaxRecords)
	}
	w := &Writer{db: db, d: d, src: src, logset: logset, ids: map[detailKey]int64{}, next: map[detailKey]int64{}, seen: map[int64]bool{},
		where: fmt.Sprintf("SQL log %s!%s", collectorset.RedactDSN(dsn), logset), max: opts.MaxRecords}
	if err := w.open(ctx, opts); err != nil {
		db.Close()
		return nil, err
	}
	return w, nil
}

func (w *Writer) open(ctx context.Context, opts Options) error {
	if err := createSchema(ctx, w.db, w.d); err != nil {
		return fmt.Errorf("%s: creating the tables: %w", w.where, scrub(err, w.src))
	}
	if err := checkSchema(ctx, w.db, w.d, w.where); err != nil {
		return err
	}
	loc := opts.Location
	if loc == nil {
		loc = time.Local
	}
	z := wintz.At(time.Now().In(loc))
	zname := z.Name
	if len(zname) > 32 {
		zname = zname[:32]
	}
	guid, err := newGUID()
	if err != nil {
		return err
	}
	_, err = w.db.ExecContext(ctx, w.d.q(`INSERT INTO DisplayToID (GUID, RunID, DisplayString, NumberOfRecords, MinutesToUTC, TimeZoneName)
VALUES (?, 0, ?, 0, ?, ?) ON CONFLICT (DisplayString) DO NOTHING`), guid, w.logset, z.Bias, zname)
	if err != nil {
		return fmt.Errorf("%s: adding the log set: %w", w.where, scrub(err, w.src))
	}
	if err := w.db.QueryRowContext(ctx, w.d.q(`SELECT GUID FROM DisplayToID WHERE DisplayString = ?`), w.logset).Scan(&w.guid); err != nil {
		return fmt.Errorf("%s: reading the log set's GUID: %w", w.where, scrub(err, w.src))
	}
	return nil
}

// newGUID makes a random (version 4) GUID in SQL Server's text form.
func newGUID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%X-%X-%X-%X-%X", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}

// GUID is the log set's GUID (DisplayToID.GUID).
func (w *Writer) GUID() string { return w.guid }

// WriteQuery appends the sample q last collected: one CounterData row per
// counter instance with a valid raw value, under a new RecordIndex, and
// the CounterDetails rows of counters seen for the first time; the log
// set's NumberOfRecords and LogStopTime (LogStartTime on the first) are
// updated in the same transaction, so a log set read at any moment is
// whole. A sample without any value writes nothing. An item that two
// counters of q both cover is written once.
func (w *Writer) WriteQuery(ctx context.Context, q *pdh.Query) error {
	if w.closed {
		return fmt.Errorf("%s: written after Close", w.where)
	}
	t := q.Time().UTC()
	stamp := t.Format(timeLayout)
	if t.Year() < 1601 || t.Year() > 9999 {
		return fmt.Errorf("%s: sample time %v outside the years 1601..9999", w.where, t)
	}
	w.rows = w.rows[:0]
	for _, c := range q.Counters() {
		raws := c.Raw()
		w.items = c.AppendFormattedArray(w.items[:0], fmtOpts)
		if len(raws) != len(w.items) {
			return fmt.Errorf("%s: counter %s: %d raw values for %d formatted values", w.where, c.Path(), len(raws), len(w.items))
		}
		for i, r := range raws {
			if !r.Raw.Status.OK() {
				continue // CounterData has no status: only values are stored
			}
			w.rows = append(w.rows, w.row(q, r, calc.Value{Status: w.items[i].Status, Double: w.items[i].Computed}))
		}
		// The counters that identify a process or thread between samples
		// (ID Process / ID Thread and Elapsed Time) go with the logged
		// ones, so that the reader pairs instances by identity as the
		// query did, not by name#n (SQL.md, "Instances").
		for _, r := range c.IdentityRaw() {
			if !r.Raw.Status.OK() {
				continue
			}
			w.rows = append(w.rows, w.row(q, r, calc.Format(r.Type, r.Scale, &r.Raw, nil, fmtOpts)))
		}
	}
	if len(w.rows) == 0 {
		return nil
	}
	err := w.write(ctx, stamp)
	if err != nil {
		return fmt.Errorf("%s: sample of %s: %w", w.where, stamp, scrub(err, w.src))
	}
	return nil
}

// row is the CounterData row of raw item r of q's sample, with v its
// formatted value (stored as 0 when it is not valid data).
func (w *Writer) row(q *pdh.Query, r pdh.RawItem, v calc.Value) dataRow {
	p := r.Path
	m := p.Machine
	if m == "" {
		m = q.Machine()
	}
	k := detailKey{machine: `\\` + strings.TrimPrefix(m, `\\`), object: p.Object, counter: p.Counter,
		instance: p.Instance, hasInstance: p.Instance != "", index: p.Index, parent: p.Parent,
		typ: r.Type, scale: r.Scale, timeBase: int64(r.Raw.Freq)}
	val := 0.0
	if v.Status == calc.ValidData && !math.IsNaN(v.Double) && !math.IsInf(v.Double, 0) {
		val = v.Double
	}
	return dataRow{key: k, value: val, first: r.Raw.FirstValue, second: secondOf(r.Type, r.Raw), multi: r.Raw.MultiCount}
}

// secondOf is the PDH_RAW_COUNTER SecondValue of a raw value: the base
// of a type with one, else the time stamp of a type computed over time
// (what rawlog rebuilds the clocks from).
func secondOf(t countertype.Type, r calc.Raw) uint64 {
	if bt, ok := t.Base(); ok {
		if bt == countertype.PERF_COUNTER_MULTI_BASE {
			return r.Time
		}
		return r.SecondValue
	}
	if t.NeedsTwoSamples() || t == countertype.PERF_ELAPSED_TIME {
		return r.Time
	}
	return r.SecondValue
}

func (w *Writer) write(ctx context.Context, stamp string) error {
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	clear(w.next)
	locked := false
	var st stmts
	defer st.close()
	clear(w.seen)
	out := w.rows[:0]
	for _, r := range w.rows {
		id, ok := w.ids[r.key]
		if !ok {
			id, ok = w.next[r.key] // added by this sample
		}
		if !ok {
			if w.d.pg && !locked {
				if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(schemaLock)); err != nil {
					return err
				}
				locked = true
			}
			if id, err = w.detail(ctx, tx, &st, r.key); err != nil {
				return err
			}
		}
		w.next[r.key] = id
		if w.seen[id] {
			continue
		}
		w.seen[id] = true
		r.id = id
		out = append(out, r)
	}
	lock := ""
	if w.d.pg {
		lock = " FOR UPDATE"
	}
	var n sql.NullInt64
	if err := tx.QueryRowContext(ctx, w.d.q(`SELECT NumberOfRecords FROM DisplayToID WHERE GUID = ?`+lock), w.guid).Scan(&n); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("the log set's DisplayToID row (GUID %s) was deleted", w.guid)
		}
		return err
	}
	if w.max > 0 && n.Int64 >= w.max {
		return fmt.Errorf("%w (%d)", ErrFull, w.max)
	}
	var last sql.NullInt64
	if err := tx.QueryRowContext(ctx, w.d.q(`SELECT MAX(RecordIndex) FROM CounterData WHERE GUID = ?`), w.guid).Scan(&last); err != nil {
		return err
	}
	rec := last.Int64 + 1
	if rec > math.MaxInt32 {
		return fmt.Errorf("RecordIndex %d does not fit SQL Server's int", rec)
	}
	for len(out) > 0 {
		k := min(len(out), batchRows)
		if err := w.insertRows(ctx, tx, &st, out[:k], rec, stamp); err != nil {
			return err
		}
		out = out[k:]
	}
	if _, err := tx.ExecContext(ctx, w.d.q(`UPDATE DisplayToID SET NumberOfRecords = COALESCE(NumberOfRecords, 0) + 1,
LogStartTime = COALESCE(LogStartTime, ?), LogStopTime = ? WHERE GUID = ?`), stamp, stamp, w.guid); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	w.ids, w.next = w.next, w.ids
	return nil
}

// detail finds or adds the CounterDetails row of k. Rows are shared by
// every log set of the database, as relog shares them.
// stmts are the statements of one transaction, prepared once there.
type stmts struct{ find, add, batch *sql.Stmt }

func (st *stmts) close() {
	for _, s := range []*sql.Stmt{st.find, st.add, st.batch} {
		if s != nil {
			s.Close()
		}
	}
}

func (w *Writer) detail(ctx context.Context, tx *sql.Tx, st *stmts, k detailKey) (int64, error) {
	eq := w.d.nullEq()
	inst, index, parent := nullStr(k.instance, k.hasInstance), sql.NullInt64{Int64: int64(k.index), Valid: k.hasInstance}, nullStr(k.parent, k.parent != "")
	tbA, tbB := split(uint64(k.timeBase))
	var id int64
	var err error
	if st.find == nil {
		if st.find, err = tx.PrepareContext(ctx, w.d.q(`SELECT CounterID FROM CounterDetails WHERE MachineName = ? AND ObjectName = ? AND CounterName = ?
AND CounterType = ? AND DefaultScale = ? AND InstanceName `+eq+` ? AND InstanceIndex `+eq+` ? AND ParentName `+eq+` ?
AND TimeBaseA `+eq+` ? AND TimeBaseB `+eq+` ? ORDER BY CounterID LIMIT 1`)); err != nil {
			return 0, err
		}
	}
	err = st.find.QueryRowContext(ctx, k.machine, k.object, k.counter, int32(uint32(k.typ)), k.scale, inst, index, parent, tbA, tbB).Scan(&id)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	for _, s := range []string{k.machine, k.object, k.counter, k.instance, k.parent} {
		if len(s) > 1024 {
			return 0, fmt.Errorf("counter %s\\%s\\%s: a name of %d bytes, CounterDetails holds 1024", k.machine, k.object, k.counter, len(s))
		}
	}
	if st.add == nil {
		if st.add, err = tx.PrepareContext(ctx, w.d.q(`INSERT INTO CounterDetails (MachineName, ObjectName, CounterName, CounterType, DefaultScale,
InstanceName, InstanceIndex, ParentName, ParentObjectID, TimeBaseA, TimeBaseB) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?) RETURNING CounterID`)); err != nil {
			return 0, err
		}
	}
	err = st.add.QueryRowContext(ctx, k.machine, k.object, k.counter, int32(uint32(k.typ)), k.scale, inst, index, parent, tbA, tbB).Scan(&id)
	return id, err
}

func nullStr(s string, valid bool) sql.NullString { return sql.NullString{String: s, Valid: valid} }

// split is a 64-bit value as SQL Server's two signed 32-bit ints: the
// low half (A) and the high half (B).
func split(v uint64) (a, b int32) { return int32(uint32(v)), int32(uint32(v >> 32)) }

// join is split undone.
func join(a, b int64) uint64 { return uint64(uint32(a)) | uint64(uint32(b))<<32 }

func (w *Writer) insertRows(ctx context.Context, tx *sql.Tx, st *stmts, rows []dataRow, rec int64, stamp string) error {
	query := w.insert
	if len(rows) != batchRows || query == "" {
		var b strings.Builder
		b.WriteString("INSERT INTO CounterData (GUID, CounterID, RecordIndex, CounterDateTime, CounterValue, FirstValueA, FirstValueB, SecondValueA, SecondValueB, MultiCount) VALUES ")
		for i := range rows {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("(?,?,?,?,?,?,?,?,?,?)")
		}
		query = w.d.q(b.String())
		if len(rows) == batchRows {
			w.insert = query
		}
	}
	args := make([]any, 0, 10*len(rows))
	for _, r := range rows {
		fa, fb := split(r.first)
		sa, sb := split(r.second)
		args = append(args, w.guid, r.id, rec, stamp, r.value, fa, fb, sa, sb, int32(uint32(r.multi)))
	}
	if len(rows) != batchRows {
		_, err := tx.ExecContext(ctx, query, args...)
		return err
	}
	if st.batch == nil {
		var err error
		if st.batch, err = tx.PrepareContext(ctx, query); err != nil {
			return err
		}
	}
	_, err := st.batch.ExecContext(ctx, args...)
	return err
}

// Close closes the database. The log set's NumberOfRecords and
// LogStopTime are already up to date: each WriteQuery updates them with
// its rows.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	return w.db.Close()
}
