// Package countertype owns the vocabulary of Windows performance-counter types:
// the winperf.h constants in their winperf spelling, the bit fields they are
// built from (size, type, subtype, time base, calculation modifiers, display
// suffix), their manifest spelling, and which companion counter (base,
// precision timestamp, multi count, object timer) a type needs.
//
// The values and layouts come from winperf.h as recorded in
// shared/conformance/winperf-constants.md. Bit fields are read through named
// accessors and compared by equality; no caller should apply raw masks.
package countertype

import (
	"fmt"
	"strings"
)

// Type is a 32-bit counter type as stored in PERF_COUNTER_DEFINITION.CounterType.
type Type uint32

// Bit-field values (winperf.h). Masks are unexported; use the accessors.
const (
	PERF_SIZE_DWORD        Type = 0x00000000
	PERF_SIZE_LARGE        Type = 0x00000100
	PERF_SIZE_ZERO         Type = 0x00000200
	PERF_SIZE_VARIABLE_LEN Type = 0x00000300

	PERF_TYPE_NUMBER  Type = 0x00000000
	PERF_TYPE_COUNTER Type = 0x00000400
	PERF_TYPE_TEXT    Type = 0x00000800
	PERF_TYPE_ZERO    Type = 0x00000C00

	PERF_NUMBER_HEX      Type = 0x00000000
	PERF_NUMBER_DECIMAL  Type = 0x00010000
	PERF_NUMBER_DEC_1000 Type = 0x00020000

	PERF_COUNTER_VALUE     Type = 0x00000000
	PERF_COUNTER_RATE      Type = 0x00010000
	PERF_COUNTER_FRACTION  Type = 0x00020000
	PERF_COUNTER_BASE      Type = 0x00030000
	PERF_COUNTER_ELAPSED   Type = 0x00040000
	PERF_COUNTER_QUEUELEN  Type = 0x00050000
	PERF_COUNTER_HISTOGRAM Type = 0x00060000
	PERF_COUNTER_PRECISION Type = 0x00070000

	PERF_TEXT_UNICODE Type = 0x00000000
	PERF_TEXT_ASCII   Type = 0x00010000

	PERF_TIMER_TICK   Type = 0x00000000
	PERF_TIMER_100NS  Type = 0x00100000
	PERF_OBJECT_TIMER Type = 0x00200000

	PERF_DELTA_COUNTER   Type = 0x00400000
	PERF_DELTA_BASE      Type = 0x00800000
	PERF_INVERSE_COUNTER Type = 0x01000000
	PERF_MULTI_COUNTER   Type = 0x02000000

	PERF_DISPLAY_NO_SUFFIX Type = 0x00000000
	PERF_DISPLAY_PER_SEC   Type = 0x10000000
	PERF_DISPLAY_PERCENT   Type = 0x20000000
	PERF_DISPLAY_SECONDS   Type = 0x30000000
	PERF_DISPLAY_NOSHOW    Type = 0x40000000
)

const (
	maskSize    Type = 0x00000300
	maskType    Type = 0x00000C00
	maskSubtype Type = 0x000F0000
	maskTimer   Type = 0x00300000
	maskDisplay Type = 0x70000000
	maskSerial  Type = 0x000000FF
)

