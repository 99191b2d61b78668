package ctrpp

import (
	"bytes"
	"go/format"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"

	goldenfile "github.com/perfcounters/perfcounters/internal/golden"

	"github.com/perfcounters/perfcounters/manifest"
)

// Manifests kept in the repository (manifest/testdata), so these tests do
// not depend on the shared tree.
var goldens = []struct{ manifest, golden string }{
	{"../../../manifest/testdata/ucs.man", "testdata/ucs.golden"},
	{"../../../manifest/testdata/msdocs-example.man", "testdata/msdocs-example.golden"},
}

func generateFile(t *testing.T, path, pkg string) []byte {
	t.Helper()
	m, err := manifest.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Generate(m, Options{Package: pkg, Source: filepath.Base(path)})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGolden(t *testing.T) {
	for _, g := range goldens {
		t.Run(filepath.Base(g.golden), func(t *testing.T) {
			goldenfile.Check(t, g.golden, string(generateFile(t, g.manifest, "counters")))
		})
	}
}

// allManifests returns the repository's copies of the twelve real
// manifests (manifest/testdata/PROVENANCE.md).
func allManifests(t *testing.T) []string {
	files, _ := filepath.Glob("../../../manifest/testdata/*.man")
	for _, pat := range []string{"*/*.man", "*/*/*.man"} {
		more, _ := filepath.Glob(filepath.Join("../../../manifest/testdata/conformance", pat))
		files = append(files, more...)
	}
	if len(files) != 12 {
		t.Fatalf("found %d manifest copies, want the 12 real ones", len(files))
	}
	return files
}

func TestGeneratedIsGofmtCleanAndParses(t *testing.T) {
	for _, f := range allManifests(t) {
		t.Run(f, func(t *testing.T) {
			out := generateFile(t, f, "counters")
			formatted, err := format.Source(out)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(formatted, out) {
				t.Error("output is not gofmt-clean")
			}
			if _, err := parser.ParseFile(token.NewFileSet(), "gen.go", out, parser.AllErrors); err != nil {
				t.Error(err)
			}
			again := generateFile(t, f, "counters")
			if !bytes.Equal(again, out) {
				t.Error("output differs between two runs")
			}
		})
	}
}
