// sqlgrade report, part 2: the sections and the filterable instance table.
// Reads the data that report_html.cpp embeds as the JSON script element "sqlgrade-data".

const D = JSON.parse(document.getElementById('sqlgrade-data').textContent);
const RUNS = D.runs;
const METRICS = D.metrics;
const PRIMARY = D.primary;
const KIND = Object.fromEntries(METRICS.map((m) => [m.name, m.kind]));
const metricLabel = (m) => (m.label ? `${m.label} (${m.name})` : m.name);

function section(title, id, ...children) {
  return el('section', { id }, el('h2', { text: title }), ...children);
}

function headlineSection() {
  const cards = RUNS.map((r, k) => {
    const h = r.headline[PRIMARY];
    const others = METRICS.filter((m) => m.name !== PRIMARY)
      .map((m) => el('div', { class: 'small' }, `${m.name}: ${r.headline[m.name].text}`));
    return el('div', { class: 'card' },
      el('div', { class: 'name' }, swatch(k), r.label),
      el('div', { class: 'big', title: `${PRIMARY} over ${h.n} instances` }, h.text),
      h.ci_text ? el('div', { class: 'small ci' }, `${Math.round(D.bootstrap.confidence * 100)}% CI ${h.ci_text}`) : null,
      el('div', { class: 'small muted' }, `${PRIMARY} · ${h.n} instances`), ...others);
  });
  const head = ['', 'run', num('instances'), ...METRICS.map((m) => num(breakable(m.name + (m.name === PRIMARY ? ' *' : '')), 'metric-head')),
                num(`${PRIMARY} ${Math.round(D.bootstrap.confidence * 100)}% CI`), 'started', num('wall s'), 'sqlgrade'];
  const rows = RUNS.map((r, k) => [el('span', {}, swatch(k)), r.label, num(r.n),
    ...METRICS.map((m) => num(r.headline[m.name].text)), num(r.headline[PRIMARY].ci_text || '–'), r.started_at,
    num(fmt(r.wall_s, 1)), r.tool_version]);
  const scaled = METRICS.filter((m) => D.scale[m.name] !== 1).map((m) => m.name);
  return section('Headline', 'headline', el('div', { class: 'cards' }, ...cards), table(head, rows, { id: 'runs-table' }),
    el('p', { class: 'small muted' }, '* primary metric. Means over the instances that have the metric; the interval is a ' +
      `percentile bootstrap of the mean (${D.bootstrap.resamples} resamples, seed ${D.bootstrap.seed}).` +
      (scaled.length ? ` ${scaled.join(', ')}: in percent (0–100), as the official table prints them.` : '')));
}

function categorySection() {
  if (!D.axes.length) return null;
  const select = el('select', { id: 'chart-metric' }, ...METRICS.map((m) =>
    el('option', { value: m.name, selected: m.name === PRIMARY ? 'selected' : null }, metricLabel(m))));
  const body = el('div', {});
  const draw = () => {
    const metric = select.value;
    body.replaceChildren();
    for (const axis of D.axes) {
      body.append(el('h3', { text: `By ${axis.name}` }));
      if (axis.note) body.append(el('p', { class: 'small' }, 'Note: ' + axis.note));
      const values = axis.rows.map((r) => r.value);
      const series = RUNS.map((run, k) => ({ label: run.label, color: color(k), values: axis.rows.map((r) => r.runs[k][metric]) }));
      const chart = values.length <= 40 ? barChart(values, series, { title: `${metric} by ${axis.name}`, scale: D.scale[metric] }) : null;
      // One count column (the runs are aligned by id: the same instances in every run), one score per run.
      const head = [axis.name, num('n'), ...RUNS.map((r, k) => ({ v: el('span', {}, swatch(k), r.label), cls: 'num run-head', title: `${metric} · ${r.label}` }))];
      const rows = axis.rows.map((row) => [row.value, num(row.runs[0].count), ...row.runs.map((c) => num(fmtMetric(c[metric], metric)))]);
      const t = table(head, rows, { class: 'category-table' });
      body.append(chart ? el('div', { class: 'side' }, chart, t) : t);
    }
  };
  select.addEventListener('change', draw);
  draw();
  return section('By category', 'categories', el('div', { class: 'controls' }, el('label', {}, 'Metric ', select)), legend(RUNS), body);
}

