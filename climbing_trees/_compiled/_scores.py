"""Criteria for the compiled builder: node summaries and the gains of candidates.

The formulas are those of :mod:`climbing_trees._criteria` (the impurity of a
node from its summed statistics; several outputs averaged as
:func:`climbing_trees._criteria.output_mean` does) and of the level-wise
builder's gains (:mod:`climbing_trees._levelwise._gains`, chapter 11): a
candidate is ranked by a *gain* ``g`` with score ``(C - g) / D``, ``C`` and
``D`` constants of the node, so that the scan does one division per side.

=================  ==========================================  =====  ========
criterion          gain of one output (left side + right side)  C      D
=================  ==========================================  =====  ========
gini               ``sum_k c_k**2 / W_side``                    k W    k W
entropy            ``sum_k c_k ln c_k - W_side ln W_side``      0      k W ln 2
squared error      ``S_side**2 / W_side`` (centred targets)     sum S2 k W
Poisson            ``-W_side I_side`` (grow_tree's own score)   0      k W
=================  ==========================================  =====  ========

(``k`` outputs, ``W`` the node's weight.)  Poisson has no cheaper form whose
rounding stays below the tie tolerance (see ``_gains``), so it is scored as
:func:`climbing_trees._criteria.poisson_impurity` scores it, side by side.
``tests/test_compiled.py`` compares every criterion's trees with
:func:`climbing_trees.grow_tree`'s.

A gain is a difference of much larger numbers where a node is nearly pure
(entropy's ``sum c ln c - W ln W``; Gini's ``sum c**2 / W`` near ``W``), so
its rounding, in units of score, can exceed the tie tolerance.
:func:`gain_slack` bounds that rounding; the near list (:mod:`._choice`)
keeps the candidates within it, and classification's are then scored by
:func:`class_children_score`, the port of
:func:`climbing_trees._criteria.children_score`, so that the tie rule
compares the numbers every builder compares.
"""

from __future__ import annotations

import math

import numpy as np

from ._rules import jit

GINI, ENTROPY, SQUARED_ERROR, POISSON = 0, 1, 2, 3
CRITERION_CODES = {
    "gini": GINI,
    "entropy": ENTROPY,
    "log_loss": ENTROPY,
    "squared_error": SQUARED_ERROR,
    "poisson": POISSON,
}
_LN2 = math.log(2.0)


@jit
def xlogx(x):
    """``x ln x``, 0 at ``x <= 0`` (a class without weight)."""
    return x * math.log(x) if x > 0.0 else 0.0


@jit
def poisson_side(w, s, t, positive):
    """``W I`` of one side and output (:func:`climbing_trees._criteria.poisson_impurity`).

    ``inf`` for a side without a positive target (refused), NaN where the
    sum of targets rounds to zero or below (skipped, as ``choose_best`` does).
    """
    if positive <= 0.0:
        return np.inf
    if s <= 0.0:
        return np.nan
    impurity = max((t - s * math.log(s / w)) / w, 0.0)
    return w * impurity


@jit
def gain(criterion, acc, extra, use_extra, total, w_left, w_right, n_out):
    """The gain of a candidate whose left side sums ``acc`` (plus ``extra``).

    ``total`` is the node's statistics; the right side is ``total`` minus the
    left.  Statistics: classification, the class weights of each output side
    by side; squared error, each output's sum of centred ``w y``; Poisson,
    each output's ``w y``, then ``w y ln y``, then the count of positive
    targets.  Returns ``-inf`` for a refused candidate (Poisson).

    The sorted scan (:func:`climbing_trees._compiled._scan.scan_sorted`)
    and the random splitter's
    (:func:`climbing_trees._compiled._scan.drawn_thresholds`) write this
    same loop out in their own bodies (a call with array arguments per
    candidate costs more than the candidate);
    ``tests/test_compiled_rules.py`` checks, bit for bit, that every score
    they offer is this function's, criterion by criterion.
    """
    m = acc.shape[0]
    share = 1.0 if use_extra else 0.0
    if criterion == POISSON:
        return poisson_gain(acc, extra, share, total, w_left, w_right, n_out)
    if criterion == ENTROPY:
        g = 0.0
        for c in range(m):
            left = acc[c] + share * extra[c]
            g += xlogx(left) + xlogx(total[c] - left)
        return g - n_out * (xlogx(w_left) + xlogx(w_right))
    sq_left = 0.0  # Gini and squared error: sums of squares over each side's weight
    sq_right = 0.0
    for c in range(m):
        left = acc[c] + share * extra[c]
        right = total[c] - left
        sq_left += left * left
        sq_right += right * right
    return sq_left / w_left + sq_right / w_right


