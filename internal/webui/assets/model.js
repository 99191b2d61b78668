// Pure functions of the perfmon page: counter paths, statistics, scales
// and number formats. No DOM here.

// COLORS are the 16 default counter colours, used in turn as counters are
// added (perfmon cycles through 16 the same way); each reads on light and
// dark backgrounds.
export const COLORS = [
  '#e6194b', '#3cb44b', '#4363d8', '#f58231', '#911eb4', '#42d4f4', '#f032e6', '#9a6324',
  '#808000', '#469990', '#dcbeff', '#ff9f1c', '#aaffc3', '#bfef45', '#fabed4', '#a9a9a9',
];

// MAX_PATHS is the most counter paths the page asks for in one request
// (the API's limit, remote.MaxPaths).
export const MAX_PATHS = 1000;

// SCALES are the exponents a counter's scale may take: 10^-9 .. 10^8.
export const SCALES = Array.from({ length: 18 }, (_, i) => i - 9);

// parsePath splits a counter path as PDH writes it,
// [\\computer]\object[(parent/instance#n)]\counter, into its parts. It
// never throws: a path it cannot split comes back as its counter.
export function parsePath(path) {
  let rest = path;
  let machine = '';
  if (rest.startsWith('\\\\')) {
    const i = rest.indexOf('\\', 2);
    if (i < 0) return { machine: rest.slice(2), object: '', instance: '', counter: '' };
    machine = rest.slice(2, i);
    rest = rest.slice(i);
  }
  const last = rest.lastIndexOf('\\');
  if (last <= 0) return { machine, object: '', instance: '', counter: rest.replace(/^\\/, '') };
  const counter = rest.slice(last + 1);
  let object = rest.slice(1, last);
  let instance = '';
  const open = object.indexOf('(');
  if (open > 0 && object.endsWith(')')) {
    instance = object.slice(open + 1, -1);
    object = object.slice(0, open);
  }
  return { machine, object, instance, counter };
}

// makePath writes a counter path from its parts (instance '' for a
// single-instance object, '*' for all instances).
export function makePath(object, instance, counter) {
  return '\\' + object + (instance ? '(' + instance + ')' : '') + '\\' + counter;
}

// stats returns the last, average, minimum and maximum of the values
// that are numbers (null: no value at that sample), and how many there
// are; null statistics when there is none.
export function stats(values) {
  let n = 0, sum = 0, min = Infinity, max = -Infinity, last = null;
  for (const v of values) {
    if (v == null || !Number.isFinite(v)) continue;
    n++;
    sum += v;
    if (v < min) min = v;
    if (v > max) max = v;
    last = v;
  }
  if (n === 0) return { n, last: null, average: null, minimum: null, maximum: null };
  return { n, last, average: sum / n, minimum: min, maximum: max };
}

// scaleToFit returns the largest exponent e of SCALES with
// max * 10^e <= top, the scale that makes a counter whose largest value
// is max fill a graph whose vertical scale ends at top (perfmon's "scale
// selected counters"); 0 when max is not positive.
export function scaleToFit(max, top) {
  if (!(max > 0) || !(top > 0)) return 0;
  for (let i = SCALES.length - 1; i >= 0; i--) {
    if (max * 10 ** SCALES[i] <= top) return SCALES[i];
  }
  return SCALES[0];
}

// scaleLabel writes 10^e as perfmon's legend does: 0.001, 1, 1000.
export function scaleLabel(e) {
  if (e < 0) return (10 ** e).toFixed(-e);
  return String(10 ** e);
}

// NUMBER_FORMATS are formatValue's two formats, made once:
// toLocaleString with options builds a new Intl.NumberFormat at every
// call, which the report and histogram pay for every counter every
// second.
const NUMBER_FORMATS = [0, 3].map((d) => new Intl.NumberFormat('en-US', { maximumFractionDigits: 3, minimumFractionDigits: d }));

// formatValue writes a counter value with at most three decimals and
// grouped thousands; '—' for no value.
export function formatValue(v) {
  if (v == null || !Number.isFinite(v)) return '—';
  return NUMBER_FORMATS[Math.abs(v) < 1000 && !Number.isInteger(v) ? 1 : 0].format(v);
}

// formatDuration writes seconds as h:mm:ss (m:ss under an hour).
export function formatDuration(s) {
  s = Math.max(0, Math.round(s));
  const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, sec = s % 60;
  const p = (x) => String(x).padStart(2, '0');
  return h > 0 ? `${h}:${p(m)}:${p(sec)}` : `${m}:${p(sec)}`;
}

// ---- axes -----------------------------------------------------------------

