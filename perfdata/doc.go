// Package perfdata owns the PERF_DATA_BLOCK format: the byte layout that
// RegQueryValueEx(HKEY_PERFORMANCE_DATA) returns, V1 providers write and
// perfmon logs store. It has a Builder that writes blocks exactly as Windows
// lays them out, a zero-copy reader (Parse, Block, Object, Instance,
// CounterBlock, and ValueReader for reading every value of many instances
// in one straight pass), a header-only parse (ParseHeader), Perflib's
// integrity tests for provider output
// (CheckObjects, CheckAlignment) and FormatError, which names the offset,
// structure, field and value of every fault.
//
// # Layout
//
// All little-endian; sizes are the same for 32- and 64-bit Windows.
//
//	PERF_DATA_BLOCK           88 bytes: "PERF" (UTF-16), LittleEndian 1, Version 1, Revision 1,
//	                          TotalByteLength, HeaderLength, NumObjectTypes, DefaultObject,
//	                          SYSTEMTIME (the writer's local time), pad, PerfTime, PerfFreq,
//	                          PerfTime100nSec (a UTC FILETIME),
//	                          SystemNameLength (bytes incl. NUL), SystemNameOffset (88)
//	system name               UTF-16LE + NUL, padded so HeaderLength is a multiple of 8
//	per object:
//	  PERF_OBJECT_TYPE        64 bytes; HeaderLength 64, DefinitionLength, TotalByteLength
//	  PERF_COUNTER_DEFINITION 40 bytes each; CounterOffset is from the counter block start
//	  NumInstances = -1:      one PERF_COUNTER_BLOCK
//	  NumInstances = n > 0:   n × (PERF_INSTANCE_DEFINITION 24 bytes, name at 24, NUL,
//	                          padding to 8, then that instance's PERF_COUNTER_BLOCK)
//	  NumInstances 0, -2, -3: nothing after the definitions
//	PERF_COUNTER_BLOCK        ByteLength (a multiple of 8) then values: DWORDs from
//	                          offset 4, 8-byte values at 8-aligned offsets
//
// A base definition follows the counter it serves and, in real data, repeats
// that counter's title index; Object.BaseOf finds it by position.
//
// # Hardening
//
// Parse treats its input as hostile. Before it returns a Block it checks
// every length, offset and count against the structure that encloses it and
// against the buffer: the header, each object, each definition, each
// instance name and counter block, that every counter's value
// (CounterOffset + CounterSize) lies inside every counter block of its
// object, that all definitions of an object have one ByteLength (40 in all
// Windows data; so Object.Counter is O(1)), and that an object holds no
// more values (counters × counter blocks) than bytes: values may share
// bytes, so without that bound a small block of many counters and many
// empty instances would cost its reader quadratic time and memory. With
// it, walking every value of a block costs time linear in its size. Each step of the object and instance walks advances by at least
// the fixed structure size, so the walk ends, and no count read from the
// input sizes an allocation. After a nil error no accessor can fail or
// panic, and walking objects and instances and reading values allocates
// nothing. Lengths that Windows keeps at multiples of 8 are accepted
// whatever they are (real registry data passes Perflib unchanged);
// CheckAlignment reports them. These properties are exercised by the fuzz
// targets FuzzParse (seeded with real Windows blocks; every accessor is
// walked and what was read is re-encoded and compared) and
// FuzzCheckObjects, and by tests that truncate and bit-flip every real block.
//
// Big-endian blocks (LittleEndian 0, from foreign systems) are rejected.
package perfdata
