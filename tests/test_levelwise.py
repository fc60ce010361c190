"""The level-wise builder grows exactly the tree of the depth-first builder."""

from __future__ import annotations

import mmap
import os

import numpy as np
import pytest
from conftest import assert_equivalent

import climbing_trees as ct
from climbing_trees._levelwise import grow_tree_levelwise


def make_problem(seed: int, criterion: str, *, weights: str, ties: bool, n_classes: int = 3):
    """Random (X, Y, w) of 2-150 rows, with optional ties, constant columns, zero weights."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 150))
    d = int(rng.integers(1, 6))
    if ties:
        X = rng.integers(0, int(rng.integers(1, 5)), size=(n, d)).astype(float)
    else:
        X = rng.normal(size=(n, d))
    if d > 1 and rng.random() < 0.3:
        X[:, int(rng.integers(d))] = 1.5  # a constant feature
    if criterion == "squared_error":
        y = rng.integers(0, 4, size=n).astype(float) if ties else rng.normal(size=n) * 10 + 3
        Y = y[:, None]
    elif criterion == "poisson":  # counts, or continuous amounts; zeros in both
        y = rng.poisson(1.0, size=n) if ties else rng.gamma(2.0, 3.0, size=n)
        y = np.where(rng.random(n) < 0.3, 0.0, y)
        y[0] = 1.0 + y[0]  # a positive target of positive weight (w[0] > 0 below)
        Y = y[:, None]
    else:
        Y = ct.one_hot(rng.integers(0, n_classes, size=n), n_classes)
    if weights == "unit":
        w = np.ones(n)
    elif weights == "float":
        w = rng.uniform(0.1, 3.0, size=n)
    else:  # some rows weigh nothing
        w = rng.uniform(0.1, 3.0, size=n) * (rng.random(n) < 0.7)
        w[0] = 1.0
    return X, Y, w


STOPPING = [
    {},
    {"max_depth": 1},
    {"max_depth": 3},
    {"min_samples_split": 7},
    {"min_samples_leaf": 3},
    {"min_samples_leaf": 5, "max_depth": 4},
    {"min_impurity_decrease": 0.01},
    {"min_samples_split": 4, "min_samples_leaf": 2, "min_impurity_decrease": 0.001},
]
CRITERIA = ["gini", "entropy", "log_loss", "squared_error", "poisson"]


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("criterion", CRITERIA)
@pytest.mark.parametrize("weights", ["unit", "float", "zeros"])
@pytest.mark.parametrize("ties", [True, False], ids=["ties", "no-ties"])
def test_same_tree_on_random_problems(seed, criterion, weights, ties):
    X, Y, w = make_problem(seed, criterion, weights=weights, ties=ties, n_classes=2 + seed % 3)
    params = STOPPING[seed % len(STOPPING)]
    slow = ct.grow_tree(X, Y, w, criterion=criterion, **params)
    fast = grow_tree_levelwise(X, Y, w, criterion=criterion, **params)
    assert_equivalent(fast, slow)


@pytest.mark.parametrize("params", STOPPING)
@pytest.mark.parametrize("criterion", CRITERIA)
def test_same_tree_under_each_stopping_rule(params, criterion):
    X, Y, w = make_problem(99, criterion, weights="float", ties=True)
    X = np.vstack([X] * 3)  # bigger nodes, so every rule has something to stop
    Y, w = np.vstack([Y] * 3), np.tile(w, 3)
    slow = ct.grow_tree(X, Y, w, criterion=criterion, **params)
    fast = grow_tree_levelwise(X, Y, w, criterion=criterion, **params)
    assert_equivalent(fast, slow)


@pytest.mark.parametrize("criterion", CRITERIA)
def test_constant_target_gives_a_single_leaf(criterion):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    regression = criterion in ("squared_error", "poisson")
    Y = np.full((30, 1), 2.5) if regression else ct.one_hot(np.ones(30, int), 2)
    fast = grow_tree_levelwise(X, Y, np.ones(30), criterion=criterion)
    assert_equivalent(fast, ct.grow_tree(X, Y, np.ones(30), criterion=criterion))
    assert fast.node_count == 1


@pytest.mark.parametrize("criterion", CRITERIA)
def test_all_features_constant_gives_a_single_leaf(criterion):
    X = np.ones((20, 2))
    Y = (
        np.arange(20.0)[:, None]
        if criterion in ("squared_error", "poisson")
        else ct.one_hot(np.arange(20) % 2, 2)
    )
    fast = grow_tree_levelwise(X, Y, np.ones(20), criterion=criterion)
    assert_equivalent(fast, ct.grow_tree(X, Y, np.ones(20), criterion=criterion))
    assert fast.node_count == 1


def test_far_from_zero_regression_target():
    """Centring per node keeps tiny within-node variances exact under a big offset."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 3))
    y = 1e6 + np.round(X[:, 0]) + 1e-4 * rng.normal(size=300)
    slow = ct.grow_tree(X, y[:, None], np.ones(300), criterion="squared_error", max_depth=6)
    fast = grow_tree_levelwise(X, y[:, None], np.ones(300), criterion="squared_error", max_depth=6)
    assert_equivalent(fast, slow)


