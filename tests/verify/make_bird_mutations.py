#!/usr/bin/env python3
"""Writes tests/verify/bird_mutations.jsonl and tests/verify/bird_rewrites.jsonl: the certified BIRD
Mini-Dev corpus of docs/verify.md ("A search that finds what is there").

bird_mutations.jsonl: mutations of the 500 real Mini-Dev gold queries that a text-to-SQL system could
write (`<` for `<=`, COUNT(col) for COUNT(*), COUNT(x) for COUNT(DISTINCT x), a constant off by one, a
dropped LIMIT, filter or DISTINCT, a swapped join key, ...). A mutation is kept only when
  1. it still gives the gold's result on the Mini-Dev database under BIRD's EX rule (a set of rows):
     an EX match that the benchmark credits, and
  2. it is CERTIFIED non-equivalent: this script finds a witness of its own — the Mini-Dev database
     with one change (an UPDATE of one cell, a copy of one row with fresh key values, or one row
     deleted) — on which the two queries give different sets of rows, every table they read is
     non-empty, the two results are not both vacuous (no rows / one row of NULLs and zeros: an
     aggregate over nothing), the change is accepted by SQLite (NOT NULL, UNIQUE, CHECK, types) and
     leaves no foreign key dangling. The change is stored with the pair (`witness`: the SQL
     statement), so the C++ test replays it on a fresh copy, re-validates it against the schema and
     re-executes both queries; it never trusts this script.
The witness search here is independent of sqlgrade's verifier (it edits the full benchmark database,
one change at a time, exhaustively over the cells the queries name), so the corpus measures how much
of what is there the verifier's bounded search finds.

bird_rewrites.jsonl: rewrites of the same golds that are equivalent on every database with the schema,
each by a rule that states why (alias renaming, conjunct order, BETWEEN spelled out, a CTE or a
derived table around the query, DISTINCT added or dropped at the top of a query without LIMIT — BIRD
compares sets —, `x = k` written `k = x`, IN-list spelled as ORs, IIF as CASE, ASC spelled out,
COUNT(*) as COUNT of a NOT NULL primary key of the only table). Each must match on the Mini-Dev
database, and the same exhaustive one-change search must NOT separate it (a rewrite it separates is
a bug of the rule and is reported on stderr, not written).

usage: make_bird_mutations.py [--data DIR] [--out DIR] [--per-class N]   (deterministic)
"""
import argparse, hashlib, json, os, re, sys

from bird_witness import (CLAUSE_END, COMPARE, Db, Tok, column_refs, depths, join, lex, read_tables, same, sig,
                          unq, witness)


