package system

import (
	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/proctext"
)

// swapEntry is one line of /proc/swaps (sizes in KiB).
type swapEntry struct {
	Name       []byte // points into the file buffer
	Size, Used uint64
}

// parseSwaps parses /proc/swaps ("Filename Type Size Used Priority" with a
// header line). File names with blanks are written by the kernel with
// octal escapes, so fields split on blanks.
func parseSwaps(b []byte, dst []swapEntry) []swapEntry {
	dst = dst[:0]
	_, b = proctext.NextLine(b)
	for len(b) > 0 {
		var line []byte
		line, b = proctext.NextLine(b)
		name, rest := proctext.NextField(line)
		_, rest = proctext.NextField(rest) // type
		sz, rest := proctext.NextField(rest)
		used, _ := proctext.NextField(rest)
		s, ok1 := proctext.ParseUint(sz)
		u, ok2 := proctext.ParseUint(used)
		if len(name) == 0 || !ok1 || !ok2 {
			continue
		}
		dst = append(dst, swapEntry{Name: name, Size: s, Used: u})
	}
	return dst
}

type pagingState struct {
	swaps []swapEntry
	names []string
	peak  map[string]uint64 // highest Used seen per swap area, KiB
}

func (c *Collector) pagingFileObject() Object {
	cs := []counterset.Counter{
		ctr("% Usage", tFraction, 0, detAdvanced, "% Usage is the part of the swap area in use, as a percentage of its size (/proc/swaps, in KiB)."),
		ctr("% Usage", tRawBase, 0, detAdvanced, "Base for % Usage: the size of the swap area in KiB."),
		ctr("% Usage Peak", tFraction, 0, detAdvanced, "% Usage Peak is the highest use of the swap area seen by this collector since it started (Linux keeps no peak), as a percentage of its size."),
		ctr("% Usage Peak", tRawBase, 0, detAdvanced, "Base for % Usage Peak: the size of the swap area in KiB."),
	}
	set := newSet("Paging File", 700, counterset.MultipleAggregate, detAdvanced, 0,
		"The Paging File object measures each swap area of /proc/swaps, named by its file or device, and _Total. Sizes are in KiB, so an area of up to 4 TiB fits the 32-bit values.",
		cs)
	return Object{Set: set, Collect: (*Collector).collectPagingFile}
}

func (c *Collector) collectPagingFile(col Collection, w Writer) error {
	p := &c.paging
	b, err := c.readProc("swaps")
	if err != nil {
		return err
	}
	p.swaps = parseSwaps(b, p.swaps)
	if len(p.swaps) == 0 {
		return nil
	}
	if p.peak == nil {
		p.peak = make(map[string]uint64)
	}
	if len(p.names) > len(p.swaps) {
		p.names = p.names[:len(p.swaps)]
	}
	for i := range p.swaps {
		n := p.swaps[i].Name
		if i < len(p.names) && p.names[i] == string(n) {
			continue
		}
		if i < len(p.names) {
			p.names[i] = proctext.CutName(unescapeMount(n), proctext.MaxInstanceName)
		} else {
			p.names = append(p.names, proctext.CutName(unescapeMount(n), proctext.MaxInstanceName))
		}
	}
	var size, used, peak uint64
	for i := range p.swaps {
		s := &p.swaps[i]
		name := p.names[i]
		pk := max(p.peak[name], s.Used)
		p.peak[name] = pk
		v := w.Instance(name, 0, 0, -1)
		v.Set(0, s.Used)
		v.Set(1, s.Size)
		v.Set(2, pk)
		v.Set(3, s.Size)
		size += s.Size
		used += s.Used
		peak += pk
	}
	v := w.Instance("_Total", 0, 0, -1)
	v.Set(0, used)
	v.Set(1, size)
	v.Set(2, peak)
	v.Set(3, size)
	return nil
}
