"""Monotonic constraints (``monotonic_cst``): scikit-learn's trees, and monotone predictions.

The rule lives in :mod:`climbing_trees._monotonic`; every builder enforces it
(``tests/test_monotonic_builders.py`` compares them with ``grow_tree``).  scikit-learn's own
tests of the feature run in ``tests/sklearn_tests/test_sklearn_monotonic_tree.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn import tree as sk

import climbing_trees as ct
from climbing_trees._levelwise._support import builder_for
from climbing_trees._monotonic import allowed_splits, child_bounds, clip_values

CST = [1, -1, 0, 1]


def monotone_data(seed: int, n: int = 400, classifier: bool = False, missing: bool = False):
    """Noisy data rising with feature 0 and 3, falling with feature 1; feature 2 free.

    Values are float32 numbers, as scikit-learn's trees see them, so the
    thresholds (midpoints) are the same numbers in both packages.
    """
    rng = np.random.default_rng(seed)
    X = rng.random((n, 4)).astype(np.float32).astype(float)
    y = 3 * X[:, 0] - 2 * X[:, 1] + np.sin(6 * X[:, 2]) + X[:, 3] + rng.normal(size=n) * 0.7
    if classifier:
        y = (y + rng.normal(size=n) > 0.8).astype(int)
    if missing:
        X[rng.random(X.shape) < 0.1] = np.nan
    return X, y


def sklearn_tree(estimator_cls, X, y, **params):
    """scikit-learn's fit, skipping the case where its partition depends on the seed."""
    fits = [estimator_cls(random_state=seed, **params).fit(X, y) for seed in range(3)]
    leaves = [f.apply(X) for f in fits]
    if not all(np.array_equal(leaves[0], other) for other in leaves[1:]):
        pytest.skip("scikit-learn's tree depends on random_state here (gain ties)")
    return fits[0]


def assert_same_arrays(ours, theirs):
    """Structure and thresholds bit for bit; values and impurities to rounding."""
    a, b = ours.tree_, theirs.tree_
    for name in ("children_left", "children_right", "feature", "n_node_samples"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    np.testing.assert_array_equal(a.threshold, b.threshold, err_msg="threshold")
    np.testing.assert_array_equal(a.missing_go_to_left, b.missing_go_to_left)
    np.testing.assert_allclose(a.value, b.value, rtol=1e-12, atol=1e-12, err_msg="value")
    np.testing.assert_allclose(a.impurity, b.impurity, rtol=1e-9, atol=1e-12)


# Settings where no two candidates tie (checked: scikit-learn's trees do not
# depend on random_state there).  Deeper trees have nodes of 2-4 rows where two
# features give the same partition, and ties then choose different bounds.
REGRESSION = [
    {"min_samples_leaf": 5},
    {"max_depth": 4},
    {"min_samples_leaf": 6, "criterion": "poisson"},
    {"min_samples_leaf": 4, "max_depth": 8, "min_impurity_decrease": 0.001},
]
CLASSIFICATION = [
    {"max_depth": 3},
    {"max_depth": 5, "min_samples_leaf": 10},
    {"criterion": "entropy", "max_depth": 4, "min_samples_leaf": 8},
]


@pytest.mark.parametrize("params", REGRESSION, ids=str)
@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("missing", [False, True], ids=["complete", "missing"])
def test_regressor_equals_sklearn(params, seed, missing):
    X, y = monotone_data(seed, missing=missing)
    if params.get("criterion") == "poisson":
        y = np.exp(y / 3)
    ours = ct.DecisionTreeRegressor(monotonic_cst=CST, **params).fit(X, y)
    theirs = sklearn_tree(sk.DecisionTreeRegressor, X, y, monotonic_cst=CST, **params)
    assert_same_arrays(ours, theirs)


@pytest.mark.parametrize("params", CLASSIFICATION, ids=str)
@pytest.mark.parametrize("seed", range(5))
def test_classifier_equals_sklearn(params, seed):
    X, y = monotone_data(seed, classifier=True)
    ours = ct.DecisionTreeClassifier(monotonic_cst=CST, **params).fit(X, y)
    theirs = sklearn_tree(sk.DecisionTreeClassifier, X, y, monotonic_cst=CST, **params)
    assert_same_arrays(ours, theirs)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-12)


