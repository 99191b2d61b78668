package system

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"syscall"
	"time"
)

// The process scanner is shared by the Process, Process V2 and Thread
// objects. One scan lists the processes and reads each one's stat; the
// objects then read only the files they need (status, io and the fd count
// for Process, task/TID/{stat,schedstat} for Thread) once per scan. Because
// Thread's ParentObjectInstance is the position of the parent in the
// Process object of the same block, both objects walk the same list.
//
// Every file is read through the ProcReader given to NewProcessObjects. On
// a live host (OpenProc) every file is read with pread at offset 0 on a
// descriptor kept open across samples: a /proc/PID file descriptor stays
// bound to its task, so when the process exits the read fails with ESRCH
// and a recycled pid can never be read through an old descriptor. The
// number of kept descriptors is bounded (RLIMIT_NOFILE less a reserve, see
// OpenProc); past the bound files are opened, read and closed each time.
// With ProcFS (fixture trees in tests) every read opens, reads and closes;
// the parsers are the same.

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

// ProcReader is the one way the built-in objects read /proc: the live tree
// through raw syscalls on descriptors kept across samples (OpenProc), or
// any fs.FS, such as a fixture tree in tests (ProcFS). The parsers see the
// same bytes either way. A Collector reads the host-wide files (stat,
// meminfo, net/dev, ...) through it, and ProcessObjects the per-process
// ones; one ProcReader may serve both. Its methods are not exported: the
// two implementations are the package's own. It is not safe for
// concurrent use.
type ProcReader interface {
	// Close releases the descriptors the reader keeps for itself (the
	// root, host-wide files); ProcessObjects.Close releases those kept
	// for processes.
	Close() error
	// pids appends the numeric entries of the root to dst.
	pids(dst []int32, buf *[]byte) ([]int32, error)
	// processes counts the numeric entries of the root (what pids would
	// list), using buf for a listing when it needs one.
	processes(buf *[]byte) (uint64, error)
	// tasks appends the thread ids of process e to dst.
	tasks(e *procEntry, dst []int32, buf *[]byte) ([]int32, error)
	// read returns the content of a file of process pid, or of its thread
	// tid when tid != 0, in *buf (grown as needed). *fd is a kept descriptor
	// or -1; the source may store a new one there.
	read(fd *int, pid, tid int32, kind fileKind, buf *[]byte) ([]byte, error)
	// readRoot reads a file at the root, such as "stat" or "net/dev".
	readRoot(name string, buf *[]byte) ([]byte, error)
	// handles returns the number of open descriptors of process e.
	handles(e *procEntry, buf *[]byte) (uint32, error)
	// close releases a kept descriptor and sets *fd to -1.
	close(fd *int)
}

// procEntry is one process as last seen, kept across samples while its
// identity (pid and start time) lasts.
type procEntry struct {
	pid   int32
	start uint64 // starttime in USER_HZ ticks after boot
	gen   uint64 // the scan that last saw it

	fds       [numFileKinds]int // kept descriptors for stat, status, io; -1 when none
	taskFD    int               // kept /proc/PID/task directory
	fdDirFD   int               // kept descriptor of /proc/PID/fd
	fdDirPath bool              // fdDirFD was opened O_PATH (fstat only)
	fdDirSeen bool              // the fd directory was counted once (fstatat) for this identity

	comm      [64]byte
	commLen   int
	name      string // Process instance name
	nameV2    string // Process V2 instance name, name:pid
	nameFrom  int    // length of comm the names were made from; -1 none
	longNamed bool   // name came from cmdline because comm was truncated

	st procStat

	detailGen uint64 // scan whose status/io/handles are in mem, io, handles
	mem       procMem
	io        procIO
	handles   uint32
	// Why status, io and the fd directory were not read (readOK: read).
	// Files that failed with "permission denied" or "does not exist" for
	// this identity are not retried every sample (pid 1's io in a
	// container, for example); a process's credentials rarely change.
	statusFail, ioFail, handlesFail readFail

	threadGen uint64 // scan whose threads are in threads
	threads   []threadEntry
	spare     []threadEntry
}

