#!/usr/bin/env python3
"""Writes tests/verify/equivalent.jsonl and nonequivalent.jsonl: query pairs over the real Spider dev
and BIRD Mini-Dev schemas for the verification corpus tests (docs/verify.md "Corpora").

Each pair is written from a rewrite rule of our own, instantiated on a real table, its real columns,
foreign keys and values (read from the database, opened read-only). A rule states the conditions that
make its rewrite truly equivalent (e.g. COUNT(*) = COUNT(pk) only for a NOT NULL / INTEGER PRIMARY KEY
column; IN = EXISTS with the outer column on the left so that collation is the same) or the class of
its known non-equivalence. Only pairs that give the same result on the original database are kept
(a pair that differs there is no EX match); the C++ test checks that again with the real rules.

usage: make_corpus.py [--data DIR] [--out DIR]      (deterministic; never writes into DIR)
"""
import argparse, json, os, random, sqlite3

def unq(n):
    return n[1:-1] if n.startswith("`") else n

KEYWORDS = set("""order group by select from where table index join limit values check default key transaction
match set case when end to as in is on or and not primary references foreign unique union all desc asc date time
cast null like glob between exists having offset natural left right cross inner outer using""".split())

def ident(n):
    if n.startswith("`"): return n
    ok = n.replace("_", "").isalnum() and n.isascii() and not n[0].isdigit() and n.lower() not in KEYWORDS
    return n if ok else "`" + n + "`"

def lit(v):
    return str(v) if isinstance(v, (int, float)) else "'" + str(v).replace("'", "''") + "'"

class Db:
    def __init__(self, path):
        self.con = sqlite3.connect("file:" + path + "?mode=ro&immutable=1", uri=True)
        self.con.set_progress_handler(lambda: 1 if self.steps_left() else 0, 10000)
        self.budget = 0
        self.tables = {}
        for (t,) in self.con.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"):
            cols = [dict(name=r[1], type=(r[2] or "").upper(), notnull=bool(r[3]), pk=r[5])
                    for r in self.con.execute(f"PRAGMA table_info({ident(t)})")]
            fks = [dict(col=r[3], parent=r[2], pcol=r[4]) for r in self.con.execute(f"PRAGMA foreign_key_list({ident(t)})")]
            n = self.con.execute(f"SELECT count(*) FROM {ident(t)}").fetchone()[0]
            self.tables[t] = dict(cols=cols, fks=fks, n=n)

    def steps_left(self):  # ~20 M VM steps per query at most: a pair whose query is that slow is dropped
        self.budget -= 1
        return self.budget < 0

    def q(self, sql):
        self.budget = 2000
        try:
            return self.con.execute(sql).fetchmany(5001)
        except Exception:
            return None

    def vals(self, t, c):
        t, c = unq(t), unq(c)
        return [r[0] for r in self.q(f"SELECT {ident(c)} FROM {ident(t)}") or []]

    def kind(self, t, c):  # 'num', 'text' or None, from the data and the declared type
        t, c = unq(t), unq(c)
        v = [x for x in self.vals(t, c) if x is not None]
        ty = next(x["type"] for x in self.tables[t]["cols"] if x["name"] == c)
        if v and all(isinstance(x, int) and not isinstance(x, bool) for x in v) and "INT" in ty: return "num"
        if v and all(isinstance(x, str) for x in v) and ("CHAR" in ty or "TEXT" in ty): return "text"
        return None

    def col(self, t, c):
        t, c = unq(t), unq(c)
        return next(x for x in self.tables[t]["cols"] if x["name"] == c)

def is_unique(db, t, c):  # a single-column PRIMARY KEY or UNIQUE: duplicates are impossible there
    t, c = unq(t), unq(c)
    pk = [x["name"] for x in db.tables[t]["cols"] if x["pk"]]
    if pk == [c]: return True
    for r in db.q(f"PRAGMA index_list({ident(t)})") or []:
        if r[2]:
            cols = [x[2] for x in db.q(f"PRAGMA index_info({ident(r[1])})") or []]
            if cols == [c]: return True
    return False

def same(a, b, rule, ordered):
    if a is None or b is None: return False
    if rule == "bird": return set(a) == set(b)
    return a == b if ordered else sorted(map(repr, a)) == sorted(map(repr, b))

def cols_of(db, t, kind):
    return [c["name"] for c in db.tables[t]["cols"] if db.kind(t, c["name"]) == kind]

def notnull_key(db, t):
    pk = [c for c in db.tables[unq(t)]["cols"] if c["pk"]]
    if len(pk) == 1 and (pk[0]["notnull"] or pk[0]["type"] == "INTEGER"): return ident(pk[0]["name"])
    return None

