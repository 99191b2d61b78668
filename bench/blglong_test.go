package bench

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/internal/tool/relog"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog/blg"
	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
)

// BenchmarkRelogBLGLong converts long BLGs to CSV: each Windows BLG's own
// records with its samples repeated, each repetition's clocks moved on by
// the span of the log. The Windows BLGs we have are 11 to 280 samples,
// where opening the file and setting up the first sample's columns weigh
// more than converting values; these are their steady state, the BLG
// counterpart of the 600-sample binary logs of BenchmarkRelogSaved:
//
//   - SampleLog: 8 objects stored as Windows' raw PERF_DATA_BLOCKs, 1,832
//     values a sample, 11 samples x 55 = 605;
//   - CounterSamples: 10 listed counters of 4 objects (PDH_RAW_COUNTER
//     values the reader rebuilds into blocks), 25 samples x 24 = 600;
//   - BadCounterSamples: one listed counter on each of 26 machines, 275
//     samples x 2 = 550.
//
// Values repeat from one repetition to the next, so at each repetition's
// first sample the counters that count up see their values go back:
// relog leaves those cells blank, as Windows does for a counter that went
// backwards.
func BenchmarkRelogBLGLong(b *testing.B) {
	for _, c := range []struct {
		name, file string
		repeat     int
		samples    int
	}{
		{"SampleLog", "SampleLog", 55, 605},
		{"CounterSamples", "CounterSamples", 24, 600},
		{"BadCounterSamples", "BadCounterSamples", 2, 550},
		// A day of samples every 15 s is 5,760: what opening the
		// log and setting the query up cost is spread over ten times
		// the samples.
		{"CounterSamples-6000", "CounterSamples", 240, 6000},
		{"BadCounterSamples-5500", "BadCounterSamples", 20, 5500},
	} {
		b.Run(c.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), c.name+"-long.blg")
			if err := cycleBLG(filepath.Join("..", "perflog", "blg", "testdata", c.file+".blg"), path, c.repeat); err != nil {
				b.Fatal(err)
			}
			l, err := blg.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			if l.Len() != c.samples || len(l.Notes()) > 0 {
				b.Fatalf("the repeated log has %d samples (want %d), notes %q", l.Len(), c.samples, l.Notes())
			}
			l.Close()
			benchRelog(b, func() (pdh.Source, io.Closer, error) {
				l, err := blg.Open(path)
				return l, l, err
			})
		})
	}
}

// Layout of a BLG as perflog/blg/FORMAT.md describes it.
const (
	blgBufferHeader = 72 // WMI_BUFFER_HEADER; its Offset (bytes used) at 0x30
	blgEventHeader  = 48 // EVENT_TRACE_HEADER; TimeStamp at 16, event type at 4
	blgPayloadStart = blgEventHeader + 24
	blgSample       = 0x22
	blgIndex        = 0x23
	// PERF_DATA_BLOCK fields (winperf.h): SystemTime at 0x24 is 16 bytes,
	// so PerfTime, a LARGE_INTEGER, is aligned to 0x38
	pdbPerfTime        = 0x38
	pdbPerfFreq        = 0x40
	pdbPerfTime100nSec = 0x48
)

var blgLE = binary.LittleEndian

// readBLG reads the log src and splits it into the events of its data
// buffers, in order: the file, its buffer size and the events.
func readBLG(src string) (in []byte, bs int, events [][]byte, err error) {
	in, err = os.ReadFile(src)
	if err != nil {
		return nil, 0, nil, err
	}
	bs = int(blgLE.Uint32(in))
	if bs < blgBufferHeader || len(in) < bs || len(in)%bs != 0 {
		return nil, 0, nil, fmt.Errorf("%s: buffer size %d, file %d bytes", src, bs, len(in))
	}
	for at := bs; at < len(in); at += bs {
		buf := in[at : at+bs]
		used := int(blgLE.Uint32(buf[0x30:]))
		for off := blgBufferHeader; off+blgEventHeader <= used; {
			size := int(blgLE.Uint16(buf[off:]))
			if size == 0 || size == 0xFFFF || buf[off+3] != 0xC0 || off+size > used {
				break
			}
			events = append(events, buf[off:off+size])
			off += (size + 7) &^ 7
		}
	}
	return in, bs, events, nil
}

// cycleBLG writes to dst the log src with its samples repeated n times:
// the header buffer as it is, the records before the first sample, then
// n times the sample records (their fragments as they were), each
// repetition's time stamps and block clocks later by the log's span plus
// one interval. The closing index record is left out.
func cycleBLG(src, dst string, n int) error {
	in, bs, events, err := readBLG(src)
	if err != nil {
		return err
	}
	var pre, samples [][]byte
	for _, ev := range events {
		switch ev[4] {
		case blgSample:
			samples = append(samples, ev)
		case blgIndex:
		default:
			if len(samples) == 0 {
				pre = append(pre, ev)
			}
		}
	}
	if len(samples) < 2 {
		return fmt.Errorf("%s: %d sample events", src, len(samples))
	}
	recs := splitRecords(samples)
	first, last := int64(blgLE.Uint64(recs[0][0][16:])), int64(blgLE.Uint64(recs[len(recs)-1][0][16:]))
	step := (last - first) + (last-first)/int64(max(len(recs)-1, 1)) // 100-ns units: the span and one interval
	out := append([]byte(nil), in[:bs]...)
	w := blgWriter{bs: bs, header: in[bs : bs+blgBufferHeader]}
	for _, ev := range pre {
		w.add(ev)
	}
	for c := range n {
		shift := step * int64(c)
		for _, rec := range recs {
			for _, ev := range shiftRecord(rec, shift) {
				w.add(ev)
			}
		}
	}
	out = append(out, w.finish()...)
	return os.WriteFile(dst, out, 0o600)
}

