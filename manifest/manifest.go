package manifest

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/countertype"
)

// Manifest is the counters part of an instrumentation manifest.
type Manifest struct {
	File      string     // the name given to Parse
	Providers []Provider // in manifest order; the schema allows one, real files never have more
	// Cultures holds every <resources culture> string table of the
	// <localization> section: culture (as written, "de-DE") to string id
	// to text. Names and descriptions written as $(string.ID) keep their
	// ids in SetInfo and CounterInfo, so that each language's names can be
	// registered (lodctr enters them in the title database of the
	// culture's language).
	Cultures map[string]map[string]string
}

// ProviderType is where a provider's values live (perflib.h
// PERF_PROVIDER_* values).
type ProviderType uint32

// Provider types, equal to perflib.h's.
const (
	UserMode   ProviderType = 0 // "userMode"
	KernelMode ProviderType = 1 // "kernelMode"
)

// String returns the manifest keyword.
func (t ProviderType) String() string {
	switch t {
	case UserMode:
		return "userMode"
	case KernelMode:
		return "kernelMode"
	}
	return fmt.Sprintf("ProviderType(%d)", uint32(t))
}

// Provider is one <provider> element.
type Provider struct {
	Name                string       // providerName; empty when absent (the schema's default would be "Counters")
	GUID                string       // providerGuid, normalised to {XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}
	ApplicationIdentity string       // the binary holding the string resources on Windows; informational here
	ProviderType        ProviderType // userMode (default) or kernelMode
	Callback            string       // "custom" or "default" (default when absent)
	Symbol              string       // C symbol for generated code; may be empty
	ResourceBase        uint32       // resourceBase; 0 when absent
	CounterSets         []*counterset.Set
	Sets                []SetInfo // Sets[i] holds what the manifest says about CounterSets[i] beyond counterset.Set
	Line                int       // line of the <provider> element
}

// SetInfo is what a manifest says about a counter set that counterset.Set
// does not carry.
type SetInfo struct {
	Symbol   string        // C symbol; may be empty
	NameID   string        // the string id of a name written as $(string.ID); "" when literal
	HelpID   string        // the string id of the description, likewise
	URI      string        // the set's uri
	Structs  []Struct      // kernel-mode <structs>: kept, not applicable on Linux
	Counters []CounterInfo // Counters[i] describes CounterSets[..].Counters[i] (definition order)
	Line     int           // line of the <counterSet> element
}

// Struct is a kernel-mode <struct> declaration: the C structure in which a
// driver keeps a set's values. Not applicable on Linux, where values live in
// the provider's shared-memory segment.
type Struct struct {
	Name string
	Type string
}

// CounterInfo is what a manifest says about a counter that
// counterset.Counter does not carry.
type CounterInfo struct {
	Symbol  string // C symbol; may be empty
	NameID  string // the string id of a name written as $(string.ID); "" when literal
	HelpID  string // the string id of the description, likewise
	URI     string // the counter's uri
	Struct  string // kernel mode: struct holding the value; kept, not applicable on Linux
	Field   string // kernel mode: field holding the value; kept, not applicable on Linux
	Unnamed bool   // the manifest gave no name: Name was derived (a base repeats its user's name; others use symbol, uri or id)
	Line    int    // line of the <counter> element
}

// ParseFile reads and validates the manifest at path. Errors name the path
// as given.
func ParseFile(path string) (*Manifest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Rule: err.Error()}
	}
	defer f.Close()
	return Parse(path, f)
}

// Parse reads and validates a manifest; name is used in errors and
// Manifest.File. Every error is an *Error.
func Parse(name string, r io.Reader) (*Manifest, error) {
	d, err := readDoc(name, r)
	if err != nil {
		return nil, err
	}
	p := &parser{doc: d, m: &Manifest{File: name}, seen: map[string]*node{}}
	if err := p.run(); err != nil {
		return nil, err
	}
	return p.m, nil
}

// parser carries the state of one Parse.
type parser struct {
	*doc
	m       *Manifest
	strings map[string]string // $(string.ID) table
	seen    map[string]*node  // document-wide uniqueness keys
}

