package perfdata

import (
	"fmt"

	"github.com/perfcounters/perfcounters/countertype"
)

// ObjectSpec describes one PERF_OBJECT_TYPE to build.
type ObjectSpec struct {
	NameIndex, HelpIndex uint32
	DetailLevel          uint32
	DefaultCounter       int32  // 0-based definition position (bases counted); -1 none
	CodePage             uint32 // 0 = UTF-16 instance names; otherwise names are written as their bytes
	PerfTime, PerfFreq   int64  // object timer (PERF_OBJECT_TIMER types)
	Single               bool   // PERF_NO_INSTANCES: exactly one counter block, no instances
}

// CounterSpec describes one PERF_COUNTER_DEFINITION to build.
type CounterSpec struct {
	NameIndex, HelpIndex uint32
	DefaultScale         int32
	DetailLevel          uint32
	Type                 countertype.Type
	// Size is the value width in bytes: 4 or 8 for numbers, the reserved
	// byte count for text, 0 = as the type declares (8 when the type
	// declares no width, e.g. PERF_SIZE_VARIABLE_LEN numbers).
	Size uint32
}

// maxDataSize bounds one counter block so that offsets stay far from
// uint32 overflow whatever the number of instances.
const maxDataSize = 1 << 24

type slot struct {
	off, size uint32
	multi     bool // an item-count DWORD follows the value
}

// Layout is the counter-block layout of one object: where each counter's
// value lives in the PERF_COUNTER_BLOCK. It is computed once and reused
// across collections. Values are placed in definition order from offset 4
// (just after the block's ByteLength DWORD), 8-byte values at 8-aligned
// offsets, as Windows lays them out; a PERF_MULTI_COUNTER value is followed
// by its DWORD item count.
type Layout struct {
	slots    []slot
	dataSize uint32
}

// NewLayout computes the layout of counters. It rejects numeric sizes
// other than 4 and 8, text counters without a size, and a block larger
// than 16 MiB.
func NewLayout(counters []CounterSpec) (*Layout, error) {
	l := &Layout{slots: make([]slot, len(counters))}
	off := uint64(CounterBlockLen)
	for i, c := range counters {
		size, err := specSize(c)
		if err != nil {
			return nil, fmt.Errorf("perfdata: counter %d (index %d, type %v): %w", i, c.NameIndex, c.Type, err)
		}
		switch {
		case size >= 8 && !c.Type.IsText():
			off = (off + 7) &^ 7
		case size > 0:
			off = (off + 3) &^ 3
		}
		multi := c.Type.Multi() && !c.Type.IsBase() && size > 0
		l.slots[i] = slot{off: uint32(off), size: size, multi: multi}
		off += uint64(size)
		if multi {
			off += 4 // the item count follows the value
		}
		if off > maxDataSize {
			return nil, fmt.Errorf("perfdata: counter %d: counter block exceeds %d bytes", i, maxDataSize)
		}
	}
	l.dataSize = uint32(align8(int(off)))
	return l, nil
}

func specSize(c CounterSpec) (uint32, error) {
	declared := c.Type.ByteSize()
	switch {
	case c.Type.IsText():
		if c.Size == 0 {
			return 0, fmt.Errorf("text counter needs an explicit Size")
		}
		if c.Size > maxDataSize {
			return 0, fmt.Errorf("text Size %d too large", c.Size)
		}
		return c.Size, nil
	case c.Type.Size() == countertype.PERF_SIZE_ZERO:
		if c.Size != 0 {
			return 0, fmt.Errorf("Size %d for a PERF_SIZE_ZERO type", c.Size)
		}
		return 0, nil
	case c.Size == 0:
		if declared == 0 {
			return 8, nil
		}
		return uint32(declared), nil
	case c.Size != 4 && c.Size != 8:
		return 0, fmt.Errorf("Size %d: numeric counters are 4 or 8 bytes", c.Size)
	}
	// A Size other than the declared width is allowed: real Windows data
	// stores PERF_AVERAGE_TIMER (a DWORD type) in 8 bytes, and readers
	// go by CounterSize.
	return c.Size, nil
}

// DataSize is PERF_COUNTER_BLOCK.ByteLength: the 4-byte length plus all
// values, rounded up to a multiple of 8.
func (l *Layout) DataSize() uint32 { return l.dataSize }

// Offset is counter i's CounterOffset within the counter block.
func (l *Layout) Offset(i int) uint32 { return l.slots[i].off }

// Size is counter i's CounterSize.
func (l *Layout) Size(i int) uint32 { return l.slots[i].size }

// Len is the number of counters laid out.
func (l *Layout) Len() int { return len(l.slots) }
