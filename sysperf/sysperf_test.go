package sysperf

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/counterpath"
)

// TestRulesFile checks the embedded rules: they parse, each reads a
// counter the report collects, and RULES.md documents each with its
// thresholds.
func TestRulesFile(t *testing.T) {
	rules := DefaultRules()
	if len(rules) == 0 {
		t.Fatal("no rules")
	}
	doc, err := os.ReadFile("RULES.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		collected := false
		for _, c := range Counters {
			p, err := counterpath.Parse(c)
			if err != nil {
				t.Fatal(err)
			}
			if strings.EqualFold(p.Object, r.path.Object) && strings.EqualFold(p.Counter, r.path.Counter) &&
				(p.Instance == "*" || strings.EqualFold(p.Instance, r.path.Instance)) {
				collected = true
			}
		}
		if !collected {
			t.Errorf("%s: %s is not among the report's counters", r.ID, r.Counter)
		}
		row := regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(r.ID) + "` \\|.*$").FindString(string(doc))
		if row == "" {
			t.Errorf("%s: no row in RULES.md", r.ID)
			continue
		}
		for _, th := range []float64{r.Yellow, r.Red} {
			if !strings.Contains(row, formatNumber(th)) && !strings.Contains(row, strings.TrimSuffix(formatNumber(th), ".00")) {
				t.Errorf("%s: RULES.md's row %q does not say threshold %v", r.ID, row, th)
			}
		}
	}
}

// TestParseRulesRefuses: a rules file with a mistake is refused with
// the rule and what is wrong.
func TestParseRulesRefuses(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"not json", `[{`, "rules:"},
		{"no id", `[{"counter":"\\Memory\\Pages/sec","stat":"avg","op":">","yellow":1,"red":2,"text":"%s"}]`, "id"},
		{"twice", `[{"id":"a","counter":"\\Memory\\Pages/sec","stat":"avg","op":">","yellow":1,"red":2,"text":"%s"},{"id":"a","counter":"\\Memory\\Pages/sec","stat":"avg","op":">","yellow":1,"red":2,"text":"%s"}]`, "given twice"},
		{"bad path", `[{"id":"a","counter":"Memory","stat":"avg","op":">","yellow":1,"red":2,"text":"%s"}]`, "counter"},
		{"bad stat", `[{"id":"a","counter":"\\Memory\\Pages/sec","stat":"p99","op":">","yellow":1,"red":2,"text":"%s"}]`, "stat"},
		{"bad op", `[{"id":"a","counter":"\\Memory\\Pages/sec","stat":"avg","op":">=","yellow":1,"red":2,"text":"%s"}]`, "op"},
		{"red below yellow", `[{"id":"a","counter":"\\Memory\\Pages/sec","stat":"avg","op":">","yellow":3,"red":2,"text":"%s"}]`, "red"},
		{"text without instance", `[{"id":"a","counter":"\\PhysicalDisk(*)\\Disk Bytes/sec","stat":"avg","op":">","yellow":1,"red":2,"text":"%s"}]`, "want 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRules([]byte(tt.json))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want one saying %q", err, tt.want)
			}
		})
	}
}

// series makes a report's series of one counter from its values.
func series(r *Report, path string, vals ...float64) *Series {
	p, err := counterpath.Parse(path)
	if err != nil {
		panic(err)
	}
	// the instance as PDH displays it, with its #n
	inst := ""
	if i, j := strings.IndexByte(path, '('), strings.LastIndexByte(path, ')'); i > 0 && j > i {
		inst = path[i+1 : j]
	}
	s := &Series{Path: path, Object: p.Object, Counter: p.Counter, Instance: inst}
	for _, v := range vals {
		s.add(v)
	}
	r.series[path] = s
	return s
}

