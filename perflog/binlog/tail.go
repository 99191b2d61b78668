package binlog

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"

	"golang.org/x/sys/unix"
)

// tailChunk is how far ahead of its records a linear log reserves its
// file (at most; less where a size limit is nearer).
const tailChunk = 1 << 20

// tail writes a linear log's records through a shared writable mapping of
// the file's end, so that a sample costs a copy and no system call: a log
// of a few counters a second spends more CPU in pwrite(2) than in
// everything else it does (bench/RESULTS.md, section 8).
//
// The file is reserved ahead of the records with fallocate(2), up to
// tailChunk bytes past the last record; those bytes read as zeros, which
// readers take as the log's end (FORMAT.md, "Reserved space"), and Close
// cuts the file back to its last record. The reservation is what makes a
// full disk an error of fallocate rather than a SIGBUS when a page of the
// mapping is first written: where it fails (a full disk, a file size
// limit, a file system without fallocate) or the mapping does, the log
// goes on with pwrite(2), which reports the failure of the write itself,
// as before. Pages written through the mapping belong to the page cache
// as soon as the copy is done, so a writer killed at any moment leaves
// what it had written, as pwrite would; Sync (fsync) writes them out.
type tail struct {
	f     *os.File
	mem   []byte // the mapping, nil when none
	off   int64  // file offset of mem[0], a multiple of the page size
	end   int64  // the file's size: reserved bytes included
	limit int64  // reserve no further than this (0: no limit)
	plain bool   // write with pwrite only
	ring  bool   // a circular log's file
	// reserved: the file was reserved past its records at some point,
	// so Close cuts it back (never true for a circular log).
	reserved bool
}

// newTail starts writing f, whose size is size (its records end there).
// limit bounds the reservation (the log's maximum or rollover size; 0
// none); a circular log (which never grows past its size and wraps) is
// written with pwrite only.
func newTail(f *os.File, size, limit int64, circular bool) *tail {
	return &tail{f: f, end: size, limit: limit, plain: circular, ring: circular}
}

// writeAt writes b at pos.
func (t *tail) writeAt(b []byte, pos int64) error {
	if !t.plain && (pos < t.off || pos+int64(len(b)) > t.off+int64(len(t.mem))) {
		if err := t.move(pos, int64(len(b))); err != nil {
			// Reserving or mapping failed: from here on the file is
			// written with pwrite, whose error, if the write itself
			// fails, is the one to report.
			t.unmap()
			t.plain = true
		}
	}
	if t.plain {
		_, err := t.f.WriteAt(b, pos)
		if err == nil && pos+int64(len(b)) > t.end {
			t.end = pos + int64(len(b))
		}
		return err
	}
	return t.copyAt(b, pos)
}

// move reserves the file to cover [pos, pos+n) and more, and maps it from
// the page that holds pos.
func (t *tail) move(pos, n int64) error {
	page := int64(os.Getpagesize())
	want := (pos + n + tailChunk + page - 1) &^ (page - 1)
	if t.limit > 0 && want > t.limit {
		// Never reserve past the limit: a file's size stays within
		// it (a mapping may end inside a page). Reserved space is a
		// multiple of 8 bytes long, as records are, which is how a
		// reader tells it from a record cut short.
		want = max(t.limit&^7, pos+n)
	}
	if want > t.end {
		if err := unix.Fallocate(int(t.f.Fd()), 0, t.end, want-t.end); err != nil {
			return err
		}
		t.end, t.reserved = want, true
	}
	t.unmap()
	start := pos &^ (page - 1)
	mem, err := unix.Mmap(int(t.f.Fd()), start, int(t.end-start), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return err
	}
	t.mem, t.off = mem, start
	return nil
}

// cut truncates a linear log's file after pos when a write there failed
// part way (a full disk), so that the file ends with its last whole record.
func (t *tail) cut(pos int64) {
	if t.ring {
		return // a failed write inside the ring: what follows are older records
	}
	if fi, err := t.f.Stat(); err == nil && fi.Size() > pos {
		t.f.Truncate(pos)
	}
}

// copyAt copies b into the mapping at file offset pos. A fault (the file
// cut short by someone else under the mapping: SIGBUS) is an error, not a
// crash.
func (t *tail) copyAt(b []byte, pos int64) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			re, ok := r.(runtime.Error)
			if !ok {
				panic(r)
			}
			t.unmap()
			t.plain = true
			err = fmt.Errorf("the file changed under the writer (%v)", re)
		}
	}()
	copy(t.mem[pos-t.off:], b)
	return nil
}

// unmap drops the mapping.
func (t *tail) unmap() {
	if t.mem != nil {
		unix.Munmap(t.mem)
		t.mem = nil
	}
}

// close drops the mapping and cuts the reserved bytes after pos, where
// the records end.
func (t *tail) close(pos int64) error {
	t.unmap()
	if t.reserved && t.end > pos {
		if err := t.f.Truncate(pos); err != nil {
			return fmt.Errorf("cutting the reserved space after byte %d: %w", pos, err)
		}
		t.end = pos
	}
	return nil
}
