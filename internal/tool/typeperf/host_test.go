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

// copyTree copies the fixture tree src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(out, 0o755)
		case d.Type()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, out)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPartialProcReachesTypeperf runs typeperf on a host whose /proc (a
// fixture tree) has a malformed MemAvailable: the Memory object still
// arrives, the values fed by that line are blank cells (never a made-up
// 0), the others are there, and the user is told which file and line.
func TestPartialProcReachesTypeperf(t *testing.T) {
	root := t.TempDir()
	copyTree(t, filepath.Join("..", "..", "..", "system", "testdata", "host"), root)
	mi := filepath.Join(root, "proc", "meminfo")
	b, err := os.ReadFile(mi)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(b), "MemAvailable:   24425904 kB", "MemAvailable:   24x25904 kB", 1)
	if bad == string(b) {
		t.Fatal("fixture meminfo changed; fix the test")
	}
	if err := os.WriteFile(mi, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Options{ProcRoot: filepath.Join(root, "proc"), SysRoot: filepath.Join(root, "sys"), SegmentDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var out bytes.Buffer
	var warned []string
	opts := typeperf.Options{Counters: []string{`\Memory\Available MBytes`, `\Memory\Committed Bytes`},
		Samples: 2, Interval: time.Millisecond, Format: pdhcsv.CSV, Log: true, Location: time.UTC,
		Warn: func(cause, msg string) { warned = append(warned, msg) }}
	if err := typeperf.Run(context.Background(), h.Source(), opts, &out, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if len(warned) == 0 || !strings.Contains(warned[0], "/proc/meminfo") || !strings.Contains(warned[0], "MemAvailable") {
		t.Errorf("the malformed line is not reported: %q", warned)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a header and 2 rows:\n%s", out.String())
	}
	for _, row := range lines[1:] {
		cells := strings.Split(row, ",")
		if cells[1] != `" "` {
			t.Errorf("row %s: Available MBytes must be blank (its line is malformed), got %s", row, cells[1])
		}
		if cells[2] == `" "` {
			t.Errorf("row %s: Committed Bytes must have its value (its lines are fine)", row)
		}
	}
}
