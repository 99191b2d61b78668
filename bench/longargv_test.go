package bench

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
	"github.com/perfcounters/perfcounters/pla"
)

// judgedTwice reports whether an alert's activity holds procs instances,
// each firing after two samples or more past its threshold.
func judgedTwice(act *pla.Activity, procs int) bool {
	n := 0
	for _, a := range act.Alerts {
		if a.Firing && a.Fired >= 2 && len(a.Counter) <= 8<<10 {
			n++
		}
	}
	return n == procs
}

// BenchmarkLongArgv0Logs is issue 43's "what another local user
// controls" for logs: PERFC_BENCH_LONGARGV_PROCS (default 140) processes
// whose argv[0] is 128 KiB (the kernel's limit for one argument), each
// started through a link whose name the kernel cuts to a comm of 15
// bytes (so the collector looks at argv[0] for the name), against the
// same number of processes whose argv[0] is the link's path. For each,
// typeperf's engine records 4 samples of \Process(*)\* as a PDH-CSV log
// and, from the same samples, our binary log (compressed, as
// `perfc typeperf -f BIN` writes it). Reported: both logs' sizes and
// their longest line (the CSV header) in each case, and long/short;
// an alert over the same processes (\Process(longargv0-procn*)\ID
// Process>0) must judge every one of them, firing at two samples or more;
// each ratio must stay under 2 (before issue 43 the CSV header of the
// long case passed relog's line limit and the binary log grew about
// 36 MB a sample). One iteration takes a few seconds: -benchtime=1x
// (PERFC_BENCH_SLEEPERS=0 PERFC_BENCH_THREAD_CHILDREN=0 leave out the
// shared workload, which this benchmark does not need).
func BenchmarkLongArgv0Logs(b *testing.B) {
	procs := envInt("PERFC_BENCH_LONGARGV_PROCS", 140)
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		b.Skip("no sleep:", err)
	}
	dir := b.TempDir()
	link := filepath.Join(dir, "longargv0-procname") // comm: "longargv0-procn"
	if err := os.Symlink(sleep, link); err != nil {
		b.Fatal(err)
	}
	long := link + strings.Repeat("x", 128<<10-len(link)-1) // base name starts with comm; 128 KiB with its NUL
	counters := []string{`\Process(*)\*`}
	const samples = 4
	type result struct{ csv, bin, line int64 }
	record := func(name, argv0 string) result {
		var cmds []*exec.Cmd
		defer func() {
			for _, c := range cmds {
				c.Process.Kill()
				c.Wait()
			}
		}()
		for range procs {
			c := &exec.Cmd{Path: link, Args: []string{argv0, "3600"}, SysProcAttr: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}}
			if err := c.Start(); err != nil {
				b.Fatalf("%s: starting a process: %v", name, err)
			}
			cmds = append(cmds, c)
		}
		h, err := host.New(host.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer h.Close()
		rec := &recordingSource{Source: h.Source(), keep: true}
		csvPath := filepath.Join(dir, name+".csv")
		if err := typeperfCSV(b.Context(), rec, csvPath, counters, 250*time.Millisecond, samples); err != nil {
			b.Fatalf("%s: typeperf: %v", name, err)
		}
		binPath := filepath.Join(dir, name+".plog")
		writeBinlog(b, binPath, h.Source(), counters, true, slices.Values(rec.samples))
		text, err := os.ReadFile(csvPath)
		if err != nil {
			b.Fatal(err)
		}
		var line int64
		for l := range bytes.SplitSeq(text, []byte("\n")) {
			line = max(line, int64(len(l)))
		}
		// An alert over the same processes judges every one of them,
		// each sample, whatever their names' length.
		alert := collectorset.NewAlert("long-" + name)
		alert.Alert.SampleInterval = 1
		alert.Alert.Thresholds = []string{`\Process(longargv0-procn*)\ID Process>0`}
		stateDir := filepath.Join(dir, "state-"+name)
		svc := pla.NewService(b.Context(), pla.Options{MB: 16 << 10,
			NewSource: func() (pdh.Source, io.Closer, error) { return h.Source(), io.NopCloser(nil), nil }})
		if err := svc.Start(stateDir, alert, time.Time{}); err != nil {
			b.Fatalf("%s: alert: %v", name, err)
		}
		deadline := time.Now().Add(time.Minute)
		var act *pla.Activity
		for time.Now().Before(deadline) {
			time.Sleep(250 * time.Millisecond) // the alert samples once a second: poll its status file
			if act, err = pla.ReadActivity(stateDir, alert.Name); err == nil && act != nil && judgedTwice(act, procs) {
				break
			}
		}
		svc.StopAll("benchmark done")
		svc.Wait()
		if act == nil || !judgedTwice(act, procs) {
			b.Errorf("%s: the alert did not judge each of the %d processes twice within a minute: %+v", name, procs, act)
		}
		return result{csv: fileSize(b, csvPath), bin: fileSize(b, binPath), line: line}
	}
	var short, lng result
	for b.Loop() {
		short = record("short", link)
		lng = record("long", long)
	}
	b.ReportMetric(float64(short.csv), "short-csv-B")
	b.ReportMetric(float64(lng.csv), "long-csv-B")
	b.ReportMetric(float64(short.bin), "short-bin-B")
	b.ReportMetric(float64(lng.bin), "long-bin-B")
	b.ReportMetric(float64(lng.line), "long-csv-line-B")
	csvRatio, binRatio := float64(lng.csv)/float64(short.csv), float64(lng.bin)/float64(short.bin)
	b.ReportMetric(csvRatio, "csv-long/short")
	b.ReportMetric(binRatio, "bin-long/short")
	if csvRatio > 2 || binRatio > 2 {
		b.Errorf("with %d processes of a 128 KiB argv[0] the logs are %.2fx (CSV) and %.2fx (binary) those of the same processes with a short one, more than 2x", procs, csvRatio, binRatio)
	}
	if lng.line > pdhcsv.MaxLine {
		b.Errorf("the CSV's longest line is %d bytes, over relog's limit of %d", lng.line, pdhcsv.MaxLine)
	}
}
