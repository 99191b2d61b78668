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
	"utf16le":           {0, nil},
	"wintz":             {0, nil},
	"countertype":       {0, nil},
	"export/metricname": {0, nil}, // the words of metric names, one rule for every export
	"filecap":           {0, nil},
	"proctext":          {0, nil}, // the line and field toolkit of the /proc and /sys parsers
	"internal/manpage":  {0, nil}, // roff manual pages, and Markdown converted to them
	"internal/version":  {0, nil}, // which perfc this is: the release stamp, else the build information
	"internal/termtext": {0, nil}, // text from outside made safe to show on a terminal
	// L1: core codecs and calculations.
	"calc":        {1, []string{"countertype"}},
	"counterpath": {1, []string{"internal/termtext", "utf16le"}}, // paths, and the counter list files of -cf
	"counterset":  {1, []string{"countertype"}},
	"titles":      {1, []string{"filecap", "utf16le"}},
	"perfdata":    {1, []string{"countertype", "filecap", "utf16le"}},
	"perfini":     {1, []string{"filecap", "utf16le"}}, // lodctr's .ini and symbol files (perfini/INI.md)
	// L2: providers, engine, consumers.
	"manifest":       {2, []string{"counterset", "countertype", "utf16le"}},
	"shm":            {2, []string{"counterset", "countertype"}},
	"provider":       {2, []string{"counterset", "shm"}},
	"collect":        {2, []string{"perfdata"}},
	"procscan":       {2, []string{"proctext"}}, // /proc per process and thread, kept descriptors; limits set by the program
	"system":         {2, []string{"counterset", "countertype", "perfdata", "procscan", "proctext", "system/nvml"}},
	"system/nvml":    {2, nil}, // NVIDIA's NVML loaded at run time (purego, only with -tags nvml)
	"engine":         {2, []string{"collect", "counterset", "perfdata", "titles"}},
	"pdh":            {2, []string{"calc", "counterpath", "countertype", "utf16le", "perfdata", "titles"}},
	"perflog/pdhcsv": {2, []string{"calc", "counterpath", "countertype", "wintz", "pdh", "perfdata", "perflog/rawlog", "titles", "utf16le"}},
	"state":          {2, []string{"collectorset", "counterset", "manifest", "titles"}},
	"collectorset":   {2, []string{"counterpath", "utf16le"}},
	"perflog/binlog": {2, []string{"wintz", "pdh", "perfdata", "titles"}},
	"perflog/rawlog": {2, []string{"countertype", "pdh", "perfdata", "titles"}},
	"perflog/blg":    {2, []string{"counterpath", "countertype", "wintz", "utf16le", "pdh", "perfdata", "perflog/rawlog", "titles"}},
	"perflog/sqllog": {2, []string{"calc", "collectorset", "countertype", "pdh", "perflog/rawlog", "titles", "wintz"}},
	"remote":         {2, []string{"internal/termtext", "pdh", "perfdata", "titles"}}, // the client of perfc serve's API, its wire types and the hosts file; see remote/API.md
	"sysperf":        {2, []string{"calc", "counterpath", "pdh"}},                     // the System Performance report (perfmon /report): its counters, rules and page
	// L3: the local machine assembled.
	"perflog": {3, []string{"calc", "countertype", "pdh", "perflog/binlog", "perflog/blg", "perflog/pdhcsv", "perflog/rawlog", "perflog/sqllog", "titles", "utf16le", "wintz"}},
	"host":    {3, []string{"collect", "counterset", "engine", "shm", "pdh", "perfdata", "procscan", "state", "system", "titles"}},
	// pla runs collector sets (Windows' Performance Logs and Alerts):
	// given a live source by the program, it writes the logs and keeps
	// the run-state records.
	"pla": {3, []string{"calc", "collectorset", "counterpath", "pdh", "perflog", "perflog/binlog", "perflog/pdhcsv", "perflog/sqllog", "state", "titles", "wintz"}},
	// export/prom: the counters of a source as Prometheus /metrics
	// (OpenMetrics), mapped by counter type.
	"export/prom": {3, []string{"calc", "countertype", "export/metricname", "internal/version", "utf16le", "pdh", "perfdata", "titles"}},
	// export/otlp pushes a source's counters to OpenTelemetry over OTLP.
	"export/otlp": {3, []string{"calc", "counterpath", "countertype", "export/metricname", "internal/version", "pdh", "perfdata"}},
	// remote/apiserver serves the API over any pdh.Source, with an
	// optional Registry for what only an engine answers.
	"remote/apiserver": {3, []string{"calc", "counterpath", "pdh", "perfdata", "remote", "titles"}},
	// L4: tools.
	"internal/tool/dump":     {4, []string{"countertype", "perfdata", "perflog/binlog", "perflog/blg", "titles"}},
	"internal/tool/query":    {4, []string{"engine"}},
	"internal/tool/ctrpp":    {4, []string{"counterset", "countertype", "manifest"}},
	"internal/tool/typeperf": {4, []string{"counterpath", "internal/termtext", "pdh", "perflog/pdhcsv", "titles", "wintz"}},
	"internal/tool/relog":    {4, []string{"calc", "counterpath", "countertype", "internal/termtext", "pdh", "perfdata", "perflog/pdhcsv", "titles", "wintz"}},
	"internal/tool/lodctr":   {4, []string{"manifest", "perfini", "state", "titles"}},
	"internal/tool/logman":   {4, []string{"collectorset", "pla", "remote", "state"}},
	"internal/server":        {4, []string{"remote"}}, // perfc serve: TLS, authentication, limits
	// webui is perfmon's page (embedded files); it talks to remote's API
	// over HTTP only, so it imports nothing of ours.
	"internal/webui": {4, nil},
	// logview answers the page's questions about logs (/v1/logs): a log's
	// counters and their values over a time range.
	"internal/logview": {4, []string{"calc", "counterpath", "pdh", "perfdata", "perflog", "remote", "titles", "utf16le", "wintz"}},
	// L5: the binary.
	"cmd/perfc": {5, []string{"host", "internal/termtext", "internal/tool/ctrpp", "internal/tool/dump", "internal/tool/lodctr", "internal/tool/logman", "internal/tool/query", "utf16le",
		"internal/tool/relog", "internal/tool/typeperf", "internal/server", "internal/webui", "internal/logview", "remote", "remote/apiserver", "export/otlp", "export/prom", "calc", "collectorset", "counterpath", "engine", "manifest", "pdh", "perfdata", "perflog", "pla", "shm", "state", "sysperf", "titles", "internal/version"}},
}

