package binlog

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/pdh"
)

func TestRoundTrip(t *testing.T) {
	win, db := windowsSamples(t)
	live := liveSamples(t, 40, 1)
	// Windows samples with a gap flag on one of them.
	gapped := slices.Clone(win)
	g := *gapped[5]
	g.Gap = true
	gapped[5] = &g
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		samples  []*pdh.Sample
		opts     Options
		host     string
		counters []string
	}{
		{"windows compressed", win, Options{Compress: true, Titles: db, Location: paris}, "ZACH-PC", nil},
		{"windows plain", gapped, Options{Titles: db, Host: "zach", Location: time.UTC, Counters: []string{`\Memory\Available Bytes`}}, "zach", []string{`\Memory\Available Bytes`}},
		{"live compressed", live, Options{Compress: true, Location: paris}, "LIVEHOST", nil},
		{"live plain", live, Options{Location: paris}, "LIVEHOST", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.plog")
			writeLog(t, path, c.opts, c.samples)
			l, got := readAll(t, path)
			if len(got) != len(c.samples) {
				t.Fatalf("%d samples, want %d", len(got), len(c.samples))
			}
			for i := range got {
				if d := sameSample(got[i], c.samples[i]); d != "" {
					t.Errorf("sample %d: %s", i, d)
				}
				if got[i].Gap != c.samples[i].Gap {
					t.Errorf("sample %d: gap %v, want %v", i, got[i].Gap, c.samples[i].Gap)
				}
				if !l.Time(i).Equal(c.samples[i].Time) {
					t.Errorf("Time(%d) = %v, want %v", i, l.Time(i), c.samples[i].Time)
				}
			}
			if l.Host() != c.host {
				t.Errorf("Host %q, want %q", l.Host(), c.host)
			}
			if !slices.Equal(l.Counters(), c.counters) || (l.Counters() == nil) != (c.counters == nil) {
				t.Errorf("Counters %q, want %q", l.Counters(), c.counters)
			}
			if l.Location().String() != c.opts.Location.String() {
				t.Errorf("Location %q, want %q", l.Location(), c.opts.Location)
			}
			if len(l.Notes()) != 0 {
				t.Errorf("notes: %q", l.Notes())
			}
			if c.opts.Titles != nil {
				// Names of every object and counter in the blocks, from the
				// log's own titles.
				for _, s := range got {
					for _, b := range s.Blocks {
						for it := b.Objects(); it.Next(); {
							o := it.Object()
							if n, want := l.Titles().Name(o.NameIndex()), db.Name(o.NameIndex()); n != want {
								t.Fatalf("title %d: %q, want %q", o.NameIndex(), n, want)
							}
							if h, want := l.Titles().Help(o.HelpIndex()), db.Help(o.HelpIndex()); h != want {
								t.Fatalf("help %d: %q, want %q", o.HelpIndex(), h, want)
							}
							for i := range o.NumCounters() {
								d := o.Counter(i)
								if n, want := l.Titles().Name(d.NameIndex), db.Name(d.NameIndex); n != want {
									t.Fatalf("title %d: %q, want %q", d.NameIndex, n, want)
								}
							}
						}
					}
				}
				// Only the indexes used: far fewer than the whole table.
				if n, all := len(l.Titles().Entries()), len(db.Entries()); n >= all/4 {
					t.Errorf("%d titles stored of %d: the log should keep only those it uses", n, all)
				}
			}
		})
	}
}

func TestSeekAndRandomAccess(t *testing.T) {
	live := liveSamples(t, 30, 2)
	path := filepath.Join(t.TempDir(), "x.plog")
	writeLog(t, path, DefaultOptions(), live)
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, i := range []int{29, 0, 0, 17, 16, 16, 17, 3, 29, 29} { // again: given again while the decoder stands there
		sampleAt(t, l, i, live[i])
		if l.Pos() != i+1 {
			t.Errorf("Pos %d after reading sample %d", l.Pos(), i)
		}
	}
	if err := l.Seek(31); err == nil {
		t.Error("Seek(31) of 30 samples: no error")
	}
}

