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
// A linear log's file is reserved ahead of its records (up to 1 MiB, within
// its size limits) and its records are copied into a memory mapping of that
// space: a sample costs no system call. Close cuts the file back to its
// records (Writer.Size); readers take the zeros a killed writer leaves as
// the log's end (FORMAT.md, "Reserved space").
//
// Every record is framed with its length at both ends and a CRC-32C, so
// Open reads a log written by a process that crashed, or a file cut at any
// byte, up to its last whole record, and says so in Notes. A Log is a
// recorded pdh.Source.
package binlog