def test_constraints_change_the_tree_and_bound_it():
    """Not a no-op: unconstrained, the noisy fit breaks the order somewhere."""
    X, y = monotone_data(0)
    free = ct.DecisionTreeRegressor(min_samples_leaf=5).fit(X, y)
    held = ct.DecisionTreeRegressor(min_samples_leaf=5, monotonic_cst=CST).fit(X, y)
    grid = np.linspace(0, 1, 50)
    base = np.tile(X[:40], (len(grid), 1))
    base[:, 0] = np.repeat(grid, 40)
    steps = [m.predict(base).reshape(len(grid), 40) for m in (free, held)]
    assert (np.diff(steps[0], axis=0) < 0).any()
    assert (np.diff(steps[1], axis=0) >= 0).all()


def grid_is_monotone(model, X, cst, proba: bool) -> bool:
    """Predictions along a grid of each constrained feature, others fixed, follow ``cst``."""
    rng = np.random.default_rng(1)
    base = X[rng.integers(0, len(X), size=25)]
    for j in np.flatnonzero(cst):
        lo, hi = np.nanmin(X[:, j]), np.nanmax(X[:, j])
        grid = np.linspace(lo - 0.1, hi + 0.1, 60)
        rows = np.repeat(base, len(grid), axis=0)
        rows[:, j] = np.tile(grid, len(base))
        pred = model.predict_proba(rows)[:, 1] if proba else model.predict(rows)
        steps = np.diff(pred.reshape(len(base), len(grid)), axis=1)
        if np.any(steps * cst[j] < -1e-12):
            return False
    return True


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(5, 120),
    cst=st.lists(st.sampled_from([-1, 0, 1]), min_size=3, max_size=3),
    criterion=st.sampled_from(["squared_error", "absolute_error", "poisson", "gini"]),
    splitter=st.sampled_from(["best", "random"]),
    max_features=st.sampled_from([None, 2]),
    missing=st.booleans(),
    min_samples_leaf=st.integers(1, 4),
)
def test_predictions_are_monotone_on_a_grid(
    seed, n, cst, criterion, splitter, max_features, missing, min_samples_leaf
):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = X @ rng.normal(size=3) + rng.normal(size=n)
    if missing:
        X[rng.random(X.shape) < 0.2] = np.nan
    cst = np.array(cst)
    params = dict(
        monotonic_cst=cst, splitter=splitter, max_features=max_features,
        random_state=seed, min_samples_leaf=min_samples_leaf, criterion=criterion,
    )  # fmt: skip
    if criterion == "gini":
        model = ct.DecisionTreeClassifier(**params).fit(X, (y > np.median(y)).astype(int))
        assert grid_is_monotone(model, X, cst, proba=True)
    else:
        if criterion == "poisson":
            y = np.exp(y / 2)
        model = ct.DecisionTreeRegressor(**params).fit(X, y)
        assert grid_is_monotone(model, X, cst, proba=False)


@pytest.mark.parametrize("Forest", [ct.RandomForestRegressor, ct.ExtraTreesRegressor])
def test_forests_pass_the_constraints_to_their_trees(Forest):
    X, y = monotone_data(3, n=200)
    forest = Forest(n_estimators=5, monotonic_cst=CST, random_state=0).fit(X, y)
    assert all(np.array_equal(t.monotonic_cst, CST) for t in forest.estimators_)
    assert grid_is_monotone(forest, X, np.array(CST), proba=False)


