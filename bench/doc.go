// Package bench compares one collection of the Process and Thread objects
// with the floor of reading the same /proc files (open/read/close, and pread
// on kept descriptors) and with the same work done through
// github.com/prometheus/procfs and github.com/shirou/gopsutil/v4. It is a
// separate module so that the main module does not depend on either.
// See RESULTS.md.
package bench
