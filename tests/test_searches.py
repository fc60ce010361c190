"""The naive search is the oracle: the incremental searches must agree with it."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import random_problem

import climbing_trees as ct

CRITERIA = ["gini", "entropy", "squared_error", "poisson"]
FAST_SEARCHES = [ct.incremental_best_split, ct.prefix_sum_best_split]


@pytest.mark.parametrize("search", FAST_SEARCHES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("criterion", CRITERIA)
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("min_samples_leaf", [1, 3])
def test_fast_searches_match_naive(search, criterion, weighted, min_samples_leaf):
    found = 0
    for seed in range(60):
        X, Y, w = random_problem(seed, criterion, weighted=weighted)
        expected = ct.naive_best_split(X, Y, w, criterion, min_samples_leaf)
        got = search(X, Y, w, criterion, min_samples_leaf)
        if expected is None:
            assert got is None
            continue
        found += 1
        assert (got.feature, got.threshold) == (expected.feature, expected.threshold)
        assert got.score == pytest.approx(expected.score, rel=1e-9, abs=1e-12)
    assert found > 30  # the problems are not degenerate


@pytest.mark.parametrize("criterion", CRITERIA)
def test_best_split_beats_every_candidate(criterion):
    """The returned score is the minimum over all legal thresholds (brute force)."""
    X, Y, w = random_problem(7, criterion, weighted=True, n_levels=12)
    best = ct.prefix_sum_best_split(X, Y, w, criterion)
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        for t in (values[:-1] + values[1:]) / 2:
            left = X[:, j] <= t
            score = (
                w[left].sum() * ct.node_impurity(Y[left], w[left], criterion)
                + w[~left].sum() * ct.node_impurity(Y[~left], w[~left], criterion)
            ) / w.sum()
            assert best.score <= score + 1e-12


def test_threshold_never_separates_equal_values():
    X = np.array([[1.0], [1.0], [1.0], [2.0]])
    Y = ct.one_hot(np.array([0, 1, 1, 1]), 2)
    split = ct.prefix_sum_best_split(X, Y, np.ones(4), "gini")
    # Splitting inside the run of 1.0s would isolate the class-0 row, but no
    # threshold can do that; the only legal threshold lies between 1 and 2.
    assert split.threshold == 1.5


def test_threshold_is_lower_value_when_midpoint_rounds_up():
    a = np.nextafter(1.0, 2.0)
    b = np.nextafter(a, 2.0)
    assert a / 2 + b / 2 == b  # the midpoint rounds (half to even) onto b
    # A third value keeps the column from being constant (a and b alone are within
    # FEATURE_THRESHOLD: rule 6 of the tie rules).
    X = np.array([[a], [b], [3.0]])
    Y = np.array([[0.0], [1.0], [1.0]])
    for search in [ct.naive_best_split, *FAST_SEARCHES]:
        split = search(X, Y, np.ones(3), "squared_error")
        assert split.threshold == a


def test_threshold_near_largest_float_does_not_overflow():
    big = np.finfo(float).max
    X = np.array([[big / 2], [big]])
    split = ct.prefix_sum_best_split(X, np.array([[0.0], [1.0]]), np.ones(2), "squared_error")
    assert np.isfinite(split.threshold) and big / 2 <= split.threshold < big


def test_equal_gains_go_to_lowest_feature_then_lowest_threshold():
    # Features 1 and 2 induce the same partitions; feature 0 is useless.
    X = np.array([[0.0, 1.0, 10.0], [0.0, 2.0, 20.0], [0.0, 3.0, 30.0], [0.0, 4.0, 40.0]])
    Y = ct.one_hot(np.array([0, 0, 1, 1]), 2)
    for search in [ct.naive_best_split, *FAST_SEARCHES]:
        split = search(X, Y, np.ones(4), "gini")
        assert (split.feature, split.threshold) == (1, 2.5)
    # Two thresholds of one feature with equal gain: the lower one wins.
    X = np.array([[1.0], [2.0], [3.0]])
    Y = ct.one_hot(np.array([0, 1, 0]), 2)
    for search in [ct.naive_best_split, *FAST_SEARCHES]:
        assert search(X, Y, np.ones(3), "gini").threshold == 1.5


@pytest.mark.parametrize("search", [ct.naive_best_split, *FAST_SEARCHES])
def test_min_samples_leaf_skips_candidates_not_nodes(search):
    # The best unconstrained split isolates one row; with min_samples_leaf=2
    # the search must fall back to the best split that keeps 2 rows per side.
    X = np.arange(6.0)[:, None]
    Y = np.array([[100.0], [0.0], [0.0], [1.0], [1.0], [1.0]])
    assert search(X, Y, np.ones(6), "squared_error", 1).threshold == 0.5
    split = search(X, Y, np.ones(6), "squared_error", 2)
    assert split.threshold == 1.5


def test_constant_features_give_no_split():
    X = np.ones((5, 2))
    Y = ct.one_hot(np.array([0, 1, 0, 1, 1]), 2)
    for search in [ct.naive_best_split, *FAST_SEARCHES]:
        assert search(X, Y, np.ones(5), "gini") is None


ALL_SEARCHES = [ct.naive_best_split, *FAST_SEARCHES, ct.wavelet_best_split]


@pytest.mark.parametrize("search", ALL_SEARCHES, ids=lambda f: f.__name__)
def test_almost_constant_features_give_no_split(search):
    """Rule 6 of the tie rules: a range within FEATURE_THRESHOLD (float32) is constant."""
    y = np.array([0, 1, 0, 1, 1, 0])
    criterion = "absolute_error" if search is ct.wavelet_best_split else "gini"
    Y = y[:, None].astype(float) if criterion == "absolute_error" else ct.one_hot(y, 2)
    w = np.ones(6)
    # A range of 0.9e-7, and one float32 step near 1 (2**-23 > 1e-7, yet 1 + 1e-7
    # rounds onto it in float32): both constant, as in scikit-learn.
    for x in (y * 0.9e-7, 1.0 + y * 2.0**-23):
        assert search(x[:, None], Y, w, criterion) is None
    # A feature just wider than the threshold still splits...
    assert search((y * 2e-7)[:, None], Y, w, criterion) is not None
    # ...and so does a narrow one with missing values: present against missing.
    x = np.where(y == 1, np.nan, np.array([0.0, 0, 5e-8, 0, 0, 1e-8]))
    split = search(x[:, None], Y, w, criterion)
    assert split is not None and split.threshold == np.inf


@pytest.mark.parametrize("criterion", ["gini", "squared_error", "absolute_error"])
@pytest.mark.parametrize("splitter", ["best", "random"])
def test_builders_never_split_an_almost_constant_feature(criterion, splitter):
    """Both builders ask the one rule: a narrow feature is never split, at any node."""
    from climbing_trees._levelwise import grow_tree_levelwise
    from climbing_trees._random import RandomSplits

    rng = np.random.default_rng(0)
    n = 300
    X = rng.normal(size=(n, 3))
    X[:, 1] = 1.0 + rng.random(n) * 1e-7  # narrow everywhere: never split
    y = X[:, 0] + 5 * X[:, 1] + rng.normal(size=n)  # (column 1 would help if it could)
    Y = ct.one_hot((y > 5).astype(int), 2) if criterion == "gini" else y[:, None]
    if splitter == "random" and criterion == "absolute_error":
        pytest.skip("the level-wise builder leaves random absolute error to grow_tree")
    spec = None if splitter == "best" else RandomSplits(3, "random", 7)
    trees = [
        build(X, Y, np.ones(n), criterion=criterion, random_splits=spec, max_depth=6)
        for build in (ct.grow_tree, grow_tree_levelwise)
    ]
    assert 1 not in trees[0].feature and trees[0].node_count > 7
    for name in ("children_left", "feature", "threshold", "n_node_samples"):
        np.testing.assert_array_equal(getattr(trees[0], name), getattr(trees[1], name))
