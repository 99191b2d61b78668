package system

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/proctext"
)

// NFS objects (issue 45 item 4): NFS Client from /proc/net/rpc/nfs, NFS
// Server from /proc/net/rpc/nfsd and NFS Mount from /proc/self/mountstats.
// The formats are the kernel's: rpc_proc_show and svc_seq_show in
// net/sunrpc/stats.c (the "net", "rpc" and "procN" lines), nfsd_show in
// fs/nfsd/stats.c ("rc", "fh", "io", "th", "proc4ops"), nfs_show_stats in
// fs/nfs/super.c and rpc_clnt_show_stats in net/sunrpc/stats.c (the
// mountstats sections). Every value is a count since the module was
// loaded (or the mount made), so every rate comes from the counter type.

// The files the NFS objects read, relative to /proc.
const (
	nfsClientFile  = "net/rpc/nfs"
	nfsServerFile  = "net/rpc/nfsd"
	mountStatsFile = "self/mountstats"
)

// maxRPCProcs bounds the procedure count a procN or proc4ops line may
// declare (the kernel's largest, NFSv4 server operations, is under 100).
const maxRPCProcs = 1024

// maxNFSMounts bounds the NFS mounts one sample of NFS Mount shows; the
// rest are reported as partial data.
const maxNFSMounts = 4096

// rpcKey names one line of /proc/net/rpc/nfs or /proc/net/rpc/nfsd by its
// first field.
type rpcKey int

const (
	rkNet      rpcKey = iota // net: packets, udp, tcp, tcp connections
	rkRPC                    // rpc: calls and retransmissions (client) or bad calls (server)
	rkRC                     // rc: the server's reply cache
	rkFH                     // fh: stale file handles (server)
	rkIO                     // io: bytes read and written (server)
	rkTH                     // th: server threads
	rkProc2                  // proc2: NFSv2 procedures
	rkProc3                  // proc3: NFSv3 procedures
	rkProc4                  // proc4: NFSv4 procedures (client) or null and compound (server)
	rkProc4Ops               // proc4ops: NFSv4 operations inside compounds (server)
	rkCount
)

// rpcKeys are the first fields of the lines, by rpcKey.
var rpcKeys = [rkCount]string{"net", "rpc", "rc", "fh", "io", "th", "proc2", "proc3", "proc4", "proc4ops"}

// rpcCounted marks, in a want array of parseRPCFile, a line whose first
// value is the number of values that follow (procN, proc4ops).
const rpcCounted = -1

// rpcLine is one parsed line.
type rpcLine struct {
	vals []uint64 // the values read: the wanted fixed fields, or the per-procedure counts after the count
	line int      // 1-based line number; 0 when the file has no such line
	ok   bool     // every wanted value was read
}

// rpcFile is a parsed /proc/net/rpc/nfs or /proc/net/rpc/nfsd, reused
// between samples.
type rpcFile struct {
	lines    [rkCount]rpcLine
	problems nfsProblems
}

// nfsProblems collects what a parser found malformed, as reasons naming
// the line and field (the file is named when they are reported); the
// first maxBadFields are kept. Reasons are formatted only on that path.
type nfsProblems struct {
	list []string
	n    int
}

func (p *nfsProblems) reset() { p.list, p.n = p.list[:0], 0 }

// addf records one malformed field or line.
func (p *nfsProblems) addf(format string, args ...any) {
	p.n++
	if len(p.list) < maxBadFields {
		p.list = append(p.list, fmt.Sprintf(format, args...))
	}
}

// report gives one partial-data reason per kept problem, prefixed by the
// file's name, and one more for those not kept.
func (p *nfsProblems) report(col Collection, file string) {
	for _, r := range p.list {
		partialf(col, "%s %s", file, r)
	}
	if p.n > len(p.list) {
		partialf(col, "%s: %d further malformed lines or fields", file, p.n-len(p.list))
	}
}

// cut40 bounds a field quoted in a reason.
func cut40(b []byte) []byte {
	if len(b) > 40 {
		return b[:40]
	}
	return b
}

// parseRPCFile parses /proc/net/rpc/nfs or /proc/net/rpc/nfsd into f. For
// each line whose first field is rpcKeys[k] and want[k] is positive, the
// first want[k] values are read (more are ignored); where want[k] is
// rpcCounted, the first value n (at most maxRPCProcs) and the n values
// after it are read. Lines of other keys, or with want 0, are skipped, and
// so is a key's second line. Fields are numbered from 1 after the key in
// the problems recorded: "line 2: rpc field 3: ...". A line with a
// missing or malformed value is kept with ok false. Linear in len(b).
func parseRPCFile(b []byte, want *[rkCount]int, f *rpcFile) {
	f.problems.reset()
	for k := range f.lines {
		f.lines[k].vals = f.lines[k].vals[:0]
		f.lines[k].line, f.lines[k].ok = 0, false
	}
	for lineNo := 1; len(b) > 0; lineNo++ {
		var line []byte
		line, b = proctext.NextLine(b)
		key, rest := proctext.NextField(line)
		k := rpcKey(-1)
		for i := range rpcKeys {
			if want[i] != 0 && string(key) == rpcKeys[i] {
				k = rpcKey(i)
				break
			}
		}
		if k < 0 || f.lines[k].line != 0 {
			continue
		}
		l := &f.lines[k]
		l.line, l.ok = lineNo, true
		n := want[k]
		field := 1
		if n == rpcCounted {
			var cnt []byte
			cnt, rest = proctext.NextField(rest)
			v, ok := proctext.ParseUint(cnt)
			switch {
			case len(cnt) == 0:
				f.problems.addf("line %d: %s field 1: missing", lineNo, key)
			case !ok:
				f.problems.addf("line %d: %s field 1: %q is not a number", lineNo, key, cut40(cnt))
			case v > maxRPCProcs:
				f.problems.addf("line %d: %s field 1: %d procedures, more than %d", lineNo, key, v, maxRPCProcs)
			}
			if !ok || v > maxRPCProcs {
				l.ok = false
				continue
			}
			n, field = int(v), 2
		}
		for i := 0; i < n; i++ {
			var fb []byte
			fb, rest = proctext.NextField(rest)
			if len(fb) == 0 {
				f.problems.addf("line %d: %s field %d: missing", lineNo, key, field+i)
				l.ok = false
				break
			}
			v, ok := proctext.ParseUint(fb)
			if !ok {
				f.problems.addf("line %d: %s field %d: %q is not a number", lineNo, key, field+i, cut40(fb))
				l.ok = false
				break
			}
			l.vals = append(l.vals, v)
		}
	}
}

