// Package deps holds no code: its test enforces the import direction of the
// module (ARCHITECTURE.md), in the manner of go/build's deps_test.go. The
// table is the policy; fix the import, never loosen the table to make a
// build pass.
package deps

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/perfcounters/perfcounters"

// allowed lists, for every package of the module, the packages of the module
// it may import directly. A package missing from the table fails the test,
// so a new package must take a place in the levels.
var allowed = map[string][]string{
	// L0: the core vocabulary.
	"internal/utf16le": {},
	"internal/asuser":  {}, // test support: runs a test binary as other users
	"countertype":      {},
	"counterpath":      {},
	// L1: core codecs and calculations.
	"calc":       {"countertype"},
	"counterset": {"countertype"},
	"titles":     {"internal/utf16le"},
	"perfdata":   {"countertype", "internal/utf16le"},
	// L2: providers, engine, consumers.
	"manifest":       {"counterset", "countertype"},
	"internal/shm":   {"counterset", "countertype"},
	"provider":       {"counterset", "countertype", "internal/shm"},
	"collect":        {"perfdata", "countertype"},
	"system":         {"counterset", "countertype", "perfdata"},
	"engine":         {"counterset", "countertype", "perfdata", "titles", "collect", "internal/shm"},
	"pdh":            {"counterpath", "calc", "perfdata", "titles", "countertype", "internal/utf16le"},
	"perflog":        {"perfdata", "titles", "pdh", "counterpath", "calc", "countertype"},
	"perflog/pdhcsv": {"perflog", "counterpath", "calc"},
	"state":          {"counterset", "manifest", "titles"},
	// L3: the local machine assembled.
	"host": {"engine", "system", "titles", "counterset", "collect", "internal/shm", "manifest", "provider", "perfdata", "countertype", "pdh", "state"},
	// L4: tools.
	"internal/tool/dump":     {"perfdata", "titles", "countertype", "internal/utf16le"},
	"internal/tool/query":    {"engine", "host"},
	"internal/tool/ctrpp":    {"manifest", "counterset", "countertype"},
	"internal/tool/typeperf": {"pdh", "perflog", "perflog/pdhcsv", "host", "counterpath", "calc", "titles", "perfdata", "engine"},
	"internal/tool/relog":    {"pdh", "perflog", "perflog/pdhcsv", "counterpath", "calc", "titles", "perfdata"},
	"internal/tool/lodctr":   {"manifest", "state", "titles"},
	// L5: the binary.
	"cmd/perfc": {"pdh", "perflog/pdhcsv", "internal/tool/lodctr", "internal/tool/dump", "internal/tool/query", "internal/tool/ctrpp", "internal/tool/typeperf", "internal/tool/relog", "internal/tool/lodctr", "host", "engine", "manifest", "titles", "state"},
}

type pkg struct {
	ImportPath string
	Imports    []string
}

func TestImportDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := 0
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if rel == "internal/deps" || strings.HasPrefix(rel, "examples/") {
			continue
		}
		seen++
		ok, listed := allowed[rel]
		if !listed {
			t.Errorf("package %s has no place in the import table of internal/deps", rel)
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(imp, module+"/")
			if !slices.Contains(ok, dep) {
				t.Errorf("%s imports %s, which the import table does not allow", rel, dep)
			}
		}
	}
	if seen < 3 {
		t.Fatalf("only %d packages listed; is go list looking at the module?", seen)
	}
}
