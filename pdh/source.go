package pdh

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/perfcounters/perfcounters/internal/utf16le"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// Source is the one seam for data sources: the live local engine (adapter
// in package host), raw block files (BlockFiles), later remote hosts and
// logs.
type Source interface {
	// Sample returns the next sample: one or more PERF_DATA_BLOCKs that
	// together hold (at least) the objects asked for (title indexes; nil =
	// everything the source has). Blocks are owned by the caller until the
	// next call. A finite source returns io.EOF after its last sample.
	Sample(ctx context.Context, objects []uint32) ([][]byte, error)
	// Titles is the title database that names the indexes in the blocks.
	Titles() *titles.DB
}

// Peeker is implemented by sources that can show what they hold without
// using up a sample (finite sources such as BlockFiles). Browsing and path
// validation use Peek when a source has it, Sample otherwise.
type Peeker interface {
	// Peek returns the sample the next Sample call would return, like
	// Sample but without advancing.
	Peek(ctx context.Context, objects []uint32) ([][]byte, error)
}

// peek returns a sample for browsing: Peek when src has it.
func peek(ctx context.Context, src Source, objects []uint32) ([][]byte, error) {
	if p, ok := src.(Peeker); ok {
		return p.Peek(ctx, objects)
	}
	return src.Sample(ctx, objects)
}

// FileTimeToTime converts a FILETIME (PERF_DATA_BLOCK.PerfTime100nSec) to
// a UTC time. It is perfdata.FileTimeToTime, kept here for callers of pdh.
func FileTimeToTime(ft int64) time.Time { return perfdata.FileTimeToTime(ft) }

// BlockFiles replays raw block files (perfc query output, or
// HKEY_PERFORMANCE_DATA dumps captured on Windows) as samples in order.
// Consecutive files whose headers carry the same PerfTime, PerfTime100nSec
// and SystemName form ONE sample, so Windows captures split per object
// (pal-SampleLog-ZACH-PC/sNN-*.bin) are regrouped. Files are read when
// their sample is asked for. A BlockFiles is not safe for concurrent use.
type BlockFiles struct {
	db     *titles.DB
	groups [][]string
	next   int
}

// blockKey is what makes files one sample.
type blockKey struct {
	perfTime, perfTime100ns int64
	system                  string
}

// OpenBlockFiles reads the header of every file and groups the files into
// samples. db names the title indexes; nil means titles.English().
func OpenBlockFiles(paths []string, db *titles.DB) (*BlockFiles, error) {
	if db == nil {
		db = titles.English()
	}
	bf := &BlockFiles{db: db}
	var last blockKey
	for i, p := range paths {
		k, err := readBlockKey(p)
		if err != nil {
			return nil, err
		}
		if i == 0 || k != last {
			bf.groups = append(bf.groups, nil)
		}
		bf.groups[len(bf.groups)-1] = append(bf.groups[len(bf.groups)-1], p)
		last = k
	}
	return bf, nil
}

// readBlockKey reads the grouping fields of a block file's header.
func readBlockKey(path string) (blockKey, error) {
	f, err := os.Open(path)
	if err != nil {
		return blockKey{}, fmt.Errorf("pdh: %w", err)
	}
	defer f.Close()
	var h [perfdata.DataBlockSize]byte
	if n, err := io.ReadFull(f, h[:]); err != nil {
		return blockKey{}, fmt.Errorf("pdh: %s: %d bytes, shorter than a PERF_DATA_BLOCK header (%d)", path, n, perfdata.DataBlockSize)
	}
	if string(h[:8]) != "P\x00E\x00R\x00F\x00" {
		return blockKey{}, fmt.Errorf("pdh: %s: not a PERF_DATA_BLOCK (signature %q at offset 0)", path, h[:8])
	}
	le := binary.LittleEndian
	k := blockKey{perfTime: int64(le.Uint64(h[56:])), perfTime100ns: int64(le.Uint64(h[72:]))}
	nl, no := le.Uint32(h[80:]), le.Uint32(h[84:])
	const maxName = 1024
	if nl > 0 && nl <= maxName {
		name := make([]byte, nl)
		if _, err := f.ReadAt(name, int64(no)); err != nil {
			return blockKey{}, fmt.Errorf("pdh: %s: system name (offset %d, length %d): %w", path, no, nl, err)
		}
		k.system = utf16le.DecodeLenient(name)
	}
	return k, nil
}

// Titles returns the title database given to OpenBlockFiles.
func (bf *BlockFiles) Titles() *titles.DB { return bf.db }

// Len is the number of samples.
func (bf *BlockFiles) Len() int { return len(bf.groups) }

// Files returns the files of sample i (0-based).
func (bf *BlockFiles) Files(i int) []string { return bf.groups[i] }

// Sample reads the files of the next sample and returns their blocks;
// objects is ignored (every block of the sample is returned). After the
// last sample it returns io.EOF.
func (bf *BlockFiles) Sample(ctx context.Context, objects []uint32) ([][]byte, error) {
	if bf.next >= len(bf.groups) {
		return nil, io.EOF
	}
	b, err := bf.read(ctx, bf.next)
	if err != nil {
		return nil, err
	}
	bf.next++
	return b, nil
}

// Peek returns the sample the next Sample would return; once all samples
// are used up it returns the last one again, so that browsing still works.
func (bf *BlockFiles) Peek(ctx context.Context, objects []uint32) ([][]byte, error) {
	if len(bf.groups) == 0 {
		return nil, io.EOF
	}
	return bf.read(ctx, min(bf.next, len(bf.groups)-1))
}

// Rewind makes the next Sample the first one again.
func (bf *BlockFiles) Rewind() { bf.next = 0 }

func (bf *BlockFiles) read(ctx context.Context, i int) ([][]byte, error) {
	out := make([][]byte, 0, len(bf.groups[i]))
	for _, p := range bf.groups[i] {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("pdh: %w", err)
		}
		if _, err := perfdata.Parse(b); err != nil {
			return nil, fmt.Errorf("pdh: %s: %w", p, err)
		}
		out = append(out, b)
	}
	return out, nil
}

// errNoSample is returned by readers before the first Collect.
var errNoSample = errors.New("pdh: no sample collected yet")
