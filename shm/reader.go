package shm

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/countertype"
)

// SegmentSnapshot is what one live segment held at a scan.
type SegmentSnapshot struct {
	Path         string // segment file
	UID          uint32 // the publisher: owner of the segment's directory and file
	ProviderGUID string
	PID          uint32 // owner process
	StartTime    uint64 // owner start time, clock ticks after boot
	Sets         []SetSnapshot
}

// SetSnapshot is one counter set of a segment: its definition as the
// provider declared it and its live instances.
type SetSnapshot struct {
	Set       *counterset.Set // Counters[i] describes Values[i] of every instance
	Instances []InstanceSnapshot
}

// InstanceSnapshot is one live instance and its raw values, one per
// counter of the set, in definition order. Sharded counters are summed;
// 4-byte counters are reduced to their low 32 bits.
type InstanceSnapshot struct {
	Name   string
	ID     uint32
	Values []uint64
}

// SegmentError says why a segment's data was left out of a scan.
type SegmentError struct {
	Path   string
	Reason string
	Err    error // underlying error, if any
}

func (e *SegmentError) Error() string {
	if e.Err != nil {
		return "shm: segment " + e.Path + ": " + e.Reason + ": " + e.Err.Error()
	}
	return "shm: segment " + e.Path + ": " + e.Reason
}

func (e *SegmentError) Unwrap() error { return e.Err }

// Scanner collects every segment of the trusted per-user directories
// under a base directory (SECURITY.md). It keeps each segment mapped
// read-only between scans and reuses its buffers, so the slices a Scan
// returns stay valid only until the next Scan or Close. It holds no file
// descriptor between scans and at most three during one (the base, one
// user directory, one segment). A Scanner is not safe for concurrent use.
type Scanner struct {
	base string
	myNS uint64
	segs map[string]*mapped
	out  []SegmentSnapshot
	errs []error
	hdr  [headerSize]byte

	// Scratch reused across scans.
	dirBuf          []byte
	dirs, segNames  []string
	perUser, segsOf map[uint32]int
	pathBuf         []byte
}

// mapped is one segment file kept mapped between scans.
type mapped struct {
	path     string
	mem      []byte
	dev, ino uint64
	size     int64
	alloc    uint64 // bytes the file's owner has allocated (st_blocks), at this scan
	seen     bool

	// Immutable once published: sets are append-only.
	sets               []*counterset.Set
	blockSize          []uint64
	setCount, ctrCount uint64
	guid               string

	names    []nameEntry // per instance slot
	vals     []uint64
	insts    [][]InstanceSnapshot // per set
	where    []uint64             // per instance slot: set<<32 | index+1 in insts, 0 when not live
	setSnaps []SetSnapshot
}

type nameEntry struct {
	serial, off, n uint32
	s              string
	good           []uint64 // last consistent values of a block with multi-value updates
}

// NewScanner returns a Scanner of the segment directories under base
// (DefaultDir when empty).
func NewScanner(base string) *Scanner {
	if base == "" {
		base = DefaultDir
	}
	return &Scanner{base: base, myNS: pidNamespace(), segs: map[string]*mapped{},
		dirBuf: make([]byte, 8192), perUser: map[uint32]int{}, segsOf: map[uint32]int{}}
}

// Scan is a one-shot NewScanner(base).Scan followed by Close; the
// snapshots it returns are the caller's.
func Scan(base string) ([]SegmentSnapshot, []error) {
	s := NewScanner(base)
	defer s.Close()
	return s.Scan()
}

// Close unmaps every segment.
func (s *Scanner) Close() {
	for k, m := range s.segs {
		m.unmap()
		delete(s.segs, k)
	}
}

func (m *mapped) unmap() {
	if m.mem != nil {
		unix.Munmap(m.mem)
		m.mem = nil
	}
}

// Scan reads every live segment of the trusted user directories. A
// directory or segment that is not trusted, cannot be read, fails
// validation, exceeds the reader's bounds or changes too fast to copy
// consistently is left out and reported in the errors; a segment proven to
// belong to an owner that has exited is removed (when the directory allows
// it) and left out silently, or reported when it cannot be removed. An
// error for which IsResourceError holds means the reader ran out of a
// resource: what it lists may be incomplete.
func (s *Scanner) Scan() ([]SegmentSnapshot, []error) {
	s.out = s.out[:0]
	s.errs = s.errs[:0]
	for _, m := range s.segs {
		m.seen = false
	}
	s.scanBase()
	for k, m := range s.segs {
		if !m.seen {
			m.unmap()
			delete(s.segs, k)
		}
	}
	return s.out, s.errs
}

