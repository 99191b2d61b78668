// Package lodctr implements `perfc lodctr` and `perfc unlodctr`, the
// counterparts of Windows' lodctr /m and unlodctr /m: they register a V2
// provider's counters manifest in the host's state directory (names and
// help texts get title indexes after Last Counter) and remove it again.
// The state itself is owned by the host package; this package reads the
// manifest, calls it and prints what Windows' tools print.
package lodctr

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/manifest"
)

// Options configure both commands.
type Options struct {
	StateDir string // the host's state directory; required
	// Verbose lists the title index given to every counter set and
	// counter (lodctr) or freed (unlodctr) after the usual message.
	Verbose bool
}

// Install registers the manifest at path, replacing an earlier
// registration of the same provider GUID. On success it writes Windows'
// message to out; an invalid manifest's error names the file, line,
// element and rule.
func Install(opts Options, path string, out io.Writer) error {
	if opts.StateDir == "" {
		return errors.New("lodctr: no state directory")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("unable to install performance counters for %s: %w", path, err)
	}
	m, err := manifest.Parse(path, bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("unable to install performance counters for %s: %w", path, err)
	}
	res, err := host.Register(opts.StateDir, m, data, path)
	if err != nil {
		return fmt.Errorf("unable to install performance counters for %s: %w", path, err)
	}
	fmt.Fprintf(out, "Info: Successfully installed performance counters for %s\n", path)
	if opts.Verbose {
		for _, r := range res {
			if r.Replaced != nil {
				fmt.Fprintf(out, "replaced the earlier registration of provider %s from %s\n", r.Replaced.GUID, r.Replaced.Source)
			}
			list(out, &r.Registration)
		}
	}
	return nil
}

// UninstallManifest removes the registration of every provider the
// manifest at path declares.
func UninstallManifest(opts Options, path string, out io.Writer) error {
	m, err := manifest.ParseFile(path)
	if err != nil {
		return fmt.Errorf("unable to uninstall performance counters for %s: %w", path, err)
	}
	for _, p := range m.Providers {
		if err := uninstall(opts, p.GUID, out); err != nil {
			return fmt.Errorf("unable to uninstall performance counters for %s: %w", path, err)
		}
	}
	fmt.Fprintf(out, "Info: Successfully uninstalled the performance counters from the counter definition XML file %s\n", path)
	return nil
}

// Uninstall removes the provider registered under key: its GUID (braces
// optional) or its provider name.
func Uninstall(opts Options, key string, out io.Writer) error {
	if err := uninstall(opts, key, out); err != nil {
		return fmt.Errorf("unable to uninstall performance counters for %s: %w", key, err)
	}
	fmt.Fprintf(out, "Info: Successfully uninstalled the performance counters of provider %s\n", key)
	return nil
}

func uninstall(opts Options, key string, out io.Writer) error {
	if opts.StateDir == "" {
		return errors.New("no state directory")
	}
	r, err := host.Unregister(opts.StateDir, key)
	if err != nil {
		return err
	}
	if opts.Verbose {
		fmt.Fprintf(out, "removed provider %s (%s), registered from %s\n", r.GUID, r.Name, r.Source)
		list(out, r)
	}
	return nil
}

// List writes the providers registered in the state directory.
func List(opts Options, out io.Writer) error {
	regs, err := host.ReadRegistrations(opts.StateDir)
	if err != nil {
		return err
	}
	if len(regs) == 0 {
		fmt.Fprintf(out, "no providers registered in %s\n", opts.StateDir)
		return nil
	}
	for i := range regs {
		fmt.Fprintf(out, "provider %s %q from %s\n", regs[i].GUID, regs[i].Name, regs[i].Source)
		list(out, &regs[i])
	}
	return nil
}

func list(out io.Writer, r *host.Registration) {
	for _, s := range r.Sets {
		fmt.Fprintf(out, "  %6d  %s %s\n", s.NameIndex, s.Name, s.GUID)
		for _, c := range s.Counters {
			fmt.Fprintf(out, "  %6d    %s (id %d)\n", c.NameIndex, c.Name, c.ID)
		}
	}
}
