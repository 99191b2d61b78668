package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/collect"
	"github.com/perfcounters/perfcounters/engine"
	"github.com/perfcounters/perfcounters/titles"
)

// stateV1File lists the registered V1 (out-of-process collect procedure)
// providers in the state directory.
const stateV1File = "v1.json"

// V1Registration registers an out-of-process V1 provider: an executable in
// any language speaking collect/PROTOCOL.md, started by the host's engine.
// It plays the part of a Windows service's Performance registry key and
// its .ini file: the executable (Library/Open/Collect/Close), the objects
// it serves (Object List), ExtCounterTestLevel, and the names of the title
// indexes its objects use.
//
// A V1 provider writes title indexes into its own output, so it states them
// here rather than being given them: Names lists the indexes it brings,
// each with its name and help, and RegisterV1 persists them in the state's
// title database (Last Counter moves past them, as lodctr does for a V1
// .ini file). An index already holding a name is refused, unless another
// V1 provider brought it under the same name (two providers sharing a
// counter name), so a V1 provider never renames or removes a standard or
// lodctr-registered name; standard indexes are written into its output
// without being listed.
type V1Registration struct {
	Name      string   `json:"name"`                // unique key, e.g. the service name
	Exec      string   `json:"exec"`                // absolute path of the executable
	Args      []string `json:"args,omitempty"`      // its arguments
	Objects   []uint32 `json:"objects,omitempty"`   // object title indexes it serves
	Names     []V1Name `json:"names,omitempty"`     // names and help of the indexes it uses
	TestLevel int      `json:"testLevel,omitempty"` // ExtCounterTestLevel 1..4; 0 = 1
	TimeoutMS int      `json:"timeoutMs,omitempty"` // collect timeout; 0 = the engine's default
}

// V1Name is one title index of a V1 provider: an even name index, its name
// and the help text stored at index+1.
type V1Name struct {
	Index uint32 `json:"index"`
	Name  string `json:"name"`
	Help  string `json:"help,omitempty"`
}

// DefaultV1TestLevel is the ExtCounterTestLevel given to a V1 provider that
// names none. Windows defaults to 4 (no tests); an out-of-process provider
// here is code the host does not control, so it gets the strictest level.
const DefaultV1TestLevel = 1

type v1Record struct {
	Version   int              `json:"version"`
	Providers []V1Registration `json:"providers"`
}

// Validate checks a registration before it is stored.
func (r *V1Registration) Validate() error {
	switch {
	case strings.TrimSpace(r.Name) == "":
		return errors.New("host: V1 provider: no name")
	case !filepath.IsAbs(r.Exec):
		return fmt.Errorf("host: V1 provider %q: exec %q is not an absolute path", r.Name, r.Exec)
	case r.TestLevel < 0 || r.TestLevel > 4:
		return fmt.Errorf("host: V1 provider %q: test level %d (want 1 to 4)", r.Name, r.TestLevel)
	case r.TimeoutMS < 0:
		return fmt.Errorf("host: V1 provider %q: negative timeout", r.Name)
	}
	for _, n := range r.Names {
		if n.Index == 0 || n.Index%2 != 0 || n.Name == "" {
			return fmt.Errorf("host: V1 provider %q: name %q at index %d (want an even index and a name)", r.Name, n.Name, n.Index)
		}
	}
	if st, err := os.Stat(r.Exec); err != nil {
		return fmt.Errorf("host: V1 provider %q: %w", r.Name, err)
	} else if st.IsDir() || st.Mode()&0o111 == 0 {
		return fmt.Errorf("host: V1 provider %q: %s is not an executable file", r.Name, r.Exec)
	}
	return nil
}

// RegisterV1 stores r in the state directory dir, replacing a registration
// of the same name. The names it states are entered into the state's title
// database at their indexes, as lodctr enters a V1 .ini file's names into
// the registry: Last Counter moves past them, so a manifest registered
// later (Register, titles.Add) never takes an index a V1 provider writes.
// They must not clash with a name already there (English Windows' names,
// the built-in objects, lodctr's registrations, other V1 providers).
func RegisterV1(dir string, r V1Registration) error {
	if dir == "" {
		return errors.New("host: no state directory")
	}
	if err := r.Validate(); err != nil {
		return err
	}
	unlock, err := lockState(dir, true)
	if err != nil {
		return err
	}
	defer unlock()
	st, err := readStateLocked(dir)
	if err != nil {
		return err
	}
	rec, err := readV1Locked(dir)
	if err != nil {
		return err
	}
	rest := slices.DeleteFunc(slices.Clone(rec.Providers), func(x V1Registration) bool { return x.Name == r.Name })
	db, err := st.currentTitles()
	if err != nil {
		return err
	}
	// The earlier registration's names go first, so that a replacement may
	// rename its own indexes (and change their help texts).
	if k := slices.IndexFunc(rec.Providers, func(x V1Registration) bool { return x.Name == r.Name }); k >= 0 {
		if err := db.Remove(presentIndexes(db, v1OwnIndexes(rec.Providers[k], rest))); err != nil {
			return fmt.Errorf("host: V1 provider %q: removing its earlier names: %w", r.Name, err)
		}
	}
	for _, n := range r.Names {
		// An index named by anything but another V1 provider under the same
		// name is refused, even when the names agree: Names lists the names
		// a provider brings, and they leave with it (UnregisterV1), which
		// must never take a standard name away. A provider writes standard
		// indexes into its output without listing them.
		if old := db.Name(n.Index); old != "" && (!strings.EqualFold(old, n.Name) || len(v1OwnIndexes(V1Registration{Names: []V1Name{n}}, rest)) > 0) {
			return fmt.Errorf("host: V1 provider %q: index %d already names %q (list only the names the provider introduces)", r.Name, n.Index, old)
		}
		if err := db.SetAt(n.Index, n.Name, n.Help); err != nil {
			return fmt.Errorf("host: V1 provider %q: %w", r.Name, err)
		}
	}
	// Titles first, then the record (the commit point), as Register does:
	// a crash between them leaves at worst unused names.
	if err := st.writeTitles(db); err != nil {
		return err
	}
	rec.Providers = append(rest, r)
	return writeV1(dir, rec)
}

