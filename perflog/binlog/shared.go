package binlog

import (
	"bytes"
	"sync"
)

// Shared is a compression cache for the writers of logs that often record
// the same samples (the collector service's sets over the same objects,
// each with its own log): a writer whose record payload and zstd
// dictionary (the previous sample's payload, under the same id) equal
// those another writer compressed lately takes that writer's compressed
// bytes instead of compressing them again.
//
// The cache is addressed by content only: what a writer takes is what it
// would have made itself, so a log's bytes depend only on the samples it
// is given, never on which other writers share the cache or in which
// order they write. Each writer codes its samples with its own encoder.
// Writers whose records differ simply miss. Give one to Options.Shared of
// each such writer; it is safe for concurrent use.
type Shared struct {
	mu sync.Mutex
	// recent are the last records compressed, the newest at next-1: as
	// many as a sample with its INFO, TITLES and DEFS records (a new
	// epoch), so that writers taking turns all find them.
	recent [sharedRecords]sharedRecord
	next   int
	misses uint64 // records compressed (not found in recent)
}

// sharedRecords is how many compressed records a Shared keeps.
const sharedRecords = 4

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
