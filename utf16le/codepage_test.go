package utf16le

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

func TestParseCodePage(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want CodePage
	}{
		{"1251", 1251}, {"cp1251", 1251}, {"CP-1251", 1251}, {"windows-1251", 1251}, {"Windows_1251", 1251},
		{"win1251", 1251}, {" 1252 ", 1252}, {"cp 1250", 1250}, {"latin1", 1252}, {"874", 874}, {"windows-874", 874},
		{"shift_jis", 932}, {"SJIS", 932}, {"cp932", 932}, {"windows-31j", 932}, {"gbk", 936}, {"gb2312", 936},
		{"euc-kr", 949}, {"ks_c_5601-1987", 949}, {"949", 949}, {"big5", 950}, {"950", 950},
		{"utf-8", UTF8}, {"UTF8", UTF8}, {"65001", UTF8}, {"utf-16", UTF16LE}, {"unicode", UTF16LE}, {"1200", UTF16LE},
		{"utf-16be", UTF16BE}, {"1201", UTF16BE}, {"866", 866}, {"ibm850", 850}, {"cp437", 437},
	} {
		got, err := ParseCodePage(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseCodePage(%q) = %v, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"", "empty code page"},
		{"klingon", `unknown code page "klingon"`},
		{"1234", "code page 1234 (\"1234\") is not one perfc reads"},
		{"cp99999", "not one perfc reads"},
		{"-1252", "unknown code page"},
		{"+1252", "unknown code page"},
		{"windows-", "unknown code page"},
	} {
		_, err := ParseCodePage(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "1250-1258") {
			t.Errorf("ParseCodePage(%q) = %v; want an error with %q that lists the code pages", tc.in, err, tc.want)
		}
	}
	if s := CodePage(1251).Describe(); s != "code page 1251 (windows-1251, Cyrillic)" {
		t.Errorf("Describe = %q", s)
	}
	if len(ANSICodePages()) != 14 || ANSICodePages()[0] != 1252 {
		t.Errorf("ANSICodePages = %v", ANSICodePages())
	}
}

// sample is text in a language as a localized Windows names counters,
// written here in UTF-8, and the code page its Windows writes text logs in.
type sample struct {
	cp   CodePage
	text string
}

