"""Absolute error: a criterion without an O(1) update, searched with running medians.

Chapter 3 of the book ("Incremental criteria", section "A criterion without
an O(1) update") explains this module.

Gini, entropy, squared error and Poisson deviance are functions of sums, so
moving a row from one child to the other is one addition and one
subtraction.  The absolute error ``sum_i w_i |y_i - m|`` of a node is
minimised by a weighted median ``m``, and no fixed set of sums gives a
median.  What does work is a structure that keeps the median of a growing
set: two heaps, ``low`` holding the smallest values and ``high`` the others,
with their total weights and weighted sums.  Then

    sum_i w_i |y_i - m| = (m W_low - S_low) + (S_high - m W_high),

so after each insertion the absolute error is O(1) away, and the insertion
itself costs O(log n) per heap move.  With unit weights an insertion moves at
most one value between the heaps.  With weights it moves as many as change
sides: a row of weight w moves at most about w / (2 w_min) + 2 values, so a
sweep costs O(n log n) when the ratio of the largest to the smallest weight is
bounded, and O(n^2 log n) in the worst case (a stream of light rows followed by
heavy rows far on either side).  scikit-learn's Fenwick tree costs O(log n) per
row whatever the weights.
The split search sweeps each sorted feature twice: forwards for the left
children, backwards for the right ones.
"""

from __future__ import annotations

import heapq

import numpy as np

from ._criteria import weighted_median
from ._exact_weights import fixed_weights, refused_sides
from ._missing import column_candidates
from ._naive import Split
from ._ties import choose_best


class RunningMedian:
    """Weighted median and absolute error of a set of values that only grows.

    ``low`` is a max-heap (values negated) of the smallest values: the
    longest prefix of the sorted values whose weight is at most half the
    total.  ``high`` is a min-heap of the rest.  The median follows
    scikit-learn's rule (:func:`climbing_trees.weighted_median`): the
    smallest value of ``high``, or, when ``low`` weighs exactly half, the
    midpoint of the largest value of ``low`` and the smallest of ``high``.

    Notes
    -----
    "Exactly half" compares running floating-point sums, so the rule is
    followed exactly when the weight sums are exact in binary (unit, integer
    or dyadic weights).  With other weights a tie at half the weight may
    resolve to the other median; the absolute error is then the same up to
    rounding.

    Examples
    --------
    >>> running = RunningMedian()
    >>> for y in [5.0, 1.0, 3.0, 10.0]:
    ...     running.add(y, 1.0)
    ...     print(running.median(), running.absolute_error())
    5.0 0.0
    3.0 4.0
    3.0 4.0
    4.0 11.0
    """

    def __init__(self) -> None:
        self.low: list[tuple[float, float]] = []  # (-y, w)
        self.high: list[tuple[float, float]] = []  # (y, w)
        self.w_low = self.s_low = self.w_high = self.s_high = 0.0

    def add(self, y: float, w: float) -> None:
        """Insert value ``y`` of weight ``w > 0``: O(log n) per heap move."""
        if self.low and y <= -self.low[0][0]:
            heapq.heappush(self.low, (-y, w))
            self.w_low += w
            self.s_low += w * y
        else:
            heapq.heappush(self.high, (y, w))
            self.w_high += w
            self.s_high += w * y
        half = 0.5 * (self.w_low + self.w_high)
        # Restore the invariant: low is the longest sorted prefix weighing <= half.
        while self.w_low > half:
            neg, w_top = heapq.heappop(self.low)
            self._move(-neg, w_top, to_low=False)
        while self.high and self.w_low + self.high[0][1] <= half:
            y_top, w_top = heapq.heappop(self.high)
            self._move(y_top, w_top, to_low=True)

    def _move(self, y: float, w: float, *, to_low: bool) -> None:
        sign = 1.0 if to_low else -1.0
        self.w_low += sign * w
        self.s_low += sign * w * y
        self.w_high -= sign * w
        self.s_high -= sign * w * y
        if to_low:
            heapq.heappush(self.low, (-y, w))
        else:
            heapq.heappush(self.high, (y, w))

    def median(self) -> float:
        """The weighted median of the values added so far."""
        if self.low and self.w_low == 0.5 * (self.w_low + self.w_high):
            return (-self.low[0][0] + self.high[0][0]) / 2
        return self.high[0][0]

    def absolute_error(self) -> float:
        """``sum_i w_i |y_i - median|`` over the values added so far."""
        m = self.median()
        return max((m * self.w_low - self.s_low) + (self.s_high - m * self.w_high), 0.0)


