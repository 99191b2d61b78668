# First sample against pidstat (issue 41): CPU (user + system, getrusage
# of the children) of each one-shot, the commands in turn, N rounds.
#   python3 bench/raw/first-sample-s41.py PERFC N
import resource, subprocess, sys, statistics
perfc, n = sys.argv[1], int(sys.argv[2])
cmds = {
 'typeperf-process': [perfc, 'typeperf', r'\Process(*)\% Processor Time', '-sc', '1'],
 'pidstat': ['pidstat', '-u', '-r', '-d', '1', '1'],
 'typeperf-process-thread': [perfc, 'typeperf', r'\Process(*)\% Processor Time', r'\Thread(*)\% Processor Time', '-sc', '1'],
 'pidstat-t': ['pidstat', '-u', '-r', '-d', '-t', '1', '1'],
}
res = {k: [] for k in cmds}
for i in range(n):
    for k, c in cmds.items():
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        res[k].append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
for k, v in res.items():
    print(f"{k:24s} median {statistics.median(v):6.1f} ms  min {min(v):6.1f}  max {max(v):6.1f}  n={len(v)}")
m = {k: statistics.median(v) for k, v in res.items()}
print(f"process / pidstat: {m['typeperf-process']/m['pidstat']:.2f}x; process+thread / pidstat -t: {m['typeperf-process-thread']/m['pidstat-t']:.2f}x")