// Y_DIVISIONS is how many equal parts the vertical scale's gridlines
// divide it into, in the line graph and the histogram alike: ten, as
// perfmon's graphs do (0, 10, ... 100 for the default scale).
export const Y_DIVISIONS = 10;

// yTicks are the vertical scale's tick values from min to max, ascending:
// Y_DIVISIONS equal steps, each rounded to 12 significant digits so that
// 0.1 * 3 reads 0.3.
export function yTicks(min, max) {
  return Array.from({ length: Y_DIVISIONS + 1 }, (_, i) => Number((min + (max - min) * i / Y_DIVISIONS).toPrecision(12)));
}

const TICK_FORMAT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 9 });

// tickLabel writes a tick value of the vertical scale: grouped
// thousands, no trailing zeros (0, 12.5, 25,000).
export function tickLabel(v) {
  return TICK_FORMAT.format(v);
}

// timeLabel writes a tick of a time axis. t is the wall-clock time in
// seconds (the UTC fields of t are the clock's reading: callers add
// the zone's offset), step the seconds between ticks and span the
// seconds the axis shows. The form is chosen by those, as perfmon
// writes times on its graphs:
//   - ticks under a second apart: HH:MM:SS.f (or .ff, .fff, as the step
//     needs), 10:42:18.5;
//   - under a minute: HH:MM:SS;
//   - under a day: HH:MM;
//   - an axis of a day or more: the date above the time,
//     2007-08-14 / 15:40 (the date alone when the ticks are days apart).
export function timeLabel(t, step, span) {
  const d = new Date(Math.round(t * 1000));
  const p = (x, n = 2) => String(x).padStart(n, '0');
  const date = `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}`;
  const hm = `${p(d.getUTCHours())}:${p(d.getUTCMinutes())}`;
  if (step >= 86400) return date;
  let time;
  if (step < 1) {
    const digits = step >= 0.1 - 1e-9 ? 1 : step >= 0.01 - 1e-9 ? 2 : 3;
    time = `${hm}:${p(d.getUTCSeconds())}.${p(d.getUTCMilliseconds(), 3).slice(0, digits)}`;
  } else if (step < 60) {
    time = `${hm}:${p(d.getUTCSeconds())}`;
  } else {
    time = hm;
  }
  return span >= 86400 ? `${date}\n${time}` : time;
}

// localOffset is the browser's offset from UTC at time t (seconds since
// the epoch), in seconds east: what live graphs add to show local time.
export function localOffset(t) {
  return -new Date(t * 1000).getTimezoneOffset() * 60;
}

// clampInt reads a number input: an integer clamped to lo..hi, def when
// it is not a number.
export function clampInt(s, lo, hi, def) {
  const v = Math.round(Number(s));
  if (!Number.isFinite(v) || String(s).trim() === '') return def;
  return Math.min(hi, Math.max(lo, v));
}

// ---- settings: perfmon's property names --------------------------------

// VIEWS maps the page's views to perfmon's DisplayType and back (area
// and stacked area are for logs; live, the page shows the line instead).
const VIEWS = { line: 1, histogram: 2, report: 3, area: 4, stacked: 5 };
// REPORT_VALUES maps the report's value to perfmon's ReportValueType
// (0, perfmon's default, reads as current).
const REPORT_VALUES = { current: 1, average: 2, minimum: 3, maximum: 4 };

// MAX_PATH_LENGTH bounds a counter path read from settings.
export const MAX_PATH_LENGTH = 2048;

// MAX_SETTINGS_BYTES bounds a settings file or link read by the page.
export const MAX_SETTINGS_BYTES = 1 << 20;

// SCALE_LIMIT is the largest magnitude of MinimumScale and MaximumScale
// (perfmon's MaximumScale goes up to 999,999,999).
export const SCALE_LIMIT = 999999999;

// settingsOf writes the page's settings under perfmon's property names:
// view (line, histogram, report, area, stacked), interval, points, ymin, ymax,
// reportValue, scroll, frozen, legend, valueBar, highlight and counters [{path, color (null: of the
// cycle), scale (exponent; null: the counter's default, written as no
// ScaleFactor), show}].
export function settingsOf(v) {
  return {
    DisplayType: VIEWS[v.view] ?? 1,
    UpdateInterval: v.interval,
    DataPointCount: v.points,
    MinimumScale: v.ymin,
    MaximumScale: v.ymax,
    ReportValueType: REPORT_VALUES[v.reportValue] ?? 1,
    ChartScroll: !!v.scroll,
    ManualUpdate: !!v.frozen,
    ShowLegend: v.legend !== false,
    ShowValueBar: v.valueBar !== false,
    Highlight: !!v.highlight,
    Counters: v.counters.map((c) => {
      const o = { Path: c.path };
      if (c.color != null) o.Color = c.color;
      if (c.scale != null) o.ScaleFactor = c.scale;
      o.Visible = c.show;
      return o;
    }),
  };
}

