"""class_weight and min_weight_fraction_leaf: scikit-learn's definitions, both builders."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_equivalent
from sklearn import tree as sk
from sklearn.utils.class_weight import compute_sample_weight
from test_levelwise import make_problem
from test_sklearn_agreement import assert_same_model, same_partition

import climbing_trees as ct
from climbing_trees._levelwise import grow_tree_levelwise
from climbing_trees._random import RandomSplits


def stable_fit(estimator_cls, X, y, sample_weight=None, **params):
    """scikit-learn's tree when 8 seeds agree on the partition (no gain ties), else skip."""
    fits = [
        estimator_cls(random_state=seed, **params).fit(X, y, sample_weight=sample_weight)
        for seed in range(8)
    ]
    leaves = [f.apply(X) for f in fits]
    if not all(same_partition(leaves[0], other) for other in leaves[1:]):
        pytest.skip("scikit-learn's own tree depends on random_state here (gain ties)")
    return fits[0]


def classification(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 5))
    y = (X[:, 0] + rng.normal(size=300) > 0).astype(int) + (X[:, 1] > 1)
    return X, y, rng.uniform(0.5, 2.0, size=300)


CLASS_WEIGHTS = [None, "balanced", {0: 2.0, 2: 0.5}, {1: 3.0}, [{0: 1.5, 1: 1.0, 2: 4.0}]]


def pure_partition(model, X):
    """Each row's first pure node on its path (a leaf if none is pure).

    scikit-learn splits a pure node when rounding leaves its weighted Gini a
    little above machine epsilon (both children then predict the same); the
    package stops at pure nodes.  Comparing rows by their first pure node
    ignores such splits, which change no prediction.
    """
    value = model.tree_.value[:, 0, :]
    value = value / value.sum(axis=1, keepdims=True)
    pure = np.isclose(value.max(axis=1), 1.0, rtol=0, atol=1e-12)
    paths = model.decision_path(X).tolil().rows
    return np.array([next((n for n in path if pure[n]), path[-1]) for path in paths])


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("class_weight", CLASS_WEIGHTS, ids=str)
@pytest.mark.parametrize("fraction", [0.0, 0.04])
def test_classifier_weights_match_sklearn(seed, class_weight, fraction):
    """Class weights and min_weight_fraction_leaf, as scikit-learn's trees use them.

    The rows carry continuous sample weights: with a weight per class alone,
    two partitions with the same class counts tie exactly, and scikit-learn
    breaks such ties by rounding noise.
    """
    X, y, w = classification(seed)
    sk_class_weight = class_weight[0] if isinstance(class_weight, list) else class_weight
    params = {"class_weight": class_weight, "min_weight_fraction_leaf": fraction}
    sk_params = {**params, "class_weight": sk_class_weight}
    theirs = stable_fit(sk.DecisionTreeClassifier, X, y, w, max_depth=4, **sk_params)
    ours = ct.DecisionTreeClassifier(max_depth=4, **params).fit(X, y, sample_weight=w)
    assert same_partition(pure_partition(ours, X), pure_partition(theirs, X))
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-12)
    np.testing.assert_allclose(
        ours.tree_.weighted_n_node_samples[0], theirs.tree_.weighted_n_node_samples[0]
    )


@pytest.mark.parametrize("fraction", [0.01, 0.05, 0.2, 0.5])
@pytest.mark.parametrize("weighted", [False, True], ids=["unit", "weighted"])
def test_regressor_min_weight_fraction_matches_sklearn(synthetic_regression, fraction, weighted):
    X, y = synthetic_regression
    X, y = X[:2000], y[:2000]
    w = np.random.default_rng(1).uniform(0.2, 3.0, size=len(y)) if weighted else None
    theirs = stable_fit(sk.DecisionTreeRegressor, X, y, w, min_weight_fraction_leaf=fraction)
    ours = ct.DecisionTreeRegressor(min_weight_fraction_leaf=fraction).fit(X, y, sample_weight=w)
    assert_same_model(ours, theirs, X)
    assert ours.get_n_leaves() == theirs.get_n_leaves()


