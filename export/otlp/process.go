package otlp

import (
	"bytes"
	"io"
	"math"
	"os"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
)

// cElapsedTime is the Process and Thread objects' Elapsed Time (a
// PERF_ELAPSED_TIME whose raw value is the start).
const cElapsedTime = 684

// procInfo is one process of a sample.
type procInfo struct {
	pid   int64
	exe   string    // the instance name (without #n)
	start time.Time // zero when the sample gave none
}

// elapsedStart is when a PERF_ELAPSED_TIME counter's count began: its raw
// value n against the object's timer d at frequency f. Where the timer
// is a FILETIME (frequency 10^7 and within a day of the sample's time, as
// Windows and package system write Process, Thread and System), n is the
// start itself; otherwise the start is the sample's time less the age.
// The zero time when n is 0 or after d.
func elapsedStart(n, d, f uint64, at time.Time) time.Time {
	if f == 0 || f > math.MaxInt64 || n == 0 || n > d || d > math.MaxInt64 {
		return time.Time{}
	}
	if f == perfdata.FileTimeFreq {
		if dt := perfdata.FileTimeToTime(int64(d)); dt.Sub(at).Abs() < 24*time.Hour {
			return perfdata.FileTimeToTime(int64(n))
		}
	}
	age := float64(d-n) / float64(f)
	if age > float64(math.MaxInt64)/1e9 {
		return time.Time{}
	}
	return at.Add(-time.Duration(age * 1e9))
}

// bootOf is the host's boot time as a sample tells it: System's System Up
// Time where the block holds the System object, else the block's clocks
// (its wall time less its high-resolution counter, which on Linux is
// CLOCK_MONOTONIC and stops while the host is suspended: an estimate that
// can be late by the time suspended). The zero time when neither gives one.
func bootOf(s *pdh.Sample) time.Time {
	if len(s.Blocks) == 0 {
		return time.Time{}
	}
	blk := s.Blocks[0]
	if o, ok := blk.Object(objSystem); ok && o.SingleInstance() {
		for _, d := range o.AppendCounters(nil) {
			if d.NameIndex == cSystemUpTime && d.Type == countertype.PERF_ELAPSED_TIME {
				if t := elapsedStart(o.SingleBlock().Value(d), uint64(o.PerfTime()), uint64(o.PerfFreq()), s.Time); !t.IsZero() {
					return t
				}
				break
			}
		}
	}
	h := blk.Header()
	if h.PerfFreq <= 0 || h.PerfTime <= 0 || h.PerfTime100nSec <= 0 {
		return time.Time{}
	}
	up := float64(h.PerfTime) / float64(h.PerfFreq)
	if up > float64(math.MaxInt64)/1e9 {
		return time.Time{}
	}
	return perfdata.FileTimeToTime(h.PerfTime100nSec).Add(-time.Duration(up * 1e9))
}

// noteProcess records a Process instance of the walk's sample and returns
// it; nil where it has no process id (Idle, or a placeholder).
func (w *objectWalk) noteProcess(cb interface {
	Value(perfdata.CounterDef) uint64
}, pos int, name string) *procInfo {
	p, ok := w.byIndex[cIDProcess]
	if !ok || w.isMissing(pos, cIDProcess) {
		return nil
	}
	pid := cb.Value(w.defs[p])
	if pid == 0 || pid > math.MaxInt32 {
		return nil
	}
	info := &procInfo{pid: int64(pid), exe: name}
	if e, ok := w.byIndex[cElapsedTime]; ok && w.defs[e].Type == countertype.PERF_ELAPSED_TIME && !w.isMissing(pos, cElapsedTime) {
		info.start = elapsedStart(cb.Value(w.defs[e]), uint64(w.o.PerfTime()), uint64(w.o.PerfFreq()), w.s.Time)
	}
	return info
}

// maxCommandLine bounds a process.command_line read from /proc.
const maxCommandLine = 4096

// ProcCommandLine reads the command line of a process of this host from
// /proc/PID/cmdline (the arguments joined by spaces, cut at 4096 bytes),
// for Options.CommandLine. ok is false where it cannot be read (the
// process is gone, /proc is mounted with hidepid, the file is empty: a
// kernel thread or a zombie).
func ProcCommandLine(pid int64) (string, bool) {
	if pid <= 0 || pid > math.MaxInt32 {
		return "", false
	}
	f, err := os.Open("/proc/" + strconv.FormatInt(pid, 10) + "/cmdline")
	if err != nil {
		return "", false
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxCommandLine)) // what was read before an error
	b = bytes.TrimRight(b, "\x00")
	if len(b) == 0 {
		return "", false
	}
	b = bytes.ReplaceAll(b, []byte{0}, []byte{' '})
	return string(bytes.ToValidUTF8(b, []byte("\uFFFD"))), true
}

// withoutProcess removes the attributes that move to a process's resource.
func withoutProcess(s attribute.Set) attribute.Set {
	if _, ok := s.Value("process.pid"); !ok {
		return s
	}
	kept, _ := s.Filter(func(kv attribute.KeyValue) bool {
		return kv.Key != "process.pid" && kv.Key != "process.executable.name"
	})
	return kept
}

// procKey identifies a process across samples.
type procKey struct {
	pid   int64
	start time.Time
}

// cmdLine is a process's command line, read once.
type cmdLine struct {
	s  string
	ok bool
}

// processResource is the host's resource with a process's attributes:
// process.pid, process.executable.name, process.creation.time (the start
// its points have, RFC 3339) and, where Options.CommandLine reads it,
// process.command_line. e.mu is held.
func (e *Exporter) processResource(p *procInfo, at time.Time) *resource.Resource {
	attrs := []attribute.KeyValue{semconv.ProcessPID(int(p.pid)), semconv.ProcessExecutableName(p.exe)}
	if !p.start.IsZero() && !p.start.After(at) {
		attrs = append(attrs, semconv.ProcessCreationTime(p.start.UTC().Format(time.RFC3339Nano)))
	}
	if e.opts.CommandLine != nil {
		key := procKey{p.pid, p.start}
		c, ok := e.cmds[key]
		if !ok {
			c.s, c.ok = e.opts.CommandLine(p.pid)
			if e.cmds == nil {
				e.cmds = map[procKey]cmdLine{}
			}
			e.cmds[key] = c
		}
		if c.ok {
			attrs = append(attrs, semconv.ProcessCommandLine(c.s))
		}
	}
	// The process's attributes win over the host's of the same key.
	return resource.NewWithAttributes(e.res.SchemaURL(), append(e.res.Attributes(), attrs...)...)
}

// forget drops the command lines of processes not in this export.
func (e *Exporter) forget(procs map[int64]*metricdata.ResourceMetrics) {
	for k := range e.cmds {
		if _, ok := procs[k.pid]; !ok {
			delete(e.cmds, k)
		}
	}
}
