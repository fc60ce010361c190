"""Monotonic constraints: predictions that only rise (or only fall) along a feature.

The book's appendix "Monotonic constraints", after chapter 5 ("Training and
inference"), explains this module.

``monotonic_cst[j] = 1`` asks that the prediction never decreases when feature
``j`` increases (the other features fixed), ``-1`` that it never increases,
``0`` nothing.  scikit-learn's trees (since 1.4) enforce it with the rules
below, written here once.  Every builder calls them:
:func:`climbing_trees.grow_tree` node by node, the level-wise builder on a
whole level at once (the functions take arrays: :func:`allowed_splits`,
:func:`children_bounds`, :func:`clip_value_rows`), the compiled builder
through their scalar numba ports (:mod:`climbing_trees._compiled._rules`,
pinned equal to these by ``tests/test_monotonic_builders.py``).  The
estimators grow a constrained tree with the builder that grows the same
options unconstrained (:func:`climbing_trees._levelwise._support.builder_for`),
but for absolute error, which ``grow_tree`` grows under constraints;
``splitter="hist"`` refuses constraints yet.

1. **Candidates.**  A split on a constrained feature is a candidate only if
   its children's values are in order (left ``<=`` right for ``+1``, left
   ``>=`` right for ``-1``) and both lie within the node's bounds
   ``[lower, upper]``.  A split on an unconstrained feature is not checked
   (its children's values are clipped to the bounds, rule 3).  Refused
   candidates are skipped and the search goes on with the others
   (:func:`allowed_splits`, :func:`refused_candidates`).
2. **Bounds.**  The root's bounds are ``(-inf, inf)``.  A split on an
   unconstrained feature passes its node's bounds to both children; a split
   on a constrained feature cuts them at the *middle value* ``m``, the mean
   of the two children's values: for ``+1`` the left child gets ``[lower, m]``
   and the right one ``[m, upper]`` (for ``-1`` the other way round), so
   everything below the left child stays below everything below the right
   one (:func:`child_bounds`, :func:`children_bounds`).
3. **Values.**  Every node's value is clipped to its bounds
   (:func:`clip_values`, :func:`clip_value_rows`).

A node's *value* is the weighted mean of its target (regression; the
weighted median for absolute error) or, for two classes, the weighted
proportion of the first class: as scikit-learn
does, the builders constrain the first class's proportion with the sign
flipped (:func:`builder_constraints`), which constrains the second
(positive) class's probability with the sign given.  Classification with more
than two classes and several outputs are refused, with scikit-learn's errors
(:func:`check_monotonic_cst`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class NodeConstraints(NamedTuple):
    """What a node's search needs: each searched column's constraint (the builders'
    sign, :func:`builder_constraints`) and the node's bounds."""

    cst: np.ndarray
    lower: float
    upper: float

    def columns(self, columns) -> NodeConstraints:
        """The same node, searching only ``columns`` (indices into ``cst``)."""
        return self._replace(cst=self.cst[columns])


#: The histogram search's refusal, raised wherever a hist fit meets constraints.
HIST_REFUSES_CONSTRAINTS = (
    "splitter='hist' does not take monotonic_cst yet: its bin scans do not "
    "enforce monotonic constraints; use splitter='best' or 'random'."
)


