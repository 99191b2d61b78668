// Package pdh is the consumer side of performance data, the capabilities of
// Windows' PDH in Go form: open a Query on a Source, add counters by path
// (wildcards, parent/instance#index), collect samples, and read formatted
// values (one, or an array over instances), raw values and statistics; and
// browse what a source holds (EnumObjects, EnumObjectItems,
// ExpandWildCardPath, DefaultObject, DefaultCounter, ValidatePath). A query
// also removes counters (RemoveCounter), collects in a loop at an interval
// (Every, PdhCollectQueryDataEx's role), keeps a recording to a span of
// time (SetTimeRange) and ends (Close); it speaks a language of the title
// database (SetTitles, AddEnglishCounter).
//
// It owns the Source seam (every data source, live or replayed, gives
// PERF_DATA_BLOCKs and the title database that names them), BlockFiles
// (raw block files replayed as samples), the resolution of counter paths
// against the data (names compared case-insensitively through the source's
// title database, numeric title indexes accepted in place of object and
// counter names), and the matching of instances between samples.
//
// # Instances
//
// An object's instances are named as PDH names them: duplicate names get
// "#1", "#2", ... in order of appearance, counted per parent name, and a
// child is "parent/child". Between two samples an instance is the same
// instance when:
//
//   - its provider gives it a unique id (UniqueID != -1): same parent name
//     and id;
//   - it belongs to Process, Process V2 or Thread and has a non-zero
//     "ID Process" (Thread: "ID Thread"): same id and same raw "Elapsed
//     Time" (its start time), whatever its name and #index — so a process
//     that exits and another that starts under the same name never pair,
//     even when the #index numbering shifts;
//   - otherwise: same parent name, name and #index, as PDH does.
//
// An instance without a match in the previous sample has no rate yet: its
// two-sample counters show calc.NewData until its second sample.
//
// # Cost
//
// Collect asks the source once per sample for the objects its counters
// need, parses each block once, walks each needed object once however many
// counters use it, and caches the resolved positions of counters (checked
// against the object's definitions every sample). After the first samples
// it allocates nothing per value or per instance: names are interned and
// buffers reused.
package pdh
