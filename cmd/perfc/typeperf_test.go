package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
)

// procStat is one read of the "cpu" line of /proc/stat.
type procStat struct {
	at          time.Time
	idle, total uint64 // idle+iowait, and the sum of all fields (jiffies)
	memAvailMB  uint64 // MemAvailable / 1024 from /proc/meminfo, read just after
}

func readProcStat() (procStat, error) {
	s := procStat{}
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return s, err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line)
	if len(f) < 6 || f[0] != "cpu" {
		return s, os.ErrInvalid
	}
	for i, x := range f[1:] {
		n, err := strconv.ParseUint(x, 10, 64)
		if err != nil {
			return s, err
		}
		if i == 7 || i == 8 { // guest and guest_nice are already in user and nice
			continue
		}
		s.total += n
		if i == 3 || i == 4 { // idle, iowait
			s.idle += n
		}
	}
	mi, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return s, err
	}
	for _, l := range strings.Split(string(mi), "\n") {
		if rest, ok := strings.CutPrefix(l, "MemAvailable:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return s, err
			}
			s.memAvailMB = kb / 1024
		}
	}
	return s, nil
}

// TestTypeperfEndToEnd builds perfc and runs
//
//	perfc typeperf "\Processor(_Total)\% Processor Time" "\Memory\Available MBytes" -si 1 -sc 3
//
// while one goroutine keeps a CPU busy and another reads /proc/stat and
// /proc/meminfo every 2 ms. Each row's value must lie within the bounds
// those reads give for the row's interval.
//
// Tolerance: a row's interval runs from the previous sample's time to its
// own (the times printed in the rows, which are the engine's collection
// times). Around each end we take the last read at least `margin` before
// and the first read at least `margin` after; margin covers the gap
// between the engine's timestamp and its own read of /proc/stat, and the
// millisecond truncation of the printed time. Then busy jiffies over the
// inner span <= true busy <= busy over the outer span, and likewise for the
// total, so busy% lies in [innerBusy/outerTotal, outerBusy/innerTotal];
// one jiffy per CPU at each end (reads are quantised) and 1 point for
// the engine dividing by wall time rather than by jiffies are added. Memory
// must lie between the smallest and largest MemAvailable read within
// margin of the sample time.
func TestTypeperfEndToEnd(t *testing.T) {
	const margin = 40 * time.Millisecond
	if _, err := readProcStat(); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	bin := buildPerfc(t)

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the load: one CPU spinning until the test ends
		defer wg.Done()
		for ctx.Err() == nil {
		}
	}()
	var mu sync.Mutex
	var reads []procStat
	wg.Add(1)
	go func() {
		defer wg.Done()
		tk := time.NewTicker(2 * time.Millisecond)
		defer tk.Stop()
		for {
			s, err := readProcStat()
			if err == nil {
				s.at = time.Now()
				mu.Lock()
				reads = append(reads, s)
				mu.Unlock()
			}
			select {
			case <-ctx.Done():
				return
			case <-tk.C:
			}
		}
	}()

	// The first interval starts at the priming collection, right after the
	// binary starts: /proc must already have been read well before it, or
	// nothing brackets the interval's start.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		mu.Lock()
		ready := len(reads) > 0 && time.Since(reads[0].at) > 3*margin
		mu.Unlock()
		if ready {
			break
		}
		runtime.Gosched()
	}

	cmd := exec.CommandContext(ctx, bin, "typeperf", `\Processor(_Total)\% Processor Time`, `\Memory\Available MBytes`, "-si", "1", "-sc", "3")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("perfc typeperf: %v\n%s", err, stderr.String())
	}
	// Let the reader pass the last sample's margin before stopping it.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		mu.Lock()
		done := len(reads) > 0 && time.Since(reads[len(reads)-1].at) < 0 || len(reads) > 0 && reads[len(reads)-1].at.After(lastRowTime(out.String()).Add(2*margin))
		mu.Unlock()
		if done {
			break
		}
		runtime.Gosched()
	}
	cancel()
	wg.Wait()

	lines := strings.Split(out.String(), "\n")
	if len(lines) != 8 || lines[0] != "" || lines[5] != "Exiting, please wait..." || lines[6] != "The command completed successfully." {
		t.Fatalf("output layout:\n%s", out.String())
	}
	if !strings.HasPrefix(lines[1], `"(PDH-CSV 4.0)","\\`) || !strings.HasSuffix(lines[1], `\Processor(_Total)\% Processor Time","\\`+hostUpper(t)+`\Memory\Available MBytes"`) {
		t.Errorf("header %s", lines[1])
	}
	lg, err := pdhcsv.Read(strings.NewReader(out.String()), time.Local)
	if err != nil {
		t.Fatal(err)
	}
	if len(lg.Rows) != 3 {
		t.Fatalf("%d rows", len(lg.Rows))
	}
	ncpu := uint64(runtime.NumCPU())
	before := func(at time.Time) (procStat, bool) {
		var r procStat
		ok := false
		for _, s := range reads {
			if s.at.After(at.Add(-margin)) {
				break
			}
			r, ok = s, true
		}
		return r, ok
	}
	after := func(at time.Time) (procStat, bool) {
		for _, s := range reads {
			if s.at.After(at.Add(margin)) {
				return s, true
			}
		}
		return procStat{}, false
	}
	// The interval before the first row starts one interval earlier: the
	// priming collection.
	prev := lg.Rows[0].Time.Add(-time.Second)
	for i, r := range lg.Rows {
		for _, v := range r.Values {
			if !v.OK {
				t.Fatalf("row %d has a missing value", i)
			}
		}
		ob, ok1 := before(prev)
		ib, ok2 := after(prev)
		ie, ok3 := before(r.Time)
		oe, ok4 := after(r.Time)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			t.Fatalf("row %d (%v): /proc reads do not bracket the interval", i, r.Time)
		}
		outerTotal, innerTotal := float64(oe.total-ob.total), float64(ie.total-ib.total)
		outerBusy := outerTotal - float64(oe.idle-ob.idle)
		innerBusy := innerTotal - float64(ie.idle-ib.idle)
		slack := 100*float64(2*ncpu)/innerTotal + 1
		lo, hi := 100*innerBusy/outerTotal-slack, 100*outerBusy/innerTotal+slack
		got := r.Values[0].Number
		t.Logf("row %d: %% Processor Time %.3f, /proc bounds [%.3f, %.3f]", i, got, lo, hi)
		if got < lo || got > hi {
			t.Errorf("row %d: %% Processor Time %.6f outside [%.3f, %.3f] from /proc/stat", i, got, lo, hi)
		}
		// Available MBytes was read between two reads of /proc/meminfo
		// that bracket the row's time, however far apart a loaded machine
		// made them: the value lies within what the reads between them saw.
		var minMB, maxMB uint64 = ^uint64(0), 0
		for _, s := range reads {
			if !s.at.Before(ie.at) && !s.at.After(oe.at) {
				minMB, maxMB = min(minMB, s.memAvailMB), max(maxMB, s.memAvailMB)
			}
		}
		if mb := r.Values[1].Number; mb < float64(minMB) || mb > float64(maxMB) {
			t.Errorf("row %d: Available MBytes %v outside [%d, %d] from /proc/meminfo", i, mb, minMB, maxMB)
		}
		prev = r.Time
	}
}

