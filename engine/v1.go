package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/collect"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// V1 collect procedures (seed 002). The engine calls each registered
// procedure once per query that may concern it, after the built-in objects,
// and splices the objects it returns into the block. What Perflib does
// around a PM_COLLECT_PROC call is done here:
//
//   - the procedure writes into a buffer with a 1 KiB guard area before and
//     after it; the buffer it sees ends where the rear guard starts, but its
//     capacity reaches to the end of the rear guard, so a Go procedure that
//     appends past the buffer or reslices it overruns into the guard just as
//     a C one would;
//   - the call runs in its own goroutine under a timeout: a procedure that
//     exceeds it is abandoned for that sample (the block goes out without
//     it, on time) and counts as failed; while the abandoned call has not
//     returned the procedure is skipped, and that counts too;
//   - ErrMoreData makes the engine double the buffer and call again, up to
//     MaxBuffer; the size that worked is offered first next time;
//   - the integrity tests of ExtCounterTestLevel run as seed 002 lists them;
//   - bad output is discarded with a logged reason and reported as a
//     Problem of that sample; MaxFailures consecutive failed samples disable
//     the procedure (it is closed) until it is registered again or
//     EnableProcedure is called.
//
// A procedure may deliver only its own objects: those of its Objects list
// when it has one, and never an object of the engine's own (Add), one that
// another procedure lists, or one already in the block. Any other object in
// its output is dropped and reported as a Problem naming the procedure and
// the object; the rest of its output is kept. A procedure cannot replace or
// imitate another source's object.
//
// Every Problem of a procedure carries its name (Problem.Provider), and a
// failed sample reports each of the procedure's objects that the query
// asked for, so a consumer missing one of them learns which provider
// failed and why. The log gets each cause once per procedure (up to
// maxLoggedCauses), not once per sample.
//
// Beyond Windows, on purpose: whatever the level, a byte count outside the
// buffer is never accepted (there is nothing to copy from outside it), and
// every object is validated as perfdata.Parse validates a block before it
// is appended (Builder.AppendObjects). At levels 3 and 4 Windows passes bad
// data on to consumers; this engine never emits a block that its own reader
// rejects, and never panics on a provider's output.

// Defaults of ProcedureOptions.
const (
	DefaultTestLevel        = 4 // Windows' default ExtCounterTestLevel
	DefaultProcedureTimeout = 2 * time.Second
	DefaultMaxFailures      = 3
	DefaultProcedureBuffer  = 64 << 10
	DefaultMaxProcedureBuf  = 16 << 20
	// GuardSize is the size of each guard area around a procedure's
	// buffer (seed 002: 1 KB before and after).
	GuardSize = 1024
)

// guardPattern is the data pattern of the guard areas (seed 002:
// "initialized with a data pattern"): 8 distinct bytes, so that a shifted
// copy of the pattern is caught too.
const guardPattern = "\xD0\x0D\xFE\xED\xC0\xFF\xEE\x5A"

// ProcedureOptions configure a V1 collect procedure. Zero values select the
// defaults.
type ProcedureOptions struct {
	// TestLevel is ExtCounterTestLevel, 1 to 4 (0 = DefaultTestLevel):
	// 1 tests the byte count against the buffer, the guard areas, that the
	// objects' TotalByteLength add up to the byte count and that every
	// instance's ByteLength chain is consistent; 2 the byte count and the
	// guard areas only; 3 and 4 nothing (seed 002). Level 3 sends Windows
	// consumers a copy and level 4 the provider's own buffer; this engine
	// always copies, so they behave alike.
	TestLevel int
	// Timeout bounds one collection, Open included (0 = DefaultProcedureTimeout).
	Timeout time.Duration
	// MaxFailures consecutive failed samples disable the procedure
	// (0 = DefaultMaxFailures; negative = never, as Perflib's
	// Configuration Flags 0x02).
	MaxFailures int
	// Objects are the object title indexes the procedure serves (Windows'
	// "Object List"): a query for title indexes that names none of them does
	// not call it, and any other object in its output is dropped. Empty:
	// called for every Global, Costly and index query, and the procedure
	// decides (collect.Supports); it may then deliver any object that is
	// not the engine's own or another procedure's. AddProcedure refuses a
	// list naming an object of the engine's own or of another procedure.
	Objects []uint32
	// Names are entered into the title database at their indexes when the
	// procedure is added, as lodctr does for a V1 provider's .ini file.
	// Indexes in the procedure's output are used as they are.
	Names []titles.Entry
	// BufferSize is the first buffer offered (0 = DefaultProcedureBuffer);
	// MaxBuffer the largest, after ErrMoreData (0 = DefaultMaxProcedureBuf).
	BufferSize, MaxBuffer int
}

