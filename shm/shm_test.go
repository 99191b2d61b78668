package shm

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/countertype"
)

// shmDir returns a fresh directory on tmpfs (/dev/shm), removed after the
// test, or skips when there is none.
func shmDir(t testing.TB) string {
	t.Helper()
	if err := CheckDir("/dev/shm"); err != nil {
		t.Skipf("no tmpfs at /dev/shm: %v", err)
	}
	d, err := os.MkdirTemp("/dev/shm", "perfc-test-")
	if err != nil {
		t.Skipf("cannot use /dev/shm: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// userDir returns the calling user's segment directory under base, made
// as a provider makes it.
func userDir(t testing.TB, base string) string {
	t.Helper()
	d := filepath.Join(base, UserDirName(uint32(os.Geteuid())))
	if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		t.Fatal(err)
	}
	return d
}

func smallOpts(dir string) Options {
	return Options{Dir: dir, MaxSets: 4, MaxCounters: 32, MaxInstances: 64, MaxSharded: 8, HeapSize: 8 << 10}
}

func testSet() *counterset.Set {
	return &counterset.Set{
		GUID: "{11111111-2222-3333-4444-555555555555}", Name: "Test Set", Help: "help",
		Instancing: counterset.Multiple, DefaultCounter: 0,
		Counters: []counterset.Counter{
			{ID: 1, Name: "Requests/sec", Type: countertype.PERF_COUNTER_COUNTER, Aggregate: counterset.AggregateTotal},
			{ID: 2, Name: "Bytes", Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT, Aggregate: counterset.AggregateMax},
			{ID: 3, Name: "Hit %", Type: countertype.PERF_RAW_FRACTION, BaseID: 4},
			{ID: 4, Name: "Hit % base", Type: countertype.PERF_RAW_BASE},
		},
	}
}

// testWriter creates the provider guid's segment in dir with testSet
// added (its index returned); it is closed when the test ends.
func testWriter(t testing.TB, dir, guid string) (*Writer, int) {
	t.Helper()
	w, err := Create(guid, smallOpts(dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	si, err := w.AddSet(testSet())
	if err != nil {
		t.Fatal(err)
	}
	return w, si
}

func TestWriteScan(t *testing.T) {
	dir := shmDir(t)
	w, si := testWriter(t, dir, "prov-a")
	_, b1, err := w.NewInstance(si, "alpha", 7)
	if err != nil {
		t.Fatal(err)
	}
	slot2, b2, err := w.NewInstance(si, "beta", 8)
	if err != nil {
		t.Fatal(err)
	}
	b1.Add(0, 5)
	b1.Add(0, 6)
	b1.Store(1, 1<<40)
	b1.Store(2, 0x1_0000_0003) // 4-byte counter: readers keep the low half
	b1.Store(3, 4)
	b2.Store(1, 9)
	sh, err := w.NewShards(slot2, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	if sh.Len() != 4 {
		t.Errorf("shards = %d, want 4 (3 rounded up)", sh.Len())
	}
	b2.Add(0, 100)
	sh.Add(0, 1)
	sh.Add(1, 2)
	sh.Add(5, 4) // 5 mod 4 = shard 1

	snaps, errs := Scan(dir)
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	if len(snaps) != 1 {
		t.Fatalf("%d segments, want 1", len(snaps))
	}
	sn := snaps[0]
	if sn.ProviderGUID != "prov-a" || sn.PID != uint32(os.Getpid()) || filepath.Base(sn.Path) != SegmentName("prov-a", os.Getpid()) {
		t.Errorf("segment = %q pid %d path %s", sn.ProviderGUID, sn.PID, sn.Path)
	}
	if len(sn.Sets) != 1 {
		t.Fatalf("%d sets", len(sn.Sets))
	}
	set := sn.Sets[0]
	want := testSet()
	if set.Set.GUID != want.GUID || set.Set.Name != want.Name || set.Set.Help != want.Help || len(set.Set.Counters) != 4 {
		t.Errorf("set = %+v", set.Set)
	}
	for i, c := range set.Set.Counters {
		w := want.Counters[i]
		// References compare as the segment stores them: only those the
		// counter's type uses (counterset.Counter.WireRefs).
		cb, cm, ct, cf := c.WireRefs()
		wb, wm, wt, wf := w.WireRefs()
		if c.ID != w.ID || c.Name != w.Name || c.Type != w.Type || c.Aggregate != w.Aggregate ||
			cb != wb || cm != wm || ct != wt || cf != wf || c.ValueSize() != w.ValueSize() {
			t.Errorf("counter %d = %+v, want %+v", i, c, w)
		}
	}
	got := map[string][]uint64{}
	for _, in := range set.Instances {
		got[in.Name] = in.Values
	}
	for name, vals := range map[string][]uint64{
		"alpha": {11, 1 << 40, 3, 4},
		"beta":  {100 + 1 + 2 + 4, 9, 0, 0},
	} {
		g := got[name]
		if len(g) != len(vals) {
			t.Errorf("%s: values %v, want %v", name, g, vals)
			continue
		}
		for i := range vals {
			if g[i] != vals[i] {
				t.Errorf("%s: value %d = %d, want %d", name, i, g[i], vals[i])
			}
		}
	}

	// Deleting publishes at once and recycles the slot and block.
	if err := w.DeleteInstance(slot2); err != nil {
		t.Fatal(err)
	}
	if err := w.DeleteInstance(slot2); err == nil {
		t.Error("second delete of a slot succeeded")
	}
	slot3, b3, err := w.NewInstance(si, "gamma", 9)
	if err != nil {
		t.Fatal(err)
	}
	if slot3 != slot2 {
		t.Errorf("new instance took slot %d, want recycled %d", slot3, slot2)
	}
	snaps, errs = Scan(dir)
	if len(errs) != 0 || len(snaps) != 1 {
		t.Fatalf("errors %v, %d segments", errs, len(snaps))
	}
	names := []string{}
	for _, in := range snaps[0].Sets[0].Instances {
		names = append(names, in.Name)
		if in.Name == "gamma" {
			for i, v := range in.Values {
				if v != 0 {
					t.Errorf("recycled block not zeroed: value %d = %d", i, v)
				}
			}
		}
	}
	if strings.Join(names, ",") != "alpha,gamma" {
		t.Errorf("instances = %v, want alpha,gamma", names)
	}
	_ = b3

	// Close removes the file.
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if snaps, errs := Scan(dir); len(snaps) != 0 || len(errs) != 0 {
		t.Errorf("after Close: %d segments, errors %v", len(snaps), errs)
	}
}

func TestCreateRejects(t *testing.T) {
	dir := shmDir(t)
	for _, g := range []string{"", "a/b", ".hidden", strings.Repeat("x", 65)} {
		if w, err := Create(g, smallOpts(dir)); err == nil {
			w.Close()
			t.Errorf("Create(%q) succeeded", g)
		}
	}
	disk := t.TempDir()
	if CheckDir(disk) == nil {
		t.Skip("the test temp dir is itself memory-backed")
	}
	if w, err := Create("g", smallOpts(disk)); err == nil {
		w.Close()
		t.Error("Create on a disk-backed directory succeeded")
	}
	o := smallOpts(disk)
	o.AllowDiskBacked = true
	w, err := Create("g", o)
	if err != nil {
		t.Fatalf("with AllowDiskBacked: %v", err)
	}
	w.Close()
}

func TestModeAndPermission(t *testing.T) {
	dir := shmDir(t)
	o := smallOpts(dir)
	o.Mode = 0o600
	w, err := Create("perm", o)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	st, err := os.Stat(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", st.Mode().Perm())
	}
	if os.Geteuid() == 0 {
		t.Skip("root reads every file; EACCES cannot be provoked")
	}
	os.Chmod(w.Path(), 0)
	_, errs := Scan(dir)
	if len(errs) != 1 || !errors.Is(errs[0], unix.EACCES) || !strings.Contains(errs[0].Error(), "no permission") {
		t.Errorf("errors = %v, want one saying permission denied", errs)
	}
}

// lockedCopy writes b as a segment file in dir and holds an exclusive lock
// on it, as a live owner would, until the returned function is called.
func lockedCopy(t testing.TB, dir, name string, b []byte) (unlock func()) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	return func() { f.Close() }
}

// sampleSegment returns the bytes of a small published segment.
func sampleSegment(t testing.TB) []byte {
	t.Helper()
	w, si := testWriter(t, shmDir(t), "sample")
	slot, b, _ := w.NewInstance(si, "one", 1)
	b.Store(0, 42)
	w.NewInstance(si, "two", 2)
	w.NewShards(slot, 1, 2)
	data, err := os.ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	// Only the used part matters; keep the sparse tail out of the copy
	// that tests mutate, but keep the file size the header claims.
	return data
}

func TestDeadOwnerRemoved(t *testing.T) {
	dir := shmDir(t)
	data := sampleSegment(t)
	p := filepath.Join(userDir(t, dir), SegmentName("sample", 999999))
	if err := os.WriteFile(p, data, 0o600); err != nil { // nobody holds its lock
		t.Fatal(err)
	}
	snaps, errs := Scan(dir)
	if len(snaps) != 0 || len(errs) != 0 {
		t.Errorf("got %d segments, errors %v; want none", len(snaps), errs)
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale segment still there: %v", err)
	}
}

func TestStaleRemovedByStart(t *testing.T) {
	dir := shmDir(t)
	data := sampleSegment(t)
	stale := filepath.Join(userDir(t, dir), SegmentName("sample", 999999))
	other := filepath.Join(userDir(t, dir), SegmentName("other", 999999))
	os.WriteFile(stale, data, 0o600)
	os.WriteFile(other, data, 0o600)
	if errs := RemoveStale(dir, "sample."); len(errs) != 0 {
		t.Fatal(errs)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("stale segment of the same provider kept")
	}
	if _, err := os.Stat(other); err != nil {
		t.Error("segment of another provider removed")
	}
}

// TestBitFlips flips every bit of the used part of a segment, one at a
// time, and scans: no panic, and every scan either drops the segment with
// a reason, removes it as stale, or returns well-formed data.
func TestBitFlips(t *testing.T) {
	data := sampleSegment(t)
	used := len(bytes.TrimRight(data, "\x00")) // the part before the sparse tail
	dir := shmDir(t)
	sc := NewScanner(dir)
	defer sc.Close()
	// Every bit of the header; a sample of the rest (every 13th byte,
	// every 41st with -short), which covers every record kind several times.
	step := 13
	if testing.Short() {
		step = 41
	}
	for off := 0; off < used; off = next(off, step) {
		for bit := 0; bit < 8; bit++ {
			b := append([]byte(nil), data...)
			b[off] ^= 1 << bit
			name := SegmentName("flip", off*8+bit)
			unlock := lockedCopy(t, userDir(t, dir), name, b)
			snaps, errs := sc.Scan()
			for _, s := range snaps {
				for _, set := range s.Sets {
					for _, in := range set.Instances {
						if len(in.Values) != len(set.Set.Counters) {
							t.Fatalf("offset %d bit %d: %d values for %d counters", off, bit, len(in.Values), len(set.Set.Counters))
						}
					}
				}
			}
			for _, e := range errs {
				var se *SegmentError
				if !errors.As(e, &se) {
					t.Fatalf("offset %d bit %d: untyped error %v", off, bit, e)
				}
			}
			os.Remove(filepath.Join(userDir(t, dir), name))
			unlock()
		}
	}
}

func next(off, step int) int {
	if off < headerSize {
		return off + 1
	}
	return off + step
}

func TestTruncated(t *testing.T) {
	data := sampleSegment(t)
	dir := shmDir(t)
	for _, n := range []int{0, 8, headerSize - 1, headerSize, headerSize + 100, len(data) / 2, len(data) - 4096} {
		name := SegmentName("trunc", n)
		unlock := lockedCopy(t, userDir(t, dir), name, data[:n])
		snaps, errs := Scan(dir)
		if len(snaps) != 0 || len(errs) != 1 {
			t.Errorf("truncated to %d: %d segments, errors %v; want the segment dropped with a reason", n, len(snaps), errs)
		}
		os.Remove(filepath.Join(userDir(t, dir), name))
		unlock()
	}
}

// TestTruncatedUnderReader truncates a segment after the reader has mapped
// it: reading the lost pages raises SIGBUS, which must become an error.
func TestTruncatedUnderReader(t *testing.T) {
	data := sampleSegment(t)
	dir := shmDir(t)
	name := SegmentName("shrink", 1)
	defer lockedCopy(t, userDir(t, dir), name, data)()
	p := filepath.Join(userDir(t, dir), name)
	fd, err := unix.Open(p, unix.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := unix.Mmap(fd, 0, len(data), unix.PROT_READ, unix.MAP_SHARED)
	unix.Close(fd)
	if err != nil {
		t.Fatal(err)
	}
	m := &mapped{path: p, mem: mem, alloc: uint64(len(data))}
	defer m.unmap()
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	sc := NewScanner(dir)
	_, err = sc.read(m)
	if err == nil || !strings.Contains(err.Error(), "memory fault") {
		t.Errorf("read of a truncated mapping: %v, want a memory fault error", err)
	}
}

func TestParseStartTime(t *testing.T) {
	// Field 22 counted by hand; the comm contains spaces and ')'.
	line := "1234 (a) b (c) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 987654 20 21\n"
	v, err := parseStartTime([]byte(line))
	if err != nil || v != 987654 {
		t.Errorf("= %d, %v; want 987654", v, err)
	}
	if _, err := parseStartTime([]byte("1 (x) S 1 2")); err == nil {
		t.Error("short line accepted")
	}
}

func TestAggregate(t *testing.T) {
	set := &counterset.Set{Counters: []counterset.Counter{
		{Aggregate: counterset.AggregateTotal, Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT},
		{Aggregate: counterset.AggregateAvg, Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT},
		{Aggregate: counterset.AggregateMin, Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT},
		{Aggregate: counterset.AggregateMax, Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT},
		{Aggregate: counterset.AggregateUndefined, Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT},
		{Aggregate: counterset.AggregateTotal, Type: countertype.PERF_COUNTER_RAWCOUNT},
	}}
	for _, tc := range []struct {
		name string
		rows [][]uint64
		want []uint64
	}{
		{"none", nil, []uint64{0, 0, 0, 0, 0, 0}},
		{"one", [][]uint64{{5, 6, 7, 8, 9, 10}}, []uint64{5, 6, 7, 8, 0, 10}},
		{"three", [][]uint64{{1, 10, 5, 5, 1, 0xFFFFFFFF}, {2, 20, 3, 9, 1, 2}, {3, 31, 4, 1, 1, 0}}, []uint64{6, 20, 3, 9, 0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Aggregate(nil, set, tc.rows)
			for i := range tc.want {
				if got[i] != tc.want[i] {
					t.Errorf("counter %d = %d, want %d", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func FuzzReadSegment(f *testing.F) {
	data := sampleSegment(f)
	used := len(bytes.TrimRight(data, "\x00")) // the part before the sparse tail
	f.Add(data[:used])
	f.Add(data[:headerSize])
	f.Add([]byte("PERFCSEG"))
	f.Fuzz(func(t *testing.T, b []byte) {
		// The reader needs 8-aligned memory, as a mapping is.
		words := make([]uint64, (len(b)+7)/8)
		mem := unsafeBytes(words)[:len(b)]
		copy(mem, b)
		// Let the header's size claim match, so that fuzzing reaches the
		// tables; a mismatch is covered by the seeds as they are.
		if len(mem) >= headerSize {
			le.PutUint64(mem[hdrFileSize:], uint64(len(mem)))
		}
		sc := NewScanner("")
		m := &mapped{mem: mem, alloc: uint64(len(mem))}
		if len(mem) < headerSize {
			return // openSegment refuses these before mapping
		}
		snap, err := sc.read(m)
		if err == nil {
			for _, set := range snap.Sets {
				for _, in := range set.Instances {
					if len(in.Values) != len(set.Set.Counters) {
						t.Fatalf("%d values for %d counters", len(in.Values), len(set.Set.Counters))
					}
				}
			}
		}
	})
}

func unsafeBytes(w []uint64) []byte {
	if len(w) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), len(w)*8)
}

// TestScanNamesDiskBase: a base on a disk filesystem, where providers
// refuse to publish, is named in the scan's errors with the fix, not
// read as silently empty (issue 44).
func TestScanNamesDiskBase(t *testing.T) {
	base := t.TempDir()
	if CheckDir(base) == nil {
		t.Skip("the temporary directory is memory-backed here")
	}
	s := NewScanner(base)
	defer s.Close()
	for range 2 {
		_, errs := s.Scan()
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), base+" is not on tmpfs or ramfs") || !strings.Contains(errs[0].Error(), "PERFC_SHM_DIR") {
			t.Errorf("errors %v, want one naming %s and PERFC_SHM_DIR", errs, base)
		}
	}
}