// threadEntry is one thread of a process.
type threadEntry struct {
	tid     int32
	start   uint64
	fdStat  int
	fdSched int
	st      procStat
	csw     uint64
	cswOK   bool // csw was read from schedstat
}

// Consumers of a scan (index into procScanner.used).
const (
	userProcess = iota
	userProcessV2
	userThread
	numScanUsers
)

// maxScanReuse bounds how old a scan may be for a second object to reuse
// it as part of the same sample.
const maxScanReuse = time.Second

// procScanner holds the state of the process objects between samples.
type procScanner struct {
	src     ProcReader
	entries map[int32]*procEntry
	free    []*procEntry
	order   []*procEntry // processes of the current scan, in instance order
	pidBuf  []int32
	tidBuf  []int32
	buf     []byte
	dirBuf  []byte

	gen        uint64
	scanTime   time.Time
	scanSample uint64 // Collector.Sample of the last scan
	used       [numScanUsers]uint64

	idle       cpuIdle
	idleOK     bool
	threadName []string // "0", "1", ... reused as Thread instance names

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

// source returns the scanner's reader.
func (s *procScanner) source() (ProcReader, error) {
	if s.src == nil {
		return nil, errors.New("process scan: no /proc reader")
	}
	if s.entries == nil {
		s.entries = make(map[int32]*procEntry)
	}
	return s.src, nil
}

// Close releases every descriptor kept for processes and threads; the
// reader itself stays open (its owner closes it). The scanner can be used
// again.
func (s *procScanner) Close() {
	for pid, e := range s.entries {
		s.release(e)
		delete(s.entries, pid)
	}
	s.order = s.order[:0]
	s.gen++
}

// acquire makes sure a scan current for user exists: it reuses the last
// scan when another object took it for this sample and it is recent,
// otherwise it scans.
func (s *procScanner) acquire(c *Collector, col Collection, user int) error {
	if col.Seq() != 0 {
		if s.src == nil || s.gen == 0 || s.scanSample != col.Seq() {
			if err := s.scan(c, col); err != nil {
				return err
			}
			s.scanSample = col.Seq()
		}
		s.used[user] = s.gen
		return nil
	}
	if s.src == nil || s.used[user] >= s.gen || c.Now().Sub(s.scanTime) > maxScanReuse || s.gen == 0 {
		if err := s.scan(c, col); err != nil {
			return err
		}
	}
	s.used[user] = s.gen
	return nil
}

// isGone reports an error meaning the process or thread no longer exists.
func isGone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH)
}

// scan lists the processes and reads each one's stat.
func (s *procScanner) scan(c *Collector, col Collection) error {
	src, err := s.source()
	if err != nil {
		return err
	}
	s.gen++
	s.denied, s.vanished = 0, 0
	s.scanTime = c.Now()
	s.order = s.order[:0]
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
				partialf(col, "Process: /proc/%d/stat: %v", pid, err)
			}
			s.drop(e, known)
			continue
		}
		comm, err := parseStat(b, &e.st)
		if err != nil {
			partialf(col, "Process: /proc/%d/stat: %v", pid, err)
			s.drop(e, known)
			continue
		}
		if !fresh && e.st.starttime != e.start {
			// Same pid, another process (possible only on the open/read/close path).
			s.release(e)
			s.reset(e, pid)
			e.fds[fileStat] = -1
		}
		e.start = e.st.starttime
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
		partialf(col, "Process: Idle: %v", err)
	}
	if s.denied > 0 {
		partialf(col, "Process: %d processes skipped: /proc/PID/stat permission denied", s.denied)
	}
	return nil
}

// drop discards an entry that could not be read in this scan. A known
// entry stays in the map with an old gen, so the sweep at the end of the
// scan recycles it.
func (s *procScanner) drop(e *procEntry, known bool) {
	s.release(e)
	if !known {
		s.free = append(s.free, e)
	}
}

