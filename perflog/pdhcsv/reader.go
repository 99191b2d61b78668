package pdhcsv

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/perfcounters/perfcounters/utf16le"
	"github.com/perfcounters/perfcounters/wintz"
)

// Log is a PDH text log read back: its header and rows. A Log that Open
// or ReadLog returned is also a recorded pdh.Source (source.go).
type Log struct {
	Format Format
	// Style is StyleConsole when the header's first cell carries no time zone
	// (typeperf's console output saved to a file).
	Style Style
	// Zone is the header's zone: zero in Console style, UTC (ZoneUnknown)
	// when the header's zone cell cannot be read.
	Zone    Zone
	Columns []string
	// Description is the last header cell when it is not a counter path:
	// the user caption or log description PDH writes there
	// (PDH_LOG_USER_STRING), with no column of values.
	Description string
	Rows        []Row
	// Encoding is how the file's text was decoded (utf16le.TextReader):
	// a byte-order mark, UTF-8, the code page named, or a guess.
	Encoding utf16le.Decision

	src *source // set by Open and ReadLog: the log as a pdh.Source
}

// ZoneUnknown is the zone of a log whose header's zone cell cannot be
// read (a localized Windows that cut the zone's name short): UTC, under
// Windows' name for it. Its times are the wall-clock times the log
// holds, as if they were UTC: a text log written from it shows the same
// times; their offset from UTC is not known.
func ZoneUnknown() Zone {
	name, _ := wintz.WindowsNames("UTC")
	return Zone{Name: name}
}

// Row is one sample of a log.
type Row struct {
	Time   time.Time
	Values []Value
}

// ReadError names the file, line and cell of malformed input.
type ReadError struct {
	File       string // "" when the log was read from a stream without a name
	Line, Cell int    // 1-based; Cell 0 means the line as a whole (cell 1 is the timestamp)
	Msg        string
}

func (e *ReadError) Error() string {
	where := e.File
	if where == "" {
		where = "text log"
	}
	if e.Cell > 0 {
		return fmt.Sprintf("%s: line %d, cell %d: %s", where, e.Line, e.Cell, e.Msg)
	}
	return fmt.Sprintf("%s: line %d: %s", where, e.Line, e.Msg)
}

// Limits on what a text log may hold: memory stays linear in the input.
const (
	// MaxLine bounds one line, in bytes of the decoded text (UTF-8,
	// whatever the file's encoding): a header of thousands of counter
	// paths fits.
	MaxLine = 16 << 20
	// MaxColumns bounds the counter columns of the header.
	MaxColumns = 1 << 17
)

// config is how read treats its input.
type config struct {
	file string
	// codePage names the code page of text that does not say its own
	// (utf16le.NewTextReader).
	codePage utf16le.CodePage
	// tornTail accepts a last line that is incomplete (no line end and a
	// cell missing or unterminated: a writer killed mid-row) by dropping
	// it with a note, instead of failing.
	tornTail bool
	notes    *[]string
}

// quirks are the departures from the format a reader forgives, each told
// once (the line where it was first seen).
type quirks struct {
	notes *[]string
	seen  map[string]bool
}

// note tells of a quirk the first time it is seen.
func (q *quirks) note(kind string, line int, msg string) {
	if q.notes == nil || q.seen[kind] {
		return
	}
	if q.seen == nil {
		q.seen = map[string]bool{}
	}
	q.seen[kind] = true
	*q.notes = append(*q.notes, fmt.Sprintf("line %d: %s", line, msg))
}

// Read reads a PDH-CSV or PDH-TSV log, or typeperf console output (whose
// leading blank line and closing messages are skipped). Timestamps of a
// log are read in the zone its header names (a fixed offset); those of
// console output, which names none, in loc (nil: time.Local). The text
// is decoded as utf16le.NewTextReader decides (Log.Encoding says how).
//
// A header whose first cell lacks the "(PDH-CSV 4.0)" / "(PDH-TSV 4.0)"
// tag is rejected, as PDH rejects it (the CorruptBlg.blg test file).
// What Windows' own tools read is read (doc.go, "Reading leniently").
func Read(r io.Reader, loc *time.Location) (*Log, error) {
	return read(r, loc, config{})
}

