"""Monotonic constraints in the fast builders: the level-wise and the compiled one.

Each builder is called directly (not through the estimators, which choose one
with ``builder_for``) and compared with ``grow_tree``, the oracle, array by
array; then with scikit-learn's trees on tie-free data; and its predictions are
checked monotone along a grid.  The compiled ports of the rules are pinned
equal to the rules of :mod:`climbing_trees._monotonic`.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_equivalent
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn import tree as sk

import climbing_trees as ct
from climbing_trees._compiled import _rules
from climbing_trees._monotonic import (
    allowed_splits,
    child_bounds,
    children_bounds,
    clip_value_rows,
    clip_values,
)
from climbing_trees._pruning import best_first_subtree, prune
from climbing_trees._random import RandomSplits

BUILDERS = {"levelwise": ct.grow_tree_levelwise, "compiled": ct.grow_tree_compiled}
CONSTRAINTS = [[1, -1, 0, 1], [-1, 0, 1, 1], [0, 1, 0, 0], [-1, -1, -1, -1]]
CRITERIA = ["squared_error", "poisson", "gini", "entropy"]
OPTIONS = [
    {},
    {"min_samples_leaf": 5},
    {"max_depth": 4},
    {"min_samples_leaf": 3, "max_depth": 6, "min_impurity_decrease": 1e-3},
    {"min_samples_split": 12, "min_weight_leaf": 4.0},
]


def problem(seed: int, criterion: str, *, n: int = 300, missing=False, weighted=False):
    """Noisy, tie-free data rising with features 0 and 3, falling with 1 (2: a wave);
    the builders' ``Y`` (one-hot for classification) and weights."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, 4))
    y = 3 * X[:, 0] - 2 * X[:, 1] + np.sin(6 * X[:, 2]) + X[:, 3] + rng.normal(size=n) * 0.7
    if missing:
        X[rng.random(X.shape) < 0.1] = np.nan
    if criterion in ("gini", "entropy"):
        Y = np.eye(2)[(y > np.median(y)).astype(int)]
    elif criterion == "poisson":
        Y = np.exp(y / 3)[:, None]
    else:
        Y = y[:, None]
    w = rng.uniform(0.5, 2.0, n) if weighted else np.ones(n)
    return X, Y, w


def assert_grows_grow_tree_s_tree(builder, X, Y, w, **options):
    """The builder's constrained tree equals grow_tree's (array by array)."""
    slow = ct.grow_tree(X, Y, w, **options)
    fast = BUILDERS[builder](X, Y, w, **options)
    assert_equivalent(fast, slow)
    return fast


@pytest.mark.parametrize("builder", list(BUILDERS))
@pytest.mark.parametrize("criterion", CRITERIA)
@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize("seed", range(4))
def test_builders_grow_grow_tree_s_tree(builder, criterion, options, seed):
    X, Y, w = problem(seed, criterion, missing=seed % 2 == 1, weighted=seed >= 2)
    cst = np.array(CONSTRAINTS[seed])
    assert_grows_grow_tree_s_tree(builder, X, Y, w, criterion=criterion, monotonic_cst=cst,
                                  **options)  # fmt: skip


@pytest.mark.parametrize("builder", list(BUILDERS))
@pytest.mark.parametrize("criterion", ["squared_error", "gini"])
@pytest.mark.parametrize("splitter", ["best", "random"])
@pytest.mark.parametrize("max_features", [2, 4])
@pytest.mark.parametrize("seed", range(3))
def test_random_splits_grow_grow_tree_s_tree(builder, criterion, splitter, max_features, seed):
    """Drawn features and drawn thresholds (scikit-learn's random splitter checks the
    drawn threshold against the constraint too)."""
    X, Y, w = problem(seed, criterion, missing=seed == 1, weighted=seed == 2)
    spec = RandomSplits(max_features=max_features, splitter=splitter, key=seed + 11)
    assert_grows_grow_tree_s_tree(
        builder, X, Y, w, criterion=criterion, monotonic_cst=np.array(CONSTRAINTS[seed]),
        random_splits=spec, min_samples_leaf=2,
    )  # fmt: skip


