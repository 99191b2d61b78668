package prom

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
	"github.com/perfcounters/perfcounters/calc"
	ct "github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
	"github.com/perfcounters/perfcounters/utf16le"
)

// Format is a text format of the export.
type Format int

const (
	// Text is Prometheus' text format, version 0.0.4.
	Text Format = iota
	// OpenMetrics is the OpenMetrics text format, version 1.0.0.
	OpenMetrics
)

// ContentType returns the media type of a scrape's answer in format f.
func (f Format) ContentType() string {
	if f == OpenMetrics {
		return "application/openmetrics-text; version=1.0.0; charset=utf-8"
	}
	return "text/plain; version=0.0.4; charset=utf-8"
}

// Collector turns a source's samples into the text of /metrics. It is
// safe for concurrent use: concurrent scrapes in one format share one
// collection, and collections never overlap.
type Collector struct {
	src        pdh.Source
	opts       Options
	c          *compiled
	timeout    time.Duration
	rediscover time.Duration

	self        bool   // write the self-metrics
	buildLabels string // their build_info labels

	// compression of answers (handler.go): buffers and gzip writers
	// reused across scrapes, one zstd encoder (safe for concurrent
	// EncodeAll) made at the first zstd scrape
	encoded  sync.Pool
	gzips    sync.Pool
	zstdOnce sync.Once
	zstdEnc  *zstd.Encoder
	zstdErr  error

	mu      sync.Mutex
	flights [2]*flight // the collection in progress per format
	spare   []byte     // a buffer no scrape uses any more

	work sync.Mutex // one collection at a time; guards what follows
	st   state
}

// flight is one collection, shared by the scrapes that arrive while it
// runs.
type flight struct {
	done chan struct{}
	body []byte
	err  error
	refs int // scrapes using body (guarded by Collector.mu)
}

// state is what a collection keeps for the next: the object list found
// by discovery, the names derived from definitions, the previous raw
// values (Formatted) and reusable buffers.
type state struct {
	discovered   []uint32
	discoveredAt time.Time

	layouts map[uint32]*layout   // by object title index
	wx      map[uint32]*wxLayout // the windows_exporter profile's, by object title index
	used    map[string]uint32    // metric names in use -> the object index owning them

	prev, cur map[rawKey]calc.Raw

	// Decoded instance names by their UTF-16 bytes: names holds those of
	// this scrape, oldNames the previous scrape's, from which a name
	// still present is taken over; at the end of a scrape the previous
	// ones go, so that the table holds the names of the live instances,
	// not of every process that ever ran.
	names, oldNames map[string]string

	rows    []row
	labels  []byte
	parents []string
	dups    map[dupKey]int32
	seen    []uint32
	missing map[int][]uint32
	size    int // size of the last answer, a hint for the next

	wrote   map[uint32]time.Duration // conversion time per object (self-metrics)
	timings []objectTiming
	// facts are the windows_exporter profile's collectors that no
	// object stands for (os, cs, service): whether their facts came,
	// and how long they took
	facts []objectTiming
}

type dupKey struct{ parent, name string }

// rawKey identifies one counter of one instance across collections.
type rawKey struct {
	obj  uint32
	inst string
	ctr  int
}

// row is one instance of an object in a collection.
type row struct {
	start, end int // its label text in state.labels
	blk        perfdata.CounterBlock
	pos        int    // its position in the object (for missing values)
	display    string // PDH's name (parent/name#index), only with Formatted
}

