package binlog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/internal/hostile"
	"github.com/perfcounters/perfcounters/perfdata"
)

// Hostile binary logs (issue 28: memory and time linear in the input),
// forged record by record as FORMAT.md lays them out. Every log is a
// file header, an INFO record, a DEFS record with one definition (object
// 230, single instance, one DWORD PERF_COUNTER_RAWCOUNT) and sample
// records, each sample one block holding that object.

// hostileSample describes one forged SAMPLE record: its object's counter
// block is cblk bytes (a multiple of 8, at least 8), holding the value
// k, and its payload is padded with zeros to pad bytes.
type hostileSample struct {
	cblk, pad int
}

// hostileLog forges a log of the samples; compress sets the zstd feature
// and compresses every SAMPLE payload (one zstd frame each, no
// dictionary).
func hostileLog(tb testing.TB, samples []hostileSample, compress bool) []byte {
	tb.Helper()
	// The block the samples rebuild, as perfdata's Builder lays it out:
	// its header (with the system name) and the object's definition.
	specs := []perfdata.CounterSpec{{NameIndex: 6, HelpIndex: 7, DetailLevel: 100, Type: countertype.PERF_COUNTER_RAWCOUNT}}
	lay, err := perfdata.NewLayout(specs)
	if err != nil {
		tb.Fatal(err)
	}
	t0 := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	bld := perfdata.NewBuilder(nil)
	bld.Reset(perfdata.Header{PerfFreq: 10_000_000, PerfTime100nSec: perfdata.FileTime(t0), SystemTime: perfdata.SystemTimeOf(t0), SystemName: "H"})
	if err := bld.BeginObject(perfdata.ObjectSpec{NameIndex: 230, HelpIndex: 231, DetailLevel: 100, Single: true}, lay, specs); err != nil {
		tb.Fatal(err)
	}
	bld.Single().Set(0, 7)
	if err := bld.EndObject(); err != nil {
		tb.Fatal(err)
	}
	blk := bld.Bytes()
	hl := int(le.Uint32(blk[hHeaderLength:]))
	def := defOf(blk[hl:])
	if def == nil {
		tb.Fatal("no definition in the template block")
	}

	var feats uint32
	var enc *zstd.Encoder
	if compress {
		feats = featZstd
		if enc, err = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false), zstd.WithEncoderLevel(zstd.SpeedBetterCompression)); err != nil {
			tb.Fatal(err)
		}
		defer enc.Close()
	}
	out := encodeHeader(fileHeader{incompat: feats, created: stamp(t0)})
	var info []byte
	info = appendString(info, "H")
	info = appendString(info, "UTC")
	info = appendString(info, "UTC")
	info = binary.AppendVarint(info, 0)
	info = binary.AppendVarint(info, 10_000_000)
	info = append(info, 0) // whole objects
	info = appendString(info, "hostile")
	info = binary.AppendUvarint(info, 0)
	info = appendString(info, "")
	out = appendFrame(out, KindInfo, 0, 0, stamp(t0), info)
	defs := binary.AppendUvarint(nil, 1)
	defs = binary.AppendUvarint(defs, 1)
	defs = appendBytes(defs, def)
	out = appendFrame(out, KindDefs, 0, 1, noTime, defs)

	var prevHdr []byte
	var prevWord uint64
	var pl []byte
	for k, s := range samples {
		hdr := append([]byte(nil), blk[:hl]...)
		le.PutUint32(hdr[hTotalByteLength:], uint32(hl+len(def)+s.cblk))
		pl = append(pl[:0], 0, 0, 1) // flags, no problems, one block
		pl = binary.AppendUvarint(pl, uint64(hl))
		var we wordEnc
		we.encode(hdr, prevHdr)
		pl = we.finish(pl)
		prevHdr = hdr
		pl = append(pl, 1, 1, 1, 1) // one object: id 1, single, NumInstances -1 (svarint 1), ...
		pl = binary.AppendVarint(pl, 0)
		pl = binary.AppendUvarint(pl, uint64(s.cblk))
		// The counter block's first word (ByteLength and the value) as
		// a literal against the previous block's, the rest zeros.
		w0 := uint64(s.cblk) | uint64(k)<<32
		pl = binary.AppendUvarint(pl, 1<<1|1)
		pl = binary.AppendVarint(pl, int64(w0-prevWord))
		prevWord = w0
		if n := s.cblk/8 - 1; n > 0 {
			pl = binary.AppendUvarint(pl, uint64(n)<<1)
		}
		pl = append(pl, 0, 0) // object tail, block tail
		for len(pl) < s.pad {
			pl = append(pl, 0)
		}
		seq, at := uint64(2+k), stamp(t0.Add(time.Duration(k)*time.Second))
		if !compress {
			out = appendFrame(out, KindSample, 0, seq, at, pl)
			continue
		}
		z := enc.EncodeAll(pl, binary.AppendUvarint(nil, uint64(len(pl))))
		if uint64(len(pl)) > 64*uint64(len(z))+1<<20 {
			tb.Fatalf("sample %d: a %d-byte payload in %d stored bytes is past what a reader takes", k, len(pl), len(z))
		}
		out = appendFrame(out, KindSample, flagCompressed, seq, at, z)
	}
	return out
}

// zstdBomb is a compressed log of n samples, each a payload of the most
// its stored bytes may claim (64 × its compressed size + 1 MiB), zeros
// after the sample's fields: about 120 stored bytes a MiB, which
// decompress to about 8,700 times their size.
func zstdBomb(tb testing.TB, n int) []byte {
	tb.Helper()
	s := make([]hostileSample, n)
	for i := range s {
		s[i] = hostileSample{cblk: 8, pad: 1<<20 + 64*64}
	}
	return hostileLog(tb, s, true)
}

