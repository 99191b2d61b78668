package ctrpp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// mainProgram uses the code generated from ucs.man the way a provider
// would, and prints what it reads back through the handles.
const mainProgram = `package main

import (
	"fmt"
	"os"

	"gentest/ucs"

	"github.com/perfcounters/perfcounters/provider"
)

func main() {
	p, err := ucs.Start(provider.Options{Dir: os.Args[1], AllowDiskBacked: true})
	if err != nil {
		fmt.Println("start:", err)
		os.Exit(1)
	}
	g, err := p.GeometricWave.NewInstance("route1", 7)
	if err != nil {
		fmt.Println("instance:", err)
		os.Exit(1)
	}
	g.TriangleWave.Add(1)
	g.TriangleWave.Add(2)
	g.SquareWave.Set(42)
	tw := p.TrignometricWave
	tw.RawFraction.Set(3)
	tw.ConstantNumber.Set(4)
	tw.ConstantValue.Inc()
	fmt.Println("values", g.TriangleWave.Value(), g.SquareWave.Value(), tw.RawFraction.Value(), tw.ConstantNumber.Value(), tw.ConstantValue.Value())
	if _, err := os.Stat(p.Path()); err != nil {
		fmt.Println("segment:", err)
		os.Exit(1)
	}
	if err := g.Delete(); err != nil {
		fmt.Println("delete:", err)
		os.Exit(1)
	}
	if err := p.Close(); err != nil {
		fmt.Println("close:", err)
		os.Exit(1)
	}
	_, err = os.Stat(p.Path())
	fmt.Println("segment removed", os.IsNotExist(err))
}
`

// TestBuildAndRun builds the code generated from every manifest in a module
// of its own (replace pointing at this repository) and runs a provider
// written against the code generated from ucs.man.
func TestBuildAndRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module; skipped with -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not found")
	}
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", fmt.Sprintf("module gentest\n\ngo 1.26\n\nrequire github.com/perfcounters/perfcounters v0.0.0\n\nreplace github.com/perfcounters/perfcounters => %s\n", root))
	// The repository's go.sum vouches for its dependencies, so the build
	// needs neither the checksum database nor a network: only the module
	// cache (GOPROXY=off), as on a machine that reaches only a proxy.
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write("go.sum", string(sum))
	write("main.go", mainProgram)
	write("ucs/gen.go", string(generateFile(t, "../../../manifest/testdata/ucs.man", "ucs")))
	for i, f := range allManifests(t) {
		pkg := fmt.Sprintf("m%d", i)
		write(pkg+"/gen.go", string(generateFile(t, f, pkg)))
	}
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off", "GONOSUMDB=*", "GOTOOLCHAIN=local")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(goBin, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("vet", "./...")
	segDir := filepath.Join(dir, "segments")
	out := run("run", ".", segDir)
	want := "values 3 42 3 4 1\nsegment removed true\n"
	if out != want {
		t.Errorf("program printed\n%s\nwant\n%s", out, want)
	}
}
