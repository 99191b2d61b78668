package manifest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/countertype"
)

// head is lines 1-4 of every test document; the first <counterSet> is on
// line 5 and its first <counter> on line 6.
const head = `<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
<instrumentation>
<counters xmlns="http://schemas.microsoft.com/win/2005/12/counters" schemaVersion="1.1">
<provider providerGuid="{11111111-2222-3333-4444-555555555555}" applicationIdentity="t.exe" providerName="T">
`

const tail = `</provider>
</counters>
</instrumentation>
</instrumentationManifest>
`

const setAttrs = `guid="{AAAAAAAA-0000-0000-0000-000000000001}" uri="T.S1" name="S1" description="d" instances="multiple"`

// set renders a <counterSet> (one line) with its counters (one line each)
// and the closing tag (one line).
func set(attrs string, counters ...string) string {
	return "<counterSet " + attrs + ">\n" + strings.Join(counters, "\n") + "\n</counterSet>\n"
}

// ctr renders a one-line <counter>; its uri is unique per id and type.
func ctr(id, typ, extra string) string {
	return fmt.Sprintf(`<counter id="%s" uri="T.S1.%s.%s" name="c%s" type="%s" detailLevel="standard" %s/>`, id, id, typ, id, typ, extra)
}

func wrap(body string) string { return head + body + tail }

