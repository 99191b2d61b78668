package binlog

import (
	"bytes"
	"sync"
	"sync/atomic"

	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
)

// Shared is a cache for the writers of logs that often record the same
// samples (the collector service's sets over the same objects, each with
// its own log), so that what they all write is made once:
//
//   - coding: a writer whose coding state is the same as another's (the
//     same definitions, and the same previous sample, which determines
//     the rest) and which is given the same sample takes the SAMPLE
//     payload that writer coded;
//   - compression: a writer whose record payload and zstd dictionary (the
//     previous sample's payload, under the same id) equal those another
//     writer compressed lately takes that writer's compressed bytes.
//
// The cache is addressed by content only: what a writer takes is what it
// would have made itself, so a log's bytes depend only on the samples it
// is given, never on which other writers share the cache or in which
// order they write. Writers whose samples or states differ simply miss.
// Samples are told apart by their blocks' identity (a pdh.Sample's blocks
// are never changed once made: sources hand one to several consumers).
//
// Give one to Options.Shared of each such writer; it is safe for
// concurrent use. It is used only while two writers or more are open
// with it: a writer alone keeps nothing there.
type Shared struct {
	writers atomic.Int32 // open writers with this Shared

	mu sync.Mutex
	// recent are the last records compressed, the newest at next-1: as
	// many as a sample with its INFO, TITLES and DEFS records (a new
	// epoch), so that writers taking turns all find them.
	recent [sharedRecords]sharedRecord
	next   int
	misses uint64 // records compressed (not found in recent)
	// coded are the last samples coded, one per stream of samples: an
	// entry is dropped when the sample after it is coded.
	coded     [sharedCoded]codedSample
	nextCoded int
	codings   uint64 // samples coded (not found in coded)
}

// sharedRecords is how many compressed records a Shared keeps.
const sharedRecords = 4

// sharedCoded is how many coded samples a Shared keeps: the streams of
// different samples its writers can take turns with in one interval.
const sharedCoded = 16

type sharedRecord struct {
	valid  bool
	dictID uint32 // 0: compressed without a dictionary
	dict   []byte
	pl     []byte
	z      []byte // pl compressed
}

// codedSample is a sample's SAMPLE payload and the coding state it was
// coded from and leaves.
type codedSample struct {
	valid bool
	// The state before: the definitions (by id-1) and the blocks of the
	// previous sample (nil: an empty state, a new epoch's).
	defs [][]byte
	prev []perfdata.Block
	// The sample.
	blocks   []perfdata.Block
	gap      bool
	problems []pdh.Problem
	// The result: the payload, the definitions it added, the encoder's
	// last (the sample's size). The state after is determined by the
	// definitions and blocks.
	payload []byte
	newDefs [][]byte
	last    int
}

// NewShared returns an empty Shared.
func NewShared() *Shared { return &Shared{} }

// attach and detach count the writers open with s.
func (s *Shared) attach() {
	if s != nil {
		s.writers.Add(1)
	}
}

func (s *Shared) detach() {
	if s != nil {
		s.writers.Add(-1)
	}
}

// caching reports whether samples coded and compressed are worth keeping:
// two writers or more use s.
func (s *Shared) caching() bool { return s != nil && s.writers.Load() > 1 }

// sameBlocks reports whether a and b are the same blocks (the same slice:
// blocks are never changed once made).
func sameBlocks(a, b []perfdata.Block) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func sameProblems(a, b []pdh.Problem) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// sameDefs reports whether two definition lists are equal.
func sameDefs(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// takeCoded appends the payload of smp that a writer in e's state coded
// lately, and brings e to the state after it (lazily: e is stale until
// it codes a sample itself); false when there is none. e is known.
func (s *Shared) takeCoded(dst []byte, e *encoder, smp *pdh.Sample) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.coded {
		c := &s.coded[i]
		if !c.valid || !sameBlocks(c.blocks, smp.Blocks) || !sameBlocks(c.prev, e.prev) || c.gap != smp.Gap ||
			!sameProblems(c.problems, smp.Problems) || !sameDefs(c.defs, e.defList) {
			continue
		}
		dst = append(dst, c.payload...)
		for _, d := range c.newDefs {
			e.addDef(d)
		}
		e.last = c.last
		e.prev, e.stale = smp.Blocks, true
		return dst, true
	}
	return dst, false
}

