"""The SQL reading, the benchmark database and the witness search of make_bird_mutations.py: a small
SQLite lexer and the query reading the mutation rules use (tables and aliases, column references,
constants); the Mini-Dev database copied into memory with its schema (keys, unique sets, foreign keys
checked by hand); BIRD's EX rule; and the exhaustive one-change witness search (an UPDATE of one cell, a
copy of one row with fresh key values, or one row deleted) that certifies a mutation non-equivalent or
a rewrite equivalent. Independent of sqlgrade's verifier.
"""
import re, sqlite3

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


# ------------------------------------------------------------------------------- witness search
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