// at returns value i of a parsed line, 0 past its end (a kernel with fewer
// procedures makes no such calls).
func (l *rpcLine) at(i int) uint64 {
	if i < len(l.vals) {
		return l.vals[i]
	}
	return 0
}

// sum returns the sum of a parsed line's values.
func (l *rpcLine) sum() uint64 {
	var s uint64
	for _, v := range l.vals {
		s += v
	}
	return s
}

// bad reports a line that is present but could not be read whole.
func (l *rpcLine) bad() bool { return l.line != 0 && !l.ok }

// The version slots of nfsOp.idx.
const (
	nfsV2 = iota
	nfsV3
	nfsV4Client // proc4 of /proc/net/rpc/nfs: NFSv4 client procedures
	nfsV4Server // proc4ops of /proc/net/rpc/nfsd: NFSv4 operations
	nfsSlots
)

// The procedure names of each slot, by index, as the RFCs and the kernel
// name them (nfsstat prints them in this order).
var (
	nfsV2Procs = []string{"NULL", "GETATTR", "SETATTR", "ROOT", "LOOKUP", "READLINK", "READ", "WRITECACHE", "WRITE", "CREATE", "REMOVE", "RENAME", "LINK", "SYMLINK", "MKDIR", "RMDIR", "READDIR", "STATFS"}
	nfsV3Procs = []string{"NULL", "GETATTR", "SETATTR", "LOOKUP", "ACCESS", "READLINK", "READ", "WRITE", "CREATE", "MKDIR", "SYMLINK", "MKNOD", "REMOVE", "RMDIR", "RENAME", "LINK", "READDIR", "READDIRPLUS", "FSSTAT", "FSINFO", "PATHCONF", "COMMIT"}
	// nfsV4ClientProcs is enum nfsproc4_clnt of include/linux/nfs4.h, the
	// first 32.
	nfsV4ClientProcs = []string{"NULL", "READ", "WRITE", "COMMIT", "OPEN", "OPEN_CONFIRM", "OPEN_NOATTR", "OPEN_DOWNGRADE", "CLOSE", "SETATTR", "FSINFO", "RENEW", "SETCLIENTID", "SETCLIENTID_CONFIRM", "LOCK", "LOCKT", "LOCKU", "ACCESS", "GETATTR", "LOOKUP", "LOOKUP_ROOT", "REMOVE", "RENAME", "LINK", "SYMLINK", "CREATE", "PATHCONF", "STATFS", "READLINK", "READDIR", "SERVER_CAPS", "DELEGRETURN"}
	// nfsV4Ops is enum nfs_opnum4 of include/linux/nfs4.h (RFC 7530), the
	// first 39.
	nfsV4Ops = []string{"", "", "", "OP_ACCESS", "OP_CLOSE", "OP_COMMIT", "OP_CREATE", "OP_DELEGPURGE", "OP_DELEGRETURN", "OP_GETATTR", "OP_GETFH", "OP_LINK", "OP_LOCK", "OP_LOCKT", "OP_LOCKU", "OP_LOOKUP", "OP_LOOKUPP", "OP_NVERIFY", "OP_OPEN", "OP_OPENATTR", "OP_OPEN_CONFIRM", "OP_OPEN_DOWNGRADE", "OP_PUTFH", "OP_PUTPUBFH", "OP_PUTROOTFH", "OP_READ", "OP_READDIR", "OP_READLINK", "OP_REMOVE", "OP_RENAME", "OP_RENEW", "OP_RESTOREFH", "OP_SAVEFH", "OP_SECINFO", "OP_SETATTR", "OP_SETCLIENTID", "OP_SETCLIENTID_CONFIRM", "OP_VERIFY", "OP_WRITE"}
)

// nfsOp is one operation counter of NFS Client and NFS Server: the
// procedure (or, for NFSv4 on the server, operation) indexes that count
// it in each version's line, summed. A version without the operation has
// no index: it makes no such calls.
type nfsOp struct {
	name string // "Read": the counter is "Read Calls/sec" (client), "Read Requests/sec" (server)
	what string // what the operation does, for the help text
	idx  [nfsSlots][]int
}