func TestGapRecord(t *testing.T) {
	live := liveSamples(t, 6, 3)
	path := filepath.Join(t.TempDir(), "x.plog")
	w, err := Create(path, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range live {
		if i == 4 {
			if err := w.WriteGap(s.Time.Add(-time.Second/2), "collection stopped: provider restarted"); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.WriteSample(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_, got := readAll(t, path)
	for i, s := range got {
		if want := i == 4; s.Gap != want {
			t.Errorf("sample %d: Gap %v, want %v", i, s.Gap, want)
		}
		if d := sameSample(s, live[i]); d != "" {
			t.Errorf("sample %d: %s", i, d)
		}
	}
}

func TestEmptyLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.plog")
	w, err := Create(path, Options{Host: "h1", Location: time.UTC, Counters: []string{`\Processor(_Total)\% Processor Time`}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	l, got := readAll(t, path)
	if len(got) != 0 || l.Host() != "h1" || len(l.Counters()) != 1 {
		t.Errorf("empty log: %d samples, host %q, counters %q", len(got), l.Host(), l.Counters())
	}
}

func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.plog")
	writeLog(t, good, DefaultOptions(), liveSamples(t, 2, 4))
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	mod := func(f func(b []byte) []byte) []byte { return f(slices.Clone(data)) }
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "magic"},
		{"text", []byte("hello, world"), "magic"},
		{"short header", data[:30], "needs 64"},
		{"newer version", mod(func(b []byte) []byte { b[8] = Version + 1; return b }), fmt.Sprintf("version %d", Version+1)},
		{"damaged header", mod(func(b []byte) []byte { b[20] = 1; return b }), "checksum"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
			if err := os.WriteFile(p, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Open(p)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
				t.Errorf("Open: %v, want an error naming the file and %q", err, c.want)
			}
		})
	}
}

func TestRolloverName(t *testing.T) {
	at := time.Date(2026, 3, 7, 9, 5, 0, 0, time.UTC)
	cases := []struct {
		base  string
		n     int
		style NameStyle
		want  string
	}{
		{"/logs/cpu.plog", 1, NumberedNames, "/logs/cpu_000001.plog"},
		{"cpu.blg", 42, NumberedNames, "cpu_000042.blg"},
		{"cpu.plog", 1234567, NumberedNames, "cpu_1234567.plog"},
		{"cpu.plog", 1, DatedNames, "cpu_03070905.plog"},
		{"noext", 3, NumberedNames, "noext_000003"},
	}
	for _, c := range cases {
		if got := RolloverName(c.base, c.n, at, c.style); got != c.want {
			t.Errorf("RolloverName(%q, %d, %v) = %q, want %q", c.base, c.n, c.style, got, c.want)
		}
	}
}

func TestZones(t *testing.T) {
	live := liveSamples(t, 2, 13)
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		loc      *time.Location
		name     string
		offset   int // at the first sample (2026-11-23 12:00 UTC)
		tzLoaded bool
	}{
		{ny, "America/New_York", -5 * 3600, true},
		{time.FixedZone("XST", 5*3600+1800), "XST", 5*3600 + 1800, false},
		{time.UTC, "UTC", 0, true},
	}
	for _, c := range cases {
		path := filepath.Join(t.TempDir(), "x.plog")
		writeLog(t, path, Options{Location: c.loc}, live)
		l, _ := readAll(t, path)
		loc := l.Location()
		_, off := live[0].Time.In(loc).Zone()
		if loc.String() != c.name || off != c.offset {
			t.Errorf("%s: location %q, offset %d; want %q, %d", c.name, loc, off, c.name, c.offset)
		}
		// A loaded IANA zone keeps its rules: summer time in New York.
		if c.tzLoaded && c.name == "America/New_York" {
			if _, o := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC).In(loc).Zone(); o != -4*3600 {
				t.Errorf("New York in July: offset %d", o)
			}
		}
	}
}

