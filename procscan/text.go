package procscan

// The parsers walk the bytes of one /proc file with package proctext's
// toolkit, without copying and without allocating.

// maxFileSize caps one read of a /proc file; /proc/interrupts on a host
// with thousands of CPUs is the largest file read through a Reader.
const maxFileSize = 64 << 20
