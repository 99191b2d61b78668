package main

import (
	"context"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"

	"github.com/perfcounters/perfcounters/internal/tool/ctrpp"
	"github.com/perfcounters/perfcounters/manifest"
)

func ctrppCommand() command {
	return command{
		name:  "ctrpp",
		usage: "<manifest> [-o <filename>] [-p <package>]",
		short: "generate Go constants and typed counter wrappers from a counters manifest",
		run:   runCtrpp,
		help: helpScreen{
			about: "Ctrpp generates Go constants and typed counter wrappers from a counters\nmanifest, as Windows' ctrpp generates C code.",
			usage: []string{"perfc ctrpp <manifest> [options]"},
			params: [][2]string{
				{"<manifest>", "Instrumentation manifest declaring the counter sets."},
			},
			examples: [][2]string{
				{"Generate the wrappers beside the program's sources:", "perfc ctrpp counters.man -o counters_gen.go"},
			},
		},
	}
}

func runCtrpp(ctx context.Context, c *command, e *env, args []string) error {
	fs := c.flags(e.stdout)
	out := fs.String("o", "", "Output Go file, or - for standard output. Default is standard output.")
	pkg := fs.String("p", "", "Package name of the generated file. Default is the package of the other Go files next to -o, else that directory's name.")
	pos, err := parseFlags(fs, args)
	if err == errHelp {
		return nil
	}
	if err != nil {
		return err
	}
	switch len(pos) {
	case 0:
		return usagef("no manifest given")
	case 1:
	default:
		return usagef("one manifest at a time (have %d)", len(pos))
	}
	m, err := manifest.ParseFile(pos[0])
	if err != nil {
		return err
	}
	name := *pkg
	if name == "" && *out == "-" {
		return usagef("no package name: give -p PACKAGE")
	}
	if name == "" {
		if name, err = guessPackage(*out); err != nil {
			return usagef("%v", err)
		}
	}
	src, err := ctrpp.Generate(m, ctrpp.Options{Package: name, Source: filepath.Base(pos[0])})
	if err != nil {
		return err
	}
	if *out == "" || *out == "-" {
		_, err := e.stdout.Write(src)
		return err
	}
	return writeReplacing(*out, src)
}

// guessPackage returns the package of the Go files beside out (the
// generated file joins them), or the directory's name when there are none.
func guessPackage(out string) (string, error) {
	if out == "" {
		return "", fmt.Errorf("no package name: give -p PACKAGE")
	}
	dir := filepath.Dir(out)
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range files {
		if filepath.Clean(f) == filepath.Clean(out) || strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.PackageClauseOnly)
		if err == nil {
			return af.Name.Name, nil
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	name := strings.ToLower(strings.Map(func(r rune) rune {
		if r == '-' || r == '.' {
			return '_'
		}
		return r
	}, filepath.Base(abs)))
	if !token.IsIdentifier(name) {
		return "", fmt.Errorf("cannot derive a package name from %s: give -p PACKAGE", dir)
	}
	return name, nil
}

// writeReplacing writes a file through a temporary file and a rename, so
// a failed run never leaves half a source file behind.
func writeReplacing(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
