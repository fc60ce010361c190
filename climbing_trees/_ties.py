"""Tie rules: where a threshold lands and which of equal splits wins.

Chapter 4 of the book ("Ties") shows, for each rule, a small example where
ignoring it gives a wrong tree or an inconsistent prediction.

The rules:

1. A threshold never separates two equal values: candidate split positions
   lie only between neighbouring *distinct* values of the sorted feature.
2. The threshold is the midpoint of the two neighbouring distinct values,
   computed as ``a/2 + b/2`` (no overflow near the largest floats).  When the
   midpoint rounds onto the upper value ``b`` (the two values are adjacent
   floats, or nearly so), the threshold is the lower value ``a``.  Rows go left
   when ``x <= threshold``, so either way ``a`` goes left and ``b`` goes right.
3. Equal gains: split scores that agree to within ``TIE_RTOL`` of the parent's
   score are equal (the difference is floating-point noise from summing in
   another order).  Among equal candidates the lowest feature index wins,
   then the lowest threshold.
4. ``predict`` returns the class with the lowest index in ``classes_`` when
   several classes share the highest probability (``numpy.argmax``).
5. A split passes the ``min_impurity_decrease`` test when its weighted
   decrease is at least the minimum *less a rounding allowance* of
   ``TIE_RTOL`` times the node's weighted impurity ``W_t / W * I_t``
   (:func:`enough_decrease`).  The allowance scales with the node, so a
   decrease that is zero in exact arithmetic (XOR: no single split helps)
   passes the default minimum of 0 whatever the scale of the target, and
   both builders, whose sums may round differently, decide alike.
6. A feature is *constant* in a node, and offers no candidate there, when it
   has no present value, or when none is missing and its present values span
   at most ``FEATURE_THRESHOLD`` (scikit-learn's rule, compared in float32 as
   scikit-learn compares: ``hi <= lo + 1e-7``; :func:`constant_features`).
   Every search of both builders, best or random, asks this function.
"""

from __future__ import annotations

import numpy as np

#: Relative tolerance under which two split scores count as equal.
TIE_RTOL = 1e-12
#: scikit-learn's ``FEATURE_THRESHOLD``: a range this narrow is constant (float32).
FEATURE_THRESHOLD = np.float32(1e-7)


