package procscan

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/perfcounters/perfcounters/proctext"
)

// A Scanner is shared by the Process, Process V2 and Thread objects of
// package system. One scan lists the processes and reads each one's stat;
// the objects then read only the files they need (status, io and the fd
// count for Process, task/TID/{stat,schedstat} for Thread) once per scan.
// Because Thread's ParentObjectInstance is the position of the parent in
// the Process object of the same block, both objects walk the same list.
//
// Every file is read through the Reader given to NewScanner. On a live
// host (Open) every file is read with pread at offset 0 on a descriptor
// kept open across samples: a /proc/PID file descriptor stays bound to
// its task, so when the process exits the read fails with ESRCH and a
// recycled pid can never be read through an old descriptor. The number of
// kept descriptors is bounded (Options.MaxKept); past the bound files are
// opened, read and closed each time. With FS (fixture trees in tests)
// every read opens, reads and closes; the parsers are the same.

// fileKind names a per-process or per-thread file.
type fileKind uint8

const (
	fileStat fileKind = iota
	fileStatus
	fileIO
	fileSchedstat
	fileCmdline
	numFileKinds
)

func (k fileKind) String() string {
	switch k {
	case fileStat:
		return "stat"
	case fileStatus:
		return "status"
	case fileIO:
		return "io"
	case fileSchedstat:
		return "schedstat"
	case fileCmdline:
		return "cmdline"
	}
	return "file" + strconv.Itoa(int(k))
}

// source is how a Reader reads: the live tree through raw syscalls on
// descriptors kept across samples (osSource), or an fs.FS (fsSource).
type source interface {
	Close() error
	// pids appends the numeric entries of the root to dst.
	pids(dst []int32, buf *[]byte) ([]int32, error)
	// processes counts the numeric entries of the root (what pids would
	// list), using buf for a listing when it needs one.
	processes(buf *[]byte) (uint64, error)
	// tasks appends the thread ids of process e to dst.
	tasks(e *Process, dst []int32, buf *[]byte) ([]int32, error)
	// read returns the content of a file of process pid, or of its thread
	// tid when tid != 0, in *buf (grown as needed). *fd is a kept descriptor
	// or -1; the source may store a new one there.
	read(fd *int, pid, tid int32, kind fileKind, buf *[]byte) ([]byte, error)
	// readHead reads at most n bytes from the start of a file of process
	// pid into *buf, opening and closing it (no descriptor is kept): what
	// a name needs of a file another user fills (cmdline), never more.
	readHead(pid int32, kind fileKind, n int, buf *[]byte) ([]byte, error)
	// readRoot reads a file at the root, such as "stat" or "net/dev".
	readRoot(name string, buf *[]byte) ([]byte, error)
	// handles returns the number of open descriptors of process e.
	handles(e *Process, buf *[]byte) (uint32, error)
	// close releases a kept descriptor and sets *fd to -1.
	close(fd *int)
	// keptCount is the number of descriptors kept open.
	keptCount() int
}

// Reader is the one way the built-in objects read /proc: the live tree
// through raw syscalls on descriptors kept across samples (Open), or any
// fs.FS, such as a fixture tree in tests (FS). The parsers see the same
// bytes either way. package system's Collector reads the host-wide files
// (stat, meminfo, net/dev, ...) through it, and a Scanner the
// per-process ones; one Reader may serve both. It is not safe for
// concurrent use.
type Reader struct {
	src source
}

// FS returns a Reader over fsys, a tree laid out as /proc (a fixture
// directory in tests, os.DirFS of a copied tree): every read opens, reads
// and closes, and descriptor counts are the entries of PID/fd.
func FS(fsys fs.FS) *Reader { return &Reader{src: &fsSource{fsys: fsys}} }

// Close releases the descriptors the Reader keeps for itself (the root,
// host-wide files); Scanner.Close releases those kept for processes.
func (r *Reader) Close() error { return r.src.Close() }

// ReadFile reads a file at the root, such as "stat" or "net/dev", into
// *buf (grown as needed) and returns its content, valid until the next
// read into *buf. On a live tree the file's descriptor is kept.
func (r *Reader) ReadFile(name string, buf *[]byte) ([]byte, error) {
	return r.src.readRoot(name, buf)
}

// Processes counts the process entries of the root, using *buf for a
// listing when it needs one (on procfs, mostly one fstat; see Open).
func (r *Reader) Processes(buf *[]byte) (uint64, error) { return r.src.processes(buf) }