func TestInvalidManifests(t *testing.T) {
	raw := func(id, typ string) string { return ctr(id, typ, "") }
	tests := []struct {
		name string
		doc  string
		want string // the whole Error() text
		attr string
	}{
		{"set guid missing",
			wrap(set(`uri="T.S1" name="S1" description="d"`, raw("1", "perf_counter_rawcount"))),
			`t.man:5: <counterSet name="S1">: required attribute guid missing`, "guid"},
		{"set guid syntax",
			wrap(set(`guid="{AAAA}" uri="T.S1" name="S1" description="d"`, raw("1", "perf_counter_rawcount"))),
			`t.man:5: <counterSet name="S1">: guid "{AAAA}": want {XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}`, "guid"},
		{"set guid hex digit",
			wrap(set(`guid="{AAAAAAAA-0000-0000-0000-00000000000G}" uri="T.S1" name="S1" description="d"`, raw("1", "perf_counter_rawcount"))),
			`t.man:5: <counterSet name="S1">: guid "{AAAAAAAA-0000-0000-0000-00000000000G}": 'G' at position 36 is not a hex digit`, "guid"},
		{"duplicate set guid",
			wrap(set(setAttrs, raw("1", "perf_counter_rawcount")) +
				set(`guid="{aaaaaaaa-0000-0000-0000-000000000001}" uri="T.S2" name="S2" description="d"`, raw("2", "perf_counter_rawcount"))),
			`t.man:8: <counterSet name="S2">: counter-set GUID "{aaaaaaaa-0000-0000-0000-000000000001}" already used on line 5`, "guid"},
		{"duplicate set name",
			wrap(set(setAttrs, raw("1", "perf_counter_rawcount")) +
				set(`guid="{AAAAAAAA-0000-0000-0000-000000000002}" uri="T.S2" name="s1" description="d"`, raw("2", "perf_counter_rawcount"))),
			`t.man:8: <counterSet name="s1">: counter-set name "s1" already used on line 5`, "name"},
		{"set name too long",
			wrap(set(`guid="{AAAAAAAA-0000-0000-0000-000000000001}" uri="T.S1" description="d" name="`+strings.Repeat("é", 1024)+`"`, raw("1", "perf_counter_rawcount"))),
			`t.man:5: <counterSet name="` + strings.Repeat("é", 1024) + `">: name is 1024 characters long, the limit is 1023`, "name"},
		{"instances keyword",
			wrap(set(`guid="{AAAAAAAA-0000-0000-0000-000000000001}" uri="T.S1" name="S1" description="d" instances="many"`, raw("1", "perf_counter_rawcount"))),
			`t.man:5: <counterSet name="S1">: instances "many": want single, multiple, globalAggregate, multipleAggregate or globalAggregateHistory`, "instances"},
		{"set symbol not a C identifier",
			wrap(set(setAttrs+` symbol="1abc"`, raw("1", "perf_counter_rawcount"))),
			`t.man:5: <counterSet name="S1">: symbol "1abc" is not a C identifier`, "symbol"},
		{"set without counters",
			wrap(set(setAttrs)),
			`t.man:5: <counterSet name="S1">: counter set has no <counter>`, ""},
		{"counter id missing",
			wrap(set(setAttrs, `<counter uri="T.x" name="x" type="perf_counter_rawcount" detailLevel="standard"/>`)),
			`t.man:6: <counter>: required attribute id missing`, "id"},
		{"counter id not a number",
			wrap(set(setAttrs, raw("one", "perf_counter_rawcount"))),
			`t.man:6: <counter id="one">: id "one": not an unsigned decimal or 0x hex number`, "id"},
		{"counter id hex too long",
			wrap(set(setAttrs, raw("0x123456789", "perf_counter_rawcount"))),
			`t.man:6: <counter id="0x123456789">: id "0x123456789": more than 8 hex digits`, "id"},
		{"counter id out of range",
			wrap(set(setAttrs, raw("4294967296", "perf_counter_rawcount"))),
			`t.man:6: <counter id="4294967296">: id "4294967296": out of range for a 32-bit unsigned number`, "id"},
		{"duplicate counter id",
			wrap(set(setAttrs, raw("1", "perf_counter_rawcount"), raw("0x1", "perf_counter_large_rawcount"))),
			`t.man:7: <counter id="0x1">: counter id 1 already used on line 6`, "id"},
		{"duplicate counter name",
			wrap(set(setAttrs, raw("1", "perf_counter_rawcount"), `<counter id="2" uri="T.x" name="C1" type="perf_counter_rawcount" detailLevel="standard"/>`)),
			`t.man:7: <counter id="2">: counter name "C1" already used on line 6`, "name"},
		{"duplicate counter uri",
			wrap(set(setAttrs, raw("1", "perf_counter_rawcount"), `<counter id="2" uri="T.S1.1.perf_counter_rawcount" name="x" type="perf_counter_rawcount" detailLevel="standard"/>`)),
			`t.man:7: <counter id="2">: counter uri "T.S1.1.perf_counter_rawcount" already used on line 6`, "uri"},
		{"defaultScale above 10",
			wrap(set(setAttrs, ctr("1", "perf_counter_rawcount", `defaultScale="11"`))),
			`t.man:6: <counter id="1">: defaultScale "11": want an integer from -10 to 10`, "defaultScale"},
		{"defaultScale not an integer",
			wrap(set(setAttrs, ctr("1", "perf_counter_rawcount", `defaultScale="1.5"`))),
			`t.man:6: <counter id="1">: defaultScale "1.5": want an integer from -10 to 10`, "defaultScale"},
		{"detailLevel keyword",
			wrap(set(setAttrs, `<counter id="1" uri="T.x" name="x" type="perf_counter_rawcount" detailLevel="expert"/>`)),
			`t.man:6: <counter id="1">: detailLevel "expert": want standard or advanced`, "detailLevel"},
		{"aggregate keyword",
			wrap(set(setAttrs, ctr("1", "perf_counter_rawcount", `aggregate="total"`))),
			`t.man:6: <counter id="1">: aggregate "total": want sum, avg, min, max or undefined`, "aggregate"},
		{"type missing",
			wrap(set(setAttrs, `<counter id="1" uri="T.x" name="x" detailLevel="standard"/>`)),
			`t.man:6: <counter id="1">: required attribute type missing`, "type"},
		{"unknown type",
			wrap(set(setAttrs, raw("1", "perf_counter_foo"))),
			`t.man:6: <counter id="1">: unknown counter type "perf_counter_foo"`, "type"},
		{"winperf type not in the schema",
			wrap(set(setAttrs, raw("1", "perf_counter_nodata"))),
			`t.man:6: <counter id="1">: unknown counter type "perf_counter_nodata"`, "type"},
		{"type as a number",
			wrap(set(setAttrs, raw("1", "65536"))),
			`t.man:6: <counter id="1">: unknown counter type "65536"`, "type"},
		{"perf_counter_composite",
			wrap(set(setAttrs, raw("1", "perf_counter_composite"))),
			`t.man:6: <counter id="1">: type "perf_counter_composite" has no winperf.h counter type and is not supported`, "type"},
		{"counter name too long",
			wrap(set(setAttrs, `<counter id="1" uri="T.x" type="perf_counter_rawcount" detailLevel="standard" name="`+strings.Repeat("n", 1024)+`"/>`)),
			`t.man:6: <counter id="1">: name is 1024 characters long, the limit is 1023`, "name"},
		{"displayable counter without name",
			wrap(set(setAttrs, `<counter id="1" uri="T.x" type="perf_counter_rawcount" detailLevel="standard"/>`)),
			`t.man:6: <counter id="1">: required attribute name missing (only a noDisplay or base counter may omit it)`, ""},
		{"fraction without baseID",
			wrap(set(setAttrs, raw("1", "perf_average_timer"), raw("2", "perf_average_base"))),
			`t.man:6: <counter id="1">: perf_average_timer needs a base counter: baseID missing (want a perf_average_base)`, ""},
		{"precision timer without baseID",
			wrap(set(setAttrs, raw("1", "perf_precision_100ns_timer"))),
			`t.man:6: <counter id="1">: perf_precision_100ns_timer needs a base counter: baseID missing (want a perf_large_raw_base)`, ""},
		{"baseID names the wrong type",
			wrap(set(setAttrs, ctr("1", "perf_average_timer", `baseID="2"`), raw("2", "perf_counter_rawcount"))),
			`t.man:6: <counter id="1">: baseID 2 names a perf_counter_rawcount, want perf_average_base`, "baseID"},
		{"baseID names another base type",
			wrap(set(setAttrs, ctr("1", "perf_sample_fraction", `baseID="2"`), raw("2", "perf_raw_base"))),
			`t.man:6: <counter id="1">: baseID 2 names a perf_raw_base, want perf_sample_base`, "baseID"},
		{"baseID names no counter",
			wrap(set(setAttrs, ctr("1", "perf_raw_fraction", `baseID="9"`))),
			`t.man:6: <counter id="1">: baseID 9 names no counter of this set`, "baseID"},
		{"baseID on a type without base",
			wrap(set(setAttrs, ctr("1", "perf_counter_rawcount", `baseID="2"`), raw("2", "perf_raw_base"))),
			`t.man:6: <counter id="1">: perf_counter_rawcount takes no base counter, but baseID 2 is given`, "baseID"},
		{"base shared by two counters",
			wrap(set(setAttrs,
				`<counter id="9" uri="T.b" type="perf_average_base" detailLevel="advanced"/>`,
				ctr("1", "perf_average_timer", `baseID="9"`),
				ctr("3", "perf_average_bulk", `baseID="9"`))),
			`t.man:8: <counter id="3">: base counter 9 is already the base of counter 1 on line 7 (each counter needs its own base)`, "baseID"},
		{"base nobody uses",
			wrap(set(setAttrs, raw("1", "perf_counter_rawcount"), raw("2", "perf_average_base"))),
			`t.man:7: <counter id="2">: base counter 2 (perf_average_base) is named by no counter's baseID`, ""},
		{"multi timer without multiCounterID",
			wrap(set(setAttrs, raw("1", "perf_counter_multi_timer"))),
			`t.man:6: <counter id="1">: perf_counter_multi_timer needs multiCounterID (a perf_counter_rawcount holding the number of items)`, ""},
		{"multiCounterID names a large rawcount",
			wrap(set(setAttrs, ctr("1", "perf_100nsec_multi_timer", `multiCounterID="2"`), raw("2", "perf_counter_large_rawcount"))),
			`t.man:6: <counter id="1">: multiCounterID 2 names a perf_counter_large_rawcount, want perf_counter_rawcount`, "multiCounterID"},
		{"elapsed time without perfTimeID",
			wrap(set(setAttrs, ctr("1", "perf_elapsed_time", `perfFreqID="2"`), raw("2", "perf_counter_large_rawcount"))),
			`t.man:6: <counter id="1">: perf_elapsed_time needs perfTimeID (a perf_counter_large_rawcount holding the time stamp)`, ""},
		{"object timer without perfFreqID",
			wrap(set(setAttrs, ctr("1", "perf_obj_time_timer", `perfTimeID="2"`), raw("2", "perf_counter_large_rawcount"))),
			`t.man:6: <counter id="1">: perf_obj_time_timer needs perfFreqID (a perf_counter_large_rawcount holding the frequency)`, ""},
		{"perfTimeID names a rawcount",
			wrap(set(setAttrs, ctr("1", "perf_elapsed_time", `perfTimeID="2" perfFreqID="3"`), raw("2", "perf_counter_rawcount"), raw("3", "perf_counter_large_rawcount"))),
			`t.man:6: <counter id="1">: perfTimeID 2 names a perf_counter_rawcount, want perf_counter_large_rawcount`, "perfTimeID"},
		{"perfFreqID names no counter",
			wrap(set(setAttrs, ctr("1", "perf_elapsed_time", `perfTimeID="2" perfFreqID="7"`), raw("2", "perf_counter_large_rawcount"))),
			`t.man:6: <counter id="1">: perfFreqID 7 names no counter of this set`, "perfFreqID"},
		{"two time stamps in one set",
			wrap(set(setAttrs,
				ctr("1", "perf_elapsed_time", `perfTimeID="3" perfFreqID="4"`),
				ctr("2", "perf_obj_time_timer", `perfTimeID="5" perfFreqID="4"`),
				raw("3", "perf_counter_large_rawcount"), raw("4", "perf_counter_large_rawcount"), raw("5", "perf_counter_large_rawcount"))),
			`t.man:7: <counter id="2">: perfTimeID 5 differs from perfTimeID 3 on line 6 (a counter set has one time stamp and one frequency)`, "perfTimeID"},
		{"unknown counterAttribute",
			wrap(set(setAttrs, `<counter id="1" uri="T.x" name="x" type="perf_counter_rawcount" detailLevel="standard">`,
				`<counterAttributes>`, `<counterAttribute name="bold"/>`, `</counterAttributes>`, `</counter>`)),
			`t.man:8: <counterAttribute name="bold">: counterAttribute "bold": want reference, noDisplay, noDigitGrouping, displayAsReal or displayAsHex`, "name"},
		{"repeated counterAttribute",
			wrap(set(setAttrs, `<counter id="1" uri="T.x" name="x" type="perf_counter_rawcount" detailLevel="standard">`,
				`<counterAttributes>`, `<counterAttribute name="reference"/>`, `<counterAttribute name="reference"/>`, `</counterAttributes>`, `</counter>`)),
			`t.man:9: <counterAttribute name="reference">: counterAttribute "reference" repeated`, "name"},
		{"unresolved string reference",
			wrap(set(`guid="{AAAAAAAA-0000-0000-0000-000000000001}" uri="T.S1" name="$(string.Missing)" description="d"`, raw("1", "perf_counter_rawcount"))),
			`t.man:5: <counterSet name="$(string.Missing)">: name "$(string.Missing)": no <string id="Missing"> in the manifest's string table`, "name"},
		{"providerType keyword",
			strings.Replace(wrap(set(setAttrs, raw("1", "perf_counter_rawcount"))), `providerName="T"`, `providerName="T" providerType="driver"`, 1),
			`t.man:4: <provider providerName="T">: providerType "driver": want userMode or kernelMode`, "providerType"},
		{"provider GUID missing",
			strings.Replace(wrap(set(setAttrs, raw("1", "perf_counter_rawcount"))), `providerGuid="{11111111-2222-3333-4444-555555555555}"`, ``, 1),
			`t.man:4: <provider providerName="T">: required attribute providerGuid missing`, "providerGuid"},
		{"schemaVersion",
			strings.Replace(wrap(set(setAttrs, raw("1", "perf_counter_rawcount"))), `schemaVersion="1.1"`, `schemaVersion="one"`, 1),
			`t.man:3: <counters>: schemaVersion "one" is not a version number (such as 1.1)`, "schemaVersion"},
		{"no provider",
			head[:strings.Index(head, "<provider")] + "</counters>\n</instrumentation>\n</instrumentationManifest>\n",
			`t.man:3: <counters>: no <provider> element`, ""},
		{"no counters section",
			"<instrumentationManifest xmlns=\"http://schemas.microsoft.com/win/2004/08/events\">\n<instrumentation/>\n</instrumentationManifest>\n",
			`t.man:1: <instrumentationManifest>: no <counters> section: the manifest declares no counter provider`, ""},
		{"malformed XML",
			wrap(set(setAttrs, raw("1", "perf_counter_rawcount")) + "</oops>\n"),
			`t.man:8: malformed XML: element <provider> closed by </oops>`, ""},
		{"repeated attribute",
			wrap(set(setAttrs, ctr("1", "perf_counter_rawcount", `defaultScale="1" defaultScale="2"`))),
			`t.man:6: <counter id="1">: attribute defaultScale repeated`, "defaultScale"},
		{"attribute on its own line",
			wrap(set(setAttrs, "<counter id=\"1\" uri=\"T.x\" name=\"x\"\n  type=\"perf_counter_rawcount\"\n  defaultScale=\"-11\"/>")),
			`t.man:8: <counter id="1">: defaultScale "-11": want an integer from -10 to 10`, "defaultScale"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Parse("t.man", strings.NewReader(tc.doc))
			if err == nil {
				t.Fatalf("no error; parsed %+v", m)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v is not *Error", err, err)
			}
			if err.Error() != tc.want {
				t.Errorf("error\n got %s\nwant %s", err, tc.want)
			}
			if e.File != "t.man" || e.Attr != tc.attr {
				t.Errorf("file %q attr %q, want t.man %q", e.File, e.Attr, tc.attr)
			}
		})
	}
}

