"""Incremental split searches: O(1) criterion updates and prefix sums.

Chapter 3 of the book ("Incremental criteria") explains this module.

Sorting a node's rows by a feature and sliding the threshold from left to
right moves exactly one row from the right child to the left child per step.
The criteria of :mod:`climbing_trees._criteria` depend on the rows only
through summed statistics (weighted class counts; or weight, weighted sum and
weighted sum of squares), so one move is one addition and one subtraction.

* :func:`incremental_best_split` writes that update as an explicit loop: the
  algorithm as you would write it in C.
* :func:`prefix_sum_best_split` computes every left-child statistic at once
  with a cumulative sum: the same idea, vectorised for numpy.

Both return exactly what :func:`climbing_trees.naive_best_split` returns.

Missing values (chapter 9) cost one more statistic per node and feature:
the sum over the rows missing the feature.  A candidate that sends them
left adds it to its left child; the right child is, as always, the node's
total minus the left.
"""

from __future__ import annotations

import numpy as np

from ._criteria import (
    _centred,
    children_score,
    impurity_from_statistics,
    node_statistics,
    total_weight,
)
from ._exact_weights import fixed_weights, refused_sides
from ._missing import column_candidates
from ._monotonic import NodeConstraints, refused_candidates, value_statistics
from ._naive import Split
from ._ties import choose_best


def incremental_best_split(
    X: np.ndarray,
    Y: np.ndarray,
    sample_weight: np.ndarray,
    criterion: str,
    min_samples_leaf: int = 1,
) -> Split | None:
    """Best split, updating the children's statistics in O(1) per moved row.

    Same parameters, result and tie rules as
    :func:`climbing_trees.naive_best_split`; each feature costs
    O(N log N) for the sort plus O(N) for the scan.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Numerical features of the node's rows; NaN marks a missing value.
    Y : ndarray of shape (n_samples, n_columns)
        One-hot labels (classification) or the targets (regression).
    sample_weight : ndarray of shape (n_samples,)
        Weights of the rows.
    criterion : str
        A criterion with sufficient statistics (not ``"absolute_error"``).
    min_samples_leaf : int
        Candidates leaving fewer rows than this on either side are skipped.

    Returns
    -------
    Split or None
        As :func:`climbing_trees.naive_best_split` returns it.

    Examples
    --------
    >>> X = np.array([[1.0], [2.0], [3.0], [4.0]])
    >>> Y = np.array([[0.0], [0.0], [10.0], [10.0]])
    >>> incremental_best_split(X, Y, np.ones(4), "squared_error")
    Split(feature=0, threshold=2.5, score=0.0, missing_go_to_left=False)
    """
    n_samples, n_features = X.shape
    centred = _centred(Y, sample_weight, criterion)
    phi = node_statistics(centred, sample_weight, criterion)
    node_stats = phi.sum(axis=0)
    total = total_weight(node_stats, criterion)
    parent = float(impurity_from_statistics(node_stats, criterion))
    # The weights as exact integers (fixed point), so "a side without weight" is exact.
    q = fixed_weights(sample_weight, min_samples_leaf)
    q_total = q.sum()
    splits, scores = [], []
    for j in range(n_features):
        c = column_candidates(X[:, j], min_samples_leaf)
        q_left = _prefix(q[:, None], c)[:, 0]
        missing = np.cumsum(phi[c.missing], axis=0)[-1] if len(c.missing) else 0.0
        # The sweep: left statistics after each present row moves left, O(1) each.
        left = np.zeros_like(node_stats)
        after = np.empty((len(c.order), len(node_stats)))
        for i, row in enumerate(c.order):
            left += phi[row]
            after[i] = left
        for k in range(len(c.position)):
            left = after[c.position[k]]
            if c.missing_left[k]:
                left = left + missing
            right = node_stats - left
            score, w_left, w_right = children_score(left, right, criterion, total)
            q_right = q_total - q_left[k]
            if refused_sides(q_left[k], q_right, min_samples_leaf, sample_weight):
                continue
            score = float(score)
            splits.append(Split(j, float(c.threshold[k]), score, bool(c.go_left[k])))
            scores.append(score)
    best = choose_best(np.array(scores), parent)
    if best < 0:
        return None
    return splits[best]