@pytest.mark.parametrize("seed", range(8))
def test_an_output_constant_near_1e150_adds_nothing(seed):
    """A constant output has impurity 0 at every node, even near the largest accepted |y|:
    the tree of ``[c, y]`` is the tree of ``y``, with half its impurities, in both builders
    and through the estimator."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(10, 80))
    X = rng.normal(size=(n, 3))
    y = np.round(rng.normal(size=n), 1)
    constant = rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 1.0) * 1e150
    Y = np.column_stack([np.full(n, constant), y])[:, :: 1 if seed % 2 else -1]
    w = np.ones(n) if seed % 3 == 0 else rng.uniform(0.1, 3.0, size=n)
    alone = ct.grow_tree(X, y[:, None], w, criterion="squared_error", max_depth=4)
    criterion = ct.output_criterion("squared_error", (1, 1))
    slow = ct.grow_tree(X, Y, w, criterion=criterion, max_depth=4)
    fast = grow_tree_levelwise(X, Y, w, criterion=criterion, max_depth=4)
    model = ct.DecisionTreeRegressor(max_depth=4).fit(X, Y, sample_weight=w)
    for tree in (slow, fast, model.tree_):
        np.testing.assert_array_equal(tree.children_left, alone.children_left)
        np.testing.assert_array_equal(tree.feature, alone.feature)
        np.testing.assert_array_equal(tree.threshold, alone.threshold)
        np.testing.assert_array_equal(tree.impurity, alone.impurity / 2)
        np.testing.assert_array_equal(tree.value[:, 1 if seed % 2 else 0], alone.value[:, 0])
    assert_equivalent(fast, slow)
    assert_equivalent(model.tree_, slow)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("max_depth", [None, 3])
def test_same_tree_on_breast_cancer(breast_cancer, criterion, max_depth):
    X, y = breast_cancer
    Y, w = ct.one_hot(y, 2), np.ones(len(y))
    slow = ct.grow_tree(X, Y, w, criterion=criterion, max_depth=max_depth)
    fast = grow_tree_levelwise(X, Y, w, criterion=criterion, max_depth=max_depth)
    assert_equivalent(fast, slow)


@pytest.mark.parametrize("params", [{"max_depth": 8}, {"min_samples_leaf": 5}])
@pytest.mark.parametrize("weighted", [False, True])
def test_same_tree_on_diabetes(diabetes, params, weighted):
    X, y = diabetes
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(y)) if weighted else np.ones(len(y))
    slow = ct.grow_tree(X, y[:, None], w, criterion="squared_error", **params)
    fast = grow_tree_levelwise(X, y[:, None], w, criterion="squared_error", **params)
    assert_equivalent(fast, slow)


@pytest.mark.parametrize(
    "params", [{}, {"max_depth": 4}, {"min_samples_leaf": 3, "min_impurity_decrease": 1e-3}]
)
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_classifier_fits_the_depth_first_tree(breast_cancer, params, criterion):
    X, y = breast_cancer
    model = ct.DecisionTreeClassifier(criterion=criterion, **params).fit(X, y)
    slow = ct.grow_tree(X, ct.one_hot(y, 2), np.ones(len(y)), criterion=criterion, **params)
    assert_equivalent(model.tree_, slow)
    expected = model.classes_[np.argmax(slow.predict(X), axis=1)]
    np.testing.assert_array_equal(model.predict(X), expected)
    np.testing.assert_array_equal(model.predict_proba(X), model.tree_.predict(X))


@pytest.mark.parametrize("params", [{}, {"max_depth": 8}, {"min_samples_leaf": 16}])
@pytest.mark.parametrize("weighted", [False, True])
def test_regressor_fits_the_depth_first_tree(diabetes, params, weighted):
    X, y = diabetes
    w = np.random.default_rng(7).uniform(0.5, 2.0, len(y)) if weighted else None
    model = ct.DecisionTreeRegressor(**params).fit(X, y, sample_weight=w)
    w_ref = np.ones(len(y)) if w is None else w
    slow = ct.grow_tree(X, y[:, None], w_ref, criterion="squared_error", **params)
    assert_equivalent(model.tree_, slow)
    np.testing.assert_allclose(model.predict(X), slow.predict(X)[:, 0], rtol=1e-12)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("max_depth", [None, 2, 6])
def test_apply_flat_equals_apply(seed, max_depth):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(400, 3))
    y = np.sin(2 * X[:, 0]) + X[:, 1] + 0.3 * rng.normal(size=400)
    tree = grow_tree_levelwise(
        X, y[:, None], np.ones(400), criterion="squared_error", max_depth=max_depth
    )
    X_new = np.vstack([rng.normal(size=(3000, 3)), X])  # new rows and training rows
    np.testing.assert_array_equal(tree.apply_flat(X_new), tree.apply(X_new))
    np.testing.assert_array_equal(tree.predict(X_new), tree.value[tree.apply(X_new), 0, :])


def test_apply_flat_on_a_lone_leaf_and_no_rows():
    tree = grow_tree_levelwise(
        np.ones((5, 2)), np.ones((5, 1)), np.ones(5), criterion="squared_error"
    )
    assert tree.apply_flat(np.zeros((3, 2))).tolist() == [0, 0, 0]
    assert tree.apply_flat(np.zeros((0, 2))).shape == (0,)


@pytest.mark.parametrize("seed", range(4))
def test_apply_flat_follows_categorical_splits(seed):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 6, size=300)
    X = np.column_stack([codes, rng.normal(size=300)]).astype(float)
    y = rng.normal(size=6)[codes] + X[:, 1]
    tree = ct.grow_tree(
        X,
        y[:, None],
        np.ones(300),
        criterion="squared_error",
        is_categorical=np.array([True, False]),
    )
    assert np.isnan(tree.threshold).any()
    X_new = np.column_stack([rng.integers(-1, 8, size=2000), rng.normal(size=2000)])
    X_new = X_new.astype(float)  # codes -1, 6 and 7 were never seen at fit
    np.testing.assert_array_equal(tree.apply_flat(X_new), tree.apply(X_new))


def make_mixed_problem(seed: int, criterion: str, *, weights: str):
    """Numerical and categorical columns (2-8 levels), categorical ones anywhere."""
    rng = np.random.default_rng(seed)
    X, Y, w = make_problem(
        seed, criterion, weights=weights, ties=bool(seed % 2), n_classes=2 + seed % 3
    )
    n = len(X)
    n_levels = rng.integers(2, 9, size=int(rng.integers(1, 3)))
    columns = [rng.integers(0, k, size=n).astype(float) for k in n_levels]
    X = np.column_stack([X, *columns])
    is_categorical = np.r_[np.zeros(X.shape[1] - len(columns), bool), np.ones(len(columns), bool)]
    perm = rng.permutation(X.shape[1])
    n_categories = np.r_[np.zeros(X.shape[1] - len(columns), int), n_levels][perm]
    return X[:, perm], Y, w, is_categorical[perm], n_categories


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("criterion", ["gini", "entropy", "squared_error", "poisson"])
@pytest.mark.parametrize("weights", ["unit", "zeros"])
@pytest.mark.parametrize("method", ["auto", "one_vs_rest", "partition"])
def test_same_tree_with_categorical_features(seed, criterion, weights, method):
    X, Y, w, is_categorical, n_categories = make_mixed_problem(seed, criterion, weights=weights)
    params = {
        "criterion": criterion,
        "is_categorical": is_categorical,
        "n_categories": n_categories if seed % 3 else None,
        "categorical_split": method,
        **STOPPING[seed % len(STOPPING)],
    }
    slow = ct.grow_tree(X, Y, w, **params)
    fast = grow_tree_levelwise(X, Y, w, **params)
    assert_equivalent(fast, slow)


def test_only_categorical_features_and_unseen_levels():
    rng = np.random.default_rng(11)
    X = rng.integers(0, 12, size=(500, 2)).astype(float)
    y = rng.normal(size=12)[X[:, 0].astype(int)] + 0.1 * rng.normal(size=500)
    params = {"criterion": "squared_error", "is_categorical": np.array([True, True])}
    slow = ct.grow_tree(X, y[:, None], np.ones(500), **params)
    fast = grow_tree_levelwise(X, y[:, None], np.ones(500), **params)
    assert_equivalent(fast, slow)
    assert np.isnan(fast.threshold[0])
    X_new = np.array([[-1.0, 3.0], [20.0, 0.0], [5.0, -1.0]])  # codes unseen at fit
    np.testing.assert_array_equal(fast.apply_flat(X_new), slow.apply(X_new))


@pytest.mark.parametrize("method", ["auto", "one_vs_rest", "partition"])
def test_estimator_with_a_categorical_column_fits_the_depth_first_tree(method):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(5)
    frame = pd.DataFrame(
        {
            "x": rng.normal(size=300),
            "colour": rng.choice(["red", "green", "blue", "grey", "pink"], size=300),
        }
    )
    y = rng.choice(["a", "b", "c"], size=300)
    model = ct.DecisionTreeClassifier(max_depth=5, categorical_split=method).fit(frame, y)
    X = np.column_stack([frame["x"], np.unique(frame["colour"], return_inverse=True)[1]])
    slow = ct.grow_tree(
        X,
        ct.one_hot(np.unique(y, return_inverse=True)[1], 3),
        np.ones(300),
        criterion="gini",
        max_depth=5,
        is_categorical=model.is_categorical_,
        n_categories=np.array([0, 5]),
        categorical_split=method,
    )
    assert_equivalent(model.tree_, slow)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("criterion", CRITERIA)
def test_same_tree_when_features_are_processed_in_chunks(monkeypatch, seed, criterion):
    from climbing_trees._levelwise import _orders

    monkeypatch.setattr(_orders, "_CHUNK_CELLS", 40)  # a few features per chunk
    X, Y, w = make_problem(seed, criterion, weights=["unit", "zeros"][seed % 2], ties=seed < 4)
    X = np.column_stack([X, X[:, ::-1], -X])  # more features, some duplicated
    slow = ct.grow_tree(X, Y, w, criterion=criterion, min_samples_leaf=1 + seed % 3)
    fast = grow_tree_levelwise(X, Y, w, criterion=criterion, min_samples_leaf=1 + seed % 3)
    assert_equivalent(fast, slow)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("criterion", CRITERIA)
def test_same_tree_with_missing_values_in_small_chunks(monkeypatch, seed, criterion):
    """Features and positions in pieces of a few cells: the prefix sums carried from
    piece to piece, the missing rows' sums and the tie rule give the same tree."""
    from climbing_trees._levelwise import _orders

    monkeypatch.setattr(_orders, "_CHUNK_CELLS", 24 + 16 * (seed % 3))
    X, Y, w = make_problem(seed, criterion, weights=["unit", "zeros"][seed % 2], ties=seed < 3)
    X = np.column_stack([X, X[:, ::-1]])
    X[np.random.default_rng(seed).random(X.shape) < 0.2] = np.nan
    # min_samples_leaf up to 4 (more than the missing rows of some nodes) and,
    # for the last seeds, a weight every leaf keeps too.
    params = {"criterion": criterion, "min_samples_leaf": 1 + seed % 4}
    params["min_weight_leaf"] = 0.03 * w.sum() if seed >= 4 else 0.0
    slow = ct.grow_tree(X, Y, w, **params)
    fast = grow_tree_levelwise(X, Y, w, **params)
    assert_equivalent(fast, slow)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("categorical", [False, True])
