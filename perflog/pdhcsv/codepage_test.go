package pdhcsv

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"

	"github.com/perfcounters/perfcounters/internal/golden"
	"github.com/perfcounters/perfcounters/utf16le"
)

// CodePageDir holds the text logs of localized Windows and of Windows'
// irregular writers, made by TestCodePageFixtures (README.md there).
const codePageDir = "testdata/codepage"

// The counter paths of the fixtures, written here in UTF-8: what reading
// each fixture must give, whatever its encoding.
var (
	esColumns = []string{`\\PC\Disco físico(0 C:)\% de tiempo de disco`, `\\PC\Procesador(_Total)\% de tiempo de procesador`, `\\PC\Interfaz de red(Conexión de área local)\Bytes enviados/s`}
	ruColumns = []string{`\\ПК\Процессор(_Total)\% загруженности процессора`, `\\ПК\Память\Доступно байт`, `\\ПК\Физический диск(0 C:)\Текущая длина очереди диска`}
	jaColumns = []string{`\\PC\プロセッサ(_Total)\% プロセッサ時間`, `\\PC\メモリ\利用可能バイト数`, `\\PC\PhysicalDisk(0 C:)\現在のディスク キューの長さ`}
	koColumns = []string{`\\PC\프로세서(_Total)\% 프로세서 시간`, `\\PC\메모리\사용 가능한 바이트`, `\\PC\실제 디스크(0 C:)\현재 디스크 큐 길이`}
	zhColumns = []string{`\\PC\处理器(_Total)\% 处理器时间`, `\\PC\内存\可用字节`, `\\PC\物理磁盘(0 C:)\当前磁盘队列长度`}
	// mixed holds names of three scripts, which only Unicode can.
	mixedColumns = []string{esColumns[0], ruColumns[0], jaColumns[0]}
	asciiColumns = []string{`\\PC\Processor(_Total)\% Processor Time`, `\\PC\Memory\Available Bytes`, `\\PC\PhysicalDisk(0 C:)\Current Disk Queue Length`}
)

// fixtureRows are every fixture's two rows, the third value of the first
// missing.
const fixtureRows = "\"01/02/2024 10:00:00.000\",\"1.5\",\"12.25\",\" \"\n\"01/02/2024 10:00:01.000\",\"2.5\",\"13.75\",\"1024\"\n"

// fixture is one file of codePageDir: how it is made and what reading it
// must give.
type fixture struct {
	file string
	// text is the log in UTF-8 with LF line ends; make turns it into the
	// file's bytes.
	text string
	make func(t testing.TB, text string) []byte
	// What reading it gives.
	columns     []string
	zone        Zone
	description string
	cp          utf16le.CodePage
	by          utf16le.How
	notes       []string // substrings of the notes, in order
}

// header is a header line of cells, each quoted, with the zone cell first.
func header(sep, zone string, cols []string) string {
	cells := []string{`"(PDH-CSV 4.0)` + zone + `"`}
	if sep == "\t" {
		cells[0] = `"(PDH-TSV 4.0)` + zone + `"`
	}
	for _, c := range cols {
		cells = append(cells, `"`+c+`"`)
	}
	return strings.Join(cells, sep) + "\n"
}