@pytest.mark.parametrize("criterion", ["squared_error", "gini"])
@pytest.mark.parametrize("seed", range(3))
def test_levelwise_with_categorical_features_and_max_leaf_nodes(criterion, seed):
    """Unconstrained categorical features pass the bounds on; with max_leaf_nodes the
    level-wise tree, cut back, is grow_tree's cut back."""
    X, Y, w = problem(seed, criterion)
    X[:, 2] = np.floor(X[:, 2] * 6)  # six levels
    categorical = np.array([False, False, True, False])
    options = dict(criterion=criterion, monotonic_cst=np.array([1, -1, 0, 1]),
                   is_categorical=categorical, n_categories=np.array([0, 0, 6, 0]))  # fmt: skip
    assert_grows_grow_tree_s_tree("levelwise", X, Y, w, **options)
    slow = ct.grow_tree(X, Y, w, **options)
    fast = ct.grow_tree_levelwise(X, Y, w, max_leaf_nodes=9, **options)
    assert_equivalent(
        prune(fast, best_first_subtree(fast, 9)), prune(slow, best_first_subtree(slow, 9))
    )


@pytest.mark.parametrize("builder", list(BUILDERS))
def test_the_constraints_change_the_builders_trees(builder):
    """Not a no-op: unconstrained, these trees differ, and some value is clipped."""
    X, Y, w = problem(0, "squared_error")
    cst = np.array([1, -1, 0, 1])
    held = BUILDERS[builder](X, Y, w, criterion="squared_error", monotonic_cst=cst)
    free = BUILDERS[builder](X, Y, w, criterion="squared_error")
    assert held.node_count != free.node_count or not np.array_equal(held.value, free.value)
    leaves = held.apply_flat(X)
    raw = np.array([Y[leaves == leaf, 0].mean() for leaf in np.unique(leaves)])
    assert np.any(np.abs(raw - held.value[np.unique(leaves), 0, 0]) > 1e-9)


def float32_problem(seed: int, classifier: bool, n: int = 400):
    """As ``problem``, in float32 numbers (scikit-learn's thresholds are then ours)."""
    X, Y, _ = problem(seed, "gini" if classifier else "squared_error", n=n)
    return X.astype(np.float32).astype(float), Y


def sklearn_tree(estimator_cls, X, y, **params):
    """scikit-learn's tree, skipping the case where it depends on the seed: two features
    that split a node's rows alike (gain ties; scikit-learn visits the features in a
    random order and keeps the first best)."""
    trees = [estimator_cls(random_state=seed, **params).fit(X, y).tree_ for seed in range(8)]
    for name in ("feature", "threshold"):
        if any(not np.array_equal(getattr(trees[0], name), getattr(t, name)) for t in trees):
            pytest.skip("scikit-learn's tree depends on random_state here (gain ties)")
    return trees[0]


SKLEARN_CASES = [
    (False, {"min_samples_leaf": 5}),
    (False, {"max_depth": 4}),
    (False, {"min_samples_leaf": 3, "max_depth": 8}),
    (True, {"max_depth": 3}),
    (True, {"max_depth": 5, "min_samples_leaf": 10}),
    (True, {"min_samples_leaf": 12}),
]


