#pragma once
// sqlgrade::ExtractOptions — how the SQL is read out of a model's free-form output (the rules are
// src/sqlgrade/answer/extract.hpp's; this is the one options struct, with its defaults, that the CLI
// (`extract-sql`, `serve`), a /verify request's `extract` object and Python's `extract=` all fill).
// Standard library only.

namespace sqlgrade {

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
};

}  // namespace sqlgrade
