package webui_test

// The page as a Windows administrator expects Performance Monitor
// (issue 33): the counter it opens with, time labels on the graphs'
// axes, the histogram over the plot's width with the line graph's
// ticks, the legend and the report in panes of their own, the default
// scale through a link, and the title of a log's computer.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the browser's zone in these tests, for Go's side as well

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// testZone is the browser's local zone in these tests: half an hour off
// a whole hour from UTC, so a label in UTC or in the host's zone differs.
const testZone = "Asia/Kolkata"

// setZone makes the page's local time zone tz.
func setZone(p page, tz string) {
	p.t.Helper()
	p.do("time zone "+tz, func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, t, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: tz})
		return chromedp.Void{}, err
	})
}

// axisLabels are the labels an axis of the page drew last, with their
// ticks and the seconds between ticks (perfmon.axes(), perfmon.log().axes).
type axisLabels struct {
	X    []string
	XAt  []float64
	Step float64
	Y    []string
}

// wantTimeLabel is the label of a time axis at instant at (in the zone the
// page shows), written here from the rule the page follows: HH:MM:SS.f
// (.ff, .fff as the ticks need) for ticks under a second apart,
// HH:MM:SS under a minute, HH:MM under a day, the date alone for ticks
// days apart, and the date above the time on an axis of a day or more.
func wantTimeLabel(at time.Time, step, span float64) string {
	var layout string
	switch {
	case step >= 86400:
		return at.Format("2006-01-02")
	case step < 0.01-1e-9:
		layout = "15:04:05.000"
	case step < 0.1-1e-9:
		layout = "15:04:05.00"
	case step < 1:
		layout = "15:04:05.0"
	case step < 60:
		layout = "15:04:05"
	default:
		layout = "15:04"
	}
	if span >= 86400 {
		return at.Format("2006-01-02") + "\n" + at.Format(layout)
	}
	return at.Format(layout)
}

// instant is seconds since the epoch as a time, to the millisecond.
func instant(s float64) time.Time { return time.UnixMilli(int64(math.Round(s * 1000))) }

