"""Surrogate splits: CART's way with missing values (Breiman et al. 1984, section 5.3).

Chapter 9 of the book ("Missing values") explains this module; with
``missing_values="surrogate"`` the estimators grow their trees with it, and
R's rpart (``usesurrogate=2``) is the reference it is tested against.

At a node, with NaN marking a missing numerical value:

1. **The primary split** is searched on the rows where its feature is
   present.  Features compete by rpart's improvement as its code computes
   it (``bsplit.c``, ``anova.c``, ``gini.c``): the *absolute* weighted
   impurity decrease among those rows, ``W_p I_p - W_L I_L - W_R I_R``, so
   a feature missing in half the node can only win with twice the decrease
   per row.  (rpart's ``longintro`` vignette describes a rescaling to the
   node's whole weight instead; the code, which the tests match, penalises
   missingness.)  ``min_samples_leaf``
   counts the present rows on each side.  Among equal decreases the lowest
   feature wins.  (A categorical column has no missing rows here: its
   missing values are a level, as in :mod:`climbing_trees._categorical`.)
   With random splits (``max_features``, ``splitter="random"``) the node
   draws its features and thresholds from its key as the other searches do
   (:mod:`climbing_trees._random`), from the present rows.
2. **Surrogates.**  The rows with the primary feature present are labelled
   left or right by it.  Every other feature proposes the split that best
   reproduces those labels, counting the weight of rows on which both agree
   (:func:`best_surrogate`, rpart's ``choose_surg``); its *agreement* is that
   weight over the weight of all labelled rows.  A surrogate is kept only if
   it beats the majority rule "send everything to the heavier side"
   (adjusted agreement above 0), and the best ``max_surrogates`` are kept,
   by decreasing agreement (the lower feature first on equal agreement).
3. **Routing** a row missing the primary feature: the first surrogate whose
   feature it has (a categorical surrogate also needs a level it knows)
   decides; failing all, the row goes to the heavier side, by weight, of the
   rows the primary placed at the node (:func:`majority_goes_left`, rpart's
   ``lastsurrogate``).  The tree stores that side as ``missing_go_to_left``
   and prediction uses it, so routing the training rows reproduces every
   node's ``n_node_samples`` and ``value``.  rpart grows (``nodesplit.c``)
   and cross-validates (``branch.c``) with this rule, but its ``predict``
   sends such a row to the child with more training rows, which can differ
   when rows weigh differently.  Where both sides weigh the same, rpart
   leaves the row at the node; this package sends it right.  A categorical
   primary split has no surrogates: its missing values are a level, and a
   level it did not see at the node goes to the heavier side (rpart treats
   such a level as missing).

The surrogates are stored in :class:`~climbing_trees.Tree` as arrays with one
row per node and one column per surrogate rank:
``surrogate_feature`` (-1: none), ``surrogate_threshold`` (NaN for a
categorical surrogate), ``surrogate_below_left`` (a numerical surrogate
sends ``x <= threshold`` left when True, right when False).  A categorical
surrogate sends the levels it saw at the node left or right and cannot place
the others; its two lists of levels are stored compactly, as the categorical
splits are (:mod:`climbing_trees._category_sets`, :func:`pack_sides
<climbing_trees._category_sets.pack_sides>`): ``surrogate_categories_start``
and ``surrogate_categories_stop``, shape ``(node_count, max_surrogates, 2)``,
slice the shared ``surrogate_categories_levels``, the levels sent left in
``[..., 0]`` and those sent right in ``[..., 1]``.  So a high-cardinality
feature costs the levels present at each node, not ``node_count x levels``.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ._categorical import best_categorical_split
from ._category_sets import LEVEL_DTYPE
from ._criteria import node_impurity
from ._random import (
    draw_features,
    feature_ranges,
    narrow_ranges,
    random_categorical_split,
    random_numeric_split,
    random_thresholds,
)
from ._ties import TIE_RTOL, midpoint_threshold

#: Entries of :attr:`Tree.surrogate_levels <climbing_trees.Tree.surrogate_levels>`
#: (built on demand): the level goes left, goes right (0: cannot place).
GOES_LEFT, GOES_RIGHT = 1, 2
#: Adjusted agreements at or below this do not beat the majority rule (rpart's).
MIN_ADJUSTED_AGREEMENT = 1e-10


class Surrogate(NamedTuple):
    """A surrogate split: ``feature``, and either a threshold or a level row.

    Numerical: rows with ``x <= threshold`` go left if ``below_left``, else
    right.  Categorical: ``threshold`` is NaN and ``levels`` is ``(left,
    right)``, the sorted codes of the levels sent left and of those sent
    right; the surrogate cannot place any other code.
    """

    feature: int
    threshold: float
    below_left: bool
    levels: tuple[np.ndarray, np.ndarray] | None
    agreement: float
    adjusted: float


def best_surrogate(
    x: np.ndarray,
    label: np.ndarray,
    w: np.ndarray,
    categorical: bool = False,
    n_levels: int = 0,
) -> Surrogate | None:
    """The split of column ``x`` that best reproduces the primary's ``label``.

    ``label`` is +1 (primary sends left), -1 (right) or 0 (primary feature
    missing).  As rpart's ``choose_surg``: a numerical surrogate scans the
    thresholds between distinct present values of ``x`` (rows with label 0
    included) in increasing order and keeps the first strictly better
    agreement, trying "below goes right" before "below goes left" at each
    threshold; each side must receive at least 2 labelled rows of positive
    weight (rows of weight 0 count in neither that rule nor the agreement).
    A categorical surrogate sends each level to the side where most of its
    labelled weight went (on equal weight, the heavier side overall).
    Returns ``None`` when nothing beats the majority rule.  The returned
    ``feature`` is 0; the caller sets it.
    """
    labelled = label != 0
    t_left = float(w[label > 0].sum())
    t_right = float(w[label < 0].sum())
    total = t_left + t_right
    if categorical:
        present = labelled  # categorical columns hold codes, never NaN
        codes = x[present].astype(np.intp)
        size = max(n_levels, int(codes.max()) + 1 if codes.size else 0)
        lab = label[present]
        lwt = np.bincount(codes, weights=w[present] * (lab > 0), minlength=size)
        rwt = np.bincount(codes, weights=w[present] * (lab < 0), minlength=size)
        counted = w[present] > 0  # rpart counts rows of positive weight only
        lcnt = np.bincount(codes[(lab > 0) & counted], minlength=size)
        rcnt = np.bincount(codes[(lab < 0) & counted], minlength=size)
        right_default = not majority_goes_left(label, w)  # the heavier side overall
        seen = (lcnt > 0) | (rcnt > 0)
        goes_right = (lwt < rwt) | ((lwt == rwt) & right_default)
        levels = (np.flatnonzero(seen & ~goes_right), np.flatnonzero(seen & goes_right))
        agree = float(np.where(goes_right, rwt, lwt)[seen].sum())
        # rpart's "at least 2 each way" count, as it computes it.
        n_one = int(np.where(goes_right, lcnt, rcnt)[seen].sum())
        n_two = int(np.where(goes_right, rcnt, lcnt)[seen].sum())
        if not (n_one > 1 and n_two > 1):
            return None
        adjusted = adjusted_agreement(agree, t_left, t_right)
        if not adjusted > MIN_ADJUSTED_AGREEMENT:
            return None
        agreement = agree / total
        levels = tuple(side.astype(LEVEL_DTYPE) for side in levels)
        return Surrogate(0, np.nan, False, levels, agreement, adjusted)
    present = ~np.isnan(x)
    order = np.flatnonzero(present)
    order = order[np.argsort(x[order], kind="stable")]
    if order.size < 2:
        return None
    xs, lab, ws = x[order], label[order], w[order]
    is_left, is_right = lab > 0, lab < 0
    # Below the threshold: cumulative labelled weights and counts (rpart counts
    # only rows of positive weight toward its "2 each way").
    below_l = np.cumsum(ws * is_left)
    below_r = np.cumsum(ws * is_right)
    n_below_l = np.cumsum(is_left & (ws > 0))
    n_below_r = np.cumsum(is_right & (ws > 0))
    all_l, all_r = below_l[-1], below_r[-1]
    n_l, n_r = n_below_l[-1], n_below_r[-1]
    best = max(all_l, all_r)  # everything on one side: the worst agreement
    found = None
    for i in np.flatnonzero(xs[1:] != xs[:-1]):
        n_below = n_below_l[i] + n_below_r[i]
        if n_l + n_r - n_below < 2:
            break  # fewer than 2 labelled rows left above: no later threshold either
        if n_below < 2:
            continue
        # Below goes right, above left: agreement = left above + right below.
        right_below = (all_l - below_l[i]) + below_r[i]
        left_below = below_l[i] + (all_r - below_r[i])
        if right_below > best:
            best, found = right_below, (i, False)
        elif left_below > best:
            best, found = left_below, (i, True)
    if found is None:
        return None
    i, below_left = found
    # rpart's midpoint, by the package's rule (no overflow near the largest floats,
    # and never onto the upper value).
    threshold = float(midpoint_threshold(xs[i], xs[i + 1]))
    adjusted = adjusted_agreement(float(best), t_left, t_right)
    if not adjusted > MIN_ADJUSTED_AGREEMENT:
        return None
    agreement = float(best) / total
    return Surrogate(0, threshold, below_left, None, agreement, adjusted)


def adjusted_agreement(agree: float, t_left: float, t_right: float) -> float:
    """How much of the majority rule's error a surrogate removes (rpart's ``adj``).

    ``agree`` is the weight on which the surrogate agrees with the primary,
    ``t_left`` and ``t_right`` the weights the primary sends each way.  With
    ``p = agree / W`` and the majority ``m = max / W``, rpart's
    ``(p - m) / (1 - m)`` is ``(agree - max) / min``, computed so: no
    division by a ``1 - m`` that rounds to 0 when one side weighs much more.
    ``-inf`` when a side weighs nothing (nothing to beat).

    >>> adjusted_agreement(9.0, 6.0, 4.0)  # 3 of the 4 the majority rule gets wrong
    0.75
    """
    smaller = min(t_left, t_right)
    if not smaller > 0:
        return -np.inf
    return (agree - max(t_left, t_right)) / smaller


def find_surrogates(
    X: np.ndarray,
    label: np.ndarray,
    w: np.ndarray,
    primary: int,
    max_surrogates: int,
    is_categorical: np.ndarray,
    n_categories: np.ndarray,
) -> list[Surrogate]:
    """The ``max_surrogates`` best surrogates of a node's primary split, best first.

    ``X`` holds the node's rows, ``label`` the primary's +1/-1/0 labels.
    Ranked by decreasing agreement; on equal agreement the lower feature first.
    """
    if max_surrogates <= 0:
        return []
    found = []
    for j in range(X.shape[1]):
        if j == primary:
            continue
        s = best_surrogate(X[:, j], label, w, bool(is_categorical[j]), int(n_categories[j]))
        if s is not None:
            found.append(s._replace(feature=j))
    found.sort(key=lambda s: (-s.agreement, s.feature))  # stable: lower feature on ties
    return found[:max_surrogates]


def surrogate_goes_left(surrogate: Surrogate, x: np.ndarray) -> np.ndarray:
    """Per row: 1 if the surrogate sends it left, -1 right, 0 if it cannot place it."""
    if surrogate.levels is not None:
        left, right = surrogate.levels
        return np.where(np.isin(x, left), 1, np.where(np.isin(x, right), -1, 0))
    below = x <= surrogate.threshold
    side = np.where(below == surrogate.below_left, 1, -1)
    return np.where(np.isnan(x), 0, side)


def best_present_split(search, rows, Y, w, impurity, key=0):
    """The primary split of a node, searched on the rows where each feature is present.

    ``search`` is the :class:`climbing_trees._growth.NodeSearch` of the tree.
    Returns the winning split with its ``score`` replaced by the node-level
    equivalent ``I_t - decrease / W_t`` (so that ``min_impurity_decrease``
    compares the present-row decrease over the total weight), or ``None``.

    With random splits (``search.random``, :mod:`climbing_trees._random`) the
    node's ``key`` draws the features searched (:func:`draw_features`), a
    feature counting as constant when its present values span at most
    scikit-learn's ``FEATURE_THRESHOLD`` (a feature can only split its present
    rows here); with ``splitter="random"`` each drawn numerical feature gets
    one threshold drawn between its smallest and largest present value, and
    each categorical one a random split of its levels.  The missing rows are
    then routed by the surrogates, as without randomness: no side is drawn.
    """
    X = search.X[rows]
    criterion, msl = search.criterion, search.min_samples_leaf
    W_t = float(w.sum())
    spec = search.random
    features = np.arange(X.shape[1])
    if spec is not None:
        keys = np.array([key], dtype=np.uint64)
        lo, hi, _, _ = feature_ranges(X, np.zeros(1, dtype=np.intp))
        constant = np.isnan(lo) | narrow_ranges(lo, hi)  # the search sees present rows
        features = np.flatnonzero(draw_features(keys, constant, spec.max_features)[0])
        if spec.splitter == "random":
            thresholds = random_thresholds(keys, lo, hi)[0]
    candidates, decreases = [], []
    for j in features:
        if j in search.cat_features and spec is not None and spec.splitter == "random":
            split = random_categorical_split(
                X, Y, w, criterion, msl, np.array([j]), keys, search.min_samples_level
            )
            if split is None:
                continue
            decrease = W_t * (impurity - split.score)
        elif j in search.cat_features:
            split = best_categorical_split(
                X,
                Y,
                w,
                criterion,
                msl,
                np.array([j]),
                search.method,
                search.min_samples_level,
                search.max_categorical_candidates,
            )
            if split is None:
                continue
            decrease = W_t * (impurity - split.score)
        else:
            present = ~np.isnan(X[:, j])
            # Present rows of no weight cannot split (each side needs weight).
            if present.sum() < 2 * msl or not w[present].any():
                continue
            Yp, wp, xp = Y[present], w[present], X[present][:, [j]]
            if spec is not None and spec.splitter == "random":
                split = random_numeric_split(xp, Yp, wp, criterion, msl, thresholds[[j]])
            else:
                split = search.find_split(xp, Yp, wp, criterion, msl)
            if split is None:
                continue
            W_p = float(wp.sum())
            decrease = W_p * (node_impurity(Yp, wp, criterion) - split.score)
            split = split._replace(feature=int(j))
        candidates.append(split)
        decreases.append(decrease)
    if not candidates:
        return None
    decreases = np.array(decreases)
    best = decreases.max()
    if not best > TIE_RTOL * W_t * abs(impurity):  # rpart: no improvement, no split
        return None
    k = int(np.flatnonzero(decreases >= best - TIE_RTOL * max(abs(best), W_t * impurity))[0])
    return candidates[k]._replace(score=impurity - float(decreases[k]) / W_t)


def majority_goes_left(label: np.ndarray, w: np.ndarray) -> bool:
    """Where a row that no surrogate can place goes: the majority rule, by weight.

    ``label`` is the primary's +1 (left) / -1 (right) / 0 (missing) per row.
    True when the rows the primary sends left weigh more than those it sends
    right; on equal weight, False (right).  This is rpart's
    ``lastsurrogate`` (``surrogate.c``), which rpart uses while growing
    (``nodesplit.c``) and in cross-validation (``branch.c``).  The tree stores
    it as ``missing_go_to_left``, so prediction applies the same rule and the
    training rows reach the nodes that hold them.  (rpart's ``predict``
    compares the children's row counts instead, which can disagree with its
    own growth when rows weigh differently.)  The sums are correctly rounded
    (:func:`math.fsum`), so the side does not depend on the order of the rows.

    >>> majority_goes_left(np.array([1, 1, -1, -1, -1, 0]), np.array([10.0, 10, 1, 1, 1, 1]))
    True
    """
    return math.fsum(w[label > 0]) > math.fsum(w[label < 0])


def route_with_surrogates(X, split, w, max_surrogates, is_categorical, n_categories):
    """Where each row of a node goes under a numerical primary ``split`` and its surrogates.

    Returns ``(goes_left, surrogates, majority_left)``.  Rows with the
    primary feature follow it; the others the first surrogate that can place
    them, else the heavier side of the primary's labelled rows
    (:func:`majority_goes_left`, right on equal weight), which
    ``majority_left`` says and the tree keeps as ``missing_go_to_left``.
    """
    x = X[:, split.feature]
    present = ~np.isnan(x)
    label = np.where(present, np.where(x <= split.threshold, 1, -1), 0)
    # Kept even where no row misses the primary here: rows at predict time may.
    surrogates = find_surrogates(
        X, label, w, split.feature, max_surrogates, is_categorical, n_categories
    )
    side = label.copy()
    for s in surrogates:
        todo = np.flatnonzero(side == 0)
        if not todo.size:
            break
        side[todo] = surrogate_goes_left(s, X[todo, s.feature])
    majority_left = majority_goes_left(label, w)
    side[side == 0] = 1 if majority_left else -1
    return side > 0, surrogates, majority_left


__all__ = [
    "GOES_LEFT",
    "GOES_RIGHT",
    "Surrogate",
    "adjusted_agreement",
    "best_present_split",
    "best_surrogate",
    "find_surrogates",
    "majority_goes_left",
    "route_with_surrogates",
    "surrogate_goes_left",
]
