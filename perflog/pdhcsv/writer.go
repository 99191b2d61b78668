package pdhcsv

import (
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// WriterOptions configure a Writer.
type WriterOptions struct {
	Format Format
	Style  Style
	// Location is the zone timestamps are written in; nil is time.Local.
	Location *time.Location
	// CRLF ends lines with CR LF as Windows does; the default is LF.
	CRLF bool
}

// Writer writes one PDH text log (or typeperf console stream): a header,
// then rows. Each row reaches the underlying writer in one Write call, so a
// console shows whole lines and an interrupted run leaves whole rows.
type Writer struct {
	w    io.Writer
	opts WriterOptions
	cols int
	buf  []byte
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer, opts WriterOptions) *Writer {
	if opts.Location == nil {
		opts.Location = time.Local
	}
	return &Writer{w: w, opts: opts, cols: -1}
}

// WriteHeader writes the header row: the format tag (with zone in Log
// style) and one cell per column. A quote inside a name is doubled, as
// RFC 4180 readers expect (PDH never produces one in practice).
func (w *Writer) WriteHeader(zone Zone, columns []string) error {
	n := 64
	for _, c := range columns {
		n += len(c) + 3
	}
	b := slices.Grow(w.buf[:0], n)
	first := w.opts.Format.tag()
	if w.opts.Style == StyleLog {
		first += " (" + zone.Name + ")(" + strconv.Itoa(zone.Bias) + ")"
	}
	b = appendCell(b, first)
	for _, c := range columns {
		b = append(b, w.opts.Format.sep())
		b = appendCell(b, c)
	}
	b = w.eol(b)
	w.buf = b
	w.cols = len(columns)
	_, err := w.w.Write(b)
	return err
}

// WriteRow writes one sample: its time and one value per column.
func (w *Writer) WriteRow(t time.Time, values []Value) error {
	if w.cols < 0 {
		return errors.New("pdhcsv: row written before the header")
	}
	if len(values) != w.cols {
		return errors.New("pdhcsv: row has " + strconv.Itoa(len(values)) + " values for " + strconv.Itoa(w.cols) + " columns")
	}
	b := w.eol(w.AppendRow(w.buf[:0], t, values))
	w.buf = b
	_, err := w.w.Write(b)
	return err
}

// AppendRow appends one sample as WriteRow writes it, without the line
// end, to b: a caller that learns its columns while it reads the samples
// (relog in one pass) keeps its rows this way and writes them after the
// header with WritePadded.
func (w *Writer) AppendRow(b []byte, t time.Time, values []Value) []byte {
	b = append(b, '"')
	b = AppendTime(b, t.In(w.opts.Location))
	b = append(b, '"')
	sep := w.opts.Format.sep()
	for _, v := range values {
		b = append(b, sep, '"')
		b = w.appendValue(b, v)
		b = append(b, '"')
	}
	return b
}

// WritePadded writes a row made by AppendRow with values for the first n
// columns, then a blank cell for each further column of the header and
// the line end: the bytes WriteRow writes for the same sample with those
// cells missing.
func (w *Writer) WritePadded(row []byte, n int) error {
	if w.cols < 0 {
		return errors.New("pdhcsv: row written before the header")
	}
	if n < 0 || n > w.cols {
		return errors.New("pdhcsv: row has " + strconv.Itoa(n) + " values for " + strconv.Itoa(w.cols) + " columns")
	}
	b := append(w.buf[:0], row...)
	for range w.cols - n {
		b = append(b, w.opts.Format.sep(), '"', ' ', '"')
	}
	b = w.eol(b)
	w.buf = b
	_, err := w.w.Write(b)
	return err
}

func (w *Writer) eol(b []byte) []byte {
	if w.opts.CRLF {
		b = append(b, '\r')
	}
	return append(b, '\n')
}

// appendValue formats v: " " when missing (or not finite, which PDH never
// writes), %.6f on the console, %.17g in logs.
func (w *Writer) appendValue(b []byte, v Value) []byte {
	// x-x is 0 for every finite x, NaN for NaN and the infinities: one
	// test instead of two, on every value of a log.
	if !v.OK || v.Number-v.Number != 0 {
		return append(b, ' ')
	}
	if w.opts.Style == StyleConsole {
		return strconv.AppendFloat(b, v.Number, 'f', 6, 64)
	}
	return appendG17(b, v.Number)
}

// AppendTime appends t as t.AppendFormat(b, TimeLayout) does
// ("01/02/2006 15:04:05.000", in t's location), without reading the
// layout again for every row: a log's rows write one each.
func AppendTime(b []byte, t time.Time) []byte {
	y, mo, d := t.Date()
	if y < 0 || y > 9999 {
		return t.AppendFormat(b, TimeLayout) // its own spelling of such years
	}
	h, mi, s := t.Clock()
	ms := t.Nanosecond() / 1e6
	return append(b,
		byte('0'+mo/10), byte('0'+mo%10), '/',
		byte('0'+d/10), byte('0'+d%10), '/',
		byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), ' ',
		byte('0'+h/10), byte('0'+h%10), ':',
		byte('0'+mi/10), byte('0'+mi%10), ':',
		byte('0'+s/10), byte('0'+s%10), '.',
		byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
}

// appendG17 appends x as C's printf("%.17g") does: 17 significant digits,
// trailing zeros (and a trailing point) removed, exponent form when the
// exponent is below -4 or at least 17, written with a sign and at least two
// digits ("1e+20", "1.0000000000000001e-05"). This is how PDH writes values
// into text logs.
func appendG17(b []byte, x float64) []byte {
	// A whole number below 10^17 (most counters' values: counts, bytes)
	// has at most 17 digits and an exponent below 17: %.17g writes its
	// digits, which AppendInt writes faster. Negative zero is "-0".
	if x > -1e17 && x < 1e17 {
		// In that range int64(x) is x without its fraction: x is whole
		// when converting back gives x again.
		if i := int64(x); float64(i) == x && (i != 0 || !math.Signbit(x)) {
			return strconv.AppendInt(b, i, 10)
		}
	}
	// strconv's 'g' with a precision keeps trailing zeros out and uses the
	// same exponent rule and exponent spelling as C.
	return strconv.AppendFloat(b, x, 'g', 17, 64)
}

func appendCell(b []byte, s string) []byte {
	b = append(b, '"')
	if strings.IndexByte(s, '"') < 0 {
		b = append(b, s...)
	} else {
		b = append(b, strings.ReplaceAll(s, `"`, `""`)...)
	}
	return append(b, '"')
}