// nfsOps are the operations NFS Client and NFS Server count, in counter
// order. NFSv4 creates directories, symbolic links and special files with
// CREATE (regular files with OPEN) and removes directories with REMOVE.
var nfsOps = []nfsOp{
	{"Read", "reads file data", [nfsSlots][]int{{6}, {6}, {1}, {25}}},
	{"Write", "writes file data", [nfsSlots][]int{{8}, {7}, {2}, {38}}},
	{"Commit", "commits unstable writes to stable storage", [nfsSlots][]int{nil, {21}, {3}, {5}}},
	{"Getattr", "reads a file's attributes", [nfsSlots][]int{{1}, {1}, {18}, {9}}},
	{"Setattr", "changes a file's attributes (size, mode, owner, times)", [nfsSlots][]int{{2}, {2}, {9}, {34}}},
	{"Lookup", "looks a name up in a directory", [nfsSlots][]int{{4}, {3}, {19}, {15}}},
	{"Access", "checks access permissions", [nfsSlots][]int{nil, {4}, {17}, {3}}},
	{"Readlink", "reads a symbolic link", [nfsSlots][]int{{5}, {5}, {28}, {27}}},
	{"Readdir", "reads directory entries", [nfsSlots][]int{{16}, {16, 17}, {29}, {26}}},
	{"Create", "creates a file (NFSv4: a directory, symbolic link or special file)", [nfsSlots][]int{{9}, {8}, {25}, {6}}},
	{"Mkdir", "creates a directory (NFSv4 uses CREATE)", [nfsSlots][]int{{14}, {9}, nil, nil}},
	{"Symlink", "creates a symbolic link", [nfsSlots][]int{{13}, {10}, {24}, nil}},
	{"Remove", "removes a file (NFSv4: or a directory)", [nfsSlots][]int{{10}, {12}, {21}, {28}}},
	{"Rmdir", "removes a directory (NFSv4 uses REMOVE)", [nfsSlots][]int{{15}, {13}, nil, nil}},
	{"Rename", "renames a file or directory", [nfsSlots][]int{{11}, {14}, {22}, {29}}},
	{"Link", "creates a hard link", [nfsSlots][]int{{12}, {15}, {23}, {11}}},
	{"Fsstat", "reads the file system's space and file counts", [nfsSlots][]int{{17}, {18}, {27}, nil}},
	{"Open", "opens a file (NFSv4 only)", [nfsSlots][]int{nil, nil, {4, 6}, {18}}},
	{"Close", "closes a file (NFSv4 only)", [nfsSlots][]int{nil, nil, {8}, {4}}},
	{"Lock", "takes, tests or releases a byte-range lock (NFSv4 only; NFSv2 and v3 lock through the NLM protocol)", [nfsSlots][]int{nil, nil, {14, 15, 16}, {12, 13, 14}}},
}

// nfsSource describes where an nfsOp's count comes from, for its help
// text: "proc2 field 8 (READ) + proc3 field 8 (READ) + ...". Field n+2 is
// procedure n (field 1 is the count of procedures).
func nfsSource(op *nfsOp, slots []int, lines []string) string {
	var parts []string
	for j, s := range slots {
		names := [nfsSlots][]string{nfsV2Procs, nfsV3Procs, nfsV4ClientProcs, nfsV4Ops}[s]
		for _, i := range op.idx[s] {
			parts = append(parts, lines[j]+" field "+strconv.Itoa(i+2)+" ("+names[i]+")")
		}
	}
	return strings.Join(parts, " + ")
}

// procHas reports whether name exists under /proc (an error other than
// not-existing counts as existing: the object then reports it).
func (c *Collector) procHas(name string) bool {
	if c.proc == nil {
		return false
	}
	_, err := c.readProc(name)
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}

// nfsObjects returns the NFS objects the host has when it is called: NFS
// Client where /proc/net/rpc/nfs exists (the nfs module is loaded), NFS
// Server where /proc/net/rpc/nfsd exists (nfsd is loaded), and NFS Mount
// where the client exists or /proc/self/mountstats shows an NFS mount.
func (c *Collector) nfsObjects() []Object {
	if c.proc == nil {
		return nil
	}
	var objs []Object
	client := c.procHas(nfsClientFile)
	if client {
		objs = append(objs, nfsClientObject())
	}
	if c.procHas(nfsServerFile) {
		objs = append(objs, nfsServerObject())
	}
	if client || c.hasNFSMount() {
		objs = append(objs, nfsMountObject())
	}
	return objs
}

// hasNFSMount reports whether /proc/self/mountstats shows an NFS mount.
func (c *Collector) hasNFSMount() bool {
	b, err := c.readProc(mountStatsFile)
	if err != nil {
		return false
	}
	var p nfsProblems
	return len(parseMountStats(b, false, nil, &p)) > 0
}

// NFS Client counter indexes; the operation counters follow, in nfsOps
// order.
const (
	ncCalls = iota
	ncRetrans
	ncRetransPct
	ncRetransPctBase
	ncAuthRefresh
	ncV2
	ncV3
	ncV4
	ncOps
)