// TestDefaultCounterInBrowser: the page opens with \Processor(_Total)\%
// Processor Time plotted, as perfmon does; the live graph's x axis
// carries the samples' local times (wrapping: the time of the sample at
// each tick's slot; scrolling: the ticks' times) and its y axis ticks
// every tenth of the scale. A user who removes the counter does not get
// it back on reloading the tab; a new tab has it again; a link's
// settings win over it.
func TestDefaultCounterInBrowser(t *testing.T) {
	ctx := browser(t)
	srv, _ := serve(t, fixtureHost(t), "FIXTURE")
	p := page{t, ctx}
	setZone(p, testZone)
	loc, err := time.LoadLocation(testZone)
	if err != nil {
		t.Fatal(err)
	}

	p.do("open the page", chromedp.Navigate(srv.URL))
	plotted := `(() => { const i = perfmon.series().findIndex(s => s.path === ` + js(defaultPath) + `);
		return i >= 0 && perfmon.line()[i + 1].some(v => v !== null) && document.querySelector('#line canvas') !== null })()`
	p.wait("the default counter plotted", `perfmon.ready() && perfmon.requests().join() === `+js(defaultPath)+` && `+plotted)
	p.wait("its legend row", `document.querySelector('#legend tr[data-path="' + CSS.escape(`+js(defaultPath)+`) + '"]') !== null`)

	// Wrapping over 10 points from a cleared graph: slot k holds sample
	// k of the page's times (perfmon.total() says where the first is).
	setInput(p, "points", "10")
	p.click("#clear")
	p.wait("three labelled ticks", `perfmon.samples() >= 3 && perfmon.axes().x.filter(l => l !== '').length >= 3`)
	var live struct {
		Axes  axisLabels
		Times []float64
		Total int
	}
	if err := json.Unmarshal([]byte(evalJS[string](p, `JSON.stringify({axes: perfmon.axes(), times: perfmon.times(), total: perfmon.total()})`)), &live); err != nil {
		t.Fatal(err)
	}
	const n = 10
	first := live.Total - len(live.Times)
	atSlot := map[int]float64{}
	for i, tm := range live.Times {
		if len(live.Times) == n && i == 0 {
			continue // the gap before the oldest
		}
		atSlot[(first+i)%n] = tm
	}
	if len(live.Axes.X) == 0 || len(live.Axes.X) != len(live.Axes.XAt) {
		t.Fatalf("live x axis: labels %q at ticks %v", live.Axes.X, live.Axes.XAt)
	}
	for k, label := range live.Axes.X {
		slot := int(live.Axes.XAt[k])
		want := ""
		if tm, ok := atSlot[slot]; ok && float64(slot) == live.Axes.XAt[k] {
			want = instant(tm).In(loc).Format("15:04:05")
		}
		if label != want {
			t.Errorf("live x axis at slot %v: %q, want %q (the local time of the sample there)", live.Axes.XAt[k], label, want)
		}
	}
	wantY := make([]string, 11)
	for i := range wantY {
		wantY[i] = strconv.Itoa(10 * i)
	}
	if got := strings.Join(live.Axes.Y, ","); got != strings.Join(wantY, ",") {
		t.Errorf("live y axis: %s, want %s", got, strings.Join(wantY, ","))
	}

	// Scrolling: the ticks are times, labelled in the local zone.
	p.click("#scroll")
	p.wait("a scrolling graph's time ticks", `perfmon.axes().xAt.length > 2 && perfmon.axes().xAt[0] > 1.7e9`)
	ax := evalJS[axisLabels](p, `perfmon.axes()`)
	if ax.Step < 1 {
		t.Fatalf("scrolling over 10 s: ticks %v s apart, want whole seconds", ax.Step)
	}
	for k, label := range ax.X {
		if want := wantTimeLabel(instant(ax.XAt[k]).In(loc), ax.Step, 9); label != want {
			t.Errorf("scrolling x axis at %v: %q, want %q", ax.XAt[k], label, want)
		}
	}
	p.click("#scroll")

	// Removed, it stays removed in this tab.
	p.click(`button[aria-label=` + js("Remove "+defaultPath) + `]`)
	p.wait("removed", `perfmon.requests().length === 0`)
	p.do("reload", chromedp.Reload())
	p.wait("the page ready", `perfmon.ready() && document.getElementById('host').textContent === '\\\\FIXTURE'`)
	if got := evalJS[[]string](p, `perfmon.requests()`); len(got) != 0 {
		t.Errorf("after removing the default counter and reloading: the page asks for %q, want nothing", got)
	}

	// A new tab opens with it again.
	tab, cancel := chromedp.NewContext(ctx)
	defer cancel()
	q := page{t, tab}
	q.do("open the page in a new tab", chromedp.Navigate(srv.URL))
	q.wait("the default counter in the new tab", `perfmon.ready() && perfmon.requests().join() === `+js(defaultPath))

	// A link's counters win; so does a link without counters.
	memPath := `\Memory\Available Bytes`
	for _, tt := range []struct {
		settings string
		want     []string
	}{
		{`{"Counters": [{"Path": ` + js(memPath) + `}]}`, []string{memPath}},
		{`{"DisplayType": 2, "Counters": []}`, nil},
	} {
		link := "settings=" + base64.RawURLEncoding.EncodeToString([]byte(tt.settings))
		q.do("leave the page", chromedp.Navigate("about:blank"))
		q.do("open a link", chromedp.Navigate(srv.URL+"/#"+link))
		q.wait("the page ready", `perfmon.ready()`)
		if got := evalJS[[]string](q, `perfmon.requests()`); strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("link of %s: the page asks for %q, want %q", tt.settings, got, tt.want)
		}
	}
}

// setInput sets a field of the toolbar as a user's typing does.
func setInput(p page, id, v string) {
	p.t.Helper()
	evalJS[bool](p, `(() => { const e = document.getElementById(`+js(id)+`); e.value = `+js(v)+`; e.dispatchEvent(new Event('change')); return true })()`)
}

// rect is an element's box in CSS pixels.
type rect struct{ Left, Right, Top, Bottom, Width, Height float64 }

