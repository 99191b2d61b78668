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
// k, and its payload is padded with zeros to pad bytes; compressed, its
// body is padded to body bytes with a skippable frame before the
// Zstandard frame (as a writer pads it).
type hostileSample struct {
	cblk, pad, body int
}

// hostileBlockFixed is the length of the forged block without its counter
// block: a sample with a counter block of cblk bytes rebuilds
// hostileBlockFixed + cblk bytes.
const hostileBlockFixed = 200

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
	if hl+len(def) != hostileBlockFixed {
		tb.Fatalf("the forged block has %d bytes besides its counter block, hostileBlockFixed says %d", hl+len(def), hostileBlockFixed)
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
		if pad := s.body - len(z); pad > 0 {
			if pad < skipHdrLen {
				tb.Fatalf("sample %d: a body of %d bytes cannot be padded to %d", k, len(z), s.body)
			}
			k := uvarintLen(uint64(len(pl)))
			z = append(appendSkippable(append([]byte(nil), z[:k]...), pad), z[k:]...)
		}
		out = appendFrame(out, KindSample, flagCompressed, seq, at, z)
	}
	return out
}

// zstdBomb is a compressed log of n samples, each a payload of the most
// its stored bytes may claim (64 × its compressed size + 1 MiB), zeros
// after the sample's fields: about 120 stored bytes a MiB, which
// decompress to about 8,700 times their size, more than a record of that
// length may make a reader produce (recordAllowance): each is refused.
func zstdBomb(tb testing.TB, n int) []byte {
	tb.Helper()
	s := make([]hostileSample, n)
	for i := range s {
		s[i] = hostileSample{cblk: 8, pad: 1<<20 + 64*64}
	}
	return hostileLog(tb, s, true)
}

// bombPad is the payload length of blockBomb's samples: their records are
// frameLen(bombPad) bytes long.
const bombPad = 96

// blockBomb is a plain log of n samples of a few dozen bytes each, every
// one rebuilding a block as large as its record's allowance
// (recordAllowance: 4096 × its length + 64 KiB): the most a file of that
// size may make a reader produce.
func blockBomb(tb testing.TB, n int) []byte {
	tb.Helper()
	s := make([]hostileSample, n)
	for i := range s {
		s[i] = hostileSample{cblk: int(recordAllowance(int64(frameLen(bombPad)))) - hostileBlockFixed, pad: bombPad}
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
// those refused (with the first refusal), and the bytes of the blocks
// read.
func readHostile(tb testing.TB, path string) (read, refused int, produced int64, first error) {
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
		produced += int64(len(s.Blocks[0].Bytes()))
		read++
	}
	return read, refused, produced, first
}

// TestHostileBinlog: what the benchmarks time is what the limits say.
// The zstd bomb's records each claim more than their length allows and
// are refused, naming the limit; the block bomb, each record rebuilding
// its whole allowance, is read whole, in bytes linear in the file's size;
// the tiny samples are all read.
func TestHostileBinlog(t *testing.T) {
	t.Run("zstd", func(t *testing.T) {
		data := zstdBomb(t, 200)
		read, refused, _, first := readHostile(t, hostile.WriteTemp(t, "z.plog", data))
		if read != 0 || refused != 200 || !strings.Contains(fmt.Sprint(first), "more than a record of") {
			t.Fatalf("%d samples read, %d refused (first: %v); want all refused, the allowance named", read, refused, first)
		}
	})
	t.Run("blocks", func(t *testing.T) {
		data := blockBomb(t, 200)
		read, refused, produced, first := readHostile(t, hostile.WriteTemp(t, "b.plog", data))
		if read != 200 || refused != 0 {
			t.Fatalf("%d samples read, %d refused (%v); want all read", read, refused, first)
		}
		if max := allowPerByte*int64(len(data)) + 200*allowPerRecord; produced > max || produced < max*9/10 {
			t.Errorf("%d bytes rebuilt from %d; want at most %d, and nearly that", produced, len(data), max)
		}
	})
	t.Run("tiny", func(t *testing.T) {
		read, refused, _, first := readHostile(t, hostile.WriteTemp(t, "t.plog", tinySamples(t, 1000)))
		if read != 1000 || refused != 0 {
			t.Fatalf("%d samples read, %d refused (%v); want 1000, 0", read, refused, first)
		}
	})
}

// BenchmarkHostileBinlog: opening and reading every sample of hostile
// binary logs that grow 1x..8x (hostile.Scales); linear cost shows as
// flat ns/in-byte and B/in-byte. zstd: payloads that each decompress to
// 1 MiB from about 120 bytes (each refused by its record's allowance);
// blocks: samples of a few dozen bytes that rebuild their whole allowance;
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
