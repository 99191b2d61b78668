package relog

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog"
	"github.com/perfcounters/perfcounters/perflog/binlog"
	"github.com/perfcounters/perfcounters/titles"
)

// firstN is its source's first n samples: what a log holding only them
// gives.
type firstN struct {
	src pdh.Source
	n   int
}

func (f *firstN) Sample(ctx context.Context, objects []uint32) (*pdh.Sample, error) {
	if f.src.Recorded().Pos() >= f.n {
		return nil, io.EOF
	}
	return f.src.Sample(ctx, objects)
}
func (f *firstN) Titles() *titles.DB     { return f.src.Titles() }
func (f *firstN) Recorded() pdh.Recorded { return f }
func (f *firstN) Len() int               { return f.n }
func (f *firstN) Pos() int               { return min(f.src.Recorded().Pos(), f.n) }
func (f *firstN) Seek(i int) error       { return f.src.Recorded().Seek(min(i, f.n)) }
func (f *firstN) Time(i int) time.Time   { return f.src.Recorded().Time(i) }
func (f *firstN) Counters() []string     { return f.src.Recorded().Counters() }

// plogRecords lists the offsets and lengths of a binary log's SAMPLE
// records, read as FORMAT.md lays them out (a 64-byte header, then
// records: u32 length, u8 kind, kind 4 a sample).
func plogRecords(t *testing.T, data []byte) (offs, lens []int) {
	t.Helper()
	for off := 64; off+40 <= len(data); {
		l := int(binary.LittleEndian.Uint32(data[off:]))
		if l < 40 || off+l > len(data) {
			t.Fatalf("record at byte %d: length %d", off, l)
		}
		if data[off+4] == 4 {
			offs, lens = append(offs, off), append(lens, l)
		}
		off += l
	}
	return offs, lens
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// TestSalvage: a log that cannot be read past some sample is relogged up
// to it: the output holds exactly the samples before it (what relog of a
// log of those samples alone writes), and the run ends with an error that
// says where (a ReadError naming the input's record and byte). A torn
// binary log ends at its last whole record, which the reader's note says:
// no error.
func TestSalvage(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	const blgPath = "../../../perflog/blg/testdata/SampleLog.blg"
	open := func(t *testing.T, path string) *perflog.Input {
		t.Helper()
		in, err := perflog.Open(ctx, []string{path}, perflog.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { in.Close() })
		return in
	}
	// Binary logs of SampleLog.blg's 11 samples, plain and compressed.
	plogs := map[bool]string{}
	for _, compress := range []bool{false, true} {
		in := open(t, blgPath)
		path := filepath.Join(dir, fmt.Sprintf("z%v.plog", compress))
		writeBinlog(t, path, in.Source, binlog.Options{Compress: compress, Titles: in.Source.Titles(), Location: time.UTC})
		plogs[compress] = path
	}
	const bad = 4 // the sample the damaged binary logs cannot give
	// refuse makes sample bad's record whole but undecodable: its body
	// overwritten, its CRC made to match (a record a reader refuses).
	refuse := func(data []byte) ([]byte, int) {
		offs, lens := plogRecords(t, data)
		off, l := offs[bad], lens[bad]
		body := int(binary.LittleEndian.Uint32(data[off+24:]))
		for i := off + 32; i < off+32+body; i++ {
			data[i] = 0xFF
		}
		binary.LittleEndian.PutUint32(data[off+l-4:], crc32.Checksum(data[off:off+l-8], castagnoli))
		return data, off
	}
	tear := func(data []byte) ([]byte, int) {
		offs, lens := plogRecords(t, data)
		return data[:offs[bad]+lens[bad]/2], offs[bad]
	}
	// The BLG with 200 bytes three quarters in scrambled.
	scramble := func(data []byte) ([]byte, int) {
		at := len(data) * 3 / 4
		for i := at; i < at+200; i++ {
			data[i] ^= 0x5A
		}
		return data, -1
	}
	for _, tc := range []struct {
		name   string
		from   string
		damage func([]byte) ([]byte, int)
		// wantErr: relog ends with a ReadError (else the reader's note
		// names where the log ends)
		wantErr bool
	}{
		{"binary log, a refused record", plogs[false], refuse, true},
		{"compressed binary log, a refused record", plogs[true], refuse, true},
		{"binary log, torn", plogs[false], tear, false},
		{"compressed binary log, torn", plogs[true], tear, false},
		{"BLG, damaged", blgPath, scramble, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := os.ReadFile(tc.from)
			if err != nil {
				t.Fatal(err)
			}
			data, at := tc.damage(data)
			damaged := filepath.Join(t.TempDir(), "damaged"+filepath.Ext(tc.from))
			if err := os.WriteFile(damaged, data, 0o600); err != nil {
				t.Fatal(err)
			}
			// The samples the damaged log gives, read as any reader
			// reads them: up to the first it cannot give.
			in := open(t, damaged)
			n := 0
			for ; ; n++ {
				if _, err := in.Source.Sample(ctx, nil); err != nil {
					if errors.Is(err, io.EOF) == tc.wantErr {
						t.Fatalf("after %d samples: %v", n, err)
					}
					break
				}
			}
			if at >= 0 && n != bad {
				t.Fatalf("the damaged log gives %d samples, want %d", n, bad)
			}
			if n == 0 {
				t.Fatal("the damage leaves no sample")
			}
			var want bytes.Buffer
			if _, _, err := Run(ctx, &firstN{open(t, tc.from).Source, n}, Options{Location: time.UTC}, &want); err != nil {
				t.Fatal(err)
			}
			for _, twoPass := range []bool{false, true} {
				opts := Options{Location: time.UTC}
				var console bytes.Buffer
				if twoPass {
					opts.Console = &console
				}
				in := open(t, damaged)
				var got bytes.Buffer
				_, written, err := Run(ctx, in.Source, opts, &got)
				if got.String() != want.String() {
					t.Errorf("two passes %v: output differs from the first %d samples':\n%s\nwant:\n%s", twoPass, n, clipText(got.String()), clipText(want.String()))
				}
				if written.Samples != n {
					t.Errorf("two passes %v: %d samples written, want %d", twoPass, written.Samples, n)
				}
				checkStop(t, err, tc.wantErr, n, at, in.Notes)
				if twoPass && strings.Contains(console.String(), "completed successfully") == tc.wantErr {
					t.Errorf("console report:\n%s", console.String())
				}
			}
			// relog -q: the samples before, and the error.
			in = open(t, damaged)
			var sum bytes.Buffer
			err = Summary(ctx, in.Source, []string{damaged}, Options{Location: time.UTC}, &sum, nil)
			checkStop(t, err, tc.wantErr, n, at, in.Notes)
			if !strings.Contains(sum.String(), fmt.Sprintf("Samples:  %d\n", n)) || strings.Contains(sum.String(), "completed successfully") == tc.wantErr {
				t.Errorf("relog -q:\n%s", sum.String())
			}
			// Into a binary log (a sink: two passes of their own).
			out := filepath.Join(t.TempDir(), "out.plog")
			rec, err := perflog.Create(ctx, out, perflog.BIN, perflog.CreateOptions{Location: time.UTC})
			if err != nil {
				t.Fatal(err)
			}
			in = open(t, damaged)
			_, written, err := Run(ctx, in.Source, Options{Location: time.UTC, Sink: rec}, nil)
			if cerr := rec.Close(); cerr != nil {
				t.Fatal(cerr)
			}
			checkStop(t, err, tc.wantErr, n, at, in.Notes)
			l, oerr := binlog.Open(out)
			if oerr != nil {
				t.Fatal(oerr)
			}
			defer l.Close()
			src := open(t, tc.from).Source.Recorded()
			if l.Len() != n || written.Samples != n {
				t.Fatalf("binary output: %d samples (%d written), want %d", l.Len(), written.Samples, n)
			}
			for i := range n {
				if !l.Time(i).Equal(src.Time(i)) {
					t.Errorf("binary output: sample %d at %v, want %v", i, l.Time(i), src.Time(i))
				}
			}
		})
	}
}

// checkStop checks how a run over a log that stops after n samples ended:
// a ReadError after n samples naming the record's byte at (the input's
// own words, when at < 0), or, for a torn log, no error and the reader's
// note naming the byte.
func checkStop(t *testing.T, err error, wantErr bool, n, at int, notes []string) {
	t.Helper()
	if !wantErr {
		if err != nil {
			t.Errorf("torn log: %v", err)
		}
		if note := fmt.Sprint(notes); !strings.Contains(note, fmt.Sprintf("torn record at byte %d", at)) {
			t.Errorf("torn log: notes %s", note)
		}
		return
	}
	var re *ReadError
	if !errors.As(err, &re) || re.Read != n {
		t.Fatalf("error %v, want a ReadError after %d samples", err, n)
	}
	where := fmt.Sprintf("at byte %d", at)
	if at < 0 {
		where = "offset"
	}
	if !strings.Contains(err.Error(), where) || !strings.Contains(err.Error(), fmt.Sprintf("sample %d ", n+1)) {
		t.Errorf("error %q does not say where (%q, sample %d)", err, where, n+1)
	}
}

func clipText(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "..."
	}
	return s
}
