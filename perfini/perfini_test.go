package perfini

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/perfcounters/perfcounters/internal/golden"
)

// dump writes a Provider as text for golden files.
func dump(p *Provider) string {
	var b strings.Builder
	fmt.Fprintf(&b, "driver %s\nsymbol file %s\nlanguage %s of %s\nobjects section %v\n", p.DriverName, filepath.Base(p.SymbolFile), p.Language, strings.Join(p.Languages, ","), p.HasObjects)
	for _, n := range p.Names {
		kind := "counter"
		if n.Object {
			kind = "object"
		}
		fmt.Fprintf(&b, "%d %s %s: %q %q\n", n.Offset, kind, n.Symbol, n.Name, n.Help)
		langs := make([]string, 0, len(n.Text))
		for l := range n.Text {
			langs = append(langs, l)
		}
		slices.Sort(langs)
		for _, l := range langs {
			fmt.Fprintf(&b, "  %s %q %q\n", l, n.Text[l].Name, n.Text[l].Help)
		}
	}
	for _, w := range p.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}

// utf16File encodes s as Windows' Notepad saves "Unicode": UTF-16LE with a
// byte-order mark.
func utf16File(s string) []byte {
	b := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

// loadWritten writes ini as p.ini and h as s.h (and under each name of
// extra) into a new directory and loads p.ini: the directory and what
// Load returns.
func loadWritten(t *testing.T, ini, h string, extra ...string) (dir string, p *Provider, err error) {
	dir = t.TempDir()
	os.WriteFile(filepath.Join(dir, "p.ini"), []byte(ini), 0o644)
	os.WriteFile(filepath.Join(dir, "s.h"), []byte(h), 0o644)
	for _, f := range extra {
		os.WriteFile(filepath.Join(dir, f), []byte(h), 0o644)
	}
	p, err = Load(filepath.Join(dir, "p.ini"))
	return dir, p, err
}

// TestLoadTransfer reads the fixture written from Microsoft's documented
// format, with the lenient forms real files have: the result is pinned in
// a golden file, and its key facts are checked here by hand.
func TestLoadTransfer(t *testing.T) {
	p, err := Load(filepath.Join("testdata", "transfer", "Transfer.ini"))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "transfer.golden"), dump(p))
	want := []struct {
		offset uint32
		name   string
		object bool
		german string
	}{
		{0, "Transfer", true, "Übertragung"},
		{2, "Bytes Sent", false, "Gesendete Bytes"},
		{4, "Available Bandwidth", false, "Verfügbare Bandbreite"},
	}
	if len(p.Names) != len(want) {
		t.Fatalf("%d names, want %d", len(p.Names), len(want))
	}
	for i, w := range want {
		n := p.Names[i]
		if n.Offset != w.offset || n.Name != w.name || n.Object != w.object || n.Text["007"].Name != w.german || n.Text["009"].Name != w.name {
			t.Errorf("name %d = %+v, want %+v", i, n, w)
		}
	}
	if p.DriverName != "PerfcTransfer" || p.Language != "009" || filepath.Base(p.SymbolFile) != "TransferOffsets.h" {
		t.Errorf("driver %q, language %q, symbol file %q", p.DriverName, p.Language, p.SymbolFile)
	}
	if h := p.Names[2].Help; h != "Available bandwidth on the network, in bytes." {
		t.Errorf("quoted help text read as %q", h)
	}
	if !slices.Equal(p.Objects(), []uint32{0}) {
		t.Errorf("objects %v", p.Objects())
	}
}

