package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/perfcounters/perfcounters/collect"
	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// realObjects returns the objects of a real block captured on Windows
// (perfdata/testdata/windows, see its PROVENANCE.md) without the
// PERF_DATA_BLOCK header: what a V1 provider of that object returns.
func realObjects(t testing.TB, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "perfdata", "testdata", "windows", file))
	if err != nil {
		t.Fatal(err)
	}
	blk, err := perfdata.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if blk.NumObjects() != 1 {
		t.Fatalf("%s: %d objects, want 1", file, blk.NumObjects())
	}
	return slices.Clone(blk.Bytes()[blk.Header().HeaderLength:])
}

const (
	memoryIndex = 4   // s01-0004-Memory.bin: single instance, 1736 bytes
	diskIndex   = 234 // s01-0234-PhysicalDisk.bin: 2 instances, 1752 bytes
)

// testProc is an in-process procedure whose Collect is a test function.
type testProc struct {
	collect func(ctx context.Context, name string, buf []byte) (int, uint32, error)
	opens   atomic.Int32
	closes  atomic.Int32
	closed  chan struct{} // receives one value per Close, if not nil
	calls   []string      // "size valueName" per Collect; read after the query returns
}

func (p *testProc) Open(context.Context) error { p.opens.Add(1); return nil }

func (p *testProc) Close() error {
	p.closes.Add(1)
	if p.closed != nil {
		p.closed <- struct{}{}
	}
	return nil
}

func (p *testProc) Collect(ctx context.Context, name string, buf []byte) (int, uint32, error) {
	p.calls = append(p.calls, fmt.Sprintf("%d %s", len(buf), name))
	return p.collect(ctx, name, buf)
}

// frontProc receives the whole guarded buffer (the engine's test seam), so
// it can write before the buffer it was given.
type frontProc struct {
	testProc
	full func(full []byte, off, size int) (int, uint32, error)
}

func (p *frontProc) collectGuarded(_ context.Context, _ string, full []byte, off, size int) (int, uint32, error) {
	return p.full(full, off, size)
}

// serve returns a collect function answering every query with objs.
func serve(objs []byte, k uint32) func(context.Context, string, []byte) (int, uint32, error) {
	return func(_ context.Context, _ string, buf []byte) (int, uint32, error) {
		if len(buf) < len(objs) {
			return 0, 0, perfdata.ErrMoreData
		}
		return copy(buf, objs), k, nil
	}
}

// syncBuffer is a log sink safe for the engine's background goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

const builtinIndex = 9000