@pytest.mark.parametrize("builder", list(BUILDERS))
@pytest.mark.parametrize(("classifier", "options"), SKLEARN_CASES, ids=str)
@pytest.mark.parametrize("seed", range(4))
def test_builders_grow_scikit_learns_tree(builder, classifier, options, seed):
    X, Y = float32_problem(seed, classifier)
    cst = np.array(CONSTRAINTS[seed])
    criterion = "gini" if classifier else "squared_error"
    ours = BUILDERS[builder](X, Y, np.ones(len(X)), criterion=criterion,
                             monotonic_cst=cst, **options)  # fmt: skip
    if classifier:
        theirs = sklearn_tree(sk.DecisionTreeClassifier, X, Y[:, 1], monotonic_cst=cst, **options)
    else:
        theirs = sklearn_tree(sk.DecisionTreeRegressor, X, Y[:, 0], monotonic_cst=cst, **options)
    for name in ("children_left", "children_right", "feature", "threshold", "n_node_samples"):
        np.testing.assert_array_equal(getattr(ours, name), getattr(theirs, name), err_msg=name)
    np.testing.assert_allclose(ours.value, theirs.value, rtol=1e-12, atol=1e-12)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(5, 150),
    cst=st.lists(st.sampled_from([-1, 0, 1]), min_size=3, max_size=3),
    criterion=st.sampled_from(["squared_error", "poisson", "gini"]),
    builder=st.sampled_from(list(BUILDERS)),
    splitter=st.sampled_from([None, "best", "random"]),
    missing=st.booleans(),
    min_samples_leaf=st.integers(1, 4),
)
def test_builders_predictions_are_monotone_on_a_grid(
    seed, n, cst, criterion, builder, splitter, missing, min_samples_leaf
):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = X @ rng.normal(size=3) + rng.normal(size=n)
    if missing:
        X[rng.random(X.shape) < 0.2] = np.nan
    if criterion == "gini":
        Y = np.eye(2)[(y > np.median(y)).astype(int)]
    else:
        Y = (np.exp(y / 2) if criterion == "poisson" else y)[:, None]
    spec = None if splitter is None else RandomSplits(2, splitter, seed)
    cst = np.array(cst)
    tree = BUILDERS[builder](X, Y, np.ones(n), criterion=criterion, monotonic_cst=cst,
                             random_splits=spec, min_samples_leaf=min_samples_leaf)  # fmt: skip
    # The constrained prediction: the positive class's probability, or the value.
    column = 1 if criterion == "gini" else 0
    base = X[rng.integers(0, n, size=20)]
    for j in np.flatnonzero(cst):
        lo, hi = np.nanmin(X[:, j], initial=0.0), np.nanmax(X[:, j], initial=0.0)
        grid = np.linspace(lo - 0.1, hi + 0.1, 50)
        rows = np.repeat(base, len(grid), axis=0)
        rows[:, j] = np.tile(grid, len(base))
        pred = tree.predict(rows)[:, column].reshape(len(base), len(grid))
        assert np.all(np.diff(pred, axis=1) * cst[j] >= -1e-12)


def test_compiled_ports_equal_the_rules():
    """allowed_split, child_bounds and clip_value_row give the numbers of allowed_splits,
    children_bounds and clip_value_rows (equal values, infinite bounds, NaN included;
    both columns of a classifier's row)."""
    rng = np.random.default_rng(0)
    pool = np.array([-np.inf, -1.0, 0.0, 0.25, 0.5, 0.5, 1.0, np.inf, np.nan])
    n = 4000
    cst = rng.integers(-1, 2, n)
    value_left, value_right = rng.choice(pool, n), rng.choice(pool, n)
    lower = rng.choice(pool[:-1], n)
    upper = np.maximum(lower, rng.choice(pool[:-1], n))
    with np.errstate(invalid="ignore"):  # inf - inf: NaN, refused by both
        expected = allowed_splits(cst, value_left, value_right, lower, upper)
    got = [_rules.allowed_split(*args) for args in zip(cst, value_left, value_right, lower,
                                                        upper, strict=True)]  # fmt: skip
    np.testing.assert_array_equal(got, expected)
    finite = rng.normal(size=(2, n))
    bounds = np.array(children_bounds(cst, lower, upper, *finite))
    got = np.array([_rules.child_bounds(*args)
                    for args in zip(cst, lower, upper, *finite, strict=True)]).T  # fmt: skip
    np.testing.assert_array_equal(got, bounds)
    values = rng.normal(size=(n, 2)) * 2
    for classifier in (False, True):
        expected = clip_value_rows(values, lower, upper, classifier)
        got = values.copy()
        for row, low, up in zip(got, lower, upper, strict=True):
            _rules.clip_value_row(row, low, up, classifier)
        np.testing.assert_array_equal(got, expected)


def test_the_elementwise_rules_equal_the_scalar_ones():
    """children_bounds and clip_value_rows on many nodes give child_bounds and clip_values
    on each."""
    rng = np.random.default_rng(1)
    cst = rng.integers(-1, 2, 50)
    lower, upper = -rng.random(50), rng.random(50)
    left, right = rng.normal(size=(2, 50))
    rows = np.array(children_bounds(cst, lower, upper, left, right)).T
    for i in range(50):
        (a, b), (c, d) = child_bounds(int(cst[i]), lower[i], upper[i], left[i], right[i])
        assert rows[i].tolist() == [a, b, c, d]
    values = rng.random((50, 2))
    clipped = clip_value_rows(values, lower + 0.5, upper + 0.2, True)
    for i in range(50):
        assert clipped[i].tolist() == clip_values(values[i], lower[i] + 0.5, upper[i] + 0.2,
                                                  True).tolist()  # fmt: skip


