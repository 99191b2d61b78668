package state

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/manifest"
	"github.com/perfcounters/perfcounters/titles"
)

func TestPath(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		euid    int
		want    string
		wantErr bool
	}{
		{"override wins for root", map[string]string{"PERFC_STATE_DIR": "/srv/perfc", "HOME": "/root"}, 0, "/srv/perfc", false},
		{"override wins for users", map[string]string{"PERFC_STATE_DIR": "rel/dir", "XDG_STATE_HOME": "/x"}, 1000, "rel/dir", false},
		{"root", map[string]string{"HOME": "/root", "XDG_STATE_HOME": "/root/.st"}, 0, "/var/lib/perfc", false},
		{"user with XDG_STATE_HOME", map[string]string{"HOME": "/home/u", "XDG_STATE_HOME": "/home/u/st"}, 1000, "/home/u/st/perfc", false},
		{"user without XDG_STATE_HOME", map[string]string{"HOME": "/home/u"}, 1000, "/home/u/.local/state/perfc", false},
		{"relative XDG_STATE_HOME is ignored", map[string]string{"HOME": "/home/u", "XDG_STATE_HOME": "st"}, 1000, "/home/u/.local/state/perfc", false},
		{"user without HOME", map[string]string{}, 1000, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Path(func(k string) string { return tc.env[k] }, tc.euid)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Fatalf("Path = %q, %v; want %q, error %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestNormalizeGUID(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"{5b0d7c1e-8f3a-4c2b-9e61-3a7d2c9f4b10}", "{5B0D7C1E-8F3A-4C2B-9E61-3A7D2C9F4B10}", true},
		{"5B0D7C1E-8F3A-4C2B-9E61-3A7D2C9F4B10", "{5B0D7C1E-8F3A-4C2B-9E61-3A7D2C9F4B10}", true},
		{" {5B0D7C1E-8F3A-4C2B-9E61-3A7D2C9F4B10} ", "{5B0D7C1E-8F3A-4C2B-9E61-3A7D2C9F4B10}", true},
		{"{5B0D7C1E-8F3A-4C2B-9E61-3A7D2C9F4B1}", "", false},
		{"{5B0D7C1E+8F3A-4C2B-9E61-3A7D2C9F4B10}", "", false},
		{"{5B0D7C1E-8F3A-4C2B-9E61-3A7D2C9F4B1G}", "", false},
		{"PerfcHostTest", "", false},
	}
	for _, tc := range tests {
		got, ok := NormalizeGUID(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("NormalizeGUID(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// testSet is one counter set of a generated manifest.
type testSet struct{ guid, name string }

// genManifest writes a manifest of one provider with the given sets, each
// with two counters, and parses it.
func genManifest(t testing.TB, guid, name string, sets ...testSet) (*manifest.Manifest, []byte) {
	t.Helper()
	var b bytes.Buffer
	fmt.Fprintf(&b, `<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"><instrumentation>
<counters xmlns="http://schemas.microsoft.com/win/2005/12/counters" schemaVersion="1.1">
<provider providerName="%s" providerGuid="%s" applicationIdentity="t" symbol="T">
`, name, guid)
	for i, s := range sets {
		fmt.Fprintf(&b, `<counterSet guid="%s" uri="u%d" name="%s" description="d" symbol="S%d" instances="single">
<counter id="1" uri="u%dc1" name="One" description="d" type="perf_counter_rawcount" detailLevel="standard"/>
<counter id="2" uri="u%dc2" name="Two" description="d" type="perf_counter_rawcount" detailLevel="standard"/>
</counterSet>
`, s.guid, i, s.name, i, i, i)
	}
	b.WriteString("</provider></counters></instrumentation></instrumentationManifest>\n")
	m, err := manifest.Parse("gen.man", bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatalf("generated manifest: %v", err)
	}
	return m, b.Bytes()
}

func guid(n int) string { return fmt.Sprintf("{0A1B2C3D-0000-4000-8000-%012X}", n) }

func mustRegister(t testing.TB, dir string, m *manifest.Manifest, data []byte, opts RegisterOptions) []RegisterResult {
	t.Helper()
	res, err := Register(dir, m, data, "gen.man", opts)
	if err != nil {
		t.Fatalf("Register: %v", err)
	}
	return res
}

func mustRead(t testing.TB, dir string) *State {
	t.Helper()
	st, err := Read(dir)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return st
}

// TestRegisterRules checks lodctr's rules: a second provider may not take
// a counter set GUID or name (any case) of another; the same provider
// again is an update; names with control characters are refused.
func TestRegisterRules(t *testing.T) {
	dir := t.TempDir()
	m, data := genManifest(t, guid(1), "First", testSet{guid(0x11), "Widgets"})
	mustRegister(t, dir, m, data, RegisterOptions{})
	tests := []struct {
		name    string
		pguid   string
		pname   string
		sets    []testSet
		wantErr string // "" = accepted
	}{
		{"same set GUID, other provider", guid(2), "Second", []testSet{{guid(0x11), "Gadgets"}}, "has the GUID"},
		{"same set name, other provider", guid(2), "Second", []testSet{{guid(0x21), "Widgets"}}, `counter set name "Widgets" is already registered`},
		{"same set name in another case", guid(2), "Second", []testSet{{guid(0x21), "wIDGETS"}}, "is already registered"},
		{"control character in a set name", guid(2), "Second", []testSet{{guid(0x21), "Gad&#9;gets"}}, "control character"},
		{"control character in the provider name", guid(2), "Sec\tond", []testSet{{guid(0x21), "Gadgets"}}, "control character"},
		{"same provider again: an update", guid(1), "First", []testSet{{guid(0x11), "Widgets"}, {guid(0x12), "More"}}, ""},
		{"a new provider", guid(2), "Second", []testSet{{guid(0x21), "Gadgets"}}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := os.ReadFile(filepath.Join(dir, recordFile))
			m, data := genManifest(t, tc.pguid, tc.pname, tc.sets...)
			_, err := Register(dir, m, data, "gen.man", RegisterOptions{})
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
			if after, _ := os.ReadFile(filepath.Join(dir, recordFile)); !bytes.Equal(before, after) {
				t.Error("a refused registration changed providers.json")
			}
		})
	}
	regs, problems, err := ReadRegistrations(dir)
	if err != nil || len(problems) != 0 || len(regs) != 2 || len(regs[0].Sets) != 2 {
		t.Fatalf("registrations %+v, %v, %v; want First with 2 sets and Second", regs, problems, err)
	}
}

// TestRegisterReservedNames: a counter set may not take the name of a
// built-in object, in any case (issue 28: lodctr accepted a set named
// Memory, which then shadowed, or was shadowed by, the built-in one).
func TestRegisterReservedNames(t *testing.T) {
	reserved := []string{"Memory", "Processor", "Process V2"}
	for _, name := range []string{"Memory", "memory", "PROCESS V2"} {
		dir := t.TempDir()
		m, data := genManifest(t, guid(7), "Shadow", testSet{guid(0x71), name})
		_, err := Register(dir, m, data, "gen.man", RegisterOptions{Reserved: reserved})
		if err == nil || !strings.Contains(err.Error(), "built-in object") {
			t.Errorf("set %q: err = %v, want a refusal naming the built-in object", name, err)
		}
		if st := mustRead(t, dir); len(st.Providers) != 0 {
			t.Errorf("set %q: %d registrations after the refusal", name, len(st.Providers))
		}
	}
	m, data := genManifest(t, guid(8), "Fine", testSet{guid(0x81), "Memory Pools"})
	mustRegister(t, t.TempDir(), m, data, RegisterOptions{Reserved: reserved})
}

// TestUnregisterAmbiguous: a provider name two providers share is refused
// with both listed; each is then removed by its GUID.
func TestUnregisterAmbiguous(t *testing.T) {
	dir := t.TempDir()
	for i, s := range []testSet{{guid(0x11), "A"}, {guid(0x21), "B"}} {
		m, data := genManifest(t, guid(i+1), "Same", s)
		mustRegister(t, dir, m, data, RegisterOptions{})
	}
	_, err := Unregister(dir, "same")
	if err == nil || !strings.Contains(err.Error(), guid(1)) || !strings.Contains(err.Error(), guid(2)) || !strings.Contains(err.Error(), "2 providers") {
		t.Fatalf("Unregister(same) = %v; want both GUIDs listed", err)
	}
	if regs, _, _ := ReadRegistrations(dir); len(regs) != 2 {
		t.Fatalf("%d registrations left, want 2", len(regs))
	}
	for _, g := range []string{guid(1), strings.ToLower(strings.Trim(guid(2), "{}"))} {
		if _, err := Unregister(dir, g); err != nil {
			t.Fatalf("Unregister(%s): %v", g, err)
		}
	}
}

// TestPublishers: the registering user by default, the users named
// otherwise, and the owner of providers.json for a registration written
// before the field existed.
func TestPublishers(t *testing.T) {
	dir := t.TempDir()
	m, data := genManifest(t, guid(1), "P1", testSet{guid(0x11), "S1"})
	mustRegister(t, dir, m, data, RegisterOptions{})
	m, data = genManifest(t, guid(2), "P2", testSet{guid(0x21), "S2"})
	mustRegister(t, dir, m, data, RegisterOptions{Publishers: []uint32{33, 1001}})
	st := mustRead(t, dir)
	euid := uint32(os.Geteuid())
	if len(st.Providers) != 2 || !slices.Equal(st.Providers[0].Publishers, []uint32{euid}) || !slices.Equal(st.Providers[1].Publishers, []uint32{33, 1001}) {
		t.Fatalf("publishers %+v", st.Providers)
	}
	if len(st.Sets) != 2 || !slices.Equal(st.Sets[1].Publishers, []uint32{33, 1001}) {
		t.Fatalf("sets %+v", st.Sets)
	}
	// An old record: no "publishers" key.
	path := filepath.Join(dir, recordFile)
	b, _ := os.ReadFile(path)
	var rec map[string]any
	json.Unmarshal(b, &rec)
	for _, p := range rec["providers"].([]any) {
		delete(p.(map[string]any), "publishers")
	}
	b, _ = json.Marshal(rec)
	os.WriteFile(path, b, 0o644)
	fi, _ := os.Stat(path)
	owner := fileOwner(fi)
	st = mustRead(t, dir)
	for _, p := range st.Providers {
		if !slices.Equal(p.Publishers, []uint32{owner}) {
			t.Errorf("old registration %s: publishers %v, want the file's owner %d", p.GUID, p.Publishers, owner)
		}
	}
}

// TestDamagedRecord: a record cut short keeps the registrations before
// the cut; an entry that is not a valid registration costs only itself,
// is kept as written by later writes, and can be removed by its key.
func TestDamagedRecord(t *testing.T) {
	dir := t.TempDir()
	for i := 1; i <= 3; i++ {
		m, data := genManifest(t, guid(i), fmt.Sprintf("P%d", i), testSet{guid(0x10 + i), fmt.Sprintf("S%d", i)})
		mustRegister(t, dir, m, data, RegisterOptions{})
	}
	path := filepath.Join(dir, recordFile)
	whole, _ := os.ReadFile(path)

	// Cut inside the third entry: the first two stay.
	cut := bytes.Index(whole, []byte(guid(3)))
	os.WriteFile(path, whole[:cut], 0o644)
	st := mustRead(t, dir)
	if len(st.Providers) != 2 || len(st.Sets) != 2 || len(st.Problems) != 1 {
		t.Fatalf("cut record: %d providers, %d sets, problems %v; want 2, 2, one", len(st.Providers), len(st.Sets), st.Problems)
	}
	if msg := st.Problems[0].Error(); !strings.Contains(msg, path) || !strings.Contains(msg, "repair") {
		t.Errorf("problem %q does not name %s and its repair", msg, path)
	}
	m, data := genManifest(t, guid(4), "P4", testSet{guid(0x14), "S4"})
	if _, err := Register(dir, m, data, "gen.man", RegisterOptions{}); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Register over a cut record: %v; want it refused, naming %s", err, path)
	}

	// One bad entry: the second's GUID spoiled.
	bad := bytes.Replace(whole, []byte(`"guid": "`+guid(2)), []byte(`"guid": "spoiled`), 1)
	os.WriteFile(path, bad, 0o644)
	st = mustRead(t, dir)
	if len(st.Providers) != 2 || st.Providers[0].GUID != guid(1) || st.Providers[1].GUID != guid(3) || len(st.Problems) != 1 || !strings.Contains(st.Problems[0].Error(), "entry 2") {
		t.Fatalf("bad entry: providers %+v, problems %v", st.Providers, st.Problems)
	}
	mustRegister(t, dir, m, data, RegisterOptions{}) // P4: the bad entry is kept
	if b, _ := os.ReadFile(path); !bytes.Contains(b, []byte(`"spoiled`)) {
		t.Error("a write dropped the damaged entry")
	}
	if _, err := Unregister(dir, "spoiled"); err != nil {
		t.Fatalf("Unregister(spoiled): %v", err)
	}
	if st := mustRead(t, dir); len(st.Problems) != 0 || len(st.Providers) != 3 {
		t.Errorf("after removing it: %d providers, problems %v", len(st.Providers), st.Problems)
	}
}

// TestTitlesCutShort: a title database cut on a line boundary leaves the
// registrations out (their names are gone) and names the file.
func TestTitlesCutShort(t *testing.T) {
	dir := t.TempDir()
	m, data := genManifest(t, guid(1), "P1", testSet{guid(0x11), "S1"})
	mustRegister(t, dir, m, data, RegisterOptions{})
	path := filepath.Join(dir, titlesFile)
	b, _ := os.ReadFile(path)
	cut := bytes.LastIndexByte(b[:len(b)-1], '\n') + 1 // drop the last line
	os.WriteFile(path, b[:cut], 0o644)
	st := mustRead(t, dir)
	if len(st.Sets) != 0 || len(st.Problems) != 1 || !strings.Contains(st.Problems[0].Error(), path) || !strings.Contains(st.Problems[0].Error(), "cut short") {
		t.Fatalf("sets %d, problems %v; want none and the cut named", len(st.Sets), st.Problems)
	}
	if _, err := Register(dir, m, data, "gen.man", RegisterOptions{}); err == nil {
		t.Error("Register wrote over a damaged title database")
	}
}

// TestParsedForm: commands read the parsed form, not the XML copy; a
// damaged parsed form falls back to the XML copy and is reported.
func TestParsedForm(t *testing.T) {
	dir := t.TempDir()
	m, data := genManifest(t, guid(1), "P1", testSet{guid(0x11), "S1"}, testSet{guid(0x12), "S2"})
	res := mustRegister(t, dir, m, data, RegisterOptions{})
	copyPath := filepath.Join(dir, res[0].Registration.Manifest)
	parsed := strings.TrimSuffix(copyPath, ".man") + parsedSuffix
	if _, err := os.Stat(parsed); err != nil {
		t.Fatalf("no parsed form: %v", err)
	}
	want := mustRead(t, dir).Sets
	if len(want) != 2 || want[0].Set.NameIndex != res[0].Registration.Sets[0].NameIndex || want[1].Set.Counters[1].NameIndex != res[0].Registration.Sets[1].Counters[1].NameIndex {
		t.Fatalf("sets %+v do not carry the registered indexes %+v", want, res[0].Registration.Sets)
	}
	// The XML copy spoiled: the parsed form alone serves.
	os.WriteFile(copyPath, []byte("not xml"), 0o644)
	if st := mustRead(t, dir); len(st.Sets) != 2 || len(st.Problems) != 0 {
		t.Fatalf("with the parsed form only: %d sets, problems %v", len(st.Sets), st.Problems)
	}
	// The parsed form spoiled: the XML copy serves, and it is reported.
	os.WriteFile(copyPath, data, 0o644)
	for _, spoil := range spoiledParsedForms(t) {
		os.WriteFile(parsed, []byte(spoil), 0o644)
		st := mustRead(t, dir)
		if len(st.Sets) != 2 || len(st.Problems) != 1 || !strings.Contains(st.Problems[0].Error(), parsed) {
			t.Errorf("parsed form %q: %d sets, problems %v", spoil, len(st.Sets), st.Problems)
		}
	}
	// Without a parsed form (an older state directory): the XML, silently.
	os.Remove(parsed)
	if st := mustRead(t, dir); len(st.Sets) != 2 || len(st.Problems) != 0 {
		t.Errorf("without a parsed form: %d sets, problems %v", len(st.Sets), st.Problems)
	}
}

// TestTempFilesRemoved: temporary files a crash left are removed by the
// next write, under the lock; other files stay, and a temporary name that
// is a symbolic link is removed without touching its target.
func TestTempFilesRemoved(t *testing.T) {
	dir := t.TempDir()
	m, data := genManifest(t, guid(1), "P1", testSet{guid(0x11), "S1"})
	mustRegister(t, dir, m, data, RegisterOptions{})
	outside := filepath.Join(t.TempDir(), "keep")
	os.WriteFile(outside, []byte("x"), 0o644)
	leftovers := []string{".titles" + tempMarker + "0123", ".providers.json" + tempMarker + "ab", "manifests/.x.man" + tempMarker + "9"}
	for _, l := range leftovers {
		os.WriteFile(filepath.Join(dir, l), []byte("partial"), 0o644)
	}
	os.Symlink(outside, filepath.Join(dir, ".v1.json"+tempMarker+"77"))
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	m, data = genManifest(t, guid(2), "P2", testSet{guid(0x21), "S2"})
	mustRegister(t, dir, m, data, RegisterOptions{})
	for _, l := range append(leftovers, ".v1.json"+tempMarker+"77") {
		if _, err := os.Lstat(filepath.Join(dir, l)); err == nil {
			t.Errorf("%s left", l)
		}
	}
	for _, keep := range []string{outside, filepath.Join(dir, "notes.txt")} {
		if _, err := os.Stat(keep); err != nil {
			t.Errorf("%s removed", keep)
		}
	}
}

// TestWriteAtErrors: a write whose directory cannot be used reports it
// (the directory sync's error is returned the same way; no file system
// here makes fsync of a directory fail on demand).
func TestWriteAtErrors(t *testing.T) {
	d := &dir{path: t.TempDir(), fd: -1, mfd: -1, lock: -1}
	if err := d.write("x", []byte("y")); err == nil {
		t.Fatal("write through a closed directory descriptor succeeded")
	}
}

// TestSymlinkedFiles: a state directory that passes the checks but holds
// a symbolic link in place of one of its files or of manifests/ is
// refused, naming it, and nothing is read or removed through the link.
func TestSymlinkedFiles(t *testing.T) {
	for _, name := range []string{recordFile, titlesFile, v1File, lockFile, manifestDir} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			m, data := genManifest(t, guid(1), "P1", testSet{guid(0x11), "S1"})
			mustRegister(t, dir, m, data, RegisterOptions{})
			os.WriteFile(filepath.Join(dir, v1File), []byte(`{"version":1,"providers":[]}`), 0o644)
			victim := t.TempDir()
			vfile := filepath.Join(victim, guid(9)+"-000000000000.man")
			os.WriteFile(vfile, []byte("victim"), 0o644)
			target := filepath.Join(victim, "file")
			os.WriteFile(target, []byte("secret"), 0o600)
			if name == manifestDir {
				target = victim
			}
			p := filepath.Join(dir, name)
			os.RemoveAll(p)
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			_, rerr := Read(dir)
			var uerr error
			if name == v1File {
				uerr = UnregisterV1(dir, "x")
			} else {
				_, uerr = Unregister(dir, guid(1))
			}
			for _, err := range []error{rerr, uerr} {
				var te *TrustError
				if !errors.As(err, &te) || te.Path != p {
					t.Errorf("error %v; want %s refused as a symbolic link", err, p)
				}
			}
			if _, err := os.Stat(vfile); err != nil {
				t.Errorf("a file behind the link was removed: %v", err)
			}
		})
	}
}

