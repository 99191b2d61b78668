package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/utf16le"
)

// TestQueryThenDump is the README's `perfc query Global -o x && perfc dump x`
// on this machine: the block parses, holds the built-in objects, and dump
// names them from the local title database.
func TestQueryThenDump(t *testing.T) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	dir := t.TempDir()
	x := filepath.Join(dir, "x.perfdata")
	if _, errs, code := runPerfc(t, "query", "Global", "-o", x); code != 0 {
		t.Fatalf("query: exit %d: %s", code, errs)
	}
	data, err := os.ReadFile(x)
	if err != nil {
		t.Fatal(err)
	}
	b, err := perfdata.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, idx := range []uint32{2, 4, 230, 232, 238} {
		if _, ok := b.Object(idx); !ok {
			t.Errorf("Global block lacks object %d", idx)
		}
	}
	out, errs, code := runPerfc(t, "dump", x)
	if code != 0 {
		t.Fatalf("dump: exit %d: %s", code, errs)
	}
	for _, want := range []string{"object 238 Processor", "object 230 Process", "object 232 Thread", "% Processor Time"} {
		if !strings.Contains(out, want) {
			t.Errorf("dump output lacks %q", want)
		}
	}

	// "perfc query 232" brings Thread's parent Process; Counter is a MULTI_SZ list.
	y := filepath.Join(dir, "y.perfdata")
	if _, errs, code := runPerfc(t, "query", "232", "-o", y); code != 0 {
		t.Fatalf("query 232: exit %d: %s", code, errs)
	}
	data, _ = os.ReadFile(y)
	if b, err := perfdata.Parse(data); err != nil || b.NumObjects() != 2 {
		t.Errorf("query 232: %v, %d objects (want Process and Thread)", err, b.NumObjects())
	}
	c := filepath.Join(dir, "counter.bin")
	if _, errs, code := runPerfc(t, "query", "Counter", "-o", c); code != 0 {
		t.Fatalf("query Counter: exit %d: %s", code, errs)
	}
	data, _ = os.ReadFile(c)
	list, err := utf16le.DecodeMultiSZ(data)
	if err != nil || len(list) < 100 || list[2] != "2" || list[3] != "System" {
		t.Errorf("Counter list: %v, first entries %q", err, list[:min(4, len(list))])
	}
	if _, errs, code := runPerfc(t, "query", "Glob al"); code != 1 || !strings.Contains(errs, "title index") {
		t.Errorf("bad value name: exit %d, %q", code, errs)
	}
}
