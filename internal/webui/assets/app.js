// The perfmon page: state, polling of /v1/formatted, the three views,
// legend, value bar and the Add Counters dialog. Plain DOM, uPlot for the
// line graph (the global uPlot of vendor/uPlot.iife.min.js).
import {
  COLORS, SCALES, MAX_PATHS, parsePath, makePath, stats, scaleToFit, scaleLabel,
  formatValue, formatDuration, clampInt, settingsOf, parseSettings, encodeLink, decodeLink, exportText,
  yTicks, tickLabel, localOffset,
} from './model.js';
import { timeAxis, valueAxis, valueAxisWidth } from './axes.js';
import { initLogs } from './logs.js';
import { captureSession, sessionHeaders } from './session.js';
import { initConsole } from './sets.js';

const $ = (id) => document.getElementById(id);

// The page's state. requests are the paths asked of the server (wildcards
// stay wildcards); series are the concrete counters their answers gave,
// each with values aligned with times. The names of perfmon's properties
// (DisplayType, UpdateInterval, DataPointCount, MinimumScale,
// MaximumScale, ReportValueType, ManualUpdate) are noted beside theirs:
// saved settings and links (the item 5, not built yet) are this
// object's fields under those names.
const state = {
  view: 'line',          // DisplayType: line, histogram, report
  interval: 1,           // UpdateInterval, seconds, >= 1
  points: 100,           // DataPointCount, 2..1000
  ymin: 0,               // MinimumScale
  ymax: 100,             // MaximumScale
  reportValue: 'current', // ReportValueType
  scroll: false,         // ChartScroll: false wraps with a time bar, as perfmon
  total: 0,              // samples added since the start or the last clear
  frozen: false,         // ManualUpdate
  legend: true,          // ShowLegend
  valueBar: true,        // ShowValueBar
  highlight: false,      // Highlight: the selected counter stands out (Ctrl+H)
  requests: [],          // {path, excluded: Set, defaultScales: Map lower-case counter->exponent}
  series: [],            // {key, request, color, scale (null: default), show, values, parts}
  times: [],             // sample times, seconds since the epoch
  selected: null,        // key of the selected series
  nextColor: 0,
  host: null,            // /v1/host
  wanted: new Map(),     // lower-case request path -> {color, scale, show} of loaded settings
};

// liveSource is the data source of current activity: the server's
// formatted values, one POST for every path. A log source (the issue's
// item 4: BLG, CSV, SQL, our binary logs) is another object with the
// same formatted(paths) answering from the log, plus a time range.
const liveSource = {
  name: 'live',
  formatted: (paths) => api('/v1/formatted', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ paths }),
  }),
};
state.source = liveSource;

let timer = 0;
// ready: start() is done (for tests: what the page opened with is set).
let ready = false;
let polling = false;
let chart = null;
let chartKey = '';
let legendKey = '';
// logs is log mode (logs.js): set before start.
let logs = null;
const inLog = () => logs?.active() ?? false;

// ---- server ------------------------------------------------------------

async function api(path, init) {
  const r = await fetch(path, { credentials: 'same-origin', ...init, headers: sessionHeaders(init?.headers) });
  if (!r.ok) {
    let reason = `${r.status} ${r.statusText}`;
    try { const e = await r.json(); reason = e.error.reason || reason; } catch { /* not JSON */ }
    if (r.status === 401) reason = 'not authorised: open the address perfc perfmon printed (' + reason + ')';
    throw new Error(reason);
  }
  return r.json();
}

// statusKept: the status line holds the error of something the user did
// (a refused upload, settings file or link): a sample's plain line does
// not replace it, only a sample's problems or the next message do.
let statusKept = false;

// setStatus writes the status line; fromSample says the polling wrote it.
function setStatus(text, error, fromSample) {
  const s = $('status');
  s.textContent = text;
  s.classList.toggle('error', !!error);
  statusKept = !!error && !fromSample;
}

// poll asks for every path of the page in one request and appends one
// sample; an answer whose time is the previous one's (the server's shared
// sample did not change) adds nothing.
async function poll() {
  // Only the live host is polled: a timer set before a log opened finds
  // the page in log mode, where the log's own status stands.
  if (polling || state.requests.length === 0 || state.source !== liveSource) return;
  polling = true;
  // An answer (or failure) of a source the page has left meanwhile (a
  // log opened) is dropped.
  const src = state.source;
  try {
    const ans = await src.formatted(state.requests.map((q) => q.path));
    if (state.source === src) addSample(ans);
  } catch (e) {
    if (state.source === src) setStatus(String(e.message || e), true, true);
  } finally {
    polling = false;
  }
}

function addSample(ans) {
  const t = Date.parse(ans.time) / 1000;
  if (state.times.length && t <= state.times[state.times.length - 1]) return;
  const now = new Map();
  const problems = [];
  ans.counters.forEach((c, i) => {
    const q = state.requests[i];
    if (!q || q.path !== c.path) return; // the page changed meanwhile
    if (c.status !== 'PDH_CSTATUS_VALID_DATA') problems.push(`${c.path}: ${c.reason || c.status}`);
    for (const it of c.items || []) {
      if (q.excluded.has(it.path)) continue;
      let s = findSeries(it.path);
      if (!s) s = newSeries(it.path, q);
      now.set(s, it.status === 'PDH_CSTATUS_VALID_DATA' && it.value != null ? it.value : NaN);
    }
  });
  // Objects the host delivered in part or not at all (their values are
  // NaN above: "no data", never a number). A live series holds numbers
  // only, NaN for no value: an array of doubles, 8 bytes a value and no
  // object a sample, where null among numbers would box every number.
  // Only problems of the objects the page shows (or of the host as a
  // whole): the server's sample may hold objects others asked for.
  const shown = new Set(state.requests.map((q) => {
    const p = parsePath(q.path);
    return (p.machine ? `\\\\${p.machine}\\${p.object}` : p.object).toLowerCase();
  }));
  for (const pr of ans.problems || []) {
    if (pr.object && pr.objectName && !shown.has(pr.objectName.toLowerCase())) continue;
    problems.push(`${pr.objectName || 'host'}: ${pr.reason}`);
  }
  state.times.push(t);
  state.total++;
  for (const s of state.series) s.values.push(now.has(s) ? now.get(s) : NaN);
  trim();
  if (problems.length) setStatus(problems.join('; '), true, true);
  else if (!statusKept) setStatus(`${ans.host}: ${state.series.length} counters, sample of ${new Date(t * 1000).toLocaleTimeString()}`, false, true);
  render();
}