// TestMicrosoftExample reads the example of "Adding Counter Names and
// Descriptions to the Registry" (two objects, English and French, its
// LAST_..._OFFSET convenience macros, C comments in the header) as
// documented, in UTF-8 and in UTF-16.
func TestMicrosoftExample(t *testing.T) {
	ini := "[info]\ndrivername=MyApplication\nsymbolfile=CounterOffsets.h\ntrusted=\n\n[objects]\nTRANSFER_OBJECT_009_NAME=\nPEER_OBJECT_009_NAME=\n\n" +
		"[languages]\n009=English\n00C=French\n\n[text]\n\n// English strings\n\n" +
		"TRANSFER_OBJECT_009_NAME=Transfer\nTRANSFER_OBJECT_009_HELP=Provides information related to transferring files.\n\n" +
		"BYTES_SENT_009_NAME=Bytes Sent\nBYTES_SENT_009_HELP=Number of bytes sent in the last transfer.\n\n" +
		"AVAILABLE_BANDWIDTH_009_NAME=Available Bandwidth\nAVAILABLE_BANDWIDTH_009_HELP=Available bandwidth on the network, in bytes.\n\n" +
		"PEER_OBJECT_009_NAME=Peer\nPEER_OBJECT_009_HELP=Provides information related to peer-caching.\n\n" +
		"BYTES_SERVED_009_NAME=Bytes Served\nBYTES_SERVED_009_HELP=Number of bytes served from the cache.\n\n" +
		"// French strings\n\nTRANSFER_OBJECT_00C_NAME=Transfert\nBYTES_SENT_00C_NAME=Octets Envoyés\n" +
		"AVAILABLE_BANDWIDTH_00C_NAME=Bande Passante Disponible\nPEER_OBJECT_00C_NAME=Pair\nBYTES_SERVED_00C_NAME=Octets Servis\n"
	h := "#ifndef OFFSETS_H\n#define OFFSETS_H\n\n// Symbol file that defines constant values.\n\n" +
		"#define TRANSFER_OBJECT      0 // First object must be at offset 0.\n#define BYTES_SENT           2 // Counters for the object follow.\n" +
		"#define AVAILABLE_BANDWIDTH  4 // Offsets must be even numbers.\n\n#define LAST_TRANSFER_OBJECT_COUNTER_OFFSET  AVAILABLE_BANDWIDTH\n\n" +
		"#define PEER_OBJECT          6 // Second object must be at the next offset.\n#define BYTES_SERVED         8 // Counter for the second object.\n\n" +
		"#define LAST_PEER_OBJECT_COUNTER_OFFSET  BYTES_SERVED\n\n#endif // OFFSETS_H\n"
	for _, enc := range []struct {
		name string
		f    func(string) []byte
	}{{"UTF-8", func(s string) []byte { return []byte(s) }}, {"UTF-16LE", utf16File}} {
		t.Run(enc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "MyApp.ini"), enc.f(ini), 0o644)
			os.WriteFile(filepath.Join(dir, "CounterOffsets.h"), enc.f(h), 0o644)
			p, err := Load(filepath.Join(dir, "MyApp.ini"))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, n := range p.Names {
				got = append(got, fmt.Sprintf("%d %s %v %s", n.Offset, n.Name, n.Object, n.Text["00C"].Name))
			}
			want := []string{"0 Transfer true Transfert", "2 Bytes Sent false Octets Envoyés", "4 Available Bandwidth false Bande Passante Disponible",
				"6 Peer true Pair", "8 Bytes Served false Octets Servis"}
			if !slices.Equal(got, want) {
				t.Errorf("names\n%q\nwant\n%q", got, want)
			}
			if len(p.Warnings) != 0 {
				t.Errorf("warnings %q", p.Warnings)
			}
		})
	}
}

