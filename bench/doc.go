// Package bench compares one collection of the Process and Thread objects
// with the floor of reading the same /proc files (open/read/close, and pread
// on kept descriptors) and with the same work done through
// github.com/prometheus/procfs and github.com/shirou/gopsutil/v4. It is a
// separate module so that the main module does not depend on either.
//
// The log benchmarks of issue 10 (log_test.go) compare our logs (PDH-CSV
// and the binary log) with Performance Co-Pilot's pmlogger and sysstat's
// sadc logging the same counters, in bytes per stored value, as written
// and after zstd -19; they also measure logging CPU per sample against
// collecting alone, and relog's BLG -> CSV and BIN -> CSV throughput.
// They need the other tools from Debian's packages and pmcd running:
//
//	apt-get install -y pcp sysstat zstd
//	/etc/init.d/pmcd start   # pcp's postinst starts it only under systemd
//
// BenchmarkLogSize skips itself when they are missing. `.ci/run` only
// compiles this module (go vet and a run with -bench='^$'); it runs no
// benchmark. See RESULTS.md.
package bench
