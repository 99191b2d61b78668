// Package counterset describes a counter set (a performance object) as it is
// declared — by Go code, by an instrumentation manifest, or by a built-in
// Linux object — independently of how its values are collected: its name,
// help text, instancing, and counters with their types and the companion
// counters (base, multi count, object timer) each one needs.
//
// A Set lists its counters in PERF_COUNTER_DEFINITION order: a counter that
// needs a base is immediately followed by that base, as winperf.h requires.
// The index of a counter in Set.Counters is therefore its definition index in
// a PERF_OBJECT_TYPE, and collectors address values by that index.
package counterset

import (
	"errors"
	"fmt"
	"strings"

	"github.com/perfcounters/perfcounters/countertype"
)

// Instancing says how many instances a set has (perflib.h
// PERF_COUNTERSET_* values; manifest keywords in the comments).
type Instancing uint32

// Instancing values, equal to perflib.h's.
const (
	Single                 Instancing = 0    // "single"
	Multiple               Instancing = 2    // "multiple"
	GlobalAggregate        Instancing = 4    // "globalAggregate"
	MultipleAggregate      Instancing = 6    // "multipleAggregate"
	GlobalAggregateHistory Instancing = 0xC  // "globalAggregateHistory"
	InstanceAggregate      Instancing = 0x16 // no manifest keyword
)

// Multi reports whether the set has named instances (everything but
// Single and GlobalAggregate, which have exactly one row).
func (i Instancing) Multi() bool {
	switch i {
	case Single, GlobalAggregate, GlobalAggregateHistory:
		return false
	}
	return true
}

// String returns the manifest keyword.
func (i Instancing) String() string {
	switch i {
	case Single:
		return "single"
	case Multiple:
		return "multiple"
	case GlobalAggregate:
		return "globalAggregate"
	case MultipleAggregate:
		return "multipleAggregate"
	case GlobalAggregateHistory:
		return "globalAggregateHistory"
	case InstanceAggregate:
		return "instanceAggregate"
	}
	return fmt.Sprintf("Instancing(%d)", uint32(i))
}

// Aggregate is how a counter's _Total is formed (PERF_AGGREGATE_*).
type Aggregate uint32

// Aggregate functions, equal to perflib.h's.
const (
	AggregateUndefined Aggregate = 0
	AggregateTotal     Aggregate = 1 // manifest "sum"
	AggregateAvg       Aggregate = 2
	AggregateMin       Aggregate = 3
	AggregateMax       Aggregate = 4
)

// Attributes are PERF_ATTRIB_* flags of a V2 counter.
type Attributes uint64

// Attribute flags, equal to perflib.h's.
const (
	AttrByReference   Attributes = 0x1  // "reference"
	AttrNoDisplay     Attributes = 0x2  // "noDisplay"
	AttrNoGroupSep    Attributes = 0x4  // "noDigitGrouping"
	AttrDisplayAsReal Attributes = 0x8  // "displayAsReal"
	AttrDisplayAsHex  Attributes = 0x10 // "displayAsHex"
)

// Detail levels (PERF_DETAIL_*); manifests say "standard" (novice) and
// "advanced".
const (
	DetailNovice   uint32 = 100
	DetailAdvanced uint32 = 200
	DetailExpert   uint32 = 300
	DetailWizard   uint32 = 400
)

// NoID marks an unused companion-counter reference (BaseID, MultiID, ...),
// as 0xFFFFFFFF does in MS-PCQ registration records. A reference only
// counts where the counter's type uses it (Base, MultiCount, ObjectTimer),
// so a Counter's zero value needs no marker: BaseID 0 on a counter that
// takes no base means nothing, not "counter 0".
const NoID = ^uint32(0)

// Counter is one counter (one column) of a set.
type Counter struct {
	ID           uint32           // V2 counter id; for built-in objects the position in Counters
	Name         string           // English name, e.g. "% Processor Time"; a base may repeat its parent's name
	Help         string           // plain-English help text
	Type         countertype.Type // winperf counter type
	Size         uint32           // value width in bytes; 0 means the type's declared width
	DefaultScale int32            // power of ten applied for display
	DetailLevel  uint32           // DetailNovice..DetailWizard; 0 means novice
	Aggregate    Aggregate        // how _Total is formed, for aggregate sets
	Attributes   Attributes       // V2 attributes
	BaseID       uint32           // V2: id of the base counter, or NoID
	MultiID      uint32           // V2: id of the multi-count counter, or NoID
	PerfTimeID   uint32           // V2: id of the counter holding the object time, or NoID
	PerfFreqID   uint32           // V2: id of the counter holding the object frequency, or NoID
	NameIndex    uint32           // title index of the name; 0 = to be assigned by the title database
	// Cumulative marks a raw count (PERF_COUNTER_RAWCOUNT,
	// PERF_COUNTER_LARGE_RAWCOUNT) that only grows, such as an error
	// count since boot: Windows' type says "show the value", an exporter
	// presents it as a counter (export/prom). It travels in no block.
	Cumulative bool
}

