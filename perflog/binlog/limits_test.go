package binlog

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
)

// idleProvider makes the samples of an idle V2 provider: one object of n
// instances named as a provider names them, counters 8-byte counters
// each, and values that stay as they were but for one instance's first
// counter each sample. The block is built once; each sample is a copy
// with its times and that one value written again (Builder.Restamp,
// AppendValues), so that 65,530 instances cost a copy a sample.
type idleProvider struct {
	b    *perfdata.Builder
	vals []perfdata.Values
	n    int
}

var idleStart = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func newIdleProvider(tb testing.TB, n, counters int) *idleProvider {
	tb.Helper()
	var cs []perfdata.CounterSpec
	for j := range counters {
		cs = append(cs, perfdata.CounterSpec{NameIndex: uint32(2000 + 2*j), HelpIndex: uint32(2001 + 2*j), DetailLevel: 100, Type: countertype.PERF_COUNTER_BULK_COUNT})
	}
	lay, err := perfdata.NewLayout(cs)
	if err != nil {
		tb.Fatal(err)
	}
	b := perfdata.NewBuilder(nil)
	b.Reset(idleHeader(0))
	if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: 1998, HelpIndex: 1999, DetailLevel: 100}, lay, cs); err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		b.Instance(fmt.Sprintf("session:%d/queue", i), 0, 0, perfdata.NoUniqueID)
	}
	if err := b.EndObject(); err != nil {
		tb.Fatal(err)
	}
	p := &idleProvider{b: b, n: n}
	p.vals = b.AppendValues(nil)
	if len(p.vals) != n {
		tb.Fatalf("%d counter blocks for %d instances", len(p.vals), n)
	}
	return p
}

func idleHeader(k int) perfdata.Header {
	at := idleStart.Add(time.Duration(k) * time.Second)
	return perfdata.Header{PerfTime: int64(k) * 1e9, PerfFreq: 1e9, PerfTime100nSec: perfdata.FileTime(at),
		SystemTime: perfdata.SystemTimeOf(at), SystemName: "IDLEHOST"}
}

// sample returns sample k; samples are made in order (0, 1, 2, ...), and
// again from 0 after a reset.
func (p *idleProvider) sample(tb testing.TB, k int) *pdh.Sample {
	tb.Helper()
	if k == 0 {
		for _, v := range p.vals {
			v.Set(0, 0)
		}
	}
	h := idleHeader(k)
	p.b.Restamp(h, h.PerfTime, h.PerfFreq)
	p.vals[(k*7919)%p.n].Add(0, 1)
	s, err := pdh.NewSample([][]byte{bytes.Clone(p.b.Bytes())})
	if err != nil {
		tb.Fatal(err)
	}
	s.Time = idleStart.Add(time.Duration(k) * time.Second)
	return s
}

// recordUse is what a SAMPLE record makes a reader produce: its payload
// decompressed (compressed records) and the blocks it rebuilds.
type recordUse struct {
	off, length, produced int64
}

// sampleUse returns, for each sample of the log at path, its record's use
// of its allowance; want is sample i as written.
func sampleUse(t *testing.T, path string, want func(int) *pdh.Sample) []recordUse {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var out []recordUse
	for i := range l.Len() {
		s, err := l.Sample(t.Context(), nil)
		if err != nil {
			t.Fatalf("sample %d: %v", i, err)
		}
		if d := sameSample(s, want(i)); d != "" {
			t.Fatalf("sample %d: %s", i, d)
		}
		f := l.sc.records[l.samples[i].rec]
		u := recordUse{off: f.off, length: int64(f.length)}
		for _, b := range s.Blocks {
			u.produced += int64(len(b.Bytes()))
		}
		if f.flags&flagCompressed != 0 {
			p, _ := binary.Uvarint(data[f.off+frameHdrLen:])
			u.produced += int64(p)
		}
		out = append(out, u)
	}
	return out
}

