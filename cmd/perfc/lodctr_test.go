package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/internal/tool/ctrpp"
	"github.com/perfcounters/perfcounters/manifest"
	statedir "github.com/perfcounters/perfcounters/state"
)

// runEnv runs perfc with the given environment only.
func runEnv(vars map[string]string, args ...string) (stdout, stderr string, code int) {
	var o, e bytes.Buffer
	code = run(context.Background(), args, &env{stdout: &o, stderr: &e, stdin: strings.NewReader(""),
		getenv: func(k string) string { return vars[k] }})
	return o.String(), e.String(), code
}

// stateEnv is an environment with PERFC_STATE_DIR set to dir and nothing
// else.
func stateEnv(dir string) func(string) string {
	return func(k string) string {
		if k == "PERFC_STATE_DIR" {
			return dir
		}
		return ""
	}
}

const exampleManifest = "../../examples/httpserver/httpserver.man"

// lodctrCase is a perfc command (lodctr, unlodctr) run over a state
// directory, what it must answer and leave.
type lodctrCase struct {
	name     string
	args     []string
	code     int
	out, err string // substrings
	regs     int    // registrations afterwards
}

// runLodctrCases runs tests in turn over the state directory state.
func runLodctrCases(t *testing.T, state string, tests []lodctrCase) {
	t.Helper()
	vars := map[string]string{"PERFC_STATE_DIR": state}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := runEnv(vars, tc.args...)
			if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errs, tc.err) {
				t.Fatalf("perfc %q: exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q",
					tc.args, code, out, errs, tc.code, tc.out, tc.err)
			}
			if regs, err := readRegistrations(state); err != nil || len(regs) != tc.regs {
				t.Fatalf("%d registrations (%v), want %d", len(regs), err, tc.regs)
			}
		})
	}
}

func TestLodctrCommand(t *testing.T) {
	state := t.TempDir()
	bad := filepath.Join(t.TempDir(), "bad.man")
	os.WriteFile(bad, []byte("<instrumentationManifest><instrumentation/></instrumentationManifest>\n"), 0o644)

	tests := []lodctrCase{
		{"windows spelling", []string{"lodctr", "/m:" + exampleManifest}, 0, "Info: Successfully installed performance counters for " + exampleManifest, "", 1},
		{"again, plain argument, resource path ignored", []string{"lodctr", exampleManifest, "/usr/bin/httpserver"}, 0, "Successfully installed", "", 1},
		{"dash spelling, separate value, verbose", []string{"lodctr", "-m", exampleManifest, "-v"}, 0, "HTTP Server", "", 1},
		{"query", []string{"lodctr", "/q"}, 0, "PerfcExampleHTTPServer", "", 1},
		{"no manifest", []string{"lodctr"}, 2, "", "no manifest given", 1},
		{"missing ini file", []string{"lodctr", "counters.ini", "/exec:/bin/sh"}, 3, "", "unable to install performance counters for counters.ini", 1},
		{"exec without an ini file", []string{"lodctr", exampleManifest, "/exec:/bin/sh"}, 2, "", "go with a V1 .ini file", 1},
		{"arg without exec", []string{"lodctr", "counters.ini", "/arg:x"}, 2, "", "/arg: without /exec:", 1},
		{"V1 option", []string{"lodctr", "/s:save.ini"}, 2, "", "not supported", 1},
		{"invalid manifest", []string{"lodctr", "/m:" + bad}, 1, "", bad + ":1", 1},
		{"missing manifest", []string{"lodctr", "/m:nothere.man"}, 3, "", "nothere.man", 1},
		{"unlodctr by GUID", []string{"unlodctr", "5b0d7c1e-8f3a-4c2b-9e61-3a7d2c9f4b10"}, 0, "Successfully uninstalled", "", 0},
		{"unlodctr unknown", []string{"unlodctr", "PerfcExampleHTTPServer"}, 3, "", "no provider", 0},
		{"register for the next case", []string{"lodctr", exampleManifest}, 0, "Successfully installed", "", 1},
		{"unlodctr by manifest", []string{"unlodctr", "/m:" + exampleManifest}, 0, "from the counter definition XML file " + exampleManifest, "", 0},
		{"unlodctr nothing", []string{"unlodctr"}, 2, "", "no manifest", 0},
	}
	runLodctrCases(t, state, tests)
}

func TestHostOptions(t *testing.T) {
	e := &env{getenv: func(k string) string {
		return map[string]string{"PERFC_STATE_DIR": "/s", "PERFC_SHM_DIR": "/dev/shm/x"}[k]
	}}
	o, err := hostOptions(e)
	if err != nil || o.StateDir != "/s" || o.SegmentDir != "/dev/shm/x" {
		t.Fatalf("hostOptions = %+v, %v", o, err)
	}
}