func (s *Scanner) scanBase() {
	baseFD, err := openBase(s.base, false)
	if err != nil {
		if !errors.Is(err, unix.ENOENT) {
			s.errs = append(s.errs, fmt.Errorf("shm: scan: %w", err))
		}
		return
	}
	defer unix.Close(baseFD)
	if err := checkDirFD(baseFD, s.base); err != nil {
		// Providers refuse to publish here (unless told to accept a disk,
		// as tests do): say so, or a reader of this base would show no V2
		// counter without a word why. What is here is still read.
		s.errs = append(s.errs, fmt.Errorf("%w; V2 providers refuse to publish there, so their counters are not read from it (set PERFC_SHM_DIR to a directory on tmpfs, such as /dev/shm)", err))
	}
	// Only directories whose owner is the uid in their name count toward
	// the bounds (checked again on the opened descriptor below), so that
	// nobody can crowd another user's directories out by creating names;
	// the untrusted ones are reported, a bounded number of them.
	perUser, segsOf := s.perUser, s.segsOf // directories, segments per uid
	clear(perUser)
	clear(segsOf)
	var untrusted []error
	dropped, perUserExcess := 0, 0
	keep := func(n string) bool {
		uid, _, ok := parseUserDir(n)
		if !ok {
			return false
		}
		var st unix.Stat_t
		if err := unix.Fstatat(baseFD, n, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return false
		}
		if err := checkUserDir(filepath.Join(s.base, n), &st, uid); err != nil {
			if st.Mode&unix.S_IFMT == unix.S_IFLNK {
				err = &TrustError{Path: filepath.Join(s.base, n), Reason: "a symbolic link", Fix: "remove it as root: rm " + filepath.Join(s.base, n)}
			}
			if len(untrusted) < maxReported {
				untrusted = append(untrusted, fmt.Errorf("shm: %w", err))
			} else {
				dropped++
			}
			return false
		}
		if perUser[uid] >= maxDirsPerUser {
			perUserExcess++
			return false
		}
		perUser[uid]++
		return true
	}
	dirs, excess, err := readDirNames(baseFD, s.base, keep, maxUserDirs, s.dirBuf, s.dirs[:0])
	s.dirs = dirs
	if err != nil {
		s.errs = append(s.errs, fmt.Errorf("shm: scan: %w", err))
	}
	s.errs = append(s.errs, untrusted...)
	if dropped > 0 {
		s.errs = append(s.errs, fmt.Errorf("shm: scan %s: %d more untrusted segment directories not listed", s.base, dropped))
	}
	if perUserExcess > 0 {
		s.errs = append(s.errs, fmt.Errorf("shm: scan %s: %d segment directories left out: at most %d are read per user", s.base, perUserExcess, maxDirsPerUser))
	}
	if excess > 0 {
		s.errs = append(s.errs, fmt.Errorf("shm: scan %s: %d segment directories beyond the first %d left out", s.base, excess, maxUserDirs))
	}
	// A user's own name first, then its fallbacks, in a stable order.
	slices.SortFunc(dirs, func(a, b string) int {
		ua, fa, _ := parseUserDir(a)
		ub, fb, _ := parseUserDir(b)
		if ua != ub {
			return cmp.Compare(ua, ub)
		}
		if fa != fb {
			if fa {
				return 1
			}
			return -1
		}
		return strings.Compare(a, b)
	})
	total := 0
	for _, name := range dirs {
		uid, _, _ := parseUserDir(name)
		path := filepath.Join(s.base, name)
		fd, err := openUserDir(baseFD, path, name, uid)
		if err != nil {
			if !errors.Is(err, unix.ENOENT) {
				s.errs = append(s.errs, fmt.Errorf("shm: %w", err))
			}
			continue
		}
		room := min(maxSegsPerUser-segsOf[uid], maxSegments-total)
		names, excess, err := readDirNames(fd, path, isSegmentName, max(room, 0), s.dirBuf, s.segNames[:0])
		s.segNames = names
		if err != nil {
			s.errs = append(s.errs, fmt.Errorf("shm: %w", err))
		}
		if excess > 0 {
			s.errs = append(s.errs, &SegmentError{Path: path, Reason: fmt.Sprintf("%d segments left out: at most %d are read per user and %d in all", excess, maxSegsPerUser, maxSegments)})
		}
		segsOf[uid] += len(names)
		total += len(names)
		for _, n := range names {
			s.scanOne(fd, path, n, uid)
		}
		unix.Close(fd)
	}
}