func read(r io.Reader, loc *time.Location, cfg config) (*Log, error) {
	if loc == nil {
		loc = time.Local
	}
	tr := utf16le.NewTextReader(r, cfg.codePage)
	br := bufio.NewReaderSize(tr, 64<<10)
	q := &quirks{notes: cfg.notes}
	var lg *Log
	var buf []byte
	line := 0
	ends := "" // the first line's end, "LF" or "CR LF"
	for {
		var complete bool
		var err error
		buf, complete, err = nextLine(br, buf[:0])
		if errors.Is(err, io.EOF) {
			break
		}
		line++
		var de *utf16le.DecodeError
		if errors.As(err, &de) {
			if de.AtEnd && cfg.tornTail && lg != nil {
				*cfg.notes = append(*cfg.notes, fmt.Sprintf("line %d, the last, ends inside a character (the file is cut short); it is left out", de.Line))
				break
			}
			return nil, decodeError(cfg.file, de)
		}
		if err != nil {
			if errors.Is(err, errLineTooLong) {
				return nil, &ReadError{File: cfg.file, Line: line, Msg: err.Error()}
			}
			return nil, fmt.Errorf("%s: line %d: %w", orText(cfg.file), line, err)
		}
		crlf := len(buf) > 0 && buf[len(buf)-1] == '\r'
		switch {
		case !complete:
		case ends == "":
			ends = map[bool]string{true: "CR LF", false: "LF"}[crlf]
		case ends != map[bool]string{true: "CR LF", false: "LF"}[crlf]:
			q.note("ends", line, fmt.Sprintf("lines end in both LF and CR LF (the first in %s); read alike", ends))
		}
		text := bytes.TrimSuffix(buf, []byte{'\r'})
		if lg == nil {
			if len(text) == 0 {
				continue // typeperf's console output starts with a blank line
			}
			h, err := parseHeader(text, line, cfg.file, q)
			if err != nil {
				return nil, err
			}
			lg = h
			if lg.Style == StyleLog {
				loc = lg.Zone.Location()
			}
			continue
		}
		if !complete && cfg.tornTail && len(text) > 0 {
			// The last line, without its end: a writer stopped inside it
			// when it lacks cells or cannot be read.
			if _, short, err := parseRow(lg, text, line, loc, cfg.file, &quirks{}); err != nil || short {
				why := fmt.Sprintf("%v", err)
				if err == nil {
					why = "cells missing"
				}
				*cfg.notes = append(*cfg.notes, fmt.Sprintf("line %d, the last, is incomplete (the file ends inside it: %s); it is left out", line, why))
				break
			}
		}
		row, short, err := parseRow(lg, text, line, loc, cfg.file, q)
		if err != nil {
			return nil, err
		}
		if short {
			q.note("short", line, fmt.Sprintf("fewer cells than the header's %d: the missing values are blank", len(lg.Columns)+1))
		}
		if row != nil {
			lg.Rows = append(lg.Rows, *row)
		}
	}
	if lg == nil {
		if line == 0 {
			return nil, &ReadError{File: cfg.file, Line: 1, Msg: "no header: the file is empty"}
		}
		return nil, &ReadError{File: cfg.file, Line: line + 1, Msg: "no header: only blank lines"}
	}
	lg.Encoding = tr.Decision()
	if cfg.notes != nil {
		if d := lg.Encoding; d.Assumed() || d.Overruled() {
			msg := d.String()
			if d.By == utf16le.ByGuess {
				msg += "; if its names look wrong, name its code page (-codepage)"
			}
			*cfg.notes = append([]string{msg}, *cfg.notes...)
		}
	}
	return lg, nil
}

// decodeError says where the text cannot be decoded, and what to do.
func decodeError(file string, de *utf16le.DecodeError) error {
	msg := fmt.Sprintf("byte %d: %s", de.Offset, de.Msg)
	switch de.Decision.By {
	case utf16le.ByGuess, utf16le.ByUTF8:
		msg += fmt.Sprintf(", though the text before it read as %s: name the log's code page (-codepage)", de.Decision.CodePage.Describe())
	case utf16le.ByCaller:
		msg += " (the code page named)"
	}
	return &ReadError{File: file, Line: de.Line, Msg: msg}
}

var errLineTooLong = fmt.Errorf("line longer than %d bytes of decoded text (counted in UTF-8: a UTF-16 file's line may take up to twice that in the file)", MaxLine)

// nextLine appends the next line of br to buf, without its line end;
// complete says the line ended with one. io.EOF when there is none.
func nextLine(br *bufio.Reader, buf []byte) ([]byte, bool, error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > MaxLine+1 {
			return buf, false, errLineTooLong
		}
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			return buf[:len(buf)-1], true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(buf) == 0 {
				return buf, false, io.EOF
			}
			return buf, false, nil
		default:
			return buf, false, err
		}
	}
}

