import re,sys,statistics
def load(p):
    rows=[]
    for l in open(p):
        m=re.match(r'BenchmarkServiceSample/(\w+)/sets=(\S+?)-2\s+\d+\s+\S+ ns/op\s+(\d+) cpu-ns/op',l)
        if m: rows.append((m.group(1),m.group(2),int(m.group(3))))
    return rows
for p in sys.argv[1:]:
    rows=load(p)
    for mix in ('light','processes'):
        one=[c for (m,s,c) in rows if m==mix and s=='1']
        for var in ('10','10-staggered'):
            ten=[c for (m,s,c) in rows if m==mix and s==var]
            if not ten: continue
            r=[b/a for a,b in zip(one,ten)]
            print(f"{p:32s} {mix:10s} sets={var:13s} median 1 set {statistics.median(one)/1e3:8.1f}us  ratios {' '.join('%.2f'%x for x in r)}  median {statistics.median(r):.2f}")