// trim keeps the latest DataPointCount samples. A counter of a wildcard
// path with no value in a whole graph (a process that ended) leaves the
// page, so instances that come and go do not pile up.
function trim() {
  if (inLog()) return; // a log's range holds every sample of it
  const extra = state.times.length - state.points;
  if (extra > 0) {
    state.times.splice(0, extra);
    for (const s of state.series) s.values.splice(0, extra);
  }
  const gone = (s) => s.request.path.includes('*') && s.values.length >= state.points && s.values.every(noValue);
  if (state.series.some(gone)) {
    state.series = state.series.filter((s) => !gone(s));
    if (!findSeries(state.selected)) state.selected = state.series[0]?.key ?? null;
  }
}

// sourceComputer is the computer of counters whose paths name none: the
// log's (its first) in log mode, the host's live.
function sourceComputer() {
  return (inLog() ? window.perfmon.log().computer : state.host?.name) || '';
}

function findSeries(key) { return state.series.find((s) => s.key === key); }

// noValue tells a sample without a value: NaN live, null in a log.
function noValue(v) { return v == null || Number.isNaN(v); }

function newSeries(key, request) {
  const parts = parsePath(key);
  const s = {
    key, request, parts,
    color: COLORS[state.nextColor++ % COLORS.length],
    scale: null, show: true,
    values: state.times.map(() => NaN),
  };
  const w = state.wanted.get(request.path.toLowerCase());
  if (w) {
    // Loaded settings: a wildcard's instances keep colours of the cycle.
    if (w.color && !request.path.includes('*')) s.color = w.color;
    s.scale = w.scale;
    s.show = w.show;
  }
  state.series.push(s);
  if (!state.selected) state.selected = key;
  return s;
}

function scaleOf(s) {
  return s.scale ?? defaultScaleOf(s);
}

// defaultScaleOf is a counter's default scale (its definition's
// DefaultScale), 0 while the page does not know it.
function defaultScaleOf(s) {
  return s.request.defaultScales.get(s.parts.counter.toLowerCase()) ?? 0;
}

// scaleLists caches what the page learnt of objects' counters' default
// scales: objects URL (with computer) -> promise of a Map lower-case
// counter name -> exponent (empty when the object could not be read).
const scaleLists = new Map();

// lookupScales learns the default scales of a request's counters when
// they came without (a link, a settings file, the page's default
// counter, the console): GET of its object, of the computer the path
// names or of the log, as Add Counters would list it.
async function lookupScales(q) {
  const parts = parsePath(q.path);
  if (!parts.object) return;
  const comp = parts.machine && !inLog() ? '&computer=' + encodeURIComponent(parts.machine) : '';
  const url = `${objectsBase()}/${encodeURIComponent(parts.object)}?detail=wizard${comp}`;
  if (!scaleLists.has(url)) {
    scaleLists.set(url, api(url).then(
      (o) => new Map((o.counters || []).map((c) => [c.name.toLowerCase(), c.defaultScale ?? 0])),
      () => { scaleLists.delete(url); return new Map(); }));
  }
  const scales = await scaleLists.get(url);
  if (!state.requests.includes(q) || scales.size === 0) return;
  q.defaultScales = scales;
  render();
}

function schedule() {
  clearTimeout(timer);
  if (state.frozen || state.source !== liveSource) return;
  timer = setTimeout(async () => { await poll(); pollAlerts(); schedule(); }, state.interval * 1000);
}

// ---- alerts --------------------------------------------------------------

// alerts maps a counter path (without a computer name) to the firing
// alerts of the host's alert sets (GET /v1/sets) that judge it; the
// legend marks those counters. A server without sets, or a caller
// without the right to list them, marks nothing.
let alerts = new Map();
let alertsAsked = 0;

async function pollAlerts() {
  if (state.source !== liveSource || Date.now() - alertsAsked < 5000) return;
  alertsAsked = Date.now();
  const next = new Map();
  try {
    const ans = await api('/v1/sets');
    for (const set of ans.sets || []) {
      for (const a of set.alerts || []) {
        if (!a.firing) continue;
        const key = bareCounterPath(a.counter).toLowerCase();
        const list = next.get(key) || [];
        list.push(`alert set ${set.name}: ${a.threshold} fired (value ${formatValue(a.value)}, ${a.fired} times)`);
        next.set(key, list);
      }
    }
  } catch { /* no sets here: nothing to mark */ }
  alerts = next;
  renderLegend();
}

// bareCounterPath is a path without its \\computer part.
function bareCounterPath(p) { return p.replace(/^\\\\[^\\]+/, ''); }

// addPaths adds counter paths to the page (a path already there is left
// alone) and fetches at once; defaultScales maps lower-case counter
// names to their default scale exponents (without it, the page asks the
// server for them).
export function addPaths(paths, defaultScales = null) {
  let added = 0;
  for (const path of paths) {
    if (state.requests.some((q) => q.path.toLowerCase() === path.toLowerCase())) continue;
    if (state.requests.length >= MAX_PATHS) {
      setStatus(`${path}: not added, the page has ${MAX_PATHS} counter paths, the most one request may ask for`, true);
      break;
    }
    const q = { path, excluded: new Set(), defaultScales: defaultScales ?? new Map() };
    state.requests.push(q);
    if (!defaultScales) lookupScales(q);
    added++;
  }
  if (added && inLog()) logs.fetch();
  else if (added) { poll(); schedule(); }
  return added;
}

