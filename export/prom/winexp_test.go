package prom

import (
	"context"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/golden"
)

// wxOpts is the windows_exporter profile over the Windows fixture's
// objects (Process included: it is left out unless named).
func wxWindowsOpts() Options {
	return Options{Profile: ProfileWindowsExporter, NoSelfMetrics: true, Objects: windowsObjects}
}

// TestWindowsExporterGolden pins the windows_exporter profile's answer
// over the fixtures of the other profiles' goldens: the Windows sample
// pair (every object the profile maps but Processor Information) and
// the Linux one (the profile's default objects), promtool and the
// OpenMetrics grammar checking each.
func TestWindowsExporterGolden(t *testing.T) {
	tests := []struct {
		name string
		src  func(testing.TB) *fixedSource
		opts Options
		f    Format
	}{
		{"winexp-windows.om", windowsSource, wxWindowsOpts(), OpenMetrics},
		{"winexp-windows.txt", windowsSource, wxWindowsOpts(), Text},
		{"winexp-linux.txt", linuxSource, Options{Profile: ProfileWindowsExporter, NoSelfMetrics: true}, Text},
		{"winexp-linux-self.om", linuxSource, Options{Profile: ProfileWindowsExporter, Objects: []string{"Processor", "Memory", "TCPv4"}}, OpenMetrics},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := scrapeTwice(t, tc.src(t), tc.opts, tc.f)
			if strings.HasSuffix(tc.name, "-self.om") {
				// the build labels and durations vary: pin the rest
				got = regexp.MustCompile(`(?m)^(windows_exporter_build_info)\{.*\} 1$`).ReplaceAllString(got, "$1{...} 1")
				got = regexp.MustCompile(`(?m)^(windows_exporter_collector_duration_seconds\{.*\}) .*$`).ReplaceAllString(got, "$1 D")
			}
			golden.Check(t, "testdata/"+tc.name+".golden", got)
			if tc.f == OpenMetrics {
				if !strings.HasSuffix(tc.name, "-self.om") {
					checkOpenMetrics(t, got)
				}
			} else {
				promtoolCheck(t, got)
			}
		})
	}
}

