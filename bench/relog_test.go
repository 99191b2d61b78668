package bench

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/internal/tool/relog"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog/blg"
	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
)

// relogInputsEnv names a folder of saved binary logs for
// BenchmarkRelogSaved: BenchmarkRelogSave writes them there, once, and
// two test binaries (the code before and after a change) then convert the
// same bytes, which BenchmarkRelogBIN, recording live samples each run,
// cannot promise.
const relogInputsEnv = "PERFC_RELOG_INPUTS"

// relogInputs is the folder of saved logs, or a skip when none is named.
func relogInputs(b *testing.B) string {
	dir := os.Getenv(relogInputsEnv)
	if dir == "" {
		b.Skip(relogInputsEnv + " names no folder of saved binary logs")
	}
	return dir
}

// relogSamplesEnv sets how many samples BenchmarkRelogSave records of
// each workload (20 when unset): a log of hours has thousands, and a
// relog's fixed costs (opening the file, learning its columns) weigh on
// a log of 20 as they do not on a real one.
const relogSamplesEnv = "PERFC_RELOG_SAMPLES"

// savedSamples is the number of samples BenchmarkRelogSave records.
func savedSamples(b *testing.B) int {
	v := os.Getenv(relogSamplesEnv)
	if v == "" {
		return 20
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 2 {
		b.Fatalf("%s=%q: want a whole number of samples, 2 or more", relogSamplesEnv, v)
	}
	return n
}

// savedLogName is the file of workload wl (compressed or plain) in the
// folder of saved logs.
func savedLogName(wl, kind string) string { return wl + "-" + kind + ".plog" }

// BenchmarkRelogSave records the inputs of BenchmarkRelogBIN (20 live
// samples, or $PERFC_RELOG_SAMPLES, of each workload taken back to back, plain and compressed) into
// the folder $PERFC_RELOG_INPUTS. It measures nothing.
func BenchmarkRelogSave(b *testing.B) {
	dir := relogInputs(b)
	for _, wl := range logWorkloads {
		for _, compress := range []bool{false, true} {
			kind := "bin"
			if compress {
				kind = "binz"
			}
			_, src, want := liveQuery(b, wl.counters)
			writeBinlog(b, filepath.Join(dir, savedLogName(wl.name, kind)), src, wl.counters, compress, liveSamples(b, src, want, savedSamples(b)))
		}
	}
	b.Skip("saved in " + dir)
}

// BenchmarkRelogSaved is BenchmarkRelogBIN over the logs BenchmarkRelogSave
// wrote into $PERFC_RELOG_INPUTS.
func BenchmarkRelogSaved(b *testing.B) {
	dir := relogInputs(b)
	for _, wl := range logWorkloads {
		for _, kind := range []string{"bin", "binz"} {
			path := filepath.Join(dir, savedLogName(wl.name, kind))
			if _, err := os.Stat(path); err != nil {
				b.Fatal(err)
			}
			b.Run(wl.name+"/"+kind, func(b *testing.B) {
				benchRelog(b, func() (pdh.Source, io.Closer, error) { return openBinlog(path) })
			})
		}
	}
}

// BenchmarkRelogSavedConsole is BenchmarkRelogSaved's "run" with the
// console report `perfc relog FILE -f CSV -o x.csv` prints (Input,
// progress, Output) written to io.Discard: relog then learns the input's
// range before it writes.
func BenchmarkRelogSavedConsole(b *testing.B) {
	dir := relogInputs(b)
	for _, wl := range logWorkloads {
		path := filepath.Join(dir, savedLogName(wl.name, "binz"))
		b.Run(wl.name+"/binz", func(b *testing.B) {
			benchRelogConsole(b, func() (pdh.Source, io.Closer, error) { return openBinlog(path) })
		})
	}
	b.Run("SampleLog", func(b *testing.B) {
		benchRelogConsole(b, func() (pdh.Source, io.Closer, error) {
			l, err := blg.Open(filepath.Join("..", "perflog", "blg", "testdata", "SampleLog.blg"))
			return l, l, err
		})
	})
}

// benchRelogConsole opens the log every iteration and converts it with
// the console report, reporting values/s and values/cpu-s as benchRelog.
func benchRelogConsole(b *testing.B, open func() (pdh.Source, io.Closer, error)) {
	values := relogValues(b, open)
	b.ReportAllocs()
	start := cpuNow()
	n := 0
	for b.Loop() {
		src, c, err := open()
		if err != nil {
			b.Fatal(err)
		}
		opts := relog.Options{Format: pdhcsv.CSV, Location: time.UTC, Console: io.Discard, Files: []string{"in"}, OutFile: "out.csv"}
		if _, _, err := relog.Run(b.Context(), src, opts, io.Discard); err != nil {
			b.Fatal(err)
		}
		c.Close()
		n++
	}
	cpu := float64(cpuNow()-start) / 1e9
	b.ReportMetric(cpu*1e9/float64(n), "cpu-ns/op")
	b.ReportMetric(float64(values), "values/op")
	b.ReportMetric(float64(values)*float64(n)/b.Elapsed().Seconds(), "values/s")
	b.ReportMetric(float64(values)*float64(n)/cpu, "values/cpu-s")
}

// BenchmarkRelogCounterList is `relog LOG.csv -cf LIST -f csv` with a
// list of 2,000 counters of which 1,800 the log does not have (issue 44:
// each absent path was checked against every sample, 26 s for a
// 600-row log against 1.7 s without -cf), over logs of 75 to 600
// samples: its ns/sample stays flat as the log grows.
func BenchmarkRelogCounterList(b *testing.B) {
	const present, absent = 200, 1800
	var list []string
	var header strings.Builder
	header.WriteString(`"(PDH-CSV 4.0) (Coordinated Universal Time)(0)"`)
	for i := range present {
		p := fmt.Sprintf(`\\HOST\Widget(w%d)\Frames/sec`, i)
		header.WriteString(`,"` + p + `"`)
		list = append(list, p)
	}
	for i := range absent {
		list = append(list, fmt.Sprintf(`\\HOST\Gadget(g%d)\Frames/sec`, i))
	}
	for _, rows := range []int{75, 150, 300, 600} {
		path := filepath.Join(b.TempDir(), "log.csv")
		var sb strings.Builder
		sb.WriteString(header.String() + "\r\n")
		t0 := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
		for r := range rows {
			sb.WriteString(`"` + t0.Add(time.Duration(r)*15*time.Second).Format("01/02/2006 15:04:05.000") + `"`)
			for c := range present {
				sb.WriteString(`,"` + strconv.Itoa(r*c%997) + `"`)
			}
			sb.WriteString("\r\n")
		}
		if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("samples=%d", rows), func(b *testing.B) {
			for b.Loop() {
				l, err := pdhcsv.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				if _, _, err := relog.Run(b.Context(), l, relog.Options{Counters: list, Format: pdhcsv.CSV, Location: time.UTC}, io.Discard); err != nil {
					b.Fatal(err)
				}
				l.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/sample")
		})
	}
}