func (p *parser) errAt(n *node, attr, format string, args ...any) *Error {
	line := n.line
	if attr != "" {
		line = p.attrLine(n, attr)
	}
	return &Error{File: p.file, Line: line, Element: label(n), Attr: attr, Rule: fmt.Sprintf(format, args...)}
}

// label renders an element for messages with the attribute that best
// identifies it, as written in the file.
func label(n *node) string {
	var keys []string
	switch n.name {
	case "counter":
		keys = []string{"id"}
	case "counterSet":
		keys = []string{"name", "guid"}
	case "provider":
		keys = []string{"providerName", "providerGuid"}
	case "counterAttribute", "struct":
		keys = []string{"name"}
	case "string", "resources":
		keys = []string{"id", "culture"}
	}
	for _, k := range keys {
		if v, ok := n.attr(k); ok {
			return fmt.Sprintf("<%s %s=%q>", n.name, k, v)
		}
	}
	return "<" + n.name + ">"
}

func (p *parser) run() error {
	var counters []*node
	var walk func(n *node)
	walk = func(n *node) {
		switch n.name {
		case "counters":
			counters = append(counters, n)
			return
		case "localization":
			if p.strings == nil {
				p.strings = stringTable(n)
				p.m.Cultures = cultureTables(n)
			}
			return
		}
		for _, c := range n.children {
			walk(c)
		}
	}
	walk(p.root)
	if len(counters) == 0 {
		return &Error{File: p.file, Line: p.root.line, Element: label(p.root), Rule: "no <counters> section: the manifest declares no counter provider"}
	}
	for _, cs := range counters {
		if v, ok := cs.attr("schemaVersion"); ok && !isVersion(strings.TrimSpace(v)) {
			// Any version number is taken (installers ship "2.0", and
			// Windows' lodctr registers them): it selects nothing here.
			return p.errAt(cs, "schemaVersion", "schemaVersion %q is not a version number (such as 1.1)", v)
		}
		n := 0
		for _, c := range cs.children {
			if c.name != "provider" {
				continue
			}
			n++
			if err := p.provider(c); err != nil {
				return err
			}
		}
		if n == 0 {
			return p.errAt(cs, "", "no <provider> element")
		}
	}
	return nil
}

// stringTable collects the <string id value> entries of the en-US resources,
// or of the first resources when there is no en-US.
func stringTable(loc *node) map[string]string {
	var chosen *node
	for _, r := range loc.children {
		if r.name != "resources" {
			continue
		}
		if c, _ := r.attr("culture"); strings.EqualFold(c, "en-US") {
			chosen = r
			break
		}
		if chosen == nil {
			chosen = r
		}
	}
	t := map[string]string{}
	if chosen != nil {
		addStrings(t, chosen)
	}
	return t
}

// cultureTables collects the <string id value> entries of every
// <resources culture> element; resources without a culture are left out.
func cultureTables(loc *node) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, r := range loc.children {
		c, _ := r.attr("culture")
		if r.name != "resources" || strings.TrimSpace(c) == "" {
			continue
		}
		c = strings.TrimSpace(c)
		if out[c] == nil {
			out[c] = map[string]string{}
		}
		addStrings(out[c], r)
	}
	return out
}

// addStrings adds the <string id value> entries of a <resources>
// element's string tables to t; the first value of an id counts.
func addStrings(t map[string]string, resources *node) {
	for _, st := range resources.children {
		if st.name != "stringTable" {
			continue
		}
		for _, s := range st.children {
			if s.name != "string" {
				continue
			}
			id, _ := s.attr("id")
			v, _ := s.attr("value")
			if _, dup := t[id]; !dup {
				t[id] = v
			}
		}
	}
}

// refID returns the ID of an attribute written as $(string.ID), or "".
func refID(n *node, attr string) string {
	v, _ := n.attr(attr)
	s := strings.TrimSpace(v)
	if strings.HasPrefix(s, "$(string.") && strings.HasSuffix(s, ")") {
		return s[len("$(string.") : len(s)-1]
	}
	return ""
}