// parseRow reads one data line; nil for a line console output may hold
// besides rows, and for a blank line. A row with fewer cells than the
// header (short) lacks the last values (blank); cells past the header's
// must be blank.
func parseRow(lg *Log, text []byte, line int, loc *time.Location, file string, q *quirks) (row *Row, short bool, err error) {
	if lg.Style == StyleConsole && (len(text) == 0 || text[0] != '"') {
		return nil, false, nil // "Exiting, please wait..." and the like
	}
	if len(bytes.TrimSpace(text)) == 0 {
		q.note("blank", line, "a blank line among the rows (left out)")
		return nil, false, nil
	}
	want := len(lg.Columns) + 1
	cells, err := splitCells(text, lg.Format.sep(), line, file, want+1, q)
	if err != nil {
		return nil, false, err
	}
	t, err := time.ParseInLocation(TimeLayout, cells[0], loc)
	if err != nil {
		return nil, false, &ReadError{File: file, Line: line, Cell: 1, Msg: fmt.Sprintf("timestamp %q: want MM/dd/yyyy HH:mm:ss.fff", cells[0])}
	}
	switch {
	case len(cells) > want:
		if c := cells[want]; strings.TrimSpace(c) != "" {
			return nil, false, &ReadError{File: file, Line: line, Cell: want + 1, Msg: fmt.Sprintf("more than %d cells, the header's: %q has no column", want, c)}
		}
		if lg.Description == "" {
			q.note("extra", line, fmt.Sprintf("a blank cell past the header's %d (left out)", want))
		}
		cells = cells[:want]
	}
	short = len(cells) < want
	r := Row{Time: t, Values: make([]Value, len(lg.Columns))}
	for i, c := range cells[1:] {
		if c == " " || c == "" {
			continue
		}
		v, err := strconv.ParseFloat(c, 64)
		if err != nil {
			return nil, false, &ReadError{File: file, Line: line, Cell: i + 2, Msg: fmt.Sprintf("value %q of %s is not a number", c, lg.Columns[i])}
		}
		r.Values[i] = Value{Number: v, OK: true}
	}
	return &r, short, nil
}

func orText(file string) string {
	if file == "" {
		return "text log"
	}
	return file
}

