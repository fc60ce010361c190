"""Absolute error of every candidate split at once: medians from a wavelet matrix.

Chapter 3 of the book ("Every median at once: a wavelet matrix") explains the
running medians of :mod:`climbing_trees._median`, which feed one row at a
time to two heaps; this module gives the same numbers for every candidate of
every feature (and, in :func:`climbing_trees.grow_tree_levelwise`, of every
node of a level) in a fixed number of numpy passes.

**The absolute error from one order statistic.**  Sort a set of rows by
``y``.  With ``k`` the first row whose cumulative weight ``C_k`` reaches half
the total ``W`` (scikit-learn's weighted median, :func:`weighted_median`),
and ``S_k`` the weighted sum ``sum w y`` of the rows up to ``k``,

    sum_i w_i |y_i - y_k| = y_k (2 C_k - W) + S - 2 S_k,

the upper rows' sum minus the lower rows' sum, corrected for the median.
When ``C_k`` is exactly ``W / 2`` scikit-learn's median is the midpoint of
``y_k`` and the next value, but every point between them gives the same
absolute error, so ``y_k`` does too.  A candidate split's left child is a
*prefix* of the node's rows in feature order and its right child the
*suffix*; what is needed is ``(y_k, C_k, S_k)`` for every prefix and suffix.

**The wavelet matrix** (Claude, Navarro and Ordóñez 2015) answers "the row
of a range whose cumulative weight in ``y`` order crosses a given amount"
for many ranges at once.  Give every row its rank ``r`` by ``y`` in the
node (``0 .. m-1``).  Level 1 reorders the rows by the top bit of ``r``:
rows with bit 0 first, then rows with bit 1, each group in its old order (a
stable partition).  Level 2 does the same with the next bit, on level 1's
order; and so on for ``B = ceil(log2 m)`` levels (``m`` rows).  Each level
stores, for every position ``i``, the count, weight and weighted sum of the
rows with bit 0 before ``i``.  A range ``[a, b)`` of positions at one level holds rows with
bit 0 and rows with bit 1; their bit-0 rows sit together at the next level
at ``[zeros before a, zeros before b)``, their bit-1 rows at the same
offsets after all the level's zeros.  So the median of a range is found by
walking down: at each level, if the bit-0 rows (smaller ``y``) of the range
bring the weight counted so far to half the range's weight, the median is
among them; otherwise add their weight and sum to ``C`` and ``S`` and go to
the bit-1 rows.  After ``B`` levels one row is left: the median.

Each step is a few array operations applied to *all* ranges together, so
the cost is ``O(B)`` numpy passes over the candidates: ``O(n log n)`` work
per feature and node, whatever the weights (the heaps cost up to
``O(n^2 log n)`` with adversarial weights).

**One scorer, two builders.**  The rows of a stack of scans (one per
feature and direction for missing values; in the level-wise builder, one
per node too) are given as a rectangle, each scan on one row of it; shorter
scans are padded at the end with rows of weight 0, value 0 and ranks above
the real ones.  Every sum runs along one row, left to right, so a scan's
numbers do not depend on the other rows, on the padding (which adds exact
zeros) or on extra top levels (where every real row has bit 0): the
depth-first and level-wise builders get the same bits.
"""

from __future__ import annotations

import numpy as np

from ._criteria import output_absolute_error
from ._exact_weights import fixed_weights, refused_sides
from ._missing import column_candidates
from ._monotonic import allowed_splits, prefix_medians
from ._naive import Split
from ._ties import choose_best


