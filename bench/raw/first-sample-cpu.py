import resource, subprocess, sys, statistics
cmds = {
 'old': ['/tmp/perfc-old','typeperf',r'\Process(*)\% Processor Time',r'\Thread(*)\% Processor Time','-sc','1'],
 'cur': ['/tmp/perfc-cur','typeperf',r'\Process(*)\% Processor Time',r'\Thread(*)\% Processor Time','-sc','1'],
 'pidstat': ['pidstat','-u','-r','-d','1','1'],
}
res = {k: [] for k in cmds}
n = int(sys.argv[1])
for i in range(n):
    for k, c in cmds.items():
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        res[k].append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
for k, v in res.items():
    print(f"{k:8s} median {statistics.median(v):6.1f} ms  min {min(v):6.1f}  max {max(v):6.1f}  n={len(v)}")
