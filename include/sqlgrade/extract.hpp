#pragma once
// sqlgrade::ExtractOptions — how the SQL is read out of a model's free-form output (the rules are
// src/sqlgrade/answer/extract.hpp's; this is the one options struct, with its defaults, that the CLI
// (`extract-sql`, `serve`), a /verify request's `extract` object and Python's `extract=` all fill).
// Standard library only.

namespace sqlgrade {

// A pinned extraction: NeMo Gym's bird_sql `extract_sql_from_response` of one Gym version, in place of
// sqlgrade's order (docs/serve.md, "Extraction presets"). Sqlgrade = the rules below.
//   GymBird04 (nemo-gym 0.4.0): the last ```sql block (case-sensitive opener) holding a letter, SQL
//     comments stripped as Gym's regex does, whitespace collapsed; no block -> the filler `SELECT 1`,
//     executed. Failure reasons in 0.4's words (a mismatch is `execution_error`).
//   GymBird07 (nemo-gym 0.7.0, Gym PR #2898): the opener case-insensitive with a word boundary after
//     `sql`, comments and newlines kept; no block -> no SQL (score 0, `no_sql_extracted`, nothing
//     executed). Failure reasons in 0.7's words (`result_mismatch`, `execution_timeout`).
enum class ExtractPreset { Sqlgrade, GymBird04, GymBird07 };

struct ExtractOptions {
  // Raw-text fallback: require the keyword to start a word (not preceded by a letter, digit or '_';
  // bytes >= 0x80 count as letters). Fixes "deselect"/"forwith"-style hits, not prose like "we select".
  bool word_boundary = false;
  // Recognise <solution>/<answer> tags and {"answer": "..."} (step 3). false = exactly NeMo Gym.
  bool tags_and_json = true;
  // Use the raw-text fallback at all (step 4).
  bool raw_fallback = true;
  // Read only the text after the last "</think>"; an unclosed "<think>" is no SQL. false = the whole
  // text, as before (and as NeMo Gym, whose model server strips the reasoning upstream).
  bool after_think = true;
  // Not Sqlgrade: that Gym version's function alone; the four flags above are then not used.
  ExtractPreset preset = ExtractPreset::Sqlgrade;
};

}  // namespace sqlgrade
