package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var windowsBlocks = filepath.Join("..", "..", "perfdata", "testdata", "windows")

func TestDumpCommand(t *testing.T) {
	good := filepath.Join(windowsBlocks, "s01-0004-Memory.bin")
	out, errs, code := runPerfc(t, "dump", good)
	if code != 0 || !strings.Contains(out, "object 4 Memory") || !strings.Contains(out, "% Committed Bytes In Use") {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, errs, out)
	}
	out, _, code = runPerfc(t, "dump", "--json", good)
	if code != 0 || !strings.Contains(out, `"systemName": "ZACH-PC"`) {
		t.Fatalf("json: exit %d:\n%s", code, out)
	}

	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "cut.bin")
	if err := os.WriteFile(bad, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code = runPerfc(t, "dump", good, bad)
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	if code != 1 || len(lines) != 1 || !strings.Contains(lines[0], bad) || !strings.Contains(lines[0], "offset") {
		t.Fatalf("truncated block: exit %d, stderr %q (want one line naming the file and an offset, exit 1)", code, errs)
	}

	// Endless input is refused with the file and the limit named.
	for _, args := range [][]string{{"dump", "/dev/zero"}, {"dump", "--titles", "/dev/zero", good}} {
		_, errs, code = runPerfc(t, args...)
		if code != 1 || !strings.Contains(errs, "/dev/zero") || !strings.Contains(errs, "MiB limit") {
			t.Errorf("perfc %s: exit %d, stderr %q (want exit 1 naming /dev/zero and the limit)", strings.Join(args, " "), code, errs)
		}
	}

	if _, _, code := runPerfc(t, "dump"); code != 2 {
		t.Errorf("dump without files: exit %d, want 2", code)
	}
	if _, _, code := runPerfc(t, "dump", "/?"); code != 0 {
		t.Errorf("dump /?: exit %d, want 0", code)
	}
}