def prefix_sum_best_split(
    X: np.ndarray,
    Y: np.ndarray,
    sample_weight: np.ndarray,
    criterion: str,
    min_samples_leaf: int = 1,
    monotonic: NodeConstraints | None = None,
) -> Split | None:
    """Best split with all left-child statistics from one cumulative sum.

    ``cumsum`` of the per-row statistics, in the feature's sorted order, gives
    the left child of every candidate at once; the right child is the node's
    total minus the left.  Same parameters, result and tie rules as
    :func:`climbing_trees.naive_best_split`.  With ``monotonic`` (a
    :class:`climbing_trees._monotonic.NodeConstraints`, one constraint per
    column of ``X``), candidates on a constrained column whose children's
    values break the constraint or the node's bounds are refused
    (:func:`climbing_trees._monotonic.refused_candidates`, chapter 5).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Numerical features of the node's rows; NaN marks a missing value.
    Y : ndarray of shape (n_samples, n_columns)
        One-hot labels (classification) or the targets (regression).
    sample_weight : ndarray of shape (n_samples,)
        Weights of the rows.
    criterion : str
        A criterion with sufficient statistics (not ``"absolute_error"``).
    min_samples_leaf : int
        Candidates leaving fewer rows than this on either side are skipped.
    monotonic : NodeConstraints, optional
        The node's monotonic constraints and value bounds.

    Returns
    -------
    Split or None
        As :func:`climbing_trees.naive_best_split` returns it.

    Examples
    --------
    >>> X = np.array([[1.0, 5.0], [2.0, 5.0], [3.0, 5.0], [4.0, 5.0]])
    >>> Y = np.array([[0.0], [0.0], [10.0], [10.0]])
    >>> prefix_sum_best_split(X, Y, np.ones(4), "squared_error")
    Split(feature=0, threshold=2.5, score=0.0, missing_go_to_left=False)
    """
    n_samples, n_features = X.shape
    centred = _centred(Y, sample_weight, criterion)
    phi = node_statistics(centred, sample_weight, criterion)
    node_stats = phi.sum(axis=0)
    total = total_weight(node_stats, criterion)
    parent = float(impurity_from_statistics(node_stats, criterion))
    q = fixed_weights(sample_weight, min_samples_leaf)  # exact sums, for refusals
    q_total = q.sum()
    if monotonic is not None:
        # The children's values, for the constraints; the node's sums added in
        # index order, as every builder adds them (node_value, segment_sums).
        v = value_statistics(Y, sample_weight)
        v_total = np.cumsum(v, axis=0)[-1]
    candidates, all_scores = [], []
    for j in range(n_features):
        c = column_candidates(X[:, j], min_samples_leaf)
        left = _prefix(phi, c)
        right = node_stats - left
        scores, w_left, w_right = children_score(left, right, criterion, total)
        q_left = _prefix(q[:, None], c)[:, 0]
        q_right = q_total - q_left
        refused = refused_sides(q_left, q_right, min_samples_leaf, sample_weight)
        scores[refused] = np.nan
        if monotonic is not None and monotonic.cst[j] != 0:
            lower, upper = monotonic.lower, monotonic.upper
            refused = refused_candidates(
                monotonic.cst[j], _prefix(v, c), v_total, lower, upper
            )
            scores[refused] = np.nan
        candidates.append((j, c))
        all_scores.append(scores)
    scores = np.concatenate(all_scores) if all_scores else np.empty(0)
    k = choose_best(scores, parent)
    if k < 0:
        return None
    # Map the flat index k back to (feature, candidate).
    sizes = np.cumsum([len(c.position) for _, c in candidates])
    f = int(np.searchsorted(sizes, k, side="right"))
    j, c = candidates[f]
    i = k - (sizes[f - 1] if f else 0)
    return Split(j, float(c.threshold[i]), float(scores[k]), bool(c.go_left[i]))


def _prefix(phi: np.ndarray, c) -> np.ndarray:
    """The left children's sums of ``phi`` for the candidates ``c`` of one column."""
    left = np.cumsum(phi[c.order], axis=0)[c.position]
    if len(c.missing):
        # One more statistic: the missing rows' sum, added where they go left.
        missing = np.cumsum(phi[c.missing], axis=0)[-1]
        left[c.missing_left] = left[c.missing_left] + missing
    return left
