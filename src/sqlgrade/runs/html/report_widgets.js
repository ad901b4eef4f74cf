// sqlgrade report, part 1: DOM helpers, number formats, SVG charts and small tables.
// Instance text is hostile: it only ever reaches the page through textContent / text nodes.
'use strict';

const SVGNS = 'http://www.w3.org/2000/svg';
// Okabe-Ito palette (distinguishable with colour-vision deficiencies).
const COLORS = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000'];
const color = (k) => COLORS[k % COLORS.length];

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'text') e.textContent = String(v);
    else if (k === 'class') e.className = v;
    else e.setAttribute(k, String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

function svg(tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = String(text);
  return e;
}

function fmt(v, digits) {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  return Number(v).toFixed(digits === undefined ? 4 : digits);
}
// A metric's value on the benchmark's printed scale (D.scale: BIRD's EX/Soft-F1 in percent, 2 decimals).
// Statistics come formatted from sqlgrade itself (the same strings as `sqlgrade diff`); this is for
// means in tables and charts only.
function fmtMetric(v, metric) {
  const s = (D.scale && D.scale[metric]) || 1;
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  const t = Number(v * s).toFixed(s === 1 ? 4 : 2);
  return /^-0\.0+$/.test(t) ? t.slice(1) : t;
}
// Seconds for people: 0.21 ms, 12.3 ms, 1.25 s.
function fmtTime(t) {
  if (t === null || t === undefined) return '–';
  if (t < 0.001) return `${(t * 1000).toFixed(3)} ms`;
  if (t < 1) return `${(t * 1000).toFixed(1)} ms`;
  return `${t.toFixed(2)} s`;
}
function fmtScore(v, kind) {
  if (v === null || v === undefined) return '–';
  return kind === 'binary' ? String(v) : Number(v).toFixed(3);
}
function swatch(k) {
  const s = el('span', { class: 'swatch' });
  s.style.background = color(k);
  return s;
}
// A name that may wrap after each '_' (metric names in narrow headers), its text unchanged.
function breakable(name) {
  const parts = String(name).split('_');
  return el('span', {}, ...parts.flatMap((p, i) => (i < parts.length - 1 ? [p + '_', el('wbr', {})] : [p])));
}
function shorten(s, n) {
  s = String(s === null || s === undefined ? '' : s).replace(/\s+/g, ' ').trim();
  return s.length > n ? s.slice(0, n - 1) + '…' : s;
}

// Grouped bar chart: groups along x, one bar per series. values[series][group] (null = none).
function barChart(groups, series, opts) {
  opts = opts || {};
  const barW = 18, gap = 18, top = 12, plotH = 170;
  const groupW = Math.max(series.length * barW, 24) + gap;
  const rotate = groups.some((g) => String(g).length > 10) || groups.length > 12;
  // Rotated labels (at most 18 characters, about 6.5 px each, at 40°) reach left of their group and
  // below the axis: room for them on both sides, so that none is clipped.
  const longest = Math.min(18, Math.max(...groups.map((g) => String(g).length), 1));
  const left = rotate ? Math.max(48, Math.ceil(longest * 6.5 * 0.77) - groupW / 2 + 8) : 48;
  const bottom = rotate ? Math.ceil(longest * 6.5 * 0.64) + 24 : 30;
  const width = Math.max(320, left + groups.length * groupW + 20);
  const height = top + plotH + bottom;
  let yMax = opts.yMax || 1;
  for (const s of series) for (const v of s.values) if (v !== null && v > yMax) yMax = v;
  const scale = opts.scale || 1;
  const root = svg('svg', { width, height, viewBox: `0 0 ${width} ${height}`, role: 'img' });
  root.append(svg('title', {}, opts.title || 'chart'));
  for (let i = 0; i <= 4; i++) {
    const v = (yMax * i) / 4, y = top + plotH - (plotH * i) / 4;
    root.append(svg('line', { x1: left, x2: width - 10, y1: y, y2: y, class: 'grid' }));
    root.append(svg('text', { x: left - 6, y: y + 4, 'text-anchor': 'end' }, fmt(v * scale, scale === 1 ? 2 : 0)));
  }
  groups.forEach((g, gi) => {
    const x0 = left + gi * groupW + gap / 2;
    series.forEach((s, si) => {
      const v = s.values[gi];
      if (v === null || v === undefined) return;
      const h = Math.max(0, (plotH * v) / yMax);
      const r = svg('rect', { x: x0 + si * barW, y: top + plotH - h, width: barW - 2, height: h, fill: s.color });
      r.append(svg('title', {}, `${s.label} · ${g}: ${fmt(v * scale, scale === 1 ? 4 : 2)}`));
      root.append(r);
    });
    const lx = x0 + (series.length * barW) / 2, ly = top + plotH + 14;
    const label = svg('text', rotate ? { x: lx, y: ly, 'text-anchor': 'end', transform: `rotate(-40 ${lx} ${ly})` }
                                     : { x: lx, y: ly, 'text-anchor': 'middle' }, shorten(g, 18));
    label.append(svg('title', {}, String(g)));
    root.append(label);
  });
  return el('div', { class: 'chart' }, root);
}

function legend(runs) {
  return el('div', { class: 'legend' }, ...runs.map((r, k) => el('span', { class: 'item' }, swatch(k), r.label)));
}

// A table from a header row and body rows; a cell is a string/number/Node or {v, cls}.
function table(head, rows, attrs) {
  const cell = (tag, c) => {
    if (c && typeof c === 'object' && !(c instanceof Node)) return el(tag, { class: c.cls || null, title: c.title || null }, c.v);
    return el(tag, {}, c);
  };
  const thead = el('thead', {}, el('tr', {}, ...head.map((h) => cell('th', h))));
  const tbody = el('tbody', {});
  for (const r of rows) {
    const tr = el('tr', { class: r.cls || null }, ...(r.cells || r).map((c) => cell('td', c)));
    tbody.append(tr);
  }
  return el('div', { class: 'table-wrap' }, el('table', attrs || {}, thead, tbody));
}

const num = (v, cls) => ({ v, cls: 'num' + (cls ? ' ' + cls : '') });
const signCls = (d) => (d > 0 ? 'pos' : d < 0 ? 'neg' : '');

// Rows of a comparison table for one metric comparison (report_data.cpp metric_texts: the numbers as
// `sqlgrade diff` prints them). holm: add the Holm-adjusted p-value column.
function comparisonCells(label, m, holm) {
  const t = m.text;
  const cells = [label, num(m.n), num(t.a), num(t.b), num(t.delta, signCls(m.delta)), num(t.ci),
                 num(m.mcnemar ? `${m.mcnemar.b}/${m.mcnemar.c}` : '–'), num(t.p || '–')];
  if (holm) cells.push(num(t.p_holm || '–'));
  return { cls: t.sig ? 'sig' : null, cells };
}
const COMPARISON_HEAD = ['', num('n'), num('A'), num('B'), num('Δ (B−A)'), num('95% CI'), num('b/c'), num('McNemar p')];
const COMPARISON_HEAD_HOLM = [...COMPARISON_HEAD, num('Holm p')];

// A small result table (first rows of a query result).
function resultTable(columns, rows) {
  const head = (columns && columns.length ? columns : (rows[0] || []).map((_, i) => `col${i + 1}`));
  const body = rows.map((r) => r.map((c) => (c === null ? { v: 'NULL', cls: 'null' } : String(c))));
  return table(head, body);
}
