package state

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/titles"
)

// trustedShell returns /bin/sh resolved, or skips when it is not a
// trusted executable here.
func trustedShell(t *testing.T) string {
	t.Helper()
	sh, err := filepath.EvalSymlinks("/bin/sh")
	if err != nil {
		t.Skip(err)
	}
	if err := CheckExecutable(sh, os.Geteuid()); err != nil {
		t.Skipf("/bin/sh is not a trusted executable here: %v", err)
	}
	return sh
}

// transferNames are the names of perfini's fixture, by offset.
func transferNames() []V1Offset {
	return []V1Offset{
		{Offset: 0, Symbol: "TRANSFER_OBJECT", Object: true, Name: "Transfer", Help: "Provides information related to transferring files.",
			Localized: map[string]V1Text{"009": {"Transfer", "Provides information related to transferring files."}, "007": {"Übertragung", "Informationen über Dateiübertragungen."}}},
		{Offset: 2, Symbol: "BYTES_SENT", Name: "Bytes Sent", Help: "Number of bytes sent.",
			Localized: map[string]V1Text{"009": {"Bytes Sent", "Number of bytes sent."}, "007": {"Gesendete Bytes", ""}}},
		{Offset: 4, Symbol: "AVAILABLE_BANDWIDTH", Name: "Available Bandwidth"},
	}
}