// samples are the counter paths of localized Windows, one or three
// columns of a text log's header.
var samples = []sample{
	{1252, `"(PDH-CSV 4.0) (Romance Standard Time)(-60)","\\PC\Disco físico(0 C:)\% de tiempo de disco"`},
	{1252, `"\\PC\Processeur(_Total)\% temps processeur","\\PC\Mémoire\Octets disponibles","\\PC\Disque physique(_Total)\Requêtes de lecture/s"`},
	{1252, `"\\PC\Prozessor(_Total)\Prozessorzeit (%)","\\PC\Speicher\Verfügbare Bytes","\\PC\Physikalischer Datenträger(_Total)\Aktuelle Warteschlangenlänge"`},
	{1251, `"\\ПК\Процессор(_Total)\% загруженности процессора"`},
	{1251, `"\\ПК\Процессор(_Total)\% загруженности процессора","\\ПК\Память\Доступно байт","\\ПК\Физический диск(_Total)\Текущая длина очереди диска"`},
	{1250, `"\\PC\Procesor(_Total)\Czas procesora (%)","\\PC\Pamięć\Dostępne bajty","\\PC\Dysk fizyczny(_Total)\Bieżąca długość kolejki dysku"`},
	{1250, `"\\PC\Procesor(_Total)\% času procesoru","\\PC\Paměť\Dostupné bajty","\\PC\Fyzický disk(_Total)\Aktuální délka fronty disku"`},
	{1253, `"\\PC\Επεξεργαστής(_Total)\% χρόνου επεξεργαστή","\\PC\Μνήμη\Διαθέσιμα byte"`},
	{1254, `"\\PC\İşlemci(_Total)\% İşlemci Zamanı","\\PC\Bellek\Kullanılabilir Bayt","\\PC\Fiziksel Disk(_Total)\Geçerli Disk Sırası Uzunluğu"`},
	{1257, `"\\PC\Procesorius(_Total)\% procesoriaus laiko","\\PC\Fizinis diskas(_Total)\Dabartinis disko eilės ilgis","\\PC\Atmintis\Laisvų baitų skaičius"`},
	{1255, `"\\PC\מעבד(_Total)\% זמן מעבד","\\PC\זיכרון\בתים זמינים"`},
	{1256, `"\\PC\المعالج(_Total)\% وقت المعالج","\\PC\الذاكرة\وحدات البايت المتوفرة"`},
	{1258, "\"\\\\PC\\Bô\u0323 xư\u0309 ly\u0301(_Total)\\% thơ\u0300i gian xư\u0309 ly\u0301\""},
	{874, `"\\PC\ตัวประมวลผล(_Total)\% เวลาตัวประมวลผล"`},
	{932, `"\\PC\プロセッサ(_Total)\% プロセッサ時間","\\PC\メモリ\利用可能バイト数","\\PC\PhysicalDisk(_Total)\現在のディスク キューの長さ"`},
	{932, `"\\PC\プロセッサ(_Total)\% プロセッサ時間"`},
	{936, `"\\PC\处理器(_Total)\% 处理器时间","\\PC\内存\可用字节","\\PC\物理磁盘(_Total)\当前磁盘队列长度"`},
	{936, `"\\PC\处理器(_Total)\% 处理器时间"`},
	{949, `"\\PC\프로세서(_Total)\% 프로세서 시간","\\PC\메모리\사용 가능한 바이트","\\PC\실제 디스크(_Total)\현재 디스크 큐 길이"`},
	{949, `"\\PC\프로세서(_Total)\% 프로세서 시간"`},
	{950, `"\\PC\處理器(_Total)\% 處理器時間","\\PC\記憶體\可用位元組","\\PC\實體磁碟(_Total)\目前磁碟佇列長度"`},
	{950, `"\\PC\處理器(_Total)\% 處理器時間"`},
}

// encoders are golang.org/x/text's encoders, which the tests use to make
// their input: independent of the decoders and the guess under test.
var encoders = map[CodePage]interface {
	Bytes([]byte) ([]byte, error)
}{
	1250: charmap.Windows1250.NewEncoder(), 1251: charmap.Windows1251.NewEncoder(), 1252: charmap.Windows1252.NewEncoder(),
	1253: charmap.Windows1253.NewEncoder(), 1254: charmap.Windows1254.NewEncoder(), 1255: charmap.Windows1255.NewEncoder(),
	1256: charmap.Windows1256.NewEncoder(), 1257: charmap.Windows1257.NewEncoder(), 1258: charmap.Windows1258.NewEncoder(),
	874: charmap.Windows874.NewEncoder(), 932: japanese.ShiftJIS.NewEncoder(), 936: simplifiedchinese.GBK.NewEncoder(),
	949: korean.EUCKR.NewEncoder(), 950: traditionalchinese.Big5.NewEncoder(),
}

func encode(t testing.TB, cp CodePage, s string) []byte {
	t.Helper()
	b, err := encoders[cp].Bytes([]byte(s))
	if err != nil {
		t.Fatalf("encoding %q in %d: %v", s, cp, err)
	}
	return b
}

