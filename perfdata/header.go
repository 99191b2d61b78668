package perfdata

import (
	"encoding/binary"
	"time"
)

// Structure sizes and field offsets (winperf.h, 8-byte packing; identical
// for 32- and 64-bit Windows because the reserved title slots are 4 bytes
// in both builds).
const (
	DataBlockSize   = 88 // PERF_DATA_BLOCK
	ObjectTypeSize  = 64 // PERF_OBJECT_TYPE
	CounterDefSize  = 40 // PERF_COUNTER_DEFINITION
	InstanceDefSize = 24 // PERF_INSTANCE_DEFINITION, without the name
	CounterBlockLen = 4  // PERF_COUNTER_BLOCK, without the values
)

// NumInstances values with a meaning other than a count.
const (
	NoInstances               = -1 // PERF_NO_INSTANCES: one counter block, no instances
	MetadataMultipleInstances = -2 // PERF_METADATA_MULTIPLE_INSTANCES: multi-instance, metadata only
	MetadataNoInstances       = -3 // PERF_METADATA_NO_INSTANCES: single-instance, metadata only
)

// NoUniqueID is PERF_NO_UNIQUE_ID, the UniqueID of instances identified by name.
const NoUniqueID = -1

var le = binary.LittleEndian

// signature is "PERF" in UTF-16LE.
var signature = [8]byte{'P', 0, 'E', 0, 'R', 0, 'F', 0}

// PERF_DATA_BLOCK field offsets.
const (
	hSignature        = 0
	hLittleEndian     = 8
	hVersion          = 12
	hRevision         = 16
	hTotalByteLength  = 20
	hHeaderLength     = 24
	hNumObjectTypes   = 28
	hDefaultObject    = 32
	hSystemTime       = 36
	hPerfTime         = 56
	hPerfFreq         = 64
	hPerfTime100nSec  = 72
	hSystemNameLength = 80
	hSystemNameOffset = 84
)

// PERF_OBJECT_TYPE field offsets.
const (
	oTotalByteLength  = 0
	oDefinitionLength = 4
	oHeaderLength     = 8
	oNameTitleIndex   = 12
	oHelpTitleIndex   = 20
	oDetailLevel      = 28
	oNumCounters      = 32
	oDefaultCounter   = 36
	oNumInstances     = 40
	oCodePage         = 44
	oPerfTime         = 48
	oPerfFreq         = 56
)

// PERF_COUNTER_DEFINITION field offsets.
const (
	cByteLength    = 0
	cNameIndex     = 4
	cHelpIndex     = 12
	cDefaultScale  = 20
	cDetailLevel   = 24
	cCounterType   = 28
	cCounterSize   = 32
	cCounterOffset = 36
)

// PERF_INSTANCE_DEFINITION field offsets.
const (
	iByteLength       = 0
	iParentTitleIndex = 4
	iParentInstance   = 8
	iUniqueID         = 12
	iNameOffset       = 16
	iNameLength       = 20
)

// Header is the content of PERF_DATA_BLOCK. SystemTime is the writer's
// local time in Windows data (a Vista capture's is 4 h behind its
// PerfTime100nSec); PerfTime100nSec is a UTC FILETIME, the block's instant.
type Header struct {
	LittleEndian, Version, Revision uint32 // 1, 1, 1 (the Builder always writes these)
	TotalByteLength, HeaderLength   uint32 // filled by the Builder
	NumObjectTypes                  uint32 // filled by the Builder
	// DefaultObject is documented as reserved; real Windows blocks carry the
	// title index of the (first) object in it. The Builder writes it as given.
	DefaultObject                       int32
	SystemTime                          SystemTime
	PerfTime, PerfFreq, PerfTime100nSec int64
	SystemName                          string
}

// SystemTime is a Win32 SYSTEMTIME: eight WORDs.
type SystemTime struct {
	Year, Month, DayOfWeek, Day, Hour, Minute, Second, Milliseconds uint16
}

// SystemTimeOf converts t to a UTC SYSTEMTIME. Years outside 0..65535 are
// clamped, since SYSTEMTIME cannot hold them. Windows writers put their
// local time in a block's SYSTEMTIME, which SystemTimeIn gives.
func SystemTimeOf(t time.Time) SystemTime { return SystemTimeIn(t.UTC()) }

// SystemTimeIn is the SYSTEMTIME of t's fields in t's own location: what
// Windows writes in a block for its local time (SystemTimeIn(time.Now())).
// Years outside 0..65535 are clamped.
func SystemTimeIn(t time.Time) SystemTime {
	y := t.Year()
	if y < 0 {
		y = 0
	} else if y > 0xFFFF {
		y = 0xFFFF
	}
	return SystemTime{
		Year:         uint16(y),
		Month:        uint16(t.Month()),
		DayOfWeek:    uint16(t.Weekday()),
		Day:          uint16(t.Day()),
		Hour:         uint16(t.Hour()),
		Minute:       uint16(t.Minute()),
		Second:       uint16(t.Second()),
		Milliseconds: uint16(t.Nanosecond() / 1e6),
	}
}

// Time returns s as a UTC time.Time; DayOfWeek is ignored (it is redundant).
// Out-of-range fields normalise as in time.Date.
func (s SystemTime) Time() time.Time {
	return time.Date(int(s.Year), time.Month(s.Month), int(s.Day), int(s.Hour), int(s.Minute),
		int(s.Second), int(s.Milliseconds)*1e6, time.UTC)
}

func putSystemTime(b []byte, s SystemTime) {
	for i, v := range [8]uint16{s.Year, s.Month, s.DayOfWeek, s.Day, s.Hour, s.Minute, s.Second, s.Milliseconds} {
		le.PutUint16(b[2*i:], v)
	}
}

func getSystemTime(b []byte) SystemTime {
	u := func(i int) uint16 { return le.Uint16(b[2*i:]) }
	return SystemTime{u(0), u(1), u(2), u(3), u(4), u(5), u(6), u(7)}
}

func align8(n int) int { return (n + 7) &^ 7 }
