"""Sums of weights compared with bounds are exact: the same decisions in every
builder and in any row order (climbing_trees._exact_weights)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_equivalent

import climbing_trees as ct
from climbing_trees._compiled import _rules, grow_tree_compiled
from climbing_trees._exact_weights import (
    fixed_leaf_weight,
    fixed_weights,
    leaf_minimum,
    refused_sides,
    weight_exponent,
)
from climbing_trees._levelwise import grow_tree_levelwise
from climbing_trees._weights import min_weight_leaf


def hist(X, Y, w, **params):
    return grow_tree_levelwise(X, Y, w, max_bins=255, **params)


BUILDERS = {
    "grow_tree": ct.grow_tree,
    "levelwise": grow_tree_levelwise,
    "compiled": grow_tree_compiled,
    "hist": hist,
}


@pytest.mark.parametrize("builder", BUILDERS)
def test_ten_tenths_split_in_every_builder(builder):
    """Ten rows of 0.1 weigh exactly a little more than 1 (0.1 is above 1/10 in
    binary): with min_weight_leaf=0.5 the root splits 5 | 5 in every builder.
    Summed pairwise they gave 1.0 (split), in row order 0.9999999999999999 (leaf)."""
    X = np.arange(10.0)[:, None]
    Y = ct.one_hot(np.repeat([0, 1], 5), 2)
    w = np.full(10, 0.1)
    tree = BUILDERS[builder](X, Y, w, criterion="gini", min_weight_leaf=0.5)
    assert tree.node_count == 3
    assert tree.n_node_samples.tolist() == [10, 5, 5]


def test_ten_tenths_in_the_estimators():
    X = np.arange(10.0)[:, None]
    y = np.repeat([0, 1], 5)
    w = np.full(10, 0.1)
    for cls in (ct.DecisionTreeClassifier, ct.DecisionTreeRegressor):
        model = cls(min_weight_fraction_leaf=0.5).fit(X, y, sample_weight=w)
        assert model.tree_.node_count == 3
        # The bound itself: half the exactly rounded total, in any row order.
        assert min_weight_leaf(0.5, w[::-1]) == min_weight_leaf(0.5, w) == 0.5


def problem(seed):
    """Weights that are not dyadic (sums depend on order), min_weight_leaf at a sum."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(10, 80))
    X = rng.integers(0, 6, size=(n, 3)).astype(float)
    X[rng.random(X.shape) < 0.1] = np.nan
    Y = ct.one_hot(rng.integers(0, 3, size=n), 3)
    w = rng.choice([0.1, 0.2, 0.3, 0.7, 1.1, 0.0], size=n)
    w[0] = 0.3
    low = float(w[: int(rng.integers(2, 6))].sum())  # some rows' sum: a boundary
    return X, Y, w, low


@pytest.mark.parametrize("builder", ["grow_tree", "levelwise", "compiled"])
@pytest.mark.parametrize("seed", range(12))
def test_shuffled_rows_grow_the_same_tree(builder, seed):
    X, Y, w, low = problem(seed)
    order = np.random.default_rng(seed + 1000).permutation(len(X))
    grow = BUILDERS[builder]
    a = grow(X, Y, w, criterion="gini", min_weight_leaf=low)
    b = grow(X[order], Y[order], w[order], criterion="gini", min_weight_leaf=low)
    for name in ("children_left", "children_right", "feature", "n_node_samples"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    np.testing.assert_array_equal(a.threshold, b.threshold)
    np.testing.assert_allclose(a.weighted_n_node_samples, b.weighted_n_node_samples, rtol=1e-14)


@pytest.mark.parametrize("builder", ["levelwise", "compiled"])
@pytest.mark.parametrize("seed", range(12))
def test_builders_agree_at_weight_boundaries(builder, seed):
    X, Y, w, low = problem(seed)
    slow = ct.grow_tree(X, Y, w, criterion="gini", min_weight_leaf=low)
    assert_equivalent(BUILDERS[builder](X, Y, w, criterion="gini", min_weight_leaf=low), slow)


@pytest.mark.parametrize("builder", ["grow_tree", "levelwise", "compiled"])
def test_a_side_of_zero_weight_rows_is_refused(builder):
    """Sorted by x the positive weights sum to 0.9999999999999999, in row order
    to 1.0: the difference left the side of rows 0 and 3 (weight 0) a residue,
    and the compiled builder split there, then divided by its zero weight."""
    X = np.array([[3.0], [2.0], [2.0], [3.0], [1.0], [2.0], [2.0]])
    w = np.array([0.0, 0.7, 0.1, 0.0, 0.2, 0.0, 0.0])
    Y = ct.one_hot(np.array([1, 1, 0, 1, 1, 1, 0]), 2)
    for criterion in ("entropy", "gini"):
        tree = BUILDERS[builder](X, Y, w, criterion=criterion, min_samples_leaf=2)
        assert tree.node_count == 1
        assert np.all(tree.weighted_n_node_samples > 0)


@pytest.mark.parametrize("builder", ["levelwise", "compiled"])
@pytest.mark.parametrize("seed", range(30))
def test_zero_weight_rows_every_builder_as_grow_tree(builder, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 12))
    X = rng.integers(0, 4, size=(n, 2)).astype(float)
    X[rng.random(X.shape) < 0.2] = np.nan
    Y = ct.one_hot(rng.integers(0, 2, n), 2)
    w = rng.choice([0.1, 0.2, 0.3, 0.7, 0.0, 0.0, 0.0], n)
    w[0] = 0.2
    for criterion in ("entropy", "gini"):
        for msl in (1, 2):
            params = {"criterion": criterion, "min_samples_leaf": msl}
            tree = BUILDERS[builder](X, Y, w, **params)
            assert np.all(tree.weighted_n_node_samples > 0)
            assert_equivalent(tree, ct.grow_tree(X, Y, w, **params))


def test_fixed_point_sums_are_exact_in_any_order():
    rng = np.random.default_rng(0)
    w = rng.uniform(0, 1, 10_000) ** 3 * 10.0 ** rng.integers(-3, 3, 10_000)
    q = fixed_weights(w, leaf_minimum(1, 0.0, w))
    assert np.all(q == np.rint(q)) and q.sum() < 2**53
    for _ in range(5):
        assert rng.permutation(q).sum() == q.sum() == np.cumsum(rng.permutation(q))[-1]
    assert weight_exponent(w) == weight_exponent(rng.permutation(w))


def test_fixed_leaf_weight_is_the_exact_comparison():
    w = np.full(10, 0.1)
    leaf = leaf_minimum(1, 0.5, w)
    q, low = fixed_weights(w, leaf), fixed_leaf_weight(leaf)
    assert q[:5].sum() >= low  # 5 * q(0.1) * 2**-k >= 0.5
    assert q[:4].sum() < low
    assert refused_sides(q[:4].sum(), q[4:].sum(), leaf)
    assert not refused_sides(q[:5].sum(), q[5:].sum(), leaf)


def test_refused_side_port_equals_the_rule():
    rng = np.random.default_rng(3)
    q_left = rng.integers(0, 6, 2000).astype(float)
    q_right = rng.integers(0, 6, 2000).astype(float)
    for b in (0.0, 0.3, 2.0, 3.0):
        leaf = leaf_minimum(1, b, np.ones(4))  # k = 50
        low = fixed_leaf_weight(leaf)
        expected = refused_sides(q_left * 2.0**50, q_right * 2.0**50, leaf)
        pairs = zip(q_left * 2.0**50, q_right * 2.0**50, strict=True)
        got = [_rules.refused_side(a, c, low) for a, c in pairs]
        assert got == expected.tolist()
