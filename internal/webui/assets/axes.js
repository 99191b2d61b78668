// The axes of the page's graphs (uPlot's axis options): one code path for
// the live line graph, a log's line, area and stacked area views and its
// overview, and the vertical scale the histogram shares with them. The
// labels' forms are model.js's (timeLabel, yTicks, tickLabel).

import { timeLabel, yTicks, tickLabel } from './model.js';

// valueAxisWidth is the width (CSS pixels) of a vertical scale whose
// labels are labels: uPlot's default 50, wider for long labels (7 px a
// character of its 12 px font). The histogram's scale is as wide.
export function valueAxisWidth(labels) {
  return Math.max(50, 14 + 7 * Math.max(0, ...(labels || []).map((l) => l.length)));
}

// TIME_SPACE is the least room (CSS pixels) between two time labels: a
// label is at most HH:MM:SS.fff wide.
const TIME_SPACE = 90;

// style is what every axis draws with: the theme's colours.
function style(colors) {
  return { stroke: colors.fg, grid: { stroke: colors.grid, width: 1 }, ticks: { stroke: colors.grid, width: 1 } };
}

// timeAxis is an x axis whose ticks are labelled as times. wallOf(split)
// is the wall-clock time of a tick in seconds (the zone's offset added;
// null: no label there), unit the seconds one step of the scale is (1 on
// a time scale, the update interval on the slots of a wrapping graph),
// span() the seconds the axis shows. Each drawing's labels are kept in
// drawn.x, their ticks in drawn.xAt and the seconds between ticks in
// drawn.step, for tests and the console.
export function timeAxis(colors, { wallOf, unit = 1, span, drawn }) {
  return {
    ...style(colors),
    space: TIME_SPACE,
    values: (u, splits, axisIdx, space, incr) => {
      const step = incr * unit, sp = span();
      const labels = splits.map((v) => {
        const w = wallOf(v);
        return w == null ? '' : timeLabel(w, step, sp);
      });
      if (drawn) Object.assign(drawn, { x: labels.slice(), xAt: splits.slice(), step });
      return labels;
    },
  };
}

// valueAxis is the vertical scale from min to max: yTicks' ticks,
// labelled by tickLabel, kept in drawn.y. The histogram draws the same
// ticks (yTicks, tickLabel) beside its bars.
export function valueAxis(colors, { min, max, drawn }) {
  return {
    ...style(colors),
    splits: () => yTicks(min, max),
    size: (u, values) => valueAxisWidth(values),
    values: (u, splits) => {
      const labels = splits.map(tickLabel);
      if (drawn) drawn.y = labels.slice();
      return labels;
    },
  };
}