// TestDirectoryModes: a state directory or file writable by other users,
// or a directory above it that is, is refused with the fix.
func TestDirectoryModes(t *testing.T) {
	tests := []struct {
		name   string
		mode   os.FileMode
		target string // "" = the state directory
		want   string
	}{
		{"world-writable directory", 0o777, "", "run: chmod 755 "},
		{"group-writable directory", 0o775, "", "run: chmod 755 "},
		{"world-writable registration file", 0o666, recordFile, "run: chmod 644 "},
		{"world-writable title database", 0o646, titlesFile, "run: chmod 644 "},
		{"world-writable manifests", 0o777, manifestDir, "run: chmod 755 "},
		{"sticky world-writable directory", os.ModeSticky | 0o777, "", "run: chmod 755 "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "state")
			m, data := genManifest(t, guid(1), "P1", testSet{guid(0x11), "S1"})
			mustRegister(t, dir, m, data, RegisterOptions{})
			p := filepath.Join(dir, tc.target)
			if err := os.Chmod(p, tc.mode); err != nil {
				t.Fatal(err)
			}
			_, err := Read(dir)
			if err == nil || !strings.Contains(err.Error(), "writable by other users") || !strings.Contains(err.Error(), tc.want+p) {
				t.Errorf("Read: %v; want %s refused with %q", err, p, tc.want+p)
			}
		})
	}
	// A writable directory above it.
	top := t.TempDir()
	dir := filepath.Join(top, "a", "state")
	m, data := genManifest(t, guid(1), "P1", testSet{guid(0x11), "S1"})
	mustRegister(t, dir, m, data, RegisterOptions{})
	os.Chmod(filepath.Join(top, "a"), 0o777)
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), filepath.Join(top, "a")) {
		t.Errorf("Read under a world-writable directory: %v", err)
	}
}

