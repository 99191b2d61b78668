package engine

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/utf16le"
)

// fixedClock is a deterministic clock for block headers.
type fixedClock struct {
	wall  time.Time
	ticks int64
}

func (c *fixedClock) Wall() time.Time { return c.wall }
func (c *fixedClock) Ticks() int64    { return c.ticks }
func (c *fixedClock) Freq() int64     { return 1_000_000_000 }

func testSet(name string, index uint32, multi bool) *counterset.Set {
	inst := counterset.Single
	if multi {
		inst = counterset.Multiple
	}
	return &counterset.Set{
		Name: name, Help: name + " help", NameIndex: index, Instancing: inst, DefaultCounter: 0,
		Counters: []counterset.Counter{
			{Name: name + " Count", Help: "a count", Type: countertype.PERF_COUNTER_RAWCOUNT},
			{Name: name + " Bytes", Help: "bytes", Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT},
			{Name: name + " % Free", Help: "free", Type: countertype.PERF_RAW_FRACTION},
			{Name: name + " % Free", Help: "free", Type: countertype.PERF_RAW_BASE},
		},
	}
}

// objectFn returns a collect function writing n instances with values
// derived from their position, so tests can check them by hand.
func objectFn(n int, multi bool) func(*Collection, Writer) error {
	return func(_ *Collection, w Writer) error {
		if !multi {
			v := w.Single()
			v.Set(0, 7)
			v.Set(1, 1<<40)
			v.Set(2, 1)
			v.Set(3, 4)
			return nil
		}
		for i := range n {
			v := w.Instance("inst"+strconv.Itoa(i), 0, 0, -1)
			v.Set(0, uint64(i))
			v.Set(1, uint64(i)<<33)
			v.Set(2, uint64(i))
			v.Set(3, 10)
		}
		return nil
	}
}

func newTestEngine(t *testing.T) (*Engine, *fixedClock) {
	t.Helper()
	clk := &fixedClock{wall: time.Date(2026, 11, 22, 21, 0, 0, 123_000_000, time.UTC), ticks: 5_000_000_000}
	e := New(Options{SystemName: "TESTHOST", Clock: clk})
	proc := testSet("Process", 230, true)
	thread := testSet("Thread", 232, true)
	thread.Parent = "Process"
	costly := testSet("Costly Thing", 0, true)
	costly.Costly = true
	err := e.Add(
		Object{Set: testSet("Memory", 4, false), Collect: objectFn(0, false)},
		Object{Set: thread, Collect: objectFn(3, true)},
		Object{Set: proc, Collect: objectFn(2, true)},
		Object{Set: costly, Collect: objectFn(1, true)},
	)
	if err != nil {
		t.Fatal(err)
	}
	return e, clk
}

func objectIndexes(t *testing.T, block []byte) []uint32 {
	t.Helper()
	b, err := perfdata.Parse(block)
	if err != nil {
		t.Fatalf("engine wrote a block its own codec rejects: %v", err)
	}
	var out []uint32
	it := b.Objects()
	for it.Next() {
		out = append(out, it.Object().NameIndex())
	}
	return out
}

