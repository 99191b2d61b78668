package manifest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/countertype"
)

// conformanceDir holds copies of the real manifests of
// shared/conformance/manifests (testdata/PROVENANCE.md) under their paths
// there, except the three kept at the top of testdata/ (wantManifest.copy).
const conformanceDir = "testdata/conformance"

// path returns where the copy of w is.
func (w wantManifest) path() string {
	if w.copy != "" {
		return filepath.Join("testdata", w.copy)
	}
	return filepath.Join(conformanceDir, filepath.FromSlash(w.file))
}

type wantSet struct {
	name string
	inst counterset.Instancing
	ids  []uint32 // counter ids in definition order
}

type wantManifest struct {
	file    string // relative to shared/conformance/manifests (and conformanceDir)
	copy    string // copy at the top of testdata/, or "" (then under conformanceDir)
	prov    string // providerName
	guid    string
	ptype   ProviderType
	sets    []wantSet
	details func(t *testing.T, m *Manifest)
}

func seq(n uint32) []uint32 {
	s := make([]uint32, n)
	for i := range s {
		s[i] = uint32(i) + 1
	}
	return s
}

// conformance lists every manifest of shared/conformance/manifests with what
// was read from it by hand. Every one must load (they all worked with
// Windows' lodctr/ctrpp).
var conformance = []wantManifest{
	{
		file: "windows-classic-samples/Basic-CPP/ucs.man", copy: "ucs.man",
		prov: "UsermodeCountersSample", guid: "{FFEEAADD-965A-4CF9-9C07-FE25378C2A23}", ptype: UserMode,
		sets: []wantSet{
			{"Geometric Waves", counterset.MultipleAggregate, []uint32{1, 2}},
			// The base (id 4) is declared before its user (id 5).
			{"Trignometric Waves", counterset.Single, []uint32{1, 2, 3, 5, 4}},
		},
		details: checkUCS,
	},
	{
		file: "windows-classic-samples/Basic-CSharp/ucs.man",
		prov: "UsermodeCountersSampleManaged", guid: "{5AE84FD4-BF72-49C4-936E-A7473237C338}", ptype: UserMode,
		sets: []wantSet{
			{"Geometric Waves Managed", counterset.MultipleAggregate, []uint32{1, 2}},
			{"Trigonometric Waves Managed", counterset.Single, []uint32{1, 2, 3, 5, 4}},
		},
	},
	{
		file: "windows-classic-samples/GlobalAggregate-CPP/gas.man",
		prov: "Global Aggregate Sample", guid: "{FFDDAAEE-965A-4CF9-9C07-FE25378C2A24}", ptype: UserMode,
		sets: []wantSet{
			{"Aggregated Trignometric Waves", counterset.GlobalAggregate, []uint32{1, 2, 3, 5, 4}},
		},
		details: func(t *testing.T, m *Manifest) {
			cs := m.Providers[0].CounterSets[0].Counters
			got := []counterset.Aggregate{cs[0].Aggregate, cs[1].Aggregate, cs[2].Aggregate, cs[3].Aggregate}
			want := []counterset.Aggregate{counterset.AggregateTotal, counterset.AggregateAvg, counterset.AggregateUndefined, counterset.AggregateMax}
			if !slices.Equal(got, want) {
				t.Errorf("aggregates %v, want %v", got, want)
			}
		},
	},
	{
		file: "windows-driver-samples/kcs.man",
		prov: "KernelCountersSample", guid: "{D2FFFFFF-965A-4CF9-9C07-FE25378C2A23}", ptype: KernelMode,
		sets: []wantSet{
			{"Geometric Waves", counterset.MultipleAggregate, []uint32{1, 2}},
			{"Trignometric Waves", counterset.Single, []uint32{1, 2, 3}},
		},
		details: func(t *testing.T, m *Manifest) {
			si := m.Providers[0].Sets[0]
			if len(si.Structs) != 1 || si.Structs[0] != (Struct{"GeometricWaveValues", "GEOMETRIC_WAVE_VALUES"}) {
				t.Errorf("structs %+v", si.Structs)
			}
			if c := si.Counters[1]; c.Struct != "GeometricWaveValues" || c.Field != "Square" {
				t.Errorf("counter 2 struct/field %q/%q", c.Struct, c.Field)
			}
		},
	},
	{
		file: "nodejs/node_perfctr_provider.man",
		prov: "", guid: "{793C9B44-3D6B-4F57-B5D7-4FF80ADCF9A2}", ptype: UserMode,
		sets: []wantSet{{"Node.js", counterset.MultipleAggregate, seq(10)}},
		details: func(t *testing.T, m *Manifest) {
			s := m.Providers[0].CounterSets[0]
			if c := s.Counters[5]; c.Name != "Network bytes sent" || c.DefaultScale != -3 || c.Type != countertype.PERF_COUNTER_BULK_COUNT || c.Aggregate != counterset.AggregateTotal {
				t.Errorf("counter 6: %+v", c)
			}
			if c := s.Counters[7]; c.Name != "%Time in GC" || c.Aggregate != counterset.AggregateAvg {
				t.Errorf("counter 8: %+v", c)
			}
			if m.Providers[0].Sets[0].Symbol != "NodeCounterSet" || m.Providers[0].Symbol != "NodeCounterProvider" {
				t.Errorf("symbols %q %q", m.Providers[0].Sets[0].Symbol, m.Providers[0].Symbol)
			}
		},
	},
	{
		file: "dotnet-corefx/provider.man", copy: "dotnet-provider.man",
		prov: "", guid: "{51D1685C-35ED-45BE-99FE-17261A4F27F3}", ptype: UserMode,
		sets:    []wantSet{{"Typing", counterset.Single, seq(6)}},
		details: checkDotnet,
	},
	{
		file: "openzfsonwindows-ZFSin/OpenZFS.man",
		prov: "ZFSin", guid: "{D8CDBC79-DE07-46E3-9BB6-DCB4642DB837}", ptype: KernelMode,
		sets: []wantSet{{"OpenZFS zpool", counterset.Multiple, seq(17)}},
		details: func(t *testing.T, m *Manifest) {
			ci := m.Providers[0].Sets[0].Counters
			// struct names no declared struct: kept as written.
			if ci[0].Struct != "read_iops" {
				t.Errorf("struct %q", ci[0].Struct)
			}
			// uri written with a trailing space.
			if ci[13].URI != "ZFSin.vsx_pend_queue_sync_read" {
				t.Errorf("uri %q", ci[13].URI)
			}
			if c := m.Providers[0].CounterSets[0].Counters[6]; c.Name != "DDT Entries" || c.Type != countertype.PERF_COUNTER_LARGE_RAWCOUNT {
				t.Errorf("counter 7: %+v", c)
			}
		},
	},
	{
		file: "service-fabric/kperfcounter.um.man",
		prov: "UsermodeCountersSample", guid: "{FFFFFFFF-F41B-42E6-8D58-84FA32174792}", ptype: UserMode,
		sets: []wantSet{
			{"RVD Test Singleton", counterset.Single, seq(3)},
			{"RVD Test Multi", counterset.Multiple, seq(4)},
		},
		details: func(t *testing.T, m *Manifest) {
			c := m.Providers[0].CounterSets[0].Counters[1]
			if c.DefaultScale != 1 || c.Attributes != counterset.AttrByReference || c.Type != countertype.PERF_COUNTER_LARGE_RAWCOUNT {
				t.Errorf("counter 2: %+v", c)
			}
		},
	},
	{
		file: "service-fabric/kperfcounter.km.man",
		prov: "RVD Kernel Counters Sample", guid: "{6041B507-3C86-40FD-93CD-CDF762487E17}", ptype: KernelMode,
		sets: []wantSet{
			{"RVD Kernel Singleton", counterset.Single, seq(3)},
			{"RVD Kernel Multi", counterset.Multiple, seq(4)},
		},
		details: func(t *testing.T, m *Manifest) {
			// field without struct.
			if c := m.Providers[0].Sets[1].Counters[0]; c.Struct != "" || c.Field != "U64Value1" {
				t.Errorf("struct/field %q/%q", c.Struct, c.Field)
			}
		},
	},
	{
		file: "service-fabric/KtlLoggerCounters.um.man",
		prov: "KtlLoggerUMCounters", guid: "{A1E3BBB1-1E5D-4E95-9E79-952AEF1206C3}", ptype: UserMode,
		sets: []wantSet{
			{"KTL Log Stream UM", counterset.Multiple, seq(9)},
			{"Ktl Log Container UM", counterset.Multiple, seq(2)},
			{"Ktl Log Manager UM", counterset.Multiple, seq(2)},
		},
		details: func(t *testing.T, m *Manifest) {
			// <structs> on a user-mode provider: kept.
			if s := m.Providers[0].Sets[0].Structs; len(s) != 1 || s[0].Type != "KTL_LOG_STREAM" {
				t.Errorf("structs %+v", s)
			}
		},
	},
	{
		file: "service-fabric/KtlLoggerCounters.km.man",
		prov: "KTLLoggerCounters", guid: "{11477D28-DCF0-442E-978C-BCBCB71F4AD1}", ptype: KernelMode,
		sets: []wantSet{
			{"Ktl Log Stream", counterset.Multiple, seq(9)},
			{"Ktl Log Container", counterset.Multiple, seq(2)},
			{"Ktl Log Manager", counterset.Multiple, seq(2)},
		},
	},
	{
		file: "msdocs/performance-counters-schema-example.man", copy: "msdocs-example.man",
		prov: "", guid: "{AB8E1320-965A-4CF9-9C07-FE25378C2A23}", ptype: UserMode,
		sets: []wantSet{
			{"My LogicalDisk", counterset.Multiple, []uint32{1, 2, 3}},
			{"My System Objects", counterset.Single, seq(5)},
		},
		details: checkMSDocs,
	},
}