// TestValidShapes covers accepted documents that no conformance manifest
// exercises.
func TestValidShapes(t *testing.T) {
	t.Run("any schemaVersion number", func(t *testing.T) {
		for _, v := range []string{"1.0", "1.1", "2.0", "2", " 3.1.4 "} {
			in := strings.Replace(wrap(set(setAttrs, ctr("1", "perf_counter_rawcount", ""))), `schemaVersion="1.1"`, `schemaVersion="`+v+`"`, 1)
			if _, err := Parse("t.man", strings.NewReader(in)); err != nil {
				t.Errorf("schemaVersion %q: %v", v, err)
			}
		}
	})
	t.Run("no namespace, hex ids, every keyword", func(t *testing.T) {
		in := `<counters><provider providerGuid="{11111111-2222-3333-4444-555555555555}" providerType="kernelMode" resourceBase="0x10">
<counterSet guid="{AAAAAAAA-0000-0000-0000-000000000001}" uri="u" name="N" description="d" instances="globalAggregateHistory">
<counter id="0x0A" uri="a" name="A" type="perf_counter_multi_timer_inv" baseID="0xb" multiCounterID="12" detailLevel="advanced" aggregate="min" defaultScale="+10"/>
<counter id="11" uri="b" type="perf_counter_multi_base" detailLevel="advanced"/>
<counter id="12" uri="c" name="C" type="PERF_COUNTER_RAWCOUNT" detailLevel="standard" defaultScale="-10"/>
<counter id="13" uri="d" name="D" type="perf_precision_object_timer" baseID="14" perfTimeID="15" perfFreqID="16" detailLevel="standard"/>
<counter id="14" uri="e" type="perf_large_raw_base" detailLevel="standard"><counterAttributes><counterAttribute name="noDisplay"/></counterAttributes></counter>
<counter id="15" uri="f" symbol="TimeStamp" type="perf_counter_large_rawcount" detailLevel="standard"><counterAttributes><counterAttribute name="noDisplay"/></counterAttributes></counter>
<counter id="16" uri="g" type="perf_counter_large_rawcount" detailLevel="standard"><counterAttributes><counterAttribute name="noDisplay"/></counterAttributes></counter>
</counterSet></provider></counters>`
		m, err := Parse("t.man", strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		p := m.Providers[0]
		if p.ProviderType != KernelMode || p.ResourceBase != 16 || p.Callback != "default" {
			t.Errorf("provider %+v", p)
		}
		s := p.CounterSets[0]
		if s.Instancing != counterset.GlobalAggregateHistory {
			t.Errorf("instancing %v", s.Instancing)
		}
		c := s.Counters
		if c[0].ID != 10 || c[0].BaseID != 11 || c[0].MultiID != 12 || c[0].Aggregate != counterset.AggregateMin || c[0].DefaultScale != 10 || c[0].DetailLevel != counterset.DetailAdvanced {
			t.Errorf("counter 10: %+v", c[0])
		}
		if c[1].ID != 11 || c[1].Type != countertype.PERF_COUNTER_MULTI_BASE || c[1].Name != "A" {
			t.Errorf("counter 11: %+v", c[1])
		}
		if c[2].Type != countertype.PERF_COUNTER_RAWCOUNT || c[2].DefaultScale != -10 {
			t.Errorf("counter 12: %+v", c[2])
		}
		if c[3].PerfTimeID != 15 || c[3].PerfFreqID != 16 || c[4].ID != 14 {
			t.Errorf("counters 13/14: %+v %+v", c[3], c[4])
		}
		if c[5].Name != "TimeStamp" || c[6].Name != "g" {
			t.Errorf("derived names %q %q", c[5].Name, c[6].Name)
		}
		if s.DetailLevel != counterset.DetailNovice {
			t.Errorf("set detail %d", s.DetailLevel)
		}
	})
	t.Run("UTF-16LE with byte-order mark", func(t *testing.T) {
		text := `<?xml version="1.0" encoding="UTF-16"?>` + "\n" + wrap(set(setAttrs, raw2("1")))
		b := []byte{0xFF, 0xFE}
		for _, u := range utf16.Encode([]rune(text)) {
			b = append(b, byte(u), byte(u>>8))
		}
		m, err := Parse("t.man", strings.NewReader(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		if s := m.Providers[0].CounterSets[0]; s.Name != "S1" || len(s.Counters) != 1 {
			t.Errorf("set %+v", s)
		}
	})
	t.Run("elements of other namespaces are skipped", func(t *testing.T) {
		in := wrap(set(setAttrs, raw2("1"), `<x:counter xmlns:x="urn:other" id="1"/>`))
		m, err := Parse("t.man", strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if n := len(m.Providers[0].CounterSets[0].Counters); n != 1 {
			t.Errorf("%d counters", n)
		}
	})
}

func raw2(id string) string { return ctr(id, "perf_counter_rawcount", "") }