// blockBomb is a plain log of n samples of a few dozen bytes each, every
// one rebuilding a block as large as the decoding allowance of the file
// (4096 × its size + 64 MiB, shared by the n samples, 1 % kept back)
// lets it: the most a file of that size may make a reader allocate.
func blockBomb(tb testing.TB, n int) []byte {
	tb.Helper()
	s := make([]hostileSample, n)
	size := int64(0)
	for range 2 { // the file's size, then the blocks it allows
		cblk := int((allowPerByte*size+allowBase)*99/100/int64(n)) &^ 7
		cblk = max(min(cblk-512, 1<<20), 8) // the block's header and definition; the first sample's budget
		for i := range s {
			s[i] = hostileSample{cblk: cblk}
		}
		size = int64(len(hostileLog(tb, s, false)))
	}
	return hostileLog(tb, s, false)
}

// tinySamples is a plain log of n samples of a few dozen bytes, each a
// block with one 8-byte counter block.
func tinySamples(tb testing.TB, n int) []byte {
	tb.Helper()
	s := make([]hostileSample, n)
	for i := range s {
		s[i] = hostileSample{cblk: 8}
	}
	return hostileLog(tb, s, false)
}

// readHostile opens the log at path and reads every sample, as a tool
// that goes on past a sample it cannot decode does: the samples read,
// those refused (with the first refusal), and the bytes decoding took of
// the file's allowance.
func readHostile(tb testing.TB, path string) (read, refused int, spent, allowance int64, first error) {
	tb.Helper()
	l, err := Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	for {
		s, err := l.Sample(tb.Context(), nil)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if refused == 0 {
				first = err
			}
			refused++
			continue
		}
		if len(s.Blocks) != 1 {
			tb.Fatalf("sample %d: %d blocks", l.Pos()-1, len(s.Blocks))
		}
		read++
	}
	return read, refused, l.spent, l.allowance, first
}

// TestHostileBinlog: what the benchmarks time is what the limits say.
// The zstd bomb decompresses up to the file's allowance and refuses the
// rest, naming the limit; the block bomb, made to use 99 % of the
// allowance, is read whole, and one more of its samples is refused; the
// tiny samples are all read.
func TestHostileBinlog(t *testing.T) {
	t.Run("zstd", func(t *testing.T) {
		data := zstdBomb(t, 200)
		read, refused, spent, allow, first := readHostile(t, hostile.WriteTemp(t, "z.plog", data))
		if read == 0 || refused == 0 || read+refused != 200 || !strings.Contains(fmt.Sprint(first), "more than a log of") {
			t.Fatalf("%d samples read, %d refused (first: %v); want some of each, the allowance named", read, refused, first)
		}
		if spent > allow || spent < allow-2<<20 {
			t.Errorf("decoding took %d bytes of an allowance of %d; want all but the last payload", spent, allow)
		}
		if want := allowPerByte*int64(len(data)) + allowBase; allow != want {
			t.Errorf("allowance %d for %d bytes, want %d", allow, len(data), want)
		}
	})
	t.Run("blocks", func(t *testing.T) {
		data := blockBomb(t, 200)
		read, refused, spent, allow, first := readHostile(t, hostile.WriteTemp(t, "b.plog", data))
		if read != 200 || refused != 0 || spent > allow || spent < allow*98/100 {
			t.Fatalf("%d samples read, %d refused (%v), %d of %d bytes spent; want all read, 98 %% to 100 %% spent", read, refused, first, spent, allow)
		}
		// One sample more than the allowance covers: refused, the
		// others read.
		s := make([]hostileSample, 201)
		cblk := int(allow/200) &^ 7
		for i := range s {
			s[i] = hostileSample{cblk: cblk}
		}
		read, refused, spent, allow, first = readHostile(t, hostile.WriteTemp(t, "b2.plog", hostileLog(t, s, false)))
		if refused == 0 || spent > allow || !strings.Contains(fmt.Sprint(first), "limit") {
			t.Fatalf("past the allowance: %d read, %d refused (%v), %d of %d bytes spent", read, refused, first, spent, allow)
		}
	})
	t.Run("tiny", func(t *testing.T) {
		read, refused, _, _, first := readHostile(t, hostile.WriteTemp(t, "t.plog", tinySamples(t, 1000)))
		if read != 1000 || refused != 0 {
			t.Fatalf("%d samples read, %d refused (%v); want 1000, 0", read, refused, first)
		}
	})
}

// BenchmarkHostileBinlog: opening and reading every sample of hostile
// binary logs that grow 1x..8x (hostile.Scales); linear cost shows as
// flat ns/in-byte and B/in-byte. zstd: payloads that each decompress to
// 1 MiB from about 120 bytes (decoding stops at the file's allowance);
// blocks: samples of a few dozen bytes that rebuild the whole allowance;
// tiny: many small samples.
func BenchmarkHostileBinlog(b *testing.B) {
	for _, c := range []struct {
		name  string
		n     int
		forge func(testing.TB, int) []byte
	}{
		{"zstd/records", 256, zstdBomb},
		{"blocks/records", 256, blockBomb},
		{"tiny/records", 10000, tinySamples},
	} {
		for _, s := range hostile.Scales {
			n := c.n * s
			b.Run(fmt.Sprintf("%s=%d", c.name, n), func(b *testing.B) {
				data := c.forge(b, n)
				path := hostile.WriteTemp(b, "h.plog", data)
				hostile.Measure(b, len(data), func() { readHostile(b, path) })
			})
		}
	}
}
