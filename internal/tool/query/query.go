// Package query implements `perfc query`: it asks the engine for one
// registry value name ("Global", "Costly", "Counter", "Help", "238 230", ...)
// and writes the raw answer, a PERF_DATA_BLOCK or a MULTI_SZ title list.
package query

import (
	"context"
	"fmt"
	"io"

	"github.com/perfcounters/perfcounters/engine"
)

// Run writes the answer to value to w, and reports dropped objects and
// objects with partial data to diag (one line each). Neither is an error:
// the block still holds everything else, as on Windows.
func Run(ctx context.Context, e *engine.Engine, value string, w, diag io.Writer) error {
	r, err := e.QueryValue(ctx, value)
	if err != nil {
		return err
	}
	for _, p := range r.Problems {
		fmt.Fprintf(diag, "perfc query: warning: %v\n", p)
	}
	for _, p := range r.Partial {
		fmt.Fprintf(diag, "perfc query: note: %v\n", p)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(diag, "perfc query: note: %s\n", n)
	}
	_, err = w.Write(r.Block)
	return err
}
