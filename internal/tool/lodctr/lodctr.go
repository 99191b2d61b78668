// Package lodctr implements `perfc lodctr` and `perfc unlodctr`, the
// counterparts of Windows' lodctr and unlodctr: they register a V2
// provider's counters manifest in the state directory (names and help
// texts get title indexes after Last Counter) and remove it again, do the
// same for a V1 (out-of-process collect) provider from its .ini file and
// symbol file (lodctr FILE.ini, unlodctr DRIVERNAME; package perfini reads
// them), and for a V1 provider described by a JSON file. The state
// directory itself is owned by the state package; this package reads the
// manifest, .ini or registration file, calls it and prints what Windows'
// tools print.
package lodctr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/perfcounters/perfcounters/manifest"
	"github.com/perfcounters/perfcounters/perfini"
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
	return state.ReadInputFile(path, "input file", maxManifest, os.Geteuid())
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

// Uninstall removes the provider registered under key: a V2 provider's
// GUID (braces optional) or provider name, or a V1 provider's name (the
// drivername of its .ini file, as unlodctr DRIVERNAME takes it). A name
// several V2 providers have is refused with their list, and so is a name
// that is both a V2 and a V1 provider's.
func Uninstall(opts Options, key string, out io.Writer) error {
	if opts.StateDir == "" {
		return fmt.Errorf("unable to uninstall performance counters for %s: no state directory", key)
	}
	v1, err := v1Named(opts, key)
	if err != nil {
		return fmt.Errorf("unable to uninstall performance counters for %s: %w", key, err)
	}
	if v1 != nil {
		return uninstallV1(opts, v1, out)
	}
	if err := uninstall(opts, key, out); err != nil {
		return fmt.Errorf("unable to uninstall performance counters for %s: %w", key, err)
	}
	fmt.Fprintf(out, "Info: Successfully uninstalled the performance counters of provider %s\n", key)
	return nil
}

// v1Named returns the V1 provider registered as name (without case), nil
// if none; a name that a V2 provider has as well is refused.
func v1Named(opts Options, name string) (*state.V1Registration, error) {
	v1, _, err := state.ReadV1(opts.StateDir)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(v1, func(r state.V1Registration) bool { return r.Name == name })
	if i < 0 {
		i = slices.IndexFunc(v1, func(r state.V1Registration) bool { return strings.EqualFold(r.Name, name) })
	}
	if i < 0 {
		return nil, nil
	}
	regs, _, err := state.ReadRegistrations(opts.StateDir)
	if err != nil {
		return nil, err
	}
	g, _ := state.NormalizeGUID(name)
	for _, r := range regs {
		if r.GUID == g || strings.EqualFold(r.Name, name) {
			return nil, fmt.Errorf("%q names the V1 provider %s and the V2 provider %s (%s): name the V2 one by its GUID, the V1 one with /v1:%s", name, v1[i].Name, r.GUID, r.Name, v1[i].Name)
		}
	}
	return &v1[i], nil
}

// uninstallV1 removes a V1 provider, as unlodctr DRIVERNAME: its
// registration and the names it entered.
func uninstallV1(opts Options, r *state.V1Registration, out io.Writer) error {
	if err := state.UnregisterV1(opts.StateDir, r.Name); err != nil {
		return fmt.Errorf("unable to uninstall performance counters for %s: %w", r.Name, err)
	}
	if opts.Verbose {
		fmt.Fprintf(out, "removed V1 provider %s (%s)", r.Name, r.Exec)
		if r.Source != "" {
			fmt.Fprintf(out, ", registered from %s", r.Source)
		}
		fmt.Fprintln(out)
		listV1(out, r)
	}
	fmt.Fprintf(out, "Info: Successfully uninstalled the performance counters of V1 provider %s\n", r.Name)
	return nil
}

