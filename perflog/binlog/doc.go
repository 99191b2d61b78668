// Package binlog reads and writes the binary log of perfcounters (.plog;
// typeperf and relog's -f BIN): samples of raw PERF_DATA_BLOCKs, kept byte
// for byte, with the host, time zone, PerfFreq, title names and help texts
// and counter list that make a log readable anywhere. FORMAT.md beside
// this file defines the format.
//
// A Writer appends samples (Create, WriteSample, WriteGap, Close) in one of
// the modes Linear, Append and Circular, optionally rolling over to new
// files at a size or time limit. Definitions (object and counter
// definitions, instance lists) are stored once per epoch and referred to;
// counter data are coded as deltas against the previous sample and records
// are compressed with zstd (Options.Compress, on in DefaultOptions).
//
// A sample's records are appended with one write, and a log's bytes depend
// only on what was written to it: each writer codes and compresses its own
// samples, so logs are independent by construction.
//
// Every record is framed with its length at both ends and a CRC-32C, so
// Open reads a log written by a process that crashed, or a file cut at any
// byte, up to its last whole record, and says so in Notes; the zeros that
// earlier builds reserved after the last record end a log silently
// (FORMAT.md, "Zeros where a record should start"). A Log is a
// recorded pdh.Source.
package binlog
