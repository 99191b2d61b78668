package state

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/manifest"
)

// parsedSuffix replaces ".man" in the name of a manifest copy's parsed
// form: manifests/{GUID}-HASH.sets.gob beside manifests/{GUID}-HASH.man.
const parsedSuffix = ".sets.gob"

// parsedFormat is the version of the parsed form's format.
const parsedFormat = 1

// parsedCopy is the parsed form of a registered provider's manifest: its
// counter sets exactly as manifest.Parse returned them, encoded with
// encoding/gob, so that a command starting up decodes a compact binary
// form instead of parsing the XML copy (about 5 times faster than the XML,
// and than the same data in JSON). It is validated on read: the provider
// and copy it names, and counterset.Set.Validate on every set.
type parsedCopy struct {
	Version  int
	Provider string // the provider GUID
	Manifest string // the copy it was parsed from, relative to the state directory
	Sets     []*counterset.Set
}

// RegisteredSet is a registered V2 counter set ready to serve: the set as
// its manifest declares it, with the title indexes of its registration.
type RegisteredSet struct {
	Provider   string          // provider GUID
	GUID       string          // counter-set GUID, normalised
	Set        *counterset.Set // with the registered title indexes; Costly false
	Publishers []uint32        // uids allowed to publish it (Registration.Publishers)
}

func parsedName(reg *Registration) string {
	return strings.TrimSuffix(copyName(reg), ".man") + parsedSuffix
}

// writeCopy writes a registration's manifest copy and its parsed form.
func (d *dir) writeCopy(reg Registration, data []byte, p *manifest.Provider) error {
	if err := d.writeAt(d.mfd, d.join(manifestDir), copyName(&reg), data); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(parsedCopy{Version: parsedFormat, Provider: reg.GUID, Manifest: reg.Manifest, Sets: p.CounterSets}); err != nil {
		return fmt.Errorf("register %s: %w", reg.GUID, err)
	}
	return d.writeAt(d.mfd, d.join(manifestDir), parsedName(&reg), b.Bytes())
}

// providerSets returns the counter sets of a registered provider: from
// the parsed form when it is there and sound, otherwise parsed from the
// XML copy (a state directory written before parsed forms existed, or a
// damaged parsed form, which is reported).
func (d *dir) providerSets(reg *Registration) ([]*counterset.Set, []error) {
	var problems []error
	ppath := d.join(manifestDir + "/" + parsedName(reg))
	b, err := d.readAt(d.mfd, parsedName(reg), "parsed manifest copy", ppath)
	if err == nil {
		sets, err := decodeParsed(b, reg)
		if err == nil {
			return sets, nil
		}
		problems = append(problems, fmt.Errorf("parsed manifest copy %s is damaged (%v): reading the XML copy instead; repair: register the manifest again with perfc lodctr", ppath, err))
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, append(problems, err)
	}
	path := d.join(reg.Manifest)
	data, err := d.readAt(d.mfd, copyName(reg), "manifest copy", path)
	if err != nil {
		return nil, append(problems, err)
	}
	m, err := manifest.Parse(path, bytes.NewReader(data))
	if err != nil {
		return nil, append(problems, err)
	}
	for i := range m.Providers {
		if g, _ := NormalizeGUID(m.Providers[i].GUID); g == reg.GUID {
			return m.Providers[i].CounterSets, problems
		}
	}
	return nil, append(problems, fmt.Errorf("manifest copy %s declares no provider %s", path, reg.GUID))
}

func decodeParsed(b []byte, reg *Registration) ([]*counterset.Set, error) {
	var pc parsedCopy
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&pc); err != nil {
		return nil, err
	}
	switch {
	case pc.Version != parsedFormat:
		return nil, fmt.Errorf("format version %d (want %d)", pc.Version, parsedFormat)
	case pc.Provider != reg.GUID || pc.Manifest != reg.Manifest:
		return nil, fmt.Errorf("it describes provider %s from %s, not %s from %s", pc.Provider, pc.Manifest, reg.GUID, reg.Manifest)
	}
	for _, s := range pc.Sets {
		if s == nil {
			return nil, errors.New("a counter set is null")
		}
		if err := s.Validate(); err != nil {
			return nil, err
		}
	}
	return pc.Sets, nil
}

// registeredSets returns the registration's sets with their indexes,
// checking that the declaration and the record list the same counters.
func (d *dir) registeredSets(reg *Registration) ([]RegisteredSet, []error) {
	sets, problems := d.providerSets(reg)
	if sets == nil && len(problems) > 0 {
		return nil, []error{fmt.Errorf("registered provider %s (%s) is left out: %w", reg.GUID, reg.Name, errors.Join(problems...))}
	}
	var out []RegisteredSet
	for i := range reg.Sets {
		sr := &reg.Sets[i]
		set, err := registeredSet(sets, sr)
		if err != nil {
			problems = append(problems, fmt.Errorf("registered counter set %q of provider %s is left out: %v; repair: register its manifest again with perfc lodctr", sr.Name, reg.GUID, err))
			continue
		}
		out = append(out, RegisteredSet{Provider: reg.GUID, GUID: sr.GUID, Set: set, Publishers: slices.Clone(reg.Publishers)})
	}
	return out, problems
}

// registeredSet returns a copy of the declared set with the title
// indexes of the record.
func registeredSet(sets []*counterset.Set, sr *SetRegistration) (*counterset.Set, error) {
	for _, s := range sets {
		if g, _ := NormalizeGUID(s.GUID); g != sr.GUID {
			continue
		}
		if len(s.Counters) != len(sr.Counters) {
			return nil, fmt.Errorf("manifest copy has %d counters, record %d", len(s.Counters), len(sr.Counters))
		}
		cp := *s
		cp.NameIndex = sr.NameIndex
		cp.Costly = false
		cp.Counters = slices.Clone(s.Counters)
		for i := range cp.Counters {
			if cp.Counters[i].ID != sr.Counters[i].ID {
				return nil, fmt.Errorf("counter %d: manifest copy has id %d, record %d", i, cp.Counters[i].ID, sr.Counters[i].ID)
			}
			cp.Counters[i].NameIndex = sr.Counters[i].NameIndex
		}
		return &cp, nil
	}
	return nil, fmt.Errorf("manifest copy has no counter set %s", sr.GUID)
}
