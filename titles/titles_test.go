package titles

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/perfcounters/perfcounters/utf16le"
)

// golden is a small Counter list written by hand: the header pair 1 -> 1847,
// then 2 System, 4 Memory, 6 Mé (U+00E9), then the list's extra NUL.
const goldenCounterHex = "" +
	"3100" + "0000" + // "1"
	"310038003400370000 00" + // "1847"
	"3200" + "0000" + // "2"
	"53007900730074006500 6d00 0000" + // "System"
	"3400" + "0000" + // "4"
	"4d00 6500 6d00 6f00 7200 7900 0000" + // "Memory"
	"3600" + "0000" + // "6"
	"4d00 e900 0000" + // "Mé"
	"0000" // end of list

// goldenHelpHex: 3 Sys, 5 U+1D11E (a surrogate pair), end.
const goldenHelpHex = "3300 0000 5300 7900 7300 0000" + "3500 0000 34d8 1edd 0000" + "0000"

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func smallDB(t testing.TB) *DB {
	t.Helper()
	db := New()
	first, err := db.Add([]NameHelp{{"System", "Sys"}, {"Memory", "\U0001D11E"}, {"Mé", ""}})
	if err != nil || first != 2 {
		t.Fatalf("Add = %d, %v", first, err)
	}
	return db
}

func TestMultiSZGolden(t *testing.T) {
	db := smallDB(t)
	if got, want := db.CounterMultiSZ(), unhex(t, goldenCounterHex); !bytes.Equal(got, want) {
		t.Errorf("CounterMultiSZ\n got %x\nwant %x", got, want)
	}
	if got, want := db.HelpMultiSZ(), unhex(t, goldenHelpHex); !bytes.Equal(got, want) {
		t.Errorf("HelpMultiSZ\n got %x\nwant %x", got, want)
	}

	back, err := ParseMultiSZ(unhex(t, goldenCounterHex))
	if err != nil {
		t.Fatal(err)
	}
	if err := back.SetHelpMultiSZ(unhex(t, goldenHelpHex)); err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		got, want string
	}{
		{back.Name(2), "System"}, {back.Name(4), "Memory"}, {back.Name(6), "Mé"},
		{back.Help(3), "Sys"}, {back.Help(5), "\U0001D11E"}, {back.Name(1), ""},
	}
	for k, c := range checks {
		if c.got != c.want {
			t.Errorf("check %d: got %q, want %q", k, c.got, c.want)
		}
	}
	if back.BaseIndex() != 1847 || back.LastCounter() != 6 || back.LastHelp() != 7 {
		t.Errorf("BaseIndex, LastCounter, LastHelp = %d, %d, %d; want 1847, 6, 7", back.BaseIndex(), back.LastCounter(), back.LastHelp())
	}
	if !bytes.Equal(back.CounterMultiSZ(), unhex(t, goldenCounterHex)) || !bytes.Equal(back.HelpMultiSZ(), unhex(t, goldenHelpHex)) {
		t.Error("re-encoding the parsed lists changed them")
	}
}

func TestEmptyDB(t *testing.T) {
	db := New()
	if got, want := db.CounterMultiSZ(), unhex(t, "3100 0000 3100 3800 3400 3700 0000 0000"); !bytes.Equal(got, want) {
		t.Errorf("CounterMultiSZ = %x, want %x", got, want)
	}
	if got := db.HelpMultiSZ(); !bytes.Equal(got, []byte{0, 0}) {
		t.Errorf("HelpMultiSZ = %x, want 0000", got)
	}
	if db.LastCounter() != 0 || db.LastHelp() != 0 {
		t.Errorf("LastCounter, LastHelp = %d, %d", db.LastCounter(), db.LastHelp())
	}
}

// multi builds a MULTI_SZ from strings, for damaged-input cases.
func multi(items ...string) []byte {
	var b []byte
	for _, s := range items {
		b = utf16le.AppendNUL(b, s)
	}
	return append(b, 0, 0)
}

