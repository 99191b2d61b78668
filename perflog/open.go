package perflog

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog/binlog"
	"github.com/perfcounters/perfcounters/perflog/blg"
	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
	"github.com/perfcounters/perfcounters/perflog/sqllog"
	"github.com/perfcounters/perfcounters/titles"
	"github.com/perfcounters/perfcounters/utf16le"
	"github.com/perfcounters/perfcounters/wintz"
)

// Input is a set of opened logs read as one recorded source.
type Input struct {
	// Source replays the inputs' samples in time order.
	Source pdh.Source
	// Names and Formats are the inputs as given and what each was
	// recognised as.
	Names   []string
	Formats []Format
	// Location is the zone the inputs were recorded in, when they say
	// and agree (a BLG's, a text log's header, a binary log's); else
	// time.Local. Tools label times with it, as Windows' relog does.
	Location *time.Location
	// Rule is Location's POSIX TZ rule as the input that set it stated it
	// (a BLG's TIME_ZONE_INFORMATION, a binary log's INFO record); "" when
	// it gave none. A writer of the same samples records it as it is
	// (CreateOptions.Rule): the zone travels as a value, not re-derived.
	Rule string
	// Notes are what the readers did that their user should know (a torn
	// last record left out, inputs out of time order merged).
	Notes []string
	// FormattedOnly reports that every input holds formatted values only
	// (CSV, TSV): what needs raw values (a -t over rates) is approximated.
	FormattedOnly bool

	closers []func() error
}

// Kinds are the inputs' format names as relog's console report lists
// them ("Binary", "CSV", ...).
func (in *Input) Kinds() []string {
	out := make([]string, len(in.Formats))
	for i, f := range in.Formats {
		out[i] = f.Kind()
	}
	return out
}

// Close releases every input.
func (in *Input) Close() error {
	var errs []error
	for _, c := range in.closers {
		errs = append(errs, c())
	}
	in.closers = nil
	return errors.Join(errs...)
}

// OpenOptions configure Open.
type OpenOptions struct {
	// Titles names the indexes of captured PERF_DATA_BLOCK files, which
	// carry none (nil: English Windows'). Logs carry their own.
	Titles *titles.DB
	// SQL configures the resolution of SQL data source names.
	SQL sqllog.Options
	// CodePage names the code page of text logs whose bytes do not say
	// theirs (no byte-order mark, not UTF-8): relog's -codepage.
	// utf16le.Auto guesses it and notes what was assumed.
	CodePage utf16le.CodePage
}

// located is one opened input.
type located interface {
	pdh.Source
	Location() *time.Location
	Notes() []string
	Close() error
}

// Open opens inputs of any formats, each recognised by its content (see
// the package doc), as one recorded source: one input as itself, several
// merged in time order (pdh.Merge). Captured PERF_DATA_BLOCK files are one
// input together, their samples grouped by their headers.
func Open(ctx context.Context, names []string, opts OpenOptions) (*Input, error) {
	if len(names) == 0 {
		return nil, errors.New("no input log given")
	}
	in := &Input{Names: names, Formats: make([]Format, len(names))}
	var parts []pdh.Input
	var blockFiles []string
	var zones []*time.Location
	rules := map[*time.Location]string{}
	formatted := 0
	for i, name := range names {
		f, err := Detect(name)
		if err != nil {
			in.Close()
			return nil, err
		}
		in.Formats[i] = f
		if f == Blocks {
			blockFiles = append(blockFiles, name)
			continue
		}
		src, err := openOne(ctx, name, f, opts)
		if err != nil {
			in.Close()
			return nil, misnamed(name, f, err)
		}
		in.closers = append(in.closers, src.Close)
		for _, n := range src.Notes() {
			in.Notes = append(in.Notes, name+": "+n)
		}
		if f == CSV || f == TSV {
			formatted++
		}
		zones = append(zones, src.Location())
		if r, ok := src.(interface{ ZoneRule() string }); ok && r.ZoneRule() != "" {
			rules[src.Location()] = r.ZoneRule()
		}
		parts = append(parts, pdh.Input{Name: name, Source: src})
	}
	if len(blockFiles) > 0 {
		bf, err := pdh.OpenBlockFiles(blockFiles, opts.Titles)
		if err != nil {
			in.Close()
			return nil, err
		}
		in.Notes = append(in.Notes, bf.Notes()...)
		parts = append(parts, pdh.Input{Name: blockFiles[0], Source: bf})
	}
	in.FormattedOnly = formatted == len(names)
	var span []time.Time // each input's first and last sample
	for _, p := range parts {
		if r := p.Source.Recorded(); r != nil && r.Len() > 0 {
			span = append(span, r.Time(0), r.Time(r.Len()-1))
		}
	}
	in.Location = commonZone(zones, span)
	in.Rule = rules[in.Location]
	if len(parts) == 1 {
		in.Source = parts[0].Source
		return in, nil
	}
	m, err := pdh.Merge(parts...)
	if err != nil {
		in.Close()
		return nil, err
	}
	in.Notes = append(in.Notes, m.Notes()...)
	in.Source = m
	return in, nil
}

