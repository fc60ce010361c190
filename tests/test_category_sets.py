"""Compact categorical sets (chapter 7, "High cardinality"): storage, routing, memory."""

from __future__ import annotations

import pickle
import tracemalloc

import numpy as np
import pytest
from conftest import assert_equivalent, assert_same_tree

import climbing_trees as ct
from climbing_trees import _categorical, _category_sets
from climbing_trees._category_sets import dense_rows, encode_row, pack
from climbing_trees._growth import grow_tree
from climbing_trees._levelwise import _categorical_search, grow_tree_levelwise


@pytest.fixture(params=["table", "search"])
def route_by(request, monkeypatch):
    """Route through the table of rows, or force the search of sorted keys."""
    if request.param == "search":
        monkeypatch.setattr(_category_sets, "TABLE_ENTRIES", 0)
    return request.param


@pytest.fixture(params=["all cells", "cells present"])
def level_sums(request, monkeypatch):
    """Sum level statistics over all (node, level) cells, or force the sort of pairs."""
    if request.param == "cells present":
        monkeypatch.setattr(_categorical_search, "_DENSE_PAIRS_PER_ROW", 0)
        monkeypatch.setattr(_categorical_search, "_DENSE_PAIRS_MIN", 0)
    return request.param


# ------------------------------------------------------------------ random trees by hand


def random_dense_tree(seed: int, n_internal: int = 40, width: int = 200):
    """A random tree with numerical and categorical nodes, and its sets as dense rows.

    Feature 0 and 2 are categorical, feature 1 numerical.  Each categorical
    row has its own density (from nearly empty to nearly full), so the
    compact form lists few levels at some nodes and most at others.
    """
    rng = np.random.default_rng(seed)
    # A random binary tree in preorder: grow by splitting random leaves.
    left, right = [-1], [-1]
    leaves = [0]
    for _ in range(n_internal):
        node = leaves.pop(rng.integers(len(leaves)))
        for side in (left, right):
            side[node] = len(left)
            left.append(-1)
            right.append(-1)
            leaves.append(len(left) - 1)
    # Renumber in preorder.
    order, stack = [], [0]
    while stack:
        node = stack.pop()
        order.append(node)
        if left[node] != -1:
            stack += [right[node], left[node]]
    new = np.empty(len(order), dtype=np.intp)
    new[order] = np.arange(len(order))
    n = len(order)
    children_left = np.full(n, ct.TREE_LEAF)
    children_right = np.full(n, ct.TREE_LEAF)
    for old in order:
        if left[old] != -1:
            children_left[new[old]] = new[left[old]]
            children_right[new[old]] = new[right[old]]
    internal = children_left != ct.TREE_LEAF
    feature = np.where(internal, rng.integers(0, 3, n), ct.TREE_UNDEFINED)
    threshold = np.where(internal, rng.normal(size=n), float(ct.TREE_UNDEFINED))
    categorical = internal & (feature != 1)
    threshold[categorical] = np.nan
    rows = np.zeros((n, width), dtype=bool)
    for node in np.flatnonzero(categorical):
        rows[node] = rng.random(width) < rng.choice([0.02, 0.5, 0.98])
    # Rows that are all one value: every level goes one way, nothing is listed.
    rows[np.flatnonzero(categorical)[:2]] = [[False], [True]]
    return children_left, children_right, feature, threshold, rows


def tree_from_rows(children_left, children_right, feature, threshold, rows) -> ct.Tree:
    n = len(children_left)
    encoded = [
        encode_row(row) if np.isnan(t) else (False, [])
        for row, t in zip(rows, threshold, strict=True)
    ]
    owners = np.concatenate([np.full(len(lv), i) for i, (_, lv) in enumerate(encoded)])
    levels = np.concatenate([np.asarray(lv, dtype=np.intp) for _, lv in encoded])
    start, stop, levels = pack(owners.astype(np.intp), levels, n)
    return ct.Tree(
        children_left=children_left,
        children_right=children_right,
        feature=feature,
        threshold=threshold,
        value=np.arange(n, dtype=float)[:, None, None],
        impurity=np.zeros(n),
        n_node_samples=np.ones(n, dtype=np.intp),
        weighted_n_node_samples=np.ones(n),
        categories_unseen_left=np.array([u for u, _ in encoded]),
        categories_start=start,
        categories_stop=stop,
        categories_levels=levels,
        categories_width=rows.shape[1],
    )


