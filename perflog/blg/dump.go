package blg

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/utf16le"
	"github.com/perfcounters/perfcounters/wintz"
)

// IsLog reports whether the file at path starts as a BLG does: an
// event-trace buffer header whose buffer size is in range and whose used
// length holds the log-file header, then that header's trace header (a
// system trace header, marked 0xC0), and the file at least one buffer
// long. Open says why a file that passes is still refused.
func IsLog(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var h [bufferHeaderSize + 4]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return false
	}
	st, err := f.Stat()
	if err != nil {
		return false
	}
	bs := le.Uint32(h[0:])
	used := le.Uint32(h[0x30:])
	ht := h[lhRecord+2]
	return bs >= minBufferSize && bs <= maxBufferSize && bs%8 == 0 && st.Size() >= int64(bs) &&
		used >= lhTrace && used <= bs && (ht == 1 || ht == 2) && h[lhRecord+3] == 0xC0
}

// Dump lists the log at path for a person: what its header says, its
// counter list, then each PDH record in file order (offset, event, length,
// fragments, time stamp in the log's zone, and what it holds: a sample's
// raw blocks with their objects, its listed values and instance lists, the
// values the log marks as failed), then what the reader noticed (a
// truncated tail, a record with fragments missing).
func Dump(w io.Writer, path string) error {
	l, err := Open(path)
	if err != nil {
		return err
	}
	defer l.Close()
	return l.dump(w)
}