// Errors a V1 procedure's Problem wraps (errors.Is). Integrity failures
// found by perfdata.CheckObjects wrap perfdata's named errors instead
// (perfdata.ErrTotalMismatch, perfdata.ErrInstanceChain, ...).
var (
	ErrProcTimeout   = errors.New("collection timed out")
	ErrProcBusy      = errors.New("still running a collection abandoned after its timeout")
	ErrProcDisabled  = errors.New("disabled after repeated failures")
	ErrProcPanic     = errors.New("collect procedure panicked")
	ErrBufferOverrun = errors.New("byte count runs past the collect buffer")
	ErrGuardArea     = errors.New("guard area around the collect buffer overwritten")
	ErrBadOutput     = errors.New("output is malformed")
	// ErrForeignObject: an object in the output that is not the
	// procedure's own was dropped (the rest of the output is kept).
	ErrForeignObject = errors.New("dropped from its output: not one of its registered objects")
	// ErrDuplicateObject: an object the block already holds was dropped.
	ErrDuplicateObject = errors.New("dropped from its output: the block already holds this object")
)

// maxDropProblems bounds the Problems of one sample of a procedure that
// name dropped objects; the rest are counted in one more.
const maxDropProblems = 16

// maxLoggedCauses bounds the distinct causes logged per procedure; later
// ones still reach each sample's Problems.
const maxLoggedCauses = 16

// ProcedureStatus describes a registered procedure (Procedures).
type ProcedureStatus struct {
	Name     string
	Disabled bool
	Failures int   // consecutive failed samples
	LastErr  error // why the last sample failed; nil after a success
	Busy     bool  // an abandoned call or a Close has not returned yet
}

// procedure is a registered V1 procedure; its fields are guarded by e.mu.
type procedure struct {
	name     string
	p        collect.Procedure
	opts     ProcedureOptions
	size     int    // inner buffer size to offer first
	buf      []byte // guarded buffer kept between samples; nil after an abandoned call
	opened   bool
	failures int
	disabled bool
	lastErr  error
	pending  *call  // the last operation, while it may still be running
	guard    []byte // GuardSize bytes of guardPattern, the fill of both guard areas
	keep     []byte // scratch: the objects kept when some are dropped
	logged   map[string]bool
}

// call is one operation on a procedure, run in its own goroutine; res is
// written before done is closed.
type call struct {
	done    chan struct{}
	isClose bool
	res     callResult
}

type callResult struct {
	buf    []byte // the guarded buffer of the last attempt
	size   int    // its inner size
	n      int
	k      uint32
	err    error
	opened bool // Open succeeded during the call
}

