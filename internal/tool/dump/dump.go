// Package dump implements `perfc dump`: it reads raw PERF_DATA_BLOCKs (our
// own `perfc query` output or HKEY_PERFORMANCE_DATA captures from Windows)
// and prints them for a person, or as JSON for a program; and it lists the
// records of binary logs (Log): ours and Windows' BLG. Names come from a
// title database; where it does not know an index, the index alone is shown.
package dump

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/perflog/binlog"
	"github.com/perfcounters/perfcounters/perflog/blg"
	"github.com/perfcounters/perfcounters/titles"
)

// IsLog reports whether the file at path is a binary log, ours or a
// Windows BLG (by its first bytes), which Log lists instead of decoding it
// as a block. A file named .blg is taken for a BLG whatever it holds, so
// that one that is not says so in the BLG reader's words.
func IsLog(path string) bool {
	return binlog.IsLog(path) || blg.IsLog(path) || strings.EqualFold(filepath.Ext(path), ".blg")
}

// Log lists the records of the binary log at path. Ours: offset, kind,
// length, time and what each holds (samples with their objects and
// instances, definitions, titles, gaps with their reasons, wraps), then
// what the reader noticed (a torn tail). A BLG: what its header says, its
// counter list, then its PDH records (counter list, title table, samples
// with their raw blocks, listed values and the values marked failed).
func Log(w io.Writer, path string) error {
	if binlog.IsLog(path) {
		return binlog.Dump(w, path)
	}
	return blg.Dump(w, path)
}

// Options control the output.
type Options struct {
	JSON   bool       // one JSON document per block
	Titles *titles.DB // names for title indexes; nil shows indexes only
}

// Block is the JSON form of one decoded block.
type Block struct {
	File            string `json:"file,omitempty"`
	Version         uint32 `json:"version"`
	Revision        uint32 `json:"revision"`
	TotalByteLength uint32 `json:"totalByteLength"`
	HeaderLength    uint32 `json:"headerLength"`
	DefaultObject   int32  `json:"defaultObject"`
	// SystemTimeLocal is the block's SYSTEMTIME as written, without a
	// zone: Windows writes the writer's local time there (the Vista
	// captures' SYSTEMTIME is 4 h behind their PerfTime100nSec).
	SystemTimeLocal string `json:"systemTimeLocal"`
	// Time is PerfTime100nSec as a UTC time, the instant relog and typeperf
	// give the block; nil when PerfTime100nSec is 0 or not after 1601, or
	// names a year past 9999, which RFC 3339 (and so JSON's time) cannot
	// write: perfTime100nSec still holds the number.
	Time            *time.Time `json:"time,omitempty"`
	PerfTime        int64      `json:"perfTime"`
	PerfFreq        int64      `json:"perfFreq"`
	PerfTime100nSec int64      `json:"perfTime100nSec"`
	SystemName      string     `json:"systemName"`
	Objects         []Object   `json:"objects"`
}

// Object is the JSON form of one PERF_OBJECT_TYPE.
type Object struct {
	NameIndex      uint32     `json:"nameIndex"`
	Name           string     `json:"name,omitempty"`
	HelpIndex      uint32     `json:"helpIndex"`
	DetailLevel    uint32     `json:"detailLevel"`
	DefaultCounter int32      `json:"defaultCounter"`
	NumInstances   int32      `json:"numInstances"`
	CodePage       uint32     `json:"codePage"`
	PerfTime       int64      `json:"perfTime"`
	PerfFreq       int64      `json:"perfFreq"`
	Counters       []Counter  `json:"counters"`
	Instances      []Instance `json:"instances,omitempty"`
	Values         []Value    `json:"values,omitempty"` // single-instance objects
}

// Counter is the JSON form of one PERF_COUNTER_DEFINITION.
type Counter struct {
	NameIndex    uint32 `json:"nameIndex"`
	Name         string `json:"name,omitempty"`
	HelpIndex    uint32 `json:"helpIndex"`
	Type         string `json:"type"`
	TypeValue    uint32 `json:"typeValue"`
	Size         uint32 `json:"size"`
	Offset       uint32 `json:"offset"`
	DefaultScale int32  `json:"defaultScale"`
	DetailLevel  uint32 `json:"detailLevel"`
	Base         bool   `json:"base,omitempty"`
}

