// Package query implements `perfc query`: it asks the engine for one
// registry value name ("Global", "Costly", "Counter", "Help", "238 230", ...)
// and writes the raw answer, a PERF_DATA_BLOCK or a MULTI_SZ title list.
package query

import (
	"context"
	"errors"
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
		fmt.Fprintf(diag, "perfc query: note: %s\n", partialNote(p))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(diag, "perfc query: note: %s\n", n)
	}
	_, err = w.Write(r.Block)
	return err
}

// partialNote is the note of an object delivered with placeholders. A
// collect function that says why (a file it could not read) gives the
// reason; one that gives none marked values its instances do not have
// (a control group without a memory limit, a kernel thread without an
// io file), which is no failure: the note says how many instances carry
// placeholders, so that a reader of the block knows its zeros there are
// not values.
func partialNote(p engine.Problem) string {
	var pe *engine.PartialError
	if !errors.As(p.Err, &pe) || len(pe.Reasons) > 0 {
		return p.Error()
	}
	instances := map[int]bool{}
	for _, m := range p.Missing {
		instances[m.Instance] = true
	}
	what := fmt.Sprintf("%d instances hold placeholders for values they do not have", len(instances))
	switch {
	case instances[-1]:
		what = "it holds placeholders for values it does not have"
	case len(instances) == 1:
		what = "1 instance holds placeholders for values it does not have"
	}
	p.Err = fmt.Errorf("%s (nothing failed)", what)
	return p.Error()
}
