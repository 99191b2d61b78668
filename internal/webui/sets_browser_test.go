package webui_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/perfcounters/perfcounters/remote"
)

// press clicks the enabled element sel selects by script once it is
// there: the sets pane replaces its rows as it refreshes, so a click by
// node may miss.
func (p page) press(sel string) {
	p.t.Helper()
	p.wait(sel+" enabled", `(() => { const b = document.querySelector(`+js(sel)+`); return b !== null && !b.disabled })()`)
	evalJS[bool](p, `(() => { document.querySelector(`+js(sel)+`).click(); return true })()`)
}

// TestSetsInBrowser: the console's tree switches panes; a set made from
// the graph's counters is created, started (seen recording: its log grows
// in Reports), stopped, and its log opened in log mode with one click; an
// alert set's threshold is changed in its properties and, once started
// again, seen firing.
func TestSetsInBrowser(t *testing.T) {
	ctx := browser(t)
	h := fixtureHost(t)
	st, sys, logDir := dirs(t)
	srv := serveSets(t, h, setsUser(t, h, st, sys, logDir), remote.RoleLog)
	p := page{t, ctx}
	p.openWithoutDefault(srv.URL)
	evalJS[int](p, `perfmon.addPaths(['\\Memory\\Available Bytes', '\\Memory\\Committed Bytes'])`)
	p.wait("samples", `perfmon.samples() > 1`)

	// New set from the graph.
	p.click("#node-sets-user")
	p.wait("the sets pane", `!document.getElementById('sets-pane').hidden && document.getElementById('perfmon-pane').hidden && perfmon.console().canChange`)
	p.click("#set-new-graph")
	p.wait("the dialog with the graph's counters", `document.getElementById('setdialog').open && document.querySelector('#set-form [name=counters]').value === '\\Memory\\Available Bytes\n\\Memory\\Committed Bytes'`)
	p.do("name and interval", chromedp.SendKeys(chromedp.CSS(`#set-form [name=name]`), "graph_set"),
		chromedp.SetValue(chromedp.CSS(`#set-form [name=interval]`), "1"))
	p.click("#set-ok")
	p.wait("the set listed, stopped", `document.querySelector('#sets-rows tr[data-set=graph_set]')?.dataset.state === 'stopped'`)

	// Start: it runs and records.
	p.press(`#sets-rows button[data-act=start][data-set=graph_set]`)
	p.wait("the set running", `document.querySelector('#sets-rows tr[data-set=graph_set]')?.dataset.state === 'running'`)
	p.click(`#node-reports`)
	p.wait("its log, recording", `document.querySelector('.set-runs[data-set=graph_set] tr[data-file]')?.textContent.includes('recording now')`)
	time.Sleep(2 * time.Second)
	p.click(`#node-sets-user`)
	p.press(`#sets-rows button[data-act=stop][data-set=graph_set]`)
	p.wait("the set stopped", `document.querySelector('#sets-rows tr[data-set=graph_set]')?.dataset.state === 'stopped'`)

	// Reports > graph_set: open its log in log mode.
	p.click(`#tree-reports button[data-node="report:graph_set"]`)
	p.wait("the log listed", `document.querySelector('.set-runs[data-set=graph_set] button[data-run]') !== null`)
	p.screenshot("perfmon-reports")
	p.press(`.set-runs[data-set=graph_set] button[data-run]`)
	p.wait("the log open with the set's counters", `perfmon.console().node === 'perfmon' && perfmon.log().id !== null && perfmon.log().samples >= 2 && perfmon.requests().length === 2 && perfmon.series().length === 2`)

	// An alert set: its threshold changed, then seen firing.
	p.click("#node-sets-user")
	p.click("#set-new-alert")
	p.wait("the alert dialog", `document.getElementById('setdialog').open && !document.querySelector('#set-form [name=thresholds]').closest('label').hidden`)
	p.do("the alert", chromedp.SendKeys(chromedp.CSS(`#set-form [name=name]`), "low_mem"),
		chromedp.SetValue(chromedp.CSS(`#set-form [name=thresholds]`), `\Memory\Available Bytes<1`),
		chromedp.SetValue(chromedp.CSS(`#set-form [name=interval]`), "1"))
	p.click("#set-ok")
	p.wait("the alert set listed", `document.querySelector('#sets-rows tr[data-set=low_mem]') !== null`)
	p.press(`#sets-rows button[data-act=edit][data-set=low_mem]`)
	p.wait("its properties", `document.getElementById('setdialog').open && document.querySelector('#set-form [name=thresholds]').value === '\\Memory\\Available Bytes<1'`)
	p.do("a threshold it passes", chromedp.SetValue(chromedp.CSS(`#set-form [name=thresholds]`), `\Memory\Available Bytes>1`))
	p.click("#set-ok")
	p.wait("the dialog closed", `!document.getElementById('setdialog').open`)
	p.press(`#sets-rows button[data-act=start][data-set=low_mem]`)
	p.wait("the alert firing", `document.querySelector('#sets-rows tr[data-set=low_mem] td.alerts')?.textContent.startsWith('FIRING')`)
	p.screenshot("perfmon-sets")
	p.press(`#sets-rows button[data-act=stop][data-set=low_mem]`)
	p.wait("the alert set stopped", `document.querySelector('#sets-rows tr[data-set=low_mem]')?.dataset.state === 'stopped'`)
}