// Kept returns the number of descriptors the Reader holds open: its own
// and those kept for the processes and threads of Scanners over it.
func (r *Reader) Kept() int { return r.src.keptCount() }

// Process is one process as last seen by a Scanner, kept across scans
// while its identity (pid and start time) lasts. The exported fields are
// what the scan read; they are valid until the next scan and must not be
// changed by the caller.
type Process struct {
	PID    int32
	Name   string // instance name: comm, completed from argv[0] when the kernel truncated it
	NameV2 string // Process V2 instance name, name:pid
	Stat   Stat   // /proc/PID/stat

	// Mem, IO and Handles are valid after ReadDetails: the memory lines
	// of /proc/PID/status, /proc/PID/io and the number of open
	// descriptors. StatusFail, IOFail and HandlesFail say why each was
	// not read (ReadOK: read). Files that failed with "permission denied"
	// or "does not exist" for this identity are not retried every scan
	// (pid 1's io in a container, for example); a process's credentials
	// rarely change.
	Mem                             Mem
	IO                              IO
	Handles                         uint32
	StatusFail, IOFail, HandlesFail ReadFail

	// Threads are valid after ReadThreads, main thread first, then by
	// thread id.
	Threads []Thread

	start uint64 // starttime in USER_HZ ticks after boot
	gen   uint64 // the scan that last saw it

	fds       [numFileKinds]int // kept descriptors for stat, status, io; -1 when none
	taskFD    int               // kept /proc/PID/task directory
	fdDirFD   int               // kept descriptor of /proc/PID/fd
	fdDirPath bool              // fdDirFD was opened O_PATH (fstat only)
	fdDirSeen bool              // the fd directory was counted once (fstatat) for this identity

	comm      [64]byte
	commLen   int
	nameFrom  int  // length of comm the names were made from; -1 none
	longNamed bool // name came from cmdline because comm was truncated

	detailGen [3]uint64 // per Details bit: the scan whose status, io, handles are in Mem, IO, Handles
	threadGen uint64    // scan whose threads are in Threads
	spare     []Thread
}

// Thread is one thread of a process, as read by Scanner.ReadThreads.
type Thread struct {
	TID   int32
	Start uint64 // starttime in USER_HZ ticks after boot
	Stat  Stat   // /proc/PID/task/TID/stat
	CSw   uint64 // times switched onto a CPU (schedstat field 3)
	CSwOK bool   // CSw was read from schedstat

	fdStat  int
	fdSched int
}

// Scanner holds the state of the process objects between samples: the
// processes last seen, with the descriptors kept for them. It is not safe
// for concurrent use.
type Scanner struct {
	src     source
	entries map[int32]*Process
	free    []*Process
	order   []*Process // processes of the current scan, in instance order
	pidBuf  []int32
	tidBuf  []int32
	buf     []byte
	dirBuf  []byte

	gen uint64

	idle   cpuIdle
	idleOK bool

	schedstatMissing bool // the kernel has no schedstat (CONFIG_SCHED_INFO off)
	// Threads of the last scan whose schedstat was malformed (the first
	// one's ids and text kept for the reason) or not readable.
	schedBad, schedUnread    int
	schedBadPID, schedBadTID int32
	schedBadText             []byte
	threadErrs               int   // threads of the last scan not read for another reason than their end
	threadErr                error // the first such error

	// Per-scan counts of processes skipped (reported through the Collection).
	denied   int
	vanished int
}

// NewScanner returns a Scanner reading through r. The caller closes r
// after Scanner.Close.
func NewScanner(r *Reader) *Scanner {
	return &Scanner{src: r.src, entries: make(map[int32]*Process)}
}

// Gen counts the scans: it changes with every Scan and Close.
func (s *Scanner) Gen() uint64 { return s.gen }

// Processes returns the processes of the last scan in instance order
// (ascending pid). The slice and its elements are valid until the next
// Scan or Close.
func (s *Scanner) Processes() []*Process { return s.order }

// Idle returns the idle time (idle + iowait, USER_HZ ticks) of each
// processor and their sum, as /proc/stat gave them at the last scan; ok
// is false when it could not be read.
func (s *Scanner) Idle() (perCPU []uint64, total uint64, ok bool) {
	return s.idle.perCPU, s.idle.total, s.idleOK
}