// series parses a text-format answer into its samples' values by series
// (name{labels}).
func series(t *testing.T, body string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for l := range strings.SplitSeq(body, "\n") {
		if l == "" || l[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(l, ' ')
		v, err := strconv.ParseFloat(l[i+1:], 64)
		if err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		out[l[:i]] = v
	}
	return out
}

// TestWindowsExporterValues checks the profile's series against the
// default profile's for the same counters of the Windows fixture, with
// windows_exporter's units worked out by hand: seconds for the time
// counters (both profiles divide by the counter's time base), bytes for
// Free Megabytes (× 2^20, the default profile converts too), bytes per
// second for Current Bandwidth (bits / 8: the default profile exports
// the bits), and the labels renamed (cpu -> core, device+disk -> disk,
// interface -> nic, pid -> process_id).
func TestWindowsExporterValues(t *testing.T) {
	wx := series(t, scrapeTwice(t, windowsSource(t), wxWindowsOpts(), Text))
	def := series(t, scrapeTwice(t, windowsSource(t), Options{NoSelfMetrics: true, Objects: windowsObjects}, Text))
	tests := []struct {
		wx, def string
		factor  float64
	}{
		{`windows_cpu_time_total{core="0",mode="user"}`, `perfc_processor_time_seconds_total{cpu="0",mode="user"}`, 1},
		{`windows_cpu_time_total{core="0",mode="idle"}`, `perfc_processor_time_seconds_total{cpu="0",mode="idle"}`, 1},
		{`windows_cpu_interrupts_total{core="0"}`, `perfc_processor_interrupts_total{cpu="0"}`, 1},
		{`windows_memory_available_bytes`, `perfc_memory_available_bytes`, 1},
		{`windows_memory_swap_page_operations_total`, `perfc_memory_pages_total`, 1},
		{`windows_logical_disk_free_bytes{volume="C:"}`, `perfc_logical_disk_free_bytes{volume="C:"}`, 1},
		{`windows_logical_disk_size_bytes{volume="C:"}`, `perfc_logical_disk_free_space_base{volume="C:"}`, 1 << 20},
		{`windows_logical_disk_read_bytes_total{volume="C:"}`, `perfc_logical_disk_disk_read_bytes_total{volume="C:"}`, 1},
		{`windows_physical_disk_reads_total{disk="0"}`, `perfc_physical_disk_disk_reads_total{disk="0",device="C:"}`, 1},
		{`windows_physical_disk_read_seconds_total{disk="0"}`, `perfc_physical_disk_disk_read_time_seconds_total{disk="0",device="C:"}`, 1},
		{`windows_physical_disk_idle_seconds_total{disk="0"}`, `perfc_physical_disk_idle_time_seconds_total{disk="0",device="C:"}`, 1},
		{`windows_physical_disk_read_latency_seconds_total{disk="0"}`, `perfc_physical_disk_avg_disk_seconds_per_read_seconds_total{disk="0",device="C:"}`, 1},
		{`windows_logical_disk_read_write_latency_seconds_total{volume="C:"}`, `perfc_logical_disk_avg_disk_seconds_per_transfer_seconds_total{volume="C:"}`, 1},
		{`windows_logical_disk_avg_read_requests_queued{volume="C:"}`, `perfc_logical_disk_avg_disk_read_queue_length_total{volume="C:"}`, 1},
		{`windows_system_context_switches_total`, `perfc_system_context_switches_total`, 1},
		{`windows_system_system_up_time`, `perfc_system_system_up_time_start_time_seconds`, 1},
		{`windows_os_processes`, `perfc_system_processes`, 1},
		{`windows_process_cpu_time_total{process="csrss",process_id="416",mode="privileged"}`, `perfc_process_time_seconds_total{process="csrss",pid="416",mode="privileged"}`, 1},
		{`windows_process_working_set_bytes{process="csrss",process_id="416"}`, `perfc_process_working_set{process="csrss",pid="416"}`, 1},
		{`windows_process_io_bytes_total{process="csrss",process_id="416",mode="read"}`, `perfc_process_io_read_bytes_total{process="csrss",pid="416"}`, 1},
	}
	for _, tc := range tests {
		w, ok := wx[tc.wx]
		if !ok {
			t.Errorf("no %s", tc.wx)
			continue
		}
		d, ok := def[tc.def]
		if !ok {
			t.Errorf("no %s in the default profile", tc.def)
			continue
		}
		if want := d * tc.factor; math.Abs(w-want) > 1e-9*math.Abs(want) {
			t.Errorf("%s = %v, want %v (%s × %v)", tc.wx, w, want, tc.def, tc.factor)
		}
	}
	// Current Bandwidth in bits: windows_exporter writes bytes.
	nbw := 0
	for k, v := range def {
		if rest, ok := strings.CutPrefix(k, `perfc_network_interface_current_bandwidth{interface="`); ok {
			nic := mangleNIC(strings.TrimSuffix(rest, `"}`))
			got, ok := wx[`windows_net_current_bandwidth_bytes{nic="`+nic+`"}`]
			if !ok || got != v/8 {
				t.Errorf("bandwidth of %s: %v (found %v), want %v", nic, got, ok, v/8)
			}
			nbw++
		}
	}
	if nbw == 0 {
		t.Error("no Current Bandwidth in the default profile's answer")
	}
	for k := range wx {
		if strings.Contains(k, "_Total") {
			t.Errorf("%s: _Total instances are not written", k)
		}
	}
}

func TestMangleNIC(t *testing.T) {
	for in, want := range map[string]string{
		"eth0":                                 "eth0",
		"Microsoft Hyper-V Network Adapter #1": "Microsoft_Hyper_V_Network_Adapter__1",
		"br-1a2b":                              "br_1a2b",
		"wlp0s20f3.100":                        "wlp0s20f3_100",
		"Größe":                                "Gr__e",
	} {
		if got := mangleNIC(in); got != want {
			t.Errorf("mangleNIC(%q) = %q, want %q", in, got, want)
		}
	}
}

// documentedNames are the metric names MAPPING.md's table of the
// windows_exporter profile lists (rows starting "| `windows_" between
// its markers).
func documentedNames(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("MAPPING.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "<!-- windows_exporter names -->")
	sec, _, ok2 := strings.Cut(sec, "<!-- end of windows_exporter names -->")
	if !ok || !ok2 {
		t.Fatal("MAPPING.md has no windows_exporter names section")
	}
	var out []string
	for _, m := range regexp.MustCompile("(?m)^\\| `((?:windows|node)_[A-Za-z0-9_]+)`").FindAllStringSubmatch(sec, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return out
}

// familyNames are the sample names of a text-format answer.
func familyNames(body string, into map[string]bool) {
	for l := range strings.SplitSeq(body, "\n") {
		if l == "" || l[0] == '#' {
			continue
		}
		if i := strings.IndexAny(l, "{ "); i > 0 {
			into[l[:i]] = true
		}
	}
}

// TestWindowsExporterNames checks that the names the profile writes are
// exactly the list MAPPING.md documents: the code's list equals the
// document's, every name written is on it, and every name on it is
// written from the fixtures or from this host (whose Process,
// LogicalDisk and Processor Information the fixtures lack).
func TestWindowsExporterNames(t *testing.T) {
	doc := documentedNames(t)
	if len(doc) == 0 {
		t.Fatal("MAPPING.md lists no windows_ names")
	}
	if code := WindowsExporterNames(); !slices.Equal(doc, code) {
		t.Errorf("MAPPING.md lists\n%v\nthe code writes\n%v", doc, code)
	}
	seen := map[string]bool{}
	familyNames(scrapeTwice(t, windowsSource(t), Options{Profile: ProfileWindowsExporter, Objects: windowsObjects}, Text), seen)
	familyNames(scrapeTwice(t, linuxSource(t), Options{Profile: ProfileWindowsExporter}, Text), seen)
	h := newHost(t, host.Options{})
	// the facts and services as the program gives them (fakes: this
	// machine may have no systemd), and the paging files of a block made
	// here (this machine and the fixtures may have no swap)
	familyNames(scrapeTwice(t, pagingFileSource(t), Options{Profile: ProfileWindowsExporter, Objects: []string{"Paging File"}}, Text), seen)
	col, err := NewCollector(h.Source(), Options{Profile: ProfileWindowsExporter, Objects: []string{"Processor Information", "Memory", "LogicalDisk", "PhysicalDisk", "Network Interface", "System", "Process", "Paging File"},
		Host: fakeHost, Services: fakeServices})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		b, err := col.Scrape(context.Background(), Text)
		if err != nil {
			t.Fatal(err)
		}
		familyNames(string(b), seen)
	}
	for n := range seen {
		if !slices.Contains(doc, n) {
			t.Errorf("%s written, not in MAPPING.md's list", n)
		}
	}
	for _, n := range doc {
		if seen[n] {
			continue
		}
		// This host's Processor Information may have no frequency
		// (no cpufreq and no "cpu MHz" in /proc/cpuinfo, as on some
		// arm64 hosts): the counter is missing there, not written as 0.
		if n == "windows_cpu_core_frequency_mhz" {
			t.Logf("%s: this host gives no processor frequency", n)
			continue
		}
		t.Errorf("%s listed in MAPPING.md, written from no fixture and not from this host", n)
	}
}

// TestWindowsExporterDefaultObjects checks which objects an export that
// names none collects: windows_exporter's default collectors' objects
// (no Process), Processor Information rather than Processor.
func TestWindowsExporterDefaultObjects(t *testing.T) {
	src := linuxSource(t)
	col, err := NewCollector(src, Options{Profile: ProfileWindowsExporter})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := col.Scrape(context.Background(), Text); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, idx := range src.asked[0] {
		got = append(got, src.db.Name(idx))
	}
	want := []string{"Processor Information", "Memory", "LogicalDisk", "PhysicalDisk", "Network Interface", "System", "Paging File"}
	var present []string
	for _, n := range want {
		if _, ok := src.db.Index(n); ok {
			present = append(present, n)
		}
	}
	if !slices.Equal(got, present) {
		t.Errorf("asked for %v, want %v", got, present)
	}
}