// newEntry returns a blank entry for pid, recycled when possible.
func (s *procScanner) newEntry(pid int32) *procEntry {
	var e *procEntry
	if n := len(s.free); n > 0 {
		e = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		e = new(procEntry)
	}
	s.reset(e, pid)
	return e
}

// reset gives e a fresh identity for pid, keeping its slices' capacity.
func (s *procScanner) reset(e *procEntry, pid int32) {
	threads, spare := e.threads[:0], e.spare[:0]
	*e = procEntry{pid: pid, taskFD: -1, fdDirFD: -1, nameFrom: -1, threads: threads, spare: spare}
	for i := range e.fds {
		e.fds[i] = -1
	}
}

// release closes every descriptor kept for e and its threads.
func (s *procScanner) release(e *procEntry) {
	if s.src == nil {
		return
	}
	for i := range e.fds {
		s.src.close(&e.fds[i])
	}
	s.src.close(&e.taskFD)
	s.src.close(&e.fdDirFD)
	for i := range e.threads {
		s.src.close(&e.threads[i].fdStat)
		s.src.close(&e.threads[i].fdSched)
	}
	e.threads = e.threads[:0]
	e.threadGen = 0
}

// commTruncated is the length of a comm the kernel may have cut
// (TASK_COMM_LEN 16 including the NUL).
const commTruncated = 15

// nameEntry derives the instance names of e from its comm. Windows names a
// process by its image name without ".exe"; the Linux analogue is comm
// (what ps and top show), which the kernel truncates to 15 bytes. When comm
// has exactly 15 bytes the basename of argv[0] is used instead if it
// starts with comm, so long executable names are complete. Nothing is
// stripped: Linux executables have no ".exe" to remove.
func (s *procScanner) nameEntry(e *procEntry, src ProcReader) {
	comm := e.comm[:e.commLen]
	name := comm
	e.longNamed = false
	if len(comm) == commTruncated {
		var fd = -1
		if b, err := src.read(&fd, e.pid, 0, fileCmdline, &s.buf); err == nil {
			if base := argv0Base(b); len(base) > len(comm) && string(base[:len(comm)]) == string(comm) {
				name = base
				e.longNamed = true
			}
		}
		src.close(&fd)
	}
	e.name = string(name)
	e.nameV2 = e.name + ":" + strconv.Itoa(int(e.pid))
	e.nameFrom = e.commLen
}

// argv0Base returns the last path element of the first NUL-terminated
// string of a cmdline.
func argv0Base(b []byte) []byte {
	for i, c := range b {
		if c == 0 {
			b = b[:i]
			break
		}
	}
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '/' {
			return b[i+1:]
		}
	}
	return b
}

// readFail says why a per-process file was not read.
type readFail uint8

const (
	readOK        readFail = iota
	readDenied             // permission denied (another user's process)
	readMissing            // the file does not exist (the process is gone, or the kernel lacks it)
	readFailed             // any other error
	readMalformed          // read, but a wanted value is not a number
)

func (f readFail) String() string {
	switch f {
	case readDenied:
		return "permission denied"
	case readMissing:
		return "does not exist"
	case readFailed:
		return "read error"
	case readMalformed:
		return "malformed"
	}
	return "ok"
}

// retry reports whether a file that failed so is read again next scan:
// "permission denied" and "does not exist" last while the process does.
func (f readFail) retry() bool { return f != readDenied && f != readMissing }

// failOf classifies a read error.
func failOf(err error) readFail {
	switch {
	case err == nil:
		return readOK
	case errors.Is(err, fs.ErrPermission):
		return readDenied
	case isGone(err):
		return readMissing
	}
	return readFailed
}

