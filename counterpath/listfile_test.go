package counterpath

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"
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
