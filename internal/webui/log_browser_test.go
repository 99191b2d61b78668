package webui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/perfcounters/perfcounters/internal/logview"
	"github.com/perfcounters/perfcounters/internal/remotetest"
	"github.com/perfcounters/perfcounters/internal/webui"
	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/perflog/blg"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/remote/apiserver"
)

// sampleLog is SampleLog.blg of the conformance set (PROVENANCE.md
// beside it).
var sampleLog = filepath.Join("..", "logview", "testdata", "SampleLog.blg")

// serveLogs mounts the page, the API over the fixture host and the log
// API (/v1/logs) as perfc perfmon does, every request with the monitor
// role.
func serveLogs(t *testing.T) (*httptest.Server, *logview.Handler) {
	return serveLogsWith(t, logview.Options{})
}

// serveLogsWith is serveLogs with the log API's options.
func serveLogsWith(t *testing.T, opts logview.Options) (*httptest.Server, *logview.Handler) {
	t.Helper()
	api := remotetest.NewHandler(fixtureHost(t), apiserver.Options{ComputerName: "FIXTURE", MinInterval: 100 * time.Millisecond})
	opts.TempDir = t.TempDir()
	logs := logview.New(opts)
	t.Cleanup(func() { logs.Close() })
	mux := http.NewServeMux()
	role := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r.WithContext(remote.WithRole(r.Context(), remote.RoleMonitor, "test")))
		})
	}
	mux.Handle(logview.Path, role(logs))
	mux.Handle(logview.Path+"/", role(logs))
	mux.Handle("/v1/", role(api))
	mux.Handle("/", webui.New())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, logs
}

// processorTimes computes Processor(_Total)\% Processor Time of every
// sample of the log here, from the raw values of its blocks and the
// formula of PERF_100NSEC_TIMER_INV, 100 * (1 - ΔN / ΔPerfTime100nSec),
// as the conformance README's worked example does; NaN at the first
// sample, which has no previous one.
func processorTimes(t *testing.T) []float64 {
	t.Helper()
	l, err := blg.Open(sampleLog)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	const processor, pctTime = 238, 6 // title indexes in the log's table
	var out []float64
	var prevN, prevT uint64
	for {
		smp, err := l.Sample(context.Background(), nil)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var n, ts uint64
		found := false
		for _, b := range smp.Blocks {
			o, ok := b.Object(processor)
			if !ok {
				continue
			}
			ts = uint64(b.Header().PerfTime100nSec)
			var def perfdata.CounterDef
			for i := range o.NumCounters() {
				if d := o.Counter(i); d.NameIndex == pctTime && !d.Type.IsBase() {
					def = d
					break
				}
			}
			for it := o.Instances(); it.Next(); {
				if in := it.Instance(); in.Name() == "_Total" {
					n, found = in.Block().Value(def), true
				}
			}
		}
		if !found {
			t.Fatalf("sample %d: no Processor(_Total) in the log", len(out)+1)
		}
		v := math.NaN()
		if len(out) > 0 {
			v = 100 * (1 - float64(n-prevN)/float64(ts-prevT))
		}
		out = append(out, v)
		prevN, prevT = n, ts
	}
	return out
}

// pageFormat writes v as the page does (en-US: grouped thousands, three
// decimals, trailing zeros left out from 1000 up).
func pageFormat(v float64) string {
	s := strconv.FormatFloat(math.Round(v*1000)/1000, 'f', 3, 64)
	ip, fp, _ := strings.Cut(s, ".")
	if math.Abs(v) >= 1000 {
		fp = strings.TrimRight(fp, "0")
	}
	n, _ := strconv.ParseInt(ip, 10, 64)
	if fp == "" {
		return grouped(n)
	}
	return grouped(n) + "." + fp
}

