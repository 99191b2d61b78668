#!/usr/bin/env python3
"""pmFetch loop for bench/remote_test.go: PCP's fetch of the system values.

Usage: fetch.py N   (prints "values V", "start", then "done CPU_NS" after N
fetches; CPU is this process's user+system time over the loop only).
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
    names = leaves(ctx, METRICS)
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