func TestParseMultiSZDamaged(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"odd length", []byte{0x31, 0, 0}, "titles: Counter MULTI_SZ: odd length 3 bytes"},
		{"no NUL", []byte{0x31, 0, 0x32, 0}, "titles: Counter MULTI_SZ: string at byte offset 0 has no NUL terminator"},
		{"text without NUL", append(utf16le.AppendNUL(nil, "2"), 0x53, 0), "titles: Counter MULTI_SZ: string at byte offset 4 has no NUL terminator"},
		{"non-numeric", multi("1", "1847", "two", "System"), `titles: Counter MULTI_SZ: non-numeric index "two" at byte offset 14`},
		{"negative", multi("-2", "System"), `titles: Counter MULTI_SZ: non-numeric index "-2" at byte offset 0`},
		{"zero", multi("0", "System"), "titles: Counter MULTI_SZ: index 0 at byte offset 0"},
		{"too big", multi("4294967296", "System"), "titles: Counter MULTI_SZ: index 4294967296 out of range at byte offset 0"},
		{"odd index", multi("2", "System", "5", "Memory"), "titles: Counter MULTI_SZ: odd index 5 at byte offset 18 (names have even indexes)"},
		{"duplicate", multi("2", "System", "2", "Memory"), "titles: Counter MULTI_SZ: duplicate index 2 at byte offset 18 (first at byte offset 0)"},
		{"missing text", multi("2", "System", "4"), `titles: Counter MULTI_SZ: index "4" at byte offset 18 has no text`},
		{"missing text at end", utf16le.AppendNUL(nil, "4"), `titles: Counter MULTI_SZ: index "4" at byte offset 0 has no text`},
		{"data after end", append(multi("2", "System"), 0, 0, 0x41, 0), "titles: Counter MULTI_SZ: data at byte offset 22 after the list terminator at byte offset 18"},
		{"bad header", multi("1", "x", "2", "System"), `titles: Counter MULTI_SZ: header pair 1 at byte offset 0: value: non-numeric index "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := ParseMultiSZ(tt.in)
			if err == nil {
				t.Fatalf("ParseMultiSZ = %v, want error", db.Entries())
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

func TestParseMultiSZLenient(t *testing.T) {
	tests := []struct {
		name  string
		in    []byte
		names int
	}{
		{"empty list", []byte{0, 0}, 0},
		{"no bytes", nil, 0},
		{"missing final NUL", utf16le.AppendNUL(utf16le.AppendNUL(nil, "2"), "System"), 1},
		{"zero padding after end", append(multi("2", "System"), 0, 0, 0, 0), 1},
		{"unordered", multi("4", "Memory", "2", "System"), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := ParseMultiSZ(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if db.Len() != tt.names {
				t.Errorf("Len = %d, want %d", db.Len(), tt.names)
			}
		})
	}
}

func TestSetHelpMultiSZDamaged(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"even index", multi("4", "x"), "titles: Help MULTI_SZ: index 4 at byte offset 0 is not a help index (odd, from 3)"},
		{"index 1", multi("1", "x"), "titles: Help MULTI_SZ: index 1 at byte offset 0 is not a help index (odd, from 3)"},
		{"duplicate", multi("3", "x", "3", "y"), "titles: Help MULTI_SZ: duplicate index 3 at byte offset 8 (first at byte offset 0)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := smallDB(t)
			err := db.SetHelpMultiSZ(tt.in)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error\n got %v\nwant %s", err, tt.want)
			}
			if db.Help(3) != "Sys" {
				t.Errorf("failed SetHelpMultiSZ changed help 3 to %q", db.Help(3))
			}
		})
	}
}

func TestEnglish(t *testing.T) {
	db := English()
	want := map[uint32]string{
		2: "System", 4: "Memory", 6: "% Processor Time", 230: "Process", 232: "Thread",
		234: "PhysicalDisk", 236: "LogicalDisk", 238: "Processor", 510: "Network Interface",
		638: "TCPv4", 674: "System Up Time", 4658: "DMA Buffer Submitted/Sec", 1: "",
	}
	for i, name := range want {
		if got := db.Name(i); got != name {
			t.Errorf("Name(%d) = %q, want %q", i, got, name)
		}
	}
	if db.BaseIndex() != 1847 || db.LastCounter() != 4658 || db.LastHelp() != 4659 || db.Len() != 1838 {
		t.Errorf("BaseIndex, LastCounter, LastHelp, Len = %d, %d, %d, %d; want 1847, 4658, 4659, 1838",
			db.BaseIndex(), db.LastCounter(), db.LastHelp(), db.Len())
	}
	lookups := []struct {
		name string
		want uint32
	}{
		{"Processor", 238}, {"PROCESSOR", 238}, {"processor", 238}, {"network interface", 510},
		{"B+ Tree Creates (Total)", 2488}, // also at 2802 and 3074: lowest wins
	}
	for _, l := range lookups {
		if got, ok := db.Index(l.name); !ok || got != l.want {
			t.Errorf("Index(%q) = %d, %v; want %d", l.name, got, ok, l.want)
		}
	}
	if _, ok := db.Index("1847"); ok {
		t.Error("the header pair's value became a name")
	}
	if English() == db || English().Len() != db.Len() {
		t.Error("English does not return fresh copies")
	}
}

// TestEnglishMatchesConformance compares English with the conformance
// file itself, parsed here independently of ParseTSV.
func TestEnglishMatchesConformance(t *testing.T) {
	// The copy of shared/conformance/perfdata/pal-SampleLog-ZACH-PC's file
	// that perfdata's tests keep (see its PROVENANCE.md).
	f, err := os.Open(filepath.Join("..", "perfdata", "testdata", "windows", "counter-names-009.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	db := English()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		idx, name, _ := strings.Cut(line, "\t")
		i, err := strconv.Atoi(idx)
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			if strconv.Itoa(int(db.BaseIndex())) != name {
				t.Errorf("BaseIndex = %d, file has %s", db.BaseIndex(), name)
			}
			continue
		}
		n++
		if got := db.Name(uint32(i)); got != name {
			t.Errorf("Name(%d) = %q, file has %q", i, got, name)
		}
	}
	if n != db.Len() {
		t.Errorf("file has %d names, English has %d", n, db.Len())
	}
}

func TestRegister(t *testing.T) {
	db := English()
	tests := []struct {
		name, help string
		want       uint32
		wantHelp   string
	}{
		{"Processor", "CPU time", 238, "CPU time"},
		{"processor", "other text", 238, "CPU time"}, // help kept once set
		{"Pressure Stall", "PSI", 4660, "PSI"},
		{"pressure stall", "", 4660, "PSI"},
		{"cgroup", "", 4662, ""},
	}
	for _, tt := range tests {
		got, err := db.Register(tt.name, tt.help)
		if err != nil || got != tt.want {
			t.Errorf("Register(%q) = %d, %v; want %d", tt.name, got, err, tt.want)
		}
		if h := db.Help(got + 1); h != tt.wantHelp {
			t.Errorf("after Register(%q): Help(%d) = %q, want %q", tt.name, got+1, h, tt.wantHelp)
		}
	}
	if db.LastCounter() != 4662 || db.LastHelp() != 4663 {
		t.Errorf("LastCounter, LastHelp = %d, %d", db.LastCounter(), db.LastHelp())
	}
	for _, bad := range []string{"", "a\x00b"} {
		if _, err := db.Register(bad, ""); err == nil {
			t.Errorf("Register(%q) succeeded", bad)
		}
	}
}

func TestAddRemove(t *testing.T) {
	db := English()
	first, err := db.Add([]NameHelp{{"Widgets", "help for widgets"}, {"Widget Rate", "per second"}, {"Processor", ""}})
	if err != nil || first != 4660 {
		t.Fatalf("Add = %d, %v; want 4660", first, err)
	}
	if db.Name(4664) != "Processor" || db.Help(4661) != "help for widgets" || db.LastCounter() != 4664 {
		t.Fatalf("after Add: %q %q %d", db.Name(4664), db.Help(4661), db.LastCounter())
	}
	if i, _ := db.Index("Processor"); i != 238 {
		t.Errorf("Index(Processor) = %d, want 238 (lowest)", i)
	}
	// Removing from the middle frees the index but keeps Last Counter.
	if err := db.Remove([]uint32{4662}); err != nil {
		t.Fatal(err)
	}
	if db.Name(4662) != "" || db.Help(4663) != "" || db.LastCounter() != 4664 {
		t.Errorf("after Remove(4662): %q %q %d", db.Name(4662), db.Help(4663), db.LastCounter())
	}
	if i, _ := db.Add([]NameHelp{{"Next", ""}}); i != 4666 {
		t.Errorf("Add after a hole = %d, want 4666 (holes are not reused)", i)
	}
	// Removing the top shrinks Last Counter to the highest remaining name.
	if err := db.Remove([]uint32{4666, 4664}); err != nil {
		t.Fatal(err)
	}
	if db.LastCounter() != 4660 || db.LastHelp() != 4661 {
		t.Errorf("after removing the top: LastCounter, LastHelp = %d, %d; want 4660, 4661", db.LastCounter(), db.LastHelp())
	}
	// Lowest index wins again after the lowest duplicate goes.
	if err := db.Remove([]uint32{2488}); err != nil {
		t.Fatal(err)
	}
	if i, _ := db.Index("B+ Tree Creates (Total)"); i != 2802 {
		t.Errorf("Index after removing 2488 = %d, want 2802", i)
	}
	errs := []struct {
		in   []uint32
		want string
	}{
		{[]uint32{4660, 3}, "titles: remove: index 3 is odd (names have even indexes)"},
		{[]uint32{4660, 4662}, "titles: remove: no name at index 4662"},
	}
	for _, e := range errs {
		if err := db.Remove(e.in); err == nil || err.Error() != e.want {
			t.Errorf("Remove(%v) = %v, want %s", e.in, err, e.want)
		}
	}
	if db.Name(4660) != "Widgets" {
		t.Error("a failed Remove removed something")
	}
	if _, err := db.Add(nil); err == nil {
		t.Error("Add(nil) succeeded")
	}
	if _, err := db.Add([]NameHelp{{"ok", ""}, {"", "x"}}); err == nil || db.Name(4662) != "" {
		t.Errorf("Add with an empty name: err %v, added %q", err, db.Name(4662))
	}
}

func TestParseTSV(t *testing.T) {
	db, err := ParseTSV(strings.NewReader("\uFEFF# comment\r\n1\t1847\r\n\r\n2\tSystem\r\n4\tName\twith tab\n"))
	if err != nil {
		t.Fatal(err)
	}
	if db.Name(2) != "System" || db.Name(4) != "Name\twith tab" || db.BaseIndex() != 1847 {
		t.Errorf("got %q %q %d", db.Name(2), db.Name(4), db.BaseIndex())
	}
	noHeader, err := ParseTSV(strings.NewReader("2\tSystem\n"))
	if err != nil || noHeader.BaseIndex() != 0 {
		t.Errorf("no header: %v, BaseIndex %d", err, noHeader.BaseIndex())
	}
	tests := []struct{ in, want string }{
		{"2 System\n", "titles: TSV line 1: no TAB between index and name"},
		{"#x\nx2\tSystem\n", `titles: TSV line 2: non-numeric index "x2"`},
		{"2\tSystem\n3\tHelp\n", "titles: TSV: odd index 3 at line 2 (names have even indexes)"},
		{"2\tSystem\n\n2\tAgain\n", "titles: TSV: duplicate index 2 at line 3 (first at line 1)"},
		{"2\t\n", "titles: TSV: index 2 at line 1 has an empty name"},
		{"2\ta\x00b\n", "titles: TSV line 1: name contains NUL"},
		{"\t\n", "titles: TSV line 1: empty index"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := ParseTSV(strings.NewReader(tt.in))
			if err == nil || err.Error() != tt.want {
				t.Errorf("error\n got %v\nwant %s", err, tt.want)
			}
		})
	}
}

func sameDB(t *testing.T, got, want *DB) {
	t.Helper()
	ge, we := got.Entries(), want.Entries()
	if len(ge) != len(we) {
		t.Fatalf("%d entries, want %d", len(ge), len(we))
	}
	for k := range ge {
		if ge[k] != we[k] {
			t.Fatalf("entry %d = %+v, want %+v", k, ge[k], we[k])
		}
	}
	if got.BaseIndex() != want.BaseIndex() || got.LastCounter() != want.LastCounter() || got.LastHelp() != want.LastHelp() {
		t.Fatalf("base/last = %d/%d/%d, want %d/%d/%d", got.BaseIndex(), got.LastCounter(), got.LastHelp(),
			want.BaseIndex(), want.LastCounter(), want.LastHelp())
	}
}

func TestStateRoundTrip(t *testing.T) {
	db := English()
	if _, err := db.Add([]NameHelp{{`Odd \ name`, "line one\nline two\ttabbed\r\\"}, {"Only name", ""}, {"Third", ""}}); err != nil {
		t.Fatal(err)
	}
	if err := db.Remove([]uint32{4662}); err != nil { // not the top: Last Counter stays 4664
		t.Fatal(err)
	}
	if err := db.SetHelpMultiSZ(multi("3", "The System object")); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	n, err := db.WriteTo(&buf)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("WriteTo = %d, %v (buffer %d)", n, err, buf.Len())
	}
	text := buf.String()
	// The entries header counts the lines between it and "end": every
	// line holds one index, so the count is the number of lines less the
	// five others.
	entries := strings.Count(text, "\n") - 5
	wantStart := "perfc-titles 2\nbase-index\t1847\nlast-counter\t4664\nentries\t" + strconv.Itoa(entries) + "\n2\tSystem\tThe System object\n4\tMemory\t\n"
	if !strings.HasPrefix(text, wantStart) {
		t.Errorf("state starts\n%q\nwant\n%q", text[:min(len(text), len(wantStart))], wantStart)
	}
	if !strings.HasSuffix(text, "\n4660\tOdd \\\\ name\tline one\\nline two\\ttabbed\\r\\\\\n4664\tThird\t\nend\n") {
		t.Errorf("state ends %q", text[max(0, len(text)-80):])
	}
	back, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	sameDB(t, back, db)
	if back.LastCounter() != 4664 {
		t.Errorf("LastCounter = %d, want 4664", back.LastCounter())
	}
}

func TestReadDamaged(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "titles: state: empty file"},
		{"perfc-titles 3\n", `titles: state line 1: unsupported version "3" (want 1 or 2)`},
		{"perfc-titles 2\n", "titles: state: no entries header (the file is cut short)"},
		{"perfc-titles 2\nentries\t1\n2\tSystem\t\n", "titles: state: no end line after line 3 (the file is cut short)"},
		{"perfc-titles 2\nentries\t2\n2\tSystem\t\nend\n", "titles: state: 1 entries, the header says 2 (lines are missing)"},
		{"perfc-titles 2\nentries\t1\n2\tSystem\t\nend\n4\tMemory\t\n", "titles: state line 5: text after the end line"},
		{"perfc-titles 2\n2\tSystem\t\n", "titles: state line 2: no entries header before the entries"},
		{"2\tSystem\t\n", "titles: state line 1: not a perfc-titles file"},
		{"perfc-titles 1\n2\tSystem\n", "titles: state line 2: want 3 TAB-separated fields (index, name, help), have 2"},
		{"perfc-titles 1\n3\tSystem\t\n", "titles: state line 2: odd index 3 (entries are keyed by name index)"},
		{"perfc-titles 1\n4\ta\t\n2\tb\t\n", "titles: state line 3: index 2 after 4 (indexes must ascend)"},
		{"perfc-titles 1\n2\t\t\n", "titles: state line 2: index 2 has neither name nor help"},
		{"perfc-titles 1\n2\ta\\x\t\n", `titles: state line 2: name: unknown escape \x`},
		{"perfc-titles 1\n2\ta\th\\\n", "titles: state line 2: help: backslash at the end of a field"},
		{"perfc-titles 1\nbase-index\tx\n", `titles: state line 2: header base-index: bad value "x"`},
		{"perfc-titles 1\n2\ta\t\nlast-counter\t4\n", "titles: state line 3: header last-counter after the entries"},
		{"perfc-titles 1\nlast-counter\t3\n", "titles: state: last-counter 3 is odd"},
		{"perfc-titles 1\nx\ta\t\n", `titles: state line 2: non-numeric index "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.in))
			if err == nil || err.Error() != tt.want {
				t.Errorf("error\n got %v\nwant %s", err, tt.want)
			}
		})
	}
}