// The composite counter types of winperf.h.
const (
	PERF_COUNTER_RAWCOUNT_HEX           Type = 0x00000000
	PERF_COUNTER_LARGE_RAWCOUNT_HEX     Type = 0x00000100
	PERF_COUNTER_TEXT                   Type = 0x00000B00
	PERF_COUNTER_RAWCOUNT               Type = 0x00010000
	PERF_COUNTER_LARGE_RAWCOUNT         Type = 0x00010100
	PERF_DOUBLE_RAW                     Type = 0x00012000 // PDH-internal: values read back from text logs
	PERF_COUNTER_DELTA                  Type = 0x00400400
	PERF_COUNTER_LARGE_DELTA            Type = 0x00400500
	PERF_SAMPLE_COUNTER                 Type = 0x00410400
	PERF_COUNTER_QUEUELEN_TYPE          Type = 0x00450400
	PERF_COUNTER_LARGE_QUEUELEN_TYPE    Type = 0x00450500
	PERF_COUNTER_100NS_QUEUELEN_TYPE    Type = 0x00550500
	PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE Type = 0x00650500
	PERF_COUNTER_COUNTER                Type = 0x10410400
	PERF_COUNTER_BULK_COUNT             Type = 0x10410500
	PERF_RAW_FRACTION                   Type = 0x20020400
	PERF_LARGE_RAW_FRACTION             Type = 0x20020500
	PERF_COUNTER_TIMER                  Type = 0x20410500
	PERF_PRECISION_SYSTEM_TIMER         Type = 0x20470500
	PERF_100NSEC_TIMER                  Type = 0x20510500
	PERF_PRECISION_100NS_TIMER          Type = 0x20570500
	PERF_OBJ_TIME_TIMER                 Type = 0x20610500
	PERF_PRECISION_OBJECT_TIMER         Type = 0x20670500
	PERF_SAMPLE_FRACTION                Type = 0x20C20400
	PERF_COUNTER_TIMER_INV              Type = 0x21410500
	PERF_100NSEC_TIMER_INV              Type = 0x21510500
	PERF_COUNTER_MULTI_TIMER            Type = 0x22410500
	PERF_100NSEC_MULTI_TIMER            Type = 0x22510500
	PERF_COUNTER_MULTI_TIMER_INV        Type = 0x23410500
	PERF_100NSEC_MULTI_TIMER_INV        Type = 0x23510500
	PERF_AVERAGE_TIMER                  Type = 0x30020400
	PERF_ELAPSED_TIME                   Type = 0x30240500
	PERF_COUNTER_NODATA                 Type = 0x40000200
	PERF_AVERAGE_BULK                   Type = 0x40020500
	PERF_SAMPLE_BASE                    Type = 0x40030401
	PERF_AVERAGE_BASE                   Type = 0x40030402
	PERF_RAW_BASE                       Type = 0x40030403
	PERF_LARGE_RAW_BASE                 Type = 0x40030500
	PERF_PRECISION_TIMESTAMP            Type = PERF_LARGE_RAW_BASE // alias in winperf.h
	PERF_COUNTER_MULTI_BASE             Type = 0x42030500
	PERF_COUNTER_HISTOGRAM_TYPE         Type = 0x80000000
)

// info describes one composite type.
type info struct {
	t    Type
	name string // winperf spelling
	base Type   // base type required in the next definition, 0 if none
}

// known lists every composite type once (PERF_PRECISION_TIMESTAMP is an alias
// of PERF_LARGE_RAW_BASE and is accepted by Parse only). Order is winperf.h's.
var known = [...]info{
	{PERF_COUNTER_RAWCOUNT_HEX, "PERF_COUNTER_RAWCOUNT_HEX", 0},
	{PERF_COUNTER_LARGE_RAWCOUNT_HEX, "PERF_COUNTER_LARGE_RAWCOUNT_HEX", 0},
	{PERF_COUNTER_TEXT, "PERF_COUNTER_TEXT", 0},
	{PERF_COUNTER_RAWCOUNT, "PERF_COUNTER_RAWCOUNT", 0},
	{PERF_COUNTER_LARGE_RAWCOUNT, "PERF_COUNTER_LARGE_RAWCOUNT", 0},
	{PERF_DOUBLE_RAW, "PERF_DOUBLE_RAW", 0},
	{PERF_COUNTER_DELTA, "PERF_COUNTER_DELTA", 0},
	{PERF_COUNTER_LARGE_DELTA, "PERF_COUNTER_LARGE_DELTA", 0},
	{PERF_SAMPLE_COUNTER, "PERF_SAMPLE_COUNTER", 0},
	{PERF_COUNTER_QUEUELEN_TYPE, "PERF_COUNTER_QUEUELEN_TYPE", 0},
	{PERF_COUNTER_LARGE_QUEUELEN_TYPE, "PERF_COUNTER_LARGE_QUEUELEN_TYPE", 0},
	{PERF_COUNTER_100NS_QUEUELEN_TYPE, "PERF_COUNTER_100NS_QUEUELEN_TYPE", 0},
	{PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE, "PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE", 0},
	{PERF_COUNTER_COUNTER, "PERF_COUNTER_COUNTER", 0},
	{PERF_COUNTER_BULK_COUNT, "PERF_COUNTER_BULK_COUNT", 0},
	{PERF_RAW_FRACTION, "PERF_RAW_FRACTION", PERF_RAW_BASE},
	{PERF_LARGE_RAW_FRACTION, "PERF_LARGE_RAW_FRACTION", PERF_LARGE_RAW_BASE},
	{PERF_COUNTER_TIMER, "PERF_COUNTER_TIMER", 0},
	{PERF_PRECISION_SYSTEM_TIMER, "PERF_PRECISION_SYSTEM_TIMER", PERF_PRECISION_TIMESTAMP},
	{PERF_100NSEC_TIMER, "PERF_100NSEC_TIMER", 0},
	{PERF_PRECISION_100NS_TIMER, "PERF_PRECISION_100NS_TIMER", PERF_PRECISION_TIMESTAMP},
	{PERF_OBJ_TIME_TIMER, "PERF_OBJ_TIME_TIMER", 0},
	{PERF_PRECISION_OBJECT_TIMER, "PERF_PRECISION_OBJECT_TIMER", PERF_PRECISION_TIMESTAMP},
	{PERF_SAMPLE_FRACTION, "PERF_SAMPLE_FRACTION", PERF_SAMPLE_BASE},
	{PERF_COUNTER_TIMER_INV, "PERF_COUNTER_TIMER_INV", 0},
	{PERF_100NSEC_TIMER_INV, "PERF_100NSEC_TIMER_INV", 0},
	{PERF_COUNTER_MULTI_TIMER, "PERF_COUNTER_MULTI_TIMER", 0},
	{PERF_100NSEC_MULTI_TIMER, "PERF_100NSEC_MULTI_TIMER", 0},
	{PERF_COUNTER_MULTI_TIMER_INV, "PERF_COUNTER_MULTI_TIMER_INV", PERF_COUNTER_MULTI_BASE},
	{PERF_100NSEC_MULTI_TIMER_INV, "PERF_100NSEC_MULTI_TIMER_INV", PERF_COUNTER_MULTI_BASE},
	{PERF_AVERAGE_TIMER, "PERF_AVERAGE_TIMER", PERF_AVERAGE_BASE},
	{PERF_ELAPSED_TIME, "PERF_ELAPSED_TIME", 0},
	{PERF_COUNTER_NODATA, "PERF_COUNTER_NODATA", 0},
	{PERF_AVERAGE_BULK, "PERF_AVERAGE_BULK", PERF_AVERAGE_BASE},
	{PERF_SAMPLE_BASE, "PERF_SAMPLE_BASE", 0},
	{PERF_AVERAGE_BASE, "PERF_AVERAGE_BASE", 0},
	{PERF_RAW_BASE, "PERF_RAW_BASE", 0},
	{PERF_LARGE_RAW_BASE, "PERF_LARGE_RAW_BASE", 0},
	{PERF_COUNTER_MULTI_BASE, "PERF_COUNTER_MULTI_BASE", 0},
	{PERF_COUNTER_HISTOGRAM_TYPE, "PERF_COUNTER_HISTOGRAM_TYPE", 0},
}

