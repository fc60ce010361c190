"""criterion="absolute_error": weighted medians, running medians, scikit-learn's trees."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import as_float32_exact
from sklearn import tree as sk
from test_sklearn_agreement import assert_same_model, sklearn_stable_fit

import climbing_trees as ct
from climbing_trees._levelwise import grow_tree_levelwise


def median_by_definition(y, w) -> float:
    """First sorted value whose cumulative weight reaches half; midpoint on an exact half."""
    order = np.argsort(y)
    y, w = y[order], w[order]
    half, cumulative = w.sum() / 2, 0.0
    for k in range(len(y)):
        cumulative += w[k]
        if cumulative == half:
            return (y[k] + y[k + 1]) / 2
        if cumulative > half:
            return y[k]
    raise AssertionError


def dyadic_weights(rng, n):
    """Weights whose sums are exact in binary, so exact halves really occur."""
    return rng.choice([0.25, 0.5, 1.0, 2.0, 3.0], size=n)


@pytest.mark.parametrize("seed", range(40))
def test_weighted_median_follows_the_definition(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 30))
    y = rng.integers(-5, 6, size=n).astype(float)  # repeated values too
    w = dyadic_weights(rng, n) if seed % 2 else np.ones(n)
    assert ct.weighted_median(y, w) == median_by_definition(y, w)
    if seed % 2 == 0:
        assert ct.weighted_median(y) == np.median(y)


@pytest.mark.parametrize("seed", range(20))
def test_weighted_median_is_sklearns_leaf_value(seed):
    """A single-leaf tree of scikit-learn predicts its weighted median: same convention."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 30))
    y = rng.normal(size=n).round(1)
    w = dyadic_weights(rng, n)
    X = np.zeros((n, 1))
    leaf = sk.DecisionTreeRegressor(criterion="absolute_error").fit(X, y, sample_weight=w)
    assert ct.weighted_median(y, w) == leaf.tree_.value[0, 0, 0]
    ours = ct.DecisionTreeRegressor(criterion="absolute_error").fit(X, y, sample_weight=w)
    assert ours.tree_.value[0, 0, 0] == leaf.tree_.value[0, 0, 0]
    assert ours.tree_.impurity[0] == pytest.approx(leaf.tree_.impurity[0], rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("weights", ["unit", "dyadic", "continuous"])
@pytest.mark.parametrize("seed", range(30))
def test_running_median_against_brute_force(seed, weights):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    y = rng.normal(size=n).round(int(rng.integers(0, 3)))  # ties among the values
    w = {
        "unit": np.ones(n),
        "dyadic": dyadic_weights(rng, n),
        "continuous": rng.uniform(0.1, 3.0, size=n),
    }[weights]
    running = ct.RunningMedian()
    errors = ct.prefix_absolute_errors(y, w)
    for i in range(n):
        running.add(y[i], w[i])
        m = ct.weighted_median(y[: i + 1], w[: i + 1])
        expected = np.sum(w[: i + 1] * np.abs(y[: i + 1] - m))
        assert running.absolute_error() == pytest.approx(expected, rel=1e-10, abs=1e-12)
        assert errors[i] == pytest.approx(expected, rel=1e-10, abs=1e-12)
        if weights != "continuous":  # sums exact in binary: the very same median
            assert running.median() == m


SEARCHES = [ct.running_median_best_split, ct.wavelet_best_split]


@pytest.mark.parametrize("search", SEARCHES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("outputs", [1, 2])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("min_samples_leaf", [1, 3])
def test_absolute_error_searches_match_naive(search, outputs, weighted, min_samples_leaf):
    found = 0
    for seed in range(60):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(2, 40))
        X = rng.integers(0, 5, size=(n, int(rng.integers(1, 4)))).astype(float)
        Y = rng.normal(size=(n, outputs))
        w = rng.uniform(0.1, 3.0, size=n) if weighted else np.ones(n)
        expected = ct.naive_best_split(X, Y, w, "absolute_error", min_samples_leaf)
        got = search(X, Y, w, "absolute_error", min_samples_leaf)
        if expected is None:
            assert got is None
            continue
        found += 1
        assert (got.feature, got.threshold) == (expected.feature, expected.threshold)
        assert got.score == pytest.approx(expected.score, rel=1e-9, abs=1e-12)
    assert found > 30


@pytest.mark.parametrize("weights", ["unit", "dyadic", "continuous", "zeros"])
@pytest.mark.parametrize("seed", range(25))
def test_wavelet_medians_against_brute_force(seed, weights):
    """Every prefix and suffix of every scan: the absolute error about its median."""
    rng = np.random.default_rng(seed)
    s, m = int(rng.integers(1, 4)), int(rng.integers(2, 40))
    y = rng.normal(size=(s, m)).round(int(rng.integers(0, 3)))  # ties among the values
    w = {
        "unit": np.ones((s, m)),
        "dyadic": dyadic_weights(rng, (s, m)),
        "continuous": rng.uniform(0.1, 3.0, size=(s, m)),
        "zeros": rng.uniform(0.1, 3.0, size=(s, m)) * (rng.random((s, m)) < 0.7),
    }[weights]
    ranks = np.stack([ct.node_ranks(row) for row in y])
    positions = np.arange(m - 1)
    left, right, _ = ct.split_absolute_errors(ranks, y, w, positions)
    for r in range(s):
        for p in positions:
            for got, part in ((left, slice(0, p + 1)), (right, slice(p + 1, m))):
                ys, ws = y[r, part], w[r, part]
                expected = 0.0
                if ws.sum() > 0:
                    expected = np.sum(ws * np.abs(ys - ct.weighted_median(ys, ws)))
                assert got[r, p] == pytest.approx(expected, rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("seed", range(10))
def test_wavelet_padding_changes_no_bit(seed):
    """Padding a scan (weight 0, value 0, top ranks), as the level-wise builder does,
    and adding other scans leave a scan's numbers unchanged to the last bit."""
    rng = np.random.default_rng(seed)
    m, pad = int(rng.integers(2, 50)), int(rng.integers(1, 70))
    y, w = rng.normal(size=m) * 100, rng.uniform(0.1, 3.0, size=m)
    ranks = ct.node_ranks(y)
    alone = ct.split_absolute_errors(ranks[None], y[None], w[None], np.arange(m - 1))
    other = rng.normal(size=m + pad)
    padded = ct.split_absolute_errors(
        np.stack([np.concatenate([ranks, np.arange(m, m + pad)]), ct.node_ranks(other)]),
        np.stack([np.concatenate([y, np.zeros(pad)]), other]),
        np.stack([np.concatenate([w, np.zeros(pad)]), np.ones(m + pad)]),
        np.arange(m - 1),
    )
    np.testing.assert_array_equal(padded[0][0], alone[0][0])
    np.testing.assert_array_equal(padded[1][0], alone[1][0])
    np.testing.assert_array_equal(padded[2][0, : m + 1], alone[2][0])


def test_grow_tree_with_naive_search_is_the_oracle():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(120, 3))
    Y = (X[:, :1] > 0) * 3.0 + rng.standard_t(2, size=(120, 1))
    w = rng.uniform(0.5, 2.0, size=120)
    fast = ct.grow_tree(X, Y, w, criterion="absolute_error", max_depth=4)
    slow = ct.grow_tree(
        X, Y, w, criterion="absolute_error", max_depth=4, find_split=ct.naive_best_split
    )
    for name in ["children_left", "feature", "threshold", "value", "n_node_samples"]:
        np.testing.assert_array_equal(getattr(fast, name), getattr(slow, name), err_msg=name)
    np.testing.assert_allclose(fast.impurity, slow.impurity, rtol=1e-12)


def heavy_tailed(n: int = 2000, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = as_float32_exact(rng.normal(size=(n, 5)))
    y = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + rng.standard_t(2, size=n)
    return X, y


PARAMS = [
    {"max_depth": 4},
    {"max_depth": 8, "min_samples_leaf": 5},
    {"min_samples_leaf": 20},
    {"max_depth": 6, "min_impurity_decrease": 0.002},
]


@pytest.mark.parametrize("params", PARAMS, ids=str)
def test_matches_sklearn_with_weights(params):
    # With continuous weights, two split positions never tie exactly.  (With
    # unit weights they do: see test_unit_weights_tie_at_neighbouring_positions.)
    X, y = heavy_tailed()
    w = np.random.default_rng(1).uniform(0.5, 2.0, size=len(y))
    ours = ct.DecisionTreeRegressor(criterion="absolute_error", **params)
    ours.fit(X, y, sample_weight=w)
    theirs = sklearn_stable_fit(
        sk.DecisionTreeRegressor, X, y, sample_weight=w, criterion="absolute_error", **params
    )
    assert_same_model(ours, theirs, X)
    a, b = ours.tree_, theirs.tree_
    assert a.node_count == b.node_count
    np.testing.assert_allclose(np.sort(a.impurity), np.sort(b.impurity), rtol=1e-9)
    if params == {"max_depth": 4}:
        for name in ["children_left", "children_right", "feature", "n_node_samples"]:
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
        np.testing.assert_allclose(a.threshold, b.threshold, rtol=1e-6)
        np.testing.assert_array_equal(a.value, b.value)
        np.testing.assert_allclose(a.impurity, b.impurity, rtol=1e-9)


def test_unit_weights_tie_at_neighbouring_positions():
    """Absolute error is piecewise linear: with unit weights, neighbouring cuts tie.

    Moving one row across the threshold can leave the sum of both children's
    absolute errors unchanged in exact arithmetic.  Our tie rule takes the
    lowest threshold; scikit-learn takes whichever rounding favours.  The
    root split here agrees, and both candidate scores of the first node
    where the trees part are equal to the last bit.
    """
    X, y = heavy_tailed()
    ours = ct.DecisionTreeRegressor(criterion="absolute_error", max_depth=4).fit(X, y)
    theirs = sk.DecisionTreeRegressor(criterion="absolute_error", max_depth=4, random_state=0)
    theirs.fit(X, y)
    a, b = ours.tree_, theirs.tree_
    assert a.feature[0] == b.feature[0] and a.threshold[0] == b.threshold[0]
    node = int(np.flatnonzero(a.threshold != b.threshold)[0])
    rows = ours.decision_path(X)[:, [node]].toarray().ravel() > 0

    def score(tree):
        left = X[rows, tree.feature[node]] <= tree.threshold[node]
        sides = [y[rows][left], y[rows][~left]]
        return sum(np.abs(s - ct.weighted_median(s)).sum() for s in sides)

    assert a.feature[node] == b.feature[node] and a.threshold[node] < b.threshold[node]
    assert score(a) == pytest.approx(score(b), rel=1e-14)


def test_levelwise_builder_and_statistics_refuse_absolute_error():
    X, Y = np.arange(4.0)[:, None], np.arange(4.0)[:, None]
    with pytest.raises(ValueError, match="numerical features with splitter='best' only"):
        grow_tree_levelwise(
            X, Y, np.ones(4), criterion="absolute_error", is_categorical=np.array([True])
        )
    spec = ct.RandomSplits(1, "random", 0)
    with pytest.raises(ValueError, match="grow this tree with grow_tree"):
        grow_tree_levelwise(X, Y, np.ones(4), criterion="absolute_error", random_splits=spec)
    with pytest.raises(ValueError, match="no sufficient statistics"):
        ct.prefix_sum_best_split(X, Y, np.ones(4), "absolute_error")
    for search in SEARCHES:
        with pytest.raises(ValueError, match="absolute_error' only"):
            search(X, Y, np.ones(4), "squared_error")


def test_estimator_predicts_leaf_medians():
    X, y = heavy_tailed(500)
    model = ct.DecisionTreeRegressor(criterion="absolute_error", max_depth=3).fit(X, y)
    leaves = model.apply(X)
    for leaf in np.unique(leaves):
        assert model.tree_.value[leaf, 0, 0] == ct.weighted_median(y[leaves == leaf])
    np.testing.assert_array_equal(model.predict(X), model.tree_.value[leaves, 0, 0])
    assert model.feature_importances_.sum() == pytest.approx(1.0)


def categorical_problem(seed: int):
    rng = np.random.default_rng(seed)
    k = 2 + seed % 9
    n = int(rng.integers(k, 8 * k))
    codes = rng.integers(0, k, size=n)
    w = rng.uniform(0.1, 3.0, size=n)
    Y = (rng.normal(size=k)[codes] + rng.standard_t(2, size=n))[:, None]
    return codes, Y, w


def score_from_rows(codes, Y, w, levels) -> float:
    left = np.isin(codes, levels)
    sides = [(Y[left, 0], w[left]), (Y[~left, 0], w[~left])]
    return sum(np.sum(ws * np.abs(ys - median_by_definition(ys, ws))) for ys, ws in sides) / (
        w.sum()
    )


def test_categorical_searches_against_brute_force():
    """The median-sorted scan is a heuristic for absolute error: never better than the
    brute-force optimum, equal to it on most problems; one-vs-rest is exact over its own
    candidates."""
    misses = 0
    for seed in range(120):
        codes, Y, w = categorical_problem(seed)
        best = ct.brute_force_categorical_split(codes, Y, w, "absolute_error")
        scan = ct.partition_split(codes, Y, w, "absolute_error")
        assert ct.auto_split(codes, Y, w, "absolute_error") == scan
        if best is None:
            assert scan is None
            continue
        assert best.score == pytest.approx(score_from_rows(codes, Y, w, best.levels_left))
        assert scan.score == pytest.approx(score_from_rows(codes, Y, w, scan.levels_left))
        assert scan.score >= best.score * (1 - 1e-12)
        misses += scan.score > best.score * (1 + 1e-12)
        single = ct.brute_force_categorical_split(
            codes, Y, w, "absolute_error", one_level_sides=True
        )
        ovr = ct.one_vs_rest_split(codes, Y, w, "absolute_error")
        assert ovr.score == pytest.approx(single.score, rel=1e-12)
    assert 0 < misses < 12  # not exact, but close (about 1% of these problems)


def test_categorical_features_in_the_estimator(mixed_frame):
    X, _, y = mixed_frame
    model = ct.DecisionTreeRegressor(criterion="absolute_error", max_depth=4).fit(X, y)
    assert model.tree_.is_categorical_split.any()
    leaves = model.apply(X)
    for leaf in np.unique(leaves):
        assert model.tree_.value[leaf, 0, 0] == ct.weighted_median(y[leaves == leaf])
    assert " in {" in ct.export_text(model)
    unseen = X.iloc[:5].copy()
    unseen["size"] = "XXL"
    assert np.isfinite(model.predict(unseen)).all()


@pytest.mark.parametrize("n_outputs", [1, 2])
@pytest.mark.parametrize("method", ["auto", "partition", "one_vs_rest"])
@pytest.mark.parametrize("missing_values", ["learn", "surrogate"])
def test_rows_of_weight_zero_change_no_split(method, n_outputs, missing_values):
    # Level 4 of the categorical column appears only in rows of weight 0 (it has no
    # median to sort by), and so do the present values of the numerical column at
    # some nodes: grow_tree must grow the tree it grows without those rows.
    rng = np.random.default_rng(7)
    n = 80
    codes = rng.integers(0, 4, n).astype(float)
    codes[:10] = 4
    x = rng.normal(size=n)
    x[rng.random(n) < 0.4] = np.nan
    x[:10] = rng.normal(size=10)  # only the rows of weight 0 have x at some nodes
    X = np.column_stack([codes, x])
    Y = rng.normal(size=(n, n_outputs)) + codes[:, None]
    w = rng.uniform(0.5, 2.0, n)
    w[:10] = 0.0
    kept = w > 0
    params = {
        "criterion": "absolute_error"
        if n_outputs == 1
        else ct.output_criterion("absolute_error", [1] * n_outputs),
        "is_categorical": np.array([True, False]),
        "n_categories": np.array([5, 0]),
        "categorical_split": method,
        "missing_values": missing_values,
        "max_depth": 4,
    }
    with_zeros = ct.grow_tree(X, Y, w, **params)
    without = ct.grow_tree(X[kept], Y[kept], w[kept], **params)
    for name in ("feature", "value", "children_left", "children_right"):
        np.testing.assert_array_equal(getattr(with_zeros, name), getattr(without, name))
    # The zeros change the order of the sums: the same up to rounding.
    for name in ("impurity", "weighted_n_node_samples"):
        np.testing.assert_allclose(getattr(with_zeros, name), getattr(without, name), rtol=1e-13)
    np.testing.assert_array_equal(with_zeros.apply(X[kept]), without.apply(X[kept]))


@pytest.mark.parametrize("criterion", ["absolute_error", "squared_error"])
def test_a_feature_present_only_in_rows_of_weight_zero_is_not_searched(criterion):
    # With surrogates the primary split is searched on the rows where its feature
    # is present; here those weigh nothing, so the feature cannot split.
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.normal(size=40), np.full(40, np.nan)])
    X[:8, 1] = rng.normal(size=8)
    y = rng.normal(size=(40, 1))
    w = np.r_[np.zeros(8), rng.uniform(0.5, 2.0, 32)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tree = ct.grow_tree(X, y, w, criterion=criterion, missing_values="surrogate", max_depth=3)
        without = ct.grow_tree(
            X[8:, :1], y[8:], w[8:], criterion=criterion, missing_values="surrogate", max_depth=3
        )
    np.testing.assert_array_equal(tree.feature, without.feature)
    np.testing.assert_allclose(tree.value, without.value, rtol=1e-13)  # means: rounding
