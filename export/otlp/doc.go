// Package otlp pushes a data source's counters to an OpenTelemetry
// collector over OTLP (gRPC or HTTP/protobuf), with the OpenTelemetry Go
// SDK: a periodic reader collects every Options.Interval, and one
// callback takes one sample of the source (pdh.Source: the live host, a
// remote host, a log) for that collection and observes asynchronous
// instruments from its raw values.
//
// The core objects get the semantic-convention metrics
// (system.cpu.time, system.memory.usage, system.disk.io,
// system.network.io, process.cpu.time, ...); every other counter, and
// every other object, gets the generic mapping, driven by the counter
// type alone: counters and timers are monotonic cumulative sums (timers
// in seconds from the counter's own time base), raw counts are gauges,
// fractions and averages are two metrics (the numerator and the base),
// and instances are attributes. MAPPING.md has both tables.
//
// A program wires it with New and Run (or Shutdown); Options.Flags
// registers the -otlp-* flags that fill the Options.
//
// All sums are cumulative (the raw values are totals since some start);
// the backend computes rates. Values a source marks as placeholders
// (pdh.Problem.Missing) are left out, never sent as zeros.
package otlp