// TestV1Rules: a second V1 provider may not serve another's object or
// take its name in another case; names with control characters are
// refused; an ambiguous unlodctr /v1: (only possible in an older file)
// lists the candidates.
func TestV1Rules(t *testing.T) {
	sh, err := filepath.EvalSymlinks("/bin/sh")
	if err != nil {
		t.Skip(err)
	}
	if err := CheckExecutable(sh, os.Geteuid()); err != nil {
		t.Skipf("/bin/sh is not a trusted executable here: %v", err)
	}
	dir := t.TempDir()
	if err := RegisterV1(dir, V1Registration{Name: "widgets", Exec: sh, Objects: []uint32{9000}}, RegisterOptions{}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		reg  V1Registration
		want string
	}{
		{"same object", V1Registration{Name: "other", Exec: sh, Objects: []uint32{9000}}, "object 9000 is served by"},
		{"name in another case", V1Registration{Name: "Widgets", Exec: sh}, "differ in more than case"},
		{"control character", V1Registration{Name: "wid\ngets", Exec: sh}, "control character"},
		{"control character in a title", V1Registration{Name: "x", Exec: sh, Names: []V1Name{{Index: 9100, Name: "a\x07"}}}, "control character"},
		{"an update", V1Registration{Name: "widgets", Exec: sh, Objects: []uint32{9000, 9002}}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := RegisterV1(dir, tc.reg, RegisterOptions{})
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("RegisterV1: %v; want %q", err, tc.want)
			}
		})
	}
	// Two names differing in case, as an older perfc could register them.
	rec := `{"version": 1, "providers": [{"name": "dup", "exec": "` + sh + `"}, {"name": "DUP", "exec": "` + sh + `"}]}`
	os.WriteFile(filepath.Join(dir, v1File), []byte(rec), 0o644)
	if err := UnregisterV1(dir, "Dup"); err == nil || !strings.Contains(err.Error(), "2 V1 providers") {
		t.Fatalf("UnregisterV1(Dup) = %v; want the two listed", err)
	}
	if err := UnregisterV1(dir, "DUP"); err != nil {
		t.Fatalf("UnregisterV1(DUP): %v", err)
	}
	if regs, _, _ := ReadV1(dir); len(regs) != 1 || regs[0].Name != "dup" {
		t.Errorf("left %+v", regs)
	}
}

