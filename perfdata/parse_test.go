package perfdata

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func processorBlock(t testing.TB) []byte {
	b, err := os.ReadFile(filepath.Join(windowsDir, "s01-0238-Processor.bin"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Offsets in the real Processor block, read off its bytes: header 104,
// object at 104 with 15 definitions (DefinitionLength 664), first instance
// "0" at 104+664 = 768, its name at 792, its counter block at 768+32 = 800.
const (
	pObj   = 104
	pDef0  = pObj + 64
	pInst0 = pObj + 664
	pBlk0  = pInst0 + 32
)

func TestParseErrors(t *testing.T) {
	put := func(off int, v uint32) func([]byte) []byte {
		return func(b []byte) []byte { le.PutUint32(b[off:], v); return b }
	}
	tests := []struct {
		name   string
		mut    func([]byte) []byte
		off    int
		st, fl string
		val    int64
		msg    string
	}{
		{"short header", func(b []byte) []byte { return b[:87] }, 0, sDataBlock, "", 0, "truncated: 87 bytes, the header needs 88"},
		{"signature", func(b []byte) []byte { b[2] = 'X'; return b }, 0, sDataBlock, "Signature", 0, ""},
		{"big endian", put(8, 0), 8, sDataBlock, "LittleEndian", 0, "big-endian blocks not supported"},
		{"version", put(12, 2), 12, sDataBlock, "Version", 2, "unsupported version (want 1)"},
		{"truncated", func(b []byte) []byte { return b[:1000] }, 20, sDataBlock, "TotalByteLength", 1080, "runs past the end of the data (1000 bytes): truncated"},
		{"total too small", put(20, 40), 20, sDataBlock, "TotalByteLength", 40, ""},
		{"total short of objects", put(20, 1072), pObj, sObject, "TotalByteLength", 976, ""},
		{"trailing bytes", func(b []byte) []byte { b = append(b, make([]byte, 8)...); le.PutUint32(b[20:], 1088); return b }, 20, sDataBlock, "TotalByteLength", 1088, "the 1 objects end at offset 1080"},
		{"header length", put(24, 80), 24, sDataBlock, "HeaderLength", 80, ""},
		{"name odd", put(80, 15), 80, sDataBlock, "SystemNameLength", 15, "odd length for a UTF-16 name"},
		{"name past header", put(80, 18), 80, sDataBlock, "SystemNameLength", 18, "name at offset 88 runs past HeaderLength 104"},
		{"name overlaps header", put(84, 80), 84, sDataBlock, "SystemNameOffset", 80, ""},
		{"too many objects", put(28, 2), pObj + 976, sObject, "", 0, "truncated: 0 bytes left, the structure needs 64"},
		{"object too short", put(pObj, 8), pObj, sObject, "TotalByteLength", 8, "smaller than the 64-byte structure"},
		{"object zero length", put(pObj, 0), pObj, sObject, "TotalByteLength", 0, ""},
		{"object past block", put(pObj, 984), pObj, sObject, "TotalByteLength", 984, "runs past the enclosing data (976 bytes left)"},
		{"definition length", put(pObj+4, 2000), pObj + 4, sObject, "DefinitionLength", 2000, ""},
		{"object header length", put(pObj+8, 32), pObj + 8, sObject, "HeaderLength", 32, ""},
		{"num counters", put(pObj+32, 16), pObj + 32, sObject, "NumCounters", 16, ""},
		{"num counters huge", put(pObj+32, 0xFFFFFFFF), pObj + 32, sObject, "NumCounters", 0xFFFFFFFF, ""},
		{"definition too short", put(pDef0, 36), pDef0, sCounter, "ByteLength", 36, "smaller than the 40-byte structure"},
		{"definition past defs", put(pDef0+40*14, 48), pDef0 + 40*14, sCounter, "ByteLength", 48, "runs past DefinitionLength 664"},
		{"counter offset", put(pDef0+36, 116), pDef0 + 36, sCounter, "CounterOffset", 116, "value ends at 124, past the ByteLength 120 of the counter block at offset 0x320"},
		{"counter size", put(pDef0+32, 0xFFFFFFFF), pDef0 + 36, sCounter, "CounterOffset", 8, ""},
		{"num instances negative", put(pObj+40, 0xFFFFFFFC), pObj + 40, sObject, "NumInstances", -4, "neither a count nor -1, -2 or -3"},
		{"num instances too many", put(pObj+40, 3), pObj + 976, sInstance, "", 0, "truncated: 0 bytes left in the object, the structure needs 24"},
		// 15 counters × 0x7FFFFFFF instances is far more values than the 976 bytes.
		{"num instances huge", put(pObj+40, 0x7FFFFFFF), pObj + 32, sObject, "NumCounters", 15, "15 counters × 2147483647 counter blocks = 32212254705 values in a 976-byte object: more values than bytes"},
		// 15 counters × 66 instances = 990 values > 976 bytes; 65 instances (975) passes
		// the value bound and fails on the missing instances.
		{"values past bytes", put(pObj+40, 66), pObj + 32, sObject, "NumCounters", 15, "15 counters × 66 counter blocks = 990 values in a 976-byte object: more values than bytes"},
		{"values at bound", put(pObj+40, 65), pObj + 976, sInstance, "", 0, "truncated: 0 bytes left in the object, the structure needs 24"},
		{"definition length differs", put(pDef0+40, 48), pDef0 + 40, sCounter, "ByteLength", 48, "definition 1 differs from the first definition's 40 (all definitions of an object have one length)"},
		{"single but instances", put(pObj+40, 0xFFFFFFFF), pDef0 + 14*40 + 36, sCounter, "CounterOffset", 112, "value ends at 120, past the ByteLength 32 of the counter block at offset 0x300"},
		{"instance too short", put(pInst0, 12), pInst0, sInstance, "ByteLength", 12, "smaller than the 24-byte structure"},
		{"instance past object", put(pInst0, 4000), pInst0, sInstance, "ByteLength", 4000, ""},
		{"name offset", put(pInst0+16, 8), pInst0 + 16, sInstance, "NameOffset", 8, "name overlaps the 24-byte structure"},
		{"name length", put(pInst0+20, 10), pInst0 + 20, sInstance, "NameLength", 10, "name at offset 24 runs past ByteLength 32"},
		{"name odd", put(pInst0+20, 3), pInst0 + 20, sInstance, "NameLength", 3, "odd length for a UTF-16 name"},
		{"block too short", put(pBlk0, 2), pBlk0, sBlock, "ByteLength", 2, "smaller than its own 4-byte length field"},
		{"block past object", put(pBlk0, 0x10000), pBlk0, sBlock, "ByteLength", 0x10000, ""},
		{"block too small for values", put(pBlk0, 112), pDef0 + 14*40 + 36, sCounter, "CounterOffset", 112, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.mut(processorBlock(t))
			_, err := Parse(b)
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("Parse = %v, want a *FormatError", err)
			}
			if fe.Offset != tc.off || fe.Struct != tc.st || fe.Field != tc.fl || (tc.fl != "" && tc.fl != "Signature" && fe.Value != tc.val) || (tc.msg != "" && fe.Msg != tc.msg) {
				t.Errorf("got offset %#x %s.%s = %d: %s\nwant offset %#x %s.%s = %d: %s", fe.Offset, fe.Struct, fe.Field, fe.Value, fe.Msg, tc.off, tc.st, tc.fl, tc.val, tc.msg)
			}
		})
	}
}

func TestFormatErrorString(t *testing.T) {
	e := &FormatError{Offset: 0x1a8, Struct: sInstance, Field: "ByteLength", Value: 12, Msg: "not a multiple of 8"}
	if got, want := e.Error(), "offset 0x1a8: PERF_INSTANCE_DEFINITION.ByteLength = 12: not a multiple of 8"; got != want {
		t.Errorf("%q\nwant %q", got, want)
	}
	e = &FormatError{Offset: 0, Struct: sDataBlock, Msg: "truncated: 3 bytes, the header needs 88"}
	if got, want := e.Error(), "offset 0x0: PERF_DATA_BLOCK: truncated: 3 bytes, the header needs 88"; got != want {
		t.Errorf("%q\nwant %q", got, want)
	}
}

// TestParseSpecialInstanceCounts: -2, -3 and 0 have nothing after the
// definitions; -1 has exactly one counter block.
func TestParseSpecialInstanceCounts(t *testing.T) {
	b := processorBlock(t)
	for _, n := range []int32{0, MetadataMultipleInstances, MetadataNoInstances, NoInstances} {
		c := append([]byte(nil), b[:pObj+664]...) // header, object, definitions
		le.PutUint32(c[pObj+40:], uint32(n))
		if n == NoInstances {
			c = append(c, b[pBlk0:pBlk0+120]...)
		}
		le.PutUint32(c[pObj:], uint32(len(c)-pObj))
		le.PutUint32(c[20:], uint32(len(c)))
		blk, err := Parse(c)
		if err != nil {
			t.Fatalf("NumInstances %d: %v", n, err)
		}
		o, _ := blk.Object(238)
		it := o.Instances()
		if o.NumInstances() != n || o.InstanceCount() != 0 || it.Next() {
			t.Errorf("NumInstances %d: instances", n)
		}
		if got, want := o.SingleInstance(), n == NoInstances || n == MetadataNoInstances; got != want {
			t.Errorf("NumInstances %d: SingleInstance %v", n, got)
		}
		if got, want := o.Metadata(), n == MetadataMultipleInstances || n == MetadataNoInstances; got != want {
			t.Errorf("NumInstances %d: Metadata %v", n, got)
		}
		single := o.SingleBlock()
		if n == NoInstances {
			if single.ByteLength() != 120 || single.Value(o.Counter(0)) != 12558750000 {
				t.Errorf("single block %d %d", single.ByteLength(), single.Value(o.Counter(0)))
			}
		} else if single.ByteLength() != 0 || single.Value(o.Counter(0)) != 0 {
			t.Errorf("NumInstances %d: a single block", n)
		}
	}
}

// TestParseUnalignedAccepted: lengths Windows keeps at multiples of 8 are
// not required by Parse; CheckAlignment reports them.
func TestParseUnalignedAccepted(t *testing.T) {
	b := processorBlock(t)
	// Grow instance "0" by 4 bytes (ByteLength 36), everything after moves,
	// and pad the object by 4 so that only the instance is misaligned.
	c := append([]byte(nil), b[:pBlk0]...)
	c = append(c, 0, 0, 0, 0)
	c = append(c, b[pBlk0:]...)
	c = append(c, 0, 0, 0, 0)
	le.PutUint32(c[pInst0:], 36)
	le.PutUint32(c[pObj:], 984)
	le.PutUint32(c[20:], 1088)
	blk, err := Parse(c)
	if err != nil {
		t.Fatal(err)
	}
	o, _ := blk.Object(238)
	var names []string
	for it := o.Instances(); it.Next(); {
		names = append(names, it.Instance().Name())
	}
	if len(names) != 2 || names[0] != "0" || names[1] != "_Total" {
		t.Errorf("names %q", names)
	}
	err = CheckAlignment(c[104:], 1)
	var fe *FormatError
	if !errors.As(err, &fe) || !errors.Is(err, ErrMisaligned) || fe.Offset != pInst0-104 || fe.Field != "ByteLength" || fe.Value != 36 {
		t.Errorf("CheckAlignment = %v", err)
	}
	if err := CheckAlignment(b[104:], 1); err != nil {
		t.Errorf("real block: %v", err)
	}
}

// TestTruncateAndFlip cuts every real block at many lengths (each must be a
// FormatError) and flips bits at many positions (never a panic; a success
// must read back in full).
func TestTruncateAndFlip(t *testing.T) {
	all := loadAllBlocks(t)
	for name, b := range all {
		step := max(1, len(b)/300)
		for n := 0; n < len(b); n += step {
			_, err := Parse(b[:n])
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("%s cut to %d: %v, want a *FormatError", name, n, err)
			}
		}
	}
	// Bit flips on the eight local blocks: every byte of the header, the
	// object header and the definitions, then every 13th byte.
	for name, b := range loadBlocks(t, windowsDir) {
		for pos := 0; pos < len(b); pos++ {
			if pos > 1600 && pos%13 != 0 {
				continue
			}
			for _, bit := range []byte{0x01, 0x10, 0x80} {
				c := append([]byte(nil), b...)
				c[pos] ^= bit
				blk, err := Parse(c)
				if err != nil {
					var fe *FormatError
					if !errors.As(err, &fe) {
						t.Fatalf("%s flip %d/%#x: %T %v", name, pos, bit, err, err)
					}
					continue
				}
				_ = decodeModel(blk) // walks every accessor
			}
		}
	}
}

