package pdh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// CounterSampler is a live source that can collect objects for a reader
// of only some of their counters (host.LiveSource): counters names, per
// object title index, the counter title indexes read (nil, or an object
// left out: all of them). The values of the other counters are
// placeholders the reader never sees. A Query uses it when its source
// has it.
type CounterSampler interface {
	SampleCounters(ctx context.Context, objects []uint32, counters map[uint32][]uint32) (*Sample, error)
}

// ObjectLister is a live source that can name the objects it has without
// collecting them (the local host: its registered objects), so that a
// consumer that exports "every object" discovers them from the list and
// then asks for those it wants, instead of collecting everything (every
// process and thread) to learn their names. Objects returns the title
// indexes a Global query (costly false) or a Costly query (true) would
// collect; complete is false when only a collection can tell (a V1
// provider that declares no object list, or a source that cannot list),
// and the consumer then collects.
type ObjectLister interface {
	Objects(costly bool) (indexes []uint32, complete bool)
}

// Source is the one seam for data sources: the live local engine (adapter
// in package host), raw block files (BlockFiles), and later remote hosts
// and logs. A source hands over whole samples: the blocks, parsed and
// validated once by the source, the time of the sample, and what the
// source could not deliver, with reasons.
type Source interface {
	// Sample returns the next sample, holding (at least) the objects
	// asked for (title indexes; nil = everything the source has). A
	// recorded source returns io.EOF after its last sample.
	//
	// A sample is a value: once returned it is immutable and never
	// reused. The source never writes its blocks, problems or time
	// again (it builds or reads the next sample in memory of its own),
	// and the caller and everyone it hands the sample to only read it,
	// so any reader may keep it for as long as it likes: a Sampler keeps
	// two and hands them to several consumers, a writer may keep the
	// previous one.
	Sample(ctx context.Context, objects []uint32) (*Sample, error)
	// Titles is the title database that names the indexes in the blocks.
	Titles() *titles.DB
	// Recorded returns the controls of a source that replays recorded
	// samples (captured blocks, logs): how many there are, their times,
	// and a position to seek. A live source returns nil. A source that
	// wraps another must pass its Recorded on (or offer its own), so the
	// kind of a source is never lost by wrapping it.
	Recorded() Recorded
}

// Recorded is what a source of recorded samples can do besides Sample.
// Positions count samples from 0; the next Sample returns the sample at
// Pos, and Pos advances by one.
type Recorded interface {
	// Len is the number of samples.
	Len() int
	// Pos is the position of the sample the next Sample returns (Len
	// after the last).
	Pos() int
	// Seek makes the next Sample return sample i (0 <= i <= Len); Seek(0)
	// rewinds.
	Seek(i int) error
	// Time is the time of sample i without reading the sample.
	Time(i int) time.Time
	// Counters are the counter paths the recording was made of (a log
	// written for a list of counters), which a tool shows when it is
	// asked for none; nil when the recording holds whole objects.
	Counters() []string
}

// Sample is one sample of a source.
type Sample struct {
	// Blocks are the sample's PERF_DATA_BLOCKs, validated. A source may
	// split a sample over several blocks (Windows' captures hold one
	// object per block); an object found in an earlier block wins.
	Blocks []perfdata.Block
	// Time is when the sample was taken (UTC): the first block's
	// PerfTime100nSec, or its SystemTime when that is 0.
	Time time.Time
	// Problems are the objects the source could not deliver, or
	// delivered with data missing, with the reasons.
	Problems []Problem
	// Gap says the source did not collect between the previous sample
	// and this one (collection stopped and started again: a gap mark in
	// a log). Counters that need two samples start over after a gap
	// instead of computing across it.
	Gap bool
}

// Problem is something a source could not deliver in a sample: an object
// dropped (a provider failed), or one delivered with some data missing
// (Partial: unreadable files, a provider not running). Missing names the
// values of a partial object that are placeholders, not data: pdh gives
// them the status NoData instead of showing the placeholder.
type Problem struct {
	Object     uint32 // title index of the object; 0 when the problem is the source's as a whole
	ObjectName string // the object's name as the source knows it
	// Machine is the machine whose object this is (a block's system
	// name) in a sample of several machines; "" is every machine's.
	// Missing applies to that machine's object only.
	Machine string
	Reason  string
	Partial bool
	Missing []MissingValues
}

