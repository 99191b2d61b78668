// Package engine plays Perflib's role: it owns the providers of performance
// objects and the title database, and answers QueryValue for "Global",
// "Costly", "Counter", "Help" and lists of object title indexes with a
// PERF_DATA_BLOCK built by the perfdata codec.
//
// The engine collects only the objects a query asks for (plus the related
// objects Windows adds, such as Process for Thread), fills the block header
// from an injected clock, and serialises collection so providers need not be
// safe for concurrent use; QueryValue itself may be called from any number of
// goroutines. A provider that fails or panics costs only its own object: the
// object is dropped from the block and the reason is reported in the result
// and through the injected logger.
package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// Writer receives one object's instances and values during collection. The
// engine implements it over its block builder; collect functions of built-in
// objects accept any value with this method set.
type Writer interface {
	// Instance starts an instance and returns the writer of its counter block.
	Instance(name string, parentTitleIndex, parentInstance uint32, uniqueID int32) perfdata.Values
	// Single returns the counter block of a single-instance object.
	Single() perfdata.Values
	// SetObjectTime sets the object's own timer (PERF_OBJECT_TIMER types).
	SetObjectTime(perfTime, perfFreq int64)
}

// Object is one performance object the engine can collect: its declaration
// and the function that writes one sample of it. Collect receives the
// context of the sample being collected (which sample it is, and where to
// report data it could not read) and the writer of the object's instances.
type Object struct {
	Set     *counterset.Set
	Collect func(c *Collection, w Writer) error
}

// Collection is the context of one sample in the making. The engine makes
// one per query and hands it to the Collect function of every object of
// that query, so objects that share work (Thread and Process share one scan
// of /proc) can tell that they belong to the same sample, and so an object
// can say what it could not read without being dropped. A Collection is
// used by one goroutine at a time and must not be kept after Collect returns.
type Collection struct {
	seq      uint64
	time     int64  // the block's PerfTime100nSec
	want     []bool // the object's counter positions the query asked for; nil all
	reasons  []string
	dropped  int
	missing  []Missing
	instance int // position of the instance last started by the Writer; -1 before any
}

// maxReasons bounds the partial-data reasons kept per object, so an object
// that reports one per process cannot grow a result without bound.
const maxReasons = 64

// Seq identifies the sample: every object of one query sees the same
// number, and each query gets a larger one than the query before.
func (c *Collection) Seq() uint64 { return c.seq }

// Wants reports whether the query asked for the counter at position i of
// the object being collected (Query.Counters); true when it named none.
func (c *Collection) Wants(i int) bool {
	return c.want == nil || (i >= 0 && i < len(c.want) && c.want[i])
}

// Time is the sample's PerfTime100nSec (FILETIME units), the time base of
// the PERF_100NSEC timers the objects write.
func (c *Collection) Time() int64 { return c.time }

// Partial reports that the object is delivered with some data missing and
// why (a file that could not be read, a malformed line). The object stays in
// the block; the reason reaches the consumer with the sample. Reasons past
// a bound are counted, not kept.
func (c *Collection) Partial(reason string) {
	if len(c.reasons) < maxReasons {
		c.reasons = append(c.reasons, reason)
		return
	}
	c.dropped++
}

// Unavailable marks the values of the given counters (positions in the
// object's counter set; none means every counter) of the instance last
// started with Writer.Instance, or of the single instance, as not read: the
// block carries a placeholder (normally 0) that a consumer must not show as
// a value. Call Partial as well to say why.
func (c *Collection) Unavailable(counters ...int) {
	m := Missing{Instance: c.instance}
	for _, i := range counters {
		if i >= 0 {
			m.Counters = append(m.Counters, uint32(i))
		}
	}
	c.missing = append(c.missing, m)
}

// Missing names values of an object that are in the block only as
// placeholders. Instance is the position of the instance in the object's
// instance list (-1 for a single-instance object); Counters are positions in
// the object's counter set when a collect function reports them, and are
// converted to the counters' title indexes in a Result's Problems. Empty
// Counters means every counter of the instance.
type Missing struct {
	Instance int
	Counters []uint32
}

