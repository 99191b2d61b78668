// Package perflog opens and creates performance logs of every format
// perfc knows, for the tools that read and write them (relog, typeperf,
// the collector service and perfmon's log view): our own binary log (BIN, package binlog),
// Windows' BLG (package blg; written as a log of listed counters), PDH-CSV and TSV text logs
// (package pdhcsv), SQL log sets (package sqllog), and captured
// PERF_DATA_BLOCK files. Open reads any number of inputs of mixed formats
// as one recorded pdh.Source in time order; Create makes the recorder a
// tool writes a query's samples into.
//
// Inputs are recognised by what their bytes look like (Detect), their
// names only a hint: a binary log by its magic, a BLG by its first
// event-trace buffer header, a block by its "PERF" signature, a text log
// by its "(PDH-CSV 4.0)"/"(PDH-TSV 4.0)" header in any encoding, an SQL
// log set by its "SQL:" prefix. Other text goes to the text-log reader
// and other bytes to the BLG reader (or, named .plog, the binary log's),
// so each refusal speaks of the format the file evidently is and, when
// its name says another, adds that it is not that either; an empty file
// is refused as empty. Text logs are decoded as utf16le.TextReader
// decides: a byte-order mark, UTF-8, OpenOptions.CodePage, or the
// likeliest ANSI code page, with a note that names the file.
package perflog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
)

// Format is a log format as typeperf, relog and logman name it after -f.
type Format int

// The formats. Blocks are read, never written.
const (
	BIN    Format = iota + 1 // our binary log (.plog)
	CSV                      // PDH-CSV text log
	TSV                      // PDH-TSV text log
	SQL                      // an SQL log set, SQL:DSN!logset
	BLG                      // Windows' binary log
	Blocks                   // captured PERF_DATA_BLOCK files
)

// ParseFormat reads -f's value, case-insensitively: CSV, TSV, BIN, BLG
// or SQL. BIN is perfc's own binary log (.plog: smaller, crash-safe,
// appendable, circular); BLG is Windows' binary log, for Windows' tools.
func ParseFormat(s string) (Format, error) {
	switch strings.ToUpper(s) {
	case "BIN":
		return BIN, nil
	case "BLG":
		return BLG, nil
	case "CSV":
		return CSV, nil
	case "TSV":
		return TSV, nil
	case "SQL":
		return SQL, nil
	}
	return 0, fmt.Errorf("unknown log format %q (want CSV, TSV, BIN, BLG or SQL)", s)
}

// String is the format's name as -f spells it ("PERF_DATA_BLOCK" for
// the format only read).
func (f Format) String() string {
	switch f {
	case BIN:
		return "BIN"
	case CSV:
		return "CSV"
	case TSV:
		return "TSV"
	case SQL:
		return "SQL"
	case BLG:
		return "BLG"
	case Blocks:
		return "PERF_DATA_BLOCK"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// Kind is how relog's console report names an input of this format:
// "Binary" for binary logs (ours and Windows'), as Windows' relog does.
func (f Format) Kind() string {
	switch f {
	case BIN, BLG:
		return "Binary"
	}
	return f.String()
}

// Text reports a PDH text-log format and its separator family.
func (f Format) Text() (pdhcsv.Format, bool) {
	switch f {
	case CSV:
		return pdhcsv.CSV, true
	case TSV:
		return pdhcsv.TSV, true
	}
	return 0, false
}

// Extension is the file extension the format's files get: ".plog" for
// our binary log (it is not Windows' BLG, so it does not take .blg),
// ".csv", ".tsv"; "" for SQL.
func (f Format) Extension() string {
	switch f {
	case BIN:
		return ".plog"
	case CSV:
		return ".csv"
	case TSV:
		return ".tsv"
	case BLG:
		return ".blg"
	}
	return ""
}

// OutputName is the file relog and typeperf write for -o name: name with
// the format's extension added when it has none, as Windows' relog does
// ("-o c -f csv" writes c.csv). SQL destinations, "-" and a name that is
// already something other than a file or a directory (a device such as
// /dev/null or /dev/stdout, a named pipe) are unchanged.
func OutputName(name string, f Format) string {
	if name == "" || name == "-" || f == SQL || IsSQL(name) {
		return name
	}
	if filepath.Ext(name) != "" {
		return name
	}
	if fi, err := os.Stat(name); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		return name
	}
	return name + f.Extension()
}

// IsSQL reports an SQL destination or source: "SQL:DSN!logset".
func IsSQL(name string) bool {
	return len(name) >= 4 && strings.EqualFold(name[:4], "SQL:")
}