// parseHeader reads the header line: the format's tag and zone, the
// counter paths, and a last cell that is no counter path (the log's
// description).
func parseHeader(text []byte, line int, file string, q *quirks) (*Log, error) {
	lg := &Log{}
	tag := bytes.TrimPrefix(text, []byte{'"'})
	switch {
	case bytes.HasPrefix(tag, []byte("(PDH-CSV 4.0)")):
		lg.Format = CSV
	case bytes.HasPrefix(tag, []byte("(PDH-TSV 4.0)")):
		lg.Format = TSV
	default:
		return nil, &ReadError{File: file, Line: line, Cell: 1, Msg: fmt.Sprintf(`a text file, but not a PDH text log: it starts %q, not "(PDH-CSV 4.0)" or "(PDH-TSV 4.0)"`, clip(text, 48))}
	}
	cells, err := splitCells(text, lg.Format.sep(), line, file, MaxColumns+1, q)
	if err != nil {
		return nil, err
	}
	first := strings.TrimPrefix(cells[0], lg.Format.tag())
	if strings.TrimSpace(first) == "" {
		lg.Style = StyleConsole
	} else {
		z, ok := parseZone(first)
		if !ok {
			z = ZoneUnknown()
			if name, bias, ok := cutBias(first); ok {
				z = Zone{Name: name, Bias: bias}
				q.note("zone", line, fmt.Sprintf("the time zone cell %q is malformed (its name cut short?): read as %q with the bias it gives, %d minutes", cells[0], z.Name, bias))
			} else {
				q.note("zone", line, fmt.Sprintf("the time zone cell %q cannot be read (a localized Windows cut it short): its times are read as UTC, the wall-clock times as written, their real zone unknown", cells[0]))
			}
		}
		lg.Zone = z
	}
	lg.Columns = cells[1:]
	if n := len(lg.Columns); n > 0 && lg.Columns[n-1] != "" && !strings.HasPrefix(lg.Columns[n-1], `\`) {
		lg.Description = lg.Columns[n-1]
		lg.Columns = lg.Columns[:n-1]
		q.note("description", line, fmt.Sprintf("the last header cell %q is no counter path: taken for the log's description", clip([]byte(lg.Description), 64)))
	}
	return lg, nil
}

// clip shortens b for a message.
func clip(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return string(b[:n]) + "..."
}

// parseZone reads " (Pacific Standard Time)(480)".
func parseZone(s string) (Zone, bool) {
	s, ok := strings.CutPrefix(s, " (")
	if !ok || !strings.HasSuffix(s, ")") {
		return Zone{}, false
	}
	i := strings.LastIndex(s, ")(")
	if i < 0 {
		return Zone{}, false
	}
	bias, err := strconv.Atoi(s[i+2 : len(s)-1])
	if err != nil || bias < -24*60 || bias > 24*60 {
		return Zone{}, false
	}
	return Zone{Name: s[:i], Bias: bias}, true
}

// cutBias finds the bias "(480)" that ends a malformed zone cell, and
// the name before it (" (RTZ 2 ((-180)": "RTZ 2 (", -180).
func cutBias(s string) (string, int, bool) {
	s = strings.TrimSpace(s)
	i := strings.LastIndexByte(s, '(')
	if i < 0 || !strings.HasSuffix(s, ")") {
		return "", 0, false
	}
	bias, err := strconv.Atoi(s[i+1 : len(s)-1])
	if err != nil || bias < -24*60 || bias > 24*60 {
		return "", 0, false
	}
	return strings.TrimPrefix(s[:i], "("), bias, true
}

// splitCells splits a line into at most limit cells, as PDH writes them
// (every cell quoted, a quote inside doubled) and as Windows' tools read
// them besides:
//
//   - a quote not doubled inside a quoted cell (a collector set's
//     description) is a quote of the cell: a quote ends the cell only
//     before the separator or the line's end, and, on a line whose first
//     cell is quoted, only when the next cell starts with a quote too;
//   - a cell without quotes runs to the next separator;
//   - a separator that ends the line starts no cell.
//
// A quoted cell that the line ends inside is an error.
func splitCells(text []byte, sep byte, line int, file string, limit int, q *quirks) ([]string, error) {
	var cells []string
	allQuoted := len(text) > 0 && text[0] == '"'
	i := 0
	for {
		if len(cells) == limit {
			return nil, &ReadError{File: file, Line: line, Cell: len(cells) + 1, Msg: fmt.Sprintf("more than %d cells", limit)}
		}
		if i == len(text) && len(cells) > 0 {
			q.note("trailing", line, "the line ends with a separator (read as if it did not)")
			return cells, nil
		}
		if i == len(text) || text[i] != '"' {
			j := bytes.IndexByte(text[i:], sep)
			if j < 0 {
				j = len(text) - i
			}
			q.note("unquoted", line, "a cell without quotes (read as written)")
			cells = append(cells, string(text[i:i+j]))
			i += j
		} else {
			cell, n, err := quotedCell(text[i:], sep, allQuoted, q, line)
			if err != "" {
				return nil, &ReadError{File: file, Line: line, Cell: len(cells) + 1, Msg: err}
			}
			cells = append(cells, cell)
			i += n
		}
		if i == len(text) {
			return cells, nil
		}
		i++ // the separator
	}
}

// quotedCell reads the quoted cell that text starts with; n is the bytes
// it takes. Inside it a run of k quotes is, as RFC 4180 has it, k/2
// quotes when k is even, and when k is odd (k-1)/2 quotes and the cell's
// end, before the separator or the line's end. Windows' tools also write
// quotes they do not double (a collector set's description): an odd run
// elsewhere holds one such quote, and when the cell would run on to the
// end of the line without closing, it closes instead at the first run
// before a separator or the line's end that could have ended it (an even
// run: a quote not doubled, then the closing one; or, on a line whose
// first cell is quoted, an odd run before a cell without quotes).
func quotedCell(text []byte, sep byte, allQuoted bool, q *quirks, line int) (string, int, string) {
	var sb []byte
	undoubled := false
	weak, weakLen, weakUndoubled := -1, 0, false // the first end put in doubt
	i := 1
	for {
		j := bytes.IndexByte(text[i:], '"')
		if j < 0 {
			if weak < 0 {
				return "", 0, "unterminated quote"
			}
			if weakUndoubled {
				q.note("undoubled", line, "a quote inside a cell is not doubled (read as written)")
			}
			return string(sb[:weakLen]), weak, ""
		}
		sb = append(sb, text[i:i+j]...)
		i += j
		k := 0
		for i+k < len(text) && text[i+k] == '"' {
			k++
		}
		boundary := i+k == len(text) || text[i+k] == sep
		nextQuoted := i+k == len(text) || i+k+1 == len(text) || text[i+k+1] == '"'
		if boundary && k%2 == 1 && (!allQuoted || nextQuoted) {
			if undoubled {
				q.note("undoubled", line, "a quote inside a cell is not doubled (read as written)")
			}
			sb = append(sb, bytes.Repeat([]byte{'"'}, k/2)...)
			return string(sb), i + k, ""
		}
		if boundary && weak < 0 {
			weak, weakLen, weakUndoubled = i+k, len(sb)+k/2, undoubled || k%2 == 0
		}
		if k%2 == 1 {
			undoubled = true
		}
		sb = append(sb, bytes.Repeat([]byte{'"'}, (k+1)/2)...)
		i += k
	}
}
