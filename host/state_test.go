package host

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/perfcounters/perfcounters/engine"
	"github.com/perfcounters/perfcounters/manifest"
	"github.com/perfcounters/perfcounters/perfdata"
	statedir "github.com/perfcounters/perfcounters/state"
	"github.com/perfcounters/perfcounters/titles"
)

// The registration API lives in the state package; these forward to it
// with the host's built-in names, so that the tests below read as before.
type (
	RegisterResult      = statedir.RegisterResult
	CounterRegistration = statedir.CounterRegistration
	V1Registration      = statedir.V1Registration
	V1Name              = statedir.V1Name
)

const stateTitlesFile = "titles"

func Register(dir string, m *manifest.Manifest, data []byte, source string) ([]RegisterResult, error) {
	return statedir.Register(dir, m, data, source, statedir.RegisterOptions{Builtin: BuiltinTitles})
}

func ReadRegistrations(dir string) ([]Registration, error) {
	regs, problems, err := statedir.ReadRegistrations(dir)
	if err == nil && len(problems) > 0 {
		err = errors.Join(problems...)
	}
	return regs, err
}

func Unregister(dir, key string) (*Registration, error) { return statedir.Unregister(dir, key) }

func RegisterV1(dir string, r V1Registration) error {
	return statedir.RegisterV1(dir, r, statedir.RegisterOptions{Builtin: BuiltinTitles})
}

func UnregisterV1(dir, name string) error { return statedir.UnregisterV1(dir, name) }

func ReadV1(dir string) ([]V1Registration, error) {
	regs, problems, err := statedir.ReadV1(dir)
	if err == nil && len(problems) > 0 {
		err = errors.Join(problems...)
	}
	return regs, err
}