def narrow_ranges(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Ranges scikit-learn calls constant: ``hi <= lo + FEATURE_THRESHOLD`` in float32.

    scikit-learn's trees hold ``X`` in float32 and compare there, so a range
    of one float32 step near 1 is constant too (``1 + 1e-7`` rounds up to it).
    Values beyond float32's range (which scikit-learn refuses, and this
    package keeps in float64) compare in float64: ``1e308`` and ``1.7e308``
    both overflow float32, yet they differ.

    >>> lo, hi = np.array([0.0, 0.0, 1.0, 1e308]), np.array([1e-7, 2e-7, 1 + 2**-23, 1.7e308])
    >>> narrow_ranges(lo, hi).tolist()
    [True, False, True, False]
    """
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        lo32, hi32 = lo.astype(np.float32), hi.astype(np.float32)
        narrow = hi32 <= lo32 + FEATURE_THRESHOLD
        beyond = np.isinf(lo32) | np.isinf(hi32)  # overflowed: compare in float64
        return np.where(beyond, hi <= lo + float(FEATURE_THRESHOLD), narrow)


def constant_features(lo: np.ndarray, hi: np.ndarray, missing: np.ndarray) -> np.ndarray:
    """Constant features (rule 6): no present value, or a narrow range and none missing.

    ``lo`` and ``hi`` are a feature's smallest and largest present value in
    a node, ``missing`` whether a value is missing there (elementwise, any
    shape).  scikit-learn's rule (:func:`narrow_ranges`); a feature whose
    present values are equal but which has missing values can still split
    "present against missing".

    >>> constant_features(np.array([0.0, 0.0, 0.0, np.nan]), np.array([5e-8, 5e-8, 1.0, np.nan]),
    ...                   np.array([False, True, False, True])).tolist()
    [True, False, False, True]
    """
    return np.isnan(lo) | (narrow_ranges(lo, hi) & ~np.asarray(missing, dtype=bool))


def midpoint_threshold(lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """Threshold between neighbouring distinct values ``lower < upper``.

    The midpoint, unless it rounds onto ``upper`` (adjacent floats) or is not
    finite (an infinite value): then ``lower``, so that ``x <= threshold``
    still separates them.

    Parameters
    ----------
    lower, upper : array-like of float
        Neighbouring distinct values of a sorted feature, ``lower < upper``.

    Returns
    -------
    ndarray of float
        A threshold ``t`` with ``lower <= t < upper``.

    Examples
    --------
    >>> float(midpoint_threshold(1.0, 2.0))
    1.5
    >>> a = np.nextafter(1.0, 2.0); b = np.nextafter(a, 2.0)   # adjacent floats
    >>> bool(a / 2 + b / 2 == b)   # the midpoint rounds onto the upper value...
    True
    >>> bool(midpoint_threshold(a, b) == a)   # ...so the threshold is the lower one
    True
    """
    lower = np.asarray(lower, dtype=float)
    upper = np.asarray(upper, dtype=float)
    mid = lower / 2.0 + upper / 2.0
    return np.where((mid >= upper) | ~np.isfinite(mid), lower, mid)


def split_positions(x_sorted: np.ndarray) -> np.ndarray:
    """Positions ``i`` such that a split puts ``x_sorted[:i+1]`` left.

    Only positions between two distinct values qualify (rule 1).

    Parameters
    ----------
    x_sorted : ndarray of shape (n_samples,)
        A feature's values, sorted.

    Returns
    -------
    ndarray of int
        Each ``i`` with ``x_sorted[i] < x_sorted[i + 1]``, increasing.

    Examples
    --------
    >>> split_positions(np.array([1.0, 1.0, 2.0, 3.0, 3.0])).tolist()
    [1, 2]
    """
    return np.flatnonzero(x_sorted[1:] > x_sorted[:-1])


def choose_best(scores: np.ndarray, parent_score: float) -> int:
    """Index of the winning candidate among ``scores`` (lower is better).

    Candidates are given in tie-break order (by feature, then threshold); the
    first one whose score is within the tie tolerance of the minimum wins.
    Returns -1 when there is no finite score.

    Parameters
    ----------
    scores : ndarray of shape (n_candidates,)
        Candidate scores in tie-break order; NaN and infinite ones never win.
    parent_score : float
        The node's impurity, the scale of the tie tolerance.

    Returns
    -------
    int
        Index of the winner, or -1.

    Examples
    --------
    >>> choose_best(np.array([3.0, 1.0, 1.0 + 1e-15, 2.0]), parent_score=4.0)
    1
    >>> choose_best(np.array([1.0 + 1e-15, 1.0]), parent_score=4.0)
    0
    """
    scores = np.asarray(scores, dtype=float)
    finite = np.isfinite(scores)
    if not finite.any():
        return -1
    _, first = choose_best_rows(np.where(finite, scores, np.inf)[None], parent_score)
    return int(first[0])


def tie_tolerance(reference, score):
    """How far apart two scores may be and still count as equal (rule 3).

    ``TIE_RTOL`` relative to the larger of the parent's score ``reference``
    and ``score``; elementwise on arrays.
    """
    return TIE_RTOL * np.maximum(np.abs(reference), np.abs(score))


def first_within(values, best, tol, *, larger_is_better: bool = False):
    """Index, along the last axis, of the first of ``values`` within ``tol`` of ``best``.

    The one comparison of the tie rule (rule 3), in both directions: scores
    (lower is better) count when ``value <= best + tol``, gains (larger is
    better) when ``value >= best - tol``.  ``best`` and ``tol`` have the shape
    of ``values`` without its last axis.  Every winner in the package is
    picked by this function, through :func:`choose_best_rows` or
    :func:`choose_best_gains`.

    >>> first_within(np.array([[3.0, 1.0 + 1e-15, 1.0]]), np.array([1.0]), 1e-12).tolist()
    [1]
    """
    if larger_is_better:
        near = values >= (best - tol)[..., None]
    else:
        near = values <= (best + tol)[..., None]
    return np.argmax(near, axis=-1)


def choose_best_rows(scores: np.ndarray, reference):
    """:func:`choose_best` in every row of ``scores`` at once (the level-wise form).

    Each row holds one node's candidate scores in tie-break order and
    ``reference`` its parent's score (one per row, or one for all).  Returns
    each row's best score and the index of its first candidate within the
    tie tolerance of it (:func:`first_within`): one choice over all the
    candidates, never pairwise, so near ties cannot chain.  A row without a
    finite score has best ``inf`` (its index means nothing).

    Scores must be finite or ``+inf`` (refused): unlike :func:`choose_best`,
    a NaN or ``-inf`` is not skipped.  Every caller maps refused candidates
    to ``+inf`` first.

    >>> scores = np.array([[3.0, 1.0, 1.0 + 1e-15], [1.0 + 1e-15, 1.0, np.inf]])
    >>> best, first = choose_best_rows(scores, np.array([4.0, 4.0]))
    >>> first.tolist()
    [1, 0]
    """
    best = scores.min(axis=1)
    return best, first_within(scores, best, tie_tolerance(reference, best))


def gain_tolerance(gain, const, w_t, reference):
    """The tie tolerance of :func:`tie_tolerance`, in units of gain.

    A split search may rank candidates by a *gain* ``g = c - W_t * s``
    instead of the score ``s`` (``c`` a constant of the node, ``W_t`` its
    weight; chapter 11 derives the gains).  As ``W_t > 0``, a larger gain is a
    lower score, so the gains rank candidates as the scores do; and two
    scores within ``tol`` of each other are two gains within ``W_t * tol``.
    The score of ``gain`` is recovered as ``(c - g) / W_t`` for the
    tolerance's relative part.  ``gain`` has nodes on its first axis;
    ``const`` (or a scalar), ``w_t`` and ``reference`` (the node's impurity)
    one value per node.
    """
    shape = (-1,) + (1,) * (np.ndim(gain) - 1)
    w_t = np.reshape(w_t, shape)
    score = (np.reshape(const, shape) if np.ndim(const) else const) - gain
    score /= w_t
    return tie_tolerance(np.reshape(reference, shape), score) * w_t


def choose_best_gains(gains: np.ndarray, const, w_t, reference):
    """:func:`choose_best_rows` on gains ``const - w_t * score`` (larger is better).

    Each row holds one node's gains in tie-break order.  Returns each row's
    best gain and its first candidate within the tie tolerance
    (:func:`gain_tolerance`, :func:`first_within`): the same choice as
    :func:`choose_best_rows` on the scores.

    >>> gains = np.array([[1.0, 3.0 - 1e-15, 3.0]])  # scores 4 - g: [3, 1 + 1e-15, 1]
    >>> choose_best_gains(gains, 4.0, np.array([1.0]), np.array([4.0]))[1].tolist()
    [1]
    """
    best = gains.max(axis=1)
    tol = gain_tolerance(best, const, w_t, reference)
    return best, first_within(gains, best, tol, larger_is_better=True)


def best_of(splits: list, parent_score: float):
    """The winner among one node's candidate splits (numerical and categorical).

    Sorted by feature, then :func:`choose_best`: the lowest score wins, and
    the lower feature index on a tie.  ``None`` when there is no candidate.
    """
    if not splits:
        return None
    splits = sorted(splits, key=lambda s: s.feature)
    return splits[choose_best(np.array([s.score for s in splits]), parent_score)]


def enough_decrease(
    node_weight, total_weight: float, impurity, score, min_impurity_decrease: float
):
    """Whether a split decreases impurity enough to be made (rule 5).

    The weighted decrease ``W_t / W * (I_t - score)`` is compared with
    ``min_impurity_decrease`` less ``TIE_RTOL * W_t / W * |I_t|``: rounding
    noise in ``I_t - score`` is relative to ``I_t``, so the allowance is too.
    (An absolute allowance of one machine epsilon, scikit-learn's, is lost
    when targets are large: a zero decrease then comes out slightly negative
    about as often as slightly positive.)  Works on scalars and arrays.

    Parameters
    ----------
    node_weight : float or ndarray
        The node's weight ``W_t``.
    total_weight : float
        The weight ``W`` of the whole training set.
    impurity : float or ndarray
        The node's impurity ``I_t``.
    score : float or ndarray
        The split's weighted mean child impurity.
    min_impurity_decrease : float
        The estimators' parameter of that name.

    Returns
    -------
    bool or ndarray of bool

    Examples
    --------
    >>> bool(enough_decrease(10.0, 10.0, 1.7e11, 1.7e11 + 1e-4, 0.0))  # noise
    True
    >>> bool(enough_decrease(10.0, 10.0, 1.0, 1.1, 0.0))  # a real increase
    False
    >>> bool(enough_decrease(5.0, 10.0, 0.5, 0.3, 0.1))  # 0.5 * 0.2 = 0.1
    True
    """
    share = np.divide(node_weight, total_weight)
    decrease = share * (np.subtract(impurity, score))
    allowance = TIE_RTOL * share * np.abs(impurity)
    return decrease + allowance >= min_impurity_decrease


class LeafMinimum(int):
    """``min_samples_leaf`` carrying ``min_weight_leaf``: rows and weight every leaf keeps.

    An ``int`` (the row minimum), so every split search that compares row
    counts with ``min_samples_leaf`` works unchanged; the searches that check
    side weights read :func:`leaf_weight` too.  The builders make one when
    ``min_weight_fraction_leaf`` is positive (a candidate leaving either side
    with less than ``min_weight_leaf`` of the weight is refused, scikit-learn's
    rule), so the weight rule enters every search without a new argument.

    It also carries the fit's fixed-point ``exponent``
    (:func:`climbing_trees._exact_weights.weight_exponent`), so that every
    search compares exact sums of the same fixed-point weights
    (:func:`climbing_trees._exact_weights.refused_sides`).

    >>> m = LeafMinimum(3, 2.5)
    >>> m >= 3, leaf_weight(m), leaf_weight(3)
    (True, 2.5, 0.0)
    """

    def __new__(cls, rows: int, weight: float = 0.0, exponent: int | None = None):
        out = super().__new__(cls, rows)
        out.weight = float(weight)
        out.exponent = exponent
        return out

    def __reduce__(self):
        return (LeafMinimum, (int(self), self.weight, self.exponent))


def leaf_weight(min_samples_leaf) -> float:
    """The weight each side of a split must keep (0 for a plain ``int``)."""
    return getattr(min_samples_leaf, "weight", 0.0)


def refused_weights(w_left, w_right, min_samples_leaf):
    """Sides without weight, or lighter than ``leaf_weight(min_samples_leaf)``: refused."""
    low = leaf_weight(min_samples_leaf)
    return (w_left <= 0) | (w_right <= 0) | (w_left < low) | (w_right < low)
