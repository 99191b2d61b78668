package pla

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/internal/remotetest"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog/binlog"
	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/remote/apiserver"
	"github.com/perfcounters/perfcounters/state"
	"github.com/perfcounters/perfcounters/titles"
)

// servedAvailable is `\Memory\Available Bytes` of the fixture host
// (system/testdata/host) that remotetest serves.
const servedAvailable = 25012125696

// remoteComputers is a hosts file in memory: the computers tests serve,
// opened with remote.Open as perfc's openRemote does, counting the
// clients opened and closed.
type remoteComputers struct {
	mu             sync.Mutex
	hosts          map[string]*remote.HostConfig // by folded name
	opened, closed int
}

func newRemoteComputers() *remoteComputers {
	return &remoteComputers{hosts: map[string]*remote.HostConfig{}}
}

func (rc *remoteComputers) add(cfg *remote.HostConfig) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	cfg.Timeout = remote.Duration(10 * time.Second) // a loaded machine is no outage
	rc.hosts[strings.ToLower(cfg.Name)] = cfg
}

func (rc *remoteComputers) open(name string) (*Computer, error) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	cfg, ok := rc.hosts[strings.ToLower(name)]
	if !ok {
		return nil, fmt.Errorf("computer %s: not in the hosts file of the test", name)
	}
	c, err := remote.Open(cfg)
	if err != nil {
		return nil, err
	}
	rc.opened++
	return &Computer{Source: c, Timeout: c.Timeout(), Close: func() error {
		rc.mu.Lock()
		rc.closed++
		rc.mu.Unlock()
		return c.Close()
	}}, nil
}

func (rc *remoteComputers) counts() (opened, closed int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.opened, rc.closed
}

// serveFixture serves the fixture host's API at addr ("" any loopback
// port), with remotetest's token; the server is closed when the test
// ends.
func serveFixture(t *testing.T, addr string) *remotetest.Server {
	t.Helper()
	h := remotetest.FixtureHost(t)
	return remotetest.Serve(t, remotetest.Authenticated(remotetest.NewHandler(h, apiserver.Options{})), addr)
}

// freeAddr is a loopback address where nothing listens (now).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// remoteOptions are service options over the local fake source and the
// computers of rc; "fakehost" is this computer.
func remoteOptions(src pdh.Source, rc *remoteComputers) Options {
	opts := testOptions(src)
	opts.OpenComputer = rc.open
	opts.IsLocal = func(name string) bool { return strings.EqualFold(name, "FAKEHOST") }
	return opts
}

// waitFor polls cond until it holds; the test fails after a minute. It
// waits for what a collector does at its pace, never for a time.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// logValues reads a binary log with a query of paths: per sample, the
// formatted value of each path (status NoObject for a path neither the
// log's first nor its last sample has), and the machines of the sample's problems. nil
// when the log cannot be read yet.
func logValues(t *testing.T, path string, paths ...string) (vals [][]calc.Value, machines [][]string) {
	t.Helper()
	l, err := binlog.Open(path)
	if err != nil {
		return nil, nil
	}
	defer l.Close()
	if l.Len() == 0 {
		return nil, nil
	}
	q := pdh.OpenQuery(l)
	cs := make([]*pdh.Counter, len(paths))
	for i, p := range paths {
		// A computer that was down at the start has its blocks in the
		// log's later samples only.
		if cs[i], err = q.AddCounter(p); err != nil {
			if err := l.Seek(l.Len() - 1); err != nil {
				t.Fatal(err)
			}
			cs[i], _ = q.AddCounter(p)
			if err := l.Seek(0); err != nil {
				t.Fatal(err)
			}
		}
	}
	for {
		err := q.Collect(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: sample %d: %v", path, len(vals), err)
		}
		row := make([]calc.Value, len(cs))
		for i, c := range cs {
			row[i] = calc.Value{Status: calc.NoObject}
			if c != nil {
				row[i], _ = c.Formatted(calc.FmtDouble)
			}
		}
		vals = append(vals, row)
		var ms []string
		for _, p := range q.Problems() {
			if p.Object == 0 && p.Machine != "" {
				ms = append(ms, p.Machine)
			}
		}
		machines = append(machines, ms)
	}
	return vals, machines
}

// warnings is the set's warning log.
func warnings(dir, name string) string {
	b, _ := state.ReadRunFile(dir, name, state.WarningLogSuffix)
	return string(b)
}

