package perfdata

import (
	"errors"
	"strings"
	"testing"
)

// objsOf returns the objects of the real Processor block (976 bytes: one
// object, instances "0" at 664 and "_Total" at 664+32+120 = 816, whose counter block
// is at 816+40).
func objsOf(t *testing.T) []byte {
	b := processorBlock(t)
	return append([]byte(nil), b[104:]...)
}

func TestCheckObjects(t *testing.T) {
	const inst1 = 816
	tests := []struct {
		name   string
		mut    func([]byte) []byte
		n      uint32
		level  int
		want   error // nil = passes
		offset int
	}{
		{"real level 1", nil, 1, 1, nil, 0},
		{"real level 2", nil, 1, 2, nil, 0},
		{"objects but no count", nil, 0, 1, ErrCountMismatch, 0},
		{"count but no bytes", func(b []byte) []byte { return b[:0] }, 1, 2, ErrCountMismatch, 0},
		{"count too high", nil, 2, 2, ErrObjectOverrun, 976},
		{"object zero length", func(b []byte) []byte { le.PutUint32(b, 0); return b }, 1, 2, ErrObjectTooShort, 0},
		{"object past bytes", func(b []byte) []byte { le.PutUint32(b, 984); return b }, 1, 2, ErrObjectOverrun, 0},
		{"bytes beyond objects, level 1", func(b []byte) []byte { return append(b, make([]byte, 16)...) }, 1, 1, ErrTotalMismatch, 976},
		{"bytes beyond objects, level 2", func(b []byte) []byte { return append(b, make([]byte, 16)...) }, 1, 2, nil, 0},
		{"instance chain short", func(b []byte) []byte { le.PutUint32(b[40:], 1); return b }, 1, 1, ErrInstanceChain, 0},
		{"instance chain short, level 2", func(b []byte) []byte { le.PutUint32(b[40:], 1); return b }, 1, 2, nil, 0},
		{"instance chain long", func(b []byte) []byte { le.PutUint32(b[40:], 3); return b }, 1, 1, ErrInstanceOverrun, 976},
		{"instance length past object", func(b []byte) []byte { le.PutUint32(b[inst1:], 200); return b }, 1, 1, ErrInstanceOverrun, inst1},
		{"counter block past object", func(b []byte) []byte { le.PutUint32(b[inst1+40:], 200); return b }, 1, 1, ErrInstanceOverrun, inst1 + 40},
		{"object padded", func(b []byte) []byte { b = append(b, make([]byte, 8)...); le.PutUint32(b, 984); return b }, 1, 1, ErrInstanceChain, 0},
		{"definition inconsistent", func(b []byte) []byte { le.PutUint32(b[64:], 8); return b }, 1, 1, ErrObjectInvalid, 64},
		{"definition inconsistent, level 2", func(b []byte) []byte { le.PutUint32(b[64:], 8); return b }, 1, 2, nil, 0},
		{"counter offset outside", func(b []byte) []byte { le.PutUint32(b[64+36:], 4000); return b }, 1, 1, ErrObjectInvalid, 64 + 36},
		{"level 3 checks nothing", func(b []byte) []byte { le.PutUint32(b, 0); return b }, 7, 3, nil, 0},
		{"level 4 checks nothing", func(b []byte) []byte { return b[:5] }, 7, 4, nil, 0},
	}
	named := []error{ErrCountMismatch, ErrObjectTooShort, ErrObjectOverrun, ErrTotalMismatch, ErrObjectInvalid, ErrInstanceOverrun, ErrInstanceChain, ErrMisaligned}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := objsOf(t)
			if tc.mut != nil {
				b = tc.mut(b)
			}
			err := CheckObjects(b, tc.n, tc.level)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("CheckObjects = %v", err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("CheckObjects = %v, want %v", err, tc.want)
			}
			for _, other := range named {
				if other != tc.want && errors.Is(err, other) {
					t.Errorf("%v also matches %v", err, other)
				}
			}
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Offset != tc.offset {
				t.Errorf("error %v: offset %d, want %d", err, fe.Offset, tc.offset)
			}
		})
	}
}

// TestBuilderValueBound: the Builder refuses an object Parse would refuse
// for having more values than bytes, which only counters without bytes of
// their own (PERF_SIZE_ZERO) can cause. With k such counters and k
// instances named "a" the object is 64 + 40k (definitions) + 40k (24-byte
// instance, name "a\0" padded to 8, 8-byte counter block) bytes and holds
// k² values: 80 → 6464 bytes, 6400 values (built); 100 → 8064 bytes,
// 10000 values (refused).
func TestBuilderValueBound(t *testing.T) {
	for _, tt := range []struct {
		k     int
		total uint32 // 0: refused
	}{{80, 6464}, {100, 0}} {
		specs := make([]CounterSpec, tt.k)
		for i := range specs {
			specs[i] = CounterSpec{NameIndex: uint32(2 * i), Type: 0x00000200} // PERF_SIZE_ZERO
		}
		l, err := NewLayout(specs)
		if err != nil {
			t.Fatal(err)
		}
		b := NewBuilder(nil)
		b.Reset(Header{})
		if err := b.BeginObject(ObjectSpec{NameIndex: 230}, l, specs); err != nil {
			t.Fatal(err)
		}
		for range tt.k {
			b.Instance("a", 0, 0, NoUniqueID)
		}
		err = b.EndObject()
		if tt.total == 0 {
			if err == nil || !strings.Contains(err.Error(), "10000 values in a 8064-byte object") {
				t.Errorf("k=%d: EndObject = %v, want the value bound", tt.k, err)
			}
			if blk, perr := Parse(b.Bytes()); perr != nil || blk.NumObjects() != 0 {
				t.Errorf("k=%d: the refused object stayed in the block (%v)", tt.k, perr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("k=%d: %v", tt.k, err)
		}
		blk, err := Parse(b.Bytes())
		if err != nil {
			t.Fatalf("k=%d: %v", tt.k, err)
		}
		if o, _ := blk.Object(230); o.TotalByteLength() != tt.total {
			t.Errorf("k=%d: object of %d bytes, want %d", tt.k, o.TotalByteLength(), tt.total)
		}
	}
}
