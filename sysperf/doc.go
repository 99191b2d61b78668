// Package sysperf makes the System Performance report, Windows'
// `perfmon /report` for Linux: it collects a set of counters for a while
// (60 seconds by default) from any pdh.Source (this computer, a served
// one, a recorded log), judges them by the rules of rules.json (RULES.md:
// each rule's counter, statistic and red and yellow thresholds), and
// writes a page with a summary, the warnings that fired, and a section
// per resource (CPU, memory, disk, network, control groups and pressure)
// with the top processes, as a self-contained HTML file: no script, no
// external address, every number linking to the counter that gave it.
//
// The package owns the report's counters, its statistics, its rules and
// its page; cmd/perfc's `perfmon /report` only parses flags and calls
// Collect and WriteHTML.
package sysperf