// readDetails reads status, io and the descriptor count of every process
// in the scan, once per scan (Process and Process V2 share them). A file
// that failed with "permission denied" or "does not exist" for this
// process identity is not retried (its failure is kept); the collect
// functions report what is missing.
func (s *procScanner) readDetails() {
	for _, e := range s.order {
		if e.detailGen == s.gen {
			continue
		}
		e.detailGen = s.gen
		if e.statusFail.retry() {
			e.mem = procMem{}
			b, err := s.src.read(&e.fds[fileStatus], e.pid, 0, fileStatus, &s.buf)
			if e.statusFail = failOf(err); err == nil && !parseStatus(b, &e.mem) {
				e.statusFail = readMalformed
			}
		}
		if e.ioFail.retry() {
			e.io = procIO{}
			b, err := s.src.read(&e.fds[fileIO], e.pid, 0, fileIO, &s.buf)
			if e.ioFail = failOf(err); err == nil && !parseIO(b, &e.io) {
				e.ioFail = readMalformed
			}
		}
		if e.handlesFail.retry() {
			n, err := s.src.handles(e, &s.dirBuf)
			e.handles = n
			e.handlesFail = failOf(err)
		}
	}
}

// readThreads lists and reads the threads of every process in the scan,
// once per scan.
func (s *procScanner) readThreads(col Collection) {
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
			for i := range e.threads {
				s.src.close(&e.threads[i].fdStat)
				s.src.close(&e.threads[i].fdSched)
			}
			e.threads = e.threads[:0]
			continue
		}
		orderTIDs(e.pid, s.tidBuf)
		s.mergeThreads(col, e)
	}
	if s.schedBad > 0 {
		partialf(col, "Thread: Context Switches/sec of %d threads unavailable: /proc/%d/task/%d/schedstat line 1 field 3: %q is not a number",
			s.schedBad, s.schedBadPID, s.schedBadTID, s.schedBadText)
	}
	if s.threadErrs > 0 {
		partialf(col, "Thread: %d threads left out: %v", s.threadErrs, s.threadErr)
	}
	if sh, ok := s.src.(shrinker); ok && sh.overKept() > 0 {
		s.shed(sh)
	}
	if s.schedUnread > 0 {
		partialf(col, "Thread: Context Switches/sec of %d threads unavailable: /proc/PID/task/TID/schedstat not readable", s.schedUnread)
	}
}