function comparisonSection() {
  if (!D.comparisons.length) return null;
  const out = [];
  for (const c of D.comparisons) {
    const a = RUNS[c.a], b = RUNS[c.b];
    out.push(el('h3', {}, swatch(c.b), `${b.label} (B) vs `, swatch(c.a), `${a.label} (A, baseline)`));
    out.push(el('p', { class: 'small muted' }, `${c.regressed} regressed, ${c.improved} improved on ${PRIMARY}.`));
    for (const n of c.notes) out.push(el('p', { class: 'small' }, 'Note: ' + n));
    out.push(table(COMPARISON_HEAD, c.overall.map((m) => comparisonCells(m.metric + (m.primary ? ' *' : ''), m)), { class: 'comparison' }));
    const axes = [...new Set(c.by_category.map((cat) => cat.axis))];
    for (const axis of axes) {
      const cats = c.by_category.filter((cat) => cat.axis === axis);
      const pick = (cat) => cat.metrics.find((x) => x.primary) || cat.metrics[0];
      const holm = cats.some((cat) => pick(cat).text.p_holm);
      out.push(el('h4', { text: `${PRIMARY} by ${axis}` }));
      out.push(table(holm ? COMPARISON_HEAD_HOLM : COMPARISON_HEAD, cats.map((cat) => comparisonCells(cat.value, pick(cat), holm)),
        { class: 'comparison', 'data-axis': axis }));
      if (holm)
        out.push(el('p', { class: 'small muted holm-note' }, `${cats.length} tests in this table: with ${cats.length} comparisons ` +
          'some p-values fall below 0.05 by chance alone. Holm p: McNemar\u2019s p after Holm\u2019s correction over this table ' +
          '(controls the chance of any false finding at the level chosen).'));
    }
  }
  const bs = D.bootstrap;
  out.push(el('p', { class: 'small muted' },
    `Δ = B − A. ${Math.round(bs.confidence * 100)}% CI: paired percentile bootstrap of the mean difference (${bs.resamples} resamples, seed ${bs.seed}). ` +
    'McNemar: exact two-sided test on the discordant pairs (b = A right & B wrong, c = A wrong & B right), binary metrics only. ' +
    'Highlighted rows: the interval excludes 0 (an endpoint near 0 gets the digits it needs). The numbers are those of `sqlgrade diff`.'));
  return section('Comparison', 'comparison', ...out);
}

function featureSection() {
  if (!D.features || !D.features.length) return null;
  const groups = D.features.map((f) => f.label);
  const series = RUNS.map((r, k) => ({ label: r.label, color: color(k), values: D.features.map((f) => f.means[k]) }));
  const head = ['feature of the gold SQL', num('n'), ...RUNS.map((r, k) => ({ v: el('span', {}, swatch(k), r.label), cls: 'num run-head', title: `${PRIMARY} · ${r.label}` }))];
  const rows = D.features.map((f) => [f.label, num(f.n[0]), ...f.means.map((v) => num(fmtMetric(v, PRIMARY)))]);
  return section('By SQL feature', 'features', legend(RUNS),
    el('div', { class: 'side' }, barChart(groups, series, { title: `${PRIMARY} by SQL feature`, scale: D.scale[PRIMARY] }), table(head, rows, { id: 'feature-table' })),
    el('p', { class: 'small muted' }, 'Features of the gold query (an instance may have several): JOIN (or FROM a, b), ' +
      'GROUP BY/HAVING, nested SELECT (subquery, derived table, CTE), ORDER BY/LIMIT, UNION/INTERSECT/EXCEPT.'));
}

function udaSection() {
  if (!D.uda_columns) return null;
  const head = ['dataset', 'column', ...RUNS.flatMap((r) => [num(`P · ${r.label}`), num(`R · ${r.label}`), num(`F1 · ${r.label}`)])];
  const rows = D.uda_columns.map((c) => [c.group, c.column,
    ...c.runs.flatMap((x) => (x ? [num(fmt(x.precision)), num(fmt(x.recall)), num(fmt(x.f1))] : [num('–'), num('–'), num('–')]))]);
  return section('Per dataset and column (precision / recall / F1)', 'uda-columns', table(head, rows, { id: 'uda-table' }),
    el('p', { class: 'small muted' }, 'Means over the queries that score the column.'));
}

