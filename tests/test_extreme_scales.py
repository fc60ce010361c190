"""Inputs at the edges of what ``fit`` accepts: huge and tiny targets and weights.

``fit`` accepts ``|y| <= 1e150`` for regression (so that squares stay finite) and
any finite non-negative weights whose sum is finite (:mod:`climbing_trees._validation`).
On such inputs the package computes without overflow: no RuntimeWarning, and
results in their ranges.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import climbing_trees as ct


def last_digit_targets(seed, n=8, scale=1e149):
    """Targets near ``scale`` that differ only in their last binary digits."""
    rng = np.random.default_rng(seed)
    return scale * (1 + rng.integers(0, 3, n) * 2.0**-52)


@pytest.mark.parametrize("criterion", ["squared_error", "absolute_error", "poisson"])
def test_feature_importances_stay_in_the_unit_interval(criterion):
    # The gain of these splits is lost in the rounding of the impurities: a
    # decrease can round below 0 and the total to about 0, which divided the
    # importances into values like -2e136.
    for seed in range(150):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(6, 30))
        X = rng.integers(0, 4, size=(n, 2)).astype(float)
        sign = -1.0 if criterion != "poisson" and seed % 2 else 1.0
        y = sign * last_digit_targets(seed, n, scale=rng.choice([1e149, 5e148]))
        tree = ct.DecisionTreeRegressor(criterion=criterion, max_depth=3).fit(X, y)
        importances = tree.feature_importances_
        assert np.all((importances >= 0) & (importances <= 1)), (seed, importances)
        assert importances.sum() == 0 or importances.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("Forest", [ct.RandomForestRegressor, ct.ExtraTreesRegressor])
def test_forest_feature_importances_stay_in_the_unit_interval(Forest):
    # Targets near 1e149 and weights near 1e300 / n: W_t I_t overflowed to inf,
    # and the importances became NaN or huge.
    for seed in range(10):
        rng = np.random.default_rng(seed)
        y = last_digit_targets(seed, n=16) * rng.choice([-1.0, 1.0], 16)
        X = np.column_stack([np.arange(16.0), np.arange(16.0) % 3])
        w = 1e300 / 16 * rng.uniform(0.5, 1.0, 16)
        forest = Forest(n_estimators=5, max_depth=3, random_state=seed)
        importances = forest.fit(X, y, sample_weight=w).feature_importances_
        assert np.all((importances >= 0) & (importances <= 1)), (seed, importances)
        assert importances.sum() == pytest.approx(1.0)


def test_feature_importances_of_an_example_that_rounded_out_of_range():
    y = last_digit_targets(6)
    model = ct.DecisionTreeRegressor(criterion="poisson", max_depth=3)
    importances = model.fit(np.arange(8.0)[:, None], y).feature_importances_
    assert importances.tolist() in ([0.0], [1.0])


def test_feature_importances_with_huge_weights_and_impurities():
    # Weights near 1e300 and squared errors near 1e298: their products overflow.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    y = 1e149 * (X[:, 0] > 0) + 1e148 * rng.normal(size=50)
    w = 1e300 * rng.uniform(0.5, 1.0, 50) / 50
    reference = ct.DecisionTreeRegressor(max_depth=3).fit(X, y / 1e149, sample_weight=w / 1e300)
    model = ct.DecisionTreeRegressor(max_depth=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        importances = model.fit(X, y, sample_weight=w).feature_importances_
    np.testing.assert_allclose(importances, reference.feature_importances_, rtol=1e-9)
    assert importances.sum() == pytest.approx(1.0)


def extreme_problems(criterion, seed=0, n=40):
    """Problems at the limits ``fit`` accepts, each as (X, y, sample_weight, name)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    X[:, 2] = rng.integers(0, 4, n)  # declared categorical in some fits
    huge_X = X.copy()
    huge_X[:, :2] = np.clip(X[:, :2], -2.0, 2.0) * 8e307  # up to 1.6e308
    holes = X.copy()
    holes[:, :2][rng.random((n, 2)) < 0.25] = np.nan
    if criterion in ("gini", "entropy", "log_loss"):
        y = rng.integers(0, 3, n)
    elif criterion == "poisson":
        y = 1e150 * rng.uniform(0.0, 1.0, n)
    else:
        y = 1e150 * rng.choice([-1.0, 1.0], n) * rng.uniform(0.9, 1.0, n)
    weights = {
        "unit weights": None,
        "weights near 1e300": 1e300 * rng.uniform(0.5, 1.0, n),
        "weights summing to 1.7e308": np.full(n, 1.7e308 / n),
        "one weight of 1e300": np.r_[1e300, np.ones(n - 1)],
        "subnormal weights": 5e-324 * rng.integers(1, 4, n).astype(float),
    }
    for x_name, X_kind in (("X", X), ("X near 1.6e308", huge_X), ("X with NaN", holes)):
        for w_name, w in weights.items():
            yield X_kind, y, w, f"{x_name}, {w_name}"


OPTIONS = [
    {},
    {"max_leaf_nodes": 5},
    {"missing_values": "surrogate"},
    {"categorical_features": [2]},
    {"missing_values": "surrogate", "categorical_features": [2]},
    {"splitter": "random", "max_features": 2, "random_state": 0},
    {"ccp_alpha": 1e-3},
]


@pytest.mark.parametrize("builder", ["level-wise", "depth-first"])
@pytest.mark.parametrize(
    "criterion", ["gini", "entropy", "log_loss", "squared_error", "poisson", "absolute_error"]
)
def test_no_runtime_warning_at_the_limits_fit_accepts(criterion, builder, monkeypatch):
    # Targets near 1e150, weights near 1e300 or summing to nearly the largest
    # float, subnormal weights, X near the largest float: accepted by fit, and
    # every step (fit, predict, importances, export) computes without overflow
    # or invalid values.  The estimators choose the builder
    # (surrogates and categorical absolute error grow depth first); the
    # "depth-first" runs grow every tree with grow_tree.
    from climbing_trees._levelwise import _grow

    if builder == "depth-first":

        def depth_first(*args, max_leaf_nodes=None, **kwargs):
            return ct.grow_tree(*args, **kwargs)

        # Replaced where builder_for reads it.
        monkeypatch.setattr(_grow, "grow_tree_levelwise", depth_first)
    classifier = criterion in ("gini", "entropy", "log_loss")
    Model = ct.DecisionTreeClassifier if classifier else ct.DecisionTreeRegressor
    fitted = 0
    for X, y, w, name in extreme_problems(criterion):
        for options in OPTIONS:
            model = Model(criterion=criterion, max_depth=4, **options)
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                try:
                    model.fit(X, y, sample_weight=w)
                    model.predict(X)
                    if classifier:
                        model.predict_proba(X)
                    importances = model.feature_importances_
                    ct.export_graphviz(model, filled=True)
                    ct.export_text(model)
                    path = model.cost_complexity_pruning_path(X, y, sample_weight=w)
                except Exception as exc:  # name the case in the failure
                    raise AssertionError(f"{name}, {options}: {exc!r}") from exc
            assert np.all((importances >= 0) & (importances <= 1)), (name, options)
            assert np.all(path.ccp_alphas >= 0), (name, options)
            assert np.all(np.isfinite(path.impurities)), (name, options)
            # A surrogate's midpoint of two values near 1.6e308 overflowed to inf.
            assert not np.isinf(model.tree_.surrogate_threshold).any(), (name, options)
            fitted += 1
    assert fitted == 15 * len(OPTIONS)
