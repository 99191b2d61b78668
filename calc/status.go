package calc

import "fmt"

// Status is a PDH status code as found in PDH_FMT_COUNTERVALUE.CStatus and
// PDH_RAW_COUNTER.CStatus (values from pdhmsg.h, recorded in
// shared/conformance/winperf-constants.md §6). It implements error so that a
// caller can return a non-OK status directly.
type Status uint32

// PDH status codes, named after their pdhmsg.h spelling in Go form
// (PDH_CSTATUS_VALID_DATA -> ValidData, PDH_CALC_NEGATIVE_VALUE ->
// NegativeValue, ...). PDH_INVALID_DATA is PDHInvalidData so that it does
// not clash with PDH_CSTATUS_INVALID_DATA (InvalidData).
const (
	ValidData           Status = 0x00000000 // PDH_CSTATUS_VALID_DATA
	NewData             Status = 0x00000001 // PDH_CSTATUS_NEW_DATA
	NoMachine           Status = 0x800007D0 // PDH_CSTATUS_NO_MACHINE
	NoInstance          Status = 0x800007D1 // PDH_CSTATUS_NO_INSTANCE
	MoreData            Status = 0x800007D2 // PDH_MORE_DATA
	ItemNotValidated    Status = 0x800007D3 // PDH_CSTATUS_ITEM_NOT_VALIDATED
	Retry               Status = 0x800007D4 // PDH_RETRY
	NoData              Status = 0x800007D5 // PDH_NO_DATA
	NegativeDenominator Status = 0x800007D6 // PDH_CALC_NEGATIVE_DENOMINATOR
	NegativeTimebase    Status = 0x800007D7 // PDH_CALC_NEGATIVE_TIMEBASE
	NegativeValue       Status = 0x800007D8 // PDH_CALC_NEGATIVE_VALUE
	EndOfLogFile        Status = 0x800007DA // PDH_END_OF_LOG_FILE
	NoObject            Status = 0xC0000BB8 // PDH_CSTATUS_NO_OBJECT
	NoCounter           Status = 0xC0000BB9 // PDH_CSTATUS_NO_COUNTER
	InvalidData         Status = 0xC0000BBA // PDH_CSTATUS_INVALID_DATA
	InvalidHandle       Status = 0xC0000BBC // PDH_INVALID_HANDLE
	InvalidArgument     Status = 0xC0000BBD // PDH_INVALID_ARGUMENT
	NoCounterName       Status = 0xC0000BBF // PDH_CSTATUS_NO_COUNTERNAME
	BadCounterName      Status = 0xC0000BC0 // PDH_CSTATUS_BAD_COUNTERNAME
	InvalidPath         Status = 0xC0000BC4 // PDH_INVALID_PATH
	InvalidInstance     Status = 0xC0000BC5 // PDH_INVALID_INSTANCE
	PDHInvalidData      Status = 0xC0000BC6 // PDH_INVALID_DATA
	NoMoreData          Status = 0xC0000BCC // PDH_NO_MORE_DATA
	StringNotFound      Status = 0xC0000BD4 // PDH_STRING_NOT_FOUND
	UnknownLogFormat    Status = 0xC0000BD6 // PDH_UNKNOWN_LOG_FORMAT
	BinaryLogCorrupt    Status = 0xC0000BF7 // PDH_BINARY_LOG_CORRUPT
	LogSampleTooSmall   Status = 0xC0000BF8 // PDH_LOG_SAMPLE_TOO_SMALL
)

// OK reports PDH's success rule for a counter status: only
// PDH_CSTATUS_VALID_DATA and PDH_CSTATUS_NEW_DATA are success. Note that a
// formatted Value with NewData carries no number (see Value.HasValue).
func (s Status) OK() bool { return s == ValidData || s == NewData }

// String returns the pdhmsg.h name ("PDH_CALC_NEGATIVE_VALUE"), or
// "PDH_STATUS(0x…)" for a code this package does not name.
func (s Status) String() string {
	switch s {
	case ValidData:
		return "PDH_CSTATUS_VALID_DATA"
	case NewData:
		return "PDH_CSTATUS_NEW_DATA"
	case NoMachine:
		return "PDH_CSTATUS_NO_MACHINE"
	case NoInstance:
		return "PDH_CSTATUS_NO_INSTANCE"
	case MoreData:
		return "PDH_MORE_DATA"
	case ItemNotValidated:
		return "PDH_CSTATUS_ITEM_NOT_VALIDATED"
	case Retry:
		return "PDH_RETRY"
	case NoData:
		return "PDH_NO_DATA"
	case NegativeDenominator:
		return "PDH_CALC_NEGATIVE_DENOMINATOR"
	case NegativeTimebase:
		return "PDH_CALC_NEGATIVE_TIMEBASE"
	case NegativeValue:
		return "PDH_CALC_NEGATIVE_VALUE"
	case EndOfLogFile:
		return "PDH_END_OF_LOG_FILE"
	case NoObject:
		return "PDH_CSTATUS_NO_OBJECT"
	case NoCounter:
		return "PDH_CSTATUS_NO_COUNTER"
	case InvalidData:
		return "PDH_CSTATUS_INVALID_DATA"
	case InvalidHandle:
		return "PDH_INVALID_HANDLE"
	case InvalidArgument:
		return "PDH_INVALID_ARGUMENT"
	case NoCounterName:
		return "PDH_CSTATUS_NO_COUNTERNAME"
	case BadCounterName:
		return "PDH_CSTATUS_BAD_COUNTERNAME"
	case InvalidPath:
		return "PDH_INVALID_PATH"
	case InvalidInstance:
		return "PDH_INVALID_INSTANCE"
	case PDHInvalidData:
		return "PDH_INVALID_DATA"
	case NoMoreData:
		return "PDH_NO_MORE_DATA"
	case StringNotFound:
		return "PDH_STRING_NOT_FOUND"
	case UnknownLogFormat:
		return "PDH_UNKNOWN_LOG_FORMAT"
	case BinaryLogCorrupt:
		return "PDH_BINARY_LOG_CORRUPT"
	case LogSampleTooSmall:
		return "PDH_LOG_SAMPLE_TOO_SMALL"
	}
	return fmt.Sprintf("PDH_STATUS(0x%08X)", uint32(s))
}

// Error returns the status as an error message: "calc: " and the
// pdhmsg.h name with its hexadecimal value.
func (s Status) Error() string {
	return fmt.Sprintf("calc: %s (0x%08X)", s.String(), uint32(s))
}