// Clock supplies the time stamps of a block. Wall is the system time (for
// SYSTEMTIME and PerfTime100nSec); Ticks and Freq are a monotonic
// high-resolution counter and its frequency (PerfTime, PerfFreq).
type Clock interface {
	Wall() time.Time
	Ticks() int64
	Freq() int64
}

// Options configure an Engine. Zero values select sensible defaults.
type Options struct {
	SystemName string       // PERF_DATA_BLOCK system name; default: the host name
	Clock      Clock        // default: the system clock with nanosecond ticks
	Logger     *slog.Logger // discarded-data and provider-failure reports; default: discard
	Titles     *titles.DB   // title database; default: titles.English()
	// Languages are the title databases of other languages than English
	// (the names registered in each: state.LangTitles), which answer
	// "Counter LLL" and "Help LLL" as Perflib's language subkeys do.
	Languages map[titles.Lang]*titles.DB
}

// Problem reports an object that could not be collected, or (in
// Result.Partial) one delivered with some data missing.
type Problem struct {
	NameIndex uint32
	Object    string
	Err       error
	// Missing lists the values of a partial object that are placeholders,
	// with counters as title indexes (Collection.Unavailable).
	Missing []Missing
	// Provider names the V1 provider (AddProcedure) whose failure or output
	// this is; empty for the engine's own objects. A failed V1 sample gives
	// one Problem per object of the provider that the query asked for
	// (NameIndex 0 when the provider registered none).
	Provider string
}

// Error says what went wrong and to which object, and for a V1 provider's
// problem starts with "V1 provider NAME: ".
func (p Problem) Error() string {
	obj := fmt.Sprintf("object %d", p.NameIndex)
	if p.Object != "" {
		obj = fmt.Sprintf("object %s (%d)", p.Object, p.NameIndex)
	}
	switch {
	case p.Provider == "":
		return fmt.Sprintf("%s: %v", obj, p.Err)
	case p.NameIndex == 0 && p.Object == "":
		return fmt.Sprintf("V1 provider %s: %v", p.Provider, p.Err)
	}
	return fmt.Sprintf("V1 provider %s: %s: %v", p.Provider, obj, p.Err)
}

// Result is the answer to one query.
type Result struct {
	Block    []byte    // the PERF_DATA_BLOCK, or a MULTI_SZ list for Counter/Help; owned by the caller
	Problems []Problem // objects dropped from the block, with reasons
	Partial  []Problem // objects delivered with some data missing (unreadable files, ...), with reasons
	// Notes are remarks on a title list: the names a language's list
	// lacks.
	Notes []string
}

// PartialError is what a collect function returns when it wrote its object
// but could not read everything (another user's /proc files in a
// container, say): the object stays in the block, and the reasons are
// reported in Result.Partial instead of dropping it.
type PartialError struct {
	Reasons []string
}

func (e *PartialError) Error() string {
	return "partial data: " + strings.Join(e.Reasons, "; ")
}

// ErrMoreData is returned by QueryValueInto when the caller's buffer is too
// small. As on Windows, no size hint is given and the buffer is untouched:
// the caller grows it and retries.
var ErrMoreData = perfdata.ErrMoreData

// Engine answers registry-style queries. Create it with New; the zero value
// is not usable.
type Engine struct {
	opts   Options
	mu     sync.Mutex // serialises collection and guards the fields below
	titles *titles.DB
	objs   []registered
	b      *perfdata.Builder
	procs  []*procedure // V1 collect procedures (v1.go)
	seq    uint64       // the last sample's Collection.Seq
}

type registered struct {
	obj       Object
	nameIndex uint32
	parent    uint32 // title index of the related (parent) object, 0 none
	specs     []perfdata.CounterSpec
	layout    *perfdata.Layout
}

