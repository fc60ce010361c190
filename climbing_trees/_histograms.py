"""Histograms: per (node, feature, bin) sums of exact integer statistics.

A histogram tree (``splitter="hist"``) sums each node's statistics per
feature and bin (:mod:`climbing_trees._binning` gives the bins) and scans the
bins in order instead of the sorted rows.  Of two siblings only the smaller
one's histogram is summed from its rows; the other's is the parent's minus
it (:func:`sibling_histograms`).

Subtraction must leave no residue: a float residue makes a derived histogram
depend on which sibling was summed and in what order, so two candidates that
tie exactly can be ranked differently from one fit (or one machine, or one
partition of the rows) to another. So every statistic that is summed is an
integer (``int64``): row counts as they are, and every other per-row
statistic ``v`` in *fixed point*, ``q = rint(v * 2**k)``, with one exponent
``k`` per statistic column and fit (:func:`fixed_point_exponent`):
``k = 62 - e`` where the column's ``sum |v|`` is ``m * 2**e`` with ``1/2 <= m < 1``,
so ``sum |v| * 2**k < 2**62``. Any sum of a subset of the rows then fits in
``int64`` with room for one subtraction; integer addition is associative, so
the histograms do not depend on the order of the rows, on how the sums are
chunked, or on which sibling was summed. Where ``v * 2**k`` is an integer
(integer targets, unit or dyadic weights) the sums are the exact sums;
elsewhere each row is rounded once, by at most ``2**-(k+1)``, about
``2**-63`` of the column's total per row. That is relative to the whole
column, not to a node: where the values span many orders of magnitude (a
log-normal target, one huge weight), a node holding only small values keeps
few of their bits, its gains move by more than the tie tolerance, and the
tree can differ from the exact splitter's (still the same tree in any row
order or chunking).  The scan converts the sums back to floats (one rounding each) and scores
them with the exact search's gains.
"""

from __future__ import annotations

import math

import numba
import numpy as np

#: Bound on the sum of a fixed-point column's magnitudes: one more bit for a difference.
FIXED_POINT_BOUND_BITS = 62


def fixed_point_exponent(values: np.ndarray) -> int:
    """``k`` with ``2**61 <= sum |values| * 2**k < 2**62`` (0 for an all-zero column).

    The sum is the exact one, rounded once (:func:`sum_exponent`), so ``k``
    does not depend on the order of the values.

    >>> fixed_point_exponent(np.array([1.0, 3.0]))   # 4 * 2**59 = 2**61
    59
    >>> fixed_point_exponent(np.array([0.75]))
    62
    """
    exponent = sum_exponent(np.abs(np.asarray(values, dtype=float)).ravel())
    return 0 if exponent is None else FIXED_POINT_BOUND_BITS - exponent


def sum_exponent(magnitudes: np.ndarray) -> int | None:
    """The exponent ``e`` of the exactly rounded sum of ``magnitudes`` (none negative):
    ``sum = m * 2**e`` with ``1/2 <= m < 1``; None when the sum is 0.

    numpy's sum depends on the order of the values in its last bits, and near
    a power of two so does its exponent.  Every order's sum lies within
    ``n * 2**-52`` of the exact one (relative: no term is negative), so when
    both ends of that interval share an exponent it is the exact sum's;
    otherwise ``math.fsum`` (exactly rounded, so independent of the order)
    decides.

    >>> sum_exponent(np.full(10, 0.1)), sum_exponent(np.zeros(3))  # 1.0 = 0.5 * 2**1
    (1, None)
    """
    total = float(np.sum(magnitudes))
    if total == 0.0:
        return None
    slack = (magnitudes.size + 2) * 2.0**-52
    _, low = np.frexp(total * (1.0 - slack))
    _, high = np.frexp(total * (1.0 + slack))
    if low != high:
        total = math.fsum(magnitudes.tolist())
    _, exponent = math.frexp(total)  # total = m * 2**exponent, 0.5 <= m < 1
    return int(exponent)


def to_fixed_point(values: np.ndarray, k: int) -> np.ndarray:
    """``rint(values * 2**k)`` as int64 (exact where ``values * 2**k`` is whole).

    >>> to_fixed_point(np.array([1.5, -0.25]), 2).tolist()
    [6, -1]
    """
    return np.rint(np.ldexp(np.asarray(values, dtype=float), k)).astype(np.int64)


def from_fixed_point(sums, k: int):
    """Fixed-point sums back to floats: ``sums * 2**-k`` (one rounding, to 53 bits)."""
    return np.ldexp(np.asarray(sums, dtype=float), -k)


