"""Histogram gradient boosting: Newton trees grown leaf-wise on gradient histograms.

The book's boosting chapter explains it; scikit-learn's
``sklearn/ensemble/_hist_gradient_boosting`` (``grower.py``, ``splitting.pyx``)
and LightGBM are the models.  Each iteration computes, for every training
row, the gradient ``g`` and the Hessian ``h`` of the loss at the current
scores ``F``, and grows one tree per score column (one per class with more
than two classes) on them:

* the features are binned once (:func:`climbing_trees._binning.fit_bins`,
  scikit-learn's ``_BinMapper`` rule; NaN gets a bin of its own);
* a node's histogram holds, per feature and bin, the row count and the sums
  of ``g`` and ``h`` in fixed point (:mod:`climbing_trees._histograms`: exact
  integer sums, so the larger sibling's histogram is its parent's minus the
  smaller one's with no residue, and the tree does not depend on row order);
* a split's gain is the second-order one, :func:`split_gain`,
  ``G_L^2/(H_L+l2) + G_R^2/(H_R+l2) - G^2/(H+l2)``, and a leaf's value the
  Newton step :func:`node_value`, ``-G/(H+l2)``, times ``learning_rate``;
* growth is best-first (leaf-wise): the leaf whose best split gains most is
  split next, until ``max_leaf_nodes`` leaves, ``max_depth``, or no split of
  positive gain respecting ``min_samples_leaf`` is left;
* with ``monotonic_cst``, candidates are scored by :func:`bounded_split_gain`
  (the children's steps clipped to the node's bounds; refused when out of
  order), which is :func:`split_gain` with infinite bounds, and the bounds
  pass down by :func:`children_value_bounds`.

Categorical features (``categorical_features``): a bin per category (the
estimator's ordinal codes, as many bins as categories, past ``max_bins``);
a split sends a set of categories left.  :func:`category_order` sorts the
node's categories by ``G/(H+l2)`` (NaN one of them; rare ones, by
scikit-learn's ``MIN_CAT_SUPPORT``, left out and sent right) and the
prefixes of that order are the candidates, scored by :func:`split_gain`:
for ``l2 = 0`` a best partition is among them (Fisher's argument).  Both
builders call :func:`category_order` and :func:`category_set`.

Missing values: on a feature that had NaN in training, each split learns
where they go (both directions are scanned, as XGBoost's algorithm 3 and
scikit-learn do); on a feature that had none, NaN at prediction goes to the
child that received more training rows.

:func:`grow_hist_tree` is the compiled builder; :func:`grow_hist_tree_reference`
is the slow, plain-Python oracle it is tested against (same splits, same
values).  Both call the same rules (:func:`bounded_split_gain`, :func:`node_value`,
:func:`split_allowed`, :func:`clip_value`, :func:`children_value_bounds`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from time import time

import numba
import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context
from sklearn.ensemble import HistGradientBoostingClassifier as SklearnClassifier
from sklearn.ensemble import HistGradientBoostingRegressor as SklearnRegressor
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import LabelEncoder, OrdinalEncoder
from sklearn.utils import _safe_indexing, check_random_state, compute_sample_weight
from sklearn.utils._missing import is_scalar_nan
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _check_categorical_features,
    _check_monotonic_cst,
    _check_sample_weight,
    _check_y,
    _num_samples,
    check_array,
    check_consistent_length,
    check_is_fitted,
    validate_data,
)

from ._binning import MAX_BINS_LIMIT, Bins, fit_bins
from ._gradient_boosting import weighted_percentile
from ._histograms import fixed_point_exponent, to_fixed_point
from ._libm import exp, log, logsumexp_rows, softmax_rows
from ._tree import TREE_LEAF

#: scikit-learn's ``min_hessian_to_split`` (its grower's default): a child whose
#: Hessian sum is below it is not allowed.
MIN_HESSIAN_TO_SPLIT = 1e-3

#: Added to every denominator ``H + l2``, as scikit-learn's ``compute_node_value``.
DENOMINATOR_EPS = 1e-15

#: No leaf limit (``max_leaf_nodes=None``) or no depth limit (``max_depth=None``).
NO_LIMIT = -1


# --- the rules, written once ------------------------------------------------------------------


@numba.njit(cache=True, nogil=True)
def node_value(sum_gradient, sum_hessian, l2_regularization):
    """The Newton step of a node: ``-G / (H + l2)``.

    As scikit-learn's ``compute_node_value``, with the same tiny
    ``DENOMINATOR_EPS`` added to the denominator.

    >>> node_value(-3.0, 2.0, 1.0)
    1.0
    """
    return -sum_gradient / (sum_hessian + l2_regularization + DENOMINATOR_EPS)


@numba.njit(cache=True, nogil=True)
def split_gain(g_left, h_left, g_right, h_right, g_node, h_node, l2_regularization):
    """The second-order gain ``G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ)``.

    Each term is ``-G * node_value(G, H)``: twice the decrease of the loss's
    second-order expansion (penalty included) when the node's rows move by the
    Newton step, so the gain is twice what splitting saves over not splitting
    (scikit-learn and XGBoost drop the factor one half too).

    >>> split_gain(-2.0, 1.0, 2.0, 1.0, 0.0, 2.0, 0.0)
    8.0
    """
    return (
        -g_left * node_value(g_left, h_left, l2_regularization)
        - g_right * node_value(g_right, h_right, l2_regularization)
        + g_node * node_value(g_node, h_node, l2_regularization)
    )


@numba.njit(cache=True, nogil=True)
def split_allowed(n_left, h_left, n_right, h_right, min_samples_leaf, min_hessian):
    """A candidate is allowed when each child has ``min_samples_leaf`` rows and
    a Hessian sum of at least ``min_hessian`` (scikit-learn's two checks)."""
    return (
        n_left >= min_samples_leaf
        and n_right >= min_samples_leaf
        and h_left >= min_hessian
        and h_right >= min_hessian
    )


@numba.njit(cache=True, nogil=True)
def clip_value(value, lower, upper):
    """A node's value held within its bounds ``[lower, upper]`` (monotonic
    constraints; infinite bounds leave it as it is), as scikit-learn's
    ``compute_node_value``.

    >>> clip_value(2.0, -np.inf, 1.5), clip_value(-2.0, -np.inf, 1.5)
    (1.5, -2.0)
    """
    if value < lower:
        return lower
    if value > upper:
        return upper
    return value


@numba.njit(cache=True, nogil=True)
def bounded_split_gain(g_left, h_left, g_right, h_right, g_node, value_node, l2_regularization,
                       cst, lower, upper):  # fmt: skip
    """:func:`split_gain` with the children's values clipped to ``[lower, upper]``
    (:func:`clip_value`) and the node's own (clipped) ``value_node``; -1 when the
    clipped values break the constraint ``cst`` of the split's feature (``+1``:
    left above right, ``-1``: left below right), as scikit-learn's ``_split_gain``.
    With infinite bounds and ``value_node = node_value(G, H)`` it is
    :func:`split_gain`, bit for bit.

    >>> bounded_split_gain(-2.0, 1.0, 2.0, 1.0, 0.0, 0.0, 0.0, 0, -np.inf, np.inf)
    8.0
    >>> bounded_split_gain(-2.0, 1.0, 2.0, 1.0, 0.0, 0.0, 0.0, 1, -np.inf, np.inf)
    -1.0
    >>> bounded_split_gain(-2.0, 1.0, 2.0, 1.0, 0.0, 0.0, 0.0, -1, -1.0, 1.0)
    4.0
    """
    value_left = clip_value(node_value(g_left, h_left, l2_regularization), lower, upper)
    value_right = clip_value(node_value(g_right, h_right, l2_regularization), lower, upper)
    if (cst == 1 and value_left > value_right) or (cst == -1 and value_left < value_right):
        return -1.0
    return -g_left * value_left - g_right * value_right + g_node * value_node


@numba.njit(cache=True, nogil=True)
def children_value_bounds(cst, lower, upper, value_left, value_right):
    """The bounds of the two children's children after a split on a feature
    with constraint ``cst``, from the node's bounds and the children's
    (clipped) values: ``(lower_left, upper_left, lower_right, upper_right)``.
    Unconstrained, both keep ``[lower, upper]``; else the middle value
    ``(value_left + value_right) / 2`` caps the left child from above (``+1``)
    or below (``-1``) and the right child the other way (scikit-learn's grower).

    >>> children_value_bounds(1, -np.inf, np.inf, -1.0, 3.0)
    (-inf, 1.0, 1.0, inf)
    >>> children_value_bounds(-1, 0.0, 5.0, 3.0, 1.0)
    (2.0, 5.0, 0.0, 2.0)
    """
    if cst == 0:
        return lower, upper, lower, upper
    middle = (value_left + value_right) / 2
    if cst == 1:
        return lower, middle, middle, upper
    return middle, upper, lower, middle


#: scikit-learn's ``MIN_CAT_SUPPORT``: a category whose Hessian sum, rescaled so
#: that the node's sums to its row count, is below it takes no part in the
#: sorted scan and goes right (with squared error: fewer than 10 rows).
MIN_CATEGORY_SUPPORT = 10.0


@numba.njit(cache=True, nogil=True)
def category_order(hist, n_bins, with_missing, missing_bin, n, h_sum, scale_g, scale_h,
                   constant, l2):  # fmt: skip
    """The categories (bins) of one feature at a node, in the order the scan takes them.

    ``hist`` is the feature's histogram (bins, 3): count, fixed-point sums of
    ``g`` and ``h``.  The categories with enough support
    (:data:`MIN_CATEGORY_SUPPORT`), NaN's bin among them when the feature had
    NaN, sorted by ``G / (H + l2)`` (each category's Newton step, negated),
    equal keys by increasing bin.  Prefixes of this order are the candidate
    left sets: for ``l2 = 0`` some best partition of these categories for the
    gain :func:`split_gain` is one of them (Fisher 1958; Breiman et al. 1984,
    theorem 4.5, with the Hessians as weights); with ``l2 > 0`` the order is a
    heuristic (scikit-learn's and LightGBM's).  Also returns whether a present
    category was left out for its support.

    >>> hist = np.array([[20, 40, 20], [20, -40, 20], [20, 0, 20], [5, 9, 5]])
    >>> order, dropped = category_order(hist, 4, False, 4, 65, 65, 1.0, 1.0, False, 0.0)
    >>> order.tolist(), dropped
    ([1, 2, 0], True)
    """
    bins = np.empty(n_bins + 1, dtype=np.intp)
    keys = np.empty(n_bins + 1)
    k = 0
    dropped = False
    for b in range(n_bins + 1):
        if b == n_bins:
            if not with_missing:
                break
            b = missing_bin
        count = hist[b, 0]
        h = count if constant else hist[b, 2]
        if count == 0:
            continue
        if float(h) * n < MIN_CATEGORY_SUPPORT * float(h_sum):  # in float: no overflow
            dropped = True
            continue
        bins[k] = b
        keys[k] = hist[b, 1] * scale_g / (h * scale_h + l2 + DENOMINATOR_EPS)
        k += 1
    order = np.argsort(keys[:k], kind="mergesort")  # stable: equal keys by bin
    return bins[:k][order], dropped


@numba.njit(cache=True, nogil=True)
def category_set(order, cut, reverse, width):
    """The left set of candidate ``cut`` as a bool row over ``width`` bins: the
    first ``cut + 1`` categories of ``order``, or the last ones if ``reverse``.

    >>> category_set(np.array([2, 0, 1]), 0, True, 4).tolist()
    [False, True, False, False]
    """
    row = np.zeros(width, dtype=np.bool_)
    for i in range(cut + 1):
        row[order[order.size - 1 - i] if reverse else order[i]] = True
    return row


# --- the fitted tree ------------------------------------------------------------------------


@dataclass(frozen=True)
class HistTree:
    """One boosted tree as arrays, named as scikit-learn's trees name them.

    Node 0 is the root; the children of a split node are numbered in the
    order the nodes were split (left, then right).  ``children_left`` is
    :data:`climbing_trees.TREE_LEAF` at leaves.  A row goes left when its
    value is ``<= threshold`` (``bin_threshold`` on the bin codes), or when
    it is NaN and ``missing_go_to_left``.  ``value`` is the node's Newton
    step times the learning rate (what a row in that leaf adds to the score);
    ``gain`` is the split's gain (0 at leaves).

    A categorical split has ``threshold`` NaN: a row goes left when its
    category's code ``c`` (``0 ..``, the estimator's ordinal codes) has
    ``categories_left[node, c]``, or when it is missing (NaN, or a category
    unseen at fit) and ``missing_go_to_left``; a code beyond the row's width
    goes right.  ``categories_left`` has one row per node (False but at
    categorical splits), as many columns as the widest categorical feature's
    codes (none without categorical features); ``bin_threshold`` holds the
    cut in the sorted order of :func:`category_order` there.
    """

    children_left: np.ndarray
    children_right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    bin_threshold: np.ndarray
    missing_go_to_left: np.ndarray
    value: np.ndarray
    n_node_samples: np.ndarray
    gain: np.ndarray
    categories_left: np.ndarray

    @property
    def node_count(self) -> int:
        return len(self.children_left)

    @property
    def n_leaves(self) -> int:
        return int(np.sum(self.children_left == TREE_LEAF))

    @property
    def max_depth(self) -> int:
        depth = np.zeros(self.node_count, dtype=np.intp)
        for i in range(self.node_count):  # children have larger numbers than parents
            if self.children_left[i] != TREE_LEAF:
                depth[self.children_left[i]] = depth[self.children_right[i]] = depth[i] + 1
        return int(depth.max())

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Each row's leaf value (``X`` float, NaN allowed)."""
        out = np.zeros(X.shape[0])
        _add_tree(
            np.ascontiguousarray(X, dtype=np.float64), self.children_left, self.children_right,
            self.feature, self.threshold, self.missing_go_to_left, self.value,
            self.categories_left, out,
        )  # fmt: skip
        return out


@numba.njit(cache=True, nogil=True)
def _add_tree(X, left, right, feature, threshold, missing_left, value, categories_left, out):
    """``out[i] +=`` the value of row ``i``'s leaf."""
    width = categories_left.shape[1]
    for i in range(X.shape[0]):
        node = 0
        while left[node] != TREE_LEAF:
            x = X[i, feature[node]]
            if np.isnan(x):
                go_left = missing_left[node]
            elif np.isnan(threshold[node]):  # a categorical split
                go_left = 0 <= x < width and categories_left[node, int(x)]
            else:
                go_left = x <= threshold[node]
            node = left[node] if go_left else right[node]
        out[i] += value[node]


@dataclass(frozen=True)
class GrowOptions:
    """What a tree's growth is allowed: the estimator's parameters, checked."""

    max_leaf_nodes: int = 31  # NO_LIMIT: none
    max_depth: int = NO_LIMIT
    min_samples_leaf: int = 20
    l2_regularization: float = 0.0
    learning_rate: float = 0.1
    min_hessian: float = MIN_HESSIAN_TO_SPLIT
    #: Per feature -1, 0 or +1 (int8); None: no constraint.
    monotonic_cst: np.ndarray | None = None

    def constraints(self, n_features: int) -> np.ndarray:
        """The monotonic constraints as an int8 array (zeros when there are none)."""
        if self.monotonic_cst is None:
            return np.zeros(n_features, dtype=np.int8)
        return np.asarray(self.monotonic_cst, dtype=np.int8)


@dataclass(frozen=True)
class BinnedData:
    """The training rows binned: codes by feature (d, n) and the same by row
    (n, d); per feature its number of present bins and whether it had NaN;
    the code of NaN; which features are categorical (a bin per category)."""

    codes: np.ndarray
    n_bins: np.ndarray
    has_missing: np.ndarray
    missing_bin: int
    by_row: np.ndarray
    is_categorical: np.ndarray

    @classmethod
    def from_bins(cls, bins: Bins, X: np.ndarray, is_categorical=None) -> BinnedData:
        by_row = bins.codes(X)
        codes = np.ascontiguousarray(by_row.T)
        missing = bins.missing_bin
        has_missing = (codes == missing).any(axis=1)
        if is_categorical is None:
            is_categorical = np.zeros(X.shape[1], dtype=np.bool_)
        is_categorical = np.asarray(is_categorical, dtype=np.bool_)
        return cls(codes, bins.n_bins, has_missing, missing, by_row, is_categorical)


@dataclass(frozen=True)
class Statistics:
    """One tree's per-row statistics in fixed point (:mod:`climbing_trees._histograms`).

    ``gradient`` is ``rint(g * 2**k_gradient)`` (int64).  With a constant
    Hessian (squared error without weights) ``hessian`` is empty and every
    row's Hessian is ``constant_hessian``; otherwise ``rint(h * 2**k_hessian)``.
    """

    gradient: np.ndarray
    k_gradient: int
    hessian: np.ndarray
    k_hessian: int
    constant_hessian: float

    @classmethod
    def of(cls, gradient: np.ndarray, hessian: np.ndarray | float) -> Statistics:
        k_g = fixed_point_exponent(gradient)
        g = to_fixed_point(gradient, k_g)
        if np.ndim(hessian) == 0:
            return cls(g, k_g, np.zeros(0, dtype=np.int64), 0, float(hessian))
        k_h = fixed_point_exponent(hessian)
        return cls(g, k_g, to_fixed_point(hessian, k_h), k_h, 0.0)

    @property
    def is_constant(self) -> bool:
        return self.hessian.size == 0


def _threshold(bins: Bins, feature: int, bin_threshold: int) -> float:
    """The value threshold of ``bin <= bin_threshold``: the bin's upper edge, or
    +inf on the last present bin (the split that sends only NaN right)."""
    edges = bins.edges[feature]
    return float(edges[bin_threshold]) if bin_threshold < len(edges) else np.inf


def hist_tree_of(arrays, bins: Bins, learning_rate: float, leaf_values=None,
                 is_categorical=None) -> HistTree:  # fmt: skip
    """A :class:`HistTree` from a builder's arrays: thresholds (NaN at categorical
    splits), and leaf values times ``learning_rate`` (a tree that never split
    adds 0, as scikit-learn's); ``leaf_values`` replaces the Newton steps (a
    non-differentiable loss)."""
    left, right, feature, bin_threshold, missing_left, value, count, gain, cats = arrays
    threshold = np.full(len(left), np.nan)
    for i in np.flatnonzero(left != TREE_LEAF):
        if is_categorical is None or not is_categorical[feature[i]]:
            threshold[i] = _threshold(bins, int(feature[i]), int(bin_threshold[i]))
    width = 0
    if is_categorical is not None and is_categorical.any():
        width = int(bins.n_bins[is_categorical].max())
    categories_left = np.ascontiguousarray(cats[:, :width])
    if leaf_values is not None:
        value = leaf_values
    elif len(left) == 1:
        value = np.zeros(1)
    value = np.where(left == TREE_LEAF, value * learning_rate, 0.0)
    return HistTree(
        children_left=left, children_right=right, feature=feature, threshold=threshold,
        bin_threshold=bin_threshold, missing_go_to_left=missing_left, value=value,
        n_node_samples=count, gain=gain, categories_left=categories_left,
    )  # fmt: skip


# --- the compiled builder ---------------------------------------------------------------------


@numba.njit(cache=True, nogil=True)
def _sum_histogram(codes, by_row, rows, first, stop, g, h, constant, hist, n_bins):
    """``hist`` (d, bins, 3) of the rows ``rows[first:stop]``: count, sum g, sum h.

    Only each feature's bins ``0 .. n_bins[j] - 1`` and the missing bin (the
    last) are set (:func:`_used_bins`), the others are never read; the root's
    histogram is set whole.

    Row by row: each row's codes (``by_row[r]``, contiguous) are read once and
    its statistics added to every feature's histogram (LightGBM's row-wise
    mode; faster here for a node's scattered rows than a pass per feature).
    The root's rows are all rows in order: :func:`_sum_every_row`."""
    if stop - first == by_row.shape[0]:
        _sum_every_row(codes, g, h, constant, hist)
        return
    _used_bins(hist, hist, n_bins, 0)
    d = by_row.shape[1]
    for p in range(first, stop):
        r = rows[p]
        codes = by_row[r]
        gr = g[r]
        if constant:
            for j in range(d):
                b = codes[j]
                hist[j, b, 0] += 1
                hist[j, b, 1] += gr
        else:
            hr = h[r]
            for j in range(d):
                b = codes[j]
                hist[j, b, 0] += 1
                hist[j, b, 1] += gr
                hist[j, b, 2] += hr


@numba.njit(cache=True, nogil=True)
def _used_bins(hist, other, n_bins, sign):
    """``hist -= other`` (``sign`` -1) or ``hist = 0`` (``sign`` 0) on each feature's
    used bins: ``0 .. n_bins[j] - 1`` and the missing bin (the last).  With
    features of few bins next to one of many categories, most of a histogram's
    width is unused."""
    last = hist.shape[1] - 1
    for j in range(hist.shape[0]):
        for b in range(n_bins[j] + 1):
            if b == n_bins[j]:
                b = last
            for c in range(3):
                hist[j, b, c] = hist[j, b, c] - other[j, b, c] if sign else 0


@numba.njit(cache=True, nogil=True)
def _sum_every_row(codes, g, h, constant, hist):
    """:func:`_sum_histogram` of every row in order: one pass per feature column."""
    hist[:] = 0
    for j in range(codes.shape[0]):
        column = codes[j]
        hj = hist[j]
        if constant:
            for r in range(column.size):
                b = column[r]
                hj[b, 0] += 1
                hj[b, 1] += g[r]
        else:
            for r in range(column.size):
                b = column[r]
                hj[b, 0] += 1
                hj[b, 1] += g[r]
                hj[b, 2] += h[r]


@numba.njit(cache=True, nogil=True)
def _best_categorical(hj, n, g_sum, h_sum, nb, with_missing, missing_bin, scale_g, scale_h,
                      constant, min_samples_leaf, l2, min_hessian, value_node, lower,
                      upper):  # fmt: skip
    """The best split of one categorical feature: the prefixes of
    :func:`category_order`, then (only when a category was left out for its
    support, so that the two scans differ) its suffixes; the left-out
    categories go right.  Returns ``(gain, cut, reverse, n_left, g_left,
    h_left)``, gain -1 when no candidate is allowed.  The children's values are
    clipped to ``[lower, upper]`` (:func:`bounded_split_gain`; a categorical
    feature has no constraint of its own)."""
    order, dropped = category_order(hj, nb, with_missing, missing_bin, n, h_sum, scale_g,
                                    scale_h, constant, l2)  # fmt: skip
    best = (-1.0, -1, False, 0, 0, 0)
    G = g_sum * scale_g
    for reverse in (False, True):
        if reverse and not dropped:
            break
        n_left, g_left, h_left = 0, 0, 0
        for i in range(order.size - 1):
            b = order[order.size - 1 - i] if reverse else order[i]
            n_left += hj[b, 0]
            g_left += hj[b, 1]
            h_left += hj[b, 0] if constant else hj[b, 2]
            HL, HR = h_left * scale_h, (h_sum - h_left) * scale_h
            if not split_allowed(n_left, HL, n - n_left, HR, min_samples_leaf, min_hessian):
                continue
            gain = bounded_split_gain(g_left * scale_g, HL, (g_sum - g_left) * scale_g, HR, G,
                                      value_node, l2, 0, lower, upper)  # fmt: skip
            if gain > best[0] and gain > 0.0:
                best = (gain, i, reverse, n_left, g_left, h_left)
    return best


@numba.njit(cache=True, nogil=True)
def _best_split(hist, n, g_sum, h_sum, n_bins, has_missing, missing_bin, is_categorical,
                scale_g, scale_h, constant, min_samples_leaf, l2, min_hessian, cst, value_node,
                lower, upper):  # fmt: skip
    """The best split of one node from its histogram.

    Features in order; for a numerical one, bins left to right with NaN on
    the right, then (if the feature had NaN) right to left with NaN on the
    left; for a categorical one, :func:`_best_categorical`'s candidates; a
    candidate replaces the best only with a strictly larger gain.  Returns
    ``(gain, feature, bin, missing_left, n_left, g_left, h_left, reverse)``
    (sums in fixed point; gain -1 when no candidate is allowed; at a
    categorical feature ``bin`` is the cut and ``reverse`` the scan of
    :func:`category_set`).  Each candidate is scored by :func:`bounded_split_gain`
    with the node's value ``value_node``, its children's bounds ``[lower, upper]``
    and the feature's constraint ``cst[j]``."""
    best_gain, best_feature, best_bin, best_missing_left = -1.0, -1, -1, False
    best_n, best_g, best_h, best_reverse = 0, 0, 0, False
    G = g_sum * scale_g
    for j in range(hist.shape[0]):
        hj = hist[j]
        nb = n_bins[j]
        if is_categorical[j]:
            c = _best_categorical(hj, n, g_sum, h_sum, nb, has_missing[j], missing_bin,
                                  scale_g, scale_h, constant, min_samples_leaf, l2,
                                  min_hessian, value_node, lower, upper)  # fmt: skip
            if c[0] > best_gain:
                best_gain, best_feature, best_bin, best_missing_left = c[0], j, c[1], False
                best_n, best_g, best_h, best_reverse = c[3], c[4], c[5], c[2]
            continue
        n_left, g_left, h_left = 0, 0, 0
        for b in range(nb - 1 + (1 if has_missing[j] else 0)):  # NaN goes right
            n_left += hj[b, 0]
            g_left += hj[b, 1]
            h_left += hj[b, 0] if constant else hj[b, 2]
            if n - n_left < min_samples_leaf:
                break  # every later candidate leaves fewer rows on the right
            HL, HR = h_left * scale_h, (h_sum - h_left) * scale_h
            if not split_allowed(n_left, HL, n - n_left, HR, min_samples_leaf, min_hessian):
                continue
            gain = bounded_split_gain(g_left * scale_g, HL, (g_sum - g_left) * scale_g, HR, G,
                                      value_node, l2, cst[j], lower, upper)  # fmt: skip
            if gain > best_gain and gain > 0.0:
                best_gain, best_feature, best_bin, best_missing_left = gain, j, b, False
                best_n, best_g, best_h, best_reverse = n_left, g_left, h_left, False
        if not has_missing[j]:
            continue
        n_right, g_right, h_right = 0, 0, 0
        for b in range(nb - 2, -1, -1):  # NaN goes left
            n_right += hj[b + 1, 0]
            g_right += hj[b + 1, 1]
            h_right += hj[b + 1, 0] if constant else hj[b + 1, 2]
            if n - n_right < min_samples_leaf:
                break  # every later candidate leaves fewer rows on the left
            HL, HR = (h_sum - h_right) * scale_h, h_right * scale_h
            if not split_allowed(n - n_right, HL, n_right, HR, min_samples_leaf, min_hessian):
                continue
            gain = bounded_split_gain((g_sum - g_right) * scale_g, HL, g_right * scale_g, HR, G,
                                      value_node, l2, cst[j], lower, upper)  # fmt: skip
            if gain > best_gain and gain > 0.0:
                best_gain, best_feature, best_bin, best_missing_left = gain, j, b, True
                best_n, best_g, best_h = n - n_right, g_sum - g_right, h_sum - h_right
                best_reverse = False
    return (best_gain, best_feature, best_bin, best_missing_left, best_n, best_g, best_h,
            best_reverse)  # fmt: skip


@numba.njit(cache=True, nogil=True)
def _grow(codes, by_row, g, h, constant, constant_hessian, n_bins, has_missing, missing_bin,
          is_categorical, scale_g, scale_h, max_leaf_nodes, max_depth, min_samples_leaf, l2,
          min_hessian, cst, pool):  # fmt: skip
    """Leaf-wise growth on histograms; see :func:`grow_hist_tree`."""
    d, n = codes.shape
    width = missing_bin + 1
    below = np.empty(width, dtype=np.bool_)  # a numerical split's codes that go left
    most_leaves = max(1, n // max(min_samples_leaf, 1))
    if max_leaf_nodes != NO_LIMIT:
        most_leaves = min(most_leaves, max_leaf_nodes)
    size = 2 * most_leaves - 1
    left = np.full(size, TREE_LEAF, dtype=np.intp)
    right = np.full(size, TREE_LEAF, dtype=np.intp)
    feature = np.full(size, -2, dtype=np.intp)
    bin_threshold = np.zeros(size, dtype=np.intp)
    missing_left = np.zeros(size, dtype=np.bool_)
    value = np.zeros(size)
    count = np.zeros(size, dtype=np.intp)
    gain = np.zeros(size)
    start = np.zeros(size, dtype=np.intp)
    depth = np.zeros(size, dtype=np.intp)
    g_sum = np.zeros(size, dtype=np.int64)
    h_sum = np.zeros(size, dtype=np.int64)
    # Monotonic constraints: each node's children's bounds (its own value is clipped
    # to its parent's) and its value, clipped (the root's is not).
    lower = np.full(size, -np.inf)
    upper = np.full(size, np.inf)
    # The best split of each candidate leaf (gain -1: not a candidate).
    c_gain = np.full(size, -1.0)
    c_feature = np.zeros(size, dtype=np.intp)
    c_bin = np.zeros(size, dtype=np.intp)
    c_missing = np.zeros(size, dtype=np.bool_)
    c_n_left = np.zeros(size, dtype=np.intp)
    c_g_left = np.zeros(size, dtype=np.int64)
    c_h_left = np.zeros(size, dtype=np.int64)
    c_reverse = np.zeros(size, dtype=np.bool_)
    # The left categories of categorical splits (no columns without categorical features).
    categories_left = np.zeros((size, width if is_categorical.any() else 0), dtype=np.bool_)
    # Histograms of the candidate leaves, in slots of a pool that grows as needed.
    slot = np.full(size, -1, dtype=np.intp)
    # pool: histograms (each slot set before use), kept from tree to tree by the caller.
    free = [i for i in range(pool.shape[0] - 1, -1, -1)]
    rows = np.arange(n).astype(np.intp)
    buffer = np.empty(n, dtype=np.intp)

    count[0] = n
    s = _take_slot(free, pool, d, width)
    pool = s[1]
    slot[0] = s[0]
    _sum_histogram(codes, by_row, rows, 0, n, g, h, constant, pool[slot[0]], n_bins)
    root = pool[slot[0]][0]
    for b in range(width):
        g_sum[0] += root[b, 1]
        h_sum[0] += root[b, 0] if constant else root[b, 2]
    scale_h_node = constant_hessian if constant else scale_h
    value[0] = node_value(g_sum[0] * scale_g, h_sum[0] * scale_h_node, l2)
    n_nodes = 1
    if n >= 2 * min_samples_leaf and h_sum[0] * scale_h_node >= min_hessian:
        _search(0, pool, slot, free, count, g_sum, h_sum, n_bins, has_missing, missing_bin,
                is_categorical, scale_g, scale_h_node, constant, min_samples_leaf, l2,
                min_hessian, c_gain, c_feature, c_bin, c_missing, c_n_left, c_g_left,
                c_h_left, c_reverse, cst, value, lower, upper)  # fmt: skip
    else:
        free.append(slot[0])
    n_leaves = 1
    while max_leaf_nodes == NO_LIMIT or n_leaves < max_leaf_nodes:
        node = -1
        for k in range(n_nodes):  # the largest gain; the first node on ties
            if c_gain[k] > 0.0 and (node == -1 or c_gain[k] > c_gain[node]):
                node = k
        if node == -1:
            break
        j, b, go_missing = c_feature[node], c_bin[node], c_missing[node]
        feature[node], bin_threshold[node], gain[node] = j, b, c_gain[node]
        c_gain[node] = -1.0
        # Partition the node's rows: left ones first, each side in row order.
        first, m = start[node], count[node]
        n_l, n_r = 0, 0
        if is_categorical[j]:  # the left set, from the parent's histogram (still whole)
            order, _ = category_order(pool[slot[node]][j], n_bins[j], has_missing[j],
                                      missing_bin, count[node], h_sum[node], scale_g,
                                      scale_h_node, constant, l2)  # fmt: skip
            categories_left[node] = category_set(order, b, c_reverse[node], width)
            go_missing = categories_left[node, missing_bin]
            n_l, n_r = _partition(codes[j], rows, first, m, buffer, categories_left[node])
        else:  # codes <= b go left, and NaN's code where it goes left
            for c in range(width):
                below[c] = (c <= b) | ((c == missing_bin) & go_missing)
            n_l, n_r = _partition(codes[j], rows, first, m, buffer, below)
        lc, rc = n_nodes, n_nodes + 1
        n_nodes += 2
        n_leaves += 1
        left[node], right[node] = lc, rc
        # Without NaN in training, NaN follows the larger child (scikit-learn's rule).
        missing_left[node] = go_missing if has_missing[j] else n_l > n_r
        start[lc], count[lc], start[rc], count[rc] = first, n_l, first + n_l, n_r
        depth[lc] = depth[rc] = depth[node] + 1
        g_sum[lc], h_sum[lc] = c_g_left[node], c_h_left[node]
        g_sum[rc], h_sum[rc] = g_sum[node] - c_g_left[node], h_sum[node] - c_h_left[node]
        for child in (lc, rc):
            value[child] = clip_value(node_value(g_sum[child] * scale_g,
                                                 h_sum[child] * scale_h_node, l2),
                                      lower[node], upper[node])  # fmt: skip
        split_cst = 0 if is_categorical[j] else cst[j]
        lower[lc], upper[lc], lower[rc], upper[rc] = children_value_bounds(
            split_cst, lower[node], upper[node], value[lc], value[rc])
        split_left = split_right = True
        if max_leaf_nodes != NO_LIMIT and n_leaves == max_leaf_nodes:
            split_left = split_right = False
        if max_depth != NO_LIMIT and depth[lc] >= max_depth:
            split_left = split_right = False
        if n_l < 2 * min_samples_leaf:
            split_left = False
        if n_r < 2 * min_samples_leaf:
            split_right = False
        parent_slot = slot[node]
        slot[node] = -1
        if split_left or split_right:
            small, large = (lc, rc) if n_l <= n_r else (rc, lc)
            s = _take_slot(free, pool, d, width)
            pool = s[1]
            slot[small] = s[0]
            _sum_histogram(codes, by_row, rows, start[small], start[small] + count[small], g,
                           h, constant, pool[slot[small]], n_bins)  # fmt: skip
            # The larger child: the parent's histogram minus the smaller one's (exact).
            _used_bins(pool[parent_slot], pool[slot[small]], n_bins, -1)
            slot[large] = parent_slot
            for child, wanted in ((lc, split_left), (rc, split_right)):
                if wanted:
                    _search(child, pool, slot, free, count, g_sum, h_sum, n_bins, has_missing,
                            missing_bin, is_categorical, scale_g, scale_h_node, constant,
                            min_samples_leaf, l2, min_hessian, c_gain, c_feature, c_bin,
                            c_missing, c_n_left, c_g_left, c_h_left, c_reverse, cst, value,
                            lower, upper)  # fmt: skip
                else:
                    free.append(slot[child])
                    slot[child] = -1
        else:
            free.append(parent_slot)
    for k in range(n_nodes):
        if left[k] != TREE_LEAF:
            value[k] = 0.0  # leaves only
    return (left[:n_nodes], right[:n_nodes], feature[:n_nodes], bin_threshold[:n_nodes],
            missing_left[:n_nodes], value[:n_nodes], count[:n_nodes], gain[:n_nodes],
            categories_left[:n_nodes], rows, start[:n_nodes], pool)  # fmt: skip


@numba.njit(cache=True, nogil=True)
def _partition(column, rows, first, m, buffer, left_set):
    """Reorder ``rows[first:first + m]``: rows whose code ``c`` has ``left_set[c]``
    first, each side in row order; returns the sides' sizes."""
    n_l, n_r = 0, 0
    for p in range(first, first + m):  # without branches: the side is a 0 or a 1
        r = rows[p]
        goes_left = left_set[column[r]]
        rows[first + n_l] = r  # never ahead of p: safe in place
        buffer[n_r] = r
        n_l += goes_left
        n_r += 1 - goes_left
    rows[first + n_l : first + m] = buffer[:n_r]
    return n_l, n_r


@numba.njit(cache=True, nogil=True)
def _take_slot(free, pool, d, width):
    """A free histogram slot, doubling the pool when none is left."""
    if len(free) == 0:
        grown = np.empty((2 * pool.shape[0], d, width, 3), dtype=np.int64)
        grown[: pool.shape[0]] = pool
        for i in range(grown.shape[0] - 1, pool.shape[0] - 1, -1):
            free.append(i)
        pool = grown
    return free.pop(), pool


@numba.njit(cache=True, nogil=True)
def _search(node, pool, slot, free, count, g_sum, h_sum, n_bins, has_missing, missing_bin,
            is_categorical, scale_g, scale_h, constant, min_samples_leaf, l2, min_hessian,
            c_gain, c_feature, c_bin, c_missing, c_n_left, c_g_left, c_h_left,
            c_reverse, cst, value, lower, upper):  # fmt: skip
    """Find ``node``'s best split; keep its histogram if it is a candidate, else free it."""
    best = _best_split(pool[slot[node]], count[node], g_sum[node], h_sum[node], n_bins,
                       has_missing, missing_bin, is_categorical, scale_g, scale_h, constant,
                       min_samples_leaf, l2, min_hessian, cst, value[node], lower[node],
                       upper[node])  # fmt: skip
    if best[0] > 0.0:
        c_gain[node], c_feature[node], c_bin[node], c_missing[node] = best[:4]
        c_n_left[node], c_g_left[node], c_h_left[node], c_reverse[node] = best[4:]
    else:
        free.append(slot[node])
        slot[node] = -1


def _leaf_intercepts(loss, arrays, rows, start, y, raw, sample_weight) -> np.ndarray:
    """Each leaf's ``loss.intercept`` of its rows' residuals ``y - F`` (0 elsewhere)."""
    left, count = arrays[0], arrays[6]
    values = np.zeros(len(left))
    for k in np.flatnonzero(left == TREE_LEAF):
        leaf_rows = rows[start[k] : start[k] + count[k]]
        values[k] = loss.intercept(y[leaf_rows] - raw[leaf_rows], sample_weight[leaf_rows])
    return values


@numba.njit(cache=True, nogil=True)
def _add_leaf_values(raw, rows, start, count, left, value):
    """``raw[r] += value[leaf]`` for each training row ``r``, through the partition."""
    for k in range(left.size):
        if left[k] == TREE_LEAF:
            for p in range(start[k], start[k] + count[k]):
                raw[rows[p]] += value[k]


def grow_hist_tree(data: BinnedData, stats: Statistics, options: GrowOptions, workspace=None):
    """Grow one Newton tree leaf-wise on gradient histograms (compiled).

    Parameters
    ----------
    data : BinnedData
        The training rows' bin codes, bins per feature, features with NaN.
    stats : Statistics
        The rows' gradients and Hessians in fixed point.
    options : GrowOptions
        Leaf and depth limits, ``min_samples_leaf``, ``l2_regularization``,
        ``monotonic_cst`` (-1, 0, 1 per feature, or None).
    workspace : dict, default=None
        Memory kept from one tree to the next of a fit (the histograms' pool),
        so that each tree does not allocate it anew; None: a new one.

    Returns
    -------
    arrays : tuple
        ``(children_left, children_right, feature, bin_threshold,
        missing_go_to_left, value, n_node_samples, gain, categories_left)``,
        ``value`` the Newton step ``-G/(H+l2)`` at leaves, clipped to the
        bounds of the monotonic constraints (:func:`clip_value`; not yet times the
        learning rate), ``categories_left`` the left sets of categorical
        splits over the bins (``missing_bin + 1`` columns, none without
        categorical features).
    partition : tuple
        ``(rows, start)``: node ``k``'s rows are ``rows[start[k]:][:n_node_samples[k]]``.

    Notes
    -----
    Ties: the split of a node is the first of equal gains in the order
    features, then bins left to right with NaN right, then right to left with
    NaN left; a categorical feature's candidates are scanned in the order of
    :func:`_best_categorical`; the leaf split next is the first (lowest
    number) of equal gains.

    Examples
    --------
    >>> bins = fit_bins(np.arange(8.0)[:, None])
    >>> data = BinnedData.from_bins(bins, np.arange(8.0)[:, None])
    >>> stats = Statistics.of(np.r_[-np.ones(4), np.ones(4)], 1.0)
    >>> arrays, _ = grow_hist_tree(data, stats, GrowOptions(min_samples_leaf=1))
    >>> arrays[3].tolist(), arrays[5].tolist()   # split after bin 3; Newton steps
    ([3, 0, 0], [0.0, 1.0, -1.0])
    """
    constant = stats.is_constant
    out = _grow(
        data.codes, data.by_row, stats.gradient, stats.hessian, constant,
        stats.constant_hessian,
        data.n_bins, data.has_missing, data.missing_bin, data.is_categorical,
        2.0 ** -stats.k_gradient,
        2.0 ** -stats.k_hessian, options.max_leaf_nodes, options.max_depth,
        options.min_samples_leaf, options.l2_regularization, options.min_hessian,
        options.constraints(data.codes.shape[0]), _pool(workspace, data),
    )  # fmt: skip
    if workspace is not None:
        workspace["pool"] = out[11]  # grown, perhaps
    return out[:9], out[9:11]


def _pool(workspace, data: BinnedData) -> np.ndarray:
    """The histograms' pool: the workspace's, or 8 new slots."""
    shape = (data.codes.shape[0], data.missing_bin + 1, 3)
    pool = None if workspace is None else workspace.get("pool")
    if pool is None or pool.shape[1:] != shape:
        pool = np.empty((8, *shape), dtype=np.int64)
    return pool


# --- the slow reference -----------------------------------------------------------------------


def grow_hist_tree_reference(data: BinnedData, stats: Statistics, options: GrowOptions):
    """The same tree as :func:`grow_hist_tree`, in plain Python: the oracle.

    Each node's sums are added up from its own rows (no histogram, no
    subtraction), each candidate split is scored by :func:`bounded_split_gain`, the
    next leaf to split is found by scanning the leaves.  A categorical
    feature's candidates are the sets of :func:`category_set` on the order
    of :func:`category_order` (the rule, shared), given the node's
    per-category sums counted from its rows.  Returns the same
    ``arrays`` as :func:`grow_hist_tree` (no partition).

    Parameters
    ----------
    data : BinnedData
    stats : Statistics
    options : GrowOptions

    Returns
    -------
    arrays : tuple
        As :func:`grow_hist_tree`'s.

    Examples
    --------
    >>> bins = fit_bins(np.arange(8.0)[:, None])
    >>> data = BinnedData.from_bins(bins, np.arange(8.0)[:, None])
    >>> stats = Statistics.of(np.r_[-np.ones(4), np.ones(4)], 1.0)
    >>> grow_hist_tree_reference(data, stats, GrowOptions(min_samples_leaf=1))[3].tolist()
    [3, 0, 0]
    """
    codes = data.codes.tolist()
    g = stats.gradient.tolist()
    constant = stats.is_constant
    h = [1] * len(g) if constant else stats.hessian.tolist()
    scale_g = 2.0**-stats.k_gradient
    scale_h = stats.constant_hessian if constant else 2.0**-stats.k_hessian
    missing = data.missing_bin
    width = missing + 1
    o = options
    cst = o.constraints(len(codes))
    l2 = o.l2_regularization

    def sums(rows):
        return len(rows), sum(g[r] for r in rows), sum(h[r] for r in rows)

    def left_set(rows, j, cut, reverse):
        """The categories a categorical candidate sends left (a bool row)."""
        hist = np.zeros((width, 3), dtype=np.int64)
        for r in rows:
            hist[codes[j][r]] += (1, g[r], h[r])
        n, _, H = sums(rows)
        order, dropped = category_order(
            hist, int(data.n_bins[j]), bool(data.has_missing[j]), missing, n, H,
            scale_g, scale_h, constant, o.l2_regularization,
        )  # fmt: skip
        if cut is None:  # every candidate: (cut, reverse) in the scan order
            scans = (False, True) if dropped else (False,)
            return [(i, rev) for rev in scans for i in range(len(order) - 1)]
        return category_set(order, cut, reverse, width)

    def scan(rows, j):
        """(bin or cut, missing_left or reverse, goes_left) in the scan order."""
        if data.is_categorical[j]:
            for cut, reverse in left_set(rows, j, None, None):
                row = left_set(rows, j, cut, reverse)
                yield cut, reverse, [r for r in rows if row[codes[j][r]]]
            return
        nb = int(data.n_bins[j])
        with_missing = bool(data.has_missing[j])
        # NaN right for b = 0..nb-2 (and nb-1 with NaN), then NaN left for b = nb-2..0.
        order = [(b, False) for b in range(nb - 1 + with_missing)]
        if with_missing:
            order += [(b, True) for b in range(nb - 2, -1, -1)]
        for b, nan_left in order:
            yield b, nan_left, [
                r for r in rows
                if codes[j][r] <= b or (codes[j][r] == missing and nan_left)
            ]  # fmt: skip

    def best_split(rows, value, lower, upper):
        n, G, H = sums(rows)
        best = None  # (gain, feature, bin, missing_left or reverse)
        for j in range(len(codes)):
            cst_j = 0 if data.is_categorical[j] else int(cst[j])
            for b, nan_left, goes_left in scan(rows, j):
                n_l, g_l, h_l = sums(goes_left)
                HL, HR = h_l * scale_h, (H - h_l) * scale_h
                least_rows, least_hessian = o.min_samples_leaf, o.min_hessian
                if not split_allowed(n_l, HL, n - n_l, HR, least_rows, least_hessian):
                    continue
                gain = bounded_split_gain(
                    g_l * scale_g, HL, (G - g_l) * scale_g, HR, G * scale_g, value, l2,
                    cst_j, lower, upper,
                )  # fmt: skip
                if gain > 0.0 and (best is None or gain > best[0]):
                    best = (gain, j, b, nan_left)
        return best

    # Each node: its rows, depth, value (clipped to its parent's children's bounds)
    # and its children's bounds [lower, upper] (monotonic constraints).
    n, G, H = sums(list(range(len(g))))
    root_value = node_value(G * scale_g, H * scale_h, l2)
    nodes = [{"rows": list(range(len(g))), "depth": 0, "value": root_value,
              "bounds": (-np.inf, np.inf)}]  # fmt: skip
    categories = {}  # node -> its left set, at categorical splits
    if n >= 2 * o.min_samples_leaf and H * scale_h >= o.min_hessian:
        nodes[0]["best"] = best_split(nodes[0]["rows"], root_value, -np.inf, np.inf)
    n_leaves = 1
    while o.max_leaf_nodes == NO_LIMIT or n_leaves < o.max_leaf_nodes:
        candidates = [k for k, node in enumerate(nodes) if node.get("best")]
        if not candidates:
            break
        k = max(candidates, key=lambda k: (nodes[k]["best"][0], -k))
        node = nodes[k]
        gain, j, b, nan_left = node.pop("best")
        if data.is_categorical[j]:
            row = left_set(node["rows"], j, b, nan_left)
            go = [bool(row[codes[j][r]]) for r in node["rows"]]
            nan_left = bool(row[missing])
            categories[k] = row
        else:
            go = [
                codes[j][r] <= b or (codes[j][r] == missing and nan_left)
                for r in node["rows"]
            ]  # fmt: skip
        node["split"] = (j, b, nan_left, gain)
        children = [
            [r for r, left in zip(node["rows"], go, strict=True) if left],
            [r for r, left in zip(node["rows"], go, strict=True) if not left],
        ]
        node["children"] = (len(nodes), len(nodes) + 1)
        n_leaves += 1
        lower, upper = node["bounds"]
        values = []
        for rows in children:
            _, G, H = sums(rows)
            step = node_value(G * scale_g, H * scale_h, l2)
            values.append(clip_value(step, lower, upper))
        constraint = 0 if data.is_categorical[j] else int(cst[j])
        bounds = children_value_bounds(constraint, lower, upper, values[0], values[1])
        sides = (bounds[:2], bounds[2:])
        for rows, v, bnd in zip(children, values, sides, strict=True):
            depth = node["depth"] + 1
            nodes.append({"rows": rows, "depth": depth, "value": v, "bounds": bnd})
        for child in (nodes[-2], nodes[-1]):
            if (
                (o.max_leaf_nodes != NO_LIMIT and n_leaves == o.max_leaf_nodes)
                or (o.max_depth != NO_LIMIT and child["depth"] >= o.max_depth)
                or len(child["rows"]) < 2 * o.min_samples_leaf
            ):
                continue
            child["best"] = best_split(child["rows"], child["value"], *child["bounds"])
    size = len(nodes)
    left = np.full(size, TREE_LEAF, dtype=np.intp)
    right = np.full(size, TREE_LEAF, dtype=np.intp)
    feature = np.full(size, -2, dtype=np.intp)
    bin_threshold = np.zeros(size, dtype=np.intp)
    missing_left = np.zeros(size, dtype=bool)
    value = np.zeros(size)
    count = np.zeros(size, dtype=np.intp)
    gains = np.zeros(size)
    n_sets = width if data.is_categorical.any() else 0
    categories_left = np.zeros((size, n_sets), dtype=bool)
    for k, row in categories.items():
        categories_left[k] = row
    for k, node in enumerate(nodes):
        count[k], G, H = sums(node["rows"])
        if "split" in node:
            j, b, nan_left, gain = node["split"]
            left[k], right[k] = node["children"]
            feature[k], bin_threshold[k], gains[k] = j, b, gain
            n_l, n_r = (len(nodes[c]["rows"]) for c in node["children"])
            missing_left[k] = nan_left if data.has_missing[j] else n_l > n_r
        else:
            value[k] = node["value"]
    return (left, right, feature, bin_threshold, missing_left, value, count, gains,
            categories_left)  # fmt: skip


# --- the losses ---------------------------------------------------------------------------------


class _Loss:
    """A loss: its baseline score, gradient and Hessian, and its value.

    As scikit-learn's ``sklearn._loss`` (half squared error, half binomial
    and multinomial deviance, half Poisson deviance), so that
    ``train_score_``/``validation_score_`` hold the same numbers.  ``raw``
    has shape (n, K).
    """

    n_trees = 1
    constant_hessian = False

    def baseline(self, y, w) -> np.ndarray:
        raise NotImplementedError

    def gradient_hessian(self, y, raw):
        raise NotImplementedError

    def pointwise(self, y, raw) -> np.ndarray:
        raise NotImplementedError

    def __call__(self, y, raw, w) -> float:
        return float(np.average(self.pointwise(y, raw), weights=w))


class _SquaredError(_Loss):
    constant_hessian = True

    def baseline(self, y, w):
        return np.array([np.average(y, weights=w)])

    def gradient_hessian(self, y, raw):
        return (raw[:, 0] - y)[:, None], 1.0

    def pointwise(self, y, raw):
        return 0.5 * (y - raw[:, 0]) ** 2


class _Gamma(_Loss):
    """Half gamma deviance with a log link (y > 0)."""

    def baseline(self, y, w):
        return log([np.average(y, weights=w)])

    def gradient_hessian(self, y, raw):
        scaled = y * exp(-raw[:, 0])
        return (1.0 - scaled)[:, None], scaled[:, None]

    def pointwise(self, y, raw):
        return raw[:, 0] + y * exp(-raw[:, 0])


class _Quantile(_Loss):
    """Pinball loss of ``quantile``.  Not differentiable: the tree is grown on
    the gradient with unit Hessians, then each leaf takes the quantile of its
    rows' residuals ``y - F`` (scikit-learn's ``_update_leaves_values``)."""

    constant_hessian = True

    def __init__(self, quantile: float, weighted: bool):
        self.quantile, self.weighted = quantile, weighted

    def intercept(self, residual, w):
        """scikit-learn's ``PinballLoss.fit_intercept_only``."""
        if not self.weighted:
            return float(np.percentile(residual, 100 * self.quantile))
        return weighted_percentile(residual, w, 100 * self.quantile)

    def baseline(self, y, w):
        return np.array([self.intercept(y, w)])

    def gradient_hessian(self, y, raw):
        return np.where(y >= raw[:, 0], -self.quantile, 1.0 - self.quantile)[:, None], 1.0

    def pointwise(self, y, raw):
        diff = y - raw[:, 0]
        return np.where(diff >= 0, self.quantile * diff, (self.quantile - 1.0) * diff)


class _AbsoluteError(_Quantile):
    def __init__(self, weighted: bool):
        super().__init__(0.5, weighted)

    def intercept(self, residual, w):
        """scikit-learn's ``AbsoluteError.fit_intercept_only``: the (weighted) median."""
        if not self.weighted:
            return float(np.median(residual))
        return weighted_percentile(residual, w, 50)

    def gradient_hessian(self, y, raw):
        return np.where(raw[:, 0] > y, 1.0, -1.0)[:, None], 1.0

    def pointwise(self, y, raw):
        return np.abs(raw[:, 0] - y)


class _Poisson(_Loss):
    def baseline(self, y, w):
        mean = np.average(y, weights=w)
        return log([max(mean, 10 * np.finfo(float).eps)])

    def gradient_hessian(self, y, raw):
        mu = exp(raw[:, 0])
        return (mu - y)[:, None], mu[:, None]

    def pointwise(self, y, raw):
        return exp(raw[:, 0]) - y * raw[:, 0]


class _BinomialLogLoss(_Loss):
    def baseline(self, y, w):
        eps = 10 * np.finfo(float).eps
        p = np.clip(np.average(y, weights=w), eps, 1 - eps)
        return log([p / (1 - p)])

    def gradient_hessian(self, y, raw):
        p = expit(raw[:, 0])
        return (p - y)[:, None], (p * (1 - p))[:, None]

    def pointwise(self, y, raw):
        return np.logaddexp(0.0, raw[:, 0]) - y * raw[:, 0]

    def proba(self, raw):
        p = expit(raw[:, 0])
        return np.column_stack([1 - p, p])


class _MultinomialLogLoss(_Loss):
    def __init__(self, n_classes: int):
        self.n_trees = n_classes

    def baseline(self, y, w):
        eps = np.finfo(float).eps
        p = np.array([np.average(y == k, weights=w) for k in range(self.n_trees)])
        log_p = log(np.clip(p, eps, 1 - eps))
        return log_p - log_p.mean()  # log(p / geometric mean), scikit-learn's link

    def gradient_hessian(self, y, raw):
        p = self.proba(raw)
        onehot = y[:, None] == np.arange(self.n_trees)
        return p - onehot, p * (1 - p)

    def pointwise(self, y, raw):
        # logsumexp_rows: scikit-learn's HalfMultinomialLoss's bits below 8 classes
        return logsumexp_rows(raw) - raw[np.arange(len(y)), y.astype(np.intp)]

    def proba(self, raw):
        return softmax_rows(raw)


# --- the estimators ------------------------------------------------------------------------------

#: scikit-learn 1.9's parameter constraints, taken from its estimators (the same names,
#: ranges and defaults); the values this package does not implement are refused in ``fit``.
_REGRESSOR_PARAMETERS = dict(SklearnRegressor._parameter_constraints)
_CLASSIFIER_PARAMETERS = dict(SklearnClassifier._parameter_constraints)


class _HistGradientBoosting(BaseEstimator):
    """What both estimators share: checks, binning, the iterations, early stopping."""

    _supported_losses: tuple = ()

    def __init__(self, loss, *, learning_rate, max_iter, max_leaf_nodes, max_depth,
                 min_samples_leaf, l2_regularization, max_features, max_bins,
                 categorical_features, monotonic_cst, interaction_cst, warm_start,
                 early_stopping, scoring, validation_fraction, n_iter_no_change, tol, verbose,
                 random_state):  # fmt: skip
        self.loss, self.learning_rate, self.max_iter = loss, learning_rate, max_iter
        self.max_leaf_nodes, self.max_depth = max_leaf_nodes, max_depth
        self.min_samples_leaf, self.l2_regularization = min_samples_leaf, l2_regularization
        self.max_features, self.max_bins = max_features, max_bins
        self.categorical_features, self.monotonic_cst = categorical_features, monotonic_cst
        self.interaction_cst, self.warm_start = interaction_cst, warm_start
        self.early_stopping, self.scoring = early_stopping, scoring
        self.validation_fraction, self.n_iter_no_change = validation_fraction, n_iter_no_change
        self.tol, self.verbose, self.random_state = tol, verbose, random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def _refuse_unsupported(self, X) -> None:
        """A clear error for each parameter value this package does not implement yet."""
        name = type(self).__name__
        sklearn_hint = f"(scikit-learn's sklearn.ensemble.{name} has it)"
        if isinstance(self.loss, str) and self.loss not in self._supported_losses:
            raise ValueError(
                f"loss={self.loss!r} is not supported by climbing_trees' {name}; use one of "
                f"{sorted(self._supported_losses)} {sklearn_hint}."
            )
        if not isinstance(self.loss, str):
            raise ValueError(f"loss must be a string among {sorted(self._supported_losses)}.")
        unsupported = {
            "max_features": (self.max_features != 1.0, "1.0 (every feature at every split)"),
            "interaction_cst": (self.interaction_cst is not None, "None"),
            "warm_start": (bool(self.warm_start), "False"),
            "scoring": (self.scoring != "loss", "'loss'"),
        }
        for parameter, (refused, supported) in unsupported.items():
            if refused:
                raise ValueError(
                    f"{parameter}={getattr(self, parameter)!r} is not supported by "
                    f"climbing_trees' {name}; only {parameter}={supported} is {sklearn_hint}."
                )

    def _options(self) -> GrowOptions:
        return GrowOptions(
            max_leaf_nodes=NO_LIMIT if self.max_leaf_nodes is None else self.max_leaf_nodes,
            max_depth=NO_LIMIT if self.max_depth is None else self.max_depth,
            min_samples_leaf=self.min_samples_leaf,
            l2_regularization=float(self.l2_regularization),
            learning_rate=float(self.learning_rate),
        )

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the boosted trees (``max_iter`` iterations, or fewer with early stopping).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numbers; NaN marks a missing value.  The categorical columns
            (``categorical_features``) may hold any values, numbers or strings.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Multiplies each row's gradient and Hessian (and its loss).

        Returns
        -------
        self : object
        """
        previous = dict(self.__dict__)
        try:
            return self._fit(X, y, sample_weight)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(previous)
            raise

    def _encode_X(self, X, reset: bool) -> np.ndarray:
        """``X`` as float64, each categorical column replaced by its categories' codes.

        As scikit-learn: ``categorical_features`` is checked by its
        ``_check_categorical_features``, the categorical columns are encoded by
        an ``OrdinalEncoder`` fitted here (the sorted distinct values seen at
        fit are codes 0, 1, ...; missing values and values unseen at fit
        become NaN)."""
        if reset:
            self.is_categorical_ = _check_categorical_features(X, self.categorical_features)
        if self.is_categorical_ is None:
            return validate_data(self, X, dtype=np.float64, ensure_all_finite=False,
                                 reset=reset)  # fmt: skip
        if not hasattr(X, "shape"):
            X = np.asarray(X, dtype=object)
        validate_data(self, X, skip_check_array=True, reset=reset)  # names, n_features_in_
        categorical = np.flatnonzero(self.is_categorical_)
        numerical = np.flatnonzero(~self.is_categorical_)
        X_categorical = _safe_indexing(X, categorical, axis=1)
        if reset:
            self._encoder = OrdinalEncoder(
                handle_unknown="use_encoded_value", unknown_value=np.nan,
                encoded_missing_value=np.nan, dtype=np.float64,
            ).fit(X_categorical)  # fmt: skip
            self._check_cardinalities(categorical)
        out = np.empty((_num_samples(X), len(self.is_categorical_)))
        out[:, categorical] = self._encoder.transform(X_categorical)
        out[:, numerical] = check_array(_safe_indexing(X, numerical, axis=1), dtype=np.float64,
                                        ensure_all_finite=False, ensure_min_features=0)  # fmt: skip
        return out

    def _n_categories(self) -> np.ndarray:
        """Categories seen at fit per feature (missing values not counted; 0: numerical)."""
        n = np.zeros(len(self.is_categorical_), dtype=np.intp)
        for j, levels in zip(np.flatnonzero(self.is_categorical_), self._encoder.categories_,
                             strict=True):  # fmt: skip
            n[j] = len(levels) - (len(levels) > 0 and is_scalar_nan(levels[-1]))
        return n

    def _check_cardinalities(self, categorical) -> None:
        """More categories than uint16 codes hold (the missing bin included): an error."""
        n = self._n_categories()
        if n.max() > MAX_BINS_LIMIT - 1:
            j = int(np.argmax(n))
            names = getattr(self, "feature_names_in_", None)
            name = repr(names[j]) if names is not None else f"at index {j}"
            raise ValueError(
                f"Categorical feature {name} has {n[j]:,} categories; at most "
                f"{MAX_BINS_LIMIT - 1:,} are supported (pool the rare ones, or treat the "
                "feature as numerical)."
            )

    def _fit_bins(self, X, seed) -> Bins:
        """:func:`fit_bins` for the numerical features; a bin per category seen at fit
        (its code) for the categorical ones, however many there are."""
        bins = fit_bins(X, self.max_bins, random_state=seed)
        if self.is_categorical_ is None:
            return bins
        edges, values = list(bins.edges), list(bins.values)
        n_categories = self._n_categories()
        for j in np.flatnonzero(self.is_categorical_):
            values[j] = np.arange(float(n_categories[j]))
            edges[j] = values[j][:-1] + 0.5
        return Bins(edges, values, max(bins.max_bins, int(n_categories.max())))

    def _fit(self, X, y, sample_weight):
        self._refuse_unsupported(X)
        X = self._encode_X(X, reset=True)
        y = _check_y(y, y_numeric=not isinstance(self, ClassifierMixin))
        check_consistent_length(X, y)
        # scikit-learn's leaf quantiles are weighted whenever weights are given.
        self._weights_given = sample_weight is not None
        y, loss = self._encode_y(y)
        monotonic_cst = self._check_monotonic_cst(loss)
        sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64)
        sample_weight = self._class_weights(y, sample_weight)
        if np.any(sample_weight < 0) or not np.any(sample_weight > 0):
            raise ValueError(
                "sample_weight must be non-negative with at least one positive weight."
            )
        n = X.shape[0]  # early_stopping="auto" counts every row, as scikit-learn
        if np.any(sample_weight == 0):  # a row of weight 0 is no row (bins, counts)
            keep = sample_weight > 0
            X, y, sample_weight = X[keep], y[keep], sample_weight[keep]
        weighted = sample_weight is not None and not np.all(sample_weight == 1.0)
        rng = check_random_state(self.random_state)
        seed = rng.randint(np.iinfo(np.uint32).max, dtype="u8")  # scikit-learn's draw
        stop_early = n > 10_000 if self.early_stopping == "auto" else bool(self.early_stopping)
        use_validation = stop_early and self.validation_fraction is not None
        if use_validation:
            stratify = y if isinstance(self, ClassifierMixin) else None
            X, X_val, y, y_val, sample_weight, w_val = train_test_split(
                X, y, sample_weight, test_size=self.validation_fraction, stratify=stratify,
                random_state=seed,
            )  # fmt: skip
        bins = self._fit_bins(X, seed)
        data = BinnedData.from_bins(bins, X, self.is_categorical_)
        options = replace(self._options(), monotonic_cst=monotonic_cst)
        baseline = loss.baseline(y, sample_weight).reshape(1, -1)
        raw = np.asfortranarray(np.repeat(baseline, len(y), axis=0))
        train_score, validation_score = [], []
        if use_validation:
            raw_val = np.repeat(baseline, len(y_val), axis=0)
        if stop_early:
            train_score.append(-loss(y, raw, sample_weight))
            if use_validation:
                validation_score.append(-loss(y_val, raw_val, w_val))
        if self.verbose:
            print("Fitting gradient boosted rounds:")
        trees, workspace = [], {}
        for iteration in range(self.max_iter):
            started = time()
            gradient, hessian = loss.gradient_hessian(y, raw)
            if weighted:
                gradient = gradient * sample_weight[:, None]
                hessian = np.broadcast_to(hessian, gradient.shape) * sample_weight[:, None]
            stage = []
            for k in range(loss.n_trees):
                h_k = hessian if np.ndim(hessian) == 0 else np.ascontiguousarray(hessian[:, k])
                stats = Statistics.of(np.ascontiguousarray(gradient[:, k]), h_k)
                arrays, (rows, start) = grow_hist_tree(data, stats, options, workspace)
                leaf_values = None
                if isinstance(loss, _Quantile):  # each leaf: the quantile of its residuals
                    leaf_values = _leaf_intercepts(loss, arrays, rows, start, y, raw[:, k],
                                                   sample_weight)  # fmt: skip
                tree = hist_tree_of(arrays, bins, options.learning_rate, leaf_values,
                                    data.is_categorical)  # fmt: skip
                _add_leaf_values(raw[:, k], rows, start, tree.n_node_samples,
                                 tree.children_left, tree.value)  # fmt: skip
                stage.append(tree)
            trees.append(stage)
            should_stop = False
            if stop_early:
                train_score.append(-loss(y, raw, sample_weight))
                if use_validation:
                    for k, tree in enumerate(stage):
                        raw_val[:, k] += tree.predict(X_val)
                    validation_score.append(-loss(y_val, raw_val, w_val))
                should_stop = self._should_stop(validation_score if use_validation else train_score)
            if self.verbose:
                self._print_iteration(iteration, stage, stop_early, use_validation,
                                      train_score, validation_score, started)  # fmt: skip
            if should_stop:
                break
        self._bins, self._loss, self._trees = bins, loss, trees
        self._baseline_prediction = baseline
        self.n_iter_ = len(trees)
        self.n_trees_per_iteration_ = loss.n_trees
        self.do_early_stopping_ = stop_early
        self.train_score_ = np.asarray(train_score, dtype=float)
        self.validation_score_ = np.asarray(validation_score, dtype=float)
        return self

    def _class_weights(self, y, sample_weight):
        return sample_weight

    def _check_monotonic_cst(self, loss) -> np.ndarray | None:
        """``monotonic_cst`` as an int8 array by feature (None: no constraint), checked
        as scikit-learn checks it (its ``_check_monotonic_cst``: a list or array of
        -1, 0, 1 per feature, or a dict by feature name), with its errors."""
        if self.monotonic_cst is None:
            return None
        if loss.n_trees != 1:
            raise ValueError(
                "monotonic constraints are not supported for multiclass classification."
            )
        cst = _check_monotonic_cst(self, self.monotonic_cst).astype(np.int8)
        if self.is_categorical_ is not None and np.any(cst[self.is_categorical_] != 0):
            raise ValueError("Categorical features cannot have monotonic constraints.")
        if isinstance(loss, _Quantile) and np.any(cst != 0):
            # Each leaf takes the quantile of its residuals after the tree is grown,
            # which no bound clips: the model would not be monotone (scikit-learn
            # accepts the pair and returns such a model).
            raise ValueError(
                f"monotonic_cst is not enforced with loss={self.loss!r}: its leaves "
                "take the quantile of their residuals after the tree is grown, which "
                "can break the order. Use loss='squared_error' (or another loss with "
                "a Hessian), or drop monotonic_cst."
            )
        return cst

    def _should_stop(self, scores) -> bool:
        """scikit-learn's rule: stop when none of the last ``n_iter_no_change`` scores
        beats the one before them by more than ``tol``."""
        reference_position = self.n_iter_no_change + 1
        if len(scores) < reference_position:
            return False
        reference = scores[-reference_position] + self.tol
        return not any(score > reference for score in scores[-reference_position + 1 :])

    def _print_iteration(self, iteration, stage, stop_early, use_validation, train_score,
                         validation_score, started) -> None:  # fmt: skip
        n_leaves = sum(tree.n_leaves for tree in stage)
        depth = max(tree.max_depth for tree in stage)
        line = f"[{iteration + 1}/{self.max_iter}] "
        if len(stage) == 1:
            line += f"1 tree, {n_leaves} leaves, "
        else:
            line += f"{len(stage)} trees, {n_leaves} leaves ({n_leaves // len(stage)} on avg), "
        line += f"max depth = {depth}, "
        if stop_early:
            line += f"train loss: {-train_score[-1]:.5f}, "
            if use_validation:
                line += f"val loss: {-validation_score[-1]:.5f}, "
        line += f"in {time() - started:0.3f}s"
        print(line, file=sys.stdout, flush=True)

    def _check_X(self, X) -> np.ndarray:
        check_is_fitted(self, "_trees")
        return self._encode_X(X, reset=False)

    def _staged_raw(self, X):
        """The scores after each iteration (copies), shape (n, K)."""
        X = np.ascontiguousarray(self._check_X(X))
        raw = np.repeat(self._baseline_prediction, X.shape[0], axis=0)
        for stage in self._trees:
            for k, tree in enumerate(stage):
                raw[:, k] += tree.predict(X)
            yield raw.copy()

    def _raw_predict(self, X) -> np.ndarray:
        X = np.ascontiguousarray(self._check_X(X))
        raw = np.asfortranarray(np.repeat(self._baseline_prediction, X.shape[0], axis=0))
        for stage in self._trees:
            for k, tree in enumerate(stage):
                _add_tree(
                    X, tree.children_left, tree.children_right, tree.feature, tree.threshold,
                    tree.missing_go_to_left, tree.value, tree.categories_left, raw[:, k],
                )  # fmt: skip
        return raw

    @property
    def trees_(self) -> list:
        """The fitted trees, ``trees_[i][k]`` (iteration ``i``, score column ``k``)."""
        check_is_fitted(self, "_trees")
        return self._trees


_PARAMETERS_DOC = """\
    learning_rate : float, default=0.1
        Shrinkage: each leaf adds ``learning_rate`` times its Newton step.
    max_iter : int, default=100
        Boosting iterations (one tree per iteration, one per class with more
        than two classes).
    max_leaf_nodes : int or None, default=31
        Leaves per tree at most (grown best-first); None: no limit.
    max_depth : int or None, default=None
        Edges from the root to a leaf at most; None: no limit.
    min_samples_leaf : int, default=20
        Rows per leaf at least.
    l2_regularization : float, default=0.0
        ``λ`` in the gain and the leaf values ``-G/(H+λ)``.
    max_features : float, default=1.0
        Only 1.0 (every feature at every split) is supported; other values
        raise ValueError.
    max_bins : int, default=255
        Bins of present values per feature (at most 255); NaN gets one more.
    categorical_features : array-like of {bool, int, str}, 'from_dtype' or None, \
default='from_dtype'
        The categorical features, as scikit-learn's (checked by its
        ``_check_categorical_features``, with its errors): a boolean mask,
        integer indices, feature names, 'from_dtype' (the DataFrame columns of
        categorical dtype), or None (none).  A categorical column may hold any
        values (numbers or strings): the distinct values seen at fit, sorted,
        are its categories (scikit-learn's ``OrdinalEncoder``), each with a
        bin of its own, however many there are (up to 65,534; scikit-learn
        refuses more than ``max_bins``).  Missing values (NaN, None) are a
        category of their own in the search; at predict, values not seen at
        fit (other numbers, negative ones, other strings) are treated as
        missing, as scikit-learn treats them.  A split sends a set of
        categories left: the node's categories are sorted by ``G/(H+λ)`` and
        every prefix of that order is a candidate (the best partition for
        λ = 0); a category whose share of the node's Hessian is below 10 rows'
        worth (scikit-learn's ``MIN_CAT_SUPPORT``), and a category absent from
        the node, goes right.
    monotonic_cst : array-like of int of shape (n_features,) or dict, default=None
        A constraint per feature: 1 increasing, -1 decreasing, 0 none; a dict
        maps feature names (``feature_names_in_``) to constraints, the others 0.
        None: no constraint.  As scikit-learn's: a split on a constrained
        feature whose children's values (clipped to the node's bounds) go the
        wrong way is not a candidate, and its children's descendants are held
        on either side of the middle of the two values
        (:func:`bounded_split_gain`, :func:`children_value_bounds`).  Refused
        (ValueError, scikit-learn's messages): on a categorical feature, for
        multiclass classification, a wrong length or a value not in -1, 0, 1;
        and, unlike scikit-learn, with ``loss="absolute_error"`` or
        ``"quantile"``, whose leaves take a quantile of their residuals after the
        tree is grown, which no bound clips (the model would not be monotone).
    interaction_cst : None, default=None
        Not supported: a value other than None raises ValueError.
    warm_start : bool, default=False
        Not supported: True raises ValueError.
    early_stopping : 'auto' or bool, default='auto'
        Stop when the validation loss has not improved by more than ``tol`` in
        ``n_iter_no_change`` iterations; 'auto': on when there are more than
        10,000 rows.
    scoring : 'loss', default='loss'
        The early-stopping score is minus the loss; other values raise
        ValueError.
    validation_fraction : float, int or None, default=0.1
        Rows held out for early stopping (a fraction, or a number); None:
        stop on the training loss.
    n_iter_no_change : int, default=10
        Iterations without improvement before stopping.
    tol : float, default=1e-7
        Least improvement of the score that counts.
    verbose : int, default=0
        Above 0: one line per iteration (trees, leaves, depth, losses, time).
    random_state : int, RandomState instance or None, default=None
        Draws the early-stopping split and the rows whose quantiles bin a
        feature with more than 200,000 rows (scikit-learn's draws: the same
        ``random_state`` gives the same split and bins)."""

_ATTRIBUTES_DOC = """\
    n_iter_ : int
        Iterations fitted (fewer than ``max_iter`` after early stopping).
    n_trees_per_iteration_ : int
        1, or the number of classes with more than two.
    train_score_ : ndarray of shape (n_iter_ + 1,)
        Minus the training loss before the first and after each iteration
        (empty without early stopping).
    validation_score_ : ndarray of shape (n_iter_ + 1,)
        The same on the validation rows (empty without early stopping or
        with ``validation_fraction=None``).
    do_early_stopping_ : bool
        Whether early stopping was on.
    trees_ : list of lists of HistTree
        ``trees_[i][k]``: iteration ``i``'s tree of score column ``k``.
    is_categorical_ : ndarray of shape (n_features_in_,) of bool, or None
        Which features are categorical (None: none), as scikit-learn's.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Defined when ``X`` had string column names."""

_NOTES_DOC = """\
    Implemented here: leaf-wise Newton trees on fixed-point gradient
    histograms (:func:`grow_hist_tree`, checked against the plain-Python
    :func:`grow_hist_tree_reference`), missing values with a learned
    direction per split, native categorical features (a set of categories
    per split, from the sorted scan of :func:`category_order`), sample
    weights, monotonic constraints (``monotonic_cst``), early stopping on the
    loss.  Not implemented (a clear ValueError): ``interaction_cst``, ``max_features < 1``,
    ``warm_start``, scorers other than the loss, the fit parameters
    ``X_val``/``y_val``.

    Differences from scikit-learn: gradients are float64 (scikit-learn's are
    float32) and summed exactly in fixed point; the root's gain subtracts its
    own ``G²/(H+λ)`` where scikit-learn subtracts 0 (the candidates rank
    alike, but scikit-learn can split a root whose best split gains
    nothing); with sample weights, a feature of more than ``max_bins``
    values is binned from unweighted quantiles
    (:func:`climbing_trees._binning.fit_bins`; scikit-learn weighs them).
    On data without ties the first tree has scikit-learn's splits, node for
    node, and its leaf values agree to float32 precision
    (tests/test_hist_gradient_boosting.py); later trees see slightly
    different gradients.  Categorical splits: scikit-learn sorts the
    categories by ``G/(H+10)`` and scans from both ends to the middle; this
    package sorts by ``G/(H+λ)`` and scans every prefix (and, when a rare
    category was left out, every suffix), so it may choose another
    partition where scikit-learn's smoothed order differs.  Ties: the first
    feature, then the first bin in the scan order, wins; of equal gains,
    the leaf created first is split first."""


class HistGradientBoostingRegressor(RegressorMixin, _HistGradientBoosting):
    """Histogram gradient boosting for regression (scikit-learn 1.9's parameters).

    The book's boosting chapter explains it.  Newton trees grown leaf-wise on
    fixed-point gradient and Hessian histograms of the binned features; NaN
    is a value of its own, sent left or right by each split.

    Parameters
    ----------
    loss : {'squared_error', 'absolute_error', 'gamma', 'poisson', 'quantile'}, \
default='squared_error'
        As scikit-learn's: half squared error (baseline: the mean); half
        Poisson or gamma deviance with a log link (baseline: the log of the
        mean); absolute error or the pinball loss of ``quantile`` (not
        differentiable: the tree is grown on the gradient with unit Hessians,
        then each leaf takes the median, or the quantile, of its rows'
        residuals, weighted when ``sample_weight`` is given).
    quantile : float or None, default=None
        The quantile that loss='quantile' estimates, in (0, 1).
    {parameters}

    Attributes
    ----------
    {attributes}

    Notes
    -----
    {notes}

    References
    ----------
    Friedman, J. H. (2001). Greedy function approximation: a gradient
    boosting machine. Annals of Statistics 29(5).  Chen, T. and Guestrin, C.
    (2016). XGBoost: a scalable tree boosting system. KDD.  Ke, G. et al.
    (2017). LightGBM: a highly efficient gradient boosting decision tree.
    NeurIPS.

    Examples
    --------
    >>> from sklearn.datasets import make_regression
    >>> X, y = make_regression(n_samples=500, n_features=4, noise=1.0, random_state=0)
    >>> model = HistGradientBoostingRegressor(max_iter=50).fit(X, y)
    >>> model.n_iter_, bool(model.score(X, y) > 0.9)
    (50, True)
    >>> median = HistGradientBoostingRegressor(loss="absolute_error", max_iter=50).fit(X, y)
    >>> bool(median.score(X, y) > 0.8)
    True
    """

    _parameter_constraints: dict = _REGRESSOR_PARAMETERS
    _supported_losses = ("squared_error", "absolute_error", "gamma", "poisson", "quantile")

    def __init__(self, loss="squared_error", *, quantile=None, learning_rate=0.1, max_iter=100,
                 max_leaf_nodes=31, max_depth=None, min_samples_leaf=20,
                 l2_regularization=0.0, max_features=1.0, max_bins=255,
                 categorical_features="from_dtype", monotonic_cst=None, interaction_cst=None,
                 warm_start=False, early_stopping="auto", scoring="loss",
                 validation_fraction=0.1, n_iter_no_change=10, tol=1e-7, verbose=0,
                 random_state=None):  # fmt: skip
        super().__init__(
            loss, learning_rate=learning_rate, max_iter=max_iter,
            max_leaf_nodes=max_leaf_nodes, max_depth=max_depth,
            min_samples_leaf=min_samples_leaf, l2_regularization=l2_regularization,
            max_features=max_features, max_bins=max_bins,
            categorical_features=categorical_features, monotonic_cst=monotonic_cst,
            interaction_cst=interaction_cst, warm_start=warm_start,
            early_stopping=early_stopping, scoring=scoring,
            validation_fraction=validation_fraction, n_iter_no_change=n_iter_no_change,
            tol=tol, verbose=verbose, random_state=random_state,
        )  # fmt: skip
        self.quantile = quantile

    def _encode_y(self, y):
        y = np.asarray(y, dtype=np.float64)
        if self.loss == "poisson":
            if np.any(y < 0) or np.sum(y) <= 0:
                raise ValueError(
                    "loss='poisson' needs y >= 0 with a positive sum (counts or rates); "
                    "some value(s) of y are out of that range."
                )
            return y, _Poisson()
        if self.loss == "gamma":
            if np.any(y <= 0):
                raise ValueError(
                    "loss='gamma' needs y > 0; some value(s) of y are out of that range."
                )
            return y, _Gamma()
        if self.loss == "absolute_error":
            return y, _AbsoluteError(self._weights_given)
        if self.loss == "quantile":
            if self.quantile is None or not 0 < self.quantile < 1:
                raise ValueError(
                    f"loss='quantile' needs quantile strictly between 0 and 1, got "
                    f"quantile={self.quantile!r}."
                )
            return y, _Quantile(float(self.quantile), self._weights_given)
        return y, _SquaredError()

    def predict(self, X) -> np.ndarray:
        """Predicted values: the summed scores (through ``exp`` for the Poisson loss).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
        return self._inverse_link(self._raw_predict(X)[:, 0])

    def staged_predict(self, X):
        """Predictions after each iteration.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Yields
        ------
        y : ndarray of shape (n_samples,)
        """
        for raw in self._staged_raw(X):
            yield self._inverse_link(raw[:, 0])

    def _inverse_link(self, raw):
        return exp(raw) if isinstance(self._loss, (_Poisson, _Gamma)) else raw


class HistGradientBoostingClassifier(ClassifierMixin, _HistGradientBoosting):
    """Histogram gradient boosting for classification (scikit-learn 1.9's parameters).

    The book's boosting chapter explains it.  Binary log-loss (one tree per
    iteration, on the log-odds) or multinomial log-loss (one tree per class
    and iteration, on the softmax's scores), with Newton leaves
    ``-G/(H+λ)``.

    Parameters
    ----------
    loss : {'log_loss'}, default='log_loss'
        Binomial or multinomial log-loss (from the number of classes); the
        baseline is the log-odds, or the log of the class priors less their
        mean.
    {parameters}
    class_weight : dict, 'balanced' or None, default=None
        Weights of the classes, multiplied into ``sample_weight`` (as
        scikit-learn's ``compute_sample_weight``).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    {attributes}

    Notes
    -----
    {notes}

    ``predict`` returns the class of the largest probability (the first of
    equal ones).

    References
    ----------
    Friedman, J. H. (2001). Greedy function approximation: a gradient
    boosting machine. Annals of Statistics 29(5).  Chen, T. and Guestrin, C.
    (2016). XGBoost: a scalable tree boosting system. KDD.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> X, y = make_classification(n_samples=500, n_features=6, random_state=0)
    >>> model = HistGradientBoostingClassifier(max_iter=30).fit(X, y)
    >>> model.predict_proba(X[:2]).shape, bool(model.score(X, y) > 0.9)
    ((2, 2), True)
    """

    _parameter_constraints: dict = _CLASSIFIER_PARAMETERS
    _supported_losses = ("log_loss",)

    def __init__(self, loss="log_loss", *, learning_rate=0.1, max_iter=100, max_leaf_nodes=31,
                 max_depth=None, min_samples_leaf=20, l2_regularization=0.0, max_features=1.0,
                 max_bins=255, categorical_features="from_dtype", monotonic_cst=None,
                 interaction_cst=None, warm_start=False, early_stopping="auto",
                 scoring="loss", validation_fraction=0.1, n_iter_no_change=10, tol=1e-7,
                 verbose=0, random_state=None, class_weight=None):  # fmt: skip
        super().__init__(
            loss, learning_rate=learning_rate, max_iter=max_iter,
            max_leaf_nodes=max_leaf_nodes, max_depth=max_depth,
            min_samples_leaf=min_samples_leaf, l2_regularization=l2_regularization,
            max_features=max_features, max_bins=max_bins,
            categorical_features=categorical_features, monotonic_cst=monotonic_cst,
            interaction_cst=interaction_cst, warm_start=warm_start,
            early_stopping=early_stopping, scoring=scoring,
            validation_fraction=validation_fraction, n_iter_no_change=n_iter_no_change,
            tol=tol, verbose=verbose, random_state=random_state,
        )  # fmt: skip
        self.class_weight = class_weight

    def _encode_y(self, y):
        check_classification_targets(y)
        encoder = LabelEncoder()
        codes = encoder.fit_transform(y)
        self.classes_ = encoder.classes_
        n_classes = len(self.classes_)
        if n_classes < 2:
            raise ValueError(
                f"y has {n_classes} class; HistGradientBoostingClassifier needs at least 2 classes."
            )
        loss = _BinomialLogLoss() if n_classes == 2 else _MultinomialLogLoss(n_classes)
        return codes.astype(np.float64), loss

    def _class_weights(self, y, sample_weight):
        if self.class_weight is None:
            return sample_weight
        return sample_weight * compute_sample_weight(self.class_weight, y)

    def decision_function(self, X) -> np.ndarray:
        """The scores: log-odds (binary, shape (n,)) or per-class scores (n, K).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
        """
        raw = self._raw_predict(X)
        return raw[:, 0] if raw.shape[1] == 1 else raw

    def staged_decision_function(self, X):
        """The scores after each iteration.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Yields
        ------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
        """
        for raw in self._staged_raw(X):
            yield raw[:, 0] if raw.shape[1] == 1 else raw

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities (the sigmoid or the softmax of the scores).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        raw = self._raw_predict(X)  # checks that the model is fitted first
        return self._loss.proba(raw)

    def staged_predict_proba(self, X):
        """Class probabilities after each iteration.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Yields
        ------
        proba : ndarray of shape (n_samples, n_classes)
        """
        for raw in self._staged_raw(X):
            yield self._loss.proba(raw)

    def predict(self, X) -> np.ndarray:
        """The class of the largest probability.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def predict_log_proba(self, X) -> np.ndarray:
        """The logarithms of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
        """
        return np.log(self.predict_proba(X))

    def staged_predict(self, X):
        """Predicted classes after each iteration.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Yields
        ------
        y : ndarray of shape (n_samples,)
        """
        for proba in self.staged_predict_proba(X):
            yield self.classes_[np.argmax(proba, axis=1)]


for _cls in (HistGradientBoostingRegressor, HistGradientBoostingClassifier):
    for _key, _text in (
        ("    {parameters}", _PARAMETERS_DOC),
        ("    {attributes}", _ATTRIBUTES_DOC),
        ("    {notes}", _NOTES_DOC),
    ):
        _cls.__doc__ = _cls.__doc__.replace(_key, _text)