// TestStateTruncated cuts a written database at every line boundary and
// at every byte of its last lines: only the whole file reads.
func TestStateTruncated(t *testing.T) {
	var buf bytes.Buffer
	if _, err := smallDB(t).WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	full := buf.Bytes()
	if _, err := Read(bytes.NewReader(full)); err != nil {
		t.Fatalf("whole file: %v", err)
	}
	var cuts []int
	for i, c := range full[:len(full)-1] {
		if c == '\n' {
			cuts = append(cuts, i+1) // a line boundary
		}
	}
	for i := max(0, len(full)-40); i < len(full)-1; i++ {
		cuts = append(cuts, i) // inside the last lines, "end" included
	}
	for _, n := range cuts {
		if _, err := Read(bytes.NewReader(full[:n])); err == nil {
			t.Errorf("file cut to %d of %d bytes (%q...) read without error", n, len(full), full[max(0, n-20):n])
		}
	}
}

// TestReadVersion1 reads a file in the first format, which has neither
// the entries header nor the end line.
func TestReadVersion1(t *testing.T) {
	db, err := Read(strings.NewReader("perfc-titles 1\nbase-index\t1847\nlast-counter\t6\n2\tSystem\tsys\n6\tX\t\n"))
	if err != nil {
		t.Fatal(err)
	}
	if db.Name(2) != "System" || db.Help(3) != "sys" || db.Name(6) != "X" || db.LastCounter() != 6 {
		t.Errorf("read %q %q %q, Last Counter %d", db.Name(2), db.Help(3), db.Name(6), db.LastCounter())
	}
}

