package perfdata

import (
	"math"
	"reflect"
	"testing"
	"time"

	ct "github.com/perfcounters/perfcounters/countertype"
)

func testHeader() Header {
	return Header{
		DefaultObject:   238,
		SystemTime:      SystemTime{2007, 8, 2, 14, 15, 40, 38, 659},
		PerfTime:        7178903079,
		PerfFreq:        3579545,
		PerfTime100nSec: 128315940386596596,
		SystemName:      "ZACH-PC",
	}
}

func TestRoundTrip(t *testing.T) {
	mixed := []CounterSpec{
		{NameIndex: 6, HelpIndex: 7, DetailLevel: 100, Type: ct.PERF_100NSEC_TIMER_INV, Size: 8},
		{NameIndex: 148, HelpIndex: 149, DetailLevel: 100, Type: ct.PERF_COUNTER_COUNTER, Size: 4},
		{NameIndex: 408, HelpIndex: 409, DefaultScale: -2, DetailLevel: 200, Type: ct.PERF_RAW_FRACTION, Size: 4},
		{NameIndex: 408, HelpIndex: 409, DetailLevel: 200, Type: ct.PERF_RAW_BASE, Size: 4},
		{NameIndex: 206, HelpIndex: 207, DetailLevel: 300, Type: ct.PERF_AVERAGE_TIMER, Size: 8},
		{NameIndex: 206, HelpIndex: 207, DetailLevel: 300, Type: ct.PERF_AVERAGE_BASE, Size: 4},
		{NameIndex: 200, HelpIndex: 201, DetailLevel: 400, Type: ct.PERF_PRECISION_100NS_TIMER, Size: 8},
		{NameIndex: 200, HelpIndex: 201, DetailLevel: 400, Type: ct.PERF_LARGE_RAW_BASE, Size: 8},
		{NameIndex: 50, HelpIndex: 51, Type: ct.PERF_100NSEC_MULTI_TIMER, Size: 8},
		{NameIndex: 52, HelpIndex: 53, Type: ct.PERF_COUNTER_TEXT, Size: 14},
		{NameIndex: 54, HelpIndex: 55, Type: ct.PERF_COUNTER_NODATA},
		{NameIndex: 56, HelpIndex: 57, Type: ct.PERF_COUNTER_LARGE_RAWCOUNT, Size: 8},
	}
	vals := func(seed uint64) []modelValue {
		return []modelValue{
			{N: seed * 1e9}, {N: seed & 0xFFFFFFFF}, {N: 54488}, {N: 72469}, {N: math.MaxUint64 - seed},
			{N: 117670}, {N: 27637997000}, {N: 128315940386606361}, {N: 5, Multi: 4}, {Text: "héllo"},
			{}, {N: 1 << 63},
		}
	}
	single := []CounterSpec{
		{NameIndex: 674, HelpIndex: 675, Type: ct.PERF_ELAPSED_TIME, Size: 8},
		{NameIndex: 44, HelpIndex: 45, Type: ct.PERF_COUNTER_RAWCOUNT, Size: 4},
	}
	tests := []struct {
		name string
		m    model
	}{
		{"empty block", model{Header: testHeader()}},
		{"no system name", model{Header: Header{DefaultObject: -1}}},
		{"single", model{Header: testHeader(), Objects: []modelObject{{
			Spec:     ObjectSpec{NameIndex: 2, HelpIndex: 3, DetailLevel: 100, DefaultCounter: -1, PerfTime: 128315940386606361, PerfFreq: 1e7, Single: true},
			NumInst:  -1,
			Counters: single,
			Single:   []modelValue{{N: 128315920365000000}, {N: 50}},
		}}}},
		{"zero instances", model{Header: testHeader(), Objects: []modelObject{{
			Spec: ObjectSpec{NameIndex: 230, HelpIndex: 231, DetailLevel: 100}, Counters: mixed,
		}}}},
		{"no counters", model{Header: testHeader(), Objects: []modelObject{{
			Spec: ObjectSpec{NameIndex: 9, HelpIndex: 10}, Instances: []modelInstance{{Name: "a", UniqueID: -1, Values: []modelValue{}}},
			NumInst: 1,
		}}}},
		{"instances", model{Header: testHeader(), Objects: []modelObject{
			{
				Spec: ObjectSpec{NameIndex: 238, HelpIndex: 239, DetailLevel: 100, DefaultCounter: 0}, Counters: mixed, NumInst: 5,
				Instances: []modelInstance{
					{Name: "0", UniqueID: -1, Values: vals(1)},
					{Name: "_Total", UniqueID: -1, Values: vals(2)},
					{Name: "", UniqueID: 7, Values: vals(3)}, // unnamed
					{Name: "프로세서 #1 パフォーマンス", UniqueID: -1, ParentIndex: 230, ParentPos: 3, Values: vals(4)}, // Korean / Japanese
					{Name: "emoji 🙂 x", UniqueID: math.MinInt32, Values: vals(5)},                            // surrogate pair
				},
			},
			{
				Spec: ObjectSpec{NameIndex: 2, HelpIndex: 3, Single: true}, NumInst: -1, Counters: single,
				Single: []modelValue{{N: 1}, {N: 2}},
			},
		}}},
		{"code page names", model{Header: testHeader(), Objects: []modelObject{{
			Spec: ObjectSpec{NameIndex: 12, HelpIndex: 13, CodePage: 1252}, Counters: single, NumInst: 2,
			Instances: []modelInstance{{Name: "abc", UniqueID: -1, Values: []modelValue{{N: 1}, {N: 2}}}, {Name: "defgh", Values: []modelValue{{N: 3}, {N: 4}}}},
		}}}},
	}
	b := NewBuilder(nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for i := range tc.m.Objects {
				tc.m.Header.NumObjectTypes++
				o := &tc.m.Objects[i]
				if !o.Spec.Single {
					o.NumInst = int32(len(o.Instances))
				}
			}
			raw, err := encodeModel(b, tc.m)
			if err != nil {
				t.Fatal(err)
			}
			blk, err := Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			got := decodeModel(blk)
			if !sameModel(got, tc.m) {
				t.Errorf("round trip:\n got %+v\nwant %+v", got, tc.m)
			}
			h := blk.Header()
			wantHL := uint32(align8(88 + 2*len([]rune(tc.m.Header.SystemName)) + 2))
			if h.HeaderLength != wantHL || h.TotalByteLength != uint32(len(raw)) || h.LittleEndian != 1 || h.Version != 1 || h.Revision != 1 {
				t.Errorf("header lengths %+v (HeaderLength want %d)", h, wantHL)
			}
			if err := CheckObjects(raw[h.HeaderLength:], h.NumObjectTypes, 1); err != nil {
				t.Error(err)
			}
			if err := CheckAlignment(raw[h.HeaderLength:], h.NumObjectTypes); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestLayout checks offsets computed by hand from the placement rules:
// DWORDs from 4, 8-byte values 8-aligned, block rounded up to 8.
func TestLayout(t *testing.T) {
	tests := []struct {
		name  string
		specs []CounterSpec
		offs  []uint32
		sizes []uint32
		data  uint32
	}{
		{"empty", nil, nil, nil, 8},
		{"one dword", []CounterSpec{{Type: ct.PERF_COUNTER_RAWCOUNT}}, []uint32{4}, []uint32{4}, 8},
		{"dword dword", []CounterSpec{{Type: ct.PERF_COUNTER_RAWCOUNT}, {Type: ct.PERF_COUNTER_COUNTER}}, []uint32{4, 8}, []uint32{4, 4}, 16},
		{"large first", []CounterSpec{{Type: ct.PERF_100NSEC_TIMER}, {Type: ct.PERF_COUNTER_COUNTER}}, []uint32{8, 16}, []uint32{8, 4}, 24},
		{"explicit 8 on a dword type", []CounterSpec{{Type: ct.PERF_COUNTER_RAWCOUNT}, {Type: ct.PERF_AVERAGE_TIMER, Size: 8}, {Type: ct.PERF_AVERAGE_BASE}}, []uint32{4, 8, 16}, []uint32{4, 8, 4}, 24},
		{"multi", []CounterSpec{{Type: ct.PERF_100NSEC_MULTI_TIMER}, {Type: ct.PERF_COUNTER_RAWCOUNT}}, []uint32{8, 20}, []uint32{8, 4}, 24},
		{"text", []CounterSpec{{Type: ct.PERF_COUNTER_TEXT, Size: 6}, {Type: ct.PERF_COUNTER_RAWCOUNT}}, []uint32{4, 12}, []uint32{6, 4}, 16},
		{"nodata", []CounterSpec{{Type: ct.PERF_COUNTER_NODATA}, {Type: ct.PERF_COUNTER_RAWCOUNT}}, []uint32{4, 4}, []uint32{0, 4}, 8},
		{"processor (real)", []CounterSpec{
			{Type: ct.PERF_100NSEC_TIMER_INV}, {Type: ct.PERF_100NSEC_TIMER}, {Type: ct.PERF_100NSEC_TIMER}, {Type: ct.PERF_COUNTER_COUNTER},
			{Type: ct.PERF_100NSEC_TIMER}, {Type: ct.PERF_100NSEC_TIMER}, {Type: ct.PERF_COUNTER_COUNTER}, {Type: ct.PERF_COUNTER_RAWCOUNT},
			{Type: ct.PERF_100NSEC_TIMER},
		}, []uint32{8, 16, 24, 32, 40, 48, 56, 60, 64}, []uint32{8, 8, 8, 4, 8, 8, 4, 4, 8}, 72},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := NewLayout(tc.specs)
			if err != nil {
				t.Fatal(err)
			}
			var offs, sizes []uint32
			for i := range tc.specs {
				offs = append(offs, l.Offset(i))
				sizes = append(sizes, l.Size(i))
			}
			if !reflect.DeepEqual(offs, tc.offs) || !reflect.DeepEqual(sizes, tc.sizes) || l.DataSize() != tc.data {
				t.Errorf("offsets %v sizes %v data %d; want %v %v %d", offs, sizes, l.DataSize(), tc.offs, tc.sizes, tc.data)
			}
		})
	}
	for _, bad := range []CounterSpec{
		{Type: ct.PERF_COUNTER_RAWCOUNT, Size: 3},
		{Type: ct.PERF_COUNTER_TEXT},
		{Type: ct.PERF_COUNTER_NODATA, Size: 4},
		{Type: ct.PERF_COUNTER_TEXT, Size: 1 << 25},
	} {
		if _, err := NewLayout([]CounterSpec{bad}); err == nil {
			t.Errorf("NewLayout(%+v) accepted", bad)
		}
	}
}

