package perfini

import (
	"slices"
	"strconv"
	"strings"
)

// Provider is what lodctr FILE.ini registers: the provider's name and,
// for every object and counter the .ini gives text for, its offset from
// First Counter with its name and help text in each language.
type Provider struct {
	DriverName string   // [info] drivername
	SymbolFile string   // the symbol file read (as given to ParseSymbols)
	Language   string   // the language of Names' Name and Help (see Resolve)
	Languages  []string // [languages], in file order
	HasObjects bool     // the .ini has an [objects] section (Windows' Object List)
	Names      []Name   // by offset: Names[i].Offset == 2*i
	Warnings   []string // what was accepted but may not do what was meant
}

// Name is one object or counter: its offset (index = First Counter +
// Offset, help index = First Help + Offset) and its text.
type Name struct {
	Offset uint32
	Symbol string // as the symbol file spells it
	Object bool   // listed in [objects]
	// Name and Help are the text in Provider.Language, or, where that
	// language has no name for it, in the first language of [languages]
	// that has one.
	Name, Help string
	// Text holds the name and help in every language of [languages] that
	// gives one, by language id ("009"); a language with only a help text
	// has an empty Name.
	Text map[string]Text
}

// Text is a name and its help text in one language.
type Text struct {
	Name, Help string
}

// Objects returns the offsets of the names listed in [objects].
func (p *Provider) Objects() []uint32 {
	var out []uint32
	for _, n := range p.Names {
		if n.Object {
			out = append(out, n.Offset)
		}
	}
	return out
}

// English is the language whose names the title database holds when the
// .ini gives them.
const English = "009"