// openOne opens one log of a known format.
func openOne(ctx context.Context, name string, f Format, opts OpenOptions) (located, error) {
	switch f {
	case BIN:
		return binlog.Open(name)
	case BLG:
		return blg.Open(name)
	case CSV, TSV:
		return pdhcsv.OpenWith(name, pdhcsv.ReadOptions{CodePage: opts.CodePage})
	case SQL:
		return sqllog.OpenWith(ctx, name, opts.SQL)
	}
	return nil, fmt.Errorf("%s: %s logs are not read here", name, f)
}

// commonZone is the zone every input that names one agrees on; time.Local
// when none names one or they disagree. Two zones agree when they are the
// same location, or when a text log would name them alike (the Windows
// name and bias wintz.At gives) at each of the times span holds (the
// inputs' first and last samples): the zone of a BLG (its rules) and of
// the CSV Windows wrote from it (a name and a bias) are one zone over the
// time they cover.
func commonZone(zones []*time.Location, span []time.Time) *time.Location {
	var z *time.Location
	for _, l := range zones {
		if l == nil {
			continue
		}
		if z != nil && !sameZone(z, l, span) {
			return time.Local
		}
		if z == nil {
			z = l
		}
	}
	if z == nil {
		return time.Local
	}
	return z
}

// sameZone reports whether a and b are the same location or name and
// offset each time of span alike (commonZone).
func sameZone(a, b *time.Location, span []time.Time) bool {
	if a.String() == b.String() {
		return true
	}
	for _, t := range span {
		if wintz.At(t.In(a)) != wintz.At(t.In(b)) {
			return false
		}
	}
	return len(span) > 0
}

// misnamed adds to the refusal of a file read as format f what its name
// suggests it is, when that differs: a text file named .blg is not a
// Windows binary performance log either.
func misnamed(name string, f Format, err error) error {
	byName := map[string]Format{".blg": BLG, ".plog": BIN, ".csv": CSV, ".tsv": TSV}[strings.ToLower(filepath.Ext(name))]
	if byName == 0 || byName == f || (f == CSV || f == TSV) && (byName == CSV || byName == TSV) {
		return err
	}
	what := map[Format]string{BLG: "a Windows binary performance log (.blg)", BIN: "a perfc binary log (.plog)", CSV: "a PDH text log", TSV: "a PDH text log"}[byName]
	how := map[Format]string{CSV: "text", TSV: "text", BLG: "no text", BIN: "no text", Blocks: "a PERF_DATA_BLOCK"}[f]
	return fmt.Errorf("%w (named %s, but it holds %s: not %s either)", err, filepath.Ext(name), how, what)
}

// binMagic starts every binary log (perflog/binlog/FORMAT.md).
var binMagic = []byte("\x89PLOG\r\n\x1a")

