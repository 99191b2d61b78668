# Every process and thread per steady sample (issue 41): CPU (user +
# system, getrusage of the children) of a run of 1+K samples minus that
# of a one-shot, over K, for perfc typeperf of every Process and Thread
# counter and for pidstat -u -r -d -t (sysstat), the commands in turn,
# N rounds.
#   python3 bench/raw/steady-sample-s41.py PERFC K N
import resource, subprocess, sys, statistics
perfc, k, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def tp(samples):
    return [perfc, 'typeperf', r'\Process(*)\*', r'\Thread(*)\*', '-sc', str(samples)]
def ps(samples):
    return ['pidstat', '-u', '-r', '-d', '-t', '1', str(samples)]
def cpu(c):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
res = {'typeperf': [], 'pidstat': []}
for i in range(n):
    res['typeperf'].append((cpu(tp(1 + k)) - cpu(tp(1))) / k)
    res['pidstat'].append((cpu(ps(1 + k)) - cpu(ps(1))) / k)
for name, v in res.items():
    print(f"{name:9s} per steady sample: median {statistics.median(v):6.1f} ms  min {min(v):6.1f}  max {max(v):6.1f}  n={len(v)}")
print(f"pidstat / typeperf: {statistics.median(res['pidstat'])/statistics.median(res['typeperf']):.2f}x")
