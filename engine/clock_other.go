//go:build !unix

package engine

import "time"

// processStart anchors the monotonic reading where no host-wide monotonic
// clock is exposed; values are comparable within one process only.
var processStart = time.Now()

func monotonicNanos() int64 { return int64(time.Since(processStart)) + 1 }
