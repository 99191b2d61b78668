package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLodctrV1 registers a V1 provider from a JSON file through the CLI,
// lists it, and removes it. The collection itself is tested in package host.
func TestLodctrV1(t *testing.T) {
	state := t.TempDir()
	dir := t.TempDir()
	// A relative exec is taken from the registration file's directory.
	exe := filepath.Join(dir, "provider.sh")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	reg := map[string]any{"name": "legacy", "exec": "provider.sh", "objects": []int{9000},
		"names": []map[string]any{{"index": 9000, "name": "Legacy Widgets"}}}
	b, _ := json.Marshal(reg)
	file := filepath.Join(dir, "legacy.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	env := stateEnv(state)
	out, errs, code := runPerfcEnv(t, env, "lodctr", "/v1:"+file)
	if code != 0 || !strings.Contains(out, "legacy") {
		t.Fatalf("lodctr /v1: exit %d, %q %q", code, out, errs)
	}
	out, _, code = runPerfcEnv(t, env, "lodctr", "/q")
	if code != 0 || !strings.Contains(out, "legacy: "+exe) {
		t.Errorf("lodctr /q: exit %d:\n%s", code, out)
	}
	if _, errs, code := runPerfcEnv(t, env, "unlodctr", "/v1:legacy"); code != 0 {
		t.Fatalf("unlodctr /v1: exit %d: %s", code, errs)
	}
	if _, errs, code := runPerfcEnv(t, env, "unlodctr", "/v1:legacy"); code != 3 || !strings.Contains(errs, "no V1 provider") {
		t.Errorf("second unlodctr: exit %d: %s", code, errs)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"name":"x","exe":"typo"}`), 0o644)
	if _, errs, code := runPerfcEnv(t, env, "lodctr", "/v1:"+bad); code != 1 || !strings.Contains(errs, "unknown field") {
		t.Errorf("misspelt field: exit %d: %s", code, errs)
	}
}