// text returns a name or description attribute with a $(string.ID)
// reference resolved.
func (p *parser) text(n *node, attr string) (string, bool, error) {
	v, ok := n.attr(attr)
	if !ok {
		return "", false, nil
	}
	s := strings.TrimSpace(v)
	if strings.HasPrefix(s, "$(string.") && strings.HasSuffix(s, ")") {
		id := s[len("$(string.") : len(s)-1]
		r, found := p.strings[id]
		if !found {
			return "", true, p.errAt(n, attr, "%s %q: no <string id=%q> in the manifest's string table", attr, s, id)
		}
		return r, true, nil
	}
	return v, true, nil
}

// unique records a document-wide key and fails on a second use.
func (p *parser) unique(n *node, attr, kind, key, shown string) error {
	if prev, dup := p.seen[kind+"\x00"+key]; dup {
		return p.errAt(n, attr, "%s %q already used on line %d", kind, shown, prev.line)
	}
	p.seen[kind+"\x00"+key] = n
	return nil
}

func (p *parser) required(n *node, attr string) (string, error) {
	v, ok := n.attr(attr)
	if !ok || strings.TrimSpace(v) == "" {
		e := p.errAt(n, "", "required attribute %s missing", attr)
		e.Attr = attr
		return "", e
	}
	return v, nil
}

func (p *parser) symbol(n *node) (string, error) {
	v, ok := n.attr("symbol")
	if !ok || v == "" {
		return "", nil
	}
	if !isCSymbol(v) {
		return "", p.errAt(n, "symbol", "symbol %q is not a C identifier", v)
	}
	return v, nil
}

func (p *parser) provider(n *node) error {
	pr := Provider{Line: n.line, Callback: "default"}
	g, err := p.required(n, "providerGuid")
	if err != nil {
		return err
	}
	if pr.GUID, err = parseGUID(g); err != nil {
		return p.errAt(n, "providerGuid", "providerGuid %q: %v", g, err)
	}
	if err := p.unique(n, "providerGuid", "provider GUID", pr.GUID, g); err != nil {
		return err
	}
	pr.Name, _ = n.attr("providerName")
	pr.ApplicationIdentity, _ = n.attr("applicationIdentity")
	if v, ok := n.attr("providerType"); ok {
		switch strings.TrimSpace(v) {
		case "userMode":
			pr.ProviderType = UserMode
		case "kernelMode":
			pr.ProviderType = KernelMode
		default:
			return p.errAt(n, "providerType", "providerType %q: want userMode or kernelMode", v)
		}
	}
	if v, ok := n.attr("callback"); ok {
		switch v = strings.TrimSpace(v); v {
		case "custom", "default":
			pr.Callback = v
		default:
			return p.errAt(n, "callback", "callback %q: want custom or default", v)
		}
	}
	if pr.Symbol, err = p.symbol(n); err != nil {
		return err
	}
	if v, ok := n.attr("resourceBase"); ok {
		if pr.ResourceBase, err = parseUInt32(v); err != nil {
			return p.errAt(n, "resourceBase", "resourceBase %q: %v", v, err)
		}
	}
	for _, c := range n.children {
		if c.name != "counterSet" {
			continue
		}
		set, info, err := p.counterSet(c)
		if err != nil {
			return err
		}
		pr.CounterSets = append(pr.CounterSets, set)
		pr.Sets = append(pr.Sets, info)
	}
	p.m.Providers = append(p.m.Providers, pr)
	return nil
}

var instancing = map[string]counterset.Instancing{
	"single":                 counterset.Single,
	"multiple":               counterset.Multiple,
	"globalAggregate":        counterset.GlobalAggregate,
	"multipleAggregate":      counterset.MultipleAggregate,
	"globalAggregateHistory": counterset.GlobalAggregateHistory,
}

// maxNameLen is the schema's maxLength for set and counter names
// (characters, not bytes).
const maxNameLen = 1023

