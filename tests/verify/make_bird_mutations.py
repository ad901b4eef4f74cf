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
import argparse, hashlib, json, os, re, sqlite3, sys

# ----------------------------------------------------------------------------------------- lexer
TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<str>'(?:[^']|'')*')
  | (?P<qid>"(?:[^"]|"")*"|`[^`]*`|\[[^\]]*\])
  | (?P<num>\d+\.\d*|\.\d+|\d+)
  | (?P<word>[A-Za-z_][A-Za-z_0-9$]*)
  | (?P<op><=|>=|<>|!=|==|\|\||[-+*/%<>=(),.;])
  | (?P<other>.)
""", re.X | re.S)


class Tok:
    __slots__ = ("kind", "text")

    def __init__(self, kind, text):
        self.kind, self.text = kind, text

    def up(self):
        return self.text.upper() if self.kind == "word" else self.text


def lex(sql):
    return [Tok(m.lastgroup, m.group()) for m in TOKEN.finditer(sql)]


def join(toks):
    return "".join(t.text for t in toks)


def sig(toks):  # indices of the non-whitespace tokens
    return [i for i, t in enumerate(toks) if t.kind != "ws"]


def depths(toks):
    d, out = 0, []
    for t in toks:
        if t.text == ")":
            d -= 1
        out.append(d)
        if t.text == "(":
            d += 1
    return out


def unq(name):
    if name[:1] in "\"`[":
        return name[1:-1]
    return name


COMPARE = {"<", "<=", ">", ">=", "=", "==", "!=", "<>"}
CLAUSE_END = {"GROUP", "ORDER", "LIMIT", "HAVING", "UNION", "EXCEPT", "INTERSECT", "WINDOW"}


# ------------------------------------------------------------------------------------- database
class Db:
    def __init__(self, path):
        self.path = path
        ro = sqlite3.connect("file:" + path + "?mode=ro&immutable=1", uri=True)
        self.con = sqlite3.connect(":memory:")
        ro.backup(self.con)
        ro.close()
        self.con.isolation_level = None
        self.steps = 0
        self.con.set_progress_handler(self._tick, 1000)
        self.tables = {}
        for (t,) in self.con.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"):
            cols = [dict(name=r[1], type=(r[2] or "").upper(), notnull=bool(r[3]), pk=r[5])
                    for r in self.con.execute(f'PRAGMA table_info("{t}")')]
            fks = {}
            for r in self.con.execute(f'PRAGMA foreign_key_list("{t}")'):
                fks.setdefault(r[0], []).append((r[2], r[3], r[4]))
            self.tables[t] = dict(cols=cols, fks=list(fks.values()), unique=self._unique_sets(t, cols))
        self.lower = {t.lower(): t for t in self.tables}
        self.fk_base = self.dangling()

    def _unique_sets(self, t, cols):
        sets = [[c["name"] for c in sorted(cols, key=lambda c: c["pk"]) if c["pk"]]]
        for r in self.con.execute(f'PRAGMA index_list("{t}")'):
            if r[2]:
                sets.append([x[2] for x in self.con.execute(f'PRAGMA index_info("{r[1]}")')])
        return [s for s in sets if s]

    def _tick(self):
        self.steps -= 1
        return 1 if self.steps < 0 else 0

    def run(self, sql):
        self.steps = 4000  # about 4 M VM steps: a slower query is not used
        try:
            return self.con.execute(sql).fetchmany(20001)
        except Exception:
            return None

    def dangling(self):
        """Foreign-key references without a parent row (checked by hand: one of the databases declares
        a key SQLite cannot enforce, 'foreign key mismatch', so PRAGMA foreign_key_check is no help)."""
        n = 0
        for t, info in self.tables.items():
            for fk in info["fks"]:
                parent = self.lower.get(fk[0][0].lower())
                if parent is None:
                    continue
                pk = [c["name"] for c in sorted(self.tables[parent]["cols"], key=lambda c: c["pk"]) if c["pk"]]
                pcols = [p if p is not None else (pk[i] if i < len(pk) else None) for i, (_, _, p) in enumerate(fk)]
                if None in pcols:
                    continue
                cond = " AND ".join(f'p."{pc}" = c."{cc}"' for (_, cc, _), pc in zip(fk, pcols))
                notnull = " AND ".join(f'c."{cc}" IS NOT NULL' for (_, cc, _) in fk)
                r = self.run(f'SELECT count(*) FROM "{t}" AS c WHERE {notnull} AND NOT EXISTS '
                             f'(SELECT 1 FROM "{parent}" AS p WHERE {cond})')
                n += r[0][0] if r else 0
        return n


def same(a, b):  # BIRD's EX rule: set(predicted rows) == set(gold rows)
    return set(a) == set(b)


def vacuous(rows):  # no rows, or one row of NULLs and zeros: what an aggregate over nothing gives
    return len(rows) == 0 or (len(rows) == 1 and all(v is None or v == 0 for v in rows[0]))


# ------------------------------------------------------------------------------- query reading
def read_tables(toks):
    """Tables named after FROM / JOIN / a comma of a FROM list, with their aliases."""
    s = sig(toks)
    out = {}
    for k, i in enumerate(s):
        w = toks[i].up()
        if w not in ("FROM", "JOIN") and not (toks[i].text == "," and in_from(toks, s, k)):
            continue
        if k + 1 >= len(s) or toks[s[k + 1]].text == "(":
            continue
        name = unq(toks[s[k + 1]].text)
        alias = name
        if k + 2 < len(s):
            a = toks[s[k + 2]]
            if a.up() == "AS" and k + 3 < len(s):
                alias = unq(toks[s[k + 3]].text)
            elif a.kind in ("word", "qid") and a.up() not in ("WHERE", "INNER", "LEFT", "JOIN", "ON", "GROUP",
                                                             "ORDER", "LIMIT", "CROSS", "NATURAL", "UNION",
                                                             "EXCEPT", "INTERSECT", "HAVING", "USING", "OUTER"):
                alias = unq(a.text)
        out[alias.lower()] = name
    return out


def in_from(toks, s, k):
    d = depths(toks)
    for j in range(k - 1, -1, -1):
        t = toks[s[j]]
        if d[s[j]] < d[s[k]]:
            return False
        if d[s[j]] > d[s[k]]:
            continue
        if t.up() in ("FROM", "JOIN"):
            return True
        if t.up() in ("SELECT", "WHERE", "ON", "GROUP", "ORDER", "HAVING", "SET", "BY"):
            return False
    return False


def column_refs(toks, db, aliases):
    """(table, column) pairs the query names, resolved through its aliases (unqualified names: every
    table of the query that has such a column)."""
    s = sig(toks)
    refs = set()
    qtables = [db.lower.get(t.lower()) for t in aliases.values()]
    qtables = [t for t in qtables if t]
    for k, i in enumerate(s):
        t = toks[i]
        if t.kind not in ("word", "qid"):
            continue
        if k + 2 < len(s) and toks[s[k + 1]].text == ".":
            tab = db.lower.get(aliases.get(unq(t.text).lower(), unq(t.text)).lower())
            col = unq(toks[s[k + 2]].text)
            if tab and any(c["name"].lower() == col.lower() for c in db.tables[tab]["cols"]):
                refs.add((tab, next(c["name"] for c in db.tables[tab]["cols"] if c["name"].lower() == col.lower())))
            continue
        if k > 0 and toks[s[k - 1]].text == ".":
            continue
        for tab in qtables:
            for c in db.tables[tab]["cols"]:
                if c["name"].lower() == unq(t.text).lower():
                    refs.add((tab, c["name"]))
    return refs


def constants(toks):
    out = []
    for t in toks:
        if t.kind == "num":
            out.append(float(t.text) if "." in t.text else int(t.text))
        elif t.kind == "str":
            out.append(t.text[1:-1].replace("''", "'"))
    return out


# ------------------------------------------------------------------------------------ mutations
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
def literal(v):
    if v is None:
        return "NULL"
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    if isinstance(v, bytes):
        return "X'" + v.hex() + "'"
    return repr(v)


def changes(db, gold, pred):
    """Single changes of the benchmark database, the most targeted first: for every (table, column)
    either query names and every row, the cell set to NULL, to a constant of the queries or a
    neighbour of one (±1, ±0.5), or to another value of the column; then every row copied with fresh
    key values; then every row deleted."""
    gt, pt = lex(gold), lex(pred)
    al = {**read_tables(gt), **read_tables(pt)}
    refs = sorted(column_refs(gt, db, read_tables(gt)) | column_refs(pt, db, read_tables(pt)))
    consts = []
    for v in constants(gt) + constants(pt):
        cand = [v] if isinstance(v, str) else [v, v - 1, v + 1, v - 0.5, v + 0.5]
        for c in cand:
            if c not in consts:
                consts.append(c)
    tables = sorted({db.lower[n.lower()] for n in al.values() if n.lower() in db.lower})
    for tab, col in refs:
        rowids = [r[0] for r in db.run(f'SELECT rowid FROM "{tab}" ORDER BY rowid') or []]
        others = [r[0] for r in db.run(f'SELECT DISTINCT "{col}" FROM "{tab}" WHERE "{col}" IS NOT NULL ORDER BY 1 LIMIT 6') or []]
        for rid in rowids:
            for v in [None] + consts + others:
                yield f'UPDATE "{tab}" SET "{col}" = {literal(v)} WHERE rowid = {rid}'
    for tab in tables:
        info = db.tables[tab]
        keys = {c for u in info["unique"] for c in u if len(u) == 1}
        cols = [c["name"] for c in info["cols"]]
        for (rid,) in db.run(f'SELECT rowid FROM "{tab}" ORDER BY rowid') or []:
            exprs = []
            for c in info["cols"]:
                n = c["name"]
                if n in keys:
                    num = any(x in c["type"] for x in ("INT", "REAL", "NUM", "DEC", "FLOA", "DOUB")) or c["type"] == ""
                    exprs.append(f'(SELECT coalesce(max("{n}"), 0) + 1000 FROM "{tab}")' if num else f"'{n}_copy_' || rowid")
                else:
                    exprs.append(f'"{n}"')
            collist = ", ".join(f'"{c}"' for c in cols)
            yield f'INSERT INTO "{tab}" ({collist}) SELECT {", ".join(exprs)} FROM "{tab}" WHERE rowid = {rid}'
    for tab in tables:
        for (rid,) in db.run(f'SELECT rowid FROM "{tab}" ORDER BY rowid') or []:
            yield f'DELETE FROM "{tab}" WHERE rowid = {rid}'


def try_change(db, stmt, gold, pred, tables):
    """Applies `stmt` inside a savepoint; returns (gold rows, pred rows) when the two differ under
    BIRD's rule, not both vacuously, on a valid database (SQLite accepted the change, no new dangling
    foreign key, every table the queries read non-empty); else None. Always rolled back."""
    db.con.execute("SAVEPOINT w")
    try:
        try:
            db.con.execute(stmt)
        except sqlite3.Error:
            return None
        g, p = db.run(gold), db.run(pred)
        if g is None or p is None or same(g, p) or (vacuous(g) and vacuous(p)):
            return None
        if db.dangling() > db.fk_base:
            return None
        for t in tables:
            if not db.run(f'SELECT 1 FROM "{t}" LIMIT 1'):
                return None
        return g, p
    finally:
        db.con.execute("ROLLBACK TO w")
        db.con.execute("RELEASE w")


def read_tables_of(db, *sqls):
    out = set()
    for q in sqls:
        for n in read_tables(lex(q)).values():
            if n.lower() in db.lower:
                out.add(db.lower[n.lower()])
    return sorted(out)


def witness(db, gold, pred, limit=6000):
    """The first single change on which the two queries differ under BIRD's rule, non-degenerately."""
    tables = read_tables_of(db, gold, pred)
    for n, stmt in enumerate(changes(db, gold, pred)):
        if n >= limit:
            return None
        if try_change(db, stmt, gold, pred, tables):
            return stmt
    return None


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
