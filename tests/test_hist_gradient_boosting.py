"""Histogram gradient boosting: the compiled builder against its plain-Python oracle,
the estimators against scikit-learn's ``HistGradientBoosting*``.

What is equal, and what is only close:

* :func:`grow_hist_tree` and :func:`grow_hist_tree_reference` see the same
  fixed-point statistics and call the same rules, so their trees are equal
  array by array (splits, gains, leaf values, row counts), ties included.
* scikit-learn sums float32 gradients, we sum float64 ones exactly: on data
  without ties the first tree has the same splits (feature, threshold, NaN
  direction, rows per node) and leaf values equal to float32 precision, and
  predictions after many iterations agree to about 1e-6 of the target's scale.
"""

from __future__ import annotations

import io
import re
from contextlib import redirect_stdout

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.ensemble import HistGradientBoostingClassifier as SklearnClassifier
from sklearn.ensemble import HistGradientBoostingRegressor as SklearnRegressor
from sklearn.metrics import log_loss, mean_squared_error
from sklearn.utils.estimator_checks import parametrize_with_checks

from climbing_trees import (
    TREE_LEAF,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    grow_hist_tree,
    grow_hist_tree_reference,
)
from climbing_trees._binning import fit_bins
from climbing_trees._hist_gradient_boosting import (
    NO_LIMIT,
    BinnedData,
    GrowOptions,
    Statistics,
    node_value,
    split_gain,
)

# --- the compiled builder against the oracle ---------------------------------------------------


def _problem(seed: int, n: int, d: int, nan_fraction: float, ties: bool):
    """Features (with NaN, or few distinct values when ``ties``), a target."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (n, d)).astype(float) if ties else rng.normal(size=(n, d))
    X[rng.random((n, d)) < nan_fraction] = np.nan
    y = np.nan_to_num(X[:, 0]) + 0.5 * np.nan_to_num(X[:, 1]) ** 2 + rng.normal(size=n)
    return X, y


CASES = {
    "plain": dict(nan=0.0, ties=False, options=GrowOptions(min_samples_leaf=5)),
    "nan": dict(nan=0.2, ties=False, options=GrowOptions(min_samples_leaf=5)),
    "ties": dict(nan=0.1, ties=True, options=GrowOptions(min_samples_leaf=3)),
    "depth": dict(nan=0.1, ties=False, options=GrowOptions(max_depth=2, min_samples_leaf=1)),
    "no leaf limit": dict(
        nan=0.1, ties=False, options=GrowOptions(max_leaf_nodes=NO_LIMIT, min_samples_leaf=10)
    ),
    "l2": dict(nan=0.05, ties=False, options=GrowOptions(l2_regularization=3.0, max_leaf_nodes=7)),
}


ARRAY_NAMES = ("left", "right", "feature", "bin", "missing_left", "value", "count", "gain",
               "categories_left")  # fmt: skip


@pytest.mark.parametrize("constant_hessian", [True, False], ids=["h=1", "h varies"])
@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("seed", [0, 1])
def test_compiled_builder_equals_the_reference(case, seed, constant_hessian):
    spec = CASES[case]
    X, y = _problem(seed, 300, 4, spec["nan"], spec["ties"])
    data = BinnedData.from_bins(fit_bins(X, 255), X)
    gradient = -(y - y.mean())
    hessian = 1.0 if constant_hessian else np.random.default_rng(seed).uniform(0.05, 1, len(y))
    stats = Statistics.of(gradient, hessian)
    fast, (rows, start) = grow_hist_tree(data, stats, spec["options"])
    slow = grow_hist_tree_reference(data, stats, spec["options"])
    for name, a, b in zip(ARRAY_NAMES, fast, slow, strict=True):
        np.testing.assert_array_equal(a, b, err_msg=name)
    assert len(fast[0]) > 3  # the case grows a tree
    # The partition holds each leaf's rows: the counts add up to every row once.
    leaves = fast[0] == TREE_LEAF
    pieces = zip(start[leaves], fast[6][leaves], strict=True)
    covered = np.concatenate([rows[s : s + c] for s, c in pieces])
    assert sorted(covered.tolist()) == list(range(len(y)))


def test_the_tree_does_not_depend_on_row_order():
    X, y = _problem(3, 400, 5, 0.1, False)
    order = np.random.default_rng(0).permutation(len(y))
    grown = []
    for rows in (np.arange(len(y)), order):
        data = BinnedData.from_bins(fit_bins(X[rows], 255), X[rows])
        stats = Statistics.of(-(y[rows] - y.mean()), 1.0)
        grown.append(grow_hist_tree(data, stats, GrowOptions(min_samples_leaf=5))[0])
    for a, b in zip(*grown, strict=True):
        np.testing.assert_array_equal(a, b)


def test_the_rules():
    # gain = G_L^2/(H_L+l2) + G_R^2/(H_R+l2) - G^2/(H+l2); value = -G/(H+l2).
    gain = split_gain(-3.0, 2.0, 5.0, 4.0, 2.0, 6.0, 1.0)
    assert gain == pytest.approx(9 / 3 + 25 / 5 - 4 / 7, rel=1e-12)
    assert node_value(-3.0, 2.0, 1.0) == pytest.approx(1.0)


def test_leaf_values_are_newton_steps_times_the_learning_rate():
    X, y = make_regression(n_samples=300, n_features=3, random_state=0)
    model = HistGradientBoostingRegressor(max_iter=1, learning_rate=0.3, l2_regularization=2.0)
    model.fit(X, y)
    tree = model.trees_[0][0]
    leaf = model.trees_[0][0].predict(X)
    for value in np.unique(leaf):
        rows = leaf == value
        gradient = y.mean() - y[rows]  # squared error: g = F - y, h = 1
        expected = 0.3 * -gradient.sum() / (rows.sum() + 2.0)
        assert value == pytest.approx(expected, rel=1e-9, abs=1e-9)
    assert tree.n_leaves > 2


# --- against scikit-learn -----------------------------------------------------------------------


def _preorder(tree, node=0):
    yield node
    if tree.children_left[node] != TREE_LEAF:
        yield from _preorder(tree, tree.children_left[node])
        yield from _preorder(tree, tree.children_right[node])


def _same_first_tree(ours, theirs, k: int = 0):
    """Our first tree against scikit-learn's, node by node in preorder."""
    tree = ours.trees_[0][k]
    nodes = theirs._predictors[0][k].nodes
    order = list(_preorder(tree))
    assert len(order) == len(nodes)
    for i, node in zip(order, nodes, strict=True):
        is_leaf = tree.children_left[i] == TREE_LEAF
        assert is_leaf == bool(node["is_leaf"])
        assert tree.n_node_samples[i] == node["count"]
        if is_leaf:
            assert tree.value[i] == pytest.approx(node["value"], rel=1e-5, abs=1e-7)
        else:
            assert tree.feature[i] == node["feature_idx"]
            assert tree.threshold[i] == node["num_threshold"]
            assert tree.missing_go_to_left[i] == bool(node["missing_go_to_left"])


