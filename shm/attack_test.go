package shm

// Attacks by one local user on another's counters (issue 8, section 1),
// played by two unprivileged users through internal/asuser. Every test
// drives the public API (Create with a base directory, Scan of it), so it
// exercises whatever layout the package uses; each fails on the layout
// before per-user directories (noted per test).

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/perfcounters/perfcounters/internal/asuser"
)

// attackBase returns a fresh base directory on tmpfs shared by every user:
// owned by root, mode 1777 (sticky), as /dev/shm is.
func attackBase(t *testing.T) string {
	t.Helper()
	d := shmDir(t)
	if err := os.Chmod(d, os.ModeSticky|0o777); err != nil {
		t.Fatal(err)
	}
	return d
}

// background starts a step as u and returns once it printed its READY
// line, with what followed READY; closing stdin (done) ends the step.
func background(t *testing.T, r *asuser.Runner, u asuser.User, test, step string, env ...string) (ready string, done func() string) {
	t.Helper()
	cmd := r.Command(u, test, step, env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	br := bufio.NewReader(stdout)
	for {
		line, err := br.ReadString('\n')
		out.WriteString(line)
		if rest, ok := strings.CutPrefix(line, "READY "); ok {
			ready = strings.TrimSpace(rest)
			break
		}
		if err != nil {
			cmd.Wait()
			t.Fatalf("%s step %s ended before it was ready:\n%s", u.Name, step, out.String())
		}
	}
	finished := false
	done = func() string {
		if finished {
			return out.String()
		}
		finished = true
		stdin.Close()
		rest, _ := io.ReadAll(br)
		out.Write(rest)
		if err := cmd.Wait(); err != nil {
			t.Errorf("%s step %s: %s", u.Name, step, asuser.Failed(out.String(), err))
		}
		return out.String()
	}
	t.Cleanup(func() { done() })
	return ready, done
}

// waitStdin blocks a step until its parent closes stdin.
func waitStdin() { io.Copy(io.Discard, os.Stdin) }

func tinyOpts(base string) Options {
	return Options{Dir: base, MaxSets: 1, MaxCounters: 4, MaxInstances: 4, MaxSharded: 1, HeapSize: 4096}
}

// TestAttackSquattedBase: bob creates the segment directory before anyone
// (as a directory of his, or a symbolic link to one). Alice's provider
// must refuse it, naming it and the fix, rather than publish where bob can
// delete or replace her segment; a consumer refuses it too. Before: the
// first provider's directory was used by everyone, so bob removed alice's
// segment.
func TestAttackSquattedBase(t *testing.T) {
	if step, ok := asuser.Step(); ok {
		base := os.Getenv("BASE")
		switch step {
		case "squat-dir":
			if err := os.Mkdir(base, 0o777); err != nil {
				t.Fatal(err)
			}
			os.Chmod(base, 0o777)
		case "squat-link":
			own := base + ".bob"
			if err := os.Mkdir(own, 0o777); err != nil {
				t.Fatal(err)
			}
			os.Chmod(own, 0o777)
			if err := os.Symlink(own, base); err != nil {
				t.Fatal(err)
			}
		case "provide":
			w, err := Create("{alice}", tinyOpts(base))
			if err != nil {
				fmt.Println("READY refused:", err)
				waitStdin()
				return
			}
			fmt.Println("READY published", w.Path())
			waitStdin()
			w.Close()
		case "remove":
			// Bob removes whatever alice published under the base.
			filepath.WalkDir(base+"/", func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					os.Remove(p)
				}
				return nil
			})
		}
		return
	}
	r := asuser.New(t)
	for _, squat := range []string{"squat-dir", "squat-link"} {
		t.Run(squat, func(t *testing.T) {
			base := filepath.Join(attackBase(t), "perfc")
			if out, err := r.Run(asuser.Bob, "TestAttackSquattedBase", squat, "BASE="+base); err != nil {
				t.Fatal(asuser.Failed(out, err))
			}
			ready, done := background(t, r, asuser.Alice, "TestAttackSquattedBase", "provide", "BASE="+base)
			if path, ok := strings.CutPrefix(ready, "published "); ok {
				r.Run(asuser.Bob, "TestAttackSquattedBase", "remove", "BASE="+base)
				_, err := os.Stat(path)
				t.Fatalf("alice published %s in bob's directory (still there after bob's removal: %v)", path, err == nil)
			}
			if !strings.Contains(ready, base) || !strings.Contains(ready, "not trusted") || !strings.Contains(ready, "owned by uid 61002") {
				t.Errorf("alice's provider said %q; want a refusal naming %s, its owner bob and the fix", ready, base)
			}
			done()
			// A consumer (root here) refuses it too.
			snaps, errs := Scan(base)
			if len(snaps) != 0 || len(errs) != 1 || !strings.Contains(errs[0].Error(), base) || !strings.Contains(errs[0].Error(), "not trusted") {
				t.Errorf("consumer of %s: %d segments, errors %v; want one error naming it as not trusted", base, len(snaps), errs)
			}
		})
	}
}