// ---- instances ----
const INST = D.instances;
const HAY = INST.map((i) => [i.id, i.q, i.gold, ...i.runs.flatMap((r) => [r.pred, r.fail])]
  .filter((x) => x !== null && x !== undefined).join('\n').toLowerCase());
const PAGE = 100;
const IS_UDA = D.benchmark === 'uda';
const state = { filter: 'all', metric: PRIMARY, search: '', cmp: RUNS.length > 1 ? 1 : 0, limit: PAGE, sort: null, dir: 1 };

// Scores of one metric (the metric selector): the filters never mix metrics (a row correct on
// execution but not an exact match is "failed" for exact only).
const score = (inst, k, m) => { const v = inst.runs[k].s[m]; return v === undefined ? null : v; };
const isFail = (v, m) => v !== null && (KIND[m] === 'binary' ? v === 0 : v < 1);
const FILTERS = {
  all: () => true,
  failed: (i) => isFail(score(i, state.cmp, state.metric), state.metric),
  regressed: (i) => { const a = score(i, 0, state.metric), b = score(i, state.cmp, state.metric); return a !== null && b !== null && b < a; },
  improved: (i) => { const a = score(i, 0, state.metric), b = score(i, state.cmp, state.metric); return a !== null && b !== null && b > a; },
  different: (i) => METRICS.some((m) => i.runs[0].s[m.name] !== i.runs[state.cmp].s[m.name]),
};
const EXTRA_FILTER_LABELS = {};
addVerifyFilters(FILTERS, EXTRA_FILTER_LABELS);  // report_verify.js: one filter per verification class
const filterLabel = (f) => EXTRA_FILTER_LABELS[f] || ({ all: 'All', failed: KIND[state.metric] === 'binary' ? `Failed ${state.metric}` : `${state.metric} < 1`,
  regressed: `Regressed ${state.metric}`, improved: `Improved ${state.metric}`, different: 'Any score differs' })[f];

// A run's scores in its cell of the instance table, every metric shown whole (never cut, no ellipsis).
// Metrics named GROUP_MEASURE that form a full grid (UDA: macro / row × f1 / precision / recall) are
// a small matrix, one line per group (three lines for UDA's six metrics, so a row stays short);
// otherwise one name-value pair per metric, wrapping as the column allows (Spider: exec, exact).
const MEASURE_ABBR = { f1: 'F1', precision: 'P', recall: 'R' };
const SCORE_GRID = (() => {
  const parts = METRICS.map((m) => { const at = m.name.lastIndexOf('_'); return at > 0 ? [m.name.slice(0, at), m.name.slice(at + 1)] : null; });
  if (METRICS.length < 4 || parts.some((p) => !p)) return null;
  const groups = [...new Set(parts.map((p) => p[0]))], measures = [...new Set(parts.map((p) => p[1]))];
  if (groups.length < 2 || measures.length < 2 || groups.length * measures.length !== METRICS.length) return null;
  return { groups, measures };
})();
// The instance table's column widths (px): the score columns as wide as their content needs, ids up to
// 260 px so that UDA's statement paths take two lines, not four.
const SCORE_W = SCORE_GRID
  ? Math.max(...SCORE_GRID.groups.map((g) => g.length)) * 7 + SCORE_GRID.measures.length * 44 + 36
  : METRICS.length <= 2 ? 110 : Math.min(230, Math.max(...METRICS.map((m) => m.name.length)) * 7 + 56);