func (p *parser) counterSet(n *node) (*counterset.Set, SetInfo, error) {
	set := &counterset.Set{DefaultCounter: -1}
	info := SetInfo{Line: n.line}
	g, err := p.required(n, "guid")
	if err != nil {
		return nil, info, err
	}
	if set.GUID, err = parseGUID(g); err != nil {
		return nil, info, p.errAt(n, "guid", "guid %q: %v", g, err)
	}
	if err := p.unique(n, "guid", "counter-set GUID", set.GUID, g); err != nil {
		return nil, info, err
	}
	u, err := p.required(n, "uri")
	if err != nil {
		return nil, info, err
	}
	info.URI = strings.TrimSpace(u)
	if err := p.unique(n, "uri", "counter-set uri", info.URI, info.URI); err != nil {
		return nil, info, err
	}
	if _, err := p.required(n, "name"); err != nil {
		return nil, info, err
	}
	if set.Name, _, err = p.text(n, "name"); err != nil {
		return nil, info, err
	}
	if strings.TrimSpace(set.Name) == "" {
		return nil, info, p.errAt(n, "name", "counter-set name is empty")
	}
	if l := utf8.RuneCountInString(set.Name); l > maxNameLen {
		return nil, info, p.errAt(n, "name", "name is %d characters long, the limit is %d", l, maxNameLen)
	}
	// Consumers look sets up by name case-insensitively, so two names that
	// differ only in case would be ambiguous.
	if err := p.unique(n, "name", "counter-set name", strings.ToLower(set.Name), set.Name); err != nil {
		return nil, info, err
	}
	if _, err := p.required(n, "description"); err != nil {
		return nil, info, err
	}
	if set.Help, _, err = p.text(n, "description"); err != nil {
		return nil, info, err
	}
	info.NameID, info.HelpID = refID(n, "name"), refID(n, "description")
	if info.Symbol, err = p.symbol(n); err != nil {
		return nil, info, err
	}
	if info.Symbol != "" {
		if err := p.unique(n, "symbol", "counter-set symbol", info.Symbol, info.Symbol); err != nil {
			return nil, info, err
		}
	}
	if v, ok := n.attr("instances"); ok {
		inst, known := instancing[strings.TrimSpace(v)]
		if !known {
			return nil, info, p.errAt(n, "instances", "instances %q: want single, multiple, globalAggregate, multipleAggregate or globalAggregateHistory", v)
		}
		set.Instancing = inst
	}

	var raw []*rawCounter
	byID := map[uint32]*rawCounter{}
	names := map[string]*rawCounter{}
	for _, c := range n.children {
		switch c.name {
		case "structs":
			for _, s := range c.children {
				if s.name == "struct" {
					name, _ := s.attr("name")
					typ, _ := s.attr("type")
					info.Structs = append(info.Structs, Struct{Name: name, Type: typ})
				}
			}
		case "counter":
			rc, err := p.counter(c)
			if err != nil {
				return nil, info, err
			}
			if prev, dup := byID[rc.c.ID]; dup {
				return nil, info, p.errAt(c, "id", "counter id %d already used on line %d", rc.c.ID, prev.n.line)
			}
			byID[rc.c.ID] = rc
			if rc.named && !rc.c.Type.IsBase() && rc.c.Attributes&counterset.AttrNoDisplay == 0 {
				key := strings.ToLower(rc.c.Name)
				if prev, dup := names[key]; dup {
					return nil, info, p.errAt(c, "name", "counter name %q already used on line %d", rc.c.Name, prev.n.line)
				}
				names[key] = rc
			}
			raw = append(raw, rc)
		}
	}
	if len(raw) == 0 {
		return nil, info, p.errAt(n, "", "counter set has no <counter>")
	}
	if err := p.crossRules(raw, byID); err != nil {
		return nil, info, err
	}
	p.order(set, &info, raw, byID)
	set.DetailLevel = counterset.DetailWizard
	for i := range set.Counters {
		set.DetailLevel = min(set.DetailLevel, set.Counters[i].DetailLevel)
	}
	if err := set.Validate(); err != nil {
		// The rules above are meant to imply counterset's; reaching this
		// is a gap in them, reported rather than hidden.
		return nil, info, p.errAt(n, "", "%v", err)
	}
	return set, info, nil
}