// NewCollector returns a collector of src's counters as opts choose.
// Objects named in opts must be known to the source's title database.
func NewCollector(src pdh.Source, opts Options) (*Collector, error) {
	c, err := opts.compile()
	if err != nil {
		return nil, err
	}
	db := src.Titles()
	for _, name := range opts.Objects {
		if _, ok := db.Index(name); !ok {
			return nil, fmt.Errorf("metrics export: object %q is not in the title database", name)
		}
	}
	col := &Collector{src: src, opts: opts, c: c, timeout: opts.Timeout, rediscover: opts.Rediscover}
	if col.timeout <= 0 {
		col.timeout = 10 * time.Second
	}
	if col.rediscover <= 0 {
		col.rediscover = DefaultRediscover
	}
	col.encoded.New = func() any { return new([]byte) }
	col.self = c.profile != ProfileClassic && !opts.NoSelfMetrics
	if col.self {
		col.buildLabels = buildInfo()
		col.st.wrote = map[uint32]time.Duration{}
	}
	col.st.layouts = map[uint32]*layout{}
	col.st.wx = map[uint32]*wxLayout{}
	if c.profile == ProfileWindowsExporter && len(c.objects) == 0 {
		// windows_exporter's collectors enabled by default; the cpu
		// collector reads Processor Information where there is one
		for _, name := range wxDefaultObjects {
			if _, ok := db.Index(name); !ok || name == "Processor" && slices.Contains(c.objects, "processor information") {
				continue
			}
			c.objects = append(c.objects, fold(name))
		}
	}
	col.st.used = map[string]uint32{}
	col.st.names, col.st.oldNames = map[string]string{}, map[string]string{}
	col.st.dups = map[dupKey]int32{}
	if opts.Formatted {
		col.st.prev = map[rawKey]calc.Raw{}
		col.st.cur = map[rawKey]calc.Raw{}
	}
	return col, nil
}

// Scrape collects once and returns the text of /metrics in format f. A
// scrape that arrives while a collection for the same format runs shares
// it. The returned bytes may be shared with other scrapes: do not modify
// them.
func (col *Collector) Scrape(ctx context.Context, f Format) ([]byte, error) {
	fl, err := col.scrape(ctx, f)
	if err != nil {
		return nil, err
	}
	// Not released: the caller keeps the bytes, so they are never reused.
	return fl.body, nil
}

// scrape returns the flight whose answer serves this scrape; the caller
// releases it when done with its body (see release), or never.
func (col *Collector) scrape(ctx context.Context, f Format) (*flight, error) {
	k := 0
	if f == OpenMetrics {
		k = 1
	}
	col.mu.Lock()
	if fl := col.flights[k]; fl != nil {
		fl.refs++
		col.mu.Unlock()
		select {
		case <-fl.done:
			if fl.err != nil {
				col.release(fl)
				return nil, fl.err
			}
			return fl, nil
		case <-ctx.Done():
			col.release(fl)
			return nil, ctx.Err()
		}
	}
	fl := &flight{done: make(chan struct{}), refs: 1}
	col.flights[k] = fl
	buf := col.spare
	col.spare = nil
	col.mu.Unlock()

	// The collection serves every scrape that joined it: it ends with its
	// own deadline, not with the first scraper's connection.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), col.timeout)
	fl.body, fl.err = col.collectSafe(cctx, f, buf)
	cancel()

	col.mu.Lock()
	col.flights[k] = nil
	col.mu.Unlock()
	close(fl.done)
	if fl.err != nil {
		col.release(fl)
		return nil, fl.err
	}
	return fl, nil
}

// release says one scrape is done with fl's body; after the last one the
// buffer serves the next collection.
func (col *Collector) release(fl *flight) {
	col.mu.Lock()
	defer col.mu.Unlock()
	fl.refs--
	if fl.refs == 0 && fl.body != nil && (col.spare == nil || cap(fl.body) > cap(col.spare)) {
		col.spare = fl.body[:0]
	}
}

// collectSafe is collect with a panic turned into the collection's
// error: every scrape that joined the flight gets it, the flight ends,
// and the next scrape collects again.
func (col *Collector) collectSafe(ctx context.Context, f Format, buf []byte) (body []byte, err error) {
	defer func() {
		if v := recover(); v != nil {
			body, err = nil, fmt.Errorf("metrics export: collection panicked: %v\n%s", v, debug.Stack())
		}
	}()
	return col.collect(ctx, f, buf)
}

