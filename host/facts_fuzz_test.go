package host

import (
	"strings"
	"testing"
)

// FuzzParseOSRelease feeds arbitrary bytes to the readers of outside
// text behind Facts (os-release, the kernel release, /proc/meminfo):
// none may panic, os-release's keys never hold blanks or quotes, and the
// kernel version is a prefix of the release. The committed corpus is in
// testdata/fuzz/FuzzParseOSRelease.
func FuzzParseOSRelease(f *testing.F) {
	f.Add([]byte("PRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\nNAME='x'\n# c\nBAD\n=v\nK=\"\\\"\\\\\"\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for k := range ParseOSRelease(b) {
			if k == "" || strings.ContainsAny(k, " \t\"'\n") {
				t.Fatalf("key %q", k)
			}
		}
		s := string(b)
		v, _, _, _, _ := SplitKernelRelease(s)
		if !strings.HasPrefix(s, v) {
			t.Fatalf("version %q of %q", v, s)
		}
		_ = memTotal(b)
	})
}