// Quiet reports a problem with nothing to tell: a partial object whose
// source gave no reason for its placeholder values (the cells of other
// users' processes, which Linux tools leave blank without a word). Its
// Missing values still carry the status NoData.
func (p Problem) Quiet() bool { return p.Partial && p.Reason == "" }

func (p Problem) String() string {
	what := "object " + p.ObjectName + " left out"
	if p.Partial {
		what = "object " + p.ObjectName + " incomplete"
	}
	if p.Object == 0 && p.ObjectName == "" {
		return p.Reason
	}
	return what + ": " + p.Reason
}

// MissingValues names placeholder values of one instance: Instance is the
// instance's position in the object (-1 for a single-instance object),
// Counters the counters' title indexes (none: every counter).
type MissingValues struct {
	Instance int
	Counters []uint32
}

// NewSample parses blocks into a Sample, with the time of the first block.
// Sources use it; an unparsable block is an error naming its position.
func NewSample(blocks [][]byte) (*Sample, error) {
	s := &Sample{Blocks: make([]perfdata.Block, 0, len(blocks))}
	for i, b := range blocks {
		blk, err := perfdata.Parse(b)
		if err != nil {
			return nil, fmt.Errorf("sample block %d: %w", i, err)
		}
		s.Blocks = append(s.Blocks, blk)
	}
	if len(s.Blocks) > 0 {
		s.Time = blockTime(s.Blocks[0].Header())
	}
	return s, nil
}

// blockTime is the time of a block header: PerfTime100nSec (UTC), or
// SystemTime when that is 0.
func blockTime(h perfdata.Header) time.Time {
	if h.PerfTime100nSec != 0 {
		return perfdata.FileTimeToTime(h.PerfTime100nSec)
	}
	return h.SystemTime.Time()
}

// peek returns a sample for browsing without using one up: a recorded
// source is put back where it was (after its last sample it shows the
// last one again, so browsing still works); a live source takes a sample.
func peek(ctx context.Context, src Source, objects []uint32) (*Sample, error) {
	r := src.Recorded()
	if r == nil {
		return src.Sample(ctx, objects)
	}
	pos := r.Pos()
	if r.Len() == 0 {
		return nil, io.EOF
	}
	if pos >= r.Len() {
		if err := r.Seek(r.Len() - 1); err != nil {
			return nil, err
		}
	}
	s, err := src.Sample(ctx, objects)
	if serr := r.Seek(pos); err == nil && serr != nil {
		err = serr
	}
	return s, err
}

// BlockFiles replays raw block files (perfc query output, or
// HKEY_PERFORMANCE_DATA dumps captured on Windows) as samples in time
// order, whatever order the files are given in. Files whose headers carry
// the same PerfTime, PerfTime100nSec and SystemName form ONE sample, so
// Windows captures split per object (pal-SampleLog-ZACH-PC/sNN-*.bin) are
// regrouped. Files are read when their sample is asked for. A BlockFiles is
// not safe for concurrent use.
type BlockFiles struct {
	db     *titles.DB
	groups []blockGroup
	next   int
	notes  []string
}

type blockGroup struct {
	key   blockKey
	time  time.Time
	files []string
}

// blockKey is what makes files one sample.
type blockKey struct {
	perfTime, perfTime100ns int64
	system                  string
}

// OpenBlockFiles reads the header of every file and groups the files into
// samples, ordered by time (files of equal time keep the order given).
// db names the title indexes; nil means titles.English().
func OpenBlockFiles(paths []string, db *titles.DB) (*BlockFiles, error) {
	if db == nil {
		db = titles.English()
	}
	bf := &BlockFiles{db: db}
	byKey := make(map[blockKey]int, len(paths))
	sorted := true
	for _, p := range paths {
		k, t, err := readBlockKey(p)
		if err != nil {
			return nil, err
		}
		if g, ok := byKey[k]; ok {
			bf.groups[g].files = append(bf.groups[g].files, p)
			continue
		}
		if n := len(bf.groups); n > 0 && t.Before(bf.groups[n-1].time) {
			sorted = false
		}
		byKey[k] = len(bf.groups)
		bf.groups = append(bf.groups, blockGroup{key: k, time: t, files: []string{p}})
	}
	if !sorted {
		slices.SortStableFunc(bf.groups, func(a, b blockGroup) int { return a.time.Compare(b.time) })
		bf.notes = append(bf.notes, "the input files were not in time order; their samples are read in time order")
	}
	return bf, nil
}

