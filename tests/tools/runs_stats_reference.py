#!/usr/bin/env python3
"""Independent re-implementation of `sqlgrade diff`'s statistics (ctest runs.python.stats_reference).

Writes two random run records, runs `sqlgrade diff --json`, and recomputes every number here with
Python's standard library only, written from the definitions in docs/comparing-runs.md, not from
the C++ code:
  - McNemar's exact test with exact rational arithmetic (math.comb, fractions);
  - the paired bootstrap with MT19937-64 written from Matsumoto & Nishimura's reference algorithm
    (checked against the C++ standard's value 9981545732273789042), rejection sampling of indices
    and the type-7 quantile;
  - Cohen's kappa from the 2x2 table, Pearson (statistics.correlation) and Spearman (average ranks).
"""
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check as _check, verdict  # noqa: E402

CLI = os.environ.get("SQLGRADE_CLI", "sqlgrade")
MASK = (1 << 64) - 1
class MT19937_64:
    NN, MM = 312, 156
    A, UM, LM = 0xB5026F5AA96619E9, 0xFFFFFFFF80000000, 0x7FFFFFFF

    def __init__(self, seed):
        self.mt = [seed & MASK]
        for i in range(1, self.NN):
            prev = self.mt[-1]
            self.mt.append((6364136223846793005 * (prev ^ (prev >> 62)) + i) & MASK)
        self.i = self.NN

    def _twist(self):
        mt, NN, MM = self.mt, self.NN, self.MM
        for k in range(NN):
            x = (mt[k] & self.UM) | (mt[(k + 1) % NN] & self.LM)
            mt[k] = mt[(k + MM) % NN] ^ (x >> 1) ^ (self.A if x & 1 else 0)
        self.i = 0

    def next(self):
        if self.i >= self.NN:
            self._twist()
        x = self.mt[self.i]
        self.i += 1
        x ^= (x >> 29) & 0x5555555555555555
        x ^= (x << 17) & 0x71D67FFFEDA60000
        x ^= (x << 37) & 0xFFF7EEE000000000
        x ^= x >> 43
        return x & MASK

    def below(self, n):
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next()
            if x < limit:
                return x % n


def check(cond, what):
    return _check(cond, what, quiet=True)


def close(a, b, what, tol=1e-9):
    ok = (a is None and b is None) or (a is not None and b is not None and abs(a - b) <= tol)
    check(ok, f"{what}: sqlgrade {a!r} vs reference {b!r}")


def mcnemar(xa, xb):
    b = sum(1 for x, y in zip(xa, xb) if x == 1 and y == 0)
    c = sum(1 for x, y in zip(xa, xb) if x == 0 and y == 1)
    n = b + c
    if n == 0:
        return b, c, 1.0
    tail = Fraction(sum(math.comb(n, k) for k in range(min(b, c) + 1)), 2 ** n)
    return b, c, float(min(Fraction(1), 2 * tail))


def quantile7(s, p):
    h = (len(s) - 1) * p
    lo = math.floor(h)
    if lo + 1 >= len(s):
        return s[-1]
    return s[lo] + (h - lo) * (s[lo + 1] - s[lo])


def bootstrap(xa, xb, resamples, seed, confidence):
    d = [y - x for x, y in zip(xa, xb)]
    n = len(d)
    rng = MT19937_64(seed)
    means = []
    for _ in range(resamples):
        s = 0.0
        for _ in range(n):
            s += d[rng.below(n)]
        means.append(s / n)
    means.sort()
    tail = (1 - confidence) / 2
    return sum(d) / n, quantile7(means, tail), quantile7(means, 1 - tail)


def holm(ps):
    """Holm's step-down adjustment written from the paper's procedure (Holm 1979): reject in order of
    increasing p while p_(j) <= alpha / (m - j + 1); the adjusted p-value of the k-th smallest is the
    smallest alpha at which it is rejected, i.e. max over j <= k of min(1, (m - j + 1) p_(j))."""
    m = len(ps)
    out = [0.0] * m
    for rank_k, i in enumerate(sorted(range(m), key=lambda i: ps[i])):
        out[i] = max(min(1.0, (m - j) * ps[jdx]) for j, jdx in enumerate(sorted(range(m), key=lambda i: ps[i])[:rank_k + 1]))
    return out