// TestLenient: forms Windows' lodctr accepts, each alone in an otherwise
// plain file pair, and what is made of them.
func TestLenient(t *testing.T) {
	const h = "#define OBJ 0\n#define CTR 2\n"
	base := func(info, langs, objects, text string) string {
		return "[info]\n" + info + "\n[languages]\n" + langs + "\n[objects]\n" + objects + "\n[text]\n" + text
	}
	plainInfo, plainText := "drivername=d\nsymbolfile=s.h", "OBJ_009_NAME=Obj\nCTR_009_NAME=Ctr\n"
	tests := []struct {
		name     string
		ini, h   string
		want     string // "offset name/..." of every name, objects starred
		warnings int
	}{
		{"plain", base(plainInfo, "009=", "OBJ_009_NAME=", plainText), h, "0 Obj*/2 Ctr", 0},
		{"blanks and tabs around keys, '=' and values", base(" drivername\t=\td \nsymbolfile = s.h", " 009 = English ", "  OBJ_009_NAME =  ", " OBJ_009_NAME = Obj \nCTR_009_NAME\t=\tCtr\n"), h, "0 Obj*/2 Ctr", 0},
		{"keys and sections in any case", "[INFO]\nDriverName=d\nSymbolFile=s.h\n[Languages]\n009=\n[OBJECTS]\nobj_009_name=\n[Text]\nobj_009_name=Obj\nCtr_009_Name=Ctr\n", h, "0 Obj*/2 Ctr", 0},
		{"symbol case differs from the header", base(plainInfo, "009=", "Obj_009_NAME=", "obj_009_NAME=Obj\nctr_009_NAME=Ctr\n"), h, "0 Obj*/2 Ctr", 0},
		{"comments and text before [info], ; and // comments", "; made by hand\n// x\nsome words\nkey=value before any section\n" + base(plainInfo, "; none\n009=", "OBJ_009_NAME=", "// english\n"+plainText), h, "0 Obj*/2 Ctr", 0},
		{"quoted values", base(plainInfo, "009=", "OBJ_009_NAME=", "OBJ_009_NAME=\" Obj \"\nCTR_009_NAME='Ctr'\n"), h, "0  Obj */2 Ctr", 0},
		{"other sections and [info] keys ignored", "[notes]\nanything\n" + base(plainInfo+"\ntrusted=\napplicationname=x", "009=", "OBJ_009_NAME=", plainText), h, "0 Obj*/2 Ctr", 0},
		{"trailing text after a section header", "[info] extra\n" + plainInfo + "\n[languages]  \n009=\n[text]\n" + plainText, h, "0 Obj/2 Ctr", 1},
		{"no [objects] section: a warning", "[info]\n" + plainInfo + "\n[languages]\n009=\n[text]\n" + plainText, h, "0 Obj/2 Ctr", 1},
		{"a repeated key with the same value", base(plainInfo+"\ndrivername=d", "009=\n009=", "OBJ_009_NAME=", plainText+"OBJ_009_NAME=Obj\n"), h, "0 Obj*/2 Ctr", 0},
		{"text in an unlisted language: left out, a warning", base(plainInfo, "009=", "OBJ_009_NAME=", plainText+"OBJ_054_NAME=x\n"), h, "0 Obj*/2 Ctr", 1},
		{"no English: the first language listed names", base(plainInfo, "007=\n00C=", "OBJ_007_NAME=", "OBJ_00C_NAME=Objet\nOBJ_007_NAME=Objekt\nCTR_00C_NAME=Compteur\nCTR_007_NAME=Zähler\n"), h, "0 Objekt*/2 Zähler", 0},
		{"a name missing in the main language: taken from another", base(plainInfo, "009=\n007=", "OBJ_009_NAME=", "OBJ_009_NAME=Obj\nCTR_007_NAME=Zähler\n"), h, "0 Obj*/2 Zähler", 1},
		{"help optional", base(plainInfo, "009=", "OBJ_009_NAME=", plainText), h, "0 Obj*/2 Ctr", 0},
		// Windows' lodctr reads an .ini saved by an older Notepad in the
		// system's ANSI code page: read as the code page the bytes look
		// like, and said (Windows-1252's 0xE4 is ä, 1251's 0xD1 0xF7 ... Cyrillic).
		{"ANSI code page 1252, a warning", base(plainInfo, "009=\n007=", "OBJ_009_NAME=", plainText+"OBJ_007_NAME=Objekt\nCTR_007_NAME=Z\xe4hler der Vorg\xe4nge f\xfcr \xdcbertragungen\n"), h, "0 Obj*/2 Ctr", 1},
		{"ANSI code page 1251, a warning", base(plainInfo, "019=", "OBJ_019_NAME=", "OBJ_019_NAME=\xce\xe1\xfa\xe5\xea\xf2\nCTR_019_NAME=\xd1\xf7\xe5\xf2\xf7\xe8\xea \xef\xe5\xf0\xe5\xe4\xe0\xf7\xe8\n"), h, "0 Объект*/2 Счетчик передачи", 1},
		{"header: hex, suffixes, parentheses, aliases, guards, function-like macros, block comments, continuations", base(plainInfo, "009=", "OBJ_009_NAME=", plainText),
			"#ifndef X\n#define X\n/* a\n   block */ #define OBJ (0u)\n#define F(x) (x+1)\n#define TWO 0x2L\n#  define CTR \\\n  TWO\nint y; /* #define CTR 4 */\n#endif\n", "0 Obj*/2 Ctr", 0},
		{"header: unused macros may be anything", base(plainInfo, "009=", "OBJ_009_NAME=", plainText), h + "#define JUNK 1 + \"x\"\n#define ODD 3\n#define OCT 010\n#define OBJ_ALIAS OBJ\n", "0 Obj*/2 Ctr", 0},
		{"Chinese primary id taken as 804", base(plainInfo, "004=", "OBJ_004_NAME=", "OBJ_004_NAME=对象\nCTR_004_NAME=计数器\n"), h, "0 对象*/2 计数器", 1},
		{"a symbol without text in any listed language is not registered", base(plainInfo, "009=", "OBJ_009_NAME=", "OBJ_009_NAME=Obj\nCTR_009_NAME=Ctr\nMORE_054_NAME=x\n"), h + "#define MORE 4\n", "0 Obj*/2 Ctr", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, p, err := loadWritten(t, tc.ini, tc.h)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, n := range p.Names {
				s := fmt.Sprintf("%d %s", n.Offset, n.Name)
				if n.Object {
					s += "*"
				}
				got = append(got, s)
			}
			if g := strings.Join(got, "/"); g != tc.want {
				t.Errorf("names %q, want %q", g, tc.want)
			}
			if len(p.Warnings) != tc.warnings {
				t.Errorf("warnings %q, want %d", p.Warnings, tc.warnings)
			}
		})
	}
}