const rectJS = `(e) => { const r = e.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height} }`

// TestHistogramInBrowser: the histogram's bars share the plot's whole
// width, as perfmon's do, and its vertical scale has the line graph's
// ticks, at their places on the plot, for the default scale and another.
func TestHistogramInBrowser(t *testing.T) {
	ctx := browser(t)
	srv, _ := serve(t, fixtureHost(t), "FIXTURE")
	p := page{t, ctx}
	p.do("open the page", chromedp.Navigate(srv.URL))
	p.wait("the default counter", `perfmon.ready() && perfmon.requests().length === 1`)
	evalJS[int](p, `perfmon.addPaths(['\\Memory\\% Committed Bytes In Use', '\\Memory\\Available Bytes'])`)
	p.wait("three counters with values", `perfmon.series().length === 3 && perfmon.series().every(s => s.values.some(v => v !== null))`)

	for _, tt := range []struct{ max, step int }{{100, 10}, {250, 25}} {
		setInput(p, "ymax", strconv.Itoa(tt.max))
		want := make([]string, 11)
		for i := range want {
			want[i] = grouped(int64(i * tt.step))
		}
		p.click("#view-line")
		p.wait("the line graph's ticks up to "+strconv.Itoa(tt.max), `perfmon.axes().y.join() === `+js(strings.Join(want, ",")))

		p.click("#view-histogram")
		p.wait("three bars", `!document.getElementById('histogram').hidden && document.querySelectorAll('#histogram .bar').length === 3`)
		labels := evalJS[[]string](p, `[...document.querySelectorAll('#histogram .axis span')].map(s => s.textContent)`)
		if strings.Join(labels, ",") != strings.Join(want, ",") {
			t.Errorf("histogram's ticks up to %d: %q, want the line graph's %q", tt.max, labels, want)
		}
		// Each tick's label and gridline at its value's height.
		plot := evalJS[rect](p, `(`+rectJS+`)(document.querySelector('#histogram .plot'))`)
		spans := evalJS[[]rect](p, `[...document.querySelectorAll('#histogram .axis span')].map(`+rectJS+`)`)
		grids := evalJS[[]rect](p, `[...document.querySelectorAll('#histogram .grid')].map(`+rectJS+`)`)
		if len(spans) != 11 || len(grids) != 11 {
			t.Fatalf("histogram: %d labels and %d gridlines, want 11 each", len(spans), len(grids))
		}
		inner := plot.Height - 1 // the bottom border
		for i := range 11 {
			y := plot.Top + inner - float64(i)/10*inner
			if mid := (spans[i].Top + spans[i].Bottom) / 2; math.Abs(mid-y) > 2 {
				t.Errorf("histogram up to %d: label %s centred at y=%.1f, want %.1f", tt.max, labels[i], mid, y)
			}
			if math.Abs(grids[i].Top-y) > 2 {
				t.Errorf("histogram up to %d: gridline of %s at y=%.1f, want %.1f", tt.max, labels[i], grids[i].Top, y)
			}
		}

		// The bars: equal widths spanning the plot.
		bars := evalJS[[]rect](p, `[...document.querySelectorAll('#histogram .bar')].map(`+rectJS+`)`)
		covered := 0.0
		for i, b := range bars {
			covered += b.Width
			if math.Abs(b.Width-bars[0].Width) > 1 {
				t.Errorf("bar %d is %.1f px wide, bar 0 %.1f", i, b.Width, bars[0].Width)
			}
			if i > 0 && b.Left < bars[i-1].Right {
				t.Errorf("bar %d overlaps bar %d", i, i-1)
			}
		}
		if first, last := bars[0], bars[len(bars)-1]; first.Left-plot.Left > 0.02*plot.Width || plot.Right-last.Right > 0.02*plot.Width || covered < 0.95*plot.Width {
			t.Errorf("bars from x=%.0f to %.0f covering %.0f px of a plot from %.0f to %.0f: want them over its width",
				first.Left, last.Right, covered, plot.Left, plot.Right)
		}
	}
}

