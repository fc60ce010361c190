"""The ``min_impurity_decrease`` test is scale-aware and shared by both builders.

An XOR target gives splits whose decrease is zero in exact arithmetic.  With a
large target the computed decrease is rounding noise of either sign; an absolute
allowance of one machine epsilon then let the row order decide whether the root
splits, and the two builders disagreed.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_equivalent

import climbing_trees as ct
from climbing_trees._levelwise import grow_tree_levelwise

CRITERIA = ("gini", "entropy", "squared_error")


def xor_corners(copies: int = 25):
    """The four corners of the unit square, ``copies`` of each; label ``x0 xor x1``."""
    corners = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    X = np.repeat(corners, copies, axis=0)
    label = np.logical_xor(X[:, 0], X[:, 1]).astype(float)
    return X, label


def both_builders(X, Y, w, criterion, **params):
    slow = ct.grow_tree(X, Y, w, criterion=criterion, **params)
    fast = grow_tree_levelwise(X, Y, w, criterion=criterion, **params)
    return slow, fast


@pytest.mark.parametrize("seed", range(60))
def test_scaled_xor_grows_in_both_builders_on_every_row_order(seed):
    """The reported case: 25 copies of each corner, target scaled to about 8.2e5."""
    X, label = xor_corners()
    y = label * 820263.5004432432
    order = np.random.default_rng(seed).permutation(len(X))
    X, Y, w = X[order], y[order, None], np.ones(len(X))
    slow, fast = both_builders(X, Y, w, "squared_error")
    assert slow.node_count == 7  # root, two children on x0 or x1, four pure leaves
    assert_equivalent(fast, slow)


SCALES = [1e-300, 1e-200, 1e-100, 1e-8, 1.0, 1e8, 1e100, 1e150]


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("shift", [0.0, 1.0, -3.0])
@pytest.mark.parametrize("weighted", [False, True])
def test_regression_xor_at_every_scale(scale, shift, weighted):
    """Targets scaled and shifted: both builders grow the full XOR tree, alike."""
    X, label = xor_corners(copies=7)
    rng = np.random.default_rng(int(np.log10(scale)) + 400)
    w = rng.uniform(0.5, 2.0, size=len(X)) if weighted else np.ones(len(X))
    # Balance the weights of the four corners so that no single split helps.
    for corner in range(4):
        block = slice(7 * corner, 7 * corner + 7)
        w[block] *= 1.0 / w[block].sum()
    y = (label + shift) * scale
    for seed in range(8):
        order = np.random.default_rng(seed).permutation(len(X))
        slow, fast = both_builders(X[order], y[order, None], w[order], "squared_error")
        assert_equivalent(fast, slow)
        # At 1e-300 the squares underflow to zero: the impurity is 0 and nothing
        # distinguishes the splits, but the builders still agree.
        if scale >= 1e-100:
            assert slow.node_count == 7


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("scale", SCALES)
def test_classification_xor_with_scaled_weights(criterion, scale):
    """Class labels have no scale; the weights do.  Weighted XOR at every weight scale."""
    X, label = xor_corners(copies=5)
    Y = ct.one_hot(label.astype(int), 2)
    w = np.full(len(X), scale)
    for seed in range(8):
        order = np.random.default_rng(seed).permutation(len(X))
        slow, fast = both_builders(X[order], Y[order], w[order], criterion)
        assert_equivalent(fast, slow)
        assert slow.node_count == 7


@pytest.mark.parametrize("criterion", CRITERIA)
@pytest.mark.parametrize("seed", range(40))
def test_random_problems_at_random_scales_agree(criterion, seed):
    """Random tied problems, weights and stopping rules, targets at random scales."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 120))
    X = rng.integers(0, 3, size=(n, 3)).astype(float)
    if criterion == "squared_error":
        scale = 10.0 ** rng.uniform(-300, 150)
        Y = ((rng.integers(0, 3, size=n) + rng.normal(size=n) * 1e-3) * scale)[:, None]
        Y += rng.choice([0.0, scale, -7 * scale])
    else:
        Y = ct.one_hot(rng.integers(0, 3, size=n), 3)
    # Weights at random scales too (kept where w * y**2 cannot overflow).
    w_scale = (
        10.0 ** rng.uniform(-3, 3)
        if criterion == "squared_error"
        else 10.0 ** rng.uniform(-100, 100)
    )
    w = rng.uniform(0.1, 3.0, size=n) * w_scale
    params = {
        "max_depth": int(rng.integers(1, 6)),
        "min_samples_leaf": int(rng.integers(1, 4)),
        "min_impurity_decrease": float(rng.choice([0.0, 0.0, 1e-3])),
    }
    slow, fast = both_builders(X, Y, w, criterion, **params)
    assert_equivalent(fast, slow)


def test_estimators_grow_the_xor_tree():
    """Through the public estimator (level-wise builder), on every row order."""
    X, label = xor_corners()
    y = label * 820263.5004432432
    for seed in range(20):
        order = np.random.default_rng(seed).permutation(len(X))
        model = ct.DecisionTreeRegressor().fit(X[order], y[order])
        assert model.tree_.node_count == 7
        np.testing.assert_allclose(model.predict(X), y, rtol=1e-15)  # a mean: to an ulp


def test_a_real_increase_is_still_refused():
    """The allowance is relative and tiny: a minimum it misses by 1e-9 still stops."""
    assert not ct.enough_decrease(1.0, 1.0, 1.0, 0.5, 0.5 + 1e-9)
    assert ct.enough_decrease(1.0, 1.0, 1.0, 0.5, 0.5)
    decreases = ct.enough_decrease(
        np.array([1.0, 2.0]), 4.0, np.array([1.0, 1.0]), np.array([0.9, 0.9]), 0.05
    )
    assert decreases.tolist() == [False, True]