@numba.njit(cache=True, nogil=True)
def add_rows(codes, rows, first, stop, stats, hist):
    """Add the rows ``rows[first:stop]`` to one node's histogram ``hist`` (d, bins, 1 + c).

    Column 0 counts rows; column ``1 + c`` adds ``stats[row, c]``.  Integers:
    the order of the rows does not matter.
    """
    d = codes.shape[1]
    n_stats = stats.shape[1]
    for p in range(first, stop):
        r = rows[p]
        for j in range(d):
            b = codes[r, j]
            hist[j, b, 0] += 1
            for c in range(n_stats):
                hist[j, b, 1 + c] += stats[r, c]


def node_histograms(codes, rows, starts, sizes, which, stats, width):
    """The histograms of the nodes ``which`` (their rows: ``rows[starts[k]:][:sizes[k]]``).

    Returns an int64 array (len(which), d, width, 1 + stats columns).
    """
    out = np.empty((which.size, codes.shape[1], width, 1 + stats.shape[1]), dtype=np.int64)
    sum_histograms(codes, rows, starts, sizes, which, stats, out)
    return out


@numba.njit(cache=True, nogil=True)
def sum_histograms(codes, rows, starts, sizes, which, stats, out):
    """Sum the histograms of the nodes ``which`` from their rows into ``out[0], out[1], ...``."""
    for t in range(which.size):
        k = which[t]
        out[t] = 0
        add_rows(codes, rows, starts[k], starts[k] + sizes[k], stats, out[t])


@numba.njit(cache=True, nogil=True)
def subtract_siblings(parent_hist, parent_slot, hist, sibling_slot, slot):
    """``hist[slot[t]] = parent_hist[parent_slot[t]] - hist[sibling_slot[t]]`` for each ``t``.

    A node's histogram as its parent's minus its sibling's: exact (integers).
    """
    for t in range(slot.size):
        parent, sibling, out = parent_hist[parent_slot[t]], hist[sibling_slot[t]], hist[slot[t]]
        for j in range(parent.shape[0]):
            for b in range(parent.shape[1]):
                for c in range(parent.shape[2]):
                    out[j, b, c] = parent[j, b, c] - sibling[j, b, c]


def sibling_histograms(codes, rows, starts, sizes, stats, parent_hist, parents):
    """The histograms of a level of children, the smaller of each pair summed.

    The level lists the left children of the split ``parents`` (indices into
    ``parent_hist``, the previous level's histograms), then their right
    children (:func:`climbing_trees._levelwise._orders._partition`).  Of each
    pair the child with fewer rows (the left one on equal sizes) is summed
    from its rows (:func:`sum_histograms`); the other is the parent's minus it,
    exactly (:func:`subtract_siblings`).
    """
    n_split = parents.size
    left = np.arange(n_split)
    right = left + n_split
    left_smaller = sizes[left] <= sizes[right]
    small = np.where(left_smaller, left, right)
    large = np.where(left_smaller, right, left)
    out = np.empty((2 * n_split,) + parent_hist.shape[1:], dtype=np.int64)
    out[small] = node_histograms(codes, rows, starts, sizes, small, stats, out.shape[2])
    subtract_siblings(parent_hist, parents, out, small, large)
    return out


@numba.njit(cache=True, nogil=True)
def compact_histograms(codes, rows, starts, sizes, which, stats, missing_bin, width):
    """The histograms of the nodes ``which`` over their non-empty bins only.

    For a node with few rows: its bins in the order of their codes, packed
    to the left (column ``width - 1``: missing), found by sorting each
    feature's codes of the node's rows instead of touching every bin.
    Returns the sums (len(which), d, width, 1 + stats columns), as
    :func:`node_histograms` without its empty present bins, and each
    column's bin code (len(which), d, width - 1), -1 after the last non-empty
    bin.  ``width`` must exceed the number of present codes of every node
    (its row count does).
    """
    d, n_stats = codes.shape[1], stats.shape[1]
    out = np.zeros((which.size, d, width, 1 + n_stats), dtype=np.int64)
    bin_code = np.full((which.size, d, width - 1), -1, dtype=np.int32)
    column = np.empty(width, dtype=np.int64)  # one feature's codes of the node, sorted
    order = np.empty(width, dtype=np.int64)  # their rows
    for t in range(which.size):
        k = which[t]
        first, m = starts[k], sizes[k]
        for j in range(d):
            for p in range(m):  # insertion sort: a few rows
                r = rows[first + p]
                b = np.int64(codes[r, j])
                q = p
                while q > 0 and column[q - 1] > b:
                    column[q], order[q] = column[q - 1], order[q - 1]
                    q -= 1
                column[q], order[q] = b, r
            position, last = -1, -1
            for q in range(m):
                b, r = column[q], order[q]
                if b == missing_bin:  # the largest code: after every present one
                    at = width - 1
                else:
                    if b != last:
                        position += 1
                        last = b
                        bin_code[t, j, position] = b
                    at = position
                out[t, j, at, 0] += 1
                for c in range(n_stats):
                    out[t, j, at, 1 + c] += stats[r, c]
    return out, bin_code