func isSegmentName(n string) bool {
	return strings.HasSuffix(n, fileSuffix) && !strings.HasPrefix(n, ".")
}

func (s *Scanner) drop(key string, m *mapped) {
	if m != nil {
		m.unmap()
	}
	delete(s.segs, key)
}

func (s *Scanner) fail(path, reason string, err error) {
	s.errs = append(s.errs, &SegmentError{Path: path, Reason: reason, Err: err})
}

// scanOne reads the segment name of the directory dirFD (path dirPath),
// whose owner is uid. The file is opened without following links and
// checked on the descriptor: a regular file owned by uid, within the size
// bounds. The descriptor is closed before scanOne returns.
func (s *Scanner) scanOne(dirFD int, dirPath, name string, uid uint32) {
	s.pathBuf = append(append(append(s.pathBuf[:0], dirPath...), '/'), name...)
	m := s.segs[string(s.pathBuf)] // no allocation for the lookup
	var path string
	if m != nil {
		path = m.path
	} else {
		path = dirPath + "/" + name
	}
	fd, err := unix.Openat(dirFD, name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if err != nil {
		s.drop(path, m)
		switch {
		case errors.Is(err, unix.ENOENT): // removed since the listing
		case errors.Is(err, unix.ELOOP):
			s.fail(path, "refused: a symbolic link", nil)
		case errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM):
			s.fail(path, "skipped: no permission to read it", err)
		case IsResourceError(err):
			s.fail(path, "not read: out of resources", err)
		default:
			s.fail(path, "skipped", err)
		}
		return
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		s.drop(path, m)
		s.fail(path, "skipped", err)
		return
	}
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		s.drop(path, m)
		s.fail(path, "refused: not a regular file", nil)
		return
	case st.Uid != uid:
		s.drop(path, m)
		s.fail(path, fmt.Sprintf("refused: owned by uid %d in the directory of uid %d", st.Uid, uid), nil)
		return
	case st.Size < headerSize || st.Size > MaxFileSize:
		s.drop(path, m)
		s.fail(path, fmt.Sprintf("refused: size %d outside %d..%d", st.Size, headerSize, MaxFileSize), nil)
		return
	}
	if m != nil && (m.dev != uint64(st.Dev) || m.ino != st.Ino || m.size != st.Size) {
		s.drop(path, m)
		m = nil
	}
	fresh := m == nil
	if fresh {
		mem, err := unix.Mmap(fd, 0, int(st.Size), unix.PROT_READ, unix.MAP_SHARED)
		if err != nil {
			if IsResourceError(err) {
				s.fail(path, "not read: out of resources", err)
			} else {
				s.fail(path, "skipped: cannot map it", err)
			}
			return
		}
		m = &mapped{path: path, mem: mem, dev: uint64(st.Dev), ino: st.Ino, size: st.Size}
		s.segs[path] = m
	}
	m.seen = true
	m.alloc = uint64(st.Blocks) * 512
	if why := provenDead(fd, &st, uid); why != "" {
		s.drop(path, m)
		err := unix.Unlinkat(dirFD, name, 0)
		if err != nil && !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.EACCES) && !errors.Is(err, unix.EPERM) {
			s.fail(path, "stale segment ("+why+") not removed", err)
		}
		return // another user's dead segment stays until its owner or root removes it
	}
	pid, start, ns := m.owner()
	myNS := s.myNS
	if !fresh {
		myNS = 0 // while the lock is held the owner cannot have been replaced
	}
	if why := ownerGone(pid, start, ns, myNS); why != "" {
		s.drop(path, m)
		return
	}
	snap, err := s.read(m)
	if err != nil {
		s.drop(path, m)
		s.fail(path, "data dropped", err)
		return
	}
	snap.Path = path
	snap.UID = uid
	snap.PID, snap.StartTime = pid, start
	s.out = append(s.out, snap)
}