// mergeThreads matches the tids just listed with the threads kept from the
// last scan (moving their descriptors along), reads each, and closes the
// descriptors of threads that ended.
func (s *procScanner) mergeThreads(col Collection, e *procEntry) {
	old := e.threads
	next := e.spare[:0]
	j := 0
	for _, tid := range s.tidBuf {
		t := threadEntry{tid: tid, fdStat: -1, fdSched: -1}
		// Threads are listed in the same order as last time; a cursor finds
		// them without a map.
		k := -1
		if j < len(old) && old[j].tid == tid {
			k = j
		} else {
			for m := range old {
				if old[m].tid == tid {
					k = m
					break
				}
			}
		}
		if k >= 0 {
			t = old[k]
			old[k].tid, old[k].fdStat, old[k].fdSched = 0, -1, -1
			j = k + 1
		}
		// Read in place: a pointer to a local would escape through the
		// source interface and cost an allocation per thread.
		next = append(next, t)
		nt := &next[len(next)-1]
		if !s.readThread(col, e, nt) {
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
	e.threads = next
}

// shrinker is a reader whose bound on kept descriptors may drop below
// what is kept (it ran out of descriptors: EMFILE).
type shrinker interface {
	overKept() int // how many kept descriptors are over the bound
}

// shed closes thread descriptors, from the last process backwards, until
// the reader is within its bound again; those threads are then read with
// open/read/close, and process files stay kept.
func (s *procScanner) shed(sh shrinker) {
	for i := len(s.order) - 1; i >= 0 && sh.overKept() > 0; i-- {
		e := s.order[i]
		for k := range e.threads {
			s.src.close(&e.threads[k].fdStat)
			s.src.close(&e.threads[k].fdSched)
		}
	}
}

// readThread reads one thread's stat and schedstat; false means it is gone
// or unreadable. A schedstat that cannot be read or parsed leaves
// t.cswOK false (its Context Switches/sec is then unavailable).
func (s *procScanner) readThread(col Collection, e *procEntry, t *threadEntry) bool {
	b, err := s.src.read(&t.fdStat, e.pid, t.tid, fileStat, &s.buf)
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
	if _, err := parseStat(b, &t.st); err != nil {
		partialf(col, "Thread: /proc/%d/task/%d/stat: %v", e.pid, t.tid, err)
		return false
	}
	t.start = t.st.starttime
	t.cswOK = false
	if s.schedstatMissing {
		return true
	}
	b, err = s.src.read(&t.fdSched, e.pid, t.tid, fileSchedstat, &s.buf)
	switch {
	case err == nil:
		if t.csw, t.cswOK = parseSchedstat(b); !t.cswOK {
			if s.schedBad == 0 {
				s.schedBadPID, s.schedBadTID = e.pid, t.tid
				s.schedBadText = append(s.schedBadText[:0], b[:min(len(b), 40)]...)
			}
			s.schedBad++
		}
	case errors.Is(err, fs.ErrNotExist) && e.pid == t.tid:
		// The main thread exists (its stat was just read), so a missing
		// schedstat means the kernel has none.
		s.schedstatMissing = true
	default:
		s.schedUnread++
	}
	return true
}

// threadInstanceName returns "0", "1", ... without allocating after the
// first use of each index.
func (s *procScanner) threadInstanceName(i int) string {
	for len(s.threadName) <= i {
		s.threadName = append(s.threadName, strconv.Itoa(len(s.threadName)))
	}
	return s.threadName[i]
}

// ticksTo100ns converts USER_HZ ticks to 100-nanosecond units.
func ticksTo100ns(ticks uint64, hz int64) uint64 {
	if hz <= 0 {
		hz = DefaultUserHZ
	}
	if 10_000_000%hz == 0 {
		return ticks * uint64(10_000_000/hz)
	}
	return ticks * 10_000_000 / uint64(hz)
}

// startFileTime is the FILETIME at which a task with this starttime
// (USER_HZ ticks after boot) began, given the boot time as FILETIME.
func startFileTime(boot, starttime uint64, hz int64) uint64 {
	return boot + ticksTo100ns(starttime, hz)
}

// basePriority maps a Linux scheduling priority to the Windows base
// priority scale (0..31, normal = 8) by priority class: real-time policies
// (stat "priority" below zero) are REALTIME (24); otherwise nice decides:
// nice >= 10 IDLE (4), 1..9 BELOW_NORMAL (6), 0 NORMAL (8), -1..-9
// ABOVE_NORMAL (10), <= -10 HIGH (13).
func basePriority(priority, nice int64) uint32 {
	switch {
	case priority < 0:
		return 24
	case nice >= 10:
		return 4
	case nice > 0:
		return 6
	case nice == 0:
		return 8
	case nice > -10:
		return 10
	}
	return 13
}

// Windows thread states (KTHREAD_STATE values shown by Thread State).
const (
	threadInitialized = 0
	threadReady       = 1
	threadRunning     = 2
	threadStandby     = 3
	threadTerminated  = 4
	threadWait        = 5
	threadTransition  = 6
	threadUnknown     = 7
)

// threadState maps a Linux task state letter to a Windows thread state.
// Linux R means running or runnable and is reported as Running; every kind
// of sleep or stop (S, D, I, T, t, P) is Wait, as a suspended or blocked
// Windows thread is; zombies and dead tasks (Z, X, x) are Terminated;
// W (waking, kernels 2.6.33-3.13) is Ready.
func threadState(c byte) uint32 {
	switch c {
	case 'R':
		return threadRunning
	case 'S', 'D', 'I', 'T', 't', 'P', 'K':
		return threadWait
	case 'Z', 'X', 'x':
		return threadTerminated
	case 'W':
		return threadReady
	}
	return threadUnknown
}