// TestAttackSquattedUserDir: bob takes the name of alice's segment
// directory (a directory of his, or a symbolic link to one) before alice's
// first provider runs. Alice's provider must publish anyway, where bob can
// neither remove nor replace its segment, and consumers must find alice's
// segment as alice's and report bob's directory. Before: no error named
// the squatted directory and the publisher was not known.
func TestAttackSquattedUserDir(t *testing.T) {
	if step, ok := asuser.Step(); ok {
		base := os.Getenv("BASE")
		switch step {
		case "squat-dir", "squat-link":
			name := filepath.Join(base, UserDirName(asuser.Alice.UID))
			if step == "squat-dir" {
				if err := os.Mkdir(name, 0o777); err != nil {
					t.Fatal(err)
				}
				os.Chmod(name, 0o777)
				break
			}
			own := filepath.Join(base, "bobs")
			if err := os.Mkdir(own, 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(own, name); err != nil {
				t.Fatal(err)
			}
		case "provide":
			w, err := Create("{alice}", tinyOpts(base))
			if err != nil {
				t.Fatal(err)
			}
			fmt.Println("READY", w.Path(), len(w.Warnings()))
			waitStdin()
			w.Close()
		case "attack":
			path := os.Getenv("SEG")
			if err := os.Remove(path); err == nil {
				t.Fatal("bob removed alice's segment")
			}
			if err := os.Rename(filepath.Dir(path), filepath.Join(base, "stolen")); err == nil {
				t.Fatal("bob renamed alice's directory")
			}
			if err := os.WriteFile(filepath.Join(filepath.Dir(path), "fake.perfseg"), []byte("x"), 0o644); err == nil {
				t.Fatal("bob created a file in alice's directory")
			}
		}
		return
	}
	r := asuser.New(t)
	for _, squat := range []string{"squat-dir", "squat-link"} {
		t.Run(squat, func(t *testing.T) {
			base := attackBase(t)
			if out, err := r.Run(asuser.Bob, "TestAttackSquattedUserDir", squat, "BASE="+base); err != nil {
				t.Fatal(asuser.Failed(out, err))
			}
			ready, done := background(t, r, asuser.Alice, "TestAttackSquattedUserDir", "provide", "BASE="+base)
			f := strings.Fields(ready)
			if len(f) != 2 || f[1] == "0" {
				t.Fatalf("alice's provider said %q; want its path and a warning about the squatted name", ready)
			}
			path := f[0]
			var st unix.Stat_t
			if err := unix.Lstat(filepath.Dir(path), &st); err != nil || st.Uid != asuser.Alice.UID || st.Mode&unix.S_IFMT != unix.S_IFDIR {
				t.Fatalf("alice's segment %s is in a directory not hers (uid %d, mode %o, %v)", path, st.Uid, st.Mode, err)
			}
			if out, err := r.Run(asuser.Bob, "TestAttackSquattedUserDir", "attack", "BASE="+base, "SEG="+path); err != nil {
				t.Fatal(asuser.Failed(out, err))
			}
			snaps, errs := Scan(base)
			if len(snaps) != 1 || snaps[0].Path != path || snaps[0].UID != asuser.Alice.UID {
				t.Errorf("consumer found %+v; want alice's segment %s published by uid %d", snaps, path, asuser.Alice.UID)
			}
			squatted := filepath.Join(base, UserDirName(asuser.Alice.UID))
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), squatted) || !strings.Contains(errs[0].Error(), "not trusted") {
				t.Errorf("consumer errors %v; want one naming %s as not trusted", errs, squatted)
			}
			done()
		})
	}
}

