package collectorset

import (
	"net/url"
	"regexp"
	"strings"
)

// redacted replaces a secret wherever a set's data source is shown.
const redacted = "xxxxx"

// secretKeys are the connection parameters that hold a password, as
// PostgreSQL (libpq, pgx, its PGPASSWORD variable) and ODBC spell them,
// compared without case.
var secretKeys = []string{"password", "pwd", "pass", "sslpassword", "sslkey_password", "pgpassword"}

// keyValue finds "key=value" (value quoted with ' or not) in a libpq or
// ODBC connection string, or a VARIABLE=value assignment.
var keyValue = regexp.MustCompile(`(?i)(^|[\s;])(` + strings.Join(secretKeys, "|") + `)\s*=\s*('(?:[^'\\]|\\.)*'|[^\s;]*)`)

// RedactDSN returns a data source name fit to show: the password of a URL
// (postgres://user:PASSWORD@host/db), password parameters of its query
// (?password=...), and password=... pairs of a key=value connection
// string (libpq's "host=db password=...", ODBC's "PWD=...;",
// "PGPASSWORD=...") are replaced by xxxxx; a URL that does not parse is
// shown as its scheme alone. Everything else is kept, so a user still
// sees which server and database a set writes to. It is the one
// redaction: logman query, the collector service's records and messages,
// /v1/sets and the SQL logs' messages (perflog/sqllog) show data sources
// only through it.
func RedactDSN(dsn string) string {
	if scheme, ok := urlScheme(dsn); ok {
		u, err := url.Parse(dsn)
		if err != nil {
			return scheme + "://" + redacted
		}
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), redacted)
		}
		q := u.Query()
		changed := false
		for k := range q {
			if isSecretKey(k) {
				q[k] = []string{redacted}
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
		return u.String()
	}
	return keyValue.ReplaceAllString(dsn, "${1}${2}="+redacted)
}

// DSNSecrets returns the secrets RedactDSN hides in dsn, for removing
// them from text that quotes them some other way (a database driver's
// error); a URL that does not parse is a secret whole.
func DSNSecrets(dsn string) []string {
	var out []string
	add := func(s string) {
		if s != "" && s != redacted {
			out = append(out, s)
		}
	}
	if _, ok := urlScheme(dsn); ok {
		u, err := url.Parse(dsn)
		if err != nil {
			return []string{dsn}
		}
		if p, has := u.User.Password(); has {
			add(p)
			add(url.PathEscape(p))
			add(url.QueryEscape(p))
		}
		for k, vs := range u.Query() {
			if isSecretKey(k) {
				for _, v := range vs {
					add(v)
					add(url.QueryEscape(v))
				}
			}
		}
		return out
	}
	for _, m := range keyValue.FindAllStringSubmatch(dsn, -1) {
		add(m[3])
		add(strings.Trim(m[3], "'"))
	}
	return out
}

// urlScheme returns the scheme of a dsn written as a URL.
func urlScheme(dsn string) (string, bool) {
	i := strings.Index(dsn, "://")
	if i <= 0 || strings.ContainsAny(dsn[:i], " =;") {
		return "", false
	}
	return dsn[:i], true
}

func isSecretKey(k string) bool {
	for _, s := range secretKeys {
		if strings.EqualFold(k, s) {
			return true
		}
	}
	return false
}