class WaveletMatrix:
    """The levels of a wavelet matrix over each row of ``ranks``, with weights and values.

    Parameters
    ----------
    ranks : ndarray of int of shape (s, L)
        Each row a permutation of ``0 .. L-1``: the rank by ``y`` of the row's
        entries (padding entries rank above the real ones).
    y, w : ndarray of shape (s, L)
        Values and weights (padding: 0 and 0).

    Attributes
    ----------
    levels : list of (table, step)
        ``table[i]``, at the flat boundary ``i = row * (L + 1) + position``,
        is the weight plus ``1j`` times the weighted sum of the entries with
        bit 0 before ``position`` (one complex cumulative sum keeps both).
        ``step[2 i + bit]`` is where boundary ``i`` lands at the next level
        among the entries with that bit.  The table is built from the next
        level: this level's bit-0 entries are the next level's first ones,
        in the same order, so ``table[i]`` is the next level's running sum
        at ``step[2 i]`` (the same additions as summing this level's bit-0
        entries, so the same bits).
    y_last, w_last : ndarray of shape (s * (L + 1),)
        Values and weights in the order of the last level.

    Examples
    --------
    The median of all four values, then of the ranges ``[0, 2)`` and ``[1, 4)``:
    its value ``y_k``, the weight ``C_k`` and weighted sum ``S_k`` up to it.

    >>> y = np.array([[3.0, 1.0, 2.0, 0.0]])
    >>> matrix = WaveletMatrix(node_ranks(y[0])[None], y, np.ones((1, 4)))
    >>> lo, hi, half = np.array([[0]]), np.array([[4]]), np.array([[2.0]])
    >>> [a.tolist() for a in matrix.median_sums(lo, hi, half)]
    [[[1.0]], [[2.0]], [[1.0]]]
    >>> lo, hi, half = np.array([[0, 1]]), np.array([[2, 4]]), np.array([[1.0, 1.5]])
    >>> [a.tolist() for a in matrix.median_sums(lo, hi, half)]
    [[[1.0, 1.0]], [[1.0, 2.0]], [[1.0, 1.0]]]
    """

    def __init__(self, ranks: np.ndarray, y: np.ndarray, w: np.ndarray) -> None:
        s, L = ranks.shape
        self.shape = (s, L)
        # Positions in the walk fit 32 bits (less memory to read) unless huge.
        self.index = np.int32 if 2 * s * (L + 1) < 2**31 else np.intp
        row = np.arange(s)[:, None]
        base = row * (L + 1)  # each row's first boundary
        position = np.arange(L + 1)
        # Entry i of a row sits before boundary i: its flat index in ``step``
        # (below) when its bit is 0 is ``even``, when 1 ``even + 1``.
        even = (2 * (base + position[:-1])).ravel()
        # This level's ranks, (weight, weighted value) pairs and flat indices,
        # each entry at its place in this level's order.
        w = np.asarray(w, dtype=float).ravel()
        y = np.asarray(y, dtype=float).ravel()
        key = np.asarray(ranks, dtype=np.intp).ravel()
        pair = w + 1j * (w * y)
        order = np.arange(s * L)
        zeros = np.zeros((s, L + 1), dtype=np.intp)  # bit-0 entries before each boundary
        running = np.zeros((s, L + 1), dtype=complex)
        self.levels = []
        for bit in range(max(int(L - 1).bit_length(), 1) - 1, -1, -1):
            one = (key >> bit) & 1
            np.cumsum(1 - one.reshape(s, L), axis=1, out=zeros[:, 1:])
            step = np.empty((s, L + 1, 2), dtype=self.index)
            np.add(base, zeros, out=step[:, :, 0])  # bit 0: after the zeros before i
            # bit 1: after all the zeros, and the ones before i
            np.subtract(base + zeros[:, -1:] + position, zeros, out=step[:, :, 1])
            step = step.ravel()
            # The next level's order: a stable partition of each row by this
            # bit, each entry moved to where its boundary lands.
            target = step.take(even + one) - row.repeat(L)
            key, pair, order = (_scatter(a, target) for a in (key, pair, order))
            # This level's bit-0 entries before boundary i are the next level's
            # first zeros[i] entries, in the same order: the table is the next
            # level's running sums read where boundary i lands with bit 0.
            np.cumsum(pair.reshape(s, L), axis=1, out=running[:, 1:])
            self.levels.append((running.ravel().take(step[0::2]), step))
        self.w_last = np.zeros((s, L + 1))
        self.w_last[:, :-1] = w.take(order).reshape(s, L)
        self.y_last = np.zeros((s, L + 1))
        self.y_last[:, :-1] = y.take(order).reshape(s, L)
        self.w_last, self.y_last = self.w_last.ravel(), self.y_last.ravel()

    def median_sums(self, lo: np.ndarray, hi: np.ndarray, half: np.ndarray):
        """Per range ``[lo, hi)`` of each row: its median's value, ``C_k`` and ``S_k``.

        ``lo``, ``hi`` and ``half`` (half the range's weight) are ``(s, q)``
        arrays.  Returns ``(y_k, C_k, S_k)``, each ``(s, q)``.  Every range
        must be non-empty with positive weight: otherwise the walk ends on an
        arbitrary entry (or the padding), and its numbers mean nothing.
        """
        s, L = self.shape
        base = (np.arange(s) * (L + 1))[:, None]
        a = (lo + base).ravel().astype(self.index)
        b = (hi + base).ravel().astype(self.index)
        half = np.asarray(half, dtype=float).ravel()
        below = np.zeros(a.shape, dtype=complex)  # C + 1j S of the rows passed over
        for table, step in self.levels:
            zeros = table.take(b) - table.take(a)  # the range's bit-0 rows
            go_one = below.real + zeros.real < half  # the median is above them
            zeros *= go_one
            below += zeros
            a = step.take(np.add(a, a, out=a) + go_one)  # 2 a + bit: where a lands
            b = step.take(np.add(b, b, out=b) + go_one)
        return _median_row(self, a, below, lo.shape)


