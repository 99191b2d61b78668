// Package hostile is test support for issue 28's linear-cost checks: it
// forges hostile logs (Windows' BLG, PDH-CSV text logs) of a chosen size
// for the benchmarks of the packages that read them (perflog, the
// /v1/logs upload of internal/logview), and measures an operation's cost
// per input byte. The inputs are made in memory, never committed; see
// bench/RESULTS.md, section "Hostile inputs: linear cost".
package hostile

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"
)

// Scales are the input sizes of every hostile benchmark, as multiples of
// its smallest: linear cost shows as ns/in-byte and B/in-byte that stay
// flat while the input grows 8x.
var Scales = []int{1, 2, 4, 8}

// Measure runs op in b's loop over an input of n bytes and reports, as the
// benchmarks of internal/tool/dump and manifest do, its cost per input
// byte: ns/in-byte (wall time) and B/in-byte (bytes allocated,
// runtime.MemStats.TotalAlloc, by every goroutine while op ran).
func Measure(b *testing.B, n int, op func()) {
	b.Helper()
	b.SetBytes(int64(n))
	b.ReportAllocs()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for b.Loop() {
		op()
	}
	runtime.ReadMemStats(&m1)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/in-byte")
	b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/float64(b.N)/float64(n), "B/in-byte")
}

// WriteTemp writes data to a file name in a temporary directory of tb and
// returns its path.
func WriteTemp(tb testing.TB, name string, data []byte) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		tb.Fatal(err)
	}
	return p
}

// BLG layout (perflog/blg/FORMAT.md).
const (
	blgBufferHeader = 72 // WMI_BUFFER_HEADER; Offset (bytes used) at 0x30
	blgEventHeader  = 48 // EVENT_TRACE_HEADER: Size at 0, type at 4, TimeStamp at 16
	blgPrefix       = 24 // the log's GUID, fragment number, fragment count
	blgFragment     = 8000
	blgCounterList  = 0x20
	blgSample       = 0x22
	// RawCount is PERF_COUNTER_RAWCOUNT: a listed counter of this type
	// reads its FirstValue as it is.
	RawCount = 0x00010000
)

var le = binary.LittleEndian

// BLGCounter is one entry of a forged BLG's counter list: an explicit
// counter (Instance "" for a single-instance object), or with Instance
// "*" a counter whose samples hold a list of instances.
type BLGCounter struct {
	Machine, Object, Instance, Counter string
}

// BLG is a Windows binary log with the given counter list (every counter a
// PERF_COUNTER_RAWCOUNT) and samples sample records, one a second: in
// sample s, explicit counter k holds the value s+k, and a counter with
// instance "*" holds, for each of the names in instances, the value s+i
// (instance i). The log-file header and the buffers' headers are those of
// perflog/blg/testdata/CounterSamples.blg (buffers of 64 KiB; the zone
// Pacific Standard Time), its records split into events of at most 8,000
// data bytes as Windows splits them.
func BLG(tb testing.TB, list []BLGCounter, samples int, instances []string) []byte {
	tb.Helper()
	tpl := blgTemplate(tb)
	bs := int(le.Uint32(tpl))
	w := blgWriter{bs: bs, header: tpl[bs : bs+blgBufferHeader]}
	ev := tpl[bs+blgBufferHeader : bs+blgBufferHeader+blgEventHeader+blgPrefix] // the counter list's event
	t0 := int64(le.Uint64(ev[16:]))

	// The counter list: an 8-byte header, then one entry per counter.
	rec := []byte{0xff, 0x06, 0x00, 0x00, 0x08, 0x00, 0x02, 0x00}
	for k, c := range list {
		var strs []byte
		str := func(s string) uint32 {
			at := len(strs)
			for _, u := range utf16.Encode([]rune(s)) {
				strs = le.AppendUint16(strs, u)
			}
			strs = append(strs, 0, 0)
			return uint32(at)
		}
		e := make([]byte, 52)
		le.PutUint32(e[4:], 0x20000000)
		le.PutUint32(e[8:], uint32(k))
		le.PutUint32(e[12:], RawCount)
		le.PutUint64(e[16:], 10_000_000)
		le.PutUint32(e[28:], str(`\\`+c.Machine))
		le.PutUint32(e[32:], str(c.Object))
		le.PutUint32(e[36:], 0xFFFFFFFF)
		if c.Instance != "" {
			le.PutUint32(e[36:], str(c.Instance))
		}
		le.PutUint32(e[40:], 0xFFFFFFFF)
		le.PutUint32(e[48:], str(c.Counter))
		e = append(e, strs...)
		for len(e)%8 != 0 {
			e = append(e, 0)
		}
		le.PutUint32(e[0:], uint32(len(e)))
		rec = append(rec, e...)
	}
	w.record(ev, blgCounterList, t0, rec)

	// The samples.
	var names []byte // the instance names of a list, UTF-16, NUL-terminated
	var nameOff []uint32
	for _, n := range instances {
		nameOff = append(nameOff, uint32(len(names)))
		for _, u := range utf16.Encode([]rune(n)) {
			names = le.AppendUint16(names, u)
		}
		names = append(names, 0, 0)
	}
	for s := range samples {
		at := t0 + int64(s+1)*10_000_000
		rec = append(rec[:0], 'B', 'L', 3, 0, 0, 0, 0, 0)
		for k, c := range list {
			if c.Instance == "*" {
				// "BL" 03 02, length; size, count, status, 0, time; items; names
				n := len(instances)
				head := len(rec)
				rec = append(rec, 'B', 'L', 3, 2)
				rec = le.AppendUint32(rec, 0)
				rec = le.AppendUint32(rec, 0)
				rec = le.AppendUint32(rec, uint32(n))
				rec = le.AppendUint32(rec, 0)
				rec = le.AppendUint32(rec, 0)
				rec = le.AppendUint64(rec, uint64(at))
				names0 := uint32(24 + 24*n)
				for i := range n {
					rec = le.AppendUint32(rec, names0+nameOff[i])
					rec = le.AppendUint32(rec, 1)
					rec = le.AppendUint64(rec, uint64(s+i))
					rec = le.AppendUint64(rec, 0)
				}
				rec = append(rec, names...)
				for (len(rec)-head)%8 != 0 {
					rec = append(rec, 0)
				}
				le.PutUint32(rec[head+4:], uint32(len(rec)-head))
				le.PutUint32(rec[head+8:], uint32(len(rec)-head-8))
				continue
			}
			// "BL" 03 01, length 48: a PDH_RAW_COUNTER
			raw := make([]byte, 48)
			copy(raw, "BL\x03\x01")
			le.PutUint32(raw[4:], 48)
			le.PutUint64(raw[12:], uint64(at))
			le.PutUint64(raw[24:], uint64(s+k))
			le.PutUint32(raw[40:], 1)
			rec = append(rec, raw...)
		}
		le.PutUint32(rec[4:], uint32(len(rec)))
		w.record(ev, blgSample, at, rec)
	}
	return append(append([]byte(nil), tpl[:bs]...), w.finish()...)
}