// ---- rendering ---------------------------------------------------------

function render() {
  renderLegend();
  renderValueBar();
  // Log mode draws its line, area and stacked area views in #logchart.
  const logChart = inLog() && ['line', 'area', 'stacked'].includes(state.view);
  for (const v of ['line', 'histogram', 'report', 'area', 'stacked']) {
    $('view-' + v).setAttribute('aria-pressed', String(state.view === v));
  }
  for (const v of ['line', 'histogram', 'report']) $(v).hidden = state.view !== v || logChart;
  $('logchart').hidden = !logChart;
  $('view-area').disabled = $('view-stacked').disabled = !inLog();
  if (inLog()) logs.render();
  if (state.view === 'line' && !logChart) renderLine();
  if (state.view === 'histogram') renderHistogram();
  if (state.view === 'report') renderReport();
  const sel = findSeries(state.selected);
  $('remove').disabled = !sel;
  $('fit').disabled = !sel;
  $('step').disabled = !state.frozen;
  // The report shows neither the value bar nor the legend, as perfmon's.
  $('legend').hidden = !state.legend;
  $('legend-pane').hidden = !state.legend || state.view === 'report';
  $('valuebar').hidden = !state.valueBar || state.view === 'report';
  renderTitle();
  $('show-legend').checked = state.legend;
  $('show-valuebar').checked = state.valueBar;
  $('highlight').checked = state.highlight;
  document.body.classList.toggle('highlight', state.highlight);
  document.body.dataset.view = state.view;
  $('freeze').setAttribute('aria-pressed', String(state.frozen));
}

// renderTitle names the computer whose counters the page shows: the
// host's live, the log's computers in log mode.
function renderTitle() {
  const names = inLog() ? logs.computers() : (state.host ? [state.host.name] : []);
  const text = names.map((n) => '\\\\' + n).join(', ');
  if ($('host').textContent !== text) $('host').textContent = text;
  const title = `Performance Monitor ${text}${text ? ' ' : ''}- perfc`;
  if (document.title !== title) document.title = title;
}

function cssVar(name) { return getComputedStyle(document.documentElement).getPropertyValue(name).trim(); }

function scaled(s) {
  const f = 10 ** scaleOf(s);
  return s.values.map((v) => (noValue(v) ? null : v * f));
}

// lineData is the graph's data. Scrolling (ChartScroll), x is the sample
// times and the graph ends at the latest. Wrapping (perfmon's default),
// x is the slot 0..DataPointCount-1 and sample k is drawn at slot k mod
// DataPointCount: the newest overwrite the oldest left to right, with
// the time bar after the newest and a gap before the oldest.
function lineData() {
  if (state.scroll) return [state.times.slice(), ...state.series.map(scaled)];
  const n = state.points, len = state.times.length, first = state.total - len;
  const place = (vals) => {
    const out = new Array(n).fill(null);
    vals.forEach((v, i) => { out[(first + i) % n] = v; });
    if (len === n) out[state.total % n] = null;
    return out;
  };
  return [Array.from({ length: n }, (_, i) => i), ...state.series.map((s) => place(scaled(s)))];
}

// lineAxes are the labels the line graph's axes drew last (x, y).
const lineAxes = { x: [], xAt: [], step: 0, y: [] };

// slotTime is the local wall-clock time of the sample a wrapping graph
// shows at slot (seconds, the browser's offset from UTC added): the
// labels of its x axis; null for a slot without a sample, and for the
// gap before the oldest.
function slotTime(slot) {
  const n = state.points, len = state.times.length, first = state.total - len;
  if (!Number.isInteger(slot) || slot < 0 || slot >= n || len === 0) return null;
  const i = (((slot - first) % n) + n) % n;
  if (i >= len || (len === n && i === 0)) return null;
  const t = state.times[i];
  return t + localOffset(t);
}

function renderLine() {
  const el = $('line');
  const width = Math.max(300, el.clientWidth - 8);
  const key = JSON.stringify([width, state.ymin, state.ymax, state.selected, state.highlight, state.scroll, state.points,
    state.series.map((s) => [s.key, s.color, s.show])]);
  const data = lineData();
  if (chart && key === chartKey) {
    chart.setData(data);
    // Wrapping, the x scale stays 0..points-1: its time labels follow
    // the samples only when the axes are computed again.
    if (!state.scroll) chart.redraw(false, true);
    return;
  }
  if (chart) chart.destroy();
  const fg = cssVar('--fg'), colors = { fg, grid: cssVar('--grid') };
  const x = state.scroll
    // The time axis spans the graph's duration (points x interval),
    // ending at the latest sample.
    ? { time: true, range: (u, lo, hi) => (hi == null ? [0, 1] : [hi - (state.points - 1) * state.interval, hi]) }
    : { time: false, range: () => [0, state.points - 1] };
  const timeBar = (u) => {
    if (state.scroll || state.total === 0) return;
    const px = u.valToPos((state.total - 1) % state.points, 'x', true);
    const c = u.ctx;
    c.save();
    c.strokeStyle = fg;
    c.lineWidth = 2 * devicePixelRatio;
    c.beginPath();
    c.moveTo(px, u.bbox.top);
    c.lineTo(px, u.bbox.top + u.bbox.height);
    c.stroke();
    c.restore();
  };
  chart = new uPlot({
    width, height: 320,
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    scales: { x, y: { auto: false, range: [state.ymin, state.ymax] } },
    axes: [
      timeAxis(colors, state.scroll
        ? { wallOf: (t) => t + localOffset(t), span: () => (state.points - 1) * state.interval, drawn: lineAxes }
        : { wallOf: slotTime, unit: state.interval, span: () => state.points * state.interval, drawn: lineAxes }),
      valueAxis(colors, { min: state.ymin, max: state.ymax, drawn: lineAxes }),
    ],
    // No point markers: perfmon draws none, and uPlot's default draws a
    // circle at every sample once samples are twice a marker's size
    // apart (11 px for these lines: the default 100 points on a window
    // wider than about 1,150 px), 10,000 arcs a redraw for 100 counters.
    series: [{}, ...state.series.map((s) => ({
      label: s.key, stroke: s.color, show: s.show, spanGaps: false, points: { show: false },
      width: state.highlight && s.key === state.selected ? 3.5 : 1.25,
    }))],
    hooks: { draw: [timeBar] },
  }, data, el);
  chart.root.setAttribute('role', 'img');
  chart.root.setAttribute('aria-label', `Line graph of ${state.series.length} counters over ${state.times.length} samples`);
  chartKey = key;
}

