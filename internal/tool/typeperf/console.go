package typeperf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/perfcounters/perfcounters/counterpath"
	"github.com/perfcounters/perfcounters/internal/termtext"
	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
)

// Form is the layout of typeperf's rows on the console.
type Form int

const (
	// FormPDH is Windows typeperf's PDH-CSV (or TSV with -f TSV): the
	// default, what a Windows administrator and every script written for
	// typeperf expect.
	FormPDH Form = iota
	// FormTable is an aligned table for a person at a terminal, as sar and
	// pidstat print: one line per sample when every object has one
	// instance, else a block per object and sample with an instance per
	// line and a counter per column.
	FormTable
	// FormJSON is JSON lines for scripts: one object per sample (see
	// docs/typeperf.md for its fields).
	FormJSON
)

// ParseForm reads a console form's name, case-insensitively: TABLE, or
// JSON (JSONL is the same). ok is false for any other name (PDH's CSV and
// TSV are formats, pdhcsv.Format).
func ParseForm(s string) (f Form, ok bool) {
	switch strings.ToUpper(s) {
	case "TABLE":
		return FormTable, true
	case "JSON", "JSONL":
		return FormJSON, true
	}
	return FormPDH, false
}

// rowWriter writes a header of column names, then one row per sample.
type rowWriter interface {
	WriteHeader(names []string) error
	WriteRow(t time.Time, values []pdhcsv.Value) error
}

// column is one counter path of the table or JSON forms, split.
type column struct {
	path                                    string
	computer, object, parent, instance, ctr string // instance with its #index
	hasInstance                             bool
}

// label is the instance as a table shows it: parent/instance#index.
func (c column) label() string {
	if c.parent != "" {
		return c.parent + "/" + c.instance
	}
	return c.instance
}

// splitColumns parses the column names (full counter paths, as the PDH
// header writes them). A name that does not parse keeps its whole text as
// its counter.
func splitColumns(names []string) []column {
	cols := make([]column, len(names))
	for i, n := range names {
		cols[i] = column{path: n, ctr: n}
		p, err := counterpath.Parse(n)
		if err != nil {
			continue
		}
		inst := p.Instance
		if p.HasIndex {
			inst += "#" + strconv.Itoa(p.Index)
		}
		cols[i] = column{path: n, computer: p.Machine, object: p.Object, parent: p.Parent, instance: inst, ctr: p.Counter, hasInstance: p.Instance != ""}
	}
	return cols
}

// jsonWriter writes JSON lines: {"time": RFC 3339 with milliseconds and
// the zone's offset, "values": [{"computer", "object", "parent" (where the
// instance has one), "instance" (with its #index; absent for a
// single-instance object), "counter", "path", "value" (a number, or null
// where typeperf writes " ")}]}.
type jsonWriter struct {
	w    io.Writer
	loc  *time.Location
	cols []column
	buf  bytes.Buffer
}

func (j *jsonWriter) WriteHeader(names []string) error {
	j.cols = splitColumns(names)
	return nil
}