// Instance is the JSON form of one PERF_INSTANCE_DEFINITION and its values.
type Instance struct {
	Name                   string  `json:"name"`
	ParentObjectTitleIndex uint32  `json:"parentObjectTitleIndex,omitempty"`
	ParentObjectInstance   uint32  `json:"parentObjectInstance,omitempty"`
	Parent                 string  `json:"parent,omitempty"`
	UniqueID               int32   `json:"uniqueID"`
	Values                 []Value `json:"values"`
}

// Value is one raw counter value. Text counters carry Text instead.
type Value struct {
	Raw  uint64 `json:"raw"`
	Text string `json:"text,omitempty"`
}

// Decode parses one block into its JSON form.
func Decode(file string, data []byte, db *titles.DB) (*Block, error) {
	blk, err := perfdata.Parse(data)
	if err != nil {
		return nil, err
	}
	h := blk.Header()
	out := &Block{
		File: file, Version: h.Version, Revision: h.Revision,
		TotalByteLength: h.TotalByteLength, HeaderLength: h.HeaderLength,
		DefaultObject:   h.DefaultObject,
		SystemTimeLocal: h.SystemTime.Time().Format(localLayout),
		PerfTime:        h.PerfTime, PerfFreq: h.PerfFreq, PerfTime100nSec: h.PerfTime100nSec,
		SystemName: h.SystemName,
	}
	if t := perfdata.FileTimeToTime(h.PerfTime100nSec); h.PerfTime100nSec > 0 && t.Year() <= 9999 {
		out.Time = &t
	}
	// Instance names of every object, so children can name their parents.
	names := map[uint32][]string{}
	it := blk.Objects()
	for it.Next() {
		o := it.Object()
		obj := Object{
			NameIndex: o.NameIndex(), Name: name(db, o.NameIndex()), HelpIndex: o.HelpIndex(),
			DetailLevel: o.DetailLevel(), DefaultCounter: o.DefaultCounter(),
			NumInstances: o.NumInstances(), CodePage: o.CodePage(),
			PerfTime: o.PerfTime(), PerfFreq: o.PerfFreq(),
		}
		defs := o.AppendCounters(make([]perfdata.CounterDef, 0, o.NumCounters()))
		obj.Counters = make([]Counter, 0, len(defs))
		for _, d := range defs {
			obj.Counters = append(obj.Counters, Counter{
				NameIndex: d.NameIndex, Name: name(db, d.NameIndex), HelpIndex: d.HelpIndex,
				Type: d.Type.String(), TypeValue: uint32(d.Type), Size: d.Size, Offset: d.Offset,
				DefaultScale: d.DefaultScale, DetailLevel: d.DetailLevel, Base: d.Type.IsBase(),
			})
		}
		values := func(cb perfdata.CounterBlock) []Value {
			vs := make([]Value, len(defs))
			for i, d := range defs {
				if d.Type.IsText() {
					vs[i].Text = cb.Text(d)
					continue
				}
				vs[i].Raw = cb.Value(d)
			}
			return vs
		}
		if o.SingleInstance() {
			obj.Values = values(o.SingleBlock())
		} else {
			ii := o.Instances()
			for ii.Next() {
				in := ii.Instance()
				inst := Instance{
					Name: in.Name(), ParentObjectTitleIndex: in.ParentObjectTitleIndex(),
					ParentObjectInstance: in.ParentObjectInstance(), UniqueID: in.UniqueID(),
					Values: values(in.Block()),
				}
				if p := inst.ParentObjectTitleIndex; p != 0 {
					if ps := names[p]; int(inst.ParentObjectInstance) < len(ps) {
						inst.Parent = ps[inst.ParentObjectInstance]
					}
				}
				names[obj.NameIndex] = append(names[obj.NameIndex], inst.Name)
				obj.Instances = append(obj.Instances, inst)
			}
		}
		out.Objects = append(out.Objects, obj)
	}
	return out, nil
}

func name(db *titles.DB, idx uint32) string {
	if db == nil {
		return ""
	}
	return db.Name(idx)
}