def mutations(sql, db):
    """(class, mutant, hint) for every place of the gold where a mutation operator applies."""
    toks = lex(sql)
    s = sig(toks)
    d = depths(toks)
    out = []

    def replace(i, text, j=None):
        t2 = [Tok(t.kind, t.text) for t in toks]
        t2[i] = Tok("word", text)
        for k in range(i + 1, (j if j is not None else i) + 1):
            t2[k] = Tok("ws", "")
        return join(t2)

    aliases = read_tables(toks)
    for k, i in enumerate(s):
        t = toks[i]
        up = t.up()
        prev = toks[s[k - 1]].up() if k > 0 else ""
        nxt = toks[s[k + 1]].up() if k + 1 < len(s) else ""
        # < vs <=, > vs >=
        flip = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
        if t.kind == "op" and t.text in flip:
            out.append(("lt_vs_le", replace(i, flip[t.text]), {}))
        # a constant off by one (a number compared with something; not a LIMIT, not IIF's 1/0)
        if t.kind == "num" and (prev in COMPARE or nxt in COMPARE or prev in ("BETWEEN",) or
                                (prev == "AND" and any(toks[s[j]].up() == "BETWEEN" for j in range(max(0, k - 4), k)))):
            v = float(t.text) if "." in t.text else int(t.text)
            for dv in (1, -1):
                nv = v + dv
                txt = repr(nv) if isinstance(nv, float) else str(nv)
                if nv >= 0:
                    out.append(("constant_off_by_one", replace(i, txt), {}))
        # COUNT(*) vs COUNT(col), COUNT(DISTINCT x) vs COUNT(x)
        if up == "COUNT" and nxt == "(":
            close = next(j for j in range(k + 2, len(s)) if d[s[j]] == d[s[k + 1]] and toks[s[j]].text == ")")
            inner = s[k + 2:close]
            body = join(toks[s[k + 2]:s[close]])
            if len(inner) == 1 and toks[inner[0]].text == "*":
                for (tab, col) in sorted(column_refs(toks, db, aliases)):
                    if never_null(db, tab, col) and "LEFT" not in sql.upper():
                        continue  # COUNT(*) = COUNT(col) on every database: not a mutation
                    alias = next((a for a, n in aliases.items() if n.lower() == tab.lower() and a != n.lower()), None)
                    ref = (_alias_text(toks, alias) + "." if alias else "") + col
                    out.append(("count_star_vs_col", sql_splice(toks, s[k + 2], s[close], ref), {}))
            elif toks[inner[0]].up() == "DISTINCT":
                out.append(("count_distinct_vs_count", sql_splice(toks, s[k + 2], s[close], join(toks[inner[1]:s[close]]).strip()), {}))
            else:
                counted = column_refs(lex(body), db, aliases)
                if not (len(counted) == 1 and never_null(db, *next(iter(counted))) and "LEFT" not in sql.upper()):
                    out.append(("count_col_vs_star", sql_splice(toks, s[k + 2], s[close], "*"), {}))
                out.append(("count_vs_count_distinct", sql_splice(toks, s[k + 2], s[close], "DISTINCT " + body.strip()), {}))
        # dropped DISTINCT (not inside an aggregate: that is the class above)
        if up == "DISTINCT" and prev == "SELECT":
            out.append(("dropped_distinct", sql_splice(toks, i, i + 1, ""), {}))
        # dropped LIMIT (with its OFFSET)
        if up == "LIMIT":
            end = k + 1
            while end < len(s) and d[s[end]] >= d[i] and toks[s[end]].text != ")" and toks[s[end]].text != ";":
                end += 1
            stop = s[end] if end < len(s) else len(toks)
            out.append(("dropped_limit", sql_splice(toks, i, stop, " "), {}))
        # LIKE without wildcards vs = (case sensitivity) and back
        if up == "LIKE" and k + 1 < len(s) and toks[s[k + 1]].kind == "str" and not re.search(r"[%_]", toks[s[k + 1]].text):
            out.append(("like_vs_equals", replace(i, "="), {}))
        # INNER JOIN vs LEFT JOIN
        if up == "INNER" and nxt == "JOIN":
            out.append(("inner_vs_left_join", replace(i, "LEFT"), {}))
        # DESC vs ASC (with a LIMIT: which end of the order is kept)
        if up in ("DESC", "ASC") and "LIMIT" in sql.upper():
            out.append(("desc_vs_asc", replace(i, "ASC" if up == "DESC" else "DESC"), {}))
        # MAX vs MIN
        if up in ("MAX", "MIN") and nxt == "(":
            out.append(("max_vs_min", replace(i, "MIN" if up == "MAX" else "MAX"), {}))
        # a join key swapped for another column of the same table
        if up == "ON" and k + 3 < len(s):
            out.extend(join_key_swaps(toks, s, k, db, aliases))
    out.extend(dropped_filters(toks, s, d))
    return out


def never_null(db, tab, col):
    """Declared NOT NULL, or an INTEGER PRIMARY KEY (a rowid alias)."""
    c = next(c for c in db.tables[tab]["cols"] if c["name"] == col)
    return c["notnull"] or (c["pk"] and c["type"] == "INTEGER" and sum(1 for x in db.tables[tab]["cols"] if x["pk"]) == 1)


def _alias_text(toks, alias_lower):
    for t in toks:
        if t.kind in ("word", "qid") and unq(t.text).lower() == alias_lower:
            return t.text
    return alias_lower


def sql_splice(toks, a, b, text):
    return join(toks[:a]) + text + join(toks[b:])


def join_key_swaps(toks, s, k, db, aliases):
    """`ON A.x = B.y`: x replaced by another column of A's table of the same declared type."""
    out = []
    if k + 7 >= len(s):
        return out
    a, dot, col, eq = (toks[s[k + 1]], toks[s[k + 2]], toks[s[k + 3]], toks[s[k + 4]])
    if dot.text != "." or eq.text != "=":
        return out
    tab = db.lower.get(aliases.get(unq(a.text).lower(), unq(a.text)).lower())
    if not tab:
        return out
    cols = db.tables[tab]["cols"]
    here = next((c for c in cols if c["name"].lower() == unq(col.text).lower()), None)
    if here is None:
        return out
    for c in cols:
        if c["name"] != here["name"] and c["type"] == here["type"] and ("ID" in c["name"].upper() or "ID" in here["name"].upper()):
            out.append(("join_key_swap", sql_splice(toks, s[k + 3], s[k + 3] + 1, c["name"]), {}))
    return out


