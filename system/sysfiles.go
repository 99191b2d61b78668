package system

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxKeptSysFiles bounds the /sys attribute files a Collector keeps open;
// past it, a file is opened and closed at every read as before.
const maxKeptSysFiles = 4096

// keptSysFiles keeps the /sys attribute files read at every sample (a
// disk's size, a network interface's link speed) open, and rereads them
// from offset 0: sysfs calls the attribute's show method again for a read
// at offset 0 (the kernel's Documentation/filesystems/sysfs.rst), so a
// sample costs one pread per attribute instead of an open, a read and a
// close. The files of devices no longer listed are closed by sweep; a kept
// file that starts failing (its device was removed and another took the
// name) is opened again once.
type keptSysFiles struct {
	files map[string]*keptSysFile
	round uint64
}

type keptSysFile struct {
	r     readerAtCloser
	round uint64 // the round of its last read
	// failed is the error the file gave when it was opened (EINVAL for
	// an interface without a link speed): the same error from the kept
	// descriptor is the attribute's answer, not a sign of a stale file.
	failed error
}

type readerAtCloser interface {
	io.ReaderAt
	io.Closer
}

// begin starts a round of reads; sweep(prefix, round) then closes the
// files under prefix that the round did not read.
func (k *keptSysFiles) begin() uint64 {
	k.round++
	return k.round
}

// sweep closes the kept files whose names start with prefix and that were
// not read in round.
func (k *keptSysFiles) sweep(prefix string, round uint64) {
	for name, f := range k.files {
		if f.round < round && strings.HasPrefix(name, prefix) {
			f.r.Close()
			delete(k.files, name)
		}
	}
}

// close closes every kept file.
func (k *keptSysFiles) close() {
	for name, f := range k.files {
		f.r.Close()
		delete(k.files, name)
	}
}

// readSys reads the /sys file name into the Collector's reusable buffer
// through a kept descriptor (see keptSysFiles). The returned slice is
// valid until the next read.
func (c *Collector) readSys(name string) ([]byte, error) {
	if c.Sys == nil {
		return nil, fmt.Errorf("read %s: no file system", name)
	}
	k := &c.sysKept
	if f, ok := k.files[name]; ok {
		f.round = k.round
		b, err := c.readAt(f.r)
		if err == nil {
			return b, nil
		}
		if f.failed != nil && errors.Is(err, f.failed) {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		f.r.Close()
		delete(k.files, name)
	}
	file, err := c.Sys.Open(name)
	if err != nil {
		return nil, err
	}
	r, ok := file.(readerAtCloser)
	if !ok || len(k.files) >= maxKeptSysFiles {
		file.Close()
		return c.readFile(c.Sys, name)
	}
	b, err := c.readAt(r)
	if k.files == nil {
		k.files = make(map[string]*keptSysFile)
	}
	k.files[name] = &keptSysFile{r: r, round: k.round, failed: unwrapAll(err)}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return b, nil
}

// unwrapAll is the innermost error of err's chain (the errno of a
// *PathError), or nil.
func unwrapAll(err error) error {
	for err != nil {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		err = u
	}
	return nil
}

// readAt reads r from offset 0 to its end into the reusable buffer,
// failing past maxFileSize.
func (c *Collector) readAt(r io.ReaderAt) ([]byte, error) {
	b := c.buf[:0]
	if cap(b) == 0 {
		b = make([]byte, 0, 4096)
	}
	for {
		if len(b) == cap(b) {
			if len(b) >= maxFileSize {
				c.buf = b[:0]
				return nil, errors.New("file larger than the read limit")
			}
			b = append(b, 0)[:len(b)]
		}
		n, err := r.ReadAt(b[len(b):cap(b)], int64(len(b)))
		b = b[:len(b)+n]
		if err == io.EOF {
			c.buf = b[:0]
			return b, nil
		}
		if err != nil {
			c.buf = b[:0]
			return nil, err
		}
	}
}

// Close closes the /sys files the Collector keeps open. The Collector
// stays usable: a later sample opens them again.
func (c *Collector) Close() error {
	c.sysKept.close()
	return nil
}