def _data(kind: str, nan: float = 0.0, n: int = 2000, seed: int = 0):
    if kind == "regression":
        X, y = make_regression(n_samples=n, n_features=6, noise=5.0, random_state=seed)
    elif kind in ("absolute_error", "quantile"):
        X, y = make_regression(n_samples=n, n_features=6, noise=5.0, random_state=seed)
        y = y + np.random.default_rng(seed).standard_cauchy(n)  # heavy tails
    elif kind == "gamma":
        X, y = make_regression(n_samples=n, n_features=6, noise=5.0, random_state=seed)
        y = np.exp(y / 100)
    elif kind == "poisson":
        X, _ = make_regression(n_samples=n, n_features=6, random_state=seed)
        rng = np.random.default_rng(seed)
        y = rng.poisson(np.exp(0.3 * X[:, 0] - 0.2 * X[:, 1]))
    else:
        classes = 2 if kind == "binary" else 3
        X, y = make_classification(
            n_samples=n, n_features=6, n_informative=4, n_classes=classes, random_state=seed
        )
    if nan:
        X[np.random.default_rng(seed + 1).random(X.shape) < nan] = np.nan
    return X, y


KINDS = {
    "regression": (HistGradientBoostingRegressor, SklearnRegressor, {}),
    "poisson": (HistGradientBoostingRegressor, SklearnRegressor, {"loss": "poisson"}),
    "gamma": (HistGradientBoostingRegressor, SklearnRegressor, {"loss": "gamma"}),
    "absolute_error": (HistGradientBoostingRegressor, SklearnRegressor, {"loss": "absolute_error"}),
    "quantile": (
        HistGradientBoostingRegressor,
        SklearnRegressor,
        {"loss": "quantile", "quantile": 0.8},
    ),
    "binary": (HistGradientBoostingClassifier, SklearnClassifier, {}),
    "multiclass": (HistGradientBoostingClassifier, SklearnClassifier, {}),
}


@pytest.mark.parametrize("nan", [0.0, 0.1], ids=["no NaN", "10% NaN"])
@pytest.mark.parametrize("kind", list(KINDS))
def test_the_first_tree_is_scikit_learns(kind, nan):
    ours, theirs, params = KINDS[kind]
    X, y = _data(kind, nan)
    params = dict(params, max_iter=1, early_stopping=False)
    a, b = ours(**params).fit(X, y), theirs(**params).fit(X, y)
    for k in range(a.n_trees_per_iteration_):
        _same_first_tree(a, b, k)


@pytest.mark.parametrize("nan", [0.0, 0.1], ids=["no NaN", "10% NaN"])
@pytest.mark.parametrize("kind", list(KINDS))
def test_predictions_agree_with_scikit_learn(kind, nan):
    ours, theirs, params = KINDS[kind]
    X, y = _data(kind, nan)
    X_test, _ = _data(kind, nan, n=500, seed=7)
    X_test[:20, 0] = np.nan  # NaN also where a feature had none in training
    params = dict(params, max_iter=30, early_stopping=False, max_leaf_nodes=15)
    a, b = ours(**params).fit(X, y), theirs(**params).fit(X, y)
    if kind in ("binary", "multiclass"):
        np.testing.assert_allclose(a.predict_proba(X_test), b.predict_proba(X_test), atol=1e-5)
        np.testing.assert_array_equal(a.classes_, b.classes_)
    else:
        np.testing.assert_allclose(a.predict(X_test), b.predict(X_test), atol=1e-5 * np.std(y))


@pytest.mark.parametrize("kind", list(KINDS))
def test_weighted_fits_agree_with_scikit_learn(kind):
    # At most max_bins values per feature: one bin per value, so the bins do not depend
    # on the weights (scikit-learn weighs its quantiles, the package does not).
    ours, theirs, params = KINDS[kind]
    X, y = _data(kind, 0.1)
    X = np.round(X, 1)
    weights = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    params = dict(params, max_iter=20, early_stopping=False)
    a = ours(**params).fit(X, y, sample_weight=weights)
    b = theirs(**params).fit(X, y, sample_weight=weights)
    if kind in ("binary", "multiclass"):
        np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), atol=1e-5)
    else:
        np.testing.assert_allclose(a.predict(X), b.predict(X), atol=1e-5 * np.std(y))


@pytest.mark.parametrize("kind", ["regression", "binary"])
def test_held_out_loss_is_scikit_learns(kind):
    ours, theirs, params = KINDS[kind]
    X, y = _data(kind, 0.05, n=3000)
    X_test, y_test = _data(kind, 0.05, n=2000, seed=5)
    params = dict(params, max_iter=100, early_stopping=False)
    a, b = ours(**params).fit(X, y), theirs(**params).fit(X, y)
    if kind == "binary":
        ours_loss = log_loss(y_test, a.predict_proba(X_test))
        theirs_loss = log_loss(y_test, b.predict_proba(X_test))
    else:
        ours_loss = mean_squared_error(y_test, a.predict(X_test))
        theirs_loss = mean_squared_error(y_test, b.predict(X_test))
    assert ours_loss == pytest.approx(theirs_loss, rel=1e-4)


