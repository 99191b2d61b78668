package binlog

import (
	"bytes"
	"errors"
	"reflect"
	"sync"
	"time"

	"github.com/perfcounters/perfcounters/pdh"
)

// Shared lets the writers of logs that record the same samples (the
// collector service's sets over the same objects, each with its own log)
// code and compress each sample once.
//
//   - Coding: writers whose epochs started with the same samples (the
//     same *pdh.Sample, or samples of the same content, in turn) share
//     one encoder, a lineage: the first of them to write the next sample
//     codes it, and the others, given that same sample, take its payload.
//     A writer given another sample than its lineage went on with starts
//     a new epoch with an encoder of its own (or one it finds at the
//     start of a lineage): its log stays exactly what it was given, at
//     the cost of its definitions written again.
//   - Writers that started at different times have coded different first
//     samples: when a log starts (created or appended to) and finds no
//     lineage to join, every writer of samples of the same objects
//     (itself included) starts a new epoch at its first sample after
//     that one, and those given the same samples code on one lineage from
//     there. A set started later costs each log of the same objects one
//     epoch (its definitions written again).
//   - A sample must not change between the writes of the writers that
//     share it.
//   - Compression: a writer whose record payload and zstd dictionary (the
//     previous sample's payload, under the same id) equal those another
//     writer compressed lately takes that writer's compressed bytes.
//
// Writers whose logs differ simply miss. Give one to Options.Shared of
// each such writer; it is safe for concurrent use.
type Shared struct {
	mu sync.Mutex
	// starts are the lineages started last: a writer at the start of an
	// epoch joins one that has coded nothing yet, or only the sample it
	// is given, else starts one.
	starts    [sharedStarts]*lineage
	nextStart int
	coded     uint64 // samples coded (not taken from another writer)
	// inv is the latest invitation: a writer that started a log (created
	// or appended to) found no lineage to join, so the writers of samples
	// of the same objects, on lineages begun earlier, and it start a new
	// epoch at their first sample after its first one, and code together
	// from there (joining by content).
	inv invitation
	// recent are the last records compressed, the newest at next-1: as
	// many as a sample with its INFO, TITLES and DEFS records (a new
	// epoch), so that writers taking turns all find them.
	recent [sharedRecords]sharedRecord
	next   int
}

// sharedRecords is how many compressed records a Shared keeps.
const sharedRecords = 4

// sharedStarts is how many lineages a Shared keeps for writers to join.
const sharedStarts = 8

// lineage is the encoder of the epochs of writers that were given the same
// samples since their epochs started (Shared).
type lineage struct {
	enc *encoder
	gen uint64 // samples coded
	// smp is the sample coded last, kept here so that no other sample has
	// its address; at is its time.
	smp  *pdh.Sample
	at   time.Time
	pl   []byte   // its payload
	defs []newDef // the definitions it introduced (never changed once set: writers keep it)
	dead bool     // coding failed: the encoder's state is not to be trusted
}

// follows reports whether a writer that coded gen samples on l may take
// l's last payload for s: s is l's last sample, or one equal to it.
func (l *lineage) follows(gen uint64, s *pdh.Sample) bool {
	return !l.dead && gen+1 == l.gen && l.at.Equal(s.Time) && (l.smp == s || sameContent(l.smp, s))
}

// sameContent reports whether a and b hold the same sample: what a SAMPLE
// payload is made of (blocks byte for byte, gap mark, problems). Writers
// of sets started together are each given their own first sample (the
// same values, taken once), then one sample a tick: this is what lets the
// first ones share a lineage.
func sameContent(a, b *pdh.Sample) bool {
	if a.Gap != b.Gap || len(a.Blocks) != len(b.Blocks) || len(a.Problems) != len(b.Problems) {
		return false
	}
	for i := range a.Blocks {
		if !bytes.Equal(a.Blocks[i].Bytes(), b.Blocks[i].Bytes()) {
			return false
		}
	}
	return reflect.DeepEqual(a.Problems, b.Problems)
}

// Coded returns how many samples the writers sharing s have coded: each
// sample once for the writers that code it together, once per writer for
// writers that do not. (It says how much sharing saves.)
func (s *Shared) Coded() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.coded
}

// sameObjects reports whether a and b hold the same objects (by title
// index) in the same blocks: samples of one query, the same stream of
// samples when given at the same times.
func sameObjects(a, b *pdh.Sample) bool {
	if len(a.Blocks) != len(b.Blocks) {
		return false
	}
	for i := range a.Blocks {
		ia, ib := a.Blocks[i].Objects(), b.Blocks[i].Objects()
		for {
			na, nb := ia.Next(), ib.Next()
			if na != nb {
				return false
			}
			if !na {
				break
			}
			if ia.Object().NameIndex() != ib.Object().NameIndex() {
				return false
			}
		}
	}
	return true
}