// New returns an engine with no objects.
func New(opts Options) *Engine {
	if opts.Clock == nil {
		opts.Clock = SystemClock()
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Titles == nil {
		opts.Titles = titles.English()
	}
	if opts.SystemName == "" {
		opts.SystemName = hostName()
	}
	return &Engine{opts: opts, titles: opts.Titles, b: perfdata.NewBuilder(nil)}
}

// LangTitles returns the names registered in language l (nil when none),
// as Options.Languages gave them; English is Titles.
func (e *Engine) LangTitles(l titles.Lang) *titles.DB {
	if l == titles.LangEnglish {
		return e.titles
	}
	return e.opts.Languages[l]
}

// Titles returns the engine's title database. It must not be modified while
// queries run.
func (e *Engine) Titles() *titles.DB { return e.titles }

// Add registers objects. Names and help texts are entered into the title
// database (reusing English Windows' indexes where Windows has the name),
// the object's counter layout is computed once, and the object joins
// Global (or Costly) queries.
func (e *Engine) Add(objs ...Object) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, o := range objs {
		r, err := e.register(o)
		if err != nil {
			return err
		}
		for _, x := range e.objs {
			if x.nameIndex == r.nameIndex {
				return fmt.Errorf("engine: object %q: title index %d already used by %q", o.Set.Name, r.nameIndex, x.obj.Set.Name)
			}
		}
		e.objs = append(e.objs, r)
	}
	// Parents may be registered after children; resolve by name now.
	for i := range e.objs {
		if p := e.objs[i].obj.Set.Parent; p != "" {
			for _, x := range e.objs {
				if strings.EqualFold(x.obj.Set.Name, p) {
					e.objs[i].parent = x.nameIndex
				}
			}
		}
	}
	return nil
}

func (e *Engine) register(o Object) (registered, error) {
	s := o.Set
	if s == nil || o.Collect == nil {
		return registered{}, errors.New("engine: object without a set or a collect function")
	}
	if err := s.Validate(); err != nil {
		return registered{}, fmt.Errorf("engine: %w", err)
	}
	idx, err := e.title(s.NameIndex, s.Name, s.Help)
	if err != nil {
		return registered{}, fmt.Errorf("engine: object %q: %w", s.Name, err)
	}
	specs := make([]perfdata.CounterSpec, len(s.Counters))
	var last uint32
	for i := range s.Counters {
		c := &s.Counters[i]
		ci := last // real Windows data repeats the user's indexes on its base
		if !c.Type.IsBase() || i == 0 {
			var err error
			if ci, err = e.title(c.NameIndex, c.Name, c.Help); err != nil {
				return registered{}, fmt.Errorf("engine: object %q: counter %q: %w", s.Name, c.Name, err)
			}
		}
		last = ci
		specs[i] = perfdata.CounterSpec{
			NameIndex:    ci,
			HelpIndex:    ci + 1,
			DefaultScale: c.DefaultScale,
			DetailLevel:  detail(c.DetailLevel),
			Type:         c.Type,
			Size:         c.ValueSize(),
		}
	}
	l, err := perfdata.NewLayout(specs)
	if err != nil {
		return registered{}, fmt.Errorf("engine: object %q: %w", s.Name, err)
	}
	return registered{obj: o, nameIndex: idx, specs: specs, layout: l}, nil
}

// title returns the title index of a name: the fixed one when given,
// otherwise English Windows' index or a newly registered one.
func (e *Engine) title(fixed uint32, name, help string) (uint32, error) {
	if fixed != 0 {
		return fixed, e.titles.SetAt(fixed, name, help)
	}
	return e.titles.Register(name, help)
}

func detail(d uint32) uint32 {
	if d == 0 {
		return counterset.DetailNovice
	}
	return d
}

// QueryValue answers a registry value name and returns a fresh block.
func (e *Engine) QueryValue(ctx context.Context, name string) (*Result, error) {
	return e.query(ctx, name)
}

// QueryValueInto answers a value name into buf, the registry's buffer
// protocol: it returns the number of bytes written, or ErrMoreData (with buf
// untouched) when buf is too small.
func (e *Engine) QueryValueInto(ctx context.Context, name string, buf []byte) (int, []Problem, error) {
	r, err := e.query(ctx, name)
	if err != nil {
		return 0, nil, err
	}
	if len(r.Block) > len(buf) {
		return 0, nil, ErrMoreData
	}
	return copy(buf, r.Block), r.Problems, nil
}