// histogramGap is the gap in CSS pixels between the histogram's bars,
// which share the plot's whole width equally, as perfmon draws them: it
// narrows as the counters grow many (none past 200).
function histogramGap(n) { return n > 200 ? 0 : n > 50 ? 1 : 4; }

// renderHistogram draws a bar for each shown counter, its height the
// counter's report value on the vertical scale, with the line graph's
// ticks (yTicks, tickLabel) and gridlines beside them.
function renderHistogram() {
  const el = $('histogram');
  el.replaceChildren();
  const ticks = yTicks(state.ymin, state.ymax);
  const pos = (v) => ((v - state.ymin) / (state.ymax - state.ymin || 1)) * 100;
  const axis = document.createElement('div');
  axis.className = 'axis';
  axis.setAttribute('aria-hidden', 'true');
  axis.style.width = valueAxisWidth(ticks.map(tickLabel)) + 'px';
  const plot = document.createElement('div');
  plot.className = 'plot';
  for (const v of ticks) {
    const d = document.createElement('span');
    d.textContent = tickLabel(v);
    d.style.bottom = pos(v).toFixed(3) + '%';
    axis.append(d);
    const g = document.createElement('div');
    g.className = 'grid';
    g.style.bottom = pos(v).toFixed(3) + '%';
    plot.append(g);
  }
  const bars = document.createElement('div');
  bars.className = 'bars';
  bars.setAttribute('role', 'list');
  const shown = state.series.filter((s) => s.show);
  const gap = histogramGap(shown.length);
  bars.style.gap = bars.style.paddingLeft = bars.style.paddingRight = gap + 'px';
  for (const s of shown) {
    const v = reportValue(s);
    const sv = v == null ? null : v * 10 ** scaleOf(s);
    const frac = sv == null ? 0 : Math.min(1, Math.max(0, (sv - state.ymin) / (state.ymax - state.ymin || 1)));
    const b = document.createElement('div');
    b.className = 'bar' + (s.key === state.selected ? ' selected' : '');
    b.setAttribute('role', 'listitem');
    b.style.background = s.color;
    b.style.height = (frac * 100).toFixed(2) + '%';
    b.title = `${s.key}: ${formatValue(v)}`;
    b.setAttribute('aria-label', b.title);
    bars.append(b);
  }
  plot.append(bars);
  el.append(axis, plot);
}

function reportValue(s) {
  const st = stats(s.values);
  switch (state.reportValue) {
    case 'average': return st.average;
    case 'minimum': return st.minimum;
    case 'maximum': return st.maximum;
    default: { const v = s.values[s.values.length - 1]; return noValue(v) ? null : v; }
  }
}

// renderReport writes perfmon's report: per computer, each object as a
// table with its instances as columns and its counters as rows.
function renderReport() {
  const groups = new Map();
  for (const s of state.series) {
    if (!s.show) continue;
    const machine = s.parts.machine || sourceComputer();
    const g = `${machine}\u0000${s.parts.object}`;
    if (!groups.has(g)) groups.set(g, { machine, object: s.parts.object, instances: [], counters: new Map() });
    const grp = groups.get(g);
    if (!grp.instances.includes(s.parts.instance)) grp.instances.push(s.parts.instance);
    if (!grp.counters.has(s.parts.counter)) grp.counters.set(s.parts.counter, new Map());
    grp.counters.get(s.parts.counter).set(s.parts.instance, s);
  }
  const out = [];
  let lastMachine = null;
  for (const grp of groups.values()) {
    if (grp.machine !== lastMachine) {
      const h = document.createElement('h3');
      h.textContent = '\\\\' + grp.machine;
      out.push(h);
      lastMachine = grp.machine;
    }
    const table = document.createElement('table');
    const head = table.createTHead().insertRow();
    head.className = 'object';
    const oth = document.createElement('th');
    oth.scope = 'col';
    oth.textContent = grp.object;
    head.append(oth);
    for (const inst of grp.instances) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.className = 'instance';
      th.textContent = inst;
      head.append(th);
    }
    const body = table.createTBody();
    for (const [counter, byInst] of grp.counters) {
      const tr = body.insertRow();
      tr.className = 'counter';
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = counter;
      tr.append(th);
      for (const inst of grp.instances) {
        const td = tr.insertCell();
        td.className = 'value';
        const s = byInst.get(inst);
        if (s) {
          const v = reportValue(s);
          td.textContent = formatValue(v);
          td.dataset.path = s.key;
          td.dataset.value = v == null ? '' : String(v);
          if (s.key === state.selected) td.classList.add('selected');
        }
      }
    }
    out.push(table);
  }
  $('report').replaceChildren(...out);
}

