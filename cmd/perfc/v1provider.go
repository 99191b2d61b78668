package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/perfcounters/perfcounters/host"
)

// registerV1 reads a V1 registration file (JSON) and stores it.
func registerV1(stateDir, file string, e *env) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	var r host.V1Registration
	if err := dec.Decode(&r); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if r.Exec != "" && !filepath.IsAbs(r.Exec) {
		dir, err := filepath.Abs(filepath.Dir(file))
		if err != nil {
			return err
		}
		r.Exec = filepath.Join(dir, r.Exec)
	}
	if err := host.RegisterV1(stateDir, r); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Info: Successfully installed the V1 provider %s (%s)\n", r.Name, r.Exec)
	return nil
}

// listV1 prints the registered V1 providers after lodctr /q's V2 list.
func listV1(stateDir string, e *env) error {
	regs, err := host.ReadV1(stateDir)
	if err != nil || len(regs) == 0 {
		return err
	}
	fmt.Fprintln(e.stdout, "V1 providers:")
	for _, r := range regs {
		fmt.Fprintf(e.stdout, "  %s: %s %s (objects %v, test level %d)\n", r.Name, r.Exec, strings.Join(r.Args, " "), r.Objects, max(r.TestLevel, host.DefaultV1TestLevel))
	}
	return nil
}