def check_monotonic_cst(monotonic_cst, n_features: int, n_outputs: int, n_classes=None):
    """``monotonic_cst`` as an int8 array of -1, 0, 1, or a clear error (scikit-learn's).

    ``n_classes``: the classifier's number of classes (``None`` for a
    regressor).  Returns ``None`` for ``None``.

    >>> check_monotonic_cst([1, 0, -1], 3, 1).tolist()
    [1, 0, -1]
    >>> check_monotonic_cst([1, 0.8], 2, 1)
    Traceback (most recent call last):
    ...
    ValueError: monotonic_cst must be None or an array-like of -1, 0 or 1, but got [0.8 1. ]
    """
    if monotonic_cst is None:
        return None
    if n_outputs > 1:
        raise ValueError("Monotonicity constraints are not supported with multiple outputs.")
    cst = np.asarray(monotonic_cst)
    if cst.ndim != 1 or cst.shape[0] != n_features:
        shape = cst.shape[0] if cst.ndim == 1 else cst.shape
        raise ValueError(
            f"monotonic_cst has shape {shape} but the input data X has {n_features} features."
        )
    if not np.all(np.isin(cst, (-1, 0, 1))):
        raise ValueError(
            "monotonic_cst must be None or an array-like of -1, 0 or 1, but got "
            f"{np.unique(cst)}"
        )
    if n_classes is not None and n_classes > 2:
        raise ValueError(
            "Monotonicity constraints are not supported with multiclass classification"
        )
    return np.asarray(cst, dtype=np.int8)


def builder_constraints(cst: np.ndarray, classifier: bool) -> np.ndarray:
    """The constraints the builders enforce on a node's first value column.

    A classifier's first column is the first class's proportion, which falls
    when the positive class's rises: its signs flip (scikit-learn's way).

    >>> builder_constraints(np.array([1, 0, -1], dtype=np.int8), True).tolist()
    [-1, 0, 1]
    """
    return -cst if classifier else cst


def value_statistics(Y: np.ndarray, sample_weight: np.ndarray) -> np.ndarray:
    """Per row, ``[w * Y[:, 0], w]``: summed over a node, its value is their ratio.

    ``Y`` is the builders' target: a regression column, or the one-hot
    classes (column 0: the first class).
    """
    w = np.asarray(sample_weight, dtype=float)
    return np.column_stack([w * np.asarray(Y, dtype=float)[:, 0], w])