// v1Engine returns an engine with one built-in object (index 9000), whose
// presence in every block shows that a failing procedure costs only itself.
func v1Engine(t testing.TB) (*Engine, *syncBuffer) {
	t.Helper()
	log := &syncBuffer{}
	e := New(Options{
		SystemName: "V1HOST",
		Clock:      &fixedClock{wall: time.Date(2026, 11, 22, 21, 0, 0, 0, time.UTC), ticks: 1},
		Logger:     slog.New(slog.NewTextHandler(log, nil)),
		Titles:     titles.New(),
	})
	set := &counterset.Set{
		Name: "Builtin Thing", Help: "a built-in object", NameIndex: builtinIndex, Instancing: counterset.Single,
		Counters: []counterset.Counter{{Name: "Things", Help: "things", NameIndex: builtinIndex + 2, Type: countertype.PERF_COUNTER_RAWCOUNT}},
	}
	err := e.Add(Object{Set: set, Collect: func(_ *Collection, w Writer) error { w.Single().Set(0, 42); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	return e, log
}

// query runs one query and returns the parsed block and the problems of
// procedure name.
func query(t testing.TB, e *Engine, valueName, name string) (perfdata.Block, []Problem) {
	t.Helper()
	r, err := e.QueryValue(context.Background(), valueName)
	if err != nil {
		t.Fatal(err)
	}
	blk, err := perfdata.Parse(r.Block)
	if err != nil {
		t.Fatalf("the engine emitted a block its reader rejects: %v", err)
	}
	if _, ok := blk.Object(builtinIndex); !ok && valueName == "Global" {
		t.Fatal("built-in object missing: a procedure's failure cost more than itself")
	}
	var ps []Problem
	for _, p := range r.Problems {
		if p.Provider != name {
			t.Fatalf("unexpected problem: %v", p)
		}
		ps = append(ps, p)
	}
	return blk, ps
}

// objectBytes returns the bytes of object idx in blk.
func objectBytes(blk perfdata.Block, idx uint32) ([]byte, bool) {
	o, ok := blk.Object(idx)
	if !ok {
		return nil, false
	}
	return o.Bytes(), true
}

func TestProcedureHappyPath(t *testing.T) {
	mem := realObjects(t, "s01-0004-Memory.bin")
	for level := 1; level <= 4; level++ {
		t.Run(fmt.Sprint("level", level), func(t *testing.T) {
			e, _ := v1Engine(t)
			p := &testProc{collect: serve(mem, 1)}
			if err := e.AddProcedure("mem", p, ProcedureOptions{TestLevel: level}); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				blk, ps := query(t, e, "Global", "mem")
				if len(ps) != 0 {
					t.Fatalf("problems: %v", ps)
				}
				got, ok := objectBytes(blk, memoryIndex)
				if !ok || !bytes.Equal(got, mem) {
					t.Fatal("the Memory object did not arrive byte for byte")
				}
				if blk.NumObjects() != 2 {
					t.Fatalf("%d objects, want the built-in and Memory", blk.NumObjects())
				}
			}
			if p.opens.Load() != 1 {
				t.Errorf("opened %d times, want once", p.opens.Load())
			}
		})
	}
}

// Each fault is committed by a procedure at every test level; want[level]
// is the error its problem must wrap, nil where the output is accepted.
func TestProcedureIntegrityLevels(t *testing.T) {
	mem := realObjects(t, "s01-0004-Memory.bin")
	disk := realObjects(t, "s01-0234-PhysicalDisk.bin")
	le := binary.LittleEndian

	// disk with 8 bytes of slack after its last instance, inside the object.
	slack := append(slices.Clone(disk), make([]byte, 8)...)
	le.PutUint32(slack[0:], uint32(len(slack)))
	// disk whose first instance claims to run past the object.
	overrun := slices.Clone(disk)
	le.PutUint32(overrun[le.Uint32(overrun[4:]):], 0x4000) // at DefinitionLength
	both := append(slices.Clone(mem), disk...)

	bad := ErrBadOutput // caught by the structural validation of every level
	tests := []struct {
		name  string
		write func(buf []byte) (int, uint32, error)
		front func(full []byte, off, size int) (int, uint32, error)
		want  [5]error
		index uint32 // object present when accepted
	}{
		{name: "byte count larger than written",
			write: func(b []byte) (int, uint32, error) { return copy(b, mem) + 64, 1, nil },
			want:  [5]error{1: perfdata.ErrTotalMismatch, 2: bad, 3: bad, 4: bad}},
		{name: "byte count smaller than written",
			write: func(b []byte) (int, uint32, error) { return copy(b, mem) - 8, 1, nil },
			want:  [5]error{1: perfdata.ErrObjectOverrun, 2: perfdata.ErrObjectOverrun, 3: bad, 4: bad}},
		{name: "byte count ends inside the rear guard",
			write: func(b []byte) (int, uint32, error) { copy(b, mem); return len(b) + 8, 1, nil },
			want:  [5]error{1: ErrBufferOverrun, 2: ErrBufferOverrun, 3: ErrBufferOverrun, 4: ErrBufferOverrun}},
		{name: "byte count ends past the rear guard",
			write: func(b []byte) (int, uint32, error) { copy(b, mem); return len(b) + GuardSize + 1, 1, nil },
			want:  [5]error{1: ErrBufferOverrun, 2: ErrBufferOverrun, 3: ErrBufferOverrun, 4: ErrBufferOverrun}},
		{name: "write past the end into the rear guard",
			write: func(b []byte) (int, uint32, error) {
				n := copy(b, mem)
				b[:cap(b)][len(b)+3] ^= 0xFF // an overrun, as append past len would do
				return n, 1, nil
			},
			want: [5]error{1: ErrGuardArea, 2: ErrGuardArea}, index: memoryIndex},
		{name: "write before the start into the front guard",
			front: func(full []byte, off, size int) (int, uint32, error) {
				full[off-5] ^= 0xFF
				return copy(full[off:off+size], mem), 1, nil
			},
			want: [5]error{1: ErrGuardArea, 2: ErrGuardArea}, index: memoryIndex},
		{name: "TotalByteLength sum below the byte count (object count too low)",
			write: func(b []byte) (int, uint32, error) { return copy(b, both), 1, nil },
			want:  [5]error{1: perfdata.ErrTotalMismatch, 2: bad, 3: bad, 4: bad}},
		{name: "object count too high",
			write: func(b []byte) (int, uint32, error) { return copy(b, mem), 2, nil },
			want:  [5]error{1: perfdata.ErrObjectOverrun, 2: perfdata.ErrObjectOverrun, 3: bad, 4: bad}},
		{name: "objects without an object count",
			write: func(b []byte) (int, uint32, error) { return copy(b, mem), 0, nil },
			want:  [5]error{1: perfdata.ErrCountMismatch, 2: perfdata.ErrCountMismatch, 3: bad, 4: bad}},
		{name: "instance ByteLength chain ends short of the object end",
			write: func(b []byte) (int, uint32, error) { return copy(b, slack), 1, nil },
			want:  [5]error{1: perfdata.ErrInstanceChain}, index: diskIndex},
		{name: "instance ByteLength runs past its object",
			write: func(b []byte) (int, uint32, error) { return copy(b, overrun), 1, nil },
			want:  [5]error{1: perfdata.ErrInstanceOverrun, 2: bad, 3: bad, 4: bad}},
	}
	for _, tt := range tests {
		for level := 1; level <= 4; level++ {
			t.Run(fmt.Sprintf("%s/level%d", tt.name, level), func(t *testing.T) {
				e, log := v1Engine(t)
				var p collect.Procedure
				if tt.front != nil {
					p = &frontProc{full: tt.front}
				} else {
					p = &testProc{collect: func(_ context.Context, _ string, b []byte) (int, uint32, error) { return tt.write(b) }}
				}
				opts := ProcedureOptions{TestLevel: level, BufferSize: 4096, MaxFailures: -1}
				if err := e.AddProcedure("faulty", p, opts); err != nil {
					t.Fatal(err)
				}
				blk, ps := query(t, e, "Global", "faulty")
				want := tt.want[level]
				if want == nil {
					if len(ps) != 0 {
						t.Fatalf("accepted at level %d expected, got %v", level, ps)
					}
					if _, ok := blk.Object(tt.index); !ok {
						t.Fatalf("object %d missing from the block", tt.index)
					}
					return
				}
				if len(ps) != 1 || !errors.Is(ps[0].Err, want) {
					t.Fatalf("problems = %v, want one wrapping %q", ps, want)
				}
				if want != bad && errors.Is(ps[0].Err, bad) {
					t.Fatalf("%v: caught by the structural validation, not by the level-%d test", ps[0].Err, level)
				}
				if blk.NumObjects() != 1 {
					t.Fatalf("%d objects: discarded output reached the block", blk.NumObjects())
				}
				if !strings.Contains(log.String(), "V1 provider sample discarded") || !strings.Contains(log.String(), "faulty") {
					t.Errorf("reason not logged; log:\n%s", log)
				}
			})
		}
	}
}

func TestProcedureSelection(t *testing.T) {
	mem := realObjects(t, "s01-0004-Memory.bin")
	tests := []struct {
		objects []uint32
		query   string
		call    string // value name the procedure receives; "" = not called
	}{
		{[]uint32{memoryIndex}, "Global", "Global"},
		{[]uint32{memoryIndex}, "costly", "Costly"},
		{[]uint32{memoryIndex}, "2 4", "2 4"},
		{[]uint32{memoryIndex}, "238", ""},
		{nil, "238", "238"}, // no object list: the procedure decides
		{[]uint32{memoryIndex}, "Counter", ""},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			e, _ := v1Engine(t)
			p := &testProc{collect: func(_ context.Context, name string, b []byte) (int, uint32, error) {
				if !collect.Supports(name, []uint32{memoryIndex}) {
					return 0, 0, nil
				}
				return copy(b, mem), 1, nil
			}}
			if err := e.AddProcedure("mem", p, ProcedureOptions{Objects: tt.objects}); err != nil {
				t.Fatal(err)
			}
			r, err := e.QueryValue(context.Background(), tt.query)
			if err != nil || len(r.Problems) != 0 {
				t.Fatal(err, r.Problems)
			}
			var got string
			if len(p.calls) == 1 {
				_, got, _ = strings.Cut(p.calls[0], " ")
			}
			if len(p.calls) > 1 || got != tt.call {
				t.Fatalf("calls %q, want value name %q", p.calls, tt.call)
			}
		})
	}
}

