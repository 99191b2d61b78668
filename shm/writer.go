package shm

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/perfcounters/perfcounters/counterset"
)

// DefaultDir is the base directory under which every user's segment
// directory (perfc-<uid>) lives, unless configured otherwise.
const DefaultDir = "/dev/shm"

// DefaultMode is the default access mode of a segment: the provider's user
// and group may read it.
const DefaultMode os.FileMode = 0o640

// Filesystem magic numbers (statfs f_type) of memory-backed filesystems.
const (
	tmpfsMagic = 0x01021994
	ramfsMagic = 0x858458f6
)

// Options configure a segment. Zero fields take defaults.
type Options struct {
	Dir  string      // base directory of the per-user segment directories; DefaultDir when empty
	Mode os.FileMode // permission bits of the segment file; DefaultMode when 0
	// AllowDiskBacked accepts a directory that is not on tmpfs or ramfs.
	// Only for tests: a mapped file on disk stalls its writers whenever the
	// kernel writes it back.
	AllowDiskBacked bool
	MaxSets         int // counter sets (default 64)
	MaxCounters     int // counters over all sets (default 4096)
	MaxInstances    int // instance slots (default 16384)
	MaxSharded      int // sharded counters (default 4096)
	HeapSize        int // bytes for names and values (default 32 MiB)
}

func (o *Options) defaults() {
	if o.Dir == "" {
		o.Dir = DefaultDir
	}
	if o.Mode == 0 {
		o.Mode = DefaultMode
	}
	def := func(p *int, v int) {
		if *p <= 0 {
			*p = v
		}
	}
	def(&o.MaxSets, 64)
	def(&o.MaxCounters, 4096)
	def(&o.MaxInstances, 16384)
	def(&o.MaxSharded, 4096)
	def(&o.HeapSize, 32<<20)
	// Readers refuse a segment whose tables hold more than this (see
	// SECURITY.md): a writer never makes one.
	o.MaxSets = min(o.MaxSets, maxReadSets)
	o.MaxCounters = min(o.MaxCounters, maxReadCounters)
	o.MaxInstances = min(o.MaxInstances, maxReadInstances)
	o.MaxSharded = min(o.MaxSharded, maxReadShards)
}

// CheckDir reports whether dir is on a memory-backed filesystem.
func CheckDir(dir string) error {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return fmt.Errorf("shm: statfs %s: %w", dir, err)
	}
	return memoryBacked(&st, dir)
}

// checkDirFD is CheckDir for an open directory.
func checkDirFD(fd int, path string) error {
	var st unix.Statfs_t
	if err := unix.Fstatfs(fd, &st); err != nil {
		return fmt.Errorf("shm: statfs %s: %w", path, err)
	}
	return memoryBacked(&st, path)
}

// memoryBacked says why the filesystem statfs found for path is no place
// for segments; nil for tmpfs and ramfs.
func memoryBacked(st *unix.Statfs_t, path string) error {
	switch uint64(st.Type) {
	case tmpfsMagic, ramfsMagic:
		return nil
	}
	return fmt.Errorf("shm: %s is not on tmpfs or ramfs (filesystem magic 0x%x): segments must live in memory-backed storage", path, uint64(st.Type))
}

// SegmentName returns the file name of the segment of provider guid in
// process pid.
func SegmentName(guid string, pid int) string {
	return guid + "." + strconv.Itoa(pid) + fileSuffix
}