// rawCounter is a <counter> as read, before ordering.
type rawCounter struct {
	n     *node
	c     counterset.Counter
	info  CounterInfo
	named bool
}

// manifestTypes lists the type names the schema enumerates (seed 004), so
// that winperf types a manifest may not use (PERF_COUNTER_NODATA, the
// histogram bit, PERF_DOUBLE_RAW) are refused.
var manifestTypes = map[string]bool{
	"perf_counter_counter": true, "perf_counter_timer": true, "perf_counter_queuelen_type": true,
	"perf_counter_large_queuelen_type": true, "perf_counter_100ns_queuelen_type": true,
	"perf_counter_obj_time_queuelen_type": true, "perf_counter_bulk_count": true, "perf_counter_text": true,
	"perf_counter_rawcount": true, "perf_counter_large_rawcount": true, "perf_counter_rawcount_hex": true,
	"perf_counter_large_rawcount_hex": true, "perf_sample_fraction": true, "perf_sample_counter": true,
	"perf_counter_timer_inv": true, "perf_sample_base": true, "perf_average_timer": true,
	"perf_average_base": true, "perf_average_bulk": true, "perf_obj_time_timer": true,
	"perf_100nsec_timer": true, "perf_100nsec_timer_inv": true, "perf_counter_multi_timer": true,
	"perf_counter_multi_timer_inv": true, "perf_counter_multi_base": true, "perf_100nsec_multi_timer": true,
	"perf_100nsec_multi_timer_inv": true, "perf_raw_fraction": true, "perf_large_raw_fraction": true,
	"perf_raw_base": true, "perf_large_raw_base": true, "perf_elapsed_time": true, "perf_counter_delta": true,
	"perf_counter_large_delta": true, "perf_precision_system_timer": true, "perf_precision_100ns_timer": true,
	"perf_precision_object_timer": true,
}

var aggregates = map[string]counterset.Aggregate{
	"undefined": counterset.AggregateUndefined,
	"sum":       counterset.AggregateTotal,
	"avg":       counterset.AggregateAvg,
	"min":       counterset.AggregateMin,
	"max":       counterset.AggregateMax,
}

var attributes = map[string]counterset.Attributes{
	"reference":       counterset.AttrByReference,
	"noDisplay":       counterset.AttrNoDisplay,
	"noDigitGrouping": counterset.AttrNoGroupSep,
	"displayAsReal":   counterset.AttrDisplayAsReal,
	"displayAsHex":    counterset.AttrDisplayAsHex,
}