func TestProcedureNames(t *testing.T) {
	e, _ := v1Engine(t)
	names := []titles.Entry{{Index: 1500, Name: "My V1 Object", Help: "what it counts"}}
	p := &testProc{collect: serve(nil, 0)}
	if err := e.AddProcedure("mine", p, ProcedureOptions{Names: names}); err != nil {
		t.Fatal(err)
	}
	if got := e.Titles().Name(1500); got != "My V1 Object" {
		t.Errorf("name 1500 = %q", got)
	}
	if got := e.Titles().Help(1501); got != "what it counts" {
		t.Errorf("help 1501 = %q", got)
	}
	if err := e.AddProcedure("", p, ProcedureOptions{}); err == nil {
		t.Error("empty name accepted")
	}
	if err := e.AddProcedure("x", p, ProcedureOptions{TestLevel: 5}); err == nil {
		t.Error("test level 5 accepted")
	}
}

func TestProcedureMoreData(t *testing.T) {
	mem := realObjects(t, "s01-0004-Memory.bin") // 1736 bytes
	e, _ := v1Engine(t)
	p := &testProc{collect: serve(mem, 1)}
	if err := e.AddProcedure("mem", p, ProcedureOptions{TestLevel: 1, BufferSize: 256}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		blk, ps := query(t, e, "Global", "mem")
		if len(ps) != 0 {
			t.Fatal(ps)
		}
		if got, _ := objectBytes(blk, memoryIndex); !bytes.Equal(got, mem) {
			t.Fatal("Memory object missing after MORE")
		}
	}
	// 256 -> 512 -> 1024 -> 2048 fits; the next sample starts at 2048.
	want := []string{"256 Global", "512 Global", "1024 Global", "2048 Global", "2048 Global"}
	if !slices.Equal(p.calls, want) {
		t.Fatalf("calls %q, want %q", p.calls, want)
	}

	// Bounded: a procedure that always wants more fails at MaxBuffer.
	e, _ = v1Engine(t)
	greedy := &testProc{collect: func(context.Context, string, []byte) (int, uint32, error) { return 0, 0, perfdata.ErrMoreData }}
	if err := e.AddProcedure("greedy", greedy, ProcedureOptions{BufferSize: 256, MaxBuffer: 1000}); err != nil {
		t.Fatal(err)
	}
	_, ps := query(t, e, "Global", "greedy")
	if len(ps) != 1 || !errors.Is(ps[0].Err, perfdata.ErrMoreData) || !strings.Contains(ps[0].Err.Error(), "1000 bytes") {
		t.Fatalf("problems = %v", ps)
	}
	if want := []string{"256 Global", "512 Global", "1000 Global"}; !slices.Equal(greedy.calls, want) {
		t.Fatalf("calls %q, want %q", greedy.calls, want)
	}
}