// hostUpper is the computer name typeperf prints: the host name's first
// label, upper case, as Windows prints its NetBIOS computer name.
func hostUpper(t *testing.T) string {
	h, err := os.Hostname()
	if err != nil {
		t.Skip(err)
	}
	h, _, _ = strings.Cut(h, ".")
	return strings.ToUpper(h)
}

// lastRowTime is the time of the last row of typeperf console output.
func lastRowTime(out string) time.Time {
	lg, err := pdhcsv.Read(strings.NewReader(out), time.Local)
	if err != nil || len(lg.Rows) == 0 {
		return time.Now()
	}
	return lg.Rows[len(lg.Rows)-1].Time
}

func TestTypeperfCommand(t *testing.T) {
	if _, err := readProcStat(); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "settings.txt")
	if err := os.WriteFile(cfg, []byte("[c]\n\\Memory\\Available MBytes\n[sc]\n1\n[f]\ntsv\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cf := filepath.Join(dir, "counters.txt")
	if err := os.WriteFile(cf, []byte("# comment\r\n\\Nope\\x\r\n\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  string // substring of stdout
		err  string // substring of stderr
	}{
		{"no counter", []string{"typeperf"}, 2, "", "no counter given"},
		{"bin without -o", []string{"typeperf", `\Memory\Available MBytes`, "-f", "BIN"}, 2, "", "name it with -o"},
		{"bad format", []string{"typeperf", `\Memory\Available MBytes`, "-f", "xls"}, 2, "", "unknown"},
		{"bad interval", []string{"typeperf", `\Memory\Available MBytes`, "-si", "0"}, 2, "", "-si"},
		{"nothing valid", []string{"typeperf", "-cf", cf, "-sc", "1"}, 3, "", "no valid counters"},
		{"config", []string{"typeperf", "-config", cfg, "-si", "1"}, 0, "\"(PDH-TSV 4.0)\"\t\"\\\\", ""},
		{"list one object", []string{"typeperf", "-q", "Memory"}, 0, `\Memory\Available MBytes` + "\n", ""},
		{"list unknown", []string{"typeperf", "-qx", "Nope"}, 3, "", "Nope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := runPerfc(t, tc.args...)
			if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errs, tc.err) {
				t.Errorf("exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errs)
			}
		})
	}
}