func (p *parser) counter(n *node) (*rawCounter, error) {
	rc := &rawCounter{n: n, info: CounterInfo{Line: n.line}}
	c := &rc.c
	c.BaseID, c.MultiID, c.PerfTimeID, c.PerfFreqID = counterset.NoID, counterset.NoID, counterset.NoID, counterset.NoID
	c.DetailLevel = counterset.DetailNovice
	v, err := p.required(n, "id")
	if err != nil {
		return nil, err
	}
	if c.ID, err = parseUInt32(v); err != nil {
		return nil, p.errAt(n, "id", "id %q: %v", v, err)
	}
	u, err := p.required(n, "uri")
	if err != nil {
		return nil, err
	}
	rc.info.URI = strings.TrimSpace(u)
	if err := p.unique(n, "uri", "counter uri", rc.info.URI, rc.info.URI); err != nil {
		return nil, err
	}
	t, err := p.required(n, "type")
	if err != nil {
		return nil, err
	}
	tl := strings.ToLower(strings.TrimSpace(t))
	switch {
	case tl == "perf_counter_composite":
		return nil, p.errAt(n, "type", "type %q has no winperf.h counter type and is not supported", t)
	case !manifestTypes[tl]:
		return nil, p.errAt(n, "type", "unknown counter type %q", t)
	}
	if c.Type, err = countertype.Parse(tl); err != nil {
		return nil, p.errAt(n, "type", "unknown counter type %q", t)
	}
	if c.Name, rc.named, err = p.text(n, "name"); err != nil {
		return nil, err
	}
	if rc.named && strings.TrimSpace(c.Name) == "" {
		rc.named = false
	}
	if l := utf8.RuneCountInString(c.Name); l > maxNameLen {
		return nil, p.errAt(n, "name", "name is %d characters long, the limit is %d", l, maxNameLen)
	}
	if c.Help, _, err = p.text(n, "description"); err != nil {
		return nil, err
	}
	for _, ids := range []struct {
		attr string
		dst  *uint32
	}{{"baseID", &c.BaseID}, {"multiCounterID", &c.MultiID}, {"perfTimeID", &c.PerfTimeID}, {"perfFreqID", &c.PerfFreqID}} {
		if v, ok := n.attr(ids.attr); ok {
			if *ids.dst, err = parseUInt32(v); err != nil {
				return nil, p.errAt(n, ids.attr, "%s %q: %v", ids.attr, v, err)
			}
		}
	}
	if v, ok := n.attr("detailLevel"); ok {
		switch strings.TrimSpace(v) {
		case "standard":
			c.DetailLevel = counterset.DetailNovice
		case "advanced":
			c.DetailLevel = counterset.DetailAdvanced
		default:
			return nil, p.errAt(n, "detailLevel", "detailLevel %q: want standard or advanced", v)
		}
	}
	if v, ok := n.attr("defaultScale"); ok {
		s, err := strconv.ParseInt(strings.TrimPrefix(strings.TrimSpace(v), "+"), 10, 32)
		if err != nil || s < -10 || s > 10 {
			return nil, p.errAt(n, "defaultScale", "defaultScale %q: want an integer from -10 to 10", v)
		}
		c.DefaultScale = int32(s)
	}
	if v, ok := n.attr("aggregate"); ok {
		a, known := aggregates[strings.TrimSpace(v)]
		if !known {
			return nil, p.errAt(n, "aggregate", "aggregate %q: want sum, avg, min, max or undefined", v)
		}
		c.Aggregate = a
	}
	if rc.info.Symbol, err = p.symbol(n); err != nil {
		return nil, err
	}
	if rc.info.Symbol != "" {
		if err := p.unique(n, "symbol", "counter symbol", rc.info.Symbol, rc.info.Symbol); err != nil {
			return nil, err
		}
	}
	rc.info.NameID, rc.info.HelpID = refID(n, "name"), refID(n, "description")
	rc.info.Struct, _ = n.attr("struct")
	rc.info.Field, _ = n.attr("field")
	for _, ch := range n.children {
		if ch.name != "counterAttributes" {
			continue
		}
		for _, a := range ch.children {
			if a.name != "counterAttribute" {
				continue
			}
			name, _ := a.attr("name")
			bit, known := attributes[strings.TrimSpace(name)]
			if !known {
				return nil, p.errAt(a, "name", "counterAttribute %q: want reference, noDisplay, noDigitGrouping, displayAsReal or displayAsHex", name)
			}
			if c.Attributes&bit != 0 {
				return nil, p.errAt(a, "name", "counterAttribute %q repeated", name)
			}
			c.Attributes |= bit
		}
	}
	if !rc.named && !c.Type.IsBase() && c.Attributes&counterset.AttrNoDisplay == 0 {
		return nil, p.errAt(n, "", "required attribute name missing (only a noDisplay or base counter may omit it)")
	}
	return rc, nil
}

