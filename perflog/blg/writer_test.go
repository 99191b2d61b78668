package blg

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/perflog/rawlog"
	"github.com/perfcounters/perfcounters/utf16le"
)

// memFile is an in-memory io.WriterAt.
type memFile struct{ b []byte }

func (m *memFile) WriteAt(p []byte, off int64) (int, error) {
	if end := int(off) + len(p); end > len(m.b) {
		m.b = append(m.b, make([]byte, end-len(m.b))...)
	}
	copy(m.b[off:], p)
	return len(p), nil
}

// corpusBLGs are the Windows BLG files of the repository (the same files
// git ls-files lists with a .blg name, less the copies and the CSV named
// .blg).
func corpusBLGs(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, dir := range []string{"testdata", "../../internal/logview/testdata", "../pdhcsv/testdata/windows/powershell"} {
		m, err := filepath.Glob(filepath.Join(dir, "*.blg"))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) < 4 {
		t.Fatalf("found %d BLG files, want the corpus", len(out))
	}
	return out
}

// decodeEntries reads a sample record's sub-records back into the
// writer's entries: an independent reading of FORMAT.md §2, 0x22.
func decodeEntries(t *testing.T, b []byte, list []Counter) []Entry {
	t.Helper()
	if string(b[:4]) != "BL\x03\x00" {
		t.Fatalf("sample record starts % x", b[:4])
	}
	total := int(le.Uint32(b[4:]))
	var out []Entry
	for off := 8; off < total; {
		kind, n := b[off+3], int(le.Uint32(b[off+4:]))
		sub := b[off : off+n]
		var e Entry
		switch kind {
		case subBlock:
			e.Block = sub[8:]
		case subRaw:
			e.Items = []Item{{Instance: list[len(out)].Instance, Value: rawlog.Value{Status: le.Uint32(sub[8:]),
				First: int64(le.Uint64(sub[24:])), Second: int64(le.Uint64(sub[32:])), Multi: le.Uint32(sub[40:])},
				stamp: int64(le.Uint64(sub[12:]))}}
		case subRawList:
			count := int(le.Uint32(sub[12:]))
			e.Status = le.Uint32(sub[16:])
			e.Items = []Item{}
			for i := range count {
				it := sub[32+24*i:]
				no := 8 + int(le.Uint32(it))
				end := no + utf16le.IndexNUL(sub[no:])
				e.Items = append(e.Items, Item{Instance: utf16le.DecodeLenient(sub[no:end]),
					Value: rawlog.Value{Multi: le.Uint32(it[4:]), First: int64(le.Uint64(it[8:])), Second: int64(le.Uint64(it[16:]))}})
			}
		default:
			t.Fatalf("kind %d", kind)
		}
		out = append(out, e)
		off += n
	}
	return out
}

