package pdhcsv

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog/rawlog"
	"github.com/perfcounters/perfcounters/titles"
)

// NoValue ends the reason of the problems a text log's samples report
// for its blank cells: a blank is a value the log does not hold (the
// first sample of a counter computed from two samples, a counter that
// was not available), not a failure of the reader. Tools that report a
// source's problems leave these out.
const NoValue = "blank cells: the log holds no value for them"

// source is a Log as a recorded pdh.Source: each row is a sample whose
// values are PERF_DOUBLE_RAW counters, as Windows' PDH represents the
// values of text logs, so that every counter computes to the number in
// its cell.
type source struct {
	name   string
	loc    *time.Location
	list   []rawlog.Counter
	paths  []string
	db     *titles.DB
	plan   *rawlog.Plan
	cells  []cellPos // per column: where its value lands in the blocks
	groups []groupInfo
	pos    int
	notes  []string
}

// cellPos is a column's place in the blocks a row becomes.
type cellPos struct {
	group    int
	instance int    // position of the instance in its object; -1 single-instance
	counter  uint32 // title index of the counter
	name     string // the instance as the block names it
}

type groupInfo struct {
	machine string
	object  string
	index   uint32
}

// Open reads the PDH-CSV or PDH-TSV log at path as a recorded pdh.Source.
// A last line that the file ends inside (a writer stopped mid-row) is
// left out with a note; every other malformed line is an error naming
// the file, the line and the cell.
func Open(path string) (*Log, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadLog(f, path, -1)
}

// ReadLog reads a PDH-CSV or PDH-TSV log from r as Open does; name names
// it in errors and notes, and limit bounds the bytes read (negative: no
// limit). Console output (typeperf without -o) is refused: its header
// names no time zone, so its times cannot be placed.
func ReadLog(r io.Reader, name string, limit int64) (*Log, error) {
	if limit >= 0 {
		r = &limitReader{r: r, n: limit, name: name}
	}
	var notes []string
	lg, err := read(r, nil, config{file: name, tornTail: true, notes: &notes})
	if err != nil {
		return nil, err
	}
	if lg.Style == StyleConsole {
		return nil, &ReadError{File: name, Line: 1, Cell: 1, Msg: "typeperf's console output (the header names no time zone): save it with typeperf -o to read it as a log"}
	}
	s, err := newSource(lg, name)
	if err != nil {
		return nil, err
	}
	s.notes = append(notes, s.notes...)
	lg.src = s
	return lg, nil
}