def test_same_tree_with_ten_classes(criterion, categorical):
    """Ten classes: numpy sums 8 or more numbers pairwise, the builders must agree."""
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    w = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    is_categorical = np.isin(np.arange(64), [10, 20, 30]) if categorical else None
    params = {"criterion": criterion, "max_depth": 6, "is_categorical": is_categorical}
    slow = ct.grow_tree(X, ct.one_hot(y, 10), w, **params)
    fast = grow_tree_levelwise(X, ct.one_hot(y, 10), w, **params)
    assert_equivalent(fast, slow)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n_values", [1, 3, 50, None])
@pytest.mark.parametrize("with_nan", [False, True])
def test_presort_is_a_stable_argsort(seed, n_values, with_nan):
    from climbing_trees._levelwise._orders import _presort_runs

    rng = np.random.default_rng(seed)
    shape = (4, int(rng.integers(1, 400)))
    if n_values is None:
        Xt = rng.normal(size=shape)
    else:
        Xt = rng.integers(0, n_values, size=shape).astype(float)
    Xt[0, ::3] = -Xt[0, ::3] * 0.0  # -0.0 and 0.0 compare equal: a tie
    if with_nan:  # missing values sort last, in row order, and are not ties
        Xt[1:, rng.random(shape[1]) < 0.3] = np.nan
    order, tie_share = _presort_runs(Xt)
    np.testing.assert_array_equal(order, np.argsort(Xt, axis=1, kind="stable"))
    present = [r[~np.isnan(r)] for r in Xt]
    np.testing.assert_array_equal(tie_share > 0, [len(np.unique(r)) < len(r) for r in present])