// TestRemoteSetOutage: a set records a served computer (\\served\...)
// beside this one's counters, in a binary and a CSV log sharing one
// client; the served computer's server stops and starts again on the
// same address: the binary log has its gap marks (samples where its
// counters have no data and its problem names it) while this
// computer's counters go on, then its values again; the CSV log has
// blank cells for it then values; the warning log names the computer
// when it stops answering and when it answers again.
func TestRemoteSetOutage(t *testing.T) {
	srv := serveFixture(t, "")
	addr := srv.Srv.Listener.Addr().String()
	rc := newRemoteComputers()
	rc.add(srv.Config("served"))
	dir, root := stateDir(t), t.TempDir()
	svc := NewService(t.Context(), remoteOptions(newFakeSource(3), rc))
	const served, local = `\\served\Memory\Available Bytes`, `\Memory\Available Bytes`
	bin := newSet("fleet", root, served, local)
	csv := newSet("fleetcsv", root, local, served)
	csv.Collector.LogFileFormat = collectorset.CommaSeparated
	for _, s := range []*collectorset.Set{bin, csv} {
		if err := svc.Start(dir, s, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	binPath := filepath.Join(root, "fleet.plog")
	// have counts the samples where served has its value (answered) and
	// those where it has no data (gaps), this computer's counter valid
	// in each.
	have := func() (answered, gaps int, after bool) {
		vals, machines := logValues(t, binPath, served, local)
		for i, row := range vals {
			if !row[1].HasValue() {
				t.Fatalf("sample %d: this computer's counter %v", i, row[1])
			}
			switch {
			case row[0].HasValue():
				if row[0].Double != servedAvailable {
					t.Fatalf("sample %d: served's value %v, want %d", i, row[0].Double, servedAvailable)
				}
				answered++
				after = gaps > 0
			case row[0].Status == calc.NoData:
				if !slices.Contains(machines[i], "served") {
					t.Fatalf("sample %d: no data for served, but no problem names it: %q", i, machines[i])
				}
				gaps++
			default:
				t.Fatalf("sample %d: served's status %v", i, row[0].Status)
			}
		}
		return answered, gaps, after
	}
	waitFor(t, "two samples of served", func() bool { n, _, _ := have(); return n >= 2 })

	srv.Srv.Close()
	waitFor(t, "a sample without served", func() bool { _, g, _ := have(); return g >= 1 })
	waitFor(t, "the warning about served", func() bool {
		return strings.Contains(warnings(dir, "fleet"), "computer served does not answer (")
	})

	// csvCells is what served's CSV column held, row after row, runs of
	// one kind as one ("value", "blank").
	csvPath := filepath.Join(root, "fleetcsv.csv")
	csvCells := func() []string {
		f, err := os.Open(csvPath)
		if err != nil {
			return nil
		}
		defer f.Close()
		lg, err := pdhcsv.Read(f, nil)
		if err != nil {
			return nil // a row being written
		}
		if want := []string{`\\FAKEHOST\Memory\Available Bytes`, served}; !slices.Equal(lg.Columns, want) {
			t.Fatalf("CSV columns %q, want %q", lg.Columns, want)
		}
		var cells []string
		for _, row := range lg.Rows {
			c := "blank"
			if row.Values[1].OK {
				c = "value"
			}
			if len(cells) == 0 || cells[len(cells)-1] != c {
				cells = append(cells, c)
			}
		}
		return cells
	}
	serveFixture(t, addr) // the same computer back, on the same address
	waitFor(t, "served's values again", func() bool { _, _, after := have(); return after })
	waitFor(t, "served's values again in the CSV log", func() bool {
		return slices.Equal(csvCells(), []string{"value", "blank", "value"})
	})
	waitFor(t, "the warning that served answers", func() bool {
		return strings.Contains(warnings(dir, "fleet"), "computer served answers again")
	})
	svc.StopAll("test done")
	svc.Wait()

	if opened, closed := rc.counts(); opened != 1 || closed != 1 {
		t.Errorf("served opened %d times and closed %d times, want once each (shared by both sets)", opened, closed)
	}
	for _, name := range []string{"fleet", "fleetcsv"} {
		// Once per reason: the first failure of a closed connection may
		// read otherwise than the refusals after it.
		w := warnings(dir, name)
		if n := strings.Count(w, "computer served does not answer"); n < 1 || n > 3 {
			t.Errorf("%s: the outage warned %d times, want once per reason:\n%s", name, n, w)
		}
		if n := strings.Count(w, "computer served answers again"); n != 1 {
			t.Errorf("%s: %d warnings that served answers again, want 1:\n%s", name, n, w)
		}
	}
}

// smallTitles are the names of the fake source's objects only: this
// computer does not know \Processor, which a served computer has.
func smallTitles(t *testing.T) *titles.DB {
	t.Helper()
	db := titles.New()
	for _, e := range titles.English().Entries() {
		if slices.Contains([]uint32{4, 24, 26, 230, 6, 180}, e.Index) {
			if err := db.SetAt(e.Index, e.Name, e.Help); err != nil {
				t.Fatal(err)
			}
		}
	}
	return db
}

// servedAndDownService is a Service over a fake source that knows two
// computers: "served", a fixture server, and "down", an address nothing
// listens on.
func servedAndDownService(t *testing.T) *Service {
	srv := serveFixture(t, "")
	rc := newRemoteComputers()
	rc.add(srv.Config("served"))
	rc.add(&remote.HostConfig{Name: "down", URL: "https://" + freeAddr(t), TLS: remote.TLSConfig{CAFile: srv.CAFile}})
	return NewService(t.Context(), remoteOptions(newFakeSource(2), rc))
}

// TestRemoteSetStartsWithComputerDown: a set of three computers starts
// while one of them is down: this computer's counters and the served
// one's (named by -s) have values, the down one's have no data, and the
// warning names the down computer.
func TestRemoteSetStartsWithComputerDown(t *testing.T) {
	dir, root := stateDir(t), t.TempDir()
	svc := servedAndDownService(t)
	defer svc.Wait()
	defer svc.StopAll("test done")
	const (
		fromS     = `\Memory\Available Bytes`           // -s served
		local     = `\\FAKEHOST\Memory\Available Bytes` // this computer by name
		downMem   = `\\down\Memory\Available Bytes`     // resolved by this computer's names
		servedMem = `\\served\Memory\Available Bytes`   // -s makes fromS this
		localMem  = `\Memory\Available Bytes`           // local, as the log names it
	)
	set := newSet("three", root, fromS, local, downMem)
	set.Server = `\\served`
	if err := svc.Start(dir, set, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if w := warnings(dir, "three"); !strings.Contains(w, "computer down does not answer (") || strings.Contains(w, "served") {
		t.Errorf("warnings: want one of down, none of served:\n%s", w)
	}
	binPath := filepath.Join(root, "three.plog")
	l, err := binlog.Open(binPath)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{servedMem, localMem, downMem}; !slices.Equal(l.Counters(), want) {
		t.Errorf("the log's counters %q, want %q", l.Counters(), want)
	}
	l.Close()
	waitFor(t, "two samples", func() bool { vals, _ := logValues(t, binPath, servedMem); return len(vals) >= 2 })
	vals, machines := logValues(t, binPath, servedMem, localMem, downMem)
	for i, row := range vals {
		if row[0].Double != servedAvailable || !row[1].HasValue() || row[2].Status != calc.NoObject {
			t.Errorf("sample %d: %v: want served's value, this computer's, none of down", i, row)
		}
		if !slices.Equal(machines[i], []string{"down"}) {
			t.Errorf("sample %d: machines of problems %q, want down", i, machines[i])
		}
	}
}

// TestRemoteSetEndsNamingSilentComputers: a set that took its samples
// (-sc) while one of its computers never answered says so when it ends,
// not only that it collected its samples (issue 43, also).
func TestRemoteSetEndsNamingSilentComputers(t *testing.T) {
	dir, root := stateDir(t), t.TempDir()
	svc := servedAndDownService(t)
	defer svc.Wait()
	defer svc.StopAll("test done")
	set := newSet("two", root, `\\served\Memory\Available Bytes`, `\\down\Memory\Available Bytes`)
	set.Collector.MaxSamples = 2
	if err := svc.Start(dir, set, time.Time{}); err != nil {
		t.Fatal(err)
	}
	var reason string
	waitFor(t, "the set's end", func() bool {
		rec, err := ReadRecord(dir, "two")
		if err != nil || rec == nil || rec.Stopped.IsZero() {
			return false
		}
		reason = rec.Reason
		return true
	})
	if want := "it collected its 2 samples (-sc), with no value of down, which never answered"; reason != want {
		t.Errorf("reason %q, want %q", reason, want)
	}
}

// TestRemoteSetAddsCountersLater: a counter of a computer that is down
// when its set starts, of an object this computer does not know, is
// added when that computer answers; one whose object this computer
// knows has no data until then.
func TestRemoteSetAddsCountersLater(t *testing.T) {
	srv := serveFixture(t, "")
	lateAddr := freeAddr(t)
	rc := newRemoteComputers()
	late := srv.Config("late")
	late.URL = "https://" + lateAddr
	rc.add(late)
	src := newFakeSource(2)
	src.db = smallTitles(t)
	dir, root := stateDir(t), t.TempDir()
	svc := NewService(t.Context(), remoteOptions(src, rc))
	defer svc.Wait()
	defer svc.StopAll("test done")
	const (
		local    = `\Memory\Available Bytes`
		lateProc = `\\late\Processor(_Total)\% Processor Time` // pending
		lateMem  = `\\late\Memory\Available Bytes`             // resolved, no data until late answers
	)
	if err := svc.Start(dir, newSet("later", root, local, lateProc, lateMem), time.Time{}); err != nil {
		t.Fatal(err)
	}
	w := warnings(dir, "later")
	for _, want := range []string{"computer late does not answer (", lateProc + ": computer late does not answer (",
		"this computer does not know the object: the counter is added when late answers"} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings lack %q:\n%s", want, w)
		}
	}
	binPath := filepath.Join(root, "later.plog")
	vals, _ := logValues(t, binPath, local, lateMem)
	if len(vals) == 0 || !vals[0][0].HasValue() || vals[0][1].HasValue() {
		t.Fatalf("first sample %v: want this computer's value, none of late", vals)
	}

	serveFixture(t, lateAddr)
	waitFor(t, "late's counters", func() bool {
		vals, _ := logValues(t, binPath, lateMem)
		return len(vals) > 0 && vals[len(vals)-1][0].Double == servedAvailable
	})
	waitFor(t, "late's Processor in the log", func() bool {
		l, err := binlog.Open(binPath)
		if err != nil {
			return false
		}
		defer l.Close()
		if err := l.Seek(l.Len() - 1); err != nil {
			return false
		}
		smp, err := l.Sample(context.Background(), nil)
		if err != nil {
			return false
		}
		for _, b := range smp.Blocks {
			if _, ok := b.Object(238); ok && strings.EqualFold(b.Header().SystemName, "late") {
				return true
			}
		}
		return false
	})
	// Read back now that late has blocks in the log: no data before.
	vals, machines := logValues(t, binPath, lateMem)
	if vals[0][0].Status != calc.NoData || !slices.Contains(machines[0], "late") {
		t.Errorf("first sample: late's %v, problems of %q: want no data, a gap mark of late", vals[0][0], machines[0])
	}
	w = warnings(dir, "later")
	for _, want := range []string{"computer late answers: counter " + lateProc + " added", "computer late answers again"} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings lack %q:\n%s", want, w)
		}
	}
}