def dense_apply(children_left, children_right, feature, threshold, rows, X):
    """The reference: follow each row through the dense rows (the old format)."""
    width = rows.shape[1] - 1
    out = []
    for x in X:
        node = 0
        while children_left[node] != ct.TREE_LEAF:
            v = x[feature[node]]
            if np.isnan(threshold[node]):
                code = int(v) if 0 <= v < width else -1
                go_left = rows[node, code]
            else:
                go_left = v <= threshold[node]
            node = children_left[node] if go_left else children_right[node]
        out.append(node)
    return np.array(out)


def random_rows_X(seed: int, width: int, n: int = 3000) -> np.ndarray:
    """Codes over the whole range, the word boundaries, unseen (-1) and past the end."""
    rng = np.random.default_rng(seed + 100)
    special = np.array([0, 1, 62, 63, 64, 65, 127, 128, 129, 191, 192, width - 2, -1, width - 1])
    special = np.concatenate([special, [width + 5, 10**6]])
    codes = np.concatenate([rng.integers(0, width - 1, n - 2 * len(special)), special, special])
    codes2 = rng.permutation(codes)
    return np.column_stack([codes, rng.normal(size=n), codes2]).astype(float)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("method", ["apply", "apply_flat", "apply_rowwise"])
def test_compact_sets_route_like_the_dense_rows(seed, method, route_by):
    arrays = random_dense_tree(seed)
    tree = tree_from_rows(*arrays)
    X = random_rows_X(seed, arrays[-1].shape[1])
    np.testing.assert_array_equal(getattr(tree, method)(X), dense_apply(*arrays, X))
    # decision_path ends at the same leaves.
    path = tree.decision_path(X).tocsr()
    np.testing.assert_array_equal(path.indices[path.indptr[1:] - 1], dense_apply(*arrays, X))


@pytest.mark.parametrize("seed", range(4))
def test_dense_view_gives_back_the_rows(seed):
    children_left, children_right, feature, threshold, rows = random_dense_tree(seed)
    tree = tree_from_rows(children_left, children_right, feature, threshold, rows)
    categorical = np.isnan(threshold)
    np.testing.assert_array_equal(tree.categories_left[categorical], rows[categorical])
    assert not tree.categories_left[~categorical].any()
    for node in np.flatnonzero(categorical)[:5]:
        np.testing.assert_array_equal(tree.categories_left_row(node), rows[node])


def test_only_categorical_nodes_store_levels():
    children_left, children_right, feature, threshold, rows = random_dense_tree(0)
    tree = tree_from_rows(children_left, children_right, feature, threshold, rows)
    lengths = tree.categories_stop - tree.categories_start
    categorical = np.isnan(threshold)
    assert np.all(lengths[~categorical] == 0)
    # A node lists exactly the levels whose entry differs from the unseen entry.
    differ = (rows[:, :-1] != rows[:, -1:]).sum(axis=1)
    np.testing.assert_array_equal(lengths[categorical], differ[categorical])


def test_dense_rows_helper_matches_encode_row():
    rng = np.random.default_rng(3)
    rows = rng.random((30, 130)) < 0.3
    rows[::2, -1] = True
    encoded = [encode_row(r) for r in rows]
    owners = np.concatenate([np.full(len(lv), i) for i, (_, lv) in enumerate(encoded)])
    start, stop, levels = pack(owners, np.concatenate([lv for _, lv in encoded]), 30)
    unseen = np.array([u for u, _ in encoded])
    np.testing.assert_array_equal(dense_rows(unseen, start, stop, levels, 130), rows)


# ------------------------------------------------------------------ fitted trees


