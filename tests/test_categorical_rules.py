"""Categorical rules written once: the level-wise block asks _categorical's functions."""

import numpy as np
import pytest

from climbing_trees._categorical import (
    level_order,
    level_order_keys,
    multiclass_beyond_scan,
    multiclass_plan,
)


@pytest.mark.parametrize("criterion,columns", [("gini", 2), ("gini", 4), ("squared_error", 3)])
@pytest.mark.parametrize("seed", range(10))
def test_block_keys_order_levels_as_level_order(criterion, columns, seed):
    # A block of nodes, present levels then padding, sorted by the block keys
    # (ties by code, absent levels last) gives each node's level_order.
    rng = np.random.default_rng(seed)
    n_nodes, n_levels = 6, 7
    counts = rng.integers(0, 3, size=(n_nodes, n_levels)) * (rng.random((n_nodes, 1)) < 0.9)
    stats = rng.integers(0, 4, size=(n_nodes, n_levels, columns)).astype(float)
    if criterion == "squared_error":
        stats[..., 0] = counts
        stats[..., 2] = stats[..., 1] ** 2
    stats[counts == 0] = 0.0
    keys = level_order_keys(stats, counts, criterion)
    for node in range(n_nodes):
        present = np.flatnonzero(counts[node] > 0)
        order = present[np.lexsort((present, keys[node, present]))]
        expected = level_order(stats[node], counts[node], criterion)
        np.testing.assert_array_equal(order, expected)
        alone = level_order_keys(stats[node], counts[node], criterion)
        np.testing.assert_array_equal(alone[present], keys[node, present])


@pytest.mark.parametrize("seed", range(40))
def test_beyond_scan_is_where_multiclass_plan_leaves_the_scan(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 8))
    stats = rng.integers(0, 3, size=(k, 4)).astype(float) * (rng.random(4) < 0.7)
    counts = rng.integers(0, 3, size=k)
    stats[counts == 0] = 0.0
    n_classes = int((stats[counts > 0].sum(axis=0) > 0).sum())
    beyond = multiclass_beyond_scan(np.array([n_classes]), np.array([(counts > 0).sum()]))
    assert bool(beyond[0]) == (multiclass_plan(stats, counts, "gini") != "scan")
