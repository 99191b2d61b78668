package provider

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/perfcounters/perfcounters/shm/shmtest"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/shm"
)

func opts(dir string) Options {
	return Options{Dir: dir, MaxInstances: 2048, HeapSize: 4 << 20}
}

func webSet(inst counterset.Instancing) *counterset.Set {
	return &counterset.Set{
		GUID: "{aaaaaaaa-0000-0000-0000-000000000001}", Name: "Web", Instancing: inst, DefaultCounter: 0,
		Counters: []counterset.Counter{
			{ID: 0, Name: "Requests/sec", Type: countertype.PERF_COUNTER_COUNTER, Aggregate: counterset.AggregateTotal, BaseID: counterset.NoID},
			{ID: 1, Name: "Avg. Latency", Type: countertype.PERF_AVERAGE_TIMER, BaseID: 2, Aggregate: counterset.AggregateTotal},
			{ID: 2, Name: "Avg. Latency Base", Type: countertype.PERF_AVERAGE_BASE, Aggregate: counterset.AggregateTotal},
			{ID: 3, Name: "In Flight", Type: countertype.PERF_COUNTER_LARGE_RAWCOUNT, Aggregate: counterset.AggregateMax},
			{ID: 10, Name: "Bytes", Type: countertype.PERF_COUNTER_BULK_COUNT},
		},
	}
}

// values scans dir and returns instance name -> values of set name.
func values(t *testing.T, dir, set string) map[string][]uint64 {
	t.Helper()
	snaps, errs := shm.Scan(dir)
	if len(errs) != 0 {
		t.Fatalf("scan: %v", errs)
	}
	out := map[string][]uint64{}
	for _, s := range snaps {
		for _, ss := range s.Sets {
			if ss.Set.Name != set {
				continue
			}
			for _, in := range ss.Instances {
				out[in.Name] = in.Values
			}
		}
	}
	return out
}

