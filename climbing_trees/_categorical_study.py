"""Measuring the multiclass categorical searches: optimum rates, regrets, cost.

Chapter 7 ("Optimal partitioning") of the book uses these functions to compare
the principal-component scan, one-vs-rest, their union (the ``"auto"`` of
earlier versions) and today's ``"auto"`` against the brute-force optimum, and
to time each search against the number of levels.  The tests assert on the
same numbers.

The *regret* of a search on a problem is its loss of impurity decrease
relative to the best partition: ``(score - best) / (parent - best)``, 0 when
the search finds an optimal partition (scores within ``1e-12`` relative).
"""

from __future__ import annotations

import time

import numpy as np

from ._categorical import (
    MAX_CATEGORICAL_CANDIDATES,
    _auto,
    _best_split,
    _brute_force,
    _candidates_from_sets,
    _candidates_one_vs_rest,
    _candidates_sorted_scan,
    _concatenate,
    _one_vs_rest,
    _partition,
    candidate_scores,
    level_order,
    level_statistics,
)
from ._criteria import impurity_from_statistics, one_hot


def random_categorical_problem(seed: int, n_classes: int, n_levels: int, n_rows=None):
    """A random weighted problem: ``(codes, Y, sample_weight)``.

    Each level draws its class probabilities from a flat Dirichlet; rows (40
    to 400 by default, ``n_rows`` to fix) draw a level, a label and a weight
    uniform on ``[0.1, 3]``.  Some levels may have no row.
    """
    rng = np.random.default_rng(seed)
    n = int(rng.integers(40, 400)) if n_rows is None else int(n_rows)
    codes = rng.integers(0, n_levels, size=n)
    w = rng.uniform(0.1, 3.0, size=n)
    probs = rng.dirichlet(np.ones(n_classes), size=n_levels)[codes]
    labels = (rng.uniform(size=(n, 1)) > probs.cumsum(axis=1)).sum(axis=1)
    return codes, one_hot(np.minimum(labels, n_classes - 1), n_classes), w


def scan_and_one_vs_rest(level_stats, counts, criterion, min_samples_leaf=1):
    """The principal-component scan followed by one-vs-rest: the former ``"auto"``."""
    order = level_order(level_stats, counts, criterion)
    candidates = _concatenate(
        _candidates_sorted_scan(order, level_stats, counts, criterion),
        _candidates_one_vs_rest(level_stats, counts, criterion),
    )
    return _best_split(candidates, level_stats, criterion, min_samples_leaf)


#: The searches compared, by name; each takes ``(level_stats, counts, criterion, msl)``.
STUDIED_SEARCHES = {
    "pca_order": _partition,
    "one_vs_rest": _one_vs_rest,
    "pca_order+one_vs_rest": scan_and_one_vs_rest,
    "auto": _auto,
}


def line_cut_oracle(level_stats, counts, criterion, min_samples_leaf=1):
    """Best partition that a line cuts in the triangle of class proportions (3 classes).

    A slow, independent oracle for the ``"hyperplane"`` plan: the order of
    the points along a direction changes only at directions perpendicular to
    a pair of points, so one direction inside each arc between consecutive
    such critical directions, with every cut of its sorted order between
    distinct projections, lists every partition a line separates strictly.
    ``O(k**3)`` candidates.  Returns the best score (``inf`` if none allowed).
    """
    present = np.flatnonzero((counts > 0) & (level_stats.sum(axis=1) > 0))
    stats = level_stats[present]
    q = stats[:, :2] / stats.sum(axis=1, keepdims=True)
    i, j = np.triu_indices(len(q), 1)
    d = q[j] - q[i]
    keep = np.hypot(d[:, 0], d[:, 1]) > 1e-12
    critical = np.sort(np.mod(np.arctan2(d[keep, 1], d[keep, 0]) + np.pi / 2, np.pi))
    edges = np.concatenate([critical, [critical[0] + np.pi]]) if len(critical) else [0.0, np.pi]
    angles = (np.asarray(edges[:-1]) + np.asarray(edges[1:])) / 2
    x = q @ np.stack([np.cos(angles), np.sin(angles)])  # (points, directions)
    order = np.argsort(x, axis=0, kind="stable").T  # one sorted order per direction
    gaps = np.diff(np.take_along_axis(x.T, order, axis=1), axis=1) > 1e-12
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(len(q))[None, :], axis=1)
    direction, cut = np.nonzero(gaps)  # cut c puts the first c + 1 points left
    sets = np.zeros((len(cut), len(counts)), dtype=bool)
    sets[:, present] = rank[direction] <= cut[:, None]
    if not len(sets):
        return np.inf
    candidates = _candidates_from_sets(sets, level_stats, counts, criterion)
    scores = candidate_scores(candidates, level_stats, criterion, min_samples_leaf)
    return float(np.nanmin(scores)) if np.isfinite(scores).any() else np.inf