// TestGuess: each language's text in its Windows code page reads back as
// the text, the code page guessed; where the guess cannot tell (Baltic
// read as Western European reads as plausibly), the right code page is
// named among the rivals.
func TestGuess(t *testing.T) {
	for _, s := range samples {
		in := encode(t, s.cp, s.text)
		tr := NewTextReader(bytes.NewReader(in), Auto)
		out, err := io.ReadAll(tr)
		if err != nil {
			t.Fatalf("%d: %v", s.cp, err)
		}
		d := tr.Decision()
		if d.By != ByGuess || d.Line != 1 {
			t.Errorf("%d: decided %v by %v on line %d, want a guess on line 1", s.cp, d.CodePage, d.By, d.Line)
		}
		if s.cp == 1257 {
			if !containsCP(d.Rivals, 1257) || !strings.Contains(d.String(), "uncertain: ") {
				t.Errorf("Baltic: %s; want 1257 named a rival", d)
			}
			continue
		}
		if d.CodePage != s.cp || string(out) != s.text {
			t.Errorf("%d: read as %d: %q (%s)", s.cp, d.CodePage, out, d)
		}
	}
}

func containsCP(list []CodePage, cp CodePage) bool {
	for _, c := range list {
		if c == cp {
			return true
		}
	}
	return false
}

// TestGuessLiteral: the bytes of the logs, written out by hand:
// Spanish Windows' 1252 and Russian Windows' 1251.
func TestGuessLiteral(t *testing.T) {
	for _, tc := range []struct {
		in         string
		want       string
		cp         CodePage
		alike      []CodePage
		uncertain  bool
		rivalsHave CodePage
	}{
		{"\\\\PC\\Disco f\xedsico(0 C:)\\% de tiempo de disco", `\\PC\Disco físico(0 C:)\% de tiempo de disco`, 1252, []CodePage{1250, 1254, 1258}, true, 1257},
		{"\\\\\xcf\xca\\\xcf\xf0\xee\xf6\xe5\xf1\xf1\xee\xf0(_Total)\\% \xe7\xe0\xe3\xf0\xf3\xe6\xe5\xed\xed\xee\xf1\xf2\xe8 \xef\xf0\xee\xf6\xe5\xf1\xf1\xee\xf0\xe0",
			`\\ПК\Процессор(_Total)\% загруженности процессора`, 1251, nil, false, 0},
	} {
		tr := NewTextReader(strings.NewReader(tc.in), Auto)
		out, err := io.ReadAll(tr)
		d := tr.Decision()
		if err != nil || string(out) != tc.want || d.CodePage != tc.cp || d.By != ByGuess {
			t.Errorf("read %q as %v (%v): %q, %v", tc.in, d.CodePage, d.By, out, err)
		}
		if len(d.Alike) != len(tc.alike) {
			t.Errorf("%d: alike %v, want %v", tc.cp, d.Alike, tc.alike)
		}
		if (len(d.Rivals) > 0) != tc.uncertain || tc.rivalsHave != 0 && !containsCP(d.Rivals, tc.rivalsHave) {
			t.Errorf("%d: rivals %v", tc.cp, d.Rivals)
		}
		if !strings.Contains(d.String(), "read as code page "+strings.TrimPrefix(tc.cp.Describe(), "code page ")) {
			t.Errorf("%d: %s", tc.cp, d)
		}
	}
}

