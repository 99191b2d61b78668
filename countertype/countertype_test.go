package countertype

import (
	"strings"
	"testing"
)

// The composite types with the values of winperf-constants.md §2 (typed in
// from the table, not from the constants above), and the bit fields the
// table's columns give.
var table = []struct {
	name    string
	value   uint32
	bytes   int  // declared width: 4 DWORD, 8 LARGE, 0 zero/variable
	delta   bool // Δ
	inverse bool
	multi   bool
	suffix  string
	base    string // base type that must follow, "" none
}{
	{"PERF_COUNTER_RAWCOUNT_HEX", 0x00000000, 4, false, false, false, "", ""},
	{"PERF_COUNTER_LARGE_RAWCOUNT_HEX", 0x00000100, 8, false, false, false, "", ""},
	{"PERF_COUNTER_TEXT", 0x00000B00, 0, false, false, false, "", ""},
	{"PERF_COUNTER_RAWCOUNT", 0x00010000, 4, false, false, false, "", ""},
	{"PERF_COUNTER_LARGE_RAWCOUNT", 0x00010100, 8, false, false, false, "", ""},
	{"PERF_COUNTER_DELTA", 0x00400400, 4, true, false, false, "", ""},
	{"PERF_COUNTER_LARGE_DELTA", 0x00400500, 8, true, false, false, "", ""},
	{"PERF_SAMPLE_COUNTER", 0x00410400, 4, true, false, false, "", ""},
	{"PERF_COUNTER_QUEUELEN_TYPE", 0x00450400, 4, true, false, false, "", ""},
	{"PERF_COUNTER_LARGE_QUEUELEN_TYPE", 0x00450500, 8, true, false, false, "", ""},
	{"PERF_COUNTER_100NS_QUEUELEN_TYPE", 0x00550500, 8, true, false, false, "", ""},
	{"PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE", 0x00650500, 8, true, false, false, "", ""},
	{"PERF_COUNTER_COUNTER", 0x10410400, 4, true, false, false, "/sec", ""},
	{"PERF_COUNTER_BULK_COUNT", 0x10410500, 8, true, false, false, "/sec", ""},
	{"PERF_RAW_FRACTION", 0x20020400, 4, false, false, false, "%", "PERF_RAW_BASE"},
	{"PERF_LARGE_RAW_FRACTION", 0x20020500, 8, false, false, false, "%", "PERF_LARGE_RAW_BASE"},
	{"PERF_COUNTER_TIMER", 0x20410500, 8, true, false, false, "%", ""},
	{"PERF_PRECISION_SYSTEM_TIMER", 0x20470500, 8, true, false, false, "%", "PERF_LARGE_RAW_BASE"},
	{"PERF_100NSEC_TIMER", 0x20510500, 8, true, false, false, "%", ""},
	{"PERF_PRECISION_100NS_TIMER", 0x20570500, 8, true, false, false, "%", "PERF_LARGE_RAW_BASE"},
	{"PERF_OBJ_TIME_TIMER", 0x20610500, 8, true, false, false, "%", ""},
	{"PERF_PRECISION_OBJECT_TIMER", 0x20670500, 8, true, false, false, "%", "PERF_LARGE_RAW_BASE"},
	{"PERF_SAMPLE_FRACTION", 0x20C20400, 4, true, false, false, "%", "PERF_SAMPLE_BASE"},
	{"PERF_COUNTER_TIMER_INV", 0x21410500, 8, true, true, false, "%", ""},
	{"PERF_100NSEC_TIMER_INV", 0x21510500, 8, true, true, false, "%", ""},
	{"PERF_COUNTER_MULTI_TIMER", 0x22410500, 8, true, false, true, "%", ""},
	{"PERF_100NSEC_MULTI_TIMER", 0x22510500, 8, true, false, true, "%", ""},
	{"PERF_COUNTER_MULTI_TIMER_INV", 0x23410500, 8, true, true, true, "%", "PERF_COUNTER_MULTI_BASE"},
	{"PERF_100NSEC_MULTI_TIMER_INV", 0x23510500, 8, true, true, true, "%", "PERF_COUNTER_MULTI_BASE"},
	{"PERF_AVERAGE_TIMER", 0x30020400, 4, false, false, false, "secs", "PERF_AVERAGE_BASE"},
	{"PERF_ELAPSED_TIME", 0x30240500, 8, false, false, false, "secs", ""},
	{"PERF_COUNTER_NODATA", 0x40000200, 0, false, false, false, "", ""},
	{"PERF_AVERAGE_BULK", 0x40020500, 8, false, false, false, "", "PERF_AVERAGE_BASE"},
	{"PERF_SAMPLE_BASE", 0x40030401, 4, false, false, false, "", ""},
	{"PERF_AVERAGE_BASE", 0x40030402, 4, false, false, false, "", ""},
	{"PERF_RAW_BASE", 0x40030403, 4, false, false, false, "", ""},
	{"PERF_LARGE_RAW_BASE", 0x40030500, 8, false, false, false, "", ""},
	{"PERF_COUNTER_MULTI_BASE", 0x42030500, 8, false, false, true, "", ""},
	{"PERF_COUNTER_HISTOGRAM_TYPE", 0x80000000, 4, false, false, false, "", ""},
}

