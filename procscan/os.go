package procscan

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"syscall"
	"unsafe"

	"github.com/perfcounters/perfcounters/proctext"
	"golang.org/x/sys/unix"
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
	root     string
	rootFD   int
	kept     int
	maxKept  int
	elastic  bool   // maxKept follows RLIMIT_NOFILE (not fixed by the caller)
	mayRaise bool   // Options.RaiseLimit: the program lets the reader raise RLIMIT_NOFILE
	raised   bool   // a raise of the limit was tried
	path     []byte // NUL-terminated path of the last open, reused
	rootKept map[string]int
	procfs   bool // root is a procfs mount, whose fd directories report their count as st_size
	count    procCount
}

// procSuperMagic is PROC_SUPER_MAGIC, statfs(2)'s f_type of procfs.
const procSuperMagic = 0x9fa0

// Options are the program's decisions about a live Reader: how many
// descriptors to keep open across samples, and whether the process-wide
// descriptor limit may be raised. The zero value keeps a bound sized from
// RLIMIT_NOFILE and never changes the limit.
type Options struct {
	// MaxKept bounds the descriptors kept open across samples; past it,
	// files are opened, read and closed each time. 0 sizes it from
	// RLIMIT_NOFILE: the soft limit (Go raises it to the hard limit at
	// start) less a reserve for the rest of the program (an eighth of the
	// limit, at least 256). Negative keeps none: every read opens, reads
	// and closes, which is what a one-shot read should do.
	MaxKept int
	// RaiseLimit lets the Reader raise the process's RLIMIT_NOFILE, soft
	// and hard, once, up to fs.nr_open, when a scan needs more
	// descriptors than the bound sized from it (MaxKept 0). The change is
	// process-wide, so only a program may ask for it; the kernel allows it
	// only a privileged process (CAP_SYS_RESOURCE), and elsewhere the
	// bound stays. Default false: the limit is never touched.
	RaiseLimit bool
}

// Open opens the /proc tree at root for reading with raw syscalls: every
// file is opened relative to the root descriptor and read with pread at
// offset 0 on a descriptor kept across samples, up to opts.MaxKept of
// them (past that, files are opened, read and closed each time). A kept
// /proc/PID descriptor stays bound to its task, so a recycled pid is never
// read through an old one. When a scan needs more than the bound, process
// files are kept first (they are read before the threads').
func Open(root string, opts Options) (*Reader, error) {
	s, err := newOSSource(root, opts)
	if err != nil {
		return nil, err
	}
	return &Reader{src: s}, nil
}

func newOSSource(root string, opts Options) (*osSource, error) {
	fd, err := syscall.Open(root, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: root, Err: err}
	}
	s := &osSource{root: root, rootFD: fd, maxKept: max(opts.MaxKept, 0), mayRaise: opts.RaiseLimit, rootKept: make(map[string]int)}
	if opts.MaxKept == 0 {
		s.elastic = true
		s.maxKept = keptBudget()
	}
	var sfs syscall.Statfs_t
	s.procfs = syscall.Fstatfs(fd, &sfs) == nil && sfs.Type == procSuperMagic
	return s, nil
}

// keptBudget is the soft RLIMIT_NOFILE less the reserve.
func keptBudget() int {
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) != nil || rl.Cur < 2*defaultMaxKept {
		return defaultMaxKept
	}
	cur := min(rl.Cur, 1<<24)
	return int(cur - max(cur/8, keptReserveMin))
}

// keptReserveMin is the least number of descriptors left to the rest of
// the program under RLIMIT_NOFILE.
const keptReserveMin = 256

func (s *osSource) keptCount() int { return s.kept }

// overKept reports how many kept descriptors exceed the bound.
func (s *osSource) overKept() int { return s.kept - s.maxKept }

// raiseLimit tries once to raise RLIMIT_NOFILE to fs.nr_open (soft and
// hard), and widens the bound when the kernel allows it.
func (s *osSource) raiseLimit() {
	s.raised = true
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) != nil {
		return
	}
	want := uint64(1 << 20)
	if b, err := s.readRootOnce("sys/fs/nr_open"); err == nil {
		if n, ok := proctext.ParseUint(proctext.TrimSpace(b)); ok {
			want = n
		}
	}
	if want <= rl.Cur {
		return
	}
	if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: want, Max: max(want, rl.Max)}) == nil {
		s.maxKept = keptBudget()
	}
}

// Close releases the root and the host-wide files kept open.
func (s *osSource) Close() error {
	for name, fd := range s.rootKept {
		s.close(&fd)
		delete(s.rootKept, name)
	}
	if s.rootFD >= 0 {
		syscall.Close(s.rootFD)
		s.rootFD = -1
	}
	return nil
}

// relPath builds "PID/task/TID/name" (or "PID/name") relative to the root,
// NUL-terminated for openat, in s.path.
func (s *osSource) relPath(pid, tid int32, name string) []byte {
	p := strconv.AppendInt(s.path[:0], int64(pid), 10)
	if tid != 0 {
		p = append(p, "/task/"...)
		p = strconv.AppendInt(p, int64(tid), 10)
	}
	if name != "" {
		p = append(p, '/')
		p = append(p, name...)
	}
	s.path = append(p, 0)
	return s.path
}

