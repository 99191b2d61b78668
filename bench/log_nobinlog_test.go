//go:build !binlog

package bench

import (
	"io"

	"github.com/perfcounters/perfcounters/pdh"
)

// createBinlog: without the binary log (package perflog/binlog, branch
// wip-binlog), its benchmarks are skipped; see log_binlog_test.go.
func createBinlog(string, pdh.Source, []string, bool) (sampleLog, error) { return nil, errNoBinlog }

// openBinlog: see createBinlog.
func openBinlog(string) (pdh.Source, io.Closer, error) { return nil, nil, errNoBinlog }