def dropped_filters(toks, s, d):
    """One conjunct of a WHERE dropped (the whole WHERE when it has one conjunct)."""
    out = []
    for k, i in enumerate(s):
        if toks[i].up() != "WHERE":
            continue
        level = d[i]
        end = k + 1
        while end < len(s) and not (d[s[end]] < level or (d[s[end]] == level and (toks[s[end]].up() in CLAUSE_END or toks[s[end]].text == ";"))):
            end += 1
        parts, start, between = [], k + 1, False
        for j in range(k + 1, end):
            t = toks[s[j]]
            if d[s[j]] != level:
                continue
            if t.up() == "BETWEEN":
                between = True
            elif t.up() == "AND":
                if between:
                    between = False
                else:
                    parts.append((start, j))
                    start = j + 1
            elif t.up() == "OR":
                parts = None
                break
        if parts is None:
            continue
        parts.append((start, end))
        stop = s[end] if end < len(s) else len(toks)
        if len(parts) == 1:
            out.append(("dropped_filter", sql_splice(toks, i, stop, " "), {}))
            continue
        for n, (a, b) in enumerate(parts):
            keep = [join(toks[s[x]:s[y - 1] + 1]) for m, (x, y) in enumerate(parts) if m != n]
            out.append(("dropped_filter", join(toks[:i + 1]) + " " + " AND ".join(keep) + " " + join(toks[stop:]), {}))
    return out


