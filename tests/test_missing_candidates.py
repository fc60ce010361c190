"""The missing-value candidate order is written once: ``allowed_candidates``.

:func:`climbing_trees.column_candidates` lists one column's candidates; the
level-wise searches ask :func:`climbing_trees._missing.allowed_candidates` for
all their nodes and features at once.  Both must name the same candidates.
"""

from __future__ import annotations

import numpy as np
import pytest

from climbing_trees import column_candidates
from climbing_trees._missing import allowed_candidates


def column(rng):
    n = int(rng.integers(0, 14))
    x = rng.integers(0, int(rng.integers(1, 6)), size=n).astype(float)
    if rng.random() < 0.3:
        x = rng.normal(size=n)
    x[rng.random(n) < rng.uniform(0.0, 0.8)] = np.nan
    return x


def listed_by_hand(x, msl):
    """The candidates the module docstring lists, one by one: (position, missing left)."""
    x_sorted = np.sort(x[~np.isnan(x)])
    n, n_present = len(x), len(x_sorted)
    n_missing = n - n_present
    between = [p for p in range(n_present - 1) if x_sorted[p] < x_sorted[p + 1]]
    out = [(p, False) for p in between]  # 1. missing rows right
    if n_missing and n_present:
        out.append((n_present - 1, False))  # 2. present left, missing right
        out += [(p, True) for p in between]  # 3. missing rows left
    kept = []
    for p, left in out:
        n_left = p + 1 + (n_missing if left else 0)
        if n_left >= msl and n - n_left >= msl:
            kept.append((p, left))
    return kept


@pytest.mark.parametrize("seed", range(10))
def test_allowed_candidates_are_column_candidates(seed):
    rng = np.random.default_rng(seed)
    for _ in range(200):
        x = column(rng)
        msl = int(rng.integers(1, 5))
        listed = column_candidates(x, msl)
        x_sorted = np.sort(x[~np.isnan(x)])
        n_present, n_missing = len(x_sorted), int(np.isnan(x).sum())
        # Every position, including ones outside the present rows.
        position = np.arange(-2, len(x) + 2)
        at = np.clip(position, 0, max(n_present - 1, 0))
        nxt = np.clip(position + 1, 0, max(n_present - 1, 0))
        distinct = x_sorted[at] < x_sorted[nxt] if n_present else np.zeros(len(position), bool)
        found = []
        for left in (False, True):  # the tie-break order: missing right, then left
            ok = allowed_candidates(position, n_present, n_missing, msl, left, distinct)
            found += [(int(p), left) for p in position[ok]]
        pairs = zip(listed.position.tolist(), listed.missing_left.tolist(), strict=True)
        expected = listed_by_hand(x, msl)
        assert list(pairs) == expected, (x, msl)
        assert found == expected, (x, msl)


def test_allowed_candidates_broadcast_over_nodes_and_features():
    # Two nodes by two features, as a level-wise block asks: (c, f, 1) counts
    # against (positions,), each row the same as one column's call.
    n_present = np.array([[[4], [2]], [[3], [0]]])
    n_missing = np.array([[[1], [0]], [[2], [3]]])
    position = np.arange(5)
    for left in (False, True):
        both = allowed_candidates(position, n_present, n_missing, 2, left)
        for c in range(2):
            for f in range(2):
                one = allowed_candidates(position, n_present[c, f], n_missing[c, f], 2, left)
                np.testing.assert_array_equal(both[c, f], one)