// Write decodes data and writes it to w in the chosen form.
func Write(w io.Writer, file string, data []byte, opts Options) error {
	b, err := Decode(file, data, opts.Titles)
	if err != nil {
		return err
	}
	if opts.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(b)
	}
	return writeText(w, b)
}

// Layouts of the times shown: a SYSTEMTIME without a zone (JSON, then
// text), and a UTC time in the text form.
const (
	localLayout = "2006-01-02T15:04:05.000"
	textLayout  = "2006-01-02 15:04:05.000"
)

func label(idx uint32, name string) string {
	if name == "" {
		return strconv.FormatUint(uint64(idx), 10)
	}
	return fmt.Sprintf("%d %s", idx, name)
}

func writeText(w io.Writer, b *Block) error {
	var sb strings.Builder
	if b.File != "" {
		fmt.Fprintf(&sb, "== %s\n", b.File)
	}
	// SYSTEMTIME is the writer's local time (ZACH-PC's is 4 h behind its
	// PerfTime100nSec), printed as written, without a zone; the instant
	// relog and typeperf give the block is PerfTime100nSec, shown in UTC.
	fmt.Fprintf(&sb, "PERF_DATA_BLOCK v%d.%d  system %q\n", b.Version, b.Revision, b.SystemName)
	fmt.Fprintf(&sb, "  SystemTime %s (the writer's local time)", strings.Replace(b.SystemTimeLocal, "T", " ", 1))
	if b.Time != nil {
		fmt.Fprintf(&sb, "  time %s UTC (PerfTime100nSec)", b.Time.UTC().Format(textLayout))
	}
	sb.WriteString("\n")
	fmt.Fprintf(&sb, "  TotalByteLength %d  HeaderLength %d  objects %d  DefaultObject %d\n",
		b.TotalByteLength, b.HeaderLength, len(b.Objects), b.DefaultObject)
	fmt.Fprintf(&sb, "  PerfTime %d  PerfFreq %d  PerfTime100nSec %d\n", b.PerfTime, b.PerfFreq, b.PerfTime100nSec)
	for _, o := range b.Objects {
		inst := "single instance"
		if o.Values == nil {
			inst = fmt.Sprintf("%d instances", len(o.Instances))
		}
		fmt.Fprintf(&sb, "\nobject %s  help %d  detail %d  %d counters  %s  default counter %d\n",
			label(o.NameIndex, o.Name), o.HelpIndex, o.DetailLevel, len(o.Counters), inst, o.DefaultCounter)
		if o.PerfTime != 0 || o.PerfFreq != 0 {
			fmt.Fprintf(&sb, "  object timer PerfTime %d  PerfFreq %d\n", o.PerfTime, o.PerfFreq)
		}
		for i, c := range o.Counters {
			fmt.Fprintf(&sb, "  counter %2d  %-40s %-34s size %d offset %d scale %d detail %d\n",
				i, counterLabel(c), countertype.Type(c.TypeValue), c.Size, c.Offset, c.DefaultScale, c.DetailLevel)
		}
		if o.Values != nil {
			writeValues(&sb, "  ", o.Counters, o.Values)
		}
		for _, in := range o.Instances {
			n := in.Name
			if in.Parent != "" {
				n = in.Parent + "/" + n
			} else if in.ParentObjectTitleIndex != 0 {
				n = fmt.Sprintf("(%d:%d)/%s", in.ParentObjectTitleIndex, in.ParentObjectInstance, n)
			}
			fmt.Fprintf(&sb, "  instance %q", n)
			if in.UniqueID != -1 {
				fmt.Fprintf(&sb, "  unique id %d", in.UniqueID)
			}
			sb.WriteString("\n")
			writeValues(&sb, "    ", o.Counters, in.Values)
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

func counterLabel(c Counter) string {
	l := label(c.NameIndex, c.Name)
	if c.Base {
		l += " (base)"
	}
	return l
}

func writeValues(sb *strings.Builder, indent string, cs []Counter, vs []Value) {
	for i, v := range vs {
		if v.Text != "" || countertype.Type(cs[i].TypeValue).IsText() {
			fmt.Fprintf(sb, "%s%-46s %q\n", indent, counterLabel(cs[i]), v.Text)
			continue
		}
		fmt.Fprintf(sb, "%s%-46s %d\n", indent, counterLabel(cs[i]), v.Raw)
	}
}