// in encodes text with golang.org/x/text's encoder e and CR LF line
// ends, as Windows writes a log.
func in(e encoding.Encoding) func(testing.TB, string) []byte {
	return func(t testing.TB, text string) []byte {
		b, err := e.NewEncoder().Bytes([]byte(strings.ReplaceAll(text, "\n", "\r\n")))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}

// utf16LE is text in UTF-16LE with a byte-order mark and CR LF, with the
// standard library's encoder.
func utf16LE(_ testing.TB, text string) []byte {
	b := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(strings.ReplaceAll(text, "\n", "\r\n"))) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

func utf8BOM(_ testing.TB, text string) []byte {
	return append([]byte{0xEF, 0xBB, 0xBF}, strings.ReplaceAll(text, "\n", "\r\n")...)
}

func crlf(_ testing.TB, text string) []byte { return []byte(strings.ReplaceAll(text, "\n", "\r\n")) }

func lf(_ testing.TB, text string) []byte { return []byte(text) }

// mixedEnds ends the header with CR LF and the rows with LF.
func mixedEnds(_ testing.TB, text string) []byte {
	return []byte(strings.Replace(text, "\n", "\r\n", 1))
}

// everyLineSep ends every line with a separator.
func everyLineSep(_ testing.TB, text string) []byte {
	return []byte(strings.ReplaceAll(text, "\n", ",\r\n"))
}

// headerSep ends the header only with a separator.
func headerSep(_ testing.TB, text string) []byte {
	return []byte(strings.ReplaceAll(strings.Replace(text, "\n", ",\n", 1), "\n", "\r\n"))
}

var (
	romance = Zone{Name: "Romance Standard Time", Bias: -60}
	rtz2    = Zone{Name: "RTZ 2 (зима)", Bias: -180}
	tokyo   = Zone{Name: "Tokyo Standard Time", Bias: -540}
	korea   = Zone{Name: "Korea Standard Time", Bias: -540}
	china   = Zone{Name: "China Standard Time", Bias: -480}
	utc     = Zone{Name: "Coordinated Universal Time", Bias: 0}
)

func fixtures() []fixture {
	zoneCell := func(z Zone) string { return " (" + z.Name + ")(" + strconv.Itoa(z.Bias) + ")" }
	guess := func(cp int) []string {
		return []string{"no byte-order mark and not UTF-8: read as code page " + strconv.Itoa(cp)}
	}
	return []fixture{
		{file: "es-cp1252.csv", text: header(",", zoneCell(romance), esColumns) + fixtureRows, make: in(charmap.Windows1252),
			columns: esColumns, zone: romance, cp: 1252, by: utf16le.ByGuess, notes: guess(1252)},
		{file: "ru-cp1251.csv", text: header(",", zoneCell(rtz2), ruColumns) + fixtureRows, make: in(charmap.Windows1251),
			columns: ruColumns, zone: rtz2, cp: 1251, by: utf16le.ByGuess, notes: guess(1251)},
		{file: "ru-cp1251.tsv", text: strings.ReplaceAll(header("\t", zoneCell(rtz2), ruColumns)+fixtureRows, `","`, "\"\t\""), make: in(charmap.Windows1251),
			columns: ruColumns, zone: rtz2, cp: 1251, by: utf16le.ByGuess, notes: guess(1251)},
		{file: "ru-cp1251-zone-cut.csv", text: header(",", " (RTZ 2 (", ruColumns) + fixtureRows, make: in(charmap.Windows1251),
			columns: ruColumns, zone: utc, cp: 1251, by: utf16le.ByGuess,
			notes: append(guess(1251), `line 1: the time zone cell "(PDH-CSV 4.0) (RTZ 2 (" cannot be read (a localized Windows cut it short): its times are read as UTC`)},
		{file: "ja-cp932.csv", text: header(",", zoneCell(tokyo), jaColumns) + fixtureRows, make: in(japanese.ShiftJIS),
			columns: jaColumns, zone: tokyo, cp: 932, by: utf16le.ByGuess, notes: guess(932)},
		{file: "ko-cp949.csv", text: header(",", zoneCell(korea), koColumns) + fixtureRows, make: in(korean.EUCKR),
			columns: koColumns, zone: korea, cp: 949, by: utf16le.ByGuess, notes: guess(949)},
		{file: "zh-cp936.csv", text: header(",", zoneCell(china), zhColumns) + fixtureRows, make: in(simplifiedchinese.GBK),
			columns: zhColumns, zone: china, cp: 936, by: utf16le.ByGuess, notes: guess(936)},
		{file: "utf16le-bom.csv", text: header(",", zoneCell(utc), mixedColumns) + fixtureRows, make: utf16LE,
			columns: mixedColumns, zone: utc, cp: utf16le.UTF16LE, by: utf16le.ByMark},
		{file: "utf8-bom.csv", text: header(",", zoneCell(utc), mixedColumns) + fixtureRows, make: utf8BOM,
			columns: mixedColumns, zone: utc, cp: utf16le.UTF8, by: utf16le.ByMark},
		{file: "utf8.csv", text: header(",", zoneCell(utc), mixedColumns) + fixtureRows, make: crlf,
			columns: mixedColumns, zone: utc, cp: utf16le.UTF8, by: utf16le.ByUTF8},
		{file: "quotes-undoubled.csv", text: strings.Replace(header(",", zoneCell(utc), asciiColumns), "\n", `,"Disks of "PC" at night, kept 7 days"`+"\n", 1) + fixtureRows, make: crlf,
			columns: asciiColumns, zone: utc, description: `Disks of "PC" at night, kept 7 days`, cp: utf16le.UTF8, by: utf16le.ByASCII,
			notes: []string{"line 1: a quote inside a cell is not doubled", `line 1: the last header cell "Disks of \"PC\" at night, kept 7 days" is no counter path`}},
		{file: "trailing-separator.csv", text: header(",", zoneCell(utc), asciiColumns) + fixtureRows, make: everyLineSep,
			columns: asciiColumns, zone: utc, cp: utf16le.UTF8, by: utf16le.ByASCII, notes: []string{"line 1: the line ends with a separator"}},
		{file: "header-separator.csv", text: header(",", zoneCell(utc), asciiColumns) + fixtureRows, make: headerSep,
			columns: asciiColumns, zone: utc, cp: utf16le.UTF8, by: utf16le.ByASCII, notes: []string{"line 1: the line ends with a separator"}},
		{file: "lf.csv", text: header(",", zoneCell(utc), asciiColumns) + fixtureRows, make: lf,
			columns: asciiColumns, zone: utc, cp: utf16le.UTF8, by: utf16le.ByASCII},
		{file: "crlf.csv", text: header(",", zoneCell(utc), asciiColumns) + fixtureRows, make: crlf,
			columns: asciiColumns, zone: utc, cp: utf16le.UTF8, by: utf16le.ByASCII},
		{file: "mixed-line-ends.csv", text: header(",", zoneCell(utc), asciiColumns) + fixtureRows, make: mixedEnds,
			columns: asciiColumns, zone: utc, cp: utf16le.UTF8, by: utf16le.ByASCII, notes: []string{"line 2: lines end in both LF and CR LF (the first in CR LF)"}},
	}
}

// TestCodePageFixtures makes the files of testdata/codepage under
// -update and otherwise checks that they are what it makes: the fixtures
// are reproducible from this table.
func TestCodePageFixtures(t *testing.T) {
	for _, f := range fixtures() {
		want := f.make(t, f.text)
		path := filepath.Join(codePageDir, f.file)
		if golden.Update() {
			if err := os.MkdirAll(codePageDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test -update makes it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what the table makes (go test -update)", path)
		}
	}
}

// TestCodePageRead: every fixture reads with its names intact, its zone,
// its values, and the notes that say what was assumed or forgiven, the
// encoding guessed or stated.
func TestCodePageRead(t *testing.T) {
	for _, f := range fixtures() {
		t.Run(f.file, func(t *testing.T) {
			l, err := Open(filepath.Join(codePageDir, f.file))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(l.Columns, f.columns) {
				t.Errorf("columns\n%q\nwant\n%q", l.Columns, f.columns)
			}
			if !slices.Equal(l.Counters(), f.columns) {
				t.Errorf("counters %q", l.Counters())
			}
			if l.Zone != f.zone || l.Description != f.description {
				t.Errorf("zone %+v, description %q; want %+v, %q", l.Zone, l.Description, f.zone, f.description)
			}
			if l.Encoding.CodePage != f.cp || l.Encoding.By != f.by {
				t.Errorf("read as %v by %v, want %v by %v", l.Encoding.CodePage, l.Encoding.By, f.cp, f.by)
			}
			if len(l.Rows) != 2 || l.Rows[0].Values[1].Number != 12.25 || l.Rows[0].Values[2].OK || l.Rows[1].Values[2].Number != 1024 {
				t.Errorf("rows %+v", l.Rows)
			}
			first := time.Date(2024, 1, 2, 10, 0, 0, 0, time.UTC).Add(time.Duration(f.zone.Bias) * time.Minute)
			if !l.Time(0).Equal(first) {
				t.Errorf("first time %v, want %v", l.Time(0), first)
			}
			notes := l.Notes()
			if len(notes) != len(f.notes) {
				t.Fatalf("notes %q, want %d", notes, len(f.notes))
			}
			for i, n := range f.notes {
				if !strings.HasPrefix(notes[i], n) {
					t.Errorf("note %d %q, want it to start %q", i, notes[i], n)
				}
			}
		})
	}
}

// TestCodePageNamed: a code page named reads a log that does not say its
// own without a note, in any of the names Windows admins give it; a log
// that says its own (a byte-order mark) is read as it says, noted.
func TestCodePageNamed(t *testing.T) {
	for _, name := range []string{"1251", "cp1251", "windows-1251"} {
		cp, err := utf16le.ParseCodePage(name)
		if err != nil {
			t.Fatal(err)
		}
		l, err := OpenWith(filepath.Join(codePageDir, "ru-cp1251.csv"), ReadOptions{CodePage: cp})
		if err != nil || !slices.Equal(l.Columns, ruColumns) || len(l.Notes()) != 0 || l.Encoding.By != utf16le.ByCaller {
			t.Errorf("-codepage %s: %v, %q, notes %q", name, err, l.Columns, l.Notes())
		}
	}
	// Named wrong: read as named, the names as that code page makes them.
	l, err := OpenWith(filepath.Join(codePageDir, "es-cp1252.csv"), ReadOptions{CodePage: 1257})
	if err != nil || l.Columns[0] != `\\PC\Disco fķsico(0 C:)\% de tiempo de disco` {
		t.Errorf("1252 read as 1257: %v, %q", err, l.Columns)
	}
	l, err = OpenWith(filepath.Join(codePageDir, "utf16le-bom.csv"), ReadOptions{CodePage: 1251})
	if err != nil || !slices.Equal(l.Columns, mixedColumns) || len(l.Notes()) != 1 || !strings.Contains(l.Notes()[0], "the code page named, windows-1251, is not used") {
		t.Errorf("UTF-16 named 1251: %v, %q", err, l.Notes())
	}
	// A byte the code page named leaves undefined: where, and why.
	_, err = ReadLogWith(strings.NewReader("\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\PC\\A\\b\"\n\"01/02/2024 10:00:00.000\",\"1\"\n\"\x81"), "x.csv", ReadOptions{CodePage: 1252})
	if err == nil || err.Error() != "x.csv: line 3: byte 67: byte 0x81 is not a character of windows-1252 (the code page named)" {
		t.Errorf("undefined byte: %v", err)
	}
}
