package pdhcsv

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Log is a PDH text log read back: its header and rows.
type Log struct {
	Format Format
	// Style is StyleConsole when the header's first cell carries no time zone
	// (typeperf's console output saved to a file).
	Style   Style
	Zone    Zone // zero in Console style
	Columns []string
	Rows    []Row
}

// Row is one sample of a log.
type Row struct {
	Time   time.Time
	Values []Value
}

// ReadError names the line and cell of malformed input.
type ReadError struct {
	Line, Cell int // 1-based; Cell 0 means the line as a whole
	Msg        string
}

func (e *ReadError) Error() string {
	if e.Cell > 0 {
		return fmt.Sprintf("pdhcsv: line %d, cell %d: %s", e.Line, e.Cell, e.Msg)
	}
	return fmt.Sprintf("pdhcsv: line %d: %s", e.Line, e.Msg)
}

// maxLine bounds one line (a header of thousands of counter paths fits).
const maxLine = 16 << 20

// Read reads a PDH-CSV or PDH-TSV log, or typeperf console output (whose
// leading blank line and closing messages are skipped). Timestamps of a
// log are read in the zone its header names (a fixed offset); those of
// console output, which names none, in loc (nil: time.Local).
//
// A header whose first cell lacks the "(PDH-CSV 4.0)" / "(PDH-TSV 4.0)"
// tag is rejected, as PDH rejects it (the CorruptBlg.blg test file).
func Read(r io.Reader, loc *time.Location) (*Log, error) {
	if loc == nil {
		loc = time.Local
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var lg *Log
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSuffix(sc.Bytes(), []byte{'\r'})
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
		}
		if lg == nil {
			if len(text) == 0 {
				continue // typeperf's console output starts with a blank line
			}
			h, err := parseHeader(text, line)
			if err != nil {
				return nil, err
			}
			lg = h
			if lg.Style == StyleLog {
				loc = lg.Zone.Location()
			}
			continue
		}
		if len(text) == 0 || text[0] != '"' {
			if lg.Style == StyleConsole {
				continue // "Exiting, please wait..." and the like
			}
			return nil, &ReadError{Line: line, Msg: "row does not start with a quoted timestamp"}
		}
		cells, err := splitCells(text, lg.Format.sep(), line)
		if err != nil {
			return nil, err
		}
		if len(cells) != len(lg.Columns)+1 {
			return nil, &ReadError{Line: line, Msg: fmt.Sprintf("%d cells, header has %d", len(cells), len(lg.Columns)+1)}
		}
		t, err := time.ParseInLocation(TimeLayout, cells[0], loc)
		if err != nil {
			return nil, &ReadError{Line: line, Cell: 1, Msg: fmt.Sprintf("timestamp %q: want MM/dd/yyyy HH:mm:ss.fff", cells[0])}
		}
		row := Row{Time: t, Values: make([]Value, len(cells)-1)}
		for i, c := range cells[1:] {
			if c == " " || c == "" {
				continue
			}
			v, err := strconv.ParseFloat(c, 64)
			if err != nil {
				return nil, &ReadError{Line: line, Cell: i + 2, Msg: fmt.Sprintf("value %q is not a number", c)}
			}
			row.Values[i] = Value{Number: v, OK: true}
		}
		lg.Rows = append(lg.Rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("pdhcsv: line %d: %w", line+1, err)
	}
	if lg == nil {
		return nil, &ReadError{Line: line + 1, Msg: "no header: empty input"}
	}
	return lg, nil
}

func parseHeader(text []byte, line int) (*Log, error) {
	lg := &Log{}
	switch {
	case bytes.HasPrefix(text, []byte(`"(PDH-CSV 4.0)`)):
		lg.Format = CSV
	case bytes.HasPrefix(text, []byte(`"(PDH-TSV 4.0)`)):
		lg.Format = TSV
	default:
		return nil, &ReadError{Line: line, Cell: 1, Msg: `not a PDH text log: the header does not start with "(PDH-CSV 4.0)" or "(PDH-TSV 4.0)"`}
	}
	cells, err := splitCells(text, lg.Format.sep(), line)
	if err != nil {
		return nil, err
	}
	first := strings.TrimPrefix(cells[0], lg.Format.tag())
	if first == "" {
		lg.Style = StyleConsole
	} else {
		z, ok := parseZone(first)
		if !ok {
			return nil, &ReadError{Line: line, Cell: 1, Msg: fmt.Sprintf("time zone %q: want \" (name)(bias minutes)\"", first)}
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

// splitCells splits a line of quoted cells. Every cell must be quoted; a
// doubled quote inside a cell is one quote.
func splitCells(text []byte, sep byte, line int) ([]string, error) {
	var cells []string
	i := 0
	for {
		if i >= len(text) || text[i] != '"' {
			return nil, &ReadError{Line: line, Cell: len(cells) + 1, Msg: "cell is not quoted"}
		}
		i++
		var sb []byte
		closed := false
		for i < len(text) {
			c := text[i]
			i++
			if c != '"' {
				sb = append(sb, c)
				continue
			}
			if i < len(text) && text[i] == '"' {
				sb = append(sb, '"')
				i++
				continue
			}
			closed = true
			break
		}
		if !closed {
			return nil, &ReadError{Line: line, Cell: len(cells) + 1, Msg: "unterminated quote"}
		}
		cells = append(cells, string(sb))
		if i == len(text) {
			return cells, nil
		}
		if text[i] != sep {
			return nil, &ReadError{Line: line, Cell: len(cells), Msg: fmt.Sprintf("byte %q after a cell, want the separator %q", text[i], sep)}
		}
		i++
	}
}
