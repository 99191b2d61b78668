// Log mode of the perfmon page (the item 4): a log opened by
// perfc perfmon LOG or uploaded by "Open log…" is read through /v1/logs
// (internal/logview, API.md there). The page asks once for the values of
// every counter path over the whole log and keeps them; the time range
// (drag in the overview, zoom in and out, whole log, or the From/To
// sample fields) slices them, so the views, the value bar and the report
// follow a new range at once, without asking the server again. Past the
// server's limit on the values of one answer, the page holds the part of
// the log it can (the range, or its later half until the answer fits),
// says so on the status line, and reads another part when the range goes
// beyond it.
//
// In log mode:
//   - the line, area and stacked area views draw every sample of the range
//     against its time (no DataPointCount limit: perfmon drew 100 points);
//   - the value bar's Last, Average, Minimum, Maximum are of the range,
//     Duration the range's span;
//   - the report and the histogram show, per ReportValueType, the value
//     at the range's end ("Current", as perfmon's report of a log shows
//     the value at the end of the selected range), or the range's
//     average, minimum or maximum;
//   - Add Counters lists the log's objects, counters and every instance
//     the log holds in any sample, not only _Total.
//
// app.js calls the hooks of initLogs' answer; this module keeps its own
// state and draws into #logchart and #logbar.

const $ = (id) => document.getElementById(id);

import { sessionHeaders } from './session.js';
import { timeAxis, valueAxis } from './axes.js';

// AREA_ALPHA is the opacity of an area's fill (hex, appended to #rrggbb).
const AREA_ALPHA = '55';