// Writer is a provider's read-write mapping of its own segment. Its
// methods that change tables are serialised by an internal mutex; value
// updates go through Word, Block and ShardSet handles and take no lock.
type Writer struct {
	mu     sync.Mutex
	mem    []byte
	f      *os.File
	dirFD  int    // the owner's segment directory, open
	name   string // the segment's name in it
	path   string
	warn   []error
	closed bool

	setOff, setCap, setCount      uint64
	ctrOff, ctrCap, ctrCount      uint64
	instOff, instCap, instHigh    uint64
	shardOff, shardCap, shardHigh uint64
	heapOff, heapSize, heapUsed   uint64
	freeSlots, freeShards         []uint64
	freeHeap                      map[uint64][]uint64 // rounded size -> offsets
	serial                        []uint32            // per instance slot
	setBlockWords                 []int
	setOf                         []int                // instance slot -> set index
	shardsOf                      map[uint64][]uint64  // instance slot -> shard records
	shardMem                      map[uint64][2]uint64 // shard record -> heap offset, size
	shardVer                      map[uint64]uint32    // shard record -> version
	blockOf                       []uint64             // instance slot -> block offset
	nameOf                        [][2]uint64          // instance slot -> name offset, rounded size
	gen                           uint64
	guid                          string
	pid                           int
	ownerStart, ownerNS           uint64
	setGUIDs                      map[string]bool
	dir                           string
	instCount                     int
}

// Create creates, locks and maps the segment of provider guid for the
// calling process, and publishes it under its final name.
func Create(guid string, opts Options) (*Writer, error) {
	opts.defaults()
	if guid == "" || len(guid) > maxGUIDLen || strings.ContainsAny(guid, "/\x00") || strings.HasPrefix(guid, ".") {
		return nil, fmt.Errorf("shm: provider guid %q: want 1..%d characters, no '/', NUL or leading '.'", guid, maxGUIDLen)
	}
	d, err := openOwnDir(opts.Dir, true)
	if err != nil {
		return nil, err
	}
	if !opts.AllowDiskBacked {
		if err := checkDirFD(d.fd, d.path); err != nil {
			unix.Close(d.fd)
			return nil, err
		}
	}
	w, err := create(guid, opts, d)
	if err != nil {
		unix.Close(d.fd)
		return nil, err
	}
	return w, nil
}

