package bench

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfcounters/perfcounters/pdh"
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

// savedLogName is the file of workload wl (compressed or plain) in the
// folder of saved logs.
func savedLogName(wl, kind string) string { return wl + "-" + kind + ".plog" }

// BenchmarkRelogSave records the inputs of BenchmarkRelogBIN (20 live
// samples of each workload taken back to back, plain and compressed) into
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
			w, err := createBinlog(filepath.Join(dir, savedLogName(wl.name, kind)), src, wl.counters, compress)
			if err != nil {
				b.Fatal(err)
			}
			for range 20 {
				s, err := src.Sample(b.Context(), want)
				if err != nil {
					b.Fatal(err)
				}
				if err := w.WriteSample(s); err != nil {
					b.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
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