func TestLoad(t *testing.T) {
	small := smallDB(t)
	var state bytes.Buffer
	if _, err := small.WriteTo(&state); err != nil {
		t.Fatal(err)
	}
	tsv := "1\t1847\n2\tSystem\n4\tMemory\n6\tMé\n"
	utf16TSV := append([]byte{0xFF, 0xFE}, utf16le.Append(nil, strings.ReplaceAll(tsv, "\n", "\r\n"))...)
	tests := []struct {
		name string
		in   []byte
		help bool // the input carries help texts
	}{
		{"MULTI_SZ", small.CounterMultiSZ(), false},
		{"MULTI_SZ with BOM", append([]byte{0xFF, 0xFE}, small.CounterMultiSZ()...), false},
		{"TSV", []byte(tsv), false},
		{"TSV with BOM", append([]byte("\uFEFF"), tsv...), false},
		{"UTF-16 TSV", utf16TSV, false},
		{"state", state.Bytes(), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := Load(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(db.CounterMultiSZ(), small.CounterMultiSZ()) {
				t.Errorf("Counter list differs: %x", db.CounterMultiSZ())
			}
			if tt.help && !bytes.Equal(db.HelpMultiSZ(), small.HelpMultiSZ()) {
				t.Errorf("Help list differs: %x", db.HelpMultiSZ())
			}
		})
	}
	if _, err := Load(nil); err == nil || err.Error() != "titles: load: empty file" {
		t.Errorf("Load(nil) = %v", err)
	}
	if _, err := Load([]byte{0xFF, 0xFE, 0x41}); err == nil {
		t.Error("Load of odd-length UTF-16 succeeded")
	}
}

