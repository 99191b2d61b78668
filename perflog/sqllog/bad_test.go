package sqllog

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestBadLogs damages a small log in the ways a database can be damaged
// (or was made by something else): each is an error that names the
// table, column, record or log set, from Open or from the Sample that
// meets it, never a panic.
func TestBadLogs(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name       string
		sqliteOnly bool // PostgreSQL's typed columns refuse the damage
		src        string
		damage     []string
		create     bool // Create must refuse the database too
		want       []string
	}{
		{name: "no such log set", src: "SQL:perf!nope", want: []string{`no log set "nope"`, "it has a"}},
		{name: "no table", damage: []string{"DROP TABLE DisplayToID"}, create: false, want: []string{"no table DisplayToID"}},
		{name: "missing column", damage: []string{"DROP TABLE CounterData",
			"CREATE TABLE CounterData (GUID CHAR(36), CounterID INTEGER, RecordIndex INTEGER, CounterDateTime CHAR(24), FirstValueA INTEGER, FirstValueB INTEGER, SecondValueA INTEGER, SecondValueB INTEGER, MultiCount INTEGER)"},
			create: true, want: []string{"table CounterData has no column CounterValue"}},
		{name: "column of the wrong type", damage: []string{"DROP TABLE CounterData",
			"CREATE TABLE CounterData (GUID CHAR(36), CounterID INTEGER, RecordIndex INTEGER, CounterDateTime INTEGER, CounterValue FLOAT, FirstValueA INTEGER, FirstValueB INTEGER, SecondValueA INTEGER, SecondValueB INTEGER, MultiCount INTEGER)"},
			create: true, want: []string{"table CounterData, column CounterDateTime", "text"}},
		{name: "bad time", damage: []string{"UPDATE CounterData SET CounterDateTime = 'yesterday noon' WHERE RecordIndex = 2"},
			want: []string{"RecordIndex 2", "CounterDateTime", "yesterday noon"}},
		{name: "unknown counter type", damage: []string{"UPDATE CounterDetails SET CounterType = 123"},
			want: []string{"counter type 0x0000007B"}},
		{name: "base type as a counter", damage: []string{"UPDATE CounterDetails SET CounterType = 1073939459"},
			want: []string{"cannot be logged as a raw value"}},
		{name: "instance index", damage: []string{"UPDATE CounterDetails SET InstanceIndex = -5 WHERE InstanceName = '0'"},
			want: []string{"InstanceIndex -5"}},
		{name: "zone offset", damage: []string{"UPDATE DisplayToID SET MinutesToUTC = 99999"},
			want: []string{"MinutesToUTC 99999"}},
		{name: "details row deleted", damage: []string{"DELETE FROM CounterDetails WHERE CounterID = (SELECT MAX(CounterID) FROM CounterDetails)"},
			want: []string{"has no CounterDetails row", "RecordIndex 1"}},
		{name: "value past 32 bits", sqliteOnly: true, damage: []string{"UPDATE CounterData SET SecondValueB = 1099511627776 WHERE RecordIndex = 3"},
			want: []string{"RecordIndex 3", "SecondValueB 1099511627776 outside a 32-bit int"}},
		{name: "type past 32 bits", sqliteOnly: true, damage: []string{"UPDATE CounterDetails SET CounterType = -99999999999"},
			want: []string{"CounterType -99999999999"}},
		{name: "text where a number goes", sqliteOnly: true, damage: []string{"UPDATE CounterData SET FirstValueA = 'lots' WHERE RecordIndex = 2"},
			want: []string{"RecordIndex 2"}},
	}
	for _, be := range backends(t) {
		for _, c := range cases {
			if c.sqliteOnly && be.name != "sqlite" {
				continue
			}
			t.Run(be.name+"/"+c.name, func(t *testing.T) {
				opts := be.opts(t)
				w, err := Create(ctx, "SQL:perf!a", opts)
				if err != nil {
					t.Fatal(err)
				}
				observe(t, ctx, openWindows(t), []string{`\Processor(*)\% Processor Time`, `\System\Processes`}, w, 0, 3)
				w.Close()
				db, _, err := connect(ctx, mustResolve(t, opts), true)
				if err != nil {
					t.Fatal(err)
				}
				for _, d := range c.damage {
					if _, err := db.Exec(d); err != nil {
						t.Fatalf("%s: %v", d, err)
					}
				}
				db.Close()
				src := c.src
				if src == "" {
					src = "SQL:perf!a"
				}
				err = readAll(ctx, src, opts)
				if err == nil {
					t.Fatalf("no error")
				}
				t.Log(err)
				for _, s := range c.want {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not say %q", err, s)
					}
				}
				if !strings.Contains(err.Error(), "perf") {
					t.Errorf("error %q does not name the data source", err)
				}
				if c.create {
					if w, err := Create(ctx, "SQL:perf!a", opts); err == nil {
						w.Close()
						t.Errorf("Create accepted the damaged tables")
					}
				}
			})
		}
	}
}

// readAll opens src and reads every sample, returning the first error.
func readAll(ctx context.Context, src string, opts Options) error {
	l, err := OpenWith(ctx, src, opts)
	if err != nil {
		return err
	}
	defer l.Close()
	for {
		_, err := l.Sample(ctx, nil)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// TestMissingSQLiteFile: reading a SQLite log that does not exist does not
// create it.
func TestMissingSQLiteFile(t *testing.T) {
	dir := t.TempDir()
	o := Options{Getenv: env(), ConfigFile: dir + "/none"}
	_, err := OpenWith(context.Background(), "SQL:"+dir+"/absent.db!x", o)
	if err == nil || !strings.Contains(err.Error(), "no such SQLite file") {
		t.Errorf("err = %v", err)
	}
	if _, err := LogsetsWith(context.Background(), dir+"/absent.db", o); err == nil {
		t.Errorf("Logsets of a missing file: no error")
	}
}