// All returns every documented composite type, in winperf.h order, once each
// (the alias PERF_PRECISION_TIMESTAMP is not repeated).
func All() []Type {
	out := make([]Type, len(known))
	for i, k := range known {
		out[i] = k.t
	}
	return out
}

func lookup(t Type) (info, bool) {
	for _, k := range known {
		if k.t == t {
			return k, true
		}
	}
	return info{}, false
}

// Known reports whether t is one of the documented composite types.
func (t Type) Known() bool { _, ok := lookup(t); return ok }

// String returns the winperf spelling ("PERF_100NSEC_TIMER_INV"), or
// "CounterType(0x…)" for an undocumented value.
func (t Type) String() string {
	if k, ok := lookup(t); ok {
		return k.name
	}
	return fmt.Sprintf("CounterType(0x%08X)", uint32(t))
}

// ManifestName returns the spelling used by instrumentation manifests
// ("perf_100nsec_timer_inv"); empty for an undocumented value.
func (t Type) ManifestName() string {
	if k, ok := lookup(t); ok {
		return strings.ToLower(k.name)
	}
	return ""
}

// Parse accepts a type by either spelling (case-insensitive), including the
// alias PERF_PRECISION_TIMESTAMP, or as a decimal or 0x-prefixed hex number
// naming a documented type.
func Parse(s string) (Type, error) {
	u := strings.ToUpper(strings.TrimSpace(s))
	if u == "PERF_PRECISION_TIMESTAMP" {
		return PERF_PRECISION_TIMESTAMP, nil
	}
	for _, k := range known {
		if k.name == u {
			return k.t, nil
		}
	}
	var v uint32
	if _, err := fmt.Sscanf(strings.ToLower(u), "0x%x", &v); err == nil && strings.HasPrefix(strings.ToLower(u), "0x") {
		if Type(v).Known() {
			return Type(v), nil
		}
	} else if _, err := fmt.Sscanf(u, "%d", &v); err == nil && fmt.Sprint(v) == u {
		if Type(v).Known() {
			return Type(v), nil
		}
	}
	return 0, fmt.Errorf("countertype: unknown counter type %q", s)
}

// Size returns the size field (PERF_SIZE_DWORD, _LARGE, _ZERO, _VARIABLE_LEN).
// Readers must use PERF_COUNTER_DEFINITION.CounterSize to read a value; this
// field is what the type declares.
func (t Type) Size() Type { return t & maskSize }

// ByteSize returns the declared value width in bytes: 4, 8, 0 (zero or
// variable length).
func (t Type) ByteSize() int {
	switch t.Size() {
	case PERF_SIZE_DWORD:
		return 4
	case PERF_SIZE_LARGE:
		return 8
	}
	return 0
}