// rootPath makes name NUL-terminated in s.path.
func (s *osSource) rootPath(name string) []byte {
	s.path = append(append(s.path[:0], name...), 0)
	return s.path
}

// keep decides whether a newly opened descriptor may stay open.
func (s *osSource) keep(fd int, dst *int) bool {
	if s.kept >= s.maxKept && s.elastic && s.mayRaise && !s.raised {
		s.raiseLimit()
	}
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

// readDirents reads all entries of the directory fd from offset 0 into
// buf (grown to 32 KiB) and hands each block of dirents to f.
func readDirents(fd int, buf *[]byte, f func(dirents []byte)) error {
	if _, err := syscall.Seek(fd, 0, 0); err != nil {
		return err
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
			return err
		}
		if n <= 0 {
			return nil
		}
		f(b[:n])
	}
}

// readDirPIDs reads all entries of the directory fd (from offset 0) and
// appends the numeric ones to dst.
func readDirPIDs(fd int, dst []int32, buf *[]byte) ([]int32, error) {
	err := readDirents(fd, buf, func(d []byte) { dst = appendDirentPIDs(dst, d) })
	return dst, err
}

func (s *osSource) pids(dst []int32, buf *[]byte) ([]int32, error) {
	return readDirPIDs(s.rootFD, dst, buf)
}

// procCount is how osSource counts processes: from the link count of the
// procfs root where a listing has shown that it follows the listing.
type procCount struct {
	offset uint64 // st_nlink of the root less its process entries, as verified
	known  bool   // offset verified by a listing whose link count held still
	since  int    // counts from the link count since the last listing
	misses int    // verifying listings in a row that disagreed
}

// Bounds of procCount: a listing verifies the offset every verifyEvery
// counts; after maxMisses disagreeing listings in a row every count lists.
const (
	verifyEvery = 64
	maxMisses   = 8
)

// processes counts the process entries of the root. Listing /proc costs
// the kernel a dentry lookup per process, which at hundreds of processes
// is most of a System sample. procfs gives the same count for one fstat:
// the root's link count is 2 plus its other subdirectories (proc_root's
// nlink) plus nr_processes(), the thread-group leaders of the host
// (fs/proc/root.c, proc_root_getattr), which are the entries a listing
// shows when /proc is in the host's pid namespace and hides none
// (hidepid). So a listing, with an fstat before and after, measures the
// offset (the directories that are not processes, "." and ".." counted)
// and checks that link count = process entries + other directories; only
// then do later counts take the link count less the offset, and a listing
// every verifyEvery counts checks it again (a module may add a directory
// to /proc, a remount may hide processes). Where the check fails — a pid
// namespace of its own, hidepid, another file system — every count lists.
func (s *osSource) processes(buf *[]byte) (uint64, error) {
	c := &s.count
	if s.procfs && c.known && c.since < verifyEvery {
		var st syscall.Stat_t
		if err := syscall.Fstat(s.rootFD, &st); err == nil && uint64(st.Nlink) >= c.offset {
			c.since++
			return uint64(st.Nlink) - c.offset, nil
		}
	}
	c.since = 0
	check := s.procfs && c.misses < maxMisses
	var before, after syscall.Stat_t
	if check && syscall.Fstat(s.rootFD, &before) != nil {
		check = false
	}
	procs, dirs, err := listProcs(s.rootFD, buf)
	if err != nil {
		return 0, err
	}
	if check && syscall.Fstat(s.rootFD, &after) == nil && before.Nlink == after.Nlink {
		c.offset, c.known = verifyCount(uint64(after.Nlink), procs, dirs)
		if c.known {
			c.misses = 0
		} else {
			c.misses++
		}
	} else {
		c.known = false
	}
	return procs, nil
}

// verifyCount reports whether a directory's link count equals its process
// entries plus its other directories, as a listing counted them while
// the link count held still, and if so the offset from the link count to
// the process count.
func verifyCount(nlink, procs, dirs uint64) (offset uint64, ok bool) {
	if nlink != procs+dirs {
		return 0, false
	}
	return dirs, true
}

// listProcs lists the directory fd from offset 0 and counts its process
// entries and its other directories.
func listProcs(fd int, buf *[]byte) (procs, dirs uint64, err error) {
	err = readDirents(fd, buf, func(b []byte) {
		p, d := countDirentProcs(b)
		procs += uint64(p)
		dirs += uint64(d)
	})
	return procs, dirs, err
}