func (e *Engine) query(ctx context.Context, name string) (*Result, error) {
	q, err := ParseQuery(name)
	if err != nil {
		return nil, err
	}
	return e.Query(ctx, q)
}

// Query answers a parsed query, so callers that hold title indexes as
// numbers (a data source asking for objects) need not format a value name
// for the engine to parse back.
func (e *Engine) Query(ctx context.Context, q Query) (*Result, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch q.Kind {
	case QueryCounter, QueryHelp:
		return e.titleList(q)
	case QueryForeign:
		return nil, fmt.Errorf("engine: Foreign %s: foreign-host queries go to that host's server, not the local engine", q.Host)
	}
	pick := e.selectObjects(q)
	return e.collect(ctx, q, pick), nil
}

// Objects names, without collecting anything, the objects a Global
// query (costly false) or a Costly query (true) collects: the title
// indexes of the registered objects and of the objects the V1 procedures
// declare (their Object List), in registration order. complete is false
// when a procedure declares no object list: what it delivers is known
// only by calling it, so a consumer that must know every object collects.
func (e *Engine) Objects(costly bool) (indexes []uint32, complete bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, r := range e.objs {
		if r.obj.Set.Costly == costly {
			indexes = append(indexes, r.nameIndex)
		}
	}
	complete = true
	for _, pr := range e.procs {
		if len(pr.opts.Objects) == 0 {
			complete = false
		}
		for _, x := range pr.opts.Objects {
			if !slices.Contains(indexes, x) {
				indexes = append(indexes, x)
			}
		}
	}
	return indexes, complete
}

// titleList answers "Counter [lang]" and "Help [lang]": English for no
// language or 009, else the names registered in the language, with a note
// of how many English names it lacks (Windows' tools then show those in
// English).
func (e *Engine) titleList(q Query) (*Result, error) {
	db, l := e.titles, titles.LangEnglish
	if q.Lang != "" {
		var err error
		if l, err = titles.ParseLang(q.Lang); err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
	}
	res := &Result{}
	if l != titles.LangEnglish {
		db = e.opts.Languages[l]
		if db == nil {
			db = titles.New()
		}
		if miss := titles.Missing(e.titles, db); len(miss) > 0 {
			res.Notes = append(res.Notes, missingNote(e.titles, l, miss, len(titles.Missing(e.titles, titles.New()))))
		}
	}
	if q.Kind == QueryCounter {
		res.Block = db.CounterMultiSZ()
	} else {
		res.Block = db.HelpMultiSZ()
	}
	return res, nil
}

// missingNote says which of the English names (of total) language l lacks,
// naming the first few.
func missingNote(en *titles.DB, l titles.Lang, miss []uint32, total int) string {
	const show = 5
	var b strings.Builder
	name := l.String()
	if t := l.Tag(); t != "" {
		name += " (" + t + ")"
	}
	fmt.Fprintf(&b, "language %s has no name for %d of the %d English names", name, len(miss), total)
	for i, idx := range miss[:min(show, len(miss))] {
		sep := ": "
		if i > 0 {
			sep = ", "
		}
		fmt.Fprintf(&b, "%s%d %s", sep, idx, en.Name(idx))
	}
	if len(miss) > show {
		b.WriteString(", ...")
	}
	return b.String()
}

// selectObjects returns the indexes into e.objs that q asks for, in
// registration order, with the related objects Windows adds.
func (e *Engine) selectObjects(q Query) []int {
	var pick []int
	want := func(idx uint32) bool { return slices.Contains(q.Indexes, idx) }
	for i, r := range e.objs {
		switch q.Kind {
		case QueryGlobal:
			if !r.obj.Set.Costly {
				pick = append(pick, i)
			}
		case QueryCostly:
			if r.obj.Set.Costly {
				pick = append(pick, i)
			}
		case QueryIndexes:
			if want(r.nameIndex) {
				pick = append(pick, i)
			}
		}
	}
	// Related objects: a child brings its parent (Thread brings Process) so
	// that ParentObjectInstance can be resolved in the same block.
	for _, i := range slices.Clone(pick) {
		if p := e.objs[i].parent; p != 0 {
			for j, r := range e.objs {
				if r.nameIndex == p && !slices.Contains(pick, j) {
					pick = append(pick, j)
				}
			}
		}
	}
	// Parents first, so a reader meets Process before Thread.
	slices.SortStableFunc(pick, func(a, b int) int {
		pa, pb := e.objs[a].parent != 0, e.objs[b].parent != 0
		switch {
		case pa == pb:
			return a - b
		case pa:
			return 1
		}
		return -1
	})
	return pick
}