def high_cardinality(seed: int, n: int = 3000, n_levels: int = 300, classes: int = 0):
    """Codes over ``n_levels`` levels (some never drawn), a numerical column, a target."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_levels, n)
    codes[codes % 7 == 3] = 0  # levels never seen at fit, inside the range
    x = rng.normal(size=n)
    effect = rng.normal(size=n_levels)
    y = effect[codes] + x + rng.normal(size=n)
    if classes:
        y = np.digitize(y, np.quantile(y, np.linspace(0, 1, classes + 1)[1:-1]))
    return np.column_stack([codes, x]).astype(float), y


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize(
    "criterion, classes", [("squared_error", 0), ("gini", 2), ("entropy", 3), ("poisson", 0)]
)
@pytest.mark.parametrize("min_samples_level", [1, 4])
def test_builders_agree_at_high_cardinality(
    seed, criterion, classes, min_samples_level, route_by, level_sums
):
    X, y = high_cardinality(seed, classes=classes)
    if criterion == "poisson":
        y = np.random.default_rng(seed).poisson(np.exp(y / 3)).astype(float)
    Y = np.eye(classes)[y] if classes else y[:, None]
    kwargs = {
        "criterion": criterion,
        "min_samples_leaf": 2,
        "is_categorical": np.array([True, False]),
        "n_categories": np.array([300, 0]),
        "min_samples_level": min_samples_level,
    }
    w = np.ones(len(y))
    slow = ct.grow_tree(X, Y, w, **kwargs)
    fast = ct.grow_tree_levelwise(X, Y, w, **kwargs)
    assert slow.is_categorical_split.sum() > 10
    assert slow.categories_levels.max() >= 128  # sets reach past two 64-bit words
    assert_equivalent(fast, slow)


@pytest.mark.parametrize("Model", [ct.DecisionTreeRegressor, ct.DecisionTreeClassifier])
def test_predictions_follow_the_dense_rows_with_unseen_and_absent_levels(Model, route_by):
    X, y = high_cardinality(0, classes=0 if Model is ct.DecisionTreeRegressor else 3)
    model = Model(min_samples_leaf=3, categorical_features=[0]).fit(X, y)
    tree = model.tree_
    rows = tree.categories_left
    arrays = (tree.children_left, tree.children_right, tree.feature, tree.threshold, rows)
    # Codes 3, 10, 17, ... never occur at fit; -1 and 400 are outside the range.
    X_new = random_rows_X(1, 301)[:, :2]
    X_new[::5, 0] = -1
    X_new[1::5, 0] = 400
    X_new[2::5, 0] = 3 + 7 * (np.arange(len(X_new[2::5])) % 40)
    np.testing.assert_array_equal(tree.apply(X_new), dense_apply(*arrays, X_new))
    np.testing.assert_array_equal(tree.apply_flat(X_new), dense_apply(*arrays, X_new))
    np.testing.assert_array_equal(tree.apply_rowwise(X_new), dense_apply(*arrays, X_new))


def test_pickle_round_trip_and_size():
    X, y = high_cardinality(1, n=6000, n_levels=3000)
    model = ct.DecisionTreeRegressor(min_samples_leaf=2, categorical_features=[0]).fit(X, y)
    data = pickle.dumps(model)
    clone = pickle.loads(data)
    assert_same_tree(model.tree_, clone.tree_)
    np.testing.assert_array_equal(model.predict(X), clone.predict(X))
    tree = model.tree_
    # Smaller than even one bit per node and level would be.
    assert len(data) < tree.node_count * tree.categories_width / 8


def test_a_tree_pickled_with_the_table_of_rows_loads_compact():
    X, y = high_cardinality(3)
    tree = ct.DecisionTreeRegressor(min_samples_leaf=2, categorical_features=[0]).fit(X, y).tree_
    # The state such a tree had: the table in place of the compact arrays.
    state = {k: v for k, v in tree.__getstate__().items() if not k.startswith("categories")}
    state["categories_left"] = tree.categories_left
    old = ct.Tree.__new__(ct.Tree)
    old.__setstate__(state)
    assert_same_tree(old, tree)


def test_prune_repacks_and_predicts_like_the_dense_rows(route_by):
    X, y = high_cardinality(2)
    tree = ct.DecisionTreeRegressor(min_samples_leaf=2, categorical_features=[0]).fit(X, y).tree_
    alphas = ct.cost_complexity_path(tree).ccp_alphas
    pruned = ct.prune(tree, ct.ccp_subtree(tree, alphas[len(alphas) // 2]))
    assert pruned.is_categorical_split.any()
    lengths = pruned.categories_stop - pruned.categories_start
    assert lengths.sum() == len(pruned.categories_levels) < len(tree.categories_levels)
    arrays = (
        pruned.children_left,
        pruned.children_right,
        pruned.feature,
        pruned.threshold,
        pruned.categories_left,
    )
    X_new = random_rows_X(2, 301)[:, :2]
    np.testing.assert_array_equal(pruned.apply(X_new), dense_apply(*arrays, X_new))


def test_fit_memory_does_not_grow_with_nodes_times_levels():
    """20,000 levels and about 5,000 nodes: a node x levels float array would be 800 MB."""
    X, y = high_cardinality(0, n=20_000, n_levels=20_000)
    model = ct.DecisionTreeRegressor(min_samples_leaf=2, categorical_features=[0])
    tracemalloc.start()
    try:
        model.fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert model.tree_.node_count > 4000
    assert peak < 100 * 2**20


# ------------------------------------------------------------------ regularisation


def test_min_samples_level_default_pools_nothing_at_high_cardinality(level_sums, monkeypatch):
    """At the default (1) the trees are those grown with no pooling step at all."""
    X, y = high_cardinality(4, n_levels=2000)
    kwargs = {
        "criterion": "squared_error",
        "min_samples_leaf": 5,
        "is_categorical": np.array([True, False]),
        "n_categories": np.array([2000, 0]),
    }
    w = np.ones(len(y))
    default = ct.DecisionTreeRegressor(min_samples_leaf=5, categorical_features=[0]).fit(X, y)
    grown = [builder(X, y[:, None], w, **kwargs) for builder in (grow_tree, grow_tree_levelwise)]
    calls = []

    def no_pooling(stats, counts, pair_node, n_nodes, min_level):
        calls.append(min_level)
        return stats, counts, np.full(len(counts), -1)

    monkeypatch.setattr(_categorical, "pool_rare_pairs", no_pooling)
    monkeypatch.setattr(_categorical_search, "pool_rare_pairs", no_pooling)
    unpooled = ct.DecisionTreeRegressor(min_samples_leaf=5, categorical_features=[0]).fit(X, y)
    assert calls and set(calls) == {1}
    assert default.tree_.is_categorical_split.sum() > 10
    assert_same_tree(default.tree_, unpooled.tree_)
    for builder, tree in zip((grow_tree, grow_tree_levelwise), grown, strict=True):
        assert_same_tree(tree, builder(X, y[:, None], w, **kwargs))


def test_min_samples_level_reduces_held_out_error_on_many_noise_levels():
    """Full depth, 5,000 pure-noise levels of about 4 rows each, a numerical signal."""
    errors = {1: [], 5: []}
    for seed in range(3):
        rng = np.random.default_rng(seed)
        n = 20_000
        codes = rng.integers(0, 5_000, 2 * n)
        x = rng.normal(size=2 * n)
        y = np.sin(2 * x) + rng.normal(size=2 * n)
        X = np.column_stack([codes, x]).astype(float)
        for m in errors:
            model = ct.DecisionTreeRegressor(
                min_samples_leaf=5, min_samples_level=m, categorical_features=[0]
            ).fit(X[:n], y[:n])
            errors[m].append(np.mean((model.predict(X[n:]) - y[n:]) ** 2))
    assert np.mean(errors[5]) < 0.8 * np.mean(errors[1])


def test_exports_abbreviate_long_sets():
    X, y = high_cardinality(5)
    model = ct.DecisionTreeRegressor(max_depth=2, categorical_features=[0]).fit(X, y)
    assert np.isnan(model.tree_.threshold[0])
    text = ct.export_text(model, feature_names=["id", "x"])
    first = text.splitlines()[0]
    assert " more" in first and first.count(",") <= 34
    dot = ct.export_graphviz(model, feature_names=["id", "x"])
    assert " more" in dot


def test_export_memory_does_not_grow_with_categorical_nodes_times_levels():
    """Which codes reach a node is kept along one path, not for every categorical node."""
    X, y = high_cardinality(0, n=20_000, n_levels=20_000)
    model = ct.DecisionTreeRegressor(min_samples_leaf=2, categorical_features=[0]).fit(X, y)
    n_categorical = int(model.tree_.is_categorical_split.sum())
    per_node_masks = n_categorical * model.tree_.categories_width
    assert per_node_masks > 40 * 2**20
    for export in (ct.export_graphviz, ct.export_text):
        tracemalloc.start()
        try:
            text = export(model)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 10 * 2**20 + 4 * len(text), export.__name__