func TestProcedurePanics(t *testing.T) {
	e, _ := v1Engine(t)
	p := &testProc{collect: func(context.Context, string, []byte) (int, uint32, error) { panic("sensor on fire") }}
	if err := e.AddProcedure("panicky", p, ProcedureOptions{}); err != nil {
		t.Fatal(err)
	}
	_, ps := query(t, e, "Global", "panicky")
	if len(ps) != 1 || !errors.Is(ps[0].Err, ErrProcPanic) || !strings.Contains(ps[0].Err.Error(), "sensor on fire") {
		t.Fatalf("problems = %v", ps)
	}
}

func TestProcedureHangs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := realObjects(t, "s01-0004-Memory.bin")
		e, _ := v1Engine(t)
		release := make(chan struct{})
		var hang atomic.Bool
		hang.Store(true)
		p := &testProc{collect: func(_ context.Context, _ string, b []byte) (int, uint32, error) {
			if hang.Load() {
				<-release // ignores its context: only the engine's timeout helps
			}
			return copy(b, mem), 1, nil
		}}
		const timeout = 50 * time.Millisecond
		if err := e.AddProcedure("hang", p, ProcedureOptions{Timeout: timeout, MaxFailures: 5}); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		blk, ps := query(t, e, "Global", "hang")
		if len(ps) != 1 || !errors.Is(ps[0].Err, ErrProcTimeout) {
			t.Fatalf("problems = %v, want a timeout", ps)
		}
		if _, ok := blk.Object(memoryIndex); ok {
			t.Fatal("abandoned output reached the block")
		}
		if d := time.Since(start); d > timeout { // fake time: exact
			t.Fatalf("query took %v with a %v timeout", d, timeout)
		}
		// The abandoned call has not returned: the procedure is skipped.
		_, ps = query(t, e, "Global", "hang")
		if len(ps) != 1 || !errors.Is(ps[0].Err, ErrProcBusy) {
			t.Fatalf("problems = %v, want busy", ps)
		}
		if s := e.Procedures(); len(s) != 1 || !s[0].Busy || s[0].Failures != 2 {
			t.Fatalf("status %+v", s)
		}
		// Once it returns, the next sample calls it again.
		hang.Store(false)
		close(release)
		synctest.Wait()
		blk, ps = query(t, e, "Global", "hang")
		if len(ps) != 0 {
			t.Fatalf("problems = %v", ps)
		}
		if _, ok := blk.Object(memoryIndex); !ok {
			t.Fatal("Memory object missing after recovery")
		}
		if p.opens.Load() != 1 {
			t.Fatalf("opened %d times; the late Open must be remembered", p.opens.Load())
		}
	})
}

// A procedure that honours its context returns the context's error; that is
// still reported as a timeout.
func TestProcedureTimeoutHonoured(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e, _ := v1Engine(t)
		p := &testProc{collect: func(ctx context.Context, _ string, _ []byte) (int, uint32, error) {
			<-ctx.Done()
			return 0, 0, ctx.Err()
		}}
		if err := e.AddProcedure("polite", p, ProcedureOptions{Timeout: time.Second}); err != nil {
			t.Fatal(err)
		}
		_, ps := query(t, e, "Global", "polite")
		if len(ps) != 1 || !errors.Is(ps[0].Err, ErrProcTimeout) {
			t.Fatalf("problems = %v, want a timeout", ps)
		}
	})
}