func create(guid string, opts Options, d ownDir) (*Writer, error) {
	var warn []error
	if d.warn != nil {
		warn = append(warn, d.warn)
	}
	// A crashed predecessor of the same provider leaves its segment; only
	// the owner can remove files from its directory, so it does it here.
	warn = append(warn, removeStaleIn(d.fd, d.path, guid+".")...)
	pid := os.Getpid()
	start, err := procStartTime(pid)
	if err != nil {
		return nil, fmt.Errorf("shm: own start time: %w", err)
	}
	w := &Writer{
		guid: guid, pid: pid, ownerStart: start, ownerNS: pidNamespace(), dir: d.path, dirFD: d.fd, warn: warn,
		freeHeap: map[uint64][]uint64{}, shardsOf: map[uint64][]uint64{}, shardMem: map[uint64][2]uint64{}, setGUIDs: map[string]bool{},
	}
	// Lay the file out: header, tables, heap; each section 64-aligned.
	off := uint64(headerSize)
	place := func(n, rec int) (o, c uint64) {
		o = align(off, cacheLine)
		off = o + uint64(n)*uint64(rec)
		return o, uint64(n)
	}
	w.setOff, w.setCap = place(opts.MaxSets, setRecSize)
	w.ctrOff, w.ctrCap = place(opts.MaxCounters, ctrRecSize)
	w.instOff, w.instCap = place(opts.MaxInstances, instRecSize)
	w.shardOff, w.shardCap = place(opts.MaxSharded, shardRecSize)
	w.heapOff = align(off, 4096)
	w.heapSize = align(uint64(opts.HeapSize), 4096)
	size := w.heapOff + w.heapSize
	if size > MaxFileSize || size > 1<<32-1 {
		return nil, fmt.Errorf("shm: segment of %d bytes exceeds the %d-byte limit", size, uint64(MaxFileSize))
	}
	w.serial = make([]uint32, w.instCap)
	w.blockOf = make([]uint64, w.instCap)
	w.nameOf = make([][2]uint64, w.instCap)
	w.setOf = make([]int, w.instCap)
	w.heapUsed = 8 // offset 0 of the heap is never handed out, so 0 means "none"

	name := SegmentName(guid, pid)
	tmp := "." + name + ".tmp"
	unix.Unlinkat(d.fd, tmp, 0) // a predecessor with this pid died while creating
	// Made private, locked, then opened to readers: a reader of another
	// user that opened the file before the lock was taken could hold a
	// shared lock of its own and keep the writer from ever starting.
	fd, err := unix.Openat(d.fd, tmp, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("shm: create segment %s: %w", filepath.Join(d.path, tmp), err)
	}
	f := os.NewFile(uintptr(fd), filepath.Join(d.path, tmp))
	fail := func(err error) (*Writer, error) {
		f.Close()
		unix.Unlinkat(d.fd, tmp, 0)
		return nil, err
	}
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return fail(fmt.Errorf("shm: lock segment: %w", err))
	}
	if err := f.Chmod(opts.Mode.Perm()); err != nil { // the mode asked for, whatever the umask
		return fail(fmt.Errorf("shm: chmod segment: %w", err))
	}
	if err := f.Truncate(int64(size)); err != nil { // sparse: pages cost memory once touched
		return fail(fmt.Errorf("shm: size segment: %w", err))
	}
	mem, err := unix.Mmap(fd, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return fail(fmt.Errorf("shm: map segment: %w", err))
	}
	w.mem, w.f = mem, f
	w.writeHeader()
	// Publish under the final name without replacing anything: a live
	// segment of the same name (same pid in another pid namespace) keeps
	// its name and this one takes a random suffix.
	for try := 0; ; try++ {
		err = unix.Renameat2(d.fd, tmp, d.fd, name, unix.RENAME_NOREPLACE)
		if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) { // no RENAME_NOREPLACE here
			err = unix.Linkat(d.fd, tmp, d.fd, name, 0)
			if err == nil {
				unix.Unlinkat(d.fd, tmp, 0)
			}
		}
		if !errors.Is(err, unix.EEXIST) || try == 8 {
			break
		}
		var r [4]byte
		rand.Read(r[:])
		name = guid + "." + strconv.Itoa(pid) + "-" + hex.EncodeToString(r[:]) + fileSuffix
	}
	if err != nil {
		unix.Munmap(mem)
		return fail(fmt.Errorf("shm: publish segment %s: %w", filepath.Join(d.path, name), err))
	}
	w.name = name
	w.path = filepath.Join(d.path, name)
	return w, nil
}

// Warnings returns what Create found wrong but worked around: a squatted
// segment directory name, stale segments it could not remove. A provider
// reports them.
func (w *Writer) Warnings() []error { return w.warn }

// writeHeader writes the header with an odd generation, then publishes it.
func (w *Writer) writeHeader() {
	h := make([]byte, headerSize)
	copy(h[hdrMagic:], magic[:])
	le.PutUint32(h[hdrVersion:], Version)
	le.PutUint32(h[hdrHeaderSize:], headerSize)
	le.PutUint64(h[hdrGen:], 1)
	le.PutUint64(h[hdrFileSize:], uint64(len(w.mem)))
	le.PutUint32(h[hdrOwnerPID:], uint32(w.pid))
	le.PutUint64(h[hdrOwnerStart:], w.ownerStart)
	le.PutUint64(h[hdrPIDNS:], w.ownerNS)
	put3 := func(at int, a, b, c uint64) {
		le.PutUint32(h[at:], uint32(a))
		le.PutUint32(h[at+4:], uint32(b))
		le.PutUint32(h[at+8:], uint32(c))
	}
	put3(hdrSetOff, w.setOff, w.setCap, 0)
	put3(hdrCtrOff, w.ctrOff, w.ctrCap, 0)
	put3(hdrInstOff, w.instOff, w.instCap, 0)
	put3(hdrShardOff, w.shardOff, w.shardCap, 0)
	put3(hdrHeapOff, w.heapOff, w.heapSize, w.heapUsed)
	le.PutUint32(h[hdrGUIDLen:], uint32(len(w.guid)))
	copy(h[hdrGUID:], w.guid)
	w.gen = 1
	putWords(w.mem, 0, h)
	w.gen = 2
	storeWord(w.mem, hdrGen, w.gen)
}

