// Package deps holds no code: its test enforces the import direction of the
// module (ARCHITECTURE.md), in the manner of go/build's deps_test.go. The
// table is the policy and it is exact: it lists what each package imports,
// no more. Fix the import, never loosen the table to make a build pass.
package deps

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/perfcounters/perfcounters"

// rule is a package's place: its level and the packages of the module it
// imports directly.
type rule struct {
	level   int
	imports []string
}

// table lists every package of the module (but examples and this one) with
// its level and exactly the packages of ours it imports. Levels, as in
// ARCHITECTURE.md:
//
//	L0 core vocabulary: imports no package of ours
//	L1 core codecs and calculations: import only L0
//	L2 providers, engine, consumers, state
//	L3 the local machine assembled
//	L4 tools (options in, io.Writer out)
//	L5 the binary
//
// From L2 up a package may import packages of its own level or below,
// never above.
var table = map[string]rule{
	// L0: the core vocabulary.
	"internal/utf16le":  {0, nil},
	"internal/tzrule":   {0, nil},
	"countertype":       {0, nil},
	"export/metricname": {0, nil}, // the words of metric names, one rule for every export
	"counterpath":       {0, nil},
	"internal/asuser":   {0, nil}, // test support: runs a test binary as other users
	"internal/golden":   {0, nil}, // test support: golden files with -update
	"internal/filecap":  {0, nil},
	"internal/pgtest":   {0, nil},
	"internal/proctest": {0, nil}, // test support: wait for a process to end
	// L1: core codecs and calculations.
	"calc":       {1, []string{"countertype"}},
	"counterset": {1, []string{"countertype"}},
	"titles":     {1, []string{"internal/filecap", "internal/utf16le"}},
	"perfdata":   {1, []string{"countertype", "internal/filecap", "internal/utf16le"}},
	// L2: providers, engine, consumers.
	"manifest":         {2, []string{"counterset", "countertype"}},
	"internal/shm":     {2, []string{"counterset", "countertype"}},
	"internal/shmtest": {2, []string{"internal/shm"}}, // test support: a tmpfs base directory
	"provider":         {2, []string{"counterset", "internal/shm"}},
	"collect":          {2, []string{"perfdata"}},
	"system":           {2, []string{"counterset", "countertype", "perfdata"}},
	"engine":           {2, []string{"collect", "counterset", "perfdata", "titles"}},
	"pdh":              {2, []string{"calc", "counterpath", "countertype", "internal/utf16le", "perfdata", "titles"}},
	"perflog/pdhcsv":   {2, []string{"calc", "counterpath", "countertype", "internal/tzrule", "pdh", "perfdata", "perflog/rawlog", "titles"}},
	"state":            {2, []string{"collectorset", "counterset", "manifest", "titles"}},
	"collectorset":     {2, []string{"counterpath"}},
	"perflog/binlog":   {2, []string{"internal/tzrule", "pdh", "perfdata", "titles"}},
	"perflog/rawlog":   {2, []string{"countertype", "pdh", "perfdata", "titles"}},
	"perflog/blg":      {2, []string{"counterpath", "countertype", "internal/tzrule", "internal/utf16le", "pdh", "perfdata", "perflog/rawlog", "titles"}},
	"perflog/sqllog":   {2, []string{"calc", "countertype", "pdh", "perflog/pdhcsv", "perflog/rawlog", "titles"}},
	"remote":           {2, []string{"calc", "counterpath", "engine", "pdh", "perfdata", "titles"}}, // the network API of perfc serve and its client; see remote/API.md
	// L3: the local machine assembled.
	"perflog": {3, []string{"pdh", "perflog/binlog", "perflog/blg", "perflog/pdhcsv", "perflog/sqllog", "titles"}},
	"host":    {3, []string{"collect", "counterset", "engine", "internal/shm", "pdh", "perfdata", "state", "system", "titles"}},
	// pla runs collector sets (Windows' Performance Logs and Alerts):
	// given a live source by the program, it writes the logs and keeps
	// the run-state records.
	"pla": {3, []string{"collectorset", "pdh", "perflog/binlog", "perflog/pdhcsv", "perflog/sqllog", "state", "titles"}},
	// export/prom: the counters of a source as Prometheus /metrics
	// (OpenMetrics), mapped by counter type.
	"export/prom": {3, []string{"calc", "countertype", "export/metricname", "internal/utf16le", "pdh", "perfdata", "titles"}},
	// export/otlp pushes a source's counters to OpenTelemetry over OTLP.
	"export/otlp": {3, []string{"calc", "countertype", "export/metricname", "pdh", "perfdata"}},
	// L4: tools.
	"internal/tool/dump":     {4, []string{"countertype", "perfdata", "perflog/binlog", "perflog/blg", "titles"}},
	"internal/tool/query":    {4, []string{"engine"}},
	"internal/tool/ctrpp":    {4, []string{"counterset", "countertype", "manifest"}},
	"internal/tool/typeperf": {4, []string{"counterpath", "pdh", "perflog/pdhcsv"}},
	"internal/tool/relog":    {4, []string{"calc", "counterpath", "countertype", "pdh", "perfdata", "perflog/pdhcsv", "titles"}},
	"internal/tool/lodctr":   {4, []string{"manifest", "state", "titles"}},
	"internal/tool/logman":   {4, []string{"collectorset", "remote", "state"}},
	"internal/server":        {4, []string{"remote"}}, // perfc serve: TLS, authentication, limits
	// webui is perfmon's page (embedded files); it talks to remote's API
	// over HTTP only, so it imports nothing of ours.
	"internal/webui": {4, nil},
	// logview answers the page's questions about logs (/v1/logs): a log's
	// counters and their values over a time range.
	"internal/logview": {4, []string{"calc", "counterpath", "pdh", "perfdata", "perflog", "remote", "titles"}},
	// L5: the binary.
	"cmd/perfc": {5, []string{"host", "internal/tool/ctrpp", "internal/tool/dump", "internal/tool/lodctr", "internal/tool/logman", "internal/tool/query",
		"internal/tool/relog", "internal/tool/typeperf", "internal/server", "internal/webui", "internal/logview", "remote", "export/otlp", "export/prom", "collectorset", "counterpath", "engine", "manifest", "pdh", "perfdata", "perflog", "pla", "state", "titles"}},
}

