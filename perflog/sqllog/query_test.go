package sqllog

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/wintz"
)

// TestReportQueries runs the kind of query written for relog's tables on
// SQL Server (joins on GUID and CounterID, LEFT(CounterDateTime, 23) cast
// to a time) in each database's spelling, and checks the answers against
// the values pdh computed from the original samples.
func TestReportQueries(t *testing.T) {
	ctx := context.Background()
	for _, be := range backends(t) {
		t.Run(be.name, func(t *testing.T) {
			opts := be.opts(t)
			w, err := Create(ctx, "SQL:perf!report", opts)
			if err != nil {
				t.Fatal(err)
			}
			exp := observe(t, ctx, openWindows(t), []string{`\Processor(*)\% Processor Time`}, w, 0, 11)
			w.Close()
			const path = `\Processor(_Total)\% Processor Time`
			var sum float64
			var n int
			for _, m := range exp[1:] { // the first sample has no value (0 in CounterValue)
				sum += m[path].computed
				n++
			}
			left, toTime := "LEFT(d.CounterDateTime, 23)", "CAST(LEFT(d.CounterDateTime, 23) AS timestamp)"
			if be.name == "sqlite" {
				left, toTime = "substr(d.CounterDateTime, 1, 23)", "datetime(substr(d.CounterDateTime, 1, 23))"
			}
			db, _, err := connect(ctx, mustResolve(t, opts), false)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var avg float64
			var rows int
			var first, last string
			var firstTime any
			err = db.QueryRow(`SELECT AVG(d.CounterValue), COUNT(*), MIN(`+left+`), MAX(`+left+`), MIN(`+toTime+`)
FROM CounterData d JOIN CounterDetails c ON d.CounterID = c.CounterID JOIN DisplayToID i ON d.GUID = i.GUID
WHERE i.DisplayString = 'report' AND c.ObjectName = 'Processor' AND c.CounterName = '% Processor Time'
AND c.InstanceName = '_Total' AND c.MachineName = '\\ZACH-PC' AND d.RecordIndex > 1`).Scan(&avg, &rows, &first, &last, &firstTime)
			if err != nil {
				t.Fatal(err)
			}
			if rows != n || math.Abs(avg-sum/float64(n)) > 1e-9 {
				t.Errorf("AVG = %v over %d rows, want %v over %d", avg, rows, sum/float64(n), n)
			}
			bf := openWindows(t)
			if want := bf.Time(1).UTC().Format("2006-01-02 15:04:05.000"); first != want {
				t.Errorf("first time %q, want %q", first, want)
			}
			if want := bf.Time(10).UTC().Format("2006-01-02 15:04:05.000"); last != want {
				t.Errorf("last time %q, want %q", last, want)
			}
			switch v := firstTime.(type) {
			case time.Time:
				if !v.Equal(bf.Time(1).Truncate(time.Millisecond)) {
					t.Errorf("CAST to a time gives %v, want %v", v, bf.Time(1))
				}
			case string:
				if want := bf.Time(1).UTC().Format("2006-01-02 15:04:05"); v != want {
					t.Errorf("datetime() gives %q, want %q", v, want)
				}
			default:
				t.Errorf("time as %T %v", v, v)
			}
		})
	}
}