// Base returns the id of the counter's base counter, for a type that takes
// one (fractions, averages, sample counters); ok is false for every other
// type, whatever BaseID holds.
func (c *Counter) Base() (id uint32, ok bool) {
	if !c.Type.NeedsBase() || c.BaseID == NoID {
		return 0, false
	}
	return c.BaseID, true
}

// MultiCount returns the id of the counter holding the item count of a
// PERF_MULTI_COUNTER type that names one; ok is false otherwise.
func (c *Counter) MultiCount() (id uint32, ok bool) {
	if !c.Type.Multi() || c.Type.IsBase() || c.MultiID == NoID {
		return 0, false
	}
	return c.MultiID, true
}

// ObjectTimer returns the ids of the counters holding the object time and
// frequency of a type measured against the object's own timer
// (PERF_OBJECT_TIMER); ok is false for every other type.
func (c *Counter) ObjectTimer() (timeID, freqID uint32, ok bool) {
	if !c.Type.UsesObjectTimer() || c.PerfTimeID == NoID || c.PerfFreqID == NoID {
		return 0, 0, false
	}
	return c.PerfTimeID, c.PerfFreqID, true
}

// WireRefs returns the four references as a registration record or a
// segment stores them: NoID for each the counter's type does not use.
func (c *Counter) WireRefs() (base, multi, perfTime, perfFreq uint32) {
	base, multi, perfTime, perfFreq = NoID, NoID, NoID, NoID
	if id, ok := c.Base(); ok {
		base = id
	}
	if id, ok := c.MultiCount(); ok {
		multi = id
	}
	if t, f, ok := c.ObjectTimer(); ok {
		perfTime, perfFreq = t, f
	}
	return base, multi, perfTime, perfFreq
}

// ValueSize returns the width in bytes of the counter's value: Size when
// set, otherwise the type's declared width (8 for types whose declared width
// is zero or variable, so that a slot always exists).
func (c *Counter) ValueSize() uint32 {
	if c.Size != 0 {
		return c.Size
	}
	if n := c.Type.ByteSize(); n != 0 {
		return uint32(n)
	}
	return 8
}

// Set is a declared counter set.
type Set struct {
	GUID           string     // V2 counter-set GUID, empty for built-in objects
	Name           string     // English object name, e.g. "Processor"
	Help           string     // plain-English help text
	NameIndex      uint32     // fixed title index (238 for Processor); 0 = assign
	Instancing     Instancing // Single or one of the multi-instance kinds
	DetailLevel    uint32     // minimum detail level of the object; 0 = novice
	DefaultCounter int        // index into Counters of the default counter, -1 for none
	Costly         bool       // left out of Global queries, returned for Costly
	Parent         string     // name of the parent object (Thread -> "Process"), empty for none
	Counters       []Counter  // in definition order; bases right after their user
}

// Validate checks what every consumer relies on: names present, counter
// types documented, each counter that needs a base followed by a counter of
// a matching base type, and no base that is not preceded by a user.
func (s *Set) Validate() error {
	if strings.TrimSpace(s.Name) == "" {
		return errors.New("counterset: set has no name")
	}
	if s.DefaultCounter < -1 || s.DefaultCounter >= len(s.Counters) {
		return fmt.Errorf("counterset: %s: default counter %d out of range", s.Name, s.DefaultCounter)
	}
	for i := range s.Counters {
		c := &s.Counters[i]
		if strings.TrimSpace(c.Name) == "" {
			return fmt.Errorf("counterset: %s: counter %d has no name", s.Name, i)
		}
		if !c.Type.Known() {
			return fmt.Errorf("counterset: %s: counter %q: undocumented counter type 0x%08X", s.Name, c.Name, uint32(c.Type))
		}
		if sz := c.ValueSize(); sz != 4 && sz != 8 {
			return fmt.Errorf("counterset: %s: counter %q: value size %d (want 4 or 8)", s.Name, c.Name, sz)
		}
		if c.Type.NeedsBase() {
			if i+1 >= len(s.Counters) || !c.Type.AcceptsBase(s.Counters[i+1].Type) {
				want, _ := c.Type.Base()
				return fmt.Errorf("counterset: %s: counter %q (%v) must be followed by a %v", s.Name, c.Name, c.Type, want)
			}
		}
		if c.Type.IsBase() && (i == 0 || !s.Counters[i-1].Type.AcceptsBase(c.Type)) {
			return fmt.Errorf("counterset: %s: base counter %q (%v) does not follow a counter that uses it", s.Name, c.Name, c.Type)
		}
	}
	return nil
}

// CounterByName returns the index of the first non-base counter whose name
// matches (case-insensitively), or -1.
func (s *Set) CounterByName(name string) int {
	for i := range s.Counters {
		if !s.Counters[i].Type.IsBase() && strings.EqualFold(s.Counters[i].Name, name) {
			return i
		}
	}
	return -1
}