func TestCtrppCommand(t *testing.T) {
	m, err := manifest.ParseFile(exampleManifest)
	if err != nil {
		t.Fatal(err)
	}
	gen := func(pkg string) string {
		b, err := ctrpp.Generate(m, ctrpp.Options{Package: pkg, Source: "httpserver.man"})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	withGo := t.TempDir()
	os.WriteFile(filepath.Join(withGo, "a.go"), []byte("// Package foo.\npackage foo\n"), 0o644)
	noGo := filepath.Join(t.TempDir(), "my-counters")
	os.Mkdir(noGo, 0o755)

	tests := []struct {
		name string
		args []string
		file string // output file to read; "" = stdout
		want string // package of the expected output; "" = failure
	}{
		{"stdout with -p", []string{"ctrpp", exampleManifest, "-p", "stats"}, "", "stats"},
		{"package from the files beside -o", []string{"ctrpp", exampleManifest, "-o", filepath.Join(withGo, "gen.go")}, filepath.Join(withGo, "gen.go"), "foo"},
		{"package from the directory name", []string{"ctrpp", "-o", filepath.Join(noGo, "gen.go"), exampleManifest}, filepath.Join(noGo, "gen.go"), "my_counters"},
		{"-p wins", []string{"ctrpp", exampleManifest, "-o", filepath.Join(withGo, "p.go"), "-p", "main"}, filepath.Join(withGo, "p.go"), "main"},
		{"no package for stdout", []string{"ctrpp", exampleManifest}, "", ""},
		{"bad package", []string{"ctrpp", exampleManifest, "-p", "1x"}, "", ""},
		{"no manifest", []string{"ctrpp", "-p", "x"}, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := runEnv(nil, tc.args...)
			if tc.want == "" {
				if code == 0 {
					t.Fatalf("perfc %q succeeded", tc.args)
				}
				return
			}
			if code != 0 {
				t.Fatalf("perfc %q: exit %d: %s", tc.args, code, errs)
			}
			if tc.file != "" {
				b, err := os.ReadFile(tc.file)
				if err != nil {
					t.Fatal(err)
				}
				out = string(b)
			}
			if out != gen(tc.want) {
				t.Errorf("output differs from ctrpp.Generate with package %s:\n%s", tc.want, out)
			}
		})
	}
}

// The example's generated wrappers are committed: they must be what
// `go generate` (perfc ctrpp) makes from its manifest today.
func TestExampleGeneratedCodeCurrent(t *testing.T) {
	out := filepath.Join(t.TempDir(), "counters.go")
	if _, errs, code := runEnv(nil, "ctrpp", exampleManifest, "-o", out, "-p", "main"); code != 0 {
		t.Fatal(errs)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("../../examples/httpserver/counters.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, committed) {
		t.Error("examples/httpserver/counters.go is stale: run go generate ./examples/httpserver")
	}
}

// readRegistrations returns the V2 registrations of a state directory; a
// damaged entry is an error.
func readRegistrations(dir string) ([]statedir.Registration, error) {
	regs, problems, err := statedir.ReadRegistrations(dir)
	if err == nil && len(problems) > 0 {
		err = errors.Join(problems...)
	}
	return regs, err
}

// TestLodctrRules runs lodctr's rules from the command line: /u: names the
// publishers, a second provider may not take a registered set's GUID or
// name, and unlodctr with a name two providers share lists them.
func TestLodctrRules(t *testing.T) {
	state := t.TempDir()
	src, err := os.ReadFile(exampleManifest)
	if err != nil {
		t.Fatal(err)
	}
	// variant writes the example with the provider GUID, set GUID and set
	// name given (the provider name stays).
	variant := func(name, provider, set, setName string) string {
		b := strings.ReplaceAll(string(src), "{5B0D7C1E-8F3A-4C2B-9E61-3A7D2C9F4B10}", provider)
		b = strings.ReplaceAll(b, "{5B0D7C1E-8F3A-4C2B-9E61-3A7D2C9F4B11}", set)
		b = strings.ReplaceAll(b, `name="HTTP Server"`, `name="`+setName+`"`)
		p := filepath.Join(t.TempDir(), name)
		os.WriteFile(p, []byte(b), 0o644)
		return p
	}
	sameName := variant("samename.man", "{0A1B2C3D-0000-4000-8000-000000000001}", "{0A1B2C3D-0000-4000-8000-000000000011}", "http server")
	sameGUID := variant("sameguid.man", "{0A1B2C3D-0000-4000-8000-000000000002}", "{5B0D7C1E-8F3A-4C2B-9E61-3A7D2C9F4B11}", "Other Server")
	twin := variant("twin.man", "{0A1B2C3D-0000-4000-8000-000000000003}", "{0A1B2C3D-0000-4000-8000-000000000013}", "Twin Server")
	builtin := variant("memory.man", "{0A1B2C3D-0000-4000-8000-000000000004}", "{0A1B2C3D-0000-4000-8000-000000000014}", "memory")
	tests := []lodctrCase{
		{"publishers by uid and name", []string{"lodctr", "/m:" + exampleManifest, "/U:4242,root"}, 0, "Successfully installed", "", 1},
		{"listed", []string{"lodctr", "/q"}, 0, "published by uid 4242,0", "", 1},
		{"unknown user", []string{"lodctr", exampleManifest, "/u:no-such-user-perfc"}, 2, "", "no-such-user-perfc", 1},
		{"same set name", []string{"lodctr", sameName}, 1, "", `counter set name "http server" is already registered`, 1},
		{"same set GUID", []string{"lodctr", sameGUID}, 1, "", "has the GUID {5B0D7C1E-8F3A-4C2B-9E61-3A7D2C9F4B11}", 1},
		{"the name of a built-in object", []string{"lodctr", builtin}, 1, "", `"Memory" is the name of a built-in object`, 1},
		{"a twin of the same provider name", []string{"lodctr", twin}, 0, "Successfully installed", "", 2},
		{"ambiguous unlodctr", []string{"unlodctr", "PerfcExampleHTTPServer"}, 1, "", "{0A1B2C3D-0000-4000-8000-000000000003}", 2},
		{"by GUID instead", []string{"unlodctr", "{0A1B2C3D-0000-4000-8000-000000000003}"}, 0, "Successfully uninstalled", "", 1},
		{"help", []string{"lodctr", "/?"}, 0, "/u:USERS", "", 1},
	}
	runLodctrCases(t, state, tests)
}