// owner reads the owner fields of the header, tolerating a truncated file.
func (m *mapped) owner() (pid uint32, start, ns uint64) {
	err := guard(func() error {
		pid = uint32(loadWord(m.mem, hdrOwnerPID)) // low half of the word at 32
		start = loadWord(m.mem, hdrOwnerStart)
		ns = loadWord(m.mem, hdrPIDNS)
		return nil
	})
	if err != nil {
		return 0, 0, 0
	}
	return pid, start, ns
}

// guard runs f with faults on bad memory turned into panics, and turns
// such a panic (a segment truncated under us raises SIGBUS) into an error.
// Other panics are bugs and are not hidden.
func guard(f func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			if fe, ok := r.(interface{ Addr() uintptr }); ok {
				err = fmt.Errorf("memory fault at 0x%x reading the mapping (file truncated under the reader?)", fe.Addr())
				return
			}
			panic(r)
		}
	}()
	return f()
}

// maxRetries bounds how often a reader restarts a copy that a writer's
// table change overlapped, before giving up on the segment for this scan.
const maxRetries = 64

func (s *Scanner) read(m *mapped) (SegmentSnapshot, error) {
	var snap SegmentSnapshot
	err := guard(func() error {
		var err error
		for try := 0; try < maxRetries; try++ {
			var retry bool
			snap, retry, err = s.readOnce(m)
			if err != nil || !retry {
				return err
			}
			runtime.Gosched()
		}
		return errors.New("generation in flux: the tables kept changing while being copied")
	})
	return snap, err
}

// header holds the decoded, validated header fields.
type header struct {
	gen                        uint64
	setOff, setCap, setCount   uint64
	ctrOff, ctrCap, ctrCount   uint64
	instOff, instCap, instHigh uint64
	shOff, shCap, shHigh       uint64
	heapOff, heapSize          uint64
	guid                       string
}

// FormatError describes a structural fault in a segment.
type FormatError struct {
	Offset uint64
	Field  string
	Value  uint64
	Reason string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("offset %d: %s = %d: %s", e.Offset, e.Field, e.Value, e.Reason)
}

func ferr(off uint64, field string, v uint64, reason string) error {
	return &FormatError{Offset: off, Field: field, Value: v, Reason: reason}
}