func TestQuerySelection(t *testing.T) {
	e, _ := newTestEngine(t)
	costly, _ := e.Titles().Index("Costly Thing")
	tests := []struct {
		value string
		want  []uint32
	}{
		{"Global", []uint32{4, 230, 232}}, // parents before children
		{"global", []uint32{4, 230, 232}},
		{"Costly", []uint32{costly}},
		{"4", []uint32{4}},
		{"232", []uint32{230, 232}}, // Thread brings Process
		{"230", []uint32{230}},
		{"232 4", []uint32{4, 230, 232}},
		{"9999", nil},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			r, err := e.QueryValue(context.Background(), tt.value)
			if err != nil {
				t.Fatal(err)
			}
			got := objectIndexes(t, r.Block)
			if len(got) != len(tt.want) {
				t.Fatalf("objects %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("objects %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestParseQueryErrors(t *testing.T) {
	for _, v := range []string{"", "   ", "Global x", "238 abc", "-1", "Foreign", "Counter 009 x"} {
		if _, err := ParseQuery(v); err == nil {
			t.Errorf("ParseQuery(%q) = nil error", v)
		}
	}
	q, err := ParseQuery("Foreign db7 238 2")
	if err != nil || q.Kind != QueryForeign || q.Host != "db7" || len(q.Indexes) != 2 {
		t.Errorf("Foreign query parsed as %+v, %v", q, err)
	}
}

func TestHeaderAndValues(t *testing.T) {
	e, clk := newTestEngine(t)
	r, err := e.QueryValue(context.Background(), "4 230")
	if err != nil {
		t.Fatal(err)
	}
	b, err := perfdata.Parse(r.Block)
	if err != nil {
		t.Fatal(err)
	}
	h := b.Header()
	if h.SystemName != "TESTHOST" || h.PerfTime != clk.ticks || h.PerfFreq != 1e9 {
		t.Errorf("header %+v", h)
	}
	// 2026-11-22 21:00:00.123 UTC as FILETIME, computed independently:
	// Unix seconds 1795381200 + 11644473600 = 13439854800 s since 1601.
	if want := int64(13439854800)*10_000_000 + 1_230_000; h.PerfTime100nSec != want {
		t.Errorf("PerfTime100nSec = %d, want %d", h.PerfTime100nSec, want)
	}
	st := h.SystemTime
	if st.Year != 2026 || st.Month != 11 || st.Day != 22 || st.Hour != 21 || st.Milliseconds != 123 || st.DayOfWeek != 0 {
		t.Errorf("SystemTime %+v", st)
	}
	// SYSTEMTIME is the writer's local time, as Windows writes it: the same
	// instant on a clock in UTC-4 reads 17:00, PerfTime100nSec stays UTC.
	e4 := New(Options{SystemName: "TESTHOST", Clock: &fixedClock{wall: clk.wall.In(time.FixedZone("EDT", -4*3600)), ticks: 1}})
	r4, err := e4.QueryValue(context.Background(), "Global")
	if err != nil {
		t.Fatal(err)
	}
	b4, err := perfdata.Parse(r4.Block)
	if err != nil {
		t.Fatal(err)
	}
	if h4 := b4.Header(); h4.SystemTime.Hour != 17 || h4.PerfTime100nSec != h.PerfTime100nSec {
		t.Errorf("in UTC-4: SystemTime %+v, PerfTime100nSec %d; want 17:00 local and the same UTC FILETIME", h4.SystemTime, h4.PerfTime100nSec)
	}
	mem, ok := b.Object(4)
	if !ok || !mem.SingleInstance() {
		t.Fatalf("Memory missing or not single-instance")
	}
	blk := mem.SingleBlock()
	if got := blk.Value(mem.Counter(1)); got != 1<<40 {
		t.Errorf("Memory bytes = %d", got)
	}
	if mem.BaseOf(2) != 3 {
		t.Errorf("base of %% Free = %d, want 3", mem.BaseOf(2))
	}
	if mem.Counter(3).NameIndex != mem.Counter(2).NameIndex {
		t.Errorf("base counter does not repeat its user's title index (Windows does)")
	}
	proc, _ := b.Object(230)
	var names []string
	it := proc.Instances()
	for it.Next() {
		in := it.Instance()
		names = append(names, in.Name())
		if in.Block().Value(proc.Counter(1)) != uint64(len(names)-1)<<33 {
			t.Errorf("instance %s value wrong", in.Name())
		}
	}
	if len(names) != 2 || names[0] != "inst0" || names[1] != "inst1" {
		t.Errorf("Process instances %v", names)
	}
}

func TestFailingProviderCostsOnlyItself(t *testing.T) {
	clk := &fixedClock{wall: time.Unix(1e9, 0), ticks: 1}
	e := New(Options{SystemName: "h", Clock: clk})
	boom := errors.New("boom")
	err := e.Add(
		Object{Set: testSet("Memory", 4, false), Collect: objectFn(0, false)},
		Object{Set: testSet("Broken", 0, true), Collect: func(_ *Collection, w Writer) error {
			w.Instance("half", 0, 0, -1).Set(0, 1)
			return boom
		}},
		Object{Set: testSet("Panicky", 0, true), Collect: func(_ *Collection, w Writer) error { panic("provider bug") }},
		Object{Set: testSet("Process", 230, true), Collect: objectFn(5, true)},
	)
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.QueryValue(context.Background(), "Global")
	if err != nil {
		t.Fatal(err)
	}
	got := objectIndexes(t, r.Block)
	if len(got) != 2 || got[0] != 4 || got[1] != 230 {
		t.Errorf("objects %v, want [4 230]", got)
	}
	if len(r.Problems) != 2 || !errors.Is(r.Problems[0].Err, boom) || r.Problems[1].Object != "Panicky" {
		t.Errorf("problems %v", r.Problems)
	}
}

func TestBufferProtocol(t *testing.T) {
	e, _ := newTestEngine(t)
	r, err := e.QueryValue(context.Background(), "Global")
	if err != nil {
		t.Fatal(err)
	}
	small := bytes.Repeat([]byte{0xAB}, len(r.Block)-1)
	orig := bytes.Clone(small)
	n, _, err := e.QueryValueInto(context.Background(), "Global", small)
	if !errors.Is(err, ErrMoreData) || n != 0 {
		t.Fatalf("small buffer: n=%d err=%v, want ErrMoreData", n, err)
	}
	if !bytes.Equal(small, orig) {
		t.Fatal("a too-small buffer was modified")
	}
	big := make([]byte, 2*len(r.Block))
	n, _, err = e.QueryValueInto(context.Background(), "Global", big)
	if err != nil || n != len(r.Block) {
		t.Fatalf("big buffer: n=%d err=%v", n, err)
	}
	if _, err := perfdata.Parse(big[:n]); err != nil {
		t.Fatal(err)
	}
}

func TestTitleLists(t *testing.T) {
	e, _ := newTestEngine(t)
	r, err := e.QueryValue(context.Background(), "Counter")
	if err != nil {
		t.Fatal(err)
	}
	list, err := utf16le.DecodeMultiSZ(r.Block)
	if err != nil {
		t.Fatal(err)
	}
	pairs := map[string]string{}
	for i := 0; i+1 < len(list); i += 2 {
		pairs[list[i]] = list[i+1]
	}
	if pairs["238"] != "Processor" || pairs["230"] != "Process" {
		t.Errorf("Counter list lacks English Windows' names: 238=%q 230=%q", pairs["238"], pairs["230"])
	}
	idx, ok := e.Titles().Index("Costly Thing Count")
	if !ok || pairs[strconv.Itoa(int(idx))] != "Costly Thing Count" {
		t.Errorf("registered counter name missing from the Counter list")
	}
	r, err = e.QueryValue(context.Background(), "Help")
	if err != nil {
		t.Fatal(err)
	}
	help, err := utf16le.DecodeMultiSZ(r.Block)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for i := 0; i+1 < len(help); i += 2 {
		if help[i] == strconv.Itoa(int(idx)+1) && help[i+1] == "a count" {
			found = true
		}
	}
	if !found {
		t.Errorf("help text of a registered counter missing from the Help list")
	}
}

func TestConcurrentQueries(t *testing.T) {
	e, _ := newTestEngine(t)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				v := "Global"
				if g%2 == 1 {
					v = "232"
				}
				r, err := e.QueryValue(context.Background(), v)
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := perfdata.Parse(r.Block); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestCollectionSeqOncePerQuery(t *testing.T) {
	var seen []uint64
	e := New(Options{SystemName: "h", Clock: &fixedClock{wall: time.Unix(1e9, 0)}})
	record := func(c *Collection, w Writer) error { seen = append(seen, c.Seq()); return objectFn(1, true)(c, w) }
	if err := e.Add(Object{Set: testSet("A", 0, true), Collect: record}, Object{Set: testSet("B", 0, true), Collect: record}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := e.QueryValue(context.Background(), "Global"); err != nil {
			t.Fatal(err)
		}
	}
	// Both objects of a query see the same sample number; queries differ.
	if want := []uint64{1, 1, 2, 2}; !slices.Equal(seen, want) {
		t.Errorf("sample numbers seen by collect functions %v, want %v", seen, want)
	}
}

// TestUnavailableValues: values a collect function could not read reach the
// result as title indexes of the counters, per instance position, and the
// object stays in the block.
func TestUnavailableValues(t *testing.T) {
	e := New(Options{SystemName: "h", Clock: &fixedClock{wall: time.Unix(1e9, 0)}})
	set := testSet("Process", 230, true)
	err := e.Add(Object{Set: set, Collect: func(c *Collection, w Writer) error {
		w.Instance("a", 0, 0, -1).Set(0, 1)
		w.Instance("b", 0, 0, -1).Set(0, 2)
		c.Unavailable(1, 2) // counters 1 and 2 of instance b
		w.Instance("c", 0, 0, -1).Set(0, 3)
		c.Unavailable() // every counter of instance c
		c.Partial("/proc/PID/io not readable")
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.Query(context.Background(), Query{Kind: QueryIndexes, Indexes: []uint32{230}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Partial) != 1 {
		t.Fatalf("partial %v, want one object", r.Partial)
	}
	p := r.Partial[0]
	if !strings.Contains(p.Error(), "/proc/PID/io not readable") {
		t.Errorf("reason lost: %v", p)
	}
	// The counters' title indexes as the engine assigned them: read them
	// back from the block rather than assuming the assignment.
	rd, err := perfdata.Parse(r.Block)
	if err != nil {
		t.Fatal(err)
	}
	it := rd.Objects()
	if !it.Next() {
		t.Fatal("no object in the block")
	}
	obj := it.Object()
	want := []Missing{
		{Instance: 1, Counters: []uint32{obj.Counter(1).NameIndex, obj.Counter(2).NameIndex}},
		{Instance: 2},
	}
	if len(p.Missing) != len(want) {
		t.Fatalf("missing %v, want %v", p.Missing, want)
	}
	for i := range want {
		if p.Missing[i].Instance != want[i].Instance || !slices.Equal(p.Missing[i].Counters, want[i].Counters) {
			t.Errorf("missing[%d] = %v, want %v", i, p.Missing[i], want[i])
		}
	}
}

func TestPartialObjectStays(t *testing.T) {
	e := New(Options{SystemName: "h", Clock: &fixedClock{wall: time.Unix(1e9, 0)}})
	err := e.Add(Object{Set: testSet("Process", 230, true), Collect: func(_ *Collection, w Writer) error {
		w.Instance("a", 0, 0, -1).Set(0, 1)
		return &PartialError{Reasons: []string{"3 processes: io unreadable"}}
	}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.QueryValue(context.Background(), "Global")
	if err != nil {
		t.Fatal(err)
	}
	if got := objectIndexes(t, r.Block); len(got) != 1 || got[0] != 230 {
		t.Fatalf("objects %v: a partial object must stay in the block", got)
	}
	if len(r.Problems) != 0 || len(r.Partial) != 1 || !strings.Contains(r.Partial[0].Error(), "io unreadable") {
		t.Errorf("problems %v, partial %v", r.Problems, r.Partial)
	}
}