func (j *jsonWriter) WriteRow(t time.Time, values []pdhcsv.Value) error {
	b := &j.buf
	b.Reset()
	b.WriteString(`{"time":`)
	appendJSON(b, t.In(j.loc).Format("2006-01-02T15:04:05.000Z07:00"))
	b.WriteString(`,"values":[`)
	for i, c := range j.cols {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"computer":`)
		appendJSON(b, c.computer)
		b.WriteString(`,"object":`)
		appendJSON(b, c.object)
		if c.parent != "" {
			b.WriteString(`,"parent":`)
			appendJSON(b, c.parent)
		}
		if c.hasInstance {
			b.WriteString(`,"instance":`)
			appendJSON(b, c.instance)
		}
		b.WriteString(`,"counter":`)
		appendJSON(b, c.ctr)
		b.WriteString(`,"path":`)
		appendJSON(b, c.path)
		b.WriteString(`,"value":`)
		if v := values[i]; v.OK && !math.IsNaN(v.Number) && !math.IsInf(v.Number, 0) {
			b.Write(strconv.AppendFloat(b.AvailableBuffer(), v.Number, 'g', -1, 64))
		} else {
			b.WriteString("null")
		}
		b.WriteByte('}')
	}
	b.WriteString("]}\n")
	_, err := j.w.Write(b.Bytes())
	return err
}

// appendJSON writes s as a JSON string (encoding/json's escaping, without
// its HTML escaping: paths hold '<' and '&' as they are).
func appendJSON(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)           // a string always encodes
	b.Truncate(b.Len() - 1) // Encode's newline
}

// tableWriter writes the aligned table. Columns are grouped by computer
// and object; a group's rows are its instances in the order of the
// columns, its columns its counters. Widths only grow, so a column keeps
// its place from one sample to the next.
type tableWriter struct {
	w      io.Writer
	loc    *time.Location
	groups []*group
	wide   bool // every group has one row: one line per sample
	widths []int
	buf    bytes.Buffer
	lines  int
}

// group is one object of one computer in the table.
type group struct {
	title    string   // the object, with its computer when the table shows several
	rows     []string // instance labels ("-" for a single-instance object)
	ctrs     []string // counter names
	cell     [][]int  // cell[row][ctr]: the value's column, -1 none
	labelW   int
	ctrWidth []int
}

func (tw *tableWriter) WriteHeader(names []string) error {
	cols := splitColumns(names)
	for i := range cols {
		// The parts are shown unescaped, for a person: what a terminal
		// would act on in a name another user chose is escaped again.
		c := &cols[i]
		for _, f := range []*string{&c.computer, &c.object, &c.parent, &c.instance, &c.ctr} {
			*f = termtext.Escape(*f)
		}
	}
	computers := map[string]bool{}
	for _, c := range cols {
		computers[strings.ToUpper(c.computer)] = true
	}
	byKey := map[string]*group{}
	for i, c := range cols {
		key := strings.ToUpper(c.computer) + "\\" + c.object
		g := byKey[key]
		if g == nil {
			g = &group{title: c.object}
			if len(computers) > 1 && c.computer != "" {
				g.title = `\\` + c.computer + `\` + c.object
			}
			byKey[key] = g
			tw.groups = append(tw.groups, g)
		}
		label := "-"
		if c.hasInstance {
			label = c.label()
		}
		r := indexOf(g.rows, label)
		if r < 0 {
			g.rows = append(g.rows, label)
			g.cell = append(g.cell, make([]int, len(g.ctrs)))
			r = len(g.rows) - 1
			for k := range g.cell[r] {
				g.cell[r][k] = -1
			}
		}
		k := indexOf(g.ctrs, c.ctr)
		if k < 0 {
			g.ctrs = append(g.ctrs, c.ctr)
			for rr := range g.cell {
				g.cell[rr] = append(g.cell[rr], -1)
			}
			k = len(g.ctrs) - 1
		}
		g.cell[r][k] = i
	}
	tw.wide = true
	for _, g := range tw.groups {
		if len(g.rows) > 1 {
			tw.wide = false
		}
		g.labelW = runes(g.title)
		for _, r := range g.rows {
			g.labelW = max(g.labelW, runes(r))
		}
		for _, c := range g.ctrs {
			g.ctrWidth = append(g.ctrWidth, max(runes(c), 10))
		}
	}
	if tw.wide {
		// One column per value, headed by object(instance)\counter.
		for _, g := range tw.groups {
			for r, label := range g.rows {
				for k, c := range g.ctrs {
					if g.cell[r][k] >= 0 {
						tw.widths = append(tw.widths, max(runes(wideName(g, label, c)), 10))
					}
				}
			}
		}
	}
	return nil
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// wideName heads a column of the one-line layout.
func wideName(g *group, label, ctr string) string {
	if label == "-" {
		return g.title + `\` + ctr
	}
	return g.title + "(" + label + `)\` + ctr
}

// tableValue formats a value as sar does: two decimals; "" for none.
func tableValue(v pdhcsv.Value) string {
	if !v.OK || math.IsNaN(v.Number) || math.IsInf(v.Number, 0) {
		return ""
	}
	return strconv.FormatFloat(v.Number, 'f', 2, 64)
}

const timeWidth = 8 // 15:04:05

func (tw *tableWriter) WriteRow(t time.Time, values []pdhcsv.Value) error {
	b := &tw.buf
	b.Reset()
	clock := t.In(tw.loc).Format("15:04:05")
	if tw.wide {
		tw.wideRow(b, clock, values)
	} else {
		tw.blockRows(b, clock, values)
	}
	tw.lines++
	_, err := tw.w.Write(trimLines(b.Bytes()))
	return err
}

// trimLines drops the blanks at the end of each line (the padding of
// empty cells in the last columns).
func trimLines(b []byte) []byte {
	out := b[:0]
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		line := b
		if i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		out = append(out, bytes.TrimRight(line, " ")...)
		if i >= 0 {
			out = append(out, '\n')
		}
	}
	return out
}

// wideRow writes the one-line layout: its header before the first row and
// every 20 rows, as sar repeats its own.
func (tw *tableWriter) wideRow(b *bytes.Buffer, clock string, values []pdhcsv.Value) {
	var cells []string
	var heads []string
	for _, g := range tw.groups {
		for r, label := range g.rows {
			for k, c := range g.ctrs {
				if i := g.cell[r][k]; i >= 0 {
					heads = append(heads, wideName(g, label, c))
					cells = append(cells, tableValue(values[i]))
				}
			}
		}
	}
	for k, c := range cells {
		tw.widths[k] = max(tw.widths[k], runes(c))
	}
	if tw.lines%20 == 0 {
		if tw.lines > 0 {
			b.WriteByte('\n')
		}
		pad(b, "Time", timeWidth, false)
		for k, h := range heads {
			b.WriteString("  ")
			pad(b, h, tw.widths[k], true)
		}
		b.WriteByte('\n')
	}
	b.WriteString(clock)
	for k, c := range cells {
		b.WriteString("  ")
		pad(b, c, tw.widths[k], true)
	}
	b.WriteByte('\n')
}

// blockRows writes one block per object: a header line naming the object
// and its counters, then a line per instance; a blank line after the
// sample.
func (tw *tableWriter) blockRows(b *bytes.Buffer, clock string, values []pdhcsv.Value) {
	for _, g := range tw.groups {
		for r := range g.rows {
			for k := range g.ctrs {
				if i := g.cell[r][k]; i >= 0 {
					g.ctrWidth[k] = max(g.ctrWidth[k], runes(tableValue(values[i])))
				}
			}
		}
		b.WriteString(clock)
		b.WriteString("  ")
		pad(b, g.title, g.labelW, false)
		for k, c := range g.ctrs {
			b.WriteString("  ")
			pad(b, c, g.ctrWidth[k], true)
		}
		b.WriteByte('\n')
		for r, label := range g.rows {
			b.WriteString(clock)
			b.WriteString("  ")
			pad(b, label, g.labelW, false)
			for k := range g.ctrs {
				b.WriteString("  ")
				s := ""
				if i := g.cell[r][k]; i >= 0 {
					s = tableValue(values[i])
				}
				pad(b, s, g.ctrWidth[k], true)
			}
			b.WriteByte('\n')
		}
	}
	b.WriteByte('\n')
}

// runes is the width of s on a terminal, counted in runes.
func runes(s string) int { return utf8.RuneCountInString(s) }

// pad writes s in a field of width runes (at least), right-aligned or
// left-aligned.
func pad(b *bytes.Buffer, s string, width int, right bool) {
	n := width - runes(s)
	if right && n > 0 {
		b.WriteString(strings.Repeat(" ", n))
	}
	b.WriteString(s)
	if !right && n > 0 {
		b.WriteString(strings.Repeat(" ", n))
	}
}

// newFormWriter returns the writer of a table or JSON form.
func newFormWriter(f Form, w io.Writer, loc *time.Location) rowWriter {
	if f == FormJSON {
		return &jsonWriter{w: w, loc: loc}
	}
	return &tableWriter{w: w, loc: loc}
}

// formBanner is the table's first line: the computer and the day, as sar
// starts its reports.
func formBanner(machine string, t time.Time) string {
	return fmt.Sprintf("\\\\%s  %s\n\n", machine, t.Format("2006-01-02 MST"))
}
