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

// formatValue writes a counter value with at most three decimals and
// grouped thousands; '—' for no value.
export function formatValue(v) {
  if (v == null || !Number.isFinite(v)) return '—';
  return v.toLocaleString('en-US', { maximumFractionDigits: 3, minimumFractionDigits: Math.abs(v) < 1000 && !Number.isInteger(v) ? 3 : 0 });
}

// formatDuration writes seconds as h:mm:ss (m:ss under an hour).
export function formatDuration(s) {
  s = Math.max(0, Math.round(s));
  const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, sec = s % 60;
  const p = (x) => String(x).padStart(2, '0');
  return h > 0 ? `${h}:${p(m)}:${p(sec)}` : `${m}:${p(sec)}`;
}

// clampInt reads a number input: an integer clamped to lo..hi, def when
// it is not a number.
export function clampInt(s, lo, hi, def) {
  const v = Math.round(Number(s));
  if (!Number.isFinite(v) || String(s).trim() === '') return def;
  return Math.min(hi, Math.max(lo, v));
}