// TestIdleProviderLog is issue 43 item 6: a log of an idle provider with
// 65,530 instances, its samples of 10 MB stored in about 150 bytes each,
// was refused after about 60 samples by a budget over the whole file
// (4096 bytes decoded per byte of file, plus 64 MiB), which the writer
// knew nothing of. Every sample of what the writer writes reads back; a
// record that rebuilds more than its length allows is padded by the
// writer to the shortest length that allows it, so that such records sit
// exactly at the limit. The full size is skipped with -short; the small
// provider crosses the same limit in every compressed sample.
func TestIdleProviderLog(t *testing.T) {
	for _, tc := range []struct {
		name                string
		instances, counters int
		samples             int
		compress            []bool
		full                bool
	}{
		{"2000 instances", 2000, 60, 200, []bool{true, false}, false},
		{"65530 instances", 65530, 12, 80, []bool{true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.full && testing.Short() {
				t.Skip("-short: the 2000-instance provider crosses the same limit")
			}
			p := newIdleProvider(t, tc.instances, tc.counters)
			for _, compress := range tc.compress {
				path := filepath.Join(t.TempDir(), "idle.plog")
				opts := DefaultOptions()
				opts.Compress = compress
				opts.Location = time.UTC
				w, err := Create(path, opts)
				if err != nil {
					t.Fatal(err)
				}
				for k := range tc.samples {
					if err := w.WriteSample(p.sample(t, k)); err != nil {
						t.Fatalf("sample %d: %v", k, err)
					}
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				next := 0
				want := func(i int) *pdh.Sample {
					if i != next {
						t.Fatalf("sample %d asked for after %d", i, next-1)
					}
					next++
					return p.sample(t, i)
				}
				use := sampleUse(t, path, want)
				if len(use) != tc.samples {
					t.Fatalf("compress %v: %d samples read back, want %d", compress, len(use), tc.samples)
				}
				atLimit := 0
				for i, u := range use {
					if allow := recordAllowance(u.length); u.produced > allow {
						t.Errorf("compress %v: sample %d (byte %d): %d bytes produced from a record of %d, allowed %d", compress, i, u.off, u.produced, u.length, allow)
					}
					if u.produced > recordAllowance(u.length-recordAlignment) {
						atLimit++
					}
				}
				// An idle sample compresses to a record far shorter than
				// its blocks allow: every one after the first is padded.
				if compress && atLimit < tc.samples-1 {
					t.Errorf("compress %v: %d of %d records at the limit; want all but the first", compress, atLimit, tc.samples)
				}
				if !compress && atLimit != 0 {
					t.Errorf("compress %v: %d records at the limit; want none (a plain idle sample is long enough)", compress, atLimit)
				}
			}
		})
	}
}

// recordAlignment is the step of record lengths: a record one step
// shorter is the next length a writer could have written.
const recordAlignment = 8

// forgedLimits are forged logs (hostileLog) of one sample each, at a
// reader's limits and one past them.
func TestRecordLimits(t *testing.T) {
	// A plain record of frameLen(pad) bytes rebuilding exactly its
	// allowance, then 8 bytes more (counter blocks are whole words).
	const pad = 200
	plainAllow := int(recordAllowance(int64(frameLen(pad))))
	// A compressed record whose body is held at body bytes by a skippable
	// frame: its payload (pad bytes) and blocks make its allowance.
	const body = 200
	zAllow := int(recordAllowance(int64(frameLen(body))))
	// A compressed body of claimBody bytes may claim a payload of 64 ×
	// claimBody + 1 MiB bytes.
	const claimBody = 1024
	claim := claimPerByte*claimBody + claimBase
	// A first sample of a payload of budgetPad bytes rebuilds at most
	// sampleBudget(0, budgetPad), less than its record's allowance.
	const budgetPad = 2000
	budget := sampleBudget(0, budgetPad)
	if int64(budget) >= recordAllowance(int64(frameLen(budgetPad))) || int64(zAllow-pad) >= int64(sampleBudget(0, pad)) {
		t.Fatal("the cases do not test the limit they name")
	}
	for _, tc := range []struct {
		name     string
		s        hostileSample
		compress bool
		refusal  string // "" reads
	}{
		{"plain at its allowance", hostileSample{cblk: plainAllow - hostileBlockFixed, pad: pad}, false, ""},
		{"plain one word past", hostileSample{cblk: plainAllow - hostileBlockFixed + 8, pad: pad}, false, "the record's allowance"},
		{"compressed at its allowance", hostileSample{cblk: zAllow - pad - hostileBlockFixed, pad: pad, body: body}, true, ""},
		{"compressed one word past", hostileSample{cblk: zAllow - pad - hostileBlockFixed + 8, pad: pad, body: body}, true, "the record's allowance"},
		{"first sample at its budget", hostileSample{cblk: budget - hostileBlockFixed, pad: budgetPad}, false, ""},
		{"first sample one word past", hostileSample{cblk: budget - hostileBlockFixed + 8, pad: budgetPad}, false, "the sample's budget"},
		{"payload claim at its limit", hostileSample{cblk: 8, pad: claim, body: claimBody}, true, ""},
		{"payload claim one past", hostileSample{cblk: 8, pad: claim + 1, body: claimBody}, true, "exceeds the limit for 1024 stored bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := hostileLog(t, []hostileSample{tc.s}, tc.compress)
			l, err := Read(bytes.NewReader(data), int64(len(data)), "forged.plog")
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			s, err := l.Sample(t.Context(), nil)
			if tc.refusal == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got, want := len(s.Blocks[0].Bytes()), hostileBlockFixed+tc.s.cblk; got != want {
					t.Errorf("%d bytes rebuilt, want %d", got, want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.refusal) || !strings.Contains(err.Error(), "FORMAT.md, Limits") {
				t.Errorf("error %v, want one naming %q and the limits", err, tc.refusal)
			}
		})
	}
}

// TestFrameLimits: the longest record a reader takes is the longest a
// writer writes; a payload or record past them is refused by the writer,
// before it is compressed or copied.
func TestFrameLimits(t *testing.T) {
	for _, tc := range []struct {
		length int64
		ok     bool
	}{{maxRecord, true}, {maxRecord + recordAlignment, false}, {minRecord, true}, {minRecord - recordAlignment, false}} {
		h := make([]byte, frameHdrLen)
		le.PutUint32(h[0:], uint32(tc.length))
		h[4] = byte(KindSample)
		le.PutUint16(h[6:], syncMark)
		le.PutUint32(h[24:], uint32(max(tc.length-minRecord, 0)))
		le.PutUint32(h[28:], crc32.Checksum(h[:28], castagnoli))
		if _, ok := parseFrameHeader(h, 64); ok != tc.ok {
			t.Errorf("a record of %d bytes: taken %v, want %v", tc.length, ok, tc.ok)
		}
	}
	if frameLen(maxRecord-minRecord) != maxRecord || frameLen(maxRecord-minRecord+1) <= maxRecord {
		t.Fatalf("frameLen around the longest record")
	}

	for _, compress := range []bool{false, true} {
		w, err := Create(filepath.Join(t.TempDir(), "big.plog"), Options{Compress: compress, Location: time.UTC})
		if err != nil {
			t.Fatal(err)
		}
		// Zero pages never touched: the writer refuses them by their length.
		for _, tc := range []struct {
			n    int
			want string
		}{
			{maxPayload + 1, "longer than a reader takes (268435456 bytes"},
		} {
			_, _, err := w.frameRecord(nil, KindSample, 0, 0, make([]byte, tc.n), 0)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("compress %v: a payload of %d bytes: %v, want %q", compress, tc.n, err, tc.want)
			}
		}
		if !compress {
			// Plain, the longest payload is the longest record's body.
			_, _, err := w.frameRecord(nil, KindSample, 0, 0, make([]byte, maxRecord-minRecord+1), 0)
			if err == nil || !strings.Contains(err.Error(), "record with a body of") {
				t.Errorf("a plain body one byte past the longest record: %v", err)
			}
		}
		w.Close()
	}
}