func TestProcedureDisableAndEnable(t *testing.T) {
	mem := realObjects(t, "s01-0004-Memory.bin")
	e, log := v1Engine(t)
	var broken atomic.Bool
	broken.Store(true)
	p := &testProc{closed: make(chan struct{}, 4), collect: func(_ context.Context, _ string, b []byte) (int, uint32, error) {
		if broken.Load() {
			return 0, 0, errors.New("device unplugged")
		}
		return copy(b, mem), 1, nil
	}}
	if err := e.AddProcedure("flaky", p, ProcedureOptions{MaxFailures: 3}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		_, ps := query(t, e, "Global", "flaky")
		if len(ps) != 1 || !strings.Contains(ps[0].Err.Error(), "device unplugged") {
			t.Fatalf("sample %d: problems = %v", i, ps)
		}
	}
	<-p.closed // disabling closes the procedure
	calls := len(p.calls)
	_, ps := query(t, e, "Global", "flaky")
	if len(ps) != 1 || !errors.Is(ps[0].Err, ErrProcDisabled) {
		t.Fatalf("problems = %v, want disabled", ps)
	}
	if len(p.calls) != calls {
		t.Fatal("a disabled procedure was called")
	}
	if !strings.Contains(log.String(), "V1 provider disabled") {
		t.Errorf("disabling not logged:\n%s", log)
	}

	// Re-enabled: opened again, collected again.
	broken.Store(false)
	if err := e.EnableProcedure("flaky"); err != nil {
		t.Fatal(err)
	}
	blk, ps := query(t, e, "Global", "flaky")
	if len(ps) != 0 {
		t.Fatalf("problems after enable = %v", ps)
	}
	if _, ok := blk.Object(memoryIndex); !ok {
		t.Fatal("Memory object missing after enable")
	}
	if p.opens.Load() != 2 {
		t.Fatalf("opened %d times, want 2 (once more after enable)", p.opens.Load())
	}

	// Disabled again, then brought back by re-registration.
	broken.Store(true)
	for range 3 {
		query(t, e, "Global", "flaky")
	}
	<-p.closed
	broken.Store(false)
	q := &testProc{collect: serve(mem, 1)}
	if err := e.AddProcedure("flaky", q, ProcedureOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, ps := query(t, e, "Global", "flaky"); len(ps) != 0 {
		t.Fatalf("problems after re-registration = %v", ps)
	}
	if err := e.RemoveProcedure(context.Background(), "flaky"); err != nil {
		t.Fatal(err)
	}
	if q.closes.Load() != 1 {
		t.Fatalf("removed procedure closed %d times", q.closes.Load())
	}
	if err := e.EnableProcedure("flaky"); err == nil {
		t.Fatal("enable of a removed procedure succeeded")
	}
}

// Out of process: the test binary itself serves as a Go provider
// (collect.Serve) when V1_TEST_CHILD is set.
func TestV1Child(t *testing.T) {
	mode := os.Getenv("V1_TEST_CHILD")
	if mode == "" {
		t.Skip("runs only as a provider child")
	}
	objs, err := os.ReadFile(os.Getenv("V1_TEST_OBJECTS"))
	if err != nil {
		os.Exit(2)
	}
	var p collect.Procedure = &testProc{collect: func(ctx context.Context, name string, b []byte) (int, uint32, error) {
		if !collect.Supports(name, []uint32{memoryIndex}) {
			return 0, 0, nil
		}
		return serve(objs, 1)(ctx, name, b)
	}}
	if mode == "hang" { // never answers COLLECT: only a kill ends it
		p = &testProc{collect: func(context.Context, string, []byte) (int, uint32, error) {
			time.Sleep(time.Hour)
			return 0, 0, nil
		}}
	}
	if mode == "crash" {
		p = &testProc{collect: func(context.Context, string, []byte) (int, uint32, error) {
			os.Stdout.WriteString("OK 1736 1\n" + strings.Repeat("x", 100))
			os.Exit(3)
			return 0, 0, nil
		}}
	}
	if err := collect.Serve(os.Stdin, os.Stdout, p); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

func childProvider(t *testing.T, mode string, objs []byte) *collect.Process {
	t.Helper()
	file := filepath.Join(t.TempDir(), "objects.bin")
	if err := os.WriteFile(file, objs, 0o600); err != nil {
		t.Fatal(err)
	}
	p := collect.Exec(os.Args[0], "-test.run=^TestV1Child$")
	p.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0", "V1_TEST_CHILD="+mode, "V1_TEST_OBJECTS="+file)
	return p
}

func TestProcedureOutOfProcess(t *testing.T) {
	mem := realObjects(t, "s01-0004-Memory.bin")
	file := filepath.Join(t.TempDir(), "memory.bin")
	if err := os.WriteFile(file, mem, 0o600); err != nil {
		t.Fatal(err)
	}
	procs := map[string]func(t *testing.T) collect.Procedure{
		"go helper": func(t *testing.T) collect.Procedure { return childProvider(t, "serve", mem) },
		"shell script": func(t *testing.T) collect.Procedure {
			sh, err := exec.LookPath("sh")
			if err != nil {
				t.Skip("no POSIX shell:", err)
			}
			return collect.Exec(sh, filepath.Join("..", "collect", "testdata", "fixed-provider.sh"), file, "4")
		},
	}
	for name, mk := range procs {
		t.Run(name, func(t *testing.T) {
			e, _ := v1Engine(t)
			if err := e.AddProcedure("ext", mk(t), ProcedureOptions{TestLevel: 1, BufferSize: 1024}); err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{"Global", "4", "2 4 238"} {
				blk, ps := query(t, e, q, "ext")
				if len(ps) != 0 {
					t.Fatalf("%s: problems %v", q, ps)
				}
				if got, _ := objectBytes(blk, memoryIndex); !bytes.Equal(got, mem) {
					t.Fatalf("%s: Memory object did not arrive byte for byte", q)
				}
			}
			blk, ps := query(t, e, "238", "ext")
			if len(ps) != 0 || blk.NumObjects() != 0 {
				t.Fatalf("238: %d objects, problems %v; want none", blk.NumObjects(), ps)
			}
			if err := e.RemoveProcedure(context.Background(), "ext"); err != nil {
				t.Fatalf("remove: %v", err)
			}
		})
	}
}

func TestProcedureOutOfProcessCrash(t *testing.T) {
	mem := realObjects(t, "s01-0004-Memory.bin")
	e, _ := v1Engine(t)
	if err := e.AddProcedure("crashy", childProvider(t, "crash", mem), ProcedureOptions{TestLevel: 1}); err != nil {
		t.Fatal(err)
	}
	_, ps := query(t, e, "Global", "crashy")
	if len(ps) != 1 || !strings.Contains(ps[0].Err.Error(), "unexpected EOF") {
		t.Fatalf("problems = %v, want the crash mid-response", ps)
	}
	// Within its restart backoff the provider is not started again; the
	// sample fails fast and the rest of the block arrives.
	_, ps = query(t, e, "Global", "crashy")
	if len(ps) != 1 || !errors.Is(ps[0].Err, collect.ErrRestartBackoff) {
		t.Fatalf("problems = %v, want the backoff", ps)
	}
	t.Cleanup(func() { e.RemoveProcedure(context.Background(), "crashy") })
}

// Whatever a procedure returns, at whatever level, the engine neither
// panics nor emits a block its reader rejects, and the built-in object
// survives.
func FuzzProcedureOutput(f *testing.F) {
	mem := realObjects(f, "s01-0004-Memory.bin")
	disk := realObjects(f, "s01-0234-PhysicalDisk.bin")
	f.Add(mem, uint32(1), 0, uint8(4))
	f.Add(disk, uint32(1), 0, uint8(3))
	f.Add(append(slices.Clone(mem), disk...), uint32(2), 0, uint8(2))
	f.Add(mem[:100], uint32(1), 8, uint8(1))
	f.Add(append(slices.Clone(mem), withIndex(mem, builtinIndex)...), uint32(2), 0, uint8(1))
	f.Add(append(slices.Clone(mem), mem...), uint32(2), 0, uint8(4))
	f.Fuzz(func(t *testing.T, out []byte, k uint32, extra int, level uint8) {
		e, _ := v1Engine(t)
		p := &testProc{collect: func(_ context.Context, _ string, b []byte) (int, uint32, error) {
			return copy(b, out) + extra, k, nil
		}}
		opts := ProcedureOptions{TestLevel: int(level%4) + 1, BufferSize: 8192, MaxFailures: -1}
		if err := e.AddProcedure("fuzz", p, opts); err != nil {
			t.Fatal(err)
		}
		blk, _ := query(t, e, "Global", "fuzz")
		// No object twice, and the built-in one is the engine's own.
		idx := indexesIn(blk)
		if len(idx) == 0 || idx[0] != builtinIndex {
			t.Fatalf("block objects %v: the built-in object is not first", idx)
		}
		if len(slices.Compact(slices.Sorted(slices.Values(idx)))) != len(idx) {
			t.Fatalf("block objects %v: an object appears twice", idx)
		}
	})
}

func BenchmarkProcedureCollect(b *testing.B) {
	disk := realObjects(b, "s01-0234-PhysicalDisk.bin")
	for _, level := range []int{1, 4} {
		b.Run(fmt.Sprint("level", level), func(b *testing.B) {
			e, _ := v1Engine(b)
			p := &testProc{collect: serve(disk, 1)}
			if err := e.AddProcedure("disk", p, ProcedureOptions{TestLevel: level, Objects: []uint32{diskIndex}}); err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			b.SetBytes(int64(len(disk)))
			for b.Loop() {
				p.calls = p.calls[:0]
				if _, err := e.QueryValue(ctx, "234"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// withIndex returns a copy of the object obj with ObjectNameTitleIndex x
// (offset 12 of PERF_OBJECT_TYPE, winperf-constants.md §4).
func withIndex(obj []byte, x uint32) []byte {
	c := slices.Clone(obj)
	binary.LittleEndian.PutUint32(c[12:], x)
	return c
}

// indexesIn lists the object title indexes of blk in order.
func indexesIn(blk perfdata.Block) []uint32 {
	var out []uint32
	for it := blk.Objects(); it.Next(); {
		out = append(out, it.Object().NameIndex())
	}
	return out
}

// A procedure delivers only its own objects: a copy of the built-in object,
// another procedure's object, an object outside its list and a second copy
// of its own are dropped with a reason naming it and the object; the rest
// of its output is kept, and the sample does not count as failed.
func TestProcedureForeignObjects(t *testing.T) {
	mem := realObjects(t, "s01-0004-Memory.bin")
	const otherIndex, strayIndex = 238, 5000
	tests := []struct {
		name    string
		objects []uint32 // the procedure's list
		out     [][]byte
		want    []uint32 // indexes in the block after the built-in
		dropped []uint32
		is      error
		reason  string
	}{
		{name: "own object", objects: []uint32{memoryIndex}, out: [][]byte{mem},
			want: []uint32{memoryIndex}},
		{name: "copy of the built-in object", objects: []uint32{memoryIndex}, out: [][]byte{mem, withIndex(mem, builtinIndex)},
			want: []uint32{memoryIndex}, dropped: []uint32{builtinIndex}, is: ErrForeignObject, reason: "it is the built-in object Builtin Thing"},
		{name: "another provider's object", objects: []uint32{memoryIndex}, out: [][]byte{withIndex(mem, otherIndex), mem},
			want: []uint32{memoryIndex}, dropped: []uint32{otherIndex}, is: ErrForeignObject, reason: "it is an object of V1 provider other"},
		{name: "unregistered object", objects: []uint32{memoryIndex}, out: [][]byte{mem, withIndex(mem, strayIndex)},
			want: []uint32{memoryIndex}, dropped: []uint32{strayIndex}, is: ErrForeignObject, reason: "it registered 4"},
		{name: "own object twice", objects: []uint32{memoryIndex}, out: [][]byte{mem, mem},
			want: []uint32{memoryIndex}, dropped: []uint32{memoryIndex}, is: ErrDuplicateObject},
		{name: "no list: built-in dropped, others kept", out: [][]byte{withIndex(mem, builtinIndex), withIndex(mem, strayIndex)},
			want: []uint32{strayIndex}, dropped: []uint32{builtinIndex}, is: ErrForeignObject, reason: "built-in object"},
		{name: "nothing of its own", objects: []uint32{memoryIndex}, out: [][]byte{withIndex(mem, builtinIndex)},
			dropped: []uint32{builtinIndex}, is: ErrForeignObject},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, log := v1Engine(t)
			other := &testProc{collect: serve(nil, 0)}
			if err := e.AddProcedure("other", other, ProcedureOptions{Objects: []uint32{otherIndex}}); err != nil {
				t.Fatal(err)
			}
			out := slices.Concat(tt.out...)
			p := &testProc{collect: serve(out, uint32(len(tt.out)))}
			opts := ProcedureOptions{Objects: tt.objects, TestLevel: 1, Names: []titles.Entry{{Index: memoryIndex, Name: "Memory"}}}
			if err := e.AddProcedure("mine", p, opts); err != nil {
				t.Fatal(err)
			}
			for sample := range 2 {
				blk, ps := query(t, e, "Global", "mine")
				if got, want := indexesIn(blk), append([]uint32{builtinIndex}, tt.want...); !slices.Equal(got, want) {
					t.Fatalf("sample %d: block objects %v, want %v", sample, got, want)
				}
				if o, _ := blk.Object(builtinIndex); o.SingleBlock().Value(o.Counter(0)) != 42 {
					t.Fatal("the built-in object was replaced")
				}
				if len(ps) != len(tt.dropped) {
					t.Fatalf("sample %d: problems %v, want drops of %v", sample, ps, tt.dropped)
				}
				for i, p := range ps {
					msg := p.Error()
					if p.NameIndex != tt.dropped[i] || !errors.Is(p.Err, tt.is) || !strings.Contains(msg, tt.reason) ||
						!strings.HasPrefix(msg, "V1 provider mine: object ") || !strings.Contains(msg, fmt.Sprint(tt.dropped[i])) {
						t.Errorf("problem %q (index %d), want object %d dropped: %v, %q", msg, p.NameIndex, tt.dropped[i], tt.is, tt.reason)
					}
				}
			}
			if s := e.Procedures(); s[1].Failures != 0 {
				t.Errorf("dropping foreign objects counted as %d failures", s[1].Failures)
			}
			if got := strings.Count(log.String(), "V1 provider object dropped"); got != len(tt.dropped) {
				t.Errorf("drops logged %d times over 2 samples, want once per object (%d):\n%s", got, len(tt.dropped), log)
			}
		})
	}
}

// An Objects list may not claim another source's object.
func TestProcedureObjectsClaim(t *testing.T) {
	e, _ := v1Engine(t)
	if err := e.AddProcedure("a", &testProc{collect: serve(nil, 0)}, ProcedureOptions{Objects: []uint32{238}}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		objects []uint32
		wantErr string
	}{
		{"b", []uint32{builtinIndex}, `V1 provider "b": object 9000 is the built-in object Builtin Thing`},
		{"b", []uint32{4, 238}, `V1 provider "b": object 238 is an object of V1 provider a`},
		{"a", []uint32{238, 4}, ""}, // a replaces itself
		{"b", []uint32{6}, ""},
	}
	for _, tt := range tests {
		err := e.AddProcedure(tt.name, &testProc{collect: serve(nil, 0)}, ProcedureOptions{Objects: tt.objects})
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("AddProcedure(%s, %v) = %v, want %q", tt.name, tt.objects, err, tt.wantErr)
		}
	}
}

// Every kind of failure reaches the Result as the provider's: one Problem
// per object of the provider the query asked for, named by its title index,
// reading "V1 provider NAME: object ...", and is logged once, not once per
// sample.
func TestProcedureFailureProblems(t *testing.T) {
	mem := realObjects(t, "s01-0004-Memory.bin")
	const second = 5000
	tests := []struct {
		name    string
		collect func(ctx context.Context, name string, b []byte) (int, uint32, error)
		max     int // MaxFailures
		is      error
		logMsg  string
	}{
		{name: "error", collect: func(context.Context, string, []byte) (int, uint32, error) {
			return 0, 0, errors.New("device unplugged")
		},
			max: -1, logMsg: "device unplugged"},
		{name: "timeout", collect: func(ctx context.Context, _ string, _ []byte) (int, uint32, error) {
			<-ctx.Done()
			return 0, 0, ctx.Err()
		}, max: -1, is: ErrProcTimeout, logMsg: "V1 provider sample discarded"},
		{name: "integrity", collect: func(_ context.Context, _ string, b []byte) (int, uint32, error) { return copy(b, mem) - 8, 1, nil },
			max: -1, is: perfdata.ErrObjectOverrun, logMsg: "V1 provider sample discarded"},
		{name: "panic", collect: func(context.Context, string, []byte) (int, uint32, error) { panic("sensor on fire") },
			max: -1, is: ErrProcPanic, logMsg: "sensor on fire"},
		{name: "disabled", collect: func(context.Context, string, []byte) (int, uint32, error) { return 0, 0, errors.New("gone") },
			max: 1, is: ErrProcDisabled, logMsg: "V1 provider disabled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e, log := v1Engine(t)
				opts := ProcedureOptions{Objects: []uint32{memoryIndex, second}, TestLevel: 1, MaxFailures: tt.max, Timeout: time.Second,
					Names: []titles.Entry{{Index: memoryIndex, Name: "Memory"}, {Index: second, Name: "Widgets"}}}
				if err := e.AddProcedure("legacy", &testProc{collect: tt.collect}, opts); err != nil {
					t.Fatal(err)
				}
				queries := []struct {
					q    string
					want []uint32
				}{{"Global", []uint32{memoryIndex, second}}, {"5000 238", []uint32{second}}, {"Global", []uint32{memoryIndex, second}}}
				for _, qq := range queries {
					_, ps := query(t, e, qq.q, "legacy")
					synctest.Wait() // a call abandoned at its timeout returns
					if len(ps) != len(qq.want) {
						t.Fatalf("%s: problems %v, want one per object %v", qq.q, ps, qq.want)
					}
					for i, p := range ps {
						name := map[uint32]string{memoryIndex: "Memory", second: "Widgets"}[qq.want[i]]
						prefix := fmt.Sprintf("V1 provider legacy: object %s (%d): ", name, qq.want[i])
						if p.NameIndex != qq.want[i] || !strings.HasPrefix(p.Error(), prefix) {
							t.Errorf("%s: problem %q, want it to start %q", qq.q, p.Error(), prefix)
						}
					}
				}
				_, ps := query(t, e, "Global", "legacy")
				if tt.is != nil && !errors.Is(ps[0].Err, tt.is) {
					t.Errorf("problem %v, want %v", ps[0], tt.is)
				}
				if n := strings.Count(log.String(), tt.logMsg); n != 1 {
					t.Errorf("%q logged %d times over 4 samples, want once:\n%s", tt.logMsg, n, log)
				}
			})
		})
	}
}

// An out-of-process provider that hangs costs each query its timeout, and
// repeated failures disable it as for any procedure; every failure is
// reported as that provider's.
func TestProcedureOutOfProcessHang(t *testing.T) {
	mem := realObjects(t, "s01-0004-Memory.bin")
	e, _ := v1Engine(t)
	const timeout = 300 * time.Millisecond
	opts := ProcedureOptions{TestLevel: 1, Timeout: timeout, MaxFailures: 3, Objects: []uint32{memoryIndex}}
	if err := e.AddProcedure("hung", childProvider(t, "hang", mem), opts); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.RemoveProcedure(context.Background(), "hung") })
	var errs []error
	for i := 0; i < 3; i++ {
		start := time.Now()
		_, ps := query(t, e, "Global", "hung")
		if d := time.Since(start); d > 2*time.Second { // loose upper bound: a real process
			t.Errorf("query %d took %v with a %v timeout", i, d, timeout)
		}
		if len(ps) != 1 || ps[0].NameIndex != memoryIndex {
			t.Fatalf("query %d: problems %v, want one for object %d", i, ps, memoryIndex)
		}
		errs = append(errs, ps[0].Err)
	}
	if !errors.Is(errs[0], ErrProcTimeout) {
		t.Errorf("first failure %v, want the timeout", errs[0])
	}
	if s := e.Procedures(); !s[0].Disabled {
		t.Fatalf("after 3 failures (%v): status %+v, want disabled", errs, s[0])
	}
	_, ps := query(t, e, "Global", "hung")
	if len(ps) != 1 || !errors.Is(ps[0].Err, ErrProcDisabled) || !strings.HasPrefix(ps[0].Error(), "V1 provider hung: ") {
		t.Fatalf("problems %v, want disabled", ps)
	}
}

