"""Missing values in numerical features: the candidates of one column, scikit-learn's way.

Chapter 9 of the book ("Missing values") explains this module.

A row whose value of feature ``j`` is NaN cannot be placed by a threshold on
``j``.  Following scikit-learn (since 1.3), the split search *learns* where
such rows go: at each node and for each feature it scores every threshold
twice, once with the node's missing rows on the right and once with them on
the left, and it also scores the split "present values left, missing values
right".  The winner records its direction, ``missing_go_to_left``.

Candidates of one feature, in the order the tie rule reads them (the first
of equal scores wins, after the lower feature):

1. missing rows on the right, thresholds increasing;
2. if the node has missing rows: present rows left, missing rows right,
   with threshold ``+inf`` (``NaN <= inf`` is false, every number is ``<=
   inf``);
3. if the node has missing rows: missing rows on the left, thresholds
   increasing.

This is the order of scikit-learn's ``BestSplitter``.  A feature with no
present value at the node offers no candidate.  Where the node has no
missing value for the chosen feature, rows missing it at predict time go to
the child that received more training rows (the right one on equal counts),
as in scikit-learn.

Every search (:func:`naive_best_split`, :func:`incremental_best_split`,
:func:`prefix_sum_best_split`, :func:`running_median_best_split`,
:func:`wavelet_best_split`) and the level-wise builder score exactly these
candidates.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._ties import midpoint_threshold, split_positions


class ColumnCandidates(NamedTuple):
    """The candidate splits of one feature at one node.

    ``order`` lists the rows with a value, sorted by it (stable); ``missing``
    the rows without one, in index order.  Candidate ``c`` sends left the
    rows ``order[: position[c] + 1]``, plus every row of ``missing`` when
    ``missing_left[c]``.  ``go_left[c]`` is the direction the fitted tree
    stores for missing values: ``missing_left[c]`` when the node has missing
    rows, else whether the left child has more rows than the right.
    """

    order: np.ndarray
    missing: np.ndarray
    position: np.ndarray
    missing_left: np.ndarray
    threshold: np.ndarray
    n_left: np.ndarray
    go_left: np.ndarray


def missing_goes_left(n_missing, missing_left, n_left, n_rows):
    """``missing_go_to_left`` of candidates: where a split sends missing values.

    The learned side (``missing_left``) where the node has missing rows
    (``n_missing > 0``); else the child with more training rows, the right
    one on equal counts.  Every builder and search stores this rule.

    >>> missing_goes_left(np.array([0, 0, 2]), False, np.array([3, 2, 1]), 4).tolist()
    [True, False, False]
    """
    return np.where(np.asarray(n_missing) > 0, missing_left, n_left > n_rows - n_left)


def column_candidates(x: np.ndarray, min_samples_leaf: int = 1) -> ColumnCandidates:
    """The candidates of a column ``x`` (NaN: missing), in tie-break order.

    Candidates leaving fewer than ``min_samples_leaf`` rows on a side are
    dropped.

    Examples
    --------
    >>> c = column_candidates(np.array([3.0, np.nan, 1.0, 2.0]))
    >>> c.order.tolist(), c.missing.tolist()
    ([2, 3, 0], [1])
    >>> c.threshold.tolist(), c.missing_left.tolist()
    ([1.5, 2.5, inf, 1.5, 2.5], [False, False, False, True, True])
    >>> c.n_left.tolist()
    [1, 2, 3, 2, 3]
    """
    x = np.asarray(x, dtype=float)
    present = ~np.isnan(x)
    missing = np.flatnonzero(~present)
    rows = np.flatnonzero(present)
    order = rows[np.argsort(x[rows], kind="stable")]
    x_sorted = x[order]
    n, n_missing, n_present = len(x), len(missing), len(order)
    pos = split_positions(x_sorted)
    thresholds = midpoint_threshold(x_sorted[pos], x_sorted[pos + 1])
    if n_missing and n_present:
        position = np.concatenate([pos, [n_present - 1], pos])
        missing_left = np.concatenate(
            [np.zeros(len(pos) + 1, dtype=bool), np.ones(len(pos), dtype=bool)]
        )
        threshold = np.concatenate([thresholds, [np.inf], thresholds])
    else:
        position, missing_left, threshold = pos, np.zeros(len(pos), dtype=bool), thresholds
    position = position.astype(np.intp)
    n_left = position + 1 + n_missing * missing_left
    keep = (n_left >= min_samples_leaf) & (n - n_left >= min_samples_leaf)
    go_left = missing_goes_left(n_missing, missing_left, n_left, n)
    return ColumnCandidates(
        order,
        missing,
        position[keep],
        missing_left[keep],
        np.asarray(threshold, dtype=float)[keep],
        n_left[keep],
        np.asarray(go_left, dtype=bool)[keep],
    )