def test_early_stopping_is_scikit_learns():
    X, y = _data("binary", 0.05, n=3000)
    params = dict(early_stopping=True, max_iter=200, learning_rate=0.5, random_state=3)
    a = HistGradientBoostingClassifier(**params).fit(X, y)
    b = SklearnClassifier(**params).fit(X, y)
    assert a.do_early_stopping_ and a.n_iter_ < 200
    assert a.n_iter_ == b.n_iter_
    np.testing.assert_allclose(a.train_score_, b.train_score_, rtol=1e-5)
    np.testing.assert_allclose(a.validation_score_, b.validation_score_, rtol=1e-5)
    assert len(a.train_score_) == a.n_iter_ + 1  # before the first iteration, then each


def test_early_stopping_auto_turns_on_above_10000_rows():
    X, y = _data("regression", n=10_001)
    model = HistGradientBoostingRegressor(max_iter=3).fit(X, y)
    assert model.do_early_stopping_ and len(model.validation_score_) == 4
    model = HistGradientBoostingRegressor(max_iter=3).fit(X[:10_000], y[:10_000])
    assert not model.do_early_stopping_ and model.train_score_.size == 0


def test_early_stopping_without_improvement_stops_after_n_iter_no_change():
    X, y = _data("regression", n=500)
    model = HistGradientBoostingRegressor(
        early_stopping=True, tol=1e12, n_iter_no_change=4, validation_fraction=None
    ).fit(X, y)
    assert model.n_iter_ == 4 and model.validation_score_.size == 0
    assert len(model.train_score_) == 5


def test_staged_predictions_end_at_predict():
    X, y = _data("multiclass", 0.1, n=600)
    model = HistGradientBoostingClassifier(max_iter=5).fit(X, y)
    staged = list(model.staged_predict_proba(X))
    assert len(staged) == 5
    np.testing.assert_array_equal(staged[-1], model.predict_proba(X))
    np.testing.assert_array_equal(list(model.staged_predict(X))[-1], model.predict(X))
    assert model.decision_function(X).shape == (600, 3)
    X, y = _data("binary", n=300)
    model = HistGradientBoostingClassifier(max_iter=5).fit(X, y)
    scores = model.decision_function(X)
    assert scores.shape == (300,)
    np.testing.assert_array_equal(model.predict(X), model.classes_[(scores > 0).astype(int)])


# --- missing values -----------------------------------------------------------------------------


def test_missing_values_learn_their_direction():
    # NaN rows behave like large values: the split sends them with those.
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, 1000)
    y = (x > 0.5).astype(float)
    missing = rng.random(1000) < 0.2
    y[missing] = 1.0
    x[missing] = np.nan
    model = HistGradientBoostingRegressor(max_iter=1, max_leaf_nodes=2, learning_rate=1.0)
    model.fit(x[:, None], y)
    tree = model.trees_[0][0]
    assert tree.threshold[0] == pytest.approx(0.5, abs=0.01)
    assert not tree.missing_go_to_left[0]
    assert model.predict([[np.nan]])[0] == pytest.approx(model.predict([[0.9]])[0])
    model.fit(1 - x[:, None], y)  # now the NaN rows resemble the small values
    assert model.trees_[0][0].missing_go_to_left[0]


def test_missing_values_without_nan_in_training_follow_the_larger_child():
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 1, 1000)
    y = (x > 0.3).astype(float)  # the right child is larger
    model = HistGradientBoostingRegressor(max_iter=1, max_leaf_nodes=2).fit(x[:, None], y)
    assert not model.trees_[0][0].missing_go_to_left[0]
    assert model.predict([[np.nan]])[0] == model.predict([[0.9]])[0]


# --- parameters and errors ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "params, named",
    [
        ({"loss": "quantile"}, "quantile=None"),
        ({"max_features": 0.5}, "max_features=0.5"),
        ({"interaction_cst": "pairwise"}, "interaction_cst"),
        ({"warm_start": True}, "warm_start=True"),
        ({"scoring": "r2"}, "scoring='r2'"),
    ],
)
def test_unsupported_parameters_are_refused_by_name(params, named):
    X, y = _data("regression", n=100)
    X = X[:, :2]
    with pytest.raises(ValueError, match=re.escape(named)):
        HistGradientBoostingRegressor(**params).fit(X, y)


def test_non_differentiable_losses_take_each_leafs_residual_quantile():
    X, y = _data("quantile", n=500)
    model = HistGradientBoostingRegressor(
        loss="quantile", quantile=0.8, max_iter=1, learning_rate=0.5, max_leaf_nodes=4
    ).fit(X, y)
    baseline = np.percentile(y, 80)
    leaf = model.trees_[0][0].predict(X)
    for value in np.unique(leaf):
        rows = leaf == value
        assert value == pytest.approx(0.5 * np.percentile(y[rows] - baseline, 80))


def test_a_failed_fit_keeps_the_previous_model():
    X, y = _data("regression", n=200)
    model = HistGradientBoostingRegressor(max_iter=3).fit(X, y)
    before = model.predict(X)
    model.set_params(loss="poisson")
    with pytest.raises(ValueError, match="poisson"):
        model.fit(X, y - 1e6)  # negative counts
    np.testing.assert_array_equal(model.predict(X), before)
    assert model.n_iter_ == 3


def test_verbose_prints_one_line_per_iteration():
    X, y = _data("binary", n=300)
    out = io.StringIO()
    with redirect_stdout(out):
        HistGradientBoostingClassifier(max_iter=4, verbose=1, early_stopping=True).fit(X, y)
    lines = out.getvalue().splitlines()
    iterations = [line for line in lines if line.startswith("[")]
    assert [line.split("]")[0] for line in iterations] == ["[1/4", "[2/4", "[3/4", "[4/4"]
    assert all("val loss:" in line for line in iterations)


def test_sample_weight_scales_gradients():
    # An integer weight equals repeating the row when no leaf is near min_samples_leaf.
    X, y = _data("regression", n=200)  # at most 255 values: one bin each, repeated or not
    weights = np.random.default_rng(0).integers(1, 3, len(y))
    params = dict(max_iter=5, min_samples_leaf=1, max_leaf_nodes=4)
    a = HistGradientBoostingRegressor(**params).fit(X, y, sample_weight=weights)
    b = HistGradientBoostingRegressor(**params).fit(np.repeat(X, weights, 0), np.repeat(y, weights))
    np.testing.assert_allclose(a.predict(X), b.predict(X), rtol=1e-9, atol=1e-9)