// v1OwnIndexes returns the name indexes of r that no registration of
// others names: those its removal takes out of the title database.
func v1OwnIndexes(r V1Registration, others []V1Registration) []uint32 {
	var out []uint32
	for _, n := range r.Names {
		shared := slices.ContainsFunc(others, func(o V1Registration) bool {
			return slices.ContainsFunc(o.Names, func(m V1Name) bool { return m.Index == n.Index })
		})
		if !shared && !slices.Contains(out, n.Index) {
			out = append(out, n.Index)
		}
	}
	return out
}

// UnregisterV1 removes the V1 provider registered under name, and the
// names it entered that no other V1 provider uses.
func UnregisterV1(dir, name string) error {
	if dir == "" {
		return errors.New("host: no state directory")
	}
	unlock, err := lockState(dir, true)
	if err != nil {
		return err
	}
	defer unlock()
	rec, err := readV1Locked(dir)
	if err != nil {
		return err
	}
	k := slices.IndexFunc(rec.Providers, func(x V1Registration) bool { return x.Name == name })
	if k < 0 {
		return fmt.Errorf("host: no V1 provider %q is registered", name)
	}
	old := rec.Providers[k]
	rec.Providers = slices.Delete(rec.Providers, k, k+1)
	st, err := readStateLocked(dir)
	if err != nil {
		return err
	}
	// The record first: once it no longer names the provider, its titles
	// are only unused names (Unregister's order).
	if err := writeV1(dir, rec); err != nil {
		return err
	}
	db := st.titles
	if db == nil {
		return nil // no titles file: nothing was persisted
	}
	if err := db.Remove(presentIndexes(db, v1OwnIndexes(old, rec.Providers))); err != nil {
		return fmt.Errorf("host: unregister V1 provider %q: %w", name, err)
	}
	return st.writeTitles(db)
}

// ReadV1 returns the V1 providers registered in dir; none when dir or its
// v1.json does not exist.
func ReadV1(dir string) ([]V1Registration, error) {
	if dir == "" {
		return nil, nil
	}
	unlock, err := lockState(dir, false)
	if err != nil {
		return nil, err
	}
	defer unlock()
	rec, err := readV1Locked(dir)
	return rec.Providers, err
}

func readV1Locked(dir string) (v1Record, error) {
	rec := v1Record{Version: stateVersion}
	path := filepath.Join(dir, stateV1File)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return rec, nil
	}
	if err != nil {
		return rec, fmt.Errorf("host: state: %w", err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, fmt.Errorf("host: state %s: %w", path, err)
	}
	if rec.Version != stateVersion {
		return rec, fmt.Errorf("host: state %s: version %d not supported (want %d)", path, rec.Version, stateVersion)
	}
	return rec, nil
}

func writeV1(dir string, rec v1Record) error {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(dir, stateV1File, append(b, '\n'))
}

// addV1 starts nothing: the engine opens each procedure lazily, on the
// first query that selects it. A registration the engine refuses is
// logged and left out; the rest of the host still works.
func (h *Host) addV1(regs []V1Registration, log func(msg string, args ...any)) {
	for _, r := range regs {
		names := make([]titles.Entry, len(r.Names))
		for i, n := range r.Names {
			names[i] = titles.Entry{Index: n.Index, Name: n.Name, Help: n.Help}
		}
		level := r.TestLevel
		if level == 0 {
			level = DefaultV1TestLevel
		}
		// The provider's stderr is discarded: perfc's own output (typeperf's
		// CSV) must stay clean; failures reach the log as problems. Its
		// timeout bounds its shutdown too.
		proc := collect.Exec(r.Exec, r.Args...)
		proc.CloseTimeout = time.Duration(r.TimeoutMS) * time.Millisecond
		err := h.AddProcedure(r.Name, proc, engine.ProcedureOptions{
			TestLevel: level,
			Timeout:   time.Duration(r.TimeoutMS) * time.Millisecond,
			Objects:   r.Objects,
			Names:     names,
		})
		if err != nil {
			log("V1 provider left out", "provider", r.Name, "reason", err)
			continue
		}
		h.v1 = append(h.v1, r.Name)
	}
}

// closeV1 stops the V1 providers' processes.
func (h *Host) closeV1() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, name := range h.v1 {
		h.RemoveProcedure(ctx, name)
	}
	h.v1 = nil
}