// readBlockKey reads the grouping fields and the time of a block file's
// header (perfdata.ParseHeader: the header and the system name only).
func readBlockKey(path string) (blockKey, time.Time, error) {
	f, err := os.Open(path)
	if err != nil {
		return blockKey{}, time.Time{}, err
	}
	defer f.Close()
	// The header and the name fit in a few hundred bytes in real data;
	// ParseHeader says how many it needs when they do not.
	buf := make([]byte, 1024)
	for {
		n, err := io.ReadFull(f, buf)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			return blockKey{}, time.Time{}, err
		}
		h, perr := perfdata.ParseHeader(buf[:n])
		var fe *perfdata.FormatError
		if perr != nil && errors.Is(perr, perfdata.ErrMoreData) && errors.As(perr, &fe) && n == len(buf) &&
			fe.Value > int64(len(buf)) && fe.Value <= 1<<20 {
			buf = make([]byte, fe.Value)
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return blockKey{}, time.Time{}, err
			}
			continue
		}
		if perr != nil {
			return blockKey{}, time.Time{}, fmt.Errorf("%s: %w", path, perr)
		}
		k := blockKey{perfTime: h.PerfTime, perfTime100ns: h.PerfTime100nSec, system: h.SystemName}
		return k, blockTime(h), nil
	}
}

// Titles returns the title database given to OpenBlockFiles.
func (bf *BlockFiles) Titles() *titles.DB { return bf.db }

// Recorded returns the BlockFiles itself: block files are recorded samples.
func (bf *BlockFiles) Recorded() Recorded { return bf }

// Len is the number of samples.
func (bf *BlockFiles) Len() int { return len(bf.groups) }

// Pos is the position of the sample the next Sample returns.
func (bf *BlockFiles) Pos() int { return bf.next }

// Seek makes the next Sample return sample i.
func (bf *BlockFiles) Seek(i int) error {
	if i < 0 || i > len(bf.groups) {
		return fmt.Errorf("sample %d out of range 0..%d", i, len(bf.groups))
	}
	bf.next = i
	return nil
}

// Time is the time of sample i, from its header.
func (bf *BlockFiles) Time(i int) time.Time { return bf.groups[i].time }

// Counters returns nil: block files hold whole objects.
func (bf *BlockFiles) Counters() []string { return nil }

// Files returns the files of sample i (0-based).
func (bf *BlockFiles) Files(i int) []string { return bf.groups[i].files }

// Notes says what the reader did that its user should know (inputs given
// out of time order and merged).
func (bf *BlockFiles) Notes() []string { return bf.notes }

// Sample reads the files of the next sample and returns their blocks;
// objects is ignored (every block of the sample is returned). After the
// last sample it returns io.EOF.
func (bf *BlockFiles) Sample(ctx context.Context, objects []uint32) (*Sample, error) {
	if bf.next >= len(bf.groups) {
		return nil, io.EOF
	}
	g := &bf.groups[bf.next]
	raw := make([][]byte, 0, len(g.files))
	for _, p := range g.files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, err := perfdata.ReadFile(p)
		if err != nil {
			return nil, err
		}
		raw = append(raw, b)
	}
	s, err := NewSample(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", strings.Join(g.files, ", "), err)
	}
	s.Problems = overlaps(s, g.files, bf.db)
	bf.next++
	return s, nil
}

// overlaps reports files of one sample that hold the same objects: inputs
// that overlap (a capture given twice, or two captures of one moment), one
// problem per pair of files. The first file's objects are the ones read.
func overlaps(s *Sample, files []string, db *titles.DB) []Problem {
	if len(s.Blocks) < 2 {
		return nil
	}
	type pair struct{ a, b int }
	first := make(map[uint32]int)
	shared := make(map[pair][]string)
	var order []pair
	for i, blk := range s.Blocks {
		for it := blk.Objects(); it.Next(); {
			idx := it.Object().NameIndex()
			j, seen := first[idx]
			if !seen {
				first[idx] = i
				continue
			}
			k := pair{j, i}
			if _, ok := shared[k]; !ok {
				order = append(order, k)
			}
			shared[k] = append(shared[k], titleName(db, idx))
		}
	}
	out := make([]Problem, 0, len(order))
	for _, k := range order {
		what := "the same file given twice"
		if files[k.a] != files[k.b] {
			what = files[k.b] + " repeats " + files[k.a]
		}
		out = append(out, Problem{Reason: fmt.Sprintf("inputs overlap: %s (objects %s at the same moment); %s is read",
			what, strings.Join(shared[k], ", "), files[k.a])})
	}
	return out
}