// Vanished returns how many processes of the last scan ended between
// the listing and the read of their stat (they are left out).
func (s *Scanner) Vanished() int { return s.vanished }

// SchedstatMissing reports that the kernel has no
// /proc/PID/task/TID/schedstat (CONFIG_SCHED_INFO is off): no thread has
// a context switch count.
func (s *Scanner) SchedstatMissing() bool { return s.schedstatMissing }

// Close releases every descriptor kept for processes and threads; the
// Reader itself stays open (its owner closes it). The scanner can be used
// again.
func (s *Scanner) Close() {
	for pid, e := range s.entries {
		s.release(e)
		delete(s.entries, pid)
	}
	s.order = s.order[:0]
	s.gen++
}

// isGone reports an error meaning the process or thread no longer exists.
func isGone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH)
}

// Scan lists the processes and reads each one's stat, and /proc/stat
// for the idle time. What could not be read is left out and reported
// through report (which may be nil), one reason at a time, naming the
// file; an error means the root could not be listed.
func (s *Scanner) Scan(report func(reason string)) error {
	src := s.src
	if src == nil {
		return errors.New("process scan: no /proc reader")
	}
	s.gen++
	s.denied, s.vanished = 0, 0
	s.order = s.order[:0]
	var err error
	s.pidBuf, err = src.pids(s.pidBuf[:0], &s.dirBuf)
	if err != nil {
		return fmt.Errorf("process scan: list processes: %w", err)
	}
	// /proc lists pids in ascending order already (then this is linear);
	// fixture trees on other file systems may not.
	slices.Sort(s.pidBuf)
	for _, pid := range s.pidBuf {
		e := s.entries[pid]
		known := e != nil // in s.entries
		fresh := !known   // no identity yet
		if fresh {
			e = s.newEntry(pid)
		}
		b, err := src.read(&e.fds[fileStat], pid, 0, fileStat, &s.buf)
		if err != nil && !fresh {
			// The kept descriptor belonged to an exited process (the pid
			// may have been reused): start over with a fresh identity.
			s.release(e)
			s.reset(e, pid)
			fresh = true
			b, err = src.read(&e.fds[fileStat], pid, 0, fileStat, &s.buf)
		}
		if err != nil {
			if errors.Is(err, fs.ErrPermission) {
				s.denied++
			} else if isGone(err) {
				s.vanished++
			} else {
				reportf(report, "Process: /proc/%d/stat: %v", pid, err)
			}
			s.drop(e, known)
			continue
		}
		comm, err := parseStat(b, &e.Stat)
		if err != nil {
			reportf(report, "Process: /proc/%d/stat: %v", pid, err)
			s.drop(e, known)
			continue
		}
		if !fresh && e.Stat.StartTime != e.start {
			// Same pid, another process (possible only on the open/read/close path).
			s.release(e)
			s.reset(e, pid)
			e.fds[fileStat] = -1
		}
		e.start = e.Stat.StartTime
		if e.nameFrom < 0 || string(comm) != string(e.comm[:e.commLen]) {
			e.commLen = copy(e.comm[:], comm)
			s.nameEntry(e, src)
		}
		e.gen = s.gen
		if !known {
			s.entries[pid] = e
		}
		s.order = append(s.order, e)
	}
	// Forget processes that are gone.
	for pid, e := range s.entries {
		if e.gen != s.gen {
			s.release(e)
			delete(s.entries, pid)
			s.free = append(s.free, e)
		}
	}
	b, err := src.readRoot("stat", &s.buf)
	if err == nil {
		err = parseProcStatIdle(b, &s.idle)
	}
	s.idleOK = err == nil
	if err != nil {
		reportf(report, "Process: Idle: %v", err)
	}
	if s.denied > 0 {
		reportf(report, "Process: %d processes skipped: /proc/PID/stat permission denied", s.denied)
	}
	return nil
}

// drop discards an entry that could not be read in this scan. A known
// entry stays in the map with an old gen, so the sweep at the end of the
// scan recycles it.
func (s *Scanner) drop(e *Process, known bool) {
	s.release(e)
	if !known {
		s.free = append(s.free, e)
	}
}

// newEntry returns a blank entry for pid, recycled when possible.
func (s *Scanner) newEntry(pid int32) *Process {
	var e *Process
	if n := len(s.free); n > 0 {
		e = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		e = new(Process)
	}
	s.reset(e, pid)
	return e
}