// A provider that repeats an object many times gets one copy into the
// block and a bounded number of Problems.
func TestProcedureManyDrops(t *testing.T) {
	mem := realObjects(t, "s01-0004-Memory.bin")
	const copies = 100
	out := bytes.Repeat(mem, copies)
	e, _ := v1Engine(t)
	p := &testProc{collect: serve(out, copies)}
	if err := e.AddProcedure("loud", p, ProcedureOptions{Objects: []uint32{memoryIndex}, TestLevel: 1, BufferSize: len(out)}); err != nil {
		t.Fatal(err)
	}
	blk, ps := query(t, e, "Global", "loud")
	if got := indexesIn(blk); !slices.Equal(got, []uint32{builtinIndex, memoryIndex}) {
		t.Fatalf("block objects %v", got)
	}
	if len(ps) != maxDropProblems+1 {
		t.Fatalf("%d problems for %d dropped copies, want %d", len(ps), copies-1, maxDropProblems+1)
	}
	if last := ps[len(ps)-1].Error(); !strings.Contains(last, fmt.Sprintf("%d further objects", copies-1-maxDropProblems)) {
		t.Errorf("last problem %q, want the number of the others", last)
	}
}

// The cost of filtering a provider's output is linear in its size: time
// and allocations per object stay flat as the number of copies grows.
func BenchmarkProcedureDrops(b *testing.B) {
	mem := realObjects(b, "s01-0004-Memory.bin")
	for _, copies := range []int{16, 256, 4096} {
		b.Run(fmt.Sprint(copies), func(b *testing.B) {
			out := bytes.Repeat(mem, copies)
			e, _ := v1Engine(b)
			p := &testProc{collect: serve(out, uint32(copies))}
			opts := ProcedureOptions{Objects: []uint32{memoryIndex}, TestLevel: 4, BufferSize: len(out), MaxBuffer: len(out)}
			if err := e.AddProcedure("loud", p, opts); err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			b.SetBytes(int64(len(out)))
			for b.Loop() {
				p.calls = p.calls[:0]
				if _, err := e.QueryValue(ctx, "Global"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