// initLogs wires log mode to the page. app is what log mode needs of
// app.js: state, render(), setStatus(text, error), api(path, init),
// newSeries(key, request), findSeries(key), scaleOf(series), cssVar(name),
// resetDialog(computers), live() (back to the live source).
export function initLogs(app) {
  const { state } = app;
  const log = {
    info: null,       // LogInfo of the open log set; null: live
    uploaded: false,  // the page uploaded it (closed on leaving)
    times: [],        // every sample's time, seconds since the epoch
    iso: [],          // the same as the server wrote them (start/end of requests)
    from: 0, to: -1,  // the range: positions in times, both included
    win: [0, -1],     // the samples whose values the page holds (series.full)
    cut: '',          // why win is not the whole log (the server's limit), or empty
    seq: 0,           // answers of older requests are dropped
    loading: false,
  };
  let chart = null, chartKey = '';
  let overview = null, overviewKey = '';
  // The labels the graph's and the overview's axes drew last.
  const chartAxes = { x: [], xAt: [], step: 0, y: [] }, overviewAxes = { x: [], xAt: [], step: 0 };

  const source = {
    name: 'log',
    formatted: () => Promise.reject(new Error('a log is read by its time range, not polled')),
  };

  function active() { return log.info !== null; }

  // open enters log mode with a log set (LogInfo).
  function open(info, uploaded) {
    leaveServerLog();
    log.info = info;
    log.uploaded = uploaded;
    log.times = [];
    log.iso = [];
    log.from = 0; log.to = -1;
    log.win = [0, -1];
    log.cut = '';
    state.source = source;
    state.frozen = false;
    state.requests = [];
    state.series = [];
    state.times = [];
    state.total = 0;
    state.selected = null;
    state.nextColor = 0;
    if (!['line', 'histogram', 'report', 'area', 'stacked'].includes(state.view)) state.view = 'line';
    app.resetDialog(info.computers.length ? info.computers : [''], 'log');
    $('logbar').hidden = false;
    $('log-name').textContent = info.names.join(', ') + ` (${info.formats.join(', ')}; ${info.samples} samples)`;
    $('log-notes').textContent = (info.notes || []).join('; ');
    $('from').max = $('to').max = info.samples;
    chartKey = ''; overviewKey = '';
    loadTimes(info);
    app.setStatus(`${info.names.join(', ')}: ${info.samples} samples of ${info.computers.join(', ') || 'an unnamed computer'}, ${wall(Date.parse(info.start) / 1000)} to ${wall(Date.parse(info.end) / 1000)}. Add counters to see them (Add counters… lists the log's).`);
    app.render();
  }

  // leaveServerLog closes an uploaded log on the server (a log the server
  // opened stays open there).
  function leaveServerLog() {
    if (log.info && log.uploaded) {
      app.api(`/v1/logs/${log.info.id}`, { method: 'DELETE' }).catch(() => {});
    }
  }

  // close leaves log mode for the live host.
  function close() {
    leaveServerLog();
    log.info = null;
    log.times = [];
    if (overview) { overview.destroy(); overview = null; }
    if (chart) { chart.destroy(); chart = null; }
    $('logbar').hidden = true;
    if (state.view === 'area' || state.view === 'stacked') state.view = 'line';
    state.requests = [];
    state.series = [];
    state.times = [];
    state.total = 0;
    state.selected = null;
    state.nextColor = 0;
    app.live();
  }

  // loadTimes reads every sample's time of the log, then the values of
  // the paths the page has.
  async function loadTimes(info) {
    const seq = ++log.seq;
    log.loading = true;
    try {
      const ans = await app.api(`/v1/logs/${info.id}/times`);
      if (seq !== log.seq || log.info !== info) return;
      log.iso = ans.times;
      log.times = ans.times.map((t) => Date.parse(t) / 1000);
      log.offsets = ans.offsets || [];
      log.zones = ans.zones || {};
      log.from = 0; log.to = log.times.length - 1;
      applyRange();
    } catch (e) {
      if (seq === log.seq) app.setStatus(`${info.names.join(', ')}: ${e.message || e}`, true);
    } finally {
      if (seq === log.seq) log.loading = false;
    }
    if (seq === log.seq && state.requests.length) fetch();
  }

  // values asks for paths over samples a..b. Past the server's limit on
  // the values of one answer (413) it asks for the range instead, then
  // for the later half, until the answer fits. It answers the answer, its
  // a and b, and the server's reason when it had to cut.
  async function values(paths, a, b) {
    let cut = '';
    for (;;) {
      const r = await window.fetch(`/v1/logs/${log.info.id}/values`, {
        method: 'POST', credentials: 'same-origin',
        headers: sessionHeaders({ 'Content-Type': 'application/json' }),
        body: JSON.stringify({ paths, start: log.iso[a], end: log.iso[b] }),
      });
      if (r.ok) return { ans: await r.json(), a, b, cut };
      let reason = `${r.status} ${r.statusText}`;
      try { reason = (await r.json()).error.reason || reason; } catch { /* not JSON */ }
      if (r.status !== 413 || a === b) throw new Error(reason);
      cut = reason;
      if ((a < log.from || b > log.to) && log.to - log.from < b - a) {
        a = log.from; b = log.to;
      } else {
        a = b - Math.floor((b - a) / 2);
      }
    }
  }

  // fetch asks for every path of the page over the whole log (over the
  // range, once the server's limit made the page hold part of the log)
  // and keeps each counter's values (series.full, of samples win); the
  // range slices them.
  async function fetch() {
    if (!active() || state.requests.length === 0 || log.times.length === 0) return;
    const seq = ++log.seq;
    const paths = state.requests.map((q) => q.path);
    log.loading = true;
    try {
      const n = log.times.length;
      const [a0, b0] = log.cut ? [log.from, log.to] : [0, n - 1];
      const { ans, a, b, cut } = await values(paths, a0, b0);
      if (seq !== log.seq || !active()) return;
      log.win = [a, b];
      log.cut = a > 0 || b < n - 1 ? (cut || log.cut) : '';
      const problems = [];
      const seen = new Set();
      ans.counters.forEach((c, i) => {
        const q = state.requests[i];
        if (!q || q.path !== c.path) return;
        if (c.status !== 'PDH_CSTATUS_VALID_DATA') problems.push(`${c.path}: ${c.reason || c.status}`);
        for (const it of c.items) {
          if (q.excluded.has(it.path)) continue;
          const s = app.findSeries(it.path) || app.newSeries(it.path, q);
          s.full = it.values;
          seen.add(s);
        }
      });
      for (const s of state.series) if (!seen.has(s)) s.full = [];
      if (log.cut && (log.from < a || log.to > b)) {
        // The range keeps within the samples the page holds.
        log.from = a; log.to = b;
      }
      applyRange(true);
      if (log.cut) problems.push(`values of samples ${a + 1} to ${b + 1} only (${log.cut}); select a range to read another part of the log`);
      app.setStatus(problems.length ? problems.join('; ') : `${log.info.names.join(', ')}: ${state.series.length} counters over ${n} samples`, problems.length > 0);
    } catch (e) {
      if (seq === log.seq) app.setStatus(`${log.info?.names.join(', ')}: ${e.message || e}`, true);
    } finally {
      if (seq === log.seq) log.loading = false;
    }
  }

  // at is a counter's value at sample k of the log (null where the page
  // holds none).
  function at(s, k) {
    const [a, b] = log.win;
    return k >= a && k <= b ? (s.full?.[k - a] ?? null) : null;
  }

  // applyRange puts the range's samples in the page's state (times and
  // each counter's values), where the views and the value bar read them.
  // A range beyond the samples the page holds (the server's limit cut
  // them) reads them.
  function applyRange(loaded) {
    const n = log.times.length;
    log.from = Math.max(0, Math.min(log.from, n - 1));
    log.to = Math.max(log.from, Math.min(log.to, n - 1));
    state.times = log.times.slice(log.from, log.to + 1);
    state.total = state.times.length;
    for (const s of state.series) {
      s.values = [];
      for (let k = log.from; k <= log.to; k++) s.values.push(at(s, k));
    }
    if (!loaded && log.cut && (log.from < log.win[0] || log.to > log.win[1])) fetch();
    $('from').value = n ? log.from + 1 : '';
    $('to').value = n ? log.to + 1 : '';
    $('log-range').textContent = n
      ? `${wall(log.times[log.from])} – ${wall(log.times[log.to])} (samples ${log.from + 1} to ${log.to + 1} of ${n})`
      : '';
    app.render();
  }

  // offsetAt is the log's offset from UTC (seconds east, in the zone it
  // was recorded in) at time t: the nearest sample's. Times are shown as
  // the log's wall clock, as relog writes them; UTC until the log's
  // times are read.
  function offsetAt(t) {
    const ts = log.times, off = log.offsets;
    if (!off || off.length !== ts.length || ts.length === 0) return 0;
    let lo = 0, hi = ts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ts[mid] < t) lo = mid + 1; else hi = mid;
    }
    if (lo > 0 && t - ts[lo - 1] < ts[lo] - t) lo--;
    return off[lo];
  }

  // wall writes seconds since the epoch as the log's wall-clock time,
  // yyyy-mm-dd hh:mm:ss, and its zone: the zone's name at that time as
  // the server gives it (standard or daylight), else the log's zone
  // name, else the offset from UTC.
  function wall(t) {
    const off = offsetAt(t);
    const text = new Date(Math.round((t + off) * 1000)).toISOString().replace('T', ' ').slice(0, 19);
    const known = log.offsets && log.offsets.length === log.times.length && log.times.length > 0;
    if (!known) return text + ' UTC';
    const name = log.zones?.[String(off)] || log.info?.zone;
    if (name) return `${text} (${name})`;
    if (off === 0) return text + ' UTC';
    const a = Math.abs(off);
    return `${text} UTC${off < 0 ? '−' : '+'}${String(Math.floor(a / 3600)).padStart(2, '0')}:${String(Math.floor(a % 3600 / 60)).padStart(2, '0')}`;
  }

  // setRange selects samples from..to (positions, both included).
  function setRange(from, to) {
    if (!log.times.length) return;
    log.from = Math.round(Math.min(from, to));
    log.to = Math.round(Math.max(from, to));
    applyRange();
  }

  // setTimeRange selects the samples whose times fall in lo..hi (seconds);
  // a range that holds none selects the sample nearest its middle.
  function setTimeRange(lo, hi) {
    const t = log.times;
    let a = t.findIndex((x) => x >= lo);
    let b = t.findLastIndex((x) => x <= hi);
    if (a < 0 || b < 0 || a > b) {
      const mid = (lo + hi) / 2;
      let k = 0;
      t.forEach((x, i) => { if (Math.abs(x - mid) < Math.abs(t[k] - mid)) k = i; });
      a = b = k;
    }
    setRange(a, b);
  }

  // zoom scales the range's span (in samples) by factor about its middle,
  // within the log: 0.5 zooms in, 2 out.
  function zoom(factor) {
    const n = log.times.length;
    if (!n) return;
    const span = log.to - log.from;
    let want = factor < 1 ? Math.floor(span * factor) : Math.max(span + 1, Math.ceil(span * factor));
    want = Math.max(0, Math.min(n - 1, want));
    if (want === span) return;
    const mid = (log.from + log.to) / 2;
    let a = Math.round(mid - want / 2), b = a + want;
    if (a < 0) { a = 0; b = want; }
    if (b > n - 1) { b = n - 1; a = b - want; }
    setRange(a, b);
  }

  // ---- drawing ------------------------------------------------------------

  function scaled(s, values) {
    const f = 10 ** app.scaleOf(s);
    return values.map((v) => (v == null ? null : v * f));
  }

  // axes are a graph's: times in the log's wall clock (the labels' form
  // by the span shown, axes.js), the vertical scale's values.
  function axes(drawn, span) {
    const colors = { fg: app.cssVar('--fg'), grid: app.cssVar('--grid') };
    return [
      timeAxis(colors, { wallOf: (t) => t + offsetAt(t), span, drawn }),
      valueAxis(colors, { min: state.ymin, max: state.ymax, drawn }),
    ];
  }

  // rangeSpan is the seconds the range shows; logSpan the whole log's.
  const rangeSpan = () => (state.times.length ? state.times[state.times.length - 1] - state.times[0] : 0);
  const logSpan = () => (log.times.length ? log.times[log.times.length - 1] - log.times[0] : 0);

  // renderChart draws the line, area or stacked area view of the range.
  // Stacked: each shown counter is drawn as the sum of itself and the
  // shown counters above it in the legend (a missing value counts 0 in
  // the sums of the others), filled down to the one below.
  function renderChart() {
    const el = $('logchart');
    const view = state.view;
    const width = Math.max(300, el.clientWidth - 8);
    const shown = state.series.filter((s) => s.show);
    const key = JSON.stringify([view, width, state.ymin, state.ymax, state.selected, state.highlight,
      state.series.map((s) => [s.key, s.color, s.show]), app.cssVar('--fg')]);
    let data;
    if (view === 'stacked') {
      const acc = state.times.map(() => 0);
      const any = state.times.map(() => false);
      data = [state.times.slice(), ...shown.map((s) => {
        const v = scaled(s, s.values);
        return v.map((x, i) => {
          if (x != null) { acc[i] += x; any[i] = true; }
          return any[i] ? acc[i] : null;
        });
      })];
    } else {
      data = [state.times.slice(), ...shown.map((s) => scaled(s, s.values))];
    }
    if (chart && key === chartKey) { chart.setData(data); return; }
    if (chart) chart.destroy();
    const series = [{}, ...shown.map((s) => ({
      label: s.key, stroke: s.color, spanGaps: false,
      width: state.highlight && s.key === state.selected ? 3.5 : 1.25,
      ...(view === 'line' ? {} : { fill: s.color + AREA_ALPHA }),
    }))];
    const bands = [];
    if (view === 'stacked') for (let k = 2; k <= shown.length; k++) bands.push({ series: [k, k - 1] });
    chart = new uPlot({
      width, height: 320,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      tzDate: (ts) => uPlot.tzDate(new Date((ts + offsetAt(ts)) * 1e3), 'Etc/UTC'),
      scales: { x: { time: true }, y: { auto: false, range: [state.ymin, state.ymax] } },
      axes: axes(chartAxes, rangeSpan),
      series,
      bands,
    }, data, el);
    const what = { line: 'Line graph', area: 'Area graph', stacked: 'Stacked area graph' }[view];
    chart.root.setAttribute('role', 'img');
    chart.root.setAttribute('aria-label', `${what} of ${shown.length} counters of the log over ${state.times.length} samples`);
    chart.root.dataset.view = view;
    chartKey = key;
  }

  // renderOverview draws the whole log (the selected counter, or every
  // shown one) with the range selected; dragging selects a new range.
  function renderOverview() {
    const el = $('overview');
    const width = Math.max(300, el.clientWidth - 8);
    const sel = state.series.find((s) => s.key === state.selected);
    const shown = sel ? [sel] : state.series.filter((s) => s.show);
    const key = JSON.stringify([width, log.info?.id, log.times.length, log.win, state.ymin, state.ymax, shown.map((s) => [s.key, s.color, app.scaleOf(s)]), app.cssVar('--fg')]);
    const data = [log.times.slice(), ...shown.map((s) => scaled(s, log.times.map((_, k) => at(s, k))))];
    if (!overview || key !== overviewKey) {
      if (overview) overview.destroy();
      const ax = axes(overviewAxes, logSpan);
      overview = new uPlot({
        width, height: 90,
        legend: { show: false },
        cursor: { drag: { x: true, y: false, setScale: false }, points: { show: false } },
        select: { show: true },
        tzDate: (ts) => uPlot.tzDate(new Date((ts + offsetAt(ts)) * 1e3), 'Etc/UTC'),
        scales: { x: { time: true, range: (u, lo, hi) => (lo === hi ? [lo - 30, hi + 30] : [lo, hi]) }, y: { auto: false, range: [state.ymin, state.ymax] } },
        axes: [ax[0], { ...ax[1], show: false }],
        series: [{}, ...shown.map((s) => ({ stroke: s.color, width: 1, fill: s.color + '33', spanGaps: false }))],
        hooks: {
          setSelect: [(u) => {
            if (u.select.width < 2) return; // a click, not a drag
            const lo = u.posToVal(u.select.left, 'x'), hi = u.posToVal(u.select.left + u.select.width, 'x');
            setTimeRange(lo, hi);
          }],
        },
      }, data, el);
      overview.root.setAttribute('role', 'img');
      overview.root.setAttribute('aria-label', 'The whole log; drag to select a time range');
      overviewKey = key;
    } else {
      overview.setData(data);
    }
    // Show the range as the selection.
    if (log.times.length) {
      const a = overview.valToPos(log.times[log.from], 'x'), b = overview.valToPos(log.times[log.to], 'x');
      overview.setSelect({ left: Math.min(a, b) - 2, width: Math.abs(b - a) + 4, top: 0, height: overview.bbox.height / devicePixelRatio }, false);
    }
  }

  // render is called by app.js's render in log mode.
  function render() {
    if (!active()) return;
    renderOverview();
    const chartView = ['line', 'area', 'stacked'].includes(state.view);
    if (chartView) renderChart();
  }

  // ---- wiring ---------------------------------------------------------------

  async function upload(file) {
    app.setStatus(`Reading ${file.name}…`);
    try {
      const info = await app.api(`/v1/logs?name=${encodeURIComponent(file.name)}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/octet-stream' },
        body: file,
      });
      open(info, true);
    } catch (e) {
      app.setStatus(`${file.name}: not opened, ${e.message || e}`, true);
    }
  }

  $('open-log').addEventListener('click', () => $('log-file').click());
  $('log-file').addEventListener('change', (e) => {
    const f = e.target.files[0];
    e.target.value = '';
    if (f) upload(f);
  });
  $('close-log').addEventListener('click', close);
  $('zoom-in').addEventListener('click', () => zoom(0.5));
  $('zoom-out').addEventListener('click', () => zoom(2));
  $('whole-log').addEventListener('click', () => setRange(0, log.times.length - 1));
  for (const id of ['from', 'to']) {
    $(id).addEventListener('change', () => {
      const n = log.times.length;
      const a = Math.round(Number($('from').value)), b = Math.round(Number($('to').value));
      if (!Number.isFinite(a) || !Number.isFinite(b) || a < 1 || b < 1 || a > n || b > n) {
        app.setStatus(`the range's samples are 1 to ${n}`, true);
        applyRange();
        return;
      }
      setRange(a - 1, b - 1);
    });
  }

  // start opens the log set the server was given (perfc perfmon LOG),
  // if any; a server without /v1/logs leaves the page live.
  async function start() {
    try {
      const list = await app.api('/v1/logs');
      if (list.logs?.length) open(list.logs[list.logs.length - 1], false);
    } catch { /* no log API here: live only */ }
  }

  window.perfmon.log = () => ({
    id: log.info?.id ?? null, computer: log.info?.computers[0] ?? '', samples: log.times.length, from: log.from, to: log.to,
    win: log.win.slice(), cut: log.cut,
    loading: log.loading, times: log.times.slice(), view: chart?.root.dataset.view ?? null,
    computers: log.info?.computers.slice() ?? [],
    axes: { ...chartAxes, x: chartAxes.x.slice(), xAt: chartAxes.xAt.slice(), y: chartAxes.y.slice(), overview: overviewAxes.x.slice() },
    data: chart ? chart.data.map((d) => Array.from(d)) : null,
  });
  window.perfmon.setRange = setRange;

  // computers are the computers the open log names.
  function computers() { return log.info ? log.info.computers.slice() : []; }

  return { active, open, close, fetch, render, start, computers, chart: () => chart };
}