// SettingsError is a settings file or link the page refuses; field names
// the property at fault (Counters[3].Color).
export class SettingsError extends Error {
  constructor(field, msg) {
    super(`${field}: ${msg}`);
    this.field = field;
  }
}

const isInt = (x) => typeof x === 'number' && Number.isInteger(x);

// validateSettings checks an object read from a settings file or link
// and returns the page's settings (the fields settingsOf takes); an
// absent property takes perfmon's default, an unknown one is ignored. It
// throws SettingsError naming the first field at fault, nothing else.
export function validateSettings(o) {
  if (o === null || typeof o !== 'object' || Array.isArray(o)) throw new SettingsError('settings', 'not a JSON object');
  const has = (k) => Object.prototype.hasOwnProperty.call(o, k);
  const out = { view: 'line', interval: 1, points: 100, ymin: 0, ymax: 100, reportValue: 'current', scroll: false, frozen: false, legend: true, valueBar: true, highlight: false, counters: [] };
  if (has('DisplayType')) {
    const v = Object.keys(VIEWS).find((k) => VIEWS[k] === o.DisplayType);
    if (!v) throw new SettingsError('DisplayType', `${JSON.stringify(o.DisplayType)}: want 1 (line), 2 (histogram), 3 (report), 4 (area) or 5 (stacked area)`);
    out.view = v;
  }
  if (has('UpdateInterval')) {
    if (!isInt(o.UpdateInterval) || o.UpdateInterval < 1 || o.UpdateInterval > 86400) throw new SettingsError('UpdateInterval', `${JSON.stringify(o.UpdateInterval)}: want whole seconds, 1 to 86400`);
    out.interval = o.UpdateInterval;
  }
  if (has('DataPointCount')) {
    if (!isInt(o.DataPointCount) || o.DataPointCount < 2 || o.DataPointCount > 1000) throw new SettingsError('DataPointCount', `${JSON.stringify(o.DataPointCount)}: want a whole number, 2 to 1000`);
    out.points = o.DataPointCount;
  }
  for (const [k, f] of [['MinimumScale', 'ymin'], ['MaximumScale', 'ymax']]) {
    if (!has(k)) continue;
    if (typeof o[k] !== 'number' || !Number.isFinite(o[k]) || Math.abs(o[k]) > SCALE_LIMIT) throw new SettingsError(k, `${JSON.stringify(o[k])}: want a number, -${SCALE_LIMIT} to ${SCALE_LIMIT}`);
    out[f] = o[k];
  }
  if (!(out.ymax > out.ymin)) throw new SettingsError('MaximumScale', `${out.ymax}: want above MinimumScale (${out.ymin})`);
  if (has('ReportValueType')) {
    const r = o.ReportValueType === 0 ? 'current' : Object.keys(REPORT_VALUES).find((k) => REPORT_VALUES[k] === o.ReportValueType);
    if (!r) throw new SettingsError('ReportValueType', `${JSON.stringify(o.ReportValueType)}: want 0 to 4`);
    out.reportValue = r;
  }
  for (const [k, f] of [['ChartScroll', 'scroll'], ['ManualUpdate', 'frozen'], ['ShowLegend', 'legend'], ['ShowValueBar', 'valueBar'], ['Highlight', 'highlight']]) {
    if (!has(k)) continue;
    if (typeof o[k] !== 'boolean') throw new SettingsError(k, `${JSON.stringify(o[k])}: want true or false`);
    out[f] = o[k];
  }
  if (has('Counters')) {
    if (!Array.isArray(o.Counters)) throw new SettingsError('Counters', 'want a list');
    if (o.Counters.length > MAX_PATHS) throw new SettingsError('Counters', `${o.Counters.length} counters: at most ${MAX_PATHS}`);
    const seen = new Set();
    o.Counters.forEach((c, i) => {
      const f = `Counters[${i}]`;
      if (c === null || typeof c !== 'object' || Array.isArray(c)) throw new SettingsError(f, 'not a JSON object');
      const p = c.Path;
      if (typeof p !== 'string' || p.length === 0 || p.length > MAX_PATH_LENGTH || !p.startsWith('\\')) {
        throw new SettingsError(f + '.Path', `${typeof p === 'string' ? JSON.stringify(p.slice(0, 80)) : JSON.stringify(p ?? null)}: want a counter path (\\object\\counter), at most ${MAX_PATH_LENGTH} characters`);
      }
      if (seen.has(p.toLowerCase())) throw new SettingsError(f + '.Path', `${JSON.stringify(p)}: listed twice`);
      seen.add(p.toLowerCase());
      const cc = { path: p, color: null, scale: null, show: true };
      if (c.Color != null) {
        if (typeof c.Color !== 'string' || !/^#[0-9a-fA-F]{6}$/.test(c.Color)) throw new SettingsError(f + '.Color', `${JSON.stringify(c.Color)}: want #rrggbb`);
        cc.color = c.Color.toLowerCase();
      }
      if (c.ScaleFactor != null) {
        if (!isInt(c.ScaleFactor) || c.ScaleFactor < SCALES[0] || c.ScaleFactor > SCALES[SCALES.length - 1]) {
          throw new SettingsError(f + '.ScaleFactor', `${JSON.stringify(c.ScaleFactor)}: want a power of ten, ${SCALES[0]} to ${SCALES[SCALES.length - 1]}`);
        }
        cc.scale = c.ScaleFactor;
      }
      const vis = c.Visible ?? c.Show;
      if (vis != null) {
        if (typeof vis !== 'boolean') throw new SettingsError(f + '.Visible', `${JSON.stringify(vis)}: want true or false`);
        cc.show = vis;
      }
      out.counters.push(cc);
    });
  }
  return out;
}

// parseSettings reads the text of a settings file: the page's settings,
// or a SettingsError.
export function parseSettings(text) {
  if (typeof text !== 'string') throw new SettingsError('settings', 'not text');
  if (text.length > MAX_SETTINGS_BYTES) throw new SettingsError('settings', `${text.length} bytes: at most ${MAX_SETTINGS_BYTES}`);
  let o;
  try {
    o = JSON.parse(text);
  } catch (e) {
    throw new SettingsError('settings', 'not JSON: ' + e.message);
  }
  return validateSettings(o);
}

// encodeLink writes settings (perfmon's names) as a URL fragment,
// settings= and the base64url of their JSON.
export function encodeLink(settings) {
  const bytes = new TextEncoder().encode(JSON.stringify(settings));
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return 'settings=' + btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

// decodeLink reads a URL fragment (with or without its #): the page's
// settings, null when it holds none, or a SettingsError.
export function decodeLink(fragment) {
  const f = String(fragment).replace(/^#/, '');
  if (!f.startsWith('settings=')) return null;
  const b64 = f.slice('settings='.length);
  if (b64.length > MAX_SETTINGS_BYTES * 4 / 3 + 4) throw new SettingsError('link', 'too long');
  if (!/^[A-Za-z0-9_-]*$/.test(b64)) throw new SettingsError('link', 'not base64url');
  let bin;
  try {
    bin = atob(b64.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - b64.length % 4) % 4));
  } catch {
    throw new SettingsError('link', 'not base64url');
  }
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bin, (ch) => ch.charCodeAt(0)));
  } catch {
    throw new SettingsError('link', 'not UTF-8');
  }
  return parseSettings(text);
}

