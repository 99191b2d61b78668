package lodctr

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/counterset"
	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/tool/typeperf"
	"github.com/perfcounters/perfcounters/manifest"
	"github.com/perfcounters/perfcounters/perfdata"
	statedir "github.com/perfcounters/perfcounters/state"
)

// conformanceDir holds copies of the real manifests of
// shared/conformance/manifests (manifest/testdata/PROVENANCE.md).
const conformanceDir = "../../../manifest/testdata"

// copyNames are the copies kept under another name than in shared/;
// the rest keep their path under conformance/.
var copyNames = map[string]string{
	"dotnet-corefx/provider.man":                     "dotnet-provider.man",
	"msdocs/performance-counters-schema-example.man": "msdocs-example.man",
	"windows-classic-samples/Basic-CPP/ucs.man":      "ucs.man",
}

// The conformance manifests, each with the outcome lodctr must give: every
// one shipped and worked with Windows' lodctr, so every one registers, and
// its counter sets (listed from the files by hand, with their instancing)
// appear in a Global query, without data since no provider runs.
var conformance = []struct {
	file string
	sets []string // "name/instancing"
}{
	{"dotnet-corefx/provider.man", []string{"Typing/single"}},
	{"msdocs/performance-counters-schema-example.man", []string{"My LogicalDisk/multiple", "My System Objects/single"}},
	{"nodejs/node_perfctr_provider.man", []string{"Node.js/multipleAggregate"}},
	{"openzfsonwindows-ZFSin/OpenZFS.man", []string{"OpenZFS zpool/multiple"}},
	{"service-fabric/KtlLoggerCounters.km.man", []string{"Ktl Log Stream/multiple", "Ktl Log Container/multiple", "Ktl Log Manager/multiple"}},
	{"service-fabric/KtlLoggerCounters.um.man", []string{"KTL Log Stream UM/multiple", "Ktl Log Container UM/multiple", "Ktl Log Manager UM/multiple"}},
	{"service-fabric/kperfcounter.km.man", []string{"RVD Kernel Singleton/single", "RVD Kernel Multi/multiple"}},
	{"service-fabric/kperfcounter.um.man", []string{"RVD Test Singleton/single", "RVD Test Multi/multiple"}},
	{"windows-classic-samples/Basic-CPP/ucs.man", []string{"Geometric Waves/multipleAggregate", "Trignometric Waves/single"}},
	{"windows-classic-samples/Basic-CSharp/ucs.man", []string{"Geometric Waves Managed/multipleAggregate", "Trigonometric Waves Managed/single"}},
	{"windows-classic-samples/GlobalAggregate-CPP/gas.man", []string{"Aggregated Trignometric Waves/globalAggregate"}},
	{"windows-driver-samples/kcs.man", []string{"Geometric Waves/multipleAggregate", "Trignometric Waves/single"}},
}

func conformancePath(t *testing.T, file string) string {
	t.Helper()
	p := filepath.Join(conformanceDir, "conformance", file)
	if c, ok := copyNames[file]; ok {
		p = filepath.Join(conformanceDir, c)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("conformance manifest copy missing: %v", err)
	}
	return p
}

// globalObjects returns the objects of a Global query by title index.
func globalObjects(t *testing.T, state string) (map[uint32]perfdata.Object, *host.Host) {
	t.Helper()
	h, err := host.New(host.Options{StateDir: state, SegmentDir: t.TempDir(), MaxKeptFiles: 32})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	r, err := h.QueryValue(context.Background(), "Global")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Problems {
		t.Errorf("Global problem: %v", p)
	}
	b, err := perfdata.Parse(r.Block)
	if err != nil {
		t.Fatal(err)
	}
	out := map[uint32]perfdata.Object{}
	for it := b.Objects(); it.Next(); {
		out[it.Object().NameIndex()] = it.Object()
	}
	return out, h
}