// TestLogInBrowser opens SampleLog.blg through the page's "Open log…",
// adds counters of the log through Add Counters (every instance of the
// log listed), finds in the report the values of the conformance
// README's worked examples, selects a time range by dragging in the
// overview and checks the value bar against values computed here from
// the log's raw values, and switches every view of a log.
func TestLogInBrowser(t *testing.T) {
	ctx := browser(t)
	srv, _ := serveLogs(t)
	p := page{t, ctx}
	abs, err := filepath.Abs(sampleLog)
	if err != nil {
		t.Fatal(err)
	}
	want := processorTimes(t)
	if len(want) != 11 || math.Abs(want[1]-82.148113) > 5e-7 {
		t.Fatalf("computed %% Processor Time: %v, want 11 samples, the second 82.148113 (the worked example)", want)
	}

	p.do("open the page", chromedp.Navigate(srv.URL))
	p.wait("the host's name", `document.getElementById('host').textContent === '\\\\FIXTURE'`)
	p.wait("area views off while live", `document.getElementById('view-area').disabled && document.getElementById('view-stacked').disabled`)
	p.do("upload SampleLog.blg", chromedp.SetUploadFiles(chromedp.CSS(`#log-file`), []string{abs}))
	p.wait("the log open", `!document.getElementById('logbar').hidden && document.getElementById('log-name').textContent.startsWith('SampleLog.blg (BLG; 11 samples)')`)

	// Add Counters lists the log's objects and every instance of the log.
	p.click("#add")
	p.wait("the log's objects", `document.getElementById('ac-computer').textContent === 'ZACH-PC (log)' && [...document.querySelectorAll('#ac-objects option')].map(o => o.value).join() === 'LogicalDisk,Memory,Network Interface,PhysicalDisk,Process,Processor,System,TCPv4'`)
	p.choose("ac-objects", "Process")
	// 49 to 52 processes per sample; more over the whole log, duplicates
	// told apart by #n.
	p.wait("every process of the log", `(() => { const v = [...document.querySelectorAll('#ac-instances option')].map(o => o.value); return v.length >= 52 && v.includes('svchost#12') && v.includes('Idle') })()`)
	p.choose("ac-objects", "Processor")
	p.wait("Processor's instances", `[...document.querySelectorAll('#ac-instances option')].map(o => o.value).join() === '0,_Total'`)
	p.click("#ac-all")
	p.choose("ac-counters", "% Processor Time", "Interrupts/sec")
	p.click("#ac-add")
	p.wait("added", `document.getElementById('ac-status').textContent.startsWith('Added 2 ')`)
	p.click("#ac-close")
	evalJS[int](p, `perfmon.addPaths(['\\LogicalDisk(C:)\\% Free Space', '\\LogicalDisk(C:)\\% Disk Time', '\\Memory\\% Committed Bytes In Use', '\\System\\System Up Time', '\\LogicalDisk(C:)\\Avg. Disk sec/Transfer'])`)
	p.wait("the log's values", `perfmon.log().samples === 11 && !perfmon.log().loading && perfmon.series().length === 9`)
	p.wait("the log's computer in the legend", `[...document.querySelectorAll('#legend-rows tr')].every(tr => tr.cells[6].textContent === '\\\\ZACH-PC')`)

	// The report at the end of samples 1..2: the worked examples of
	// rates (sample 1 -> 2), then of sample 1 alone.
	p.click("#view-report")
	setRange := func(from, to int) {
		evalJS[bool](p, fmt.Sprintf(`(() => { const f = document.getElementById('from'), t = document.getElementById('to');
			f.value = %d; t.value = %d; t.dispatchEvent(new Event('change')); return true })()`, from, to))
		p.wait(fmt.Sprintf("samples %d..%d", from, to), fmt.Sprintf(`perfmon.log().from === %d && perfmon.log().to === %d`, from-1, to-1))
	}
	report := func(path string, want float64, printed int) {
		t.Helper()
		sel := `document.querySelector('#report td.value[data-path="' + CSS.escape(` + js(path) + `) + '"]')`
		p.wait("the report's "+path, sel+` !== null && `+sel+`.dataset.value !== ''`)
		got := evalJS[string](p, sel+`.dataset.value`)
		v, err := strconv.ParseFloat(got, 64)
		if err != nil || strconv.FormatFloat(v, 'f', printed, 64) != strconv.FormatFloat(want, 'f', printed, 64) {
			t.Errorf("report %s: %s, want %.*f (the worked example)", path, got, printed, want)
		}
		if text := evalJS[string](p, sel+`.textContent`); text != pageFormat(want) {
			t.Errorf("report %s shows %q, want %q", path, text, pageFormat(want))
		}
	}
	setRange(1, 2)
	// The range in the log's wall clock (its blocks' SystemTime, Eastern
	// daylight time), as relog writes its times.
	p.wait("the range's times", `document.getElementById('log-range').textContent.startsWith('2007-08-14 15:40:38 (')`)
	p.wait("the log's computer in the report", `document.querySelector('#report h3').textContent === '\\\\ZACH-PC'`)
	report(`\Processor(_Total)\% Processor Time`, 82.148113, 6)
	report(`\Processor(_Total)\Interrupts/sec`, 1228.377778, 6)
	report(`\LogicalDisk(C:)\% Disk Time`, 31.173144, 6)
	report(`\LogicalDisk(C:)\Avg. Disk sec/Transfer`, 0.008179256, 9)
	setRange(1, 1)
	report(`\LogicalDisk(C:)\% Free Space`, 75.188011, 6)
	report(`\Memory\% Committed Bytes In Use`, 37.764457, 6)
	report(`\System\System Up Time`, 2002.161, 3)
	p.wait("no rate at the log's first sample", `document.querySelector('#report td.value[data-path="\\\\Processor(_Total)\\\\Interrupts/sec"]').textContent === '—'`)
	p.click("#whole-log")
	p.wait("the whole log", `perfmon.log().from === 0 && perfmon.log().to === 10`)

	// Select samples 5..8 by dragging over the overview from halfway
	// between samples 4 and 5 to halfway between 8 and 9. (The report
	// hides the legend: the line view first.)
	p.click("#view-line")
	p.click(`button[aria-label="Select \\Processor(_Total)\\% Processor Time"]`)
	p.wait("the overview drawn", `document.querySelector('#overview .u-over') !== null`)
	box := evalJS[[]float64](p, `(() => { const r = document.querySelector('#overview .u-over').getBoundingClientRect(); return [r.left, r.top, r.width, r.height] })()`)
	times := evalJS[[]float64](p, `perfmon.log().times`)
	xAt := func(k float64) float64 {
		t0, t1 := times[0], times[len(times)-1]
		tk := times[int(k)] + (k-math.Floor(k))*(times[int(k)+1]-times[int(k)])
		return box[0] + (tk-t0)/(t1-t0)*box[2]
	}
	y := box[1] + box[3]/2
	x0, x1 := xAt(3.5), xAt(7.5)
	p.do("drag over the overview",
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x0, y),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, x0, y, chromedp.ButtonLeft, chromedp.ClickCount(1)),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, (x0+x1)/2, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x1, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, x1, y, chromedp.ButtonLeft, chromedp.ClickCount(1)))
	p.wait("samples 5..8 selected", `perfmon.log().from === 4 && perfmon.log().to === 7 && document.getElementById('from').value === '5' && document.getElementById('to').value === '8'`)
	rng := want[4:8]
	lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
	for _, v := range rng {
		lo, hi, sum = min(lo, v), max(hi, v), sum+v
	}
	for id, v := range map[string]float64{"vb-last": rng[3], "vb-average": sum / 4, "vb-minimum": lo, "vb-maximum": hi} {
		p.wait(id+" = "+pageFormat(v), `document.getElementById(`+js(id)+`).textContent === `+js(pageFormat(v)))
	}
	if got := p.text("vb-duration"); got != "3:00" {
		t.Errorf("duration of samples 5..8: %q, want 3:00 (60 s apart)", got)
	}
	if got := evalJS[int](p, `perfmon.log().data[0].length`); got != 4 {
		t.Errorf("the line view of samples 5..8 draws %d points, want 4", got)
	}
	p.screenshot("log")

	// Zoom out, in, and back to the whole log.
	// Samples 5..8 span 3 intervals: out to 6 about the middle (4..10),
	// in to 3 about its middle (6..9), then 1 (7..8) and 0 (one sample),
	// where zooming in stops.
	p.click("#zoom-out")
	p.wait("zoomed out to samples 4..10", `perfmon.log().from === 3 && perfmon.log().to === 9`)
	p.click("#zoom-in")
	p.wait("zoomed in to samples 6..9", `perfmon.log().from === 5 && perfmon.log().to === 8`)
	p.click("#zoom-in")
	p.wait("zoomed in to samples 7..8", `perfmon.log().from === 6 && perfmon.log().to === 7`)
	p.click("#zoom-in")
	p.click("#zoom-in")
	p.wait("zoomed in to one sample", `perfmon.log().from === perfmon.log().to && perfmon.log().from >= 6 && perfmon.log().from <= 7`)
	p.click("#zoom-out")
	p.wait("zoomed out from one sample", `perfmon.log().to - perfmon.log().from === 1`)
	p.click("#whole-log")
	p.wait("the whole log", `perfmon.log().from === 0 && perfmon.log().to === 10`)

	// Every view of a log. Stacked: each series is the running sum of the
	// shown ones (hide all but the two Processor time series first).
	// (Each click redraws the legend: look the boxes up again each time.)
	evalJS[bool](p, `(() => { for (let i = 0; i < 20; i++) {
		const c = [...document.querySelectorAll('#legend input[type=checkbox]')].find(c => c.checked !== c.getAttribute('aria-label').endsWith('% Processor Time'));
		if (!c) break; c.click(); } return true })()`)
	p.wait("two series shown", `perfmon.series().filter(s => s.show).length === 2`)
	for _, v := range []string{"line", "area", "stacked"} {
		p.click("#view-" + v)
		p.wait(v+" view", `!document.getElementById('logchart').hidden && perfmon.log().view === `+js(v)+` && document.getElementById('line').hidden`)
	}
	if got := evalJS[string](p, `(() => { const d = perfmon.log().data; const s = perfmon.series().filter(s => s.show);
		for (let i = 1; i < d[0].length; i++) { const want = s[0].values[i] + s[1].values[i];
			if (Math.abs(d[2][i] - want) > 1e-9 || Math.abs(d[1][i] - s[0].values[i]) > 1e-9) return i + ': ' + d[1][i] + ', ' + d[2][i] + ' want ' + want; }
		return 'ok' })()`); got != "ok" {
		t.Errorf("stacked area at sample %s", got)
	}
	p.click("#view-histogram")
	p.wait("the histogram of the log", `!document.getElementById('histogram').hidden && document.getElementById('logchart').hidden && document.querySelectorAll('#histogram .bar').length === 2`)
	p.click("#view-report")
	p.wait("the report of the log", `!document.getElementById('report').hidden && document.querySelectorAll('#report td.value').length === 2`)
	// Current: the value at the range's end, the log's last sample.
	if got := evalJS[string](p, `document.querySelector('#report td.value[data-path="\\\\Processor(_Total)\\\\% Processor Time"]').textContent`); got != pageFormat(want[10]) {
		t.Errorf("report of the whole log: %% Processor Time of _Total %s, want %s (sample 11)", got, pageFormat(want[10]))
	}
	p.screenshot("report-log")

	// Screenshots of the area views, with four percentages shown.
	if *updateScreenshots {
		shown := []string{`\Processor(_Total)\% Processor Time`, `\LogicalDisk(C:)\% Disk Time`, `\Memory\% Committed Bytes In Use`, `\LogicalDisk(C:)\% Free Space`}
		list, _ := json.Marshal(shown)
		evalJS[bool](p, `(() => { const keep = `+string(list)+`; for (let i = 0; i < 20; i++) {
			const c = [...document.querySelectorAll('#legend input[type=checkbox]')].find(c => c.checked !== keep.includes(c.getAttribute('aria-label').slice(5)));
			if (!c) break; c.click(); } return true })()`)
		p.wait("four series shown", `perfmon.series().filter(s => s.show).length === 4`)
		p.click("#view-area")
		p.wait("area view", `perfmon.log().view === 'area'`)
		p.screenshot("area")
		// The sums go past 100: a vertical scale to 300.
		evalJS[bool](p, `(() => { const e = document.getElementById('ymax'); e.value = '300'; e.dispatchEvent(new Event('change')); return true })()`)
		p.click("#view-stacked")
		p.wait("stacked view", `perfmon.log().view === 'stacked'`)
		p.screenshot("stacked-area")
	}

	// Close the log: live again, area views off.
	p.click("#view-area")
	p.click("#close-log")
	p.wait("live again", `document.getElementById('logbar').hidden && document.getElementById('view-area').disabled && perfmon.series().length === 0 && !document.getElementById('line').hidden`)
}