def test_poisson_side_whose_sum_rounds_to_zero_is_skipped_by_both_builders():
    """A target of 7.5e-131 among targets up to 667 vanishes from S - S_left: such a
    candidate scores NaN, and neither builder may let it stop the search (found by
    hypothesis in tests/test_properties.py)."""
    rng = np.random.default_rng(0)
    y = np.array(
        [0, 1.75, 7, 667, 500, 0.99999, 1, 2**-7, 2**-6, 7.52781209e-131, 2**-5, 2**-4]
        + [2**-3, 2.5, 6, 5, 4, 3, 8, 0.25, 1.5, 1.625, 1.22211326, 1.22321071, 2, 0.5]
    )
    X = rng.normal(size=(len(y), 3))
    X[:, 1] = np.arange(len(y))[::-1]  # feature 1 scans the rows from the last
    slow = ct.grow_tree(X, y[:, None], np.ones(len(y)), criterion="poisson")
    fast = grow_tree_levelwise(X, y[:, None], np.ones(len(y)), criterion="poisson")
    assert_equivalent(fast, slow)
    assert slow.node_count > 1


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("weights", ["unit", "float", "zeros"])
@pytest.mark.parametrize("ties", [True, False], ids=["ties", "no-ties"])
def test_same_tree_with_absolute_error(seed, weights, ties):
    """Medians through the wavelet matrix: missing values, two outputs, max_features."""
    X, Y, w = make_problem(seed, "squared_error", weights=weights, ties=ties)
    rng = np.random.default_rng(seed)
    if seed % 3 == 0:
        X[rng.random(X.shape) < 0.2] = np.nan
    if seed % 4 == 1:
        Y = np.hstack([Y, rng.standard_t(2, size=(len(Y), 1))])
    criterion = ct.output_criterion("absolute_error", [1] * Y.shape[1])
    params = STOPPING[seed % len(STOPPING)]
    if seed % 5 == 2:
        params = {**params, "random_splits": ct.RandomSplits(1, "best", seed)}
    slow = ct.grow_tree(X, Y, w, criterion=criterion, **params)
    fast = grow_tree_levelwise(X, Y, w, criterion=criterion, **params)
    assert_equivalent(fast, slow)