func (e *Engine) collect(ctx context.Context, q Query, pick []int) *Result {
	clk := e.opts.Clock
	now := clk.Wall()
	h := perfdata.Header{
		// As Windows writes it: SYSTEMTIME in the writer's local time (the
		// clock's location), PerfTime100nSec in UTC.
		SystemTime:      perfdata.SystemTimeIn(now),
		PerfTime:        clk.Ticks(),
		PerfFreq:        clk.Freq(),
		PerfTime100nSec: perfdata.FileTime(now),
		SystemName:      e.opts.SystemName,
	}
	if len(pick) > 0 {
		h.DefaultObject = int32(e.objs[pick[0]].nameIndex)
	}
	e.seq++
	col := &Collection{seq: e.seq, time: h.PerfTime100nSec}
	e.b.Reset(h)
	res := &Result{}
	for _, i := range pick {
		if err := ctx.Err(); err != nil {
			res.Problems = append(res.Problems, e.problem(i, err))
			continue
		}
		col.reasons, col.dropped, col.missing, col.instance = col.reasons[:0], 0, nil, -1
		col.want = e.wanted(q, i, col.want[:0])
		err := e.collectOne(col, i)
		var pe *PartialError
		if err == nil && (len(col.reasons) > 0 || len(col.missing) > 0) {
			pe = &PartialError{Reasons: slices.Clone(col.reasons)}
			if col.dropped > 0 {
				pe.Reasons = append(pe.Reasons, fmt.Sprintf("%d further reasons not kept", col.dropped))
			}
			err = pe
		}
		if errors.As(err, &pe) {
			p := e.problem(i, pe)
			p.Missing = e.missingIndexes(i, col.missing)
			res.Partial = append(res.Partial, p)
			continue
		}
		if err != nil {
			e.b.AbortObject()
			p := e.problem(i, err)
			res.Problems = append(res.Problems, p)
			e.opts.Logger.Warn("object dropped from block", "object", p.Object, "index", p.NameIndex, "reason", err)
		}
	}
	e.collectProcedures(ctx, q, res)
	res.Block = slices.Clone(e.b.Bytes())
	return res
}

// wanted is the counter positions of object i that q asks for (in buf),
// or nil for all.
func (e *Engine) wanted(q Query, i int, buf []bool) []bool {
	r := &e.objs[i]
	idx, ok := q.Counters[r.nameIndex]
	if !ok || idx == nil {
		return nil
	}
	for _, s := range r.specs {
		buf = append(buf, slices.Contains(idx, s.NameIndex))
	}
	return buf
}

// missingIndexes converts the counter positions of m to object i's title
// indexes; an empty list stays empty (every counter).
func (e *Engine) missingIndexes(i int, m []Missing) []Missing {
	specs := e.objs[i].specs
	out := make([]Missing, 0, len(m))
	for _, x := range m {
		y := Missing{Instance: x.Instance}
		for _, c := range x.Counters {
			if int(c) < len(specs) {
				y.Counters = append(y.Counters, specs[c].NameIndex)
			}
		}
		out = append(out, y)
	}
	return out
}

func (e *Engine) problem(i int, err error) Problem {
	return Problem{NameIndex: e.objs[i].nameIndex, Object: e.objs[i].obj.Set.Name, Err: err}
}