// An id may break after each '/' (UDA's Player/Filter/filter_queries_city/3): wide enough for the longest
// id on two such lines (at most 220 px; longer ones still wrap anywhere rather than being cut).
const twoLines = (id) => {
  const at = [...id.matchAll(/\//g)].map((m) => m.index + 1);
  return at.reduce((best, k) => Math.min(best, Math.max(k, id.length - k)), id.length);
};
const ID_W = Math.min(220, Math.max(110, D.instances.reduce((w, i) => Math.max(w, twoLines(i.id)), 0) * 7.5 + 24));
// Categories ("Player · Filter") on one line where they fit in 200 px.
const catText = (i) => Object.values(i.cat).join(' \u00b7 ');
const CAT_W = Math.min(200, Math.max(110, D.instances.reduce((w, i) => Math.max(w, catText(i).length), 0) * 7.5 + 24));
const splitAfter = (text, ch) => {
  const parts = String(text).split(ch);
  return parts.flatMap((p, k) => (k < parts.length - 1 ? [p + ch, el('wbr', {})] : [p]));
};

function scoreCell(s) {
  const title = METRICS.filter((m) => s[m.name] !== undefined).map((m) => `${metricLabel(m)} = ${s[m.name]}`).join('\n');
  const value = (name) => {
    const v = s[name];
    if (v === undefined) return el('span', { class: 'score muted' }, '–');
    return el('span', { class: `score ${isFail(v, name) ? 'fail' : 'pass'}${name === state.metric ? ' sel' : ''}` }, fmtScore(v, KIND[name]));
  };
  if (SCORE_GRID) {
    const g = el('div', { class: 'score-grid' }, el('span', {}), ...SCORE_GRID.measures.map((x) => el('span', { class: 'score-head' }, MEASURE_ABBR[x] || x)));
    g.style.gridTemplateColumns = `auto repeat(${SCORE_GRID.measures.length}, 1fr)`;
    for (const grp of SCORE_GRID.groups) g.append(el('span', { class: 'score-head score-group' }, grp), ...SCORE_GRID.measures.map((x) => value(`${grp}_${x}`)));
    return el('td', { class: 'scores', title }, g);
  }
  return el('td', { class: 'scores', title }, ...METRICS.filter((m) => s[m.name] !== undefined).map((m) =>
    el('span', { class: 'score-pair' }, el('span', { class: 'score-name' }, m.name), ' ', value(m.name))));
}

// Table columns: key, header, sort key, cell.
function instanceColumns() {
  const cols = [
    { key: 'id', head: 'id', cls: 'c-id', width: ID_W, sort: (i) => i.id, natural: true, cell: (i) => el('td', { class: 'id' }, ...splitAfter(i.id, '/')) },
    { key: 'cat', head: 'category', cls: 'c-cat', width: CAT_W, sort: (i) => Object.values(i.cat).join(' '),
      cell: (i) => el('td', { class: 'cat' }, catText(i)) },
    { key: 'text', head: 'question / gold SQL', cls: 'c-text', sort: (i) => i.q || i.gold || '',
      cell: (i) => el('td', { class: 'wrap', title: shorten(i.q || i.gold, 400) }, el('div', { class: 'clamp' }, shorten(i.q || i.gold, 160))) },
  ];
  RUNS.forEach((r, k) => cols.push({
    key: `run${k}`, head: el('span', { title: r.label }, swatch(k), r.label), cls: 'c-score', width: SCORE_W, run: k,
    sort: (i) => score(i, k, state.metric),
    cell: (i) => scoreCell(i.runs[k].s),
  }));
  cols.push({ key: 'fail', head: 'failure (compared run)', cls: 'c-fail', sort: (i) => i.runs[state.cmp].fail || '',
    cell: (i) => el('td', { class: 'wrap', title: i.runs[state.cmp].fail || '' }, el('div', { class: 'clamp' }, shorten(i.runs[state.cmp].fail || '', 80))) });
  return cols;
}

function compareValues(a, b, natural) {
  if (a === null || a === undefined) return b === null || b === undefined ? 0 : 1;  // missing last
  if (b === null || b === undefined) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return natural ? String(a).localeCompare(String(b), 'en', { numeric: true }) : String(a).localeCompare(String(b));
}

// CSV of the rows that pass the filter and search: RFC 4180 quoting; a text cell starting with
// = + - @ or a tab gets a leading ' so that a spreadsheet does not run it as a formula.
function csvOf(rows) {
  const q = (v) => {
    if (v === null || v === undefined) return '';
    let s = String(v);
    if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = "'" + s;
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const axes = [...new Set(rows.flatMap((i) => Object.keys(i.cat)))];
  const head = ['id', ...axes, 'question', 'gold_sql'];
  RUNS.forEach((r) => { for (const m of METRICS) head.push(`${r.label}:${m.name}`); head.push(`${r.label}:pred`, `${r.label}:failure`); });
  const lines = [head.map(q).join(',')];
  for (const i of rows) {
    const cells = [i.id, ...axes.map((a) => i.cat[a]), i.q, i.gold];
    i.runs.forEach((r) => { for (const m of METRICS) cells.push(r.s[m.name]); cells.push(r.pred, r.fail); });
    lines.push(cells.map(q).join(','));
  }
  return lines.join('\r\n') + '\r\n';
}

function predBlock(r, k) {
  if (r.pred !== null) return el('pre', { class: 'sql pred' }, r.pred);
  // UDA: the prediction is the submitted result table (shown with the rows below), not SQL.
  if (IS_UDA) return el('p', { class: 'muted' }, r.rows && r.rows.pred ? 'Submitted result: see the table below.' : 'Submitted result (no rows kept in the record).');
  return el('p', { class: 'muted' }, 'no prediction');
}

// UDA: each matched row's scored cells, the gold value over the submitted one, with the cell's
// precision/recall as scored (1/1 correct, 0/0 wrong, anything else partial).
function cellTable(cells, k) {
  const verdict = (p, r) => (p === 1 && r === 1 ? 'pass' : p === 0 && r === 0 ? 'fail' : 'partial');
  const head = ['row', ...cells.columns];
  const rows = cells.pairs.map((pair, i) => [String(i + 1), ...cells.columns.map((_, c) => {
    const cls = verdict(pair.p[c], pair.r[c]);
    return { v: el('div', {},
      el('div', { class: 'cell-gold', title: 'gold' }, pair.gold[c] === null ? 'NULL' : pair.gold[c]),
      el('div', { class: 'cell-pred', title: 'submitted' }, pair.pred[c] === null ? 'NULL' : pair.pred[c]),
      el('div', { class: 'cell-score small' }, `${cls === 'pass' ? '\u2713' : cls === 'fail' ? '\u2717' : '~'} P ${fmt(pair.p[c], 2)} R ${fmt(pair.r[c], 2)}`)),
      cls: `cell ${cls}` };
  })]);
  return el('div', {}, el('h4', {}, swatch(k), `Cells — ${RUNS[k].label}: gold over submitted, first ${cells.pairs.length} of ${cells.pairs_total} matched rows`),
    table(head, rows, { class: 'cell-table' }));
}

function detail(inst) {
  const box = el('div', {});
  if (inst.q) box.append(el('h4', { text: IS_UDA ? 'Query' : 'Question' }), el('div', { class: 'question' }, inst.q));
  const cats = Object.entries(inst.cat).map(([k, v]) => `${k}: ${v}`);
  if (inst.feat) cats.push('features: ' + inst.feat.join(', '));
  if (cats.length) box.append(el('div', { class: 'small muted' }, cats.join(' · ')));
  box.append(el('h4', { text: 'Gold SQL' }), inst.gold !== null ? el('pre', { class: 'sql gold' }, inst.gold) : el('p', { class: 'muted' }, 'no gold SQL in the run'));
  inst.runs.forEach((r, k) => {
    const scores = METRICS.filter((m) => r.s[m.name] !== undefined).map((m) => `${m.name} ${fmtScore(r.s[m.name], m.kind)}`);
    const bits = [scores.join(' · ')];
    if (r.t !== null) bits.push(fmtTime(r.t));
    box.append(el('h4', {}, swatch(k), `${IS_UDA ? 'Result' : 'Predicted SQL'} — ${RUNS[k].label}`), el('div', { class: 'small' }, bits.join(' · ')));
    if (r.fail !== null) box.append(el('div', { class: 'small fail' }, r.fail));
    box.append(predBlock(r, k));
  });
  const withRows = inst.runs.map((r, k) => [r, k]).filter(([r]) => r.rows);
  if (withRows.length) {
    const wrap = el('div', { class: 'rows-wrap' });
    const [r0] = withRows[0];
    const total = (t) => (t === undefined || t === null ? '' : ` of ${t}`);
    if (r0.rows.gold) wrap.append(el('div', {}, el('h4', { text: `Gold result (first ${r0.rows.gold.length}${total(r0.rows.gold_total)} rows)` }), resultTable(r0.rows.gold_columns, r0.rows.gold)));
    for (const [r, k] of withRows)
      if (r.rows.pred) wrap.append(el('div', {}, el('h4', {}, swatch(k), `${IS_UDA ? 'Submitted' : 'Predicted'} result — ${RUNS[k].label} (first ${r.rows.pred.length}${total(r.rows.pred_total)} rows)`), resultTable(r.rows.pred_columns, r.rows.pred)));
    box.append(wrap);
    if (withRows.some(([r]) => r.rows.truncated)) box.append(el('p', { class: 'small muted' }, 'Results cut to their first rows (and columns); long cells end with …'));
  }
  inst.runs.forEach((r, k) => { if (r.cells) box.append(cellTable(r.cells, k)); });
  inst.runs.forEach((r, k) => {
    if (!r.cols) return;
    const rows = Object.entries(r.cols).map(([c, v]) => [c, num(fmt(v.precision)), num(fmt(v.recall)), num(fmt(v.f1))]);
    box.append(el('h4', {}, swatch(k), `Columns — ${RUNS[k].label}`), table(['column', num('P'), num('R'), num('F1')], rows, { class: 'col-scores' }));
  });
  box.append(...verifyDetail(inst));  // report_verify.js
  return box;
}

function instanceSection() {
  const buttons = {};
  const controls = el('div', { class: 'controls' });
  const metricSel = el('select', { id: 'inst-metric' }, ...METRICS.map((m) =>
    el('option', { value: m.name, selected: m.name === PRIMARY ? 'selected' : null }, m.name)));
  metricSel.addEventListener('change', () => { state.metric = metricSel.value; state.limit = PAGE; render(); });
  controls.append(el('label', {}, 'Metric ', metricSel));
  for (const f of Object.keys(FILTERS)) {
    const b = el('button', { type: 'button', 'data-filter': f });
    b.addEventListener('click', () => { state.filter = f; state.limit = PAGE; render(); });
    buttons[f] = b;
    controls.append(b);
  }
  const search = el('input', { type: 'search', id: 'inst-search', placeholder: 'Search id, question, SQL, failure…' });
  search.addEventListener('input', () => { state.search = search.value.toLowerCase(); state.limit = PAGE; render(); });
  controls.append(search);
  if (RUNS.length > 2) {
    const sel = el('select', { id: 'inst-compare' }, ...RUNS.slice(1).map((r, i) => el('option', { value: i + 1 }, r.label)));
    sel.addEventListener('change', () => { state.cmp = Number(sel.value); render(); });
    controls.append(el('label', {}, `Compare ${RUNS[0].label} with `, sel));
  }
  const exportBtn = el('button', { type: 'button', id: 'inst-export' }, 'Export CSV');
  controls.append(exportBtn);
  const count = el('div', { id: 'inst-count', class: 'small muted' });
  const cols = instanceColumns();
  const ths = cols.map((c) => {
    const th = el('th', { 'data-col': c.key, class: 'sortable', title: 'Sort by this column (click again to reverse)' }, c.head);
    th.addEventListener('click', () => {
      state.dir = state.sort === c.key ? -state.dir : 1;
      state.sort = c.key;
      render();
    });
    return th;
  });
  const tbody = el('tbody', {});
  const tbl = el('table', { id: 'instances' }, el('colgroup', {}, ...cols.map((c) => {
      const col = el('col', { class: c.cls });
      if (c.width) col.style.width = `${c.width}px`;  // CSSOM: allowed by the page's CSP
      return col;
    })),
    el('thead', {}, el('tr', {}, ...ths)), tbody);
  const more = el('button', { type: 'button', class: 'more', id: 'inst-more' }, 'Show more');
  more.addEventListener('click', () => { state.limit += PAGE; render(); });
  let matching = [];
  exportBtn.addEventListener('click', () => {
    const text = csvOf(matching);
    exportBtn.setAttribute('data-rows', String(matching.length));
    window.sqlgradeLastCsv = text;  // read by the browser test
    const a = el('a', { href: URL.createObjectURL(new Blob([text], { type: 'text/csv' })), download: `${D.benchmark}-instances.csv` });
    document.body.append(a);
    a.click();
    a.remove();
  });

  function render() {
    for (const [f, b] of Object.entries(buttons)) {
      const n = INST.filter(FILTERS[f]).length;
      b.textContent = `${filterLabel(f)} (${n})`;
      b.classList.toggle('active', state.filter === f);
      b.disabled = RUNS.length < 2 && (f === 'regressed' || f === 'improved' || f === 'different');
    }
    const pass = FILTERS[state.filter];
    matching = [];
    INST.forEach((inst, i) => { if (pass(inst) && (!state.search || HAY[i].includes(state.search))) matching.push(inst); });
    if (state.sort) {
      const c = cols.find((x) => x.key === state.sort);
      matching.sort((a, b) => state.dir * compareValues(c.sort(a), c.sort(b), c.natural));
    }
    ths.forEach((th, i) => th.setAttribute('aria-sort', cols[i].key === state.sort ? (state.dir > 0 ? 'ascending' : 'descending') : 'none'));
    tbody.replaceChildren();
    for (const inst of matching.slice(0, state.limit)) {
      const tr = el('tr', { class: 'inst', 'data-id': inst.id }, ...cols.map((c) => c.cell(inst)));
      tr.addEventListener('click', () => {
        const next = tr.nextElementSibling;
        if (next && next.classList.contains('detail')) { next.remove(); tr.classList.remove('open'); return; }
        tr.classList.add('open');
        tr.after(el('tr', { class: 'detail' }, el('td', { class: 'detail-cell', colspan: cols.length }, detail(inst))));
      });
      tbody.append(tr);
    }
    tbl.setAttribute('data-matching', String(matching.length));
    count.textContent = `Showing ${Math.min(state.limit, matching.length)} of ${matching.length} matching instances (${INST.length} listed` +
      (D.instances_note ? `; ${D.instances_note}).` : ' in all).');
    more.hidden = matching.length <= state.limit;
  }
  render();
  const legendText = (RUNS.length > 1
    ? `Filters use the metric chosen: Regressed / Improved: lower / higher in the compared run than in ${RUNS[0].label}; ` +
      'Failed: the compared run scores 0 on it (below 1 for a continuous metric). Any score differs: on any metric. '
    : 'Failed: the run scores 0 on the metric chosen (below 1 for a continuous metric). ') +
    'Each run\u2019s column lists all its scores. Click a header to sort, a row for details; Export CSV saves the rows that match.';
  return section('Instances', 'instance-section', controls, el('p', { class: 'small muted' }, legendText), count,
    el('div', { class: 'table-wrap' }, tbl), more);
}

function detailsSection() {
  const out = [];
  RUNS.forEach((r, k) => {
    const d = el('details', {}, el('summary', {}, swatch(k), `${r.label} — ${r.file}`));
    if (r.summary_text) d.append(el('h4', { text: 'Printed summary' }), el('pre', { class: 'summary-text' }, r.summary_text));
    const facts = [['benchmark', r.benchmark], ['system', r.system], ['command', r.command.join(' ')], ['started', r.started_at],
      ['wall time', `${fmt(r.wall_s, 2)} s`], ['sqlgrade', r.tool_version],
      ['engines', Object.entries(r.engines).map(([a, b]) => `${a} ${b}`).join(', ')],
      ['machine', `${r.machine.host} · ${r.machine.os} · ${r.machine.cores} cores`],
      ['timeout', r.timeout_s === null ? '–' : `${r.timeout_s} s`], ['options', JSON.stringify(r.options)]];
    if (r.shard) facts.push(['shard', r.shard]);
    const classes = verifyClassesText(r.verify_summary);  // report_verify.js
    if (classes) facts.push(['verification', classes]);
    for (const i of r.inputs) facts.push([`input ${i.role}`, `${i.path}${i.sha256 ? '  sha256 ' + i.sha256 : ''}`]);
    d.append(table(['', ''], facts));
    if (r.warnings.length) d.append(el('h4', { text: 'Warnings' }), el('pre', {}, r.warnings.join('\n')));
    out.push(d);
  });
  return section('Runs in detail', 'run-details', ...out);
}

function main() {
  document.title = D.title;
  const root = el('main', {},
    el('h1', { text: D.title }),
    el('div', { class: 'small muted' }, `${D.generated_by} · ${D.generated_at} · ${D.benchmark} · ${D.instances_total} instances`));
  for (const s of [headlineSection(), categorySection(), comparisonSection(), featureSection(), udaSection(), instanceSection(), detailsSection()])
    if (s) root.append(s);
  document.getElementById('app').replaceChildren(root);
}

main();
