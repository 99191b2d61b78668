package webui_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/remotetest"
	"github.com/perfcounters/perfcounters/internal/webui"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/remote/apiserver"
)

var updateScreenshots = flag.Bool("update-screenshots", false, "write a screenshot of each view to docs/screenshots")

// chromium returns the browser the tests drive: $PERFC_CHROMIUM or
// Debian's /usr/bin/chromium. Without one the test is skipped, except in
// CI (CI=true), where .ci/run installs it and its absence is a failure.
func chromium(t *testing.T) string {
	t.Helper()
	p := os.Getenv("PERFC_CHROMIUM")
	if p == "" {
		p = "/usr/bin/chromium"
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no browser for the page's tests: %v (.ci/run installs Debian's chromium)", err)
		}
		t.Skipf("no browser for the page's tests (%v): apt-get install chromium, or set PERFC_CHROMIUM", err)
	}
	return p
}

// fixtureRoot is the fixture /proc and /sys of package system.
var fixtureRoot = filepath.Join("..", "..", "system", "testdata", "host")

// fixtureHost is the real host code over the fixture tree, with the real
// clock: the values stay those of the files, the sample times move.
func fixtureHost(t *testing.T) *host.Host {
	t.Helper()
	h, err := host.New(host.Options{ProcRoot: filepath.Join(fixtureRoot, "proc"), SysRoot: filepath.Join(fixtureRoot, "sys"), MaxKeptFiles: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// polls counts the page's polls (POST /v1/formatted) and keeps the
// paths of the latest.
type polls struct {
	n    atomic.Int64
	last atomic.Pointer[[]string]
}

func (p *polls) Load() int64 { return p.n.Load() }

// serve mounts the page at / and the API at /v1/ as perfc perfmon does,
// every request with the monitor role; formatted counts the page's
// polls.
func serve(t *testing.T, b *host.Host, computer string) (srv *httptest.Server, formatted *polls) {
	t.Helper()
	api := remotetest.NewHandler(b, apiserver.Options{ComputerName: computer, MinInterval: 100 * time.Millisecond})
	formatted = new(polls)
	mux := http.NewServeMux()
	mux.Handle("/v1/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == remote.PathFormatted && r.Method == http.MethodPost {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			var req struct{ Paths []string }
			json.Unmarshal(body, &req)
			formatted.last.Store(&req.Paths)
			formatted.n.Add(1)
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		api.ServeHTTP(w, r.WithContext(remote.WithRole(r.Context(), remote.RoleMonitor, "test")))
	}))
	mux.Handle("/", webui.New())
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, formatted
}

// browser starts a headless chromium for the test.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium(t)), chromedp.WindowSize(1280, 1000))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelA() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx
}

// page drives one page: each helper fails the test with what it was
// doing.
type page struct {
	t   *testing.T
	ctx context.Context
}

func (p page) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, actions...); err != nil {
		p.t.Fatalf("%s: %v", what, err)
	}
}

