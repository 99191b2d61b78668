package binlog

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/wintz"
)

// Dump writes a listing of the log at path to w: the header, then one line
// per record (offset, seq, kind, length, whether compressed, time, and what
// it holds), then the reader's notes.
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
	h := l.sc.hdr
	mode := "linear"
	if h.circular {
		mode = fmt.Sprintf("circular, MaxSize %d", h.maxSize)
	}
	comp := "uncompressed"
	if h.zstd {
		comp = "zstd"
	}
	fmt.Fprintf(&sb, "binary log %s: version %d, %d bytes, %s, %s, %d records, %d samples\n",
		l.sc.name, h.version, l.sc.size, mode, comp, len(l.sc.records), len(l.samples))
	fmt.Fprintf(&sb, "%10s %6s  %-6s %8s %5s  %-23s  %s\n", "offset", "seq", "kind", "length", "zstd", "time (UTC)", "content")
	var dec *decoder
	recs := l.sc.records
	for i := range recs {
		f := &recs[i]
		if i > 0 && f.seq != recs[i-1].seq+1 {
			dec = nil
		}
		z := ""
		if f.flags&flagCompressed != 0 {
			z = "z"
			if f.flags&flagPrevDict != 0 {
				z = "z+" // with the previous sample as dictionary
			}
		}
		ts := ""
		if f.time != noTime {
			ts = timeOf(f.time).Format("2006-01-02 15:04:05.000")
		}
		fmt.Fprintf(&sb, "%10d %6d  %-6s %8d %5s  %-23s  ", f.off, f.seq, f.kind, f.length, z, ts)
		what := ""
		var b []byte
		var err error
		switch {
		case f.kind == KindSample && dec != nil:
			b, err = l.samplePayload(f, dec)
		case f.kind != KindWrap:
			b, err = l.payload(f)
		}
		switch {
		case err != nil:
			what = "unreadable: " + err.Error()
		case f.kind == KindInfo:
			in, perr := parseInfo(b)
			if perr != nil {
				what = "unreadable: " + perr.Error()
				dec = nil
				break
			}
			dec = newDecoder()
			cl := "whole objects"
			if in.hasCounters {
				cl = fmt.Sprintf("%d counters %q", len(in.counters), in.counters)
			}
			causes := []string{"created", "appended", "new epoch", "rollover file"}
			cause := fmt.Sprintf("cause %d", in.cause)
			if in.cause < uint64(len(causes)) {
				cause = causes[in.cause]
			}
			rule := ""
			if in.rule != "" {
				rule = fmt.Sprintf(", rule %q", in.rule)
			}
			// The zone as a person sees the record's time: the name
			// wintz.At gives in the log's zone then (daylight time in
			// summer), whatever name the record stores.
			seen := ""
			if f.time != noTime && l.loc != nil {
				seen = fmt.Sprintf(", seen as %q", wintz.At(timeOf(f.time).In(l.loc)).Name)
			}
			what = fmt.Sprintf("%s: host %q, zone %q%s (IANA %q, UTC%s%s), PerfFreq %d, %s, by %q",
				cause, in.host, in.zone, seen, in.iana, offsetText(in.offset), rule, in.perfFreq, cl, in.writer)
		case f.kind == KindTitles:
			es, perr := parseTitles(b)
			if perr != nil {
				what = "unreadable: " + perr.Error()
				break
			}
			var names []string
			for i, e := range es {
				if i == 3 {
					names = append(names, "...")
					break
				}
				names = append(names, fmt.Sprintf("%d %s", e.index, e.name))
			}
			what = fmt.Sprintf("%d titles: %s", len(es), strings.Join(names, ", "))
		case f.kind == KindDefs:
			if dec == nil {
				what = "not decodable: the information record of its epoch is lost"
				break
			}
			first := len(dec.defs)
			if derr := dec.addDefs(b); derr != nil {
				what = "unreadable: " + derr.Error()
				dec = nil
				break
			}
			var ds []string
			for id := first; id < len(dec.defs); id++ {
				d := dec.defs[id]
				idx := le.Uint32(d[oNameTitleIndex:])
				name := fmt.Sprint(idx)
				if n := l.db.Name(idx); n != "" {
					name += " " + n
				}
				ds = append(ds, fmt.Sprintf("#%d %s (%d counters)", id+1, name, le.Uint32(d[oNumCounters:])))
			}
			what = fmt.Sprintf("%d definitions: %s", len(ds), strings.Join(ds, ", "))
		case f.kind == KindSample:
			if dec == nil {
				what = "not decodable: the information record of its epoch is lost"
				break
			}
			s, serr := dec.sample(b)
			if serr != nil {
				what = "unreadable: " + serr.Error()
				dec = nil
				break
			}
			objs, insts := 0, 0
			for _, blk := range s.Blocks {
				for it := blk.Objects(); it.Next(); {
					objs++
					insts += it.Object().InstanceCount()
				}
			}
			what = fmt.Sprintf("sample: %d blocks, %d objects, %d instances, payload %d bytes", len(s.Blocks), objs, insts, len(b))
			if s.Gap {
				what += ", after a gap"
			}
			if len(s.Problems) > 0 {
				what += fmt.Sprintf(", %d problems", len(s.Problems))
			}
		case f.kind == KindGap:
			p := &payload{b: b}
			what = fmt.Sprintf("gap: %q", p.str("reason"))
		case f.kind == KindWrap:
			what = "wrap: the lap ends; the next record is at the start of the ring"
		default:
			what = "unknown kind, skipped"
		}
		sb.WriteString(what)
		sb.WriteString("\n")
	}
	for _, n := range l.notes {
		fmt.Fprintf(&sb, "note: %s\n", n)
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

func offsetText(sec int64) string {
	d := time.Duration(sec) * time.Second
	sign := "+"
	if d < 0 {
		sign, d = "-", -d
	}
	return fmt.Sprintf("%s%02d:%02d", sign, int(d.Hours()), int(d.Minutes())%60)
}

// IsLog reports whether the file at path starts as a binary log does (its
// magic bytes), so a tool can tell a log from other files.
func IsLog(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [len(magic)]byte
	if _, err := io.ReadFull(f, b[:]); err != nil {
		return false
	}
	return IsLogHead(b[:])
}

// IsLogHead reports whether head, the first bytes of a file, starts as a
// binary log does (its magic bytes), for a caller that read them itself.
func IsLogHead(head []byte) bool {
	return len(head) >= len(magic) && [len(magic)]byte(head[:len(magic)]) == magic
}
