package system

import (
	"strings"
	"testing"
	"testing/fstest"
	"time"
	"unicode/utf8"
)

// runePrefix is the longest prefix of s of at most n bytes made of whole
// runes, built rune by rune: the expected instance name.
func runePrefix(s string, n int) string {
	out := ""
	for _, r := range s {
		if len(out)+utf8.RuneLen(r) > n {
			break
		}
		out += string(r)
	}
	return out
}

// TestInstanceNameBounds: every instance name an object makes from what
// /proc or /sys says is at most 1,024 bytes, cut on a rune boundary
// (issue 43 item 1): a mount point, a swap file, a network interface, a
// control group's path. Another user can choose some of these (a FUSE
// mount point, a delegated control group); the names travel into every
// log, status file and alert task.
func TestInstanceNameBounds(t *testing.T) {
	// 1,030 bytes whose byte 1,024 falls inside a "€" (3 bytes).
	long := "/" + strings.Repeat("a", 1022) + "€€"
	// A control group 12 levels deep, 100 bytes a level.
	var deep []string
	for i := range 12 {
		deep = append(deep, strings.Repeat(string(rune('a'+i)), 99)+"é")
	}
	group := "/" + strings.Join(deep, "/")
	uptime := WithUptime(func() time.Duration { return time.Second })
	cases := []struct {
		object string
		proc   fstest.MapFS
		sys    fstest.MapFS
		name   string // the name as the file gives it
	}{
		{"LogicalDisk", fstest.MapFS{"self/mounts": {Data: []byte("/dev/fuse " + long + " fuse.sshfs rw 0 0\n")}, "diskstats": {Data: nil}}, nil, long},
		{"Paging File", fstest.MapFS{"swaps": {Data: []byte("Filename Type Size Used Priority\n" + long + " file 100 0 -2\n")}}, nil, long},
		{"Network Interface", fstest.MapFS{"net/dev": {Data: []byte("Inter-|   Receive |  Transmit\n face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n" +
			long[1:] + ": 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n")}}, nil, long[1:]},
		{"Control Group", fstest.MapFS{"self/mounts": {Data: []byte("cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n")}},
			fstest.MapFS{"devices/system/cpu/online": {Data: []byte("0-1\n")}, "fs/cgroup" + group + "/cgroup.procs": {Data: []byte("1\n")}}, group},
	}
	for _, tc := range cases {
		t.Run(tc.object, func(t *testing.T) {
			sys := tc.sys
			if sys == nil {
				sys = fstest.MapFS{}
			}
			c := NewCollector(tc.proc, sys, uptime, WithStatfs(fixedStatfs(map[string]StatFS{long: {BlockSize: 4096, Blocks: 100}})))
			o := c.cgroupObject()
			if tc.object != o.Set.Name {
				o = objectByName(t, c, tc.object)
			}
			s := collectObject(t, c, o)
			want := runePrefix(tc.name, 1024)
			found := false
			for _, n := range s.names {
				if len(n) > 1024 {
					t.Errorf("instance name of %d bytes: %.40q...", len(n), n)
				}
				if !utf8.ValidString(n) {
					t.Errorf("instance name %.40q... is not UTF-8", n)
				}
				found = found || n == want
			}
			if !found {
				t.Errorf("no instance %.40q... (%d bytes); have %d instances, reasons %q", want, len(want), len(s.names), s.reasons)
			}
		})
	}
}
