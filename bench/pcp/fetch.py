#!/usr/bin/env python3
"""pmFetch loop for bench/remote_test.go: PCP's fetch of the system values.

Usage: fetch.py N [first]   (prints "values V", "start", then "done CPU_NS"
after N fetches; CPU is this process's user+system time over the loop only).

By default it fetches METRICS and SAME_SOURCES: the values of every source
perfc's five objects read (Processor, Memory, PhysicalDisk, Network
Interface, System). With "first" it fetches METRICS only, the list the
first measurements used, which left out four of those sources
(/proc/interrupts, /proc/softirqs, /proc/vmstat, the links' speeds).
"""
import resource
import sys

from pcp import pmapi
import cpmapi as c_api

METRICS = [
    # Processor: every per-CPU and all-CPU time
    "kernel.percpu.cpu", "kernel.all.cpu.user", "kernel.all.cpu.sys", "kernel.all.cpu.idle",
    "kernel.all.cpu.wait.total", "kernel.all.cpu.intr", "kernel.all.cpu.irq.soft",
    "kernel.all.cpu.steal", "kernel.all.cpu.nice", "kernel.all.cpu.guest", "kernel.all.cpu.irq.hard",
    "kernel.all.cpu.vuser",
    # Memory
    "mem.util",
    # PhysicalDisk
    "disk.dev.read", "disk.dev.write", "disk.dev.total", "disk.dev.read_bytes",
    "disk.dev.write_bytes", "disk.dev.avactive", "disk.dev.aveq", "disk.dev.read_merge",
    "disk.dev.write_merge", "disk.dev.read_rawactive", "disk.dev.write_rawactive",
    # Network Interface
    "network.interface.in", "network.interface.out", "network.interface.total.bytes",
    # System
    "kernel.all.pswitch", "kernel.all.nprocs", "kernel.all.runnable", "kernel.all.intr",
    "kernel.all.uptime", "kernel.all.sysfork", "kernel.all.load", "kernel.all.running",
    "kernel.all.blocked", "mem.physmem", "mem.freemem",
]

# The equivalents of the perfc counters METRICS has none for, each read by
# pmdalinux from the same file perfc reads it from.
SAME_SOURCES = [
    # Processor's Interrupts/sec and DPCs Queued/sec per CPU: the sums of
    # the columns of /proc/interrupts and /proc/softirqs
    "kernel.percpu.intr", "kernel.percpu.sirq",
    # Memory's Page Faults/sec, Page Reads/sec, Pages Input/sec and Pages
    # Output/sec: /proc/vmstat
    "mem.vmstat.pgfault", "mem.vmstat.pgmajfault", "mem.vmstat.pswpin", "mem.vmstat.pswpout",
    # Network Interface's Current Bandwidth: each link's speed in /sys/class/net
    "network.interface.baudrate",
]


def leaves(ctx, names):
    out = []
    for n in names:
        got = []
        ctx.pmTraversePMNS(n, lambda leaf: got.append(leaf))
        out.extend(got if got else [n])
    return out


def main():
    n = int(sys.argv[1])
    ctx = pmapi.pmContext(c_api.PM_CONTEXT_HOST, "local:")
    metrics = METRICS if len(sys.argv) > 2 and sys.argv[2] == "first" else METRICS + SAME_SOURCES
    names = leaves(ctx, metrics)
    pmids = ctx.pmLookupName(names)
    res = ctx.pmFetch(pmids)
    values = sum(res.contents.get_numval(i) for i in range(res.contents.numpmid) if res.contents.get_numval(i) > 0)
    ctx.pmFreeResult(res)
    for _ in range(10):
        ctx.pmFreeResult(ctx.pmFetch(pmids))
    print("values", values, "metrics", len(names), flush=True)
    print("start", flush=True)
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    for _ in range(n):
        ctx.pmFreeResult(ctx.pmFetch(pmids))
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    print("done", int(cpu * 1e9), flush=True)


main()