def _scatter(a: np.ndarray, target: np.ndarray) -> np.ndarray:
    """``a`` with entry ``i`` moved to ``target[i]`` (a permutation)."""
    out = np.empty_like(a)
    out[target] = a
    return out


def _median_row(matrix: WaveletMatrix, a: np.ndarray, below: np.ndarray, shape):
    """``(y_k, C_k, S_k)`` once the walk has reached the median entry at ``a``."""
    w_k = matrix.w_last.take(a)
    y_k = matrix.y_last.take(a)
    c_k = below.real + w_k
    s_k = below.imag + w_k * y_k
    return y_k.reshape(shape), c_k.reshape(shape), s_k.reshape(shape)


def range_absolute_error(y_k, c_k, s_k, weight, total):
    """``sum w |y - median|`` of a range from its median entry (module docstring)."""
    return np.maximum(y_k * (2.0 * c_k - weight) + total - 2.0 * s_k, 0.0)


def split_absolute_errors(ranks, y, w, positions):
    """Absolute errors of both children of every candidate of a stack of scans.

    Parameters
    ----------
    ranks, y, w : ndarray of shape (s, L)
        One scan per row, in scan order: the rows' ranks by ``y`` in the node
        (a permutation of ``0 .. L-1``; padding at the end ranks highest),
        their values (best shifted to near the node's median, so that the
        sums stay small) and weights (padding: value 0, weight 0).
    positions : ndarray of int of shape (q,)
        Candidate ``p`` puts the scan's entries ``0 .. p`` left.

    Returns
    -------
    left, right : ndarray of shape (s, q)
        ``sum w |y - median|`` of each side.
    cumulative : ndarray of shape (s, L + 1)
        The scan's cumulative weight and ``1j`` times its cumulative weighted
        value (``cumulative[:, p + 1]`` is the left child's; the last column
        the scan's total).

    Examples
    --------
    >>> y = np.array([[0.0, 1.0, 10.0, 12.0]])
    >>> ranks = np.array([[0, 1, 2, 3]])
    >>> left, right, _ = split_absolute_errors(ranks, y, np.ones((1, 4)), np.arange(3))
    >>> left.tolist(), right.tolist()
    ([[0.0, 1.0, 10.0]], [[11.0, 2.0, 0.0]])
    """
    s, L = y.shape
    matrix = WaveletMatrix(ranks, y, w)
    cumulative = np.zeros((s, L + 1), dtype=complex)
    np.cumsum(w + 1j * (w * y), axis=1, out=cumulative[:, 1:])
    cut = np.broadcast_to(np.asarray(positions, dtype=np.intp) + 1, (s, len(positions)))
    prefix = np.take_along_axis(cumulative, cut, axis=1)
    suffix = cumulative[:, -1:] - prefix
    start, end = np.zeros_like(cut), np.full_like(cut, L)
    sides = []
    for lo, hi, side in ((start, cut, prefix), (cut, end, suffix)):
        y_k, c_k, s_k = matrix.median_sums(lo, hi, 0.5 * side.real)
        sides.append(range_absolute_error(y_k, c_k, s_k, side.real, side.imag))
    return sides[0], sides[1], cumulative