// nfsClientObject declares NFS Client. Its state (the parsed file, reused)
// lives in the collect function's closure.
func nfsClientObject() Object {
	const src = "/proc/net/rpc/nfs"
	cs := []counterset.Counter{
		ctr("RPC Calls/sec", tCounter, 0, detNovice, "RPC Calls/sec is the rate at which the NFS client made RPC calls, of every NFS version: field 1 (calls) of the rpc line of "+src+"."),
		ctr("RPC Retransmissions/sec", tCounter, 0, detNovice, "RPC Retransmissions/sec is the rate at which the NFS client sent calls again because no reply came in time (a server or network in trouble): field 2 (retrans) of the rpc line of "+src+"."),
		ctr("% RPC Retransmissions", countertype.PERF_SAMPLE_FRACTION, 0, detNovice, "% RPC Retransmissions is the share of the interval's RPC calls that were retransmissions: the difference of field 2 (retrans) over the difference of field 1 (calls) of the rpc line of "+src+". A healthy client retransmits nothing; a few percent is a server or network losing calls."),
		ctr("% RPC Retransmissions", countertype.PERF_SAMPLE_BASE, 0, detNovice, "Base for % RPC Retransmissions: field 1 (calls) of the rpc line of "+src+"."),
		ctr("RPC Authentication Refreshes/sec", tCounter, 0, detAdvanced, "RPC Authentication Refreshes/sec is the rate at which the NFS client refreshed its RPC credentials (for Kerberos, renewed its security context): field 3 (authrefrsh) of the rpc line of "+src+"."),
		ctr("NFSv2 Calls/sec", tCounter, 0, detAdvanced, "NFSv2 Calls/sec is the rate of NFS version 2 calls: the sum of the per-procedure counts of the proc2 line of "+src+" (fields 2 and after; field 1 is their number). 0 where the kernel has no NFSv2."),
		ctr("NFSv3 Calls/sec", tCounter, 0, detNovice, "NFSv3 Calls/sec is the rate of NFS version 3 calls: the sum of the per-procedure counts, fields 2 and after, of the proc3 line of "+src+" (field 1 is their number)."),
		ctr("NFSv4 Calls/sec", tCounter, 0, detNovice, "NFSv4 Calls/sec is the rate of NFS version 4 (4.0, 4.1 and 4.2) calls, each a COMPOUND named by its main operation: the sum of the per-procedure counts, fields 2 and after, of the proc4 line of "+src+" (field 1 is their number)."),
	}
	for i := range nfsOps {
		op := &nfsOps[i]
		name := op.name + " Calls/sec"
		cs = append(cs, ctr(name, tCounter, 0, detAdvanced, name+" is the rate of NFS calls that "+op.what+", every NFS version together: "+nfsSource(op, []int{nfsV2, nfsV3, nfsV4Client}, []string{"proc2", "proc3", "proc4"})+" of "+src+" (field n+2 of a procN line counts procedure n; field 1 is the number of procedures). A version the kernel does not list counts nothing."))
	}
	set := newSet("NFS Client", 0, counterset.Single, detNovice, ncCalls,
		"The NFS Client object shows the calls this host's NFS client made to NFS servers, from /proc/net/rpc/nfs (the kernel's RPC statistics of the NFS program, as nfsstat -c prints them): RPC calls, retransmissions and credential refreshes, the calls of each NFS version, and the calls of the common operations, every version together (as sar -n NFS adds them; NFS Mount has them per mount). The counts are 32-bit and wrap. The object is declared where /proc/net/rpc/nfs exists (the nfs module is loaded) when the program starts.",
		cs)
	f := &rpcFile{}
	return Object{Set: set, Collect: func(c *Collector, col Collection, w Writer) error {
		return c.collectNFSClient(col, w, f)
	}}
}

// collectNFSClient fills NFS Client from /proc/net/rpc/nfs.
func (c *Collector) collectNFSClient(col Collection, w Writer, f *rpcFile) error {
	const src = "/proc/net/rpc/nfs"
	v := w.Single()
	b, err := c.readProc(nfsClientFile)
	if err != nil {
		partialf(col, "%s: %v", src, err)
		col.Unavailable()
		return nil
	}
	want := [rkCount]int{rkRPC: 3, rkProc2: rpcCounted, rkProc3: rpcCounted, rkProc4: rpcCounted}
	parseRPCFile(b, &want, f)
	f.problems.report(col, src)
	var missing []int
	if rpc := &f.lines[rkRPC]; rpc.ok {
		v.Set(ncCalls, rpc.vals[0])
		v.Set(ncRetrans, rpc.vals[1])
		v.Set(ncRetransPct, rpc.vals[1])
		v.Set(ncRetransPctBase, rpc.vals[0])
		v.Set(ncAuthRefresh, rpc.vals[2])
	} else {
		if rpc.line == 0 {
			partialf(col, "%s: no rpc line", src)
		}
		missing = append(missing, ncCalls, ncRetrans, ncRetransPct, ncRetransPctBase, ncAuthRefresh)
	}
	lines := [nfsSlots]*rpcLine{nfsV2: &f.lines[rkProc2], nfsV3: &f.lines[rkProc3], nfsV4Client: &f.lines[rkProc4]}
	for i, s := range []int{nfsV2, nfsV3, nfsV4Client} {
		if l := lines[s]; l.bad() {
			missing = append(missing, ncV2+i)
		} else {
			v.Set(ncV2+i, l.sum())
		}
	}
	missing = setNFSOps(v, ncOps, &lines, missing)
	if len(missing) > 0 {
		col.Unavailable(missing...)
	}
	return nil
}

// setNFSOps sets the operation counters, from counter first on, from the
// version lines (nil for a slot the file has not); an operation that a
// malformed line counts is appended to missing instead.
func setNFSOps(v perfdata.Values, first int, lines *[nfsSlots]*rpcLine, missing []int) []int {
	for i := range nfsOps {
		op := &nfsOps[i]
		var sum uint64
		bad := false
		for s, l := range lines {
			if l == nil || len(op.idx[s]) == 0 {
				continue
			}
			if l.bad() {
				bad = true
				break
			}
			for _, k := range op.idx[s] {
				sum += l.at(k)
			}
		}
		if bad {
			missing = append(missing, first+i)
			continue
		}
		v.Set(first+i, sum)
	}
	return missing
}

// NFS Server counter indexes; the operation counters follow, in nfsOps
// order.
const (
	nsCalls = iota
	nsBadCalls
	nsRCHits
	nsRCMisses
	nsRCNoCache
	nsStale
	nsThreads
	nsReadBytes
	nsWriteBytes
	nsPackets
	nsUDP
	nsTCP
	nsTCPConn
	nsV2
	nsV3
	nsV4
	nsV4Ops
	nsOps
)

// nfsServerFixed maps the NFS Server counters read from one field of one
// line: counter, line, field (0-based).
var nfsServerFixed = []struct {
	counter int
	key     rpcKey
	field   int
}{
	{nsCalls, rkRPC, 0}, {nsBadCalls, rkRPC, 1},
	{nsRCHits, rkRC, 0}, {nsRCMisses, rkRC, 1}, {nsRCNoCache, rkRC, 2},
	{nsStale, rkFH, 0}, {nsThreads, rkTH, 0},
	{nsReadBytes, rkIO, 0}, {nsWriteBytes, rkIO, 1},
	{nsPackets, rkNet, 0}, {nsUDP, rkNet, 1}, {nsTCP, rkNet, 2}, {nsTCPConn, rkNet, 3},
}