// Resolve joins an .ini file and its symbol file. Every symbol that
// [text] gives a name or help in a language of [languages] gets its
// offset from the symbol file; those offsets must be the even numbers
// 0, 2, 4 ... without a gap or a repeat, each with a NAME in some listed
// language (the symbol file may define more macros: guards, LAST_...
// convenience macros, offsets without text). Text in a language
// [languages] does not list is left out, with a warning.
//
// The names the title database will hold (Name, Help) are English's (009)
// when [languages] lists it, else those of the first language it lists;
// a symbol without a name in that language takes the first listed
// language's that has one, with a warning.
func Resolve(ini *INI, syms *Symbols) (*Provider, error) {
	p := &Provider{DriverName: ini.DriverName, SymbolFile: syms.File, HasObjects: ini.HasObjects, Warnings: slices.Clone(ini.Warnings)}
	listed := map[string]bool{}
	for _, l := range ini.Languages {
		p.Languages = append(p.Languages, l.ID)
		listed[l.ID] = true
	}
	if len(p.Languages) == 0 {
		return nil, &Error{File: ini.File, Msg: "no language in [languages]"}
	}
	p.Language = p.Languages[0]
	if listed[English] {
		p.Language = English
	}
	var c errs
	type entry struct {
		def    int // index into syms.defs
		line   int // the first [text] line naming it
		name   Name
		offset uint32
	}
	var entries []*entry
	bySym := map[string]*entry{} // upper-cased .ini spelling -> entry
	byDef := map[int]*entry{}
	unlisted := map[string]bool{}
	skipped := map[string]bool{} // symbols of [text] the symbol file lacks, warned once
	for _, r := range ini.Text {
		if c.full() {
			break
		}
		if !listed[r.Lang] {
			if !unlisted[r.Lang] {
				unlisted[r.Lang] = true
				p.Warnings = append(p.Warnings, warn(ini.File, r.Line, "text in language %s is left out: [languages] does not list it", r.Lang))
			}
			continue
		}
		key := upper(r.Symbol)
		e := bySym[key]
		if e == nil {
			i, why := syms.lookup(r.Symbol)
			if i < 0 {
				if _, undefined := syms.byFold[upper(r.Symbol)]; !undefined {
					// Shipped files name symbols their .h lacks (THREADS
					// against THREAD), and lodctr registers the rest.
					if !skipped[key] {
						skipped[key] = true
						p.Warnings = append(p.Warnings, warn(ini.File, r.Line, "%s: its text is skipped", why))
					}
					continue
				}
				c.add(ini.File, r.Line, "%s", why)
				continue
			}
			if e = byDef[i]; e == nil {
				if len(entries) >= MaxNames {
					c.add(ini.File, r.Line, "[text] names more than %d objects and counters", MaxNames)
					break
				}
				e = &entry{def: i, line: r.Line, name: Name{Symbol: syms.defs[i].name, Text: map[string]Text{}}}
				entries = append(entries, e)
				byDef[i] = e
			}
			bySym[key] = e
		}
		t := e.name.Text[r.Lang]
		if r.Help {
			t.Help = r.Value
		} else {
			t.Name = r.Value
		}
		e.name.Text[r.Lang] = t
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	// Offsets: evaluated, then each slot 0, 2, 4 ... taken exactly once.
	slots := make([]*entry, len(entries))
	for _, e := range entries {
		off, err := syms.offset(e.def)
		if err != nil {
			c.list = append(c.list, err)
			if c.full() {
				break
			}
			continue
		}
		d := syms.defs[e.def]
		switch {
		case off%2 != 0:
			c.add(syms.File, d.line, "%s = %d is odd: offsets are even numbers (a name at First Counter + offset, its help at First Help + offset)", d.name, off)
		case int64(off)/2 >= int64(MaxNames):
			c.add(syms.File, d.line, "%s = %d is past the %d objects and counters a provider may have", d.name, off, MaxNames)
		case int(off/2) < len(slots) && slots[off/2] != nil:
			o := syms.defs[slots[off/2].def]
			c.add(syms.File, d.line, "%s has the offset %d of %s (line %d): each object and counter needs an offset of its own", d.name, off, o.name, o.line)
		default:
			e.offset = off
			for int(off/2) >= len(slots) {
				slots = append(slots, nil)
			}
			slots[off/2] = e
		}
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	var symbolAt map[uint32]string // built at the first offset without text
	for k, e := range slots {
		if e == nil {
			if symbolAt == nil {
				symbolAt = syms.byOffset()
			}
			// An offset no text names (its symbol's text skipped above,
			// or none given): lodctr leaves its index without a name;
			// perfc gives it its symbol, so the indexes stay in one run.
			sym, ok := symbolAt[uint32(2*k)]
			if !ok {
				sym = "offset " + strconv.Itoa(2*k)
			}
			p.Warnings = append(p.Warnings, warn(syms.File, 0, "offset %d (%s) has no text in [text]: registered with its symbol as its name", 2*k, sym))
			e = &entry{offset: uint32(2 * k), name: Name{Symbol: sym, Text: map[string]Text{p.Language: {Name: sym}}}}
		}
		e.name.Offset = e.offset
		var from string
		if t := e.name.Text[p.Language]; t.Name != "" {
			from = p.Language
		} else {
			for _, l := range p.Languages {
				if e.name.Text[l].Name != "" {
					from = l
					break
				}
			}
		}
		if from == "" {
			c.add(ini.File, e.line, "%s has no NAME in any language of [languages] (only a HELP): add %s_%s_NAME=...", e.name.Symbol, e.name.Symbol, p.Language)
			continue
		}
		if from != p.Language {
			p.Warnings = append(p.Warnings, warn(ini.File, e.line, "%s has no NAME in language %s: its name is taken from language %s", e.name.Symbol, p.Language, from))
		}
		e.name.Name = e.name.Text[from].Name
		e.name.Help = e.name.Text[from].Help
		if e.name.Help == "" {
			e.name.Help = e.name.Text[p.Language].Help
		}
		p.Names = append(p.Names, e.name)
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	// [objects]: which names are objects (the rest are counters).
	for _, r := range ini.Objects {
		e := bySym[upper(r.Symbol)]
		if e == nil {
			if i, _ := syms.lookup(r.Symbol); i >= 0 {
				e = byDef[i]
			}
		}
		if e == nil {
			p.Warnings = append(p.Warnings, warn(ini.File, r.Line, "[objects] lists %s, which [text] gives no name in a language of [languages]: it is skipped", r.Symbol))
			continue
		}
		p.Names[e.offset/2].Object = true
	}
	if !ini.HasObjects {
		p.Warnings = append(p.Warnings, warn(ini.File, 0, "no [objects] section: the provider is asked for every query, since nothing says which names are its objects (Windows logs event 2000)"))
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	if len(p.Names) == 0 {
		return nil, &Error{File: ini.File, Msg: "[text] names no object or counter in a language of [languages]: " + strings.Join(p.Languages, ", ")}
	}
	return p, nil
}