// TestWindowsTimes reads CounterDateTime as relog writes it, with a NUL as
// its 24th character, and LogStart/StopTime with it too.
func TestWindowsTimes(t *testing.T) {
	ctx := context.Background()
	opts := sqliteOpts(t)
	w, err := Create(ctx, "SQL:perf!nul", opts)
	if err != nil {
		t.Fatal(err)
	}
	exp := observe(t, ctx, openWindows(t), []string{`\System\*`}, w, 0, 4)
	w.Close()
	db, _, err := connect(ctx, mustResolve(t, opts), true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE CounterData SET CounterDateTime = CounterDateTime || char(0)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	l, err := OpenWith(ctx, "SQL:perf!nul", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	bf := openWindows(t)
	for i := range l.Len() {
		if want := bf.Time(i).Truncate(time.Millisecond); !l.Time(i).Equal(want) {
			t.Errorf("Time(%d) = %v, want %v", i, l.Time(i), want)
		}
	}
	compare(t, observe(t, ctx, l, []string{`\System\*`}, nil, 0, 4), exp)
}

// TestZone: the log set records the writer's zone as Windows names it and
// its bias (UTC minus local, minutes), and the reader's Location is it.
func TestZone(t *testing.T) {
	ctx := context.Background()
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Skip("no tz database:", err)
	}
	opts := sqliteOpts(t)
	opts.Location = la
	w, err := Create(ctx, "SQL:perf!zone", opts)
	if err != nil {
		t.Fatal(err)
	}
	observe(t, ctx, openWindows(t), []string{`\Memory\Available Bytes`}, w, 0, 1)
	w.Close()
	l, err := OpenWith(ctx, "SQL:perf!zone", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	// The Windows name and bias stored give the zone back with its rules:
	// Pacific Standard Time in January, Pacific Daylight Time in July.
	for _, tc := range []struct {
		at   time.Time
		name string
		bias int
	}{
		{time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), "Pacific Standard Time", 480},
		{time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC), "Pacific Daylight Time", 420},
	} {
		if z := wintz.At(tc.at.In(l.Location())); z.Name != tc.name || z.Bias != tc.bias {
			t.Errorf("Location %s at %v: %+v, want %s (%d)", l.Location(), tc.at, z, tc.name, tc.bias)
		}
	}
}

// TestZoneNames: a log set's TimeZoneName and MinutesToUTC give the IANA
// zone of a Windows name only where that zone keeps the bias (standard
// names with their standard bias, daylight names with their daylight
// bias); other names and biases stay a fixed zone.
func TestZoneNames(t *testing.T) {
	if _, err := time.LoadLocation("America/New_York"); err != nil {
		t.Skip("no tz database:", err)
	}
	at := time.Date(2007, 8, 14, 19, 40, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		bias int
		want string // the location's name; "" a fixed zone
	}{
		{"Eastern Standard Time", 300, "America/New_York"},
		{"Eastern Daylight Time", 240, "America/New_York"},
		{"Eastern Standard Time", 240, ""}, // a standard name with a daylight bias
		{"Eastern Daylight Time", 300, ""},
		{"Romance Standard Time", -60, "Europe/Paris"},
		{"India Standard Time", -330, "Asia/Calcutta"},
		{"Coordinated Universal Time", 0, "Etc/UTC"},
		{"SA Eastern Standard Time", 180, "America/Cayenne"},
		{"Pacific Standard Time (text log)", 480, ""},
		{"PST", 480, ""},
	} {
		loc, ok := wintz.FromWindowsName(tc.name, tc.bias, at)
		got := ""
		if ok {
			got = loc.String()
		}
		if got != tc.want {
			t.Errorf("ZoneLocation(%q, %d) = %q, want %q", tc.name, tc.bias, got, tc.want)
		}
	}
}

// TestWithoutIndex reads a log set from tables as relog makes them,
// without the index on (GUID, RecordIndex) that perfc adds.
func TestWithoutIndex(t *testing.T) {
	ctx := context.Background()
	for _, be := range backends(t) {
		t.Run(be.name, func(t *testing.T) {
			opts := be.opts(t)
			w, err := Create(ctx, "SQL:perf!plain", opts)
			if err != nil {
				t.Fatal(err)
			}
			exp := observe(t, ctx, openWindows(t), []string{`\Processor(*)\*`, `\System\*`}, w, 0, 11)
			w.Close()
			db, d, err := connect(ctx, mustResolve(t, opts), true)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []bool{true, false} {
				if has, err := hasRecordIndex(ctx, db, d); err != nil || has != want {
					t.Fatalf("index present: %v, %v; want %v", has, err, want)
				}
				if _, err := db.Exec(`DROP INDEX IF EXISTS CounterData_Record`); err != nil {
					t.Fatal(err)
				}
			}
			db.Close()
			l, err := OpenWith(ctx, "SQL:perf!plain", opts)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			compare(t, observe(t, ctx, l, []string{`\Processor(*)\*`, `\System\*`}, nil, 0, 11), exp)
		})
	}
}