// collect takes one sample and writes it.
// buf, when not nil, is a free buffer to write into.
func (col *Collector) collect(ctx context.Context, f Format, buf []byte) ([]byte, error) {
	col.work.Lock()
	defer col.work.Unlock()
	st := &col.st
	db := col.src.Titles()

	var want []uint32
	discover := false
	if len(col.c.objects) > 0 {
		for _, name := range col.c.objects {
			if idx, ok := db.Index(name); ok {
				want = append(want, idx)
			}
		}
		if len(want) == 0 {
			return nil, errors.New("metrics export: none of the objects to export is in the title database any more")
		}
	} else if st.discovered == nil || time.Since(st.discoveredAt) >= col.rediscover {
		if l, ok := col.src.(pdh.ObjectLister); ok {
			// The source names its objects without collecting them:
			// collect only those exported (no process or thread walk
			// for a profile that exports neither).
			if objs, complete := l.Objects(false); complete {
				col.setDiscovered(db, slices.Values(objs))
				want = st.discovered
			}
		}
		// Otherwise want nil: the source's Global collection tells.
		discover = want == nil
	} else {
		want = st.discovered
	}
	began := time.Now()
	smp, err := col.src.Sample(ctx, want)
	sampled := time.Since(began)
	if err != nil {
		return nil, fmt.Errorf("metrics export: collecting: %w", err)
	}
	if smp.Gap && col.opts.Formatted {
		// The source did not collect since the previous sample: nothing
		// to difference with.
		clear(st.prev)
	}
	if discover {
		col.setDiscovered(db, func(yield func(uint32) bool) {
			for _, blk := range smp.Blocks {
				for it := blk.Objects(); it.Next(); {
					if !yield(it.Object().NameIndex()) {
						return
					}
				}
			}
		})
	}

	w := buf[:0]
	if want := st.size + st.size/8 + 4096; cap(w) < want {
		w = make([]byte, 0, want)
	}
	st.seen = st.seen[:0]
	for _, blk := range smp.Blocks {
		h := blk.Header()
		for it := blk.Objects(); it.Next(); {
			o := it.Object()
			idx := o.NameIndex()
			if o.Metadata() || !col.wanted(db, idx, want) || contains(st.seen, idx) {
				continue
			}
			st.seen = append(st.seen, idx)
			t0 := time.Now()
			if col.c.profile == ProfileWindowsExporter {
				if fold(db.Name(idx)) == "processor" && hasObject(smp, db, "Processor Information") {
					continue // the cpu collector reads Processor Information
				}
				w = col.writeWinObject(w, f, db, &h, smp, o)
			} else {
				w = col.writeObject(w, f, db, &h, smp, o)
			}
			if col.self {
				st.wrote[idx] += time.Since(t0)
			}
		}
	}
	if col.c.profile == ProfileWindowsExporter {
		w = col.writeWinFacts(ctx, w, f)
	}
	if col.self {
		st.timings = timings(st.timings, db, smp, want, st.seen, sampled, st.wrote)
		clear(st.wrote)
		w = col.writeSelf(w, f, st.timings)
	}
	if col.opts.Alerts != nil {
		w = col.writeAlerts(w, f, col.opts.Alerts(ctx))
	}
	if f == OpenMetrics {
		w = append(w, "# EOF\n"...)
	}
	if col.opts.Formatted {
		st.prev, st.cur = st.cur, st.prev
		clear(st.cur)
	}
	st.names, st.oldNames = st.oldNames, st.names
	clear(st.names)
	st.size = len(w)
	return w, nil
}

// hasObject reports whether the sample holds the object named name.
func hasObject(smp *pdh.Sample, db *titles.DB, name string) bool {
	idx, ok := db.Index(name)
	if !ok {
		return false
	}
	for _, blk := range smp.Blocks {
		if _, ok := blk.Object(idx); ok {
			return true
		}
	}
	return false
}

