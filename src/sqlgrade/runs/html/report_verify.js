// sqlgrade report, part 3: verified execution accuracy (records written with --verify; docs/verify.md).
// The instance table's filters per verification class ("Refuted" = clean refutations, "Gold suspect",
// "Edge", "Tie", ... each with its count over the runs), and in the drill-down each run's
// verification: its status, the budget it used and, for a refutation of any class, the counterexample
// database's rows and both queries' results on it. Reads inst.runs[k].verify (the record's
// detail.verify); statuses are handled by name, so a new class shows without a change here.
// Function declarations only: this file is inlined before report_main.js, which defines D and calls these.

const VERIFY_CLASSES = {
  refuted: 'Refuted (clean)', gold_suspect: 'Gold suspect', tie: 'Tie', edge: 'Edge', unverified: 'Unverified',
};
function verifyOn() { return D.instances.some((i) => i.runs.some((r) => r.verify)); }
function verifyLabel(status) { return VERIFY_CLASSES[status] || status.replace(/_/g, ' '); }

// Adds one filter per verification class some run has (no_counterexample and skipped excepted);
// "Refuted" (clean refutations) always. The table's buttons show how many instances each matches.
function addVerifyFilters(filters, labels) {
  if (!verifyOn()) return;
  const statuses = new Set(['refuted']);
  for (const inst of D.instances) for (const r of inst.runs) if (r.verify) statuses.add(r.verify.status);
  for (const status of statuses) {
    if (status === 'no_counterexample' || status === 'skipped') continue;
    const key = status === 'refuted' ? 'refuted' : 'verify_' + status;
    filters[key] = (inst) => inst.runs.some((r) => r.verify && r.verify.status === status);
    labels[key] = verifyLabel(status);
  }
}

// A run's verification classes for its details ("refuted 12 · gold suspect 3 · edge 5 · ..."), from
// the record's summary.verify.statuses; null when the run was not verified.
function verifyClassesText(summary) {
  if (!summary || !summary.statuses) return null;
  return Object.entries(summary.statuses).map(([s, n]) => `${verifyLabel(s)} ${n}`).join(' · ');
}

function cexCell(c) {
  if (c === null || c === undefined) return { v: 'NULL', cls: 'null' };
  if (typeof c === 'object') return c.blob !== undefined ? String(c.blob) : JSON.stringify(c);
  return String(c);
}

function cexResult(title, result) {
  const rows = (result && result.rows) || [];
  const head = result && result.columns && result.columns.length ? result.columns : (rows[0] || []).map((_, i) => `col${i + 1}`);
  const note = result && result.truncated ? ` (first ${rows.length} of ${result.row_count} rows)` : ` (${rows.length} rows)`;
  return el('div', { class: 'cex-result' }, el('h4', { text: title + note }), table(head, rows.map((r) => r.map(cexCell))));
}

// The counterexample database, one table per SQL table: its columns, then where the row came from.
function cexDatabase(rows) {
  const byTable = new Map();
  for (const r of rows) {
    if (!byTable.has(r.table)) byTable.set(r.table, []);
    byTable.get(r.table).push(r);
  }
  const out = el('div', { class: 'cex-db' });
  for (const [name, list] of byTable) {
    // the schema's column order when the record has it (values is a JSON object: its keys are sorted)
    const cols = [...new Set(list.flatMap((r) => r.columns || Object.keys(r.values)))];
    const body = list.map((r) => [...cols.map((c) => cexCell(r.values[c])), { v: r.source, cls: 'muted' }]);
    out.append(el('div', {}, el('h4', { text: `table ${name}` }), table([...cols, 'source'], body)));
  }
  return out;
}

function verifyStatusText(v) {
  const budget = `${v.candidates} candidate databases · ${fmt(v.seconds, 3)} s` + (v.time_capped ? ' · stopped by the time cap' : '');
  if (v.status === 'refuted') return `Refuted: ${v.reason || 'results differ'} · ${budget}`;
  if (v.status === 'skipped') return `Not searched: ${v.reason || ''}`;
  if (v.status === 'no_counterexample') return `No counterexample found · ${budget}`;
  return `${verifyLabel(v.status)} (not counted against the prediction): ${v.reason || ''} · ${budget}`;
}

// Drill-down elements for one instance (an empty list when no run carries a verification).
function verifyDetail(inst) {
  const out = [];
  inst.runs.forEach((r, k) => {
    const v = r.verify;
    if (!v) return;
    const box = el('div', { class: 'verify', 'data-status': v.status });
    box.append(el('h4', {}, swatch(k), `Verification — ${RUNS[k].label}`),
      el('div', { class: 'small ' + (v.status === 'refuted' ? 'fail' : '') }, verifyStatusText(v)));
    const c = v.counterexample;
    if (c) {
      const facts = [`strategy ${c.strategy}`, `seed ${c.seed}`, `candidate ${c.candidate}`,
        `${c.rows.length} rows (${c.rows_before_shrink} before shrinking)`];
      facts.push(c.mutations && c.mutations.length ? 'witness changes: ' + c.mutations.join('; ')
        : 'every row is an original row of the database');
      if (c.gold_suspect) facts.push('gold suspect: ' + c.gold_suspect);
      if (c.peers) facts.push(`other systems on it: ${c.peers.with_prediction} with the prediction, ${c.peers.with_gold} with the gold, ` +
        `${c.peers.neither} neither, ${c.peers.failed} failed`);
      box.append(el('div', { class: 'small muted' }, facts.join(' · ')));
      if (v.counterexample_file) box.append(el('div', { class: 'small muted' }, `file: ${v.counterexample_file}`));
      box.append(el('h4', { text: 'Counterexample database' }), cexDatabase(c.rows));
      box.append(el('div', { class: 'rows-wrap cex-results' }, cexResult('Gold result on it', c.gold_result),
        cexResult('Predicted result on it', c.pred_result)));
      box.append(el('div', { class: 'small muted' }, 'Queries as searched (after the benchmark\'s own rewrites):'),
        el('pre', { class: 'sql cex-gold' }, c.gold_sql), el('pre', { class: 'sql cex-pred' }, c.pred_sql));
    }
    out.push(box);
  });
  return out;
}