// testSupport lists the packages that exist for tests, with exactly the
// packages of ours each imports. They have no level: only tests import
// them (checked), and they may import anything below the binary.
var testSupport = map[string][]string{
	"internal/asuser":     nil,                                    // runs a test binary as other users
	"internal/golden":     nil,                                    // golden files with -update
	"internal/hostile":    nil,                                    // hostile logs forged, cost per input byte (issue 28)
	"internal/pgtest":     nil,                                    // the PostgreSQL server of the tests
	"internal/proctest":   nil,                                    // wait for a process to end
	"shm/shmtest":         {"shm"},                                // a tmpfs base directory
	"internal/remotetest": {"host", "remote", "remote/apiserver"}, // the API over a fixture host, served with TLS
}

// fixtures are packages a test of any level may import to stand up the
// real thing it is tested against: the local machine (host) and an
// engine of synthetic objects. Library code never may (see never).
var fixtures = []string{"host", "engine"}

// testUp lists, per package, the packages above its level that its tests
// import, each with the reason. Tests otherwise keep the direction of
// the code: their own level or below, test support and fixtures.
var testUp = map[string][]struct{ pkg, why string }{
	"remote":         {{"internal/tool/typeperf", "what a served host answers equals local typeperf output"}, {"remote/apiserver", "the client is tested against the real server"}},
	"host":           {{"internal/tool/typeperf", "typeperf over the assembled host is the end-to-end check of V1 and V2 providers"}},
	"perflog/blg":    {{"internal/tool/relog", "Windows' BLGs relogged end to end equal the CSV Windows' relog wrote"}},
	"perflog":        {{"internal/tool/relog", "a BLG written from a live collection relogs to the same CSV as perfc's binary log of the same samples"}},
	"perflog/sqllog": {{"internal/tool/relog", "relog into SQL and back is the round trip the format promises"}},
	"export/prom":    {{"internal/tool/typeperf", "the formatted gauges equal what typeperf prints over the same samples"}},
}

// never are the architecture's "never" rules (ARCHITECTURE.md), as data:
// no package matching from may reach to, directly or through others, in
// its code (tests: see fixtures). A pattern "x/..." matches x and every
// package below it.
var never = []struct {
	from []string
	to   string
	why  string
}{
	{[]string{"pdh", "perflog/...", "export/...", "pla", "remote/..."}, "engine",
		"consumers read a pdh.Source; the program wires the engine in"},
	{[]string{"..."}, "host", "no library imports host: the program assembles the machine (cmd/perfc only)"},
}

// neverExempt are the packages the "..." pattern leaves out: the binary,
// which assembles everything.
var neverExempt = []string{"cmd/perfc"}