// nfsServerObject declares NFS Server.
func nfsServerObject() Object {
	const src = "/proc/net/rpc/nfsd"
	cs := []counterset.Counter{
		ctr("RPC Requests/sec", tCounter, 0, detNovice, "RPC Requests/sec is the rate of RPC requests the NFS server received, of every NFS version: field 1 (calls) of the rpc line of "+src+"."),
		ctr("RPC Bad Requests/sec", tCounter, 0, detNovice, "RPC Bad Requests/sec is the rate of RPC requests the NFS server rejected as malformed, failing authentication or from a client not allowed: field 2 (badcalls, the sum of fields 3 to 5: badfmt, badauth, badclnt) of the rpc line of "+src+"."),
		ctr("Reply Cache Hits/sec", tBulk, 0, detAdvanced, "Reply Cache Hits/sec is the rate of requests the server answered from its duplicate reply cache (a retransmitted non-idempotent request, answered again without running it twice): field 1 (hits) of the rc line of "+src+"."),
		ctr("Reply Cache Misses/sec", tBulk, 0, detAdvanced, "Reply Cache Misses/sec is the rate of cacheable requests not found in the duplicate reply cache (run, and their reply cached): field 2 (misses) of the rc line of "+src+"."),
		ctr("Reply Cache Uncached Requests/sec", tBulk, 0, detAdvanced, "Reply Cache Uncached Requests/sec is the rate of requests that bypass the duplicate reply cache (idempotent ones such as READ and GETATTR, and NFSv4.1 sessions): field 3 (nocache) of the rc line of "+src+"."),
		ctr("Stale File Handles/sec", tBulk, 0, detAdvanced, "Stale File Handles/sec is the rate of requests naming a file handle the server no longer knows (a file deleted, or an export changed): field 1 (stale) of the fh line of "+src+"."),
		ctr("Server Threads", tRaw, 0, detNovice, "Server Threads is the number of nfsd threads running: field 1 of the th line of "+src+" (the threads serving requests; rpc.nfsd and /proc/fs/nfsd/threads set it)."),
		ctr("Disk Bytes Read/sec", tBulk, 0, detNovice, "Disk Bytes Read/sec is the rate of bytes the NFS server read from its exported file systems to answer READ requests: field 1 of the io line of "+src+"."),
		ctr("Disk Bytes Written/sec", tBulk, 0, detNovice, "Disk Bytes Written/sec is the rate of bytes the NFS server wrote to its exported file systems for WRITE requests: field 2 of the io line of "+src+"."),
		ctr("Network Packets/sec", tCounter, 0, detAdvanced, "Network Packets/sec is the rate of network packets (UDP datagrams and TCP records) the NFS server received: field 1 (netcnt) of the net line of "+src+"."),
		ctr("UDP Packets/sec", tCounter, 0, detAdvanced, "UDP Packets/sec is the rate of UDP datagrams the NFS server received: field 2 (netudpcnt) of the net line of "+src+"."),
		ctr("TCP Packets/sec", tCounter, 0, detAdvanced, "TCP Packets/sec is the rate of TCP records the NFS server received: field 3 (nettcpcnt) of the net line of "+src+"."),
		ctr("TCP Connections Accepted/sec", tCounter, 0, detAdvanced, "TCP Connections Accepted/sec is the rate of TCP connections the NFS server accepted: field 4 (nettcpconn) of the net line of "+src+"."),
		ctr("NFSv2 Requests/sec", tBulk, 0, detAdvanced, "NFSv2 Requests/sec is the rate of NFS version 2 requests: the sum of the per-procedure counts of the proc2 line of "+src+" (fields 2 and after; field 1 is their number). 0 where nfsd has no NFSv2."),
		ctr("NFSv3 Requests/sec", tBulk, 0, detNovice, "NFSv3 Requests/sec is the rate of NFS version 3 requests: the sum of the per-procedure counts, fields 2 and after, of the proc3 line of "+src+" (field 1 is their number)."),
		ctr("NFSv4 Compounds/sec", tBulk, 0, detNovice, "NFSv4 Compounds/sec is the rate of NFS version 4 requests (NULL and COMPOUND, each COMPOUND carrying several operations): the sum of fields 2 and 3 of the proc4 line of "+src+"."),
		ctr("NFSv4 Operations/sec", tBulk, 0, detAdvanced, "NFSv4 Operations/sec is the rate of NFS version 4 operations inside the compounds: the sum of the per-operation counts of the proc4ops line of "+src+" (field n+2 counts operation number n; field 1 is their number)."),
	}
	for i := range nfsOps {
		op := &nfsOps[i]
		name := op.name + " Requests/sec"
		cs = append(cs, ctr(name, tBulk, 0, detAdvanced, name+" is the rate of NFS requests that "+op.what+", every NFS version together (an NFSv4 operation inside a compound counting as one request): "+nfsSource(op, []int{nfsV2, nfsV3, nfsV4Server}, []string{"proc2", "proc3", "proc4ops"})+" of "+src+" (field n+2 counts procedure or operation n; field 1 is their number). A version nfsd does not list counts nothing."))
	}
	set := newSet("NFS Server", 0, counterset.Single, detNovice, nsCalls,
		"The NFS Server object shows the work of this host's NFS server (nfsd), from /proc/net/rpc/nfsd (as nfsstat -s prints it): RPC requests and bad requests, the duplicate reply cache, stale file handles, threads, bytes read from and written to the exported file systems, network packets and connections, the requests of each NFS version, and the requests of the common operations, every version together (as sar -n NFSD adds them). The object is declared where /proc/net/rpc/nfsd exists (nfsd is loaded) when the program starts.",
		cs)
	f := &rpcFile{}
	return Object{Set: set, Collect: func(c *Collector, col Collection, w Writer) error {
		return c.collectNFSServer(col, w, f)
	}}
}

