// Package pdhcsv owns the PDH text-log formats: the comma- and tab-separated
// files ("PDH-CSV 4.0" / "PDH-TSV 4.0") that typeperf, relog, perfmon counter
// logs and PowerShell's Export-Counter write through PDH, and the console
// variant typeperf prints. It writes them byte for byte as Windows does and
// reads them back.
//
// # Layout (from the real files in shared/conformance/logs/)
//
// Log style (files, -o):
//
//		"(PDH-CSV 4.0) (Pacific Standard Time)(480)","\\host\object(instance)\counter",...
//		"11/26/2016 13:46:30.874"," ","86.93735103284412",...
//
//	  - The first header cell names the format, the time-zone name and the bias
//	    in minutes (UTC minus local time; Pacific Standard Time is 480). The
//	    name is Windows' standard or daylight name of the zone ("Pacific
//	    Daylight Time", 420), mapped from the IANA zone with CLDR's
//	    windowsZones table (wintz.At).
//	  - Every cell is quoted; cells are separated by ',' (CSV) or a TAB (TSV).
//	  - Timestamps are local time "MM/dd/yyyy HH:mm:ss.fff".
//	  - Values are C's "%.17g": 17 significant digits with trailing zeros
//	    removed ("2345.3290343446924", "0.33300142472592542", "0"). All 242
//	    values of CounterSamples.csv are reproduced by %.17g; shortest
//	    round-trip formatting would change 60 of them.
//	  - A missing value (the first sample of a rate counter) is " ".
//
// Console style (typeperf without -o): the first header cell is exactly
// "(PDH-CSV 4.0)" (or "(PDH-TSV 4.0)") without time zone, and values are
// fixed-point with 6 decimals ("0.000000", "176361472.000000").
//
// Line ends are LF by default, as the captured files are stored; CRLF, as
// Windows writes them, is an option.
//
// # Encodings
//
// A PDH text log carries no byte-order mark and names no encoding; a
// localized Windows writes it in its ANSI code page (a Spanish Windows'
// "Disco físico" is the byte ED for í, in 1252; a Russian one's names are
// in 1251; utf16le/CODEPAGES.md has the sources). Read and ReadLog decode
// the file as utf16le.TextReader decides: a byte-order mark (UTF-8,
// UTF-16LE or BE), UTF-16 without one by its zero bytes, valid UTF-8,
// else ReadOptions.CodePage (relog's -codepage), else the likeliest of
// Windows' 14 ANSI code pages, guessed from the non-ASCII bytes of the
// header. Log.Encoding says which; a guess is a note (Notes) that names
// the code page, those that read the bytes alike and those about as
// plausible, so that a user can name the right one. A byte the decided
// code page does not define is an error with its line and byte offset.
// ASCII files read as before, without a note.
//
// The Writer writes UTF-8 without a byte-order mark: every name kept
// exactly, and the bytes of ASCII logs as Windows writes them. Tools that
// want another encoding wrap the io.Writer in a utf16le.TextWriter (relog
// -ocodepage: utf-8-bom for Excel, which opens a .csv in the machine's
// ANSI code page unless it has a byte-order mark; utf-16; or an ANSI code
// page for Windows tools of that code page).
//
// # Reading leniently
//
// What Windows' own tools read is read, each departure noted once with
// its line (Notes), every value kept:
//
//   - a zone cell a localized Windows cut short ("(PDH-CSV 4.0) (RTZ 2
//     (", issue 29): a bias still at its end is kept; without one the zone
//     is UTC (ZoneUnknown, "Coordinated Universal Time"), the times the
//     wall-clock times written, their real offset unknown: a text log
//     written from it shows the same times;
//   - a quote not doubled inside a quoted cell (a collector set's
//     description): a quote ends a cell only before the separator or the
//     line's end (and, on a quoted line, before a quoted cell); else it is
//     the cell's;
//   - a last header cell that is no counter path: the user caption or
//     description PDH_LOG_USER_STRING writes there (Log.Description); the
//     rows need no cell for it;
//   - cells without quotes; a separator ending a line; a row with fewer
//     cells than the header (the missing values blank); a blank cell past
//     the header's; blank lines among the rows; CR LF, LF, or both;
//   - a last line the file ends inside, or inside one of whose characters
//     (ReadLog and Open): left out.
//
// Refused, with the file, line and cell: a first cell without the
// "(PDH-CSV 4.0)"/"(PDH-TSV 4.0)" tag ("a text file, but not a PDH text
// log: it starts ..."), a quoted cell the line ends inside, a value past
// the header's columns, a timestamp or a value that does not parse, more
// than MaxColumns columns or a line over MaxLine bytes of decoded text
// (UTF-8).
//
// # Text logs as a source
//
// Open and ReadLog return a Log that is a recorded pdh.Source, so every
// tool reads a text log like any other log. A text log holds formatted
// values only; as Windows' PDH does for text logs, each value becomes a
// counter of type PERF_DOUBLE_RAW whose raw value is the number's
// IEEE-754 bits, so pdh computes exactly the number in the cell. Each row
// is a sample: one PERF_DATA_BLOCK per machine, one object per object of
// the header's paths, one instance per instance (duplicates by #n and
// parent instances as the paths name them). A blank cell is a value the
// log does not hold: the sample's Problems mark it (ending with NoValue)
// and pdh gives it the status NoData, written as a blank again. Titles
// come from perflog/rawlog (English indexes for known names, spelled as
// the log spells them). Location is the header's zone under its own name,
// so text logs written from the Log carry the same header zone and times.
package pdhcsv