// checkSets verifies that every registered set is in the Global block
// under its index, named by the title database, with the shape a set
// without a running provider has.
func checkSets(t *testing.T, state string, regs []statedir.Registration, want []string) {
	t.Helper()
	objs, h := globalObjects(t, state)
	var got []string
	for _, r := range regs {
		for _, s := range r.Sets {
			o, ok := objs[s.NameIndex]
			if !ok {
				t.Errorf("set %q (index %d) not in the Global block", s.Name, s.NameIndex)
				continue
			}
			if n := h.Titles().Name(s.NameIndex); n != s.Name {
				t.Errorf("title %d = %q, want %q", s.NameIndex, n, s.Name)
			}
			var inst counterset.Instancing
			switch {
			case o.SingleInstance():
				inst = counterset.Single
			case o.InstanceCount() == 0:
				inst = counterset.Multiple
			case o.InstanceCount() == 1:
				in := o.Instances()
				in.Next()
				if in.Instance().Name() != "_Total" {
					t.Errorf("set %q: lone instance %q", s.Name, in.Instance().Name())
				}
				inst = counterset.MultipleAggregate
			default:
				t.Errorf("set %q: %d instances with no provider running", s.Name, o.InstanceCount())
			}
			if o.NumCounters() != len(s.Counters) {
				t.Errorf("set %q: %d counters in the block, %d registered", s.Name, o.NumCounters(), len(s.Counters))
			}
			got = append(got, s.Name+"/"+inst.String())
		}
	}
	// A globalAggregate set is a single-instance object in the data.
	wantShape := slices.Clone(want)
	for i, w := range wantShape {
		wantShape[i] = strings.Replace(w, "/globalAggregate", "/single", 1)
	}
	if !slices.Equal(got, wantShape) {
		t.Errorf("sets in the data %q, want %q", got, wantShape)
	}
}

// TestConformanceManifests registers each conformance manifest in its own
// state directory and looks for its sets in a Global query.
func TestConformanceManifests(t *testing.T) {
	for _, tc := range conformance {
		t.Run(tc.file, func(t *testing.T) {
			path := conformancePath(t, tc.file)
			state := t.TempDir()
			var out bytes.Buffer
			if err := Install(Options{StateDir: state}, path, &out); err != nil {
				t.Fatalf("outcome: refused: %v", err)
			}
			if want := "Info: Successfully installed performance counters for " + path + "\n"; out.String() != want {
				t.Errorf("output %q, want %q", out.String(), want)
			}
			regs, err := readRegistrations(state)
			if err != nil || len(regs) != 1 {
				t.Fatalf("registrations %v, %v", regs, err)
			}
			checkSets(t, state, regs, tc.sets)
			t.Logf("outcome: registered, sets %q", tc.sets)
		})
	}
}