// TestRegisterV1Offsets: an .ini registration gets one block after Last
// Counter, index = First Counter + offset; the names are in the title
// database, every language's text in the record; registering again gives
// the same block; a later registration the next one; unregistering
// removes the names.
func TestRegisterV1Offsets(t *testing.T) {
	sh := trustedShell(t)
	dir := t.TempDir()
	// Expected from the rule, not from the code: English Windows' table
	// is the database of a new state directory, and the block starts at
	// the even index after its Last Counter.
	first := titles.EnglishLastCounter() + 2
	reg := V1Registration{Name: "PerfcTransfer", Exec: sh, Source: "/x/Transfer.ini", Language: "009"}
	got, err := RegisterV1Offsets(dir, reg, transferNames(), RegisterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.FirstCounter != first || got.FirstHelp != first+1 || got.LastCounter != first+4 || got.LastHelp != first+5 {
		t.Errorf("range %d %d %d %d, want %d %d %d %d", got.FirstCounter, got.FirstHelp, got.LastCounter, got.LastHelp, first, first+1, first+4, first+5)
	}
	if !slices.Equal(got.Objects, []uint32{first}) {
		t.Errorf("objects %v, want [%d]", got.Objects, first)
	}
	db, err := Titles(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range []string{"Transfer", "Bytes Sent", "Available Bandwidth"} {
		if g := db.Name(first + uint32(2*i)); g != n {
			t.Errorf("title %d = %q, want %q", first+uint32(2*i), g, n)
		}
	}
	if h := db.Help(first + 1); h != "Provides information related to transferring files." {
		t.Errorf("help %d = %q", first+1, h)
	}
	regs, problems, err := ReadV1(dir)
	if err != nil || len(problems) > 0 || len(regs) != 1 {
		t.Fatalf("ReadV1 = %+v, %v, %v", regs, problems, err)
	}
	r := regs[0]
	if r.Names[0].Localized["007"].Name != "Übertragung" || r.Names[1].Localized["007"].Help != "" || r.Names[2].Localized != nil || r.Names[1].Symbol != "BYTES_SENT" || r.Source != "/x/Transfer.ini" {
		t.Errorf("record %+v", r)
	}
	b, _ := os.ReadFile(filepath.Join(dir, v1File))
	if strings.Contains(string(b), `"localized": {}`) || strings.Count(string(b), `"localized"`) != 2 {
		t.Errorf("v1.json: localized written when empty, or missing:\n%s", b)
	}

	// Again: the earlier names go first, the same block comes back.
	again, err := RegisterV1Offsets(dir, reg, transferNames(), RegisterOptions{})
	if err != nil || again.FirstCounter != first {
		t.Fatalf("again: First Counter %d, %v; want %d", again.FirstCounter, err, first)
	}
	// Another provider: the next block.
	other := V1Registration{Name: "Other", Exec: sh}
	o, err := RegisterV1Offsets(dir, other, []V1Offset{{Offset: 0, Name: "Other Object", Object: true}, {Offset: 2, Name: "Bytes Sent"}}, RegisterOptions{})
	if err != nil || o.FirstCounter != first+6 || o.LastCounter != first+8 {
		t.Fatalf("other: %d..%d, %v; want %d..%d", o.FirstCounter, o.LastCounter, err, first+6, first+8)
	}
	if err := UnregisterV1(dir, "perfctransfer"); err != nil {
		t.Fatal(err)
	}
	db, _ = Titles(dir, nil)
	if db.Name(first) != "" || db.Name(first+4) != "" || db.Name(first+6) != "Other Object" || db.Name(first+8) != "Bytes Sent" {
		t.Errorf("after unlodctr: %q %q %q %q", db.Name(first), db.Name(first+4), db.Name(first+6), db.Name(first+8))
	}
}

// TestRegisterV1OffsetsRefused: what an .ini registration may not do.
func TestRegisterV1OffsetsRefused(t *testing.T) {
	sh := trustedShell(t)
	dir := t.TempDir()
	if _, err := RegisterV1Offsets(dir, V1Registration{Name: "First", Exec: sh}, []V1Offset{{Offset: 0, Name: "Widgets", Object: true}}, RegisterOptions{}); err != nil {
		t.Fatal(err)
	}
	m, data := genManifest(t, guid(1), "P1", testSet{guid(0x11), "Gauges"})
	mustRegister(t, dir, m, data, RegisterOptions{})
	one := func(name string, object bool) []V1Offset { return []V1Offset{{Offset: 0, Name: name, Object: object}} }
	tests := []struct {
		name  string
		reg   V1Registration
		names []V1Offset
		want  string
	}{
		{"names given", V1Registration{Name: "x", Exec: sh, Names: []V1Name{{Index: 9000, Name: "a"}}}, one("a", true), "come from the offsets"},
		{"a range given", V1Registration{Name: "x", Exec: sh, FirstCounter: 9000}, one("a", true), "come from the offsets"},
		{"no names", V1Registration{Name: "x", Exec: sh}, nil, "no names"},
		{"offsets not 0, 2, ...", V1Registration{Name: "x", Exec: sh}, []V1Offset{{Offset: 0, Name: "a"}, {Offset: 4, Name: "b"}}, "has the offset 4, want 2"},
		{"a built-in object's name", V1Registration{Name: "x", Exec: sh}, one("processor", true), "built-in object"},
		{"a V2 counter set's name", V1Registration{Name: "x", Exec: sh}, one("GAUGES", true), `the counter set "Gauges"`},
		{"another V1 provider's object", V1Registration{Name: "x", Exec: sh}, one("widgets", true), `the V1 provider "First" has an object of that name`},
		{"a provider name in another case", V1Registration{Name: "FIRST", Exec: sh}, one("a", true), "differ in more than case"},
		{"a control character", V1Registration{Name: "x", Exec: sh}, []V1Offset{{Offset: 0, Name: "a", Localized: map[string]V1Text{"007": {"b\x1b", ""}}}}, "control character"},
		{"a bad language id", V1Registration{Name: "x", Exec: sh}, []V1Offset{{Offset: 0, Name: "a", Localized: map[string]V1Text{"1033": {"b", ""}}}}, `language "1033"`},
		{"a relative executable", V1Registration{Name: "x", Exec: "sh"}, one("a", true), "not an absolute path"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := RegisterV1Offsets(dir, tc.reg, tc.names, RegisterOptions{Reserved: []string{"Processor"}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("RegisterV1Offsets: %v; want %q", err, tc.want)
			}
		})
	}
	// A counter (not an object) may share a name with anything.
	if _, err := RegisterV1Offsets(dir, V1Registration{Name: "y", Exec: sh}, []V1Offset{{Offset: 0, Name: "Y", Object: true}, {Offset: 2, Name: "Widgets"}}, RegisterOptions{}); err != nil {
		t.Errorf("a counter named as another provider's object: %v", err)
	}
}

// TestV1RangeValidated: a record whose First/Last Counter/Help do not
// hold its names is left out as damaged.
func TestV1RangeValidated(t *testing.T) {
	sh := trustedShell(t)
	for _, tc := range []struct{ name, fields, want string }{
		{"help not counter + 1", `"firstCounter": 9000, "firstHelp": 9003, "lastCounter": 9000, "lastHelp": 9001, "names": [{"index": 9000, "name": "a"}]`, "not a range"},
		{"a name outside", `"firstCounter": 9000, "firstHelp": 9001, "lastCounter": 9002, "lastHelp": 9003, "names": [{"index": 9004, "name": "a"}]`, "outside"},
		{"an object outside", `"firstCounter": 9000, "firstHelp": 9001, "lastCounter": 9002, "lastHelp": 9003, "objects": [8998]`, "outside"},
		{"last without first", `"lastCounter": 9002`, "without a First Counter"},
		{"a lower-case language", `"language": "00c"`, "upper-case hexadecimal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			rec := `{"version": 1, "providers": [{"name": "p", "exec": "` + sh + `", ` + tc.fields + `}]}`
			if err := os.WriteFile(filepath.Join(dir, v1File), []byte(rec), 0o644); err != nil {
				t.Fatal(err)
			}
			regs, problems, err := ReadV1(dir)
			if err != nil || len(regs) != 0 || len(problems) != 1 || !strings.Contains(problems[0].Error(), tc.want) {
				t.Fatalf("ReadV1 = %+v, %v, %v; want one problem with %q", regs, problems, err, tc.want)
			}
		})
	}
}
