package host

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/titles"
)

// stateTitles reads the title database persisted in a state directory,
// directly from its file, as a later process would.
func stateTitles(t *testing.T, dir string) *titles.DB {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, stateTitlesFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	db, err := titles.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// lastCounter is Last Counter of a fresh host's title database.
func lastCounter(t *testing.T, dir string) uint32 {
	t.Helper()
	h, err := New(Options{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	return h.Titles().LastCounter()
}

// TestV1NamesPersisted checks that a V1 provider's names go into the
// state's title database: a manifest registered afterwards gets indexes
// past them (it would otherwise take the provider's indexes and the
// provider would be left out), and unregistering takes them out again.
func TestV1NamesPersisted(t *testing.T) {
	sh, err := executable("/bin/sh")
	if err != nil {
		t.Skip(err)
	}
	state := t.TempDir()
	base := lastCounter(t, state)
	obj := base + 2 // the first index a manifest would get
	reg := V1Registration{Name: "legacy", Exec: sh, Objects: []uint32{obj},
		Names: []V1Name{{Index: obj, Name: "Legacy Widgets", Help: "Widgets."}, {Index: obj + 2, Name: "Widgets Made", Help: "How many."}}}
	if err := RegisterV1(state, reg); err != nil {
		t.Fatal(err)
	}
	db := stateTitles(t, state)
	if db.Name(obj) != "Legacy Widgets" || db.Help(obj+3) != "How many." || db.LastCounter() != obj+2 {
		t.Fatalf("persisted: %q %q, Last Counter %d (want %d)", db.Name(obj), db.Help(obj+3), db.LastCounter(), obj+2)
	}

	res := register(t, state, "testdata/v2test.man")
	for _, i := range res[0].Registration.Indexes() {
		if i <= obj+2 {
			t.Errorf("manifest got index %d, at or below the V1 provider's %d", i, obj+2)
		}
	}
	h, err := New(Options{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	procs := h.Procedures()
	h.Close()
	if len(procs) != 1 || procs[0].Name != "legacy" {
		t.Fatalf("procedures after a manifest registration: %+v", procs)
	}

	if err := UnregisterV1(state, "legacy"); err != nil {
		t.Fatal(err)
	}
	db = stateTitles(t, state)
	if db.Name(obj) != "" || db.Name(obj+2) != "" || db.Help(obj+1) != "" {
		t.Errorf("after UnregisterV1: %q %q %q", db.Name(obj), db.Name(obj+2), db.Help(obj+1))
	}
	// The manifest's names are untouched.
	for _, i := range res[0].Registration.Indexes() {
		if db.Name(i) == "" {
			t.Errorf("manifest index %d lost its name", i)
		}
	}
}

// TestV1NamesShared replaces a registration (renaming its own index) and
// has two providers share a name: the shared one stays until both leave.
func TestV1NamesShared(t *testing.T) {
	sh, err := executable("/bin/sh")
	if err != nil {
		t.Skip(err)
	}
	state := t.TempDir()
	x := lastCounter(t, state) + 100
	a := V1Registration{Name: "a", Exec: sh, Names: []V1Name{{Index: x, Name: "Shared", Help: ""}, {Index: x + 2, Name: "A Only", Help: "old help"}}}
	b := V1Registration{Name: "b", Exec: sh, Names: []V1Name{{Index: x, Name: "shared", Help: ""}}}
	for _, r := range []V1Registration{a, b} {
		if err := RegisterV1(state, r); err != nil {
			t.Fatal(err)
		}
	}
	// Replacing a renames its own index and changes its help.
	a.Names[1] = V1Name{Index: x + 2, Name: "A Renamed", Help: "new help"}
	if err := RegisterV1(state, a); err != nil {
		t.Fatal(err)
	}
	if db := stateTitles(t, state); db.Name(x+2) != "A Renamed" || db.Help(x+3) != "new help" {
		t.Errorf("after replacing: %q %q", db.Name(x+2), db.Help(x+3))
	}
	// c may not take b's shared index under another name.
	c := V1Registration{Name: "c", Exec: sh, Names: []V1Name{{Index: x, Name: "Other", Help: ""}}}
	if err := RegisterV1(state, c); err == nil || !strings.Contains(err.Error(), `already names "Shared"`) {
		t.Errorf("clashing name: %v", err)
	}

	tests := []struct {
		remove string
		want   map[uint32]string
	}{
		{"a", map[uint32]string{x: "Shared", x + 2: ""}},
		{"b", map[uint32]string{x: "", x + 2: ""}},
	}
	for _, tt := range tests {
		t.Run("remove "+tt.remove, func(t *testing.T) {
			if err := UnregisterV1(state, tt.remove); err != nil {
				t.Fatal(err)
			}
			db := stateTitles(t, state)
			for i, want := range tt.want {
				if got := db.Name(i); got != want {
					t.Errorf("name %d = %q, want %q", i, got, want)
				}
			}
		})
	}
	regs, err := ReadV1(state)
	if err != nil || len(regs) != 0 {
		t.Errorf("ReadV1 = %+v, %v", regs, err)
	}
}

// TestV1StandardNameRefused: listing a standard name, even spelt as it is,
// would let UnregisterV1 take it away; it is refused and nothing changes.
func TestV1StandardNameRefused(t *testing.T) {
	sh, err := executable("/bin/sh")
	if err != nil {
		t.Skip(err)
	}
	state := t.TempDir()
	reg := V1Registration{Name: "p", Exec: sh, Names: []V1Name{{Index: 238, Name: "Processor", Help: ""}}}
	if err := RegisterV1(state, reg); err == nil || !strings.Contains(err.Error(), `index 238 already names "Processor"`) {
		t.Fatalf("RegisterV1: %v", err)
	}
	if regs, _ := ReadV1(state); slices.ContainsFunc(regs, func(r V1Registration) bool { return r.Name == "p" }) {
		t.Error("refused registration was stored")
	}
}