def test_classifier_forest_is_monotone_in_the_positive_class():
    X, y = monotone_data(4, classifier=True)
    forest = ct.RandomForestClassifier(n_estimators=5, monotonic_cst=CST, random_state=0)
    assert grid_is_monotone(forest.fit(X, y), X, np.array(CST), proba=True)


def test_constrained_trees_are_grown_by_the_builder_of_their_options():
    """builder_for passes the constraints to the builder that grows the same options
    unconstrained: compiled, level-wise (max_leaf_nodes, categorical features), grow_tree
    (absolute error on categorical features); no constraint (all zeros) grows as an
    unconstrained tree does; splitter='hist' refuses them."""
    cst = np.array([1, 0])
    builder, extra = builder_for("gini", None, None, "learn", None, monotonic_cst=cst)
    assert builder is ct.grow_tree_compiled and extra["monotonic_cst"].tolist() == [1, 0]
    builder, extra = builder_for("gini", None, None, "learn", 8, monotonic_cst=cst)
    assert builder is ct.grow_tree_levelwise
    assert extra["max_leaf_nodes"] == 8 and extra["monotonic_cst"] is cst
    categorical = np.array([False, True])
    builder, extra = builder_for("squared_error", categorical, None, "learn", None,
                                 monotonic_cst=cst)  # fmt: skip
    assert builder is ct.grow_tree_levelwise and extra["monotonic_cst"] is cst
    builder, extra = builder_for("absolute_error", categorical, None, "learn", None,
                                 monotonic_cst=cst)  # fmt: skip
    assert builder is ct.grow_tree and extra["monotonic_cst"] is cst
    builder, extra = builder_for("gini", None, None, "learn", None, monotonic_cst=cst * 0)
    assert (builder, extra) == builder_for("gini", None, None, "learn", None)
    with pytest.raises(ValueError, match="splitter='hist' does not take monotonic_cst"):
        builder_for("gini", None, None, "learn", None, max_bins=255, monotonic_cst=cst)


@pytest.mark.parametrize(
    ("kwargs", "y", "message"),
    [
        ({"monotonic_cst": [1, 0, 1]}, [0, 1] * 5, "has shape 3 but the input data X has 2"),
        ({"monotonic_cst": [2, 0]}, [0, 1] * 5, "array-like of -1, 0 or 1"),
        ({"monotonic_cst": [1, 0]}, [0, 1, 2, 0, 1] * 2, "multiclass classification"),
        ({"monotonic_cst": [1, 0]}, [[0, 1], [1, 0]] * 5, "multiple outputs"),
        (
            {"monotonic_cst": [1, 0], "categorical_features": [0]},
            [0, 1] * 5,
            "categorical feature",
        ),
        (
            {"monotonic_cst": [1, 0], "missing_values": "surrogate"},
            [0, 1] * 5,
            "missing_values='learn'",
        ),
    ],
)
def test_bad_constraints_are_refused_and_the_old_model_kept(kwargs, y, message):
    X = np.arange(20.0).reshape(10, 2)
    model = ct.DecisionTreeClassifier().fit(X, [0, 1] * 5)
    before = model.tree_
    model.set_params(**kwargs)
    with pytest.raises(ValueError, match=message):
        model.fit(X, y)
    assert model.tree_ is before


def test_the_rule_functions():
    # Rule 1: the order and the bounds, only where the feature is constrained.
    assert allowed_splits(1, 1.0, 2.0, 0.0, 3.0) and not allowed_splits(1, 2.0, 1.0, 0.0, 3.0)
    assert not allowed_splits(-1, 4.0, 2.0, 0.0, 3.0) and allowed_splits(0, 4.0, 2.0, 0.0, 3.0)
    # Rule 2: the middle value cuts the bounds; rule 3: values clipped.
    assert child_bounds(1, 0.0, 10.0, 2.0, 4.0) == ((0.0, 3.0), (3.0, 10.0))
    assert clip_values(np.array([0.2, 0.8]), 0.3, 1.0, True).tolist() == [0.3, 0.7]