// TestLogUploadRefused: a file that is not a log is refused, and the
// status line says which file and why.
func TestLogUploadRefused(t *testing.T) {
	ctx := browser(t)
	srv, _ := serveLogs(t)
	p := page{t, ctx}
	bad := filepath.Join(t.TempDir(), "notes.blg")
	if err := writeFile(bad, "not a log\n"); err != nil {
		t.Fatal(err)
	}
	p.do("open the page", chromedp.Navigate(srv.URL))
	p.wait("the host's name", `document.getElementById('host').textContent === '\\\\FIXTURE'`)
	p.do("upload notes.blg", chromedp.SetUploadFiles(chromedp.CSS(`#log-file`), []string{bad}))
	p.wait("the refusal", `document.getElementById('status').classList.contains('error') && document.getElementById('status').textContent.startsWith('notes.blg: not opened, notes.blg')`)
	if !evalJS[bool](p, `document.getElementById('logbar').hidden`) {
		t.Error("a refused log left the page in log mode")
	}
}

func writeFile(name, text string) error { return os.WriteFile(name, []byte(text), 0o600) }

// TestLogFromServer: a log the server was given (perfc perfmon LOG)
// opens with the page, in log mode; its counters come from the log.
func TestLogFromServer(t *testing.T) {
	ctx := browser(t)
	srv, logs := serveLogs(t)
	if _, err := logs.Open(context.Background(), []string{sampleLog}); err != nil {
		t.Fatal(err)
	}
	p := page{t, ctx}
	p.do("open the page", chromedp.Navigate(srv.URL))
	p.wait("the log open", `!document.getElementById('logbar').hidden && document.getElementById('log-name').textContent.includes('SampleLog.blg')`)
	evalJS[int](p, `perfmon.addPaths(['\\Process(*)\\% Processor Time'])`)
	// Every process of the log, also those of some samples only.
	p.wait("every process of the log", `perfmon.log().samples === 11 && perfmon.series().length >= 52 && perfmon.series().some(s => s.path.endsWith('\\Process(svchost#12)\\% Processor Time'))`)
	if n := evalJS[int](p, `perfmon.samples()`); n != 11 {
		t.Errorf("the whole log in range: %d samples, want 11", n)
	}
}