// collectNFSServer fills NFS Server from /proc/net/rpc/nfsd.
func (c *Collector) collectNFSServer(col Collection, w Writer, f *rpcFile) error {
	const src = "/proc/net/rpc/nfsd"
	v := w.Single()
	b, err := c.readProc(nfsServerFile)
	if err != nil {
		partialf(col, "%s: %v", src, err)
		col.Unavailable()
		return nil
	}
	want := [rkCount]int{rkNet: 4, rkRPC: 2, rkRC: 3, rkFH: 1, rkIO: 2, rkTH: 1}
	// The procedure lines only where a counter of theirs is asked for.
	procs := false
	for i := nsV2; i < nsOps+len(nfsOps) && !procs; i++ {
		procs = col.Wants(i)
	}
	if procs {
		want[rkProc2], want[rkProc3], want[rkProc4], want[rkProc4Ops] = rpcCounted, rpcCounted, rpcCounted, rpcCounted
	}
	parseRPCFile(b, &want, f)
	f.problems.report(col, src)
	var missing []int
	var absent [rkCount]bool
	for _, x := range nfsServerFixed {
		l := &f.lines[x.key]
		if l.ok {
			v.Set(x.counter, l.vals[x.field])
			continue
		}
		if l.line == 0 && !absent[x.key] {
			absent[x.key] = true
			partialf(col, "%s: no %s line", src, rpcKeys[x.key])
		}
		missing = append(missing, x.counter)
	}
	if procs {
		lines := [nfsSlots]*rpcLine{nfsV2: &f.lines[rkProc2], nfsV3: &f.lines[rkProc3], nfsV4Server: &f.lines[rkProc4Ops]}
		for i, l := range []*rpcLine{&f.lines[rkProc2], &f.lines[rkProc3], &f.lines[rkProc4], &f.lines[rkProc4Ops]} {
			if l.bad() {
				missing = append(missing, nsV2+i)
			} else {
				v.Set(nsV2+i, l.sum())
			}
		}
		missing = setNFSOps(v, nsOps, &lines, missing)
	}
	if len(missing) > 0 {
		col.Unavailable(missing...)
	}
	return nil
}

// nfsOpTimes is what NFS Mount reads of one operation's per-op line.
type nfsOpTimes struct {
	ops uint64 // field 1: operations completed
	rtt uint64 // field 7: milliseconds between sending each request and its reply, summed
	exe uint64 // field 8: milliseconds from each call's start to its end (queueing included), summed
}

// nfsMount is one NFS mount of /proc/self/mountstats.
type nfsMount struct {
	dir       []byte    // the mount point as mountstats writes it (octal escapes), in the read buffer
	line      int       // its device line
	bytes     [8]uint64 // the bytes line
	bytesSeen bool      // a bytes line was met
	bytesOK   bool      // and read whole
	haveOps   bool      // a per-op statistics section was met
	opsOK     bool      // every per-op line was read whole
	calls     uint64    // field 1 (operations) of every per-op line, summed
	retrans   uint64    // field 2 (transmissions) − field 1 of every per-op line, summed
	timeouts  uint64    // field 3 (major timeouts) of every per-op line, summed
	read      nfsOpTimes
	write     nfsOpTimes
}

// isNFSType reports an NFS file system type of mountstats (nfs for
// versions 2 and 3, nfs4 for 4.x).
func isNFSType(t []byte) bool { return string(t) == "nfs" || string(t) == "nfs4" }

// parseDeviceLine parses "device D mounted on M with fstype T [statvers=V]"
// (D and M with the octal escapes of seq_escape, so without blanks).
func parseDeviceLine(line []byte) (dir, typ []byte, ok bool) {
	var f [8][]byte
	rest := line
	for i := range f {
		f[i], rest = proctext.NextField(rest)
	}
	if string(f[0]) != "device" || len(f[1]) == 0 || string(f[2]) != "mounted" || string(f[3]) != "on" ||
		len(f[4]) == 0 || string(f[5]) != "with" || string(f[6]) != "fstype" || len(f[7]) == 0 {
		return nil, nil, false
	}
	return f[4], f[7], true
}

// parseMountStats parses /proc/self/mountstats into dst (reused): one entry
// per NFS mount, at most maxNFSMounts, in file order. The per-op lines
// are read only where ops is true. What is malformed (a device line, a
// bytes or per-op value, a mount without its bytes line or per-op
// section) is recorded in p with its line and field. Linear in len(b);
// the entries' dir slices point into b.
func parseMountStats(b []byte, ops bool, dst []nfsMount, p *nfsProblems) []nfsMount {
	dst = dst[:0]
	p.reset()
	cur := -1 // index of the NFS mount whose section this is; -1 outside one
	inOps := false
	finish := func() {
		if cur < 0 {
			return
		}
		m := &dst[cur]
		if !m.bytesSeen {
			p.addf("line %d: mount %q: no bytes line", m.line, cut40(m.dir))
		}
		if ops && !m.haveOps {
			p.addf("line %d: mount %q: no per-op statistics", m.line, cut40(m.dir))
		}
	}
	over := false
	for lineNo := 1; len(b) > 0; lineNo++ {
		var line []byte
		line, b = proctext.NextLine(b)
		if len(proctext.TrimSpace(line)) == 0 {
			continue
		}
		if line[0] != ' ' && line[0] != '\t' {
			finish()
			cur, inOps = -1, false
			dir, typ, ok := parseDeviceLine(line)
			if !ok {
				p.addf("line %d: %q is not \"device D mounted on M with fstype T\"", lineNo, cut40(line))
				continue
			}
			if !isNFSType(typ) {
				continue
			}
			if len(dst) >= maxNFSMounts {
				if !over {
					over = true
					p.addf("line %d: more than %d NFS mounts: the rest are left out", lineNo, maxNFSMounts)
				}
				continue
			}
			dst = append(dst, nfsMount{dir: dir, line: lineNo, opsOK: true})
			cur = len(dst) - 1
			continue
		}
		if cur < 0 {
			continue
		}
		m := &dst[cur]
		key, rest := proctext.NextField(line)
		if inOps {
			if ops {
				parseOpLine(lineNo, key, rest, m, p)
			}
			continue
		}
		switch string(key) {
		case "bytes:":
			if m.bytesSeen {
				continue
			}
			m.bytesSeen, m.bytesOK = true, true
			for i := range m.bytes {
				var fb []byte
				fb, rest = proctext.NextField(rest)
				v, ok := proctext.ParseUint(fb)
				if !ok {
					if len(fb) == 0 {
						p.addf("line %d: bytes field %d: missing", lineNo, i+1)
					} else {
						p.addf("line %d: bytes field %d: %q is not a number", lineNo, i+1, cut40(fb))
					}
					m.bytesOK, m.bytes = false, [8]uint64{}
					break
				}
				m.bytes[i] = v
			}
		case "per-op":
			if f, _ := proctext.NextField(rest); string(f) == "statistics" {
				inOps, m.haveOps = true, true
			}
		}
	}
	finish()
	return dst
}

