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
      .map((m) => el('div', { class: 'small' }, `${m.name}: ${fmt(r.headline[m.name].mean)}`));
    return el('div', { class: 'card' },
      el('div', { class: 'name' }, swatch(k), r.label),
      el('div', { class: 'big', title: `${PRIMARY} over ${h.n} instances` }, fmt(h.mean)),
      el('div', { class: 'small muted' }, `${PRIMARY} · ${h.n} instances`), ...others);
  });
  const head = ['', 'run', num('instances'), ...METRICS.map((m) => num(m.name + (m.name === PRIMARY ? ' *' : ''))),
                'started', num('wall s'), 'sqlgrade'];
  const rows = RUNS.map((r, k) => [el('span', {}, swatch(k)), r.label, num(r.n),
    ...METRICS.map((m) => num(fmt(r.headline[m.name].mean))), r.started_at, num(fmt(r.wall_s, 1)), r.tool_version]);
  return section('Headline', 'headline', el('div', { class: 'cards' }, ...cards), table(head, rows, { id: 'runs-table' }),
    el('p', { class: 'small muted' }, '* primary metric. Means over the instances that have the metric.'));
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
      const chart = values.length <= 40 ? barChart(values, series, { title: `${metric} by ${axis.name}` }) : null;
      const head = [axis.name, ...RUNS.flatMap((r) => [num(`n · ${r.label}`), num(`${metric} · ${r.label}`)])];
      const rows = axis.rows.map((row) => [row.value, ...row.runs.flatMap((c) => [num(c.count), num(fmt(c[metric]))])]);
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
    if (c.by_category.length) {
      const rows = c.by_category.map((cat) => {
        const m = cat.metrics.find((x) => x.primary) || cat.metrics[0];
        return comparisonCells(`${cat.axis}: ${cat.value}`, m);
      });
      out.push(el('h4', { text: `${PRIMARY} by category` }));
      out.push(table(COMPARISON_HEAD, rows, { class: 'comparison' }));
    }
  }
  const bs = D.bootstrap;
  out.push(el('p', { class: 'small muted' },
    `Δ = B − A. 95% CI: paired percentile bootstrap of the mean difference (${bs.resamples} resamples, seed ${bs.seed}). ` +
    'McNemar: exact two-sided test on the discordant pairs (b = A right & B wrong, c = A wrong & B right), binary metrics only. ' +
    'Highlighted rows: the interval excludes 0.'));
  return section('Comparison', 'comparison', ...out);
}

