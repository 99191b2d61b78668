package blg

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
)

func open(t *testing.T, name string) *Log {
	t.Helper()
	l, err := Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// all reads every sample; samples that fail to decode are errors.
func all(t *testing.T, l *Log) []*pdh.Sample {
	t.Helper()
	var out []*pdh.Sample
	for {
		s, err := l.Sample(context.Background(), nil)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		// Blocks reference the reader's buffer until the next call: copy.
		raw := make([][]byte, len(s.Blocks))
		for i, b := range s.Blocks {
			raw[i] = bytes.Clone(b.Bytes())
		}
		cp, err := pdh.NewSample(raw)
		if err != nil {
			t.Fatal(err)
		}
		c := *s
		c.Blocks = cp.Blocks
		out = append(out, &c)
	}
}

// TestHeaders: what the log-file headers say, compared with what the files'
// provenance records (PowerShell's tests, the CSV header, PAL's README).
func TestHeaders(t *testing.T) {
	for _, tc := range []struct {
		file                string
		samples             int
		std, dst            string
		bias                int32
		origPath            string
		first, last         string // local time, as PowerShell's -Summary shows
		pointerSize, osBild uint32
	}{
		{"CounterSamples.blg", 25, "Pacific Standard Time", "Pacific Daylight Time", 480, `C:\Users\jeffbi\CounterSamples.blg`,
			"2016-11-26 13:46:30.874", "2016-11-26 13:47:42.983", 8, 14393},
		{"BadCounterSamples.blg", 275, "SA Eastern Standard Time", "SA Eastern Standard Time", 180, `C:\PerfLogs\Monitor Server Processor_20070702.blg`,
			"", "", 4, 3790},
		{"SampleLog.blg", 11, "Eastern Standard Time", "Eastern Daylight Time", 300, `c:\perflogs\HealthCheck_SystemOverview_localhost_000001.blg`,
			"2007-08-14 15:40:38.659", "2007-08-14 15:50:38.599", 4, 6000},
	} {
		t.Run(tc.file, func(t *testing.T) {
			l := open(t, tc.file)
			h := l.Header()
			if l.Len() != tc.samples {
				t.Errorf("%d samples, want %d", l.Len(), tc.samples)
			}
			z := h.Zone
			if z.StandardName != tc.std || z.DaylightName != tc.dst || z.Bias != tc.bias {
				t.Errorf("zone %q/%q bias %d, want %q/%q %d", z.StandardName, z.DaylightName, z.Bias, tc.std, tc.dst, tc.bias)
			}
			if h.OriginalPath != tc.origPath {
				t.Errorf("original path %q, want %q", h.OriginalPath, tc.origPath)
			}
			if h.PointerSize != tc.pointerSize || h.OSBuild != tc.osBild {
				t.Errorf("pointer size %d, build %d; want %d, %d", h.PointerSize, h.OSBuild, tc.pointerSize, tc.osBild)
			}
			const layout = "2006-01-02 15:04:05.000"
			if tc.first != "" {
				if got := l.Time(0).In(l.Location()).Format(layout); got != tc.first {
					t.Errorf("first sample %s, want %s", got, tc.first)
				}
				if got := l.Time(l.Len() - 1).In(l.Location()).Format(layout); got != tc.last {
					t.Errorf("last sample %s, want %s", got, tc.last)
				}
			}
			if n := l.Notes(); len(n) != 0 {
				t.Errorf("notes on an intact file: %q", n)
			}
		})
	}
}

// TestSampleLogBlocks: the wildcard collection's samples are the 88 blocks
// extracted from the same file (their sha256 sums, from the conformance
// set), in sample order, each sample's blocks in file order.
func TestSampleLogBlocks(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "SampleLog-blocks.sha256"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{} // "NN-IIII" -> sum
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("manifest line %q", sc.Text())
		}
		want[name[1:8]] = sum
	}
	l := open(t, "SampleLog.blg")
	samples := all(t, l)
	if len(samples) != 11 {
		t.Fatalf("%d samples, want 11", len(samples))
	}
	n := 0
	for i, s := range samples {
		if len(s.Blocks) != 8 {
			t.Errorf("sample %d: %d blocks, want 8", i, len(s.Blocks))
		}
		for _, b := range s.Blocks {
			it := b.Objects()
			if !it.Next() {
				t.Fatalf("sample %d: block without object", i)
			}
			key := strconv.Itoa(100 + i + 1)[1:] + "-" + strconv.Itoa(10000 + int(it.Object().NameIndex()))[1:]
			sum := sha256.Sum256(b.Bytes())
			if got := hex.EncodeToString(sum[:]); got != want[key] {
				t.Errorf("sample %d object %s: sha256 %s, want %s", i, key, got, want[key])
			}
			n++
		}
		if len(s.Problems) != 0 {
			t.Errorf("sample %d: problems %v", i, s.Problems)
		}
		if s.Time != l.Time(i) {
			t.Errorf("sample %d: time %v, Time(%d) %v", i, s.Time, i, l.Time(i))
		}
		// The record's local time stamp, converted with the log's zone
		// (daylight time in August), agrees with the block's UTC clock.
		utc := perfdata.FileTimeToTime(s.Blocks[0].Header().PerfTime100nSec)
		if d := s.Time.Sub(utc); d < -time.Millisecond || d > time.Millisecond {
			t.Errorf("sample %d: record time %v, block PerfTime100nSec %v", i, s.Time, utc)
		}
	}
	if n != len(want) {
		t.Errorf("%d blocks, want %d", n, len(want))
	}
}