type pkg struct {
	ImportPath   string
	Dir          string
	GoFiles      []string
	TestGoFiles  []string
	XTestGoFiles []string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// imports lists the module's packages (examples and this one left out)
// with the packages of ours each imports in its code, and in its tests
// (internal and external), from go list.
func imports(t *testing.T) (code, tests map[string][]string) {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	code, tests = map[string][]string{}, map[string][]string{}
	ours := func(imps []string) []string {
		var o []string
		for _, imp := range imps {
			if dep, ok := strings.CutPrefix(imp, module+"/"); ok && !slices.Contains(o, dep) {
				o = append(o, dep)
			}
		}
		return o
	}
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		// Stat the sources, so go test's cache knows this result depends
		// on them (it cannot see what the go list child read).
		for _, f := range slices.Concat(p.GoFiles, p.TestGoFiles, p.XTestGoFiles) {
			os.Stat(filepath.Join(p.Dir, f))
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if rel == "internal/deps" || strings.HasPrefix(rel, "examples/") {
			continue
		}
		code[rel] = ours(p.Imports)
		tests[rel] = slices.DeleteFunc(ours(slices.Concat(p.TestImports, p.XTestImports)), func(d string) bool { return d == rel })
	}
	return code, tests
}

// checkSupport checks the test-support packages: exactly the imports
// listed, and no package's code imports one.
func checkSupport(support map[string][]string, code map[string][]string) []string {
	var errs []string
	for p, allowed := range support {
		imps, ok := code[p]
		if !ok {
			errs = append(errs, fmt.Sprintf("test support %s: not in the module (remove it)", p))
			continue
		}
		for _, d := range imps {
			if !slices.Contains(allowed, d) {
				errs = append(errs, fmt.Sprintf("test support %s imports %s, which testSupport does not allow", p, d))
			}
		}
		for _, d := range allowed {
			if !slices.Contains(imps, d) {
				errs = append(errs, fmt.Sprintf("test support %s: allowed %s, which it does not import (remove the allowance)", p, d))
			}
		}
	}
	for p, imps := range code {
		if _, isSupport := support[p]; isSupport {
			continue
		}
		for _, d := range imps {
			if _, ok := support[d]; ok {
				errs = append(errs, fmt.Sprintf("%s imports test support %s in its code (only tests may)", p, d))
			}
		}
	}
	sort.Strings(errs)
	return errs
}

// checkTests checks the packages' test imports: their own level or
// below, test support, fixtures, and the upward imports testUp lists
// (each of which must be used).
func checkTests(table map[string]rule, support map[string][]string, fixtures []string, up map[string][]struct{ pkg, why string }, tests map[string][]string) []string {
	var errs []string
	for p, imps := range tests {
		if _, ok := support[p]; ok {
			continue
		}
		r, ok := table[p]
		if !ok {
			continue // reported by check
		}
		for _, d := range imps {
			if _, ok := support[d]; ok || slices.Contains(fixtures, d) {
				continue
			}
			if dr, ok := table[d]; ok && dr.level <= r.level {
				continue
			}
			if slices.ContainsFunc(up[p], func(u struct{ pkg, why string }) bool { return u.pkg == d }) {
				continue
			}
			errs = append(errs, fmt.Sprintf("tests of %s (L%d) reach up to %s: test imports keep the direction of the code (or list it, with why, in testUp)", p, r.level, d))
		}
	}
	for p, ups := range up {
		for _, u := range ups {
			if !slices.Contains(tests[p], u.pkg) {
				errs = append(errs, fmt.Sprintf("testUp: tests of %s do not import %s (remove it)", p, u.pkg))
			}
		}
		if len(ups) == 0 {
			errs = append(errs, fmt.Sprintf("testUp: %s has an empty entry (remove it)", p))
		}
	}
	sort.Strings(errs)
	return errs
}

// matches reports whether package p matches a never pattern.
func matches(pattern, p string) bool {
	if pattern == "..." {
		return true
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return p == base || strings.HasPrefix(p, base+"/")
	}
	return p == pattern
}

// checkNever checks the never rules over the code's imports, followed
// through other packages of ours: the message names the chain.
func checkNever(rules []struct {
	from []string
	to   string
	why  string
}, exempt []string, support map[string][]string, code map[string][]string) []string {
	var errs []string
	for _, r := range rules {
		for p := range code {
			if p == r.to || slices.Contains(exempt, p) {
				continue
			}
			if _, ok := support[p]; ok {
				continue
			}
			if !slices.ContainsFunc(r.from, func(pat string) bool { return matches(pat, p) }) {
				continue
			}
			// Breadth first, remembering how each package was reached.
			via := map[string]string{p: ""}
			queue := []string{p}
			for len(queue) > 0 {
				q := queue[0]
				queue = queue[1:]
				if q == r.to {
					chain := []string{q}
					for c := via[q]; c != ""; c = via[c] {
						chain = append([]string{c}, chain...)
					}
					errs = append(errs, fmt.Sprintf("%s reaches %s (%s): never, because %s", p, r.to, strings.Join(chain, " -> "), r.why))
					break
				}
				for _, d := range code[q] {
					if _, seen := via[d]; !seen {
						via[d] = q
						queue = append(queue, d)
					}
				}
			}
		}
	}
	sort.Strings(errs)
	return errs
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
	code, tests := imports(t)
	if len(code) < 3 {
		t.Fatalf("only %d packages listed; is go list looking at the module?", len(code))
	}
	levelled := map[string][]string{}
	for p, imps := range code {
		if _, ok := testSupport[p]; !ok {
			levelled[p] = imps
		}
	}
	for _, e := range check(table, levelled) {
		t.Error(e)
	}
	for _, e := range checkSupport(testSupport, code) {
		t.Error(e)
	}
	for _, e := range checkTests(table, testSupport, fixtures, testUp, tests) {
		t.Error(e)
	}
	for _, e := range checkNever(never, neverExempt, testSupport, code) {
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

// TestRulesCatch: the test-import, test-support and never checks each
// fail on the violation they exist for, so their silence means something.
func TestRulesCatch(t *testing.T) {
	tbl := map[string]rule{
		"a0": {0, nil}, "b1": {1, []string{"a0"}}, "c2": {2, []string{"b1"}}, "d3": {3, []string{"c2"}}, "e2": {2, nil},
	}
	support := map[string][]string{"s": {"c2"}}
	type up = map[string][]struct{ pkg, why string }
	for _, tc := range []struct {
		name string
		errs []string
		want string // "" for none
	}{
		{"test at its level", checkTests(tbl, support, []string{"e2"}, nil, map[string][]string{"c2": {"b1", "s", "e2"}}), ""},
		{"test reaches up", checkTests(tbl, support, nil, nil, map[string][]string{"c2": {"d3"}}), "reach up to d3"},
		{"test reaches up, listed", checkTests(tbl, support, nil, up{"c2": {{"d3", "why"}}}, map[string][]string{"c2": {"d3"}}), ""},
		{"listed but unused", checkTests(tbl, support, nil, up{"c2": {{"d3", "why"}}}, map[string][]string{"c2": nil}), "do not import d3"},
		{"support imported by code", checkSupport(support, map[string][]string{"s": {"c2"}, "d3": {"s"}}), "imports test support s"},
		{"support imports more", checkSupport(support, map[string][]string{"s": {"c2", "d3"}}), "does not allow"},
		{"never, direct", checkNever([]struct {
			from []string
			to   string
			why  string
		}{{[]string{"c2"}, "e2", "because"}}, nil, support, map[string][]string{"c2": {"e2"}, "e2": nil}), "c2 -> e2"},
		{"never, through another", checkNever([]struct {
			from []string
			to   string
			why  string
		}{{[]string{"d3/..."}, "e2", "because"}}, nil, support, map[string][]string{"d3": {"c2"}, "c2": {"e2"}, "e2": nil}), "d3 -> c2 -> e2"},
		{"never, exempt", checkNever([]struct {
			from []string
			to   string
			why  string
		}{{[]string{"..."}, "e2", "because"}}, []string{"d3"}, support, map[string][]string{"d3": {"e2"}, "e2": nil}), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want == "" {
				if len(tc.errs) != 0 {
					t.Errorf("reports %v, want nothing", tc.errs)
				}
				return
			}
			if !slices.ContainsFunc(tc.errs, func(e string) bool { return strings.Contains(e, tc.want) }) {
				t.Errorf("got %v, want a message with %q", tc.errs, tc.want)
			}
		})
	}
}

// TestArchitectureDocument: docs/ARCHITECTURE.md names every package of
// the module (as `path` or in a `a`, `b` list under its parent), so the
// document a newcomer reads cannot leave one out.
func TestArchitectureDocument(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	code, _ := imports(t)
	for p := range code {
		if strings.Contains(doc, "`"+p+"`") || p == "cmd/perfc" && strings.Contains(doc, "`cmd/perfc`") {
			continue
		}
		// Tools listed as `internal/tool/typeperf`, `relog`, ...
		if dir, base := filepath.Split(p); dir == "internal/tool/" && strings.Contains(doc, "`"+base+"`") {
			continue
		}
		t.Errorf("docs/ARCHITECTURE.md does not name package %s", p)
	}
}