# --- scikit-learn's estimator checks ------------------------------------------------------------


def _expected_failed_checks(estimator) -> dict[str, str]:
    failures = {}
    if estimator.early_stopping is True:
        failures["check_sample_weight_equivalence_on_dense_data"] = (
            "the early-stopping split draws rows, not weight: a row of weight 2 and its two "
            "copies fall on different sides of the split (as in scikit-learn)"
        )
    if getattr(estimator, "class_weight", None) == "balanced":
        failures["check_sample_weight_equivalence_on_dense_data"] = (
            "'balanced' class weights come from the class counts, which repeating rows "
            "changes: weights and repetitions are different data by definition"
        )
    return failures


@parametrize_with_checks(
    [
        HistGradientBoostingRegressor(),
        HistGradientBoostingClassifier(),
        HistGradientBoostingRegressor(max_iter=5, min_samples_leaf=1, l2_regularization=1.0),
        HistGradientBoostingRegressor(max_iter=5, early_stopping=True, validation_fraction=0.2),
        HistGradientBoostingClassifier(max_iter=5, max_depth=2, class_weight="balanced"),
        HistGradientBoostingRegressor(loss="absolute_error", max_iter=10),
    ],
    expected_failed_checks=_expected_failed_checks,
)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


# --- categorical features -----------------------------------------------------------------------


def _categorical_problem(seed: int, n: int, levels=(6, 40), nan: float = 0.1, rare: bool = True):
    """Categorical columns (integer codes, NaN, some rare levels) and one numerical one;
    each level has its own effect on the target."""
    rng = np.random.default_rng(seed)
    columns = []
    for k in levels:
        p = rng.dirichlet(np.ones(k) * (0.5 if rare else 50.0))
        column = rng.choice(k, size=n, p=p).astype(float)
        column[rng.random(n) < nan] = np.nan
        columns.append(column)
    X = np.column_stack([*columns, rng.normal(size=n)])
    y = X[:, -1].copy()
    for j, k in enumerate(levels):
        effect = 2 * np.r_[rng.normal(size=k), 1.5]  # the last: missing
        y += effect[np.where(np.isnan(X[:, j]), k, np.nan_to_num(X[:, j])).astype(int)]
    return X, y + 0.3 * rng.normal(size=n)


def _binned(X, is_categorical):
    """The estimator's binning (a bin per category) without the estimator."""
    model = HistGradientBoostingRegressor(categorical_features=is_categorical)
    codes = model._encode_X(X, reset=True)
    return BinnedData.from_bins(model._fit_bins(codes, 0), codes, model.is_categorical_)


CATEGORICAL_CASES = {
    "plain": GrowOptions(min_samples_leaf=5),
    "l2": GrowOptions(min_samples_leaf=3, l2_regularization=2.0, max_leaf_nodes=12),
    "no leaf limit": GrowOptions(max_leaf_nodes=NO_LIMIT, min_samples_leaf=15),
    "depth": GrowOptions(max_depth=3, min_samples_leaf=1),
    # Bounds pass through categorical splits to the constrained numerical feature's
    # splits below them (and -1 runs against the data: children are clipped).
    "increasing": GrowOptions(min_samples_leaf=5, monotonic_cst=np.array([0, 0, 1], np.int8)),
    "decreasing": GrowOptions(min_samples_leaf=5, monotonic_cst=np.array([0, 0, -1], np.int8)),
}


@pytest.mark.parametrize("hessian", ["h=1", "weights", "3 classes"])
@pytest.mark.parametrize("case", list(CATEGORICAL_CASES))
@pytest.mark.parametrize("seed", [0, 1])
def test_categorical_compiled_builder_equals_the_reference(case, seed, hessian):
    X, y = _categorical_problem(seed, 400)
    data = _binned(X, [True, True, False])
    rng = np.random.default_rng(seed)
    if hessian == "3 classes":  # each class's tree of a softmax's first iteration
        labels = np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))
        weights = rng.uniform(0.2, 2.0, len(y))
        pairs = [((1 / 3 - (labels == k)) * weights, 2 / 9 * weights) for k in range(3)]
    elif hessian == "weights":
        weights = rng.uniform(0.05, 1, len(y))
        pairs = [(-(y - y.mean()) * weights, weights)]
    else:
        pairs = [(-(y - y.mean()), 1.0)]
    grown_categorical = False
    for gradient, h in pairs:
        stats = Statistics.of(gradient, h)
        fast, (rows, start) = grow_hist_tree(data, stats, CATEGORICAL_CASES[case])
        slow = grow_hist_tree_reference(data, stats, CATEGORICAL_CASES[case])
        for name, a, b in zip(ARRAY_NAMES, fast, slow, strict=True):
            np.testing.assert_array_equal(a, b, err_msg=name)
        split = fast[0] != TREE_LEAF
        grown_categorical |= bool(np.isin(fast[2][split], [0, 1]).any())
        leaves = fast[0] == TREE_LEAF
        pieces = zip(start[leaves], fast[6][leaves], strict=True)
        covered = np.concatenate([rows[s : s + c] for s, c in pieces])
        assert sorted(covered.tolist()) == list(range(len(y)))
    assert grown_categorical  # the case splits a categorical feature


def _brute_force_gain(hist, options, scale_g, scale_h, constant, missing_bin):
    """The largest allowed gain over every left set of the categories with enough
    support (the others stay right), by enumeration."""
    from itertools import combinations

    from climbing_trees._hist_gradient_boosting import MIN_CATEGORY_SUPPORT, split_allowed

    h_of = hist[:, 0] if constant else hist[:, 2]
    n, g_sum, h_sum = hist[:, 0].sum(), hist[:, 1].sum(), h_of.sum()
    eligible = [
        b for b in range(len(hist))
        if hist[b, 0] > 0 and float(h_of[b]) * n >= MIN_CATEGORY_SUPPORT * float(h_sum)
    ]  # fmt: skip
    best = -1.0
    for size in range(1, len(eligible) + 1):
        for left in combinations(eligible, size):
            left = list(left)
            n_l, g_l, h_l = hist[left, 0].sum(), hist[left, 1].sum(), h_of[left].sum()
            HL, HR = h_l * scale_h, (h_sum - h_l) * scale_h
            if not split_allowed(n_l, HL, n - n_l, HR, options.min_samples_leaf,
                                 options.min_hessian):  # fmt: skip
                continue
            gain = split_gain(g_l * scale_g, HL, (g_sum - g_l) * scale_g, HR, g_sum * scale_g,
                              h_sum * scale_h, options.l2_regularization)  # fmt: skip
            best = max(best, gain)
    return best


