package sqllog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzConfig feeds any bytes as the data source file and any string as a
// destination: no panic; a name found resolves to one of the two kinds;
// the value never appears in an error.
func FuzzConfig(f *testing.F) {
	f.Add([]byte("perf = postgres://u:pw@h/db\n# c\nlocal = sqlite:/x.db\n"), "SQL:perf!set")
	f.Add([]byte("a=b\n\n=\n"), "SQL:a!b")
	f.Add([]byte{0xff, '=', '\n'}, "sql:\xff!\xff")
	f.Fuzz(func(t *testing.T, conf []byte, dest string) {
		p := filepath.Join(t.TempDir(), "sql.conf")
		if err := os.WriteFile(p, conf, 0o600); err != nil {
			t.Fatal(err)
		}
		dsn, logset, err := ParseDestination(dest)
		if err != nil {
			return
		}
		if dsn == "" || logset == "" || strings.Contains(logset, "!") {
			t.Fatalf("ParseDestination(%q) = %q, %q", dest, dsn, logset)
		}
		s, err := Options{ConfigFile: p, Getenv: env()}.Resolve(dsn)
		if err != nil {
			return
		}
		if s.Kind != KindSQLite && s.Kind != KindPostgres {
			t.Fatalf("kind %q", s.Kind)
		}
		_ = s.String()
	})
}