func TestLinearMaxSize(t *testing.T) {
	live := liveSamples(t, 30, 14)
	path := filepath.Join(t.TempDir(), "x.plog")
	w, err := Create(path, Options{Location: time.UTC, MaxSize: 4000})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range live {
		err := w.WriteSample(s)
		if errors.Is(err, ErrFull) {
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the log", err)
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 || n == len(live) || fi.Size() > 4000 {
		t.Fatalf("%d samples written, %d bytes: want the log full before 4000 bytes", n, fi.Size())
	}
	_, got := readAll(t, path)
	if len(got) != n {
		t.Fatalf("%d samples read, %d written", len(got), n)
	}
}

func TestRolloverNameTaken(t *testing.T) {
	live := liveSamples(t, 3, 15)
	dir := t.TempDir()
	w, err := Create(filepath.Join(dir, "m.plog"), Options{Location: time.UTC, Rollover: Rollover{Interval: 20 * time.Second, Names: DatedNames}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i, s := range live {
		c := *s
		c.Time = time.Date(2026, 5, 6, 7, 8, 0, 0, time.UTC).Add(time.Duration(i) * 25 * time.Second)
		if err := w.WriteSample(&c); err != nil {
			t.Fatal(err)
		}
		names = append(names, filepath.Base(w.Path()))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// 07:08:00, 07:08:25 (same minute: a second name), 07:08:50.
	want := []string{"m_05060708.plog", "m_05060708_2.plog", "m_05060708_3.plog"}
	if !slices.Equal(names, want) {
		t.Errorf("files %q, want %q", names, want)
	}
}

// TestAppendRefusesOtherFiles: appending to a file that is not a log fails
// and leaves the file as it was.
func TestAppendRefusesOtherFiles(t *testing.T) {
	for _, content := range []string{"x", "\"(PDH-CSV 4.0)\",\"\\\\\\\\host\\\\Memory\\\\Available Bytes\"\n", strings.Repeat("not a log\n", 20)} {
		p := filepath.Join(t.TempDir(), "x.csv")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Create(p, Options{Mode: Append})
		if err == nil || !strings.Contains(err.Error(), "not a perfcounters binary log") || !strings.Contains(err.Error(), p) {
			t.Errorf("append to %q: %v", content, err)
		}
		if b, _ := os.ReadFile(p); string(b) != content {
			t.Errorf("the file was changed to %q", b)
		}
	}
}

// TestFileShrinks: a log that is shorter than its size said (cut while it
// was opened) reads to its last whole record without failing.
func TestFileShrinks(t *testing.T) {
	live := liveSamples(t, 5, 16)
	path := filepath.Join(t.TempDir(), "x.plog")
	sizes := writeLog(t, path, Options{Location: time.UTC}, live)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cut := data[:sizes[2]+5]
	l, err := Read(bytes.NewReader(cut), int64(len(data)), "x.plog")
	if err != nil {
		t.Fatal(err)
	}
	if got := readN(t, l, "x.plog"); len(got) != 3 {
		t.Errorf("%d samples, want the 3 whole ones", len(got))
	}
}

// TestCircularTooSmall: samples that do not fit half of the ring are
// refused with a message; the log stays readable.
func TestCircularTooSmall(t *testing.T) {
	win, _ := windowsSamples(t)
	path := filepath.Join(t.TempDir(), "x.plog")
	w, err := Create(path, Options{Mode: Circular, MaxSize: minCircular, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	err = w.WriteSample(win[0])
	if err == nil || !strings.Contains(err.Error(), "does not fit the circular log") {
		t.Errorf("a 24 KB sample in a 16 KiB ring: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > minCircular {
		t.Errorf("%d bytes", fi.Size())
	}
	if _, got := readAll(t, path); len(got) != 0 {
		t.Errorf("%d samples", len(got))
	}
	if _, err := Create(path, Options{Mode: Circular, MaxSize: 1000}); err == nil {
		t.Error("a circular log of 1000 bytes was created")
	}
}

// TestStamps: times are kept to 100 ns over FILETIME's whole range, and
// clamped outside it.
func TestStamps(t *testing.T) {
	cases := []struct {
		in, want time.Time
	}{
		{time.Time{}, time.Time{}},
		{time.Date(2026, 11, 23, 12, 0, 0, 123456789, time.UTC), time.Date(2026, 11, 23, 12, 0, 0, 123456700, time.UTC)},
		{time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC)},
		{time.Date(1500, 6, 1, 0, 0, 0, 100, time.UTC), time.Date(1500, 6, 1, 0, 0, 0, 100, time.UTC)},
		{time.Date(2500, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2500, 1, 1, 0, 0, 0, 0, time.UTC)},
		{time.Date(12739, 9, 1, 11, 53, 36, 920958800, time.UTC), time.Date(12739, 9, 1, 11, 53, 36, 920958800, time.UTC)},
		{time.Date(30828, 9, 14, 2, 48, 5, 0, time.UTC), time.Date(30828, 9, 14, 2, 48, 5, 0, time.UTC)},
		// Beyond 2^63 - 1 FILETIME ticks (30828-09-14 02:48:05.4775807): the last.
		{time.Date(40000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(30828, 9, 14, 2, 48, 5, 477580700, time.UTC)},
		{time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("X", 3600)), time.Date(2025, 12, 31, 23, 0, 0, 0, time.UTC)},
	}
	for _, c := range cases {
		if got := timeOf(stamp(c.in)); !got.Equal(c.want) || got.Location() != time.UTC && !got.IsZero() {
			t.Errorf("%v: stored and read back as %v, want %v", c.in, got, c.want)
		}
	}
}

// TestProblemMachines: the machines of a sample's problems (a computer of
// a fleet that did not answer: its gap mark; an object of a remote
// computer) are read back as written, in plain and compressed logs, and
// a problem that names none stays without one.
func TestProblemMachines(t *testing.T) {
	live := liveSamples(t, 6, 2)
	want := make([]*pdh.Sample, len(live))
	for i, s := range live {
		c := *s
		switch i {
		case 2, 3:
			c.Problems = []pdh.Problem{
				{Machine: "web1", Reason: "web1: no answer within 2s"},
				{Object: 238, ObjectName: "Processor", Reason: "provider failed"},
				{Object: 4, ObjectName: "Memory", Machine: "db7", Reason: "incomplete", Partial: true,
					Missing: []pdh.MissingValues{{Instance: -1, Counters: []uint32{24}}}},
			}
		case 4:
			c.Problems = []pdh.Problem{{Object: 238, ObjectName: "Processor", Reason: "provider failed"}}
		}
		want[i] = &c
	}
	for _, compress := range []bool{false, true} {
		t.Run(fmt.Sprint("compress=", compress), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.plog")
			opts := DefaultOptions()
			opts.Compress = compress
			writeLog(t, path, opts, want)
			_, got := readAll(t, path)
			if len(got) != len(want) {
				t.Fatalf("%d samples, want %d", len(got), len(want))
			}
			for i := range got {
				if d := sameSample(got[i], want[i]); d != "" {
					t.Errorf("sample %d: %s", i, d)
				}
				var gm, wm []string
				for _, p := range got[i].Problems {
					gm = append(gm, p.Machine)
				}
				for _, p := range want[i].Problems {
					wm = append(wm, p.Machine)
				}
				if !slices.Equal(gm, wm) {
					t.Errorf("sample %d: problem machines %q, want %q", i, gm, wm)
				}
			}
		})
	}
}

// TestProblemMachinesRefused: a machine given to a problem the sample
// does not have is an error of that sample, not a panic.
func TestProblemMachinesRefused(t *testing.T) {
	s := &pdh.Sample{Problems: []pdh.Problem{{Machine: "web1", Reason: "down"}}}
	pl, err := newEncoder().encodeSample(nil, s)
	if err != nil {
		t.Fatal(err)
	}
	// The field is the payload's last bytes: 1 (one machine), 0 (problem
	// 0), "web1". Point it at problem 5.
	i := bytes.LastIndex(pl, []byte("\x01\x00\x04web1"))
	if i < 0 {
		t.Fatalf("payload %x lacks the machine field", pl)
	}
	pl[i+1] = 5
	if _, err := newDecoder().sample(pl); err == nil || !strings.Contains(err.Error(), "problem 5 of a sample of 1 problems") {
		t.Errorf("err = %v", err)
	}
}

// TestSamplesAreValues: every sample a log gives stays as it was given,
// whatever is read after it: in order, forward past samples, back to the
// start (a new decoder) and on again.
func TestSamplesAreValues(t *testing.T) {
	live := liveSamples(t, 30, 3)
	for _, opts := range []Options{DefaultOptions(), {Location: time.UTC}} {
		t.Run(fmt.Sprintf("compress=%v", opts.Compress), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.plog")
			writeLog(t, path, opts, live)
			l, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			type given struct {
				i      int
				s      *pdh.Sample
				copied [][]byte // its blocks' bytes when given
			}
			var held []given
			order := []int{}
			for i := range 20 {
				order = append(order, i)
			}
			order = append(order, 22, 23, 27, 0, 1, 2, 3)
			for _, i := range order {
				s := sampleAt(t, l, i, live[i])
				g := given{i: i, s: s}
				for _, blk := range s.Blocks {
					g.copied = append(g.copied, bytes.Clone(blk.Bytes()))
				}
				held = append(held, g)
			}
			for k, h := range held {
				for b, blk := range h.s.Blocks {
					if !bytes.Equal(blk.Bytes(), h.copied[b]) {
						t.Fatalf("sample %d (read %d of %d) changed after it was given", h.i, k, len(held))
					}
				}
			}
		})
	}
}
