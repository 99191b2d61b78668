package pdh

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/perfdata"
)

// apiSource is a recording of four samples one second apart, of two
// objects: 10000 Queue (Jobs = 10+k), 10004 Printer (Pages = 20+k).
func apiSource(t *testing.T) *memSource {
	db := dbOf(t, map[uint32]string{10000: "Queue", 10002: "Jobs", 10004: "Printer", 10006: "Pages"})
	var samples [][]byte
	for k := range 4 {
		samples = append(samples, block(t, "PC", t0+int64(k)*second, obj{10000, 10002, uint64(10 + k)}, obj{10004, 10006, uint64(20 + k)}))
	}
	return &memSource{db: db, samples: samples}
}

// TestRemoveCounter: a removed counter's object is no longer asked of the
// source while no other counter reads it; a counter of another query, or
// one removed twice, is refused.
func TestRemoveCounter(t *testing.T) {
	src := apiSource(t)
	q := OpenQuery(src)
	jobs := mustAdd(t, q, `\Queue(*)\Jobs`)
	pages := mustAdd(t, q, `\Printer(*)\Pages`)
	jobs2 := mustAdd(t, q, `\Queue(a)\Jobs`)
	for _, c := range []struct {
		remove *Counter
		want   []uint32 // objects asked of the next sample
	}{{jobs, []uint32{10000, 10004}}, {jobs2, []uint32{10004}}} {
		if err := q.RemoveCounter(c.remove); err != nil {
			t.Fatal(err)
		}
		src.asked = nil
		if err := q.Collect(t.Context()); err != nil {
			t.Fatal(err)
		}
		if len(src.asked) != 1 || !slices.Equal(src.asked[0], c.want) {
			t.Errorf("asked %v, want %v", src.asked, c.want)
		}
	}
	if len(q.Counters()) != 1 || q.Counters()[0] != pages {
		t.Errorf("counters %v, want pages only", q.Counters())
	}
	if err := q.RemoveCounter(jobs); err == nil {
		t.Error("a counter removed twice: no error")
	}
	other := OpenQuery(apiSource(t))
	if err := other.RemoveCounter(pages); err == nil {
		t.Error("another query's counter: no error")
	}
}

// TestClose: a closed query answers ErrClosed; closing twice is fine.
func TestClose(t *testing.T) {
	q := OpenQuery(apiSource(t))
	if _, err := q.AddCounter(`\Queue(*)\Jobs`); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := q.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Collect(t.Context()); !errors.Is(err, ErrClosed) {
		t.Errorf("Collect after Close: %v", err)
	}
	if _, err := q.AddCounter(`\Queue(*)\Jobs`); !errors.Is(err, ErrClosed) {
		t.Errorf("AddCounter after Close: %v", err)
	}
	n := 0
	for range q.Every(t.Context(), time.Second) {
		n++
	}
	if n != 0 {
		t.Errorf("Every after Close ran %d times", n)
	}
}

// TestValidatePath: PDH's statuses for each part that does not exist.
func TestValidatePath(t *testing.T) {
	cases := []struct {
		path string
		want calc.Status // ValidData: valid
		syn  bool        // a syntax error, whatever want says
	}{
		{`\Queue(a)\Jobs`, calc.ValidData, false},
		{`\Queue(*)\*`, calc.ValidData, false},
		{`\\PC\Queue(a)\Jobs`, calc.ValidData, false},
		{`\\OTHER\Queue(a)\Jobs`, calc.NoMachine, false},
		{`\Nothing(a)\Jobs`, calc.NoObject, false},
		{`\Queue(a)\Nothing`, calc.NoCounter, false},
		{`\Queue(b)\Jobs`, calc.NoInstance, false},
		{`Queue\Jobs`, 0, true},
	}
	for _, c := range cases {
		err := ValidatePath(t.Context(), apiSource(t), c.path)
		var pe *PathError
		switch {
		case c.syn:
			if err == nil || errors.As(err, &pe) {
				t.Errorf("%s: %v, want a syntax error", c.path, err)
			}
		case c.want == calc.ValidData:
			if err != nil {
				t.Errorf("%s: %v, want valid", c.path, err)
			}
		default:
			if !errors.As(err, &pe) || pe.Status != c.want {
				t.Errorf("%s: %v, want status %v", c.path, err, c.want)
			}
		}
	}
}

// TestSetTimeRange: the range's edges are included; a range after the
// recording gives no sample; end before begin and a live source are
// refused.
func TestSetTimeRange(t *testing.T) {
	at := func(k int) time.Time { return perfdata.FileTimeToTime(t0 + int64(k)*second) }
	cases := []struct {
		name       string
		begin, end time.Time
		want       []uint64 // Jobs of the samples read
	}{
		{"all", time.Time{}, time.Time{}, []uint64{10, 11, 12, 13}},
		{"edges included", at(1), at(2), []uint64{11, 12}},
		{"between samples", at(1).Add(time.Millisecond), at(3).Add(-time.Millisecond), []uint64{12}},
		{"open end", at(2), time.Time{}, []uint64{12, 13}},
		{"after the end", at(9), time.Time{}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := OpenQuery(apiSource(t))
			jobs := mustAdd(t, q, `\Queue(a)\Jobs`)
			if err := q.SetTimeRange(c.begin, c.end); err != nil {
				t.Fatal(err)
			}
			var got []uint64
			for err := range q.Every(t.Context(), time.Second) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, jobs.Raw()[0].Raw.FirstValue)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("read %v, want %v", got, c.want)
			}
			if err := q.Collect(t.Context()); !errors.Is(err, io.EOF) {
				t.Errorf("Collect past the range: %v, want io.EOF", err)
			}
		})
	}
	q := OpenQuery(apiSource(t))
	if err := q.SetTimeRange(at(2), at(1)); err == nil {
		t.Error("end before begin: no error")
	}
	live := OpenQuery(&countedLive{m: *apiSource(t)})
	if err := live.SetTimeRange(at(0), at(1)); err == nil {
		t.Error("a live source: no error")
	}
}

// TestEveryLive: over a live source Every collects at once and then once
// an interval, and stops when its context is done (or when the source
// says it has ended, io.EOF).
func TestEveryLive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &countedLive{m: *apiSource(t)} // 4 samples, then io.EOF
		q := OpenQuery(src)
		if _, err := q.AddCounter(`\Queue(a)\Jobs`); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		start := time.Now()
		var at []time.Duration
		var errs int
		for err := range q.Every(ctx, 10*time.Second) {
			at = append(at, time.Since(start))
			if err != nil {
				errs++
			}
			if len(at) == 3 {
				cancel()
			}
		}
		want := []time.Duration{0, 10 * time.Second, 20 * time.Second}
		if !slices.Equal(at, want) {
			t.Errorf("collected at %v, want %v (cancelled after the third)", at, want)
		}
		if errs != 0 {
			t.Errorf("%d failed samples yielded, want 0", errs)
		}
		// To its end: the four samples, then io.EOF ends the loop.
		src2 := &countedLive{m: *apiSource(t)}
		q2 := OpenQuery(src2)
		if _, err := q2.AddCounter(`\Queue(a)\Jobs`); err != nil {
			t.Fatal(err)
		}
		n := 0
		for range q2.Every(t.Context(), time.Second) {
			n++
		}
		if n != 3 {
			t.Errorf("%d samples to the end, want 3 (the fourth was read by AddCounter's check)", n)
		}
	})
}