// Kind returns the type field (PERF_TYPE_NUMBER, _COUNTER, _TEXT, _ZERO).
func (t Type) Kind() Type { return t & maskType }

// Subtype returns the subtype field; its meaning depends on Kind.
func (t Type) Subtype() Type { return t & maskSubtype }

// TimeBase returns the timer field (PERF_TIMER_TICK, _100NS, PERF_OBJECT_TIMER).
func (t Type) TimeBase() Type { return t & maskTimer }

// Delta reports PERF_DELTA_COUNTER: the value is a difference of two samples.
func (t Type) Delta() bool { return t&PERF_DELTA_COUNTER != 0 }

// DeltaBase reports PERF_DELTA_BASE: the base is differenced too.
func (t Type) DeltaBase() bool { return t&PERF_DELTA_BASE != 0 }

// Inverse reports PERF_INVERSE_COUNTER: 100 % minus the measured fraction.
func (t Type) Inverse() bool { return t&PERF_INVERSE_COUNTER != 0 }

// Multi reports PERF_MULTI_COUNTER: a number-of-items value divides the result.
func (t Type) Multi() bool { return t&PERF_MULTI_COUNTER != 0 }

// Display returns the display-suffix field.
func (t Type) Display() Type { return t & maskDisplay }

// Histogram reports the PERF_COUNTER_HISTOGRAM_TYPE bit.
func (t Type) Histogram() bool { return t&PERF_COUNTER_HISTOGRAM_TYPE != 0 }

// NoShow reports PERF_DISPLAY_NOSHOW. It is informational: PERF_AVERAGE_BULK
// carries it yet perfmon shows such counters; use IsBase to hide bases.
func (t Type) NoShow() bool { return t.Display() == PERF_DISPLAY_NOSHOW }

// Suffix returns the display suffix as text: "/sec", "%", "secs" or "".
func (t Type) Suffix() string {
	switch t.Display() {
	case PERF_DISPLAY_PER_SEC:
		return "/sec"
	case PERF_DISPLAY_PERCENT:
		return "%"
	case PERF_DISPLAY_SECONDS:
		return "secs"
	}
	return ""
}

// IsBase reports whether t is a base or precision-timestamp counter, which is
// never displayed and only feeds the counter defined just before it. It
// compares the whole type field and subtype, so PERF_COUNTER_PRECISION
// (subtype 7) is not mistaken for a base (subtype 3).
func (t Type) IsBase() bool {
	return !t.Histogram() && t.Kind() == PERF_TYPE_COUNTER && t.Subtype() == PERF_COUNTER_BASE
}

// IsText reports a text counter (PERF_TYPE_TEXT).
func (t Type) IsText() bool { return t.Kind() == PERF_TYPE_TEXT }

// Base returns the base type that must follow a counter of type t in the
// definition list (PERF_RAW_BASE for PERF_RAW_FRACTION, the precision
// timestamp for PERF_PRECISION_* timers, ...). ok is false when t needs none.
// PERF_COUNTER_MULTI_TIMER and PERF_100NSEC_MULTI_TIMER carry their item
// count in the counter block right after the value, not in a base definition.
func (t Type) Base() (base Type, ok bool) {
	k, found := lookup(t)
	if !found || k.base == 0 {
		return 0, false
	}
	return k.base, true
}

// NeedsBase reports whether t needs a base definition right after it.
func (t Type) NeedsBase() bool { _, ok := t.Base(); return ok }

// AcceptsBase reports whether a definition of type b can serve as the base of
// a counter of type t. Besides the exact type, a DWORD raw base is accepted
// where the large one is declared and vice versa, because real providers mix
// the widths (readers use CounterSize).
func (t Type) AcceptsBase(b Type) bool {
	want, ok := t.Base()
	if !ok {
		return false
	}
	if b == want {
		return true
	}
	raw := func(x Type) bool { return x == PERF_RAW_BASE || x == PERF_LARGE_RAW_BASE }
	return t.Subtype() == PERF_COUNTER_FRACTION && raw(want) && raw(b)
}

// NeedsTwoSamples reports whether a formatted value needs two samples.
// Fractions of a delta base (PERF_SAMPLE_FRACTION, PERF_AVERAGE_*) and
// precision timers are differences even where the delta bit is clear.
func (t Type) NeedsTwoSamples() bool {
	switch t {
	case PERF_AVERAGE_TIMER, PERF_AVERAGE_BULK:
		return true
	}
	return t.Delta()
}

// UsesObjectTimer reports PERF_OBJECT_TIMER: the object's PerfTime/PerfFreq
// are the time stamps.
func (t Type) UsesObjectTimer() bool { return t.TimeBase() == PERF_OBJECT_TIMER }
