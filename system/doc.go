// Package system owns the built-in Linux performance objects: the counters
// a Windows administrator knows (Processor, Memory, PhysicalDisk, TCPv4,
// Process, ...), declared with Windows' names, title indexes and counter
// types, and filled from /proc and /sys so that Windows' formulas give the
// same meaning on two samples.
//
// Each object is an Object: a counterset.Set and a collect function that
// writes one sample through a Writer (the engine's adapter over a
// perfdata.Builder). A Collector holds the /proc and /sys roots as fs.FS
// values, so every parser runs on fixture trees in tests, plus buffers and
// state reused between samples. Parsers are pure functions over the bytes of
// one file; a file that cannot be read is skipped and recorded in
// Collector.Warnings rather than failing the whole sample.
//
// Conventions shared by the objects:
//   - Tick counts of /proc/stat are USER_HZ (100 on Linux, whatever the
//     kernel's HZ), converted exactly to 100 ns units.
//   - _Total instances of time percentages hold the average over the
//     instances (CPU times divided by the CPU count; disk percentage bases
//     multiplied by the disk count); counts and rates are summed.
//   - Counters Linux cannot honestly fill are left out of the declaration,
//     never filled with invented values; each object's doc comment lists
//     what was left out and why.
package system