// perfSignature starts every PERF_DATA_BLOCK: "PERF" in UTF-16LE.
var perfSignature = []byte("P\x00E\x00R\x00F\x00")

// headLen is how much of a file Detect reads.
const headLen = 4 << 10

// Detect recognises the format of a log by what its bytes look like, its
// name's extension only a hint: SQL by the name's "SQL:" prefix; a binary
// log by its magic (or a file shorter than the magic that starts like
// it); a PERF_DATA_BLOCK by its signature; a BLG by its first event-trace
// buffer header; a text log by its header's first cell, in UTF-8, UTF-16
// or an ANSI code page. Other text is taken for a text log (CSV, or TSV
// when named .tsv or its first line has tabs and no commas) and other
// bytes for a BLG or, named .plog, a binary log, so that the refusal
// comes from the reader of the format the file evidently is. An empty
// file is an error.
func Detect(name string) (Format, error) {
	if IsSQL(name) {
		return SQL, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	head := make([]byte, headLen)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	head = head[:n]
	ext := strings.ToLower(filepath.Ext(name))
	switch {
	case n == 0:
		return 0, fmt.Errorf("%s: an empty file (0 bytes): no log in it", name)
	case bytes.HasPrefix(head, binMagic) || n < len(binMagic) && bytes.HasPrefix(binMagic, head):
		return BIN, nil
	case bytes.HasPrefix(head, perfSignature):
		return Blocks, nil
	case blgHeader(head):
		return BLG, nil
	}
	if text, ok := headText(head); ok {
		first, _, _ := strings.Cut(text, "\n")
		if f, ok := pdhTag(first); ok {
			return f, nil
		}
		if ext == ".tsv" || ext != ".csv" && strings.Contains(first, "\t") && !strings.Contains(first, ",") {
			return TSV, nil
		}
		return CSV, nil
	}
	if ext == ".plog" {
		return BIN, nil
	}
	return BLG, nil
}

// pdhTag reports the format a text log's first line names.
func pdhTag(first string) (Format, bool) {
	cell := strings.TrimLeft(first, `"`)
	switch {
	case strings.HasPrefix(cell, "(PDH-CSV 4.0)"):
		return CSV, true
	case strings.HasPrefix(cell, "(PDH-TSV 4.0)"):
		return TSV, true
	}
	return 0, false
}

// IsTextLog reports whether the file at name starts as a PDH text log
// does, its first cell "(PDH-CSV 4.0)" or "(PDH-TSV 4.0)" in any encoding,
// and which format that is (Detect takes other text for a text log too,
// for the text-log reader to refuse).
func IsTextLog(name string) (Format, bool) {
	f, err := os.Open(name)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	head := make([]byte, headLen)
	n, _ := io.ReadFull(f, head)
	text, ok := headText(head[:n])
	if !ok {
		return 0, false
	}
	first, _, _ := strings.Cut(text, "\n")
	return pdhTag(first)
}

// blgHeader reports the start of an event-trace log as a BLG begins: a
// buffer size of 4 KiB to 16 MiB, a multiple of 8, and the trace header
// marked 0xC0 at offset 0x4B (perflog/blg/FORMAT.md).
func blgHeader(b []byte) bool {
	if len(b) < 0x4C {
		return false
	}
	bs := binary.LittleEndian.Uint32(b)
	return bs >= 4<<10 && bs <= 16<<20 && bs%8 == 0 && b[0x4B] == 0xC0
}

// headText decodes the start of a file as text (utf16le.TextReader) and
// reports whether it is text: no NUL and no control character but tab,
// CR, LF and ESC, whatever its encoding.
func headText(head []byte) (string, bool) {
	b, err := io.ReadAll(utf16le.NewTextReader(bytes.NewReader(head), utf16le.Auto))
	var de *utf16le.DecodeError
	if err != nil && !(errors.As(err, &de) && len(b) > 0) {
		return "", false
	}
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\r' && c != '\n' && c != 0x1B || c == 0x7F {
			return "", false
		}
	}
	return string(b), len(b) > 0
}
