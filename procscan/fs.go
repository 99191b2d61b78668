package procscan

import (
	"io"
	"io/fs"
	"strconv"

	"github.com/perfcounters/perfcounters/proctext"
)

// fsSource reads /proc through an fs.FS (fixture trees in tests). It keeps
// no descriptors: fs.FS has no pread, so every read opens, reads and
// closes.
type fsSource struct {
	fsys fs.FS
}

// Close does nothing: an fs.FS keeps nothing open.
func (s *fsSource) Close() error { return nil }

func (s *fsSource) dirPIDs(dir string, dst []int32) ([]int32, error) {
	ents, err := fs.ReadDir(s.fsys, dir)
	if err != nil {
		return dst, err
	}
	for _, d := range ents {
		if pid, ok := parsePID([]byte(d.Name())); ok {
			dst = append(dst, pid)
		}
	}
	return dst, nil
}

func (s *fsSource) pids(dst []int32, _ *[]byte) ([]int32, error) {
	return s.dirPIDs(".", dst)
}

func (s *fsSource) processes(_ *[]byte) (uint64, error) {
	ents, err := fs.ReadDir(s.fsys, ".")
	if err != nil {
		return 0, err
	}
	n := uint64(0)
	for _, d := range ents {
		if _, ok := parsePID([]byte(d.Name())); ok {
			n++
		}
	}
	return n, nil
}

func (s *fsSource) tasks(e *Process, dst []int32, _ *[]byte) ([]int32, error) {
	return s.dirPIDs(strconv.Itoa(int(e.PID))+"/task", dst)
}

func fsPath(pid, tid int32, name string) string {
	p := strconv.Itoa(int(pid))
	if tid != 0 {
		p += "/task/" + strconv.Itoa(int(tid))
	}
	return p + "/" + name
}

func (s *fsSource) readFile(name string, buf *[]byte) ([]byte, error) {
	f, err := s.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := proctext.ReadAll(f, (*buf)[:0], maxFileSize)
	*buf = b[:0]
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return b, nil
}

func (s *fsSource) read(_ *int, pid, tid int32, kind fileKind, buf *[]byte) ([]byte, error) {
	return s.readFile(fsPath(pid, tid, kind.String()), buf)
}

func (s *fsSource) readHead(pid int32, kind fileKind, n int, buf *[]byte) ([]byte, error) {
	name := fsPath(pid, 0, kind.String())
	f, err := s.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if cap(*buf) < n {
		*buf = make([]byte, n)
	}
	got, err := io.ReadFull(f, (*buf)[:n])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return (*buf)[:got], nil
}

func (s *fsSource) readRoot(name string, buf *[]byte) ([]byte, error) {
	return s.readFile(name, buf)
}

// handles counts the entries of PID/fd (a fixture holds one empty file per
// descriptor).
func (s *fsSource) handles(e *Process, _ *[]byte) (uint32, error) {
	ents, err := fs.ReadDir(s.fsys, strconv.Itoa(int(e.PID))+"/fd")
	if err != nil {
		return 0, err
	}
	n := uint32(0)
	for _, d := range ents {
		if _, err := strconv.ParseUint(d.Name(), 10, 31); err == nil {
			n++
		}
	}
	return n, nil
}

func (s *fsSource) close(fd *int) { *fd = -1 }

func (s *fsSource) keptCount() int { return 0 }
