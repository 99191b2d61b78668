package relog

import (
	"sync/atomic"
	"time"

	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
)

// rowPipe formats the rows of a one-pass conversion (pdhcsv.Writer's
// AppendRow) and keeps them in a rowStore on a goroutine of its own,
// while the caller works out the next samples' values: writing a value
// as %.17g costs about what computing it does, and the two then run on
// two cores. Rows keep their order. The caller's values are copied, in
// batches of at most pipeRows rows and pipeValues values, so that it may
// reuse its slice at once; at most pipeBatches batches exist, which
// bounds the memory the pipe holds whatever the log's width.
//
// The first pipeRows rows are formatted by the caller as they come, with
// no goroutine and no copy: a short log is converted as before, and the
// goroutine starts with the rows after. A failure to keep a row (the
// temporary file past rowSpill) is told by the next add, and by finish.
type rowPipe struct {
	w      *pdhcsv.Writer
	rows   *rowStore
	cur    *rowBatch
	work   chan *rowBatch
	free   chan *rowBatch
	done   chan error
	made   int         // batches allocated
	direct int         // rows the caller kept itself (the first pipeRows)
	row    []byte      // the caller's scratch row
	failed atomic.Bool // the goroutine could not keep a row
	err    error       // the goroutine's, once done
	state  pipeState
}

type pipeState uint8

const (
	pipeIdle    pipeState = iota // no goroutine (yet)
	pipeRunning                  // the goroutine formats what work brings
	pipeDone                     // the goroutine ended; err is its
)

// rowBatch is rows handed to the goroutine: each row's time and the end
// of its values in vals.
type rowBatch struct {
	times []time.Time
	ends  []int
	vals  []pdhcsv.Value
}

const (
	pipeRows    = 32
	pipeValues  = 8192 // 128 KiB of values
	pipeBatches = 4
)

func newRowPipe(w *pdhcsv.Writer, rows *rowStore) *rowPipe {
	return &rowPipe{w: w, rows: rows}
}

// add hands one row on: its time and its values (copied).
func (p *rowPipe) add(t time.Time, vals []pdhcsv.Value) error {
	if p.failed.Load() {
		return p.finish()
	}
	if p.direct < pipeRows && p.state == pipeIdle {
		p.direct++
		p.row = p.w.AppendRow(p.row[:0], t, vals)
		return p.rows.add(p.row, len(vals))
	}
	if p.cur == nil {
		p.cur = p.batch()
	}
	b := p.cur
	b.times = append(b.times, t)
	b.vals = append(b.vals, vals...)
	b.ends = append(b.ends, len(b.vals))
	if len(b.times) >= pipeRows || len(b.vals) >= pipeValues {
		if p.state == pipeIdle {
			p.work, p.free, p.done = make(chan *rowBatch, pipeBatches), make(chan *rowBatch, pipeBatches), make(chan error, 1)
			p.state = pipeRunning
			go p.run()
		}
		p.work <- b
		p.cur = nil
	}
	return nil
}

// batch returns an empty batch: one the goroutine is done with, a new one
// while fewer than pipeBatches exist, else the next the goroutine frees.
func (p *rowPipe) batch() *rowBatch {
	select {
	case b := <-p.free: // nil channel before the goroutine starts: not ready
		return b
	default:
	}
	if p.made < pipeBatches {
		p.made++
		return &rowBatch{}
	}
	return <-p.free
}

// run is the goroutine: it formats and keeps each batch's rows until work
// closes, then tells its error. After a failure it keeps freeing the
// batches it is given, unformatted.
func (p *rowPipe) run() {
	var err error
	var row []byte
	for b := range p.work {
		if err == nil {
			if row, err = p.keep(row, b); err != nil {
				p.failed.Store(true)
			}
		}
		b.times, b.ends, b.vals = b.times[:0], b.ends[:0], b.vals[:0]
		p.free <- b // room for every batch: never blocks
	}
	p.done <- err
}

// keep formats b's rows into row (a scratch buffer it returns, grown) and
// keeps them.
func (p *rowPipe) keep(row []byte, b *rowBatch) ([]byte, error) {
	start := 0
	for i, t := range b.times {
		end := b.ends[i]
		row = p.w.AppendRow(row[:0], t, b.vals[start:end])
		if err := p.rows.add(row, end-start); err != nil {
			return row, err
		}
		start = end
	}
	return row, nil
}

// finish keeps the rows not handed on yet, waits for the goroutine and
// returns the first failure to keep a row. The rowStore is the caller's
// again once it returns.
func (p *rowPipe) finish() error {
	switch p.state {
	case pipeIdle:
		p.state = pipeDone
		if p.cur != nil {
			_, p.err = p.keep(p.row, p.cur)
			p.cur = nil
		}
	case pipeRunning:
		if p.cur != nil && len(p.cur.times) > 0 && !p.failed.Load() {
			p.work <- p.cur
		}
		p.cur = nil
		p.end()
	}
	return p.err
}

// stop ends the goroutine, if any, leaving rows not handed on unkept: the
// conversion failed.
func (p *rowPipe) stop() {
	if p.state == pipeRunning {
		p.cur = nil
		p.end()
	}
}

// end closes work and waits for the goroutine's error.
func (p *rowPipe) end() {
	close(p.work)
	p.err = <-p.done
	p.state = pipeDone
}