def fk_pairs(db):
    out = []
    for t, info in db.tables.items():
        for fk in info["fks"]:
            if fk["parent"] in db.tables and fk["pcol"] and 0 < db.tables[t]["n"] <= 5000 and 0 < db.tables[fk["parent"]]["n"] <= 5000:
                if any(c["name"] == fk["pcol"] for c in db.tables[fk["parent"]]["cols"]):
                    out.append((t, fk["col"], fk["parent"], fk["pcol"]))
    return out

# ---- equivalent rewrites: (name, f(db, rng) -> (gold, pred) or None)
def e_alias(db, r, t, n, c):
    k = r.choice([v for v in db.vals(t, n) if v is not None])
    return (f"SELECT {c} FROM {t} WHERE {n} > {k}", f"SELECT T1.{c} FROM {t} AS T1 WHERE T1.{n} > {k}")

def e_reorder(db, r, t, n, c):
    k = r.choice([v for v in db.vals(t, n) if v is not None]); v = r.choice([x for x in db.vals(t, c) if x is not None])
    return (f"SELECT {c}, {n} FROM {t} WHERE {n} >= {k} AND {c} = {lit(v)}",
            f"SELECT {c}, {n} FROM {t} WHERE {c} = {lit(v)} AND {k} <= {n}")

