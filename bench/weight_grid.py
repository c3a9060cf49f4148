"""A fast grid over weight formulas on bench/choose_defaults.py's ranking protocols.

choose_defaults.py trains real models (a few minutes a variant); this
re-implements only the ranking (raw = Σ λ_w over the distinct tokens with
nonzero weight, divided by n^γ: what calibration maps monotonically) as
sparse matrix products over tokens computed once with the default
tokenizer, so a weight formula costs seconds.  Its baseline equals
choose_defaults' 1-ROCA on every protocol (0.003 / 0.029 / 0.034 / 12.057 /
8.838 when last compared); a formula that wins here is then confirmed there.

    .venv/bin/python bench/weight_grid.py [--jobs 2]

Formulas (every one a per-token weight, the score still a sum of them):
  min strength X        |λ| < X weighs 0 (the default rule)
  lower bound z         λ shrunk toward 0 by z standard errors of a log ratio
                        of counts, sqrt(1/(N_spam+α) + 1/(N_ham+α))
  Robinson s            f = σ(λ) → (s/2 + n f)/(s + n), n: messages holding w
  cap c                 λ clipped to ±c
  normalisation n^γ     γ = 0.75, 0.9 between sqrt and mean
  near errors t         after counting everything, the messages the model
                        scores wrong or within t of 0 counted once more
                        (TrainOptions.retrain_margin)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))

import choose_defaults  # noqa: E402

from spamnb.app.metrics import one_minus_roca_percent  # noqa: E402

ALPHA = 0.1
PROTOCOLS = ("trec06p-time", "ccert_zh-time", "sa-cv", "sa->trec", "trec->sa")


def matrices(jobs: int) -> dict:
    """Each corpus's training part as a messages × tokens count matrix over one vocabulary."""
    vocabulary: dict[str, int] = {}
    built = {}
    for name in ("trec06p", "spamassassin", "ccert_zh"):
        items = choose_defaults.training_part(name)
        raw = [path.read_bytes() for _, path in items]
        documents, _ = choose_defaults.tokenized(raw, "baseline", "content" if name == "ccert_zh" else None, jobs)
        rows, columns, values = [], [], []
        for row, tokens in enumerate(documents):
            bag: dict[int, int] = {}
            for token in tokens:
                column = vocabulary.setdefault(token, len(vocabulary))
                bag[column] = bag.get(column, 0) + 1
            rows += [row] * len(bag)
            columns += bag.keys()
            values += bag.values()
        built[name] = (rows, columns, values, len(documents), np.array([label for label, _ in items]))
        choose_defaults._cache.clear()
        print(f"# {name}: {len(documents)} messages tokenized", file=sys.stderr, flush=True)
    return {name: (sp.csr_matrix((np.array(v, dtype=np.float64), (r, c)), shape=(n, len(vocabulary))), y)
            for name, (r, c, v, n, y) in built.items()}


def splits(data: dict) -> dict:
    """(train X, train y, test X, test y) per protocol, cut as choose_defaults cuts them."""
    trec, trec_y = data["trec06p"]
    sa, sa_y = data["spamassassin"]
    zh, zh_y = data["ccert_zh"]
    cut = int(trec.shape[0] * 0.7)
    kept, held = [], []
    for label in (0, 1):
        members = np.flatnonzero(zh_y == label)
        kept += list(members[: int(len(members) * 0.7)])
        held += list(members[int(len(members) * 0.7):])
    position = np.arange(sa.shape[0])
    folds = [(sa[position % 5 != f], sa_y[position % 5 != f], sa[position % 5 == f], sa_y[position % 5 == f])
             for f in range(5)]
    return {"trec06p-time": [(trec[:cut], trec_y[:cut], trec[cut:], trec_y[cut:])],
            "ccert_zh-time": [(zh[kept], zh_y[kept], zh[held], zh_y[held])],
            "sa-cv": folds, "sa->trec": [(sa, sa_y, trec, trec_y)], "trec->sa": [(trec, trec_y, sa, sa_y)]}


