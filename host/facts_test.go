package host

import (
	"os"
	"testing"
)

// TestFactsOf: the facts of a host name and its files, worked out by
// hand from the inputs.
func TestFactsOf(t *testing.T) {
	debian := []byte("PRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"13\"\nVERSION=\"13 (trixie)\"\nID=debian\n")
	tests := []struct {
		name, host       string
		osr, kernel, mem string
		want             Facts
	}{
		{"debian", "web01.example.com", string(debian), "6.12.48+deb13-amd64\n", "MemTotal:       16318480 kB\nMemFree: 1 kB\n",
			Facts{Hostname: "web01", Domain: "example.com", FQDN: "web01.example.com", Product: "Debian GNU/Linux 13 (trixie)",
				Kernel: "6.12.48+deb13-amd64", Version: "6.12.48", Major: "6", Minor: "12", Build: "48", Revision: "deb13-amd64", MemoryTotal: 16318480 * 1024}},
		{"ubuntu, short name", "builder", "NAME='Ubuntu'\nVERSION=\"24.04.1 LTS (Noble Numbat)\"\n", "6.8.0-45-generic", "",
			Facts{Hostname: "builder", FQDN: "builder", Product: "Ubuntu 24.04.1 LTS (Noble Numbat)",
				Kernel: "6.8.0-45-generic", Version: "6.8.0", Major: "6", Minor: "8", Build: "0", Revision: "45-generic"}},
		{"nothing known", "", "", "", "MemTotal: x kB", Facts{}},
		{"two numbers", "h", "PRETTY_NAME=\"A \\\"quoted\\\" \\$name\"", "5.4", "",
			Facts{Hostname: "h", FQDN: "h", Product: `A "quoted" $name`, Kernel: "5.4", Version: "5.4", Major: "5", Minor: "4"}},
	}
	for _, tc := range tests {
		if got := factsOf(tc.host, []byte(tc.osr), []byte(tc.kernel), []byte(tc.mem)); got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
}

// TestReadFactsLive: this host's facts agree with what os.Hostname and
// /proc say.
func TestReadFactsLive(t *testing.T) {
	f := ReadFacts()
	name, err := os.Hostname()
	if err != nil {
		t.Skip(err)
	}
	if f.FQDN != name {
		t.Errorf("FQDN %q, os.Hostname %q", f.FQDN, name)
	}
	if f.MemoryTotal == 0 {
		t.Error("no MemTotal")
	}
	if k, _ := os.ReadFile("/proc/sys/kernel/osrelease"); len(k) > 0 && (f.Major == "" || f.Version == "") {
		t.Errorf("kernel %q: version %q major %q", k, f.Version, f.Major)
	}
}
