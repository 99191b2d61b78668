package webui_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestKeepAndShare drives the page's settings and exports in chromium:
// counters with a colour and a scale changed and a view chosen are
// saved under perfmon's property names, come back from a #settings=
// link in a fresh page, a refused settings file changes nothing and
// names its field, and the CSV export holds the samples.
func TestKeepAndShare(t *testing.T) {
	ctx := browser(t)
	srv, _ := serve(t, fixtureHost(t), "FIXTURE")
	p := page{t, ctx}
	memPath := `\Memory\Available Bytes`
	cpuPath := `\Processor(_Total)\% Processor Time`

	p.openWithoutDefault(srv.URL)
	p.wait("the host's name", `document.getElementById('host').textContent === '\\\\FIXTURE'`)
	evalJS[int](p, `perfmon.addPaths([`+js(memPath)+`, `+js(cpuPath)+`])`)
	p.wait("both counters with a sample", `perfmon.series().length === 2 && perfmon.samples() >= 1`)

	// Change the first counter's colour and scale, the second's
	// visibility, the view, the interval, the points and the scale.
	set := func(sel, value string) {
		t.Helper()
		evalJS[bool](p, `(() => { const e = `+sel+`; e.value = `+js(value)+`; e.dispatchEvent(new Event('change', {bubbles: true})); return true })()`)
	}
	set(byLabel("Colour of "+memPath), "#123abc")
	set(byLabel("Scale of "+memPath), "-6")
	evalJS[bool](p, byLabel("Show "+cpuPath)+`.click() ?? true`)
	p.click("#view-histogram")
	set(`document.querySelector('#interval')`, "2")
	set(`document.querySelector('#points')`, "50")
	set(`document.querySelector('#ymax')`, "250")
	set(`document.querySelector('#reportvalue')`, "maximum")
	p.click("#show-valuebar")
	// Ctrl+H turns Highlight on, as in perfmon.
	p.do("Ctrl+H", chromedp.KeyEvent("h", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	p.wait("highlight on", `document.getElementById('highlight').checked && document.body.classList.contains('highlight')`)

	want := map[string]any{
		"DisplayType":     2.0,
		"UpdateInterval":  2.0,
		"DataPointCount":  50.0,
		"MinimumScale":    0.0,
		"MaximumScale":    250.0,
		"ReportValueType": 4.0,
		"ChartScroll":     false,
		"ManualUpdate":    false,
		"ShowLegend":      true,
		"ShowValueBar":    false,
		"Highlight":       true,
		"Counters": []any{
			map[string]any{"Path": memPath, "Color": "#123abc", "ScaleFactor": -6.0, "Visible": true},
			// At its default scale: no ScaleFactor, "Default (…)" again
			// after a round trip.
			map[string]any{"Path": cpuPath, "Color": "#3cb44b", "Visible": false},
		},
	}
	settings := func() map[string]any {
		t.Helper()
		var got map[string]any
		if err := json.Unmarshal([]byte(evalJS[string](p, `JSON.stringify(perfmon.settings())`)), &got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := settings(); !reflect.DeepEqual(got, want) {
		t.Fatalf("saved settings:\n%v\nwant\n%v", got, want)
	}

	// The link, in a fresh page. Copy link puts it in the address bar.
	link := evalJS[string](p, `perfmon.link()`)
	p.click("#copy-link")
	p.wait("the link in the address bar", `location.hash === `+js("#"+link)+` && location.search === ''`)
	p.do("leave the page", chromedp.Navigate("about:blank"))
	p.do("open the link", chromedp.Navigate(srv.URL+"/#"+link))
	p.wait("the link's counters with a sample", `perfmon.series().length === 2 && perfmon.samples() >= 1`)
	evalJS[bool](p, `window.violations = []; document.addEventListener('securitypolicyviolation', e => violations.push(e.violatedDirective + ' ' + e.blockedURI)); true`)
	if got := settings(); !reflect.DeepEqual(got, want) {
		t.Fatalf("settings after the link:\n%v\nwant\n%v", got, want)
	}
	p.wait("the histogram shown, its counter's colour and scale in the legend",
		`!document.getElementById('histogram').hidden && document.getElementById('line').hidden &&
		`+byLabel("Colour of "+memPath)+`.value === '#123abc' &&
		`+byLabel("Scale of "+memPath)+`.value === '-6' &&
		!`+byLabel("Show "+cpuPath)+`.checked &&
		document.getElementById('points').value === '50' && document.getElementById('interval').value === '2' &&
		document.getElementById('ymax').value === '250' && document.getElementById('reportvalue').value === 'maximum' &&
		document.getElementById('valuebar').hidden && !document.getElementById('show-valuebar').checked && !document.getElementById('legend').hidden &&
		document.getElementById('highlight').checked`)

	// Refused settings: nothing changes, the status names the field
	// (frozen: no sample's status line replaces it).
	p.click("#freeze")
	p.wait("frozen", `perfmon.frozen() && !perfmon.busy()`)
	want["ManualUpdate"] = true
	for _, bad := range []struct{ text, field string }{
		{`{"DataPointCount": 5000, "Counters": []}`, "DataPointCount"},
		{`{"Counters": [{"Path": "\\Memory\\Available Bytes", "Color": "blue"}]}`, "Counters[0].Color"},
		{`{"DisplayType": 1, "Counters": [{"Path": "\\Memory\\Available Bytes", "ScaleFactor": 12}]}`, "Counters[0].ScaleFactor"},
		{`{"DisplayType": 1,`, "settings"},
	} {
		if evalJS[bool](p, `perfmon.loadSettings(`+js(bad.text)+`)`) {
			t.Errorf("%s: accepted", bad.text)
		}
		status := p.text("status")
		if !strings.Contains(status, bad.field+":") || !evalJS[bool](p, `document.getElementById('status').classList.contains('error')`) {
			t.Errorf("%s: status %q, want an error naming %s", bad.text, status, bad.field)
		}
		if got := settings(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: settings changed to\n%v", bad.text, got)
		}
	}

	// CSV: the export's header and rows against the samples.
	csv := evalJS[string](p, `perfmon.csv()`)
	times := evalJS[[]float64](p, `perfmon.times()`)
	series := evalJS[[]struct {
		Path   string
		Values []*float64
	}](p, `perfmon.series()`)
	lines := strings.Split(strings.TrimSuffix(csv, "\r\n"), "\r\n")
	header := `"(PDH-CSV 4.0) (Coordinated Universal Time)(0)","\\FIXTURE` + memPath + `","\\FIXTURE` + cpuPath + `"`
	if lines[0] != header {
		t.Errorf("CSV header %s, want %s", lines[0], header)
	}
	if len(lines)-1 != len(times) || len(times) == 0 {
		t.Fatalf("CSV has %d rows, the page %d samples", len(lines)-1, len(times))
	}
	wantMem := strconv.FormatInt(fixtureMemAvailable(t), 10)
	for i, tm := range times {
		ms := int64(tm*1000 + 0.5)
		stamp := time.UnixMilli(ms).UTC().Format("01/02/2006 15:04:05.000")
		cells := strings.Split(lines[i+1], ",")
		if len(cells) != 3 || cells[0] != `"`+stamp+`"` {
			t.Errorf("CSV row %d: %s, want time %s and 2 values", i, lines[i+1], stamp)
			continue
		}
		if cells[1] != `"`+wantMem+`"` {
			t.Errorf("CSV row %d: Available Bytes %s, want %s", i, cells[1], wantMem)
		}
		if v := series[1].Values[i]; v != nil && cells[2] != `"`+strconv.FormatFloat(*v, 'f', -1, 64)+`"` {
			t.Errorf("CSV row %d: %% Processor Time %s, the page's value %v", i, cells[2], *v)
		}
	}
	tsv := evalJS[string](p, `perfmon.tsv()`)
	if first, _, _ := strings.Cut(tsv, "\r\n"); first != strings.ReplaceAll(strings.Replace(header, "PDH-CSV", "PDH-TSV", 1), `","`, "\"\t\"") {
		t.Errorf("TSV header %s", first)
	}

	// The buttons: each makes a download of what the page holds. Blobs
	// handed to URL.createObjectURL are kept to be read here.
	evalJS[bool](p, `(() => { window.made = []; const o = URL.createObjectURL; URL.createObjectURL = (b) => { made.push(b); return o.call(URL, b) }; return true })()`)
	made := func(button string) (typ, text string, size int) {
		t.Helper()
		n := evalJS[int](p, `made.length`)
		p.click(button)
		p.wait("a download from "+button, `made.length === `+strconv.Itoa(n+1))
		v, err := chromedp.Run(ctx, chromedp.Evaluate[[]any](`(async () => { const b = made[made.length - 1]; return [b.type, b.type === 'image/png' ? '' : await b.text(), b.size] })()`, chromedp.EvalAwaitPromise))
		if err != nil || len(v) != 3 {
			t.Fatalf("the download of %s: %v %v", button, v, err)
		}
		return v[0].(string), v[1].(string), int(v[2].(float64))
	}
	if typ, text, _ := made("#save-csv"); typ != "text/csv" || text != csv {
		t.Errorf("Save data as CSV: %s, %q; want the CSV above", typ, text)
	}
	if typ, text, _ := made("#save-tsv"); typ != "text/tab-separated-values" || text != tsv {
		t.Errorf("Save data as TSV: %s, %q; want the TSV above", typ, text)
	}
	typ, text, _ := made("#save-settings")
	var saved map[string]any
	if err := json.Unmarshal([]byte(text), &saved); err != nil || typ != "application/json" || !reflect.DeepEqual(saved, want) {
		t.Errorf("Save settings: %s %q (%v), want the settings above", typ, text, err)
	}
	p.click("#view-line")
	p.wait("the line graph", `!document.getElementById('line').hidden && document.querySelector('#line canvas') !== null`)
	if typ, _, size := made("#save-png"); typ != "image/png" || size < 100 {
		t.Errorf("Save image as PNG: %s of %d bytes", typ, size)
	}
	if v := evalJS[[]string](p, `violations`); len(v) > 0 {
		t.Errorf("the page broke its Content-Security-Policy: %q", v)
	}

	// Load settings from a file through the page's file input: the
	// report view and one counter, shown at once.
	file := filepath.Join(t.TempDir(), "report.json")
	if err := os.WriteFile(file, []byte(`{"DisplayType": 3, "DataPointCount": 7, "Counters": [{"Path": `+js(memPath)+`, "Color": "#00ff00"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p.do("choose the settings file", chromedp.SetUploadFiles(chromedp.CSS("#settings-file"), []string{file}))
	p.wait("the file's settings applied", `!document.getElementById('report').hidden && perfmon.requests().length === 1 && perfmon.series().length === 1 && document.getElementById('points').value === '7'`)
	if got := settings()["Counters"]; !reflect.DeepEqual(got, []any{map[string]any{"Path": memPath, "Color": "#00ff00", "Visible": true}}) {
		t.Errorf("counters after the file: %v", got)
	}

	// A link the page refuses: the page opens with its defaults and says
	// why.
	p.do("leave the page", chromedp.Navigate("about:blank"))
	p.do("open a bad link", chromedp.Navigate(srv.URL+"/#settings=eyJEYXRhUG9pbnRDb3VudCI6MH0")) // {"DataPointCount":0}
	p.wait("the refusal", `document.getElementById('status').textContent.includes('DataPointCount:') && perfmon.requests().length === 0 && document.getElementById('points').value === '100'`)
}

// byLabel is a JavaScript expression for the legend's element labelled
// label.
func byLabel(label string) string {
	return `[...document.querySelectorAll('#legend [aria-label]')].find(e => e.getAttribute('aria-label') === ` + js(label) + `)`
}
