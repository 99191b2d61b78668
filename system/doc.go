// Package system owns the built-in Linux performance objects: the counters
// a Windows administrator knows (Processor, Memory, PhysicalDisk, TCPv4,
// Process, ...), declared with Windows' names, title indexes and counter
// types, and filled from /proc and /sys so that Windows' formulas give the
// same meaning on two samples; and, in the same counter model, what
// Windows never showed (Collector.LinuxObjects): Control Group (every
// container, service and slice, cgroup v2 and v1), Pressure (pressure
// stall information), and where the host has them the hardware sensors
// (Temperature Sensor, Fan, Power Meter, Thermal Zone Information).
// LINUX-OBJECTS.md says where each of their counters comes from, how v1
// and v2 hierarchies are merged, and how a group is identified.
//
// Each object is an Object: a counterset.Set and a collect function that
// writes one sample through a Writer (the engine's adapter over a
// perfdata.Builder) and reports what it could not read through a
// Collection (the engine's per-sample context). Every /proc read goes
// through one procscan.Reader: the live tree with raw syscalls on kept
// descriptors (procscan.Open), or an fs.FS fixture tree in tests
// (procscan.FS); the Process, Process V2 and Thread objects share one
// procscan.Scanner. /sys is an fs.FS. A Collector holds the readers, buffers and state reused
// between samples. Parsers are pure functions over the bytes of one file; a
// file that cannot be read, or a number that is malformed, is reported
// through the Collection (Partial, with file, line and field; Unavailable
// for the counters it feeds) rather than failing the whole sample or
// passing a 0 off as a reading.
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
