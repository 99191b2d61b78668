package counterpath

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/perfcounters/perfcounters/utf16le"
)

// utf16le encodes s as UTF-16LE with a byte-order mark, as Windows
// PowerShell's Out-File writes it (built here by hand, independently of
// the decoder).
func enc16(s string, bom bool) []byte {
	var b []byte
	if bom {
		b = append(b, 0xff, 0xfe)
	}
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

func TestReadList(t *testing.T) {
	const list = "# counters to watch\r\n\\Processor(_Total)\\% Processor Time\r\n\r\n  \"\\Memory\\Available MBytes\"  \r\n; old\r\n\\LogicalDisk(/home)\\% Free Space\r\n\\Process(Écran)\\ID Process"
	want := []string{`\Processor(_Total)\% Processor Time`, `\Memory\Available MBytes`, `\LogicalDisk(/home)\% Free Space`, `\Process(Écran)\ID Process`}
	be := []byte{0xfe, 0xff}
	for _, u := range utf16.Encode([]rune(list)) {
		be = append(be, byte(u>>8), byte(u))
	}
	tests := []struct {
		name string
		data []byte
	}{
		{"utf8", []byte(list)},
		{"utf8-bom", append([]byte("\xef\xbb\xbf"), list...)},
		{"utf8-lf", []byte(strings.ReplaceAll(list, "\r\n", "\n"))},
		{"utf16le-bom", enc16(list, true)},
		{"utf16be-bom", be},
		{"utf16le without bom", enc16(list, false)}, // the first character is ASCII: no mark needed
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadList(strings.NewReader(string(tt.data)), "c.txt")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %q\nwant %q", got, want)
			}
		})
	}
}

func TestReadListErrors(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"long line", []byte("\\A\\b\n" + strings.Repeat("x", MaxListLine+1) + "\n"), "c.txt:2: line longer than 64 KiB"},
		{"NUL in a line", []byte("\\A\x00\\b\n"), "c.txt:1: NUL character in line"},
		{"odd utf16", append(enc16(`\A\b`, true), 'x'), "c.txt: UTF-16 text of 9 bytes: an odd number"},
		{"lone surrogate", append(enc16(`\A`, true), 0x00, 0xd8), "c.txt: invalid UTF-16 at byte 6"},
		{"latin1", []byte("\\Process(\xe9)\\x\n"), "c.txt:1: not valid UTF-8"},
		{"too big", []byte(strings.Repeat("\n", MaxListSize+1)), "c.txt: larger than 16 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadList(strings.NewReader(string(tt.data)), "c.txt")
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("err = %v, want prefix %q", err, tt.want)
			}
		})
	}
}

// TestReadListFileDevZero: an endless input fails at once with a message,
// instead of reading until memory runs out.
func TestReadListFileDevZero(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip(err)
	}
	_, err := ReadListFile("/dev/zero")
	if err == nil || !strings.Contains(err.Error(), "/dev/zero: larger than 16 MiB") {
		t.Errorf("err = %v", err)
	}
	_, err = ReadListFile(filepath.Join(t.TempDir(), "missing.txt"))
	if err == nil || !strings.Contains(err.Error(), "missing.txt") {
		t.Errorf("err = %v", err)
	}
}

// TestReadListFileIn: a counter list in an ANSI code page (an older
// Notepad's) reads with its names intact, guessed or as named; UTF-8 and
// UTF-16 read as ReadListFile reads them; an endless input is refused.
func TestReadListFileIn(t *testing.T) {
	dir := t.TempDir()
	want := []string{`\Процессор(_Total)\% загруженности процессора`, `\Память\Доступно байт`}
	cp1251 := "\\\xcf\xf0\xee\xf6\xe5\xf1\xf1\xee\xf0(_Total)\\% \xe7\xe0\xe3\xf0\xf3\xe6\xe5\xed\xed\xee\xf1\xf2\xe8 \xef\xf0\xee\xf6\xe5\xf1\xf1\xee\xf0\xe0\r\n" +
		"\\\xcf\xe0\xec\xff\xf2\xfc\\\xc4\xee\xf1\xf2\xf3\xef\xed\xee \xe1\xe0\xe9\xf2\r\n"
	for _, tc := range []struct {
		name string
		data []byte
		cp   utf16le.CodePage
		by   utf16le.How
	}{
		{"guessed.txt", []byte(cp1251), utf16le.Auto, utf16le.ByGuess},
		{"named.txt", []byte(cp1251), 1251, utf16le.ByCaller},
		{"utf8.txt", []byte(strings.Join(want, "\n")), 1251, utf16le.ByUTF8},
		{"utf16.txt", enc16(strings.Join(want, "\r\n"), true), utf16le.Auto, utf16le.ByMark},
	} {
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, d, err := ReadListFileIn(p, tc.cp)
		if err != nil || !reflect.DeepEqual(got, want) || d.By != tc.by {
			t.Errorf("%s: %q, %v (%v); want %q by %v", tc.name, got, err, d, want, tc.by)
		}
	}
	p := filepath.Join(dir, "bad.txt")
	os.WriteFile(p, []byte("\\a\n\\b\x81"), 0o644)
	if _, _, err := ReadListFileIn(p, 1252); err == nil || err.Error() != p+":2: byte 0x81 is not a character of windows-1252" {
		t.Errorf("undefined byte: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, _, err := ReadListFileIn("/dev/zero", utf16le.Auto); err == nil || !strings.Contains(err.Error(), "larger than 16 MiB") {
			t.Errorf("/dev/zero: %v", err)
		}
	}
}
