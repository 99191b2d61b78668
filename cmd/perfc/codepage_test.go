package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// codePageLogs holds text logs of localized Windows
// (perflog/pdhcsv/testdata/codepage/README.md).
var codePageLogs = filepath.Join("..", "..", "perflog", "pdhcsv", "testdata", "codepage")

// TestRelogCodePage: relog reads a text log in its Windows' ANSI code
// page with every name intact and warns, naming the file, which code page
// it assumed; -codepage in any of a Windows admin's spellings reads it
// without a warning; an unknown code page is refused; -c and -cf match
// the names as typed; -ocodepage writes what Excel and Windows tools open.
func TestRelogCodePage(t *testing.T) {
	es := filepath.Join(codePageLogs, "es-cp1252.csv")
	ru := filepath.Join(codePageLogs, "ru-cp1251.csv")
	const disco = `\\PC\Disco físico(0 C:)\% de tiempo de disco`
	const cpu = `\\ПК\Процессор(_Total)\% загруженности процессора`

	out, errs, code := runPerfc(t, "relog", es)
	if code != 0 || !strings.Contains(out, `"`+disco+`"`) ||
		!strings.Contains(errs, "perfc: warning: "+es+": no byte-order mark and not UTF-8: read as code page 1252 (windows-1252, Western European), guessed") {
		t.Errorf("relog %s: exit %d\n%s\nstderr: %s", es, code, out, errs)
	}
	for _, name := range []string{"1251", "cp1251", "windows-1251", "CP1251"} {
		out, errs, code := runPerfc(t, "relog", ru, "-codepage", name)
		if code != 0 || !strings.Contains(out, `"`+cpu+`"`) || errs != "" {
			t.Errorf("-codepage %s: exit %d\n%s\nstderr: %s", name, code, out, errs)
		}
	}
	_, errs, code = runPerfc(t, "relog", ru, "-codepage", "cp9999")
	if code != 2 || !strings.Contains(errs, `-codepage: unknown code page "cp9999"`) && !strings.Contains(errs, "code page 9999") {
		t.Errorf("-codepage cp9999: exit %d, %s", code, errs)
	}
	_, errs, code = runPerfc(t, "relog", ru, "-codepage", "klingon")
	if code != 2 || !strings.Contains(errs, `-codepage: unknown code page "klingon": want a Windows code page`) {
		t.Errorf("-codepage klingon: exit %d, %s", code, errs)
	}

	// -c as the user sees the name.
	out, _, code = runPerfc(t, "relog", es, "-c", `\\PC\Disco físico(*)\% de tiempo de disco`)
	if head, _, _ := strings.Cut(out, "\n"); code != 0 || head != `"(PDH-CSV 4.0) (Romance Standard Time)(-60)","`+disco+`"` {
		t.Errorf("-c: exit %d\n%s", code, out)
	}
	// -cf in the code page of the log, guessed and warned about.
	dir := t.TempDir()
	list := filepath.Join(dir, "list.txt")
	if err := os.WriteFile(list, []byte("\\\\\xcf\xca\\\xcf\xe0\xec\xff\xf2\xfc\\\xc4\xee\xf1\xf2\xf3\xef\xed\xee \xe1\xe0\xe9\xf2\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code = runPerfc(t, "relog", ru, "-codepage", "1251", "-cf", list)
	if head, _, _ := strings.Cut(out, "\n"); code != 0 || head != `"(PDH-CSV 4.0) (RTZ 2 (зима))(-180)","\\ПК\Память\Доступно байт"` || errs != "" {
		t.Errorf("-cf in 1251, named: exit %d\n%s\nstderr: %s", code, out, errs)
	}
	_, errs, _ = runPerfc(t, "relog", ru, "-cf", list)
	if !strings.Contains(errs, list+": no byte-order mark and not UTF-8: read as code page 1251") {
		t.Errorf("-cf in 1251, guessed: stderr %s", errs)
	}

	// -ocodepage.
	for _, tc := range []struct {
		cp     string
		prefix []byte
		want   []byte
	}{
		{"utf-8-bom", []byte{0xEF, 0xBB, 0xBF}, []byte(cpu)},
		{"utf-16", []byte{0xFF, 0xFE}, []byte{0x1F, 0x04, 0x40, 0x04, 0x3E, 0x04}}, // "Про" in UTF-16LE
		{"windows-1251", []byte(`"(PDH-CSV 4.0) (RTZ 2 (`), []byte("\\\\\xcf\xca\\\xcf\xf0\xee\xf6\xe5\xf1\xf1\xee\xf0")},
	} {
		o := filepath.Join(dir, "out-"+tc.cp+".csv")
		_, errs, code := runPerfc(t, "relog", ru, "-codepage", "1251", "-ocodepage", tc.cp, "-o", o)
		got, err := os.ReadFile(o)
		if code != 0 || err != nil || !bytes.HasPrefix(got, tc.prefix) || !bytes.Contains(got, tc.want) {
			t.Errorf("-ocodepage %s: exit %d, %v, stderr %s\n% X", tc.cp, code, err, errs, got[:min(len(got), 64)])
		}
	}
	o := filepath.Join(dir, "out.csv")
	_, errs, code = runPerfc(t, "relog", ru, "-codepage", "1251", "-ocodepage", "1252", "-o", o, "-y")
	if code != 1 || !strings.Contains(errs, o+": line 1: 'з' (U+0437) is not a character of code page 1252 (windows-1252, Western European)") {
		t.Errorf("-ocodepage 1252 of Cyrillic names: exit %d, %s", code, errs)
	}
	_, errs, code = runPerfc(t, "relog", ru, "-ocodepage", "utf-16", "-f", "bin", "-o", filepath.Join(dir, "x.plog"))
	if code != 2 || !strings.Contains(errs, "-ocodepage is the encoding of a text log") {
		t.Errorf("-ocodepage with -f bin: exit %d, %s", code, errs)
	}
}

// TestRelogRefusals: each format's refusal speaks of what the file is.
func TestRelogRefusals(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, content, want string }{
		{"hello.csv", "hello,world\n", `hello.csv: line 1, cell 1: a text file, but not a PDH text log: it starts "hello,world", not "(PDH-CSV 4.0)" or "(PDH-TSV 4.0)"`},
		{"empty.plog", "", "empty.plog: an empty file (0 bytes): no log in it"},
		{"empty.csv", "", "empty.csv: an empty file (0 bytes): no log in it"},
		{"cut.blg", "\x00\x10\x00\x00\x01\x02", "cut.blg: 6 bytes, too short for a binary log: not a Windows binary performance log (.blg)"},
	} {
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, errs, code := runPerfc(t, "relog", p)
		if code != 1 || !strings.Contains(errs, tc.want) {
			t.Errorf("relog %s: exit %d, %s", tc.name, code, errs)
		}
	}
}