// collectOne writes object i; a panic in its collect function becomes an
// error so that one bad provider cannot take the block down.
func (e *Engine) collectOne(col *Collection, i int) (err error) {
	r := &e.objs[i]
	s := r.obj.Set
	spec := perfdata.ObjectSpec{
		NameIndex:      r.nameIndex,
		HelpIndex:      r.nameIndex + 1,
		DetailLevel:    detail(s.DetailLevel),
		DefaultCounter: int32(s.DefaultCounter),
		Single:         !s.Instancing.Multi(),
	}
	if err := e.b.BeginObject(spec, r.layout, r.specs); err != nil {
		return err
	}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("collect panicked: %v", v)
		}
	}()
	w := builderWriter{b: e.b, col: col}
	if err := r.obj.Collect(col, w); err != nil {
		var pe *PartialError
		if !errors.As(err, &pe) {
			return err
		}
		if err := e.b.EndObject(); err != nil {
			return err
		}
		return pe
	}
	return e.b.EndObject()
}

// builderWriter adapts the block builder to Writer, and tells the
// collection which instance is being written (Collection.Unavailable).
type builderWriter struct {
	b   *perfdata.Builder
	col *Collection
}

func (w builderWriter) Instance(name string, pti, pi uint32, uid int32) perfdata.Values {
	w.col.instance++
	return w.b.Instance(name, pti, pi, uid)
}
func (w builderWriter) Single() perfdata.Values  { return w.b.Single() }
func (w builderWriter) SetObjectTime(t, f int64) { w.b.SetObjectTime(t, f) }

// QueryKind classifies a registry value name.
type QueryKind int

// Query kinds.
const (
	QueryGlobal QueryKind = iota
	QueryCostly
	QueryCounter
	QueryHelp
	QueryIndexes
	QueryForeign
)

// Query is a parsed registry value name.
type Query struct {
	Kind    QueryKind
	Indexes []uint32 // QueryIndexes and QueryForeign
	Host    string   // QueryForeign
	Lang    string   // QueryCounter/QueryHelp, e.g. "009"; empty for the default
	// Counters, for a QueryIndexes, names per object title index the
	// counter title indexes the caller reads: an object may then leave
	// the files of its other counters unread (their values are
	// placeholders). An object it does not list, or lists as nil, is
	// collected whole, as is every object of a query without Counters.
	Counters map[uint32][]uint32
}

// ParseQuery parses a value name: "Global", "Costly", "Counter [lang]",
// "Help [lang]", a space-separated list of decimal title indexes, or
// "Foreign host idx ...". Keywords are case-insensitive as on Windows.
func ParseQuery(s string) (Query, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return Query{}, errors.New(`engine: empty value name (want "Global", "Costly", "Counter", "Help" or title indexes)`)
	}
	switch strings.ToLower(f[0]) {
	case "global":
		if len(f) == 1 {
			return Query{Kind: QueryGlobal}, nil
		}
	case "costly":
		if len(f) == 1 {
			return Query{Kind: QueryCostly}, nil
		}
	case "counter", "help":
		k := QueryCounter
		if strings.EqualFold(f[0], "help") {
			k = QueryHelp
		}
		if len(f) <= 2 {
			q := Query{Kind: k}
			if len(f) == 2 {
				q.Lang = f[1]
			}
			return q, nil
		}
	case "foreign":
		if len(f) < 2 {
			return Query{}, fmt.Errorf("engine: %q: Foreign needs a host name", s)
		}
		idx, err := parseIndexes(s, f[2:])
		if err != nil {
			return Query{}, err
		}
		return Query{Kind: QueryForeign, Host: f[1], Indexes: idx}, nil
	default:
		idx, err := parseIndexes(s, f)
		if err != nil {
			return Query{}, err
		}
		return Query{Kind: QueryIndexes, Indexes: idx}, nil
	}
	return Query{}, fmt.Errorf("engine: %q: unexpected words after %q", s, f[0])
}

func parseIndexes(s string, f []string) ([]uint32, error) {
	out := make([]uint32, 0, len(f))
	for _, w := range f {
		n, err := strconv.ParseUint(w, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("engine: %q: %q is not a title index (want a decimal number)", s, w)
		}
		out = append(out, uint32(n))
	}
	return out, nil
}
