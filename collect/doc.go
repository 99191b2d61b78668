// Package collect owns the V1 provider contract of seed 002: a collect
// procedure that is opened once, called with the registry value name of
// each query and a buffer, and closed. It writes PERF_OBJECT_TYPE objects
// (no PERF_DATA_BLOCK header) into the buffer and returns the byte count and
// the object count, or perfdata.ErrMoreData with the buffer untouched when
// the buffer is too small.
//
// A procedure runs either in the engine's process (a Go value implementing
// Procedure) or out of process: an executable in any language that speaks
// the line-framed request/response protocol of PROTOCOL.md over its stdin
// and stdout. Exec is the engine's side of that protocol (it starts the
// executable in a process group of its own, keeps it running across
// collections, kills the whole group when it times out, misbehaves or is
// closed, reaps it, and restarts it with backoff when it dies); Serve is
// the provider's side for Go programs. A provider registered from a V1
// .ini file learns its title indexes (First Counter, First Help) from its
// environment: Process.Indexes on the engine's side, IndexesFromEnv on
// the provider's.
//
// Supports and SupportsCostly answer the question every provider asks
// first — does this value name ask for my objects? — the way Windows
// providers answer it (the SDK's IsNumberInUnicodeList).
//
// The integrity tests applied to what a procedure returns
// (ExtCounterTestLevel) belong to the engine, which owns the buffer and its
// guard areas; perfdata.CheckObjects holds the structural part.
package collect
