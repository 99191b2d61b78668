package bench

import (
	"io"
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

// openBinlog opens our binary log as a source.
func openBinlog(path string) (pdh.Source, io.Closer, error) {
	l, err := binlog.Open(path)
	if err != nil {
		return nil, nil, err
	}
	return l, l, nil
}
