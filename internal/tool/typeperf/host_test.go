package typeperf_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/tool/typeperf"
	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
	"github.com/perfcounters/perfcounters/state"
)

// failingProvider is a V1 provider (collect/PROTOCOL.md) whose every
// collection fails with its own reason.
const failingProvider = `while IFS= read -r line; do
	case $line in
	HELLO*) echo "HELLO 1" ;;
	OPEN) echo OK ;;
	CLOSE) echo OK; exit 0 ;;
	COLLECT*) echo "ERR disk controller not answering" ;;
	esac
done
`

// TestV1FailureReachesTypeperf runs typeperf on the live host with a
// registered V1 provider that fails: the user is told that provider's
// reason, not that its object does not exist, and the host's own counters
// still arrive.
func TestV1FailureReachesTypeperf(t *testing.T) {
	sh, err := filepath.EvalSymlinks("/bin/sh")
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "provider.sh")
	if err := os.WriteFile(script, []byte(failingProvider), 0o644); err != nil {
		t.Fatal(err)
	}
	stateDir := filepath.Join(dir, "state")
	if err := os.Mkdir(stateDir, 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := state.Titles(stateDir, host.BuiltinTitles)
	if err != nil {
		t.Fatal(err)
	}
	obj := db.LastCounter() + 2
	reg := state.V1Registration{Name: "flaky", Exec: sh, Args: []string{script}, Objects: []uint32{obj},
		Names:     []state.V1Name{{Index: obj, Name: "Flaky Widgets", Help: "Widgets."}, {Index: obj + 2, Name: "Widgets Made", Help: "How many."}},
		TimeoutMS: 5000}
	if err := state.RegisterV1(stateDir, reg, state.RegisterOptions{Builtin: host.BuiltinTitles}); err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Options{StateDir: stateDir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var out, errw bytes.Buffer
	opts := typeperf.Options{Counters: []string{`\Flaky Widgets\Widgets Made`, `\Memory\Available MBytes`},
		Samples: 2, Interval: time.Millisecond, Format: pdhcsv.CSV, Log: true, Location: time.UTC}
	if err := typeperf.Run(context.Background(), h.Source(), opts, &out, io.Discard, &errw); err != nil {
		t.Fatal(err)
	}
	t.Logf("typeperf said: %s", errw.String())
	if !strings.Contains(errw.String(), "V1 provider flaky") || !strings.Contains(errw.String(), "disk controller not answering") {
		t.Errorf("the provider's failure is not reported as its own:\n%s", errw.String())
	}
	if lines := strings.Split(strings.TrimSpace(out.String()), "\n"); len(lines) != 3 || !strings.Contains(lines[0], `\Memory\Available MBytes`) {
		t.Errorf("the host's own counter did not arrive:\n%s", out.String())
	}
}
