package sqllog

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseDestination(t *testing.T) {
	cases := []struct {
		in, dsn, logset, err string
	}{
		{in: "SQL:perf!run1", dsn: "perf", logset: "run1"},
		{in: "sql:perf!run 1", dsn: "perf", logset: "run 1"},
		{in: "SQL:/var/log/a!b.db!set", dsn: "/var/log/a!b.db", logset: "set"},
		{in: "SQL:perf", err: "no '!'"},
		{in: "SQL:!x", err: "empty data source name"},
		{in: "SQL:perf!", err: "empty log set name"},
		{in: "perf!x", err: "SQL:DSN!logset"},
		{in: "", err: "SQL:DSN!logset"},
		{in: "SQL:p!" + strings.Repeat("x", 1025), err: "holds 1024"},
	}
	for _, c := range cases {
		dsn, logset, err := ParseDestination(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseDestination(%.30q) = %v, want an error with %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || dsn != c.dsn || logset != c.logset {
			t.Errorf("ParseDestination(%q) = %q, %q, %v; want %q, %q", c.in, dsn, logset, err, c.dsn, c.logset)
		}
	}
}

func TestEnvName(t *testing.T) {
	for in, want := range map[string]string{"perf": "PERFC_SQL_DSN_PERF", "My-DB.2": "PERFC_SQL_DSN_MY_DB_2", "é": "PERFC_SQL_DSN___"} {
		if got := EnvName(in); got != want {
			t.Errorf("EnvName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestResolve covers each way a name resolves, in order of precedence,
// and the names that do not.
func TestResolve(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "sql.conf")
	if err := os.WriteFile(conf, []byte("# data sources\n\nshared = postgres://perfc:pw@db.example/perf\nLocal = sqlite:/srv/perf.db\nboth = sqlite:/from/conf.db\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sqliteFile := filepath.Join(dir, "plainname")
	if err := os.WriteFile(sqliteFile, []byte("SQLite format 3\x00rest of the header"), 0o600); err != nil {
		t.Fatal(err)
	}
	notSQLite := filepath.Join(dir, "other")
	if err := os.WriteFile(notSQLite, []byte("hello, world, not a database"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := Options{ConfigFile: conf, Getenv: env("PERFC_SQL_DSN_BOTH", "postgresql://u@h/d", "PERFC_SQL_DSN_E", "/tmp/e.sqlite")}
	cases := []struct {
		name, kind, target, from, err string
	}{
		{name: "shared", kind: KindPostgres, target: "postgres://perfc:pw@db.example/perf", from: conf},
		{name: "LOCAL", kind: KindSQLite, target: "/srv/perf.db", from: conf},
		{name: "both", kind: KindPostgres, target: "postgresql://u@h/d", from: "environment variable PERFC_SQL_DSN_BOTH"},
		{name: "e", kind: KindSQLite, target: "/tmp/e.sqlite", from: "environment variable PERFC_SQL_DSN_E"},
		{name: "logs/x.DB", kind: KindSQLite, target: "logs/x.DB", from: "path"},
		{name: "a.sqlite3", kind: KindSQLite, target: "a.sqlite3", from: "path"},
		{name: sqliteFile, kind: KindSQLite, target: sqliteFile, from: "path"},
		{name: notSQLite, err: "not found"},
		{name: "nowhere", err: "PERFC_SQL_DSN_NOWHERE"},
		{name: "", err: "empty"},
	}
	for _, c := range cases {
		s, err := o.Resolve(c.name)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Resolve(%q) = %v, %v; want an error with %q", c.name, s, err, c.err)
			}
			continue
		}
		if err != nil || s.Kind != c.kind || s.Target != c.target || s.From != c.from {
			t.Errorf("Resolve(%q) = %+v, %v; want %s %s from %s", c.name, s, err, c.kind, c.target, c.from)
		}
	}
}

// TestConfigFileRefused: a data source file others may read or change is
// refused (it holds passwords, and whoever can change it chooses where
// logs go); a malformed line is named by number.
func TestConfigFileRefused(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		mode    os.FileMode
		content string
		err     string
	}{
		{0o644, "a = sqlite:/x.db\n", "chmod 600"},
		{0o620, "a = sqlite:/x.db\n", "chmod 600"},
		{0o600, "# ok\nthis line has no equals sign\n", "line 2"},
	}
	for i, c := range cases {
		p := filepath.Join(dir, "c"+string(rune('0'+i)))
		if err := os.WriteFile(p, []byte(c.content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, c.mode); err != nil {
			t.Fatal(err)
		}
		_, err := Options{ConfigFile: p, Getenv: env()}.Resolve("a")
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("mode %04o, %q: %v, want an error with %q", c.mode, c.content, err, c.err)
		}
	}
	if got := DefaultConfigFile(env("XDG_CONFIG_HOME", "/x/cfg", "HOME", "/home/u")); got != "/x/cfg/perfc/sql.conf" {
		t.Errorf("DefaultConfigFile with XDG_CONFIG_HOME = %q", got)
	}
	if got := DefaultConfigFile(env("HOME", "/home/u")); got != "/home/u/.config/perfc/sql.conf" {
		t.Errorf("DefaultConfigFile with HOME = %q", got)
	}
}

// TestPasswordNotShown: a PostgreSQL server that cannot be reached, or a
// URL that does not parse, gives an error without the password.
func TestPasswordNotShown(t *testing.T) {
	const secret = "s3cr3t-Passw0rd"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, u := range []string{
		"postgres://perfc:" + secret + "@127.0.0.1:1/perfc?sslmode=disable&connect_timeout=2",
		"postgres://perfc:" + secret + "@[::1/perfc",
		"postgres://perfc:" + secret + "@127.0.0.1:1/perfc?sslmode=nonsense",
		"postgres://perfc@127.0.0.1:1/perfc?sslmode=disable&connect_timeout=2&password=" + secret,
		"postgres://perfc@127.0.0.1:1/perfc?password=" + secret + "&sslmode=nonsense",
		"postgresql://perfc@127.0.0.1:1/perfc?PASSWORD=" + secret + "&sslmode=disable&connect_timeout=2",
		"postgres://perfc:" + secret + "@127.0.0.1:1/%zz",
	} {
		o := Options{Getenv: env("PERFC_SQL_DSN_PG", u), ConfigFile: filepath.Join(t.TempDir(), "none")}
		if src, err := o.Resolve("pg"); err == nil && strings.Contains(src.String(), secret) {
			t.Errorf("Source.String() = %q shows the password", src.String())
		}
		_, err := Create(ctx, "SQL:pg!x", o)
		if err == nil {
			t.Errorf("%s: no error", strings.ReplaceAll(u, secret, "..."))
			continue
		}
		t.Log(err)
		if strings.Contains(err.Error(), secret) {
			t.Errorf("error shows the password: %v", err)
		}
		if _, err := OpenWith(ctx, "SQL:pg!x", o); err == nil || strings.Contains(err.Error(), secret) {
			t.Errorf("OpenWith: %v", err)
		}
	}
}