// keepCoded keeps c (its payload copied): the sample c follows is spent,
// and its entry goes.
func (s *Shared) keepCoded(c codedSample) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.codings++
	slot := -1
	for i := range s.coded {
		o := &s.coded[i]
		if o.valid && (sameBlocks(o.blocks, c.prev) && len(c.prev) > 0 || sameBlocks(o.blocks, c.blocks) && sameBlocks(o.prev, c.prev)) {
			o.valid = false // followed by c, or the same coding made again
		}
		if !o.valid && slot < 0 {
			slot = i
		}
	}
	if slot < 0 {
		slot = s.nextCoded
		s.nextCoded = (s.nextCoded + 1) % sharedCoded
	}
	o := &s.coded[slot]
	c.payload = append(o.payload[:0], c.payload...)
	c.newDefs = append(o.newDefs[:0], c.newDefs...)
	c.valid = true
	*o = c
}

// compress appends pl compressed (with the dictionary dict of id dictID
// when dictID is not 0) to dst and reports whether the dictionary was
// used: from the cache when a recent payload compressed was the same
// with the same dictionary, else by calling encode, whose result is
// kept. A nil Shared, or one that a single writer uses, always calls
// encode.
func (s *Shared) compress(dst []byte, dictID uint32, dict, pl []byte, encode func(dst []byte) ([]byte, bool)) ([]byte, bool) {
	if !s.caching() {
		return encode(dst)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.recent {
		r := &s.recent[i]
		if !r.valid || (r.dictID == 0) != (dictID == 0) || len(r.pl) != len(pl) || len(r.dict) != len(dict) || !bytes.Equal(r.pl, pl) || !bytes.Equal(r.dict, dict) {
			continue
		}
		if r.dictID == dictID {
			return append(dst, r.z...), dictID != 0
		}
		// The same dictionary under another id (the logs' previous
		// samples have other sequence numbers): the frame differs only in
		// its header's dictionary id.
		if out, ok := withDictID(dst, r.z, dictID); ok {
			return out, true
		}
	}
	s.misses++
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

// withDictID appends the Zstandard frame z with its header's dictionary id
// replaced by id (RFC 8878, 3.1.1.1: the Dictionary_ID field, 1, 2 or 4
// bytes, the smallest that holds the id, as the encoder writes it): the
// frame a compressor gives when the same dictionary content has the id
// id, for the blocks after the header depend only on the content. false
// when z is not a frame with a dictionary id.
func withDictID(dst, z []byte, id uint32) ([]byte, bool) {
	const magic = "\x28\xb5\x2f\xfd"
	if id == 0 || len(z) < 6 || string(z[:4]) != magic {
		return dst, false
	}
	fhd := z[4]
	pos := 5
	if fhd&(1<<5) == 0 {
		pos++ // Window_Descriptor
	}
	old := [4]int{0, 1, 2, 4}[fhd&3]
	if old == 0 || len(z) < pos+old {
		return dst, false
	}
	var tmp [4]byte
	field := tmp[:4]
	le.PutUint32(field, id)
	switch {
	case id < 1<<8:
		field, fhd = field[:1], fhd&^3|1
	case id < 1<<16:
		field, fhd = field[:2], fhd&^3|2
	default:
		fhd |= 3
	}
	dst = append(dst, z[:4]...)
	dst = append(dst, fhd)
	dst = append(dst, z[5:pos]...)
	dst = append(dst, field...)
	return append(dst, z[pos+old:]...), true
}