// TestWriterClaim: a payload that compresses more than its stored bytes
// may claim (claimFits) is stored as it is, and reads back.
func TestWriterClaim(t *testing.T) {
	w, err := Create(filepath.Join(t.TempDir(), "claim.plog"), Options{Compress: true, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, tc := range []struct {
		n          int
		compressed bool
	}{{1 << 20, true}, {4 << 20, false}} {
		rec, stored, err := w.frameRecord(nil, KindDefs, 0, 0, make([]byte, tc.n), 0)
		if err != nil {
			t.Fatal(err)
		}
		f, ok := parseFrameHeader(rec, 64)
		if !ok || len(stored) != tc.n {
			t.Fatalf("%d zero bytes: a record that does not parse, or %d bytes stored", tc.n, len(stored))
		}
		if got := f.flags&flagCompressed != 0; got != tc.compressed {
			t.Errorf("%d zero bytes: compressed %v, want %v", tc.n, got, tc.compressed)
		}
		if f.flags&flagCompressed != 0 && !claimFits(uint64(tc.n), uint64(f.bodyLen)) {
			t.Errorf("%d zero bytes compressed into %d", tc.n, f.bodyLen)
		}
	}
}

// TestZoneOffsetLimit: a zone at most 24 hours from UTC is written and
// read back; one second more is refused by the writer (a reader refuses
// the epoch's information record).
func TestZoneOffsetLimit(t *testing.T) {
	s := liveSamples(t, 1, 3)
	for _, tc := range []struct {
		offset int
		ok     bool
	}{{maxUTCOffset, true}, {-maxUTCOffset, true}, {maxUTCOffset + 1, false}, {-maxUTCOffset - 1, false}} {
		path := filepath.Join(t.TempDir(), "z.plog")
		w, err := Create(path, Options{Location: time.FixedZone("far", tc.offset)})
		if err != nil {
			t.Fatal(err)
		}
		err = w.WriteSample(s[0])
		w.Close()
		if !tc.ok {
			if err == nil || !strings.Contains(err.Error(), "FORMAT.md, Limits") {
				t.Errorf("offset %d: %v, want the writer's refusal", tc.offset, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("offset %d: %v", tc.offset, err)
		}
		l, got := readAll(t, path)
		if len(got) != 1 {
			t.Fatalf("offset %d: %d samples", tc.offset, len(got))
		}
		if _, off := got[0].Time.In(l.Location()).Zone(); off != tc.offset {
			t.Errorf("offset %d read back as %d", tc.offset, off)
		}
	}
}

// TestSkippable: the padding of compressed bodies.
func TestSkippable(t *testing.T) {
	frame := []byte{0x28, 0xB5, 0x2F, 0xFD, 1, 2, 3}
	for _, tc := range []struct {
		name string
		in   []byte
		rest []byte
		ok   bool
	}{
		{"none", frame, frame, true},
		{"one", append(appendSkippable(nil, 8), frame...), frame, true},
		{"two", append(appendSkippable(appendSkippable(nil, 20), 9), frame...), frame, true},
		{"cut", appendSkippable(nil, 20)[:15], nil, false},
		{"cut header", appendSkippable(nil, 20)[:6], nil, false},
		{"size past the end", append(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, skipMagicMax), 100), 1, 2), nil, false},
	} {
		rest, ok := skipSkippable(tc.in)
		if ok != tc.ok || !bytes.Equal(rest, tc.rest) {
			t.Errorf("%s: %x %v, want %x %v", tc.name, rest, ok, tc.rest, tc.ok)
		}
	}
}
