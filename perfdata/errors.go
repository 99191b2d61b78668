package perfdata

import (
	"errors"
	"fmt"
)

// FormatError describes malformed performance data: where (byte offset of
// the offending field from the start of the buffer handed to Parse or
// CheckObjects), which structure and field, the value found and what is
// wrong with it.
type FormatError struct {
	Offset int    // byte offset of the field (or structure, when Field is empty)
	Struct string // winperf.h structure name, e.g. "PERF_INSTANCE_DEFINITION"
	Field  string // field name; empty when the structure as a whole is at fault
	Value  int64  // the value read from the field
	Msg    string // what is wrong, lower case
	// Err is the named integrity error (ErrTotalMismatch, ...) a CheckObjects
	// failure stands for; nil for plain format errors from Parse.
	Err error
}

// Error formats the error as
// "offset 0x1a8: PERF_INSTANCE_DEFINITION.ByteLength = 12: not a multiple of 8"
// (no package name: callers say which file or provider the bytes came from).
func (e *FormatError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("offset %#x: %s: %s", e.Offset, e.Struct, e.Msg)
	}
	return fmt.Sprintf("offset %#x: %s.%s = %d: %s", e.Offset, e.Struct, e.Field, e.Value, e.Msg)
}

// Unwrap returns the named integrity error, so errors.Is(err, ErrTotalMismatch) works.
func (e *FormatError) Unwrap() error { return e.Err }

// ErrMoreData is the buffer protocol's "buffer too small" (ERROR_MORE_DATA):
// the caller retries with a larger buffer. The engine and V1 collectors use it.
var ErrMoreData = errors.New("perfdata: buffer too small")

// Named integrity failures of CheckObjects (the Perflib ExtCounterTestLevel
// tests, seed 002) and CheckAlignment. Each is a distinct cause; the
// *FormatError that carries one says where it happened.
var (
	// ErrCountMismatch: bytes were returned but no object was counted, or
	// objects were counted but no bytes returned (levels 1 and 2).
	ErrCountMismatch = errors.New("perfdata: object count and byte count disagree")
	// ErrObjectTooShort: an object's TotalByteLength is smaller than its
	// 64-byte header, so the walk could not advance past it (levels 1 and 2).
	ErrObjectTooShort = errors.New("perfdata: object shorter than its header")
	// ErrObjectOverrun: an object runs past the bytes returned (levels 1 and 2).
	ErrObjectOverrun = errors.New("perfdata: object runs past the returned bytes")
	// ErrTotalMismatch: the sum of the objects' TotalByteLength differs from
	// the byte count returned (level 1).
	ErrTotalMismatch = errors.New("perfdata: object lengths do not add up to the byte count")
	// ErrObjectInvalid: an object's header, counter definitions or counter
	// offsets are inconsistent (level 1: the pointers inside are followed).
	ErrObjectInvalid = errors.New("perfdata: object structure is inconsistent")
	// ErrInstanceOverrun: an instance or its counter block runs past the end
	// of its object (level 1).
	ErrInstanceOverrun = errors.New("perfdata: instance runs past its object")
	// ErrInstanceChain: the instance ByteLength chain does not end exactly at
	// the end of its object (level 1).
	ErrInstanceChain = errors.New("perfdata: instance lengths do not end at the object end")
	// ErrMisaligned: a length Windows requires to be a multiple of 8 is not
	// (CheckAlignment; Perflib's alignment test of plug-in buffers).
	ErrMisaligned = errors.New("perfdata: length not a multiple of 8")
)

func ferr(off int, st, field string, v int64, msg string, args ...any) *FormatError {
	if len(args) > 0 {
		msg = fmt.Sprintf(msg, args...)
	}
	return &FormatError{Offset: off, Struct: st, Field: field, Value: v, Msg: msg}
}

// cerr is ferr for a named integrity failure.
func cerr(named error, off int, st, field string, v int64, msg string, args ...any) *FormatError {
	e := ferr(off, st, field, v, msg, args...)
	e.Err = named
	return e
}

const (
	sDataBlock = "PERF_DATA_BLOCK"
	sObject    = "PERF_OBJECT_TYPE"
	sCounter   = "PERF_COUNTER_DEFINITION"
	sInstance  = "PERF_INSTANCE_DEFINITION"
	sBlock     = "PERF_COUNTER_BLOCK"
)
