"""Absolute error in the compiled builder: a node's medians and its wavelet-matrix scans.

The compiled twin of :mod:`climbing_trees._wavelet` (chapter 3, "Every
median at once: a wavelet matrix") and of the level-wise summaries
(:func:`climbing_trees._levelwise._absolute._absolute_error_summaries`),
for one node and one feature at a time:

- :func:`absolute_summary`: the node's weight, its medians
  (:func:`climbing_trees._wavelet.node_medians`), its impurity (each output's
  ``sum w |y - median|`` in index order, as ``bincount`` sums it), each row's
  rank by ``y`` in the node (ties by index, :func:`climbing_trees.node_ranks`)
  and its target less the node's middle value (the row of rank ``n // 2``);
- :func:`absolute_scan`: every candidate of one feature, scored as
  :func:`climbing_trees.split_absolute_errors` scores it.  The scan's rows
  (present ones sorted, missing ones last; and, when some are missing, the
  missing ones first) go through one wavelet matrix per output
  (:func:`wavelet_levels`); each candidate's left child is a prefix of the
  scan and its right child the suffix, and the walk down the levels
  (:func:`median_sums`, both sides together in :func:`median_sums_pair`)
  gives each side's median entry, the weight ``C_k``
  and weighted sum ``S_k`` up to it, and so ``sum w |y - y_k|``
  (:func:`range_error`, the port of
  :func:`climbing_trees._wavelet.range_absolute_error`).

Every sum is the numpy code's, in its order: the levels' running sums of
the bit-0 entries, their differences along the walk, the scan's cumulative
weight and weighted value.  So each candidate's score has the bits that
``grow_tree`` and ``grow_tree_levelwise`` compute, and the tie rule
(:mod:`._choice`) sees the numbers they see; ``tests/test_compiled_rules.py``
pins the ports to the numpy functions bit for bit.
"""

from __future__ import annotations

import numpy as np

from ._choice import near_add
from ._rules import bounds, jit, midpoint, missing_left_of, refused_side

#: The compiled builder's code for ``criterion="absolute_error"`` (next to
#: :data:`._scores.CRITERION_CODES`, which lists the criteria of sums).
ABSOLUTE_ERROR = 4


def n_levels(m: int) -> int:
    """Levels of a wavelet matrix over ``m`` ranks (at least one), as
    :class:`climbing_trees._wavelet.WaveletMatrix` counts them."""
    return max(int(m - 1).bit_length(), 1)


def absolute_workspace(n: int, k: int, absolute: bool):
    """Work arrays of :func:`absolute_summary` and :func:`absolute_scan` for ``n`` rows
    and ``k`` outputs (one-element stand-ins when the criterion is another).

    Their size, with ``b = ceil(log2 n)`` levels: ``20 b + 76`` bytes a row,
    plus 12 bytes a row and output (ranks and shifted targets): about 0.5 GiB
    at a million rows (465 MiB), 5 GiB at ten million (the level-wise builder's
    wavelet matrices take more)."""
    if not absolute:
        n, k = 1, 1
    b = n_levels(n)
    return (
        np.zeros((n, k), dtype=np.int32),  # ranks: each row's rank by y in its node
        np.zeros((n, k)),  # shifted: y less the node's middle value
        np.zeros((b, n + 1), dtype=np.int32),  # zeros: bit-0 entries before each boundary
        np.zeros((b, n + 1, 2)),  # sums: their weight and weighted value
        np.zeros((4, n)),  # the levels' orders (two sets: w, y)
        np.zeros((2, n), dtype=np.int32),  # and their ranks
        np.zeros((2, n + 1)),  # the scan's cumulative weight and weighted value
        np.zeros((2, n + 1)),  # left and right errors summed over the outputs
        np.zeros(n, dtype=np.int32),  # a scan's rows
    )


