package collect

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/perfdata"
)

// windowsObjects returns the objects of a real block captured on Windows
// (perfdata/testdata/windows; see its PROVENANCE.md) without the
// PERF_DATA_BLOCK header: exactly what a V1 provider of that object
// returns.
func windowsObjects(t testing.TB, file string) ([]byte, uint32) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "perfdata", "testdata", "windows", file))
	if err != nil {
		t.Fatal(err)
	}
	blk, err := perfdata.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return blk.Bytes()[blk.Header().HeaderLength:], uint32(blk.NumObjects())
}

// fixedProc is a well-behaved in-process procedure serving fixed objects.
type fixedProc struct {
	objs    []byte
	n       uint32
	indexes []uint32
	opened  bool
	closed  int
	err     error // returned by Collect when set
	calls   []string
}

func (p *fixedProc) Open(context.Context) error { p.opened = true; return nil }

func (p *fixedProc) Close() error { p.opened = false; p.closed++; return nil }

func (p *fixedProc) Collect(_ context.Context, name string, buf []byte) (int, uint32, error) {
	p.calls = append(p.calls, fmt.Sprintf("%d %s", len(buf), name))
	switch {
	case !p.opened:
		return 0, 0, errors.New("collect before open")
	case p.err != nil:
		return 0, 0, p.err
	case !Supports(name, p.indexes):
		return 0, 0, nil
	case len(buf) < len(p.objs):
		return 0, 0, perfdata.ErrMoreData
	}
	return copy(buf, p.objs), p.n, nil
}

// Child modes: the test binary re-executed as an out-of-process provider.
const childEnv = "COLLECT_TEST_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(childMain(mode))
	}
	os.Exit(m.Run())
}

func childMain(mode string) int {
	objs, err := os.ReadFile(os.Getenv("COLLECT_TEST_OBJECTS"))
	if err != nil && mode == "serve" {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	idx, _ := strconv.ParseUint(os.Getenv("COLLECT_TEST_INDEX"), 10, 32)
	p := &fixedProc{objs: objs, n: 1, indexes: []uint32{uint32(idx)}}
	if mode == "crash-once" {
		marker := os.Getenv("COLLECT_TEST_MARKER")
		if _, err := os.Stat(marker); err == nil {
			mode = "serve"
		} else {
			os.WriteFile(marker, nil, 0o600)
			mode = "crash"
		}
	}
	switch mode {
	case "serve":
		if err := Serve(os.Stdin, os.Stdout, p); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	case "err":
		p.err = errors.New("sensor unplugged")
		Serve(os.Stdin, os.Stdout, p)
		return 0
	}
	// Hand-written misbehaviour, one request line at a time.
	sc := bufio.NewScanner(os.Stdin)
	w := bufio.NewWriter(os.Stdout)
	for sc.Scan() {
		verb, rest, _ := strings.Cut(sc.Text(), " ")
		switch {
		case verb == "HELLO" && mode == "hello2":
			w.WriteString("HELLO 2\n")
		case verb == "HELLO":
			w.WriteString("HELLO 1\n")
		case verb == "OPEN" || verb == "CLOSE":
			w.WriteString("OK\n")
		case verb == "COLLECT":
			size, _, _ := strings.Cut(rest, " ")
			sz, _ := strconv.Atoi(size)
			switch mode {
			case "crash": // dies in the middle of its payload
				w.WriteString("OK 1000 1\n")
				w.Write(make([]byte, 10))
				w.Flush()
				return 3
			case "oversize": // claims and sends more than offered
				fmt.Fprintf(w, "OK %d 1\n", sz+8)
				w.Write(make([]byte, sz+8))
			case "hang": // never answers (a sleep, not select{}: the
				// runtime would call a goroutine-less block a deadlock)
				w.Flush()
				time.Sleep(time.Hour)
			case "garbage": // a header line with no end
				w.WriteString(strings.Repeat("x", 4*MaxLine))
			}
		}
		w.Flush()
	}
	return 0
}
