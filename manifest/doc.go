// Package manifest reads the counters section of a Windows instrumentation
// manifest (the XML that Windows' lodctr /m and ctrpp consume) and turns it
// into declared counter sets (counterset.Set), validated as Windows does.
//
// It owns three things: the reading of the XML (namespaces, UTF-8 and UTF-16
// encodings, $(string.ID) references resolved through the manifest's own
// string table, line numbers for every element and attribute), the schema
// and cross rules, and the mapping of manifest keywords to perflib values.
//
// # Strict and lenient
//
// Every manifest that shipped and worked with Windows' lodctr and ctrpp must
// load here too, even where it breaks the published schema; a mistake that
// would make a consumer compute a wrong number is always an error. The
// schema breaks accepted, each found in a real manifest
// (shared/conformance/manifests/README.md), and why accepting is safe:
//
//   - no schemaVersion on <counters>, or any version number ("2.0", which
//     installers ship and Windows' lodctr registers): the version selects
//     nothing here; a value that is no version number is refused.
//   - no symbol on <provider> or <counterSet>: symbols only name generated
//     code; ctrpp derives identifiers from names instead.
//   - name and description written as $(string.ID) and resolved through
//     <localization><resources><stringTable>: the text is unambiguous once
//     resolved (culture en-US first, else the first table); an unresolved
//     reference is an error.
//   - a counter without detailLevel: standard (PERF_DETAIL_NOVICE), the
//     value every other counter of those manifests uses.
//   - <structs>, struct and field on a user-mode provider, a field without
//     struct, or a struct that names no declared <struct>: kernel-mode
//     struct layouts describe where a driver keeps its values in kernel
//     memory; on Linux values always live in the provider's shared-memory
//     segment, so these attributes are kept (SetInfo.Structs,
//     CounterInfo.Struct/Field) but not applied and not checked.
//   - a base counter declared before the counter that uses it: definition
//     order is rebuilt (see below), so manifest order does not matter.
//   - a counter without name or description that carries noDisplay (the
//     schema allows it) or is a base: such a counter is never shown; it
//     gets a name for the title database (see CounterInfo.Unnamed).
//
// Kept strict, because each would give wrong or ambiguous numbers: an
// unknown counter type or one with no winperf value (perf_counter_composite),
// a type that needs a base without baseID, a baseID that names a counter of
// the wrong base type, a base no counter uses or two counters use, multiCounterID not naming a
// perf_counter_rawcount, object-timer types without perfTimeID/perfFreqID
// naming perf_counter_large_rawcount counters, counters of one set naming
// different perfTimeID or perfFreqID counters (a PERF_OBJECT_TYPE has one
// PerfTime and one PerfFreq), duplicate counter ids, duplicate counter-set
// GUIDs, names or URIs, and malformed GUIDs, ids and keywords.
//
// # Definition order
//
// counterset.Set requires every counter that needs a base to be followed
// immediately by that base. The manifest's order is kept for every counter
// that is not a base; each base is moved right after the counter that names
// it. A base named by two counters is refused: a set holds one definition
// (and a provider one value) per counter id, so a second copy of the base
// would be a value nobody writes. No shipped manifest shares a base.
package manifest
