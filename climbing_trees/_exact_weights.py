"""Exact sums of sample weights, for the rules that compare them with a bound.

Two rules compare sums of sample weights with a bound, and a comparison has
no tolerance: a node lighter than ``2 * min_weight_leaf`` is a leaf, and a
split is refused when a side weighs nothing or less than ``min_weight_leaf``
(:func:`refused_sides`).  Floating-point sums depend on the order of the
additions: ``grow_tree`` sums a node's weights pairwise (numpy), the
compiled builder row by row, the level-wise one by ``cumsum``, and a side's
weight is often the node's minus the other side's.  Ten rows of weight 0.1
sum to 1.0 one way and to 0.9999999999999999 another, so with
``min_weight_leaf=0.5`` one builder split the root and another did not, and
a side holding only rows of weight 0 could keep a rounding residue, pass the
test and leave a child without weight.

So these sums are exact: each weight becomes an integer in *fixed point*,
``q = rint(w * 2**k)`` (:func:`climbing_trees._histograms.to_fixed_point`,
the histogram splitter's), with one exponent ``k`` per fit
(:func:`weight_exponent`) such that all the weights of the fit sum to less
than ``2**52``.  Every sum of some of them, and every difference of two such
sums, is then an integer below ``2**53``: exact in ``int64`` and in
``float64`` alike, whatever the order, the chunking, or whether a side is
summed or subtracted.  The builders keep these integers in ``float64``
arrays beside the statistics (the level-wise builder's prefix sums and the
compiled loop sum them as they sum the rest) and compare them with the
bound in the same units (:func:`fixed_leaf_weight`, rounded up: a side
passes when its exact fixed-point weight reaches ``min_weight_leaf``).

Why not 62 bits, as the histograms use: a float64 holds integers exactly
only below ``2**53``, and the numpy builders sum in float64.  Why not an
exactly rounded sum (``math.fsum``): a running exactly rounded sum at every
candidate costs far more than an addition, and the difference of two rounded
sums is not rounded exactly.  What the choice costs: a weight is rounded to
``2**-k``, about ``2**-52`` of the fit's total weight, for these comparisons
only (the impurities and values use the weights as given); a weight below
``2**-53`` of the total counts as no weight in them.  Integer and dyadic
weights (unit weights, counts of a bootstrap, halves) are exact, and so,
on ordinary data, are the decisions, which are those of the exact sums; at
a boundary the result can differ from scikit-learn's, which sums in row
order (ten rows of 0.1 with ``min_weight_fraction_leaf=0.5``: scikit-learn
makes a leaf of a root that weighs 0.9999999999999999; the exact weight is
above 1, and every builder here splits it).
"""

from __future__ import annotations

import math

import numpy as np

from ._histograms import sum_exponent, to_fixed_point
from ._ties import LeafMinimum, leaf_weight

#: Every fit's weights sum to less than ``2**WEIGHT_BITS`` in fixed point.
WEIGHT_BITS = 52


def weight_exponent(sample_weight) -> int:
    """The fit's ``k``: ``sum(w) * 2**k < 2**52``, from the exactly rounded total.

    ``math.fsum`` rounds the exact sum once, so ``k`` does not depend on the
    order of the rows.

    >>> weight_exponent(np.full(10, 0.1))  # the total rounds to 1.0 = 0.5 * 2**1
    51
    >>> weight_exponent(np.ones(3))
    50
    """
    w = np.asarray(sample_weight, dtype=float).ravel()
    if w.size and w.min() >= 0.0:  # no cancellation: numpy's sum, checked (sum_exponent)
        exponent = sum_exponent(w)
        return 0 if exponent is None else WEIGHT_BITS - exponent
    total = math.fsum(w.tolist())
    if not total > 0.0:
        return 0
    _, exponent = math.frexp(total)  # total = m * 2**exponent, 0.5 <= m < 1
    return WEIGHT_BITS - exponent


def leaf_minimum(min_samples_leaf: int, min_weight_leaf: float, sample_weight) -> LeafMinimum:
    """What a builder hands its searches: the row and weight minima and the fit's ``k``."""
    k = weight_exponent(sample_weight)
    return LeafMinimum(int(min_samples_leaf), float(min_weight_leaf), k)


def fit_exponent(min_samples_leaf, sample_weight) -> int:
    """The exponent a builder fixed for the fit (carried by a ``LeafMinimum``),
    else the one of ``sample_weight`` (a search called on its own)."""
    k = getattr(min_samples_leaf, "exponent", None)
    return weight_exponent(sample_weight) if k is None else k


def fixed_weights(sample_weight, min_samples_leaf=1) -> np.ndarray:
    """The weights in fixed point, ``rint(w * 2**k)``, as float64 (exact integers).

    >>> fixed_weights(np.array([0.5, 0.25, 0.0]), 1).tolist()  # k = 52 - 0
    [2251799813685248.0, 1125899906842624.0, 0.0]
    """
    w = np.asarray(sample_weight, dtype=float)
    return to_fixed_point(w, fit_exponent(min_samples_leaf, w)).astype(float)


def fixed_leaf_weight(min_samples_leaf, sample_weight=None) -> float:
    """``min_weight_leaf`` in fixed point, rounded up (0 without one).

    A side passes when its fixed-point weight ``q`` reaches it: ``q >= ceil(b
    * 2**k)`` exactly when ``q * 2**-k >= b``.
    """
    low = leaf_weight(min_samples_leaf)
    if low <= 0:
        return 0.0
    k = fit_exponent(min_samples_leaf, sample_weight)
    return float(math.ceil(math.ldexp(low, k)))


def refused_sides(q_left, q_right, min_samples_leaf, sample_weight=None):
    """The refusal rule on fixed-point side weights: a side without weight, or
    lighter than ``min_weight_leaf``.  Works on scalars and arrays.

    >>> refused_sides(np.array([0.0, 3.0, 5.0]), np.array([5.0, 2.0, 1.0]), 1).tolist()
    [True, False, False]
    """
    low = fixed_leaf_weight(min_samples_leaf, sample_weight)
    return (q_left <= 0) | (q_right <= 0) | (q_left < low) | (q_right < low)


def too_light(q_node, min_samples_leaf, sample_weight=None):
    """A node whose fixed-point weight cannot give two sides ``min_weight_leaf`` each."""
    return q_node < 2.0 * fixed_leaf_weight(min_samples_leaf, sample_weight)