// crossRules checks the references between counters of one set.
func (p *parser) crossRules(raw []*rawCounter, byID map[uint32]*rawCounter) error {
	used := map[uint32]*rawCounter{} // base id -> the counter naming it
	var timeRef, freqRef *rawCounter
	for _, rc := range raw {
		c := &rc.c
		ref := func(attr string, id uint32) (*rawCounter, error) {
			r, ok := byID[id]
			if !ok {
				return nil, p.errAt(rc.n, attr, "%s %d names no counter of this set", attr, id)
			}
			return r, nil
		}
		want, needs := c.Type.Base()
		switch {
		case needs && c.BaseID == counterset.NoID:
			return p.errAt(rc.n, "", "%s needs a base counter: baseID missing (want a %s)", c.Type.ManifestName(), want.ManifestName())
		case !needs && c.BaseID != counterset.NoID:
			return p.errAt(rc.n, "baseID", "%s takes no base counter, but baseID %d is given", c.Type.ManifestName(), c.BaseID)
		case needs:
			b, err := ref("baseID", c.BaseID)
			if err != nil {
				return err
			}
			if !c.Type.AcceptsBase(b.c.Type) {
				return p.errAt(rc.n, "baseID", "baseID %d names a %s, want %s", c.BaseID, b.c.Type.ManifestName(), want.ManifestName())
			}
			// counterset.Set places a base right after its one user, and
			// providers keep one value per counter id, so a base cannot
			// serve two counters: the second would read a value nobody
			// writes. No shipped manifest shares a base.
			if prev := used[c.BaseID]; prev != nil {
				return p.errAt(rc.n, "baseID", "base counter %d is already the base of counter %d on line %d (each counter needs its own base)", c.BaseID, prev.c.ID, prev.n.line)
			}
			used[c.BaseID] = rc
		}
		if c.Type.Multi() && !c.Type.IsBase() && c.MultiID == counterset.NoID {
			return p.errAt(rc.n, "", "%s needs multiCounterID (a perf_counter_rawcount holding the number of items)", c.Type.ManifestName())
		}
		if c.MultiID != counterset.NoID {
			m, err := ref("multiCounterID", c.MultiID)
			if err != nil {
				return err
			}
			if m.c.Type != countertype.PERF_COUNTER_RAWCOUNT {
				return p.errAt(rc.n, "multiCounterID", "multiCounterID %d names a %s, want perf_counter_rawcount", c.MultiID, m.c.Type.ManifestName())
			}
		}
		if c.Type.UsesObjectTimer() {
			if c.PerfTimeID == counterset.NoID {
				return p.errAt(rc.n, "", "%s needs perfTimeID (a perf_counter_large_rawcount holding the time stamp)", c.Type.ManifestName())
			}
			if c.PerfFreqID == counterset.NoID {
				return p.errAt(rc.n, "", "%s needs perfFreqID (a perf_counter_large_rawcount holding the frequency)", c.Type.ManifestName())
			}
		}
		for _, tf := range []struct {
			attr string
			id   uint32
			seen **rawCounter
			get  func(*rawCounter) uint32
		}{
			{"perfTimeID", c.PerfTimeID, &timeRef, func(r *rawCounter) uint32 { return r.c.PerfTimeID }},
			{"perfFreqID", c.PerfFreqID, &freqRef, func(r *rawCounter) uint32 { return r.c.PerfFreqID }},
		} {
			if tf.id == counterset.NoID {
				continue
			}
			r, err := ref(tf.attr, tf.id)
			if err != nil {
				return err
			}
			if r.c.Type != countertype.PERF_COUNTER_LARGE_RAWCOUNT {
				return p.errAt(rc.n, tf.attr, "%s %d names a %s, want perf_counter_large_rawcount", tf.attr, tf.id, r.c.Type.ManifestName())
			}
			// A PERF_OBJECT_TYPE carries one PerfTime and one PerfFreq, so
			// every counter of a set must name the same ones (the schema's
			// remark on backwards compatibility).
			if *tf.seen != nil && tf.get(*tf.seen) != tf.id {
				return p.errAt(rc.n, tf.attr, "%s %d differs from %s %d on line %d (a counter set has one time stamp and one frequency)", tf.attr, tf.id, tf.attr, tf.get(*tf.seen), (*tf.seen).n.line)
			}
			*tf.seen = rc
		}
	}
	for _, rc := range raw {
		if rc.c.Type.IsBase() && used[rc.c.ID] == nil {
			return p.errAt(rc.n, "", "base counter %d (%s) is named by no counter's baseID", rc.c.ID, rc.c.Type.ManifestName())
		}
	}
	return nil
}

