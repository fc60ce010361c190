"""The tie rule over a node's candidates, kept as they stream past (compiled).

:func:`climbing_trees._ties.choose_best` picks, among all of a node's
candidates in tie-break order (feature, then missing side, then threshold),
the first whose score is within :func:`climbing_trees._ties.tie_tolerance`
of the lowest score: one choice over all candidates, never pairwise.  The
compiled scan does not keep every score.  It keeps the *near list*: the
candidates within twice the tolerance of the lowest score seen so far, each
with its place in the tie-break order (``key``).  The tolerance only shrinks
as the lowest score falls (scores are impurities, never below 0 but for
rounding), so a candidate dropped from the list can never come back within
it; at the end the rule itself runs on the list (:func:`near_winner`): the
lowest key among the entries within one tolerance of the lowest score.  The
candidates may therefore arrive in any order.

An entry is a row of a float array: score, key, threshold, feature,
``missing_go_to_left``, rows sent left, the left side's weight and its
statistics (so that the entry can be scored again, :func:`near_rescore`).

The scan ranks by cheap *gains* (:mod:`._scores`), whose rounding can
exceed the tie tolerance where they cancel (entropy's ``sum c ln c - W ln W``
in a large, nearly pure node).  So each node passes a ``slack``, a bound on
that rounding in units of score (:func:`._scores.gain_slack`): the list keeps
the candidates within twice the tolerance plus twice the slack, and for
classification the entries are scored again as
:func:`climbing_trees._criteria.children_score` scores them (its port
:func:`._scores.class_children_score`) before the tie rule runs.  The
compared numbers are then those every other builder compares.
"""

from __future__ import annotations

import numba
import numpy as np

from ._rules import jit, tie_tolerance
from ._scores import class_children_score

#: For the functions of a node that allocate nothing and keep no view: compiled
#: without numba's reference counts (see ``._grow._counted_once``).
_counted_once = numba.njit(cache=True, nogil=True, _nrt=False)

SCORE, KEY, THRESHOLD, FEATURE, MISSING_LEFT, N_LEFT, W_LEFT = 0, 1, 2, 3, 4, 5, 6
N_FIELDS = 7  # then the left side's statistics


@jit
def near_empty(n_stats):
    """An empty near list (room for 16 entries; it grows when ties pile up)."""
    return np.empty((16, N_FIELDS + n_stats))


@jit
def gate(best, reference, constant, scale, slack):
    """The lowest gain ``g`` whose score ``(constant - g) / scale`` may enter the list.

    A candidate with a smaller gain is surely farther than twice the tie
    tolerance plus twice ``slack`` from the lowest score ``best``: the scan
    skips it without working out its score.  A margin of four tolerances
    and four slacks covers the rounding of this bound itself.
    """
    if not np.isfinite(best):
        return -np.inf
    return constant - scale * (best + 4.0 * (tie_tolerance(reference, best) + slack))


@jit
def near_add(
    near, count, best, reference, slack, score, key, threshold, feature, missing_left,
    n_left, w_left, acc, extra, share,
):  # fmt: skip
    """Offer a candidate; returns the list, its length and the lowest score seen.

    :func:`near_put`, on a list made twice as long when it is full.
    """
    if count == near.shape[0]:
        near = near_grown(near)
    count, best = near_put(
        near, count, best, reference, slack, score, key, threshold, feature, missing_left,
        n_left, w_left, acc, extra, share,
    )  # fmt: skip
    return near, count, best


@jit
def near_grown(near):
    """The list copied into one twice as long (when full)."""
    bigger = np.empty((2 * near.shape[0], near.shape[1]))
    bigger[: near.shape[0]] = near
    return bigger


@_counted_once
def near_put(
    near, count, best, reference, slack, score, key, threshold, feature, missing_left,
    n_left, w_left, acc, extra, share,
):  # fmt: skip
    """Offer a candidate to a list with room for it; returns its length and the lowest score.

    The candidate enters when within twice the tolerance plus twice
    ``slack`` of the lowest score; a new lowest score drops the entries now
    beyond that.  Its left side (``acc + share * extra``, weight ``w_left``)
    is kept with it.  The list must have a free row (``count <
    len(near)``): :func:`near_add` makes one.
    """
    if not np.isfinite(score):  # refused (an infinite or undefined impurity)
        return count, best
    margin = 2.0 * (tie_tolerance(reference, best) + slack)
    if not (score <= best + margin) and np.isfinite(best):
        return count, best
    if score < best or not np.isfinite(best):
        best = score
        limit = best + 2.0 * (tie_tolerance(reference, best) + slack)
        kept = 0
        for i in range(count):
            if near[i, SCORE] <= limit:
                for c in range(near.shape[1]):
                    near[kept, c] = near[i, c]
                kept += 1
        count = kept
    near[count, SCORE] = score
    near[count, KEY] = key
    near[count, THRESHOLD] = threshold
    near[count, FEATURE] = feature
    near[count, MISSING_LEFT] = 1.0 if missing_left else 0.0
    near[count, N_LEFT] = n_left
    near[count, W_LEFT] = w_left
    for c in range(near.shape[1] - N_FIELDS):
        near[count, N_FIELDS + c] = acc[c] + share * extra[c]
    return count + 1, best


@_counted_once
def near_rescore(near, count, total, node_weight, offsets, n_out, criterion, right):
    """Score every entry again from its statistics as ``children_score`` does (classes).

    Returns the lowest of the new scores (``inf`` for an empty list).
    ``right`` is room for one side's statistics.
    """
    best = np.inf
    for i in range(count):
        score = class_children_score(
            near[i, N_FIELDS:], total, node_weight, offsets, n_out, criterion, right
        )
        near[i, SCORE] = score
        best = min(best, score)
    return best


@_counted_once
def near_winner(near, count, best, reference):
    """Row of the winner in the list (the tie rule), or -1 when it is empty."""
    if count == 0:
        return -1
    limit = best + tie_tolerance(reference, best)
    winner = -1
    for i in range(count):
        if near[i, SCORE] <= limit and (winner < 0 or near[i, KEY] < near[winner, KEY]):
            winner = i
    return winner