@pytest.mark.parametrize("l2", [0.0, 1.0])
@pytest.mark.parametrize("seed", range(12))
def test_the_sorted_scan_finds_the_best_partition(seed, l2):
    # One categorical feature of at most 6 levels (NaN one of them, some rare): the
    # root's split.  For l2 = 0 the sorted prefixes hold a best partition (Fisher's
    # argument, Hessians as weights): the gain equals the brute force's.  For l2 > 0
    # the order is a heuristic: its gain is one of the partitions', so at most the best.
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 6))
    n = 120
    column = rng.choice(k, size=n, p=rng.dirichlet(np.ones(k))).astype(float)
    column[rng.random(n) < 0.15] = np.nan
    X = column[:, None]
    data = _binned(X, [True])
    gradient = rng.normal(size=k + 1)[np.where(np.isnan(column), k, column).astype(int)]
    gradient = gradient + 0.5 * rng.normal(size=n)
    hessian = rng.uniform(0.1, 1.0, n)
    options = GrowOptions(max_leaf_nodes=2, min_samples_leaf=int(rng.integers(1, 15)),
                          l2_regularization=l2)  # fmt: skip
    stats = Statistics.of(gradient, hessian)
    arrays, _ = grow_hist_tree(data, stats, options)
    hist = np.zeros((data.missing_bin + 1, 3), dtype=np.int64)
    np.add.at(hist, data.codes[0], np.column_stack([np.ones(n, np.int64), stats.gradient,
                                                    stats.hessian]))  # fmt: skip
    best = _brute_force_gain(hist, options, 2.0**-stats.k_gradient, 2.0**-stats.k_hessian,
                             False, data.missing_bin)  # fmt: skip
    found = arrays[7][0] if arrays[0][0] != TREE_LEAF else -1.0
    if l2 == 0.0:
        assert found == pytest.approx(best, rel=1e-12, abs=1e-12)
    else:
        assert found <= max(best, 0.0) * (1 + 1e-12)
    if found > 0:  # the leaves are the Newton steps of the two sides
        left = arrays[8][0][data.codes[0]]
        for side, leaf in ((left, 1), (~left, 2)):
            g_side = stats.gradient[side].sum() * 2.0**-stats.k_gradient
            h_side = stats.hessian[side].sum() * 2.0**-stats.k_hessian
            assert arrays[5][leaf] == pytest.approx(node_value(g_side, h_side, l2), rel=1e-12)


def test_category_order_sorts_by_newton_step_and_drops_rare_categories():
    from climbing_trees._hist_gradient_boosting import category_order, category_set

    # bins: count, sum g, sum h.  Keys G/(H + l2): 1.0, -1.0, 0.0, (rare), -1.0 (NaN, bin 5).
    hist = np.array([[20, 40, 20], [20, -40, 20], [20, 0, 20], [5, 9, 5], [0, 0, 0],
                     [20, -40, 20]])  # fmt: skip
    order, dropped = category_order(hist, 5, True, 5, 85, 85, 1.0, 1.0, False, 20.0)
    assert order.tolist() == [1, 5, 2, 0] and dropped  # equal keys: the lower bin first
    assert category_set(order, 1, False, 6).tolist() == [0, 1, 0, 0, 0, 1]
    assert category_set(order, 0, True, 6).tolist() == [1, 0, 0, 0, 0, 0]


@pytest.mark.parametrize(
    "form", ["mask", "indices", "names", "from_dtype"]
)
def test_categorical_features_forms_give_the_same_model(form):
    pd = pytest.importorskip("pandas")
    X, y = _categorical_problem(0, 1500)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    reference = HistGradientBoostingRegressor(categorical_features=[0, 1], max_iter=10)
    expected = reference.fit(X, y).predict(X)
    value = {"mask": [True, True, False], "indices": [0, 1], "names": ["a", "b"],
             "from_dtype": "from_dtype"}[form]  # fmt: skip
    data = frame
    if form == "from_dtype":
        data = frame.astype({"a": "category", "b": "category"})
    model = HistGradientBoostingRegressor(categorical_features=value, max_iter=10).fit(data, y)
    np.testing.assert_array_equal(model.is_categorical_, [True, True, False])
    np.testing.assert_allclose(model.predict(data), expected, rtol=0, atol=1e-12)
    assert any(np.isnan(tree.threshold).any() for stage in model.trees_ for tree in stage)


@pytest.mark.parametrize(
    "value, message",
    [
        ([0, 5], r"indices must be in \[0, n_features - 1\]"),
        ([True, False], r"boolean mask must have shape \(n_features,\)"),
        (["a"], "passed as an array of integers or as a boolean mask"),
        ([0.5], "must be an array-like of bool, int or str"),
    ],
)
def test_bad_categorical_features_are_refused_as_scikit_learn_refuses_them(value, message):
    X, y = _categorical_problem(0, 200)
    model = HistGradientBoostingRegressor(categorical_features=value)
    with pytest.raises(ValueError, match=message):
        model.fit(X, y)
    with pytest.raises(ValueError, match=message):
        SklearnRegressor(categorical_features=value).fit(X, y)


def test_an_unknown_feature_name_is_refused():
    pd = pytest.importorskip("pandas")
    X, y = _categorical_problem(0, 200)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    with pytest.raises(ValueError, match="'z' which is not a valid feature name"):
        HistGradientBoostingRegressor(categorical_features=["z"]).fit(frame, y)


