"""The naive O(N^2) split search: the reference every faster search must match.

Chapter 2 of the book ("The naive split search and greedy growth") explains
this module.  For every feature, sort the node's rows by that feature and, for
every threshold between two distinct values, recompute the impurity of both
children from their labels.  Each candidate costs O(N), so a feature costs
O(N^2).  It is slow on purpose: it is obviously right, and the tests use it as
the oracle for the incremental searches of chapter 3.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._criteria import node_impurity
from ._exact_weights import fixed_weights, refused_sides
from ._missing import column_candidates
from ._ties import choose_best


class Split(NamedTuple):
    """The best split of a node.

    ``score`` is the weighted mean impurity of the two children,
    ``(W_left * I_left + W_right * I_right) / W``; lower is better, and the
    node's impurity minus ``score`` is the split's impurity decrease.
    ``missing_go_to_left``: where rows missing the feature go (chapter 9,
    :mod:`climbing_trees._missing`).

    Parameters
    ----------
    feature : int
        Column of ``X`` that the test reads.
    threshold : float
        Rows with ``x[feature] <= threshold`` go left.
    score : float
        Weighted mean impurity of the two children.
    missing_go_to_left : bool
        Whether rows missing the feature go left.

    Examples
    --------
    >>> split = Split(feature=0, threshold=2.5, score=0.0)
    >>> split.threshold, split.missing_go_to_left
    (2.5, False)
    """

    feature: int
    threshold: float
    score: float
    missing_go_to_left: bool = False


def naive_best_split(
    X: np.ndarray,
    Y: np.ndarray,
    sample_weight: np.ndarray,
    criterion: str,
    min_samples_leaf: int = 1,
) -> Split | None:
    """Best split of one node by recomputing the criterion for every candidate.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Numerical features of the node's rows; NaN marks a missing value.
    Y : ndarray of shape (n_samples, n_outputs)
        One-hot labels (classification) or a target column (regression).
    sample_weight : ndarray of shape (n_samples,)
        Weights of the rows.
    criterion : {"gini", "entropy", "log_loss", "squared_error", "poisson", "absolute_error"}
        The impurity to minimise.
    min_samples_leaf : int
        Candidates leaving fewer rows than this on either side are skipped.

    Returns
    -------
    Split or None
        ``None`` when no candidate is allowed (all features constant, or every
        candidate violates ``min_samples_leaf``).

    Notes
    -----
    Ties follow :mod:`climbing_trees._ties`: thresholds lie between distinct
    values, and among equal scores the lowest feature, then lowest threshold,
    wins.  With missing values each feature also has the candidates of
    :func:`climbing_trees.column_candidates` (missing rows left, or alone on
    the right), in the order given there.

    Examples
    --------
    >>> X = np.array([[1.0], [2.0], [3.0], [4.0]])
    >>> Y = np.array([[0.0], [0.0], [10.0], [10.0]])
    >>> naive_best_split(X, Y, np.ones(4), "squared_error")
    Split(feature=0, threshold=2.5, score=0.0, missing_go_to_left=False)
    """
    n_samples, n_features = X.shape
    total = sample_weight.sum()
    parent = node_impurity(Y, sample_weight, criterion)
    # The weights as exact integers (fixed point), so "a side without weight" is exact.
    q = fixed_weights(sample_weight, min_samples_leaf)
    splits, scores = [], []
    for j in range(n_features):
        c = column_candidates(X[:, j], min_samples_leaf)
        for k in range(len(c.position)):
            # Recompute both children from their rows: the obviously right way.
            left = np.zeros(n_samples, dtype=bool)
            left[c.order[: c.position[k] + 1]] = True
            left[c.missing] = c.missing_left[k]
            if refused_sides(
                q[left].sum(), q[~left].sum(), min_samples_leaf, sample_weight
            ):
                continue
            w_left, w_right = sample_weight[left].sum(), sample_weight[~left].sum()
            score = (
                w_left * node_impurity(Y[left], sample_weight[left], criterion)
                + w_right * node_impurity(Y[~left], sample_weight[~left], criterion)
            ) / total
            splits.append(
                Split(j, float(c.threshold[k]), float(score), bool(c.go_left[k]))
            )
            scores.append(score)
    best = choose_best(np.array(scores), parent)
    if best < 0:
        return None
    return splits[best]
