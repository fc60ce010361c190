"""The prefix-sum search's chunked choice equals its all-at-once choice.

A block of nodes whose candidates exceed ``_CHUNK_CELLS`` cells is searched a
few features at a time (:meth:`_Block.choose`): each group (feature and pass)
keeps its best gain and first position, then the node chooses among groups.
That must be the one choice of :func:`climbing_trees._ties.choose_best_gains`
over all the node's candidates, near ties between features included.  These
tests do not rely on the saved corpus: they force the chunked path with a small
``_CHUNK_CELLS`` and compare it with the direct path bit for bit.
"""

from __future__ import annotations

import levelwise_corpus as corpus
import numpy as np
import pytest

import climbing_trees as ct
from climbing_trees._levelwise import _orders, _prefix, grow_tree_levelwise
from climbing_trees._ties import choose_best_gains


def captured_blocks(monkeypatch):
    """The prefix-sum blocks of a small tie-free problem, as the builder made them."""
    blocks = []
    store = _prefix._Block.store

    def keep(self, winners):
        blocks.append(self)
        return store(self, winners)

    monkeypatch.setattr(_prefix._Block, "store", keep)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 4))  # no ties: no position refused
    y = (X[:, 0] + X[:, 1] + rng.normal(size=400) > 0).astype(int)
    grow_tree_levelwise(X, ct.one_hot(y, 2), np.ones(400), criterion="gini", max_depth=3)
    monkeypatch.setattr(_prefix._Block, "store", store)
    return [b for b in blocks if b.shared.passes == 1 and b.L > 12]


def synthetic_gains(block, seed):
    """Gains with near ties across features: ``best - k tol`` for k in 0, 1/2, 3/2, 3."""
    rng = np.random.default_rng(seed)
    c, n_slots, L = block.c, block.feat.shape[1], block.L
    score = 0.5 * block.node_impurity
    const = block.const if np.ndim(block.const) else np.full(c, block.const)
    top = const - block.w_t * score  # each node's best gain
    tol = block.tolerance(top)
    steps = rng.choice([0.5, 1.5, 3.0, 10.0], size=(c, n_slots, 1, L - 1))
    node = np.arange(c)
    steps[node, rng.integers(1, n_slots, size=c), 0, rng.integers(0, L - 1, size=c)] = 0.0
    # The case chunking gets wrong if done pairwise: a feature whose own best is
    # half a tolerance below the node's best, with a position 3/2 below before it.
    steps[node, 0, 0, :] = 10.0
    steps[node, 0, 0, 3], steps[node, 0, 0, 5] = 1.5, 0.5
    return top[:, None, None, None] - steps * tol[:, None, None, None]


@pytest.mark.parametrize("seed", range(6))
def test_block_choose_chunked_equals_direct_and_the_tie_rule(monkeypatch, seed):
    blocks = captured_blocks(monkeypatch)
    assert blocks
    for block in blocks:
        gains = synthetic_gains(block, seed)
        idx = block.gains_of(slice(None), block.shared.refused_first)[1]

        def fake(s, refuse, gains=gains, idx=idx):
            return gains[:, s].copy(), idx[:, s]

        block.gains_of = fake
        flat = gains.reshape(block.c, -1)
        best, first = choose_best_gains(flat, block.const, block.w_t, block.node_impurity)
        expected = (best, *np.divmod(first, block.L - 1))
        choices = {}
        for chunk in (1 << 30, 1, block.c * block.L, 2 * block.c * block.L):
            monkeypatch.setattr(_orders, "_CHUNK_CELLS", chunk)
            choices[chunk] = block.choose()
        for chunk, got in choices.items():
            for a, b in zip(got, expected, strict=True):
                np.testing.assert_array_equal(a, b, err_msg=f"_CHUNK_CELLS={chunk}")
        # The near tie across features: feature 0 (first in tie-break order)
        # at its position 5, half a tolerance below the best; not its own
        # first position within its own tolerance (3).
        assert (expected[1] == 0).all() and (expected[2] == 5).all()


SEEDS = [s for s in range(0, 300, 2) if s % 17]  # the small direct problems


@pytest.mark.parametrize("seed", SEEDS + [17, 34, 51])
def test_chunked_search_grows_the_same_tree(monkeypatch, seed):
    X, Y, w, kwargs = corpus.direct_problem(seed)
    direct = corpus.tree_hashes(grow_tree_levelwise(X, Y, w, **kwargs))
    monkeypatch.setattr(_orders, "_CHUNK_CELLS", 8 + 12 * (seed % 4))
    chunked = corpus.tree_hashes(grow_tree_levelwise(X, Y, w, **kwargs))
    assert chunked == direct


@pytest.mark.parametrize("criterion", ["gini", "entropy", "squared_error"])
@pytest.mark.parametrize("seed", range(8))
def test_chunked_search_with_a_few_ties_grows_the_same_tree(monkeypatch, criterion, seed):
    # Features with a few equal neighbours (values rounded to 3 decimals): their
    # ties are checked after the choice, in the chunked path as in the direct one.
    rng = np.random.default_rng(seed)
    n = int(rng.integers(120, 260))
    X = np.round(rng.normal(size=(n, 4)), 3)
    if seed % 4 == 3:
        X[rng.random((n, 4)) < 0.1] = np.nan
    if criterion == "squared_error":
        Y = rng.integers(0, 4, size=(n, 1)).astype(float)
    else:
        Y = ct.one_hot(rng.integers(0, 3, size=n), 3)
    w = np.ones(n) if seed % 2 else rng.uniform(0.5, 2.0, size=n)
    direct = corpus.tree_hashes(grow_tree_levelwise(X, Y, w, criterion=criterion))
    monkeypatch.setattr(_orders, "_CHUNK_CELLS", 24 + 16 * (seed % 3))
    chunked = corpus.tree_hashes(grow_tree_levelwise(X, Y, w, criterion=criterion))
    assert chunked == direct