function renderValueBar() {
  const s = findSeries(state.selected);
  const st = s ? stats(s.values) : stats([]);
  $('vb-last').textContent = formatValue(s ? s.values[s.values.length - 1] : null);
  $('vb-average').textContent = formatValue(st.average);
  $('vb-minimum').textContent = formatValue(st.minimum);
  $('vb-maximum').textContent = formatValue(st.maximum);
  // A log's duration is its range's span; live, the graph's.
  const n = state.times.length;
  $('vb-duration').textContent = formatDuration(inLog() ? (n ? state.times[n - 1] - state.times[0] : 0) : state.points * state.interval);
}

// renderLegend rebuilds the legend when what it shows changed, never for
// a new sample alone: an open list or colour picker in it stays open.
function renderLegend() {
  const key = JSON.stringify([state.selected, sourceComputer(), state.series.map((s) => [s.key, s.color, s.scale, defaultScaleOf(s), s.show]), [...alerts.keys()]]);
  if (key === legendKey) return;
  legendKey = key;
  const body = $('legend-rows');
  const focused = document.activeElement?.dataset?.focusKey;
  body.replaceChildren();
  for (const s of state.series) {
    const tr = body.insertRow();
    if (s.key === state.selected) tr.className = 'selected';
    tr.dataset.path = s.key;

    const show = document.createElement('input');
    show.type = 'checkbox';
    show.checked = s.show;
    show.setAttribute('aria-label', 'Show ' + s.key);
    show.dataset.focusKey = 'show' + s.key;
    show.addEventListener('change', () => { s.show = show.checked; render(); });
    tr.insertCell().append(show);

    const color = document.createElement('input');
    color.type = 'color';
    color.value = s.color;
    color.setAttribute('aria-label', 'Colour of ' + s.key);
    color.dataset.focusKey = 'color' + s.key;
    color.addEventListener('change', () => { s.color = color.value; render(); });
    tr.insertCell().append(color);

    const scale = document.createElement('select');
    scale.setAttribute('aria-label', 'Scale of ' + s.key);
    scale.dataset.focusKey = 'scale' + s.key;
    const def = document.createElement('option');
    def.value = '';
    def.textContent = `Default (${scaleLabel(defaultScaleOf(s))})`;
    scale.append(def);
    for (const e of SCALES) {
      const o = document.createElement('option');
      o.value = String(e);
      o.textContent = scaleLabel(e);
      scale.append(o);
    }
    scale.value = s.scale == null ? '' : String(s.scale);
    scale.addEventListener('change', () => { s.scale = scale.value === '' ? null : Number(scale.value); render(); });
    tr.insertCell().append(scale);

    const name = document.createElement('button');
    name.type = 'button';
    name.className = 'name';
    name.textContent = s.parts.counter;
    const tripped = inLog() ? null : alerts.get(bareCounterPath(s.key).toLowerCase());
    if (tripped) {
      tr.classList.add('alert-tripped');
      name.textContent = '⚠ ' + s.parts.counter;
      name.title = tripped.join('\n');
    }
    name.setAttribute('aria-label', 'Select ' + s.key);
    name.setAttribute('aria-pressed', String(s.key === state.selected));
    name.dataset.focusKey = 'name' + s.key;
    name.addEventListener('click', () => { state.selected = s.key; render(); });
    tr.insertCell().append(name);
    tr.insertCell().textContent = s.parts.instance || '---';
    tr.insertCell().textContent = s.parts.object;
    tr.insertCell().textContent = '\\\\' + (s.parts.machine || sourceComputer());

    const rm = document.createElement('button');
    rm.type = 'button';
    rm.textContent = '✕';
    rm.setAttribute('aria-label', 'Remove ' + s.key);
    rm.dataset.focusKey = 'rm' + s.key;
    rm.addEventListener('click', () => removeSeries(s));
    tr.insertCell().append(rm);
  }
  if (focused) body.querySelector(`[data-focus-key="${CSS.escape(focused)}"]`)?.focus();
}

// DEFAULT_PATH is the counter the page opens with, as perfmon does.
const DEFAULT_PATH = '\\Processor(_Total)\\% Processor Time';
// DECLINED_KEY, set in sessionStorage, records that the user removed the
// default counter: the page does not bring it back in this tab's session.
const DECLINED_KEY = 'perfc-default-removed';

// removeSeries takes a counter off the page. One that came from a
// wildcard path stays excluded from it; a path left with no counter is
// no longer asked for.
function removeSeries(s) {
  const q = s.request;
  state.series = state.series.filter((x) => x !== s);
  if (q.path.toLowerCase() === s.key.toLowerCase() || !q.path.includes('*')) {
    state.requests = state.requests.filter((x) => x !== q);
    if (q.path === DEFAULT_PATH && !inLog()) sessionStorage.setItem(DECLINED_KEY, '1');
  } else {
    q.excluded.add(s.key);
  }
  if (state.selected === s.key) state.selected = state.series[0]?.key ?? null;
  // A page emptied of counters starts the colours' cycle again.
  if (state.series.length === 0) state.nextColor = 0;
  render();
  $('remove').disabled || $('remove').focus();
}

// ---- toolbar -----------------------------------------------------------