// TestJudge runs the rules over made-up series whose statistics are
// worked out by hand beside each.
func TestJudge(t *testing.T) {
	r := &Report{series: map[string]*Series{}, rules: DefaultRules(), top: 3, Samples: 4}
	series(r, `\Processor(0)\% Processor Time`, 100, 100, 100, 100)
	series(r, `\Processor(1)\% Processor Time`, 80, 90, 100, 70)
	series(r, `\Processor(_Total)\% Processor Time`, 90, 95, 100, 85) // avg 92.5: red
	series(r, `\System\Processor Queue Length`, 5, 5, 6, 4)           // avg 5, 2.5 a processor: yellow
	series(r, `\Memory\Available MBytes`, 600, 700, 500, 600)         // avg 600: green (yellow below 512)
	series(r, `\Memory\Pages/sec`, 0, 400, 0, 0)                      // avg 100: not above 100, yellow
	series(r, `\PhysicalDisk(0 vda)\Avg. Disk sec/Transfer`, 0.06, 0.06, 0.06, 0.06)
	series(r, `\PhysicalDisk(_Total)\Avg. Disk sec/Transfer`, 0.06, 0.06, 0.06, 0.06) // _Total is not judged
	series(r, `\Network Interface(eth0)\Packets Received Errors`, 10, 10, 11, 12)     // delta 2: yellow
	series(r, `\Network Interface(eth0)\Bytes Total/sec`, 9e6, 9e6, 9e6, 9e6)         // 72 Mbit/s
	series(r, `\Network Interface(eth0)\Current Bandwidth`, 1e8, 1e8, 1e8, 1e8)       // of 100: 72 %, yellow
	series(r, `\Network Interface(wg0)\Bytes Total/sec`, 9e9, 9e9, 9e9, 9e9)          // no bandwidth: not judged
	series(r, `\Control Group(/a)\% Throttled Periods`, 60, 60, 60, 60)               // red
	r.analyze()
	type got struct {
		id, inst string
		sev      Severity
	}
	var have []got
	for _, w := range r.Warnings {
		have = append(have, got{w.Rule.ID, w.Instance, w.Severity})
	}
	want := []got{
		{"cpu-saturated", "_Total", Red},
		{"disk-latency", "0 vda", Red},
		{"cgroup-throttled", "/a", Red},
		{"cpu-queue", "", Yellow},
		{"swap-activity", "", Yellow},
		{"network-errors-in", "eth0", Yellow},
		{"network-utilization", "eth0", Yellow},
	}
	if !slices.Equal(have, want) {
		t.Errorf("warnings\n%v\nwant\n%v", have, want)
	}
	if !slices.Contains(r.Passed, "memory-available") || slices.Contains(r.Passed, "io-pressure") {
		t.Errorf("passed %v: memory-available was judged green; io-pressure has no counter and was not judged", r.Passed)
	}
	if r.Processors != 2 {
		t.Errorf("%d processors, want 2", r.Processors)
	}
	if r.Summary.Busiest != "CPU" || r.Summary.BusiestPct != 92.5 {
		t.Errorf("busiest %s %v, want CPU 92.5", r.Summary.Busiest, r.Summary.BusiestPct)
	}
	for _, w := range r.Warnings {
		if w.Rule.ID == "network-utilization" && (w.Value < 71.99 || w.Value > 72.01) {
			t.Errorf("network utilization %v, want 72", w.Value)
		}
		if w.Rule.ID == "cpu-queue" && w.Value != 2.5 {
			t.Errorf("queue a processor %v, want 2.5", w.Value)
		}
	}
}

// TestTopProcesses: the top lists order the processes by their means,
// leave out _Total and Idle, name each with its PID, and keep Top.
func TestTopProcesses(t *testing.T) {
	r := &Report{series: map[string]*Series{}, rules: DefaultRules(), top: 2, Samples: 2}
	for _, p := range []struct {
		inst      string
		pid       float64
		cpu, priv float64
	}{
		{"_Total", 0, 300, 9e9}, {"Idle", 0, 150, 0},
		{"spin", 41, 99, 1e6}, {"hog", 42, 1, 8e8}, {"sh#1", 43, 50, 2e6}, {"sh", 44, 3, 3e6},
	} {
		series(r, `\Process(`+p.inst+`)\% Processor Time`, p.cpu, p.cpu)
		series(r, `\Process(`+p.inst+`)\Working Set - Private`, p.priv, p.priv)
		series(r, `\Process(`+p.inst+`)\ID Process`, p.pid, p.pid)
	}
	r.analyze()
	rows := func(top Top) []string {
		var out []string
		for _, row := range top.Rows {
			out = append(out, row.Process+":"+row.PID)
		}
		return out
	}
	if got := rows(r.Sections[0].Tops[0]); !slices.Equal(got, []string{"spin:41", "sh:43"}) {
		t.Errorf("top by CPU %v", got)
	}
	if got := rows(r.Sections[1].Tops[0]); !slices.Equal(got, []string{"hog:42", "sh:44"}) {
		t.Errorf("top by memory %v", got)
	}
	if r.Summary.TopProcess != "spin" || r.Summary.TopPID != "41" {
		t.Errorf("top process %s %s", r.Summary.TopProcess, r.Summary.TopPID)
	}
}

// TestHTMLSelfContained: the page names no address outside itself (no
// http, no src, no script), and every link goes to a line of its
// counter table.
func TestHTMLSelfContained(t *testing.T) {
	r := &Report{Computer: "web<1>", series: map[string]*Series{}, rules: DefaultRules(), top: 5, Samples: 2}
	series(r, `\Processor(_Total)\% Processor Time`, 95, 96)
	series(r, `\Processor(0)\% Processor Time`, 95, 96)
	series(r, `\Process(<script>)\% Processor Time`, 90, 90)
	series(r, `\Process(<script>)\ID Process`, 7, 7)
	series(r, `\PhysicalDisk(0 vda)\% Idle Time`, 40, 60)
	r.analyze()
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"http:", "https:", "src=", "<script>", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	if !strings.Contains(page, "&lt;script&gt;") || !strings.Contains(page, "web&lt;1&gt;") {
		t.Error("names from outside are not escaped")
	}
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(`id="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		ids[m[1]] = true
	}
	links := regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(page, -1)
	if len(links) < 4 {
		t.Fatalf("%d links", len(links))
	}
	for _, m := range links {
		if !strings.HasPrefix(m[1], "#") || !ids[m[1][1:]] {
			t.Errorf("link %q goes nowhere in the page", m[1])
		}
	}
	for _, want := range []string{"cpu-saturated", "Busiest resource", "Disk 0 vda: busy", "50 %"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
}