// TestRemoteSetNoCounter: a set none of whose counters can be added does
// not start, and says why, naming the computer.
func TestRemoteSetNoCounter(t *testing.T) {
	srv := serveFixture(t, "")
	for _, tc := range []struct {
		name     string
		counters []string
		open     bool // OpenComputer set
		want     string
	}{
		{"not in the hosts file", []string{`\\nothere\Memory\Available Bytes`}, true,
			`none of its 1 counters could be added (\\nothere\Memory\Available Bytes: computer nothere: not in the hosts file`},
		{"no remote computers", []string{`\\served\Memory\Available Bytes`}, false,
			`none of its 1 counters exists on this computer (\\served\Memory\Available Bytes: no machine "served"`},
		{"down, object unknown here", []string{`\\down\Processor(_Total)\% Processor Time`}, true,
			`none of its 1 counters could be added (\\down\Processor(_Total)\% Processor Time: computer down does not answer (`},
		{"served lacks the counter", []string{`\\served\Memory\No Such Counter`}, true, `No Such Counter`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := newRemoteComputers()
			rc.add(srv.Config("served"))
			rc.add(&remote.HostConfig{Name: "down", URL: "https://" + freeAddr(t), TLS: remote.TLSConfig{CAFile: srv.CAFile}})
			src := newFakeSource(1)
			src.db = smallTitles(t)
			opts := remoteOptions(src, rc)
			if !tc.open {
				opts.OpenComputer = nil
			}
			svc := NewService(t.Context(), opts)
			dir := stateDir(t)
			err := svc.Start(dir, newSet("none", t.TempDir(), tc.counters...), time.Time{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("start: %v, want an error with %q", err, tc.want)
			}
			if opened, closed := rc.counts(); opened != closed {
				t.Errorf("%d computers opened, %d closed", opened, closed)
			}
			if svc.Running(dir, "none") {
				t.Error("the set runs")
			}
		})
	}
}