// TestTitles reads names without reading registrations, with the
// built-in names entered by the hook.
func TestTitles(t *testing.T) {
	builtin := func(db *titles.DB) error { _, err := db.Register("Linux Thing", ""); return err }
	db, err := Titles("", builtin)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := db.Index("Linux Thing"); !ok || db.Name(238) != "Processor" {
		t.Errorf("no state: Linux Thing %v, 238 %q", ok, db.Name(238))
	}
	dir := t.TempDir()
	m, data := genManifest(t, guid(1), "P1", testSet{guid(0x11), "Registered Set"})
	res := mustRegister(t, dir, m, data, RegisterOptions{Builtin: builtin})
	os.WriteFile(filepath.Join(dir, recordFile), []byte("{"), 0o644) // not read by Titles
	db, err = Titles(dir, builtin)
	if err != nil {
		t.Fatal(err)
	}
	if n := db.Name(res[0].Registration.Sets[0].NameIndex); n != "Registered Set" {
		t.Errorf("registered set's index holds %q", n)
	}
}

// spoiledParsedForms returns parsed forms a reader must refuse: of another
// provider, of another format version, of a set that fails validation,
// cut short, and not gob at all.
func spoiledParsedForms(t *testing.T) []string {
	enc := func(pc parsedCopy) string {
		var b bytes.Buffer
		if err := gob.NewEncoder(&b).Encode(pc); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	good := parsedCopy{Version: parsedFormat, Provider: guid(1), Manifest: "x", Sets: []*counterset.Set{{Name: "S1"}}}
	other := good
	other.Provider = guid(2)
	version := good
	version.Version = 7
	invalid := good
	invalid.Sets = []*counterset.Set{{Name: ""}}
	whole := enc(other)
	return []string{whole, enc(version), enc(invalid), whole[:len(whole)/2], "{"}
}

// TestSymlinkedStateDirectory: the state directory itself may not be a
// symbolic link, however its path is spelled.
func TestSymlinkedStateDirectory(t *testing.T) {
	real := filepath.Join(t.TempDir(), "real")
	m, data := genManifest(t, guid(1), "P1", testSet{guid(0x11), "S1"})
	mustRegister(t, real, m, data, RegisterOptions{})
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, link + "/", link + "/."} {
		_, err := Read(p)
		var te *TrustError
		if !errors.As(err, &te) || te.Path != link || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("Read(%q) = %v; want %s refused as a symbolic link", p, err, link)
		}
	}
}
