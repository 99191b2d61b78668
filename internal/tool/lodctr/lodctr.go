// Package lodctr implements `perfc lodctr` and `perfc unlodctr`, the
// counterparts of Windows' lodctr /m and unlodctr /m: they register a V2
// provider's counters manifest in the state directory (names and help
// texts get title indexes after Last Counter) and remove it again, and do
// the same for V1 (out-of-process collect) providers described by a JSON
// file. The state directory itself is owned by the state package; this
// package reads the manifest or registration file, calls it and prints
// what Windows' tools print.
package lodctr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/perfcounters/perfcounters/manifest"
	"github.com/perfcounters/perfcounters/state"
	"github.com/perfcounters/perfcounters/titles"
)

// Options configure both commands.
type Options struct {
	StateDir string // the state directory; required
	// Verbose lists the title index given to every counter set and
	// counter (lodctr) or freed (unlodctr) after the usual message.
	Verbose bool
	// Builtin enters the names of the host's built-in objects into a title
	// database (host.BuiltinTitles), so that registered names never take
	// their indexes; nil enters none.
	Builtin func(*titles.DB) error
	// Reserved are the names of the host's built-in objects
	// (host.BuiltinObjects), which no counter set may take.
	Reserved []string
	// Publishers are the uids allowed to publish a registered provider's
	// counter sets (lodctr /u:); empty means the registering user.
	Publishers []uint32
}

// maxManifest bounds the size of a manifest or V1 registration file read.
const maxManifest = 64 << 20

func readInput(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxManifest+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxManifest {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, maxManifest)
	}
	return data, nil
}

// Install registers the manifest at path, replacing an earlier
// registration of the same provider GUID. On success it writes Windows'
// message to out; an invalid manifest's error names the file, line,
// element and rule.
func Install(opts Options, path string, out io.Writer) error {
	if opts.StateDir == "" {
		return errors.New("lodctr: no state directory")
	}
	data, err := readInput(path)
	if err != nil {
		return fmt.Errorf("unable to install performance counters for %s: %w", path, err)
	}
	m, err := manifest.Parse(path, bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("unable to install performance counters for %s: %w", path, err)
	}
	res, err := state.Register(opts.StateDir, m, data, path, state.RegisterOptions{Builtin: opts.Builtin, Reserved: opts.Reserved, Publishers: opts.Publishers})
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
// optional) or its provider name. A name several providers have is
// refused with their list.
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
	r, err := state.Unregister(opts.StateDir, key)
	if err != nil {
		return err
	}
	if opts.Verbose {
		fmt.Fprintf(out, "removed provider %s (%s), registered from %s\n", r.GUID, r.Name, r.Source)
		list(out, r)
	}
	return nil
}

// List writes the V2 and V1 providers registered in the state directory,
// and the registrations that could not be read, with how to repair them.
func List(opts Options, out io.Writer) error {
	regs, problems, err := state.ReadRegistrations(opts.StateDir)
	if err != nil {
		return err
	}
	v1, problems1, err := state.ReadV1(opts.StateDir)
	if err != nil {
		return err
	}
	if len(regs) == 0 && len(v1) == 0 {
		fmt.Fprintf(out, "no providers registered in %s\n", opts.StateDir)
	}
	for i := range regs {
		fmt.Fprintf(out, "provider %s %q from %s, published by uid %s\n", regs[i].GUID, regs[i].Name, regs[i].Source, uids(regs[i].Publishers))
		list(out, &regs[i])
	}
	if len(v1) > 0 {
		fmt.Fprintln(out, "V1 providers:")
	}
	for _, r := range v1 {
		fmt.Fprintf(out, "  %s: %s %s (objects %v, test level %d)\n", r.Name, r.Exec, strings.Join(r.Args, " "), r.Objects, max(r.TestLevel, state.DefaultV1TestLevel))
	}
	for _, p := range append(problems, problems1...) {
		fmt.Fprintf(out, "damaged: %v\n", p)
	}
	return nil
}

func uids(u []uint32) string {
	s := make([]string, len(u))
	for i, x := range u {
		s[i] = strconv.FormatUint(uint64(x), 10)
	}
	return strings.Join(s, ",")
}

func list(out io.Writer, r *state.Registration) {
	for _, s := range r.Sets {
		fmt.Fprintf(out, "  %6d  %s %s\n", s.NameIndex, s.Name, s.GUID)
		for _, c := range s.Counters {
			fmt.Fprintf(out, "  %6d    %s (id %d)\n", c.NameIndex, c.Name, c.ID)
		}
	}
}

// ParsePublishers reads lodctr's /u: value: users, by name or uid,
// separated by commas.
func ParsePublishers(s string) ([]uint32, error) {
	var out []uint32
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, fmt.Errorf("/u:%s: an empty user name", s)
		}
		if n, err := strconv.ParseUint(f, 10, 32); err == nil {
			out = append(out, uint32(n))
			continue
		}
		u, err := user.Lookup(f)
		if err != nil {
			return nil, fmt.Errorf("/u:%s: %w", s, err)
		}
		n, err := strconv.ParseUint(u.Uid, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("/u:%s: user %s has uid %q", s, f, u.Uid)
		}
		out = append(out, uint32(n))
	}
	return out, nil
}

// InstallV1 reads a V1 registration file (JSON, state.V1Registration;
// a relative exec is taken from the file's directory) and registers it.
func InstallV1(opts Options, file string, out io.Writer) error {
	data, err := readInput(file)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r state.V1Registration
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
	if err := state.RegisterV1(opts.StateDir, r, state.RegisterOptions{Builtin: opts.Builtin}); err != nil {
		return err
	}
	fmt.Fprintf(out, "Info: Successfully installed the V1 provider %s (%s)\n", r.Name, r.Exec)
	return nil
}

// UninstallV1 removes the V1 provider registered under name.
func UninstallV1(opts Options, name string, out io.Writer) error {
	if err := state.UnregisterV1(opts.StateDir, name); err != nil {
		return err
	}
	fmt.Fprintf(out, "Info: Successfully uninstalled the V1 provider %s\n", name)
	return nil
}
