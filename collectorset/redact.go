package collectorset

import (
	"net/url"
	"regexp"
	"strings"
)

// redacted replaces a secret wherever a set's data source is shown.
const redacted = "xxxxx"

// secretKeys are the connection parameters that hold a password, as
// PostgreSQL (libpq, pgx) and ODBC spell them, compared without case.
var secretKeys = []string{"password", "pwd", "pass", "sslpassword", "sslkey_password"}

// keyValue finds "key=value" (value quoted with ' or not) in a libpq or
// ODBC connection string.
var keyValue = regexp.MustCompile(`(?i)(^|[\s;])(password|pwd|pass|sslpassword|sslkey_password)\s*=\s*('(?:[^'\\]|\\.)*'|[^\s;]*)`)

// RedactDSN returns a data source name fit to show: the password of a URL
// (postgres://user:PASSWORD@host/db), password parameters of its query
// (?password=...), and password=... pairs of a key=value connection
// string (libpq's "host=db password=...", ODBC's "PWD=...;") are
// replaced by xxxxx. Everything else is kept, so a user still sees which
// server and database a set writes to. logman query, the collector
// service's records and /v1/sets show data sources only through it.
func RedactDSN(dsn string) string {
	if i := strings.Index(dsn, "://"); i > 0 && !strings.ContainsAny(dsn[:i], " =;") {
		if u, err := url.Parse(dsn); err == nil {
			if _, has := u.User.Password(); has {
				u.User = url.UserPassword(u.User.Username(), redacted)
			}
			q := u.Query()
			changed := false
			for k := range q {
				for _, s := range secretKeys {
					if strings.EqualFold(k, s) {
						q[k] = []string{redacted}
						changed = true
					}
				}
			}
			if changed {
				u.RawQuery = q.Encode()
			}
			return u.String()
		}
		// Not a URL after all: fall through to key=value pairs.
	}
	return keyValue.ReplaceAllString(dsn, "${1}${2}="+redacted)
}