func contains(s []uint32, x uint32) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// setDiscovered makes the exported ones of objs the objects of every
// collection until the next discovery.
func (col *Collector) setDiscovered(db *titles.DB, objs iter.Seq[uint32]) {
	st := &col.st
	st.discovered = st.discovered[:0]
	for idx := range objs {
		if col.exported(db, idx) {
			st.discovered = append(st.discovered, idx)
		}
	}
	if st.discovered == nil {
		st.discovered = []uint32{}
	}
	st.discoveredAt = time.Now()
}

// exported reports whether discovery keeps object idx.
func (col *Collector) exported(db *titles.DB, idx uint32) bool {
	return !col.c.exclude[fold(db.Name(idx))]
}

// wanted reports whether object idx of a sample is to be written.
func (col *Collector) wanted(db *titles.DB, idx uint32, want []uint32) bool {
	if want == nil {
		return col.exported(db, idx)
	}
	return contains(want, idx)
}

// clocks are the time fields of an object's block.
func clocksOf(h *perfdata.Header, o perfdata.Object) calc.Clocks {
	return calc.Clocks{PerfTime: h.PerfTime, PerfFreq: h.PerfFreq, PerfTime100nSec: h.PerfTime100nSec,
		ObjectTime: o.PerfTime(), ObjectFreq: o.PerfFreq()}
}

// writeObject writes every family of one object.
func (col *Collector) writeObject(w []byte, f Format, db *titles.DB, h *perfdata.Header, smp *pdh.Sample, o perfdata.Object) []byte {
	st := &col.st
	idx := o.NameIndex()
	lay := col.layoutOf(db, o)
	if len(lay.families) == 0 {
		return w
	}
	col.rowsOf(db, smp, o, lay)
	if len(st.rows) == 0 {
		return w
	}
	col.missingOf(smp, idx)
	clk := clocksOf(h, o)
	wallSec := float64(h.PerfTime100nSec-perfdata.FileTime(time.Unix(0, 0))) / 1e7
	if h.PerfTime100nSec == 0 {
		wallSec = float64(h.SystemTime.Time().UnixNano()) / 1e9
	}
	mark, n := 0, 0
	for fi := range lay.families {
		fam := &lay.families[fi]
		if fam.formatted && fam.value == 0 && !col.opts.Formatted {
			continue
		}
		if !fam.cont {
			mark, n = len(w), 0
			w = append(w, fam.header[f]...)
		}
		for ri := range st.rows {
			r := &st.rows[ri]
			if st.missing != nil && col.isMissing(r.pos, fam.def.NameIndex) {
				continue
			}
			var ok bool
			w, ok = col.writeValue(w, fam, r, &clk, wallSec, idx)
			if ok {
				n++
			}
		}
		last := fi+1 == len(lay.families) || !lay.families[fi+1].cont
		if last && n == 0 {
			w = w[:mark] // no samples: no family
		}
	}
	return w
}

