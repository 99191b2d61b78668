package bench

import (
	"io"
	"iter"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog/binlog"
)

// createBinlog creates our binary log at path for samples of src, as
// `perfc typeperf COUNTERS -f BIN -o path` does.
func createBinlog(path string, src pdh.Source, counters []string, compress bool) (sampleLog, error) {
	return binlog.Create(path, binlog.Options{Host: host.ComputerName(), Location: time.Local,
		Titles: src.Titles(), Counters: counters, Compress: compress})
}

// writeBinlog writes samples to a new binary log at path made by
// createBinlog.
func writeBinlog(b *testing.B, path string, src pdh.Source, counters []string, compress bool, samples iter.Seq[*pdh.Sample]) {
	w, err := createBinlog(path, src, counters, compress)
	if err != nil {
		b.Fatal(err)
	}
	for s := range samples {
		if err := w.WriteSample(s); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

// liveSamples yields n samples of want from src, each taken when asked for.
func liveSamples(b *testing.B, src pdh.Source, want []uint32, n int) iter.Seq[*pdh.Sample] {
	return func(yield func(*pdh.Sample) bool) {
		for range n {
			s, err := src.Sample(b.Context(), want)
			if err != nil {
				b.Fatal(err)
			}
			if !yield(s) {
				return
			}
		}
	}
}

// openBinlog opens our binary log as a source.
func openBinlog(path string) (pdh.Source, io.Closer, error) {
	l, err := binlog.Open(path)
	if err != nil {
		return nil, nil, err
	}
	return l, l, nil
}