def test_absolute_error_estimator_grows_without_grow_tree(diabetes, monkeypatch):
    """The estimator grows absolute-error trees with a fast builder (the compiled one,
    see tests/test_builder_choice.py): the depth-first tree, without grow_tree."""
    X, y = diabetes
    model = ct.DecisionTreeRegressor(criterion="absolute_error", max_depth=5)
    model.fit(X, y)
    slow = ct.grow_tree(X, y[:, None], np.ones(len(y)), criterion="absolute_error", max_depth=5)
    assert_equivalent(model.tree_, slow)
    import climbing_trees._growth as growth

    # The depth-first builder is not called (builder_for reads it from _growth).
    monkeypatch.setattr(growth, "grow_tree", None)
    ct.DecisionTreeRegressor(criterion="absolute_error", max_depth=2).fit(X, y)


@pytest.mark.parametrize("seed", range(60))
def test_absolute_error_medians_with_decimal_weights_agree(seed):
    """Each node's weighted median from its own running weights: an exact half
    reached by decimal weights (0.1 + 0.2 ...) is found by both builders."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 40))
    X = rng.integers(0, 4, size=(n, 2)).astype(float)
    Y = rng.integers(0, 4, size=(n, 1)).astype(float)
    w = rng.choice([0.1, 0.2, 0.3, 0.5, 1.0], size=n)
    slow = ct.grow_tree(X, Y, w, criterion="absolute_error", max_depth=3)
    fast = ct.grow_tree_levelwise(X, Y, w, criterion="absolute_error", max_depth=3)
    np.testing.assert_array_equal(fast.value, slow.value)
    assert_equivalent(fast, slow)


def test_a_median_at_an_exact_half_takes_the_next_row_of_positive_weight():
    """A weight absorbed by rounding (1e-17 after 1.0) keeps the running weight at
    half: the median is still the midpoint with the next row of positive weight,
    in every builder, as weighted_median says (y = 0, 1, 2; w = 1, 1e-17, 1)."""
    y, w = np.array([0.0, 1.0, 2.0]), np.array([1.0, 1e-17, 1.0])
    assert ct.weighted_median(y, w) == 0.5
    X, Y = np.zeros((3, 1)), y.reshape(-1, 1)
    for grow in (ct.grow_tree, ct.grow_tree_levelwise, ct.grow_tree_compiled):
        tree = grow(X, Y, w, criterion="absolute_error")
        assert tree.value[0, 0, 0] == 0.5, grow.__name__


@pytest.mark.parametrize("seed", range(6))
def test_absolute_error_medians_with_absorbed_weights_agree(seed):
    """Weights 1e-200 and 1e200 (their ratio beyond 2**53: the small ones are
    absorbed in every running sum): the leaf medians of the level-wise and the
    compiled builders are grow_tree's."""
    rng = np.random.default_rng(seed)
    n = 300
    X = rng.integers(0, 6, size=(n, 2)).astype(float)
    Y = rng.integers(0, 4, size=(n, 1)).astype(float)
    w = rng.choice([1e-200, 1e200], size=n)
    slow = ct.grow_tree(X, Y, w, criterion="absolute_error", max_depth=4)
    for grow in (ct.grow_tree_levelwise, ct.grow_tree_compiled):
        fast = grow(X, Y, w, criterion="absolute_error", max_depth=4)
        np.testing.assert_array_equal(fast.value, slow.value, err_msg=grow.__name__)
        assert_equivalent(fast, slow)


