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
)

// Log is a PDH text log read back: its header and rows. A Log that Open
// or ReadLog returned is also a recorded pdh.Source (source.go).
type Log struct {
	Format Format
	// Style is StyleConsole when the header's first cell carries no time zone
	// (typeperf's console output saved to a file).
	Style   Style
	Zone    Zone // zero in Console style
	Columns []string
	Rows    []Row

	src *source // set by Open and ReadLog: the log as a pdh.Source
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
	// MaxLine bounds one line (a header of thousands of counter paths
	// fits).
	MaxLine = 16 << 20
	// MaxColumns bounds the counter columns of the header.
	MaxColumns = 1 << 17
)

// config is how read treats its input.
type config struct {
	file string
	// tornTail accepts a last line that is incomplete (no line end and a
	// cell missing or unterminated: a writer killed mid-row) by dropping
	// it with a note, instead of failing.
	tornTail bool
	notes    *[]string
}

// Read reads a PDH-CSV or PDH-TSV log, or typeperf console output (whose
// leading blank line and closing messages are skipped). Timestamps of a
// log are read in the zone its header names (a fixed offset); those of
// console output, which names none, in loc (nil: time.Local).
//
// A header whose first cell lacks the "(PDH-CSV 4.0)" / "(PDH-TSV 4.0)"
// tag is rejected, as PDH rejects it (the CorruptBlg.blg test file).
func Read(r io.Reader, loc *time.Location) (*Log, error) {
	return read(r, loc, config{})
}

func read(r io.Reader, loc *time.Location, cfg config) (*Log, error) {
	if loc == nil {
		loc = time.Local
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var lg *Log
	var buf []byte
	line := 0
	for {
		var complete bool
		var err error
		buf, complete, err = nextLine(br, buf[:0])
		if errors.Is(err, io.EOF) {
			break
		}
		line++
		if err != nil {
			if errors.Is(err, errLineTooLong) {
				return nil, &ReadError{File: cfg.file, Line: line, Msg: err.Error()}
			}
			return nil, fmt.Errorf("%s: line %d: %w", orText(cfg.file), line, err)
		}
		text := bytes.TrimSuffix(buf, []byte{'\r'})
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
		}
		if lg == nil {
			if len(text) == 0 {
				continue // typeperf's console output starts with a blank line
			}
			h, err := parseHeader(text, line, cfg.file)
			if err != nil {
				return nil, err
			}
			lg = h
			if lg.Style == StyleLog {
				loc = lg.Zone.Location()
			}
			continue
		}
		row, err := parseRow(lg, text, line, loc, cfg.file)
		if err != nil {
			if !complete && cfg.tornTail && len(text) > 0 {
				if _, more := br.Peek(1); more != nil { // nothing after it: the last line
					*cfg.notes = append(*cfg.notes, fmt.Sprintf("line %d, the last, is incomplete (the file ends inside it: %v); it is left out", line, err))
					break
				}
			}
			return nil, err
		}
		if row != nil {
			lg.Rows = append(lg.Rows, *row)
		}
	}
	if lg == nil {
		return nil, &ReadError{File: cfg.file, Line: line + 1, Msg: "no header: empty input"}
	}
	return lg, nil
}

var errLineTooLong = fmt.Errorf("line longer than %d bytes", MaxLine)

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

// parseRow reads one data line; nil, nil for a line console output may
// hold besides rows.
func parseRow(lg *Log, text []byte, line int, loc *time.Location, file string) (*Row, error) {
	if len(text) == 0 || text[0] != '"' {
		if lg.Style == StyleConsole {
			return nil, nil // "Exiting, please wait..." and the like
		}
		return nil, &ReadError{File: file, Line: line, Msg: "row does not start with a quoted timestamp"}
	}
	cells, err := splitCells(text, lg.Format.sep(), line, file, len(lg.Columns)+1)
	if err != nil {
		return nil, err
	}
	if len(cells) != len(lg.Columns)+1 {
		return nil, &ReadError{File: file, Line: line, Msg: fmt.Sprintf("%d cells, the header has %d", len(cells), len(lg.Columns)+1)}
	}
	t, err := time.ParseInLocation(TimeLayout, cells[0], loc)
	if err != nil {
		return nil, &ReadError{File: file, Line: line, Cell: 1, Msg: fmt.Sprintf("timestamp %q: want MM/dd/yyyy HH:mm:ss.fff", cells[0])}
	}
	row := Row{Time: t, Values: make([]Value, len(cells)-1)}
	for i, c := range cells[1:] {
		if c == " " || c == "" {
			continue
		}
		v, err := strconv.ParseFloat(c, 64)
		if err != nil {
			return nil, &ReadError{File: file, Line: line, Cell: i + 2, Msg: fmt.Sprintf("value %q of %s is not a number", c, lg.Columns[i])}
		}
		row.Values[i] = Value{Number: v, OK: true}
	}
	return &row, nil
}

func orText(file string) string {
	if file == "" {
		return "text log"
	}
	return file
}

func parseHeader(text []byte, line int, file string) (*Log, error) {
	lg := &Log{}
	switch {
	case bytes.HasPrefix(text, []byte(`"(PDH-CSV 4.0)`)):
		lg.Format = CSV
	case bytes.HasPrefix(text, []byte(`"(PDH-TSV 4.0)`)):
		lg.Format = TSV
	default:
		return nil, &ReadError{File: file, Line: line, Cell: 1, Msg: `not a PDH text log: the header does not start with "(PDH-CSV 4.0)" or "(PDH-TSV 4.0)"`}
	}
	cells, err := splitCells(text, lg.Format.sep(), line, file, MaxColumns+1)
	if err != nil {
		return nil, err
	}
	first := strings.TrimPrefix(cells[0], lg.Format.tag())
	if first == "" {
		lg.Style = StyleConsole
	} else {
		z, ok := parseZone(first)
		if !ok {
			return nil, &ReadError{File: file, Line: line, Cell: 1, Msg: fmt.Sprintf("time zone %q: want \" (name)(bias minutes)\"", first)}
		}
		lg.Zone = z
	}
	lg.Columns = cells[1:]
	return lg, nil
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

// splitCells splits a line of quoted cells, at most limit of them. Every
// cell must be quoted; a doubled quote inside a cell is one quote.
func splitCells(text []byte, sep byte, line int, file string, limit int) ([]string, error) {
	var cells []string
	i := 0
	for {
		if len(cells) == limit {
			return nil, &ReadError{File: file, Line: line, Cell: len(cells) + 1, Msg: fmt.Sprintf("more than %d cells", limit)}
		}
		if i >= len(text) || text[i] != '"' {
			return nil, &ReadError{File: file, Line: line, Cell: len(cells) + 1, Msg: "cell is not quoted"}
		}
		i++
		var sb []byte
		closed := false
		for i < len(text) {
			j := bytes.IndexByte(text[i:], '"')
			if j < 0 {
				i = len(text)
				break
			}
			sb = append(sb, text[i:i+j]...)
			i += j + 1
			if i < len(text) && text[i] == '"' {
				sb = append(sb, '"')
				i++
				continue
			}
			closed = true
			break
		}
		if !closed {
			return nil, &ReadError{File: file, Line: line, Cell: len(cells) + 1, Msg: "unterminated quote"}
		}
		cells = append(cells, string(sb))
		if i == len(text) {
			return cells, nil
		}
		if text[i] != sep {
			return nil, &ReadError{File: file, Line: line, Cell: len(cells), Msg: fmt.Sprintf("byte %q after a cell, want the separator %q", text[i], sep)}
		}
		i++
	}
}