type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
}

// imports lists the module's packages (examples and this one left out)
// with the packages of ours each imports, from go list.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	got := map[string][]string{}
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		// Stat the sources, so go test's cache knows this result depends
		// on them (it cannot see what the go list child read).
		for _, f := range p.GoFiles {
			os.Stat(filepath.Join(p.Dir, f))
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if rel == "internal/deps" || strings.HasPrefix(rel, "examples/") {
			continue
		}
		var ours []string
		for _, imp := range p.Imports {
			if dep, ok := strings.CutPrefix(imp, module+"/"); ok {
				ours = append(ours, dep)
			}
		}
		got[rel] = ours
	}
	return got
}

// check compares the module's real imports with the table and returns one
// message per violation: a package without a place, an import the table
// does not list, an allowance nobody uses, and a table entry that breaks
// the level rules.
func check(table map[string]rule, actual map[string][]string) []string {
	var errs []string
	for p, r := range table {
		for _, dep := range r.imports {
			d, ok := table[dep]
			switch {
			case !ok:
				errs = append(errs, fmt.Sprintf("%s: allowed import %s has no place in the table", p, dep))
			case r.level == 0:
				errs = append(errs, fmt.Sprintf("%s (L0) may import no package of ours, but the table allows %s", p, dep))
			case r.level == 1 && d.level != 0:
				errs = append(errs, fmt.Sprintf("%s (L1) may import only L0 packages, but the table allows %s (L%d)", p, dep, d.level))
			case d.level > r.level:
				errs = append(errs, fmt.Sprintf("%s (L%d) reaches up to %s (L%d)", p, r.level, dep, d.level))
			}
		}
		if imps, ok := actual[p]; ok {
			for _, dep := range r.imports {
				if !slices.Contains(imps, dep) {
					errs = append(errs, fmt.Sprintf("%s: the table allows %s, which it does not import (remove the allowance)", p, dep))
				}
			}
		} else {
			errs = append(errs, fmt.Sprintf("%s: in the table but not in the module (remove it)", p))
		}
	}
	for p, imps := range actual {
		r, ok := table[p]
		if !ok {
			errs = append(errs, fmt.Sprintf("package %s has no place in the import table", p))
			continue
		}
		for _, dep := range imps {
			if !slices.Contains(r.imports, dep) {
				errs = append(errs, fmt.Sprintf("%s imports %s, which the import table does not allow", p, dep))
			}
		}
	}
	sort.Strings(errs)
	return errs
}

func TestImportDirection(t *testing.T) {
	actual := imports(t)
	if len(actual) < 3 {
		t.Fatalf("only %d packages listed; is go list looking at the module?", len(actual))
	}
	for _, e := range check(table, actual) {
		t.Error(e)
	}
}

// TestCheckCatches: the check itself fails on each kind of violation, so a
// green TestImportDirection means something.
func TestCheckCatches(t *testing.T) {
	base := map[string]rule{
		"a0": {0, nil},
		"b1": {1, []string{"a0"}},
		"c2": {2, []string{"b1"}},
		"d3": {3, []string{"c2"}},
	}
	actual := map[string][]string{"a0": nil, "b1": {"a0"}, "c2": {"b1"}, "d3": {"c2"}}
	if errs := check(base, actual); len(errs) != 0 {
		t.Fatalf("a clean table reports %v", errs)
	}
	with := func(p string, r rule) map[string]rule {
		m := map[string]rule{}
		for k, v := range base {
			m[k] = v
		}
		m[p] = r
		return m
	}
	for _, tc := range []struct {
		name   string
		table  map[string]rule
		actual map[string][]string
		want   string
	}{
		{"unused allowance", with("d3", rule{3, []string{"c2", "b1"}}), actual, "does not import"},
		{"L0 imports ours", with("a0", rule{0, []string{"b1"}}), map[string][]string{"a0": {"b1"}, "b1": {"a0"}, "c2": {"b1"}, "d3": {"c2"}}, "L0"},
		{"L1 imports L1", with("b1", rule{1, []string{"a0", "e1"}}), nil, "only L0"},
		{"upward import", with("c2", rule{2, []string{"b1", "d3"}}), map[string][]string{"a0": nil, "b1": {"a0"}, "c2": {"b1", "d3"}, "d3": {"c2"}}, "reaches up"},
		{"import not allowed", base, map[string][]string{"a0": nil, "b1": {"a0"}, "c2": {"b1", "a0"}, "d3": {"c2"}}, "does not allow"},
		{"package without a place", base, map[string][]string{"a0": nil, "b1": {"a0"}, "c2": {"b1"}, "d3": {"c2"}, "e9": nil}, "no place"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			act := tc.actual
			if act == nil {
				act = actual
			}
			if tc.name == "L1 imports L1" {
				tc.table["e1"] = rule{1, nil}
				act = map[string][]string{"a0": nil, "b1": {"a0", "e1"}, "c2": {"b1"}, "d3": {"c2"}, "e1": nil}
			}
			errs := check(tc.table, act)
			if !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, tc.want) }) {
				t.Errorf("check did not catch it (want a message with %q), got %v", tc.want, errs)
			}
		})
	}
}
