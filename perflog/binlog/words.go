package binlog

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// strs holds byte strings back to back (instance definitions, counter
// blocks), reusing its buffers.
type strs struct {
	buf []byte
	off []int // off[i] is where string i starts; len(off) = n
}

func (s *strs) n() int { return len(s.off) }

func (s *strs) get(i int) []byte {
	end := len(s.buf)
	if i+1 < len(s.off) {
		end = s.off[i+1]
	}
	return s.buf[s.off[i]:end:end]
}

func (s *strs) reset() { s.buf, s.off = s.buf[:0], s.off[:0] }

func (s *strs) add(b []byte) {
	s.off = append(s.off, len(s.buf))
	s.buf = append(s.buf, b...)
}

// grow appends a string of n zero bytes and returns it.
func (s *strs) grow(n int) []byte {
	s.off = append(s.off, len(s.buf))
	s.buf = slices.Grow(s.buf, n)
	s.buf = s.buf[:len(s.buf)+n]
	b := s.buf[len(s.buf)-n:]
	clear(b)
	return b
}

// word returns the i-th little-endian word of b, zero-padded.
func word(b []byte, i int) uint64 {
	o := i * 8
	if o+8 <= len(b) {
		return le.Uint64(b[o:])
	}
	if o >= len(b) {
		return 0
	}
	var w [8]byte
	copy(w[:], b[o:])
	return le.Uint64(w[:])
}

// wordEnc writes a word-delta token stream (FORMAT.md, "Words").
type wordEnc struct {
	out   []byte
	zeros int
	lits  []int64
}

func (e *wordEnc) flushLits() {
	if len(e.lits) == 0 {
		return
	}
	e.out = binary.AppendUvarint(e.out, uint64(len(e.lits))<<1|1)
	for _, v := range e.lits {
		e.out = binary.AppendVarint(e.out, v)
	}
	e.lits = e.lits[:0]
}

func (e *wordEnc) flushZeros() {
	if e.zeros == 0 {
		return
	}
	if e.zeros == 1 && len(e.lits) > 0 {
		// A lone zero inside literals is cheaper as a literal.
		e.lits = append(e.lits, 0)
	} else {
		e.flushLits()
		e.out = binary.AppendUvarint(e.out, uint64(e.zeros)<<1)
	}
	e.zeros = 0
}

func (e *wordEnc) add(delta uint64) {
	if delta == 0 {
		e.zeros++
		return
	}
	e.flushZeros()
	e.lits = append(e.lits, int64(delta))
}

// encode adds the words of cur against base (nil: zeros).
func (e *wordEnc) encode(cur, base []byte) {
	n := (len(cur) + 7) / 8
	full := len(cur) / 8
	if len(base) >= len(cur) {
		for i := range full {
			e.add(le.Uint64(cur[i*8:]) - le.Uint64(base[i*8:]))
		}
	} else {
		for i := range full {
			e.add(le.Uint64(cur[i*8:]) - word(base, i))
		}
	}
	for i := full; i < n; i++ {
		e.add(word(cur, i) - word(base, i))
	}
}

func (e *wordEnc) finish(dst []byte) []byte {
	e.flushZeros()
	e.flushLits()
	dst = append(dst, e.out...)
	e.out = e.out[:0]
	return dst
}

// wordDec reads a word-delta token stream.
type wordDec struct {
	p           *payload
	zeros, lits uint64
}

func (d *wordDec) next() uint64 {
	for d.zeros == 0 && d.lits == 0 {
		if d.p.err != nil {
			return 0
		}
		t := d.p.uvarint("word token")
		if d.p.err != nil {
			return 0
		}
		if t>>1 == 0 {
			d.p.fail("word token", "a run of no words")
			return 0
		}
		if t&1 == 0 {
			d.zeros = t >> 1
		} else {
			d.lits = t >> 1
		}
	}
	if d.zeros > 0 {
		d.zeros--
		return 0
	}
	d.lits--
	return uint64(d.p.svarint("word delta"))
}

// decode fills dst (already sized) from the stream against base.
func (d *wordDec) decode(dst, base []byte) {
	full := len(dst) / 8
	for i := range full {
		le.PutUint64(dst[i*8:], word(base, i)+d.next())
	}
	if r := len(dst) - full*8; r > 0 {
		var w [8]byte
		le.PutUint64(w[:], word(base, full)+d.next())
		copy(dst[full*8:], w[:r])
	}
}

// done checks that the stream ended exactly at the last word.
func (d *wordDec) done(field string) {
	if d.p.err == nil && (d.zeros != 0 || d.lits != 0) {
		d.p.fail(field, fmt.Sprintf("the word tokens cover %d more words than the data has", d.zeros+d.lits))
	}
}
