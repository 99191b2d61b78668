package host

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/perfcounters/perfcounters/shm/shmtest"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/engine"
	"github.com/perfcounters/perfcounters/internal/asuser"
	"github.com/perfcounters/perfcounters/manifest"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/provider"
	statedir "github.com/perfcounters/perfcounters/state"
)

// sample is one object of a block: rows by instance name ("" for a
// single-instance object), values by counter definition index.
type sample struct {
	single bool
	names  []string // instance order
	rows   map[string][]uint64
}

func collectObject(t *testing.T, h *Host, index uint32) sample {
	t.Helper()
	r, b := queryGlobal(t, h)
	o, ok := b.Object(index)
	if !ok {
		t.Fatalf("Global has no object %d (problems %v)", index, r.Problems)
	}
	return readObject(o)
}

func readObject(o perfdata.Object) sample {
	defs := o.AppendCounters(nil)
	row := func(cb perfdata.CounterBlock) []uint64 {
		var v []uint64
		for _, d := range defs {
			v = append(v, cb.Value(d))
		}
		return v
	}
	s := sample{single: o.SingleInstance(), rows: map[string][]uint64{}}
	if s.single {
		s.rows[""] = row(o.SingleBlock())
		return s
	}
	for it := o.Instances(); it.Next(); {
		in := it.Instance()
		s.names = append(s.names, in.Name())
		s.rows[in.Name()] = row(in.Block())
	}
	return s
}

// registerTestSets registers testdata/v2test.man in the state directory
// state and returns the name indexes of its counter sets by name.
func registerTestSets(t *testing.T, state string) map[string]uint32 {
	t.Helper()
	idx := map[string]uint32{}
	for _, s := range register(t, state, "testdata/v2test.man")[0].Registration.Sets {
		idx[s.Name] = s.NameIndex
	}
	return idx
}