@pytest.mark.parametrize("builder", list(BUILDERS))
def test_builders_refuse_what_grow_tree_refuses(builder):
    """Several classes, several outputs and a constrained categorical feature: grow_tree's
    errors; the level-wise builder also refuses absolute error and splitter='hist'."""
    X, Y, w = problem(0, "squared_error", n=60)
    cst = np.array([1, 0, 0, 0])
    grow = BUILDERS[builder]
    with pytest.raises(ValueError, match="multiclass"):
        grow(X, np.eye(3)[np.arange(60) % 3], w, criterion="gini", monotonic_cst=cst)
    with pytest.raises(ValueError, match="multiple outputs"):
        grow(X, np.column_stack([Y, -Y]), w, criterion="squared_error", monotonic_cst=cst)
    if builder == "levelwise":
        with pytest.raises(ValueError, match="categorical feature"):
            grow(np.floor(X * 4), Y, w, criterion="squared_error", monotonic_cst=cst,
                 is_categorical=np.array([True, False, False, False]))  # fmt: skip
        with pytest.raises(ValueError, match="absolute_error"):
            grow(X, Y, w, criterion="absolute_error", monotonic_cst=cst)
        with pytest.raises(ValueError, match="splitter='hist'"):
            grow(X, Y, w, criterion="squared_error", monotonic_cst=cst, max_bins=16)


ALL_BUILDERS = {"grow_tree": ct.grow_tree, **BUILDERS}


@pytest.mark.parametrize("builder", list(ALL_BUILDERS))
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_one_class_under_constraints_is_the_one_node_tree(builder, criterion):
    """One class seen: no split can break an order, so the fit is the unconstrained
    one (scikit-learn's one-node tree), not an IndexError or a write past the values."""
    X, _, w = problem(0, "squared_error", n=40)
    Y = np.ones((40, 1))
    tree = ALL_BUILDERS[builder](X, Y, w, criterion=criterion, monotonic_cst=[1, -1, 0, 1])
    assert tree.node_count == 1 and tree.value[0, 0].tolist() == [1.0]
    fitted = ct.DecisionTreeClassifier(monotonic_cst=[1, -1, 0, 1], max_leaf_nodes=4)
    assert fitted.fit(X, np.zeros(40)).tree_.node_count == 1


@pytest.mark.parametrize("builder", list(ALL_BUILDERS))
@pytest.mark.parametrize(
    ("cst", "message"),
    [
        ([1, 0], "has shape 2 but the input data X has 4 features"),
        ([1, 0, 0, 0, 1], "has shape 5 but the input data X has 4 features"),
        ([2, 0, 0, 0], "array-like of -1, 0 or 1"),
        ([0.5, 0, 0, 0], "array-like of -1, 0 or 1"),
    ],
)
def test_every_builder_checks_the_constraints_it_is_given(builder, cst, message):
    """A builder called directly checks monotonic_cst as the estimators do."""
    X, Y, w = problem(1, "squared_error", n=60)
    with pytest.raises(ValueError, match=message):
        ALL_BUILDERS[builder](X, Y, w, criterion="squared_error", monotonic_cst=cst)


@pytest.mark.parametrize("builder", list(BUILDERS))
@pytest.mark.parametrize("criterion", ["gini", "squared_error"])
@pytest.mark.parametrize("seed", range(6))
def test_tie_heavy_data_grow_grow_tree_s_tree(builder, criterion, seed):
    """Integer features of 4 levels (gain ties everywhere), integer weights with zeros,
    NaN: the level-wise builder's tie path and the compiled tie rule under
    constraints give grow_tree's tree."""
    rng = np.random.default_rng(100 + seed)
    n = 80
    X = rng.integers(0, 4, (n, 4)).astype(float)
    X[rng.random(X.shape) < 0.08] = np.nan
    score = X[:, 0] - X[:, 1] + rng.integers(0, 3, n)
    score = np.nan_to_num(score, nan=1.0)
    Y = np.eye(2)[(score > 1).astype(int)] if criterion == "gini" else score[:, None]
    w = rng.integers(0, 4, n).astype(float)
    assert_grows_grow_tree_s_tree(builder, X, Y, w, criterion=criterion,
                                  monotonic_cst=np.array([1, -1, 0, 1]))  # fmt: skip