// Path returns the segment file's path.
func (w *Writer) Path() string { return w.path }

// begin opens a table change: readers that overlap it retry.
func (w *Writer) begin() {
	w.gen++
	storeWord(w.mem, hdrGen, w.gen)
}

// end closes a table change after storing the counts it changed.
func (w *Writer) end() {
	w.putCounts()
	w.gen++
	storeWord(w.mem, hdrGen, w.gen)
}

// putCounts stores the header words that hold table counts and heap use.
func (w *Writer) putCounts() {
	var b [8]byte
	word := func(at uint64, lo, hi uint64) {
		le.PutUint32(b[0:], uint32(lo))
		le.PutUint32(b[4:], uint32(hi))
		storeWord(w.mem, at, le.Uint64(b[:]))
	}
	// Words 64..71: setCount, ctrOff; 72..79: ctrCap, ctrCount;
	// 88..95: instHigh, shardOff; 96..103: shardCap, shardHigh;
	// 112..119: heapUsed, guidLen.
	word(64, w.setCount, w.ctrOff)
	word(72, w.ctrCap, w.ctrCount)
	word(88, w.instHigh, w.shardOff)
	word(96, w.shardCap, w.shardHigh)
	word(112, w.heapUsed, uint64(len(w.guid)))
}

// alloc takes n bytes (rounded to align) from the heap, reusing a freed
// piece of the same rounded size, and zeroes it.
func (w *Writer) alloc(n, a uint64) (uint64, error) {
	n = align(n, a)
	if l := w.freeHeap[n]; len(l) > 0 {
		off := l[len(l)-1]
		w.freeHeap[n] = l[:len(l)-1]
		w.zero(off, n)
		return off, nil
	}
	off := align(w.heapUsed, a)
	if off+n > w.heapSize {
		return 0, fmt.Errorf("shm: segment heap full (%d of %d bytes used, %d more wanted)", w.heapUsed, w.heapSize, n)
	}
	w.heapUsed = off + n
	// Fresh sparse pages read as zero, but are written anyway: readers
	// accept a segment only while what they read is backed by memory its
	// owner allocated (SECURITY.md), and a never-written page is not.
	w.zero(w.heapOff+off, n)
	return w.heapOff + off, nil
}

func (w *Writer) free(off, n, a uint64) {
	if off != 0 {
		n = align(n, a)
		w.freeHeap[n] = append(w.freeHeap[n], off)
	}
}

func (w *Writer) zero(off, n uint64) {
	for i := uint64(0); i < n; i += 8 {
		storeWord(w.mem, off+i, 0)
	}
}

// putString stores s in the heap, padded to 8 bytes.
func (w *Writer) putString(s string) (off uint64, err error) {
	if s == "" {
		return 0, nil
	}
	off, err = w.alloc(uint64(len(s)), 8)
	if err != nil {
		return 0, err
	}
	buf := make([]byte, align(uint64(len(s)), 8))
	copy(buf, s)
	putWords(w.mem, off, buf)
	return off, nil
}

func checkText(what, s string) error {
	if len(s) > maxNameLen {
		return fmt.Errorf("shm: %s is %d bytes, limit %d", what, len(s), maxNameLen)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("shm: %s %q is not valid UTF-8", what, s)
	}
	return nil
}

