package pdhcsv

import "github.com/perfcounters/perfcounters/wintz"

// Format is the separator family of a PDH text log.
type Format int

// The text-log formats.
const (
	CSV Format = iota // comma-separated, header "(PDH-CSV 4.0)"
	TSV               // tab-separated, header "(PDH-TSV 4.0)"
)

// String returns "CSV" or "TSV".
func (f Format) String() string {
	if f == TSV {
		return "TSV"
	}
	return "CSV"
}

// sep is the cell separator.
func (f Format) sep() byte {
	if f == TSV {
		return '\t'
	}
	return ','
}

// tag is the first part of the first header cell.
func (f Format) tag() string {
	if f == TSV {
		return "(PDH-TSV 4.0)"
	}
	return "(PDH-CSV 4.0)"
}

// Style is the variant written: a PDH text log or typeperf's console output.
type Style int

// The styles.
const (
	StyleLog     Style = iota // files: time zone in the header, %.17g values
	StyleConsole              // typeperf's console: bare header tag, 6-decimal values
)

// Zone is the time zone a log's timestamps are written in, as the header
// names it ("Pacific Standard Time", bias 480): package wintz's.
type Zone = wintz.Zone

// TimeLayout is the timestamp layout of every PDH text log and of typeperf's
// console output: "MM/dd/yyyy HH:mm:ss.fff".
const TimeLayout = "01/02/2006 15:04:05.000"

// Value is one cell of a row: a number, or missing (written " ").
type Value struct {
	Number float64
	OK     bool // false: no value (written " ")
}
