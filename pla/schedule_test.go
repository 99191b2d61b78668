package pla

import (
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/state"
)

func TestNextWindow(t *testing.T) {
	loc := time.FixedZone("test", 3600)
	at := func(d, h, m int) time.Time { return time.Date(2026, 11, d, h, m, 0, 0, loc) } // 11/23/2026 is a Monday
	date := func(d int) time.Time { return time.Date(2026, 11, d, 0, 0, 0, 0, loc) }
	once := collectorset.Schedule{StartDate: date(23), EndDate: date(23), StartTime: 8 * time.Hour, Days: collectorset.Day(time.Monday)}
	daily := collectorset.Schedule{StartDate: date(23), StartTime: 8 * time.Hour, Days: collectorset.Everyday}
	dailyUntil := daily
	dailyUntil.EndDate = date(25)
	weekdays := collectorset.Schedule{StartDate: date(23), StartTime: 22 * time.Hour,
		Days: collectorset.Day(time.Friday) | collectorset.Day(time.Monday)}
	for _, tc := range []struct {
		name     string
		sc       []collectorset.Schedule
		duration uint32
		t        time.Time
		want     Window
		ok       bool
	}{
		{"no schedule", nil, 0, at(23, 9, 0), Window{}, false},
		{"once, before", []collectorset.Schedule{once}, 3600, at(23, 7, 0), Window{at(23, 8, 0), at(23, 9, 0)}, true},
		{"once, during", []collectorset.Schedule{once}, 3600, at(23, 8, 30), Window{at(23, 8, 0), at(23, 9, 0)}, true},
		{"once, at its end", []collectorset.Schedule{once}, 3600, at(23, 9, 0), Window{}, false},
		{"once, no duration, long after", []collectorset.Schedule{once}, 0, at(30, 9, 0), Window{Start: at(23, 8, 0)}, true},
		{"daily, after today's", []collectorset.Schedule{daily}, 1800, at(24, 9, 0), Window{at(25, 8, 0), at(25, 8, 30)}, true},
		{"daily, in today's", []collectorset.Schedule{daily}, 1800, at(24, 8, 10), Window{at(24, 8, 0), at(24, 8, 30)}, true},
		{"daily until the 25th, after", []collectorset.Schedule{dailyUntil}, 1800, at(25, 9, 0), Window{}, false},
		{"daily until the 25th, on the 25th", []collectorset.Schedule{dailyUntil}, 1800, at(25, 7, 0), Window{at(25, 8, 0), at(25, 8, 30)}, true},
		{"over midnight, after midnight", []collectorset.Schedule{daily}, 20 * 3600, at(25, 2, 0), Window{at(24, 8, 0), at(25, 4, 0)}, true},
		{"Monday and Friday, on Tuesday", []collectorset.Schedule{weekdays}, 3600, at(24, 12, 0), Window{at(27, 22, 0), at(27, 23, 0)}, true},
		{"Monday and Friday, Monday night", []collectorset.Schedule{weekdays}, 3600, at(23, 22, 15), Window{at(23, 22, 0), at(23, 23, 0)}, true},
		{"before the start date", []collectorset.Schedule{daily}, 60, at(20, 12, 0), Window{at(23, 8, 0), at(23, 8, 1)}, true},
		{"two schedules, the earlier first", []collectorset.Schedule{weekdays, once}, 60, at(23, 0, 0), Window{at(23, 8, 0), at(23, 8, 1)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := collectorset.New("s", "/tmp")
			s.Schedules, s.Duration = tc.sc, tc.duration
			got, ok := NextWindow(s, tc.t)
			if ok != tc.ok || !got.Start.Equal(tc.want.Start) || !got.Stop.Equal(tc.want.Stop) {
				t.Errorf("NextWindow at %v = %v..%v, %v; want %v..%v, %v", tc.t, got.Start, got.Stop, ok, tc.want.Start, tc.want.Stop, tc.ok)
			}
		})
	}
	s := collectorset.New("s", "/tmp")
	s.Schedules, s.SchedulesEnabled = []collectorset.Schedule{daily}, false
	if _, ok := NextWindow(s, at(23, 8, 0)); ok {
		t.Error("a set with its schedules disabled has a window")
	}
}