// writeValue writes one sample line of family fam for row r; ok is false
// (and nothing written) when the value is not known.
func (col *Collector) writeValue(w []byte, fam *family, r *row, clk *calc.Clocks, wallSec float64, obj uint32) ([]byte, bool) {
	st := &col.st
	var (
		num   float64
		isInt bool
		iv    uint64
		neg   bool
	)
	v := r.blk.Value(fam.def)
	if fam.formatted {
		var second, multi uint64
		if fam.hasBase {
			second = r.blk.Value(fam.base)
			if fam.multiFromBase {
				multi = second
			}
		}
		if fam.def.Type.Multi() && !fam.multiFromBase {
			multi = uint64(r.blk.Multi(fam.def))
		}
		cur := calc.MakeRaw(fam.def.Type, *clk, v, second, multi)
		var pp *calc.Raw
		if col.opts.Formatted {
			// Kept for the next scrape's difference (a value family's
			// fraction needs none, and without Formatted nothing is kept).
			key := rawKey{obj: obj, inst: r.display, ctr: fam.ctr}
			st.cur[key] = cur
			if prev, had := st.prev[key]; had {
				pp = &prev
			}
		}
		fv := calc.Format(fam.def.Type, fam.def.DefaultScale, &cur, pp, formattedOptions)
		if !fv.HasValue() || math.IsNaN(fv.Double) || math.IsInf(fv.Double, 0) {
			return w, false
		}
		num = fv.Double
		if fam.value != 0 {
			num *= fam.value
		}
	} else {
		switch fam.part.src {
		case srcValue:
			if fam.factor != 0 {
				num = float64(int64(v)) * fam.factor
			} else if fam.part.unit == unitNone {
				if fam.part.kind == kindGauge {
					// a raw count is a signed number, as PDH shows it
					if int64(v) < 0 {
						iv, neg = uint64(-int64(v)), true
					} else {
						iv = v
					}
				} else {
					iv = v
				}
				isInt = true
			} else {
				num = float64(v)
			}
		case srcBase:
			b := r.blk.Value(fam.base)
			if fam.part.unit == unitNone {
				if fam.part.kind == kindGauge && int64(b) < 0 {
					iv, neg = uint64(-int64(b)), true
				} else {
					iv = b
				}
				isInt = true
			} else {
				num = float64(b)
			}
		case srcMultiBlock:
			iv, isInt = uint64(r.blk.Multi(fam.def)), true
		case srcDouble:
			num = math.Float64frombits(v)
			if math.IsNaN(num) || math.IsInf(num, 0) {
				return w, false
			}
		case srcStartTime:
			d, fq := uint64(clk.ObjectTime), clk.ObjectFreq
			if v == 0 || v >= d || fq <= 0 {
				return w, false // unknown start, or after the object's time stamp
			}
			num = wallSec - float64(d-v)/float64(fq)
		}
		if fam.part.unit == unitTime {
			fq := timeFreq(fam.def.Type, clk)
			if fq <= 0 {
				return w, false
			}
			num /= float64(fq)
		}
	}
	w = append(w, fam.sample...)
	if r.end > r.start || len(fam.extra) > 0 {
		w = append(w, '{')
		w = append(w, st.labels[r.start:r.end]...)
		if r.end > r.start && len(fam.extra) > 0 {
			w = append(w, ',')
		}
		w = append(w, fam.extra...)
		w = append(w, '}')
	}
	w = append(w, ' ')
	if isInt {
		if neg {
			w = append(w, '-')
		}
		w = strconv.AppendUint(w, iv, 10)
	} else {
		prec := -1
		if fam.value != 0 {
			// 15 digits: the one-ulp noise of N / B × 100 (the order PDH
			// computes in) is not shown: a load of 0.81, not
			// 0.8099999999999999.
			prec = 15
		}
		w = strconv.AppendFloat(w, num, 'g', prec, 64)
	}
	w = append(w, '\n')
	return w, true
}

// formattedOptions are how the formatted gauges are computed: as
// typeperf prints values (perflog/pdhcsv.ValueOptions), without the
// display scale (10^DefaultScale is perfmon's graph scale, not a unit:
// Avg. Disk sec/Write is in seconds, Disk Write Bytes/sec in bytes per
// second) and without the cap at 100 %.
const formattedOptions = calc.FmtDouble | calc.FmtNoScale | calc.FmtNoCap100

// timeFreq is the frequency of counter type t's time base, in ticks per
// second: the block's PerfFreq, 10^7 for 100 ns timers, the object's
// PerfFreq for object timers.
func timeFreq(t ct.Type, clk *calc.Clocks) int64 {
	switch t.TimeBase() {
	case ct.PERF_TIMER_100NS:
		return 10_000_000
	case ct.PERF_OBJECT_TIMER:
		return clk.ObjectFreq
	}
	return clk.PerfFreq
}