def absolute_error_scores(left, right, n_outputs: int, total):
    """The score ``(W_L I_L + W_R I_R) / W`` of candidates from the children's sums.

    ``left`` and ``right`` are the sums over outputs of ``sum w |y - median|``;
    several outputs average the outputs' absolute errors (scikit-learn's).
    """
    return (left + right) / n_outputs / total


def node_ranks(y: np.ndarray) -> np.ndarray:
    """Each row's rank by ``y`` in a node whose rows are in index order (ties: index).

    Parameters
    ----------
    y : ndarray of shape (n,)
        The node's targets (one output).

    Returns
    -------
    ndarray of int of shape (n,)
        A permutation of ``0 .. n-1``: the position of each row in ``y`` order.

    Examples
    --------
    >>> node_ranks(np.array([3.0, 1.0, 3.0, 0.0])).tolist()
    [2, 1, 3, 0]
    """
    ranks = np.empty(len(y), dtype=np.intp)
    ranks[np.argsort(y, kind="stable")] = np.arange(len(y))
    return ranks


def wavelet_best_split(
    X: np.ndarray,
    Y: np.ndarray,
    sample_weight: np.ndarray,
    criterion: str = "absolute_error",
    min_samples_leaf: int = 1,
    monotonic=None,
) -> Split | None:
    """Best split for absolute error, every candidate scored through a wavelet matrix.

    Same parameters, result and tie rules as
    :func:`climbing_trees.naive_best_split` (its oracle) and
    :func:`climbing_trees.running_median_best_split`, for
    ``criterion="absolute_error"`` only.  All features' scans (and, with
    missing values, their scans with the missing rows first) go through
    :func:`split_absolute_errors` together.  Each output's target is first
    shifted by the node's middle value (the row of rank ``n_samples // 2``), which
    changes no absolute error but keeps the sums small;
    :func:`climbing_trees.grow_tree_levelwise` shifts by the same value.
    ``monotonic`` (:class:`climbing_trees._monotonic.NodeConstraints`, one
    constraint per column, one output) refuses the candidates whose
    children's medians break a constraint (chapter 5).

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
    monotonic : NodeConstraints, optional
        The node's monotonic constraints and value bounds.

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
    >>> wavelet_best_split(X, Y, np.ones(4))
    Split(feature=0, threshold=2.5, score=0.75, missing_go_to_left=False)
    """
    if criterion != "absolute_error":
        raise ValueError(
            f"wavelet_best_split searches criterion='absolute_error' only, got "
            f"{criterion!r}; use prefix_sum_best_split for the other criteria."
        )
    n_samples, n_features = X.shape
    w = np.asarray(sample_weight, dtype=float)
    Y = np.asarray(Y, dtype=float)
    n_outputs = Y.shape[1]
    Y_given = Y
    ranks = np.stack([node_ranks(Y[:, k]) for k in range(n_outputs)], axis=1)
    middle = np.argmax(ranks == n_samples // 2, axis=0)  # the row of rank n_samples // 2
    Y = Y - Y[middle, np.arange(n_outputs)]
    # The scans: each feature's present rows sorted, then its missing rows;
    # and, where there are missing rows, those first (the missing-left pass).
    columns = [column_candidates(X[:, j], min_samples_leaf) for j in range(n_features)]
    scans, first = [], []
    for c in columns:
        first.append(len(scans))
        if c.position.size:
            scans.append(np.concatenate([c.order, c.missing]))
            if len(c.missing):
                scans.append(np.concatenate([c.missing, c.order]))
    if not scans:
        return None
    scans = np.stack(scans)
    lo = max(int(min_samples_leaf) - 1, 0)
    positions = np.arange(lo, max(n_samples - int(min_samples_leaf), lo))
    left = right = 0.0
    for k in range(n_outputs):
        args = (ranks[scans, k], Y[scans, k], w[scans])
        l_k, r_k, cumulative = split_absolute_errors(*args, positions)
        left, right = left + l_k, right + r_k
    # The weights in exact fixed point along each scan, for the refusal rule.
    q = fixed_weights(w, min_samples_leaf)
    q_cum = np.concatenate([np.zeros((len(scans), 1)), np.cumsum(q[scans], axis=1)], axis=1)
    # The candidates in tie-break order (feature, then the column's own order);
    # a refused one scores inf.
    features, thresholds, go_left, scores = [], [], [], []
    for j, c in enumerate(columns):
        if not c.position.size:
            continue
        scan = first[j] + c.missing_left.astype(np.intp)
        cut = c.n_left  # the left child's rows: the scan's first n_left
        w_left = cumulative[scan, cut].real
        total = cumulative[scan, -1].real
        score = absolute_error_scores(
            left[scan, cut - 1 - lo], right[scan, cut - 1 - lo], n_outputs, total
        )
        q_left, q_total = q_cum[scan, cut], q_cum[scan, -1]
        score[refused_sides(q_left, q_total - q_left, min_samples_leaf, w)] = np.inf
        score[(w_left <= 0) | (total - w_left <= 0)] = np.inf
        if monotonic is not None and monotonic.cst[j] != 0:
            score[_refused_medians(monotonic, j, c, Y_given[:, 0], w)] = np.inf
        features.append(np.full(len(score), j))
        thresholds.append(c.threshold)
        go_left.append(c.go_left)
        scores.append(score)
    scores = np.concatenate(scores)
    best = choose_best(scores, output_absolute_error(Y, w))
    if best < 0:
        return None
    feature, threshold = np.concatenate(features)[best], np.concatenate(thresholds)[best]
    missing_go_to_left = np.concatenate(go_left)[best]
    return Split(int(feature), float(threshold), float(scores[best]), bool(missing_go_to_left))


def node_medians(y_sorted, w_sorted, starts, sizes):
    """Each node's :func:`weighted_median`, the rows of each node sorted by ``y``.

    ``y_sorted`` and ``w_sorted`` list the level's rows node by node, each
    node's sorted by ``y`` (node ``i``'s from ``starts[i]``, ``sizes[i]``
    rows).  Rows of weight 0 never reach half the weight, and the value next
    to an exact half is the next row of positive weight, as in
    :func:`weighted_median`.
    """
    # Each node's cumulative weights start from zero, as in weighted_median
    # (a running sum over the whole level, minus what came before, rounds
    # differently and can miss an exact half): nodes of equal size together.
    medians = np.empty(len(sizes))
    for size in np.unique(sizes):
        group = np.flatnonzero(sizes == size)
        rows = starts[group, None] + np.arange(size)
        cumulative = np.cumsum(w_sorted[rows], axis=1)
        half = 0.5 * cumulative[:, -1:]
        k = np.argmax(cumulative >= half, axis=1)  # the first to reach half
        # The next row of positive weight after k (a weight absorbed by rounding
        # leaves the running sum at half: "above half" would pass it over).
        later = (w_sorted[rows] > 0) & (np.arange(size) > k[:, None])
        after = np.where(later.any(axis=1), np.argmax(later, axis=1), k)
        at = np.arange(len(group))
        even = (cumulative[at, k] == half[:, 0]) & (after > k)
        y_k, y_after = y_sorted[rows[at, k]], y_sorted[rows[at, after]]
        medians[group] = np.where(even, (y_k + y_after) / 2, y_k)
    return medians


def _refused_medians(monotonic, j: int, c, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Candidates ``c`` of column ``j`` whose children's medians break its constraint."""
    refused = np.zeros(len(c.position), dtype=bool)
    for missing_left in (False, True):
        at = np.flatnonzero(c.missing_left == missing_left)
        if not at.size:
            continue
        scan = np.concatenate([c.missing, c.order] if missing_left else [c.order, c.missing])
        left = prefix_medians(y[scan], w[scan])
        right = prefix_medians(y[scan[::-1]], w[scan[::-1]])[::-1]  # right[i]: scan[i:]
        cut = c.n_left[at]
        ok = allowed_splits(
            monotonic.cst[j], left[cut - 1], right[cut], monotonic.lower, monotonic.upper
        )
        refused[at] = ~ok
    return refused