// TestLogPastLimit: when the server answers at most 20 values (of 22 for
// two counters over the log's 11 samples), the page holds the later
// samples it can (6..11) and says so; a range beyond them reads them.
func TestLogPastLimit(t *testing.T) {
	ctx := browser(t)
	srv, logs := serveLogsWith(t, logview.Options{MaxValues: 20})
	if _, err := logs.Open(context.Background(), []string{sampleLog}); err != nil {
		t.Fatal(err)
	}
	want := processorTimes(t)
	p := page{t, ctx}
	p.do("open the page", chromedp.Navigate(srv.URL))
	p.wait("the log open", `!document.getElementById('logbar').hidden && perfmon.log().samples === 11`)
	evalJS[int](p, `perfmon.addPaths(['\\Processor(*)\\% Processor Time'])`)
	p.wait("samples 6..11 held", `(() => { const l = perfmon.log(); return !l.loading && l.win.join() === '5,10' && l.from === 5 && l.to === 10 })()`)
	p.wait("the reason on the status line", `document.getElementById('status').textContent.includes('values of samples 6 to 11 only') && document.getElementById('status').textContent.includes('more than 20 values')`)
	p.click(`button[aria-label="Select \\Processor(_Total)\\% Processor Time"]`)
	p.wait("the value bar of samples 6..11", `document.getElementById('vb-last').textContent === `+js(pageFormat(want[10])))
	// Samples 2..4: beyond what the page holds, read at once.
	evalJS[bool](p, `(() => { const f = document.getElementById('from'), t = document.getElementById('to');
		f.value = 2; t.value = 4; t.dispatchEvent(new Event('change')); return true })()`)
	p.wait("samples 2..4 held", `(() => { const l = perfmon.log(); return !l.loading && l.win.join() === '1,3' && l.from === 1 && l.to === 3 })()`)
	lo := min(want[1], want[2], want[3])
	p.wait("the minimum of samples 2..4", `document.getElementById('vb-minimum').textContent === `+js(pageFormat(lo)))
}
