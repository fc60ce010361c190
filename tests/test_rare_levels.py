"""``min_samples_level``: rare levels pooled into one group before the categorical search."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from conftest import assert_equivalent, assert_same_tree

import climbing_trees as ct
from climbing_trees._categorical import expand_pooled, pool_rare_levels, pool_rare_pairs
from climbing_trees._levelwise import grow_tree_levelwise


def many_level_problem(seed: int, criterion: str, n: int = 200, n_levels: int = 40):
    """One informative numerical column and one categorical column with many rare levels."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    codes = rng.integers(0, n_levels, size=n).astype(float)
    signal = (x > 0.3).astype(float)
    if criterion == "squared_error":
        Y = (signal + rng.normal(scale=0.8, size=n))[:, None]
    else:
        Y = ct.one_hot(np.where(rng.random(n) < 0.7, signal, 1 - signal).astype(int), 2)
    return np.column_stack([x, codes]), Y, np.array([False, True]), np.array([0, n_levels])


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("criterion", ["gini", "entropy", "squared_error"])
@pytest.mark.parametrize("min_samples_level", [2, 5, 20])
@pytest.mark.parametrize("method", ["auto", "one_vs_rest", "partition"])
def test_both_builders_pool_alike(seed, criterion, min_samples_level, method):
    X, Y, is_cat, n_cat = many_level_problem(seed, criterion, n=int(40 + 7 * seed))
    rng = np.random.default_rng(seed + 100)
    w = rng.uniform(0.2, 2.0, size=len(X)) if seed % 2 else np.ones(len(X))
    params = {
        "criterion": criterion,
        "is_categorical": is_cat,
        "n_categories": n_cat,
        "categorical_split": method,
        "min_samples_level": min_samples_level,
        "min_samples_leaf": 1 + seed % 3,
    }
    slow = ct.grow_tree(X, Y, w, **params)
    fast = grow_tree_levelwise(X, Y, w, **params)
    assert_equivalent(fast, slow)


@pytest.mark.parametrize("criterion", ["gini", "squared_error"])
def test_pooled_levels_always_go_together(criterion):
    """At every categorical split, the node's rare levels all go to one side."""
    X, Y, is_cat, n_cat = many_level_problem(3, criterion, n=400)
    m = 6
    tree = ct.grow_tree(
        X, Y, np.ones(len(X)), criterion=criterion, is_categorical=is_cat,
        n_categories=n_cat, min_samples_level=m,
    )  # fmt: skip
    leaf_of = tree.apply(X)
    checked = 0
    for node in np.flatnonzero(np.isnan(tree.threshold) & (tree.feature == 1)):
        # Rows of this node: those whose leaf lies in its subtree.
        inside = np.isin(leaf_of, subtree(tree, node))
        counts = np.bincount(X[inside, 1].astype(int), minlength=n_cat[1])
        rare = (counts > 0) & (counts < m)
        if rare.sum() >= 2:
            sides = tree.categories_left[node, : n_cat[1]][rare]
            assert sides.all() or not sides.any()
            checked += 1
    assert checked > 0


def subtree(tree: ct.Tree, node: int) -> list[int]:
    stack, out = [node], []
    while stack:
        i = stack.pop()
        out.append(i)
        if tree.children_left[i] != ct.TREE_LEAF:
            stack += [tree.children_left[i], tree.children_right[i]]
    return out


def test_pooling_the_pairs_of_many_nodes_equals_one_node_at_a_time():
    """The level-wise builder pools the (node, level) pairs of a depth at once;
    ``grow_tree`` pools one node's levels.  Same function, same bits."""
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 5, size=(6, 9))
    stats = rng.normal(size=(6, 9, 3)) * (counts > 0)[..., None]
    pair_node, pair_level = np.nonzero(counts)  # present pairs, by node then code
    pooled, pooled_counts, group = pool_rare_pairs(
        stats[pair_node, pair_level], counts[pair_node, pair_level], pair_node, 6, 3
    )
    for i in range(6):
        one, one_counts, one_group = pool_rare_levels(stats[i], counts[i], 3)
        here = pair_node == i
        np.testing.assert_array_equal(pooled[here], one[pair_level[here]])
        np.testing.assert_array_equal(pooled_counts[here], one_counts[pair_level[here]])
        # The same group: each rare pair points at the pair of its node's group level.
        levels_here, one_group_here = pair_level[here], one_group[pair_level[here]]
        first_pair = np.flatnonzero(here)[0]
        expected = np.where(
            one_group_here >= 0,
            first_pair + np.searchsorted(levels_here, one_group_here),
            -1,
        )
        np.testing.assert_array_equal(group[here], expected)
        # Totals are kept: the group holds exactly what the rare levels held.
        np.testing.assert_allclose(one.sum(axis=0), stats[i].sum(axis=0))
        assert one_counts.sum() == counts[i].sum()
        rare = (counts[i] > 0) & (counts[i] < 3)
        assert np.count_nonzero((one_counts > 0) & rare) == min(rare.sum(), 1)
    assert (group >= 0).any() and (group < 0).any()