@pytest.mark.parametrize("chunk", [None, 40])
@pytest.mark.parametrize("criterion", ["gini", "squared_error"])
@pytest.mark.parametrize("seed", range(4))
def test_few_ties_at_the_best_position_are_refused(monkeypatch, chunk, criterion, seed):
    """A feature with a few ties (checked at the chosen positions only, not before)
    whose best position falls between two equal values: the position is refused
    and the group chooses again, as grow_tree does."""
    from climbing_trees._levelwise import _orders

    if chunk is not None:
        monkeypatch.setattr(_orders, "_CHUNK_CELLS", chunk)
    rng = np.random.default_rng(seed)
    n = 200
    x = rng.permutation(n).astype(float)
    cut = n // 2 + int(rng.integers(-20, 20))
    step = (x >= cut).astype(float)
    x[x == cut] = cut - 1  # the step of y now falls between two equal values
    noise = rng.normal(size=n)
    X = np.column_stack([x, noise])
    _, tie_share = _orders._presort_runs(np.ascontiguousarray(X.T))
    assert 0 < tie_share[0] <= _orders._FEW_TIES
    if criterion == "gini":
        Y = ct.one_hot(step.astype(int), 2)
    else:
        Y = (step + 0.01 * noise)[:, None]
    w = np.ones(n)
    slow = ct.grow_tree(X, Y, w, criterion=criterion, max_depth=3)
    fast = grow_tree_levelwise(X, Y, w, criterion=criterion, max_depth=3)
    assert_equivalent(fast, slow)
    assert slow.feature[0] == 0 and slow.threshold[0] != cut - 1  # not between the tie


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("criterion", ["gini", "squared_error"])
def test_same_tree_with_drawn_features_in_small_chunks(monkeypatch, seed, criterion):
    """Random feature subsets (max_features) searched a few slots at a time: the
    padding slots of nodes that drew fewer features are refused in every chunk."""
    from climbing_trees._levelwise import _orders
    from climbing_trees._random import RandomSplits

    monkeypatch.setattr(_orders, "_CHUNK_CELLS", 24 + 20 * (seed % 3))
    X, Y, w = make_problem(seed, criterion, weights=["unit", "zeros"][seed % 2], ties=seed < 3)
    X = np.column_stack([X, X[:, ::-1], -X])
    if seed % 2:
        X[np.random.default_rng(seed).random(X.shape) < 0.1] = np.nan
    params = {"criterion": criterion, "min_samples_leaf": 1 + seed % 2}
    spec = RandomSplits(2 + seed % 3, "best", 500 + seed)
    slow = ct.grow_tree(X, Y, w, **params, random_splits=spec)
    fast = grow_tree_levelwise(X, Y, w, **params, random_splits=spec)
    assert_equivalent(fast, slow)


