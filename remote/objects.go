package remote

import (
	"fmt"
	"strings"

	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// ObjectList is the JSON of GET /v1/objects.
type ObjectList struct {
	Host    string        `json:"host"`
	Objects []ObjectEntry `json:"objects"`
}

// ObjectEntry describes a performance object as an Add Counters dialog
// shows it (PdhEnumObjects and PdhEnumObjectItems).
type ObjectEntry struct {
	Index       uint32 `json:"index"`
	Name        string `json:"name"`
	Help        string `json:"help"`
	DetailLevel string `json:"detailLevel"` // novice, advanced, expert or wizard
	// Costly objects are collected only when asked for by index (not in
	// Global).
	Costly bool `json:"costly"`
	// MultiInstance objects have instances; single-instance objects one
	// counter block.
	MultiInstance bool `json:"multiInstance"`
	// DefaultCounter is the name of the counter a dialog selects first.
	DefaultCounter string         `json:"defaultCounter,omitempty"`
	Counters       []CounterEntry `json:"counters"`
	// Instances, in the sample's order, are listed by
	// GET /v1/objects/{name} only (null in the list).
	Instances []InstanceEntry `json:"instances,omitempty"`
}

// CounterEntry describes a counter of an object. Base counters are not
// counters of their own: they appear as the Base of the counter they
// serve.
type CounterEntry struct {
	Index        uint32     `json:"index"`
	Name         string     `json:"name"`
	Help         string     `json:"help"`
	Type         string     `json:"type"`      // winperf name, PERF_COUNTER_COUNTER
	TypeValue    uint32     `json:"typeValue"` // the CounterType DWORD
	DetailLevel  string     `json:"detailLevel"`
	DefaultScale int32      `json:"defaultScale"`
	TwoSamples   bool       `json:"twoSamples"` // a rate: the first sample has no value
	Base         *BaseEntry `json:"base,omitempty"`
}

// BaseEntry is the base counter (denominator) a counter is computed with.
type BaseEntry struct {
	Index uint32 `json:"index"`
	Type  string `json:"type"`
}

// InstanceEntry is an instance as PDH names it: Display is the array name
// "parent/name#n"; Index is the #n that tells apart equal names (0 for the
// first, shown without #).
type InstanceEntry struct {
	Name    string `json:"name"`
	Parent  string `json:"parent,omitempty"`
	Index   int    `json:"index,omitempty"`
	Display string `json:"display"`
	// Path is the instance's path of the object's first counter, ready
	// for /v1/formatted.
	Path string `json:"path"`
}

// detailNames are the names of PERF_DETAIL_* levels in the API.
var detailNames = [...]struct {
	name  string
	level uint32
}{
	{"novice", 100}, // PERF_DETAIL_NOVICE
	{"advanced", 200},
	{"expert", 300},
	{"wizard", 400},
}

// DetailName is the API's name of a detail level (the next level up for
// a value between two, "wizard" above).
func DetailName(l uint32) string {
	for _, d := range detailNames {
		if l <= d.level {
			return d.name
		}
	}
	return "wizard"
}

// ParseDetail reads a detail level's API name (any case): novice,
// advanced, expert or wizard.
func ParseDetail(name string) (uint32, bool) {
	for _, d := range detailNames {
		if strings.EqualFold(name, d.name) {
			return d.level, true
		}
	}
	return 0, false
}

// ObjectEntryOf describes object o of a sample, without its instances:
// its names, help and detail level from db and the definitions, and the
// counters of detail level up to detail among ctrs (pdh's enumeration of
// o: definition order, bases left out), each paired with its definition
// to find its base. levels are the counters' detail levels, as
// e.Counters.
func ObjectEntryOf(db *titles.DB, o perfdata.Object, ctrs []pdh.CounterInfo, detail uint32) (e ObjectEntry, levels []uint32) {
	idx := o.NameIndex()
	e = ObjectEntry{Index: idx, Name: titleOf(db, idx), Help: db.Help(o.HelpIndex()), DetailLevel: DetailName(o.DetailLevel()),
		MultiInstance: !o.SingleInstance(), Counters: []CounterEntry{}}
	if dc := int(o.DefaultCounter()); dc >= 0 && dc < o.NumCounters() {
		e.DefaultCounter = titleOf(db, o.Counter(dc).NameIndex)
	}
	k := 0
	for i := range o.NumCounters() {
		def := o.Counter(i)
		if def.Type.IsBase() {
			continue
		}
		if k >= len(ctrs) {
			break
		}
		c := ctrs[k]
		k++
		if c.DetailLevel > detail {
			continue
		}
		ce := CounterEntry{Index: c.NameIndex, Name: c.Path.Counter, Help: c.Help, Type: c.Type.String(),
			TypeValue: uint32(c.Type), DetailLevel: DetailName(c.DetailLevel), DefaultScale: c.DefaultScale,
			TwoSamples: c.Type.NeedsTwoSamples()}
		if c.Type.NeedsBase() && i+1 < o.NumCounters() && o.Counter(i+1).Type.IsBase() {
			b := o.Counter(i + 1)
			ce.Base = &BaseEntry{Index: b.NameIndex, Type: b.Type.String()}
		}
		e.Counters = append(e.Counters, ce)
		levels = append(levels, c.DetailLevel)
	}
	return e, levels
}

// titleOf is the title database's name of idx, or the number.
func titleOf(db *titles.DB, idx uint32) string {
	if n := db.Name(idx); n != "" {
		return n
	}
	return fmt.Sprint(idx)
}
