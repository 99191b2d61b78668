package host

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/perfcounters/perfcounters/system"
)

// Facts are what the host says about itself that is not a counter, for
// exports that show it (export/prom's windows_exporter profile: its host
// name and OS info metrics). Empty strings and zero sizes are unknown.
type Facts struct {
	// Hostname is the host name's first label, Domain the rest (""
	// when the name has no dot) and FQDN the whole name, as uname -n
	// (os.Hostname) gives it; no DNS lookup is made.
	Hostname, Domain, FQDN string
	// Product is os-release's PRETTY_NAME (else NAME and VERSION):
	// "Debian GNU/Linux 13 (trixie)".
	Product string
	// Kernel is the kernel release (/proc/sys/kernel/osrelease,
	// "6.12.48+deb13-amd64"); Version its leading numbers ("6.12.48"),
	// Major, Minor and Build those numbers one by one, Revision the rest
	// without its separator ("deb13-amd64").
	Kernel, Version, Major, Minor, Build, Revision string
	// MemoryTotal is MemTotal of /proc/meminfo in bytes.
	MemoryTotal uint64
	// Timezone is the local time zone's abbreviation when the facts were
	// read ("UTC", "CET"; Go's time.Local, from TZ or /etc/localtime).
	Timezone string
}

// maxFactFile bounds the bytes read of one file the facts come from.
const maxFactFile = 64 << 10

// ReadFacts reads this host's facts: the host name, /etc/os-release
// (else /usr/lib/os-release, as os-release(5) says), the kernel release
// and /proc/meminfo. What cannot be read stays unknown.
func ReadFacts() Facts {
	name, _ := os.Hostname()
	osr := readSmall("/etc/os-release")
	if osr == nil {
		osr = readSmall("/usr/lib/os-release")
	}
	f := factsOf(name, osr, readSmall("/proc/sys/kernel/osrelease"), readSmall("/proc/meminfo"))
	f.Timezone, _ = time.Now().Zone()
	return f
}

// readSmall reads at most maxFactFile bytes of a file; nil when it
// cannot.
func readSmall(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	b := make([]byte, maxFactFile)
	n, _ := f.Read(b)
	if n == 0 {
		return nil
	}
	return b[:n]
}

// factsOf makes the facts from the host name and the files' contents.
func factsOf(hostname string, osRelease, kernel, meminfo []byte) Facts {
	var f Facts
	if hostname = strings.TrimSpace(hostname); hostname != "" {
		f.FQDN = hostname
		f.Hostname, f.Domain, _ = strings.Cut(hostname, ".")
	}
	kv := ParseOSRelease(osRelease)
	f.Product = kv["PRETTY_NAME"]
	if f.Product == "" {
		f.Product = strings.TrimSpace(kv["NAME"] + " " + kv["VERSION"])
	}
	f.Kernel = strings.TrimSpace(string(kernel))
	f.Version, f.Major, f.Minor, f.Build, f.Revision = SplitKernelRelease(f.Kernel)
	f.MemoryTotal = memTotal(meminfo)
	return f
}

// ParseOSRelease reads an os-release file (os-release(5)): KEY=VALUE
// lines, a value in single or double quotes or bare, backslash escapes
// inside double quotes; comments and lines without '=' are skipped. Keys
// are kept as written; a key given twice keeps its last value.
func ParseOSRelease(b []byte) map[string]string {
	out := map[string]string{}
	for l := range strings.SplitSeq(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || l[0] == '#' {
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok || k == "" || strings.ContainsAny(k, " \t\"'") {
			continue
		}
		out[k] = unquote(v)
		if len(out) > 256 {
			break
		}
	}
	return out
}

// unquote is a shell-quoted value of os-release: "..." with \" \\ \$ \`
// escapes, '...' as is, or bare.
func unquote(v string) string {
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
		return v[1 : len(v)-1]
	}
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
		var s strings.Builder
		for i := 0; i < len(v); i++ {
			if v[i] == '\\' && i+1 < len(v) && strings.IndexByte("\"\\$`", v[i+1]) >= 0 {
				i++
			}
			s.WriteByte(v[i])
		}
		return s.String()
	}
	return v
}

// SplitKernelRelease cuts a kernel release ("6.8.0-45-generic") into its
// leading dotted numbers ("6.8.0"), the first three of them ("6", "8",
// "0"; "" for those missing) and the rest without its separator
// ("45-generic").
func SplitKernelRelease(r string) (version, major, minor, build, rest string) {
	i := 0
	for i < len(r) && (r[i] >= '0' && r[i] <= '9' || r[i] == '.' && i > 0 && r[i-1] != '.') {
		i++
	}
	version = strings.TrimRight(r[:i], ".")
	rest = strings.TrimLeft(r[len(version):], ".-+_~")
	parts := strings.SplitN(version, ".", 4)
	get := func(n int) string {
		if n < len(parts) {
			return parts[n]
		}
		return ""
	}
	return version, get(0), get(1), get(2), rest
}

// memTotal is MemTotal of /proc/meminfo in bytes (the file says kB,
// which the kernel means as KiB); 0 when absent.
func memTotal(b []byte) uint64 {
	for l := range bytes.SplitSeq(b, []byte("\n")) {
		v, ok := bytes.CutPrefix(l, []byte("MemTotal:"))
		if !ok {
			continue
		}
		f := bytes.Fields(v)
		if len(f) == 0 {
			return 0
		}
		n, err := strconv.ParseUint(string(f[0]), 10, 64)
		if err != nil || n > 1<<53 {
			return 0
		}
		if len(f) > 1 && string(f[1]) == "kB" {
			n *= 1024
		}
		return n
	}
	return 0
}

// HasServices reports whether the host's init system is systemd
// (system.SystemdRunning), whose services Services lists.
func HasServices() bool { return system.SystemdRunning() }

// Services returns the host's systemd service units (system.Services):
// an error where systemd is not process 1.
func Services(ctx context.Context) ([]system.ServiceUnit, error) {
	return system.Services(ctx)
}
