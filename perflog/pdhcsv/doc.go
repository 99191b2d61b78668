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