// TestSampleLogTitles: the names come from the title table inside the log,
// which is the machine's list extracted in the conformance set.
func TestSampleLogTitles(t *testing.T) {
	l := open(t, "SampleLog.blg")
	db := l.Titles()
	f, err := os.Open(filepath.Join("testdata", "SampleLog-counter-names-009.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		is, name, _ := strings.Cut(line, "\t")
		i, err := strconv.Atoi(is)
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			if db.BaseIndex() != 1847 || name != "1847" {
				t.Errorf("base index %d (list says %s)", db.BaseIndex(), name)
			}
			continue
		}
		n++
		if got := db.Name(uint32(i)); got != name {
			t.Errorf("index %d: %q, want %q", i, got, name)
		}
	}
	if n != 1838 {
		t.Errorf("%d names in the reference list", n)
	}
	if db.LastCounter() != 4658 {
		t.Errorf("last counter %d", db.LastCounter())
	}
}

// TestBadCounterSamples: 275 samples; 5 hold values of machines that did
// not answer (PDH_CSTATUS_NO_MACHINE), found by reading the status words of
// the records (FORMAT.md), which PowerShell's Import-Counter reports as 5
// errors. They are Problems of those samples, not failures of the file.
func TestBadCounterSamples(t *testing.T) {
	// Sample positions (0-based) and the machines that did not answer in
	// each, by their position in the counter list.
	want := map[int][]int{
		82:  {0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 24},
		83:  {6, 23},
		151: {23},
		226: {0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 24},
		227: {6, 23, 25},
	}
	l := open(t, "BadCounterSamples.blg")
	list := l.List()
	if len(list) != 26 {
		t.Fatalf("%d counters, want 26", len(list))
	}
	for _, c := range list {
		if c.Object != "Processor" || c.Instance != "_Total" || c.Name != "% Processor Time" || !strings.HasPrefix(c.Machine, `\\s1418`) {
			t.Errorf("counter %s", c.Path())
		}
	}
	samples := all(t, l)
	if len(samples) != 275 {
		t.Fatalf("%d samples, want 275", len(samples))
	}
	bad := 0
	for i, s := range samples {
		machines, isBad := want[i]
		if !isBad {
			if len(s.Problems) != 0 {
				t.Errorf("sample %d: unexpected problems %v", i, s.Problems)
			}
			if len(s.Blocks) != 26 {
				t.Errorf("sample %d: %d blocks, want 26 (one per machine)", i, len(s.Blocks))
			}
			continue
		}
		bad++
		if len(s.Problems) != len(machines) {
			t.Errorf("sample %d: %d problems, want %d: %v", i, len(s.Problems), len(machines), s.Problems)
			continue
		}
		for k, m := range machines {
			p := s.Problems[k]
			if !strings.HasPrefix(p.Reason, list[m].Machine+": ") || !strings.Contains(p.Reason, "PDH_CSTATUS_NO_MACHINE") {
				t.Errorf("sample %d problem %d: %q, want machine %s and PDH_CSTATUS_NO_MACHINE", i, k, p.Reason, list[m].Machine)
			}
		}
		if len(s.Blocks) != 26-len(machines) {
			t.Errorf("sample %d: %d blocks, want %d", i, len(s.Blocks), 26-len(machines))
		}
	}
	if bad != 5 {
		t.Errorf("%d bad samples, want 5", bad)
	}
}

