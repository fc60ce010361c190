"""criterion="poisson": half Poisson deviance, as scikit-learn defines it."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import as_float32_exact, assert_equivalent
from sklearn import tree as sk
from test_sklearn_agreement import assert_same_model, sklearn_stable_fit

import climbing_trees as ct
from climbing_trees._levelwise import grow_tree_levelwise


def deviance_by_definition(y, w) -> float:
    """``sum w (y log(y/m) - y + m) / W``, row by row, ``0 log 0 = 0``."""
    m = np.sum(w * y) / np.sum(w)
    terms = np.where(y > 0, y * np.log(np.where(y > 0, y, 1.0) / m), 0.0) - y + m
    return float(np.sum(w * terms) / np.sum(w))


@pytest.mark.parametrize("seed", range(20))
def test_impurity_from_statistics_is_the_deviance(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 50))
    y = rng.poisson(rng.uniform(0.1, 20.0), size=n).astype(float)
    y[0] += 1.0
    w = rng.uniform(0.1, 3.0, size=n)
    expected = deviance_by_definition(y, w)
    assert ct.node_impurity(y[:, None], w, "poisson") == pytest.approx(expected, rel=1e-10)
    assert ct.poisson_deviance(y, w) == pytest.approx(expected, rel=1e-10)


def test_a_node_without_a_positive_target_has_infinite_impurity():
    assert ct.node_impurity(np.zeros((3, 1)), np.ones(3), "poisson") == np.inf
    assert ct.poisson_deviance(np.zeros(3)) == np.inf


def count_data(n: int = 3000, seed: int = 0):
    """Continuous non-negative targets (no ties) with 30% exact zeros."""
    rng = np.random.default_rng(seed)
    X = as_float32_exact(rng.normal(size=(n, 5)))
    y = rng.gamma(2.0, np.exp(0.5 * X[:, 0] + 0.3 * X[:, 1] * X[:, 2]))
    y[rng.random(n) < 0.3] = 0.0
    return X, y


PARAMS = [
    {"max_depth": 4},
    {"max_depth": 8, "min_samples_leaf": 5},
    {"min_samples_leaf": 20},
    {"max_depth": 6, "min_impurity_decrease": 0.001},
]


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("params", PARAMS, ids=str)
def test_matches_sklearn(params, weighted):
    X, y = count_data()
    w = np.random.default_rng(1).uniform(0.5, 2.0, size=len(y)) if weighted else None
    ours = ct.DecisionTreeRegressor(criterion="poisson", **params).fit(X, y, sample_weight=w)
    theirs = sklearn_stable_fit(
        sk.DecisionTreeRegressor, X, y, sample_weight=w, criterion="poisson", **params
    )
    assert_same_model(ours, theirs, X)
    a, b = ours.tree_, theirs.tree_
    assert a.node_count == b.node_count
    np.testing.assert_allclose(np.sort(a.impurity), np.sort(b.impurity), rtol=1e-9, atol=1e-12)
    # Deep small nodes may be split equally well by two features (the same rows
    # each side, perhaps swapped), an exact tie; the shallow tree has none.
    if params == {"max_depth": 4}:
        for name in ["children_left", "children_right", "feature", "n_node_samples"]:
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
        np.testing.assert_allclose(a.threshold, b.threshold, rtol=1e-6)
        np.testing.assert_allclose(a.impurity, b.impurity, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(a.value, b.value, rtol=1e-12)
        np.testing.assert_allclose(
            ours.feature_importances_, theirs.feature_importances_, rtol=1e-8
        )


def test_no_child_without_a_positive_target():
    X, y = count_data(800, seed=3)
    model = ct.DecisionTreeRegressor(criterion="poisson").fit(X, y)
    # Every node, leaves included, has a positive mean: a split that would
    # isolate rows whose targets are all zero is refused.
    assert (model.tree_.value[:, 0, 0] > 0).all()
    assert np.isfinite(model.tree_.impurity).all()
    # With squared error such rows are isolated readily.
    plain = ct.DecisionTreeRegressor().fit(X, y)
    assert (plain.tree_.value[:, 0, 0] == 0).any()


def test_zero_rows_are_split_off_once_mixed():
    # Rows 0-2 have zero targets; the best squared-error split isolates them,
    # Poisson must keep a positive row with them.
    X = np.arange(6.0)[:, None]
    y = np.array([0.0, 0.0, 0.0, 4.0, 5.0, 6.0])
    model = ct.DecisionTreeRegressor(criterion="poisson", max_depth=1).fit(X, y)
    left = model.tree_.children_left[0]
    assert model.tree_.value[left, 0, 0] > 0
    theirs = sk.DecisionTreeRegressor(criterion="poisson", max_depth=1).fit(X, y)
    assert model.tree_.threshold[0] == theirs.tree_.threshold[0]


@pytest.mark.parametrize(
    "y, message",
    [
        ([1.0, -1.0, 2.0, 3.0], "Some value\\(s\\) of y are negative"),
        ([0.0, 0.0, 0.0, 0.0], "Sum of y is not positive"),
    ],
)
def test_rejects_targets_sklearn_rejects(y, message):
    X = np.arange(4.0)[:, None]
    model = ct.DecisionTreeRegressor(criterion="poisson")
    with pytest.raises(ValueError, match=message):
        model.fit(X, y)
    with pytest.raises(ValueError, match=message):
        sk.DecisionTreeRegressor(criterion="poisson").fit(X, y)


def test_positive_targets_only_on_rows_of_zero_weight_are_rejected():
    X = np.arange(4.0)[:, None]
    with pytest.raises(ValueError, match="counting only rows of positive weight"):
        ct.DecisionTreeRegressor(criterion="poisson").fit(
            X, [0.0, 0.0, 3.0, 0.0], sample_weight=[1.0, 1.0, 0.0, 1.0]
        )


def test_failed_fit_keeps_the_previous_model():
    X, y = count_data(200)
    model = ct.DecisionTreeRegressor(criterion="poisson", max_depth=3).fit(X, y)
    before = model.predict(X)
    with pytest.raises(ValueError):
        model.fit(X, -y)
    np.testing.assert_array_equal(model.predict(X), before)


@pytest.mark.parametrize("method", ["auto", "partition", "one_vs_rest"])
def test_categorical_poisson_builders_agree_and_predict(method):
    rng = np.random.default_rng(5)
    n = 600
    codes = rng.integers(0, 9, size=n)
    rate = np.array([0.0, 0.0, 1.0, 4.0, 0.5, 0.0, 2.0, 8.0, 3.0])[codes]
    X = np.column_stack([codes.astype(float), rng.normal(size=n)])
    y = rng.poisson(rate * np.exp(0.3 * X[:, 1])).astype(float)
    params = dict(
        criterion="poisson", is_categorical=np.array([True, False]), categorical_split=method
    )
    slow = ct.grow_tree(X, y[:, None], np.ones(n), max_depth=5, **params)
    fast = grow_tree_levelwise(X, y[:, None], np.ones(n), max_depth=5, **params)
    assert_equivalent(fast, slow)
    assert fast.is_categorical_split.any()
    assert (fast.value[:, 0, 0] > 0).all()
