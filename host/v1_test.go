package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/internal/proctest"

	"github.com/perfcounters/perfcounters/engine"
	"github.com/perfcounters/perfcounters/perfdata"
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

// TestV1HungProviderGroup: a registered V1 provider with timeoutMs 500 hangs
// while a process it started holds its stdout. The query costs about its
// timeout (not the 5.5 s it cost when the engine waited for the pipe), the
// failure reaches the Result as that provider's, the process it started
// dies with it, and closing the host does not wait for anything.
func TestV1HungProviderGroup(t *testing.T) {
	sh, script := providerScript(t, "forking-provider.sh")
	pidfile := filepath.Join(t.TempDir(), "grandchild.pid")
	state := t.TempDir()
	obj := lastCounter(t, state) + 2
	reg := V1Registration{Name: "hung", Exec: sh, Args: []string{script, pidfile, "collect"}, Objects: []uint32{obj},
		Names: []V1Name{{Index: obj, Name: "Hung Widgets", Help: ""}}, TimeoutMS: 500}
	if err := RegisterV1(state, reg); err != nil {
		t.Fatal(err)
	}
	h, err := New(Options{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			h.Close()
		}
	}()
	ctx := context.Background()
	q := fmt.Sprint(obj)
	// First query: the provider starts its grandchild and answers "none".
	// Starting a shell, HELLO, OPEN and COLLECT must fit in the 500 ms.
	if r, err := h.QueryValue(ctx, q); err != nil {
		t.Fatal(err)
	} else if len(r.Problems) == 1 && errors.Is(r.Problems[0].Err, engine.ErrProcTimeout) {
		t.Skipf("this machine could not start the provider in 500 ms: %v", r.Problems[0])
	} else if len(r.Problems) != 0 {
		t.Fatalf("first query: %v", r.Problems)
	}
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatal(err)
	}
	grandchild, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || grandchild <= 1 {
		t.Fatalf("grandchild pid %q", b)
	}
	t.Cleanup(func() { syscall.Kill(grandchild, syscall.SIGKILL) }) // only if the test failed

	// Second query: the provider hangs.
	start := time.Now()
	r, err := h.QueryValue(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a query with a 500 ms timeout took %v", d)
	}
	if len(r.Problems) != 1 {
		t.Fatalf("problems %v, want the provider's timeout", r.Problems)
	}
	p := r.Problems[0]
	if p.Provider != "hung" || p.NameIndex != obj || !errors.Is(p.Err, engine.ErrProcTimeout) ||
		!strings.HasPrefix(p.Error(), fmt.Sprintf("V1 provider hung: object Hung Widgets (%d): ", obj)) {
		t.Errorf("problem %q (provider %q, index %d), want the provider's timeout on object %d", p, p.Provider, p.NameIndex, obj)
	}
	if !proctest.Exited(t, grandchild, 2*time.Second) {
		t.Errorf("the process the provider started (%d) outlived its timeout", grandchild)
	}
	start = time.Now()
	h.Close()
	closed = true
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("closing the host took %v", d)
	}
}

// TestV1ImpersonationDropped: a registered V1 provider that returns a copy
// of the built-in Memory object (captured on Windows: perfdata/testdata/
// windows, see its PROVENANCE.md) instead of its own object does not get it
// into the block: the block's Memory is the host's, once, and the copy is
// reported as that provider's problem.
func TestV1ImpersonationDropped(t *testing.T) {
	sh, script := providerScript(t, "fixed-provider.sh")
	raw, err := os.ReadFile(filepath.Join("..", "perfdata", "testdata", "windows", "s01-0004-Memory.bin"))
	if err != nil {
		t.Fatal(err)
	}
	blk, err := perfdata.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	fake, _ := blk.Object(4)
	objFile := filepath.Join(t.TempDir(), "memory.bin")
	if err := os.WriteFile(objFile, fake.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	own := lastCounter(t, state) + 2
	// It serves its file for Global and for its own index.
	reg := V1Registration{Name: "fake", Exec: sh, Args: []string{script, objFile, fmt.Sprint(own)}, Objects: []uint32{own},
		Names: []V1Name{{Index: own, Name: "Fake Widgets", Help: ""}}}
	if err := RegisterV1(state, reg); err != nil {
		t.Fatal(err)
	}
	h, err := New(Options{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	r, got := queryGlobal(t, h)
	memories := 0
	for it := got.Objects(); it.Next(); {
		if o := it.Object(); o.NameIndex() == 4 {
			memories++
			if bytes.Equal(o.Bytes(), fake.Bytes()) {
				t.Error("the provider's copy of Memory reached the block")
			}
		}
	}
	if memories != 1 {
		t.Errorf("%d Memory objects in the block, want the host's only", memories)
	}
	var found bool
	for _, p := range r.Problems {
		if p.Provider == "fake" && p.NameIndex == 4 && errors.Is(p.Err, engine.ErrForeignObject) &&
			strings.HasPrefix(p.Error(), "V1 provider fake: object Memory (4): ") && strings.Contains(p.Error(), "built-in object Memory") {
			found = true
		}
	}
	if !found {
		t.Errorf("problems %v, want the copy of Memory reported as provider fake's", r.Problems)
	}
}