// UninstallINI removes the V1 provider that the .ini file at path
// registered: the one its [info] drivername names (its symbol file is
// not read).
func UninstallINI(opts Options, path string, out io.Writer) error {
	data, err := readInput(path)
	if err != nil {
		return fmt.Errorf("unable to uninstall performance counters for %s: %w", path, err)
	}
	ini, err := perfini.ParseINI(path, data)
	if err != nil {
		return fmt.Errorf("unable to uninstall performance counters for %s: %w", path, err)
	}
	if opts.StateDir == "" {
		return fmt.Errorf("unable to uninstall performance counters for %s: no state directory", path)
	}
	v1, err := v1Named(opts, ini.DriverName)
	switch {
	case err != nil:
		return fmt.Errorf("unable to uninstall performance counters for %s: %w", path, err)
	case v1 == nil:
		return &state.ProviderNotFoundError{Msg: fmt.Sprintf("unable to uninstall performance counters for %s: no V1 provider %q (its drivername) is registered in %s", path, ini.DriverName, opts.StateDir)}
	}
	return uninstallV1(opts, v1, out)
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
// and the registrations that could not be read, with how to repair them;
// with a name (lodctr /q:NAME), that provider alone (a V2 provider by its
// name or GUID, a V1 provider by its driver name, without case), and an
// error when none has it.
func List(opts Options, name string, out io.Writer) error {
	regs, problems, err := state.ReadRegistrations(opts.StateDir)
	if err != nil {
		return err
	}
	v1, problems1, err := state.ReadV1(opts.StateDir)
	if err != nil {
		return err
	}
	if name != "" {
		regs = slices.DeleteFunc(regs, func(r state.Registration) bool {
			return !strings.EqualFold(r.Name, name) && !strings.EqualFold(strings.Trim(r.GUID, "{}"), strings.Trim(name, "{}"))
		})
		v1 = slices.DeleteFunc(v1, func(r state.V1Registration) bool { return !strings.EqualFold(r.Name, name) })
		problems, problems1 = nil, nil
		if len(regs) == 0 && len(v1) == 0 {
			return fmt.Errorf("no provider named %s is registered in %s (perfc lodctr /q lists them)", name, opts.StateDir)
		}
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
	for i := range v1 {
		r := &v1[i]
		fmt.Fprintf(out, "  %s: %s %s (objects %v, test level %d)\n", r.Name, r.Exec, strings.Join(r.Args, " "), r.Objects, max(r.TestLevel, state.DefaultV1TestLevel))
		if r.FirstCounter != 0 {
			fmt.Fprintf(out, "    from %s:\n", r.Source)
			listV1(out, r)
		}
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

// listV1 writes an .ini registration's Performance key values and names.
func listV1(out io.Writer, r *state.V1Registration) {
	if r.FirstCounter == 0 {
		return
	}
	fmt.Fprintf(out, "    First Counter %d, First Help %d, Last Counter %d, Last Help %d\n", r.FirstCounter, r.FirstHelp, r.LastCounter, r.LastHelp)
	for _, n := range r.Names {
		kind := "counter"
		if slices.Contains(r.Objects, n.Index) {
			kind = "object"
		}
		langs := slices.Sorted(maps.Keys(n.Localized))
		fmt.Fprintf(out, "  %6d  %s (%s %s, offset %d; %s)\n", n.Index, n.Name, kind, n.Symbol, n.Index-r.FirstCounter, strings.Join(langs, ","))
	}
}

// V1Exec names the executable of a V1 provider registered from an .ini
// file, which the .ini does not name: on Windows the service's
// Performance key does (Library, Open, Collect, Close), written by the
// provider's installer, not by lodctr.
type V1Exec struct {
	// Path is the executable (collect/PROTOCOL.md); a relative path is
	// taken from the working directory. Empty: the executable, arguments,
	// test level and timeout of the V1 provider already registered under
	// the .ini's drivername, as Windows' lodctr finds the service key in
	// place.
	Path string
	Args []string // its arguments (with Path only)
}

// InstallINI registers the V1 provider of the .ini file at path and its
// symbol file (perfini.Load), as Windows' lodctr FILE.ini does: its
// objects and counters get one block of title indexes after Last Counter
// (index = First Counter + offset), the database holds their English
// names (or the first language's of [languages] when English is not
// there), every language's text is kept in the registration, and the
// provider is registered under its drivername with the executable ex,
// replacing an earlier registration of that name. The provider learns
// its First Counter and First Help from the engine (collect.Indexes).
// Warnings about the files (perfini) are written before the result; a
// refusal names the file and line.
func InstallINI(opts Options, path string, ex V1Exec, out io.Writer) error {
	fail := func(err error) error {
		return fmt.Errorf("unable to install performance counters for %s: %w", path, err)
	}
	if opts.StateDir == "" {
		return fail(errors.New("no state directory"))
	}
	p, err := perfini.LoadWith(path, func(path, what string) ([]byte, error) {
		return state.ReadInputFile(path, what, perfini.MaxFileSize, os.Geteuid())
	})
	if err != nil {
		return fail(err)
	}
	reg := state.V1Registration{Name: p.DriverName, Source: path, Language: p.Language}
	var old *state.V1Registration
	if regs, _, err := state.ReadV1(opts.StateDir); err == nil {
		if i := slices.IndexFunc(regs, func(r state.V1Registration) bool { return r.Name == p.DriverName }); i >= 0 {
			old = &regs[i]
			reg.TestLevel, reg.TimeoutMS = old.TestLevel, old.TimeoutMS
		}
	}
	switch {
	case ex.Path != "":
		abs, err := filepath.Abs(ex.Path)
		if err != nil {
			return fail(err)
		}
		reg.Exec, reg.Args = abs, slices.Clone(ex.Args)
	case old != nil:
		reg.Exec, reg.Args = old.Exec, old.Args
	default:
		return fail(fmt.Errorf("no executable for the V1 provider %s: name the program that speaks collect/PROTOCOL.md (on Windows, the Library of the service's Performance key) with /exec:PATH", p.DriverName))
	}
	names := make([]state.V1Offset, len(p.Names))
	for i, n := range p.Names {
		names[i] = state.V1Offset{Offset: n.Offset, Symbol: n.Symbol, Object: n.Object, Name: n.Name, Help: n.Help}
		if len(n.Text) > 0 {
			names[i].Localized = make(map[string]state.V1Text, len(n.Text))
			for l, t := range n.Text {
				names[i].Localized[l] = state.V1Text{Name: t.Name, Help: t.Help}
			}
		}
	}
	got, err := state.RegisterV1Offsets(opts.StateDir, reg, names, state.RegisterOptions{Builtin: opts.Builtin, Reserved: opts.Reserved})
	if err != nil {
		return fail(err)
	}
	for _, w := range p.Warnings {
		fmt.Fprintf(out, "Warning: %s\n", w)
	}
	if opts.Verbose {
		if old != nil {
			fmt.Fprintf(out, "replaced the earlier registration of V1 provider %s", old.Name)
			if old.Source != "" {
				fmt.Fprintf(out, " from %s", old.Source)
			}
			fmt.Fprintln(out)
		}
		fmt.Fprintf(out, "V1 provider %s: %s %s\n", got.Name, got.Exec, strings.Join(got.Args, " "))
		listV1(out, &got)
	}
	fmt.Fprintf(out, "Info: Successfully installed performance counters for %s\n", path)
	return nil
}