@pytest.mark.parametrize("class_weight", ["balanced", {0: 2.0, 2: 0.25}])
def test_expanded_class_weight_is_sklearns(class_weight):
    _, y, _ = classification(0)
    labels = np.array(["a", "b", "c"])[y]
    ours = ct.DecisionTreeClassifier(class_weight=class_weight)
    cw = class_weight if class_weight == "balanced" else {"a": 2.0, "c": 0.25}
    ours.set_params(class_weight=cw)
    factors = ct._weights.expand_class_weight(cw, y, np.array(["a", "b", "c"]))
    np.testing.assert_array_equal(factors, compute_sample_weight(cw, labels))


def test_integer_class_weight_equals_repeated_rows():
    X, y, _ = classification(3)
    weighted = ct.DecisionTreeClassifier(class_weight={1: 2}, max_depth=5).fit(X, y)
    repeat = np.where(y == 1, 2, 1)
    repeated = ct.DecisionTreeClassifier(max_depth=5).fit(
        np.repeat(X, repeat, axis=0), np.repeat(y, repeat)
    )
    assert same_partition(weighted.apply(X), repeated.apply(X))
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X))


def test_zero_class_weight_removes_the_class():
    X, y, _ = classification(4)
    model = ct.DecisionTreeClassifier(class_weight={2: 0}).fit(X, y)
    assert np.all(model.predict_proba(X)[:, 2] == 0)
    keep = y != 2
    other = ct.DecisionTreeClassifier().fit(X[keep], y[keep])
    np.testing.assert_array_equal(model.predict(X), other.predict(X))


@pytest.mark.parametrize("fraction", [0.02, 0.1, 0.3])
def test_every_leaf_keeps_the_minimum_weight(fraction):
    X, y, w = classification(5)
    model = ct.DecisionTreeClassifier(min_weight_fraction_leaf=fraction).fit(X, y, sample_weight=w)
    t = model.tree_
    leaves = t.children_left == ct.TREE_LEAF
    assert np.all(t.weighted_n_node_samples[leaves] >= fraction * w.sum() * (1 - 1e-12))
    assert t.node_count > 1


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("criterion", ["gini", "entropy", "squared_error", "poisson"])
@pytest.mark.parametrize("weights", ["unit", "float", "zeros"])
def test_builders_agree_with_min_weight_leaf(seed, criterion, weights):
    X, Y, w = make_problem(seed, criterion, weights=weights, ties=seed % 2 == 0)
    low = 0.07 * w.sum()
    slow = ct.grow_tree(X, Y, w, criterion=criterion, min_weight_leaf=low)
    fast = grow_tree_levelwise(X, Y, w, criterion=criterion, min_weight_leaf=low)
    assert_equivalent(fast, slow)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("search", ["naive_best_split", "incremental_best_split"])
def test_searches_refuse_light_sides_alike(seed, search):
    X, Y, w = make_problem(seed, "squared_error", weights="float", ties=False)
    low = 0.2 * w.sum()
    oracle = ct.grow_tree(
        X, Y, w, criterion="squared_error", min_weight_leaf=low, find_split=getattr(ct, search)
    )
    assert_equivalent(ct.grow_tree(X, Y, w, criterion="squared_error", min_weight_leaf=low), oracle)


def test_absolute_error_respects_min_weight_leaf():
    X, Y, w = make_problem(2, "squared_error", weights="float", ties=False)
    model = ct.DecisionTreeRegressor(criterion="absolute_error", min_weight_fraction_leaf=0.15)
    t = model.fit(X, Y[:, 0], sample_weight=w).tree_
    leaves = t.children_left == ct.TREE_LEAF
    assert np.all(t.weighted_n_node_samples[leaves] >= 0.15 * w.sum() * (1 - 1e-12))


def test_categorical_splits_respect_min_weight_leaf(penguins):
    X, y = penguins[["island", "sex", "flipper_length_mm"]], penguins["species"]
    model = ct.DecisionTreeClassifier(min_weight_fraction_leaf=0.2).fit(X, y)
    t = model.tree_
    leaves = t.children_left == ct.TREE_LEAF
    assert np.all(t.weighted_n_node_samples[leaves] >= 0.2 * len(y) * (1 - 1e-12))
    assert np.isnan(t.threshold[t.children_left != ct.TREE_LEAF]).any()  # a categorical split