// parseHeader validates a copied header against the mapping length.
func parseHeader(h []byte, size uint64) (header, error) {
	var x header
	if string(h[:8]) != string(magic[:]) {
		return x, ferr(hdrMagic, "magic", le.Uint64(h), "not a perfc segment")
	}
	if v := le.Uint32(h[hdrVersion:]); v != Version {
		return x, ferr(hdrVersion, "version", uint64(v), fmt.Sprintf("want %d", Version))
	}
	if v := le.Uint32(h[hdrHeaderSize:]); v != headerSize {
		return x, ferr(hdrHeaderSize, "header size", uint64(v), fmt.Sprintf("want %d", headerSize))
	}
	if v := le.Uint64(h[hdrFileSize:]); v != size {
		return x, ferr(hdrFileSize, "file size", v, fmt.Sprintf("the file is %d bytes", size))
	}
	x.gen = le.Uint64(h[hdrGen:])
	sec := func(at uint64, name string, rec uint64) (off, cp, cnt uint64, err error) {
		off = uint64(le.Uint32(h[at:]))
		cp = uint64(le.Uint32(h[at+4:]))
		cnt = uint64(le.Uint32(h[at+8:]))
		switch {
		case off < headerSize || off%8 != 0:
			return 0, 0, 0, ferr(at, name+" offset", off, "not an 8-aligned offset after the header")
		case off+cp*rec > size:
			return 0, 0, 0, ferr(at+4, name+" capacity", cp, fmt.Sprintf("table would end at %d, past the file's %d bytes", off+cp*rec, size))
		case cnt > cp:
			return 0, 0, 0, ferr(at+8, name+" count", cnt, fmt.Sprintf("exceeds capacity %d", cp))
		}
		return off, cp, cnt, nil
	}
	var err error
	if x.setOff, x.setCap, x.setCount, err = sec(hdrSetOff, "set table", setRecSize); err != nil {
		return x, err
	}
	if x.ctrOff, x.ctrCap, x.ctrCount, err = sec(hdrCtrOff, "counter table", ctrRecSize); err != nil {
		return x, err
	}
	if x.instOff, x.instCap, x.instHigh, err = sec(hdrInstOff, "instance table", instRecSize); err != nil {
		return x, err
	}
	if x.shOff, x.shCap, x.shHigh, err = sec(hdrShardOff, "shard table", shardRecSize); err != nil {
		return x, err
	}
	x.heapOff = uint64(le.Uint32(h[hdrHeapOff:]))
	x.heapSize = uint64(le.Uint32(h[hdrHeapSize:]))
	if x.heapOff < headerSize || x.heapOff%cacheLine != 0 || x.heapOff+x.heapSize > size {
		return x, ferr(hdrHeapOff, "heap offset", x.heapOff, fmt.Sprintf("heap of %d bytes does not fit a %d-byte file on a 64-byte boundary", x.heapSize, size))
	}
	// The tables and the heap may not overlap: a garbled segment that
	// points several at the same bytes could otherwise make records alias.
	type region struct {
		at         uint64
		name       string
		start, end uint64
	}
	regions := []region{
		{hdrSetOff, "set table", x.setOff, x.setOff + x.setCap*setRecSize},
		{hdrCtrOff, "counter table", x.ctrOff, x.ctrOff + x.ctrCap*ctrRecSize},
		{hdrInstOff, "instance table", x.instOff, x.instOff + x.instCap*instRecSize},
		{hdrShardOff, "shard table", x.shOff, x.shOff + x.shCap*shardRecSize},
		{hdrHeapOff, "heap", x.heapOff, x.heapOff + x.heapSize},
	}
	for i, a := range regions {
		for _, b := range regions[i+1:] {
			if a.start < b.end && b.start < a.end {
				return x, ferr(b.at, b.name+" offset", b.start, fmt.Sprintf("overlaps the %s (%d..%d)", a.name, a.start, a.end))
			}
		}
	}
	// What a reader copies is bounded whatever the writer claims.
	for _, c := range []struct {
		at       uint64
		name     string
		n, limit uint64
	}{
		{hdrSetOff + 8, "set count", x.setCount, maxReadSets},
		{hdrCtrOff + 8, "counter count", x.ctrCount, maxReadCounters},
		{hdrInstOff + 8, "instance high-water count", x.instHigh, maxReadInstances},
		{hdrShardOff + 8, "shard high-water count", x.shHigh, maxReadShards},
	} {
		if c.n > c.limit {
			return x, ferr(c.at, c.name, c.n, fmt.Sprintf("more than a reader reads (%d)", c.limit))
		}
	}
	gl := uint64(le.Uint32(h[hdrGUIDLen:]))
	if gl == 0 || gl > maxGUIDLen {
		return x, ferr(hdrGUIDLen, "guid length", gl, fmt.Sprintf("want 1..%d", maxGUIDLen))
	}
	x.guid = string(h[hdrGUID : hdrGUID+gl])
	return x, nil
}

