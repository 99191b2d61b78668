package system

import (
	"bytes"
	"strings"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/proctext"
)

// LogicalDisk counter indexes before the shared disk counters.
const (
	ldFreeSpace = iota
	ldFreeSpaceBase
	ldFreeMegabytes
	ldDiskFirst // first of the diskCounters
)

// mountEntry is one kept line of /proc/self/mounts.
type mountEntry struct {
	dev, dir, fstype string
}

type logicalState struct {
	mounts []mountEntry
	raw    []byte // the mounts file as last parsed, to skip re-parsing it
	total  diskStat
}

// pseudoFS are file-system types that hold no user data on a volume.
func pseudoFS(t string) bool {
	switch t {
	case "proc", "sysfs", "devtmpfs", "devpts", "tmpfs", "ramfs", "cgroup", "cgroup2",
		"securityfs", "debugfs", "tracefs", "pstore", "bpf", "mqueue", "hugetlbfs",
		"configfs", "fusectl", "autofs", "binfmt_misc", "rpc_pipefs", "nsfs",
		"efivarfs", "selinuxfs", "squashfs", "iso9660", "overlay_internal", "fuse.gvfsd-fuse",
		"fuse.portal", "nfsd", "sockfs", "pipefs", "anon_inodefs", "devfs", "rootfs":
		return true
	}
	return false
}

// unescapeMount undoes the octal escapes (\040 for space, \011, \012,
// \134) that the kernel writes in /proc/mounts fields.
func unescapeMount(b []byte) string {
	if bytes.IndexByte(b, '\\') < 0 {
		return string(b)
	}
	var sb strings.Builder
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' && i+3 < len(b) {
			o := b[i+1 : i+4]
			if o[0] >= '0' && o[0] <= '3' && o[1] >= '0' && o[1] <= '7' && o[2] >= '0' && o[2] <= '7' {
				sb.WriteByte((o[0]-'0')<<6 | (o[1]-'0')<<3 | (o[2] - '0'))
				i += 3
				continue
			}
		}
		sb.WriteByte(b[i])
	}
	return sb.String()
}

// parseMounts parses /proc/self/mounts, keeping real file systems once
// each: pseudo file systems are dropped, and a block device mounted at
// several places (bind mounts) is kept at its first mount point only.
func parseMounts(b []byte, dst []mountEntry) []mountEntry {
	dst = dst[:0]
	for len(b) > 0 {
		var line []byte
		line, b = proctext.NextLine(b)
		dev, rest := proctext.NextField(line)
		dir, rest := proctext.NextField(rest)
		fstype, _ := proctext.NextField(rest)
		if len(dir) == 0 || len(fstype) == 0 || pseudoFS(string(fstype)) {
			continue
		}
		m := mountEntry{dev: unescapeMount(dev), dir: unescapeMount(dir), fstype: string(fstype)}
		dup := false
		for _, o := range dst {
			if o.dir == m.dir || (strings.HasPrefix(m.dev, "/dev/") && o.dev == m.dev) {
				dup = true
				break
			}
		}
		if !dup {
			dst = append(dst, m)
		}
	}
	return dst
}

func (c *Collector) logicalDiskObject() Object {
	cs := []counterset.Counter{
		ctr("% Free Space", tFraction, 0, detNovice, "% Free Space is the space available to unprivileged users on the file system (f_bavail of statfs) as a percentage of its size. Both values are stored in megabytes so that they fit 32-bit values."),
		ctr("% Free Space", tRawBase, 0, detNovice, "Base for % Free Space: the size of the file system in megabytes."),
		ctr("Free Megabytes", tRaw, 0, detNovice, "Free Megabytes is the space available to unprivileged users on the file system, in megabytes (2^20 bytes)."),
	}
	cs = append(cs, diskCounters()...)
	set := newSet("LogicalDisk", 236, counterset.MultipleAggregate, detNovice, ldDiskFirst+dkDiskTime,
		"The LogicalDisk object measures each mounted file system of the host (from /proc/self/mounts, without pseudo file systems such as proc, sysfs or tmpfs, and a block device mounted several times only once), named by its mount point, and _Total. Sizes come from statfs; disk activity is that of the block device in /proc/diskstats the file system is mounted from, and zero when it has none (network and overlay file systems).",
		cs)
	return Object{Set: set, Collect: (*Collector).collectLogicalDisk}
}

func (c *Collector) collectLogicalDisk(col Collection, w Writer) error {
	ts := uint64(c.uptime(col) / 100)
	l := &c.logical
	b, err := c.readProc("self/mounts")
	if err != nil {
		return err
	}
	if !bytes.Equal(b, l.raw) {
		l.raw = append(l.raw[:0], b...)
		l.mounts = parseMounts(b, l.mounts)
	}
	d := &c.disk
	if b, err := c.readProc("diskstats"); err != nil {
		partialf(col, "%v", err)
		d.stats = d.stats[:0]
	} else if d.stats, err = parseDiskStats(b, d.stats, &d.bad); err != nil {
		partialf(col, "%v", err)
		d.stats = d.stats[:0]
	} else {
		d.bad.report(col, "/proc/diskstats")
	}
	anyBad := false
	// Disk names in d.stats point into the read buffer: no file is read
	// below this line.
	l.total = diskStat{}
	var totalMB, freeMB, n uint64
	for _, m := range l.mounts {
		st, err := c.Statfs(m.dir)
		if err != nil {
			partialf(col, "statfs %s: %v", m.dir, err)
			continue
		}
		if st.Blocks == 0 {
			continue // nothing to measure (e.g. an empty autofs trigger)
		}
		size := mulDiv(st.Blocks, st.BlockSize, 1<<20)
		free := mulDiv(st.BlocksAvail, st.BlockSize, 1<<20)
		v := w.Instance(proctext.CutName(m.dir, proctext.MaxInstanceName), 0, 0, -1)
		v.Set(ldFreeSpace, free)
		v.Set(ldFreeSpaceBase, size)
		v.Set(ldFreeMegabytes, free)
		var s diskStat
		if dev, ok := strings.CutPrefix(m.dev, "/dev/"); ok {
			if p := findDisk(d.stats, dev); p != nil {
				s = *p
			}
		}
		c.writeDisk(v, ldDiskFirst, &s, ts, 1)
		if s.Bad {
			unavailableDisk(col, ldDiskFirst)
			anyBad = true
		}
		addDisk(&l.total, &s)
		totalMB += size
		freeMB += free
		n++
	}
	v := w.Instance("_Total", 0, 0, -1)
	v.Set(ldFreeSpace, freeMB)
	v.Set(ldFreeSpaceBase, totalMB)
	v.Set(ldFreeMegabytes, freeMB)
	if n == 0 {
		n = 1
	}
	c.writeDisk(v, ldDiskFirst, &l.total, ts, n)
	if anyBad {
		unavailableDisk(col, ldDiskFirst)
	}
	return nil
}