// le encodes s as UTF-16LE with the standard library (see text_test.go).
func TestTextReaderDecisions(t *testing.T) {
	const s = "\"\\\\PC\\Disco físico(0 C:)\\% de tiempo de disco\"\r\n\"1\"\r\n"
	for _, tc := range []struct {
		name  string
		in    []byte
		given CodePage
		cp    CodePage
		by    How
		want  string
		over  bool
	}{
		{"ascii", []byte("\"a\",\"b\"\n"), Auto, UTF8, ByASCII, "\"a\",\"b\"\n", false},
		{"empty", nil, Auto, UTF8, ByASCII, "", false},
		{"utf-8", []byte(s), Auto, UTF8, ByUTF8, s, false},
		{"utf-8 with a mark", append([]byte{0xEF, 0xBB, 0xBF}, s...), Auto, UTF8, ByMark, s, false},
		{"utf-16le with a mark", append([]byte{0xFF, 0xFE}, le(s)...), Auto, UTF16LE, ByMark, s, false},
		{"utf-16be with a mark", append([]byte{0xFE, 0xFF}, be(s)...), Auto, UTF16BE, ByMark, s, false},
		{"utf-16le without a mark", le(s), Auto, UTF16LE, ByZeros, s, false},
		{"utf-16be without a mark", be(s), Auto, UTF16BE, ByZeros, s, false},
		{"1252 named", []byte(strings.ReplaceAll(s, "í", "\xed")), 1252, 1252, ByCaller, s, false},
		{"1257 named: read so", []byte(strings.ReplaceAll(s, "í", "\xed")), 1257, 1257, ByCaller, strings.ReplaceAll(s, "í", "ķ"), false},
		{"1251 named, UTF-8 bytes", []byte(s), 1251, UTF8, ByUTF8, s, true},
		{"1251 named, a mark", append([]byte{0xFF, 0xFE}, le(s)...), 1251, UTF16LE, ByMark, s, true},
		{"utf-16le named", le("\"Disco\"\n")[2:], UTF16LE, UTF16LE, ByCaller, "Disco\"\n", false},
		{"1251 named, ascii", []byte("abc"), 1251, UTF8, ByASCII, "abc", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, small := range []bool{false, true} {
				var r io.Reader = bytes.NewReader(tc.in)
				if small {
					r = iotest.OneByteReader(r)
				}
				tr := NewTextReader(r, tc.given)
				out, err := io.ReadAll(tr)
				d := tr.Decision()
				if err != nil || string(out) != tc.want || d.CodePage != tc.cp || d.By != tc.by || d.Overruled() != tc.over {
					t.Fatalf("one byte a read %v: %q, %v; decided %v by %v (overruled %v); want %q, %v by %v", small, out, err, d.CodePage, d.By, d.Overruled(), tc.want, tc.cp, tc.by)
				}
			}
		})
	}
}

// TestTextReaderErrors: what the decided encoding cannot read is an error
// naming the line and the byte, never U+FFFD; the end of a torn file is
// marked.
func TestTextReaderErrors(t *testing.T) {
	long := strings.Repeat("\"01/02/2024 10:00:00.000\",\"1\"\n", Window/29+10)
	for _, tc := range []struct {
		name  string
		in    string
		given CodePage
		want  string
		line  int
		atEnd bool
	}{
		{"1252 undefined byte", "a\nb\x81c", 1252, "byte 0x81 is not a character of windows-1252", 2, false},
		{"utf-8, then not", "\"físico\"\n" + long + "\"x\xed\"\n", Auto, "byte 0xED is not valid UTF-8", 2 + strings.Count(long, "\n"), false},
		{"932 bad trail", "ab\n\x81\x20", 932, "bytes 81 20 are not a character of shift_jis", 2, false},
		{"932 cut lead", "ab\n\x83", 932, "not a character of shift_jis", 2, true},
		{"utf-16 odd", "\xff\xfea\x00\n\x00b", Auto, "odd number", 2, true},
		{"utf-16 lone low surrogate", "\xff\xfea\x00\x00\xde", Auto, "a low surrogate without its high one", 1, false},
		{"utf-16 cut surrogate", "\xff\xfea\x00\x3d\xd8", Auto, "a high surrogate at the end", 1, true},
		{"utf-8 cut", "ab\xc3", UTF8, "not valid UTF-8", 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTextReader(strings.NewReader(tc.in), tc.given)
			out, err := io.ReadAll(tr)
			var de *DecodeError
			if !errors.As(err, &de) || !strings.Contains(err.Error(), tc.want) || de.Line != tc.line || de.AtEnd != tc.atEnd {
				t.Fatalf("read %q, %v (%#v); want an error with %q on line %d, at end %v", out, err, de, tc.want, tc.line, tc.atEnd)
			}
			if bytes.Contains(out, []byte("\uFFFD")) {
				t.Errorf("U+FFFD in %q", out)
			}
		})
	}
	// A reader's error comes back as it is.
	boom := errors.New("boom")
	if _, err := io.ReadAll(NewTextReader(iotest.ErrReader(boom), Auto)); !errors.Is(err, boom) {
		t.Errorf("read error: %v", err)
	}
	if _, err := io.ReadAll(NewTextReader(io.MultiReader(strings.NewReader("ab\xed"), iotest.ErrReader(boom)), Auto)); !errors.Is(err, boom) {
		t.Errorf("read error after text: %v", err)
	}
}

