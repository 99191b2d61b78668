package system

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"syscall"
)

// oPath is O_PATH (open without read access, enough for fstat); Go's
// syscall package does not name it. The value is the same on every Linux
// architecture Go supports.
const oPath = 0x200000

// defaultMaxKept bounds kept descriptors when the rlimit cannot be read.
const defaultMaxKept = 512

// osSource reads a real /proc with openat/pread/getdents, keeping
// descriptors open across samples up to a bound.
type osSource struct {
	root    string
	rootFD  int
	kept    int
	maxKept int
	path    []byte
	statFD  int  // kept root "stat" (the Idle process's source)
	procfs  bool // root is a procfs mount, whose fd directories report their count as st_size
}

// procSuperMagic is PROC_SUPER_MAGIC, statfs(2)'s f_type of procfs.
const procSuperMagic = 0x9fa0

// newOSSource opens root. maxKept <= 0 means half of the soft
// RLIMIT_NOFILE (Go raises the soft limit to the hard one at start).
func newOSSource(root string, maxKept int) (*osSource, error) {
	fd, err := syscall.Open(root, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: root, Err: err}
	}
	if maxKept <= 0 {
		maxKept = defaultMaxKept
		var rl syscall.Rlimit
		if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) == nil && rl.Cur > 2*defaultMaxKept {
			maxKept = int(min(rl.Cur/2, 1<<20))
		}
	}
	var sfs syscall.Statfs_t
	isProc := syscall.Fstatfs(fd, &sfs) == nil && sfs.Type == procSuperMagic
	return &osSource{root: root, rootFD: fd, statFD: -1, maxKept: maxKept, procfs: isProc}, nil
}

func (s *osSource) closeRoot() {
	s.close(&s.statFD)
	if s.rootFD >= 0 {
		syscall.Close(s.rootFD)
		s.rootFD = -1
	}
}

// relPath builds "PID/task/TID/name" (or "PID/name") relative to the root.
func (s *osSource) relPath(pid, tid int32, name string) string {
	p := strconv.AppendInt(s.path[:0], int64(pid), 10)
	if tid != 0 {
		p = append(p, "/task/"...)
		p = strconv.AppendInt(p, int64(tid), 10)
	}
	if name != "" {
		p = append(p, '/')
		p = append(p, name...)
	}
	s.path = p
	return string(p)
}

// keep decides whether a newly opened descriptor may stay open.
func (s *osSource) keep(fd int, dst *int) bool {
	if s.kept >= s.maxKept {
		return false
	}
	s.kept++
	*dst = fd
	return true
}

func (s *osSource) close(fd *int) {
	if *fd >= 0 {
		syscall.Close(*fd)
		s.kept--
		*fd = -1
	}
}

// readDir reads all entries of the directory fd (from offset 0) and
// appends the numeric ones to dst.
func readDirPIDs(fd int, dst []int32, buf *[]byte) ([]int32, error) {
	if _, err := syscall.Seek(fd, 0, 0); err != nil {
		return dst, err
	}
	if cap(*buf) < 32<<10 {
		*buf = make([]byte, 32<<10)
	}
	b := (*buf)[:cap(*buf)]
	for {
		n, err := syscall.Getdents(fd, b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return dst, err
		}
		if n <= 0 {
			return dst, nil
		}
		dst = appendDirentPIDs(dst, b[:n])
	}
}

func (s *osSource) pids(dst []int32, buf *[]byte) ([]int32, error) {
	return readDirPIDs(s.rootFD, dst, buf)
}

func (s *osSource) tasks(e *procEntry, dst []int32, buf *[]byte) ([]int32, error) {
	if e.taskFD < 0 {
		fd, err := s.openat(s.relPath(e.pid, 0, "task"), syscall.O_RDONLY|syscall.O_DIRECTORY)
		if err != nil {
			return dst, err
		}
		dst, err = readDirPIDs(fd, dst, buf)
		if !s.keep(fd, &e.taskFD) {
			syscall.Close(fd)
		}
		return dst, err
	}
	return readDirPIDs(e.taskFD, dst, buf)
}

func (s *osSource) openat(rel string, flags int) (int, error) {
	for {
		fd, err := syscall.Openat(s.rootFD, rel, flags|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return -1, &fs.PathError{Op: "open", Path: s.root + "/" + rel, Err: err}
		}
		return fd, nil
	}
}