// wait polls a JavaScript condition until it holds, for at most 20 s.
func (p page) wait(what, cond string) {
	p.t.Helper()
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[any](cond, chromedp.WithPollingTimeout(20*time.Second), chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		state, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.getElementById('status').textContent`))
		p.t.Fatalf("waiting for %s (%s): %v; the page's status line: %q", what, cond, err, state)
	}
}

func evalJS[T any](p page, expr string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		p.t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// click clicks the element sel selects once it is visible, waiting 20 s
// at most.
func (p page) click(sel string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		p.t.Fatalf("click %s: %v", sel, err)
	}
}

// defaultPath is the counter the page opens with, as perfmon does.
const defaultPath = `\Processor(_Total)\% Processor Time`

// openWithoutDefault opens the live page at url and takes off the
// counter it opens with (defaultPath) with its legend's remove button, as
// a user would, for tests of other counters.
func (p page) openWithoutDefault(url string) {
	p.t.Helper()
	p.do("open the page", chromedp.Navigate(url))
	p.wait("the page ready with its default counter", `perfmon.ready() && perfmon.requests().join() === `+js(defaultPath))
	p.click(`button[aria-label=` + js("Remove "+defaultPath) + `]`)
	p.wait("no counters", `perfmon.requests().length === 0 && perfmon.series().length === 0`)
}

// choose selects the options of a list box whose values are given and
// tells the page, as a click in the list does.
func (p page) choose(id string, values ...string) {
	p.t.Helper()
	v, _ := json.Marshal(values)
	evalJS[bool](p, `(() => { const s = document.getElementById(`+js(id)+`); const want = `+string(v)+`;
		for (const o of s.options) o.selected = want.includes(o.value);
		s.dispatchEvent(new Event('change', {bubbles: true})); return true })()`)
}

func (p page) text(id string) string {
	p.t.Helper()
	return evalJS[string](p, `document.getElementById(`+js(id)+`).textContent`)
}

func (p page) screenshot(name string) {
	p.t.Helper()
	if !*updateScreenshots {
		return
	}
	b, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		p.t.Fatalf("screenshot %s: %v", name, err)
	}
	dir := filepath.Join("..", "..", "docs", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), b, 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// js writes s as a JavaScript string literal.
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// grouped writes n as the page does (en-US, grouped thousands).
func grouped(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// fixtureMemAvailable is MemAvailable of the fixture's meminfo in bytes,
// read from the file here.
func fixtureMemAvailable(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureRoot, "proc", "meminfo"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^MemAvailable:\s+(\d+) kB$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("no MemAvailable in the fixture's meminfo")
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return kb * 1024
}

// fixtureCPUs counts the fixture's processors: the cpuN lines of
// /proc/stat.
func fixtureCPUs(t *testing.T) int {
	t.Helper()
	f, err := os.Open(filepath.Join(fixtureRoot, "proc", "stat"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	re := regexp.MustCompile(`^cpu\d+ `)
	for sc.Scan() {
		if re.MatchString(sc.Text()) {
			n++
		}
	}
	return n
}

// TestPageInBrowser drives the page in chromium over the real host code on
// the fixture tree: adds counters through the Add Counters dialog (one
// with all instances), reads an explain text, sees the lines get points
// and the value bar and report show the fixture's value, switches every
// view, freezes and steps, clears, removes a counter of a wildcard.
func TestPageInBrowser(t *testing.T) {
	ctx := browser(t)
	h := fixtureHost(t)
	srv, formatted := serve(t, h, "FIXTURE")
	p := page{t, ctx}
	memPath := `\Memory\Available Bytes`
	wantMem := grouped(fixtureMemAvailable(t))
	ncpu := fixtureCPUs(t)
	idx, ok := h.Titles().Index("Available Bytes")
	if !ok {
		t.Fatal(`the host's titles have no "Available Bytes"`)
	}
	help := h.Titles().Help(idx + 1)
	if len(help) < 20 {
		t.Fatalf("explain text of Available Bytes: %q", help)
	}

	p.openWithoutDefault(srv.URL)
	p.wait("the host's name", `document.getElementById('host').textContent === '\\\\FIXTURE'`)
	evalJS[bool](p, `window.violations = []; document.addEventListener('securitypolicyviolation', e => violations.push(e.violatedDirective + ' ' + e.blockedURI)); true`)
	defer func() {
		if v := evalJS[[]string](p, `violations`); len(v) > 0 {
			t.Errorf("the page broke its Content-Security-Policy: %q", v)
		}
	}()

	// Add Counters: Memory\Available Bytes, with its explain text. The
	// dialog opens from the keyboard and Escape closes it.
	p.do("focus Add counters", chromedp.Focus(chromedp.CSS("#add")))
	p.do("press Enter", chromedp.KeyEvent("\r"))
	p.wait("the dialog open, focus in its objects", `document.getElementById('addcounters').open && document.activeElement.id === 'ac-objects'`)
	p.do("press Escape", chromedp.KeyEvent("\x1b"))
	p.wait("the dialog closed by Escape", `!document.getElementById('addcounters').open`)
	p.click("#add")
	p.wait("the dialog's objects", `document.getElementById('addcounters').open && document.querySelectorAll('#ac-objects option').length > 3`)
	p.choose("ac-objects", "Memory")
	p.wait("Memory's counters", `[...document.querySelectorAll('#ac-counters option')].some(o => o.value === 'Available Bytes')`)
	p.choose("ac-counters", "Available Bytes")
	p.wait("the explain text of Available Bytes", `document.getElementById('ac-description').textContent.includes(`+js(help)+`) && !document.getElementById('ac-description').hidden`)
	p.click("#ac-explain")
	p.wait("the explain text hidden", `document.getElementById('ac-description').hidden`)
	p.click("#ac-explain")
	p.click("#ac-add")
	p.wait("the counter added", `document.getElementById('ac-status').textContent.startsWith('Added 1 ')`)

	// Processor: the instance search, then all instances (a wildcard).
	p.choose("ac-objects", "Processor")
	p.wait("Processor's instances", `[...document.querySelectorAll('#ac-instances option')].some(o => o.value === '_Total')`)
	p.do("search the instances", chromedp.SendKeys(chromedp.CSS("#ac-search"), "_tot"))
	p.wait("one instance found", `(() => { const o = document.querySelectorAll('#ac-instances option'); return o.length === 1 && o[0].value === '_Total' })()`)
	p.click("#ac-all")
	p.choose("ac-counters", "% Processor Time")
	p.click("#ac-add")
	p.wait("the wildcard added", `document.getElementById('ac-status').textContent.includes('\\Processor(*)\\% Processor Time')`)
	p.click("#ac-close")
	p.wait("the dialog closed", `!document.getElementById('addcounters').open`)

	gotReq := evalJS[[]string](p, `perfmon.requests()`)
	if want := []string{memPath, `\Processor(*)\% Processor Time`}; strings.Join(gotReq, "|") != strings.Join(want, "|") {
		t.Fatalf("paths the page asks for: %q, want %q (a wildcard stays a wildcard)", gotReq, want)
	}

	// The line gets points; every processor and _Total came from the
	// wildcard.
	p.wait("3 samples of Available Bytes", `perfmon.series().some(s => s.path === `+js(memPath)+` && s.values.filter(v => v !== null).length >= 3)`)
	// One request per interval asks for every path of the page.
	if got := *formatted.last.Load(); strings.Join(got, "|") != strings.Join(gotReq, "|") {
		t.Errorf("the latest poll asked for %q, want every path of the page %q", got, gotReq)
	}
	p.wait("a series per processor and _Total", `perfmon.series().length === `+strconv.Itoa(ncpu+2))
	p.wait("the graph drawn", `!document.getElementById('line').hidden && document.querySelector('#line canvas') !== null`)

	// Value bar of the selected counter (the first added is selected).
	p.click(`button[aria-label="Select \\Memory\\Available Bytes"]`)
	// The arrow keys move the selection in the legend.
	p.do("arrow down in the legend", chromedp.KeyEvent(kb.ArrowDown))
	p.wait("the next counter selected", `document.querySelector('#legend tr.selected')?.dataset.path === '\\Processor(0)\\% Processor Time' && document.activeElement.classList.contains('name')`)
	p.do("arrow up in the legend", chromedp.KeyEvent(kb.ArrowUp))
	p.wait("Available Bytes selected again", `document.querySelector('#legend tr.selected')?.dataset.path === `+js(memPath))
	for _, id := range []string{"vb-last", "vb-average", "vb-minimum", "vb-maximum"} {
		p.wait(id+" = "+wantMem, `document.getElementById(`+js(id)+`).textContent === `+js(wantMem))
	}
	if got := p.text("vb-duration"); got != "1:40" {
		t.Errorf("duration: %q, want 1:40 (100 points of 1 s)", got)
	}

	// Histogram: one bar per counter shown.
	p.click("#view-histogram")
	p.wait("the histogram's bars", `!document.getElementById('histogram').hidden && document.getElementById('line').hidden && document.querySelectorAll('#histogram .bar').length === `+strconv.Itoa(ncpu+2))
	p.wait("Available Bytes' bar", `[...document.querySelectorAll('#histogram .bar')].some(b => b.getAttribute('aria-label') === `+js(memPath+": "+wantMem)+`)`)

	// Report: object, instance, counter with the current value.
	p.click("#view-report")
	p.wait("the report's Available Bytes", `[...document.querySelectorAll('#report td.value')].some(td => td.dataset.path === `+js(memPath)+` && td.textContent === `+js(wantMem)+`)`)
	p.wait("the report's Processor instances", `[...document.querySelectorAll('#report th.instance')].some(th => th.textContent === '_Total')`)
	p.click("#view-line")
	p.wait("the line view back", `!document.getElementById('line').hidden && document.getElementById('report').hidden`)

	// Freeze: no poll until "Update data", which adds one sample.
	p.click("#freeze")
	p.wait("frozen and no poll in flight", `perfmon.frozen() && !perfmon.busy() && !document.getElementById('step').disabled`)
	n0 := evalJS[int](p, `perfmon.samples()`)
	r0 := formatted.Load()
	steps := int64(0)
	for got := n0; got == n0; {
		if steps == 5 {
			t.Fatalf("5 updates while frozen added no sample (%d samples)", n0)
		}
		p.click("#step")
		steps++
		p.wait("the update answered", `!perfmon.busy()`)
		got = evalJS[int](p, `perfmon.samples()`)
		if got > n0+1 {
			t.Fatalf("one update while frozen: %d samples, then %d", n0, got)
		}
	}
	// An unfrozen page polls every second: in 2.5 s it would have polled
	// twice. This waits for an absence, which no condition can signal.
	time.Sleep(2500 * time.Millisecond)
	if got := formatted.Load(); got != r0+steps {
		t.Errorf("frozen page: %d polls of /v1/formatted after %d updates, want %d", got-r0, steps, steps)
	}
	if got := evalJS[int](p, `perfmon.samples()`); got != n0+1 {
		t.Errorf("frozen page: %d samples after one update, want %d", got, n0+1)
	}
	p.click("#clear")
	p.wait("cleared", `perfmon.samples() === 0 && document.getElementById('vb-last').textContent === '—'`)
	p.click("#freeze")
	p.wait("samples again after unfreezing", `perfmon.samples() >= 2 && !perfmon.frozen()`)
	// Wrapping after a clear: the samples fill slots 0, 1, ... in order.
	if placed := evalJS[string](p, `(() => { const n = perfmon.samples(); const d = perfmon.line();
		const i = perfmon.series().findIndex(s => s.path === `+js(memPath)+`);
		return d[i + 1].every((v, slot) => (slot < n) === (v !== null)) ? 'ok' : n + ' samples: ' + JSON.stringify(d[i + 1]) })()`); placed != "ok" {
		t.Errorf("wrapped graph after a clear: Available Bytes at the wrong slots: %s", placed)
	}

	// DataPointCount: 2..1000; the graph keeps that many samples.
	setInput := func(id, v string) {
		evalJS[bool](p, `(() => { const e = document.getElementById(`+js(id)+`); e.value = `+js(v)+`; e.dispatchEvent(new Event('change')); return true })()`)
	}
	setInput("points", "5000")
	if got := evalJS[string](p, `document.getElementById('points').value`); got != "1000" {
		t.Errorf("points 5000: the field shows %s, want 1000 (the most)", got)
	}
	setInput("points", "1")
	p.wait("2 points kept", `document.getElementById('points').value === '2' && perfmon.samples() === 2`)
	setInput("points", "100")
	// Wrap (perfmon's default): 100 slots, sample k at slot k mod 100.
	// Scroll: x is the samples' times.
	p.wait("a wrapped graph of 100 slots", `(() => { const d = perfmon.line(); const n = perfmon.samples();
		return d[0].length === 100 && d[0][99] === 99 && d.length === perfmon.series().length + 1 && n >= 1 })()`)
	p.click("#scroll")
	p.wait("a scrolling graph of the samples' times", `(() => { const d = perfmon.line(); return d[0].length === perfmon.samples() && d[0][0] > 1.7e9 })()`)
	p.click("#scroll")

	// A path the host cannot resolve costs only its own entry, and says
	// why on the status line.
	evalJS[int](p, `perfmon.addPaths(['\\Procesor(*)\\% Processor Time'])`)
	p.wait("the reason on the status line", `document.getElementById('status').classList.contains('error') && document.getElementById('status').textContent.includes('Procesor')`)
	n2 := evalJS[int](p, `perfmon.samples()`)
	p.wait("samples go on", `perfmon.samples() >= `+strconv.Itoa(min(n2+1, 100)))

	// Removing one counter of a wildcard keeps the wildcard, without it.
	p.click(`button[aria-label="Remove \\Processor(0)\\% Processor Time"]`)
	p.wait("Processor(0) removed", `perfmon.series().length === `+strconv.Itoa(ncpu+1)+` && !perfmon.series().some(s => s.path === '\\Processor(0)\\% Processor Time')`)
	n1 := evalJS[int](p, `perfmon.samples()`)
	p.wait("two more samples", `perfmon.samples() >= `+strconv.Itoa(min(n1+2, 100)))
	if got := evalJS[int](p, `perfmon.series().length`); got != ncpu+1 {
		t.Errorf("after removing Processor(0): %d counters, want %d (it must not come back)", got, ncpu+1)
	}
}