# ------------------------------------------------------------------------------ equivalent rewrites
def rewrites(sql, db):
    toks = lex(sql)
    s = sig(toks)
    d = depths(toks)
    out = []
    up = sql.upper()
    has_limit = re.search(r"\bLIMIT\b", up) is not None
    compound = re.search(r"\b(UNION|EXCEPT|INTERSECT)\b", up) is not None
    # a derived table and a CTE around the whole query (BIRD compares sets: order is not kept)
    if not re.search(r"\bWITH\b", up):
        out.append(("cte_wrap", "WITH q AS (" + sql + ") SELECT * FROM q"))
    out.append(("derived_table_wrap", "SELECT * FROM (" + sql + ")"))
    # aliases renamed
    aliases = [a for a, n in read_tables(toks).items() if a != n.lower()]
    if aliases:
        t2 = [Tok(t.kind, t.text) for t in toks]
        for t in t2:
            if t.kind in ("word", "qid") and unq(t.text).lower() in aliases:
                t.text = "alias_" + unq(t.text).lower()
        out.append(("alias_renamed", join(t2)))
    for k, i in enumerate(s):
        t = toks[i]
        prev = toks[s[k - 1]].up() if k > 0 else ""
        # DISTINCT dropped / added at the top of a query without LIMIT and without compound parts
        if t.up() == "DISTINCT" and prev == "SELECT" and d[i] == 0 and not has_limit and not compound:
            out.append(("top_distinct_dropped", sql_splice(toks, i, i + 1, "")))
        if t.up() == "SELECT" and k == 0 and not has_limit and not compound and toks[s[1]].up() != "DISTINCT":
            out.append(("top_distinct_added", sql_splice(toks, i, i + 1, "SELECT DISTINCT")))
        # x = 'k' written 'k' = x (affinity and the column's collation apply either way)
        if t.text == "=" and k + 1 < len(s) and toks[s[k + 1]].kind in ("str", "num") and k >= 1 and \
                toks[s[k - 1]].kind in ("word", "qid") and prev not in COMPARE and (k < 2 or toks[s[k - 2]].text == "." or toks[s[k - 2]].up() in ("WHERE", "AND", "ON")):
            a = s[k - 3] if k >= 3 and toks[s[k - 2]].text == "." else s[k - 1]
            lhs = join(toks[a:i]).strip()
            out.append(("equality_flipped", sql_splice(toks, a, s[k + 1] + 1, toks[s[k + 1]].text + " = " + lhs)))
        # BETWEEN spelled out
        if t.up() == "BETWEEN" and k >= 1 and k + 3 < len(s) and toks[s[k + 2]].up() == "AND" and prev not in ("NOT",):
            a = s[k - 3] if k >= 3 and toks[s[k - 2]].text == "." else s[k - 1]
            lhs = join(toks[a:i]).strip()
            if toks[s[k - 1]].kind in ("word", "qid"):
                lo, hi = toks[s[k + 1]].text, toks[s[k + 3]].text
                if toks[s[k + 1]].kind in ("str", "num") and toks[s[k + 3]].kind in ("str", "num"):
                    out.append(("between_spelled_out", sql_splice(toks, a, s[k + 3] + 1, f"{lhs} >= {lo} AND {lhs} <= {hi}")))
        # IIF(c, a, b) as CASE WHEN c THEN a ELSE b END
        if t.up() == "IIF" and k + 1 < len(s) and toks[s[k + 1]].text == "(":
            args, start, close = [], k + 2, None
            for j in range(k + 2, len(s)):
                if d[s[j]] == d[s[k + 1]] + 1 and toks[s[j]].text == ",":
                    args.append((start, j))
                    start = j + 1
                elif d[s[j]] == d[s[k + 1]] and toks[s[j]].text == ")":
                    args.append((start, j))
                    close = j
                    break
            if close and len(args) == 3:
                c, a, b = (join(toks[s[x]:s[y - 1] + 1]) for x, y in args)
                out.append(("iif_as_case", sql_splice(toks, i, s[close] + 1, f"CASE WHEN {c} THEN {a} ELSE {b} END")))
        # ORDER BY x → ORDER BY x ASC
        if t.up() == "BY" and prev == "ORDER":
            j = k + 1
            while j < len(s) and d[s[j]] >= d[i] and not (d[s[j]] == d[i] and (toks[s[j]].up() in ("LIMIT", "ASC", "DESC", ",", "COLLATE", "NULLS") or toks[s[j]].text == ";")):
                j += 1
            if j >= len(s) or d[s[j]] < d[i] or toks[s[j]].up() in ("LIMIT", ",") or toks[s[j]].text == ";":
                stop = s[j] if j < len(s) else len(toks)
                out.append(("asc_spelled_out", join(toks[:stop]).rstrip() + " ASC " + join(toks[stop:])))
        # IN-list spelled as ORs
        if t.up() == "IN" and k + 1 < len(s) and toks[s[k + 1]].text == "(" and k >= 1 and toks[s[k - 1]].kind in ("word", "qid") and prev != "NOT":
            items, close = [], None
            for j in range(k + 2, len(s)):
                if toks[s[j]].text == ")":
                    close = j
                    break
                if toks[s[j]].text != ",":
                    items.append(toks[s[j]])
            if close and items and all(x.kind in ("str", "num") for x in items) and \
                    all(toks[s[j]].text == "," for j in range(k + 3, close, 2)):
                a = s[k - 3] if k >= 3 and toks[s[k - 2]].text == "." else s[k - 1]
                lhs = join(toks[a:i]).strip()
                out.append(("in_list_as_or", sql_splice(toks, a, s[close] + 1, "(" + " OR ".join(f"{lhs} = {x.text}" for x in items) + ")")))
    out.extend(conjuncts_swapped(toks, s, d))
    out.extend(count_star_as_pk(toks, s, d, db))
    return out


def conjuncts_swapped(toks, s, d):
    out = []
    for k, i in enumerate(s):
        if toks[i].up() != "WHERE":
            continue
        level = d[i]
        end = k + 1
        while end < len(s) and not (d[s[end]] < level or (d[s[end]] == level and (toks[s[end]].up() in CLAUSE_END or toks[s[end]].text == ";"))):
            end += 1
        parts, start, between, ok = [], k + 1, False, True
        for j in range(k + 1, end):
            t = toks[s[j]]
            if d[s[j]] != level:
                continue
            if t.up() == "BETWEEN":
                between = True
            elif t.up() == "AND":
                if between:
                    between = False
                else:
                    parts.append((start, j))
                    start = j + 1
            elif t.up() == "OR":
                ok = False
        if not ok:
            continue
        parts.append((start, end))
        if len(parts) >= 2:
            texts = [join(toks[s[x]:s[y - 1] + 1]) for x, y in parts]
            stop = s[end] if end < len(s) else len(toks)
            out.append(("conjuncts_reversed", join(toks[:i + 1]) + " " + " AND ".join(reversed(texts)) + " " + join(toks[stop:])))
        break
    return out