def class_sums(X, y):
    present = X.copy()
    present.data[:] = 1
    N = np.vstack([np.asarray(X[y == c].sum(axis=0)).ravel() for c in (0, 1)])
    D = np.vstack([np.asarray(present[y == c].sum(axis=0)).ravel() for c in (0, 1)])
    return N, D, present


def weights(N, D, min_strength=2.0, bound=0.0, robinson=0.0, cap=None):
    """λ of the mixed model (α 0.1) with the formula's changes; 0 for tokens not in training."""
    seen = N.sum(axis=0) > 0
    V, totals = seen.sum(), N.sum(axis=1)
    lam = (np.log(N[1] + ALPHA) - np.log(totals[1] + ALPHA * V)) - (np.log(N[0] + ALPHA) - np.log(totals[0] + ALPHA * V))
    if robinson:
        n, f = D.sum(axis=0), 1 / (1 + np.exp(-lam))
        f = (0.5 * robinson + n * f) / (robinson + n)
        lam = np.log(f) - np.log1p(-f)
    if bound:
        lam = np.sign(lam) * np.maximum(np.abs(lam) - bound * np.sqrt(1 / (N[0] + ALPHA) + 1 / (N[1] + ALPHA)), 0)
    lam = np.where(np.abs(lam) >= min_strength, lam, 0.0)
    if cap:
        lam = np.clip(lam, -cap, cap)
    return np.where(seen, lam, 0.0)


def raw_scores(X, lam, gamma=1.0):
    present = X.copy()
    present.data[:] = 1
    return (present @ lam) / np.maximum(present @ (lam != 0).astype(float), 1) ** gamma


def formula(gamma=1.0, near=0.0, **options):
    def train(X, y):
        N, D, present = class_sums(X, y)
        lam = weights(N, D, **options)
        if near:
            signed = np.where(y == 1, 1, -1) * raw_scores(X, lam, gamma)
            again = signed <= near
            more_N, more_D, _ = class_sums(X[again], y[again])
            lam = weights(N + more_N, D + more_D, **options)
        return lambda test: raw_scores(test, lam, gamma)
    return train


GRID = {"min strength 2 (old default)": formula(),
        **{f"min strength {ms}": formula(min_strength=ms) for ms in (1, 1.25, 1.5)}}
for z in (0.5, 1, 1.5, 2):
    for ms in (0, 0.5, 1, 1.5, 2):
        GRID[f"lower bound z {z}, min strength {ms}"] = formula(min_strength=ms, bound=z)
for s in (0.3, 1, 3):
    for ms in (1, 1.5, 2):
        GRID[f"Robinson s {s}, min strength {ms}"] = formula(min_strength=ms, robinson=s)
for c in (3, 4, 5, 6):
    GRID[f"cap ±{c}, min strength 2"] = formula(cap=c)
for g in (0.75, 0.9):
    GRID[f"n^{g}, min strength 2"] = formula(gamma=g)
for ms in (1, 1.25, 1.375, 1.5, 1.75, 2):
    for t in (2, 2.5, 3, 3.5, 4):
        GRID[f"near errors {t}, min strength {ms}"] = formula(min_strength=ms, near=t)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", help="run only the formulas whose name contains this")
    args = parser.parse_args()
    parts = splits(matrices(args.jobs))
    print(f"{'formula':44s} " + " ".join(f"{p:>13s}" for p in PROTOCOLS))
    for name, train in GRID.items():
        if args.only and args.only not in name:
            continue
        started = time.perf_counter()
        figures = [np.mean([one_minus_roca_percent(yb.tolist(), train(Xa, ya)(Xb).tolist())
                            for Xa, ya, Xb, yb in parts[protocol]]) for protocol in PROTOCOLS]
        print(f"{name:44s} " + " ".join(f"{f:13.3f}" for f in figures) + f"  ({time.perf_counter() - started:.0f} s)",
              flush=True)


if __name__ == "__main__":
    main()
