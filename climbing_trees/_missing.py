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

from ._ties import constant_features, midpoint_threshold, split_positions


class ColumnCandidates(NamedTuple):
    """The candidate splits of one feature at one node.

    ``order`` lists the rows with a value, sorted by it (stable); ``missing``
    the rows without one, in index order.  Candidate ``c`` sends left the
    rows ``order[: position[c] + 1]``, plus every row of ``missing`` when
    ``missing_left[c]``.  ``go_left[c]`` is the direction the fitted tree
    stores for missing values: ``missing_left[c]`` when the node has missing
    rows, else whether the left child has more rows than the right.

    Parameters
    ----------
    order : ndarray of int
        Rows with a value, sorted by it.
    missing : ndarray of int
        Rows without a value, increasing.
    position : ndarray of int of shape (n_candidates,)
        Candidate ``c`` sends ``order[: position[c] + 1]`` left.
    missing_left : ndarray of bool of shape (n_candidates,)
        Whether candidate ``c`` sends the missing rows left too.
    threshold : ndarray of float of shape (n_candidates,)
        The candidate's threshold (``inf``: present left, missing right).
    n_left : ndarray of int of shape (n_candidates,)
        Rows on the left.
    go_left : ndarray of bool of shape (n_candidates,)
        The fitted tree's ``missing_go_to_left`` for the candidate.

    Examples
    --------
    A column without missing values: two candidates, between 1 and 2 and
    between 2 and 3.

    >>> c = column_candidates(np.array([3.0, 1.0, 2.0]))
    >>> isinstance(c, ColumnCandidates), c.order.tolist(), c.threshold.tolist()
    (True, [1, 2, 0], [1.5, 2.5])
    >>> c.go_left.tolist()   # no missing rows: the side with more rows
    [False, True]
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


def allowed_candidates(
    position, n_present, n_missing, min_samples_leaf, missing_left, distinct=True
):
    """Which candidates of :func:`column_candidates`'s list exist: the order, vectorised.

    A candidate puts the present rows up to ``position`` (0-based, in sorted
    order) on the left, and the missing rows on the left when
    ``missing_left``.  It exists when

    - missing rows right: ``position`` lies between two distinct present
      values (``distinct``, rule 1 of :mod:`climbing_trees._ties`), or is the
      last present row while the node has missing rows ("present left,
      missing right", threshold ``+inf``);
    - missing rows left: the node has missing rows and ``position`` lies
      between two distinct present values;

    and each side keeps at least ``min_samples_leaf`` rows.  Every argument
    broadcasts, so a level-wise search asks for all its nodes and features at
    once; :func:`column_candidates` lists the same candidates for one column.

    >>> allowed_candidates(np.arange(4), 4, 1, 1, False).tolist()
    [True, True, True, True]
    >>> allowed_candidates(np.arange(4), 4, 0, 1, False).tolist()
    [True, True, True, False]
    >>> allowed_candidates(np.arange(4), 4, 1, 2, True).tolist()
    [True, True, False, False]
    """
    lo, hi = candidate_bounds(n_present, n_missing, min_samples_leaf, missing_left)
    position = np.asarray(position)
    allowed = (position >= lo) & (position <= hi)
    if distinct is not True:  # the last present row ("missing right") needs no gap
        allowed &= distinct | (position == np.asarray(n_present) - 1)
    return allowed


def candidate_bounds(n_present, n_missing, min_samples_leaf, missing_left):
    """The positions ``lo <= position <= hi`` of :func:`allowed_candidates`.

    With the missing rows right, a candidate leaves ``position + 1`` rows
    left, and the last present row is one only where the node has missing
    rows; with them left, ``n_missing`` more rows go left, and only where
    there are any.  Each side keeps ``min_samples_leaf`` rows.  Bounds are
    per node and feature (small arrays), so a search compares each position
    with them twice instead of working the rule out at every position.

    >>> candidate_bounds(4, 1, 1, False), candidate_bounds(4, 0, 1, False)
    ((0, 3), (0, 2))
    >>> candidate_bounds(4, 1, 2, True)
    (0, 1)
    """
    n_missing = np.asarray(n_missing)
    has_missing = n_missing > 0
    most = n_present + n_missing - min_samples_leaf - 1  # the right side's minimum
    if np.ndim(missing_left) == 0 and missing_left:
        lo = np.maximum(min_samples_leaf - 1 - n_missing, 0)
        hi = np.where(has_missing, np.minimum(n_present - 2, most - n_missing), -1)
    elif np.ndim(missing_left) == 0:
        lo = np.maximum(min_samples_leaf - 1, 0)
        hi = np.minimum(n_present - 2 + has_missing, most)
    else:
        left = np.where(missing_left, n_missing, 0)  # missing rows on the left
        lo = np.maximum(min_samples_leaf - 1 - left, 0)
        last = np.where(missing_left | ~has_missing, n_present - 2, n_present - 1)
        hi = np.minimum(last, most - left)
        hi = np.where(missing_left & ~has_missing, -1, hi)
    if lo.ndim == 0 and hi.ndim == 0:
        return int(lo), int(hi)
    return lo, hi


def column_candidates(x: np.ndarray, min_samples_leaf: int = 1) -> ColumnCandidates:
    """The candidates of a column ``x`` (NaN: missing), in tie-break order.

    Candidates leaving fewer than ``min_samples_leaf`` rows on a side are
    dropped (:func:`allowed_candidates` says which exist), and a column
    constant at the node offers none: without missing values, present values
    within scikit-learn's ``FEATURE_THRESHOLD`` of each other (rule 6 of
    :mod:`climbing_trees._ties`).

    Parameters
    ----------
    x : ndarray of shape (n_samples,)
        One feature's values at the node; NaN marks a missing value.
    min_samples_leaf : int
        Candidates leaving fewer rows than this on either side are dropped.

    Returns
    -------
    ColumnCandidates

    Examples
    --------
    >>> c = column_candidates(np.array([3.0, np.nan, 1.0, 2.0]))
    >>> c.order.tolist(), c.missing.tolist()
    ([2, 3, 0], [1])
    >>> c.threshold.tolist(), c.missing_left.tolist()
    ([1.5, 2.5, inf, 1.5, 2.5], [False, False, False, True, True])
    >>> c.n_left.tolist()
    [1, 2, 3, 2, 3]
    >>> column_candidates(np.array([0.0, 5e-8, 2e-8])).position.size  # constant
    0
    """
    x = np.asarray(x, dtype=float)
    present = ~np.isnan(x)
    missing = np.flatnonzero(~present)
    rows = np.flatnonzero(present)
    order = rows[np.argsort(x[rows], kind="stable")]
    x_sorted = x[order]
    n, n_missing, n_present = len(x), len(missing), len(order)
    # Every present position, missing rows right then left (the tie-break order).
    grid = np.arange(n_present, dtype=np.intp)
    distinct = np.zeros(n_present, dtype=bool)
    if n_present and not constant_features(x_sorted[0], x_sorted[-1], n_missing > 0):
        distinct[split_positions(x_sorted)] = True  # a constant feature: none (rule 6)
    position = np.concatenate([grid, grid])
    missing_left = np.repeat([False, True], n_present)
    distinct = np.tile(distinct, 2)
    keep = allowed_candidates(
        position, n_present, n_missing, min_samples_leaf, missing_left, distinct
    )
    position, missing_left = position[keep], missing_left[keep]
    upper = np.minimum(position + 1, n_present - 1)
    threshold = np.where(
        position == n_present - 1,
        np.inf,
        midpoint_threshold(x_sorted[position], x_sorted[upper]),
    )
    n_left = position + 1 + n_missing * missing_left
    go_left = missing_goes_left(n_missing, missing_left, n_left, n)
    return ColumnCandidates(
        order,
        missing,
        position,
        missing_left,
        np.asarray(threshold, dtype=float),
        n_left,
        np.asarray(go_left, dtype=bool),
    )