// TestSetsFollowInBrowser: the log a running set writes, opened from
// Reports, follows the recording: its samples grow while it runs.
func TestSetsFollowInBrowser(t *testing.T) {
	ctx := browser(t)
	h := fixtureHost(t)
	st, sys, logDir := dirs(t)
	srv := serveSets(t, h, setsUser(t, h, st, sys, logDir), remote.RoleLog)
	if code, body := call(t, srv, "POST", "/v1/sets", `{"name":"live","counters":["\\Memory\\Available Bytes"],"interval":"1"}`); code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	if code, body := call(t, srv, "POST", "/v1/sets/live/start", ""); code != 200 {
		t.Fatalf("start: %d %s", code, body)
	}
	time.Sleep(2 * time.Second)
	p := page{t, ctx}
	p.openWithoutDefault(srv.URL)
	p.click(`#node-reports`)
	p.wait("the running set's log", `document.querySelector('.set-runs[data-set=live] button[data-run]')?.textContent === 'Open (follow live)'`)
	p.press(`.set-runs[data-set=live] button[data-run]`)
	p.wait("the log open, followed", `perfmon.log().samples >= 1 && perfmon.console().following !== null && !document.getElementById('log-follow').hidden`)
	n := evalJS[int](p, `perfmon.log().samples`)
	p.wait("more samples", `perfmon.log().samples > `+strconv.Itoa(n)+` && perfmon.series().length === 1`)
	if code, body := call(t, srv, "POST", "/v1/sets/live/stop", ""); code != 200 {
		t.Fatalf("stop: %d %s", code, body)
	}
	p.wait("following ends with the run", `perfmon.console().following === null`)
}

// TestSetsReadOnlyInBrowser: a caller of the monitor role sees the sets
// with every button that would change them disabled.
func TestSetsReadOnlyInBrowser(t *testing.T) {
	ctx := browser(t)
	h := fixtureHost(t)
	st, sys, logDir := dirs(t)
	sets := setsUser(t, h, st, sys, logDir)
	if err := sets.Create(context.Background(), "daily", remote.SetDefinition{Counters: &[]string{`\Memory\Available Bytes`}}); err != nil {
		t.Fatal(err)
	}
	srv := serveSets(t, h, sets, remote.RoleMonitor)
	p := page{t, ctx}
	p.openWithoutDefault(srv.URL)
	p.click("#node-sets-user")
	p.wait("the set listed", `document.querySelector('#sets-rows tr[data-set=daily]') !== null`)
	for _, sel := range []string{"#set-new-graph", "#set-new", "#set-new-alert",
		`#sets-rows button[data-act=start]`, `#sets-rows button[data-act=delete]`, `#sets-rows button[data-act=stop]`} {
		if !evalJS[bool](p, `document.querySelector(`+js(sel)+`).disabled`) {
			t.Errorf("%s enabled for the monitor role", sel)
		}
	}
	if !strings.Contains(p.text("sets-note"), "Read only") {
		t.Errorf("note %q", p.text("sets-note"))
	}
	p.press(`#sets-rows button[data-act=edit]`)
	p.wait("its properties, read only", `document.getElementById('setdialog').open && document.getElementById('set-ok').disabled`)
}
