package exepages

import (
	"bufio"
	"encoding/binary"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// smapsEntry writes one mapping of /proc/PID/smaps as the kernel does (the
// fields a test needs; the kernel writes some twenty).
func smapsEntry(rng, perms, path string, rss, anon int) string {
	return rng + " " + perms + " 00000000 fd:01 1234567                            " + path + "\n" +
		"Size:              14108 kB\n" +
		"Rss:               " + strconv.Itoa(rss) + " kB\n" +
		"Pss:               " + strconv.Itoa(rss) + " kB\n" +
		"Anonymous:         " + strconv.Itoa(anon) + " kB\n" +
		"Swap:                  0 kB\n" +
		"VmFlags: rd ex mr mw me sd \n"
}

func TestReleasable(t *testing.T) {
	const exe = "/usr/bin/perfc"
	static := smapsEntry("00400000-011c7000", "r-xp", exe, 9796, 0) +
		smapsEntry("011c7000-02077000", "r--p", exe, 6716, 0) +
		smapsEntry("02077000-021d1000", "rw-p", exe, 692, 120) +
		smapsEntry("021d1000-04224000", "rw-p", "", 144, 144) +
		smapsEntry("7ffc1e3f0000-7ffc1e3f2000", "r-xp", "[vdso]", 8, 0)
	for _, c := range []struct {
		name     string
		smaps    string
		exe      string
		want     []span
		resident int64
		err      bool
	}{
		{"static binary: text and read-only data", static, exe,
			[]span{{0x400000, 0x11c7000}, {0x11c7000, 0x2077000}}, (9796 + 6716) << 10, false},
		{"a relocated read-only segment keeps its pages",
			smapsEntry("55d4a0000000-55d4a0e00000", "r-xp", exe, 4000, 0) +
				smapsEntry("55d4a0e00000-55d4a1000000", "r--p", exe, 300, 8) +
				smapsEntry("55d4a1000000-55d4a1100000", "r--p", "/usr/lib/x86_64-linux-gnu/libc.so.6", 500, 0),
			exe, []span{{0x55d4a0000000, 0x55d4a0e00000}}, 4000 << 10, false},
		{"a path with spaces; another file with its name as a prefix",
			smapsEntry("00400000-00500000", "r-xp", "/tmp/my dir/perfc", 100, 0) +
				smapsEntry("00600000-00700000", "r-xp", "/tmp/my dir/perfc2", 100, 0),
			"/tmp/my dir/perfc", []span{{0x400000, 0x500000}}, 100 << 10, false},
		{"a binary replaced on disk while running",
			smapsEntry("00400000-00500000", "r-xp", "/usr/bin/perfc (deleted)", 64, 0) +
				smapsEntry("00500000-00600000", "r--p", "/usr/bin/perfc", 64, 0),
			"/usr/bin/perfc (deleted)", []span{{0x400000, 0x500000}}, 64 << 10, false},
		{"nothing resident, shared and writable mappings",
			smapsEntry("00400000-00500000", "r-xp", exe, 0, 0) +
				smapsEntry("00500000-00600000", "r--s", exe, 64, 0) +
				smapsEntry("00600000-00700000", "rw-p", exe, 64, 0),
			exe, nil, 0, false},
		{"anonymous mappings are not an empty path's", static, "", nil, 0, true},
		{"empty", "", exe, nil, 0, false},
		{"a range that is not one", "00400000-00300000 r-xp 00000000 fd:01 1 /usr/bin/perfc\n", exe, nil, 0, true},
		{"a range not of pages", "00400010-00500000 r-xp 00000000 fd:01 1 /usr/bin/perfc\n", exe, nil, 0, true},
		{"a size that is not one", strings.Replace(static, "Rss:               9796 kB", "Rss:               97x6 kB", 1), exe, nil, 0, true},
		{"a size without a value", strings.Replace(static, "Anonymous:         0 kB", "Anonymous:", 1), exe, nil, 0, true},
		{"a line that is neither", static + "garbage\n", exe, nil, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, resident, err := releasable([]byte(c.smaps), c.exe)
			if (err != nil) != c.err {
				t.Fatalf("error %v, want one: %v", err, c.err)
			}
			if !slices.Equal(got, c.want) || resident != c.resident {
				t.Errorf("got %x, %d resident, want %x, %d", got, resident, c.want, c.resident)
			}
		})
	}
}

// residentPages counts the pages of the test binary's own mappings that
// are mapped (present in /proc/self/pagemap), read-only and writable.
func residentPages(t *testing.T) (readOnly, writable int) {
	t.Helper()
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	maps, err := os.Open("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	defer maps.Close()
	pm, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Fatal(err)
	}
	defer pm.Close()
	page := uint64(os.Getpagesize())
	sc := bufio.NewScanner(maps)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 6 || strings.Join(f[5:], " ") != exe {
			continue
		}
		lo, hi, _ := strings.Cut(f[0], "-")
		start, _ := strconv.ParseUint(lo, 16, 64)
		end, _ := strconv.ParseUint(hi, 16, 64)
		buf := make([]byte, (end-start)/page*8)
		if _, err := pm.ReadAt(buf, int64(start/page*8)); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(buf); i += 8 {
			if binary.LittleEndian.Uint64(buf[i:])>>63 == 1 {
				if strings.Contains(f[1], "w") {
					writable++
				} else {
					readOnly++
				}
			}
		}
	}
	return readOnly, writable
}

// written is changed at run time: a page of the binary's data that
// Release must keep.
var written = []byte("before")

func TestRelease(t *testing.T) {
	written = append(written[:0], "after"...)
	before, beforeW := residentPages(t)
	resident, err := Release()
	if err != nil {
		t.Fatal(err)
	}
	after, afterW := residentPages(t)
	t.Logf("%d pages of the binary mapped read-only before, %d after (Rss %d kB); %d and %d writable", before, after, resident>>10, beforeW, afterW)
	if resident <= 0 || after >= before {
		t.Errorf("read-only pages mapped: %d before, %d after (%d bytes resident by smaps): want fewer after", before, after, resident)
	}
	if afterW < beforeW {
		t.Errorf("writable pages mapped: %d before, %d after: want none released", beforeW, afterW)
	}
	if string(written) != "after" {
		t.Errorf("a variable written before Release reads %q after it", written)
	}
}

// FuzzReleasable: any smaps text is read without a panic, in time linear
// in its length, and what it gives are whole address ranges with a
// non-negative resident size.
func FuzzReleasable(f *testing.F) {
	f.Add([]byte(smapsEntry("00400000-011c7000", "r-xp", "/usr/bin/perfc", 9796, 0)+
		smapsEntry("011c7000-02077000", "r--p", "/usr/bin/perfc", 6716, 8)), "/usr/bin/perfc")
	f.Add([]byte(smapsEntry("00400000-00500000", "r-xp", "/tmp/my dir/perfc (deleted)", 64, 0)), "/tmp/my dir/perfc (deleted)")
	f.Add([]byte("00400000-00500000 r-xp 00000000 fd:01 1\nRss: 4 kB\n"), "")
	f.Fuzz(func(t *testing.T, smaps []byte, exe string) {
		spans, resident, err := releasable(smaps, exe)
		if err != nil {
			return
		}
		if resident < 0 || (resident > 0) != (len(spans) > 0) {
			t.Fatalf("%d spans, %d bytes resident", len(spans), resident)
		}
		for _, s := range spans {
			if s.end <= s.start {
				t.Fatalf("span %#x-%#x", s.start, s.end)
			}
		}
	})
}