// TestRefused: what lodctr must not take, each refused with the file and
// line at fault and why.
func TestRefused(t *testing.T) {
	const goodH = "#define OBJ 0\n#define CTR 2\n"
	const goodINI = "[info]\ndrivername=d\nsymbolfile=s.h\n[languages]\n009=\n[objects]\nOBJ_009_NAME=\n[text]\nOBJ_009_NAME=Obj\nCTR_009_NAME=Ctr\n"
	tests := []struct {
		name   string
		ini, h string
		extra  []string // more files beside them
		want   string   // "FILE:LINE: " and a part of why
	}{
		{"no [info]", "[languages]\n009=\n[text]\nOBJ_009_NAME=Obj\n", goodH, nil, "p.ini: no [info] section"},
		{"no drivername", "[info]\nsymbolfile=s.h\n[languages]\n009=\n[text]\nOBJ_009_NAME=Obj\n", goodH, nil, "p.ini:1: [info] has no drivername"},
		{"empty drivername", "[info]\ndrivername =\nsymbolfile=s.h\n[languages]\n009=\n[text]\nOBJ_009_NAME=Obj\n", goodH, nil, "p.ini:2: [info] drivername is empty"},
		{"two drivernames", "[info]\ndrivername=a\ndrivername=b\nsymbolfile=s.h\n[languages]\n009=\n[text]\nOBJ_009_NAME=Obj\n", goodH, nil, `p.ini:3: [info] drivername = "b", but line 2 says "a"`},
		{"no symbolfile", "[info]\ndrivername=d\n[languages]\n009=\n[text]\nOBJ_009_NAME=Obj\n", goodH, nil, "p.ini:1: [info] has no symbolfile"},
		{"symbol file missing", strings.Replace(goodINI, "s.h", "gone.h", 1), goodH, nil, "p.ini:3: symbolfile gone.h: no such file"},
		{"symbol file ambiguous in case", strings.Replace(goodINI, "s.h", "S.H", 1), goodH, []string{"s.H"}, "p.ini:3: symbolfile S.H: s.H and s.h differ only in case"},
		{"no languages", "[info]\ndrivername=d\nsymbolfile=s.h\n[languages]\n[text]\nOBJ_009_NAME=Obj\n", goodH, nil, "p.ini:4: no language in [languages]"},
		{"a locale id", strings.Replace(goodINI, "009=", "1033=", 1), goodH, nil, `p.ini:5: [languages]: "1033" is not a language id`},
		{"section header unclosed", strings.Replace(goodINI, "[objects]", "[objects", 1), goodH, nil, "p.ini:6: section header \"[objects\" has no closing ']'"},
		{"a second [text]", goodINI + "[text]\nCTR_009_HELP=x\n", goodH, nil, "p.ini:11: a second [text] section (the first is at line 8)"},
		{"a line that is not KEY=VALUE", goodINI + "CTR_009_HELP Counts.\n", goodH, nil, `p.ini:11: [text]: "CTR_009_HELP Counts." is not KEY=VALUE`},
		{"a key that is not SYMBOL_LANG_NAME", goodINI + "CTR_009_TEXT=x\n", goodH, nil, "p.ini:11: [text]: key \"CTR_009_TEXT\" is not SYMBOL_LANGID_NAME or SYMBOL_LANGID_HELP (it must end in _NAME or _HELP)"},
		{"a bad language in a key", goodINI + "CTR_9_HELP=x\n", goodH, nil, "p.ini:11: [text]: key \"CTR_9_HELP\" is not SYMBOL_LANGID_NAME"},
		{"an empty name", strings.Replace(goodINI, "CTR_009_NAME=Ctr", "CTR_009_NAME=", 1), goodH, nil, "p.ini:10: [text]: CTR_009_NAME is empty"},
		{"a tab in a name", strings.Replace(goodINI, "CTR_009_NAME=Ctr", "CTR_009_NAME=C\ttr", 1), goodH, nil, "p.ini:10: [text]: CTR_009_NAME contains the control character U+0009"},
		{"one key, two texts", goodINI + "ctr_009_name=Other\n", goodH, nil, `p.ini:11: [text]: ctr_009_name = "Other", but line 10 gives it as "Ctr"`},
		{"a symbol two header macros match", goodINI, "#define OBJ 0\n#define Ctr 2\n#define cTR 2\n", nil, "p.ini:10: CTR matches Ctr (line 2) and cTR (line 3) of the symbol file"},
		{"an odd offset", goodINI, "#define OBJ 0\n#define CTR 3\n", nil, "s.h:2: CTR = 3 is odd"},
		{"a shared offset", goodINI, "#define OBJ 0\n#define CTR 0\n", nil, "s.h:2: CTR has the offset 0 of OBJ (line 1)"},
		{"an expression", goodINI, "#define OBJ 0\n#define CTR (OBJ + 2)\n", nil, `s.h:2: CTR = "(OBJ + 2)" is not an offset`},
		{"an octal-looking offset", goodINI, "#define OBJ 0\n#define CTR 02\n", nil, `s.h:2: CTR: "02" has a leading 0`},
		{"a negative offset", goodINI, "#define OBJ 0\n#define CTR -2\n", nil, "s.h:2: CTR: a negative offset"},
		{"no value", goodINI, "#define OBJ 0\n#define CTR\n", nil, "s.h:2: CTR has no value"},
		{"redefined", goodINI, "#define OBJ 0\n#define CTR 2\n#define CTR 4\n", nil, "s.h:3: CTR is defined again with another value (first at line 2"},
		{"an alias loop", goodINI, "#define OBJ 0\n#define CTR A\n#define A B\n#define B A\n", nil, "s.h:2: CTR: the chain of macro names does not end in a number"},
		{"a help without a name", goodINI + "MORE_009_HELP=Only help.\n", goodH + "#define MORE 4\n", nil, "p.ini:11: MORE has no NAME in any language of [languages]"},
		{"UTF-16 cut in half", "\xff\xfe[\x00i", goodH, nil, "p.ini: UTF-16 text of 3 bytes"},
		{"a #define without a name", goodINI, "#define OBJ 0\n#define CTR 2\n#define\n", nil, "s.h:3: #define without a macro name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, p, err := loadWritten(t, tc.ini, tc.h, tc.extra...)
			if err == nil {
				t.Fatalf("accepted: %s", dump(p))
			}
			msg := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			if !strings.Contains(msg, tc.want) {
				t.Errorf("error\n%s\nwant it to contain\n%s", msg, tc.want)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("%T is not an *Error", err)
			}
		})
	}
}