function wireToolbar() {
  for (const v of ['line', 'histogram', 'report', 'area', 'stacked']) {
    $('view-' + v).addEventListener('click', () => { state.view = v; render(); });
  }
  $('add').addEventListener('click', openAddCounters);
  $('remove').addEventListener('click', () => { const s = findSeries(state.selected); if (s) removeSeries(s); });
  $('fit').addEventListener('click', () => {
    const s = findSeries(state.selected);
    if (!s) return;
    s.scale = scaleToFit(stats(s.values).maximum, state.ymax);
    render();
  });
  $('freeze').addEventListener('click', () => {
    state.frozen = !state.frozen;
    render();
    schedule();
  });
  $('step').addEventListener('click', () => poll());
  $('clear').addEventListener('click', () => {
    state.times = [];
    state.total = 0;
    for (const s of state.series) s.values = [];
    render();
  });
  $('interval').addEventListener('change', (e) => {
    state.interval = clampInt(e.target.value, 1, 86400, 1);
    e.target.value = state.interval;
    schedule();
    render();
  });
  $('points').addEventListener('change', (e) => {
    state.points = clampInt(e.target.value, 2, 1000, 100);
    e.target.value = state.points;
    trim();
    render();
  });
  for (const id of ['ymin', 'ymax']) {
    $(id).addEventListener('change', () => {
      const lo = Number($('ymin').value), hi = Number($('ymax').value);
      if (Number.isFinite(lo) && Number.isFinite(hi) && hi > lo) {
        state.ymin = lo; state.ymax = hi;
        setStatus('');
      } else {
        setStatus('the maximum must be above the minimum', true);
      }
      render();
    });
  }
  $('scroll').addEventListener('change', (e) => { state.scroll = e.target.checked; render(); });
  $('show-legend').addEventListener('change', (e) => { state.legend = e.target.checked; render(); });
  $('show-valuebar').addEventListener('change', (e) => { state.valueBar = e.target.checked; render(); });
  $('highlight').addEventListener('change', (e) => { state.highlight = e.target.checked; render(); });
  // Ctrl+H toggles Highlight, as in perfmon.
  document.addEventListener('keydown', (e) => {
    if (!e.ctrlKey || e.altKey || e.metaKey || (e.key !== 'h' && e.key !== 'H')) return;
    if (e.target.closest?.('dialog')) return;
    e.preventDefault();
    state.highlight = !state.highlight;
    render();
  });
  $('reportvalue').addEventListener('change', (e) => { state.reportValue = e.target.value; render(); });
  // In the legend: Delete removes the selected counter, the arrow keys
  // select the one above or below.
  document.addEventListener('keydown', (e) => {
    if (!e.target.closest?.('#legend')) return;
    const i = state.series.findIndex((s) => s.key === state.selected);
    if (e.key === 'Delete' && i >= 0) {
      e.preventDefault();
      removeSeries(state.series[i]);
    } else if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && e.target.classList.contains('name')) {
      const j = i + (e.key === 'ArrowDown' ? 1 : -1);
      if (j < 0 || j >= state.series.length) return;
      e.preventDefault();
      state.selected = state.series[j].key;
      render();
      document.querySelector(`#legend [data-focus-key="${CSS.escape('name' + state.selected)}"]`)?.focus();
    }
  });
  let rt = 0;
  window.addEventListener('resize', () => { clearTimeout(rt); rt = setTimeout(render, 100); });
  // The graph's axes take the theme's colours when drawn: redraw on a
  // change of theme.
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => { chartKey = ''; render(); });
}

// ---- keep and share -----------------------------------------------------

// currentSettings are the page's settings under perfmon's names: one
// counter for each path asked for, with the colour, scale and visibility
// of its (first) counter; a wildcard's colour is left to the cycle, and
// a counter at its default scale has no ScaleFactor (it comes back as
// "Default (…)", following the counter's own default).
function currentSettings() {
  return settingsOf({
    ...state,
    counters: state.requests.map((q) => {
      const s = state.series.find((x) => x.request === q);
      return {
        path: q.path,
        color: s && !q.path.includes('*') ? s.color : null,
        scale: s ? s.scale : null,
        show: s ? s.show : true,
      };
    }),
  });
}

// applySettings replaces the page's settings and counters with v
// (validateSettings' result).
function applySettings(v) {
  state.view = (v.view === 'area' || v.view === 'stacked') && !inLog() ? 'line' : v.view;
  state.interval = v.interval;
  state.points = v.points;
  state.ymin = v.ymin;
  state.ymax = v.ymax;
  state.reportValue = v.reportValue;
  state.scroll = v.scroll;
  state.frozen = v.frozen;
  state.legend = v.legend;
  state.valueBar = v.valueBar;
  state.highlight = v.highlight;
  state.requests = [];
  state.series = [];
  state.times = [];
  state.total = 0;
  state.selected = null;
  state.nextColor = 0;
  state.wanted = new Map(v.counters.map((c) => [c.path.toLowerCase(), c]));
  $('interval').value = v.interval;
  $('points').value = v.points;
  $('ymin').value = v.ymin;
  $('ymax').value = v.ymax;
  $('scroll').checked = v.scroll;
  $('reportvalue').value = v.reportValue;
  chartKey = '';
  render();
  schedule();
  if (v.counters.length) addPaths(v.counters.map((c) => c.path));
}

function download(name, blob) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 60000);
}

function stamp() { return new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19); }

// fullPath is a counter's path with its computer, as perfmon's logs
// write it.
function fullPath(s) {
  return s.parts.machine ? s.key : '\\\\' + sourceComputer() + s.key;
}

function exportData(sep) {
  return exportText(sep, state.times, state.series.map(fullPath), state.series.map((s) => s.values));
}

