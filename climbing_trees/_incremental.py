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
"""

from __future__ import annotations

import numpy as np

from ._criteria import _centred, impurity_from_statistics, node_statistics, total_weight
from ._naive import Split
from ._ties import choose_best, midpoint_threshold, refused_weights, split_positions


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

    Examples
    --------
    >>> X = np.array([[1.0], [2.0], [3.0], [4.0]])
    >>> Y = np.array([[0.0], [0.0], [10.0], [10.0]])
    >>> incremental_best_split(X, Y, np.ones(4), "squared_error")
    Split(feature=0, threshold=2.5, score=0.0)
    """
    n_samples, n_features = X.shape
    phi = node_statistics(_centred(Y, sample_weight, criterion), sample_weight, criterion)
    node_stats = phi.sum(axis=0)
    total = total_weight(node_stats, criterion)
    parent = float(impurity_from_statistics(node_stats, criterion))
    features, thresholds, scores = [], [], []
    for j in range(n_features):
        order = np.argsort(X[:, j], kind="stable")
        x_sorted = X[order, j]
        left = np.zeros_like(node_stats)
        right = node_stats.copy()
        for i in range(n_samples - 1):
            # The O(1) update: row order[i] moves from the right child to the left.
            left += phi[order[i]]
            right -= phi[order[i]]
            if x_sorted[i] == x_sorted[i + 1]:
                continue  # a threshold never separates equal values
            if i + 1 < min_samples_leaf or n_samples - i - 1 < min_samples_leaf:
                continue
            w_left = total_weight(left, criterion)
            w_right = total_weight(right, criterion)
            if refused_weights(w_left, w_right, min_samples_leaf):
                continue
            score = (
                w_left * impurity_from_statistics(left, criterion)
                + w_right * impurity_from_statistics(right, criterion)
            ) / total
            features.append(j)
            thresholds.append(float(midpoint_threshold(x_sorted[i], x_sorted[i + 1])))
            scores.append(float(score))
    best = choose_best(np.array(scores), parent)
    if best < 0:
        return None
    return Split(features[best], thresholds[best], scores[best])


def prefix_sum_best_split(
    X: np.ndarray,
    Y: np.ndarray,
    sample_weight: np.ndarray,
    criterion: str,
    min_samples_leaf: int = 1,
) -> Split | None:
    """Best split with all left-child statistics from one cumulative sum.

    ``cumsum`` of the per-row statistics, in the feature's sorted order, gives
    the left child of every candidate at once; the right child is the node's
    total minus the left.  Same parameters, result and tie rules as
    :func:`climbing_trees.naive_best_split`.

    Examples
    --------
    >>> X = np.array([[1.0, 5.0], [2.0, 5.0], [3.0, 5.0], [4.0, 5.0]])
    >>> Y = np.array([[0.0], [0.0], [10.0], [10.0]])
    >>> prefix_sum_best_split(X, Y, np.ones(4), "squared_error")
    Split(feature=0, threshold=2.5, score=0.0)
    """
    n_samples, n_features = X.shape
    phi = node_statistics(_centred(Y, sample_weight, criterion), sample_weight, criterion)
    node_stats = phi.sum(axis=0)
    total = total_weight(node_stats, criterion)
    parent = float(impurity_from_statistics(node_stats, criterion))
    candidates, all_scores = [], []
    for j in range(n_features):
        order = np.argsort(X[:, j], kind="stable")
        x_sorted = X[order, j]
        pos = split_positions(x_sorted)
        n_left = pos + 1
        pos = pos[(n_left >= min_samples_leaf) & (n_samples - n_left >= min_samples_leaf)]
        left = np.cumsum(phi[order], axis=0)[pos]
        right = node_stats - left
        w_left = total_weight(left, criterion)
        w_right = total_weight(right, criterion)
        with np.errstate(invalid="ignore"):
            scores = (
                w_left * impurity_from_statistics(left, criterion)
                + w_right * impurity_from_statistics(right, criterion)
            ) / total
        scores[refused_weights(w_left, w_right, min_samples_leaf)] = np.nan
        candidates.append((j, x_sorted, pos))
        all_scores.append(scores)
    scores = np.concatenate(all_scores) if all_scores else np.empty(0)
    k = choose_best(scores, parent)
    if k < 0:
        return None
    # Map the flat index k back to (feature, position) and place the threshold.
    sizes = np.cumsum([len(pos) for _, _, pos in candidates])
    f = int(np.searchsorted(sizes, k, side="right"))
    j, x_sorted, pos = candidates[f]
    i = pos[k - (sizes[f - 1] if f else 0)]
    return Split(j, float(midpoint_threshold(x_sorted[i], x_sorted[i + 1])), float(scores[k]))