def ranks(x):
    order = sorted(range(len(x)), key=lambda i: x[i])
    r = [0.0] * len(x)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and x[order[j + 1]] == x[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def kappa(x, y):
    n = len(x)
    n11 = sum(1 for a, b in zip(x, y) if a == 1 and b == 1)
    n00 = sum(1 for a, b in zip(x, y) if a == 0 and b == 0)
    px, py = sum(x) / n, sum(y) / n
    po = (n11 + n00) / n
    pe = px * py + (1 - px) * (1 - py)
    return n11, n00, po, (po - pe) / (1 - pe)


def make_runs(tmp):
    rnd = random.Random(2024)
    hard = ["easy", "medium", "hard"]
    runs = []
    for system, p_exec in (("a", 0.6), ("b", 0.68)):
        insts = []
        for i in range(200):
            e = 1 if rnd.random() < p_exec else 0
            scores = {"exec": e, "exact": e if rnd.random() < 0.7 else 1 - e}
            if i % 9:
                scores["f1"] = round(min(1.0, max(0.0, e * 0.6 + rnd.random() * 0.5)), 3)
            insts.append({"id": f"q{i:03d}", "scores": scores, "category": {"hardness": hard[i % 3]}, "gold_sql": "SELECT 1"})
        rnd.shuffle(insts)  # alignment is by id, not by position
        rec = {"schema": "sqlgrade-run", "schema_version": 1, "tool": {"name": "sqlgrade", "version": "0"}, "command": [],
               "benchmark": "toy", "system": system,
               "metrics": [{"name": "exec", "kind": "binary"}, {"name": "exact", "kind": "binary"}, {"name": "f1", "kind": "continuous"}],
               "primary_metric": "exec", "options": {}, "inputs": [], "engines": {}, "machine": {"host": "", "os": "", "cores": 0},
               "started_at": "", "wall_s": 0, "summary": {}, "instances": insts}
        path = os.path.join(tmp, system + ".json")
        with open(path, "w") as f:
            json.dump(rec, f)
        runs.append((path, {x["id"]: x for x in insts}))
    return runs


def main():
    g = MT19937_64(5489)
    for _ in range(9999):
        g.next()
    if g.next() != 9981545732273789042:
        print("reference MT19937-64 is wrong")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        (fa, A), (fb, B) = make_runs(tmp)
        R, SEED, CONF = 1000, 99, 0.9
        outs = {}
        for agree in ("exec,exact", "exec,f1"):
            r = subprocess.run([CLI, "diff", fa, fb, "--json", "--bootstrap", str(R), "--seed", str(SEED), "--confidence", str(CONF),
                                "--agree", agree], capture_output=True, text=True)
            if r.returncode != 0:
                print(r.stderr)
                return 1
            outs[agree] = json.loads(r.stdout)
    out = outs["exec,exact"]
    ids = sorted(A)

    def compare_block(block, subset, label):
        for m in block:
            name = m["metric"]
            pairs = [(A[i]["scores"][name], B[i]["scores"][name]) for i in subset if name in A[i]["scores"] and name in B[i]["scores"]]
            xa, xb = [p[0] for p in pairs], [p[1] for p in pairs]
            check(m["n"] == len(pairs), f"{label} {name}: n {m['n']} vs {len(pairs)}")
            close(m["a"], sum(xa) / len(xa), f"{label} {name}: mean A")
            close(m["b"], sum(xb) / len(xb), f"{label} {name}: mean B")
            delta, lo, hi = bootstrap(xa, xb, R, SEED, CONF)
            close(m["delta"], delta, f"{label} {name}: delta")
            close(m["bootstrap"]["lo"], lo, f"{label} {name}: bootstrap lo")
            close(m["bootstrap"]["hi"], hi, f"{label} {name}: bootstrap hi")
            if name in ("exec", "exact"):
                b, c, p = mcnemar(xa, xb)
                check((m["mcnemar"]["b"], m["mcnemar"]["c"]) == (b, c), f"{label} {name}: b/c {m['mcnemar']} vs {(b, c)}")
                close(m["mcnemar"]["p"], p, f"{label} {name}: McNemar p", 1e-12)
            else:
                check("mcnemar" not in m, f"{label} {name}: no McNemar for a continuous metric")

    compare_block(out["overall"], ids, "overall")
    for cat in out["by_category"]:
        compare_block(cat["metrics"], [i for i in ids if A[i]["category"]["hardness"] == cat["value"]], f"hardness={cat['value']}")
    check([c["value"] for c in out["by_category"]] == ["easy", "hard", "medium"], "category values in natural order (none declared)")
    # Multiple comparisons: each binary metric's McNemar tests over the hardness values are one family.
    for k, name in enumerate(m["metric"] for m in out["overall"]):
        cells = [cat["metrics"][k] for cat in out["by_category"]]
        if name == "f1":
            check(all("mcnemar" not in c for c in cells), "no Holm for a continuous metric")
            continue
        expect = holm([c["mcnemar"]["p"] for c in cells])
        for c, e in zip(cells, expect):
            check(c["mcnemar"]["family"] == len(cells), f"{name}: family of {len(cells)} tests")
            close(c["mcnemar"]["p_holm"], e, f"{name}: Holm-adjusted p", 1e-12)
        check(any(e > c["mcnemar"]["p"] for c, e in zip(cells, expect)), f"{name}: the correction changes some p-value")

    reg = sorted(i for i in ids if A[i]["scores"]["exec"] > B[i]["scores"]["exec"])
    imp = sorted(i for i in ids if A[i]["scores"]["exec"] < B[i]["scores"]["exec"])
    check([r["id"] for r in out["regressions"]] == reg, "regressions (A right, B wrong), in id order")
    check([r["id"] for r in out["improvements"]] == imp, "improvements, in id order")

    for g_out, run in zip(out["agreement"], (A, B)):
        x = [run[i]["scores"]["exec"] for i in ids]
        y = [run[i]["scores"]["exact"] for i in ids]
        n11, n00, po, k = kappa(x, y)
        check((g_out["binary"]["both"], g_out["binary"]["neither"]) == (n11, n00), f"agreement {g_out['run']}: 2x2 table")
        close(g_out["binary"]["agreement"], po, f"agreement {g_out['run']}: percent agreement")
        close(g_out["binary"]["kappa"], k, f"agreement {g_out['run']}: Cohen's kappa")
    for g_out, run in zip(outs["exec,f1"]["agreement"], (A, B)):
        both = [i for i in ids if "f1" in run[i]["scores"]]
        x = [float(run[i]["scores"]["exec"]) for i in both]
        y = [run[i]["scores"]["f1"] for i in both]
        check(g_out["n"] == len(both), f"correlation {g_out['run']}: n")
        close(g_out["correlation"]["pearson"], statistics.correlation(x, y), f"correlation {g_out['run']}: Pearson")
        close(g_out["correlation"]["spearman"], statistics.correlation(ranks(x), ranks(y)), f"correlation {g_out['run']}: Spearman")

    return verdict(f"all statistics agree with the reference ({len(out['by_category'])} categories, {R} resamples)")


if __name__ == "__main__":
    sys.exit(main())