// TestRefused: files that are not binary logs are refused with a message
// that says so.
func TestRefused(t *testing.T) {
	csv, err := os.ReadFile(filepath.Join("testdata", "CorruptBlg.blg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"CorruptBlg.blg (a CSV text file)", csv, `starts with "\"(Pacific Daylig"`},
		{"empty", nil, "too short"},
		{"zeros", make([]byte, 1<<16), "not an event-trace buffer header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(tc.data), int64(len(tc.data)), "x.blg")
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, ErrNotBLG) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "x.blg: ") {
				t.Errorf("error %q, want ErrNotBLG, the file name and %q", err, tc.want)
			}
		})
	}
}

// TestDamaged: structural damage is an error naming the offset, the
// structure and the field; a truncated file reads up to its last whole
// buffer.
func TestDamaged(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join("testdata", "CounterSamples.blg"))
	if err != nil {
		t.Fatal(err)
	}
	put16 := func(off int, v uint16) func([]byte) { return func(b []byte) { le.PutUint16(b[off:], v) } }
	put32 := func(off int, v uint32) func([]byte) { return func(b []byte) { le.PutUint32(b[off:], v) } }
	for _, tc := range []struct {
		name   string
		change func([]byte)
		want   string
	}{
		{"event size beyond the buffer", put16(0x10048, 0xF000), "offset 65608: event header field Size = 61440"},
		{"event marker", func(b []byte) { b[0x10438+3] = 0x80 }, "offset 66619: event header field MarkerFlags = 128"},
		{"buffer size", put32(0x10000, 0x8000), "offset 65536: buffer header field BufferSize = 32768"},
		{"fragment count", put32(0x10438+68, 0), "offset 66684: PDH event field fragment count = 0"},
		{"fragment number", put32(0x10438+64, 2), "offset 66680: PDH event field fragment = 2"},
		{"counter list entry length", put32(0x10048+72+8, 4), "counter list entry field Length = 4"},
		{"counter name offset", put32(0x10048+72+8+48, 0x7000), "counter list entry field counter = 28672"},
		{"pointer size", put32(0x68+44, 2), "log-file header field PointerSize = 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := bytes.Clone(orig)
			tc.change(b)
			_, err := Read(bytes.NewReader(b), int64(len(b)), "c.blg")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	t.Run("truncated", func(t *testing.T) {
		b := orig[:0x10000+0x8000]
		l, err := Read(bytes.NewReader(b), int64(len(b)), "t.blg")
		if err != nil {
			t.Fatal(err)
		}
		if l.Len() != 0 || len(l.Notes()) != 1 || !strings.Contains(l.Notes()[0], "truncated") {
			t.Errorf("%d samples, notes %q", l.Len(), l.Notes())
		}
	})
	t.Run("sample damaged", func(t *testing.T) {
		b := bytes.Clone(orig)
		le.PutUint32(b[0x10438+48+24+8+4:], 0x7FFF) // the wildcard list's length
		l, err := Read(bytes.NewReader(b), int64(len(b)), "s.blg")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Sample(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "sample 1 (record at offset 66616): sub-record at byte 8: length 32767") {
			t.Errorf("error %v", err)
		}
		// The next sample still reads.
		if _, err := l.Sample(context.Background(), nil); err != nil {
			t.Error(err)
		}
	})
}

// TestSeek: a recorded source's positions.
func TestSeek(t *testing.T) {
	l := open(t, "CounterSamples.blg")
	if err := l.Seek(24); err != nil {
		t.Fatal(err)
	}
	s, err := l.Sample(context.Background(), nil)
	if err != nil || !s.Time.Equal(l.Time(24)) || l.Pos() != 25 {
		t.Fatalf("sample 24: %v, %v, pos %d", s, err, l.Pos())
	}
	if _, err := l.Sample(context.Background(), nil); !errors.Is(err, io.EOF) {
		t.Errorf("after the last: %v", err)
	}
	if l.Seek(26) == nil || l.Seek(-1) == nil {
		t.Error("out-of-range seek accepted")
	}
	if l.Recorded() == nil {
		t.Error("not recorded")
	}
}

// TestCounterList: CounterSamples' list, as Windows' CSV names its columns
// (paths), with the documented types of those counters and the time bases
// (FORMAT.md §2).
func TestCounterList(t *testing.T) {
	l := open(t, "CounterSamples.blg")
	type entry struct {
		path     string
		typ      uint32
		timeBase int64
		scale    int32
	}
	want := []entry{
		{`\\charlieparker\network interface(*)\bytes total/sec`, 0x10410500, 2630633, -4},
		{`\\charlieparker\processor(_total)\% processor time`, 0x21510500, 10000000, 0},
		{`\\charlieparker\memory\% committed bytes in use`, 0x20020400, 2630633, 0},
		{`\\charlieparker\memory\cache faults/sec`, 0x10410400, 2630633, -1},
		{`\\charlieparker\physicaldisk(_total)\% disk time`, 0x20570500, 10000000, 0},
		{`\\charlieparker\physicaldisk(_total)\current disk queue length`, 0x00010000, 2630633, 1},
	}
	got := l.List()
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Path() != w.path || uint32(g.Type) != w.typ || g.TimeBase != w.timeBase || g.Scale != w.scale {
			t.Errorf("entry %d: %s type 0x%08X base %d scale %d; want %+v", i, g.Path(), uint32(g.Type), g.TimeBase, g.Scale, w)
		}
	}
	if l.Header().PerfFreq != 2630633 {
		t.Errorf("PerfFreq %d", l.Header().PerfFreq)
	}
	// Names are the log's spelling, at English Windows' indexes.
	for name, idx := range map[string]uint32{"network interface": 510, "processor": 238, "memory": 4, "% processor time": 6, "bytes total/sec": 388} {
		if got, ok := l.Titles().Index(name); !ok || got != idx || l.Titles().Name(idx) != name {
			t.Errorf("title %q: index %d (%v), name there %q; want %d", name, got, ok, l.Titles().Name(idx), idx)
		}
	}
}

// TestFailedValues: a value with a failed status is not data. One failed
// value of an object with another valid one gives a partial Problem naming
// the placeholder; an object with no valid value is left out.
func TestFailedValues(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join("testdata", "CounterSamples.blg"))
	if err != nil {
		t.Fatal(err)
	}
	const sample2 = 0x10768 + 48 + 24 // the second sample's data
	status := func(sub int) int { return sample2 + 8 + 0x1f0 + 48*(sub-1) + 8 }
	for _, tc := range []struct {
		name    string
		subs    []int // kind-1 sub-records (1-based after the list) to fail
		partial bool
		object  uint32
		missing []pdh.MissingValues
		blocks  int
	}{
		{"one of two memory counters", []int{3}, true, 4, []pdh.MissingValues{{Instance: -1, Counters: []uint32{36}}}, 4}, // 36: Cache Faults/sec in English Windows
		{"both memory counters", []int{2, 3}, false, 4, nil, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := bytes.Clone(orig)
			for _, s := range tc.subs {
				le.PutUint32(b[status(s):], 0x800007D0)
			}
			l, err := Read(bytes.NewReader(b), int64(len(b)), "f.blg")
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Seek(1); err != nil {
				t.Fatal(err)
			}
			s, err := l.Sample(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Problems) != 1 {
				t.Fatalf("problems %v", s.Problems)
			}
			p := s.Problems[0]
			if p.Partial != tc.partial || p.Object != tc.object || !strings.Contains(p.Reason, "PDH_CSTATUS_NO_MACHINE") || fmt.Sprint(p.Missing) != fmt.Sprint(tc.missing) {
				t.Errorf("problem %+v", p)
			}
			if len(s.Blocks) != tc.blocks {
				t.Errorf("%d blocks, want %d", len(s.Blocks), tc.blocks)
			}
		})
	}
}

// TestReadOnce: a log told it is read once keeps no decoded samples, and
// a second reading after all decodes the same samples again.
func TestReadOnce(t *testing.T) {
	read := func(l *Log) [][]byte {
		var out [][]byte
		for range l.Len() {
			s, err := l.Sample(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var all []byte
			for _, b := range s.Blocks {
				all = append(all, b.Bytes()...)
			}
			out = append(out, all)
		}
		return out
	}
	for _, once := range []bool{false, true} {
		l, err := Open(filepath.Join("testdata", "CounterSamples.blg"))
		if err != nil {
			t.Fatal(err)
		}
		if once {
			l.ReadOnce()
		}
		first := read(l)
		kept := 0
		for _, s := range l.decoded {
			if s != nil {
				kept++
			}
		}
		if want := map[bool]int{false: l.Len(), true: 0}[once]; kept != want {
			t.Errorf("ReadOnce %v: %d samples kept, want %d", once, kept, want)
		}
		if err := l.Seek(0); err != nil {
			t.Fatal(err)
		}
		again := read(l)
		for i := range first {
			if !bytes.Equal(first[i], again[i]) {
				t.Errorf("ReadOnce %v: sample %d differs when read again", once, i)
			}
		}
		l.Close()
	}
}

// TestSamplesAreValues: a sample the log gave stays as it was while the
// log reads on (its blocks are its own, not the reader's buffers), read
// once or kept for a second reading, in logs of whole blocks and of
// listed counters.
func TestSamplesAreValues(t *testing.T) {
	for _, name := range []string{"SampleLog.blg", "CounterSamples.blg", "BadCounterSamples.blg"} {
		for _, once := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/once=%v", name, once), func(t *testing.T) {
				l, err := Open(filepath.Join("testdata", name))
				if err != nil {
					t.Fatal(err)
				}
				defer l.Close()
				if once {
					l.ReadOnce()
				}
				var given []perfdata.Block
				var copies [][]byte
				for range l.Len() {
					s, err := l.Sample(t.Context(), nil)
					if err != nil {
						continue // a damaged sample: the test is of the others
					}
					for _, b := range s.Blocks {
						given = append(given, b)
						copies = append(copies, bytes.Clone(b.Bytes()))
					}
				}
				if len(given) == 0 {
					t.Fatal("no block read")
				}
				for k, b := range given {
					if !bytes.Equal(b.Bytes(), copies[k]) {
						t.Fatalf("block %d of %d changed after it was given", k, len(given))
					}
				}
			})
		}
	}
}