// rowsOf fills st.rows with the instances of o that are exported, and
// their label text.
func (col *Collector) rowsOf(db *titles.DB, smp *pdh.Sample, o perfdata.Object, lay *layout) {
	st := &col.st
	st.rows = st.rows[:0]
	st.labels = st.labels[:0]
	if o.NumInstances() == perfdata.NoInstances {
		st.rows = append(st.rows, row{blk: o.SingleBlock(), pos: -1})
		return
	}
	filter := col.c.instances[fold(db.Name(o.NameIndex()))]
	var scheme labelScheme
	hasScheme := false
	if col.c.profile == ProfileDefault {
		scheme, hasScheme = schemes[fold(db.Name(o.NameIndex()))]
	}
	pidDef, hasPid := perfdata.CounterDef{}, false
	if scheme.pid {
		pidDef, hasPid = lay.pidDef(db)
	}
	for r := range col.instances(smp, o) {
		pos, in, name, parent, dup := r.pos, r.in, r.name, r.parent, r.dup
		if name == "_Total" && !col.opts.Total {
			continue
		}
		display := ""
		if filter != nil || col.opts.Formatted {
			display = arrayName(parent, name, dup)
			if !filter.keep(display) {
				continue
			}
		}
		start := len(st.labels)
		blk := in.Block()
		if hasScheme {
			st.labels = appendSchemeLabels(st.labels, &scheme, name, parent, dup, blk, pidDef, hasPid)
		} else {
			st.labels = append(st.labels, `perf_instance="`...)
			st.labels = appendLabelValue(st.labels, name)
			if dup > 0 {
				st.labels = append(st.labels, '#')
				st.labels = strconv.AppendInt(st.labels, int64(dup), 10)
			}
			st.labels = append(st.labels, '"')
			if parent != "" {
				st.labels = append(st.labels, `,perf_parent="`...)
				st.labels = appendLabelValue(st.labels, parent)
				st.labels = append(st.labels, '"')
			}
		}
		st.rows = append(st.rows, row{start: start, end: len(st.labels), blk: blk, pos: pos, display: display})
	}
}

// instRow is an instance of an object as the profiles write it: its
// position, its decoded name, its parent's name, and how many instances of
// the same parent and name came before it (PDH's #n).
type instRow struct {
	pos          int
	in           perfdata.Instance
	name, parent string
	dup          int32
}

// instances walks the instances of o, naming each and its parent (from
// the parent object of smp) and counting equal names.
func (col *Collector) instances(smp *pdh.Sample, o perfdata.Object) iter.Seq[instRow] {
	return func(yield func(instRow) bool) {
		st := &col.st
		clear(st.dups)
		var parentObj uint32
		st.parents = st.parents[:0]
		pos := -1
		for it := o.Instances(); it.Next(); {
			pos++
			in := it.Instance()
			name := col.instanceName(o, in)
			parent := ""
			if pti := in.ParentObjectTitleIndex(); pti != 0 {
				if pti != parentObj {
					parentObj = pti
					st.parents = parentNames(st.parents[:0], smp, pti, col)
				}
				if p := in.ParentObjectInstance(); int(p) < len(st.parents) {
					parent = st.parents[p]
				}
			}
			dk := dupKey{parent, name}
			dup := st.dups[dk]
			st.dups[dk] = dup + 1
			if !yield(instRow{pos: pos, in: in, name: name, parent: parent, dup: dup}) {
				return
			}
		}
	}
}

// instanceName is the decoded name of instance in of o, from the table
// of decoded names when it was seen before.
func (col *Collector) instanceName(o perfdata.Object, in perfdata.Instance) string {
	if o.CodePage() != 0 {
		return in.Name()
	}
	st := &col.st
	nb := in.NameBytes()
	name, ok := st.names[string(nb)]
	if !ok {
		if name, ok = st.oldNames[string(nb)]; !ok {
			name = utf16le.DecodeLenient(nb)
		}
		st.names[string(nb)] = name
	}
	return name
}