// AddProcedure registers a V1 collect procedure under name. A procedure
// already registered under that name is replaced (and closed once any call
// of it has returned); re-registering is also how a disabled procedure is
// brought back. The procedure is opened lazily, inside the first
// collection that calls it, under its timeout.
func (e *Engine) AddProcedure(name string, p collect.Procedure, opts ProcedureOptions) error {
	if name == "" || p == nil {
		return errors.New("engine: AddProcedure: empty name or nil procedure")
	}
	if opts.TestLevel == 0 {
		opts.TestLevel = DefaultTestLevel
	}
	if opts.TestLevel < 1 || opts.TestLevel > 4 {
		return fmt.Errorf("engine: procedure %q: test level %d (want 1 to 4)", name, opts.TestLevel)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultProcedureTimeout
	}
	if opts.MaxFailures == 0 {
		opts.MaxFailures = DefaultMaxFailures
	}
	if opts.MaxBuffer <= 0 {
		opts.MaxBuffer = DefaultMaxProcedureBuf
	}
	if opts.BufferSize <= 0 {
		opts.BufferSize = DefaultProcedureBuffer
	}
	opts.BufferSize = min(opts.BufferSize, opts.MaxBuffer)
	opts.Objects = slices.Clone(opts.Objects)
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, x := range opts.Objects {
		if owner := e.objectOwner(x, name); owner != "" {
			return fmt.Errorf("engine: V1 provider %q: object %d is %s", name, x, owner)
		}
	}
	for _, t := range opts.Names {
		if err := e.titles.SetAt(t.Index, t.Name, t.Help); err != nil {
			return fmt.Errorf("engine: procedure %q: title %d: %w", name, t.Index, err)
		}
	}
	guard := []byte(strings.Repeat(guardPattern, GuardSize/len(guardPattern)))
	pr := &procedure{name: name, p: p, opts: opts, size: opts.BufferSize, guard: guard}
	if i := e.procIndex(name); i >= 0 {
		e.closeProc(e.procs[i])
		e.procs[i] = pr
		return nil
	}
	e.procs = append(e.procs, pr)
	return nil
}

// EnableProcedure re-enables a procedure disabled after repeated failures
// and clears its failure count; it is opened again at the next collection.
func (e *Engine) EnableProcedure(name string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	i := e.procIndex(name)
	if i < 0 {
		return fmt.Errorf("engine: no procedure %q", name)
	}
	pr := e.procs[i]
	pr.disabled, pr.failures, pr.lastErr, pr.logged = false, 0, nil, nil
	return nil
}

// RemoveProcedure unregisters a procedure and closes it, once any call of
// it still running has returned. It waits for the close until ctx is done;
// the close goes on in the background after that.
func (e *Engine) RemoveProcedure(ctx context.Context, name string) error {
	e.mu.Lock()
	i := e.procIndex(name)
	if i < 0 {
		e.mu.Unlock()
		return fmt.Errorf("engine: no procedure %q", name)
	}
	pr := e.procs[i]
	e.procs = slices.Delete(e.procs, i, i+1)
	c := e.closeProc(pr)
	e.mu.Unlock()
	if c == nil {
		return nil
	}
	select {
	case <-c.done:
		return c.res.err
	case <-ctx.Done():
		return fmt.Errorf("engine: procedure %q: close: %w", name, ctx.Err())
	}
}

// Procedures reports the registered procedures in registration order.
func (e *Engine) Procedures() []ProcedureStatus {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]ProcedureStatus, len(e.procs))
	for i, pr := range e.procs {
		busy := false
		if pr.pending != nil {
			select {
			case <-pr.pending.done:
			default:
				busy = true
			}
		}
		out[i] = ProcedureStatus{Name: pr.name, Disabled: pr.disabled, Failures: pr.failures, LastErr: pr.lastErr, Busy: busy}
	}
	return out
}

func (e *Engine) procIndex(name string) int {
	return slices.IndexFunc(e.procs, func(pr *procedure) bool { return pr.name == name })
}

// objectOwner describes the source other than procedure self that object
// index x belongs to — "the built-in object NAME" or "an object of V1
// provider NAME" — or returns "" when x is no other source's.
func (e *Engine) objectOwner(x uint32, self string) string {
	for _, r := range e.objs {
		if r.nameIndex == x {
			return fmt.Sprintf("the built-in object %s", r.obj.Set.Name)
		}
	}
	for _, pr := range e.procs {
		if pr.name != self && slices.Contains(pr.opts.Objects, x) {
			return fmt.Sprintf("an object of V1 provider %s", pr.name)
		}
	}
	return ""
}

