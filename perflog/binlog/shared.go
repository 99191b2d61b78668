package binlog

import (
	"bytes"
	"sync"
)

// Shared lets the writers of logs that record the same samples (the
// collector service's sets over the same objects, each with its own log)
// compress each record once: a writer whose record payload and zstd
// dictionary (the previous sample's payload, under the same id) equal
// those another writer compressed last takes that writer's compressed
// bytes instead of compressing again. Writers whose logs differ simply
// miss. Give one to Options.Shared of each such writer; it is safe for
// concurrent use.
type Shared struct {
	mu     sync.Mutex
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
// used: from the cache when the last payload compressed was the same
// with the same dictionary, else by calling encode, whose result is
// kept. A nil Shared always calls encode.
func (s *Shared) compress(dst []byte, dictID uint32, dict, pl []byte, encode func(dst []byte) ([]byte, bool)) ([]byte, bool) {
	if s == nil {
		return encode(dst)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.valid && s.dictID == dictID && bytes.Equal(s.pl, pl) && bytes.Equal(s.dict, dict) {
		return append(dst, s.z...), dictID != 0
	}
	n := len(dst)
	dst, used := encode(dst)
	if used != (dictID != 0) {
		// The dictionary could not be set: nothing to share.
		s.valid = false
		return dst, used
	}
	s.valid, s.dictID = true, dictID
	s.dict = append(s.dict[:0], dict...)
	s.pl = append(s.pl[:0], pl...)
	s.z = append(s.z[:0], dst[n:]...)
	return dst, used
}