// reset gives e a fresh identity for pid, keeping its slices' capacity.
func (s *Scanner) reset(e *Process, pid int32) {
	threads, spare := e.Threads[:0], e.spare[:0]
	*e = Process{PID: pid, taskFD: -1, fdDirFD: -1, nameFrom: -1, Threads: threads, spare: spare}
	for i := range e.fds {
		e.fds[i] = -1
	}
}

// release closes every descriptor kept for e and its threads.
func (s *Scanner) release(e *Process) {
	if s.src == nil {
		return
	}
	for i := range e.fds {
		s.src.close(&e.fds[i])
	}
	s.src.close(&e.taskFD)
	s.src.close(&e.fdDirFD)
	for i := range e.Threads {
		s.src.close(&e.Threads[i].fdStat)
		s.src.close(&e.Threads[i].fdSched)
	}
	e.Threads = e.Threads[:0]
	e.threadGen = 0
}

// commTruncated is the length of a comm the kernel may have cut
// (TASK_COMM_LEN 16 including the NUL).
const commTruncated = 15

// Bounds of a process's instance name taken from its command line.
const (
	// MaxArgv0Name bounds the name taken from argv[0]'s base name, in
	// bytes: NAME_MAX, the longest file name, which an executable's
	// name is. A longer base name (argv[0] is whatever the process's
	// parent chose, up to 128 KiB) is cut to it on a rune boundary.
	MaxArgv0Name = 255
	// cmdlineHead is how much of /proc/PID/cmdline is read for the name:
	// PATH_MAX, the longest path execve takes. An argv[0] that does not
	// end within it is no path of an executable, and the process keeps
	// comm as its name.
	cmdlineHead = 4096
)

// reservedSuffix is appended to the name of a process named as a
// reserved instance: Windows' "#1" of the first duplicate, with the '_'
// Windows providers write for a '#' in a name (a '#' would read as a
// duplicate index in a counter path). The process named _Total is
// \Process(_Total_1); \Process(_Total) is always the sum.
const reservedSuffix = "_1"

// Reserved reports whether name is an instance name Windows gives to
// what is not a process: Idle (the processors' idle time, PID 0), _Total
// (the sum of every instance) and _Global_ (the aggregate of a counter
// set's instances), in any case, as counter paths name instances. No
// process is ever given one.
func Reserved(name string) bool {
	return strings.EqualFold(name, "_Total") || strings.EqualFold(name, "_Global_") || strings.EqualFold(name, "Idle")
}

// nameEntry derives the instance names of e from its comm. Windows names a
// process by its image name without ".exe"; the Linux analogue is comm
// (what ps and top show), which the kernel truncates to 15 bytes. When comm
// has exactly 15 bytes the basename of argv[0] is used instead if it
// starts with comm, so long executable names are complete; at most
// cmdlineHead bytes of the command line are read for it, and the name
// taken is at most MaxArgv0Name bytes. Nothing is stripped: Linux
// executables have no ".exe" to remove. A process whose name is reserved
// (Reserved) gets reservedSuffix.
func (s *Scanner) nameEntry(e *Process, src source) {
	comm := e.comm[:e.commLen]
	name := comm
	e.longNamed = false
	if len(comm) == commTruncated {
		if b, err := src.readHead(e.PID, fileCmdline, cmdlineHead, &s.buf); err == nil {
			if base, ok := argv0Base(b, cmdlineHead); ok && len(base) > len(comm) && string(base[:len(comm)]) == string(comm) {
				name = proctext.CutName(base, MaxArgv0Name)
				e.longNamed = true
			}
		}
	}
	e.Name = string(name)
	if Reserved(e.Name) {
		e.Name += reservedSuffix
	}
	e.NameV2 = e.Name + ":" + strconv.Itoa(int(e.PID))
	e.nameFrom = e.commLen
}

// argv0Base returns the last path element of the first NUL-terminated
// string of a cmdline read up to head bytes; ok is false when the first
// string does not end within what was read and the read filled head
// (argv[0] is longer than head).
func argv0Base(b []byte, head int) (base []byte, ok bool) {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	} else if len(b) >= head {
		return nil, false
	}
	if i := bytes.LastIndexByte(b, '/'); i >= 0 {
		return b[i+1:], true
	}
	return b, true
}

// ReadFail says why a per-process file was not read.
type ReadFail uint8