func checkUCS(t *testing.T, m *Manifest) {
	p := m.Providers[0]
	if p.ApplicationIdentity != "ucs.exe" || p.Callback != "custom" || p.Symbol != "UserModeCountersSample" {
		t.Errorf("provider %+v", p)
	}
	s, si := p.CounterSets[1], p.Sets[1]
	if si.Symbol != "TrignometricWave" || si.URI != "Microsoft.Sdk.Samples.Ucs.TrignometricWave" || si.Line != 45 {
		t.Errorf("set info %+v", si)
	}
	want := []counterset.Counter{
		{ID: 1, Name: "Sine Wave", Help: "This counter displays Sine Wave", Type: countertype.PERF_COUNTER_RAWCOUNT, DetailLevel: 100, Attributes: counterset.AttrByReference},
		{ID: 2, Name: "Cosine Wave", Help: "This counter displays Cosine Wave", Type: countertype.PERF_COUNTER_RAWCOUNT, DetailLevel: 100, Attributes: counterset.AttrByReference},
		{ID: 3, Name: "Constant Value", Help: "This counter displays Constant Value", Type: countertype.PERF_COUNTER_RAWCOUNT, DetailLevel: 100, DefaultScale: 1, Attributes: counterset.AttrByReference},
		{ID: 5, Name: "Raw Fraction", Help: "RawFraction ; Takes counter with ID = 4 as base counter", Type: countertype.PERF_RAW_FRACTION, DetailLevel: 100, Attributes: counterset.AttrByReference, BaseID: 4},
		{ID: 4, Name: "Constant Number", Help: "This counter stores Constant Value but do not display", Type: countertype.PERF_RAW_BASE, DetailLevel: 100, Attributes: counterset.AttrNoDisplay},
	}
	for i := range want {
		w := want[i]
		if w.BaseID == 0 {
			w.BaseID = counterset.NoID
		}
		w.MultiID, w.PerfTimeID, w.PerfFreqID = counterset.NoID, counterset.NoID, counterset.NoID
		if s.Counters[i] != w {
			t.Errorf("counter %d:\n got %+v\nwant %+v", i, s.Counters[i], w)
		}
	}
	if s.DefaultCounter != -1 || s.DetailLevel != counterset.DetailNovice {
		t.Errorf("set default %d detail %d", s.DefaultCounter, s.DetailLevel)
	}
	// Lines of the <counter> elements (grep -n "counter id"): 1 at 51, 5 at 92, 4 at 82.
	if l := []int{si.Counters[0].Line, si.Counters[3].Line, si.Counters[4].Line}; !slices.Equal(l, []int{51, 92, 82}) {
		t.Errorf("counter lines %v", l)
	}
}

