// Package prom exports a data source's counters to Prometheus: an
// http.Handler for /metrics that writes the OpenMetrics text format (or
// Prometheus' text format 0.0.4 for scrapers that do not ask for
// OpenMetrics), derived from each counter's type, never from its name.
//
// The mapping (MAPPING.md has the full table with examples):
//
//   - counters that accumulate (COUNTER, BULK_COUNT, DELTA, SAMPLE_COUNTER)
//     become Prometheus counters (_total) of the raw value;
//   - timers (TIMER, 100NSEC_TIMER, OBJ_TIME_TIMER and the PRECISION
//     timers) become counters in seconds, converted with the counter's own
//     time base (the block's PerfFreq, 10^7 for 100 ns timers, the object's
//     PerfFreq for object timers); inverse timers export the time they
//     measure (the complement of what the counter shows) under an
//     _inverse_seconds name;
//   - RAWCOUNT, LARGE_RAWCOUNT and their HEX forms become gauges;
//   - fractions and averages export their two parts (numerator and base,
//     counters where both accumulate, gauges for RAW_FRACTION) so that
//     PromQL computes rates and ratios, and, with Options.Formatted, the
//     value as typeperf prints it (no display scale, no cap at 100 %),
//     computed by package calc between the last two collections;
//   - ELAPSED_TIME becomes a start-time gauge in seconds since the epoch.
//
// Options.Profile chooses the shape: the default ("perfc") gives
// dimensions their own labels (mode for CPU time, cpu, core, disk and
// device, volume, interface, process and pid), base units with no
// duplicated scales, counters for raw counts that only grow
// (Options.Cumulative) and the exporter's self-metrics; "classic" is
// the shape before issue 32 (one perf_instance label);
// "windows_exporter" writes windows_exporter's names, labels and units
// for its cpu, cs, os, memory, logical_disk, physical_disk, net,
// process and system collectors, read from the same Windows counters
// (winexp.go; WindowsExporterNames lists what it can write, MAPPING.md
// the names and what Linux cannot fill).
//
// The text is written by this package's own writer, not by
// prometheus/common's expfmt: expfmt would bring prometheus/common and
// client_model into the module and build a MetricFamily value per
// family on every scrape, where this writer appends each sample's bytes
// to one reused buffer from names and label text prepared once per
// object layout (bench_test.go measures it; it was not measured against
// expfmt, which is not in the module). Format negotiation (Negotiate) and compression
// (NegotiateEncoding: gzip from the standard library, zstd from
// klauspost/compress) follow Prometheus' Accept and Accept-Encoding as
// expfmt and client_golang's promhttp do.
//
// Every scrape collects the chosen objects once (concurrent scrapes share
// that collection); nothing is cached between scrapes except the names
// derived from the counter definitions and, for Options.Formatted, the
// previous raw values.
package prom
