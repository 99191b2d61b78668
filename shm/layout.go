// Package shm owns the shared-memory segment through which a V2 provider
// publishes counter values to consumers in other processes: the byte
// layout (LAYOUT.md), the Writer a provider maps read-write, and the
// Scanner a consumer uses to copy every live segment out. It is the only
// package that touches mapped bytes with unsafe or atomics; the provider
// package builds its public API on the Word and Block handles exported here.
//
// A reader never trusts a segment: every offset and size is validated
// before use, faults from a segment truncated under the reader are turned
// into errors, and a segment whose owner is gone is removed.
package shm

import "encoding/binary"

// Magic opens every segment file. It is written and read as bytes, so a
// big-endian reader of a little-endian segment fails the version check
// rather than misreading values.
var magic = [8]byte{'P', 'E', 'R', 'F', 'C', 'S', 'E', 'G'}

// Version is the layout version this package writes and reads.
const Version = 1

// File names: "<guid>.<pid>.perfseg" for a published segment; a segment
// being laid out is created under a dot-prefixed temporary name and renamed
// once its owner holds the lock, so a reader never sees an unlocked,
// half-initialised file under the published name.
const fileSuffix = ".perfseg"

// Header field offsets (bytes from the start of the file).
const (
	hdrMagic      = 0
	hdrVersion    = 8  // u32
	hdrHeaderSize = 12 // u32
	hdrGen        = 16 // u64 seqlock: odd while the writer changes tables
	hdrFileSize   = 24 // u64
	hdrOwnerPID   = 32 // u32
	hdrFlags      = 36 // u32
	hdrOwnerStart = 40 // u64 start time of the owner, clock ticks since boot
	hdrPIDNS      = 48 // u64 inode of the owner's pid namespace
	hdrSetOff     = 56 // u32 x3: offset, capacity, count
	hdrCtrOff     = 68 // u32 x3
	hdrInstOff    = 80 // u32 x3: offset, capacity, high-water slot count
	hdrShardOff   = 92 // u32 x3
	hdrHeapOff    = 104
	hdrHeapSize   = 108
	hdrHeapUsed   = 112
	hdrGUIDLen    = 116
	hdrGUID       = 120 // [maxGUIDLen]byte
	headerSize    = 256
	maxGUIDLen    = 64
)

// Record sizes; every one is a multiple of 8 so that records are copied
// word by word with atomic loads.
const (
	setRecSize   = 64
	ctrRecSize   = 64
	instRecSize  = 32
	shardRecSize = 32
	cacheLine    = 64
)

// Set record fields.
const (
	setGUIDOff    = 0
	setGUIDLen    = 4
	setNameOff    = 8
	setNameLen    = 12
	setInstancing = 16
	setFirstCtr   = 20
	setNumCtr     = 24
	setBlockSize  = 28
	setHelpOff    = 32
	setHelpLen    = 36
	setDetail     = 40
)

// Counter record fields.
const (
	ctrID         = 0
	ctrType       = 4
	ctrSize       = 8
	ctrAggregate  = 12
	ctrNameOff    = 16
	ctrNameLen    = 20
	ctrAttributes = 24
	ctrBaseID     = 28
	ctrMultiID    = 32
	ctrPerfTimeID = 36
	ctrPerfFreqID = 40
	ctrScale      = 44
	ctrDetail     = 48
	ctrHelpOff    = 52
	ctrHelpLen    = 56
)

// Instance record fields and slot states.
const (
	instState    = 0
	instSerial   = 4
	instSet      = 8
	instID       = 12
	instNameOff  = 16
	instNameLen  = 20
	instBlockOff = 24
)

// Instance slot states.
const (
	StateFree     = 0 // never used or recycled
	StateBuilding = 1 // being filled in by the writer; readers skip it
	StateLive     = 2 // published
	StateDeleted  = 3 // deleted; readers skip it, the writer may reuse it
)

// Shard record fields.
const (
	shardState   = 0
	shardVersion = 4 // bumped on every reuse of the record
	shardInst    = 8
	shardSerial  = 12
	shardCtr     = 16
	shardOff     = 20
	shardCount   = 24
)

// Limits a reader enforces so that no count taken from a segment sizes an
// unreasonable allocation, and a consumer's cost per segment is bounded
// (SECURITY.md). A writer never exceeds them.
const (
	MaxFileSize      = 1 << 30 // mapped (address space; only what is read costs memory)
	maxReadSets      = 256
	maxReadCounters  = 16384
	maxReadInstances = 65536
	maxReadShards    = 8192
	maxReadHeap      = 32 << 20 // bytes of strings, values and shards copied per scan
	// allocSlack is how far what a reader touches may exceed what the
	// segment's owner has allocated (st_blocks).
	allocSlack = 64 << 10

	maxNameLen      = 4096
	maxSetCounters  = 4096
	maxShardsPerCtr = 256
	pairBusyOne     = 1 << 32 // added to a block's pair word by a writer entering a multi-value update
)

var le = binary.LittleEndian

func align(n, a uint64) uint64 { return (n + a - 1) &^ (a - 1) }

// endMultiDelta added to a pair word drops the busy count by one and bumps
// the generation in the low half (modular arithmetic: 1 - pairBusyOne).
const endMultiDelta = ^uint64(pairBusyOne) + 2
