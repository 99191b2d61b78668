package relog

import (
	"bufio"
	"fmt"
	"io"
	"os"
)

// rowSpill is how many bytes of rows a one-pass conversion keeps in
// memory; past it the rows go to a temporary file.
const rowSpill = 64 << 20

// rowStore keeps the rows of a one-pass conversion until the header can be
// written: each row's text (pdhcsv.Writer.AppendRow) and how many cells it
// holds. The first rows stay in memory, up to rowSpill bytes; the rows
// after them go to a temporary file (removed as soon as it is made, so
// nothing is left behind whatever happens to the process). The rows in
// memory stay there: writing them to the file and reading them back would
// cost the conversion a write and a read of every byte (a 99 MB CSV spent
// a tenth of its time there) for no less memory at the peak.
type rowStore struct {
	spill  int
	chunks [][]byte // rows in memory, in chunks of rowChunk bytes or one row
	size   int      // bytes in chunks
	rows   []rowMeta
	inMem  int // rows in chunks; the rows after them are in f
	f      *os.File
	w      *bufio.Writer
}

// rowChunk is the size of the chunks a rowStore keeps rows in (a row
// larger than that gets a chunk of its own), after a first of
// firstRowChunk and a second of twice that. A chunk is never copied to
// grow. Chunks of one size leave at most one chunk's room unused; chunks
// that doubled from 4 KiB up to 1 MiB left up to the rows' size unused
// (a 550-sample relog allocated 17 % more in all). The two smaller first
// chunks keep a short log (20 samples, 18 KiB of rows) from paying 64 KiB.
const (
	rowChunk      = 64 << 10
	firstRowChunk = 16 << 10
)

type rowMeta struct{ size, cells int }

func newRowStore() *rowStore { return &rowStore{spill: rowSpill} }

// add keeps one row.
func (s *rowStore) add(row []byte, cells int) error {
	s.rows = append(s.rows, rowMeta{len(row), cells})
	if s.w == nil && s.size+len(row) <= s.spill {
		n := len(s.chunks)
		if n == 0 || len(s.chunks[n-1])+len(row) > cap(s.chunks[n-1]) {
			size := rowChunk
			if n < 2 {
				size = firstRowChunk << n
			}
			s.chunks = append(s.chunks, make([]byte, 0, max(size, len(row))))
			n++
		}
		s.chunks[n-1] = append(s.chunks[n-1], row...)
		s.size += len(row)
		s.inMem++
		return nil
	}
	if s.w == nil {
		f, err := os.CreateTemp("", "perfc-relog-*.rows")
		if err != nil {
			return fmt.Errorf("a temporary file for the rows: %w", err)
		}
		os.Remove(f.Name())
		s.f, s.w = f, bufio.NewWriterSize(f, 1<<20)
	}
	if _, err := s.w.Write(row); err != nil {
		return s.fileError(err)
	}
	return nil
}

func (s *rowStore) fileError(err error) error {
	return fmt.Errorf("keeping the rows in the temporary file %s: %w", s.f.Name(), err)
}

// each calls f with every row in order; the row's bytes are f's until it
// returns.
func (s *rowStore) each(f func(row []byte, cells int) error) error {
	c, off := 0, 0
	for _, r := range s.rows[:s.inMem] {
		if off+r.size > len(s.chunks[c]) {
			c, off = c+1, 0
		}
		if err := f(s.chunks[c][off:off+r.size], r.cells); err != nil {
			return err
		}
		off += r.size
	}
	if s.w == nil {
		return nil
	}
	if err := s.w.Flush(); err != nil {
		return s.fileError(err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return s.fileError(err)
	}
	rd := bufio.NewReaderSize(s.f, 1<<20)
	var b []byte
	for _, r := range s.rows[s.inMem:] {
		if cap(b) < r.size {
			b = make([]byte, r.size)
		}
		b = b[:r.size]
		if _, err := io.ReadFull(rd, b); err != nil {
			return s.fileError(err)
		}
		if err := f(b, r.cells); err != nil {
			return err
		}
	}
	return nil
}

// close removes what the store holds.
func (s *rowStore) close() {
	if s.f != nil {
		s.f.Close()
	}
	s.chunks, s.rows, s.f, s.w = nil, nil, nil, nil
}