function wireKeep() {
  $('save-settings').addEventListener('click', () => {
    download(`perfmon-settings-${stamp()}.json`, new Blob([JSON.stringify(currentSettings(), null, 2) + '\n'], { type: 'application/json' }));
  });
  $('load-settings').addEventListener('click', () => $('settings-file').click());
  $('settings-file').addEventListener('change', async (e) => {
    const f = e.target.files[0];
    e.target.value = '';
    if (f) loadSettingsText(await f.text(), f.name);
  });
  $('copy-link').addEventListener('click', async () => {
    // The link never carries perfc perfmon's key (?token=), should the
    // address still hold it.
    const u = new URL(location.href);
    u.searchParams.delete('token');
    u.hash = encodeLink(currentSettings());
    const url = u.href;
    history.replaceState(null, '', url);
    try {
      await navigator.clipboard.writeText(url);
      setStatus('The link to these settings is copied (and in the address bar).');
    } catch {
      setStatus('The link to these settings is in the address bar.');
    }
  });
  $('save-csv').addEventListener('click', () => download(`perfmon-${stamp()}.csv`, new Blob([exportData(',')], { type: 'text/csv' })));
  $('save-tsv').addEventListener('click', () => download(`perfmon-${stamp()}.tsv`, new Blob([exportData('\t')], { type: 'text/tab-separated-values' })));
  $('save-png').addEventListener('click', () => {
    const c = inLog() ? logs.chart() : chart;
    if (!['line', 'area', 'stacked'].includes(state.view) || !c) { setStatus('The image is of the graph: switch to Line (or a log\'s Area, Stacked area) first.', true); return; }
    c.ctx.canvas.toBlob((b) => { if (b) download(`perfmon-${stamp()}.png`, b); }, 'image/png');
  });
}

// loadSettingsText applies a settings file's text; a file the page
// refuses changes nothing and the status line names the field at fault.
function loadSettingsText(text, name) {
  let v;
  try {
    v = parseSettings(text);
  } catch (e) {
    setStatus(`${name}: not loaded, ${e.message}`, true);
    return false;
  }
  applySettings(v);
  setStatus(`${name}: loaded ${v.counters.length} counters.`);
  return true;
}

// ---- Add Counters ------------------------------------------------------

const dialog = {
  computer: '',    // the computer browsed: '' this one, else a name /v1/host lists
  objects: [],     // /v1/objects' objects
  object: null,    // the selected object, with instances once fetched
  seq: 0,          // answers of older requests are dropped
};

// computerParam is the query parameter naming the computer browsed
// (none for this one): the server reads a remote computer for the page,
// by the name its hosts file gives it.
function computerParam() {
  return dialog.computer && !inLog() ? '&computer=' + encodeURIComponent(dialog.computer) : '';
}

// fillComputers lists this computer and the remote ones the server reads.
function fillComputers(host) {
  const sel = $('ac-computer');
  sel.replaceChildren(new Option(`${host.name} (local)`, ''),
    ...(host.computers || []).map((c) => new Option('\\\\' + c, c)));
  sel.disabled = sel.options.length < 2;
}

async function openAddCounters() {
  $('addcounters').showModal();
  if (dialog.objects.length === 0) await loadObjects();
  $('ac-objects').focus();
}

async function loadObjects() {
  const seq = ++dialog.seq;
  const detail = $('ac-detail').value;
  const costly = $('ac-costly').checked ? '1' : '0';
  $('ac-status').textContent = 'Reading objects…';
  try {
    const ans = await api(`${objectsBase()}?detail=${detail}&costly=${costly}${computerParam()}`);
    if (seq !== dialog.seq) return;
    dialog.objects = ans.objects.slice().sort((a, b) => a.name.localeCompare(b.name));
    const sel = $('ac-objects');
    const keep = dialog.object?.name;
    sel.replaceChildren(...dialog.objects.map((o) => new Option(o.name, o.name)));
    $('ac-status').textContent = `${dialog.objects.length} objects`;
    const i = Math.max(0, dialog.objects.findIndex((o) => o.name === keep));
    if (dialog.objects.length) { sel.selectedIndex = i; await selectObject(); }
  } catch (e) {
    if (seq !== dialog.seq) return;
    dialog.objects = [];
    dialog.object = null;
    for (const id of ['ac-objects', 'ac-counters', 'ac-instances']) $(id).replaceChildren();
    $('ac-description').replaceChildren();
    $('ac-status').textContent = 'Objects: ' + (e.message || e);
  }
}

async function selectObject() {
  const o = dialog.objects.find((x) => x.name === $('ac-objects').value);
  if (!o) return;
  dialog.object = o;
  const cs = $('ac-counters');
  cs.replaceChildren(...o.counters.map((c) => {
    const opt = new Option(c.name, c.name);
    opt.selected = c.name === o.defaultCounter;
    return opt;
  }));
  if (cs.selectedIndex < 0 && cs.options.length) cs.selectedIndex = 0;
  describe(o.name, o.help);
  $('ac-instances').replaceChildren();
  $('ac-all').checked = false;
  $('ac-all').disabled = !o.multiInstance;
  $('ac-search').disabled = !o.multiInstance;
  if (!o.multiInstance) return;
  const seq = ++dialog.seq;
  try {
    const detail = $('ac-detail').value;
    const ans = await api(`${objectsBase()}/${encodeURIComponent(o.name)}?detail=${detail}${computerParam()}`);
    if (seq !== dialog.seq) return;
    o.instances = ans.instances || [];
    fillInstances();
  } catch (e) {
    $('ac-status').textContent = `Instances of ${o.name}: ${e.message || e}`;
  }
}

function fillInstances() {
  const o = dialog.object;
  if (!o?.instances) return;
  const q = $('ac-search').value.toLowerCase();
  const list = o.instances.filter((i) => i.display.toLowerCase().includes(q));
  const sel = $('ac-instances');
  sel.replaceChildren(...list.map((i) => new Option(i.display, i.display)));
  if (list.length && !$('ac-all').checked) sel.options[0].selected = true;
  sel.disabled = $('ac-all').checked;
  $('ac-status').textContent = `${o.instances.length} instances of ${o.name}` + (q ? `, ${list.length} match` : '');
}

function describe(title, text) {
  const d = $('ac-description');
  d.hidden = !$('ac-explain').checked;
  d.replaceChildren();
  const b = document.createElement('strong');
  b.textContent = title;
  d.append(b, document.createElement('br'), text || 'No description.');
}