def regret_table(
    criteria=("gini", "entropy"),
    n_classes=(3, 4, 5),
    n_levels=tuple(range(3, 13)),
    n_problems: int = 600,
    seed: int = 0,
    max_candidates: int = MAX_CATEGORICAL_CANDIDATES,
):
    """Optimum rate and worst and mean regret of each search, against brute force.

    Problem ``s`` (``s = 0 .. n_problems - 1``) has ``n_classes[s % len]``
    classes and ``n_levels[s % len]`` levels (:func:`random_categorical_problem`
    with seed ``seed + s``); problems with fewer than three present levels or
    no possible decrease are skipped.  Returns a pandas DataFrame indexed by
    (criterion, search) with columns ``problems``, ``optimum_rate``,
    ``worst_regret`` and ``mean_regret``.  ``max_candidates`` is ``"auto"``'s
    budget (lower it to measure the fallbacks).
    """
    import pandas as pd

    searches = dict(STUDIED_SEARCHES)
    searches["auto"] = lambda s, c, crit, msl: _auto(s, c, crit, msl, max_candidates)
    rows = []
    for criterion in criteria:
        regrets = {name: [] for name in searches}
        for s in range(n_problems):
            c = n_classes[s % len(n_classes)]
            k = n_levels[(s // len(n_classes)) % len(n_levels)]
            codes, Y, w = random_categorical_problem(seed + s, c, k)
            stats, counts = level_statistics(codes, Y, w, criterion)
            best = _brute_force(stats, counts, criterion, 1)
            parent = float(impurity_from_statistics(stats.sum(axis=0), criterion))
            if best is None or (counts > 0).sum() < 3 or parent - best.score <= 1e-12 * parent:
                continue
            for name, search in searches.items():
                score = search(stats, counts, criterion, 1).score
                regret = (score - best.score) / (parent - best.score)
                regrets[name].append(0.0 if regret <= 1e-12 * parent else regret)
        for name, values in regrets.items():
            values = np.array(values)
            rows.append(
                {
                    "criterion": criterion,
                    "search": name,
                    "problems": len(values),
                    "optimum_rate": float(np.mean(values == 0.0)),
                    "worst_regret": float(values.max()),
                    "mean_regret": float(values.mean()),
                }
            )
    return pd.DataFrame(rows).set_index(["criterion", "search"])


def time_against_levels(
    n_levels=(4, 8, 12, 16, 24, 32, 48, 64),
    n_classes: int = 3,
    criterion: str = "entropy",
    repeats: int = 5,
    brute_force_up_to: int = 16,
    max_candidates: int = MAX_CATEGORICAL_CANDIDATES,
):
    """Seconds per call of each search (best of ``repeats``) against the number of levels.

    One node of ``20 k`` rows per ``k``; brute force only up to
    ``brute_force_up_to`` levels (NaN beyond).  Returns a DataFrame indexed
    by ``k`` with one column per search plus ``brute_force`` and the plan
    ``auto`` used.
    """
    import pandas as pd

    from ._categorical import multiclass_plan

    searches = dict(STUDIED_SEARCHES)
    searches["auto"] = lambda s, c, crit, msl: _auto(s, c, crit, msl, max_candidates)
    searches["brute_force"] = _brute_force
    rows = []
    for k in n_levels:
        codes, Y, w = random_categorical_problem(k, n_classes, k, n_rows=20 * k)
        stats, counts = level_statistics(codes, Y, w, criterion, n_levels=k)
        row = {"k": k, "plan": multiclass_plan(stats, counts, criterion, max_candidates)}
        for name, search in searches.items():
            if name == "brute_force" and k > brute_force_up_to:
                row[name] = np.nan
                continue
            best = np.inf
            for _ in range(repeats):
                start = time.perf_counter()
                search(stats, counts, criterion, 1)
                best = min(best, time.perf_counter() - start)
            row[name] = best
        rows.append(row)
    return pd.DataFrame(rows).set_index("k")