@pytest.mark.parametrize("nan_in_training", [True, False])
def test_unseen_categories_go_where_missing_values_go(nan_in_training):
    X, y = _categorical_problem(2, 3000, levels=(8,), nan=0.2 if nan_in_training else 0.0)
    model = HistGradientBoostingRegressor(categorical_features=[0], max_iter=20).fit(X, y)
    rows = np.tile(X[:50], (4, 1))
    rows[:50, 0] = np.nan
    rows[50:100, 0] = 8.0  # unseen at fit
    rows[100:150, 0] = -3.0  # negative: unseen too
    rows[150:, 0] = 2.5  # not a category seen at fit
    predicted = model.predict(rows).reshape(4, 50)
    for unseen in predicted[1:]:
        np.testing.assert_array_equal(unseen, predicted[0])
    sklearn = SklearnRegressor(categorical_features=[0], max_iter=20).fit(X, y)
    for unseen in sklearn.predict(rows).reshape(4, 50)[1:]:  # scikit-learn's rule too
        np.testing.assert_array_equal(unseen, sklearn.predict(rows[:50]))


def test_string_categories_and_pandas_categories_unseen_at_fit():
    pd = pytest.importorskip("pandas")
    X, y = _categorical_problem(3, 2000, levels=(5,), nan=0.1)
    names = np.array(["red", "green", "blue", "grey", "teal"], dtype=object)
    labels = np.where(np.isnan(X[:, 0]), None, names[np.nan_to_num(X[:, 0]).astype(int)])
    frame = pd.DataFrame({"colour": pd.Categorical(labels), "x": X[:, 1]})
    model = HistGradientBoostingRegressor(max_iter=20).fit(frame, y)
    assert model.is_categorical_.tolist() == [True, False]
    codes = HistGradientBoostingRegressor(categorical_features=[0], max_iter=20)
    ordinal = pd.Series(labels).map({"blue": 0, "green": 1, "grey": 2, "red": 3, "teal": 4})
    codes.fit(np.column_stack([ordinal.to_numpy(dtype=float), X[:, 1]]), y)
    np.testing.assert_allclose(model.predict(frame), codes.predict(
        np.column_stack([ordinal.to_numpy(dtype=float), X[:, 1]])), atol=1e-12)
    unseen = pd.DataFrame({"colour": pd.Categorical(["pink", None]), "x": [0.0, 0.0]})
    assert model.predict(unseen)[0] == model.predict(unseen)[1]


def test_more_categories_than_max_bins():
    # 600 levels: scikit-learn refuses them; here each is a bin (uint16 codes), and the
    # model learns the levels' effects better than from their codes as numbers.
    rng = np.random.default_rng(0)
    n, k = 30_000, 600
    codes = rng.integers(0, k, n).astype(float)
    effect = rng.normal(size=k)
    y = effect[codes.astype(int)] + 0.2 * rng.normal(size=n)
    X = np.column_stack([codes, rng.normal(size=n)])
    X_train, X_test, y_train, y_test = X[:20_000], X[20_000:], y[:20_000], y[20_000:]
    params = dict(max_iter=60, learning_rate=0.3, early_stopping=False)
    with pytest.raises(ValueError, match="cardinality <= 255"):
        SklearnRegressor(categorical_features=[0], **params).fit(X_train, y_train)
    model = HistGradientBoostingRegressor(categorical_features=[0], **params)
    model.fit(X_train, y_train)
    assert model.trees_[0][0].categories_left.shape[1] == k
    ordinal = SklearnRegressor(**params).fit(X_train, y_train)  # the codes as numbers
    ours = mean_squared_error(y_test, model.predict(X_test))
    theirs = mean_squared_error(y_test, ordinal.predict(X_test))
    assert ours < 0.8 * theirs, (ours, theirs)


def test_too_many_categories_are_refused_by_name():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"id": np.arange(70_000.0), "x": np.zeros(70_000)})
    model = HistGradientBoostingRegressor(categorical_features=["id"])
    with pytest.raises(ValueError, match="'id' has 70,000 categories"):
        model.fit(frame, np.zeros(70_000))
    assert not hasattr(model, "_trees")


