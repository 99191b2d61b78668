package sqllog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/perfcounters/perfcounters/collectorset"
)

// ParseDestination splits a SQL log destination, Windows' "SQL:DSN!logset"
// ("SQL:" in any case), into the data source name and the log set. The
// log set follows the last '!', so a SQLite path may hold one; both parts
// must be non-empty.
func ParseDestination(s string) (dsn, logset string, err error) {
	if len(s) < 4 || !strings.EqualFold(s[:4], "SQL:") {
		return "", "", fmt.Errorf("SQL log %q: a SQL log is named SQL:DSN!logset", collectorset.RedactDSN(s))
	}
	rest := s[4:]
	i := strings.LastIndexByte(rest, '!')
	if i < 0 {
		return "", "", fmt.Errorf("SQL log %q: no '!' before the log set name (SQL:DSN!logset)", s[:4]+collectorset.RedactDSN(rest))
	}
	dsn, logset = rest[:i], rest[i+1:]
	shown := s[:4] + collectorset.RedactDSN(dsn) + "!" + logset
	switch {
	case dsn == "":
		return "", "", fmt.Errorf("SQL log %q: empty data source name (SQL:DSN!logset)", shown)
	case logset == "":
		return "", "", fmt.Errorf("SQL log %q: empty log set name (SQL:DSN!logset)", shown)
	case len(logset) > 1024:
		return "", "", fmt.Errorf("SQL log %q: log set name of %d bytes, DisplayToID.DisplayString holds 1024", shown[:40]+"...", len(logset))
	}
	return dsn, logset, nil
}

// Kinds of database a data source names.
const (
	KindSQLite   = "sqlite"
	KindPostgres = "postgres"
)

// Source is a resolved data source name: the database kind and how to
// reach it. Target is a file path for SQLite and a connection URL for
// PostgreSQL; it may hold a password, so it is never printed: String
// shows the URL with the password masked.
type Source struct {
	Name   string // the DSN as given
	Kind   string // KindSQLite or KindPostgres
	Target string
	From   string // where the name was found: the variable or config file, or "path"
}

// String describes the source without its password.
func (s Source) String() string {
	t := s.Target
	if s.Kind == KindPostgres {
		t = collectorset.RedactDSN(t)
	}
	return fmt.Sprintf("%s (%s %s, from %s)", collectorset.RedactDSN(s.Name), s.Kind, t, s.From)
}

// EnvPrefix starts the environment variable that names a data source:
// PERFC_SQL_DSN_<NAME>, NAME upper-cased with every character other
// than A-Z and 0-9 turned into '_'.
const EnvPrefix = "PERFC_SQL_DSN_"

// EnvName is the environment variable that defines the data source name.
func EnvName(name string) string {
	b := []byte(strings.ToUpper(name))
	for i, c := range b {
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			b[i] = '_'
		}
	}
	return EnvPrefix + string(b)
}

// DefaultConfigFile is the data source file: $XDG_CONFIG_HOME/perfc/sql.conf,
// or ~/.config/perfc/sql.conf; "" when neither is known.
func DefaultConfigFile(getenv func(string) string) string {
	if d := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "perfc", "sql.conf")
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".config", "perfc", "sql.conf")
	}
	return ""
}

// maxConfig bounds the data source file.
const maxConfig = 1 << 20

