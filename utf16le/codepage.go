package utf16le

import (
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

// CodePage is a Windows code page identifier, as Windows' "Code Page
// Identifiers" table numbers them (CODEPAGES.md): an ANSI code page
// (1252, 1251, 932, ...), an OEM one (437, 850, 852, 866), or one of the
// Unicode forms Windows numbers (65001 UTF-8, 1200 UTF-16LE, 1201
// UTF-16BE). The zero value, Auto, asks a TextReader to decide from the
// bytes.
type CodePage int

// The code pages with a name of their own here.
const (
	// Auto: decide from the bytes (NewTextReader).
	Auto CodePage = 0
	// UTF16LE is Windows' "Unicode": UTF-16, little-endian.
	UTF16LE CodePage = 1200
	// UTF16BE is UTF-16, big-endian ("unicodeFFFE").
	UTF16BE CodePage = 1201
	// UTF8 is UTF-8.
	UTF8 CodePage = 65001
)

// page is what this package knows of a code page: its .NET name from
// Windows' table, what it is for, other names people give it, and the
// decoder of golang.org/x/text that reads it (nil for the Unicode forms,
// which this package decodes itself).
type page struct {
	cp      CodePage
	name    string
	about   string
	aliases []string
	enc     encoding.Encoding
	dbcs    bool // a double-byte code page (932, 936, 949, 950)
}

// pages lists every code page this package reads and writes. The ANSI
// code pages come first, in guessOrder's order.
var pages = []page{
	{1252, "windows-1252", "Western European", []string{"latin1", "iso-8859-1"}, charmap.Windows1252, false},
	{1251, "windows-1251", "Cyrillic", nil, charmap.Windows1251, false},
	{1250, "windows-1250", "Central European", nil, charmap.Windows1250, false},
	{932, "shift_jis", "Japanese", []string{"shift-jis", "sjis", "ms932", "windows-31j", "cp932"}, japanese.ShiftJIS, true},
	{936, "gb2312", "Simplified Chinese", []string{"gbk", "cp936", "ms936"}, simplifiedchinese.GBK, true},
	{949, "ks_c_5601-1987", "Korean", []string{"euc-kr", "uhc", "ks_c_5601", "cp949", "ms949"}, korean.EUCKR, true},
	{950, "big5", "Traditional Chinese", []string{"cp950", "ms950"}, traditionalchinese.Big5, true},
	{1253, "windows-1253", "Greek", nil, charmap.Windows1253, false},
	{1254, "windows-1254", "Turkish", nil, charmap.Windows1254, false},
	{1257, "windows-1257", "Baltic", nil, charmap.Windows1257, false},
	{1255, "windows-1255", "Hebrew", nil, charmap.Windows1255, false},
	{1256, "windows-1256", "Arabic", nil, charmap.Windows1256, false},
	{1258, "windows-1258", "Vietnamese", nil, charmap.Windows1258, false},
	{874, "windows-874", "Thai", []string{"tis-620"}, charmap.Windows874, false},
	// OEM code pages: what a console writes; read when named, never guessed.
	{437, "ibm437", "OEM United States", nil, charmap.CodePage437, false},
	{850, "ibm850", "OEM Western European", nil, charmap.CodePage850, false},
	{852, "ibm852", "OEM Central European", nil, charmap.CodePage852, false},
	{866, "cp866", "OEM Cyrillic", nil, charmap.CodePage866, false},
	// The Unicode forms.
	{UTF8, "utf-8", "Unicode", []string{"utf8"}, nil, false},
	{UTF16LE, "utf-16", "Unicode, little-endian", []string{"utf-16le", "utf16", "utf16le", "unicode"}, nil, false},
	{UTF16BE, "unicodeFFFE", "Unicode, big-endian", []string{"utf-16be", "utf16be"}, nil, false},
}

// guessed is how many of pages, from the first, a guess chooses among:
// the ANSI code pages of Windows (874, 932, 936, 949, 950, 1250-1258).
const guessed = 14

// ANSICodePages are the ANSI code pages a TextReader chooses among when
// the bytes do not say which, in the order that breaks a tie (Western
// European first: the most common ANSI code page).
func ANSICodePages() []CodePage {
	out := make([]CodePage, guessed)
	for i := range out {
		out[i] = pages[i].cp
	}
	return out
}

func lookup(cp CodePage) (page, bool) {
	for _, p := range pages {
		if p.cp == cp {
			return p, true
		}
	}
	return page{}, false
}

// ParseCodePage reads a code page as a Windows administrator names it:
// its number ("1252"), with a prefix ("cp1251", "windows-1251", "CP
// 1251"), or a name of Windows' table or a common alias ("shift_jis",
// "gbk", "big5", "ks_c_5601-1987", "euc-kr", "utf-8", "utf-16",
// "unicode"). Case and '-', '_' or ' ' between prefix and number do not
// matter. A code page this package cannot read is an error that lists
// the ones it can.
func ParseCodePage(s string) (CodePage, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "" {
		return 0, fmt.Errorf("empty code page: %s", supported())
	}
	for _, p := range pages {
		if t == strings.ToLower(p.name) {
			return p.cp, nil
		}
		for _, a := range p.aliases {
			if t == a {
				return p.cp, nil
			}
		}
	}
	num := t
	for _, prefix := range []string{"windows", "win", "cp", "ibm", "ansi"} {
		if rest, ok := strings.CutPrefix(t, prefix); ok {
			num = strings.TrimLeft(rest, "-_ ")
			break
		}
	}
	n, err := strconv.Atoi(num)
	if err != nil || n <= 0 || num == "" || num[0] == '+' {
		return 0, fmt.Errorf("unknown code page %q: %s", s, supported())
	}
	if _, ok := lookup(CodePage(n)); !ok {
		return 0, fmt.Errorf("code page %d (%q) is not one perfc reads: %s", n, s, supported())
	}
	return CodePage(n), nil
}

// supported says which code pages ParseCodePage takes.
func supported() string {
	return "want a Windows code page by number or name: 1250-1258, 874, 932, 936, 949, 950 (ANSI), 437, 850, 852, 866 (OEM), 65001 (UTF-8), 1200 (UTF-16LE), 1201 (UTF-16BE); e.g. 1252, cp1251, windows-1251, shift_jis, utf-8"
}

// String is the code page's name in Windows' table ("windows-1251",
// "shift_jis", "utf-8"), "auto" for Auto, or "code page N" for one this
// package does not know.
func (cp CodePage) String() string {
	if cp == Auto {
		return "auto"
	}
	if p, ok := lookup(cp); ok {
		return p.name
	}
	return "code page " + strconv.Itoa(int(cp))
}

// Describe names the code page for a person: "code page 1251
// (windows-1251, Cyrillic)".
func (cp CodePage) Describe() string {
	p, ok := lookup(cp)
	if !ok {
		return cp.String()
	}
	switch cp {
	case UTF8:
		return "UTF-8"
	case UTF16LE:
		return "UTF-16LE"
	case UTF16BE:
		return "UTF-16BE"
	}
	return fmt.Sprintf("code page %d (%s, %s)", int(cp), p.name, p.about)
}

// Unicode reports UTF-8, UTF-16LE and UTF-16BE.
func (cp CodePage) Unicode() bool {
	return cp == UTF8 || cp == UTF16LE || cp == UTF16BE
}