// TestRoute: each counter path goes to its computer: the set's -s for
// paths without one, this computer's names dropped, other computers
// listed once, as first written.
func TestRoute(t *testing.T) {
	svc := NewService(t.Context(), Options{IsLocal: func(n string) bool { return strings.EqualFold(n, "me") }})
	for _, tc := range []struct {
		name      string
		server    string
		counters  []string
		paths     []string
		computers []string
	}{
		{"this computer", "", []string{`\Memory\Available Bytes`, `\\localhost\Memory\Cache Bytes`, `\\ME\Process(*)\ID Process`},
			[]string{`\Memory\Available Bytes`, `\Memory\Cache Bytes`, `\Process(*)\ID Process`}, nil},
		{"-s this computer", `\\me`, []string{`\Memory\Available Bytes`}, []string{`\Memory\Available Bytes`}, nil},
		{"-s another", "web1", []string{`\Memory\Available Bytes`, `\\db7\Memory\Available Bytes`, `\\.\Memory\Cache Bytes`},
			[]string{`\\web1\Memory\Available Bytes`, `\\db7\Memory\Available Bytes`, `\Memory\Cache Bytes`}, []string{"web1", "db7"}},
		{"once each", `\\WEB1`, []string{`\\web1\Memory\Available Bytes`, `\Memory\Cache Bytes`},
			[]string{`\\web1\Memory\Available Bytes`, `\\WEB1\Memory\Cache Bytes`}, []string{"web1"}},
		{"unparsable left alone", "web1", []string{`Memory`}, []string{`Memory`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := newSet("r", "/logs", tc.counters...)
			set.Server = tc.server
			paths, computers := svc.route(set, set.Collector.Counters)
			if !slices.Equal(paths, tc.paths) || !slices.Equal(computers, tc.computers) {
				t.Errorf("route = %q, %q; want %q, %q", paths, computers, tc.paths, tc.computers)
			}
		})
	}
}