// AddSet publishes a counter set's definition and returns its index. The
// set must already be valid (counterset.Set.Validate).
func (w *Writer) AddSet(s *counterset.Set) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, errors.New("shm: segment closed")
	}
	if w.setCount >= w.setCap {
		return 0, fmt.Errorf("shm: segment holds at most %d counter sets", w.setCap)
	}
	if len(s.Counters) > maxSetCounters || w.ctrCount+uint64(len(s.Counters)) > w.ctrCap {
		return 0, fmt.Errorf("shm: set %q: %d counters exceed the segment's room (%d of %d used, at most %d per set)", s.Name, len(s.Counters), w.ctrCount, w.ctrCap, maxSetCounters)
	}
	if w.setGUIDs[strings.ToLower(s.GUID)] {
		return 0, fmt.Errorf("shm: set %s already added", s.GUID)
	}
	for _, t := range []struct{ what, s string }{{"set guid", s.GUID}, {"set name", s.Name}, {"set help", s.Help}} {
		if err := checkText(t.what, t.s); err != nil {
			return 0, err
		}
	}
	for i := range s.Counters {
		if err := checkText("counter name", s.Counters[i].Name); err != nil {
			return 0, err
		}
		if err := checkText("counter help", s.Counters[i].Help); err != nil {
			return 0, err
		}
	}
	str := func(v string) (uint64, error) { return w.putString(v) }
	rec := make([]byte, setRecSize)
	goff, err := str(s.GUID)
	if err != nil {
		return 0, err
	}
	noff, err := str(s.Name)
	if err != nil {
		return 0, err
	}
	hoff, err := str(s.Help)
	if err != nil {
		return 0, err
	}
	words := 1 + len(s.Counters)
	blockSize := align(uint64(words)*8, cacheLine)
	le.PutUint32(rec[setGUIDOff:], uint32(goff))
	le.PutUint32(rec[setGUIDLen:], uint32(len(s.GUID)))
	le.PutUint32(rec[setNameOff:], uint32(noff))
	le.PutUint32(rec[setNameLen:], uint32(len(s.Name)))
	le.PutUint32(rec[setInstancing:], uint32(s.Instancing))
	le.PutUint32(rec[setFirstCtr:], uint32(w.ctrCount))
	le.PutUint32(rec[setNumCtr:], uint32(len(s.Counters)))
	le.PutUint32(rec[setBlockSize:], uint32(blockSize))
	le.PutUint32(rec[setHelpOff:], uint32(hoff))
	le.PutUint32(rec[setHelpLen:], uint32(len(s.Help)))
	le.PutUint32(rec[setDetail:], s.DetailLevel)
	crecs := make([]byte, ctrRecSize*len(s.Counters))
	for i := range s.Counters {
		c := &s.Counters[i]
		r := crecs[i*ctrRecSize:]
		no, err := str(c.Name)
		if err != nil {
			return 0, err
		}
		ho, err := str(c.Help)
		if err != nil {
			return 0, err
		}
		le.PutUint32(r[ctrID:], c.ID)
		le.PutUint32(r[ctrType:], uint32(c.Type))
		le.PutUint32(r[ctrSize:], c.ValueSize())
		le.PutUint32(r[ctrAggregate:], uint32(c.Aggregate))
		le.PutUint32(r[ctrNameOff:], uint32(no))
		le.PutUint32(r[ctrNameLen:], uint32(len(c.Name)))
		le.PutUint32(r[ctrAttributes:], uint32(c.Attributes))
		base, multi, ptime, pfreq := c.WireRefs()
		le.PutUint32(r[ctrBaseID:], base)
		le.PutUint32(r[ctrMultiID:], multi)
		le.PutUint32(r[ctrPerfTimeID:], ptime)
		le.PutUint32(r[ctrPerfFreqID:], pfreq)
		le.PutUint32(r[ctrScale:], uint32(c.DefaultScale))
		le.PutUint32(r[ctrDetail:], c.DetailLevel)
		le.PutUint32(r[ctrHelpOff:], uint32(ho))
		le.PutUint32(r[ctrHelpLen:], uint32(len(c.Help)))
	}
	w.begin()
	putWords(w.mem, w.ctrOff+w.ctrCount*ctrRecSize, crecs)
	putWords(w.mem, w.setOff+w.setCount*setRecSize, rec)
	idx := int(w.setCount)
	w.setCount++
	w.ctrCount += uint64(len(s.Counters))
	w.end()
	w.setBlockWords = append(w.setBlockWords, words)
	w.setGUIDs[strings.ToLower(s.GUID)] = true
	return idx, nil
}