func TestPublish(t *testing.T) {
	dir := shmtest.Dir(t)
	p, err := Start("{prov-publish}", opts(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	s, err := p.AddSet(webSet(counterset.Multiple))
	if err != nil {
		t.Fatal(err)
	}
	if s.Single() != nil {
		t.Error("multi-instance set has a Single instance")
	}
	a, err := s.CreateInstance("/a", 1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.CreateInstance("/b", 2)
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(a.Add(0, 3))
	a.MustCounter(0).Inc()
	a.MustCounter(0).Add(2)
	must(a.AddPair(1, 500, 2, 1))
	must(a.AddPair(1, 300, 2, 1))
	must(a.Set(3, 9))
	a.MustRef(10).Set(1000)
	a.MustRef(10).Add(24)
	must(b.SetPair(1, 77, 2, 7))
	b.MustCounter(3).Set(4)
	sc := b.MustSharded(10)
	if b.MustSharded(10) != sc {
		t.Fatal("Sharded did not return one counter per value")
	}
	sc.Add(5)
	sc.Writer().Add(6)
	sc.Writer().Inc()
	b.Add(10, 100) // the plain word and the shards add up

	got := values(t, dir, "Web")
	want := map[string][]uint64{
		"/a": {3 + 1 + 2, 800, 2, 9, 1024},
		"/b": {0, 77, 7, 4, 5 + 6 + 1 + 100},
	}
	for name, w := range want {
		if fmt.Sprint(got[name]) != fmt.Sprint(w) {
			t.Errorf("%s = %v, want %v", name, got[name], w)
		}
	}
	if sc.Value() != 12 {
		t.Errorf("sharded Value = %d, want 12 (shards only)", sc.Value())
	}
	if a.MustCounter(0).Value() != 6 || a.MustRef(10).Value() != 1024 {
		t.Errorf("handle values %d %d", a.MustCounter(0).Value(), a.MustRef(10).Value())
	}

	must(a.Delete())
	if err := a.Delete(); err == nil {
		t.Error("second Delete succeeded")
	}
	if err := a.Add(0, 1); err == nil {
		t.Error("Add on a deleted instance succeeded")
	}
	got = values(t, dir, "Web")
	if _, ok := got["/a"]; ok || len(got) != 1 {
		t.Errorf("after delete: %v", got)
	}

	// Close removes the segment.
	path := p.Path()
	stray := b.MustCounter(0)
	must(p.Close())
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("segment left after Close: %v", err)
	}
	stray.Inc() // a stray write after Close must not crash
}

func TestSingleInstance(t *testing.T) {
	dir := shmtest.Dir(t)
	p, err := Start("{prov-single}", opts(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	s, err := p.AddSet(webSet(counterset.Single))
	if err != nil {
		t.Fatal(err)
	}
	in := s.Single()
	if in == nil {
		t.Fatal("no Single instance")
	}
	if _, err := s.CreateInstance("x", 1); err == nil {
		t.Error("CreateInstance on a single-instance set succeeded")
	}
	if err := in.Delete(); err == nil {
		t.Error("the single instance was deleted")
	}
	in.Add(3, 42)
	got := values(t, dir, "Web")
	if len(got) != 1 || got[""][3] != 42 {
		t.Errorf("single instance = %v, want one unnamed row with In Flight 42", got)
	}
}

func TestErrors(t *testing.T) {
	dir := shmtest.Dir(t)
	p, err := Start("{prov-errors}", opts(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	bad := func(f func(*counterset.Set)) *counterset.Set {
		s := webSet(counterset.Multiple)
		s.Counters = append([]counterset.Counter(nil), s.Counters...)
		f(s)
		return s
	}
	for _, tc := range []struct {
		name string
		set  *counterset.Set
		want string
	}{
		{"nil", nil, "nil counter set"},
		{"no guid", bad(func(s *counterset.Set) { s.GUID = "" }), "no guid"},
		{"no counters", bad(func(s *counterset.Set) { s.Counters = nil }), "no counters"},
		{"instancing", bad(func(s *counterset.Set) { s.Instancing = 99 }), "unknown instancing"},
		{"duplicate id", bad(func(s *counterset.Set) { s.Counters[3].ID = 10 }), "counter id 10 used twice"},
		{"dangling base", bad(func(s *counterset.Set) { s.Counters[1].BaseID = 77 }), "baseID 77 names no counter"},
		{"no base", bad(func(s *counterset.Set) { s.Counters = s.Counters[:2] }), "must be followed by"},
		{"bad type", bad(func(s *counterset.Set) { s.Counters[4].Type = 0x12345 }), "undocumented counter type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := p.AddSet(tc.set)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	s, err := p.AddSet(webSet(counterset.Multiple))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.AddSet(webSet(counterset.Multiple)); err == nil {
		t.Error("same set GUID added twice")
	}
	in, _ := s.CreateInstance("Dup", 1)
	if _, err := s.CreateInstance("dup", 1); err == nil {
		t.Error("instance names are case-insensitive, duplicate accepted")
	}
	if _, err := s.CreateInstance("dup", 2); err != nil {
		t.Errorf("same name, other id: %v", err)
	}
	if err := in.Add(99, 1); err == nil || !strings.Contains(err.Error(), "no counter id 99") {
		t.Errorf("Add to unknown counter: %v", err)
	}
	// A wrong id is an error, never a handle that silently drops data.
	for _, tc := range []struct {
		name string
		err  func() error
	}{
		{"Counter", func() error { _, err := in.Counter(99); return err }},
		{"Ref", func() error { _, err := in.Ref(99); return err }},
		{"Sharded", func() error { _, err := in.Sharded(99); return err }},
	} {
		if err := tc.err(); err == nil || !strings.Contains(err.Error(), "no counter id 99") {
			t.Errorf("%s(99): error %v, want one saying there is no counter id 99", tc.name, err)
		}
	}
	for _, tc := range []struct {
		name string
		must func()
	}{
		{"MustCounter", func() { in.MustCounter(99) }},
		{"MustRef", func() { in.MustRef(99) }},
		{"MustSharded", func() { in.MustSharded(99) }},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "no counter id 99") {
					t.Errorf("%s(99) recovered %v, want a panic saying there is no counter id 99", tc.name, r)
				}
			}()
			tc.must()
		}()
	}
	if err := in.Delete(); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Counter(1); err == nil || !strings.Contains(err.Error(), "deleted") {
		t.Errorf("Counter of a deleted instance: %v, want an error", err)
	}
}

// TestConcurrent runs writers of every kind, instance churn and a reader
// at once; run it with -race. Final values are exact.
func TestConcurrent(t *testing.T) {
	dir := shmtest.Dir(t)
	p, err := Start("{prov-race}", opts(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	s, err := p.AddSet(webSet(counterset.Multiple))
	if err != nil {
		t.Fatal(err)
	}
	in, _ := s.CreateInstance("hot", 1)
	const writers, n = 4, 2000
	stop := make(chan struct{})
	var rd sync.WaitGroup
	rd.Add(2)
	go func() { // reader: pairs must never be torn
		defer rd.Done()
		sc := shm.NewScanner(dir)
		defer sc.Close()
		for {
			select {
			case <-stop:
				return
			default:
			}
			snaps, errs := sc.Scan()
			if len(errs) != 0 {
				t.Errorf("scan: %v", errs)
				return
			}
			for _, sn := range snaps {
				for _, in := range sn.Sets[0].Instances {
					if in.Name == "hot" && in.Values[1] != 10*in.Values[2] {
						t.Errorf("torn pair: timer %d, base %d", in.Values[1], in.Values[2])
						return
					}
				}
			}
		}
	}()
	go func() { // churn
		defer rd.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			x, err := s.CreateInstance("churn", uint32(i))
			if err != nil {
				t.Error(err)
				return
			}
			x.MustCounter(0).Inc()
			x.Delete()
		}
	}()
	var wg sync.WaitGroup
	sc := in.MustSharded(10)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := in.MustCounter(0)
			sw := sc.Writer()
			for i := 0; i < n; i++ {
				in.Add(0, 1)
				c.Inc()
				in.AddPair(1, 10, 2, 1)
				sc.Inc()
				sw.Inc()
			}
		}()
	}
	wg.Add(1)
	go func() { // the single writer of Ref 3
		defer wg.Done()
		r := in.MustRef(3)
		for i := 0; i < n; i++ {
			r.Add(1)
		}
	}()
	wg.Wait()
	close(stop)
	rd.Wait()
	got := values(t, dir, "Web")["hot"]
	want := []uint64{2 * writers * n, 10 * writers * n, writers * n, n, 2 * writers * n}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("hot = %v, want %v", got, want)
	}
}

// TestCrossProcess builds a provider program, reads its counters from
// this process, kills it with SIGKILL and checks that its data and its
// segment are gone at the next scan.
func TestCrossProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	dir := shmtest.Dir(t)
	bin := filepath.Join(t.TempDir(), "provprog")
	build := exec.Command("go", "build", "-o", bin, "./testdata/provprog")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-dir", dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("provider said %q: %v", line, err)
	}
	f := strings.Fields(line)
	if len(f) != 2 || f[0] != "ready" {
		t.Fatalf("provider said %q", line)
	}
	path := f[1]
	if want := filepath.Join(dir, shm.UserDirName(uint32(os.Geteuid())), shm.SegmentName("{provprog}", cmd.Process.Pid)); path != want {
		t.Errorf("segment %s, want %s", path, want)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o640 {
		t.Errorf("segment mode %v, want 0640", st.Mode().Perm())
	}
	snaps, errs := shm.Scan(dir)
	if len(errs) != 0 || len(snaps) != 1 {
		t.Fatalf("%d segments, errors %v", len(snaps), errs)
	}
	if snaps[0].PID != uint32(cmd.Process.Pid) {
		t.Errorf("owner pid %d, want %d", snaps[0].PID, cmd.Process.Pid)
	}
	got := values(t, dir, "ProvProg")
	want := map[string][]uint64{"first": {12345, 14, 11}, "second": {12346, 14, 11}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("values %v, want %v", got, want)
	}

	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait() // the kernel has released its lock once it is reaped
	snaps, errs = shm.Scan(dir)
	if len(snaps) != 0 || len(errs) != 0 {
		t.Errorf("after SIGKILL: %d segments, errors %v", len(snaps), errs)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("segment of the killed provider still there: %v", err)
	}
}

func TestAggregateTotal(t *testing.T) {
	dir := shmtest.Dir(t)
	p, err := Start("{prov-agg}", opts(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	s, _ := p.AddSet(webSet(counterset.MultipleAggregate))
	for i, v := range []uint64{3, 5, 4} {
		in, _ := s.CreateInstance(fmt.Sprint("i", i), uint32(i))
		in.Set(0, v)
		in.Set(3, v*10)
	}
	snaps, _ := shm.Scan(dir)
	set := snaps[0].Sets[0]
	var rows [][]uint64
	for _, in := range set.Instances {
		rows = append(rows, in.Values)
	}
	tot := shm.Aggregate(nil, set.Set, rows)
	if tot[0] != 12 || tot[3] != 50 || tot[4] != 0 {
		t.Errorf("_Total = %v, want sum 12, max 50, undefined 0", tot)
	}
}

// TestDirFromEnvironment: a provider started without a directory
// publishes where perfc's tools look, $PERFC_SHM_DIR, so a program
// written from the README's example is seen by typeperf run in the same
// environment.
func TestDirFromEnvironment(t *testing.T) {
	dir := shmtest.Dir(t)
	t.Setenv(DirEnv, dir)
	o := opts(dir)
	o.Dir = ""
	p, err := Start("{prov-env}", o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !strings.HasPrefix(p.Path(), dir+"/") {
		t.Errorf("segment %s, want it under $%s=%s", p.Path(), DirEnv, dir)
	}
	s, err := p.AddSet(webSet(counterset.Single))
	if err != nil {
		t.Fatal(err)
	}
	s.Single().Add(3, 7)
	if got := values(t, dir, "Web"); got[""][3] != 7 {
		t.Errorf("values read from $%s: %v, want In Flight 7", DirEnv, got)
	}
}