@pytest.mark.parametrize(
    "class_weight, message",
    [
        ("balance", "class_weight='balance' is invalid"),
        ({5: 1.0}, "not classes of y"),
        ({0: -1.0}, "finite numbers >= 0"),
        ({0: np.nan}, "finite numbers >= 0"),
        ({0: "x"}, "finite numbers >= 0"),
        ([{0: 1.0}, {1: 2.0}], "list of 2 entries"),
        (["balanced"], "must hold dicts"),
        ({0: 0, 1: 0, 2: 0}, "weight of 0"),
        (3, "is invalid"),
    ],
)
def test_bad_class_weight(class_weight, message):
    X, y, _ = classification(0)
    model = ct.DecisionTreeClassifier(max_depth=1).fit(X, y)
    before = model.tree_
    with pytest.raises(ValueError, match=message):
        model.set_params(class_weight=class_weight).fit(X, y)
    assert model.tree_ is before  # the failed fit left the model as it was


@pytest.mark.parametrize("fraction", [-0.1, 0.6, 1, np.nan, "0.1", True, None])
def test_bad_min_weight_fraction_leaf(fraction):
    X, y, _ = classification(0)
    with pytest.raises(ValueError, match="min_weight_fraction_leaf=.*float in \\[0, 0.5\\]"):
        ct.DecisionTreeRegressor(min_weight_fraction_leaf=fraction).fit(X, y)


def test_regressor_has_no_class_weight():
    assert "class_weight" not in ct.DecisionTreeRegressor().get_params()


@pytest.mark.parametrize("builder", ["grow_tree", "grow_tree_levelwise"])
@pytest.mark.parametrize(
    "setting",
    ["plain", "min_samples_leaf", "random", "random best", "missing", "categorical",
     "surrogate"],
)  # fmt: skip
def test_leaf_minimum_keeps_its_weight_everywhere(builder, setting):
    """min_weight_leaf rides on min_samples_leaf (``LeafMinimum``): every search keeps it.

    An ``int`` subclass loses its weight under arithmetic (``2 * msl``); if a
    builder or search passed such a derived minimum on, its leaves could be
    lighter than ``min_weight_leaf``.  Every search path must respect it.
    """
    if setting == "surrogate" and builder == "grow_tree_levelwise":
        pytest.skip("surrogate trees are grown depth first")
    rng = np.random.default_rng(3)
    n = 300
    X = rng.normal(size=(n, 4))
    Y = ct.one_hot((X[:, 0] + X[:, 1] + 0.5 * rng.normal(size=n) > 0).astype(int), 2)
    w = rng.uniform(0.1, 3.0, size=n)
    params = {"criterion": "gini", "min_weight_leaf": 0.08 * w.sum()}
    if setting == "min_samples_leaf":
        params["min_samples_leaf"] = 3
    if setting in ("random", "random best"):
        splitter = "random" if setting == "random" else "best"
        params["random_splits"] = RandomSplits(2, splitter, 77)
    if setting in ("missing", "surrogate"):
        X[rng.random(X.shape) < 0.2] = np.nan
        if setting == "surrogate":
            params["missing_values"] = "surrogate"
    if setting == "categorical":
        X[:, 2] = rng.integers(0, 6, size=n)
        params["is_categorical"] = np.array([False, False, True, False])
    grow = ct.grow_tree if builder == "grow_tree" else grow_tree_levelwise
    tree = grow(X, Y, w, **params)
    leaves = tree.children_left == ct.TREE_LEAF
    assert tree.node_count > 3
    assert np.all(tree.weighted_n_node_samples[leaves] >= params["min_weight_leaf"] * (1 - 1e-12))
    # And without the weight rule the same settings grow lighter leaves: the test can fail.
    del params["min_weight_leaf"]
    loose = grow(X, Y, w, **params)
    light = loose.weighted_n_node_samples[loose.children_left == ct.TREE_LEAF]
    assert light.min() < 0.08 * w.sum()