func TestAccessorsOutsideBlock(t *testing.T) {
	var c CounterBlock
	d := CounterDef{Size: 8, Offset: 0xFFFFFFFC}
	if c.Value(d) != 0 || c.Multi(d) != 0 || c.Text(d) != "" || c.Uint32(1<<31) != 0 || c.Uint64(5) != 0 {
		t.Error("reads outside the block are not 0")
	}
	var blk Block
	oi := blk.Objects()
	if blk.NumObjects() != 0 || oi.Next() || blk.Header() != (Header{}) {
		t.Error("zero Block not empty")
	}
	var o Object
	ii := o.Instances()
	if ii.Next() || o.NumCounters() != 0 || o.SingleBlock().ByteLength() != 0 {
		t.Error("zero Object not empty")
	}
	var in Instance
	if in.Name() != "" || in.Block().ByteLength() != 0 {
		t.Error("zero Instance not empty")
	}
}

// TestParseWideDefinitions: definitions are walked by their ByteLength, so
// a provider's 48-byte definitions read the same as 40-byte ones.
func TestParseWideDefinitions(t *testing.T) {
	b := processorBlock(t)
	c := append([]byte(nil), b[:pDef0]...)
	for i := range 15 {
		d := append([]byte(nil), b[pDef0+40*i:pDef0+40*i+40]...)
		le.PutUint32(d, 48)
		c = append(append(c, d...), make([]byte, 8)...)
	}
	c = append(c, b[pInst0:]...)
	le.PutUint32(c[pObj+4:], 664+15*8)
	le.PutUint32(c[pObj:], 976+15*8)
	le.PutUint32(c[20:], uint32(len(c)))
	wide, err := Parse(c)
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := Parse(b)
	if !sameModel(decodeModel(wide), decodeModel(orig)) {
		t.Error("48-byte definitions read differently")
	}
	o, _ := wide.Object(238)
	if d := o.Counter(14); d.NameIndex != 1758 || d.Offset != 112 {
		t.Errorf("Counter(14) = %+v", d)
	}
}
