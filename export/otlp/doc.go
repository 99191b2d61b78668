// Package otlp pushes a data source's counters to an OpenTelemetry
// collector over OTLP (gRPC or HTTP/protobuf): every Options.Interval it
// takes one sample of the source (pdh.Source: the live host, a remote
// host, a log), builds that sample's metric data (metricdata, the
// OpenTelemetry Go SDK's data model) from its raw values and hands it to
// the SDK's OTLP exporter (otlpmetricgrpc, otlpmetrichttp), which sends
// it.
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
// All sums are cumulative (the raw values are totals since some start),
// their start the process's start for a process's points and the host's
// boot for the others, both read from the sample; the backend computes
// rates. Options.ProcessResources gives each process a resource of its
// own (process.pid, process.executable.name, process.creation.time,
// process.command_line), as the semantic conventions model processes; the resource otherwise
// describes the host, with attributes from OTEL_RESOURCE_ATTRIBUTES and
// Options.Resource (-otlp-resource). Values a source marks as placeholders
// (pdh.Problem.Missing) are left out, never sent as zeros.
package otlp