@pytest.mark.parametrize("seed", range(4))
def test_node_buffers_as_memory_maps_give_the_same_tree(monkeypatch, seed):
    """Every node buffer a memory map (as for big trees): the same arrays."""
    from climbing_trees._levelwise import _nodes

    monkeypatch.setattr(_nodes, "_LAZY_BYTES", 0)
    owner = _nodes._lazy_empty(3, float)
    while isinstance(owner, np.ndarray):
        owner = owner.base
    assert isinstance(owner, memoryview) and isinstance(owner.obj, mmap.mmap)
    X, Y, w = make_problem(seed, "squared_error", weights="unit", ties=seed < 2)
    slow = ct.grow_tree(X, Y, w, criterion="squared_error")
    fast = grow_tree_levelwise(X, Y, w, criterion="squared_error")
    assert_equivalent(fast, slow)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_cannot_change_the_parents_tree(monkeypatch):
    """The node buffers are private maps: a child process that writes into the
    tree it inherited changes its own copy only."""
    from climbing_trees._levelwise import _nodes

    monkeypatch.setattr(_nodes, "_LAZY_BYTES", 0)
    X, Y, w = make_problem(0, "squared_error", weights="unit", ties=False)
    tree = grow_tree_levelwise(X, Y, w, criterion="squared_error")
    before = tree.threshold.copy()
    pid = os.fork()
    if pid == 0:  # the child: write into the inherited tree, then leave at once
        tree.threshold[:] = 12345.0
        os._exit(0)
    os.waitpid(pid, 0)
    np.testing.assert_array_equal(tree.threshold, before)


@pytest.mark.parametrize("seed", range(3))
def test_node_buffers_grow_when_the_system_refuses_the_largest_tree(monkeypatch, seed):
    """Room for the largest tree refused (a huge fit): small buffers that double as
    the levels come, and the same tree."""
    from climbing_trees._levelwise import _nodes

    real, calls = _nodes._node_buffers, []

    def refuse_first(capacity, n_values):
        calls.append(capacity)
        if len(calls) == 1:
            raise OSError("Cannot allocate memory")
        return real(capacity, n_values)

    monkeypatch.setattr(_nodes, "_node_buffers", refuse_first)
    monkeypatch.setattr(_nodes, "_FALLBACK_CAPACITY", 2)
    X, Y, w = make_problem(seed, "gini", weights="unit", ties=seed < 2)
    slow = ct.grow_tree(X, Y, w, criterion="gini")
    fast = grow_tree_levelwise(X, Y, w, criterion="gini")
    assert calls[1] == 2 and fast.node_count > 4  # it grew
    assert_equivalent(fast, slow)