def test_nothing_is_pooled_at_min_samples_level_1():
    rng = np.random.default_rng(1)
    counts = rng.integers(0, 3, size=20)
    stats = rng.normal(size=(20, 2))
    pooled, pooled_counts, group = pool_rare_levels(stats, counts, 1)
    assert (group == -1).all()
    np.testing.assert_array_equal(pooled, stats)
    np.testing.assert_array_equal(pooled_counts, counts)


def test_expand_pooled_sends_the_group_to_one_side():
    group = np.array([-1, 1, 1, -1, 4, -1, 4])
    left = np.array([True, True, False, False, False, True, True])
    assert expand_pooled(left, group).tolist() == [
        True, True, True, False, False, True, False
    ]  # fmt: skip


def test_brute_force_over_groups():
    """With pooling, the sorted scan is the best partition of the pooled levels
    (two classes): brute force over the partitions that keep the group together."""
    rng = np.random.default_rng(5)
    for _ in range(30):
        k = int(rng.integers(3, 8))
        n = int(rng.integers(10, 40))
        codes = rng.integers(0, k, size=n)
        Y = ct.one_hot(rng.integers(0, 2, size=n), 2)
        X = codes[:, None].astype(float)
        split = ct.best_categorical_split(
            X, Y, np.ones(n), "gini", 1, np.array([0]), "partition", 4
        )
        counts = np.bincount(codes, minlength=k)
        rare = np.flatnonzero((counts > 0) & (counts < 4))
        groups = [tuple(rare)] if len(rare) else []
        groups += [(c,) for c in np.flatnonzero(counts >= 4)]
        best = np.inf
        for mask in itertools.product([False, True], repeat=len(groups)):
            if all(mask) or not any(mask):
                continue
            left = np.isin(codes, [c for g, m in zip(groups, mask, strict=True) if m for c in g])
            score = sum(
                left_side.sum() / n * ct.gini(Y[left_side].mean(axis=0))
                for left_side in (left, ~left)
            )
            best = min(best, score)
        if len(groups) < 2:
            assert split is None
        else:
            assert split.score == pytest.approx(best, abs=1e-12)
            chosen = set(split.levels_left)
            assert set(rare) <= chosen or not (set(rare) & chosen)


def test_default_changes_nothing(mixed_frame):
    X, y_class, y_reg = mixed_frame
    for Model, y in [(ct.DecisionTreeClassifier, y_class), (ct.DecisionTreeRegressor, y_reg)]:
        plain = Model(max_depth=6).fit(X, y)
        one = Model(max_depth=6, min_samples_level=1).fit(X, y)
        assert_same_tree(plain.tree_, one.tree_)


def test_pooling_reduces_held_out_error_on_noise_levels():
    """A pure-noise feature with many rare levels against a weak numerical signal."""
    errors = {1: [], 10: []}
    for seed in range(10):
        rng = np.random.default_rng(seed)
        n = 1200
        x = rng.normal(size=n)
        noise_id = rng.integers(0, 300, size=n)
        y = (x > 0).astype(float) + rng.normal(scale=1.0, size=n)
        X = pd.DataFrame({"x": x, "id": pd.Categorical(noise_id)})
        train, test = slice(0, 600), slice(600, None)
        for m in errors:
            model = ct.DecisionTreeRegressor(max_depth=3, min_samples_level=m)
            model.fit(X[train], y[train])
            errors[m].append(np.mean((model.predict(X[test]) - y[test]) ** 2))
    assert np.mean(errors[10]) < np.mean(errors[1])


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True, None])
def test_bad_min_samples_level_is_a_clear_error(bad):
    model = ct.DecisionTreeRegressor(min_samples_level=bad)
    with pytest.raises(ValueError, match="min_samples_level"):
        model.fit(np.zeros((4, 1)) + np.arange(4)[:, None], np.arange(4.0))