def count_star_as_pk(toks, s, d, db):
    """COUNT(*) = COUNT(pk) when the query reads one table and pk is its INTEGER PRIMARY KEY or a NOT
    NULL single-column primary key (never NULL, so every row counts)."""
    al = read_tables(toks)
    if len(set(n.lower() for n in al.values())) != 1:
        return []
    tab = db.lower.get(next(iter(al.values())).lower())
    if not tab:
        return []
    pk = [c for c in db.tables[tab]["cols"] if c["pk"]]
    if len(pk) != 1 or not (pk[0]["notnull"] or pk[0]["type"] == "INTEGER"):
        return []
    out = []
    for k, i in enumerate(s):
        if toks[i].up() == "COUNT" and k + 3 < len(s) and toks[s[k + 2]].text == "*" and toks[s[k + 3]].text == ")":
            out.append(("count_star_as_pk", sql_splice(toks, s[k + 2], s[k + 2] + 1, '"' + pk[0]["name"] + '"')))
    return out


# ------------------------------------------------------------------------------------- witnesses
# ----------------------------------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.environ.get("SQLGRADE_DATA", os.path.join(os.path.dirname(__file__), "../../../shared/data")))
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--per-class", type=int, default=30)
    args = ap.parse_args()
    items = json.load(open(os.path.join(args.data, "bird/minidev/mini_dev_sqlite.json")))
    dbs = {}
    muts, rews = {}, {}
    seen = set()
    for it in sorted(items, key=lambda x: x["question_id"]):
        gold, name = it["SQL"].strip().rstrip(";"), it["db_id"]
        if (name, gold) in seen:
            continue
        seen.add((name, gold))
        if name not in dbs:
            dbs[name] = Db(os.path.join(args.data, "bird/dev_databases", name, name + ".sqlite"))
        db = dbs[name]
        g = db.run(gold)
        if g is None or len(g) > 20000:
            continue
        qid = it["question_id"]
        for n, (cls, mutant, _) in enumerate(mutations(gold, db)):
            if mutant.strip() == gold:
                continue
            m = db.run(mutant)
            if m is None or not same(m, g):
                continue
            muts.setdefault(cls, []).append(dict(qid=qid, db=name, gold=gold, pred=mutant))
        for cls, rw in rewrites(gold, db):
            if rw.strip() == gold:
                continue
            r = db.run(rw)
            if r is None or not same(r, g):
                print(f"rewrite {cls} of {qid} does not match on the database: {rw}", file=sys.stderr)
                continue
            rews.setdefault(cls, []).append(dict(qid=qid, db=name, gold=gold, pred=rw))
    write(args, dbs, muts, "bird_mutations.jsonl", certify=True)
    write(args, dbs, rews, "bird_rewrites.jsonl", certify=False)


def order(lst):
    """A deterministic shuffle (by a digest of the pair), so that the pairs kept per class come from
    many questions and databases; at most one pair per question and class."""
    seen, out = set(), []
    for x in sorted(lst, key=lambda x: hashlib.sha1((str(x["qid"]) + x["pred"]).encode()).hexdigest()):
        if x["qid"] not in seen:
            seen.add(x["qid"])
            out.append(x)
    return out


def write(args, dbs, by_class, fname, certify):
    lines = []
    for cls in sorted(by_class):
        kept = 0
        cands = order(by_class[cls])
        for p in cands:
            if kept >= args.per_class:
                break
            db = dbs[p["db"]]
            w = witness(db, p["gold"], p["pred"])
            if certify and w is None:
                continue
            if not certify and w is not None:
                print(f"NOT EQUIVALENT: rewrite {cls} of {p['qid']}: {p['pred']}\n  witness: {w}", file=sys.stderr)
                continue
            rec = dict(id=f"bird-{p['qid']}-{cls}-{kept}", benchmark="bird", db=p["db"], question_id=p["qid"],
                       **{"class": cls}, gold=p["gold"], pred=p["pred"])
            if certify:
                rec["witness"] = w
            lines.append(json.dumps(rec, ensure_ascii=False))
            kept += 1
        print(f"{fname}: {cls}: {kept} of {len(cands)} candidates", file=sys.stderr)
    with open(os.path.join(args.out, fname), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