// order lays the counters out in definition order: manifest order for
// non-base counters, each base right after the one counter that names it.
func (p *parser) order(set *counterset.Set, info *SetInfo, raw []*rawCounter, byID map[uint32]*rawCounter) {
	for _, rc := range raw {
		if rc.c.Type.IsBase() {
			continue
		}
		c := rc.c
		if !rc.named {
			c.Name = derivedName(rc)
		}
		set.Counters = append(set.Counters, c)
		ci := rc.info
		ci.Unnamed = !rc.named
		info.Counters = append(info.Counters, ci)
		if c.BaseID == counterset.NoID {
			continue
		}
		b := byID[c.BaseID]
		bc := b.c
		if !b.named {
			bc.Name = c.Name
		}
		set.Counters = append(set.Counters, bc)
		bi := b.info
		bi.Unnamed = !b.named
		info.Counters = append(info.Counters, bi)
	}
}

// derivedName names a counter the manifest left unnamed (noDisplay): its
// symbol, else the last dot-separated part of its uri, else "Counter <id>".
func derivedName(rc *rawCounter) string {
	if rc.info.Symbol != "" {
		return rc.info.Symbol
	}
	u := rc.info.URI
	if i := strings.LastIndexByte(u, '.'); i >= 0 && i+1 < len(u) {
		u = u[i+1:]
	}
	if strings.TrimSpace(u) != "" {
		return u
	}
	return fmt.Sprintf("Counter %d", rc.c.ID)
}

// parseGUID checks the schema's GUIDType, {8-4-4-4-12 hex digits}, and
// returns it in upper case, the form Windows writes GUIDs in the registry.
func parseGUID(s string) (string, error) {
	s = strings.TrimSpace(s)
	if len(s) != 38 || s[0] != '{' || s[37] != '}' {
		return "", fmt.Errorf("want {XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}")
	}
	for i := 1; i < 37; i++ {
		c := s[i]
		switch i {
		case 9, 14, 19, 24:
			if c != '-' {
				return "", fmt.Errorf("want '-' at position %d", i)
			}
			continue
		}
		if !isHex(c) {
			return "", fmt.Errorf("%q at position %d is not a hex digit", c, i)
		}
	}
	return strings.ToUpper(s), nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// parseUInt32 reads the schema's UInt32Type: an xs:unsignedInt in decimal,
// or 0x followed by 1 to 8 hex digits.
func parseUInt32(s string) (uint32, error) {
	s = strings.TrimSpace(s)
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		h := s[2:]
		if len(h) > 8 {
			return 0, fmt.Errorf("more than 8 hex digits")
		}
		for i := 0; i < len(h); i++ {
			if !isHex(h[i]) {
				return 0, fmt.Errorf("not a hex number")
			}
		}
		v, err := strconv.ParseUint(h, 16, 32)
		return uint32(v), err
	}
	d := strings.TrimPrefix(s, "+")
	if d == "" {
		return 0, fmt.Errorf("not a number")
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return 0, fmt.Errorf("not an unsigned decimal or 0x hex number")
		}
	}
	v, err := strconv.ParseUint(d, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("out of range for a 32-bit unsigned number")
	}
	return uint32(v), nil
}

// isCSymbol checks the schema's CSymbolType.
func isCSymbol(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && '0' <= c && c <= '9':
		default:
			return false
		}
	}
	return s != ""
}

// isVersion reports a version number: digits, and dot-separated digits
// after them ("1", "1.1", "2.0").
func isVersion(v string) bool {
	if v == "" {
		return false
	}
	for _, part := range strings.Split(v, ".") {
		if part == "" || len(part) > 9 || strings.Trim(part, "0123456789") != "" {
			return false
		}
	}
	return true
}