// TestAttackConsumerUnlinks: a consumer removes only what it proved to be
// a dead segment of the directory's owner. Alice keeps a file with a
// segment's suffix (not a segment, unlocked) beside her live segment, and
// bob plants one in the base: a consumer running as root must unlink
// neither. Before: any unlocked *.perfseg of 256 bytes or more was removed
// before its magic was checked.
func TestAttackConsumerUnlinks(t *testing.T) {
	if step, ok := asuser.Step(); ok {
		base := os.Getenv("BASE")
		switch step {
		case "provide":
			w, err := Create("{alice}", tinyOpts(base))
			if err != nil {
				t.Fatal(err)
			}
			notes := filepath.Join(filepath.Dir(w.Path()), "notes.perfseg")
			if err := os.WriteFile(notes, make([]byte, 4096), 0o644); err != nil {
				t.Fatal(err)
			}
			fmt.Println("READY", notes)
			waitStdin()
			w.Close()
		case "plant":
			if err := os.WriteFile(filepath.Join(base, "planted.perfseg"), make([]byte, 4096), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	r := asuser.New(t)
	base := attackBase(t)
	notes, done := background(t, r, asuser.Alice, "TestAttackConsumerUnlinks", "provide", "BASE="+base)
	if out, err := r.Run(asuser.Bob, "TestAttackConsumerUnlinks", "plant", "BASE="+base); err != nil {
		t.Fatal(asuser.Failed(out, err))
	}
	for range 2 {
		Scan(base)
	}
	for _, p := range []string{notes, filepath.Join(base, "planted.perfseg")} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s, not a segment, was removed by a consumer: %v", p, err)
		}
	}
	done()
}

// TestAttackPreclaimedNames: bob creates files at every name alice's next
// provider could use — in the base and, squatting her directory's name,
// inside a directory of his — once he knows her pid. Her provider must
// start all the same. Before: the pid-based temporary name was taken with
// O_EXCL, so she could not start.
func TestAttackPreclaimedNames(t *testing.T) {
	const guid = "{alice}"
	if step, ok := asuser.Step(); ok {
		base := os.Getenv("BASE")
		switch step {
		case "provide":
			fmt.Println("READY waiting")
			waitStdin()
			w, err := Create(guid, tinyOpts(base))
			if err != nil {
				t.Fatal(err)
			}
			fmt.Println("published", w.Path())
			w.Close()
		case "preclaim":
			pid, _ := strconv.Atoi(os.Getenv("PID"))
			squat := filepath.Join(base, UserDirName(asuser.Alice.UID))
			if err := os.Mkdir(squat, 0o777); err != nil {
				t.Fatal(err)
			}
			os.Chmod(squat, 0o777)
			for _, d := range []string{base, squat} {
				for _, n := range []string{SegmentName(guid, pid), "." + SegmentName(guid, pid) + ".tmp"} {
					if err := os.WriteFile(filepath.Join(d, n), []byte("bob"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		return
	}
	r := asuser.New(t)
	base := attackBase(t)
	cmd := r.Command(asuser.Alice, "TestAttackPreclaimedNames", "provide", "BASE="+base)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(stdout)
	var out strings.Builder
	for !strings.Contains(out.String(), "READY") {
		line, err := br.ReadString('\n')
		out.WriteString(line)
		if err != nil {
			cmd.Wait()
			t.Fatalf("alice's step: %s", out.String())
		}
	}
	if o, err := r.Run(asuser.Bob, "TestAttackPreclaimedNames", "preclaim", "BASE="+base, "PID="+strconv.Itoa(cmd.Process.Pid)); err != nil {
		stdin.Close()
		cmd.Wait()
		t.Fatal(asuser.Failed(o, err))
	}
	stdin.Close()
	rest, _ := io.ReadAll(br)
	out.Write(rest)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("alice's provider could not start at pre-claimed names: %s", asuser.Failed(out.String(), err))
	}
	if !strings.Contains(out.String(), "published ") {
		t.Errorf("alice's step said:\n%s", out.String())
	}
}

// TestAttackSparseSegment: bob publishes segments whose header claims
// tables in a sparse 1 GiB file (costing him a few pages) or overlapping
// tables. A consumer must refuse each with a reason, without allocating
// or faulting in memory by the claimed sizes. Before: the reader sized
// its per-slot tables by the claimed count and read the holes (6.3 GB RSS
// for three such files).
func TestAttackSparseSegment(t *testing.T) {
	if _, ok := asuser.Step(); ok {
		base := os.Getenv("BASE")
		var paths []string
		for _, kind := range []string{"holes", "huge", "overlap"} {
			w, err := Create("{evil-"+kind+"}", tinyOpts(base))
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			f, err := os.OpenFile(w.Path(), os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Truncate(MaxFileSize); err != nil {
				t.Fatal(err)
			}
			put := func(off int64, v uint64, size int) {
				b := make([]byte, size)
				if size == 4 {
					le.PutUint32(b, uint32(v))
				} else {
					le.PutUint64(b, v)
				}
				if _, err := f.WriteAt(b, off); err != nil {
					t.Fatal(err)
				}
			}
			put(hdrFileSize, MaxFileSize, 8)
			switch kind {
			case "holes": // within the count bounds, but all holes
				put(hdrInstOff, 512<<20, 4)
				put(hdrInstOff+4, 60000, 4)
				put(hdrInstOff+8, 60000, 4)
			case "huge": // every slot of 512 MiB
				put(hdrInstOff, 512<<20, 4)
				put(hdrInstOff+4, (512<<20)/instRecSize, 4)
				put(hdrInstOff+8, (512<<20)/instRecSize, 4)
			case "overlap": // the instance table over the heap
				var h [4]byte
				f.ReadAt(h[:], hdrHeapOff)
				put(hdrInstOff, uint64(le.Uint32(h[:])), 4)
			}
			f.Close()
			paths = append(paths, w.Path())
		}
		fmt.Println("READY", strings.Join(paths, " "))
		waitStdin()
		return
	}
	r := asuser.New(t)
	base := attackBase(t)
	ready, done := background(t, r, asuser.Bob, "TestAttackSparseSegment", "publish", "BASE="+base)
	paths := strings.Fields(ready)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	sc := NewScanner(base)
	defer sc.Close()
	for range 3 {
		snaps, errs := sc.Scan()
		if len(snaps) != 0 {
			t.Errorf("consumer read %d hostile segments", len(snaps))
		}
		for _, p := range paths {
			found := false
			for _, e := range errs {
				var se *SegmentError
				found = found || errors.As(e, &se) && se.Path == p
			}
			if !found {
				t.Errorf("segment %s not refused with a reason; errors %v", p, errs)
			}
		}
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("three scans of the hostile segments allocated %d bytes, want under 4 MiB", got)
	}
	for _, p := range paths {
		var st unix.Stat_t
		if err := unix.Stat(p, &st); err != nil {
			t.Fatal(err)
		}
		if st.Blocks*512 > 1<<20 {
			t.Errorf("%s has %d bytes allocated after the scans: the consumer faulted its holes in", p, st.Blocks*512)
		}
	}
	done()
}

// openFDs counts this process's open descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// TestAttackManySegments: bob publishes 200 tiny locked segments. A
// consumer holds no descriptor between scans, reads at most its bound of
// segments per user and reports the rest; and running out of descriptors
// is reported as such. Before: the scanner kept one descriptor per
// segment, so 20,000 of them exhausted the consumer's descriptors and
// typeperf reported built-in objects as missing.
func TestAttackManySegments(t *testing.T) {
	const n = 200
	if _, ok := asuser.Step(); ok {
		base := os.Getenv("BASE")
		for i := range n {
			w, err := Create(fmt.Sprintf("{many-%03d}", i), tinyOpts(base))
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
		}
		fmt.Println("READY ok")
		waitStdin()
		return
	}
	r := asuser.New(t)
	base := attackBase(t)
	_, done := background(t, r, asuser.Bob, "TestAttackManySegments", "publish", "BASE="+base)
	sc := NewScanner(base)
	defer sc.Close()
	fds := openFDs(t)
	snaps, errs := sc.Scan()
	if got := openFDs(t); got != fds {
		t.Errorf("%d descriptors open after a scan, %d before: the scanner keeps descriptors", got, fds)
	}
	if len(snaps) != maxSegsPerUser {
		t.Errorf("read %d of bob's %d segments, want the bound %d", len(snaps), n, maxSegsPerUser)
	}
	if !slices.ContainsFunc(errs, func(e error) bool {
		return strings.Contains(e.Error(), fmt.Sprintf("%d segments left out", n-maxSegsPerUser))
	}) {
		t.Errorf("errors %v; want the %d segments beyond the bound reported", errs, n-maxSegsPerUser)
	}

	// Out of descriptors: the scan says so, as a resource error.
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	// Fill every hole below the highest open descriptor, then allow two
	// more: the scan opens the base and a user's directory, and runs out
	// when it lists that directory.
	top := 0
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil {
			top = max(top, n)
		}
	}
	var fill []int
	for {
		fd, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		if fd > top {
			unix.Close(fd)
			break
		}
		fill = append(fill, fd)
	}
	low := lim
	low.Cur = uint64(top + 3)
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	_, errs = sc.Scan()
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	for _, fd := range fill {
		unix.Close(fd)
	}
	if !slices.ContainsFunc(errs, IsResourceError) {
		t.Errorf("scan out of descriptors: errors %v, want one for which IsResourceError holds", errs)
	}
	done()
}

// TestAttackCrowdedDirs: bob creates hundreds of directory names that
// claim other users (alice's own name, fallback names that sort before any
// random one, and 300 other uids), hoping to push alice's real directory
// past the consumer's bounds. Only directories owned by the uid in their
// name count; the rest are reported, a bounded number by name.
func TestAttackCrowdedDirs(t *testing.T) {
	if step, ok := asuser.Step(); ok {
		base := os.Getenv("BASE")
		switch step {
		case "crowd":
			names := []string{UserDirName(asuser.Alice.UID)}
			for i := range 20 {
				names = append(names, UserDirName(asuser.Alice.UID)+"-"+strings.Repeat("0", i+1))
			}
			for uid := range 300 {
				names = append(names, UserDirName(uint32(70000+uid)))
			}
			for _, n := range names {
				if err := os.Mkdir(filepath.Join(base, n), 0o755); err != nil {
					t.Fatal(err)
				}
			}
		case "provide":
			w, err := Create("{alice}", tinyOpts(base))
			if err != nil {
				t.Fatal(err)
			}
			fmt.Println("READY", w.Path())
			waitStdin()
			w.Close()
		}
		return
	}
	r := asuser.New(t)
	base := attackBase(t)
	if out, err := r.Run(asuser.Bob, "TestAttackCrowdedDirs", "crowd", "BASE="+base); err != nil {
		t.Fatal(asuser.Failed(out, err))
	}
	path, done := background(t, r, asuser.Alice, "TestAttackCrowdedDirs", "provide", "BASE="+base)
	snaps, errs := Scan(base)
	if len(snaps) != 1 || snaps[0].Path != path || snaps[0].UID != asuser.Alice.UID {
		t.Errorf("consumer found %d segments (%v); want alice's %s", len(snaps), snaps, path)
	}
	if len(errs) == 0 || len(errs) > maxReported+3 {
		t.Errorf("%d errors; want bob's directories reported within the bound of %d names:\n%v", len(errs), maxReported, errs)
	}
	done()
}

// TestAttackLockBeforeWriter: bob opens the temporary file of alice's
// next segment (its name follows from her pid) the moment it exists and
// takes a shared lock of it.
// Every one of alice's providers must start all the same: a reader never
// blocks a writer (issue 43 item 4; before, the file was readable before
// its writer locked it, and about one start in three failed with "lock
// segment: resource temporarily unavailable").
func TestAttackLockBeforeWriter(t *testing.T) {
	const starts = 30
	if step, ok := asuser.Step(); ok {
		base := os.Getenv("BASE")
		switch step {
		case "provide":
			opts := tinyOpts(base)
			opts.Mode = 0o644 // readable by every user, as a provider may choose
			first, err := Create("{alice}", opts)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Println("READY", first.Path())
			waitStdin()
			failed := 0
			for range starts {
				w, err := Create("{alice}", opts)
				if err != nil {
					failed++
					fmt.Println("start failed:", err)
					continue
				}
				w.Close()
			}
			first.Close()
			fmt.Println("FAILED", failed)
		case "lock":
			// The temporary name of alice's next segment is known from
			// her pid: open it the moment it exists and lock it shared.
			seg := os.Getenv("SEG")
			tmp := filepath.Join(filepath.Dir(seg), "."+filepath.Base(seg)+".tmp")
			go func() {
				held := -1
				for {
					fd, err := unix.Open(tmp, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
					if err != nil {
						continue
					}
					unix.Flock(fd, unix.LOCK_SH|unix.LOCK_NB)
					if held >= 0 {
						unix.Close(held)
					}
					held = fd
				}
			}()
			fmt.Println("READY locking")
			waitStdin()
		}
		return
	}
	r := asuser.New(t)
	base := attackBase(t)
	seg, provided := background(t, r, asuser.Alice, "TestAttackLockBeforeWriter", "provide", "BASE="+base)
	_, locked := background(t, r, asuser.Bob, "TestAttackLockBeforeWriter", "lock", "SEG="+seg)
	out := provided()
	locked()
	if !strings.Contains(out, "FAILED 0\n") {
		t.Errorf("alice's providers did not all start while bob locked their files:\n%s", out)
	}
}