// NewInstance builds an instance of set setIdx and publishes it; it
// returns the instance's slot and its value block, all values zero.
func (w *Writer) NewInstance(setIdx int, name string, id uint32) (slot int, b Block, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, Block{}, errors.New("shm: segment closed")
	}
	if setIdx < 0 || setIdx >= len(w.setBlockWords) {
		return 0, Block{}, fmt.Errorf("shm: no counter set %d", setIdx)
	}
	if err := checkText("instance name", name); err != nil {
		return 0, Block{}, err
	}
	var s uint64
	switch {
	case len(w.freeSlots) > 0:
		s = w.freeSlots[len(w.freeSlots)-1]
		w.freeSlots = w.freeSlots[:len(w.freeSlots)-1]
	case w.instHigh < w.instCap:
		s = w.instHigh
	default:
		return 0, Block{}, fmt.Errorf("shm: segment holds at most %d instances", w.instCap)
	}
	words := w.setBlockWords[setIdx]
	bsize := uint64(words) * 8
	boff, err := w.alloc(bsize, cacheLine)
	if err != nil {
		w.freeSlots = append(w.freeSlots, s)
		return 0, Block{}, err
	}
	noff, err := w.putString(name)
	if err != nil {
		w.free(boff, bsize, cacheLine)
		w.freeSlots = append(w.freeSlots, s)
		return 0, Block{}, err
	}
	w.serial[s]++
	rec := make([]byte, instRecSize)
	le.PutUint32(rec[instState:], StateBuilding)
	le.PutUint32(rec[instSerial:], w.serial[s])
	le.PutUint32(rec[instSet:], uint32(setIdx))
	le.PutUint32(rec[instID:], id)
	le.PutUint32(rec[instNameOff:], uint32(noff))
	le.PutUint32(rec[instNameLen:], uint32(len(name)))
	le.PutUint32(rec[instBlockOff:], uint32(boff))
	w.publish(w.instOff, s, rec, &w.instHigh)
	w.blockOf[s] = boff
	w.setOf[s] = setIdx
	w.nameOf[s] = [2]uint64{noff, uint64(len(name))}
	w.instCount++
	return int(s), blockAt(w.mem, boff, words), nil
}

// publish writes rec (an instance or shard record, whose first word holds
// the state, StateBuilding, and a serial or version) into slot of the table
// at tableOff, raising the table's high-water count *high when needed. The
// first word says "building" with the new serial before the rest is filled
// in, and "live" after: a reader that sees the same live first word before
// and after its reads has read one incarnation of the record, without any
// table-wide lock. This is the only place records are published.
func (w *Writer) publish(tableOff, slot uint64, rec []byte, high *uint64) {
	roff := tableOff + slot*uint64(len(rec))
	storeWord(w.mem, roff, le.Uint64(rec[0:8]))
	putWords(w.mem, roff+8, rec[8:])
	if slot >= *high {
		*high = slot + 1
	}
	w.putCounts() // heap use changed too
	le.PutUint32(rec[0:], StateLive)
	storeWord(w.mem, roff, le.Uint64(rec[0:8]))
}