func TestBuilderMisuse(t *testing.T) {
	specs := []CounterSpec{{Type: ct.PERF_COUNTER_RAWCOUNT}}
	l, _ := NewLayout(specs)
	b := NewBuilder(nil)
	if err := b.BeginObject(ObjectSpec{}, l, specs); err == nil {
		t.Error("BeginObject before Reset accepted")
	}
	b.Reset(testHeader())
	if err := b.BeginObject(ObjectSpec{}, l, nil); err == nil {
		t.Error("mismatched layout accepted")
	}
	// Instance on a single object: the object is dropped, the block stays valid.
	if err := b.BeginObject(ObjectSpec{NameIndex: 2, Single: true}, l, specs); err != nil {
		t.Fatal(err)
	}
	b.Instance("x", 0, 0, -1).Set(0, 5) // writes nowhere
	if err := b.EndObject(); err == nil {
		t.Error("Instance on a Single object not reported")
	}
	if err := b.BeginObject(ObjectSpec{NameIndex: 4}, l, specs); err != nil {
		t.Fatal(err)
	}
	b.Instance("kept", 0, 0, -1).Set(0, 9)
	if err := b.BeginObject(ObjectSpec{}, l, specs); err == nil {
		t.Error("nested BeginObject accepted")
	}
	if err := b.EndObject(); err != nil {
		t.Fatal(err)
	}
	if err := b.BeginObject(ObjectSpec{NameIndex: 6}, l, specs); err != nil {
		t.Fatal(err)
	}
	b.Instance("dropped", 0, 0, -1)
	b.AbortObject()
	if err := b.EndObject(); err == nil {
		t.Error("EndObject after AbortObject accepted")
	}
	blk, err := Parse(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	m := decodeModel(blk)
	if len(m.Objects) != 1 || m.Objects[0].Spec.NameIndex != 4 || m.Objects[0].Instances[0].Values[0].N != 9 {
		t.Errorf("got %+v", m.Objects)
	}
}

func TestAppendObjects(t *testing.T) {
	blocks := loadBlocks(t, windowsDir)
	b := NewBuilder(nil)
	b.Reset(testHeader())
	var n uint32
	var want []model
	for _, name := range []string{"s01-0238-Processor.bin", "s01-0002-System.bin", "s01-0230-Process.bin"} {
		blk, err := Parse(blocks[name])
		if err != nil {
			t.Fatal(err)
		}
		objs := blk.Bytes()[blk.Header().HeaderLength:]
		if err := b.AppendObjects(objs, 1); err != nil {
			t.Fatal(err)
		}
		n++
		want = append(want, decodeModel(blk))
		// damaged provider output is refused and leaves the block unchanged
		bad := append([]byte(nil), objs...)
		le.PutUint32(bad[oNumInstances:], 1<<20)
		if err := b.AppendObjects(bad, 1); err == nil {
			t.Fatalf("%s: damaged objects appended", name)
		}
		if err := b.AppendObjects(objs, 2); err == nil {
			t.Fatalf("%s: wrong object count accepted", name)
		}
	}
	blk, err := Parse(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	got := decodeModel(blk)
	if len(got.Objects) != int(n) {
		t.Fatalf("%d objects", len(got.Objects))
	}
	for i := range want {
		if !reflect.DeepEqual(got.Objects[i], want[i].Objects[0]) {
			t.Errorf("object %d differs", i)
		}
	}
}

func TestSystemTime(t *testing.T) {
	tm := time.Date(2007, 8, 14, 15, 40, 38, 659e6, time.UTC)
	st := SystemTimeOf(tm.In(time.FixedZone("x", 9*3600)))
	if st != (SystemTime{2007, 8, 2, 14, 15, 40, 38, 659}) {
		t.Errorf("SystemTimeOf = %+v", st)
	}
	if !st.Time().Equal(tm) {
		t.Errorf("Time = %v", st.Time())
	}
	// In the writer's zone (UTC+9): the same instant is 00:40:38 the next day, a Wednesday.
	if st := SystemTimeIn(tm.In(time.FixedZone("x", 9*3600))); st != (SystemTime{2007, 8, 3, 15, 0, 40, 38, 659}) {
		t.Errorf("SystemTimeIn = %+v", st)
	}
}

func TestValuesAdd(t *testing.T) {
	specs := []CounterSpec{{Type: ct.PERF_COUNTER_RAWCOUNT}, {Type: ct.PERF_COUNTER_BULK_COUNT}}
	l, _ := NewLayout(specs)
	b := NewBuilder(nil)
	b.Reset(Header{})
	if err := b.BeginObject(ObjectSpec{Single: true}, l, specs); err != nil {
		t.Fatal(err)
	}
	v := b.Single()
	v.Set(0, 0xFFFFFFFF)
	v.Add(0, 2) // wraps at 32 bits
	v.SetUint64(1, math.MaxUint64)
	v.Add(1, 3)
	b.Single().Add(1, 1) // same block
	if err := b.EndObject(); err != nil {
		t.Fatal(err)
	}
	blk, err := Parse(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	o, _ := blk.Object(0)
	c := o.SingleBlock()
	if got := c.Value(o.Counter(0)); got != 1 {
		t.Errorf("dword = %#x", got)
	}
	if got := c.Value(o.Counter(1)); got != 3 {
		t.Errorf("large = %d", got)
	}
}
