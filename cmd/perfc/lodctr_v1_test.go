package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/perfdata"
)

// v1WidgetObject is one PERF_OBJECT_TYPE as a V1 provider writes it:
// object 9000, single instance, RAWCOUNT counter 9002 = 42.
func v1WidgetObject(t *testing.T) []byte {
	t.Helper()
	specs := []perfdata.CounterSpec{{NameIndex: 9002, HelpIndex: 9003, DetailLevel: 100, Type: countertype.PERF_COUNTER_RAWCOUNT, Size: 4}}
	l, err := perfdata.NewLayout(specs)
	if err != nil {
		t.Fatal(err)
	}
	b := perfdata.NewBuilder(nil)
	b.Reset(perfdata.Header{SystemName: "x"})
	if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: 9000, HelpIndex: 9001, DetailLevel: 100, Single: true}, l, specs); err != nil {
		t.Fatal(err)
	}
	b.Single().Set(0, 42)
	if err := b.EndObject(); err != nil {
		t.Fatal(err)
	}
	blk, err := perfdata.Parse(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	o, _ := blk.Object(9000)
	return o.Bytes()
}

// TestLodctrV1Collect is the user's path end to end: lodctr /v1: registers
// collect's POSIX-shell provider from a JSON file, perfc query and perfc
// typeperf read its object (by index, by name), unlodctr /v1: removes it.
func TestLodctrV1Collect(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a provider process")
	}
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip(err)
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "collect", "testdata", "fixed-provider.sh"))
	if err != nil {
		t.Fatal(err)
	}
	state, dir := t.TempDir(), t.TempDir()
	objFile := filepath.Join(dir, "widgets.bin")
	if err := os.WriteFile(objFile, v1WidgetObject(t), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := map[string]any{"name": "widgets", "exec": "/bin/sh", "args": []string{script, objFile, "9000"},
		"objects": []int{9000}, "testLevel": 1, "timeoutMs": 5000,
		"names": []map[string]any{{"index": 9000, "name": "Legacy Widgets", "help": "Widgets."}, {"index": 9002, "name": "Widgets Made"}}}
	b, _ := json.Marshal(reg)
	file := filepath.Join(dir, "widgets.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	env := stateEnv(state)
	if _, errs, code := runPerfcEnv(t, env, "lodctr", "/v1:"+file); code != 0 {
		t.Fatalf("lodctr /v1: exit %d: %s", code, errs)
	}

	value := func(t *testing.T, query string) (int64, bool) {
		t.Helper()
		x := filepath.Join(t.TempDir(), "x.perfdata")
		if _, errs, code := runPerfcEnv(t, env, "query", query, "-o", x); code != 0 {
			t.Fatalf("query %s: exit %d: %s", query, code, errs)
		}
		data, err := os.ReadFile(x)
		if err != nil {
			t.Fatal(err)
		}
		blk, err := perfdata.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		o, ok := blk.Object(9000)
		if !ok {
			return 0, false
		}
		return int64(o.SingleBlock().Value(o.Counter(0))), true
	}
	for _, q := range []string{"Global", "9000"} {
		t.Run("query "+q, func(t *testing.T) {
			if v, ok := value(t, q); !ok || v != 42 {
				t.Errorf("object 9000: present %v, Widgets Made = %d (want 42)", ok, v)
			}
		})
	}
	t.Run("typeperf", func(t *testing.T) {
		out, errs, code := runPerfcEnv(t, env, "typeperf", `\Legacy Widgets\Widgets Made`, "-sc", "1", "-si", "1")
		if code != 0 {
			t.Fatalf("typeperf: exit %d: %s", code, errs)
		}
		if !strings.Contains(out, `\Legacy Widgets\Widgets Made"`) || !strings.Contains(out, `"42.000000"`) {
			t.Errorf("typeperf output lacks the counter or its value 42:\n%s", out)
		}
	})

	if _, errs, code := runPerfcEnv(t, env, "unlodctr", "/v1:widgets"); code != 0 {
		t.Fatalf("unlodctr /v1: exit %d: %s", code, errs)
	}
	if _, ok := value(t, "Global"); ok {
		t.Error("object 9000 still collected after unlodctr /v1:")
	}
}
