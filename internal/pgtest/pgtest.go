// Package pgtest gives tests a PostgreSQL schema of their own in the test
// database that .ci/run starts (a real server from Debian's packages),
// named by the environment variable PERFC_TEST_POSTGRES. Without it the
// PostgreSQL tests are skipped, except under CI=true, where they must run.
package pgtest

import (
	"crypto/rand"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// EnvVar names the test database's connection URL.
const EnvVar = "PERFC_TEST_POSTGRES"

// Available reports whether the PostgreSQL tests can run. Under CI=true a
// missing server fails t; elsewhere it is logged.
func Available(t testing.TB) bool {
	t.Helper()
	if os.Getenv(EnvVar) != "" {
		return true
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true but %s is not set: .ci/run starts PostgreSQL and sets it; the PostgreSQL tests must run in CI", EnvVar)
	}
	t.Logf("%s not set: PostgreSQL tests skipped", EnvVar)
	return false
}

// Schema creates a schema of its own for the test, dropped when the test
// ends, and returns the connection URL that makes it the search path.
func Schema(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvVar)
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var b [6]byte
	rand.Read(b[:])
	schema := fmt.Sprintf("t_%x", b)
	if _, err := db.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatalf("%s: %v", EnvVar, err)
	}
	t.Cleanup(func() {
		if _, err := db.Exec("DROP SCHEMA " + schema + " CASCADE"); err != nil {
			t.Error(err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", EnvVar, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
