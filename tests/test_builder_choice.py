"""Which builder grows which options: builder_for, the one place the estimators ask."""

import numpy as np
import pytest

import climbing_trees as ct
from climbing_trees._compiled import compiled_refusal
from climbing_trees._levelwise import _grow
from climbing_trees._levelwise._support import builder_for, levelwise_refusal
from climbing_trees._random import random_splits


@pytest.mark.parametrize("criterion", ["gini", "squared_error", "absolute_error"])
@pytest.mark.parametrize("categorical", [False, True])
@pytest.mark.parametrize("missing_values", ["learn", "surrogate"])
@pytest.mark.parametrize("max_leaf_nodes", [None, 3])
def test_builder_for_follows_the_refusal(criterion, categorical, missing_values, max_leaf_nodes):
    is_categorical = np.array([categorical, False])
    builder, extra = builder_for(
        criterion, is_categorical, None, missing_values, max_leaf_nodes, max_surrogates=2
    )
    compiled = compiled_refusal(criterion, is_categorical, None, missing_values) is None
    if compiled and max_leaf_nodes is None:
        assert builder is ct.grow_tree_compiled and extra == {}
        return
    refused = levelwise_refusal(criterion, is_categorical, None, missing_values) is not None
    assert builder is (ct.grow_tree if refused else ct.grow_tree_levelwise)
    if refused:
        surrogate = {"missing_values": "surrogate", "max_surrogates": 2}
        assert extra == (surrogate if missing_values == "surrogate" else {})
    else:
        assert extra == ({} if max_leaf_nodes is None else {"max_leaf_nodes": max_leaf_nodes})


def test_random_thresholds_with_absolute_error_grow_depth_first():
    model = ct.DecisionTreeRegressor(criterion="absolute_error", splitter="random")
    randomness = random_splits(model, 2, 0)
    builder, _ = builder_for("absolute_error", None, randomness, "learn", None)
    assert builder is ct.grow_tree


@pytest.mark.parametrize(
    "missing_values,criterion,levelwise",
    [("learn", "gini", True), ("surrogate", "gini", False), ("learn", "absolute_error", True)],
)
def test_estimator_grows_with_the_builder_builder_for_names(
    missing_values, criterion, levelwise, monkeypatch
):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    X[::5, 0] = np.nan
    y = (X[:, 1] > 0).astype(int)
    calls = []
    real = _grow.grow_tree_levelwise

    def spy(*args, **kwargs):
        calls.append(kwargs.get("max_leaf_nodes"))
        return real(*args, **kwargs)

    monkeypatch.setattr(_grow, "grow_tree_levelwise", spy)
    Model = ct.DecisionTreeRegressor if criterion == "absolute_error" else ct.DecisionTreeClassifier
    model = Model(criterion=criterion, max_leaf_nodes=4, missing_values=missing_values)
    model.fit(X, y)
    assert calls == ([4] if levelwise else [])
    assert model.tree_.n_leaves <= 4


@pytest.mark.parametrize(
    "options",
    [{}, {"max_features": 2, "random_state": 1}, {"splitter": "random", "random_state": 2}],
)
def test_estimators_grow_numerical_trees_compiled_and_as_the_other_builders(
    options, monkeypatch
):
    """builder_for sends these fits to grow_tree_compiled; the fitted tree is the one
    grow_tree_levelwise grows for the same options."""
    import climbing_trees._classes as classes

    rng = np.random.default_rng(4)
    X = rng.normal(size=(200, 4))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0]) + rng.normal(size=200) > 0).astype(int)
    w = rng.uniform(0.5, 2.0, 200)
    params = dict(options, min_samples_leaf=2)
    compiled = ct.DecisionTreeClassifier(**params).fit(X, y, sample_weight=w)
    real = classes.builder_for

    def levelwise_builder(*args, **kwargs):
        builder, extra = real(*args, **kwargs)
        assert builder is ct.grow_tree_compiled
        return ct.grow_tree_levelwise, {}

    monkeypatch.setattr(classes, "builder_for", levelwise_builder)
    levelwise = ct.DecisionTreeClassifier(**params).fit(X, y, sample_weight=w)
    from conftest import assert_equivalent

    assert_equivalent(compiled.tree_, levelwise.tree_)
    assert compiled.tree_.node_count > 3


def test_tree_default_missing_direction_is_missing_goes_left():
    # A tree stored without missing_go_to_left: the rule of every builder
    # (missing_goes_left: the child with more rows, right on equal counts).
    import dataclasses

    from climbing_trees._missing import missing_goes_left

    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0], [6.0]])
    y = np.array([[0.0], [0.0], [1.0], [1.0], [1.0], [2.0], [2.0]])
    tree = ct.grow_tree(X, y, np.ones(7), criterion="squared_error")
    bare = dataclasses.replace(tree, missing_go_to_left=None)
    inner = np.flatnonzero(tree.children_left >= 0)
    n = tree.n_node_samples
    n_left = n[tree.children_left[inner]]
    expected = missing_goes_left(0, False, n_left, n_left + n[tree.children_right[inner]])
    np.testing.assert_array_equal(bare.missing_go_to_left[inner], expected)
    np.testing.assert_array_equal(bare.missing_go_to_left, tree.missing_go_to_left)
    assert (n_left > n[inner] - n_left).any() and not expected.all()


def test_absolute_error_grows_compiled_but_with_monotonic_constraints():
    builder, extra = builder_for("absolute_error", None, None, "learn", None)
    assert builder is ct.grow_tree_compiled and extra == {}
    cst = np.array([1, 0])
    builder, extra = builder_for("absolute_error", None, None, "learn", None, monotonic_cst=cst)
    assert builder is ct.grow_tree and extra["monotonic_cst"] is cst