// startProvider starts the test provider guid with its segment in dir;
// it is closed when the test ends.
func startProvider(t *testing.T, dir, guid string) *provider.Provider {
	t.Helper()
	p, err := provider.Start(guid, provider.Options{Dir: dir, MaxInstances: 16, HeapSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// addSet adds the counter set def to p.
func addSet(t *testing.T, p *provider.Provider, def *counterset.Set) *provider.Set {
	t.Helper()
	s, err := p.AddSet(def)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// testSets returns the counter sets of v2test.man, by name.
func testSets(t *testing.T) map[string]*counterset.Set {
	t.Helper()
	m, err := manifest.ParseFile("testdata/v2test.man")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*counterset.Set{}
	for _, s := range m.Providers[0].CounterSets {
		out[s.Name] = s
	}
	return out
}

// logBuffer is a slog handler's destination safe for the engine's use.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestV2Collection publishes the test sets from providers in this process
// and reads them through the host: instances of every provider, _Total
// and global aggregates by each counter's function (computed by hand
// below), counters matched by id whatever order a provider publishes
// them in, and a provider whose set contradicts its registration left out.
func TestV2Collection(t *testing.T) {
	seg := shmtest.Dir(t)
	state := t.TempDir()
	idx := registerTestSets(t, state)
	var logs logBuffer
	h, err := New(Options{StateDir: state, SegmentDir: seg, MaxKeptFiles: 64, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()

	// No provider runs: the multi-instance set has no instances, the
	// single-instance sets one block of zeros.
	multi := collectObject(t, h, idx["Perfc Test Multi"])
	if multi.single || len(multi.names) != 1 || multi.names[0] != "_Total" || !slices.Equal(multi.rows["_Total"], []uint64{0, 0, 0, 0}) {
		t.Errorf("multi without providers: %+v, want only a zero _Total", multi)
	}
	// Their zeros are placeholders: the result marks every value of the
	// one instance unavailable, and says why.
	r, err := h.QueryValue(context.Background(), "Global")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Perfc Test Single", "Perfc Test Global"} {
		s := collectObject(t, h, idx[name])
		if !s.single || slices.ContainsFunc(s.rows[""], func(v uint64) bool { return v != 0 }) {
			t.Errorf("%s without providers: %+v, want one block of placeholders", name, s)
		}
		i := slices.IndexFunc(r.Partial, func(p engine.Problem) bool { return p.NameIndex == idx[name] })
		if i < 0 {
			t.Errorf("%s without providers: not reported as partial (partial: %v)", name, r.Partial)
			continue
		}
		p := r.Partial[i]
		if len(p.Missing) != 1 || p.Missing[0].Instance != -1 || len(p.Missing[0].Counters) != 0 || !strings.Contains(p.Err.Error(), "provider not running") {
			t.Errorf("%s without providers: partial %+v, want every value of the single instance missing because the provider is not running", name, p)
		}
	}
	if i := slices.IndexFunc(r.Partial, func(p engine.Problem) bool { return p.NameIndex == idx["Perfc Test Multi"] }); i >= 0 {
		t.Errorf("multi-instance set without providers reported partial: %v", r.Partial[i])
	}

	sets := testSets(t)
	instance := func(s *provider.Set, name string, vals map[uint32]uint64) {
		in := s.Single()
		if in == nil {
			var err error
			if in, err = s.CreateInstance(name, 0); err != nil {
				t.Fatal(err)
			}
		}
		for id, v := range vals {
			if err := in.Set(id, v); err != nil {
				t.Fatal(err)
			}
		}
	}

	// Provider A (its segment sorts first: same pid, lower GUID).
	a := startProvider(t, seg, "{0A1B2C3D-0000-4000-8000-0000000000A1}")
	ma := addSet(t, a, sets["Perfc Test Multi"])
	instance(ma, "a", map[uint32]uint64{1: 5, 2: 300, 3: 3, 4: 7})
	instance(ma, "b", map[uint32]uint64{1: 2, 2: 100, 3: 1, 4: 9})
	instance(addSet(t, a, sets["Perfc Test Single"]), "", map[uint32]uint64{1: 42})
	instance(addSet(t, a, sets["Perfc Test Global"]), "", map[uint32]uint64{1: 10, 2: 4})

	// Provider B publishes the multi set with its counters in another
	// order; the host must match them by id.
	b := startProvider(t, seg, "{0A1B2C3D-0000-4000-8000-0000000000B2}")
	reordered := *sets["Perfc Test Multi"]
	c := reordered.Counters // Hits, Avg Time, Avg Time Base, Peak
	reordered.Counters = []counterset.Counter{c[3], c[1], c[2], c[0]}
	instance(addSet(t, b, &reordered), "c", map[uint32]uint64{1: 1, 2: 50, 3: 1, 4: 3})
	instance(addSet(t, b, sets["Perfc Test Single"]), "", map[uint32]uint64{1: 99})
	instance(addSet(t, b, sets["Perfc Test Global"]), "", map[uint32]uint64{1: 5, 2: 2})

	// Provider C publishes the global set with a counter of another type:
	// its numbers would be misread, so they are left out.
	cp := startProvider(t, seg, "{0A1B2C3D-0000-4000-8000-0000000000C3}")
	wrong := *sets["Perfc Test Global"]
	wrong.Counters = slices.Clone(wrong.Counters)
	wrong.Counters[1].Type = countertype.PERF_COUNTER_LARGE_RAWCOUNT
	instance(addSet(t, cp, &wrong), "", map[uint32]uint64{1: 1000, 2: 0})

	for round := range 2 {
		multi = collectObject(t, h, idx["Perfc Test Multi"])
		// Definition order: Hits, Avg Time, Avg Time Base, Peak.
		want := map[string][]uint64{
			"a":      {5, 300, 3, 7},
			"b":      {2, 100, 1, 9},
			"c":      {1, 50, 1, 3},
			"_Total": {5 + 2 + 1, 300 + 100 + 50, 3 + 1 + 1, 9}, // sum, sum, sum, max
		}
		if !slices.Equal(multi.names, []string{"a", "b", "c", "_Total"}) {
			t.Errorf("round %d: instances %v", round, multi.names)
		}
		for name, w := range want {
			if !slices.Equal(multi.rows[name], w) {
				t.Errorf("round %d: instance %s = %v, want %v", round, name, multi.rows[name], w)
			}
		}
		if s := collectObject(t, h, idx["Perfc Test Single"]); !slices.Equal(s.rows[""], []uint64{42}) {
			t.Errorf("round %d: single = %v, want the first provider's 42", round, s.rows[""])
		}
		if s := collectObject(t, h, idx["Perfc Test Global"]); !slices.Equal(s.rows[""], []uint64{10 + 5, min(4, 2)}) {
			t.Errorf("round %d: global = %v, want [15 2] (C left out)", round, s.rows[""])
		}
	}
	if n := strings.Count(logs.String(), "does not match its registration"); n != 1 {
		t.Errorf("mismatch logged %d times over two samples, want once:\n%s", n, logs.String())
	}

	// A provider that closes leaves the data at the next collection.
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	multi = collectObject(t, h, idx["Perfc Test Multi"])
	if !slices.Equal(multi.names, []string{"c", "_Total"}) || !slices.Equal(multi.rows["_Total"], []uint64{1, 50, 1, 3}) {
		t.Errorf("after A closed: %v %v", multi.names, multi.rows["_Total"])
	}
	if s := collectObject(t, h, idx["Perfc Test Single"]); !slices.Equal(s.rows[""], []uint64{99}) {
		t.Errorf("after A closed: single = %v, want B's 99", s.rows[""])
	}
}

// All sets of one sample share one scan of the segment directory.
func TestV2OneScanPerSample(t *testing.T) {
	v := newV2Source(t.TempDir(), slog.New(slog.DiscardHandler))
	defer v.close()
	first := v.scanned
	v.scan(1)
	s1 := v.scanned
	v.scan(1)
	if v.scanned != s1 || s1 == first {
		t.Fatalf("second scan in one sample: scanned %d then %d", s1, v.scanned)
	}
	v.scan(2)
	if v.scanned == s1 {
		t.Fatal("a new sample did not scan again")
	}
}

// TestAttackSpoofedSet: bob publishes segments carrying the counter sets
// that root registered (no publishers named: root only): a fake instance
// under the real instance's name, a fake single-instance value, and his
// segment's owner pid rewritten to 1 so it sorts first. The consumer must
// show root's data only and report bob's once. Registering bob as a
// publisher then lets his data in. Before: any user's segment with the
// set's GUID was merged in, and pid 1 won the single-instance value.
func TestAttackSpoofedSet(t *testing.T) {
	if _, ok := asuser.Step(); ok {
		base := os.Getenv("BASE")
		// testdata/ as the parent copied it where bob may read it: the
		// checkout itself may be closed to other users (a 0700 home).
		if err := os.Chdir(os.Getenv("PKGDIR")); err != nil {
			t.Fatal(err)
		}
		sets := testSets(t)
		p := startProvider(t, base, "{0A1B2C3D-0000-4000-8000-0000000000EE}")
		m := addSet(t, p, sets["Perfc Test Multi"])
		for _, name := range []string{"real", "fake"} {
			in, err := m.CreateInstance(name, 0)
			if err != nil {
				t.Fatal(err)
			}
			in.Set(1, 666)
		}
		addSet(t, p, sets["Perfc Test Single"]).Single().Set(1, 666)
		// Claim to be pid 1, with its start time (world-readable), so that
		// this segment sorts first and passes the owner checks.
		stat, err := os.ReadFile("/proc/1/stat")
		if err != nil {
			t.Fatal(err)
		}
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		start, err := strconv.ParseUint(fields[19], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(p.Path(), os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		var hdr [16]byte
		binary.LittleEndian.PutUint32(hdr[0:], 1)     // owner pid, offset 32
		binary.LittleEndian.PutUint64(hdr[8:], start) // owner start time, offset 40
		if _, err := f.WriteAt(hdr[:], 32); err != nil {
			t.Fatal(err)
		}
		f.Close()
		fmt.Println("READY", p.Path())
		io.Copy(io.Discard, os.Stdin)
		return
	}
	r := asuser.New(t)
	base := shmtest.Dir(t)
	if err := os.Chmod(base, os.ModeSticky|0o777); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	idx := registerTestSets(t, state)
	sets := testSets(t)
	p := startProvider(t, base, "{0A1B2C3D-0000-4000-8000-0000000000A1}")
	m := addSet(t, p, sets["Perfc Test Multi"])
	in, err := m.CreateInstance("real", 0)
	if err != nil {
		t.Fatal(err)
	}
	in.Set(1, 5)
	addSet(t, p, sets["Perfc Test Single"]).Single().Set(1, 42)

	// Bob reads the test manifest from a copy in the shared directory: the
	// checkout may be closed to other users.
	pkgDir := filepath.Join(r.SharedDir(), "host")
	if err := os.MkdirAll(filepath.Join(pkgDir, "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	man, err := os.ReadFile("testdata/v2test.man")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkgDir, "testdata", "v2test.man"), man, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := r.Command(asuser.Bob, "TestAttackSpoofedSet", "spoof", "BASE="+base, "PKGDIR="+pkgDir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	var bobSeg string
	var said strings.Builder
	for sc := bufio.NewScanner(stdout); sc.Scan(); {
		said.WriteString(sc.Text() + "\n")
		if rest, ok := strings.CutPrefix(sc.Text(), "READY "); ok {
			bobSeg = rest
			break
		}
	}
	if bobSeg == "" {
		t.Fatalf("bob's provider did not start:\n%s", said.String())
	}
	go io.Copy(io.Discard, stdout)

	var logs logBuffer
	h, err := New(Options{StateDir: state, SegmentDir: base, MaxKeptFiles: 64, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for round := range 2 {
		multi := collectObject(t, h, idx["Perfc Test Multi"])
		if !slices.Equal(multi.names, []string{"real", "_Total"}) || multi.rows["real"][0] != 5 || multi.rows["_Total"][0] != 5 {
			t.Errorf("round %d: multi %v %v; want root's instance only (Hits 5)", round, multi.names, multi.rows)
		}
		if s := collectObject(t, h, idx["Perfc Test Single"]); !slices.Equal(s.rows[""], []uint64{42}) {
			t.Errorf("round %d: single = %v, want root's 42, not bob's 666", round, s.rows[""])
		}
	}
	if n := strings.Count(logs.String(), bobSeg+" (uid 61002)"); n != 2 {
		t.Errorf("bob's segment reported %d times over two samples, want once per set (2):\n%s", n, logs.String())
	}
	h.Close()

	// Registered as a publisher (lodctr /u:), bob's data is taken.
	parsed, err := manifest.Parse("testdata/v2test.man", bytes.NewReader(man))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := statedir.Register(state, parsed, man, "testdata/v2test.man",
		statedir.RegisterOptions{Builtin: BuiltinTitles, Publishers: []uint32{0, asuser.Bob.UID}}); err != nil {
		t.Fatal(err)
	}
	h2, err := New(Options{StateDir: state, SegmentDir: base, MaxKeptFiles: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close()
	multi := collectObject(t, h2, idx["Perfc Test Multi"])
	if len(multi.names) != 4 || multi.rows["_Total"][0] != 5+666+666 {
		t.Errorf("bob registered: multi %v %v; want root's and bob's instances", multi.names, multi.rows)
	}
}

// TestV2OutOfDescriptors: when the consumer runs out of descriptors while
// reading segments, the registered sets fail with that reason: never shown
// as absent providers or as valid zeros.
func TestV2OutOfDescriptors(t *testing.T) {
	seg := shmtest.Dir(t)
	state := t.TempDir()
	idx := registerTestSets(t, state)
	p := startProvider(t, seg, "{0A1B2C3D-0000-4000-8000-0000000000A1}")
	addSet(t, p, testSets(t)["Perfc Test Single"]).Single().Set(1, 42)
	h, err := New(Options{StateDir: state, SegmentDir: seg, MaxKeptFiles: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if s := collectObject(t, h, idx["Perfc Test Single"]); !slices.Equal(s.rows[""], []uint64{42}) {
		t.Fatalf("single = %v, want 42", s.rows[""])
	}

	// Fill every free descriptor below the highest open one, and allow
	// none above it.
	top := 0
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil {
			top = max(top, n)
		}
	}
	var fill []*os.File
	defer func() {
		for _, f := range fill {
			f.Close()
		}
	}()
	for {
		f, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		if int(f.Fd()) > top {
			f.Close()
			break
		}
		fill = append(fill, f)
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	low := lim
	low.Cur = uint64(top + 1)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	r, qerr := h.QueryValue(context.Background(), "Global")
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	if qerr != nil {
		t.Fatal(qerr)
	}
	i := slices.IndexFunc(r.Problems, func(p engine.Problem) bool { return p.NameIndex == idx["Perfc Test Single"] })
	if i < 0 || !strings.Contains(r.Problems[i].Err.Error(), "too many open files") {
		t.Errorf("out of descriptors: problems %v, partial %v; want Perfc Test Single failed with too many open files", r.Problems, r.Partial)
	}
}