// parseOpLine parses one per-op line, "NAME: ops transmissions timeouts
// bytes_sent bytes_received queue_ms rtt_ms execute_ms [errors]", into m.
// A malformed line is recorded and makes the mount's operation counters
// unavailable.
func parseOpLine(lineNo int, key, rest []byte, m *nfsMount, p *nfsProblems) {
	if len(key) < 2 || key[len(key)-1] != ':' {
		p.addf("line %d: %q is not \"NAME: values\" of per-op statistics", lineNo, cut40(key))
		m.opsOK = false
		return
	}
	name := key[:len(key)-1]
	var f [8]uint64
	for i := range f {
		var fb []byte
		fb, rest = proctext.NextField(rest)
		v, ok := proctext.ParseUint(fb)
		if !ok {
			if len(fb) == 0 {
				p.addf("line %d: %s field %d: missing", lineNo, cut40(name), i+1)
			} else {
				p.addf("line %d: %s field %d: %q is not a number", lineNo, cut40(name), i+1, cut40(fb))
			}
			m.opsOK = false
			return
		}
		f[i] = v
	}
	m.calls += f[0]
	if f[1] > f[0] {
		m.retrans += f[1] - f[0]
	}
	m.timeouts += f[2]
	var t *nfsOpTimes
	switch string(name) {
	case "READ":
		t = &m.read
	case "WRITE":
		t = &m.write
	default:
		return
	}
	t.ops += f[0]
	t.rtt += f[6]
	t.exe += f[7]
}

// NFS Mount counter indexes.
const (
	nmNormalRead = iota
	nmNormalWrite
	nmDirectRead
	nmDirectWrite
	nmServerRead
	nmServerWrite
	nmCalls
	nmReads
	nmWrites
	nmRetrans
	nmRetransPct
	nmRetransPctBase
	nmTimeouts
	nmReadRTT
	nmReadRTTBase
	nmReadExe
	nmReadExeBase
	nmWriteRTT
	nmWriteRTTBase
	nmWriteExe
	nmWriteExeBase
	nmNumCounters
)

// nfsMountState is NFS Mount's state between samples: the parsed mounts and
// the instance names made from their mount points (remade only when a
// mount point changes).
type nfsMountState struct {
	mounts   []nfsMount
	problems nfsProblems
	raw      []string // the escaped mount points the names were made from
	names    []string
	missing  []int
}

// name returns the instance name of mount i: its mount point unescaped and
// cut to proctext.MaxInstanceName bytes on a rune boundary.
func (st *nfsMountState) name(i int, dir []byte) string {
	if i < len(st.raw) && st.raw[i] == string(dir) {
		return st.names[i]
	}
	n := proctext.CutName(unescapeMount(dir), proctext.MaxInstanceName)
	if i < len(st.raw) {
		st.raw[i], st.names[i] = string(dir), n
	} else {
		st.raw, st.names = append(st.raw, string(dir)), append(st.names, n)
	}
	return n
}