// TestScreenshots writes docs/screenshots/*.png (go test
// ./internal/webui -run Screenshots -update-screenshots): each view over
// the live machine, after 30 samples, in the light theme and the line
// graph in the dark one as well.
func TestScreenshots(t *testing.T) {
	if !*updateScreenshots {
		t.Skip("writes the screenshots only with -update-screenshots")
	}
	ctx := browser(t)
	h, err := host.New(host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv, _ := serve(t, h, "")
	p := page{t, ctx}
	p.do("open the page", chromedp.Navigate(srv.URL))
	p.wait("the default counter", `perfmon.ready() && perfmon.requests().length === 1`)
	evalJS[int](p, `perfmon.addPaths(['\\Processor(*)\\% Processor Time', '\\Memory\\Available Bytes', '\\Memory\\% Committed Bytes In Use'])`)
	p.wait("15 samples", `perfmon.samples() >= 15`)
	p.wait("30 samples", `perfmon.samples() >= 30`)
	p.click(`button[aria-label="Select \\Memory\\Available Bytes"]`)
	p.click("#fit")
	p.click(`button[aria-label="Select \\Processor(_Total)\\% Processor Time"]`)
	p.wait("the graph drawn", `document.querySelector('#line canvas') !== null`)
	p.screenshot("line")
	setDark(p, true)
	p.screenshot("line-dark")
	setDark(p, false)
	p.click("#view-histogram")
	p.wait("the histogram's bars", `document.querySelectorAll('#histogram .bar').length > 2`)
	p.screenshot("histogram")
	p.click("#view-report")
	p.wait("the report", `document.querySelectorAll('#report td.value').length > 2`)
	p.screenshot("report")
	p.click("#view-line")
	p.click("#add")
	p.wait("the dialog's objects", `document.querySelectorAll('#ac-objects option').length > 3`)
	p.choose("ac-objects", "Process")
	p.wait("Process's instances", `document.querySelectorAll('#ac-instances option').length > 1`)
	p.choose("ac-counters", "% Processor Time")
	p.screenshot("add-counters")
}

// setDark switches the page's prefers-color-scheme and waits for its
// background to follow.
func setDark(p page, dark bool) {
	p.t.Helper()
	v, bg := "light", "rgb(255, 255, 255)"
	if dark {
		v, bg = "dark", "rgb(22, 22, 26)"
	}
	p.do("prefers-color-scheme "+v, func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: v}}})
		return chromedp.Void{}, err
	})
	p.wait(v+" background", `getComputedStyle(document.body).backgroundColor === `+js(bg))
}