def e_between(db, r, t, n, c):
    v = sorted(x for x in db.vals(t, n) if x is not None); a, b = v[len(v) // 4], v[3 * len(v) // 4]
    return (f"SELECT {c} FROM {t} WHERE {n} BETWEEN {a} AND {b}", f"SELECT {c} FROM {t} WHERE {n} >= {a} AND {n} <= {b}")

def e_cte(db, r, t, n, c):
    k = r.choice([v for v in db.vals(t, n) if v is not None])
    return (f"WITH x AS (SELECT * FROM {t} WHERE {n} < {k}) SELECT count(*), max({c}) FROM x",
            f"SELECT count(*), max({c}) FROM (SELECT * FROM {t} WHERE {n} < {k})")

def e_not(db, r, t, n, c):
    k = r.choice([v for v in db.vals(t, n) if v is not None])
    return (f"SELECT {c} FROM {t} WHERE {n} > {k}", f"SELECT {c} FROM {t} WHERE NOT ({n} <= {k})")

def e_inlist(db, r, t, n, c):
    v = list(dict.fromkeys(x for x in db.vals(t, c) if x is not None))[:2]
    if len(v) < 2: return None
    return (f"SELECT {n} FROM {t} WHERE {c} IN ({lit(v[0])}, {lit(v[1])})",
            f"SELECT {n} FROM {t} WHERE {c} = {lit(v[0])} OR {c} = {lit(v[1])}")

def e_having(db, r, t, n, c):
    return (f"SELECT {c}, count(*) FROM {t} GROUP BY {c} HAVING count(*) >= 1",
            f"SELECT {c}, k FROM (SELECT {c}, count(*) AS k FROM {t} GROUP BY {c}) WHERE k >= 1")

def e_countdistinct(db, r, t, n, c):
    return (f"SELECT count(DISTINCT {c}) FROM {t}", f"SELECT count(*) FROM (SELECT DISTINCT {c} FROM {t} WHERE {c} IS NOT NULL)")

def e_groupdistinct(db, r, t, n, c):
    return (f"SELECT DISTINCT {c} FROM {t}", f"SELECT {c} FROM {t} GROUP BY {c}")

def e_notnull(db, r, t, n, c):
    return (f"SELECT {n} FROM {t} WHERE {c} IS NOT NULL", f"SELECT {n} FROM {t} WHERE NOT {c} IS NULL")

def e_subq_max(db, r, t, n, c):
    return (f"SELECT max({n}) FROM {t}", f"SELECT m FROM (SELECT max({n}) AS m FROM {t})")

def e_orderasc(db, r, t, n, c):
    return (f"SELECT {c}, {n} FROM {t} ORDER BY {n}, {c}", f"SELECT {c}, {n} FROM {t} ORDER BY {n} ASC, {c} ASC")

def e_countpk(db, r, t, n, c):
    pk = notnull_key(db, t)
    if not pk: return None
    k = r.choice([v for v in db.vals(t, n) if v is not None])
    return (f"SELECT count(*) FROM {t} WHERE {n} >= {k}", f"SELECT count({pk}) FROM {t} WHERE {n} >= {k}")

def e_union(db, r, t, n, c):
    pk = notnull_key(db, t)
    if not pk: return None
    k = r.choice([v for v in db.vals(t, n) if v is not None]); v = r.choice([x for x in db.vals(t, c) if x is not None])
    return (f"SELECT {pk}, {c} FROM {t} WHERE {n} > {k} UNION SELECT {pk}, {c} FROM {t} WHERE {c} = {lit(v)}",
            f"SELECT DISTINCT {pk}, {c} FROM {t} WHERE {n} > {k} OR {c} = {lit(v)}")

SINGLE_E = [e_alias, e_reorder, e_between, e_cte, e_not, e_inlist, e_having, e_countdistinct, e_groupdistinct,
            e_notnull, e_subq_max, e_orderasc, e_countpk, e_union]

def fk_rules_e(db, r, ch, fc, pa, pc):
    px = r.choice([c["name"] for c in db.tables[pa]["cols"]]); cx = r.choice([c["name"] for c in db.tables[ch]["cols"]])
    P, C = ident(pa), ident(ch); fc, pc, px, cx = ident(fc), ident(pc), ident(px), ident(cx)
    out = [("join_order", f"SELECT T1.{px}, T2.{cx} FROM {P} AS T1 JOIN {C} AS T2 ON T1.{pc} = T2.{fc}",
            f"SELECT T1.{px}, T2.{cx} FROM {C} AS T2 JOIN {P} AS T1 ON T1.{pc} = T2.{fc}"),
           ("in_exists", f"SELECT {px} FROM {P} WHERE {pc} IN (SELECT {fc} FROM {C})",
            f"SELECT {px} FROM {P} AS T1 WHERE EXISTS (SELECT 1 FROM {C} AS T2 WHERE T1.{pc} = T2.{fc})"),
           ("left_join_not_null", f"SELECT T1.{px} FROM {P} AS T1 JOIN {C} AS T2 ON T1.{pc} = T2.{fc}",
            f"SELECT T1.{px} FROM {P} AS T1 LEFT JOIN {C} AS T2 ON T1.{pc} = T2.{fc} WHERE T2.{fc} IS NOT NULL")]
    pk = notnull_key(db, pa)
    if pk:
        out.append(("in_join_distinct", f"SELECT {ident(pk)} FROM {P} WHERE {pc} IN (SELECT {fc} FROM {C})",
                    f"SELECT DISTINCT T1.{ident(pk)} FROM {P} AS T1 JOIN {C} AS T2 ON T1.{pc} = T2.{fc}"))
    return out

# ---- known non-equivalent pairs: (class, f) ; each needs the original to agree
def n_single(db, r, t, n, c, rule):
    out = []
    nv = [v for v in db.vals(t, n) if v is not None]; cv = db.vals(t, c)
    col_c = db.col(t, c)
    if rule == "spider" and len(set(cv)) == len(cv) and not is_unique(db, t, c):
        out.append(("missing_distinct", f"SELECT DISTINCT {c} FROM {t}", f"SELECT {c} FROM {t}"))
    if nv and len(nv) == len(db.vals(t, n)):
        out.append(("missing_filter", f"SELECT {c} FROM {t} WHERE {n} >= {min(nv)}", f"SELECT {c} FROM {t}"))
        sv = set(nv); gaps = sorted(v + 1 for v in sv if v + 1 not in sv and v + 1 < max(nv))
        if gaps:
            k = r.choice(gaps)
            out.append(("off_by_one", f"SELECT {c} FROM {t} WHERE {n} > {k}", f"SELECT {c} FROM {t} WHERE {n} >= {k}"))
        if nv.count(max(nv)) == 1 and not is_unique(db, t, n):
            out.append(("limit_ties", f"SELECT {c} FROM {t} ORDER BY {n} DESC LIMIT 1",
                        f"SELECT {c} FROM {t} WHERE {n} = (SELECT max({n}) FROM {t})"))
        out.append(("empty_aggregate", f"SELECT max({n}) FROM {t}", f"SELECT {n} FROM {t} ORDER BY {n} DESC LIMIT 1"))
    if not col_c["notnull"] and not col_c["pk"] and None not in cv and cv:
        out.append(("count_star_vs_col", f"SELECT count(*) FROM {t}", f"SELECT count({c}) FROM {t}"))
        v = r.choice(cv)
        out.append(("null_handling", f"SELECT {n} FROM {t} WHERE {c} != {lit(v)} OR {c} IS NULL",
                    f"SELECT {n} FROM {t} WHERE {c} != {lit(v)}"))
    letters = [x for x in cv if isinstance(x, str) and any(ch.isalpha() for ch in x) and "%" not in x and "_" not in x]
    if letters:
        v = r.choice(letters)
        out.append(("like_vs_equals", f"SELECT {n} FROM {t} WHERE {c} = {lit(v)}", f"SELECT {n} FROM {t} WHERE {c} LIKE {lit(v)}"))
    if len(set(cv)) == len(cv) and None not in cv and not is_unique(db, t, c) and cv:
        out.append(("count_vs_count_distinct", f"SELECT count({c}) FROM {t}", f"SELECT count(DISTINCT {c}) FROM {t}"))
    return out

def n_fk(db, r, ch, fc, pa, pc, rule):
    P, C, fci, pci = ident(pa), ident(ch), ident(fc), ident(pc)
    px = ident(r.choice([c["name"] for c in db.tables[pa]["cols"]]))
    out = []
    withkids = [v for (v,) in db.q(f"SELECT DISTINCT {fci} FROM {C} WHERE {fci} IS NOT NULL") or []][:2]
    if withkids:
        w = ", ".join(lit(v) for v in withkids)
        out.append(("wrong_join_type", f"SELECT T1.{px}, T2.{fci} FROM {P} AS T1 LEFT JOIN {C} AS T2 ON T1.{pci} = T2.{fci} WHERE T1.{pci} IN ({w})",
                    f"SELECT T1.{px}, T2.{fci} FROM {P} AS T1 JOIN {C} AS T2 ON T1.{pci} = T2.{fci} WHERE T1.{pci} IN ({w})"))
    fcol = db.col(ch, fc)
    if not fcol["notnull"] and not fcol["pk"] and None not in db.vals(ch, fc):
        out.append(("not_in_null", f"SELECT {px} FROM {P} AS T1 WHERE NOT EXISTS (SELECT 1 FROM {C} AS T2 WHERE T1.{pci} = T2.{fci})",
                    f"SELECT {px} FROM {P} WHERE {pci} NOT IN (SELECT {fci} FROM {C})"))
    if rule == "spider" and not is_unique(db, ch, fc):
        out.append(("join_duplicates", f"SELECT {px} FROM {P} WHERE {pci} IN (SELECT {fci} FROM {C})",
                    f"SELECT T1.{px} FROM {P} AS T1 JOIN {C} AS T2 ON T1.{pci} = T2.{fci}"))
    return out

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.environ.get("SQLGRADE_DATA", "../shared/data"))
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    a = ap.parse_args()
    r = random.Random(24)
    eq, ne = [], []
    sources = [("spider", os.path.join(a.data, "spider", "database")), ("bird", os.path.join(a.data, "bird", "dev_databases"))]
    for rule, root in sources:
        for name in sorted(os.listdir(root)):
            db = Db(os.path.join(root, name, name + ".sqlite"))
            def keep(lst, cls, g, p, per_db_cap):
                if sum(1 for x in lst if x["db"] == name and x["class"] == cls) >= per_db_cap: return
                if any(x["gold"] == g and x["pred"] == p for x in lst): return
                if not same(db.q(g), db.q(p), rule, "order by" in g.lower()): return
                lst.append(dict(id=f"{rule}-{name}-{len(lst)}", benchmark=rule, db=name, **{"class": cls}, gold=g, pred=p))
            for t in sorted(db.tables):
                if db.tables[t]["n"] < 2 or db.tables[t]["n"] > 5000: continue
                nums, texts = cols_of(db, t, "num"), cols_of(db, t, "text")
                if not nums or not texts: continue
                for _ in range(2):
                    n, c = ident(r.choice(nums)), ident(r.choice(texts))
                    T = ident(t)
                    for f in SINGLE_E:
                        pair = f(db, r, T, n, c)
                        if pair: keep(eq, f.__name__[2:], pair[0], pair[1], 1)
                    for cls, g, p in n_single(db, r, T, n, c, rule):
                        keep(ne, cls, g, p, 2)
            for (ch, fc, pa, pc) in fk_pairs(db):
                for cls, g, p in fk_rules_e(db, r, ch, fc, pa, pc): keep(eq, cls, g, p, 2)
                for cls, g, p in n_fk(db, r, ch, fc, pa, pc, rule): keep(ne, cls, g, p, 2)
    def thin(lst, cap):  # at most `cap` pairs per class, spread over the databases, ids renumbered
        out = []
        for cls in dict.fromkeys(x["class"] for x in lst):
            xs = [x for x in lst if x["class"] == cls]
            step = max(1.0, len(xs) / cap)
            out += [xs[int(i * step)] for i in range(min(cap, len(xs)))]
        for i, x in enumerate(out): x["id"] = f"{x['benchmark']}-{x['db']}-{x['class']}-{i}"
        return out
    eq, ne = thin(eq, 15), thin(ne, 22)
    for fname, lst in (("equivalent.jsonl", eq), ("nonequivalent.jsonl", ne)):
        with open(os.path.join(a.out, fname), "w") as f:
            for x in lst: f.write(json.dumps(x) + "\n")
    from collections import Counter
    print(len(eq), "equivalent", dict(Counter(x["class"] for x in eq)))
    print(len(ne), "non-equivalent", dict(Counter(x["class"] for x in ne)))

if __name__ == "__main__":
    main()