function addFromDialog() {
  const o = dialog.object;
  if (!o) { $('ac-status').textContent = 'Select an object.'; return; }
  const counters = [...$('ac-counters').selectedOptions].map((x) => x.value);
  if (!counters.length) { $('ac-status').textContent = 'Select one or more counters.'; return; }
  let instances = [''];
  if (o.multiInstance) {
    instances = $('ac-all').checked ? ['*'] : [...$('ac-instances').selectedOptions].map((x) => x.value);
    if (!instances.length) { $('ac-status').textContent = 'Select instances, or All instances.'; return; }
  }
  const paths = [];
  // A remote computer's counters carry its name: \\host\Object(inst)\Counter.
  const machine = dialog.computer ? '\\\\' + dialog.computer : '';
  for (const i of instances) for (const c of counters) paths.push(machine + makePath(o.name, i, c));
  const scales = new Map(o.counters.map((c) => [c.name.toLowerCase(), c.defaultScale ?? 0]));
  const n = addPaths(paths, scales);
  $('ac-status').textContent = n ? `Added ${n} of ${paths.length}: ${paths.slice(0, 3).join(', ')}${paths.length > 3 ? ', …' : ''}` : 'Already on the page.';
}

function wireDialog() {
  $('ac-computer').addEventListener('change', () => {
    dialog.computer = $('ac-computer').value;
    dialog.objects = [];
    dialog.object = null;
    loadObjects();
  });
  $('ac-objects').addEventListener('change', selectObject);
  $('ac-counters').addEventListener('change', () => {
    const o = dialog.object;
    const c = o?.counters.find((x) => x.name === $('ac-counters').value);
    if (c) describe(`${o.name}\\${c.name}`, c.help);
  });
  $('ac-detail').addEventListener('change', loadObjects);
  $('ac-costly').addEventListener('change', loadObjects);
  $('ac-search').addEventListener('input', fillInstances);
  $('ac-all').addEventListener('change', fillInstances);
  $('ac-explain').addEventListener('change', () => { $('ac-description').hidden = !$('ac-explain').checked; });
  $('ac-add').addEventListener('click', addFromDialog);
}

// objectsBase is where the dialog reads objects: the log's in log mode
// (logs.js), the host's otherwise.
function objectsBase() {
  return inLog() ? `/v1/logs/${window.perfmon.log().id}/objects` : '/v1/objects';
}

// ---- start ---------------------------------------------------------------

async function start() {
  captureSession();
  wireToolbar();
  wireDialog();
  wireKeep();
  try {
    state.host = await api('/v1/host');
    fillComputers(state.host);
    sets.start(state.host);
    setStatus('Add counters to begin (Add counters…).');
  } catch (e) {
    setStatus(String(e.message || e), true);
  }
  render();
  schedule();
  await logs.start();
  let linked = false;
  if (location.hash) {
    try {
      const v = decodeLink(location.hash);
      if (v) { applySettings(v); setStatus(`Settings of the link: ${v.counters.length} counters.`); linked = true; }
    } catch (e) {
      setStatus(`The link's settings are not applied: ${e.message}`, true);
      linked = true; // the reason stays on the status line
    }
  }
  // perfmon opens with % Processor Time of _Total plotted: so does the
  // page, live, when no link (or log) chose what it shows and the user
  // has not removed it in this tab's session.
  if (!linked && !inLog() && state.host && state.requests.length === 0 && sessionStorage.getItem(DECLINED_KEY) === null) {
    addPaths([DEFAULT_PATH]);
  }
  ready = true;
}

// window.perfmon is for tests and the console: a read-only look at the
// page's samples, and addPaths.
window.perfmon = {
  series: () => state.series.map((s) => ({ path: s.key, values: s.values.map((v) => (noValue(v) ? null : v)), show: s.show })),
  samples: () => state.times.length,
  total: () => state.total,
  requests: () => state.requests.map((q) => q.path),
  busy: () => polling,
  ready: () => ready,
  frozen: () => state.frozen,
  line: () => lineData(),
  // axes: the labels the line graph's x and y axes drew last, the x
  // axis' ticks (slots wrapping, times scrolling) and their step (s).
  axes: () => ({ ...lineAxes, x: lineAxes.x.slice(), xAt: lineAxes.xAt.slice(), y: lineAxes.y.slice() }),
  addPaths,
  settings: () => currentSettings(),
  loadSettings: (text) => loadSettingsText(text, 'settings'),
  link: () => encodeLink(currentSettings()),
  csv: () => exportData(','),
  tsv: () => exportData('\t'),
  times: () => state.times.slice(),
};

// Log mode's hooks (logs.js).
logs = initLogs({
  state, render, setStatus, api, newSeries, findSeries, scaleOf, cssVar,
  // resetDialog makes the dialog list another source's objects.
  resetDialog: (computers, what) => {
    dialog.seq++; // answers for the source left are dropped
    dialog.objects = [];
    dialog.object = null;
    $('ac-objects').replaceChildren();
    $('ac-counters').replaceChildren();
    $('ac-instances').replaceChildren();
    dialog.computer = ''; // a log's computers are its own
    $('ac-computer').replaceChildren(...computers.map((c) => new Option(`${c} (${what})`, '')));
    $('ac-computer').disabled = true;
  },
  // live goes back to the host's counters.
  live: () => {
    state.source = liveSource;
    dialog.seq++;
    dialog.objects = [];
    dialog.object = null;
    dialog.computer = '';
    if (state.host) fillComputers(state.host);
    chartKey = '';
    setStatus('Live: add counters to begin (Add counters…).');
    render();
    schedule();
  },
});

// The console's tree, Data Collector Sets and Reports (sets.js).
const sets = initConsole({ state, api, setStatus, addPaths, logs, render });

start();