// readOnce copies the tables and values once; retry is true when a
// writer's table change overlapped the copy.
func (s *Scanner) readOnce(m *mapped) (snap SegmentSnapshot, retry bool, err error) {
	mem := m.mem
	size := uint64(len(mem))
	g1 := loadWord(mem, hdrGen)
	if g1 == 0 {
		return snap, false, ferr(hdrGen, "generation", 0, "segment never published")
	}
	if g1&1 != 0 {
		return snap, true, nil
	}
	copyWords(s.hdr[:], mem, 0)
	if loadWord(mem, hdrGen) != g1 {
		return snap, true, nil
	}
	h, err := parseHeader(s.hdr[:], size)
	if err != nil {
		return snap, false, err
	}
	heapEnd := h.heapOff + h.heapSize
	// The reader's cost is bounded: what it copies from the heap (strings,
	// values, shards) may not exceed maxReadHeap, the heap itself, nor —
	// with the tables it reads — what the segment's owner really allocated
	// (plus a small slack), so a sparse file that costs its creator nothing
	// cannot make a consumer fault its holes in.
	tables := uint64(headerSize) + h.setCount*setRecSize + h.ctrCount*ctrRecSize + h.instHigh*instRecSize + h.shHigh*shardRecSize
	if tables > m.alloc+allocSlack {
		return snap, false, ferr(hdrInstOff+8, "table counts", tables, fmt.Sprintf("the tables claim %d bytes but the file has only %d bytes allocated", tables, m.alloc))
	}
	budget := min(uint64(maxReadHeap), h.heapSize, m.alloc+allocSlack-tables)
	spend := func(off, n uint64, what string) error {
		if n > budget {
			return ferr(off, what, n, fmt.Sprintf("the segment makes the reader copy more than its bound (%d bytes of heap, at most %d, and no more than the file has allocated)", min(uint64(maxReadHeap), h.heapSize, m.alloc+allocSlack-tables), maxReadHeap))
		}
		budget -= n
		return nil
	}
	str := func(off, n uint64, what string) (string, error) {
		if n == 0 {
			return "", nil
		}
		if err := spend(off, align(n, 8), what); err != nil {
			return "", err
		}
		if n > maxNameLen || off%8 != 0 || off < h.heapOff || off+align(n, 8) > heapEnd {
			return "", ferr(off, what, n, "string outside the heap, misaligned or too long")
		}
		b := make([]byte, align(n, 8))
		copyWords(b, mem, off)
		return string(b[:n]), nil
	}

	// Set and counter definitions: cached while the counts are unchanged.
	if m.sets == nil || h.setCount != m.setCount || h.ctrCount != m.ctrCount || h.guid != m.guid {
		sets, bsz, err := s.readSets(m, &h, str)
		if err != nil {
			return snap, false, err
		}
		if loadWord(mem, hdrGen) != g1 {
			return snap, true, nil
		}
		m.sets, m.blockSize, m.setCount, m.ctrCount, m.guid = sets, bsz, h.setCount, h.ctrCount, h.guid
	}
	nsets := len(m.sets)
	if cap(m.insts) < nsets {
		m.insts = make([][]InstanceSnapshot, nsets)
		m.setSnaps = make([]SetSnapshot, nsets)
	}
	m.insts = m.insts[:nsets]
	for i := range m.insts {
		m.insts[i] = m.insts[i][:0]
	}

	// Instance table: each record is read on its own and kept only if
	// its first word (state and serial) is the same after its name and
	// values were copied; a record that keeps changing is skipped.
	if uint64(len(m.names)) < h.instHigh {
		m.names = append(m.names, make([]nameEntry, h.instHigh-uint64(len(m.names)))...)
		m.where = append(m.where, make([]uint64, h.instHigh-uint64(len(m.where)))...)
	}
	clear(m.where)
	m.vals = m.vals[:0]
	for slot := uint64(0); slot < h.instHigh; slot++ {
		roff := h.instOff + slot*instRecSize
		for try := 0; try < pairTries; try++ {
			w0 := loadWord(mem, roff)
			if uint32(w0) != StateLive {
				break
			}
			w1, w2, w3 := loadWord(mem, roff+8), loadWord(mem, roff+16), loadWord(mem, roff+24)
			si, id := w1&0xFFFFFFFF, uint32(w1>>32)
			if si >= uint64(nsets) {
				return snap, false, ferr(roff+instSet, "instance set index", si, fmt.Sprintf("only %d sets", nsets))
			}
			nc := uint64(len(m.sets[si].Counters))
			boff := w3 & 0xFFFFFFFF
			if boff%8 != 0 || boff < h.heapOff || boff+m.blockSize[si] > heapEnd {
				return snap, false, ferr(roff+instBlockOff, "instance value block", boff, "outside the heap or misaligned")
			}
			if err := spend(boff, nc*8, "instance values"); err != nil {
				return snap, false, err
			}
			serial, noff, nlen := uint32(w0>>32), uint32(w2), uint32(w2>>32)
			ne := &m.names[slot]
			if ne.serial != serial || ne.off != noff || ne.n != nlen || ne.s == "" && nlen != 0 {
				name, err := str(uint64(noff), uint64(nlen), "instance name")
				if err != nil {
					return snap, false, err
				}
				*ne = nameEntry{serial: serial, off: noff, n: nlen, s: name, good: ne.good[:0]}
			}
			if uint64(cap(m.vals)-len(m.vals)) < nc {
				// Earlier snapshots keep the old array; this one starts anew.
				m.vals = make([]uint64, 0, max(2*cap(m.vals), int(nc), 64))
			}
			vi := len(m.vals)
			m.vals = m.vals[:vi+int(nc)]
			vals := m.vals[vi : vi+int(nc) : vi+int(nc)]
			ok, multi := readValues(mem, boff, vals)
			if loadWord(mem, roff) != w0 {
				m.vals = m.vals[:vi]
				continue // changed under us: read it again
			}
			if ok && multi {
				ne.good = append(ne.good[:0], vals...)
			} else if !ok {
				if len(ne.good) != len(vals) {
					// Never consistent since it appeared: leave the
					// instance out of this sample rather than show a
					// torn pair.
					m.vals = m.vals[:vi]
					break
				}
				copy(vals, ne.good) // the last consistent copy
			}
			m.insts[si] = append(m.insts[si], InstanceSnapshot{Name: ne.s, ID: id, Values: vals})
			m.where[slot] = si<<32 | uint64(len(m.insts[si]))
			break
		}
	}

	// Shards: add each live shard set to its counter, under the same
	// per-record protocol (first word: state and version).
	for i := uint64(0); i < h.shHigh; i++ {
		at := h.shOff + i*shardRecSize
		w0 := loadWord(mem, at)
		if uint32(w0) != StateLive {
			continue
		}
		w1, w2, w3 := loadWord(mem, at+8), loadWord(mem, at+16), loadWord(mem, at+24)
		slot, serial := w1&0xFFFFFFFF, uint32(w1>>32)
		ci, off := w2&0xFFFFFFFF, w2>>32
		n := w3 & 0xFFFFFFFF
		if n == 0 || n > maxShardsPerCtr || n&(n-1) != 0 {
			return snap, false, ferr(at+shardCount, "shard count", n, "want a power of two up to 256")
		}
		if off%cacheLine != 0 || off < h.heapOff || off+n*cacheLine > heapEnd {
			return snap, false, ferr(at+shardOff, "shard block", off, "outside the heap or not on a cache line")
		}
		if slot >= h.instHigh || m.where[slot] == 0 || m.names[slot].serial != serial {
			continue // belongs to an instance no longer live
		}
		if err := spend(off, n*cacheLine, "shard block"); err != nil {
			return snap, false, err
		}
		w := m.where[slot]
		inst := &m.insts[w>>32][w&0xFFFFFFFF-1]
		if ci >= uint64(len(inst.Values)) {
			return snap, false, ferr(at+shardCtr, "shard counter index", ci, fmt.Sprintf("instance has %d counters", len(inst.Values)))
		}
		var sum uint64
		for k := uint64(0); k < n; k++ {
			sum += loadWord(mem, off+k*cacheLine)
		}
		if loadWord(mem, at) == w0 {
			inst.Values[ci] += sum
		}
	}
	for si, set := range m.sets {
		for c := range set.Counters {
			if set.Counters[c].ValueSize() == 4 {
				for i := range m.insts[si] {
					m.insts[si][i].Values[c] &= 0xFFFFFFFF
				}
			}
		}
	}
	snap.ProviderGUID = h.guid
	m.setSnaps = m.setSnaps[:nsets]
	for i, set := range m.sets {
		m.setSnaps[i] = SetSnapshot{Set: set, Instances: m.insts[i]}
	}
	snap.Sets = m.setSnaps
	return snap, false, nil
}