func TestCompositeTypes(t *testing.T) {
	all := All()
	if len(all) != len(table)+1 { // + PERF_DOUBLE_RAW, PDH-internal
		t.Fatalf("All() has %d types, the winperf table %d (+1 PDH-internal)", len(all), len(table))
	}
	for _, tt := range table {
		t.Run(tt.name, func(t *testing.T) {
			ty := Type(tt.value)
			if !ty.Known() || ty.String() != tt.name {
				t.Fatalf("Type(0x%08X).String() = %q", tt.value, ty.String())
			}
			if ty.ManifestName() != strings.ToLower(tt.name) {
				t.Errorf("ManifestName = %q", ty.ManifestName())
			}
			for _, s := range []string{tt.name, strings.ToLower(tt.name)} {
				if got, err := Parse(s); err != nil || got != ty {
					t.Errorf("Parse(%q) = %v, %v", s, got, err)
				}
			}
			if ty.ByteSize() != tt.bytes || ty.Delta() != tt.delta || ty.Inverse() != tt.inverse || ty.Multi() != tt.multi || ty.Suffix() != tt.suffix {
				t.Errorf("fields: bytes %d delta %v inverse %v multi %v suffix %q", ty.ByteSize(), ty.Delta(), ty.Inverse(), ty.Multi(), ty.Suffix())
			}
			base, ok := ty.Base()
			if (tt.base == "") == ok || ok && base.String() != tt.base {
				t.Errorf("Base() = %v, %v; want %q", base, ok, tt.base)
			}
			if wantBase := strings.HasSuffix(tt.name, "_BASE"); ty.IsBase() != wantBase {
				t.Errorf("IsBase() = %v", ty.IsBase())
			}
		})
	}
}

// TestPrecisionIsNotBase guards the windows_exporter mistake: subtype 7
// (PRECISION) shares bits with subtype 3 (BASE) under a mask test.
func TestPrecisionIsNotBase(t *testing.T) {
	for _, ty := range []Type{PERF_PRECISION_SYSTEM_TIMER, PERF_PRECISION_100NS_TIMER, PERF_PRECISION_OBJECT_TIMER} {
		if ty.IsBase() {
			t.Errorf("%v taken for a base", ty)
		}
	}
	if PERF_PRECISION_TIMESTAMP != PERF_LARGE_RAW_BASE {
		t.Error("PERF_PRECISION_TIMESTAMP must alias PERF_LARGE_RAW_BASE (0x40030500)")
	}
}

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Type
		ok   bool
	}{
		{"PERF_PRECISION_TIMESTAMP", PERF_LARGE_RAW_BASE, true},
		{"  perf_counter_counter ", PERF_COUNTER_COUNTER, true},
		{"0x21510500", PERF_100NSEC_TIMER_INV, true},
		{"272696320", PERF_COUNTER_COUNTER, true},
		{"0x40030503", 0, false}, // windows_exporter's wrong PERF_LARGE_RAW_BASE
		{"perf_counter_composite", 0, false},
		{"", 0, false},
		{"12abc", 0, false},
	} {
		got, err := Parse(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("Parse(%q) = %v, %v", tt.in, got, err)
		}
	}
	if s := Type(0x40030503).String(); s != "CounterType(0x40030503)" {
		t.Errorf("unknown type String = %q", s)
	}
}