def ratio_values(sums: np.ndarray) -> np.ndarray:
    """Values ``sums[..., 0] / sums[..., 1]`` of :func:`value_statistics` sums."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums[..., 0] / sums[..., 1]


def allowed_splits(cst, value_left, value_right, lower, upper) -> np.ndarray:
    """Rule 1: which candidates may split the node (elementwise).

    ``cst`` is the split feature's constraint in the builders' sign; where it
    is 0 every candidate is allowed.  Otherwise both children's values must lie
    in ``[lower, upper]`` and be in the order ``cst`` asks
    (``(left - right) * cst <= 0``), scikit-learn's ``_check_monotonicity``.

    >>> left, right = np.array([1.0, 3.0, 1.0]), np.array([2.0, 2.0, 9.0])
    >>> allowed_splits(1, left, right, 0.0, 5.0)
    array([ True, False, False])
    >>> allowed_splits(0, 3.0, 2.0, 0.0, 1.0)
    array(True)
    """
    value_left, value_right = np.asarray(value_left), np.asarray(value_right)
    if np.all(cst == 0):
        return np.ones(np.broadcast(value_left, value_right).shape, dtype=bool)
    within = (
        (value_left >= lower)
        & (value_right >= lower)
        & (value_left <= upper)
        & (value_right <= upper)
    )
    ordered = (value_left - value_right) * cst <= 0
    return within & ordered | (np.asarray(cst) == 0)


def middle_value(value_left: float, value_right: float, medians: bool = False) -> float:
    """Rule 2's cut between the children: their mean, as scikit-learn computes it.

    scikit-learn adds ``sum_left / (2 W_left) + sum_right / (2 W_right)``;
    halving is exact, so this is the same number.  For absolute error
    (``medians``) it computes ``(median_left + median_right) / 2``.
    """
    if medians:
        return (value_left + value_right) / 2.0
    return value_left / 2.0 + value_right / 2.0


def child_values(Y, sample_weight, goes_left, criterion: str) -> tuple[float, float]:
    """The values (first column) of the two children of a split: means, or medians.

    The children's own node values (:func:`climbing_trees._criteria.node_value`),
    before any clipping.
    """
    from ._criteria import node_value

    w = np.asarray(sample_weight, dtype=float)
    sides = (goes_left, ~goes_left)
    values = []
    for side in sides:
        if not np.any(w[side] > 0):
            values.append(np.nan)
            continue
        values.append(float(node_value(Y[side], w[side], criterion)[0]))
    return values[0], values[1]


def child_bounds(
    cst: int,
    lower: float,
    upper: float,
    value_left: float,
    value_right: float,
    medians: bool = False,
):
    """Rule 2 for one split: the children's bounds, ``((lower, upper) left,
    (lower, upper) right)`` (:func:`children_bounds` for many).

    >>> child_bounds(1, -np.inf, np.inf, 1.0, 3.0)
    ((-inf, 2.0), (2.0, inf))
    >>> child_bounds(-1, 0.0, 5.0, 4.0, 2.0)
    ((3.0, 5.0), (0.0, 3.0))
    >>> child_bounds(0, 0.0, 5.0, 4.0, 2.0)
    ((0.0, 5.0), (0.0, 5.0))
    """
    bounds = children_bounds(cst, lower, upper, value_left, value_right, medians)
    left_lower, left_upper, right_lower, right_upper = (float(b) for b in bounds)
    return (left_lower, left_upper), (right_lower, right_upper)


def children_bounds(cst, lower, upper, value_left, value_right, medians: bool = False):
    """Rule 2, elementwise over many splits: ``(left_lower, left_upper, right_lower,
    right_upper)``.

    ``cst`` is each split feature's constraint (the builders' sign), ``lower``
    and ``upper`` the parents' bounds, ``value_left`` and ``value_right`` the
    children's own values (before clipping).  Where ``cst`` is 0 both
    children keep the parent's bounds; otherwise the middle value
    (:func:`middle_value`) becomes the left child's upper bound (``+1``) or
    lower bound (``-1``), and the right child's other one.  The level-wise
    builder calls it on a whole level; ``grow_tree`` through :func:`child_bounds`.

    >>> [b.tolist() for b in children_bounds(np.array([1, -1, 0]), 0.0, 9.0,
    ...                                      np.array([2.0, 4.0, 4.0]), 4.0)]
    [[0.0, 4.0, 0.0], [3.0, 9.0, 9.0], [3.0, 0.0, 0.0], [9.0, 4.0, 9.0]]
    """
    cst = np.asarray(cst)
    with np.errstate(invalid="ignore"):  # a NaN value where cst is 0: not read
        middle = middle_value(
            np.asarray(value_left, float), np.asarray(value_right, float), medians
        )
    lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    return (
        np.where(cst < 0, middle, lower),
        np.where(cst > 0, middle, upper),
        np.where(cst > 0, middle, lower),
        np.where(cst < 0, middle, upper),
    )


def clip_values(value: np.ndarray, lower: float, upper: float, classifier: bool) -> np.ndarray:
    """Rule 3: a node's value row with its first entry clipped to ``[lower, upper]``.

    A classifier's two proportions then sum to one: the second is one minus
    the first (scikit-learn sets it so at every node of a constrained tree).

    >>> clip_values(np.array([0.9, 0.1]), 0.0, 0.5, True).tolist()
    [0.5, 0.5]
    >>> clip_values(np.array([7.0]), -np.inf, 3.0, False).tolist()
    [3.0]
    """
    return clip_value_rows(np.asarray(value, dtype=float)[None], lower, upper, classifier)[0]


def clip_value_rows(values: np.ndarray, lower, upper, classifier: bool) -> np.ndarray:
    """Rule 3 for many nodes: each row of ``values`` clipped as :func:`clip_values` clips
    one (``lower`` and ``upper``: one bound per row, or one for all); a new array.

    >>> clip_value_rows(np.array([[0.9, 0.1], [0.2, 0.8]]), 0.3, np.array([0.5, 1.0]),
    ...                 True).tolist()
    [[0.5, 0.5], [0.3, 0.7]]
    """
    values = np.array(values, dtype=float)
    values[:, 0] = np.minimum(np.maximum(values[:, 0], lower), upper)
    if classifier:
        values[:, 1] = 1.0 - values[:, 0]
    return values


def refused_candidates(cst, left_sums, total, lower, upper) -> np.ndarray:
    """Candidates of one feature that rule 1 refuses, from their children's sums.

    ``left_sums`` (candidates, 2) are the left children's sums of
    :func:`value_statistics` and ``total`` the node's; the right child's are
    the difference, as in scikit-learn's criteria.

    >>> v = value_statistics(np.array([[1.0], [2.0], [0.0]]), np.ones(3))
    >>> left = np.cumsum(v, axis=0)[:2]  # left: the first row (1 | 1), then two (1.5 | 0)
    >>> refused_candidates(1, left, v.sum(axis=0), -np.inf, np.inf).tolist()
    [False, True]
    """
    left_sums = np.asarray(left_sums, dtype=float)
    value_left = ratio_values(left_sums)
    value_right = ratio_values(np.asarray(total, dtype=float) - left_sums)
    return ~allowed_splits(cst, value_left, value_right, lower, upper)


def check_constrained_fit(
    monotonic_cst, criterion, Y, is_categorical, missing_values, find_split, n_features
):
    """The constraints a builder enforces (int8), None where nothing can break them,
    or a clear error naming what is wrong.

    Every builder calls it. It checks the values and length of ``monotonic_cst``
    (:func:`check_monotonic_cst`, for ``n_features`` columns), one output (for
    classification, at most two classes), numerical constrained features, the
    learned missing-value direction and the default numerical search
    (:func:`climbing_trees.default_split_search`).  A classifier that saw one
    class has a proportion of 1 everywhere, which no split can put out of
    order: None, and the fit is the unconstrained one (scikit-learn's one-node
    tree).
    """
    from ._criteria import CLASSIFICATION_CRITERIA, n_outputs
    from ._growth import default_split_search

    classifier = criterion in CLASSIFICATION_CRITERIA
    n_classes = np.shape(Y)[1] if classifier else None
    # A regression's outputs are Y's columns (a plain criterion name says 1).
    outputs = n_outputs(criterion) if classifier or np.ndim(Y) < 2 else np.shape(Y)[1]
    cst = check_monotonic_cst(monotonic_cst, n_features, max(outputs, 1), n_classes)
    if is_categorical is not None and np.any(np.asarray(is_categorical) & (cst != 0)):
        named = np.flatnonzero(np.asarray(is_categorical) & (cst != 0)).tolist()
        raise ValueError(
            f"monotonic_cst constrains the categorical feature(s) {named}, whose levels have "
            "no order; set their constraint to 0, or encode an ordered feature as numbers."
        )
    if missing_values != "learn":
        raise ValueError(
            "monotonic_cst needs missing_values='learn' (scikit-learn's learned direction); "
            "surrogate splits are not constrained."
        )
    if find_split is not default_split_search(criterion):
        raise ValueError(
            "monotonic_cst is enforced by the default split searches only "
            "(prefix_sum_best_split, wavelet_best_split); leave find_split=None."
        )
    return None if classifier and n_classes < 2 else cst


def prefix_medians(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``out[i]``: the weighted median of ``y[: i + 1]`` (NaN while no weight is positive).

    One :class:`climbing_trees.RunningMedian` fed the rows in order; rows of
    weight 0 change nothing.  Absolute error's children's values for rule 1.
    """
    from ._median import RunningMedian

    running, out, seen = RunningMedian(), np.empty(len(y)), False
    for i, (value, weight) in enumerate(zip(y.tolist(), w.tolist(), strict=True)):
        if weight > 0:
            running.add(value, weight)
            seen = True
        out[i] = running.median() if seen else np.nan
    return out
