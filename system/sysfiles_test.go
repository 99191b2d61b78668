package system

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// TestKeptSysFiles: a /sys attribute read at every sample is read through
// one kept descriptor that sees the file's new content, the files of a
// device gone from the listing are closed, a failing attribute gives the
// same error every time, and Close releases everything.
func TestKeptSysFiles(t *testing.T) {
	root := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("block/sda/size", "100\n")
	write("block/sdb/size", "200\n")
	c := NewCollector(nil, os.DirFS(root))
	read := func(name string) string {
		t.Helper()
		b, err := c.readSys(name)
		if err != nil {
			t.Fatalf("readSys %s: %v", name, err)
		}
		return string(b)
	}
	steps := []struct {
		name    string
		change  func()
		read    []string
		want    []string
		sweep   bool
		kept    int
		keptFor string
	}{
		{name: "first reads open and keep", read: []string{"block/sda/size", "block/sdb/size"}, want: []string{"100\n", "200\n"}, sweep: true, kept: 2},
		{name: "new content seen through the kept descriptor", change: func() { write("block/sda/size", "12345\n") },
			read: []string{"block/sda/size", "block/sdb/size"}, want: []string{"12345\n", "200\n"}, sweep: true, kept: 2},
		{name: "a device no longer read is closed at the sweep", read: []string{"block/sdb/size"}, want: []string{"200\n"}, sweep: true, kept: 1, keptFor: "block/sdb/size"},
	}
	for _, st := range steps {
		if st.change != nil {
			st.change()
		}
		round := c.sysKept.begin()
		for i, name := range st.read {
			if got := read(name); got != st.want[i] {
				t.Errorf("%s: %s = %q, want %q", st.name, name, got, st.want[i])
			}
		}
		if st.sweep {
			c.sysKept.sweep("block/", round)
		}
		if got := len(c.sysKept.files); got != st.kept {
			t.Errorf("%s: %d files kept, want %d", st.name, got, st.kept)
		}
		if st.keptFor != "" {
			if _, ok := c.sysKept.files[st.keptFor]; !ok {
				t.Errorf("%s: %s not kept", st.name, st.keptFor)
			}
		}
	}

	// A directory in place of the attribute fails to read (EISDIR), as an
	// interface without a link speed fails with EINVAL: the same error
	// each time, from the kept descriptor.
	if err := os.MkdirAll(filepath.Join(root, "class/net/lo/speed"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if _, err := c.readSys("class/net/lo/speed"); err == nil {
			t.Fatalf("read %d of a directory: no error", i)
		}
	}
	if f := c.sysKept.files["class/net/lo/speed"]; f == nil || f.failed == nil {
		t.Errorf("failing attribute: kept %+v, want a kept file with its error", f)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(c.sysKept.files); n != 0 {
		t.Errorf("after Close: %d files kept", n)
	}
	// Still usable after Close.
	if got := read("block/sda/size"); got != "12345\n" {
		t.Errorf("after Close: %q", got)
	}
}

// TestPhysicalDiskFollowsChanges: the whole disks follow /sys/block from
// sample to sample although it is listed again only when /proc/diskstats'
// device names change, and the disks' sizes are read again only when
// /proc/partitions (the disks of non-zero size, as the kernel lists them)
// changes: a loop device attached (its size from 0 to some, no new line
// in diskstats) shows at once, a disk added or removed (its line in
// diskstats with it) too, a size that cannot be read is reported at every
// sample, and nothing changes over many samples that change nothing.
func TestPhysicalDiskFollowsChanges(t *testing.T) {
	sys := t.TempDir()
	sizes := map[string]string{}
	proc := fstest.MapFS{"uptime": {Data: []byte("100.00 50.00\n")}}
	setSize := func(dev, size string) {
		t.Helper()
		p := filepath.Join(sys, "block", dev)
		if size == "" {
			delete(sizes, dev)
			if err := os.RemoveAll(p); err != nil {
				t.Fatal(err)
			}
		} else {
			// In place, as sysfs changes an attribute: a kept descriptor
			// sees the new value.
			sizes[dev] = size
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			attr := filepath.Join(p, "size")
			var err error
			if size == "unreadable" {
				err = os.Mkdir(attr, 0o755) // reading it fails (EISDIR)
			} else {
				err = os.WriteFile(attr, []byte(size+"\n"), 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		// /proc/partitions as the kernel writes it: the disks of non-zero
		// size, in 1 KiB blocks.
		b := []byte("major minor  #blocks  name\n\n")
		for _, dev := range slices.Sorted(maps.Keys(sizes)) {
			if n, err := strconv.ParseUint(sizes[dev], 10, 64); err == nil && n > 0 {
				b = fmt.Appendf(b, "   1        0 %10d %s\n", n/2, dev)
			}
		}
		proc["partitions"] = &fstest.MapFile{Data: b}
	}
	line := map[string]string{
		"loop0": "   7 0 loop0 1 0 2 0 0 0 0 0 0 0 0\n",
		"sda":   "   8 0 sda 10 0 80 5 20 0 160 7 1 9 12\n",
		"sda1":  "   8 1 sda1 4 0 32 2 6 0 48 3 0 4 5\n",
		"vdb":   " 252 16 vdb 3 0 24 1 0 0 0 0 0 1 1\n",
		"vdc":   " 252 32 vdc 3 0 24 1 0 0 0 0 0 1 1\n",
	}
	setStats := func(devs ...string) {
		var b []byte
		for _, d := range devs {
			b = append(b, line[d]...)
		}
		proc["diskstats"] = &fstest.MapFile{Data: b}
	}
	c := NewCollector(proc, os.DirFS(sys), WithUptime(func() time.Duration { return 100 * time.Second }))
	defer c.Close()
	obj := objectByName(t, c, "PhysicalDisk")
	steps := []struct {
		name    string
		change  func()
		want    []string
		partial string // a reason every sample must report
	}{
		{"start: loop0 detached", func() {
			setSize("loop0", "0")
			setSize("sda", "1000")
			setStats("loop0", "sda", "sda1")
		}, []string{"0 sda", "_Total"}, ""},
		{"loop0 attached, diskstats unchanged", func() { setSize("loop0", "500") }, []string{"0 loop0", "1 sda", "_Total"}, ""},
		{"vdb added", func() {
			setSize("vdb", "10")
			setStats("loop0", "sda", "sda1", "vdb")
		}, []string{"0 loop0", "1 sda", "2 vdb", "_Total"}, ""},
		{"sda removed", func() {
			setSize("sda", "")
			setStats("loop0", "vdb")
		}, []string{"0 loop0", "1 vdb", "_Total"}, ""},
		{"vdc's size unreadable", func() {
			setSize("vdc", "unreadable")
			setStats("loop0", "vdb", "vdc")
		}, []string{"0 loop0", "1 vdb", "_Total"}, "block/vdc/size"},
		{"vdc removed", func() {
			setSize("vdc", "")
			setStats("loop0", "vdb")
		}, []string{"0 loop0", "1 vdb", "_Total"}, ""},
		{"loop0 detached", func() { setSize("loop0", "0") }, []string{"0 vdb", "_Total"}, ""},
	}
	for _, st := range steps {
		st.change()
		for i := range 3 {
			s := collectObject(t, c, obj)
			if !slices.Equal(s.names, st.want) {
				t.Fatalf("%s, sample %d: instances %q, want %q", st.name, i, s.names, st.want)
			}
			if st.partial != "" && !slices.ContainsFunc(s.reasons, func(r string) bool { return strings.Contains(r, st.partial) }) {
				t.Errorf("%s, sample %d: reasons %q, want one naming %s", st.name, i, s.reasons, st.partial)
			}
		}
	}
	for i := range 2 * relistEvery {
		s := collectObject(t, c, obj)
		if want := []string{"0 vdb", "_Total"}; !slices.Equal(s.names, want) {
			t.Fatalf("unchanged host, sample %d: instances %q, want %q", i, s.names, want)
		}
	}
}