const (
	ReadOK        ReadFail = iota // read
	ReadDenied                    // permission denied (another user's process)
	ReadMissing                   // the file does not exist (the process is gone, or the kernel lacks it)
	ReadFailed                    // any other error
	ReadMalformed                 // read, but a wanted value is not a number
)

// String gives the cause as a reason says it: "permission denied", ...
func (f ReadFail) String() string {
	switch f {
	case ReadDenied:
		return "permission denied"
	case ReadMissing:
		return "does not exist"
	case ReadFailed:
		return "read error"
	case ReadMalformed:
		return "malformed"
	}
	return "ok"
}

// retry reports whether a file that failed so is read again next scan:
// "permission denied" and "does not exist" last while the process does.
func (f ReadFail) retry() bool { return f != ReadDenied && f != ReadMissing }

// failOf classifies a read error.
func failOf(err error) ReadFail {
	switch {
	case err == nil:
		return ReadOK
	case errors.Is(err, fs.ErrPermission):
		return ReadDenied
	case isGone(err):
		return ReadMissing
	}
	return ReadFailed
}

// Details names the files of a process beyond stat that ReadDetails
// reads: a caller reads only what its counters need.
type Details uint8

// The files ReadDetails can read.
const (
	DetailStatus  Details = 1 << iota // status: Mem
	DetailIO                          // io: IO
	DetailHandles                     // the fd directory: Handles
	AllDetails    = DetailStatus | DetailIO | DetailHandles
)

// ReadDetails reads the files want names (status, io, the descriptor
// count) of every process of the last scan, each once per scan (Process
// and Process V2 share them). A file that failed with "permission denied"
// or "does not exist" for this process identity is not retried (its
// failure is kept); the collect functions report what is missing. What
// want leaves out keeps its value of an earlier scan: a caller must not
// show it.
func (s *Scanner) ReadDetails(want Details) {
	for _, e := range s.order {
		status := want&DetailStatus != 0 && e.detailGen[0] != s.gen
		io := want&DetailIO != 0 && e.detailGen[1] != s.gen
		handles := want&DetailHandles != 0 && e.detailGen[2] != s.gen
		if status {
			e.detailGen[0] = s.gen
		}
		if io {
			e.detailGen[1] = s.gen
		}
		if handles {
			e.detailGen[2] = s.gen
		}
		if status && e.StatusFail.retry() {
			e.Mem = Mem{}
			b, err := s.src.read(&e.fds[fileStatus], e.PID, 0, fileStatus, &s.buf)
			if e.StatusFail = failOf(err); err == nil && !parseStatus(b, &e.Mem) {
				e.StatusFail = ReadMalformed
			}
		}
		if io && e.IOFail.retry() {
			e.IO = IO{}
			b, err := s.src.read(&e.fds[fileIO], e.PID, 0, fileIO, &s.buf)
			if e.IOFail = failOf(err); err == nil && !parseIO(b, &e.IO) {
				e.IOFail = ReadMalformed
			}
		}
		if handles && e.HandlesFail.retry() {
			n, err := s.src.handles(e, &s.dirBuf)
			e.Handles = n
			e.HandlesFail = failOf(err)
		}
	}
}

// ReadThreads lists and reads the threads of every process of the last
// scan, once per scan, and reports through report (which may be nil)
// the threads it had to leave out or could read only in part.
func (s *Scanner) ReadThreads(report func(reason string)) {
	s.schedBad, s.schedUnread, s.threadErrs, s.threadErr = 0, 0, 0, nil
	for _, e := range s.order {
		if e.threadGen == s.gen {
			continue
		}
		e.threadGen = s.gen
		var err error
		s.tidBuf, err = s.src.tasks(e, s.tidBuf[:0], &s.dirBuf)
		if err != nil {
			// Gone, or unreadable: the process keeps its Process instance
			// and simply has no Thread instances.
			for i := range e.Threads {
				s.src.close(&e.Threads[i].fdStat)
				s.src.close(&e.Threads[i].fdSched)
			}
			e.Threads = e.Threads[:0]
			continue
		}
		orderTIDs(e.PID, s.tidBuf)
		s.mergeThreads(report, e)
	}
	if s.schedBad > 0 {
		reportf(report, "Thread: Context Switches/sec of %d threads unavailable: /proc/%d/task/%d/schedstat line 1 field 3: %q is not a number",
			s.schedBad, s.schedBadPID, s.schedBadTID, s.schedBadText)
	}
	if s.threadErrs > 0 {
		reportf(report, "Thread: %d threads left out: %v", s.threadErrs, s.threadErr)
	}
	if sh, ok := s.src.(shrinker); ok && sh.overKept() > 0 {
		s.shed(sh)
	}
	if s.schedUnread > 0 {
		reportf(report, "Thread: Context Switches/sec of %d threads unavailable: /proc/PID/task/TID/schedstat not readable", s.schedUnread)
	}
}

