package collectorset

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRedactDSN(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"perf.db", "perf.db"},
		{"/var/lib/perfc/perf.db", "/var/lib/perfc/perf.db"},
		{"postgres://perfc:s3cret@db:5432/perf?sslmode=disable", "postgres://perfc:xxxxx@db:5432/perf?sslmode=disable"},
		{"postgres://perfc@db/perf?password=s3cret&sslmode=disable", "postgres://perfc@db/perf?password=xxxxx&sslmode=disable"},
		{"postgresql://u:p%40ss@h/d?PASSWORD=x", "postgresql://u:xxxxx@h/d?PASSWORD=xxxxx"},
		{"host=db user=perfc password=s3cret dbname=perf", "host=db user=perfc password=xxxxx dbname=perf"},
		{"host=db password = 's3 cret' dbname=perf", "host=db password=xxxxx dbname=perf"},
		{"Driver={SQL Server};Server=db;UID=perfc;PWD=s3cret;", "Driver={SQL Server};Server=db;UID=perfc;PWD=xxxxx;"},
		{"password=s3cret", "password=xxxxx"},
		{"PGPASSWORD=s3cret psql -h db", "PGPASSWORD=xxxxx psql -h db"},
		{"postgres://u:s3cret@h/%zz", "postgres://xxxxx"},
		{"postgres://u@h/d?sslmode=disable&Password=s3cret", "postgres://u@h/d?Password=xxxxx&sslmode=disable"},
	} {
		got := RedactDSN(tc.in)
		if got != tc.want {
			t.Errorf("RedactDSN(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if strings.Contains(got, "s3cret") || strings.Contains(got, "s3 cret") {
			t.Errorf("RedactDSN(%q) = %q shows the secret", tc.in, got)
		}
	}
}

// TestOutputLocationRedacts: what logman query shows of an SQL set hides
// its password (issue 28, item 10).
func TestOutputLocationRedacts(t *testing.T) {
	s := &Set{Name: "db"}
	s.Collector.LogFileFormat = Sql
	s.Collector.DataSourceName = "postgres://perfc@db/perf?password=s3cret"
	s.Collector.FileName = "run"
	if got, want := s.OutputLocation(time.Time{}), "SQL:postgres://perfc@db/perf?password=xxxxx!run"; got != want {
		t.Errorf("OutputLocation = %q, want %q", got, want)
	}
}

// TestDSNSecrets: every secret RedactDSN hides is listed, for scrubbing a
// driver's message that quotes it some other way.
func TestDSNSecrets(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"perf.db", nil},
		{"postgres://u:s3cret@h/d", []string{"s3cret"}},
		{"postgres://u:p%40ss@h/d", []string{"p@ss", "p%40ss"}},
		{"postgres://u@h/d?password=s3cret", []string{"s3cret"}},
		{"host=db password='s3 cret'", []string{"'s3 cret'", "s3 cret"}},
		{"postgres://u:s3cret@h/%zz", []string{"postgres://u:s3cret@h/%zz"}},
	} {
		got := DSNSecrets(tc.in)
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("DSNSecrets(%q) = %q, want it to hold %q", tc.in, got, w)
			}
		}
		if len(tc.want) == 0 && len(got) != 0 {
			t.Errorf("DSNSecrets(%q) = %q, want none", tc.in, got)
		}
	}
}