func checkDotnet(t *testing.T, m *Manifest) {
	s := m.Providers[0].CounterSets[0]
	if s.Help != "Captures simple typing metrics." {
		t.Errorf("set help %q", s.Help)
	}
	names := []string{"Total Words Typed", "Words Typed In Interval", "Letter A Pressed", "Words Containing A", "Percent of Words Containing A", "Percent of Words Containing A"}
	for i, n := range names {
		if s.Counters[i].Name != n {
			t.Errorf("counter %d name %q, want %q", i, s.Counters[i].Name, n)
		}
	}
	if c := s.Counters[4]; c.Type != countertype.PERF_SAMPLE_FRACTION || c.BaseID != 6 || c.Attributes != counterset.AttrDisplayAsReal {
		t.Errorf("counter 5: %+v", c)
	}
	if !m.Providers[0].Sets[0].Counters[5].Unnamed {
		t.Error("base counter 6 not marked unnamed")
	}
}

func checkMSDocs(t *testing.T, m *Manifest) {
	p := m.Providers[0]
	a := p.CounterSets[0].Counters
	if a[1].Type != countertype.PERF_AVERAGE_TIMER || a[1].Attributes != counterset.AttrByReference|counterset.AttrDisplayAsReal || a[1].DetailLevel != counterset.DetailAdvanced || a[1].BaseID != 3 {
		t.Errorf("avg timer %+v", a[1])
	}
	if a[2].Name != "My Avg. Disk sec/Transfer" || !p.Sets[0].Counters[2].Unnamed {
		t.Errorf("unnamed base %q", a[2].Name)
	}
	b := p.CounterSets[1].Counters
	if b[0].Attributes != counterset.AttrNoGroupSep|counterset.AttrDisplayAsHex {
		t.Errorf("attributes %#x", b[0].Attributes)
	}
	if b[1].Name != "Thread Count)" || b[1].DetailLevel != counterset.DetailNovice {
		t.Errorf("counter without detailLevel %+v", b[1])
	}
	if b[2].Type != countertype.PERF_ELAPSED_TIME || b[2].PerfTimeID != 4 || b[2].PerfFreqID != 5 {
		t.Errorf("elapsed %+v", b[2])
	}
	if b[3].Name != "MyCounter4" || b[4].Name != "MyCounter5" || b[3].Attributes != counterset.AttrNoDisplay {
		t.Errorf("unnamed timestamp counters %q %q", b[3].Name, b[4].Name)
	}
}