def _sklearn_left_set(model, node=0):
    """scikit-learn's first tree's left categories at ``node`` (its raw bitset)."""
    predictor = model._predictors[0][0]
    bits = predictor.raw_left_cat_bitsets[predictor.nodes[node]["bitset_idx"]]
    return {c for c in range(32 * len(bits)) if (bits[c // 32] >> (c % 32)) & 1}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_categorical_splits_agree_with_scikit_learn(seed):
    # Integer categories (12 and 40 levels, none rare), 10 % NaN.  Where the two
    # libraries differ: scikit-learn sorts the categories by G/(H + 10) and scans from
    # both ends to the middle (the left child gets the smaller half of the categories);
    # here the key is G/(H + l2) and the left side the prefix.  So the root splits the
    # same feature into the same two groups of categories (perhaps with the sides
    # swapped), its gain agrees to 1e-6 (float32 gradients there), and after 100
    # iterations the held-out losses differ by less than 5 % (measured: 1.5 % at most).
    X, y = _categorical_problem(seed, 6000, levels=(12, 40), nan=0.1, rare=False)
    X_test, y_test, X, y = X[4000:], y[4000:], X[:4000], y[:4000]
    params = dict(categorical_features=[0, 1], max_iter=1, early_stopping=False)
    ours = HistGradientBoostingRegressor(**params).fit(X, y)
    theirs = SklearnRegressor(**params).fit(X, y)
    tree, node = ours.trees_[0][0], theirs._predictors[0][0].nodes[0]
    assert tree.feature[0] == node["feature_idx"]
    assert tree.gain[0] == pytest.approx(node["gain"], rel=1e-6)
    levels = set(range(ours._n_categories()[tree.feature[0]]))
    left = set(np.flatnonzero(tree.categories_left[0]).tolist())
    if left == _sklearn_left_set(theirs):
        assert tree.missing_go_to_left[0] == node["missing_go_to_left"]
    else:
        assert levels - left == _sklearn_left_set(theirs)
        assert tree.missing_go_to_left[0] != node["missing_go_to_left"]
    params["max_iter"] = 100
    ours = HistGradientBoostingRegressor(**params).fit(X, y)
    theirs = SklearnRegressor(**params).fit(X, y)
    ours_loss = mean_squared_error(y_test, ours.predict(X_test))
    theirs_loss = mean_squared_error(y_test, theirs.predict(X_test))
    assert abs(ours_loss / theirs_loss - 1) < 0.05
    labels = y > np.median(y)  # the same, classified
    ours = HistGradientBoostingClassifier(**params).fit(X, labels)
    theirs = SklearnClassifier(**params).fit(X, labels)
    ours_loss = log_loss(y_test > np.median(y), ours.predict_proba(X_test))
    theirs_loss = log_loss(y_test > np.median(y), theirs.predict_proba(X_test))
    assert abs(ours_loss / theirs_loss - 1) < 0.05


# --- monotonic constraints -----------------------------------------------------------------


MONOTONIC_CASES = {
    "mixed": dict(cst=[1, -1, 0, 1], nan=0.0, options=dict(min_samples_leaf=5)),
    "nan": dict(cst=[-1, 1, 1, 0], nan=0.2, options=dict(min_samples_leaf=3)),
    "l2": dict(cst=[1, 1, -1, -1], nan=0.1, options=dict(l2_regularization=2.0,
                                                         max_leaf_nodes=NO_LIMIT)),
    "depth": dict(cst=[-1, -1, 0, 1], nan=0.1, options=dict(max_depth=4, min_samples_leaf=1)),
}


@pytest.mark.parametrize("constant_hessian", [True, False], ids=["h=1", "h varies"])
@pytest.mark.parametrize("case", list(MONOTONIC_CASES))
@pytest.mark.parametrize("seed", [0, 1])
def test_constrained_compiled_builder_equals_the_reference(case, seed, constant_hessian):
    spec = MONOTONIC_CASES[case]
    X, y = _problem(seed, 300, 4, spec["nan"], False)
    y = y - 2 * np.nan_to_num(X[:, 2]) + np.sin(3 * np.nan_to_num(X[:, 3]))  # against some
    data = BinnedData.from_bins(fit_bins(X, 255), X)
    # A varying Hessian: as weighted rows' (gradient and Hessian times the weight).
    weight = 1.0 if constant_hessian else np.random.default_rng(seed).uniform(0.05, 1, len(y))
    stats = Statistics.of(-(y - y.mean()) * weight, weight)
    cst = np.array(spec["cst"], dtype=np.int8)
    options = GrowOptions(**spec["options"], monotonic_cst=cst)
    fast, _ = grow_hist_tree(data, stats, options)
    slow = grow_hist_tree_reference(data, stats, options)
    for name, a, b in zip(ARRAY_NAMES, fast, slow, strict=True):
        np.testing.assert_array_equal(a, b, err_msg=name)
    assert len(fast[0]) > 3  # the case grows a tree
    free, _ = grow_hist_tree(data, stats, GrowOptions(**spec["options"]))
    assert len(free[0]) != len(fast[0]) or not np.array_equal(free[5], fast[5])  # it binds
    # Every split on a constrained feature orders its subtrees' leaf values.
    left, right, feature, value = fast[0], fast[1], fast[2], fast[5]

    def leaves(k):
        return [value[k]] if left[k] == TREE_LEAF else leaves(left[k]) + leaves(right[k])

    for k in np.flatnonzero(left != TREE_LEAF):
        c = cst[feature[k]]
        if c != 0:
            low, high = (left[k], right[k]) if c > 0 else (right[k], left[k])
            assert max(leaves(low)) <= min(leaves(high))


@pytest.mark.parametrize("cst", [[1, -1, 0, 1, 0, 0], [-1, 0, 1, 0, 0, 0]], ids=str)
@pytest.mark.parametrize("nan", [0.0, 0.1], ids=["no NaN", "10% NaN"])
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("kind", ["regression", "binary"])
def test_constrained_predictions_agree_with_scikit_learn(kind, seed, nan, cst):
    # Constraints make ties of their own (two children clipped to the same bound
    # score the same whatever the threshold); these data have none that matter.
    ours, theirs, params = KINDS[kind]
    X, y = _data(kind, nan, seed=seed)
    X_test, _ = _data(kind, nan, n=500, seed=7)
    params = dict(params, max_iter=30, early_stopping=False, max_leaf_nodes=15,
                  monotonic_cst=cst)  # fmt: skip
    a, b = ours(**params).fit(X, y), theirs(**params).fit(X, y)
    if kind == "binary":
        np.testing.assert_allclose(a.predict_proba(X_test), b.predict_proba(X_test), atol=1e-7)
    else:
        np.testing.assert_allclose(a.predict(X_test), b.predict(X_test), atol=1e-7 * np.std(y))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("estimator", [HistGradientBoostingRegressor,
                                       HistGradientBoostingClassifier])  # fmt: skip
def test_predictions_are_monotone_in_each_constrained_feature(estimator, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(400, 3))
    X[rng.random(X.shape) < 0.1] = np.nan
    x = np.nan_to_num(X)
    y = np.sin(3 * x[:, 0]) - x[:, 1] ** 2 + x[:, 2] + rng.normal(scale=0.3, size=len(x))
    if estimator is HistGradientBoostingClassifier:
        y = y > np.median(y)
    cst = [1, -1, 0]
    model = estimator(monotonic_cst=cst, max_iter=40, min_samples_leaf=5,
                      l2_regularization=0.5, early_stopping=False).fit(X, y)  # fmt: skip
    free = estimator(max_iter=40, min_samples_leaf=5, l2_regularization=0.5,
                     early_stopping=False).fit(X, y)  # fmt: skip
    grid = np.linspace(-3, 3, 101)
    for j, c in enumerate(cst):
        if c == 0:
            continue
        broken = 0
        for row in X[:20]:
            points = np.repeat(row[None], len(grid), axis=0)
            points[:, j] = grid
            steps = np.diff(model.decision_function(points) if hasattr(model, "classes_")
                            else model.predict(points))  # fmt: skip
            assert np.all(c * steps >= 0), (j, row)
            free_steps = np.diff(free.decision_function(points) if hasattr(free, "classes_")
                                 else free.predict(points))  # fmt: skip
            broken += np.any(c * free_steps < 0)
        assert broken > 0  # without the constraint the fit is not monotone there


@pytest.mark.parametrize("sign", [1, -1])
def test_a_constraint_holds_below_categorical_splits(sign):
    # Categorical splits above and beside the constrained numerical feature: every
    # row's prediction moves one way along it, and the trees do split the categories.
    X, y = _categorical_problem(3, 600)
    model = HistGradientBoostingRegressor(
        categorical_features=[0, 1], monotonic_cst=[0, 0, sign], max_iter=20,
        min_samples_leaf=5, early_stopping=False,
    ).fit(X, y)  # fmt: skip
    trees = [tree for stage in model._trees for tree in stage]
    split_sets = [tree.feature[np.isnan(tree.threshold)] for tree in trees]
    assert any(np.isin(features, [0, 1]).any() for features in split_sets)
    grid = np.linspace(-3, 3, 61)
    for row in X[:40]:
        points = np.repeat(row[None], len(grid), axis=0)
        points[:, 2] = grid
        assert np.all(sign * np.diff(model.predict(points)) >= 0), row


def _both_errors(estimator, sklearn_estimator, params, X, y):
    """The messages of our error and scikit-learn's for the same fit."""
    messages = []
    for cls in (estimator, sklearn_estimator):
        with pytest.raises(ValueError) as info:
            cls(**params).fit(X, y)
        messages.append(str(info.value))
    return messages


@pytest.mark.parametrize(
    "monotonic_cst, match",
    [
        ([1, 0], "monotonic_cst has shape"),
        ([1, 0, 2], "must be an array-like of -1, 0 or 1"),
        ({"a": 1}, "was not fitted on data with feature names"),
    ],
    ids=["length", "value", "dict without names"],
)
def test_bad_monotonic_cst_is_refused_as_scikit_learn_refuses_it(monotonic_cst, match):
    X, y = _data("regression", n=100)
    X = X[:, :3]
    ours, theirs = _both_errors(HistGradientBoostingRegressor, SklearnRegressor,
                                {"monotonic_cst": monotonic_cst}, X, y)  # fmt: skip
    assert ours == theirs
    assert re.search(match, ours)


def test_monotonic_cst_is_refused_for_multiclass_and_categorical_features():
    X, y = _data("multiclass", n=200)
    ours, theirs = _both_errors(HistGradientBoostingClassifier, SklearnClassifier,
                                {"monotonic_cst": [1, 0, 0, 0, 0, 0]}, X, y)  # fmt: skip
    assert ours == theirs == (
        "monotonic constraints are not supported for multiclass classification."
    )
    X, y = _data("regression", n=200)
    X[:, 0] = np.round(np.abs(X[:, 0]) * 3)
    params = {"monotonic_cst": [1, 0, 0, 0, 0, 0], "categorical_features": [0]}
    ours, theirs = _both_errors(HistGradientBoostingRegressor, SklearnRegressor, params, X, y)
    assert ours == theirs == "Categorical features cannot have monotonic constraints."
    params["monotonic_cst"] = [0, 1, 0, 0, 0, 0]  # a numerical feature: allowed
    HistGradientBoostingRegressor(**params, max_iter=3).fit(X, y)


@pytest.mark.parametrize("loss", ["absolute_error", "quantile"])
def test_monotonic_cst_is_refused_where_leaves_are_quantiles(loss):
    """The quantile losses replace each leaf by a quantile of its residuals after the
    tree is grown, unclipped: a constrained fit would not be monotone, so it is
    refused (scikit-learn accepts it), and the previous model stays."""
    X, y = _data("regression", n=200)
    quantile = 0.5 if loss == "quantile" else None
    model = HistGradientBoostingRegressor(loss=loss, quantile=quantile, max_iter=3)
    model.fit(X, y)
    before = model.predict(X)
    with pytest.raises(ValueError, match=f"not enforced with loss='{loss}'"):
        model.set_params(monotonic_cst=[1, 0, 0, 0, 0, 0]).fit(X, y)
    assert np.array_equal(model.predict(X), before)
    model.set_params(monotonic_cst=[0, 0, 0, 0, 0, 0]).fit(X, y)  # no constraint: fits


def test_monotonic_cst_by_feature_name_is_the_array():
    pd = pytest.importorskip("pandas")
    X, y = _data("regression", n=300)
    frame = pd.DataFrame(X[:, :3], columns=["a", "b", "c"])
    by_name = HistGradientBoostingRegressor(monotonic_cst={"a": 1, "c": -1}, max_iter=10)
    by_array = HistGradientBoostingRegressor(monotonic_cst=[1, 0, -1], max_iter=10)
    np.testing.assert_array_equal(by_name.fit(frame, y).predict(frame),
                                  by_array.fit(X[:, :3], y).predict(X[:, :3]))  # fmt: skip
    ours, theirs = _both_errors(HistGradientBoostingRegressor, SklearnRegressor,
                                {"monotonic_cst": {"a": 1, "z": 1}}, frame, y)  # fmt: skip
    assert ours == theirs == "monotonic_cst contains 1 unexpected feature names: ['z']."


def test_boosting_bound_rules_equal_the_trees_rules():
    """clip_value and children_value_bounds are the scalar (compiled) forms of the trees'
    rules 3 and 2 in climbing_trees._monotonic: clip_value_rows' first column, and
    children_bounds with the middle (value_left + value_right) / 2 (medians=True; the
    histogram boosting of scikit-learn halves the sum, its trees add the halves)."""
    from climbing_trees._hist_gradient_boosting import children_value_bounds, clip_value
    from climbing_trees._monotonic import children_bounds, clip_value_rows

    rng = np.random.default_rng(0)
    pool = np.array([-np.inf, -1.0, 0.0, 0.25, 0.5, 1.0, np.inf])
    n = 2000
    cst = rng.integers(-1, 2, n)
    lower = rng.choice(pool, n)
    upper = np.maximum(lower, rng.choice(pool, n))
    left, right = rng.normal(size=(2, n)) * 2
    expected = np.array(children_bounds(cst, lower, upper, left, right, True)).T
    got = [children_value_bounds(*args) for args in zip(cst, lower, upper, left, right,
                                                        strict=True)]  # fmt: skip
    np.testing.assert_array_equal(np.array(got), expected)
    expected = clip_value_rows(left[:, None], lower, upper, False)[:, 0]
    got = [clip_value(*args) for args in zip(left, lower, upper, strict=True)]
    np.testing.assert_array_equal(got, expected)