// splitRecords groups fragments into records.
func splitRecords(frags [][]byte) [][][]byte {
	var out [][][]byte
	for _, ev := range frags {
		if blgLE.Uint32(ev[blgEventHeader+16:]) == 1 || len(out) == 0 {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], ev)
	}
	return out
}

// shiftRecord returns a copy of a sample record's fragments with its time
// stamps later by shift (100-ns units): the events', the PDH_RAW_COUNTER
// values' and the instance lists' TimeStamp, and the raw blocks' PerfTime
// (in ticks of the block's PerfFreq) and PerfTime100nSec. A listed
// counter's SecondValue, a clock for most types, is left as it is.
func shiftRecord(frags [][]byte, shift int64) [][]byte {
	var data []byte // the record: the fragments' data joined
	for _, ev := range frags {
		data = append(data, ev[blgPayloadStart:]...)
	}
	total := int(blgLE.Uint32(data[4:]))
	for off := 8; off+8 <= total && off+8 <= len(data); {
		kind, n := data[off+3], int(blgLE.Uint32(data[off+4:]))
		if n < 8 || off+n > len(data) {
			break
		}
		if blk := data[off+8 : off+n]; kind == 5 && len(blk) >= pdbPerfTime100nSec+8 {
			freq := int64(blgLE.Uint64(blk[pdbPerfFreq:]))
			ticks := shift/10_000_000*freq + shift%10_000_000*freq/10_000_000 // shift*freq overflows at GHz frequencies
			blgLE.PutUint64(blk[pdbPerfTime:], uint64(int64(blgLE.Uint64(blk[pdbPerfTime:]))+ticks))
			blgLE.PutUint64(blk[pdbPerfTime100nSec:], uint64(int64(blgLE.Uint64(blk[pdbPerfTime100nSec:]))+shift))
		} else if kind == 1 && n >= 20 { // PDH_RAW_COUNTER: its TimeStamp
			blgLE.PutUint64(data[off+12:], uint64(int64(blgLE.Uint64(data[off+12:]))+shift))
		} else if kind == 2 && n >= 32 { // a wildcard instance list: its TimeStamp
			blgLE.PutUint64(data[off+24:], uint64(int64(blgLE.Uint64(data[off+24:]))+shift))
		}
		off += n
	}
	out := make([][]byte, len(frags))
	at := 0
	for i, ev := range frags {
		e := append([]byte(nil), ev...)
		blgLE.PutUint64(e[16:], uint64(int64(blgLE.Uint64(e[16:]))+shift))
		k := copy(e[blgPayloadStart:], data[at:])
		at += k
		out[i] = e
	}
	return out
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
	blgLE.PutUint32(w.cur[0x30:], uint32(len(w.cur)))
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

// TestCycleBLG: a log repeated twice reads as the original for its first
// repetition (the same CSV rows, header included), holds twice the
// samples, its second repetition starts one interval after the first
// ends, and its rows after the second repetition's first hold the
// original's values.
func TestCycleBLG(t *testing.T) {
	for _, tc := range []struct {
		name    string
		samples int
	}{{"SampleLog", 11}, {"CounterSamples", 25}, {"BadCounterSamples", 275}} {
		t.Run(tc.name, func(t *testing.T) {
			src := filepath.Join("..", "perflog", "blg", "testdata", tc.name+".blg")
			dst := filepath.Join(t.TempDir(), "x2.blg")
			if err := cycleBLG(src, dst, 2); err != nil {
				t.Fatal(err)
			}
			csv := func(path string) []string {
				l, err := blg.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer l.Close()
				var out strings.Builder
				if _, _, err := relog.Run(t.Context(), l, relog.Options{Format: pdhcsv.CSV, Location: time.UTC}, &out); err != nil {
					t.Fatal(err)
				}
				return strings.Split(strings.TrimSpace(out.String()), "\n")
			}
			n := tc.samples
			orig, twice := csv(src), csv(dst)
			if len(orig) != n+1 || len(twice) != 2*n+1 {
				t.Fatalf("%d and %d rows, want %d (header and %d samples) and %d", len(orig), len(twice), n+1, n, 2*n+1)
			}
			for i, row := range orig {
				if twice[i] != row {
					t.Errorf("row %d differs:\n got %.120s\nwant %.120s", i, twice[i], row)
				}
			}
			for i := 2; i <= n; i++ {
				_, got, _ := strings.Cut(twice[n+i], ",")
				_, want, _ := strings.Cut(orig[i], ",")
				if got != want {
					t.Errorf("row %d of the second repetition differs from the original's:\n got %.120s\nwant %.120s", i, got, want)
				}
			}
			layout := `"01/02/2006 15:04:05.000"`
			stamp := func(row string) time.Time {
				s, _, _ := strings.Cut(row, ",")
				ts, err := time.Parse(layout, s)
				if err != nil {
					t.Fatal(err)
				}
				return ts
			}
			first, last, again := stamp(orig[1]), stamp(orig[n]), stamp(twice[n+1])
			if step := last.Sub(first) / time.Duration(n-1); again.Sub(last) < step-time.Second || again.Sub(last) > step+time.Second {
				t.Errorf("the second repetition starts %v after the first ends, want one interval (%v)", again.Sub(last), step)
			}
		})
	}
}