// shortLog writes a PDH CSV log of computer LOGPC: samples one second
// apart from 10:42:15 to 10:42:22 UTC (7 seconds), of 60 Process
// instances with three counters each.
func shortLog(t *testing.T) (name string, start time.Time) {
	t.Helper()
	start = time.Date(2026, 3, 1, 10, 42, 15, 0, time.UTC)
	counters := []string{"% Processor Time", "IO Data Operations/sec", "Working Set - Private"}
	var b strings.Builder
	b.WriteString(`"(PDH-CSV 4.0) (Coordinated Universal Time)(0)"`)
	for i := range 60 {
		for _, c := range counters {
			fmt.Fprintf(&b, `,"\\LOGPC\Process(postgres-worker-%02d)\%s"`, i, c)
		}
	}
	b.WriteString("\r\n")
	for k := range 8 {
		b.WriteString(`"` + start.Add(time.Duration(k)*time.Second).Format("01/02/2006 15:04:05.000") + `"`)
		for i := range 60 {
			for j := range counters {
				fmt.Fprintf(&b, `,"%d"`, (i+j+k)%90+1)
			}
		}
		b.WriteString("\r\n")
	}
	name = filepath.Join(t.TempDir(), "short.csv")
	if err := os.WriteFile(name, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return name, start
}

// TestLogViewsInBrowser opens a 7-second log of another computer with 60
// processes: the title names the log's computer (and the host's again
// once the log is closed); the graph's axes read times (HH:MM:SS over the
// log, tenths over one second of it); the legend of 60 counters scrolls
// in a pane of bounded height, the page staying within the window; the
// report of 60 instances scrolls within its pane, the page as wide as the
// window, each counter's name on one line, and it hides the value bar and
// the legend.
func TestLogViewsInBrowser(t *testing.T) {
	ctx := browser(t)
	srv, _ := serveLogs(t)
	p := page{t, ctx}
	file, start := shortLog(t)

	p.do("open the page", chromedp.Navigate(srv.URL))
	p.wait("the host's title", `perfmon.ready() && document.getElementById('host').textContent === '\\\\FIXTURE' && document.title === 'Performance Monitor \\\\FIXTURE - perfc'`)
	p.do("upload short.csv", chromedp.SetUploadFiles(chromedp.CSS(`#log-file`), []string{file}))
	p.wait("the log open", `!document.getElementById('logbar').hidden && perfmon.log().samples === 8`)
	p.wait("the log's computer in the title", `document.getElementById('host').textContent === '\\\\LOGPC' && document.title === 'Performance Monitor \\\\LOGPC - perfc'`)

	evalJS[int](p, `perfmon.addPaths(['\\Process(*)\\% Processor Time'])`)
	p.wait("60 counters drawn", `!perfmon.log().loading && perfmon.series().length === 60 && perfmon.log().view === 'line' && perfmon.log().axes.x.length > 2`)

	// The axes: readable times over the whole log.
	ax := evalJS[axisLabels](p, `perfmon.log().axes`)
	readable := regexp.MustCompile(`^10:42:[12]\d(\.\d{1,3})?$`)
	span := 7.0
	for k, label := range ax.X {
		if want := wantTimeLabel(instant(ax.XAt[k]).UTC(), ax.Step, span); label != want || !readable.MatchString(label) {
			t.Errorf("x axis of the 7-second log at %v: %q, want %q", ax.XAt[k], label, want)
		}
	}
	for _, label := range evalJS[[]string](p, `perfmon.log().axes.overview`) {
		if !regexp.MustCompile(`^10:42:[12]\d$`).MatchString(label) {
			t.Errorf("the overview's x axis: %q, want HH:MM:SS", label)
		}
	}
	// One second of it (samples 4..5): tenths of a second.
	setInput(p, "to", "5")
	setInput(p, "from", "4")
	p.wait("samples 4..5", `perfmon.log().from === 3 && perfmon.log().to === 4 && perfmon.log().axes.xAt[0] >= `+strconv.FormatInt(start.Unix()+3, 10))
	ax = evalJS[axisLabels](p, `perfmon.log().axes`)
	if ax.Step >= 1 || len(ax.X) < 3 {
		t.Errorf("one second of the log: ticks %v s apart (%q), want several under a second apart", ax.Step, ax.X)
	}
	for k, label := range ax.X {
		if want := wantTimeLabel(instant(ax.XAt[k]).UTC(), ax.Step, 1); label != want || !regexp.MustCompile(`^10:42:1[89]\.\d+$`).MatchString(label) {
			t.Errorf("x axis of one second at %v: %q, want %q", ax.XAt[k], label, want)
		}
	}
	p.click("#whole-log")

	// The legend of 60 counters scrolls in its pane; the page stays
	// within the window.
	var layout struct {
		PageHeight, WindowHeight, PaneScroll, PaneClient   float64
		PageWidth, WindowWidth, ReportScroll, ReportClient float64
	}
	measure := func() {
		t.Helper()
		if err := json.Unmarshal([]byte(evalJS[string](p, `JSON.stringify({
			pageHeight: document.documentElement.scrollHeight, windowHeight: innerHeight,
			paneScroll: document.getElementById('legend-pane').scrollHeight, paneClient: document.getElementById('legend-pane').clientHeight,
			pageWidth: document.documentElement.scrollWidth, windowWidth: document.documentElement.clientWidth,
			reportScroll: document.getElementById('report').scrollWidth, reportClient: document.getElementById('report').clientWidth})`)), &layout); err != nil {
			t.Fatal(err)
		}
	}
	measure()
	if layout.PageHeight > layout.WindowHeight {
		t.Errorf("line view of 60 counters: the page is %.0f px tall in a window of %.0f", layout.PageHeight, layout.WindowHeight)
	}
	if layout.PaneScroll <= layout.PaneClient || layout.PaneClient < 60 {
		t.Errorf("the legend's pane: %.0f px of rows in %.0f px, want a pane that scrolls", layout.PaneScroll, layout.PaneClient)
	}
	if layout.PageWidth > layout.WindowWidth {
		t.Errorf("line view: the page is %.0f px wide in a window of %.0f", layout.PageWidth, layout.WindowWidth)
	}

	// The report of 60 instances with three counters.
	evalJS[int](p, `perfmon.addPaths(['\\Process(*)\\IO Data Operations/sec', '\\Process(*)\\Working Set - Private'])`)
	p.click("#view-report")
	p.wait("the report of 180 values", `!perfmon.log().loading && document.querySelectorAll('#report td.value').length === 180 && document.querySelectorAll('#report th.instance').length === 60`)
	measure()
	if layout.PageWidth > layout.WindowWidth {
		t.Errorf("report of 60 instances: the page is %.0f px wide in a window of %.0f", layout.PageWidth, layout.WindowWidth)
	}
	if layout.ReportScroll <= layout.ReportClient {
		t.Errorf("report of 60 instances: %.0f px of table in a %.0f px pane, want it to scroll there", layout.ReportScroll, layout.ReportClient)
	}
	if layout.PageHeight > layout.WindowHeight {
		t.Errorf("report view: the page is %.0f px tall in a window of %.0f", layout.PageHeight, layout.WindowHeight)
	}
	// Each name on one line: the line boxes of its text.
	lines := evalJS[map[string]int](p, `Object.fromEntries([...document.querySelectorAll('#report tbody th, #report thead th')].map(th => {
		const r = document.createRange(); r.selectNodeContents(th);
		return [th.textContent, new Set([...r.getClientRects()].map(x => Math.round(x.top))).size] }))`)
	for _, name := range []string{"% Processor Time", "IO Data Operations/sec", "Working Set - Private", "Process", "postgres-worker-59"} {
		if lines[name] != 1 {
			t.Errorf("report: %q on %d lines, want 1", name, lines[name])
		}
	}
	if got := evalJS[[]bool](p, `['valuebar', 'legend-pane'].map(id => document.getElementById(id).offsetParent === null)`); !got[0] || !got[1] {
		t.Errorf("report view: value bar hidden %v, legend hidden %v; want both hidden, as perfmon's report", got[0], got[1])
	}
	p.screenshot("report-processes")

	p.click("#view-line")
	p.wait("the legend back", `document.getElementById('legend-pane').offsetParent !== null && document.getElementById('valuebar').offsetParent !== null`)
	p.click("#close-log")
	p.wait("the host's title again", `document.getElementById('logbar').hidden && document.getElementById('host').textContent === '\\\\FIXTURE' && document.title === 'Performance Monitor \\\\FIXTURE - perfc'`)
}

// TestCopyLinkScales: after a Copy link round trip, counters at their
// default scale show "Default (…)" with the counter's own default (1 for
// % Processor Time, 0.01 for Interrupts/sec) and are drawn at it, and a
// scale the user chose stays that scale.
func TestCopyLinkScales(t *testing.T) {
	ctx := browser(t)
	srv, _ := serve(t, fixtureHost(t), "FIXTURE")
	p := page{t, ctx}
	intr := `\Processor(_Total)\Interrupts/sec`
	mem := `\Memory\Available Bytes`
	p.do("open the page", chromedp.Navigate(srv.URL))
	p.wait("the default counter", `perfmon.ready() && perfmon.requests().join() === `+js(defaultPath))

	// Interrupts/sec through Add Counters (its default scale, 0.01, comes
	// with the dialog's list); Available Bytes at 0.0001 by hand.
	p.click("#add")
	p.wait("the dialog's objects", `document.querySelectorAll('#ac-objects option').length > 3`)
	p.choose("ac-objects", "Processor")
	p.wait("Processor's instances", `[...document.querySelectorAll('#ac-instances option')].some(o => o.value === '_Total')`)
	p.choose("ac-instances", "_Total")
	p.choose("ac-counters", "Interrupts/sec")
	p.click("#ac-add")
	p.wait("added", `document.getElementById('ac-status').textContent.startsWith('Added 1 ')`)
	p.click("#ac-close")
	evalJS[int](p, `perfmon.addPaths([`+js(mem)+`])`)
	p.wait("three counters", `perfmon.series().length === 3`)
	evalJS[bool](p, `(() => { const e = `+byLabel("Scale of "+mem)+`; e.value = '-4'; e.dispatchEvent(new Event('change', {bubbles: true})); return true })()`)

	scaleText := func(q page, path string) string {
		return evalJS[string](q, `(() => { const e = `+byLabel("Scale of "+path)+`; return e ? e.selectedOptions[0].textContent : 'no legend row' })()`)
	}
	want := map[string]string{defaultPath: "Default (1)", intr: "Default (0.01)", mem: "0.0001"}
	for path, w := range want {
		if got := scaleText(p, path); got != w {
			t.Errorf("before the link: scale of %s %q, want %q", path, got, w)
		}
	}
	p.click("#copy-link")
	p.wait("the link in the address bar", `location.hash.startsWith('#settings=')`)
	link := evalJS[string](p, `location.href`)
	p.do("leave the page", chromedp.Navigate("about:blank"))
	p.do("open the link", chromedp.Navigate(link))
	p.wait("the link's counters with values", `perfmon.ready() && perfmon.series().length === 3 && perfmon.series().every(s => s.values.some(v => v !== null))`)
	for path, w := range want {
		p.wait("the scale of "+path+" after the link", `(() => { const e = `+byLabel("Scale of "+path)+`; return e && e.selectedOptions[0].textContent === `+js(w)+` })()`)
	}
	// Drawn at those scales: the graph's values are the counters' times
	// their factors (the latest sample of each, at its slot).
	got := evalJS[string](p, `(() => { const f = {`+js(defaultPath)+`: 1, `+js(intr)+`: 0.01, `+js(mem)+`: 0.0001};
		const d = perfmon.line(), n = perfmon.samples(), slot = (perfmon.total() - 1) % d[0].length;
		const bad = perfmon.series().filter((s, i) => { const v = s.values[n - 1];
			return v !== null && Math.abs(d[i + 1][slot] - v * f[s.path]) > 1e-9 * Math.abs(v * f[s.path]) });
		return bad.map(s => s.path).join() })()`)
	if got != "" {
		t.Errorf("after the link, drawn at the wrong scale: %s", got)
	}
}