// nfsMountObject declares NFS Mount.
func nfsMountObject() Object {
	const src = "/proc/self/mountstats"
	bytesHelp := func(name string, field int, what string) counterset.Counter {
		return ctr(name, tBulk, 0, detNovice, name+" is the rate of "+what+": field "+strconv.Itoa(field)+" of the mount's bytes line in "+src+".")
	}
	avg := func(name, op string, field int, what string) []counterset.Counter {
		return []counterset.Counter{
			ctr(name, tAvgBulk, 0, detNovice, name+" is the average, over the interval's "+op+" operations, of "+what+", in milliseconds: the difference of field "+strconv.Itoa(field)+" (milliseconds, summed over the operations) over the difference of field 1 (operations) of the "+op+" line of the mount's per-op statistics in "+src+". 0 in an interval without "+op+" operations."),
			ctr(name, tAvgBase, 0, detNovice, "Base for "+name+": field 1 (operations completed) of the "+op+" per-op line in "+src+"."),
		}
	}
	cs := []counterset.Counter{
		bytesHelp("Normal Read Bytes/sec", 1, "bytes applications read from files of the mount through the page cache (read(2) without O_DIRECT; the kernel's normalreadbytes)"),
		bytesHelp("Normal Write Bytes/sec", 2, "bytes applications wrote to files of the mount through the page cache (normalwritebytes)"),
		bytesHelp("Direct Read Bytes/sec", 3, "bytes applications read with O_DIRECT, straight from the server (directreadbytes)"),
		bytesHelp("Direct Write Bytes/sec", 4, "bytes applications wrote with O_DIRECT, straight to the server (directwritebytes)"),
		bytesHelp("Server Read Bytes/sec", 5, "bytes the client read from the server with READ calls, what crossed the network (serverreadbytes)"),
		bytesHelp("Server Write Bytes/sec", 6, "bytes the client wrote to the server with WRITE calls (serverwritebytes)"),
		ctr("Calls/sec", tBulk, 0, detNovice, "Calls/sec is the rate of NFS calls of the mount that completed, every operation together: field 1 (operations) of every line of the mount's per-op statistics in "+src+", summed."),
		ctr("Reads/sec", tBulk, 0, detNovice, "Reads/sec is the rate of READ calls of the mount that completed: field 1 of the READ line of the mount's per-op statistics in "+src+"."),
		ctr("Writes/sec", tBulk, 0, detNovice, "Writes/sec is the rate of WRITE calls of the mount that completed: field 1 of the WRITE line of the mount's per-op statistics in "+src+"."),
		ctr("Retransmissions/sec", tBulk, 0, detNovice, "Retransmissions/sec is the rate at which the mount's calls were sent again for want of a reply: field 2 (transmissions) less field 1 (operations) of every line of the mount's per-op statistics in "+src+", summed (as nfsiostat's retrans)."),
		ctr("% Retransmissions", countertype.PERF_SAMPLE_FRACTION, 0, detNovice, "% Retransmissions is the share of the interval's calls of the mount that were retransmissions: the difference of Retransmissions' sum over the difference of Calls/sec's sum (fields 2 − 1 over field 1 of the per-op lines in "+src+"). A healthy mount retransmits nothing."),
		ctr("% Retransmissions", countertype.PERF_SAMPLE_BASE, 0, detNovice, "Base for % Retransmissions: field 1 (operations) of every per-op line of the mount in "+src+", summed."),
		ctr("Major Timeouts/sec", tBulk, 0, detNovice, "Major Timeouts/sec is the rate of the mount's major timeouts (a call unanswered after all its retransmissions: \"server not responding\" on a hard mount, an error on a soft one): field 3 of every line of the mount's per-op statistics in "+src+", summed."),
	}
	cs = append(cs, avg("Avg. Read RTT (ms)", "READ", 7, "the round trip time (from sending the request to receiving the reply)")...)
	cs = append(cs, avg("Avg. Read Execute Time (ms)", "READ", 8, "the execution time (from the call's start to its end, the queueing in the client included: nfsiostat's avg exe)")...)
	cs = append(cs, avg("Avg. Write RTT (ms)", "WRITE", 7, "the round trip time")...)
	cs = append(cs, avg("Avg. Write Execute Time (ms)", "WRITE", 8, "the execution time (queueing in the client included)")...)
	set := newSet("NFS Mount", 0, counterset.Multiple, detNovice, nmCalls,
		"The NFS Mount object shows each NFS mount of the host (file system types nfs and nfs4) as /proc/self/mountstats describes it (what nfsiostat and mountstats print): bytes applications read and wrote through the page cache and directly, bytes that crossed the network, calls, retransmissions and major timeouts, and the average round trip and execution times of READ and WRITE calls. Instances are named by the mount point (the mount namespace of this program), cut to 1,024 bytes; a mount point mounted twice appears twice. The object is declared where the NFS client is loaded (/proc/net/rpc/nfs exists) or an NFS mount exists when the program starts; mounts are listed again at every sample.",
		cs)
	st := &nfsMountState{}
	return Object{Set: set, Collect: func(c *Collector, col Collection, w Writer) error {
		return c.collectNFSMount(col, w, st)
	}}
}

// collectNFSMount fills NFS Mount from /proc/self/mountstats.
func (c *Collector) collectNFSMount(col Collection, w Writer, st *nfsMountState) error {
	const src = "/proc/self/mountstats"
	b, err := c.readProc(mountStatsFile)
	if err != nil {
		partialf(col, "%s: %v", src, err)
		return nil
	}
	ops := false
	for i := nmCalls; i < nmNumCounters && !ops; i++ {
		ops = col.Wants(i)
	}
	st.mounts = parseMountStats(b, ops, st.mounts, &st.problems)
	st.problems.report(col, src)
	for i := range st.mounts {
		m := &st.mounts[i]
		v := w.Instance(st.name(i, m.dir), 0, 0, -1)
		st.missing = st.missing[:0]
		if m.bytesOK {
			for k := nmNormalRead; k <= nmServerWrite; k++ {
				v.Set(k, m.bytes[k-nmNormalRead])
			}
		} else {
			for k := nmNormalRead; k <= nmServerWrite; k++ {
				st.missing = append(st.missing, k)
			}
		}
		if ops {
			if m.haveOps && m.opsOK {
				v.Set(nmCalls, m.calls)
				v.Set(nmReads, m.read.ops)
				v.Set(nmWrites, m.write.ops)
				v.Set(nmRetrans, m.retrans)
				v.Set(nmRetransPct, m.retrans)
				v.Set(nmRetransPctBase, m.calls)
				v.Set(nmTimeouts, m.timeouts)
				v.Set(nmReadRTT, m.read.rtt)
				v.Set(nmReadRTTBase, m.read.ops)
				v.Set(nmReadExe, m.read.exe)
				v.Set(nmReadExeBase, m.read.ops)
				v.Set(nmWriteRTT, m.write.rtt)
				v.Set(nmWriteRTTBase, m.write.ops)
				v.Set(nmWriteExe, m.write.exe)
				v.Set(nmWriteExeBase, m.write.ops)
			} else {
				for k := nmCalls; k < nmNumCounters; k++ {
					st.missing = append(st.missing, k)
				}
			}
		}
		if len(st.missing) > 0 {
			col.Unavailable(st.missing...)
		}
	}
	return nil
}