func checkManifest(t *testing.T, m *Manifest, w wantManifest) {
	t.Helper()
	if len(m.Providers) != 1 {
		t.Fatalf("%d providers, want 1", len(m.Providers))
	}
	p := m.Providers[0]
	if p.Name != w.prov || p.GUID != w.guid || p.ProviderType != w.ptype {
		t.Errorf("provider %q %s %v, want %q %s %v", p.Name, p.GUID, p.ProviderType, w.prov, w.guid, w.ptype)
	}
	if len(p.CounterSets) != len(w.sets) || len(p.Sets) != len(w.sets) {
		t.Fatalf("%d sets (%d infos), want %d", len(p.CounterSets), len(p.Sets), len(w.sets))
	}
	for i, ws := range w.sets {
		s := p.CounterSets[i]
		var ids []uint32
		for _, c := range s.Counters {
			ids = append(ids, c.ID)
		}
		if s.Name != ws.name || s.Instancing != ws.inst || !slices.Equal(ids, ws.ids) {
			t.Errorf("set %d: %q %v ids %v, want %q %v ids %v", i, s.Name, s.Instancing, ids, ws.name, ws.inst, ws.ids)
		}
		if len(p.Sets[i].Counters) != len(s.Counters) {
			t.Errorf("set %d: %d counter infos for %d counters", i, len(p.Sets[i].Counters), len(s.Counters))
		}
		if err := s.Validate(); err != nil {
			t.Errorf("set %d: %v", i, err)
		}
	}
	if w.details != nil {
		w.details(t, m)
	}
}

// TestConformanceManifests loads every real manifest (all of them worked
// with Windows' lodctr/ctrpp) and compares it with what was read from it by
// hand; the table names every copy there is.
func TestConformanceManifests(t *testing.T) {
	found := []string{}
	filepath.WalkDir(conformanceDir, func(path string, d os.DirEntry, err error) error {
		if err == nil && filepath.Ext(path) == ".man" {
			rel, _ := filepath.Rel(conformanceDir, path)
			found = append(found, filepath.ToSlash(rel))
		}
		return nil
	})
	var listed []string
	for _, w := range conformance {
		if w.copy == "" {
			listed = append(listed, w.file)
		}
	}
	slices.Sort(found)
	slices.Sort(listed)
	if !slices.Equal(found, listed) {
		t.Errorf("manifests in %s %v\nlisted %v", conformanceDir, found, listed)
	}
	if len(conformance) != 12 {
		t.Errorf("%d manifests listed, want the 12 of shared/conformance/manifests", len(conformance))
	}
	for _, w := range conformance {
		t.Run(w.file, func(t *testing.T) {
			m, err := ParseFile(w.path())
			if err != nil {
				t.Fatal(err)
			}
			checkManifest(t, m, w)
		})
	}
}