// DeleteInstance unpublishes the instance in slot and recycles its slot,
// value block, name and shards. Handles into its block must no longer be
// used: the block may be given to the next instance.
func (w *Writer) DeleteInstance(slot int) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errors.New("shm: segment closed")
	}
	s := uint64(slot)
	if slot < 0 || s >= w.instHigh || w.blockOf[s] == 0 {
		return fmt.Errorf("shm: no live instance in slot %d", slot)
	}
	roff := w.instOff + s*instRecSize
	rec := make([]byte, 8)
	le.PutUint32(rec[0:], StateDeleted)
	le.PutUint32(rec[4:], w.serial[s])
	storeWord(w.mem, roff, le.Uint64(rec))
	for _, sr := range w.shardsOf[s] {
		w.shardVer[sr]++
		storeWord(w.mem, w.shardOff+sr*shardRecSize, uint64(w.shardVer[sr])<<32|StateFree)
	}
	setIdx := w.setOf[s]
	w.free(w.blockOf[s], uint64(w.setBlockWords[setIdx])*8, cacheLine)
	w.free(w.nameOf[s][0], w.nameOf[s][1], 8)
	for _, sr := range w.shardsOf[s] {
		w.free(w.shardMem[sr][0], w.shardMem[sr][1], cacheLine)
		w.freeShards = append(w.freeShards, sr)
	}
	delete(w.shardsOf, s)
	w.blockOf[s] = 0
	w.freeSlots = append(w.freeSlots, s)
	w.instCount--
	return nil
}

// NewShards gives counter ctrIdx of the instance in slot n shards (n is
// rounded up to a power of two, at most 256), whose sum readers add to the
// counter's value.
func (w *Writer) NewShards(slot, ctrIdx, n int) (ShardSet, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ShardSet{}, errors.New("shm: segment closed")
	}
	s := uint64(slot)
	if slot < 0 || s >= w.instHigh || w.blockOf[s] == 0 {
		return ShardSet{}, fmt.Errorf("shm: no live instance in slot %d", slot)
	}
	setIdx := w.setOf[s]
	if ctrIdx < 0 || ctrIdx+1 >= w.setBlockWords[setIdx] {
		return ShardSet{}, fmt.Errorf("shm: no counter index %d in set %d", ctrIdx, setIdx)
	}
	p := uint32(1)
	for int(p) < n && p < maxShardsPerCtr {
		p <<= 1
	}
	var sr uint64
	switch {
	case len(w.freeShards) > 0:
		sr = w.freeShards[len(w.freeShards)-1]
		w.freeShards = w.freeShards[:len(w.freeShards)-1]
	case w.shardHigh < w.shardCap:
		sr = w.shardHigh
	default:
		return ShardSet{}, fmt.Errorf("shm: segment holds at most %d sharded counters", w.shardCap)
	}
	off, err := w.alloc(uint64(p)*cacheLine, cacheLine)
	if err != nil {
		w.freeShards = append(w.freeShards, sr)
		return ShardSet{}, err
	}
	if w.shardVer == nil {
		w.shardVer = map[uint64]uint32{}
	}
	w.shardVer[sr]++
	rec := make([]byte, shardRecSize)
	le.PutUint32(rec[shardState:], StateBuilding)
	le.PutUint32(rec[shardVersion:], w.shardVer[sr])
	le.PutUint32(rec[shardInst:], uint32(s))
	le.PutUint32(rec[shardSerial:], w.serial[s])
	le.PutUint32(rec[shardCtr:], uint32(ctrIdx))
	le.PutUint32(rec[shardOff:], uint32(off))
	le.PutUint32(rec[shardCount:], p)
	w.publish(w.shardOff, sr, rec, &w.shardHigh)
	w.shardsOf[s] = append(w.shardsOf[s], sr)
	w.shardMem[sr] = [2]uint64{off, uint64(p) * cacheLine}
	return shardsAt(w.mem, off, p), nil
}

// Close unmaps the segment, removes its file and releases the lock.
// Handles obtained from the Writer must not be used afterwards.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	err := unix.Unlinkat(w.dirFD, w.name, 0)
	// Handles into the mapping may outlive Close by mistake. Rather than
	// unmapping (a later write would crash the process), map private
	// anonymous memory over the same range: the file's pages are released
	// with the file, and a stray write lands in harmless private memory.
	if e := replaceWithAnon(w.mem); err == nil {
		err = e
	}
	w.mem = nil
	if e := w.f.Close(); err == nil {
		err = e
	}
	if e := unix.Close(w.dirFD); err == nil {
		err = e
	}
	if err != nil {
		return fmt.Errorf("shm: close segment: %w", err)
	}
	return nil
}
