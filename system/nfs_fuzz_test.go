package system

import (
	"bytes"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/perfcounters/perfcounters/proctext"
)

// The NFS fuzz targets feed arbitrary bytes to the parsers of
// /proc/net/rpc/nfs, /proc/net/rpc/nfsd and /proc/self/mountstats, and
// through the objects' collect functions: none may panic, and what they
// return stays within the bounds they promise. The committed corpus is in
// testdata/fuzz/FuzzParseRPCFile and testdata/fuzz/FuzzParseMountStats.

// nfsClientWant and nfsServerWant are the lines NFS Client and NFS Server
// read.
var (
	nfsClientWant = [rkCount]int{rkRPC: 3, rkProc2: rpcCounted, rkProc3: rpcCounted, rkProc4: rpcCounted}
	nfsServerWant = [rkCount]int{rkNet: 4, rkRPC: 2, rkRC: 3, rkFH: 1, rkIO: 2, rkTH: 1,
		rkProc2: rpcCounted, rkProc3: rpcCounted, rkProc4: rpcCounted, rkProc4Ops: rpcCounted}
)

// withNewline returns b ending in a newline.
func withNewline(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] != '\n' {
		return append(slices.Clip(b), '\n')
	}
	return b
}

func FuzzParseRPCFile(f *testing.F) {
	seedFile(f, "testdata/nfs/t0/proc/net/rpc/nfs", "testdata/nfs/t0/proc/net/rpc/nfsd",
		"testdata/nfs/other/nfs.node_exporter", "testdata/nfs/other/nfsd.procfs")
	f.Add([]byte("rpc 1 x 3\nproc3 99999 1\nproc4 3 1 2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		lines := bytes.Count(b, []byte("\n")) + 1
		for _, want := range []*[rkCount]int{&nfsClientWant, &nfsServerWant} {
			var p rpcFile
			parseRPCFile(b, want, &p)
			if len(p.problems.list) > maxBadFields || p.problems.n < len(p.problems.list) {
				t.Fatalf("%d problems kept of %d", len(p.problems.list), p.problems.n)
			}
			for k := range p.lines {
				l := &p.lines[k]
				switch {
				case l.line < 0 || l.line > lines:
					t.Fatalf("%s: line %d of %d", rpcKeys[k], l.line, lines)
				case l.line == 0 && (len(l.vals) != 0 || l.ok):
					t.Fatalf("%s: absent, but %d values, ok %v", rpcKeys[k], len(l.vals), l.ok)
				case want[k] > 0 && l.ok && len(l.vals) != want[k]:
					t.Fatalf("%s: %d values, want %d", rpcKeys[k], len(l.vals), want[k])
				case len(l.vals) > maxRPCProcs:
					t.Fatalf("%s: %d values", rpcKeys[k], len(l.vals))
				case l.bad() && p.problems.n == 0:
					t.Fatalf("%s: malformed without a problem recorded", rpcKeys[k])
				}
			}
			// Metamorphic: a key's second line is skipped, so the file
			// twice parses to the same values.
			var q rpcFile
			b1 := withNewline(b)
			parseRPCFile(append(slices.Clip(b1), b1...), want, &q)
			for k := range p.lines {
				if !slices.Equal(p.lines[k].vals, q.lines[k].vals) || p.lines[k].ok != q.lines[k].ok || p.lines[k].line != q.lines[k].line {
					t.Fatalf("%s: %v once, %v twice", rpcKeys[k], p.lines[k], q.lines[k])
				}
			}
		}
		c := NewCollector(fstest.MapFS{nfsClientFile: {Data: b}, nfsServerFile: {Data: b}}, fstest.MapFS{})
		for _, o := range []Object{nfsClientObject(), nfsServerObject()} {
			collectObject(t, c, o)
		}
	})
}

func FuzzParseMountStats(f *testing.F) {
	seedFile(f, "testdata/nfs/t0/proc/self/mountstats", "testdata/nfs/t1/proc/self/mountstats")
	f.Add([]byte("device s:/x mounted on /m with fstype nfs\n\tbytes:\t1 2 x\n\tper-op statistics\n\tREAD: 1 2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var p, q nfsProblems
		ms := parseMountStats(b, true, nil, &p)
		noOps := parseMountStats(b, false, nil, &q)
		if len(ms) > maxNFSMounts || len(ms) != len(noOps) {
			t.Fatalf("%d mounts with per-op lines, %d without", len(ms), len(noOps))
		}
		if len(p.list) > maxBadFields || p.n < len(p.list) {
			t.Fatalf("%d problems kept of %d", len(p.list), p.n)
		}
		for i := range ms {
			m, n := &ms[i], &noOps[i]
			if len(m.dir) == 0 || bytes.ContainsAny(m.dir, " \t\n") || !bytes.Contains(b, m.dir) {
				t.Fatalf("mount point %q", m.dir)
			}
			if m.bytes != n.bytes || m.bytesOK != n.bytesOK || m.line != n.line {
				t.Fatalf("mount %d: bytes differ with and without per-op lines", i)
			}
			if !m.bytesOK && m.bytes != [8]uint64{} {
				t.Fatalf("mount %d: malformed bytes line kept values %v", i, m.bytes)
			}
			if (!m.bytesOK || !m.opsOK || !m.haveOps) && p.n == 0 {
				t.Fatalf("mount %d: unreadable without a problem recorded", i)
			}
			if n := proctext.CutName(unescapeMount(m.dir), proctext.MaxInstanceName); len(n) > proctext.MaxInstanceName {
				t.Fatalf("name of %d bytes", len(n))
			}
		}
		// Metamorphic: the text twice has twice the mounts (device lines
		// alone decide them), up to the bound.
		b1 := withNewline(b)
		twice := parseMountStats(append(slices.Clip(b1), b1...), true, nil, &q)
		if want := min(2*len(ms), maxNFSMounts); len(twice) != want {
			t.Fatalf("%d mounts once, %d twice", len(ms), len(twice))
		}
		c := NewCollector(fstest.MapFS{mountStatsFile: {Data: b}}, fstest.MapFS{})
		collectObject(t, c, nfsMountObject())
	})
}