// ---- data export -----------------------------------------------------------

// pdhTime writes seconds since the epoch as perfmon's logs do, in UTC:
// MM/dd/yyyy HH:mm:ss.fff.
export function pdhTime(t) {
  const d = new Date(Math.round(t * 1000));
  const p = (x, n = 2) => String(x).padStart(n, '0');
  return `${p(d.getUTCMonth() + 1)}/${p(d.getUTCDate())}/${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}.${p(d.getUTCMilliseconds(), 3)}`;
}

// exportText writes samples as a PDH text log, perfmon's "Save data as"
// CSV (sep ',') or TSV (sep '\t'): a header with the format and the time
// zone (UTC), then a column for each counter path, each row a sample
// time and the values (" " for none). paths are the full counter paths,
// columns the values aligned with times.
export function exportText(sep, times, paths, columns) {
  const q = (s) => '"' + String(s).replace(/"/g, '""') + '"';
  const fmt = sep === '\t' ? 'PDH-TSV 4.0' : 'PDH-CSV 4.0';
  const lines = [[q(`(${fmt}) (Coordinated Universal Time)(0)`), ...paths.map(q)].join(sep)];
  times.forEach((t, i) => {
    lines.push([q(pdhTime(t)), ...columns.map((c) => q(c[i] == null || !Number.isFinite(c[i]) ? ' ' : String(c[i])))].join(sep));
  });
  return lines.join('\r\n') + '\r\n';
}