def prefix_absolute_errors(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``out[i]``: absolute error of ``y[: i + 1]`` about its weighted median.

    One :class:`RunningMedian` fed the rows in order: O(n log n) in all with
    unit weights or a bounded ratio of weights (see the module docstring).

    Parameters
    ----------
    y : ndarray of shape (n,)
        Values, in the order they join the set.
    w : ndarray of shape (n,)
        Their positive weights.

    Returns
    -------
    ndarray of shape (n,)
        ``sum_{k <= i} w_k |y_k - m_i|``, with ``m_i`` the weighted median of
        the first ``i + 1`` values.

    Examples
    --------
    >>> prefix_absolute_errors(np.array([5.0, 1.0, 3.0, 10.0]), np.ones(4)).tolist()
    [0.0, 4.0, 4.0, 11.0]
    """
    running, out = RunningMedian(), np.empty(len(y))
    for i, (value, weight) in enumerate(zip(y.tolist(), w.tolist(), strict=True)):
        running.add(value, weight)
        out[i] = running.absolute_error()
    return out


def running_median_best_split(
    X: np.ndarray,
    Y: np.ndarray,
    sample_weight: np.ndarray,
    criterion: str = "absolute_error",
    min_samples_leaf: int = 1,
) -> Split | None:
    """Best split for absolute error, with running medians of both children.

    Same parameters, result and tie rules as
    :func:`climbing_trees.naive_best_split` (which is its oracle), for
    ``criterion="absolute_error"`` only.  Each feature costs O(N log N)
    with unit weights or a bounded ratio of weights (O(N^2 log N) in the
    worst case, see the module docstring): the sort, then a forward sweep
    giving the absolute error of every left child and a backward sweep
    giving that of every right child.  The
    target is first shifted by the node's median, which changes no
    absolute error but keeps the running sums small.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Numerical features of the node's rows; NaN marks a missing value.
    Y : ndarray of shape (n_samples, n_outputs)
        The targets, one column per output.
    sample_weight : ndarray of shape (n_samples,)
        Weights of the rows.
    criterion : str
        Only ``"absolute_error"``.
    min_samples_leaf : int
        Candidates leaving fewer rows than this on either side are skipped.

    Returns
    -------
    Split or None
        As :func:`climbing_trees.naive_best_split` returns it.

    Raises
    ------
    ValueError
        For any other criterion.

    Examples
    --------
    >>> X = np.array([[1.0], [2.0], [3.0], [4.0]])
    >>> Y = np.array([[0.0], [1.0], [10.0], [12.0]])
    >>> running_median_best_split(X, Y, np.ones(4))
    Split(feature=0, threshold=2.5, score=0.75, missing_go_to_left=False)
    """
    if criterion != "absolute_error":
        raise ValueError(
            f"running_median_best_split searches criterion='absolute_error' only, got "
            f"{criterion!r}; use prefix_sum_best_split for the other criteria."
        )
    n_samples, n_features = X.shape
    w = np.asarray(sample_weight, dtype=float)
    # Several outputs: the mean of the outputs' absolute errors (scikit-learn's).
    Y = np.asarray(Y, dtype=float)
    n_outputs = Y.shape[1]
    Y = Y - [weighted_median(Y[:, k], w) for k in range(n_outputs)]
    total = w.sum()
    parent = float(
        sum(np.sum(w * np.abs(Y[:, k])) for k in range(n_outputs)) / n_outputs / total
    )
    q = fixed_weights(w, min_samples_leaf)  # exact sums for the refusal rule
    q_total = q.sum()
    splits, scores = [], []
    for j in range(n_features):
        c = column_candidates(X[:, j], min_samples_leaf)
        if not c.position.size:
            continue
        n_missing = len(c.missing)
        # Rows in scan order: present rows sorted, then the missing ones
        # (missing right); with the missing rows first for the other pass.
        k_sides = []
        for first_missing in (False, True) if n_missing else (False,):
            seq = np.concatenate(
                [c.missing, c.order] if first_missing else [c.order, c.missing]
            )
            w_seq = w[seq]
            left = right = 0.0
            for k in range(n_outputs):
                y_seq = Y[seq, k]
                left = left + prefix_absolute_errors(y_seq, w_seq)
                right = right + prefix_absolute_errors(y_seq[::-1], w_seq[::-1])[::-1]
            cum_w, cum_q = np.cumsum(w_seq), np.cumsum(q[seq])
            k_sides.append((left / n_outputs, right / n_outputs, cum_w, cum_q))
        for k in range(len(c.position)):
            left, right, cum_w, cum_q = k_sides[int(c.missing_left[k])]
            cut = c.n_left[k] - 1  # the last row of the left child in scan order
            w_left = cum_w[cut]
            if refused_sides(cum_q[cut], q_total - cum_q[cut], min_samples_leaf, w):
                continue
            if not (w_left > 0 and total - w_left > 0):
                continue
            score = float((left[cut] + right[cut + 1]) / total)
            splits.append(Split(j, float(c.threshold[k]), score, bool(c.go_left[k])))
            scores.append(score)
    best = choose_best(np.array(scores), parent)
    if best < 0:
        return None
    return splits[best]