// TestModel runs model.js's functions in the browser against values
// written here by hand.
func TestModel(t *testing.T) {
	ctx := browser(t)
	srv, _ := serve(t, fixtureHost(t), "FIXTURE")
	p := page{t, ctx}
	p.do("open the page", chromedp.Navigate(srv.URL))
	tests := []struct{ expr, want string }{
		{`m.parsePath('\\Processor(_Total)\\% Processor Time')`, `{"machine":"","object":"Processor","instance":"_Total","counter":"% Processor Time"}`},
		{`m.parsePath('\\\\DB7\\Memory\\Available Bytes')`, `{"machine":"DB7","object":"Memory","instance":"","counter":"Available Bytes"}`},
		{`m.parsePath('\\Thread(bash/0#1)\\% Processor Time')`, `{"machine":"","object":"Thread","instance":"bash/0#1","counter":"% Processor Time"}`},
		{`m.parsePath('\\LogicalDisk(/home)\\% Free Space')`, `{"machine":"","object":"LogicalDisk","instance":"/home","counter":"% Free Space"}`},
		{`m.parsePath('garbage')`, `{"machine":"","object":"","instance":"","counter":"garbage"}`},
		{`m.parsePath('\\\\nohost')`, `{"machine":"nohost","object":"","instance":"","counter":""}`},
		{`m.makePath('Processor', '*', '% Processor Time')`, `"\\Processor(*)\\% Processor Time"`},
		{`m.makePath('Memory', '', 'Available Bytes')`, `"\\Memory\\Available Bytes"`},
		{`m.stats([null, 2, 4, null, 9])`, `{"n":3,"last":9,"average":5,"minimum":2,"maximum":9}`},
		{`m.stats([null, null])`, `{"n":0,"last":null,"average":null,"minimum":null,"maximum":null}`},
		{`m.stats([])`, `{"n":0,"last":null,"average":null,"minimum":null,"maximum":null}`},
		{`m.scaleToFit(25012125696, 100)`, `-9`}, // 25.0 fits, 250 does not
		{`m.scaleToFit(0.5, 100)`, `2`},          // 50
		{`m.scaleToFit(100, 100)`, `0`},          // exactly the top
		{`m.scaleToFit(1e-12, 100)`, `8`},        // the largest scale
		{`m.scaleToFit(1e12, 100)`, `-9`},        // the smallest, still above
		{`m.scaleToFit(0, 100)`, `0`},            // nothing to fit
		{`m.scaleLabel(-3)`, `"0.001"`},
		{`m.scaleLabel(0)`, `"1"`},
		{`m.scaleLabel(8)`, `"100000000"`},
		{`m.formatValue(25012125696)`, `"25,012,125,696"`},
		{`m.formatValue(12.5)`, `"12.500"`},
		{`m.formatValue(null)`, `"—"`},
		{`m.formatDuration(100)`, `"1:40"`},
		{`m.formatDuration(3725)`, `"1:02:05"`},
		{`m.clampInt('0', 2, 1000, 100)`, `2`},
		{`m.clampInt('5000', 2, 1000, 100)`, `1000`},
		{`m.clampInt('abc', 2, 1000, 100)`, `100`},
		{`m.clampInt('', 1, 86400, 1)`, `1`},
		{`m.clampInt('2.6', 1, 86400, 1)`, `3`},
		{`m.COLORS.length`, `16`},
		{`m.SCALES.join()`, `"-9,-8,-7,-6,-5,-4,-3,-2,-1,0,1,2,3,4,5,6,7,8"`},
		// Axes: the time labels' forms by step and span (1772361738.5 is
		// 2026-03-01 10:42:18.5 UTC), the vertical scale's ten steps.
		{`m.timeLabel(1772361738.5, 0.5, 7)`, `"10:42:18.5"`},
		{`m.timeLabel(1772361738.5, 0.05, 1)`, `"10:42:18.50"`},
		{`m.timeLabel(1772361738.5, 0.002, 0.1)`, `"10:42:18.500"`},
		{`m.timeLabel(1772361738.5, 1, 7)`, `"10:42:18"`},
		{`m.timeLabel(1772361738.5, 30, 600)`, `"10:42:18"`},
		{`m.timeLabel(1772361738.5, 300, 3600)`, `"10:42"`},
		{`m.timeLabel(1772361738.5, 3600, 172800)`, `"2026-03-01\n10:42"`},
		{`m.timeLabel(1772361738.5, 86400, 864000)`, `"2026-03-01"`},
		{`m.yTicks(0, 100)`, `[0,10,20,30,40,50,60,70,80,90,100]`},
		{`m.yTicks(0, 1)`, `[0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1]`},
		{`m.yTicks(-1, 1)`, `[-1,-0.8,-0.6,-0.4,-0.2,0,0.2,0.4,0.6,0.8,1]`},
		{`m.yTicks(0, 250000)`, `[0,25000,50000,75000,100000,125000,150000,175000,200000,225000,250000]`},
		{`m.tickLabel(25000)`, `"25,000"`},
		{`m.tickLabel(0.3)`, `"0.3"`},
		{`m.tickLabel(-0.8)`, `"-0.8"`},
		{`m.tickLabel(999999999)`, `"999,999,999"`},
		{`m.pdhTime(1479908790.874)`, `"11/23/2016 13:46:30.874"`},
		{`m.pdhTime(0)`, `"01/01/1970 00:00:00.000"`},
		{`m.exportText(',', [0, 1.5], ['\\\\h\\A\\b', '\\\\h\\C("q")\\d'], [[1, null], [2.5, 3]])`,
			`"\"(PDH-CSV 4.0) (Coordinated Universal Time)(0)\",\"\\\\h\\A\\b\",\"\\\\h\\C(\"\"q\"\")\\d\"\r\n` +
				`\"01/01/1970 00:00:00.000\",\"1\",\"2.5\"\r\n\"01/01/1970 00:00:01.500\",\" \",\"3\"\r\n"`},
		{`m.exportText('\t', [], ['\\\\h\\A\\b'], [[]])`, `"\"(PDH-TSV 4.0) (Coordinated Universal Time)(0)\"\t\"\\\\h\\A\\b\"\r\n"`},
		// Settings: defaults, a round trip through a link (a path with
		// characters beyond ASCII), and the field named for each refusal.
		{`m.parseSettings('{}')`, `{"view":"line","interval":1,"points":100,"ymin":0,"ymax":100,"reportValue":"current","scroll":false,"frozen":false,"legend":true,"valueBar":true,"highlight":false,"counters":[]}`},
		{`m.decodeLink('#' + m.encodeLink({DisplayType: 3, UpdateInterval: 5, DataPointCount: 2, MinimumScale: -1, MaximumScale: 999999999, ReportValueType: 4, ChartScroll: true, ManualUpdate: true, ShowLegend: false, ShowValueBar: true, Highlight: true, Counters: [{Path: '\\Tâche(ü)\\x', Color: '#A0b1C2', ScaleFactor: -9, Visible: false}, {Path: '\\P(*)\\y', Show: true}]}))`,
			`{"view":"report","interval":5,"points":2,"ymin":-1,"ymax":999999999,"reportValue":"maximum","scroll":true,"frozen":true,"legend":false,"valueBar":true,"highlight":true,"counters":[{"path":"\\Tâche(ü)\\x","color":"#a0b1c2","scale":-9,"show":false},{"path":"\\P(*)\\y","color":null,"scale":null,"show":true}]}`},
		{`m.decodeLink('#other=1')`, `null`},
		{`m.parseSettings('{"ReportValueType":0}').reportValue`, `"current"`},
		{`m.parseSettings('{"DisplayType":4}').view`, `"area"`},
		{`m.parseSettings('{"DisplayType":5}').view`, `"stacked"`},
		{`m.settingsOf({view: 'stacked', counters: []}).DisplayType`, `5`},
		// A counter at its default scale (null) has no ScaleFactor.
		{`m.settingsOf({view: 'line', counters: [{path: '\\A\\b', color: null, scale: null, show: true}, {path: '\\A\\c', color: null, scale: -2, show: true}]}).Counters`,
			`[{"Path":"\\A\\b","Visible":true},{"Path":"\\A\\c","ScaleFactor":-2,"Visible":true}]`},
	}
	refused := []struct{ text, field string }{
		{`not json`, "settings"},
		{`[]`, "settings"},
		{`{"DisplayType":6}`, "DisplayType"},
		{`{"DisplayType":"1"}`, "DisplayType"},
		{`{"UpdateInterval":0}`, "UpdateInterval"},
		{`{"UpdateInterval":1.5}`, "UpdateInterval"},
		{`{"DataPointCount":1}`, "DataPointCount"},
		{`{"DataPointCount":1001}`, "DataPointCount"},
		{`{"MaximumScale":1e10}`, "MaximumScale"},
		{`{"MinimumScale":"0"}`, "MinimumScale"},
		{`{"MinimumScale":100,"MaximumScale":100}`, "MaximumScale"},
		{`{"ReportValueType":5}`, "ReportValueType"},
		{`{"ChartScroll":1}`, "ChartScroll"},
		{`{"ManualUpdate":"yes"}`, "ManualUpdate"},
		{`{"ShowLegend":null}`, "ShowLegend"},
		{`{"ShowValueBar":0}`, "ShowValueBar"},
		{`{"Highlight":"on"}`, "Highlight"},
		{`{"Counters":{}}`, "Counters"},
		{`{"Counters":[null]}`, "Counters[0]"},
		{`{"Counters":[{"Path":5}]}`, "Counters[0].Path"},
		{`{"Counters":[{"Path":"Memory"}]}`, "Counters[0].Path"},
		{`{"Counters":[{"Path":"\\a\\b"},{"Path":"\\A\\B"}]}`, "Counters[1].Path"},
		{`{"Counters":[{"Path":"\\a\\` + strings.Repeat("x", 2048) + `"}]}`, "Counters[0].Path"},
		{`{"Counters":[{"Path":"\\a\\b","Color":"red"}]}`, "Counters[0].Color"},
		{`{"Counters":[{"Path":"\\a\\b","Color":"#12345"}]}`, "Counters[0].Color"},
		{`{"Counters":[{"Path":"\\a\\b","ScaleFactor":9}]}`, "Counters[0].ScaleFactor"},
		{`{"Counters":[{"Path":"\\a\\b","ScaleFactor":-10}]}`, "Counters[0].ScaleFactor"},
		{`{"Counters":[{"Path":"\\a\\b","Visible":0}]}`, "Counters[0].Visible"},
		{`{"Counters":[` + strings.Repeat(`{"Path":"\\a\\b"},`, 1000) + `{"Path":"\\a\\c"}]}`, "Counters"},
	}
	for _, r := range refused {
		tests = append(tests, struct{ expr, want string }{
			`(() => { try { m.parseSettings(` + js(r.text) + `); return 'accepted' } catch (e) { return e instanceof m.SettingsError ? e.field : 'threw ' + e } })()`,
			js(r.field),
		})
	}
	tests = append(tests, struct{ expr, want string }{`(() => { try { m.decodeLink('#settings=@@') } catch (e) { return e.field } })()`, `"link"`})
	tests = append(tests, struct{ expr, want string }{`(() => { try { m.decodeLink('#settings=_w') } catch (e) { return e.field } })()`, `"link"`})
	for _, tt := range tests {
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`import('/model.js').then(m => JSON.stringify(`+tt.expr+`))`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Errorf("%s: %v", tt.expr, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s = %s, want %s", tt.expr, got, tt.want)
		}
	}
}