// TestServeSchedule runs the service on the fake clock: a set scheduled
// daily from 10 s after now for 5 s records 5 samples in each of two
// days' windows and none between; a set marked to run at boot starts at
// once.
func TestServeSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir, root := stateDir(t), t.TempDir()
		begin := time.Now().Add(10 * time.Second)
		set := newSet("daily", root, `\Memory\Available Bytes`)
		set.Collector.LogAppend = true
		set.Schedules = []collectorset.Schedule{{StartDate: collectorset.DateOf(begin), StartTime: collectorset.TimeOfDay(begin), Days: collectorset.Everyday}}
		set.Duration = 5
		boot := newSet("boot", root, `\Memory\Available Bytes`)
		boot.RunAtBoot = true
		for _, s := range []*collectorset.Set{set, boot} {
			if err := createSet(dir, s); err != nil {
				t.Fatal(err)
			}
		}
		src := newFakeSource(1)
		ctx, cancel := contextWithCancel(t)
		done := make(chan error)
		go func() {
			done <- Serve(ctx, ServeOptions{Options: testOptions(src), Dirs: []string{dir}, Poll: time.Hour})
		}()
		synctest.Wait()
		if rec, _ := ReadRecord(dir, "boot"); !(Proc{}).Alive(rec) {
			t.Errorf("the run-at-boot set is not running: %+v", rec)
		}
		if rec, _ := ReadRecord(dir, "daily"); rec != nil {
			t.Errorf("the scheduled set runs before its time: %+v", rec)
		}
		time.Sleep(9 * time.Second)
		synctest.Wait()
		if rec, _ := ReadRecord(dir, "daily"); rec != nil {
			t.Errorf("the scheduled set runs before its time: %+v", rec)
		}
		time.Sleep(2 * time.Second) // 11 s: in the window
		synctest.Wait()
		if rec, _ := ReadRecord(dir, "daily"); !(Proc{}).Alive(rec) {
			t.Errorf("the scheduled set does not run in its window: %+v", rec)
		}
		time.Sleep(10 * time.Second) // 21 s: after the window
		synctest.Wait()
		rec, _ := ReadRecord(dir, "daily")
		if rec == nil || rec.Stopped.IsZero() {
			t.Errorf("the scheduled set still runs after its window: %+v", rec)
		}
		n1, _ := logLen(t, filepath.Join(root, "daily.plog"))
		time.Sleep(24 * time.Hour)
		synctest.Wait()
		n2, _ := logLen(t, filepath.Join(root, "daily.plog"))
		if n1 != 5 || n2 != 10 {
			t.Errorf("%d samples after the first window, %d after the second; want 5, then 10", n1, n2)
		}
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
}

// TestServeStopRequest: logman stop of a set the service runs asks the
// service with a request file and waits until the set's log is closed;
// the service does not start it again at its next poll.
func TestServeStopRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir, root := stateDir(t), t.TempDir()
		set := newSet("svc", root, `\Memory\Available Bytes`)
		set.RunAtBoot, set.Collector.LogAppend = true, true
		if err := createSet(dir, set); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := contextWithCancel(t)
		done := make(chan error)
		go func() { done <- Serve(ctx, ServeOptions{Options: testOptions(newFakeSource(1)), Dirs: []string{dir}}) }()
		synctest.Wait()
		r := Runner{}
		if running, detail := r.Status(dir, set); !running {
			t.Fatalf("the run-at-boot set does not run: %s", detail)
		}
		if err := r.Stop(t.Context(), dir, set); err != nil {
			t.Fatal(err)
		}
		rec, err := ReadRecord(dir, set.Name)
		if err != nil || rec == nil || rec.Stopped.IsZero() || rec.Reason != "stopped by logman stop" {
			t.Errorf("after Stop the record is %+v (%v)", rec, err)
		}
		n, _ := logLen(t, filepath.Join(root, "svc.plog"))
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if running, _ := r.Status(dir, set); running {
			t.Error("the service started the stopped set again")
		}
		if k, _ := logLen(t, filepath.Join(root, "svc.plog")); k != n {
			t.Errorf("the log grew from %d to %d samples after stop", n, k)
		}
		if err := r.Stop(t.Context(), dir, set); err != ErrNotRunning {
			t.Errorf("stopping it again: %v, want ErrNotRunning", err)
		}
		cancel()
		<-done

		// Deleting the definition of a set the service runs stops it.
		ctx, cancel = contextWithCancel(t)
		go func() { done <- Serve(ctx, ServeOptions{Options: testOptions(newFakeSource(1)), Dirs: []string{dir}}) }()
		synctest.Wait()
		if running, detail := r.Status(dir, set); !running {
			t.Fatalf("the run-at-boot set does not run when the service starts again: %s", detail)
		}
		if _, err := state.DeleteCollectorSet(dir, set.Name); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		rec, err = ReadRecord(dir, set.Name)
		if err != nil || rec == nil || rec.Stopped.IsZero() || rec.Reason != "its definition was deleted" {
			t.Errorf("after the definition was deleted the record is %+v (%v)", rec, err)
		}
		cancel()
		<-done
	})
}