function featureSection() {
  if (!D.features || !D.features.length) return null;
  const groups = D.features.map((f) => f.label);
  const series = RUNS.map((r, k) => ({ label: r.label, color: color(k), values: D.features.map((f) => f.means[k]) }));
  const head = ['feature of the gold SQL', num('n'), ...RUNS.map((r) => num(`${PRIMARY} · ${r.label}`))];
  const rows = D.features.map((f) => [f.label, num(f.n[0]), ...f.means.map((v) => num(fmt(v)))]);
  return section('By SQL feature', 'features', legend(RUNS),
    el('div', { class: 'side' }, barChart(groups, series, { title: `${PRIMARY} by SQL feature` }), table(head, rows, { id: 'feature-table' })),
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
const state = { filter: 'all', search: '', cmp: RUNS.length > 1 ? 1 : 0, limit: PAGE };

const prim = (inst, k) => { const v = inst.runs[k].s[PRIMARY]; return v === undefined ? null : v; };
function failed(inst, k) { const r = inst.runs[k]; return r.fail !== null || r.s[PRIMARY] === 0; }
// Any score differs (predictions almost always differ in their text, so that says little).
function different(inst, a, b) {
  const ra = inst.runs[a], rb = inst.runs[b];
  return METRICS.some((m) => ra.s[m.name] !== rb.s[m.name]);
}
const FILTERS = {
  all: () => true,
  failed: (i) => failed(i, state.cmp),
  regressed: (i) => { const a = prim(i, 0), b = prim(i, state.cmp); return a !== null && b !== null && b < a; },
  improved: (i) => { const a = prim(i, 0), b = prim(i, state.cmp); return a !== null && b !== null && b > a; },
  different: (i) => different(i, 0, state.cmp),
};
const FILTER_LABELS = { all: 'All', failed: 'Failed', regressed: 'Regressed', improved: 'Improved', different: 'Different' };
addVerifyFilters(FILTERS, FILTER_LABELS);  // report_verify.js: 'Refuted' when a run was verified

function detail(inst) {
  const box = el('div', {});
  if (inst.q) box.append(el('h4', { text: 'Question' }), el('div', { class: 'question' }, inst.q));
  const cats = Object.entries(inst.cat).map(([k, v]) => `${k}: ${v}`);
  if (inst.feat) cats.push('features: ' + inst.feat.join(', '));
  if (cats.length) box.append(el('div', { class: 'small muted' }, cats.join(' · ')));
  box.append(el('h4', { text: 'Gold SQL' }), inst.gold !== null ? el('pre', { class: 'sql gold' }, inst.gold) : el('p', { class: 'muted' }, 'no gold SQL in the run'));
  inst.runs.forEach((r, k) => {
    const scores = METRICS.filter((m) => r.s[m.name] !== undefined).map((m) => `${m.name} ${fmtScore(r.s[m.name], m.kind)}`);
    const bits = [scores.join(' · ')];
    if (r.t !== null) bits.push(`${fmt(r.t, 3)} s`);
    box.append(el('h4', {}, swatch(k), `Predicted SQL — ${RUNS[k].label}`), el('div', { class: 'small' }, bits.join(' · ')));
    if (r.fail !== null) box.append(el('div', { class: 'small fail' }, r.fail));
    box.append(r.pred !== null ? el('pre', { class: 'sql pred' }, r.pred) : el('p', { class: 'muted' }, 'no prediction'));
  });
  const withRows = inst.runs.map((r, k) => [r, k]).filter(([r]) => r.rows);
  if (withRows.length) {
    const wrap = el('div', { class: 'rows-wrap' });
    const [r0] = withRows[0];
    if (r0.rows.gold) wrap.append(el('div', {}, el('h4', { text: 'Gold result (first rows)' }), resultTable(r0.rows.gold_columns, r0.rows.gold)));
    for (const [r, k] of withRows)
      if (r.rows.pred) wrap.append(el('div', {}, el('h4', {}, swatch(k), `Predicted result — ${RUNS[k].label}`), resultTable(r.rows.pred_columns, r.rows.pred)));
    box.append(wrap);
    if (withRows.some(([r]) => r.rows.truncated)) box.append(el('p', { class: 'small muted' }, 'Results truncated to their first rows.'));
  }
  inst.runs.forEach((r, k) => {
    if (!r.cols) return;
    const rows = Object.entries(r.cols).map(([c, v]) => [c, num(fmt(v.precision)), num(fmt(v.recall)), num(fmt(v.f1))]);
    box.append(el('h4', {}, swatch(k), `Columns — ${RUNS[k].label}`), table(['column', num('P'), num('R'), num('F1')], rows));
  });
  box.append(...verifyDetail(inst));  // report_verify.js
  return box;
}

function instanceSection() {
  const buttons = {};
  const controls = el('div', { class: 'controls' });
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
  const count = el('div', { id: 'inst-count', class: 'small muted' });
  const head = ['id', 'category', 'question / gold SQL', ...RUNS.map((r) => `${PRIMARY} · ${r.label}`), 'failure'];
  const tbl = table(head, [], { id: 'instances' });
  tbl.prepend(el('colgroup', {}, el('col', { class: 'c-id' }), el('col', { class: 'c-cat' }), el('col', { class: 'c-text' }),
    ...RUNS.map(() => el('col', { class: 'c-score' })), el('col', { class: 'c-fail' })));
  const tbody = tbl.querySelector('tbody');
  const more = el('button', { type: 'button', class: 'more', id: 'inst-more' }, 'Show more');
  more.addEventListener('click', () => { state.limit += PAGE; render(); });

  function render() {
    for (const [f, b] of Object.entries(buttons)) {
      const n = INST.filter(FILTERS[f]).length;
      b.textContent = `${FILTER_LABELS[f]} (${n})`;
      b.classList.toggle('active', state.filter === f);
      b.disabled = RUNS.length < 2 && (f === 'regressed' || f === 'improved' || f === 'different');
    }
    const pass = FILTERS[state.filter];
    const matching = [];
    INST.forEach((inst, i) => { if (pass(inst) && (!state.search || HAY[i].includes(state.search))) matching.push(inst); });
    tbody.replaceChildren();
    for (const inst of matching.slice(0, state.limit)) {
      const shown = state.cmp;
      const tr = el('tr', { class: 'inst', 'data-id': inst.id },
        el('td', { title: inst.id }, inst.id),
        el('td', {}, Object.values(inst.cat).join(' · ')),
        el('td', { title: shorten(inst.q || inst.gold, 400) }, shorten(inst.q || inst.gold, 160)),
        ...inst.runs.map((r) => {
          const v = r.s[PRIMARY];
          return el('td', { class: v === undefined ? '' : (v > 0 ? 'pass' : 'fail') }, fmtScore(v === undefined ? null : v, KIND[PRIMARY]));
        }),
        el('td', { title: inst.runs[shown].fail || '' }, shorten(inst.runs[shown].fail || '', 80)));
      tr.addEventListener('click', () => {
        const next = tr.nextElementSibling;
        if (next && next.classList.contains('detail')) { next.remove(); tr.classList.remove('open'); return; }
        tr.classList.add('open');
        tr.after(el('tr', { class: 'detail' }, el('td', { class: 'detail-cell', colspan: head.length }, detail(inst))));
      });
      tbody.append(tr);
    }
    tbl.setAttribute('data-matching', String(matching.length));
    count.textContent = `Showing ${Math.min(state.limit, matching.length)} of ${matching.length} matching instances (${INST.length} listed` +
      (D.instances_note ? `; ${D.instances_note}).` : ' in all).');
    more.hidden = matching.length <= state.limit;
  }
  render();
  const legendText = RUNS.length > 1
    ? `Regressed / Improved: ${PRIMARY} lower / higher in the compared run than in ${RUNS[0].label}. Different: any score ` +
      'differs. Failed: the compared run has a failure reason or scores 0. Click a row for details.'
    : `Failed: a failure reason or ${PRIMARY} = 0. Click a row for details.`;
  return section('Instances', 'instance-section', controls, el('p', { class: 'small muted' }, legendText), count, tbl, more);
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
