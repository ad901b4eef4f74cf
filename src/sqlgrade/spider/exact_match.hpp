#pragma once
// Spider exact set match (evaluation.py Evaluator.eval_partial_match / eval_exact_match) on rebuilt
// records, and the ORIGINAL Spider execution check (eval_exec_match of taoyds/spider, spec §1.14),
// which compares result columns keyed by the parsed select items.
#include "sqlgrade/spider.hpp"
#include "sqlgrade/spider/schema.hpp"
#include "sqlgrade/spider/sql.hpp"
#include "sqlgrade/core/table.hpp"

namespace sqlgrade::spider {

// Both records must already be rebuilt (rebuild_sql). `db` gives the symbol names (GROUP BY
// columns are compared by the text after the first '.').
PartialScores partial_match(const Sql& pred, const Sql& gold, const DbInfo& db);
// 1 iff every component scores 1 and the FROM table units are equal as multisets (the official
// sorted-list comparison, which crashes when two different FROM sub-queries must be ordered).
int exact_match(const Sql& pred, const Sql& gold, const DbInfo& db, PartialScores* partial = nullptr);

// The original Spider exec comparison of two results given the rebuilt select lists: a map
// select-key → column values (in row order) on each side, equal as dicts (cells by Python ==,
// py::equal). Quirks kept: row order
// matters; max(a)/min(a) share a key; later duplicate keys overwrite earlier ones. A result with
// fewer columns than parsed select items (the official IndexError) compares unequal.
bool spider_exec_maps_equal(const Sql& pred, const Table& pred_res, const Sql& gold, const Table& gold_res);

}  // namespace sqlgrade::spider