// TestRemoteOnlySet: a set of another computer's counters only (-s)
// costs this computer no collection once started, and its samples carry
// this computer's time, not the other computer's clock (the fixture's
// is stopped in 2026-11-24).
func TestRemoteOnlySet(t *testing.T) {
	srv := serveFixture(t, "")
	rc := newRemoteComputers()
	rc.add(srv.Config("served"))
	src := newFakeSource(1)
	dir, root := stateDir(t), t.TempDir()
	svc := NewService(t.Context(), remoteOptions(src, rc))
	set := newSet("only", root, `\Memory\Available Bytes`)
	set.Server = "served"
	start := time.Now()
	if err := svc.Start(dir, set, time.Time{}); err != nil {
		t.Fatal(err)
	}
	taken := src.taken()
	binPath := filepath.Join(root, "only.plog")
	waitFor(t, "three samples", func() bool { n, _ := logLen(t, binPath); return n >= 3 })
	svc.StopAll("test done")
	svc.Wait()
	if n := src.taken(); n != taken {
		t.Errorf("this computer collected %d times after the start, want none", n-taken)
	}
	_, times := logLen(t, binPath)
	for i, at := range times {
		if at.Before(start.Add(-time.Second)) || at.After(time.Now().Add(time.Second)) {
			t.Errorf("sample %d at %v: not this computer's time (started %v)", i, at, start)
		}
	}
	vals, _ := logValues(t, binPath, `\\served\Memory\Available Bytes`)
	for i, row := range vals {
		if row[0].Double != servedAvailable {
			t.Errorf("sample %d: %v, want served's value", i, row[0])
		}
	}
}