// mergeThreads matches the tids just listed with the threads kept from the
// last scan (moving their descriptors along), reads each, and closes the
// descriptors of threads that ended.
func (s *Scanner) mergeThreads(report func(string), e *Process) {
	old := e.Threads
	next := e.spare[:0]
	j := 0
	for _, tid := range s.tidBuf {
		t := Thread{TID: tid, fdStat: -1, fdSched: -1}
		// Threads are listed in the same order as last time; a cursor finds
		// them without a map.
		k := -1
		if j < len(old) && old[j].TID == tid {
			k = j
		} else {
			for m := range old {
				if old[m].TID == tid {
					k = m
					break
				}
			}
		}
		if k >= 0 {
			t = old[k]
			old[k].TID, old[k].fdStat, old[k].fdSched = 0, -1, -1
			j = k + 1
		}
		// Read in place: a pointer to a local would escape through the
		// source interface and cost an allocation per thread.
		next = append(next, t)
		nt := &next[len(next)-1]
		if !s.readThread(report, e, nt) {
			s.src.close(&nt.fdStat)
			s.src.close(&nt.fdSched)
			next = next[:len(next)-1]
		}
	}
	for m := range old {
		s.src.close(&old[m].fdStat)
		s.src.close(&old[m].fdSched)
	}
	e.spare = old[:0]
	e.Threads = next
}

// shrinker is a reader whose bound on kept descriptors may drop below
// what is kept (it ran out of descriptors: EMFILE).
type shrinker interface {
	overKept() int // how many kept descriptors are over the bound
}

// shed closes thread descriptors, from the last process backwards, until
// the reader is within its bound again; those threads are then read with
// open/read/close, and process files stay kept.
func (s *Scanner) shed(sh shrinker) {
	for i := len(s.order) - 1; i >= 0 && sh.overKept() > 0; i-- {
		e := s.order[i]
		for k := range e.Threads {
			s.src.close(&e.Threads[k].fdStat)
			s.src.close(&e.Threads[k].fdSched)
		}
	}
}

// readThread reads one thread's stat and schedstat; false means it is gone
// or unreadable. A schedstat that cannot be read or parsed leaves
// t.CSwOK false (its Context Switches/sec is then unavailable).
func (s *Scanner) readThread(report func(string), e *Process, t *Thread) bool {
	b, err := s.src.read(&t.fdStat, e.PID, t.TID, fileStat, &s.buf)
	if err != nil {
		if !isGone(err) {
			// Out of descriptors, say: the thread exists but is not
			// shown, and the sample must say so.
			if s.threadErrs == 0 {
				s.threadErr = err
			}
			s.threadErrs++
		}
		return false
	}
	if _, err := parseStat(b, &t.Stat); err != nil {
		reportf(report, "Thread: /proc/%d/task/%d/stat: %v", e.PID, t.TID, err)
		return false
	}
	t.Start = t.Stat.StartTime
	t.CSwOK = false
	if s.schedstatMissing {
		return true
	}
	b, err = s.src.read(&t.fdSched, e.PID, t.TID, fileSchedstat, &s.buf)
	switch {
	case err == nil:
		if t.CSw, t.CSwOK = parseSchedstat(b); !t.CSwOK {
			if s.schedBad == 0 {
				s.schedBadPID, s.schedBadTID = e.PID, t.TID
				s.schedBadText = append(s.schedBadText[:0], b[:min(len(b), 40)]...)
			}
			s.schedBad++
		}
	case errors.Is(err, fs.ErrNotExist) && e.PID == t.TID:
		// The main thread exists (its stat was just read), so a missing
		// schedstat means the kernel has none.
		s.schedstatMissing = true
	default:
		s.schedUnread++
	}
	return true
}

// reportf gives report a formatted reason, if there is a report.
func reportf(report func(string), format string, args ...any) {
	if report != nil {
		report(fmt.Sprintf(format, args...))
	}
}