func (s *osSource) tasks(e *Process, dst []int32, buf *[]byte) ([]int32, error) {
	if e.taskFD < 0 {
		fd, err := s.openat(s.relPath(e.PID, 0, "task"), syscall.O_RDONLY|syscall.O_DIRECTORY)
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

// openat opens the NUL-terminated path rel (s.path) relative to the root
// without allocating: syscall.Openat would copy the path each time.
func (s *osSource) openat(rel []byte, flags int) (int, error) {
	for {
		fd, _, errno := syscall.Syscall6(syscall.SYS_OPENAT, uintptr(s.rootFD), uintptr(unsafe.Pointer(&rel[0])),
			uintptr(flags|syscall.O_CLOEXEC), 0, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno == syscall.EMFILE || errno == syscall.ENFILE {
			// The rest of the program needs descriptors too: keep fewer
			// from now on (the scanner sheds the excess).
			s.maxKept = max(s.kept-keptReserveMin, 0)
		}
		if errno != 0 {
			return -1, &fs.PathError{Op: "open", Path: s.root + "/" + string(rel[:len(rel)-1]), Err: errno}
		}
		return int(fd), nil
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
		p := s.relPath(pid, tid, kind.String())
		return nil, fmt.Errorf("read %s/%s: %w", s.root, p[:len(p)-1], err)
	}
	return b, nil
}

// readHead reads at most n bytes from the start of a file of pid, on a
// descriptor opened and closed for it.
func (s *osSource) readHead(pid int32, kind fileKind, n int, buf *[]byte) ([]byte, error) {
	fd, err := s.openat(s.relPath(pid, 0, kind.String()), syscall.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	if cap(*buf) < n {
		*buf = make([]byte, n)
	}
	b := (*buf)[:n]
	got := 0
	for got < n {
		k, err := syscall.Pread(fd, b[got:], int64(got))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			p := s.relPath(pid, 0, kind.String())
			return nil, fmt.Errorf("read %s/%s: %w", s.root, p[:len(p)-1], err)
		}
		if k == 0 {
			break
		}
		got += k
	}
	return b[:got], nil
}

// readRoot reads a host-wide file (stat, meminfo, net/dev, ...) with pread
// on a descriptor kept for it. The names are the package's constants, a
// handful, so the map stays small and its lookups allocate nothing.
func (s *osSource) readRoot(name string, buf *[]byte) ([]byte, error) {
	if fd, ok := s.rootKept[name]; ok {
		b, err := pread(fd, buf)
		if err == nil {
			return b, nil
		}
		s.close(&fd)
		delete(s.rootKept, name)
	}
	fd, err := s.openat(s.rootPath(name), syscall.O_RDONLY)
	if err != nil {
		return nil, err
	}
	b, err := pread(fd, buf)
	if err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("read %s/%s: %w", s.root, name, err)
	}
	var kept int
	if s.keep(fd, &kept) {
		s.rootKept[name] = kept
	} else {
		syscall.Close(fd)
	}
	return b, nil
}

// readRootOnce reads a file of the root without keeping it.
func (s *osSource) readRootOnce(name string) ([]byte, error) {
	fd, err := s.openat(s.rootPath(name), syscall.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var buf []byte
	return pread(fd, &buf)
}

// handles counts open descriptors. Since Linux 6.2, stat(2) of /proc/PID/fd
// reports the count as st_size, so one fstat of a kept O_PATH descriptor
// replaces listing the directory. Elsewhere (older kernels, where st_size
// is 0, and fixture trees) a kept directory descriptor is listed.
func (s *osSource) handles(e *Process, buf *[]byte) (uint32, error) {
	if e.fdDirFD >= 0 && e.fdDirPath && !s.procfs {
		s.close(&e.fdDirFD) // an O_PATH descriptor cannot be listed
	}
	if e.fdDirFD < 0 && s.procfs && !e.fdDirSeen {
		// First sight of this process: one fstatat instead of open, fstat
		// (and close at the end), so that a one-shot query costs no more
		// than the files it reads. From the next scan on, the descriptor
		// is kept.
		e.fdDirSeen = true
		p := s.relPath(e.PID, 0, "fd")
		var st unix.Stat_t
		if err := unix.Fstatat(s.rootFD, string(p[:len(p)-1]), &st, 0); err != nil {
			return 0, &fs.PathError{Op: "stat", Path: s.root + "/" + string(p[:len(p)-1]), Err: err}
		}
		if st.Size > 0 {
			return uint32(st.Size), nil
		}
	}
	if e.fdDirFD < 0 {
		e.fdDirPath = s.procfs
		flags := syscall.O_RDONLY | syscall.O_DIRECTORY
		if s.procfs {
			flags = oPath | syscall.O_DIRECTORY
		}
		fd, err := s.openat(s.relPath(e.PID, 0, "fd"), flags)
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

func (s *osSource) countFDs(fd int, e *Process, buf *[]byte) (uint32, error) {
	if s.procfs {
		var st syscall.Stat_t
		if err := syscall.Fstat(fd, &st); err != nil {
			return 0, err
		}
		if st.Size > 0 {
			return uint32(st.Size), nil
		}
		// Zero: no descriptors, or a kernel before 6.2. List to tell.
		dfd, err := s.openat(s.relPath(e.PID, 0, "fd"), syscall.O_RDONLY|syscall.O_DIRECTORY)
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
	total := 0
	err := readDirents(fd, buf, func(b []byte) { total += countDirentNumbers(b) })
	return total, err
}
