package system

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"

	"github.com/perfcounters/perfcounters/proctext"
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
	fd    int    // r's descriptor, read with pread(2) directly; -1 when r has none
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

// readSys reads the /sys file name into the Collector's /sys buffer (its
// own, so that a /proc file read before stays valid) through a kept
// descriptor (see keptSysFiles). The returned slice is valid until the
// next readSys.
func (c *Collector) readSys(name string) ([]byte, error) {
	return c.readSysAt(name, "", "")
}

// readSysAt is readSys of dir+name+file, a name built without allocating
// when its file is kept open.
func (c *Collector) readSysAt(dir, dev, attr string) ([]byte, error) {
	return c.readKeptAt(&c.sysKept, maxKeptSysFiles, dir, dev, attr)
}

// readKeptAt is readSysAt over the kept files k, which keeps at most
// limit files open.
func (c *Collector) readKeptAt(k *keptSysFiles, limit int, dir, dev, attr string) ([]byte, error) {
	c.sysPath = append(append(append(c.sysPath[:0], dir...), dev...), attr...)
	if c.Sys == nil {
		return nil, fmt.Errorf("read %s: no file system", c.sysPath)
	}
	if f, ok := k.files[string(c.sysPath)]; ok {
		f.round = k.round
		b, err := c.readKept(f)
		if err == nil {
			return b, nil
		}
		if f.failed != nil && errors.Is(err, f.failed) {
			return nil, fmt.Errorf("read %s: %w", c.sysPath, err)
		}
		f.r.Close()
		delete(k.files, string(c.sysPath))
	}
	name := string(c.sysPath)
	file, err := c.Sys.Open(name)
	if err != nil {
		return nil, err
	}
	r, ok := file.(readerAtCloser)
	if !ok || len(k.files) >= limit {
		defer file.Close()
		b, err := proctext.ReadAll(file, c.sysBuf[:0], maxFileSize)
		c.sysBuf = b[:0]
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		return b, nil
	}
	kf := &keptSysFile{r: r, fd: -1, round: k.round}
	if f, ok := file.(interface{ Fd() uintptr }); ok {
		kf.fd = int(f.Fd())
	}
	b, err := c.readKept(kf)
	kf.failed = unwrapAll(err)
	if k.files == nil {
		k.files = make(map[string]*keptSysFile)
	}
	k.files[name] = kf
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

// readKept reads a kept file from offset 0 to its end into the /sys
// buffer, failing past maxFileSize: with pread(2) on its descriptor where
// it has one, else with ReadAt.
func (c *Collector) readKept(f *keptSysFile) ([]byte, error) {
	if f.fd >= 0 {
		b, err := preadAll(f.fd, c.sysBuf[:0])
		c.sysBuf = b[:0]
		if err != nil {
			return nil, err
		}
		return b, nil
	}
	return c.readAt(f.r)
}

// preadAll reads the file fd from offset 0 into b's spare capacity,
// growing it, until a read returns less than it asked for. A short read is
// the end of a sysfs attribute (its show method writes the whole value at
// once, at most a page) and of a regular file, so a small attribute costs
// one pread(2), not the two of a read to EOF.
func preadAll(fd int, b []byte) ([]byte, error) {
	if cap(b) < 4096 {
		b = make([]byte, 0, 4096)
	}
	for {
		if len(b) == cap(b) {
			if len(b) >= maxFileSize {
				return b, errors.New("file larger than the read limit")
			}
			b = append(b, 0)[:len(b)]
		}
		want := cap(b) - len(b)
		n, err := syscall.Pread(fd, b[len(b):cap(b)], int64(len(b)))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return b, err
		}
		b = b[:len(b)+n]
		if n < want {
			return b, nil
		}
	}
}

// readAt reads r from offset 0 to its end into the /sys buffer, failing
// past maxFileSize.
func (c *Collector) readAt(r io.ReaderAt) ([]byte, error) {
	b := c.sysBuf[:0]
	if cap(b) == 0 {
		b = make([]byte, 0, 4096)
	}
	for {
		if len(b) == cap(b) {
			if len(b) >= maxFileSize {
				c.sysBuf = b[:0]
				return nil, errors.New("file larger than the read limit")
			}
			b = append(b, 0)[:len(b)]
		}
		n, err := r.ReadAt(b[len(b):cap(b)], int64(len(b)))
		b = b[:len(b)+n]
		if err == io.EOF {
			c.sysBuf = b[:0]
			return b, nil
		}
		if err != nil {
			c.sysBuf = b[:0]
			return nil, err
		}
	}
}

// Close closes the /sys files the Collector keeps open. The Collector
// stays usable: a later sample opens them again.
func (c *Collector) Close() error {
	c.sysKept.close()
	c.cg.kept.close()
	return nil
}
