package nvml

import (
	"errors"
	"testing"
)

func TestNormalizeBusID(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"00000000:01:00.0", "0000:01:00.0", true},
		{"00000001:C1:00.0\x00\x00", "0001:c1:00.0", true},
		{"0000:65:00.0", "0000:65:00.0", true},
		{"00010000:01:00.0", "", false}, // a domain past 16 bits
		{"0000:1:00.0", "", false},
		{"0000:01:00", "", false},
		{"zz:01:00.0", "", false},
		{"", "", false},
	} {
		got, ok := NormalizeBusID(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("NormalizeBusID(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestMergeProcess(t *testing.T) {
	var ps []Process
	ps = mergeProcess(ps, 10, ValueNotAvailable, true)
	ps = mergeProcess(ps, 10, 100, false)
	ps = mergeProcess(ps, 10, 50, true)
	ps = mergeProcess(ps, 11, 7, false)
	want := []Process{{PID: 10, UsedMemory: 150, MemoryKnown: true, Compute: true, Graphics: true}, {PID: 11, UsedMemory: 7, MemoryKnown: true, Graphics: true}}
	if len(ps) != len(want) || ps[0] != want[0] || ps[1] != want[1] {
		t.Fatalf("got %+v, want %+v", ps, want)
	}
}

func TestErrorNamesCall(t *testing.T) {
	err := error(&Error{Func: "nvmlInit_v2", Code: 3})
	if got := err.Error(); got != "nvml: nvmlInit_v2 returned 3 (NVML_ERROR_NOT_SUPPORTED)" {
		t.Fatal(got)
	}
	var e *Error
	if !errors.As(err, &e) || e.Code != 3 {
		t.Fatal("errors.As")
	}
}
