package blg

import (
	"fmt"
	"io"
	"os"
)

// reader gives the bytes of a log: in place when the whole log is in
// memory, otherwise through a window of the file, a buffer that is read
// again where a request falls outside it. The log is read in order (the
// buffers when it is opened, then the samples), so a window holds many
// requests, read in one system call and never copied again, and the
// memory a log takes stays the window's whatever the file's size.
type reader struct {
	r      io.ReaderAt
	mem    []byte // the whole log, when Open read it (r is then nil)
	size   int64  // the log's size
	window int    // the window's size (a request larger than it gets a window of its own size)
	win    []byte // the window's bytes
	at     int64  // the file offset of win[0]
}

// windowSize is the window of a log read from a file: two of Windows'
// usual 64 KiB buffers. A larger one holds more requests a read, but
// each log opened allocates (and the runtime clears) a window, which a
// short log's conversion pays for more than for the reads: 128 KiB
// made a 600-sample conversion 18 % faster than 1 MiB, and a
// 6,000-sample one no slower (bench/RESULTS.md, section 7).
const windowSize = 128 << 10

// bytes returns the n bytes at off. They are only to be read, and only
// until the next call (the window may move); in memory, for good.
func (r *reader) bytes(off int64, n int) ([]byte, error) {
	if off < 0 || n < 0 || off > r.size-int64(n) {
		return nil, fmt.Errorf("%d bytes at offset %d: past the end of the log (%d bytes): %w", n, off, r.size, io.ErrUnexpectedEOF)
	}
	if r.r == nil {
		end := off + int64(n)
		return r.mem[off:end:end], nil
	}
	if off >= r.at && off-r.at <= int64(len(r.win)-n) {
		start := off - r.at
		return r.win[start : start+int64(n) : start+int64(n)], nil
	}
	size := int(min(int64(max(r.window, n)), r.size-off)) // at least n: off+n <= r.size
	if cap(r.win) < size {
		r.win = make([]byte, size)
	}
	w := r.win[:size]
	got, err := r.r.ReadAt(w, off)
	if got < n {
		r.win = r.win[:0]
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("reading %d bytes at offset %d: %w", n, off, err)
	}
	r.win, r.at = w[:got], off
	return w[:n:n], nil
}

// readBuffer returns the buffer (size bytes) at off; it is only read.
func readBuffer(r *reader, off int64, size int) ([]byte, error) {
	b, err := r.bytes(off, size)
	if err != nil {
		return nil, fmt.Errorf("reading the buffer at offset %d of %d bytes: %w", off, r.size, err)
	}
	return b, nil
}

// readRecord returns the data of rec, its fragments joined: a record of
// one fragment (most) in place, as reader.bytes gives it, the fragments of
// others copied into dst, which readRecord returns (grown) as buf for the
// next call. data is only read, and valid until the next read of r.
func readRecord(r *reader, rec *record, dst []byte) (data, buf []byte, err error) {
	if len(rec.more) == 0 {
		b, err := r.bytes(rec.first.off, rec.first.n)
		if err != nil {
			return nil, dst, fmt.Errorf("reading record data at offset %d: %w", rec.first.off, err)
		}
		return b, dst, nil
	}
	dst = dst[:0]
	for i := range rec.fragments() {
		f := rec.first
		if i > 0 {
			f = rec.more[i-1]
		}
		b, err := r.bytes(f.off, f.n)
		if err != nil {
			return nil, dst, fmt.Errorf("reading record data at offset %d: %w", f.off, err)
		}
		dst = append(dst, b...)
	}
	return dst, dst, nil
}

// wholeFile is the size up to which Open reads a log into memory at once
// (and closes the file): one system call for the whole log.
const wholeFile = windowSize

// Open opens a .blg file. A log larger than 128 KiB stays open until
// Close and is read through a window of 128 KiB as it is used; a smaller
// one is read whole and closed.
func Open(path string) (*Log, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if size := st.Size(); size <= wholeFile {
		b := make([]byte, size)
		n, err := f.ReadAt(b, 0)
		f.Close()
		if n < len(b) && err != nil && err != io.EOF {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		// A file that shrank since Stat is read as what it holds now.
		return readMemory(b[:n], path)
	}
	l, err := read(&reader{r: f, size: st.Size(), window: windowSize}, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	l.closer = f
	return l, nil
}

// readMemory reads a log held whole in b, in place: b must not change
// while the Log is used.
func readMemory(b []byte, name string) (*Log, error) {
	return read(&reader{mem: b, size: int64(len(b))}, name)
}