// pairTries bounds how often a reader re-reads a block that multi-value
// updates keep overlapping. After that the reader falls back to the last
// consistent copy of the block (see nameEntry.good) and never returns a
// torn fraction/base or timer/timestamp pair.
const pairTries = 64

// readValues copies an instance's values; the pair word at the start of
// the block tells whether a multi-value update overlapped the copy. It
// reports whether the copy is consistent and whether the block has ever
// seen a multi-value update (a non-zero pair word).
func readValues(mem []byte, boff uint64, vals []uint64) (ok, multi bool) {
	for try := 0; try < pairTries; try++ {
		p1 := loadWord(mem, boff)
		for i := range vals {
			vals[i] = loadWord(mem, boff+8+uint64(i)*8)
		}
		if p1>>32 == 0 && loadWord(mem, boff) == p1 {
			return true, p1 != 0
		}
		if try >= 4 {
			runtime.Gosched() // let an in-process writer finish its pair
		}
	}
	return false, true
}

func (s *Scanner) readSets(m *mapped, h *header, str func(off, n uint64, what string) (string, error)) ([]*counterset.Set, []uint64, error) {
	sb := make([]byte, h.setCount*setRecSize)
	copyWords(sb, m.mem, h.setOff)
	cb := make([]byte, h.ctrCount*ctrRecSize)
	copyWords(cb, m.mem, h.ctrOff)
	sets := make([]*counterset.Set, 0, h.setCount)
	bsz := make([]uint64, 0, h.setCount)
	total := uint64(0)
	for i := uint64(0); i < h.setCount; i++ {
		r := sb[i*setRecSize:]
		at := h.setOff + i*setRecSize
		u := func(f int) uint64 { return uint64(le.Uint32(r[f:])) }
		first, n, bs := u(setFirstCtr), u(setNumCtr), u(setBlockSize)
		if n > maxSetCounters || first+n > h.ctrCount {
			return nil, nil, ferr(at+setNumCtr, "set counter count", n, fmt.Sprintf("counters %d..%d outside the %d published", first, first+n, h.ctrCount))
		}
		if total += n; total > h.ctrCount {
			return nil, nil, ferr(at+setNumCtr, "set counter count", n, "sets claim more counters than published")
		}
		if bs%8 != 0 || bs < (n+1)*8 || bs > align((n+1)*8, cacheLine) {
			return nil, nil, ferr(at+setBlockSize, "set value block size", bs, fmt.Sprintf("want %d..%d", (n+1)*8, align((n+1)*8, cacheLine)))
		}
		set := &counterset.Set{Instancing: counterset.Instancing(u(setInstancing)), DetailLevel: uint32(u(setDetail)), DefaultCounter: -1}
		var err error
		if set.GUID, err = str(u(setGUIDOff), u(setGUIDLen), "set guid"); err != nil {
			return nil, nil, err
		}
		if set.Name, err = str(u(setNameOff), u(setNameLen), "set name"); err != nil {
			return nil, nil, err
		}
		if set.Help, err = str(u(setHelpOff), u(setHelpLen), "set help"); err != nil {
			return nil, nil, err
		}
		set.Counters = make([]counterset.Counter, n)
		for j := uint64(0); j < n; j++ {
			c := cb[(first+j)*ctrRecSize:]
			cu := func(f int) uint32 { return le.Uint32(c[f:]) }
			cat := h.ctrOff + (first+j)*ctrRecSize
			sz := cu(ctrSize)
			if sz != 4 && sz != 8 {
				return nil, nil, ferr(cat+ctrSize, "counter value size", uint64(sz), "want 4 or 8")
			}
			ct := &set.Counters[j]
			*ct = counterset.Counter{
				ID: cu(ctrID), Type: countertype.Type(cu(ctrType)), Size: sz,
				Aggregate: counterset.Aggregate(cu(ctrAggregate)), Attributes: counterset.Attributes(cu(ctrAttributes)),
				BaseID: cu(ctrBaseID), MultiID: cu(ctrMultiID), PerfTimeID: cu(ctrPerfTimeID), PerfFreqID: cu(ctrPerfFreqID),
				DefaultScale: int32(cu(ctrScale)), DetailLevel: cu(ctrDetail),
			}
			if ct.Name, err = str(uint64(cu(ctrNameOff)), uint64(cu(ctrNameLen)), "counter name"); err != nil {
				return nil, nil, err
			}
			if ct.Help, err = str(uint64(cu(ctrHelpOff)), uint64(cu(ctrHelpLen)), "counter help"); err != nil {
				return nil, nil, err
			}
		}
		sets = append(sets, set)
		bsz = append(bsz, bs)
	}
	return sets, bsz, nil
}