// limitReader fails once more than n bytes were read.
type limitReader struct {
	r    io.Reader
	n    int64
	name string
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n < 0 {
		return 0, fmt.Errorf("%s: larger than the limit on a text log", orText(l.name))
	}
	if int64(len(p)) > l.n+1 {
		p = p[:l.n+1]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	if l.n < 0 {
		return 0, fmt.Errorf("%s: larger than the limit on a text log", orText(l.name))
	}
	return n, err
}

// newSource plans the blocks of the log's columns.
func newSource(lg *Log, name string) (*source, error) {
	s := &source{name: name, loc: zoneLocation(lg.Zone), paths: lg.Columns}
	s.list = make([]rawlog.Counter, len(lg.Columns))
	for i, col := range lg.Columns {
		p, err := counterpath.Parse(col)
		if err != nil || strings.ContainsAny(p.Instance+p.Parent+p.Counter, "*") {
			msg := "not a counter path"
			if err == nil {
				msg = "a counter path with a wildcard cannot be a column"
			}
			return nil, &ReadError{File: name, Line: 1, Cell: i + 2, Msg: fmt.Sprintf("column %q: %s", col, msg)}
		}
		c := rawlog.Counter{Machine: p.Machine, Object: p.Object, Instance: p.Instance, Parent: p.Parent, Name: p.Counter, Type: countertype.PERF_DOUBLE_RAW}
		if p.HasIndex && p.Index > 0 {
			c.Index = uint32(p.Index)
		}
		s.list[i] = c
	}
	var err error
	if s.db, err = rawlog.Titles(s.list, nil); err != nil {
		return nil, fmt.Errorf("%s: %w", orText(name), err)
	}
	if s.plan, err = rawlog.NewPlan(s.list, s.db); err != nil {
		return nil, fmt.Errorf("%s: %w", orText(name), err)
	}
	// Where each column lands: rawlog groups counters by machine and
	// object and numbers a group's instances in the order they are set;
	// every row sets every column in column order, so the numbering is
	// the same in every sample.
	byGroup := map[string]int{}
	type ikey struct {
		group int
		name  string
	}
	instPos := map[ikey]int{}
	instCount := map[int]int{}
	s.cells = make([]cellPos, len(s.list))
	for i, c := range s.list {
		gk := strings.ToLower(strings.TrimPrefix(c.Machine, `\\`) + `\` + c.Object)
		g, ok := byGroup[gk]
		if !ok {
			g = len(s.groups)
			byGroup[gk] = g
			idx, _ := s.db.Index(c.Object)
			s.groups = append(s.groups, groupInfo{machine: c.Machine, object: c.Object, index: idx})
		}
		inst := c.Instance
		if c.Index > 0 {
			inst = fmt.Sprintf("%s#%d", inst, c.Index)
		}
		pos := -1
		if c.Instance != "" {
			k := ikey{g, inst}
			p, ok := instPos[k]
			if !ok {
				p = instCount[g]
				instPos[k] = p
				instCount[g]++
			}
			pos = p
		}
		idx, _ := s.db.Index(c.Name)
		s.cells[i] = cellPos{group: g, instance: pos, counter: idx, name: inst}
	}
	first := map[string]int{}
	for i, col := range lg.Columns {
		k := strings.ToLower(col)
		if j, ok := first[k]; ok {
			s.notes = append(s.notes, fmt.Sprintf("column %d repeats column %d (%s): one counter; the later value of a row is read", i+2, j+2, col))
			continue
		}
		first[k] = i
	}
	return s, nil
}

// zoneLocation is a location whose times ZoneOf names exactly as the
// header does: the zone's name as the abbreviation, and a location name
// no time-zone table knows (a fixed zone named "UTC" would otherwise be
// renamed "Coordinated Universal Time").
func zoneLocation(z Zone) *time.Location {
	if strings.ContainsRune(z.Name, 0) || len(z.Name) > 255 {
		return z.Location()
	}
	if loc, err := time.LoadLocationFromTZData(z.Name+" (text log)", tzif(z.Name, -z.Bias*60)); err == nil {
		return loc
	}
	return z.Location()
}

// tzif builds a TZif (version 1) file with one local time type, off
// seconds east of UTC named abbr, and no transitions.
func tzif(abbr string, off int) []byte {
	b := append([]byte("TZif"), make([]byte, 16)...)
	for _, n := range []int{0, 0, 0, 0, 1, len(abbr) + 1} { // isut, isstd, leap, time, type, char
		b = binary.BigEndian.AppendUint32(b, uint32(n))
	}
	b = binary.BigEndian.AppendUint32(b, uint32(int32(off)))
	b = append(b, 0, 0) // isdst, abbreviation index
	b = append(b, abbr...)
	return append(b, 0)
}

// sample builds row i's blocks.
func (s *source) sample(lg *Log, i int) (*pdh.Sample, error) {
	r := &lg.Rows[i]
	rows := s.plan.Rows()
	missing := map[int]map[int][]uint32{} // group -> instance -> counters
	for k, v := range r.Values {
		bits := uint64(0)
		if v.OK {
			bits = math.Float64bits(v.Number)
		} else {
			c := s.cells[k]
			m := missing[c.group]
			if m == nil {
				m = map[int][]uint32{}
				missing[c.group] = m
			}
			m[c.instance] = append(m[c.instance], c.counter)
		}
		if err := rows.Set(k, s.cells[k].name, rawlog.Value{First: int64(bits)}); err != nil {
			return nil, err
		}
	}
	t := r.Time.UTC()
	smp, err := rows.Build(t, 10_000_000)
	if err != nil {
		return nil, fmt.Errorf("%s: line %d: %w", orText(s.name), i+2, err)
	}
	smp.Time = t
	for g := range s.groups {
		m := missing[g]
		if m == nil {
			continue
		}
		gi := s.groups[g]
		p := pdh.Problem{Object: gi.index, ObjectName: gi.object, Partial: true, Reason: strings.TrimPrefix(gi.machine, `\\`) + ": " + NoValue}
		for inst := -1; inst < len(r.Values); inst++ {
			if ctrs, ok := m[inst]; ok {
				p.Missing = append(p.Missing, pdh.MissingValues{Instance: inst, Counters: ctrs})
			}
		}
		smp.Problems = append(smp.Problems, p)
	}
	return smp, nil
}

// ready returns the log's source, planning it for a Log from Read.
func (l *Log) ready() (*source, error) {
	if l.src != nil {
		return l.src, nil
	}
	if l.Style == StyleConsole {
		return nil, fmt.Errorf("typeperf's console output (the header names no time zone) cannot be read as a log")
	}
	s, err := newSource(l, "")
	if err != nil {
		return nil, err
	}
	l.src = s
	return s, nil
}

// Sample returns the next row as a sample: one PERF_DATA_BLOCK per
// machine and object, each value a PERF_DOUBLE_RAW counter; blank cells
// are the sample's Problems (Missing, ending with NoValue), so pdh gives
// them the status NoData. objects is ignored. After the last row it
// returns io.EOF.
func (l *Log) Sample(ctx context.Context, objects []uint32) (*pdh.Sample, error) {
	s, err := l.ready()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.pos >= len(l.Rows) {
		return nil, io.EOF
	}
	smp, err := s.sample(l, s.pos)
	s.pos++
	return smp, err
}

// Titles is the title database naming the log's objects and counters:
// English Windows' indexes where the name is known there, spelled as the
// log spells them, and new indexes after the last for the others.
func (l *Log) Titles() *titles.DB {
	s, err := l.ready()
	if err != nil {
		return titles.New()
	}
	return s.db
}

// Recorded returns the Log itself: its rows are recorded samples.
func (l *Log) Recorded() pdh.Recorded { return l }

// Len is the number of rows.
func (l *Log) Len() int { return len(l.Rows) }

// Pos is the position of the row the next Sample returns.
func (l *Log) Pos() int {
	if l.src == nil {
		return 0
	}
	return l.src.pos
}

// Seek makes the next Sample return row i.
func (l *Log) Seek(i int) error {
	s, err := l.ready()
	if err != nil {
		return err
	}
	if i < 0 || i > len(l.Rows) {
		return fmt.Errorf("%s: sample %d out of range 0..%d", orText(s.name), i, len(l.Rows))
	}
	s.pos = i
	return nil
}

// Time is the time of row i (UTC).
func (l *Log) Time(i int) time.Time { return l.Rows[i].Time.UTC() }

// Counters returns the header's counter paths, in the header's order.
func (l *Log) Counters() []string { return l.Columns }

// Location is the time zone the header names, with its name: text logs
// written in it have the same header zone and the same row times.
func (l *Log) Location() *time.Location {
	if l.Style == StyleConsole {
		return time.Local
	}
	return zoneLocation(l.Zone)
}

// Notes says what the reader did that its user should know (a last line
// left out because the file ends inside it, a repeated column).
func (l *Log) Notes() []string {
	if l.src == nil {
		return nil
	}
	return l.src.notes
}

// Close releases nothing (Open reads the whole file); it is there so a
// Log closes like the other logs.
func (l *Log) Close() error { return nil }

var _ pdh.Source = (*Log)(nil)