// TestTextReaderStreams: the text decoded through reads of one byte, of
// half the buffer and of everything is the same, and so is the decision.
func TestTextReaderStreams(t *testing.T) {
	for _, s := range samples {
		in := encode(t, s.cp, strings.Repeat(s.text+"\r\n\"01/02/2024 10:00:00.000\",\"1\"\r\n", 50))
		var first []byte
		var firstD Decision
		for i, wrap := range []func(io.Reader) io.Reader{
			func(r io.Reader) io.Reader { return r }, iotest.OneByteReader, iotest.HalfReader, iotest.DataErrReader,
		} {
			tr := NewTextReader(wrap(bytes.NewReader(in)), Auto)
			out, err := io.ReadAll(tr)
			if err != nil {
				t.Fatalf("%d, reader %d: %v", s.cp, i, err)
			}
			if i == 0 {
				first, firstD = out, tr.Decision()
				continue
			}
			if !bytes.Equal(out, first) || tr.Decision().CodePage != firstD.CodePage {
				t.Errorf("%d, reader %d: differs", s.cp, i)
			}
		}
	}
}

func TestTextWriter(t *testing.T) {
	const s = "\"\\\\ПК\\Процессор(_Total)\\% загруженности процессора\"\r\n\"1\"\r\n"
	for _, tc := range []struct {
		name string
		cp   CodePage
		bom  bool
		want []byte
	}{
		{"utf-8", UTF8, false, []byte(s)},
		{"utf-8 with a mark", UTF8, true, append([]byte{0xEF, 0xBB, 0xBF}, s...)},
		{"utf-16le", UTF16LE, false, append([]byte{0xFF, 0xFE}, le(s)...)},
		{"utf-16be", UTF16BE, true, append([]byte{0xFE, 0xFF}, be(s)...)},
		{"1251", 1251, false, []byte("\"\\\\\xcf\xca\\\xcf\xf0\xee\xf6\xe5\xf1\xf1\xee\xf0(_Total)\\% \xe7\xe0\xe3\xf0\xf3\xe6\xe5\xed\xed\xee\xf1\xf2\xe8 \xef\xf0\xee\xf6\xe5\xf1\xf1\xee\xf0\xe0\"\r\n\"1\"\r\n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, step := range []int{len(s), 1, 3} {
				var buf bytes.Buffer
				w, err := NewTextWriter(&buf, tc.cp, tc.bom)
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < len(s); i += step {
					if _, err := w.Write([]byte(s[i:min(i+step, len(s))])); err != nil {
						t.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(buf.Bytes(), tc.want) {
					t.Fatalf("writes of %d: % X, want % X", step, buf.Bytes(), tc.want)
				}
			}
		})
	}
	var buf bytes.Buffer
	w, _ := NewTextWriter(&buf, 1252, false)
	w.Write([]byte("\"a\"\n\"ф\""))
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), `line 2: 'ф' (U+0444) is not a character of code page 1252`) {
		t.Errorf("1252 with a Cyrillic letter: %v", err)
	}
	w, _ = NewTextWriter(&buf, UTF8, false)
	w.Write([]byte("a\xd0"))
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "ends inside") {
		t.Errorf("cut text: %v", err)
	}
	if _, err := NewTextWriter(&buf, 12345, false); err == nil {
		t.Error("code page 12345 accepted")
	}
}