// rewrite reads the log at path and writes it back with the Writer: its
// header, its counter list and its samples through WriteList and
// WriteSample (values and names decoded, then encoded again), the
// records the writer does not make (title table 0x24, summary 0x23) as
// they are.
func rewrite(t *testing.T, path string) []byte {
	t.Helper()
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var m memFile
	w, err := NewWriter(&m, l.Header())
	if err != nil {
		t.Fatal(err)
	}
	for i := range l.records {
		rec := &l.records[i]
		data, _, err := readRecord(l.r, rec, nil)
		if err != nil {
			t.Fatal(err)
		}
		data = bytes.Clone(data)
		switch rec.typ {
		case EventCounterList:
			if l.Header().OSVersion[0] < 10 {
				// Older writers place an entry's strings otherwise
				// (FORMAT.md, "Writing"): the list goes back as it is
				// and TestWriteListOlder compares its entries.
				w.listed, w.list = true, l.List()
				err = w.writeRecord(rec.typ, rec.stamp, data)
				break
			}
			err = w.writeList(rec.stamp, slices.Clone(l.List()))
		case EventSample:
			err = w.writeSample(rec.stamp, decodeEntries(t, data, l.List()))
		default:
			err = w.writeRecord(rec.typ, rec.stamp, data)
		}
		if err != nil {
			t.Fatalf("record %d (0x%02x): %v", i, rec.typ, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return m.b
}

// freeMask marks the bytes of the log in b that FORMAT.md ("Writing")
// lists as free: what no reader uses and the writer does not reproduce.
func freeMask(b []byte) []bool {
	free := make([]bool, len(b))
	set := func(from, to int) {
		for i := from; i < to && i < len(free); i++ {
			free[i] = true
		}
	}
	bs := int(le.Uint32(b))
	for at := 0; at+bs <= len(b); at += bs {
		used := int(le.Uint32(b[at+0x30:]))
		set(at+4, at+0x30)                // buffer header: SavedOffset .. ClientContext
		set(at+0x34, at+bufferHeaderSize) // BufferFlag .. reference time
		set(at+used, at+bs)               // padding after Offset
		if at == 0 {
			rec := at + bufferHeaderSize
			size := int(le.Uint16(b[rec+4:]))
			p := int(le.Uint32(b[lhPointerSize:]))
			set(rec+8, rec+16)                       // thread, process id
			set(rec+24, rec+32)                      // kernel, user time
			set(lhTrace+56, lhTrace+56+2*p)          // LoggerName, LogFileName pointers
			tzEnd := lhTrace + 56 + 2*p + tziSize    // padding to BootTime
			set(tzEnd, lhTrace+(tzEnd-lhTrace+7)&^7) //
			set(rec+size, at+used)                   // padding of the record
			markTZINames(b[lhTrace+56+2*p:tzEnd], free[lhTrace+56+2*p:])
			continue
		}
		for off := at + bufferHeaderSize; off+eventHeaderSize <= at+used; {
			es := int(le.Uint16(b[off:]))
			if es == 0 || es == 0xFFFF {
				break
			}
			set(off+8, off+16)                                              // ThreadId, ProcessId
			set(off+40, off+48)                                             // processor times
			set(off+es, off+(es+7)&^7)                                      // padding to 8
			if b[off+4] == EventCounterList && le.Uint32(b[off+64:]) == 1 { // entry field at 8: unused
				d := off + eventHeaderSize + payloadPrefix
				for e := d + clHeader; e+ceStrings <= off+es; {
					n := int(le.Uint32(b[e:]))
					set(e+8, e+12)
					if n == 0 {
						break
					}
					e += n
				}
			}
			off += (es + 7) &^ 7
		}
	}
	return free
}

// markTZINames frees the bytes of a zone name after its NUL (garbage
// in fixed 64-byte fields).
func markTZINames(tzi []byte, free []bool) {
	for _, f := range [][2]int{{4, 68}, {88, 152}} {
		n := utf16le.IndexNUL(tzi[f[0]:f[1]])
		if n < 0 {
			continue
		}
		for i := f[0] + n + 2; i < f[1]; i++ {
			free[i] = true
		}
	}
}

// TestRoundTripCorpus reads every Windows BLG of the corpus, writes it
// back with the Writer and compares the files byte for byte, except in
// the fields FORMAT.md lists as free.
func TestRoundTripCorpus(t *testing.T) {
	for _, path := range corpusBLGs(t) {
		t.Run(strings.TrimSuffix(filepath.Base(filepath.Dir(path)), "testdata")+filepath.Base(path), func(t *testing.T) {
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Open(path); err != nil {
				t.Skipf("not a binary log, nothing to write back: %v", err)
			}
			got := rewrite(t, path)
			if len(got) != len(orig) {
				t.Errorf("%d bytes written, the original has %d", len(got), len(orig))
			}
			fo, fg := freeMask(orig), freeMask(got)
			var diffs []string
			for i := range min(len(got), len(orig)) {
				if got[i] != orig[i] && !(fo[i] && fg[i]) {
					diffs = append(diffs, fmt.Sprintf("offset %d (buffer %d +%d): %02x, want %02x", i, i/65536, i%65536, got[i], orig[i]))
				}
			}
			if len(diffs) > 0 {
				t.Errorf("%d bytes differ outside the free fields:\n%s", len(diffs), strings.Join(diffs[:min(len(diffs), 30)], "\n"))
			}
		})
	}
}

// TestWriteListOlder writes the counter lists of the Vista and Server
// 2003 logs in Windows 10's layout and reads them back: the same entries
// (their strings placed as Windows 10 places them).
func TestWriteListOlder(t *testing.T) {
	for _, name := range []string{"SampleLog", "BadCounterSamples", "CounterSamples"} {
		t.Run(name, func(t *testing.T) {
			l, err := Open("testdata/" + name + ".blg")
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			var m memFile
			w, err := NewWriter(&m, Header{Zone: l.Header().Zone})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteList(l.Header().Start, slices.Clone(l.List())); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			back, err := readMemory(m.b, name)
			if err != nil {
				t.Fatal(err)
			}
			got, want := back.List(), l.List()
			for i := range got {
				if i < len(want) && want[i].Flags == 0 { // 0 takes Windows 10's flags
					got[i].Flags = 0
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("list read back:\n%v\nwant\n%v", got, want)
			}
		})
	}
}