// closeProc closes pr after its pending call, in the background, if it was
// opened (or may have been, by a call still running). It returns the close
// operation, or nil when there is nothing to close.
func (e *Engine) closeProc(pr *procedure) *call {
	prev := pr.pending
	if !pr.opened && prev == nil {
		return nil
	}
	wasOpen := pr.opened
	c := &call{done: make(chan struct{}), isClose: true}
	pr.pending, pr.opened, pr.buf = c, false, nil
	p, log, name := pr.p, e.opts.Logger, pr.name
	go func() {
		defer close(c.done)
		if prev != nil {
			<-prev.done
			wasOpen = wasOpen || prev.res.opened
		}
		if !wasOpen {
			return
		}
		defer func() {
			if v := recover(); v != nil {
				c.res.err = fmt.Errorf("%w: close: %v", ErrProcPanic, v)
			}
			if c.res.err != nil {
				log.Warn("V1 provider close failed", "provider", name, "reason", c.res.err)
			}
		}()
		c.res.err = p.Close()
	}()
	return c
}

// collectProcedures runs the procedures q concerns and appends their
// objects to the block being built; called by collect with e.mu held.
func (e *Engine) collectProcedures(ctx context.Context, q Query, res *Result) {
	if len(e.procs) == 0 {
		return
	}
	name := valueName(q)
	seen := make(map[uint32]bool) // objects the procedures delivered in this sample
	for _, pr := range e.procs {
		if !pr.selected(q) {
			continue
		}
		if err := e.runProcedure(ctx, pr, name, seen, res); err != nil {
			res.Problems = append(res.Problems, e.procProblems(pr, q, err)...)
		}
	}
}

// procProblems reports a failed sample of pr: one Problem per object of pr
// that q asks for, or a single one without an object when pr lists none.
func (e *Engine) procProblems(pr *procedure, q Query, err error) []Problem {
	var out []Problem
	for _, x := range pr.opts.Objects {
		if q.Kind == QueryIndexes && !slices.Contains(q.Indexes, x) {
			continue
		}
		out = append(out, Problem{Provider: pr.name, NameIndex: x, Object: e.titles.Name(x), Err: err})
	}
	if len(out) == 0 {
		out = append(out, Problem{Provider: pr.name, Err: err})
	}
	return out
}

// valueName is the registry value name a procedure receives for q.
func valueName(q Query) string {
	switch q.Kind {
	case QueryGlobal:
		return "Global"
	case QueryCostly:
		return "Costly"
	}
	var b []byte
	for i, x := range q.Indexes {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendUint(b, uint64(x), 10)
	}
	return string(b)
}

func (pr *procedure) selected(q Query) bool {
	switch q.Kind {
	case QueryGlobal, QueryCostly:
		return true
	case QueryIndexes:
		if len(pr.opts.Objects) == 0 {
			return true
		}
		for _, x := range q.Indexes {
			if slices.Contains(pr.opts.Objects, x) {
				return true
			}
		}
	}
	return false
}