@jit
def poisson_gain(acc, extra, extra_share, total, w_left, w_right, n_out):
    """Poisson's gain, ``-(W_L I_L + W_R I_R)`` summed over outputs (``-inf``: refused)."""
    g = 0.0
    for o in range(n_out):
        s_left = acc[o] + extra_share * extra[o]
        t_left = acc[n_out + o] + extra_share * extra[n_out + o]
        p_left = acc[2 * n_out + o] + extra_share * extra[2 * n_out + o]
        left = poisson_side(w_left, s_left, t_left, p_left)
        right = poisson_side(
            w_right, total[o] - s_left, total[n_out + o] - t_left, total[2 * n_out + o] - p_left
        )
        side = left + right
        if not np.isfinite(side):
            return -np.inf
        g -= side
    return g


@jit
def score_constants(criterion, total, node_weight, n_out, s2):
    """``(C, D)`` of the node: a candidate's score is ``(C - gain) / D``."""
    scale = n_out * node_weight
    if criterion == GINI:
        return scale, scale
    if criterion == ENTROPY:
        return 0.0, scale * _LN2
    if criterion == SQUARED_ERROR:
        return s2, scale
    return 0.0, scale


@jit
def class_impurity(criterion, total, offsets, n_out):
    """A classification node's impurity from its class weights (mean over outputs)."""
    result = 0.0
    for o in range(n_out):
        start, stop = offsets[o], offsets[o + 1]
        w = 0.0
        for c in range(start, stop):
            w += total[c]
        part = 0.0
        if criterion == GINI:
            for c in range(start, stop):
                p = total[c] / w
                part += p * p
            result += 1.0 - part
        else:
            for c in range(start, stop):
                p = total[c] / w
                if p > 0.0:
                    part += p * math.log2(p)
            result += 0.0 - part
    return result / n_out


_EPS = float(np.finfo(np.float64).eps)


@jit
def gain_slack(criterion, node_weight, n_out):
    """A bound on the rounding of a candidate's gain, in units of score (0: not needed).

    Gini's gain and constant are at most ``k W``, their score scale ``k W``;
    entropy's terms add up to at most ``2 k W (|ln W| + 1)``, its scale is
    ``k W ln 2``.  Sixteen units of rounding per term cover the sums of a
    few classes; the rescoring's own rounding is far smaller.
    """
    if criterion == GINI:
        return 32.0 * _EPS
    if criterion == ENTROPY:
        return 32.0 * _EPS * (abs(math.log(node_weight)) + 1.0) / _LN2
    return 0.0


@jit
def class_children_score(left, total, node_weight, offsets, n_out, criterion, right):
    """``(W_L I_L + W_R I_R) / W`` of a split from its left class weights ``left``.

    :func:`climbing_trees._criteria.children_score` for classification: the
    side weights are the first output's class weights summed, the
    impurities :func:`class_impurity` (the numpy rule's sums, in the same
    order), ``W`` the node's first output's class weights summed.  Equal to
    the numpy rule to a few units of rounding (numpy adds eight or more
    classes' terms in another order): ``tests/test_compiled_rules.py``.
    ``node_weight`` is not read (kept for the callers' symmetry).
    """
    m = left.shape[0]
    for c in range(m):
        right[c] = total[c] - left[c]
    w_left = 0.0
    w_right = 0.0
    w_total = 0.0
    for c in range(offsets[0], offsets[1]):
        w_left += left[c]
        w_right += right[c]
        w_total += total[c]
    if not (w_left > 0.0 and w_right > 0.0):
        return np.inf
    i_left = class_impurity(criterion, left, offsets, n_out)
    i_right = class_impurity(criterion, right[:m], offsets, n_out)
    return (w_left * i_left + w_right * i_right) / w_total
