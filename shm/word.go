package shm

import (
	"sync/atomic"
	"unsafe"
)

// Word is one 8-byte value slot in a mapped segment. The zero Word is a
// no-op sink: every method on it does nothing, so a handle to an unknown
// counter is safe to use.
type Word struct {
	p *uint64
}

// Add atomically adds d to the word.
func (w Word) Add(d uint64) {
	if w.p != nil {
		atomic.AddUint64(w.p, d)
	}
}

// Store atomically stores v.
func (w Word) Store(v uint64) {
	if w.p != nil {
		atomic.StoreUint64(w.p, v)
	}
}

// Load atomically loads the word.
func (w Word) Load() uint64 {
	if w.p == nil {
		return 0
	}
	return atomic.LoadUint64(w.p)
}

// StoreOwned stores v with a plain 8-byte store. It is for a word that
// exactly one goroutine ever writes (PerfSetCounterRefValue semantics).
//
// Why this is sound: the word lives in a shared mapping outside the Go
// heap, is 8-byte aligned, and a single aligned 64-bit MOV/STR is never
// torn on amd64 or arm64; readers (in this or another process) use atomic
// loads and only need some recent value, with no ordering against other
// words. With one writer there is no lost update. The Go race detector
// does not track memory outside the Go heap, so concurrent misuse by two
// writers is not reported: the single-writer rule is the caller's.
func (w Word) StoreOwned(v uint64) {
	if w.p != nil {
		*w.p = v
	}
}

// AddOwned adds d with a plain load and store; the same single-writer
// rule as StoreOwned applies.
func (w Word) AddOwned(d uint64) {
	if w.p != nil {
		*w.p += d
	}
}

// Valid reports whether the word refers to a slot.
func (w Word) Valid() bool { return w.p != nil }

// Block is an instance's value block: the pair word at index 0 and one
// word per counter after it.
type Block struct {
	p unsafe.Pointer
	n int // number of words, pair word included
}

// Word returns the word for value index i (0-based counter index), or the
// zero Word when i is out of range.
func (b Block) Word(i int) Word {
	if uint(i+1) >= uint(b.n) {
		return Word{}
	}
	return Word{(*uint64)(unsafe.Add(b.p, (i+1)*8))}
}

// Add atomically adds d to value i; out-of-range indexes are ignored.
func (b Block) Add(i int, d uint64) {
	if uint(i+1) < uint(b.n) {
		atomic.AddUint64((*uint64)(unsafe.Add(b.p, (i+1)*8)), d)
	}
}

// Store atomically stores v into value i; out-of-range indexes are ignored.
func (b Block) Store(i int, v uint64) {
	if uint(i+1) < uint(b.n) {
		atomic.StoreUint64((*uint64)(unsafe.Add(b.p, (i+1)*8)), v)
	}
}

// BeginMulti marks the block busy for a multi-value update, so that a
// reader retries rather than pairing a new fraction with an old base.
// Several goroutines may be inside at once; EndMulti must follow.
func (b Block) BeginMulti() {
	if b.n > 0 {
		atomic.AddUint64((*uint64)(b.p), pairBusyOne)
	}
}

// EndMulti ends a multi-value update: in one atomic add it drops the busy
// count and bumps the generation in the low half, so a reader that saw the
// same pair word before and after its reads knows no update overlapped.
func (b Block) EndMulti() {
	if b.n > 0 {
		atomic.AddUint64((*uint64)(b.p), endMultiDelta)
	}
}

// ShardSet is a sharded counter: n words, each on its own cache line,
// which the reader adds to the counter's value.
type ShardSet struct {
	p unsafe.Pointer
	n uint32 // power of two
}

// Len returns the number of shards.
func (s ShardSet) Len() int { return int(s.n) }

// Add atomically adds d to shard i modulo the shard count.
func (s ShardSet) Add(i uint32, d uint64) {
	if s.n != 0 {
		atomic.AddUint64((*uint64)(unsafe.Add(s.p, uintptr(i&(s.n-1))*cacheLine)), d)
	}
}

// Shard returns the word of shard i modulo the shard count.
func (s ShardSet) Shard(i uint32) Word {
	if s.n == 0 {
		return Word{}
	}
	return Word{(*uint64)(unsafe.Add(s.p, uintptr(i&(s.n-1))*cacheLine))}
}

// Sum atomically loads and adds all shards.
func (s ShardSet) Sum() uint64 {
	var t uint64
	for i := uint32(0); i < s.n; i++ {
		t += atomic.LoadUint64((*uint64)(unsafe.Add(s.p, uintptr(i)*cacheLine)))
	}
	return t
}

// StackHint returns a cheap per-goroutine shard hint: a hash of an address
// on the caller's stack. Goroutines have distinct stacks, so concurrent
// writers usually land on different shards without any runtime hook; the
// hint changes only when a stack is moved, which costs nothing but a
// different (still correct) shard.
//
//go:nosplit
func StackHint() uint32 {
	var x byte
	a := uint64(uintptr(unsafe.Pointer(&x)))
	return uint32(((a >> 10) * 0x9E3779B97F4A7C15) >> 40)
}

// loadWord atomically loads the 8-byte word at byte offset off of mem;
// the caller has checked that off is 8-aligned and off+8 <= len(mem).
func loadWord(mem []byte, off uint64) uint64 {
	return atomic.LoadUint64((*uint64)(unsafe.Pointer(&mem[off])))
}

// storeWord atomically stores the 8-byte word at byte offset off of mem.
func storeWord(mem []byte, off uint64, v uint64) {
	atomic.StoreUint64((*uint64)(unsafe.Pointer(&mem[off])), v)
}

// copyWords copies len(dst) bytes (a multiple of 8) from mem at off with
// atomic 8-byte loads, so that on weakly ordered CPUs the copy is ordered
// between the reader's two loads of the generation word.
func copyWords(dst []byte, mem []byte, off uint64) {
	for i := 0; i+8 <= len(dst); i += 8 {
		le.PutUint64(dst[i:], loadWord(mem, off+uint64(i)))
	}
}

// putWords stores src (a multiple of 8 bytes) into mem at off with atomic
// 8-byte stores, so readers never see a torn word and, on weakly ordered
// CPUs, the stores stay ordered against the generation word.
func putWords(mem []byte, off uint64, src []byte) {
	for i := 0; i+8 <= len(src); i += 8 {
		storeWord(mem, off+uint64(i), le.Uint64(src[i:]))
	}
}

// blockAt returns a Block of n words at off of mem.
func blockAt(mem []byte, off uint64, n int) Block {
	return Block{unsafe.Pointer(&mem[off]), n}
}

// shardsAt returns a ShardSet of n cache lines at off of mem.
func shardsAt(mem []byte, off uint64, n uint32) ShardSet {
	return ShardSet{unsafe.Pointer(&mem[off]), n}
}
