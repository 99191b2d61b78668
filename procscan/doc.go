// Package procscan reads /proc per process and per thread for the
// Process, Process V2 and Thread objects of package system, and the
// host-wide /proc files for the rest of them.
//
// It owns three things: the Reader, the one way /proc is read (the live
// tree with raw openat/pread/getdents on descriptors kept across samples,
// or any fs.FS for fixture trees); the Scanner, which lists the processes,
// keeps each one's identity (pid and start time), names and descriptors
// across samples and reads stat, status, io, the descriptor count and the
// threads' stat and schedstat; and the pure parsers of those files, which
// never allocate and never panic on malformed input.
//
// Limits are set by the program, never by this package on its own: how
// many descriptors a Reader keeps open (Options.MaxKept) and whether it
// may raise the process-wide RLIMIT_NOFILE (Options.RaiseLimit, off by
// default). Everything a Reader or Scanner depends on is passed in; the
// package has no mutable package-level state.
package procscan