func BenchmarkEnglish(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(englishTSV)))
	for b.Loop() {
		_ = English()
	}
}

func BenchmarkCounterMultiSZ(b *testing.B) {
	db := English()
	b.ReportAllocs()
	b.SetBytes(int64(len(db.CounterMultiSZ())))
	for b.Loop() {
		_ = db.CounterMultiSZ()
	}
}

func BenchmarkIndex(b *testing.B) {
	db := English()
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := db.Index("network interface"); !ok {
			b.Fatal("not found")
		}
	}
}

// TestLoadFileLimit: /dev/zero is refused with the file and the limit
// named, after reading no more than about the limit.
func TestLoadFileLimit(t *testing.T) {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	_, err := LoadFile("/dev/zero")
	runtime.ReadMemStats(&m1)
	if err == nil || !strings.Contains(err.Error(), "/dev/zero") || !strings.Contains(err.Error(), "16 MiB limit") {
		t.Errorf("LoadFile(/dev/zero) = %v, want an error naming the file and the 16 MiB limit", err)
	}
	if a := m1.TotalAlloc - m0.TotalAlloc; a > 4*MaxFileSize {
		t.Errorf("LoadFile(/dev/zero) allocated %d bytes", a)
	}
	p := filepath.Join(t.TempDir(), "t.tsv")
	if err := os.WriteFile(p, []byte("230\tProcess\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if db, err := LoadFile(p); err != nil || db.Name(230) != "Process" {
		t.Errorf("LoadFile(%s): %v", p, err)
	}
}

// TestParseIndex16 checks the UTF-16 index reader against parseIndex.
func TestParseIndex16(t *testing.T) {
	for _, s := range []string{"", "0", "1", "2", "0002", "1846", "4294967295", "4294967296", "99999999999999999999",
		"000000000000000000000007", "12a", " 12", "-1", "+1", "١٢", "1\u0000"} {
		var b []byte
		for _, u := range utf16.Encode([]rune(s)) {
			b = append(b, byte(u), byte(u>>8))
		}
		got, gerr := parseIndex16(b)
		want, werr := parseIndex(s)
		if got != want || (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
			t.Errorf("parseIndex16(%q) = %d, %v; parseIndex gives %d, %v", s, got, gerr, want, werr)
		}
	}
}

// TestFoldHash checks that paths equal without case (strings.EqualFold)
// hash alike, so that relog gives them one column, and that a few that
// differ do not.
func TestFoldHash(t *testing.T) {
	same := [][2]string{
		{`\\HOST\Processor(_Total)\% Processor Time`, `\\host\processor(_total)\% processor time`},
		{`\\h\Temp(K)\x`, "\\\\h\\temp(\u212a)\\X"}, // Kelvin sign folds to k
		{`\\h\S(ß)\x`, `\\h\s(ß)\X`},
		{"\\\\h\\\u017ft\\x", `\\h\ST\X`}, // long s folds to s
		{"\\\\h\\Ä\\x", "\\\\h\\ä\\X"},
		{"bad\xffutf8", "BAD\xffUTF8"},
		{"", ""},
	}
	for _, p := range same {
		if !strings.EqualFold(p[0], p[1]) {
			t.Fatalf("test table: %q and %q are not equal without case", p[0], p[1])
		}
		if a, b := FoldHash(p[0]), FoldHash(p[1]); a != b {
			t.Errorf("FoldHash(%q) = %x, FoldHash(%q) = %x: want equal", p[0], a, p[1], b)
		}
	}
	differ := [][2]string{
		{`\\h\Process(a)\x`, `\\h\Process(b)\x`},
		{`\\h\Process(a)\x`, `\\h\Process(a)\x `},
		{`\\h\Process(a#1)\x`, `\\h\Process(a#2)\x`},
		{"\\\\h\\\u00e4\\x", "\\\\h\\a\\x"},
	}
	for _, p := range differ {
		if FoldHash(p[0]) == FoldHash(p[1]) {
			t.Errorf("FoldHash(%q) = FoldHash(%q): want different", p[0], p[1])
		}
	}
}

// TestIndexHashCollision: two names whose FoldHash met in the index are
// still told apart (the index keeps one index a hash; a lookup checks the
// name it finds and scans when it is another).
func TestIndexHashCollision(t *testing.T) {
	db := New()
	for _, n := range []struct {
		i    uint32
		name string
	}{{10, "Alpha"}, {20, "Beta"}, {30, "BETA"}} {
		if err := db.SetAt(n.i, n.name, ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := db.Index("alpha"); !ok { // builds the index
		t.Fatal("alpha not found")
	}
	db.byName[FoldHash("beta")] = 10 // as if Beta hashed like Alpha
	db.byName[FoldHash("gamma")] = 10
	for _, tc := range []struct {
		name string
		want uint32
		ok   bool
	}{{"ALPHA", 10, true}, {"beta", 20, true}, {"Beta", 20, true}, {"gamma", 0, false}, {"delta", 0, false}} {
		got, ok := db.Index(tc.name)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Index(%q) = %d, %v; want %d, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// TestFoldHashAdd: hashing a prefix once and continuing with the rest is
// hashing the whole string.
func TestFoldHashAdd(t *testing.T) {
	for _, p := range [][2]string{
		{`\\HOST\Processor(_Total)\`, `% Processor Time`},
		{`\\h\Temp(K)\`, "\u212a"},
		{"\\\\h\\\u00c4(\u017f)\\", "Stra\u00dfe"},
		{"", "x"},
		{"x", ""},
		{"bad\xff", "utf8"},
	} {
		if got, want := FoldHashAdd(FoldHash(p[0]), p[1]), FoldHash(p[0]+p[1]); got != want {
			t.Errorf("FoldHashAdd(FoldHash(%q), %q) = %x, FoldHash of the whole = %x", p[0], p[1], got, want)
		}
	}
}
