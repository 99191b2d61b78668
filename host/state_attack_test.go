package host

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/internal/asuser"
	statedir "github.com/perfcounters/perfcounters/state"
)

// TestPlantedV1Provider plays Alice planting a V1 provider that root's
// perfc would run: a script of hers (it leaves a marker file when run)
// registered in
//
//   - root's own, trusted state directory, as if root had registered a
//     provider whose executable Alice can rewrite (her file), and
//   - a state directory root left world-writable, where Alice writes the
//     registration herself.
//
// Root's host must not run the script: in the first case the provider is
// left out with a warning naming the executable (the rest of the host
// works), in the second the whole directory is refused. Before the state
// package, root ran the script in both cases.
func TestPlantedV1Provider(t *testing.T) {
	if step, ok := asuser.Step(); ok {
		if step != "plant" {
			t.Fatalf("unknown step %q", step)
		}
		script := os.Getenv("SCRIPT")
		body := "#!/bin/sh\ntouch " + os.Getenv("MARKER") + "\n"
		if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		open := os.Getenv("OPEN_DIR")
		// Alice copies the trusted directory's files and points the
		// registration at her script.
		for _, f := range []string{"titles", "v1.json"} {
			b, err := os.ReadFile(filepath.Join(os.Getenv("TRUSTED_DIR"), f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(open, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	r := asuser.New(t)
	shared := r.SharedDir()
	sh, err := filepath.EvalSymlinks("/bin/sh")
	if err != nil {
		t.Skip(err)
	}
	script := filepath.Join(shared, "provider.sh")
	marker := filepath.Join(shared, "ran-as-root")
	trusted := filepath.Join(shared, "..", "trusted-state")
	open := filepath.Join(shared, "open-state")
	// Root registers a harmless provider, then (as a registration made
	// before the checks existed would) names Alice's script in it.
	if err := RegisterV1(trusted, V1Registration{Name: "legacy", Exec: sh, Args: []string{script}, Objects: []uint32{9000}}); err != nil {
		t.Fatal(err)
	}
	v1 := filepath.Join(trusted, "v1.json")
	b, _ := os.ReadFile(v1)
	var rec map[string]any
	json.Unmarshal(b, &rec)
	p := rec["providers"].([]any)[0].(map[string]any)
	p["exec"], p["args"] = script, nil
	b, _ = json.Marshal(rec)
	os.WriteFile(v1, b, 0o644)
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o777)
	if out, err := r.Run(asuser.Alice, "TestPlantedV1Provider", "plant", "SCRIPT="+script, "MARKER="+marker, "OPEN_DIR="+open, "TRUSTED_DIR="+trusted); err != nil {
		t.Fatal(asuser.Failed(out, err))
	}

	var log bytes.Buffer
	h, err := New(Options{StateDir: trusted, SegmentDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatalf("New on the trusted directory: %v", err)
	}
	for _, q := range []string{"Global", "9000"} {
		if _, err := h.QueryValue(context.Background(), q); err != nil {
			t.Errorf("query %s: %v", q, err)
		}
	}
	h.Close()
	if !strings.Contains(log.String(), script) || !strings.Contains(log.String(), "owned by uid 61001") {
		t.Errorf("no warning naming %s: %s", script, log.String())
	}
	if _, err := New(Options{StateDir: open, SegmentDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "writable by other users") {
		t.Errorf("New on a world-writable state directory: %v; want it refused", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("root ran Alice's V1 provider")
	}
	// The check itself, as the host calls it.
	if err := statedir.CheckExecutable(script, 0); err == nil {
		t.Error("CheckExecutable accepted Alice's script for root")
	}
}