@jit
def absolute_summary(rows, Y, w, unit, n_out, value, ys, work):
    """A node's weight, impurity and purity; its medians into ``value``.

    Writes each row's rank and shifted target into ``work``
    (:func:`absolute_workspace`).  ``ys`` is a work array of at least
    ``len(rows)``.  ``unit``: every weight is 1.
    """
    ranks, shifted = work[0], work[1]
    cumulative = work[6][0]
    n = rows.shape[0]
    node_weight = 0.0
    if unit:
        node_weight = float(n)
    else:
        for i in range(n):
            node_weight += w[rows[i]]
    error = 0.0
    pure = True
    for o in range(n_out):
        lo = np.inf
        hi = -np.inf
        for i in range(n):
            row = rows[i]
            ys[i] = Y[row, o]
            if w[row] > 0.0:
                lo = min(lo, ys[i])
                hi = max(hi, ys[i])
        if lo < hi:
            pure = False
        by_y = np.argsort(ys[:n], kind="mergesort")  # stable: ties in index order
        total = 0.0
        for r in range(n):
            row = rows[by_y[r]]
            ranks[row, o] = r
            total += w[row]
            cumulative[r] = total
        median = weighted_median_sorted(ys, by_y, cumulative, n, rows, w)
        value[o] = median
        middle = ys[by_y[n // 2]]
        e = 0.0
        for i in range(n):
            row = rows[i]
            shifted[row, o] = ys[i] - middle
            e += w[row] * abs(ys[i] - median)
        error += e
    return node_weight, error / n_out / node_weight, pure


@jit
def weighted_median_sorted(ys, by_y, cumulative, n, rows, w):
    """:func:`climbing_trees._wavelet.node_medians` for one node: ``ys[by_y]`` sorted,
    ``cumulative`` their running weights, ``w[rows[by_y[r]]]`` their weights.  The
    first value whose running weight reaches half the total; at exactly half, the
    midpoint with the next value of positive weight (that value itself if none
    follows), as :func:`climbing_trees._criteria.weighted_median`.  The next
    positive weight, not the next running weight above half: a weight absorbed
    by rounding (``1e-17`` after ``1.0``) leaves the running weight at half."""
    half = 0.5 * cumulative[n - 1]
    k = 0
    while cumulative[k] < half:
        k += 1
    if cumulative[k] == half:
        for r in range(k + 1, n):
            if w[rows[by_y[r]]] > 0.0:
                return (ys[by_y[k]] + ys[by_y[r]]) / 2
    return ys[by_y[k]]


@jit
def wavelet_levels(m, ranks, levels, zeros, sums):
    """The levels of a wavelet matrix over the scan in ``ranks[0]`` and ``levels[0:2]``
    (rank, w, y of each entry).

    As :class:`climbing_trees._wavelet.WaveletMatrix` builds them: level
    ``t`` partitions the entries stably by bit ``B - 1 - t`` of their rank;
    ``zeros[t, i]`` counts the bit-0 entries before boundary ``i`` and
    ``sums[t, i]`` is their weight and weighted value, summed in order (the
    next level's running sums).  The two sets of rows swap roles level by
    level; returns the one that holds the last order (0 or 1).
    """
    n_levels = max(_bit_length(m - 1), 1)
    if n_levels > zeros.shape[0]:
        raise RuntimeError("absolute_scan's wavelet matrix has too few levels: a bug.")
    here = 0
    for t in range(n_levels):
        bit = n_levels - 1 - t
        there = 1 - here
        # The ranks are 0 .. m-1: those with this bit 0 are counted, not read.
        block = 1 << bit
        one = (m >> (bit + 1)) * block + min(m & (2 * block - 1), block)
        z = 0
        sw = 0.0
        sy = 0.0
        zeros[t, 0] = 0
        sums[t, 0, 0] = 0.0
        sums[t, 0, 1] = 0.0
        for i in range(m):
            r = ranks[here, i]
            wi = levels[2 * here, i]
            yi = levels[2 * here + 1, i]
            if r & block == 0:
                sw += wi
                sy += wi * yi
                at = z
                z += 1
            else:
                at = one
                one += 1
            ranks[there, at] = r
            levels[2 * there, at] = wi
            levels[2 * there + 1, at] = yi
            zeros[t, i + 1] = z
            sums[t, i + 1, 0] = sw
            sums[t, i + 1, 1] = sy
        here = there
    return here


@jit
def _bit_length(x):
    """Bits of a non-negative integer (Python's ``int.bit_length``)."""
    n = 0
    while x > 0:
        x >>= 1
        n += 1
    return n


@jit
def median_sums(a, b, half, n_levels, m, zeros, sums, levels, last):
    """The median entry of scan positions ``[a, b)``: ``(y_k, C_k, S_k)``.

    :meth:`climbing_trees._wavelet.WaveletMatrix.median_sums` for one range:
    at each level, the range's bit-0 entries (smaller ranks) hold the median
    unless their weight with what lies below stays under ``half``; then
    they are added to ``C`` and ``S`` and the walk goes on among the bit-1
    entries.  ``levels[2 * last]`` and ``levels[2 * last + 1]`` hold the last
    level's order (w and y).
    """
    below_w = 0.0
    below_y = 0.0
    for t in range(n_levels):
        za = zeros[t, a]
        zb = zeros[t, b]
        zw = sums[t, b, 0] - sums[t, a, 0]
        zy = sums[t, b, 1] - sums[t, a, 1]
        if below_w + zw < half:
            below_w += zw
            below_y += zy
            z_all = zeros[t, m]
            a = z_all + a - za
            b = z_all + b - zb
        else:
            a = za
            b = zb
    w_k = levels[2 * last, a]
    y_k = levels[2 * last + 1, a]
    return y_k, below_w + w_k, below_y + w_k * y_k


@jit
def median_sums_pair(cut, n, half_left, half_right, n_levels, zeros, sums, levels, last):
    """:func:`median_sums` of ``[0, cut)`` and ``[cut, n)`` walked side by side (the same
    operations on each, interleaved so that the processor overlaps the two walks)."""
    a1 = 0
    b1 = cut
    a2 = cut
    b2 = n
    w1 = 0.0
    y1 = 0.0
    w2 = 0.0
    y2 = 0.0
    for t in range(n_levels):
        za1 = zeros[t, a1]
        zb1 = zeros[t, b1]
        za2 = zeros[t, a2]
        zb2 = zeros[t, b2]
        zw1 = sums[t, b1, 0] - sums[t, a1, 0]
        zy1 = sums[t, b1, 1] - sums[t, a1, 1]
        zw2 = sums[t, b2, 0] - sums[t, a2, 0]
        zy2 = sums[t, b2, 1] - sums[t, a2, 1]
        z_all = zeros[t, n]
        if w1 + zw1 < half_left:
            w1 += zw1
            y1 += zy1
            a1 = z_all + a1 - za1
            b1 = z_all + b1 - zb1
        else:
            a1 = za1
            b1 = zb1
        if w2 + zw2 < half_right:
            w2 += zw2
            y2 += zy2
            a2 = z_all + a2 - za2
            b2 = z_all + b2 - zb2
        else:
            a2 = za2
            b2 = zb2
    wk1 = levels[2 * last, a1]
    yk1 = levels[2 * last + 1, a1]
    wk2 = levels[2 * last, a2]
    yk2 = levels[2 * last + 1, a2]
    return yk1, w1 + wk1, y1 + wk1 * yk1, yk2, w2 + wk2, y2 + wk2 * yk2


@jit
def range_error(y_k, c_k, s_k, weight, total):
    """``sum w |y - median|`` of a range from its median entry
    (:func:`climbing_trees._wavelet.range_absolute_error`)."""
    return max(y_k * (2.0 * c_k - weight) + total - 2.0 * s_k, 0.0)


@jit
def absolute_scan(
    srows, n_present, j, Xf, rs, cs, w, unit, n_out, ranks, shifted, msl, q, low, impurity,
    key_base, near, count, best, acc, work,
):  # fmt: skip
    """Offer every candidate of feature ``j`` at a node whose rows, sorted, are ``srows``.

    ``srows[:n_present]`` sorted by ``X[:, j]`` (ties in index order), the
    rest missing it, as :func:`._scan.scan_sorted` takes them; the candidates,
    their keys in the tie-break order, thresholds and missing sides are
    that function's (:func:`climbing_trees._missing.column_candidates`).
    Scores are :func:`climbing_trees.split_absolute_errors`'s: the left and
    right children's absolute errors summed over the outputs, over the
    scan's total weight and the number of outputs.  A side refused by the
    fixed-point weights (:func:`._rules.refused_side`) or without weight in
    the scan's running sum is not scored.  Both sides' walks go together
    (:func:`median_sums_pair`: measured about 10% faster on the benchmark's
    5,000 x 8 fit than one after the other).  ``acc``: zeros (the near
    list's statistics).  Returns the near list, its length and the lowest
    score.
    """
    _, _, zeros, sums, levels, level_ranks, cumulative, errors, scan = work
    n = srows.shape[0]
    n_missing = n - n_present
    lo_right, hi_right = bounds(n_present, n_missing, msl, False)
    lo_left, hi_left = bounds(n_present, n_missing, msl, True)
    b = max(_bit_length(n - 1), 1)
    q_unit = q[srows[0]]
    for side in range(2 if n_missing > 0 else 1):  # missing rows right, then left
        lo_i, hi_i = (lo_right, hi_right) if side == 0 else (lo_left, hi_left)
        if hi_i < lo_i:
            continue
        shift = 0 if side == 0 else n_missing  # scan position of present row 0
        for i in range(n_present):
            scan[shift + i] = srows[i]
        for i in range(n_missing):
            scan[(n_present if side == 0 else 0) + i] = srows[n_present + i]
        # Fixed-point weights: the node's, and the left side's before present row lo_i.
        q_node = 0.0
        q_start = 0.0
        for i in range(n):
            q_i = q_unit if unit else q[scan[i]]
            q_node += q_i
            if i < shift + lo_i:
                q_start += q_i
        if n_out > 1:
            for p in range(n + 1):
                errors[0, p] = 0.0
                errors[1, p] = 0.0
        for o in range(n_out):
            # The scan's running weight and weighted value, and its entries by level.
            cw = 0.0
            cy = 0.0
            cumulative[0, 0] = 0.0
            cumulative[1, 0] = 0.0
            for i in range(n):
                row = scan[i]
                wi = w[row]
                yi = shifted[row, o]
                cw += wi
                cy += wi * yi
                cumulative[0, i + 1] = cw
                cumulative[1, i + 1] = cy
                level_ranks[0, i] = ranks[row, o]
                levels[0, i] = wi
                levels[1, i] = yi
            last = wavelet_levels(n, level_ranks, levels, zeros, sums)
            total = cumulative[0, n]
            final = o == n_out - 1
            q_left = q_start
            for i in range(lo_i, hi_i + 1):
                q_left += q_unit if unit else q[srows[i]]
                if not _candidate(side, i, n_present, Xf, srows, j, rs, cs):
                    continue
                cut = shift + i + 1  # the left child: scan positions [0, cut)
                if final and refused_side(q_left, q_node - q_left, low):
                    continue
                w_left = cumulative[0, cut]
                w_right = total - w_left
                if not (w_left > 0.0 and w_right > 0.0):
                    continue
                y_left = cumulative[1, cut]
                y_right = cumulative[1, n] - y_left
                y_k, c_k, s_k, y_r, c_r, s_r = median_sums_pair(
                    cut, n, 0.5 * w_left, 0.5 * w_right, b, zeros, sums, levels, last
                )
                left = range_error(y_k, c_k, s_k, w_left, y_left)
                if n_out > 1:
                    left += errors[0, cut]
                    errors[0, cut] = left
                right = range_error(y_r, c_r, s_r, w_right, y_right)
                if n_out > 1:
                    right += errors[1, cut]
                    errors[1, cut] = right
                if not final:
                    continue
                score = (left + right) / n_out / total
                x = Xf[srows[i] * rs + j * cs]
                if side == 0:
                    distinct = i + 1 < n_present
                    x_next = Xf[srows[i + 1] * rs + j * cs] if distinct else np.nan
                    threshold = midpoint(x, x_next) if distinct else np.inf
                    goes = missing_left_of(n_missing, False, i + 1, n)
                    key = key_base + i
                else:
                    threshold = midpoint(x, Xf[srows[i + 1] * rs + j * cs])
                    goes = True
                    key = key_base + n + i
                near, count, best = near_add(
                    near, count, best, impurity, 0.0, score, key, threshold, j, goes, cut,
                    w_left, acc, acc, 0.0,
                )  # fmt: skip
    return near, count, best


@jit
def _candidate(side, i, n_present, Xf, srows, j, rs, cs):
    """Whether present row ``i`` ends a candidate's left side (within the bounds):
    between two distinct values, or, missing rows right, the last present row."""
    if i + 1 < n_present:
        return Xf[srows[i] * rs + j * cs] < Xf[srows[i + 1] * rs + j * cs]
    return side == 0 and i == n_present - 1