// TestErrorLimit: a file with many faults reports the first ten and says
// that it stopped there.
func TestErrorLimit(t *testing.T) {
	ini := "[info]\ndrivername=d\nsymbolfile=s.h\n[languages]\n009=\n[text]\n" + strings.Repeat("junk line\n", 50)
	_, err := ParseINI("p.ini", []byte(ini))
	if err == nil || strings.Count(err.Error(), "is not KEY=VALUE") != maxErrors || !strings.Contains(err.Error(), "(reading stopped after 10 problems: fix these first)") {
		t.Fatalf("error: %v", err)
	}
}

// TestLimits: more languages or names than the bounds allow are refused.
func TestLimits(t *testing.T) {
	var b strings.Builder
	b.WriteString("[info]\ndrivername=d\nsymbolfile=s.h\n[languages]\n")
	for i := 1; i <= MaxLanguages+1; i++ {
		fmt.Fprintf(&b, "%03X=\n", i)
	}
	if _, err := ParseINI("p.ini", []byte(b.String())); err == nil || !strings.Contains(err.Error(), "more than 128 languages") {
		t.Errorf("too many languages: %v", err)
	}
	if _, err := ParseINI("p.ini", make([]byte, MaxFileSize+1)); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("too large: %v", err)
	}
	b.Reset()
	var h strings.Builder
	b.WriteString("[info]\ndrivername=d\nsymbolfile=s.h\n[languages]\n009=\n[text]\n")
	for i := 0; i <= MaxNames; i++ {
		fmt.Fprintf(&b, "S%d_009_NAME=n\n", i)
		fmt.Fprintf(&h, "#define S%d %d\n", i, 2*i)
	}
	ini, err := ParseINI("p.ini", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	syms, err := ParseSymbols("s.h", []byte(h.String()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(ini, syms); err == nil || !strings.Contains(err.Error(), "more than 16384 objects and counters") {
		t.Errorf("too many names: %v", err)
	}
}

// TestAcceptedAsWindows: files Windows' lodctr registers, as shipped
// products and SDK samples write them, register here too, each oddity
// with a warning naming the file and line (issue 44).
func TestAcceptedAsWindows(t *testing.T) {
	const goodH = "#define OBJ 0\n#define CTR 2\n"
	const goodINI = "[info]\ndrivername=d\nsymbolfile=s.h\n[languages]\n009=\n[objects]\nOBJ_009_NAME=\n[text]\nOBJ_009_NAME=Obj\nCTR_009_NAME=Ctr\n"
	tests := []struct {
		name   string
		ini, h string
		names  []string // by offset, in the title database's language
		warns  []string // a part of each warning, in order ("" none expected)
	}{
		{"as written", goodINI, goodH, []string{"Obj", "Ctr"}, nil},
		{"C statements in the symbol file", goodINI, "#define OBJ 0;\n#define CTR (2);  // the counter\n", []string{"Obj", "Ctr"}, nil},
		{"language 000", strings.Replace(goodINI, "009=\n", "000=Neutral\n009=\n", 1) + "OBJ_000_NAME=Neutral\n", goodH, []string{"Obj", "Ctr"},
			[]string{"p.ini:5: language 000 (neutral) is left unused"}},
		{"a final Ctrl-Z", goodINI + "\x1a", goodH + "\x1a", []string{"Obj", "Ctr"}, nil},
		{"a final Ctrl-Z after CRLF", strings.ReplaceAll(goodINI, "\n", "\r\n") + "\x1a\x1a", goodH, []string{"Obj", "Ctr"}, nil},
		{"a [text] symbol the header lacks (THREADS against THREAD)", goodINI + "THREADS_009_NAME=Threads\nTHREADS_009_HELP=How many.\n", goodH + "#define THREAD 4\n",
			[]string{"Obj", "Ctr"}, // THREAD, named by no [text] key, is no name lodctr registers
			[]string{"p.ini:11: THREADS is not defined in the symbol file s.h: its text is skipped"}},
		{"a gap", goodINI, "#define OBJ 0\n#define CTR 4\n", []string{"Obj", "offset 2", "Ctr"}, []string{"offset 2 (offset 2) has no text"}},
		{"an [objects] entry without text", strings.Replace(goodINI, "OBJ_009_NAME=\n[text]", "OBJ_009_NAME=\nPEER_009_NAME=\n[text]", 1), goodH + "#define PEER 4\n",
			[]string{"Obj", "Ctr"}, []string{"p.ini:8: [objects] lists PEER, which [text] gives no name in a language of [languages]: it is skipped"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, p, err := loadWritten(t, tc.ini, tc.h)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for i, n := range p.Names {
				if n.Offset != uint32(2*i) {
					t.Errorf("name %d at offset %d", i, n.Offset)
				}
				names = append(names, n.Name)
			}
			if !slices.Equal(names, tc.names) {
				t.Errorf("names %q, want %q", names, tc.names)
			}
			var warns []string
			for _, w := range p.Warnings {
				if !strings.Contains(w, "no [objects] section") {
					warns = append(warns, strings.ReplaceAll(w, dir+string(filepath.Separator), ""))
				}
			}
			if len(warns) != len(tc.warns) {
				t.Fatalf("warnings %q, want %d like %q", warns, len(tc.warns), tc.warns)
			}
			for i, w := range tc.warns {
				if !strings.Contains(warns[i], w) {
					t.Errorf("warning %q, want it to contain %q", warns[i], w)
				}
			}
		})
	}
}
