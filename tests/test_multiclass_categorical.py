"""Three or more classes: the exact categorical search of ``"auto"`` and its fallback.

Chapter 7 explains the hyperplane theorem behind the search and shows the
table :func:`regret_table` measures here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import assert_equivalent

import climbing_trees as ct
from climbing_trees._categorical import (
    _auto,
    _brute_force,
    _candidates_from_sets,
    _hyperplane_sets,
    _one_vs_rest,
    _partition,
    candidate_scores,
    level_statistics,
    multiclass_plan,
)
from climbing_trees._categorical_study import (
    line_cut_oracle,
    random_categorical_problem,
    regret_table,
)
from climbing_trees._levelwise import grow_tree_levelwise

REL = 1e-12


def at_most(a: float, b: float) -> bool:
    """``a <= b`` up to the tie tolerance."""
    return a <= b + REL * max(abs(a), abs(b)) + 1e-14


def hyperplane_budget(counts) -> int:
    """A budget under which ``multiclass_plan`` picks the line cuts (when k >= 9)."""
    k = int((np.asarray(counts) > 0).sum())
    return 2 * k * (k - 1)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_auto_reaches_the_optimum_on_random_weighted_problems(criterion):
    table = regret_table(criteria=(criterion,), n_problems=1200, seed=1000)
    print(table.to_string())
    auto = table.loc[(criterion, "auto")]
    assert auto["problems"] >= 1000
    assert auto["optimum_rate"] >= 0.995
    assert auto["worst_regret"] < 0.01
    # The former auto (scan then one-vs-rest) misses some: the test can tell.
    assert table.loc[(criterion, "pca_order+one_vs_rest"), "optimum_rate"] < 1.0


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_the_fallback_is_never_worse_than_the_former_auto(criterion):
    # A budget of one candidate: no exhaustive search, no line cuts in the
    # triangle; the heuristic (principal-plane cuts, single-level moves) runs.
    table = regret_table(criteria=(criterion,), n_problems=600, seed=5000, max_candidates=1)
    print(table.to_string())
    heuristic = table.loc[(criterion, "auto")]
    former = table.loc[(criterion, "pca_order+one_vs_rest")]
    assert heuristic["optimum_rate"] >= former["optimum_rate"]
    assert heuristic["worst_regret"] <= former["worst_regret"] + 1e-12
    assert heuristic["mean_regret"] < former["mean_regret"]


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("seed", range(120))
def test_three_class_line_cuts_match_brute_force(seed, criterion):
    k = 9 + seed % 6  # 9 to 14 levels: the line cuts are under the exhaustive count
    codes, Y, w = random_categorical_problem(seed, 3, k)
    stats, counts = level_statistics(codes, Y, w, criterion)
    budget = hyperplane_budget(counts)
    plan = multiclass_plan(stats, counts, criterion, budget)
    best = _brute_force(stats, counts, criterion, 1)
    found = _auto(stats, counts, criterion, 1, budget)
    if best is None:
        assert found is None
        return
    assert plan in ("hyperplane", "exhaustive", "scan")
    assert at_most(found.score, best.score)


def grid_problem(seed: int, k: int):
    """Levels with few rows: proportions on a coarse grid, many collinear and equal points."""
    rng = np.random.default_rng(seed)
    per_level = rng.integers(1, 4, size=k)
    codes = np.repeat(np.arange(k), per_level)
    labels = rng.integers(0, 3, size=len(codes))
    w = rng.choice([1.0, 2.0, 0.5], size=len(codes))
    return codes, ct.one_hot(labels, 3), w


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("seed", range(60))
def test_line_cuts_are_exact_with_collinear_and_equal_points(seed, criterion):
    codes, Y, w = grid_problem(seed, 9 + seed % 6)
    stats, counts = level_statistics(codes, Y, w, criterion)
    best = _brute_force(stats, counts, criterion, 1)
    found = _auto(stats, counts, criterion, 1, hyperplane_budget(counts))
    if best is None:
        assert found is None
        return
    assert at_most(found.score, best.score)


def random_local_search(stats, counts, criterion, rng, n_starts=20):
    """Best score of single-level moves from random starting partitions."""
    k = len(counts)
    best = np.inf
    for _ in range(n_starts):
        left = rng.uniform(size=k) < 0.5
        current = np.inf
        while True:
            moved = left[None, :] ^ np.eye(k, dtype=bool)
            candidates = _candidates_from_sets(moved, stats, counts, criterion)
            scores = candidate_scores(candidates, stats, criterion, 1)
            if not np.isfinite(scores).any():
                break
            i = int(np.nanargmin(scores))
            if not scores[i] < current - 1e-12:
                break
            left, current = moved[i], scores[i]
        best = min(best, current)
    return best


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("k", [20, 32, 48, 64])
@pytest.mark.parametrize("seed", range(3))
def test_three_classes_up_to_64_levels_reach_every_line_cut(seed, k, criterion):
    rng = np.random.default_rng(seed)
    codes, Y, w = random_categorical_problem(seed, 3, k, n_rows=int(rng.integers(3 * k, 30 * k)))
    stats, counts = level_statistics(codes, Y, w, criterion)
    assert multiclass_plan(stats, counts, criterion) == "hyperplane"
    found = _auto(stats, counts, criterion, 1).score
    # The slow oracle lists every line cut another way (a direction in each
    # arc between critical directions): the same best score.
    oracle = line_cut_oracle(stats, counts, criterion, 1)
    assert at_most(found, oracle) and at_most(oracle, found)
    for other in (
        _partition(stats, counts, criterion, 1).score,
        _one_vs_rest(stats, counts, criterion, 1).score,
        random_local_search(stats, counts, criterion, rng),
    ):
        assert at_most(found, other)


def test_hyperplane_sets_list_every_partition_of_points_in_general_position():
    rng = np.random.default_rng(0)
    points = rng.uniform(size=(7, 2))
    sets = _hyperplane_sets(points)
    assert len(sets) <= 2 * 7 * 6
    listed = {frozenset(np.flatnonzero(r if r[0] else ~r).tolist()) for r in sets}
    # Every partition the oracle's directions give is listed.
    angles = np.linspace(0, np.pi, 5000, endpoint=False)
    for angle in angles:
        x = points @ np.array([np.cos(angle), np.sin(angle)])
        order = np.argsort(x)
        for cut in range(1, 7):
            left = np.zeros(7, dtype=bool)
            left[order[:cut]] = True
            assert frozenset(np.flatnonzero(left if left[0] else ~left).tolist()) in listed


@pytest.mark.parametrize("plan_budget", [16_384, 300, 1])
@pytest.mark.parametrize("min_samples_leaf", [2, 5])
@pytest.mark.parametrize("seed", range(15))
def test_min_samples_leaf_counts_rows_of_whole_sides(seed, min_samples_leaf, plan_budget):
    codes, Y, w = random_categorical_problem(seed, 3 + seed % 3, 5 + seed % 20)
    found = ct.auto_split(codes, Y, w, "entropy", min_samples_leaf, plan_budget)
    if found is None:
        return
    left = np.isin(codes, found.levels_left)
    assert left.sum() >= min_samples_leaf and (~left).sum() >= min_samples_leaf
    best = (
        ct.brute_force_categorical_split(codes, Y, w, "entropy", min_samples_leaf)
        if len(np.unique(codes)) <= 14
        else None
    )
    if best is not None and plan_budget == 16_384:
        assert at_most(found.score, best.score)


def many_level_problem(seed: int):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(200, 1500))
    n_classes = 3 + seed % 3
    k = int(rng.integers(10, 45))
    codes = rng.integers(0, k, size=n)
    probs = rng.dirichlet(np.ones(n_classes) * 0.7, size=k)[codes]
    labels = (rng.uniform(size=(n, 1)) > probs.cumsum(axis=1)).sum(axis=1)
    Y = ct.one_hot(np.minimum(labels, n_classes - 1), n_classes)
    X = np.column_stack([rng.normal(size=n), codes, rng.integers(0, 6, size=n)]).astype(float)
    w = rng.uniform(0.2, 2.0, size=n) if seed % 2 else np.ones(n)
    return X, Y, w, np.array([False, True, True]), np.array([0, k, 6])


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("budget", [16_384, 400, 1])
@pytest.mark.parametrize("seed", range(6))
def test_builders_agree_on_multiclass_categorical_features(seed, budget, criterion):
    X, Y, w, is_categorical, n_categories = many_level_problem(seed)
    params = {
        "criterion": criterion,
        "is_categorical": is_categorical,
        "n_categories": n_categories,
        "max_depth": 6,
        "min_samples_leaf": 1 + seed % 3,
        "min_samples_level": 1 + 2 * (seed % 2),
        "max_categorical_candidates": budget,
    }
    slow = ct.grow_tree(X, Y, w, **params)
    fast = grow_tree_levelwise(X, Y, w, **params)
    assert_equivalent(fast, slow)


def test_estimator_uses_the_exact_search():
    X, Y, w, _, _ = many_level_problem(3)
    frame = pd.DataFrame({"x": X[:, 0], "level": X[:, 1].astype(int).astype(str)})
    y = Y.argmax(axis=1)
    exact = ct.DecisionTreeClassifier(max_depth=1, criterion="entropy").fit(frame, y)
    capped = ct.DecisionTreeClassifier(
        max_depth=1, criterion="entropy", max_categorical_candidates=1
    ).fit(frame, y)
    assert exact.tree_.impurity[1:] @ exact.tree_.weighted_n_node_samples[1:] <= (
        capped.tree_.impurity[1:] @ capped.tree_.weighted_n_node_samples[1:] + 1e-9
    )


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "many", None])
@pytest.mark.parametrize("Estimator", [ct.DecisionTreeClassifier, ct.DecisionTreeRegressor])
def test_bad_max_categorical_candidates_is_a_clear_error(Estimator, bad):
    X = np.arange(12.0).reshape(6, 2)
    y = np.array([0, 1, 2, 0, 1, 2])
    model = Estimator(max_categorical_candidates=bad)
    with pytest.raises(ValueError, match="max_categorical_candidates"):
        model.fit(X, y)