// TestAllConformanceManifestsTogether registers every manifest in one
// state directory: a manifest declaring a counter set whose name an
// earlier one registered (ucs.man and kcs.man both declare "Geometric
// Waves") is refused, as two objects of one name would be ambiguous;
// every other one registers with its own indexes, and every registered
// set is in the Global block.
func TestAllConformanceManifestsTogether(t *testing.T) {
	state := t.TempDir()
	var want []string
	taken := map[string]string{} // lower-case set name -> manifest
	accepted := 0
	for _, tc := range conformance {
		clash := ""
		for _, s := range tc.sets {
			name, _, _ := strings.Cut(s, "/")
			if f, ok := taken[strings.ToLower(name)]; ok {
				clash = name + " of " + f
			}
		}
		err := Install(Options{StateDir: state}, conformancePath(t, tc.file), io.Discard)
		if clash != "" {
			if err == nil || !strings.Contains(err.Error(), "already registered") {
				t.Errorf("%s: %v; want it refused (it declares %s)", tc.file, err, clash)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		accepted++
		for _, s := range tc.sets {
			name, _, _ := strings.Cut(s, "/")
			taken[strings.ToLower(name)] = tc.file
		}
		want = append(want, tc.sets...)
	}
	regs, err := readRegistrations(state)
	if err != nil || len(regs) != accepted {
		t.Fatalf("%d registrations, %v; want %d", len(regs), err, accepted)
	}
	seen := map[uint32]string{}
	for _, r := range regs {
		for _, i := range r.Indexes() {
			if s, dup := seen[i]; dup {
				t.Errorf("index %d given to %s and %s", i, s, r.GUID)
			}
			seen[i] = r.GUID
		}
	}
	checkSets(t, state, regs, want)

	// typeperf -q lists them by name, whether a provider runs or not.
	h, err := host.New(host.Options{StateDir: state, SegmentDir: t.TempDir(), MaxKeptFiles: 32})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var list bytes.Buffer
	if err := typeperf.List(context.Background(), h.Source(), typeperf.ListOptions{}, &list); err != nil {
		t.Fatal(err)
	}
	for _, r := range regs {
		for _, s := range r.Sets {
			c := s.Counters[0].Name
			if !strings.Contains(list.String(), `\`+s.Name+`(*)\`+c+"\n") && !strings.Contains(list.String(), `\`+s.Name+`\`+c+"\n") {
				t.Errorf("typeperf -q does not list %s\\%s", s.Name, c)
			}
		}
	}
}

func TestInstallUninstall(t *testing.T) {
	path := conformancePath(t, "windows-classic-samples/Basic-CPP/ucs.man")
	state := t.TempDir()
	var out bytes.Buffer
	if err := Install(Options{StateDir: state, Verbose: true}, path, &out); err != nil {
		t.Fatal(err)
	}
	regs, _ := readRegistrations(state)
	if len(regs) != 1 || !strings.Contains(out.String(), "Geometric Waves") {
		t.Fatalf("after install: %v\n%s", regs, out.String())
	}
	// Again: replaced, still one registration.
	out.Reset()
	if err := Install(Options{StateDir: state, Verbose: true}, path, &out); err != nil {
		t.Fatal(err)
	}
	if regs, _ := readRegistrations(state); len(regs) != 1 || !strings.Contains(out.String(), "replaced the earlier registration") {
		t.Fatalf("after reinstall: %v\n%s", regs, out.String())
	}
	out.Reset()
	if err := UninstallManifest(Options{StateDir: state}, path, &out); err != nil {
		t.Fatal(err)
	}
	if want := "Info: Successfully uninstalled the performance counters from the counter definition XML file " + path + "\n"; out.String() != want {
		t.Errorf("output %q, want %q", out.String(), want)
	}
	if regs, _ := readRegistrations(state); len(regs) != 0 {
		t.Fatalf("after uninstall: %v", regs)
	}
	if err := Uninstall(Options{StateDir: state}, "{FFEEAADD-965A-4CF9-9C07-FE25378C2A23}", &out); err == nil {
		t.Error("uninstalling an unregistered provider succeeded")
	}
}

// An invalid manifest is refused with the file, line, element and rule,
// and the state directory is left as it was.
func TestInstallInvalid(t *testing.T) {
	state := t.TempDir()
	bad := filepath.Join(t.TempDir(), "bad.man")
	os.WriteFile(bad, []byte(`<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"><instrumentation>
<counters xmlns="http://schemas.microsoft.com/win/2005/12/counters" schemaVersion="1.1">
<provider providerGuid="{0A1B2C3D-0000-4000-8000-000000000001}" applicationIdentity="x" symbol="x">
<counterSet guid="{0A1B2C3D-0000-4000-8000-000000000011}" uri="u" name="Bad" description="d" symbol="s" instances="single">
<counter id="1" uri="c" name="Fraction" description="d" type="perf_raw_fraction" detailLevel="standard"/>
</counterSet></provider></counters></instrumentation></instrumentationManifest>
`), 0o644)
	err := Install(Options{StateDir: state}, bad, io.Discard)
	var me *manifest.Error
	if !errors.As(err, &me) || me.Line != 5 || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "counter") {
		t.Fatalf("error %v (%#v), want a manifest error at %s line 5", err, me, bad)
	}
	if ents, _ := os.ReadDir(state); len(ents) != 0 {
		t.Errorf("state directory written: %v", ents)
	}
}

// readRegistrations returns the V2 registrations of a state directory; a
// damaged entry is an error.
func readRegistrations(dir string) ([]statedir.Registration, error) {
	regs, problems, err := statedir.ReadRegistrations(dir)
	if err == nil && len(problems) > 0 {
		err = errors.Join(problems...)
	}
	return regs, err
}

// TestListDamaged: lodctr /q lists the registrations that could be read
// and names a damaged entry with its repair.
func TestListDamaged(t *testing.T) {
	state := t.TempDir()
	m := filepath.Join("..", "..", "..", "examples", "httpserver", "httpserver.man")
	if err := Install(Options{StateDir: state}, m, io.Discard); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(state, "providers.json")
	b, _ := os.ReadFile(path)
	var rec map[string]any
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	rec["providers"] = append(rec["providers"].([]any), map[string]any{"guid": "{0A1B2C3D-0000-4000-8000-000000000001}", "manifest": "/etc/passwd"})
	b, _ = json.Marshal(rec)
	os.WriteFile(path, b, 0o644)
	var out bytes.Buffer
	if err := List(Options{StateDir: state}, "", &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"PerfcExampleHTTPServer", "damaged: registration file " + path + ", entry 2", "perfc unlodctr {0A1B2C3D-0000-4000-8000-000000000001}"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("lodctr /q output lacks %q:\n%s", want, out.String())
		}
	}
	// lodctr /q:NAME lists that provider alone (issue 44: NAME was
	// ignored), by name in any case; a name none has is an error.
	out.Reset()
	if err := List(Options{StateDir: state}, "perfcexamplehttpserver", &out); err != nil || !strings.Contains(out.String(), "PerfcExampleHTTPServer") || strings.Contains(out.String(), "damaged") {
		t.Errorf("lodctr /q:perfcexamplehttpserver: %v\n%s", err, out.String())
	}
	if err := List(Options{StateDir: state}, "NoSuchProvider", io.Discard); err == nil || !strings.Contains(err.Error(), "no provider named NoSuchProvider") {
		t.Errorf("lodctr /q:NoSuchProvider: %v", err)
	}
}