// pread reads the whole file at offset 0 into *buf, growing it when full.
func pread(fd int, buf *[]byte) ([]byte, error) {
	if cap(*buf) < 4096 {
		*buf = make([]byte, 4096)
	}
	for {
		b := (*buf)[:cap(*buf)]
		n, err := syscall.Pread(fd, b, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n < len(b) {
			return b[:n], nil
		}
		if len(b) >= maxFileSize {
			return nil, errors.New("file larger than the read limit")
		}
		*buf = make([]byte, 2*len(b))
	}
}

func (s *osSource) read(fd *int, pid, tid int32, kind fileKind, buf *[]byte) ([]byte, error) {
	if *fd >= 0 {
		return pread(*fd, buf)
	}
	nfd, err := s.openat(s.relPath(pid, tid, kind.String()), syscall.O_RDONLY)
	if err != nil {
		return nil, err
	}
	b, err := pread(nfd, buf)
	if err != nil || !s.keep(nfd, fd) {
		syscall.Close(nfd)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s/%s: %w", s.root, s.relPath(pid, tid, kind.String()), err)
	}
	return b, nil
}

func (s *osSource) readRoot(name string, buf *[]byte) ([]byte, error) {
	if name == "stat" && s.statFD >= 0 {
		return pread(s.statFD, buf)
	}
	fd, err := s.openat(name, syscall.O_RDONLY)
	if err != nil {
		return nil, err
	}
	if name == "stat" && s.keep(fd, &s.statFD) {
		return pread(fd, buf)
	}
	defer syscall.Close(fd)
	return pread(fd, buf)
}

// handles counts open descriptors. Since Linux 6.2, stat(2) of /proc/PID/fd
// reports the count as st_size, so one fstat of a kept O_PATH descriptor
// replaces listing the directory. Elsewhere (older kernels, where st_size
// is 0, and fixture trees) a kept directory descriptor is listed.
func (s *osSource) handles(e *procEntry, buf *[]byte) (uint32, error) {
	if e.fdDirFD >= 0 && e.fdDirPath && !s.procfs {
		s.close(&e.fdDirFD) // an O_PATH descriptor cannot be listed
	}
	if e.fdDirFD < 0 {
		e.fdDirPath = s.procfs
		flags := syscall.O_RDONLY | syscall.O_DIRECTORY
		if s.procfs {
			flags = oPath | syscall.O_DIRECTORY
		}
		fd, err := s.openat(s.relPath(e.pid, 0, "fd"), flags)
		if err != nil {
			return 0, err
		}
		if !s.keep(fd, &e.fdDirFD) {
			defer syscall.Close(fd)
			return s.countFDs(fd, e, buf)
		}
	}
	return s.countFDs(e.fdDirFD, e, buf)
}

func (s *osSource) countFDs(fd int, e *procEntry, buf *[]byte) (uint32, error) {
	if s.procfs {
		var st syscall.Stat_t
		if err := syscall.Fstat(fd, &st); err != nil {
			return 0, err
		}
		if st.Size > 0 {
			return uint32(st.Size), nil
		}
		// Zero: no descriptors, or a kernel before 6.2. List to tell.
		dfd, err := s.openat(s.relPath(e.pid, 0, "fd"), syscall.O_RDONLY|syscall.O_DIRECTORY)
		if err != nil {
			return 0, err
		}
		defer syscall.Close(dfd)
		n, err := countDir(dfd, buf)
		if err == nil && n > 0 {
			// The kernel does not report the count: list from now on.
			s.procfs = false
		}
		return uint32(n), err
	}
	n, err := countDir(fd, buf)
	return uint32(n), err
}

// countDir counts the numeric entries of a directory (descriptor numbers).
func countDir(fd int, buf *[]byte) (int, error) {
	if _, err := syscall.Seek(fd, 0, 0); err != nil {
		return 0, err
	}
	if cap(*buf) < 32<<10 {
		*buf = make([]byte, 32<<10)
	}
	b := (*buf)[:cap(*buf)]
	total := 0
	for {
		n, err := syscall.Getdents(fd, b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return total, err
		}
		if n <= 0 {
			return total, nil
		}
		total += countDirentNumbers(b[:n])
	}
}