// Resolve finds what a data source name stands for, in this order:
//
//  1. the environment variable PERFC_SQL_DSN_<NAME> (EnvName);
//  2. a "NAME = value" line of the data source file (Options.ConfigFile,
//     else DefaultConfigFile); names compare case-insensitively;
//  3. the name itself as a SQLite file: a path ending in .db, .sqlite or
//     .sqlite3, or an existing file that starts with SQLite's header.
//
// A value is a PostgreSQL URL (postgres:// or postgresql://), or a SQLite
// file ("sqlite:" then the path, or just the path). The data source file
// holds credentials: like PostgreSQL's .pgpass it is refused when its
// group or others may read or write it.
func (o Options) Resolve(name string) (Source, error) {
	getenv := o.getenv()
	if name == "" {
		return Source{}, errors.New("empty SQL data source name")
	}
	env := EnvName(name)
	if v := getenv(env); v != "" {
		return sourceOf(name, v, "environment variable "+env)
	}
	cfg := o.ConfigFile
	if cfg == "" {
		cfg = DefaultConfigFile(getenv)
	}
	if cfg != "" {
		v, found, err := lookupConfig(cfg, name)
		if err != nil {
			return Source{}, err
		}
		if found {
			return sourceOf(name, v, cfg)
		}
	}
	if looksSQLite(name) {
		return Source{Name: name, Kind: KindSQLite, Target: name, From: "path"}, nil
	}
	where := "no data source file"
	if cfg != "" {
		where = cfg
	}
	shown := collectorset.RedactDSN(name)
	return Source{}, fmt.Errorf("SQL data source %q not found: not a SQLite file (a path ending .db, .sqlite or .sqlite3), no %s in the environment, no %q line in %s", shown, env, shown+" = ...", where)
}

func sourceOf(name, v, from string) (Source, error) {
	v = strings.TrimSpace(v)
	low := strings.ToLower(v)
	switch {
	case strings.HasPrefix(low, "postgres://"), strings.HasPrefix(low, "postgresql://"):
		if _, err := url.Parse(v); err != nil {
			// url's error quotes the URL, password and all.
			return Source{}, fmt.Errorf("SQL data source %q (%s): not a valid PostgreSQL URL", name, from)
		}
		return Source{Name: name, Kind: KindPostgres, Target: v, From: from}, nil
	case strings.HasPrefix(low, "sqlite:"):
		v = v[len("sqlite:"):]
	}
	if v == "" {
		return Source{}, fmt.Errorf("SQL data source %q (%s): empty SQLite path", name, from)
	}
	return Source{Name: name, Kind: KindSQLite, Target: v, From: from}, nil
}

// looksSQLite reports a name that is a SQLite file by its extension or
// its header.
func looksSQLite(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".db", ".sqlite", ".sqlite3":
		return true
	}
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	var h [16]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return false
	}
	return string(h[:]) == "SQLite format 3\x00"
}

// lookupConfig finds name in the data source file. A missing file is no
// error (found is false).
func lookupConfig(path, name string) (value string, found bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("SQL data source file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", false, fmt.Errorf("SQL data source file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return "", false, fmt.Errorf("SQL data source file %s: not a regular file", path)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", false, fmt.Errorf("SQL data source file %s: mode %04o lets other users read or change it; it holds credentials: chmod 600 %s", path, fi.Mode().Perm(), path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxConfig+1))
	if err != nil {
		return "", false, fmt.Errorf("SQL data source file %s: %w", path, err)
	}
	if len(data) > maxConfig {
		return "", false, fmt.Errorf("SQL data source file %s: larger than %d bytes", path, maxConfig)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), maxConfig)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return "", false, fmt.Errorf("SQL data source file %s, line %d: no '=' (lines are NAME = postgres://... or NAME = sqlite:/path)", path, n)
		}
		if strings.EqualFold(strings.TrimSpace(k), name) {
			return strings.TrimSpace(v), true, nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", false, fmt.Errorf("SQL data source file %s: %w", path, err)
	}
	return "", false, nil
}

// scrub removes a connection's secrets from an error text a driver wrote
// (the password, and the URL whole), keeping the rest of what it says.
func scrub(err error, src Source) error {
	if err == nil || src.Kind != KindPostgres {
		return err
	}
	msg := err.Error()
	clean := strings.ReplaceAll(msg, src.Target, collectorset.RedactDSN(src.Target))
	secrets := collectorset.DSNSecrets(src.Target)
	slices.SortFunc(secrets, func(a, b string) int { return len(b) - len(a) }) // longest first
	for _, p := range secrets {
		clean = strings.ReplaceAll(clean, p, "xxxxx")
	}
	if clean == msg {
		return err
	}
	return errors.New(clean)
}
