package ctrpp

import (
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/manifest"
)

func TestGoIdent(t *testing.T) {
	tests := []struct{ in, want string }{
		{"%Time in GC", "PercentTimeInGC"},
		{"Reads/sec", "ReadsPerSec"},
		{"My Avg. Disk sec/Transfer", "MyAvgDiskSecPerTransfer"},
		{"Thread Count)", "ThreadCount"},
		{"# of Exceps Thrown", "NumOfExcepsThrown"},
		{"Active_Sync_Reads", "ActiveSyncReads"},
		{"ulonglong 2", "Ulonglong2"},
		{"2nd try", "N2ndTry"},
		{"_private", "Private"},
		{"Größe", "GrE"},
		{"!!!", "Fallback"},
	}
	for _, tc := range tests {
		if got := goIdent(tc.in, "Fallback"); got != tc.want {
			t.Errorf("goIdent(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestCollisions gives two sets and two counters names that map to the same
// identifiers, and a set whose name is taken by the provider wrapper.
func TestCollisions(t *testing.T) {
	in := `<counters><provider providerGuid="{11111111-2222-3333-4444-555555555555}">
<counterSet guid="{AAAAAAAA-0000-0000-0000-000000000001}" uri="a" name="Web Stats" description="d" instances="multiple">
<counter id="1" uri="a1" name="Requests/sec" type="perf_counter_counter" detailLevel="standard"/>
<counter id="2" uri="a2" name="Requests per sec" type="perf_counter_counter" detailLevel="standard"/>
<counter id="3" uri="a3" name="Instance" type="perf_counter_rawcount" detailLevel="standard"/>
</counterSet>
<counterSet guid="{AAAAAAAA-0000-0000-0000-000000000002}" uri="b" name="Web-Stats" description="d">
<counter id="1" uri="b1" name="x" type="perf_counter_rawcount" detailLevel="standard"/>
</counterSet>
<counterSet guid="{AAAAAAAA-0000-0000-0000-000000000003}" uri="c" name="Provider" description="d">
<counter id="1" uri="c1" name="x" type="perf_counter_rawcount" detailLevel="standard"/>
</counterSet>
</provider></counters>`
	m, err := manifest.Parse("c.man", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Generate(m, Options{Package: "p"})
	if err != nil {
		t.Fatal(err)
	}
	src := string(out)
	for _, want := range []string{
		"WebStatsRequestsPerSecID  uint32 = 1",
		"WebStatsRequestsPerSec2ID uint32 = 2",
		"WebStatsInstance2ID       uint32 = 3",
		"type WebStats2 struct",
		"WebStats2GUID",
		"type Provider2 struct",
		"Provider2 *Provider2",
	} {
		if !strings.Contains(src, strings.ReplaceAll(want, "WebStats2GUID", "WebStats2GUID")) {
			t.Errorf("generated code lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(src)
	}
	if _, err := Generate(m, Options{Package: "not a name"}); err == nil {
		t.Error("bad package name accepted")
	}
}
