package bench

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog/blg"
)

// BenchmarkRelogBLGWeek converts to CSV a week of samples every 15 s
// (40,325) of 200 listed counters: CounterSamples.blg (10 listed counters
// of 4 objects, 6 list entries, 25 samples) with its counter list widened 20 times
// (widenBLG: the copies' counter names differ in their last two letters)
// and its samples repeated 1,613 times (cycleBLG). The file is 660 MB; it
// is written into the benchmark's temporary folder. This is the budget
// of issue 27: under 5 s of wall time.
func BenchmarkRelogBLGWeek(b *testing.B) {
	dir := b.TempDir()
	wide := filepath.Join(dir, "CounterSamples-x20.blg")
	if err := widenBLG(filepath.Join("..", "perflog", "blg", "testdata", "CounterSamples.blg"), wide, 20); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "CounterSamples-week.blg")
	if err := cycleBLG(wide, path, 1613); err != nil {
		b.Fatal(err)
	}
	os.Remove(wide)
	l, err := blg.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	// The list's 6 entries, one of them a wildcard instance of 5
	// instances, are 10 counters; 20 copies are 120 entries, 200 counters.
	if l.Len() != 40325 || len(l.Counters()) != 120 || len(l.Notes()) > 0 {
		b.Fatalf("the week's log has %d samples and %d list entries (want 40,325 and 120), notes %q", l.Len(), len(l.Counters()), l.Notes())
	}
	l.Close()
	benchRelog(b, func() (pdh.Source, io.Closer, error) {
		l, err := blg.Open(path)
		return l, l, err
	})
}

// blgFragment is the most data one event of a record carries, as
// Windows splits SampleLog's samples.
const blgFragment = 8000

// widenBLG writes to dst the log src with each entry of its counter list
// copied n times, the copies' counter names changed in their last two
// UTF-16 characters (the first copy keeps the name), and each sample
// record's sub-records repeated n times in the same order, records
// fragmented again into events of at most blgFragment data bytes. The
// closing index record is left out.
func widenBLG(src, dst string, n int) error {
	in, bs, events, err := readBLG(src)
	if err != nil {
		return err
	}
	w := blgWriter{bs: bs, header: in[bs : bs+blgBufferHeader]}
	for _, rec := range splitRecords(events) {
		head := rec[0][:blgPayloadStart]
		var data []byte
		for _, ev := range rec {
			data = append(data, ev[blgPayloadStart:]...)
		}
		switch head[4] {
		case blgIndex:
			continue
		case 0x20:
			if data, err = widenList(data, n); err != nil {
				return err
			}
		case blgSample:
			total := int(blgLE.Uint32(data[4:]))
			if total < 8 || total > len(data) {
				return fmt.Errorf("%s: a sample record of %d bytes says %d", src, len(data), total)
			}
			out := append([]byte(nil), data[:8]...)
			for range n {
				out = append(out, data[8:total]...)
			}
			blgLE.PutUint32(out[4:], uint32(len(out)))
			data = append(out, data[total:]...)
		}
		count := (len(data) + blgFragment - 1) / blgFragment
		for i := range count {
			chunk := data[i*blgFragment : min((i+1)*blgFragment, len(data))]
			ev := append(append([]byte(nil), head...), chunk...)
			blgLE.PutUint16(ev, uint16(len(ev)))
			blgLE.PutUint32(ev[blgEventHeader+16:], uint32(i+1))
			blgLE.PutUint32(ev[blgEventHeader+20:], uint32(count))
			w.add(ev)
		}
	}
	out := append(append([]byte(nil), in[:bs]...), w.finish()...)
	return os.WriteFile(dst, out, 0o600)
}

// widenList copies each entry of a counter list record (perflog/blg's
// FORMAT.md: an 8-byte header, then entries of their own length whose
// strings follow at 52, the counter name's offset at 48) n times, the
// copies' counter names changed in their last two characters.
func widenList(data []byte, n int) ([]byte, error) {
	var entries [][]byte
	for off := 8; off < len(data); {
		size := int(blgLE.Uint32(data[off:]))
		if size < 52 || off+size > len(data) {
			break
		}
		entries = append(entries, data[off:off+size])
		off += size
	}
	out := append([]byte(nil), data[:8]...)
	for c := range n {
		for _, e := range entries {
			at := len(out)
			out = append(out, e...)
			if c == 0 {
				continue
			}
			name := 52 + int(blgLE.Uint32(e[48:]))
			end := name
			for end+1 < len(e) && (e[end] != 0 || e[end+1] != 0) {
				end += 2
			}
			if end-name < 4 {
				return nil, fmt.Errorf("a counter name of %d bytes", end-name)
			}
			blgLE.PutUint16(out[at+end-4:], uint16('A'+c/26))
			blgLE.PutUint16(out[at+end-2:], uint16('a'+c%26))
		}
	}
	return out, nil
}
