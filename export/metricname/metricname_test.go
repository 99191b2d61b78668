package metricname

import (
	"strings"
	"testing"
)

// TestWords: names of English Windows objects and counters, unit words
// spelled as Prometheus' rules accept them, localized letters kept
// distinct; the expected names are written out by hand.
func TestWords(t *testing.T) {
	tests := []struct{ in, want string }{
		{"PhysicalDisk", "physical_disk"},
		{"Network Interface", "network_interface"},
		{"TCPv4", "tcpv4"},
		{"Avg. Disk sec/Read", "avg_disk_seconds_per_read"},
		{"Available MBytes", "available_mbytes"},
		{"Free Megabytes", "free_mbytes"},
		{"% Processor Time", "percent_processor_time"},
		{"# of Exceps Thrown", "number_of_exceps_thrown"},
		{"Latency ms", "latency_msec"},
		{"Uptime 5 m", "uptime_5m"},
		{"Größe", "gr_uf6_udf_e"},
		{"", ""},
		{"%%%", "percent_percent_percent"},
	}
	for _, tc := range tests {
		if got := strings.Join(Words(tc.in, nil), "_"); got != tc.want {
			t.Errorf("words(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestWordsAppend: Words appends to dst and leaves what dst held.
func TestWordsAppend(t *testing.T) {
	dst := []string{"win", "h"}
	got := Words("Uptime m", dst)
	if strings.Join(got, "_") != "win_h_uptimem" {
		t.Errorf("Words appended to [win h]: %q, want win_h_uptimem", got)
	}
	if got := Words("m Rate", []string{"x"}); strings.Join(got, "_") != "x_mx_rate" {
		t.Errorf("a leading m after dst: %q, want x_mx_rate", got)
	}
}