var (
	blgMu  sync.Mutex
	blgTpl []byte
)

// blgTemplate is CounterSamples.blg, read once.
func blgTemplate(tb testing.TB) []byte {
	tb.Helper()
	blgMu.Lock()
	defer blgMu.Unlock()
	if blgTpl != nil {
		return blgTpl
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("hostile: no source location for perflog/blg/testdata")
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "perflog", "blg", "testdata", "CounterSamples.blg"))
	if err != nil {
		tb.Fatal(err)
	}
	if bs := int(le.Uint32(b)); len(b) < 2*bs || b[bs+blgBufferHeader+4] != blgCounterList {
		tb.Fatalf("hostile: CounterSamples.blg does not start with a header buffer and its counter list")
	}
	blgTpl = b
	return b
}

// blgWriter packs events into buffers as a BLG lays them out: each buffer
// a copy of a data buffer's header with its Offset set, the events at
// 8-byte boundaries, the rest padded with 0xFF.
type blgWriter struct {
	bs     int
	header []byte
	out    []byte
	cur    []byte
}

// record adds one PDH record of type typ, time at (FILETIME, local),
// split into events made from the event header and prefix ev.
func (w *blgWriter) record(ev []byte, typ byte, at int64, data []byte) {
	count := max((len(data)+blgFragment-1)/blgFragment, 1)
	for i := range count {
		chunk := data[i*blgFragment : min((i+1)*blgFragment, len(data))]
		e := append(append([]byte(nil), ev...), chunk...)
		le.PutUint16(e[0:], uint16(len(e)))
		e[4] = typ
		le.PutUint64(e[16:], uint64(at))
		le.PutUint32(e[blgEventHeader+16:], uint32(i+1))
		le.PutUint32(e[blgEventHeader+20:], uint32(count))
		w.add(e)
	}
}

func (w *blgWriter) add(ev []byte) {
	if w.cur != nil && len(w.cur)+len(ev) > w.bs {
		w.flush()
	}
	if w.cur == nil {
		w.cur = append(make([]byte, 0, w.bs), w.header...)
	}
	w.cur = append(w.cur, ev...)
	for len(w.cur)%8 != 0 && len(w.cur) < w.bs {
		w.cur = append(w.cur, 0)
	}
}

func (w *blgWriter) flush() {
	le.PutUint32(w.cur[0x30:], uint32(len(w.cur)))
	for len(w.cur) < w.bs {
		w.cur = append(w.cur, 0xFF)
	}
	w.out = append(w.out, w.cur...)
	w.cur = nil
}

func (w *blgWriter) finish() []byte {
	if w.cur != nil {
		w.flush()
	}
	return w.out
}

// CSVHeader is the first cell of the forged text logs: PDH-CSV in UTC.
const CSVHeader = `"(PDH-CSV 4.0) (Coordinated Universal Time)(0)"`

// CSV is a PDH-CSV log (CRLF line ends, as Windows writes them) with the
// given counter paths as its columns and rows rows, one a second from
// 2026-11-29 00:00:00 UTC: row r's cell of column c is cell(r, c).
func CSV(paths []string, rows int, cell func(r, c int) string) []byte {
	var b strings.Builder
	b.WriteString(CSVHeader)
	for _, p := range paths {
		b.WriteString(`,"`)
		b.WriteString(p)
		b.WriteByte('"')
	}
	b.WriteString("\r\n")
	t0 := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	for r := range rows {
		b.WriteByte('"')
		b.WriteString(t0.Add(time.Duration(r) * time.Second).Format("01/02/2006 15:04:05.000"))
		b.WriteByte('"')
		for c := range paths {
			b.WriteString(`,"`)
			b.WriteString(cell(r, c))
			b.WriteByte('"')
		}
		b.WriteString("\r\n")
	}
	return []byte(b.String())
}

// Counters are n paths `\\H\Object\Counter NNNNNNN`: n counters of one
// single-instance object.
func Counters(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(`\\H\Object\Counter %07d`, i)
	}
	return out
}