// appendSchemeLabels appends the default profile's labels of an
// instance (see schemes): the parent as process= (Thread) or
// perf_parent=, the name split or under the scheme's label, and pid=
// from ID Process where the scheme has it, the #n of a duplicate name
// kept only where no pid tells the instances apart.
func appendSchemeLabels(w []byte, sc *labelScheme, name, parent string, dup int32, blk perfdata.CounterBlock, pidDef perfdata.CounterDef, hasPid bool) []byte {
	first := true
	pair := func(w []byte, k, v string, index int32) []byte {
		if !first {
			w = append(w, ',')
		}
		first = false
		w = append(w, k...)
		w = append(w, `="`...)
		w = appendLabelValue(w, v)
		if index > 0 {
			w = append(w, '#')
			w = strconv.AppendInt(w, int64(index), 10)
		}
		return append(w, '"')
	}
	if parent != "" {
		if sc.label == "thread" {
			w = pair(w, "process", parent, 0)
		} else {
			w = pair(w, "perf_parent", parent, 0)
		}
	}
	if sc.split != nil {
		if pairs, ok := sc.split(name); ok && dup == 0 {
			for _, p := range pairs {
				w = pair(w, p[0], p[1], 0)
			}
			return w
		}
	}
	if hasPid {
		w = pair(w, sc.label, name, 0)
		return pair(w, "pid", strconv.FormatUint(blk.Value(pidDef), 10), 0)
	}
	return pair(w, sc.label, name, dup)
}

// parentNames returns the instance names of object pti in the sample
// (none when it is not there).
func parentNames(dst []string, smp *pdh.Sample, pti uint32, col *Collector) []string {
	for _, blk := range smp.Blocks {
		po, ok := blk.Object(pti)
		if !ok {
			continue
		}
		for it := po.Instances(); it.Next(); {
			in := it.Instance()
			if po.CodePage() != 0 {
				dst = append(dst, in.Name())
				continue
			}
			nb := in.NameBytes()
			name, ok := col.st.names[string(nb)]
			if !ok {
				if name, ok = col.st.oldNames[string(nb)]; !ok {
					name = utf16le.DecodeLenient(nb)
				}
			}
			dst = append(dst, name)
		}
		return dst
	}
	return dst
}

// arrayName is PDH's name of an instance: parent/name#index.
func arrayName(parent, name string, index int32) string {
	if parent == "" && index == 0 {
		return name
	}
	s := name
	if parent != "" {
		s = parent + "/" + name
	}
	if index > 0 {
		s += "#" + strconv.Itoa(int(index))
	}
	return s
}

// missingOf notes the placeholder values of object idx (a partial
// object's Problem), which are not exported.
func (col *Collector) missingOf(smp *pdh.Sample, idx uint32) {
	st := &col.st
	st.missing = nil
	for _, p := range smp.Problems {
		if p.Object != idx || !p.Partial || len(p.Missing) == 0 {
			continue
		}
		if st.missing == nil {
			st.missing = map[int][]uint32{}
		}
		for _, m := range p.Missing {
			if m.Counters == nil {
				st.missing[m.Instance] = []uint32{}
				continue
			}
			if cur, ok := st.missing[m.Instance]; ok && len(cur) == 0 {
				continue
			}
			st.missing[m.Instance] = append(st.missing[m.Instance], m.Counters...)
		}
	}
}

func (col *Collector) isMissing(pos int, counter uint32) bool {
	cs, ok := col.st.missing[pos]
	if !ok {
		return false
	}
	return len(cs) == 0 || contains(cs, counter)
}

// appendLabelValue appends s escaped as a label value: backslash, double
// quote and line feed are escaped (both formats).
func appendLabelValue(w []byte, s string) []byte {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			w = append(w, `\\`...)
		case '"':
			w = append(w, `\"`...)
		case '\n':
			w = append(w, `\n`...)
		default:
			w = append(w, c)
		}
	}
	return w
}

// appendHelp appends s escaped as HELP text: backslash and line feed,
// and in OpenMetrics also the double quote.
func appendHelp(w []byte, s string, f Format) []byte {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			w = append(w, `\\`...)
		case '\n':
			w = append(w, `\n`...)
		case '\r':
			// dropped: explain texts written on Windows end lines with CR LF
		case '"':
			if f == OpenMetrics {
				w = append(w, `\"`...)
			} else {
				w = append(w, c)
			}
		default:
			w = append(w, c)
		}
	}
	return w
}
