package perfini

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/perfcounters/perfcounters/filecap"
)

// Load reads the .ini file at path and its symbol file, and resolves
// them (Resolve). The symbol file is looked for beside the .ini, as
// Windows' lodctr requires: by the name [info] symbolfile gives, else by
// the only file of that directory whose name differs from it only in
// case (Windows' file names compare without case). A symbolfile with a
// directory part is looked for by its last element, with a warning.
func Load(path string) (*Provider, error) {
	return LoadWith(path, func(path, what string) ([]byte, error) { return filecap.ReadFile(path, what, MaxFileSize) })
}

// LoadWith is Load reading each file (what names it: ".ini file",
// "symbol file") with read, which a caller that registers for every user
// makes refuse files and links other users control (lodctr:
// state.ReadInputFile).
func LoadWith(path string, read func(path, what string) ([]byte, error)) (*Provider, error) {
	data, err := read(path, ".ini file")
	if err != nil {
		return nil, err
	}
	ini, err := ParseINI(path, data)
	if err != nil {
		return nil, err
	}
	sym, warning, err := FindSymbolFile(path, ini)
	if err != nil {
		return nil, err
	}
	sdata, err := read(sym, "symbol file")
	if err != nil {
		return nil, &Error{File: path, Line: ini.SymbolLine, Msg: fmt.Sprintf("symbolfile %s: %v", ini.SymbolFile, err)}
	}
	syms, err := ParseSymbols(sym, sdata)
	if err != nil {
		return nil, err
	}
	p, err := Resolve(ini, syms)
	if err != nil {
		return nil, err
	}
	if warning != "" {
		p.Warnings = append([]string{warning}, p.Warnings...)
	}
	return p, nil
}

// FindSymbolFile returns the path of the symbol file that ini (read from
// iniPath) names: in iniPath's directory, by exact name, else by the one
// name there that differs from it only in case. warning is set when the
// symbolfile value had a directory part, which is not used.
func FindSymbolFile(iniPath string, ini *INI) (path, warning string, err error) {
	name := ini.SymbolFile
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		warning = warn(iniPath, ini.SymbolLine, "symbolfile %s: looked for as %s beside the .ini, where lodctr wants the symbol file", name, name[i+1:])
		name = name[i+1:]
	}
	fail := func(format string, args ...any) (string, string, error) {
		return "", "", &Error{File: iniPath, Line: ini.SymbolLine, Msg: fmt.Sprintf(format, args...)}
	}
	if name == "" || name == "." || name == ".." {
		return fail("symbolfile %q names no file", ini.SymbolFile)
	}
	dir := filepath.Dir(iniPath)
	exact := filepath.Join(dir, name)
	if _, err := os.Stat(exact); err == nil {
		return exact, warning, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fail("symbolfile %s: %v", name, err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fail("symbolfile %s: %v", name, err)
	}
	var match []string
	for _, e := range ents {
		if strings.EqualFold(e.Name(), name) {
			match = append(match, e.Name())
		}
	}
	switch len(match) {
	case 0:
		return fail("symbolfile %s: no such file in %s (the symbol file must be beside the .ini)", name, dir)
	case 1:
		return filepath.Join(dir, match[0]), warning, nil
	default:
		return fail("symbolfile %s: %s differ only in case in %s; name one exactly", name, strings.Join(match, " and "), dir)
	}
}
