package collect_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/perfcounters/perfcounters/collect"
	"github.com/perfcounters/perfcounters/perfdata"
)

// counter is a toy V1 collect procedure serving object 1500. A real one
// writes PERF_OBJECT_TYPE structures into buf; this one writes text, which
// is enough to show the conversation.
type counter struct{ n int }

func (c *counter) Open(context.Context) error { return nil }
func (c *counter) Close() error               { return nil }

func (c *counter) Collect(_ context.Context, valueName string, buf []byte) (int, uint32, error) {
	if !collect.Supports(valueName, []uint32{1500}) {
		return 0, 0, nil // not asked for: no data, not an error
	}
	out := fmt.Sprintf("sample %d", c.n+1)
	if len(buf) < len(out) {
		return 0, 0, perfdata.ErrMoreData // buf untouched; the engine offers a larger one
	}
	c.n++
	return copy(buf, out), 1, nil
}

// A provider's main function serves its procedure on stdin and stdout.
// Here the engine's requests come from a string instead, to show the
// answers: MORE for a buffer too small, no data for a query that does not
// name object 1500.
func ExampleServe() {
	requests := "HELLO 1\nOPEN\nCOLLECT 4 Global\nCOLLECT 64 Global\nCOLLECT 64 238\nCLOSE\n"
	if err := collect.Serve(strings.NewReader(requests), os.Stdout, &counter{}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// HELLO 1
	// OK
	// MORE
	// OK 8 1
	// sample 1OK 0 0
	// OK
}

// Supports answers the question every provider asks first: does this
// registry value name ask for my objects?
func ExampleSupports() {
	mine := []uint32{1500, 1502}
	for _, name := range []string{"Global", "Costly", "238 1502", "238 4", "Foreign host 1500"} {
		fmt.Printf("%-18q %v\n", name, collect.Supports(name, mine))
	}
	// Output:
	// "Global"           true
	// "Costly"           false
	// "238 1502"         true
	// "238 4"            false
	// "Foreign host 1500" false
}