// runProcedure performs one sample of pr. A non-nil error is the sample's
// problem; it has been logged and counted. Objects dropped from a good
// sample are reported in res directly; seen holds the objects procedures
// delivered in this sample so far, and gets pr's.
func (e *Engine) runProcedure(ctx context.Context, pr *procedure, name string, seen map[uint32]bool, res *Result) error {
	if pr.disabled {
		return fmt.Errorf("%w (%d failed samples in a row; the last: %v)", ErrProcDisabled, pr.failures, pr.lastErr)
	}
	if c := pr.pending; c != nil {
		select {
		case <-c.done:
			pr.pending = nil
			if c.res.opened {
				pr.opened = true
			}
		default:
			if c.isClose {
				return fmt.Errorf("%w: still closing", ErrProcBusy)
			}
			return e.fail(pr, ErrProcBusy)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	level := pr.opts.TestLevel
	c := &call{done: make(chan struct{})}
	cctx, cancel := context.WithTimeout(ctx, pr.opts.Timeout)
	defer cancel()
	p, open, buf, size, maxSize := pr.p, !pr.opened, pr.buf, pr.size, pr.opts.MaxBuffer
	var guard []byte
	if level <= 2 {
		guard = pr.guard
	}
	go func() {
		defer close(c.done)
		c.res = attempt(cctx, p, open, name, buf, size, maxSize, guard)
	}()
	select {
	case <-c.done:
	case <-cctx.Done():
		// Abandon the call: it keeps its buffer, and the procedure is
		// skipped until it returns.
		pr.pending, pr.buf = c, nil
		if ctx.Err() != nil {
			return ctx.Err() // the caller gave up: not the procedure's fault
		}
		return e.fail(pr, fmt.Errorf("%w after %v", ErrProcTimeout, pr.opts.Timeout))
	}
	r := c.res
	if r.opened {
		pr.opened = true
	}
	pr.buf, pr.size = r.buf, max(r.size, pr.size)
	if r.err != nil {
		if errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			// It noticed the timeout itself, just before the engine did.
			return e.fail(pr, fmt.Errorf("%w after %v: %w", ErrProcTimeout, pr.opts.Timeout, r.err))
		}
		return e.fail(pr, r.err)
	}
	if err := check(r, level, pr.guard); err != nil {
		return e.fail(pr, err)
	}
	if r.n > 0 || r.k > 0 {
		inner := r.buf[GuardSize : GuardSize+r.size]
		if err := e.appendOwn(pr, inner[:r.n], r.k, seen, res); err != nil {
			return e.fail(pr, fmt.Errorf("%w: %w", ErrBadOutput, err))
		}
	}
	pr.failures, pr.lastErr = 0, nil
	return nil
}

// appendOwn appends the k objects of out that pr may deliver to the block
// and reports the others in res (at most maxDropProblems of them, then
// their number). The objects kept are validated together
// (perfdata.Builder.AppendObjects); when the objects' lengths do not tile
// out, the whole output is handed to AppendObjects, which says what is
// wrong, and nothing is appended. The cost is linear in len(out).
func (e *Engine) appendOwn(pr *procedure, out []byte, k uint32, seen map[uint32]bool, res *Result) error {
	const (
		totalByteLength = 0  // PERF_OBJECT_TYPE.TotalByteLength
		nameTitleIndex  = 12 // PERF_OBJECT_TYPE.ObjectNameTitleIndex
	)
	le := binary.LittleEndian
	// Each object takes at least ObjectTypeSize bytes: a count beyond that
	// cannot be right, and the walk below stays linear in len(out).
	ok := uint64(k) <= uint64(len(out)/perfdata.ObjectTypeSize)
	var drop []Problem
	dropped := 0
	var keep []uint32 // offset, length of each kept object
	var kept []uint32 // their indexes
	at := 0
	for i := uint32(0); ok && i < k; i++ {
		if len(out)-at < perfdata.ObjectTypeSize {
			ok = false
			break
		}
		total := le.Uint32(out[at+totalByteLength:])
		if total < perfdata.ObjectTypeSize || uint64(total) > uint64(len(out)-at) {
			ok = false
			break
		}
		x := le.Uint32(out[at+nameTitleIndex:])
		if err := e.mayDeliver(pr, x, seen); err != nil {
			if dropped++; len(drop) < maxDropProblems {
				drop = append(drop, Problem{Provider: pr.name, NameIndex: x, Object: e.titles.Name(x), Err: err})
			}
		} else {
			keep = append(keep, uint32(at), total)
			kept = append(kept, x)
			seen[x] = true
		}
		at += int(total)
	}
	forget := func() {
		for _, x := range kept {
			delete(seen, x)
		}
	}
	if !ok || at != len(out) || dropped == 0 {
		if err := e.b.AppendObjects(out, k); err != nil {
			forget()
			return err
		}
		return nil
	}
	pr.keep = pr.keep[:0]
	for i := 0; i < len(keep); i += 2 {
		pr.keep = append(pr.keep, out[keep[i]:keep[i]+keep[i+1]]...)
	}
	if err := e.b.AppendObjects(pr.keep, uint32(len(keep)/2)); err != nil {
		forget()
		return err
	}
	if dropped > len(drop) {
		drop = append(drop, Problem{Provider: pr.name, Err: fmt.Errorf("%d further objects dropped from its output", dropped-len(drop))})
	}
	for _, p := range drop {
		e.logOnce(pr, slog.LevelWarn, fmt.Sprintf("%d %v", p.NameIndex, p.Err), "V1 provider object dropped",
			"provider", pr.name, "object", p.NameIndex, "name", p.Object, "reason", p.Err)
	}
	res.Problems = append(res.Problems, drop...)
	return nil
}

// mayDeliver returns why pr may not deliver object x, or nil when it may;
// seen holds the objects procedures delivered in this sample so far.
func (e *Engine) mayDeliver(pr *procedure, x uint32, seen map[uint32]bool) error {
	if seen[x] {
		return ErrDuplicateObject
	}
	if owner := e.objectOwner(x, pr.name); owner != "" {
		return fmt.Errorf("%w: it is %s", ErrForeignObject, owner)
	}
	if len(pr.opts.Objects) > 0 && !slices.Contains(pr.opts.Objects, x) {
		return fmt.Errorf("%w (%s)", ErrForeignObject, indexList(pr.opts.Objects))
	}
	return nil
}

func indexList(xs []uint32) string {
	b := []byte("it registered")
	for _, x := range xs {
		b = append(b, ' ')
		b = strconv.AppendUint(b, uint64(x), 10)
	}
	return string(b)
}

// causeKinds are the errors whose variants count as one cause for logging.
var causeKinds = [...]error{ErrProcTimeout, ErrProcBusy, ErrProcPanic, ErrBufferOverrun, ErrGuardArea, collect.ErrRestartBackoff}

// logOnce logs msg at level unless pr has logged cause before. At most
// maxLoggedCauses causes are remembered per procedure; past them, one last
// message says that further causes go unlogged.
func (e *Engine) logOnce(pr *procedure, level slog.Level, cause, msg string, args ...any) {
	if pr.logged[cause] || len(pr.logged) > maxLoggedCauses {
		return
	}
	if pr.logged == nil {
		pr.logged = make(map[string]bool)
	}
	pr.logged[cause] = true
	if len(pr.logged) > maxLoggedCauses {
		msg, args = "V1 provider: further causes of failure are not logged", []any{"provider", pr.name}
	}
	e.opts.Logger.Log(context.Background(), level, msg, args...)
}

// causeOf returns the logging key of err: its kind for the errors whose
// messages vary from sample to sample, its text otherwise.
func causeOf(err error) string {
	for _, k := range causeKinds {
		if errors.Is(err, k) {
			return k.Error()
		}
	}
	return err.Error()
}

// fail counts a failed sample of pr, logs it and disables pr when it has
// failed too often in a row. It returns err.
func (e *Engine) fail(pr *procedure, err error) error {
	pr.failures++
	pr.lastErr = err
	e.logOnce(pr, slog.LevelWarn, causeOf(err), "V1 provider sample discarded", "provider", pr.name, "failures", pr.failures, "reason", err)
	if pr.opts.MaxFailures > 0 && pr.failures >= pr.opts.MaxFailures {
		pr.disabled = true
		e.opts.Logger.Error("V1 provider disabled", "provider", pr.name, "failures", pr.failures, "reason", err)
		e.closeProc(pr)
	}
	return err
}

// guardedProcedure is a test seam: a procedure that receives the whole
// guarded buffer (inner buffer at full[off:off+size]) so that tests can
// commit faults a Go slice cannot, such as writing before the buffer.
type guardedProcedure interface {
	collectGuarded(ctx context.Context, valueName string, full []byte, off, size int) (int, uint32, error)
}

// attempt opens p if asked and calls Collect, growing the buffer after
// ErrMoreData; guard, if not nil, is copied into both guard areas. It runs
// in the call's goroutine and touches nothing but its arguments (guard is
// only read); a panic becomes ErrProcPanic.
func attempt(ctx context.Context, p collect.Procedure, open bool, name string, buf []byte, size, maxSize int, guard []byte) (r callResult) {
	defer func() {
		if v := recover(); v != nil {
			r.err = fmt.Errorf("%w: %v", ErrProcPanic, v)
		}
	}()
	if open {
		if err := p.Open(ctx); err != nil {
			r.err = fmt.Errorf("open: %w", err)
			return r
		}
		r.opened = true
	}
	for {
		full := GuardSize + size + GuardSize
		if cap(buf) < full {
			buf = make([]byte, full)
		}
		buf = buf[:full]
		if guard != nil {
			copy(buf[:GuardSize], guard)
			copy(buf[GuardSize+size:], guard)
		}
		r.buf, r.size = buf, size
		var err error
		if gp, ok := p.(guardedProcedure); ok {
			r.n, r.k, err = gp.collectGuarded(ctx, name, buf, GuardSize, size)
		} else {
			r.n, r.k, err = p.Collect(ctx, name, buf[GuardSize:GuardSize+size:full])
		}
		if !errors.Is(err, perfdata.ErrMoreData) {
			r.err = err
			return r
		}
		if size >= maxSize {
			r.n, r.k, r.err = 0, 0, fmt.Errorf("collect: %w even with %d bytes (the most offered)", err, size)
			return r
		}
		size = min(size*2, maxSize)
	}
}

// guardDamage returns the index of the first byte of g that differs from
// want, or -1.
func guardDamage(g, want []byte) int {
	if bytes.Equal(g, want) {
		return -1
	}
	for i := range g {
		if g[i] != want[i] {
			return i
		}
	}
	return -1
}

// check applies the tests of ExtCounterTestLevel level to a returned call
// (seed 002), plus the byte-count bound that holds at every level.
func check(r callResult, level int, guard []byte) error {
	// Levels 1 and 2, first test: the returned end (buffer start + byte
	// count) must lie inside the buffer. Perflib tells an end inside the
	// rear guard (buffer overrun) from one beyond it (heap corruption).
	switch {
	case r.n < 0:
		return fmt.Errorf("%w: byte count %d is negative", ErrBufferOverrun, r.n)
	case r.n > r.size+GuardSize:
		return fmt.Errorf("%w: byte count %d runs past the %d-byte buffer and its %d-byte guard area: heap error", ErrBufferOverrun, r.n, r.size, GuardSize)
	case r.n > r.size:
		return fmt.Errorf("%w: byte count %d runs %d bytes into the guard area after the %d-byte buffer: buffer overrun", ErrBufferOverrun, r.n, r.n-r.size, r.size)
	}
	if level > 2 {
		return nil
	}
	// Second test: the guard areas still hold their pattern.
	if i := guardDamage(r.buf[:GuardSize], guard); i >= 0 {
		return fmt.Errorf("%w: byte %d before the buffer (%#02x)", ErrGuardArea, GuardSize-i, r.buf[i])
	}
	if i := guardDamage(r.buf[GuardSize+r.size:], guard); i >= 0 {
		return fmt.Errorf("%w: byte %d after the end of the %d-byte buffer (%#02x)", ErrGuardArea, i, r.size, r.buf[GuardSize+r.size+i])
	}
	// Level 1 (and the length walk of level 2): the objects themselves.
	inner := r.buf[GuardSize : GuardSize+r.size]
	if err := perfdata.CheckObjects(inner[:r.n], r.k, level); err != nil {
		return fmt.Errorf("integrity test level %d: %w", level, err)
	}
	return nil
}
