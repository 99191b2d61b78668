package pdh

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/perfcounters/perfcounters/titles"
)

// Lasting is implemented by a recorded source that may be read a sample
// ahead (Prefetch):
//   - every sample it returns stays valid, unchanged, after its next
//     Sample call (it decodes each sample into memory of its own);
//   - Sample changes nothing that Titles, Len, Time and Counters give,
//     and those may be called while a Sample runs on another goroutine
//     (they read only what the source fixed when it was opened).
//
// Logs opened from a file are such sources; a live source is not.
type Lasting interface {
	Source
	// SamplesLast marks the source as Lasting; it does nothing.
	SamplesLast()
}

// Prefetcher is a recorded source read one sample ahead: while its caller
// works on sample i (pdh's arithmetic, a tool's formatting), sample i+1 is
// read and decoded on another goroutine, so a conversion of a log uses
// two cores. Its samples, positions and errors are the wrapped source's,
// in the same order. Create it with Prefetch; call Wait before using the
// wrapped source directly again. A Prefetcher is used by one goroutine at
// a time, as any Source.
type Prefetcher struct {
	src Source
	rec Recorded
	db  *titles.DB
	n   int // samples in the recording, fixed when it was opened
	pos int // the position the caller's next Sample reads
	// The worker goroutine reads what it is asked on ask and answers on
	// answer; pending says a read is asked and not yet answered, while
	// which only the worker touches src. One goroutine reads every sample
	// (its stack grown once, not for every sample); Wait stops it.
	ask     chan readAhead
	answer  chan readAhead
	pending bool
}

// readAhead is a sample read ahead: of position pos for objects, with the
// wrapped source's position after it (next).
type readAhead struct {
	ctx     context.Context
	pos     int
	objects []uint32
	s       *Sample
	err     error
	next    int
}

var (
	_ Source   = (*Prefetcher)(nil)
	_ Recorded = (*Prefetcher)(nil)
)

// Prefetch wraps a recorded Lasting source so that each Sample starts
// reading the next one. It reads nothing until the first Sample; the
// source stands at its current position.
func Prefetch(src Lasting) *Prefetcher {
	rec := src.Recorded()
	p := &Prefetcher{src: src, rec: rec, db: src.Titles()}
	if rec != nil {
		p.n, p.pos = rec.Len(), rec.Pos()
	}
	return p
}

// Sample returns the sample at Pos: the one read ahead when the previous
// call asked for the same objects, else one read now. Unless it was the
// last, or an error, the next sample is then read ahead for the same
// objects.
func (p *Prefetcher) Sample(ctx context.Context, objects []uint32) (*Sample, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if p.rec == nil {
		return p.src.Sample(ctx, objects) // not recorded: nothing to read ahead
	}
	var s *Sample
	var err error
	a, waited := p.wait()
	if waited && a.pos == p.pos && slices.Equal(a.objects, objects) && !isContextErr(a.err) {
		s, err, p.pos = a.s, a.err, a.next
	} else {
		if waited {
			// Read for other objects, or cut short by a context since
			// gone: the source stands after it.
			if err := p.rec.Seek(p.pos); err != nil {
				return nil, err
			}
		}
		s, err = p.src.Sample(ctx, objects)
		p.pos = p.rec.Pos()
	}
	if err == nil && p.pos < p.n {
		p.readAhead(ctx, objects)
	}
	return s, err
}

// readAhead asks the worker (started if it is not) to read the sample at
// p.pos for objects.
func (p *Prefetcher) readAhead(ctx context.Context, objects []uint32) {
	if p.ask == nil {
		p.ask, p.answer = make(chan readAhead), make(chan readAhead, 1)
		go work(p.src, p.rec, p.ask, p.answer)
	}
	p.ask <- readAhead{ctx: ctx, pos: p.pos, objects: slices.Clone(objects)}
	p.pending = true
}

// work reads the samples asked on ask until ask is closed.
func work(src Source, rec Recorded, ask <-chan readAhead, answer chan<- readAhead) {
	for a := range ask {
		a.s, a.err = src.Sample(a.ctx, a.objects)
		a.next = rec.Pos()
		a.ctx = nil
		answer <- a
	}
}

// wait waits for the sample being read ahead, if one is.
func (p *Prefetcher) wait() (readAhead, bool) {
	if !p.pending {
		return readAhead{}, false
	}
	a := <-p.answer
	p.pending = false
	return a, true
}

// Wait waits for a sample being read ahead and sets it aside, leaving the
// wrapped source at Pos, and stops the goroutine that reads ahead; the
// next Sample reads again from Pos. Call it before using the wrapped
// source directly, and before dropping the Prefetcher, so that no
// goroutine of its outlives it.
func (p *Prefetcher) Wait() error {
	_, waited := p.wait()
	if p.ask != nil {
		close(p.ask)
		p.ask, p.answer = nil, nil
	}
	if waited {
		return p.rec.Seek(p.pos)
	}
	return nil
}

// Titles is the wrapped source's title database.
func (p *Prefetcher) Titles() *titles.DB { return p.db }

// Recorded is the Prefetcher itself, or nil for a source that records
// nothing (which it passes through without reading ahead).
func (p *Prefetcher) Recorded() Recorded {
	if p.rec == nil {
		return nil
	}
	return p
}

// Len is the number of samples of the recording.
func (p *Prefetcher) Len() int { return p.n }

// Pos is the position of the sample the next Sample returns.
func (p *Prefetcher) Pos() int { return p.pos }

// Seek makes the next Sample return sample i, setting aside any sample
// read ahead.
func (p *Prefetcher) Seek(i int) error {
	p.wait()
	if err := p.rec.Seek(i); err != nil {
		p.pos = p.rec.Pos()
		return err
	}
	p.pos = i
	return nil
}

// Time is the time of sample i, from the wrapped source.
func (p *Prefetcher) Time(i int) time.Time { return p.rec.Time(i) }

// Counters are the counter paths the recording was made of.
func (p *Prefetcher) Counters() []string { return p.rec.Counters() }

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