// register parses a test manifest and registers it in dir.
func register(t *testing.T, dir, file string) []RegisterResult {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Parse(file, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Register(dir, m, data, file)
	if err != nil {
		t.Fatalf("Register(%s): %v", file, err)
	}
	return res
}

// openStateHost returns a host of the state directory whose segments live in seg.
func openStateHost(t *testing.T, state, seg string) *Host {
	t.Helper()
	h, err := New(Options{StateDir: state, SegmentDir: seg, MaxKeptFiles: 64})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// queryGlobal returns the result of a Global query of h and its block.
func queryGlobal(t *testing.T, h *Host) (*engine.Result, perfdata.Block) {
	t.Helper()
	r, err := h.QueryValue(context.Background(), "Global")
	if err != nil {
		t.Fatal(err)
	}
	b, err := perfdata.Parse(r.Block)
	if err != nil {
		t.Fatal(err)
	}
	return r, b
}

// globalIndexes returns the object title indexes of a Global query.
func globalIndexes(t *testing.T, h *Host) []uint32 {
	t.Helper()
	_, b := queryGlobal(t, h)
	var out []uint32
	for it := b.Objects(); it.Next(); {
		out = append(out, it.Object().NameIndex())
	}
	return out
}

func TestRegisterRoundTrip(t *testing.T) {
	state := t.TempDir()
	seg := t.TempDir() // no provider runs: no segments
	// Last Counter before any registration: English Windows' names plus
	// the built-in objects, as every host has them.
	before := openStateHost(t, "", seg).Titles()
	last := before.LastCounter()

	res := register(t, state, "testdata/v2test.man")
	if len(res) != 1 || res[0].Replaced != nil {
		t.Fatalf("results %+v, want one new registration", res)
	}
	// By hand from the rule: names at consecutive even indexes after Last
	// Counter in manifest order (set, then its counters in definition
	// order), a base repeating its user's index.
	L := last
	want := []SetRegistration{
		{GUID: "{0A1B2C3D-0000-4000-8000-000000000011}", Name: "Perfc Test Multi", NameIndex: L + 2, Counters: []CounterRegistration{
			{ID: 1, Name: "Hits", NameIndex: L + 4}, {ID: 2, Name: "Avg Time", NameIndex: L + 6}, {ID: 3, Name: "Avg Time Base", NameIndex: L + 6}, {ID: 4, Name: "Peak", NameIndex: L + 8}}},
		{GUID: "{0A1B2C3D-0000-4000-8000-000000000012}", Name: "Perfc Test Single", NameIndex: L + 10, Counters: []CounterRegistration{
			{ID: 1, Name: "Level", NameIndex: L + 12}}},
		{GUID: "{0A1B2C3D-0000-4000-8000-000000000013}", Name: "Perfc Test Global", NameIndex: L + 14, Counters: []CounterRegistration{
			{ID: 1, Name: "Count", NameIndex: L + 16}, {ID: 2, Name: "Low", NameIndex: L + 18}}},
	}
	got := res[0].Registration
	if got.GUID != "{0A1B2C3D-0000-4000-8000-000000000001}" || got.Name != "PerfcHostTest" {
		t.Errorf("provider %s %q", got.GUID, got.Name)
	}
	if !slices.EqualFunc(got.Sets, want, setEqual) {
		t.Fatalf("sets\n got %+v\nwant %+v", got.Sets, want)
	}

	// Persisted: the titles file and a fresh host agree.
	f, err := os.Open(filepath.Join(state, "titles"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := titles.Read(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if db.LastCounter() != L+18 {
		t.Errorf("persisted Last Counter %d, want %d", db.LastCounter(), L+18)
	}
	h := openStateHost(t, state, seg)
	for _, s := range want {
		if n := h.Titles().Name(s.NameIndex); n != s.Name {
			t.Errorf("host title %d = %q, want %q", s.NameIndex, n, s.Name)
		}
		if db.Name(s.NameIndex) != s.Name {
			t.Errorf("state title %d = %q, want %q", s.NameIndex, db.Name(s.NameIndex), s.Name)
		}
	}
	if h.Titles().Help(L+3) != "Multi-instance test set." || h.Titles().Help(L+7) != "Average time." {
		t.Errorf("help texts %q, %q", h.Titles().Help(L+3), h.Titles().Help(L+7))
	}
	// Built-in objects keep their indexes.
	for _, name := range []string{"Processor", "Process", "Process V2"} {
		i, _ := before.Index(name)
		if j, _ := h.Titles().Index(name); i != j || i == 0 {
			t.Errorf("%s: index %d without state, %d with", name, i, j)
		}
	}
	g := globalIndexes(t, h)
	for _, s := range want {
		if !slices.Contains(g, s.NameIndex) {
			t.Errorf("Global lacks %s (%d): %v", s.Name, s.NameIndex, g)
		}
	}

	// Re-registering the provider replaces it: the old names go, the new
	// set gets indexes after the new Last Counter.
	res = register(t, state, "testdata/v2test-replaced.man")
	if len(res) != 1 || res[0].Replaced == nil || res[0].Replaced.Sets[0].NameIndex != L+2 {
		t.Fatalf("re-registration %+v: want the first registration replaced", res)
	}
	// The old registration was at the top, so Last Counter fell back to L.
	wantR := []SetRegistration{{GUID: "{0A1B2C3D-0000-4000-8000-000000000021}", Name: "Perfc Test Replaced", NameIndex: L + 2,
		Counters: []CounterRegistration{{ID: 7, Name: "Things", NameIndex: L + 4}}}}
	if !slices.EqualFunc(res[0].Registration.Sets, wantR, setEqual) {
		t.Fatalf("replaced sets %+v, want %+v", res[0].Registration.Sets, wantR)
	}
	regs, err := ReadRegistrations(state)
	if err != nil || len(regs) != 1 {
		t.Fatalf("registrations %+v, %v", regs, err)
	}
	h2 := openStateHost(t, state, seg)
	for _, i := range []uint32{L + 6, L + 8, L + 10, L + 18} {
		if n := h2.Titles().Name(i); n != "" {
			t.Errorf("after replacement index %d still holds %q", i, n)
		}
	}
	if h2.Titles().Name(L+2) != "Perfc Test Replaced" || h2.Titles().LastCounter() != L+4 {
		t.Errorf("after replacement: %q at %d, Last Counter %d", h2.Titles().Name(L+2), L+2, h2.Titles().LastCounter())
	}
	if g := globalIndexes(t, h2); !slices.Contains(g, L+2) {
		t.Errorf("Global lacks the replaced set: %v", g)
	}
	copies, _ := filepath.Glob(filepath.Join(state, "manifests", "*.man"))
	if len(copies) != 1 || filepath.Join(state, regs[0].Manifest) != copies[0] {
		t.Errorf("manifest copies %v, record names %s", copies, regs[0].Manifest)
	}

	// Unregister by provider name: back to the built-ins.
	r, err := Unregister(state, "perfchosttest")
	if err != nil || r.GUID != "{0A1B2C3D-0000-4000-8000-000000000001}" {
		t.Fatalf("Unregister = %+v, %v", r, err)
	}
	if _, err := Unregister(state, "{0A1B2C3D-0000-4000-8000-000000000001}"); err == nil {
		t.Error("second Unregister succeeded")
	}
	h3 := openStateHost(t, state, seg)
	if h3.Titles().LastCounter() != L || h3.Titles().Name(L+2) != "" {
		t.Errorf("after unregistration: Last Counter %d (want %d), %q at %d", h3.Titles().LastCounter(), L, h3.Titles().Name(L+2), L+2)
	}
	if g := globalIndexes(t, h3); slices.Contains(g, L+2) {
		t.Errorf("Global still has %d", L+2)
	}
	if copies, _ := filepath.Glob(filepath.Join(state, "manifests", "*")); len(copies) != 0 {
		t.Errorf("manifest copies left: %v", copies)
	}
}

func setEqual(a, b SetRegistration) bool {
	return a.GUID == b.GUID && a.Name == b.Name && a.NameIndex == b.NameIndex && slices.Equal(a.Counters, b.Counters)
}

// Concurrent registrations of different providers serialise on the lock:
// none is lost and no index is given twice.
func TestRegisterConcurrent(t *testing.T) {
	state := t.TempDir()
	src, err := os.ReadFile("testdata/v2test-replaced.man")
	if err != nil {
		t.Fatal(err)
	}
	const n = 6
	var wg sync.WaitGroup
	errs := make([]error, n)
	for k := range n {
		wg.Go(func() {
			// Each copy is its own provider with its own set GUID and name.
			data := bytes.ReplaceAll(src, []byte("000000000001}"), []byte{'0', '0', '0', '0', '0', '0', '0', '0', '0', '1', '0', byte('0' + k), '}'})
			data = bytes.ReplaceAll(data, []byte("000000000021}"), []byte{'0', '0', '0', '0', '0', '0', '0', '0', '0', '2', '0', byte('0' + k), '}'})
			data = bytes.ReplaceAll(data, []byte("Perfc Test Replaced"), []byte{'S', 'e', 't', ' ', byte('0' + k)})
			data = bytes.ReplaceAll(data, []byte("Perfc.HostTest.Replaced\""), []byte{'u', 'r', 'i', byte('0' + k), '"'})
			m, err := manifest.Parse("gen.man", bytes.NewReader(data))
			if err != nil {
				errs[k] = err
				return
			}
			_, errs[k] = Register(state, m, data, "gen.man")
		})
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			t.Fatalf("registration %d: %v", k, err)
		}
	}
	regs, err := ReadRegistrations(state)
	if err != nil || len(regs) != n {
		t.Fatalf("%d registrations, %v; want %d", len(regs), err, n)
	}
	seen := map[uint32]bool{}
	h := openStateHost(t, state, t.TempDir())
	for _, r := range regs {
		for _, i := range r.Indexes() {
			if seen[i] {
				t.Errorf("index %d given twice", i)
			}
			seen[i] = true
		}
		if h.Titles().Name(r.Sets[0].NameIndex) != r.Sets[0].Name {
			t.Errorf("%s: title %d is %q", r.Sets[0].Name, r.Sets[0].NameIndex, h.Titles().Name(r.Sets[0].NameIndex))
		}
	}
}

// TestDamagedState checks that a damaged state file costs only what it
// describes: the host still starts and serves the built-in objects
// (\Memory), and the problem, logged, names the file and its repair.
func TestDamagedState(t *testing.T) {
	memory, ok := titles.English().Index("Memory")
	if !ok {
		t.Fatal("English has no Memory")
	}
	tests := []struct {
		name   string
		titles string
		record string
		want   string // in the log
	}{
		{"garbled titles", "not a titles file\n", "", "title database"},
		{"truncated record", "", `{"version": 1, "providers": [{"guid": "{0A1B`, "providers.json is damaged"},
		{"garbled record", "", "{", "providers.json is damaged"},
		{"record version", "", `{"version": 9, "providers": []}`, "format version 9"},
		{"bad entry", "", `{"version": 1, "providers": [{"guid": "x"}]}`, `entry 1`},
		{"record without titles", "", `{"version": 1, "providers": [{"guid": "{0A1B2C3D-0000-4000-8000-000000000001}", "manifest": "manifests/{0A1B2C3D-0000-4000-8000-000000000001}-0.man"}]}`, "is missing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.titles != "" {
				os.WriteFile(filepath.Join(dir, "titles"), []byte(tc.titles), 0o644)
			}
			if tc.record != "" {
				os.WriteFile(filepath.Join(dir, "providers.json"), []byte(tc.record), 0o644)
			}
			var log bytes.Buffer
			h, err := New(Options{StateDir: dir, SegmentDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(&log, nil))})
			if err != nil {
				t.Fatalf("New refused a damaged state directory: %v", err)
			}
			defer h.Close()
			if !slices.Contains(globalIndexes(t, h), memory) {
				t.Error("Memory is missing")
			}
			if !strings.Contains(log.String(), tc.want) || !strings.Contains(log.String(), dir) || !strings.Contains(log.String(), "repair") {
				t.Errorf("log %q does not name %q, the file and its repair", log.String(), tc.want)
			}
		})
	}
}

// FuzzStateDir feeds arbitrary title and record files to New: a damaged
// state directory is an error or is loaded, never a panic. Seeds are the
// files a real registration writes.
func FuzzStateDir(f *testing.F) {
	seed := f.TempDir()
	data, err := os.ReadFile("testdata/v2test.man")
	if err != nil {
		f.Fatal(err)
	}
	m, err := manifest.Parse("v2test.man", bytes.NewReader(data))
	if err != nil {
		f.Fatal(err)
	}
	if _, err := Register(seed, m, data, "v2test.man"); err != nil {
		f.Fatal(err)
	}
	tb, _ := os.ReadFile(filepath.Join(seed, "titles"))
	rb, _ := os.ReadFile(filepath.Join(seed, "providers.json"))
	copies, _ := filepath.Glob(filepath.Join(seed, "manifests", "*.man"))
	f.Add(tb, rb)
	f.Add(tb, []byte(`{"version":1,"providers":[{"guid":"{0A1B2C3D-0000-4000-8000-000000000001}","manifest":"../../etc/passwd","sets":[]}]}`))
	f.Add(tb, bytes.Replace(rb, []byte(`"index": 4`), []byte(`"index": 3`), 1))
	f.Fuzz(func(t *testing.T, titlesFile, record []byte) {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "manifests"), 0o755)
		for _, c := range copies {
			b, _ := os.ReadFile(c)
			os.WriteFile(filepath.Join(dir, "manifests", filepath.Base(c)), b, 0o644)
		}
		os.WriteFile(filepath.Join(dir, "titles"), titlesFile, 0o644)
		os.WriteFile(filepath.Join(dir, "providers.json"), record, 0o644)
		h, err := New(Options{StateDir: dir, SegmentDir: dir, MaxKeptFiles: 8, ProcRoot: dir, SysRoot: dir})
		if err != nil {
			return
		}
		h.Close()
	})
}