def test_runs_tried_and_given_up_give_the_same_tree(monkeypatch):
    """Most rows share one value (so runs are tried), the others are distinct:
    once the shared value is split off, most positions end a run and the search
    scans the rows instead, with the same tree."""
    from climbing_trees._levelwise import _prefix

    results = []
    real = _prefix._run_gains

    def spy(*args):
        results.append(real(*args))
        return results[-1]

    monkeypatch.setattr(_prefix, "_run_gains", spy)
    rng = np.random.default_rng(0)
    n = 400
    X = np.where(np.arange(n)[:, None] < 3 * n // 5, 0.0, rng.uniform(1, 2, size=(n, 3)))
    X = X[rng.permutation(n)]
    y = np.where(X[:, 0] == 0, 2, (X[:, 0] > 1.5) ^ (X[:, 1] > 1.5))
    Y, w = ct.one_hot(y, 3), np.ones(n)
    slow = ct.grow_tree(X, Y, w, criterion="gini")
    fast = grow_tree_levelwise(X, Y, w, criterion="gini")
    assert any(r is None for r in results) and any(r is not None for r in results)
    assert_equivalent(fast, slow)


LAYOUTS = {
    "C": np.ascontiguousarray,
    "Fortran": np.asfortranarray,
    "strided": lambda X: np.repeat(X, 2, axis=1)[:, ::2],  # neither: copied once
    "int": lambda X: X,  # see below: integer-valued columns as int64
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("criterion", ["gini", "squared_error"])
def test_same_tree_whatever_the_layout_of_x(monkeypatch, layout, seed, criterion):
    """X read in place (C or Fortran order) or copied once (other layouts and types)
    gives grow_tree's tree: the search's reads, the partition's and the random draws'."""
    from climbing_trees._levelwise import _orders
    from climbing_trees._random import RandomSplits

    monkeypatch.setattr(_orders, "_CHUNK_CELLS", 24 + 16 * (seed % 3))
    X, Y, w = make_problem(seed, criterion, weights=["unit", "zeros"][seed % 2], ties=True)
    X = np.column_stack([X, X[:, ::-1] * 2, np.arange(len(X)) % 3])
    if layout != "int" and seed % 2:
        X[np.random.default_rng(seed).random(X.shape) < 0.15] = np.nan
    params = {"criterion": criterion, "min_samples_leaf": 1 + seed % 2}
    if seed >= 4:  # the random draws read X too
        params["random_splits"] = RandomSplits(2, "best", 700 + seed)
    slow = ct.grow_tree(X, Y, w, **params)
    X_layout = X.astype(np.int64) if layout == "int" else LAYOUTS[layout](X)
    fast = grow_tree_levelwise(X_layout, Y, w, **params)
    assert_equivalent(fast, slow)


def test_x_is_read_in_place_in_c_and_fortran_order():
    from climbing_trees._levelwise._orders import _in_place

    X = np.random.default_rng(0).normal(size=(7, 3))
    for array in (X, np.asfortranarray(X)):
        same, flat, row_step, column_step = _in_place(array)
        assert same is array and np.shares_memory(flat, array)
        np.testing.assert_array_equal(
            flat[np.arange(7)[:, None] * row_step + np.arange(3) * column_step], X
        )
    for other in (X[:, ::2], X.astype(np.float32)):  # copied once, to C order
        copy, flat, row_step, column_step = _in_place(other)
        assert copy.flags.c_contiguous and (row_step, column_step) == (copy.shape[1], 1)
        np.testing.assert_array_equal(copy, other)


def test_estimator_on_a_dataframe_fits_the_array_tree(monkeypatch):
    """A DataFrame of float columns reaches the builder in Fortran order, uncopied
    (the compiled builder, which the estimator picks here, reads X as this one does)."""
    import pandas as pd

    from climbing_trees._compiled import _grow
    from climbing_trees._levelwise import _state

    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 5))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = np.nan_to_num(X[:, 0]) + rng.normal(size=300)
    frame = pd.DataFrame({f"x{j}": X[:, j] for j in range(5)})
    assert np.asarray(frame).flags.f_contiguous
    read = []  # the X the builder reads: the frame's own block, not a copy
    in_place = _state._in_place

    def spy(X):
        read.append(in_place(X))
        return read[-1]

    monkeypatch.setattr(_state, "_in_place", spy)
    monkeypatch.setattr(_grow, "_in_place", spy)
    from_frame = ct.DecisionTreeRegressor(random_state=0).fit(frame, y)
    assert read[0][0].flags.f_contiguous and read[0][2:] == (1, 300)
    assert np.shares_memory(read[0][0], frame["x0"].to_numpy())
    from_array = ct.DecisionTreeRegressor(random_state=0).fit(X, y)
    assert_equivalent(from_frame.tree_, from_array.tree_)


def test_a_split_that_routes_every_row_one_way_raises_instead_of_looping(monkeypatch):
    """Routing that disagreed with the search would grow the same node forever."""
    from climbing_trees._levelwise import _orders

    partition = _orders._partition

    def all_left(rows, kept_rows, kept_node, go_left, sizes, split):
        return partition(rows, kept_rows, kept_node, np.ones_like(go_left), sizes, split)

    monkeypatch.setattr(_orders, "_partition", all_left)
    X, Y, w = make_problem(0, "gini", weights="unit", ties=False)
    with pytest.raises(RuntimeError, match="routed every row of a node to one side"):
        grow_tree_levelwise(X, Y, w, criterion="gini")


@pytest.mark.parametrize("X", [np.zeros((0, 3)), np.zeros(0)], ids=["2-D", "1-D"])
@pytest.mark.parametrize("builder", [ct.grow_tree, grow_tree_levelwise])
def test_both_builders_refuse_an_x_without_rows(builder, X):
    with pytest.raises(ValueError, match="X has no rows to grow a tree from"):
        builder(X, np.zeros((0, 1)), np.zeros(0), criterion="squared_error")