// invitation is the first sample of a log that started alone (Shared.inv).
type invitation struct {
	seq uint64 // 0: none yet
	smp *pdh.Sample
	at  time.Time
}

// errDiverged is returned by Shared.encode for a writer that cannot go on
// with its lineage: the writer starts a new epoch.
var errDiverged = errors.New("the writers of this lineage went on with another sample")

// encode returns the SAMPLE payload of smp (appended to dst, which is
// empty) and the definitions it introduces, for a writer that coded gen
// samples of its epoch on lineage l (nil and 0 at the epoch's start), and
// the writer's lineage: the writer codes it on the lineage's encoder when
// it is the first to write the lineage's next sample, else takes the
// payload the first one made. seen is the last invitation the writer
// answered (updated here); starting tells that the writer's log starts
// here (created or appended to): if it finds no lineage to join, it
// invites the others (Shared.inv). errDiverged tells the writer to start
// a new epoch.
func (s *Shared) encode(dst []byte, l *lineage, gen uint64, smp *pdh.Sample, seen *uint64, starting bool) (*lineage, []byte, []newDef, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l != nil && s.inv.seq > *seen && smp.Time.After(s.inv.at) {
		*seen = s.inv.seq
		if !l.at.After(s.inv.at) && sameObjects(l.smp, s.inv.smp) {
			// A log of the same objects started since this writer's
			// last sample (or this is that log): a new epoch here,
			// at the first sample after the start, codes with it.
			return l, nil, nil, errDiverged
		}
	}
	if l == nil {
		sameTime := false // a lineage began with a sample of this time
		for i, c := range s.starts {
			if c != nil && c.gen == 1 && c.at.Equal(smp.Time) {
				sameTime = true
			}
			if c != nil && (c.dead || c.gen > 1) {
				// No writer can join it any more: let it go with
				// its writers (its encoder holds a sample's worth).
				s.starts[i] = nil
				continue
			}
			if c != nil && (c.gen == 0 || c.follows(0, smp)) {
				l = c
				break
			}
		}
		if l == nil {
			l = &lineage{enc: newEncoder()}
			s.starts[s.nextStart] = l
			s.nextStart = (s.nextStart + 1) % sharedStarts
			if starting && s.coded > 0 && !sameTime {
				// Other writers have coded: some may have the same
				// samples on lineages begun earlier. (Not when one
				// began with a sample of the same time: this log's
				// samples are others than its.)
				s.inv = invitation{seq: s.inv.seq + 1, smp: smp, at: smp.Time}
			}
		}
		gen = 0
	}
	switch {
	case !l.dead && gen == l.gen:
		pl, err := l.enc.encodeSample(dst, smp)
		if err != nil {
			l.dead = true
			return l, nil, nil, err
		}
		l.gen++
		s.coded++
		l.smp, l.at = smp, smp.Time
		l.pl = append(l.pl[:0], pl...)
		l.defs = nil
		if len(l.enc.newDefs) > 0 {
			l.defs = l.enc.appendNewDefs(nil)
		}
		return l, pl, l.defs, nil
	case l.follows(gen, smp):
		return l, append(dst, l.pl...), l.defs, nil
	}
	return l, nil, nil, errDiverged
}

type sharedRecord struct {
	valid  bool
	dictID uint32 // 0: compressed without a dictionary
	dict   []byte
	pl     []byte
	z      []byte // pl compressed
}

// NewShared returns an empty Shared.
func NewShared() *Shared { return &Shared{} }

// compress appends pl compressed (with the dictionary dict of id dictID
// when dictID is not 0) to dst and reports whether the dictionary was
// used: from the cache when a recent payload compressed was the same
// with the same dictionary, else by calling encode, whose result is
// kept. A nil Shared always calls encode.
func (s *Shared) compress(dst []byte, dictID uint32, dict, pl []byte, encode func(dst []byte) ([]byte, bool)) ([]byte, bool) {
	if s == nil {
		return encode(dst)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.recent {
		r := &s.recent[i]
		if r.valid && r.dictID == dictID && len(r.pl) == len(pl) && len(r.dict) == len(dict) && bytes.Equal(r.pl, pl) && bytes.Equal(r.dict, dict) {
			return append(dst, r.z...), dictID != 0
		}
	}
	n := len(dst)
	dst, used := encode(dst)
	if used != (dictID != 0) {
		return dst, used // the dictionary could not be set: nothing to share
	}
	r := &s.recent[s.next]
	s.next = (s.next + 1) % sharedRecords
	r.valid, r.dictID = true, dictID
	r.dict = append(r.dict[:0], dict...)
	r.pl = append(r.pl[:0], pl...)
	r.z = append(r.z[:0], dst[n:]...)
	return dst, used
}