func (l *Log) dump(w io.Writer) error {
	var sb strings.Builder
	h := l.hdr
	fmt.Fprintf(&sb, "Windows binary log %s: buffers of %d bytes, %d PDH records, %d samples\n", l.name, h.BufferSize, len(l.records), len(l.samples))
	fmt.Fprintf(&sb, "written by Windows %d.%d build %d (%d %s, %d-bit, PerfFreq %d)", h.OSVersion[0], h.OSVersion[1], h.OSBuild,
		h.Processors, plural(int(h.Processors), "processor", "processors"), 8*h.PointerSize, h.PerfFreq)
	if h.OriginalPath != "" {
		fmt.Fprintf(&sb, " to %s", h.OriginalPath)
	}
	sb.WriteString("\n")
	// The zone as a person sees the log's times (wintz.At at its start:
	// daylight time for a summer log), with its bias then.
	z := wintz.Zone{Name: "UTC"}
	if h.Zone.StandardName != "" {
		z = wintz.At(h.Start.In(l.loc))
	}
	fmt.Fprintf(&sb, "time zone %s (bias %d minutes); started %s, ended %s (UTC)\n", z.Name, z.Bias, utcText(h.Start), utcText(h.End))
	fmt.Fprintf(&sb, "counter list, %d entries:\n", len(l.list))
	for i, c := range l.list {
		what := "every counter of the object, stored as raw blocks"
		if c.explicit() {
			what = fmt.Sprintf("%s, time base %d, scale %d", c.Type, c.TimeBase, c.Scale)
		}
		fmt.Fprintf(&sb, "%6d  %s  (%s)\n", i+1, c.Path(), what)
	}
	fmt.Fprintf(&sb, "%10s  %-12s %8s %5s  %-23s  %s\n", "offset", "event", "length", "frags", "time (log's zone)", "content")
	sample, failed, unreadable := 0, 0, 0
	var buf []byte
	for i := range l.records {
		rec := &l.records[i]
		ts := ""
		if rec.typ == EventSample {
			ts = l.localTime(rec.stamp).In(l.loc).Format("2006-01-02 15:04:05.000")
		}
		fmt.Fprintf(&sb, "%10d  %-12s %8d %5d  %-23s  ", rec.at, eventName(rec.typ), rec.size, rec.fragments(), ts)
		b, nbuf, err := readRecord(l.r, rec, buf)
		buf = nbuf
		if err != nil {
			fmt.Fprintf(&sb, "unreadable: %v\n", err)
			if rec.typ == EventSample {
				sample++
				unreadable++
			}
			continue
		}
		switch rec.typ {
		case EventCounterList:
			fmt.Fprintf(&sb, "%d counters (listed above)", len(l.list))
		case EventTitles:
			m, pairs, err := splitTitles(b, rec.at+eventHeaderSize+payloadPrefix, l.name)
			if err != nil {
				fmt.Fprintf(&sb, "unreadable: %v", err)
				break
			}
			fmt.Fprintf(&sb, "title table of %s: %d strings", m, countStrings(pairs))
		case EventSample:
			sample++
			what, problems, err := l.describeSample(sample, b, rec)
			switch {
			case err != nil:
				unreadable++
			case problems > 0:
				failed++
			}
			sb.WriteString(what)
		case EventIndex:
			sb.WriteString("summary written when the log was closed (not read)")
		default:
			fmt.Fprintf(&sb, "event 0x%02x: not known, skipped", rec.typ)
		}
		sb.WriteString("\n")
	}
	fmt.Fprintf(&sb, "%d samples, %d with values marked failed, %d unreadable\n", sample, failed, unreadable)
	for _, n := range l.notes {
		fmt.Fprintf(&sb, "note: %s\n", n)
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// describeSample says what sample number n (1-based) holds: its
// sub-records by kind, the objects of its raw blocks, and the values the
// log marks as failed (their count is problems); err is why the sample
// cannot be decoded.
func (l *Log) describeSample(n int, b []byte, rec *record) (what string, problems int, err error) {
	var blocks, values, lists, items int
	total := 0
	if len(b) >= subHeader {
		total = min(int(le.Uint32(b[4:])), len(b))
	}
	for off := subHeader; off+subHeader <= total; {
		kind, size := b[off+3], int(le.Uint32(b[off+4:]))
		if size < subHeader || size > total-off {
			break
		}
		switch kind {
		case subBlock:
			blocks++
		case subRaw:
			values++
		case subRawList:
			lists++
			if size >= subHeader+listHead {
				items += int(le.Uint32(b[off+12:]))
			}
		}
		off += size
	}
	s, err := l.decodeSample(b, rec)
	if err != nil {
		return fmt.Sprintf("sample %d: unreadable: %v", n, err), 0, err
	}
	var parts []string
	if blocks > 0 {
		var objs []string
		for _, blk := range s.Blocks[:min(blocks, len(s.Blocks))] {
			for it := blk.Objects(); it.Next(); {
				o := it.Object()
				name := l.db.Name(o.NameIndex())
				if name == "" {
					name = fmt.Sprintf("object %d", o.NameIndex())
				}
				objs = append(objs, name)
			}
		}
		parts = append(parts, fmt.Sprintf("%d raw %s (%s)", blocks, plural(blocks, "block", "blocks"), strings.Join(objs, ", ")))
	}
	if values > 0 {
		parts = append(parts, fmt.Sprintf("%d listed %s", values, plural(values, "value", "values")))
	}
	if lists > 0 {
		parts = append(parts, fmt.Sprintf("%d instance %s of %d %s", lists, plural(lists, "list", "lists"), items, plural(items, "instance", "instances")))
	}
	out := fmt.Sprintf("sample %d: %s", n, strings.Join(parts, ", "))
	if len(s.Problems) > 0 {
		out += fmt.Sprintf("; %d %s: %s", len(s.Problems), plural(len(s.Problems), "value marked failed", "values marked failed"), s.Problems[0].String())
		if len(s.Problems) > 1 {
			out += ", ..."
		}
	}
	return out, len(s.Problems), nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// countStrings counts the NUL-terminated UTF-16 strings of b.
func countStrings(b []byte) int {
	n := 0
	for len(b) >= 2 {
		e := utf16le.IndexNUL(b)
		if e < 0 {
			return n + 1
		}
		n++
		b = b[e+2:]
	}
	return n
}

func eventName(typ byte) string {
	switch typ {
	case EventCounterList:
		return "counter list"
	case EventSample:
		return "sample"
	case EventIndex:
		return "summary"
	case EventTitles:
		return "titles"
	}
	return fmt.Sprintf("0x%02x", typ)
}

func utcText(t time.Time) string {
	if t.IsZero() {
		return "(not recorded)"
	}
	return t.UTC().Format("2006-01-02 15:04:05.000")
}
