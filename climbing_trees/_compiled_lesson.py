"""Chapter 3's scan of one sorted feature, compiled with numba: a lesson.

The chapter "Compiling the loop" of the book explains this module.

:func:`squared_error_scan` is the loop of
:func:`climbing_trees.incremental_best_split` for one feature and the squared
error, written over plain arrays and floats so that numba compiles it
(``numba.njit(cache=True, nogil=True)``): one forward pass, one row crossing
to the left at a time, three running sums for the left child and the node's
totals minus them for the right.  It skips positions between equal values
(rule 1 of :mod:`climbing_trees._ties`), places the threshold by rule 2, and
keeps the first lowest score.  It has no ``min_samples_leaf``, no missing
values and no constant-feature rule (rule 6: a range within ``1e-7``),
and it takes the first *exact* minimum, not the first score within the
tie tolerance of chapter 4: the package's compiled builder
(:mod:`climbing_trees._compiled`) applies the full rules.  The function is
short on purpose; the tests check it against
:func:`climbing_trees.incremental_best_split`.
"""

from __future__ import annotations

import time

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def squared_error_scan(x, y, w):
    """Best threshold and score of one sorted feature ``x`` (``y``, ``w`` in its order).

    Returns ``(threshold, score)``, the score being the weighted squared error
    after the split, ``(W_L i_L + W_R i_R) / W``; ``(nan, inf)`` when all
    values of ``x`` are equal.

    Examples
    --------
    >>> x = np.array([1.0, 2.0, 3.0, 4.0])
    >>> squared_error_scan(x, np.array([0.0, 0.0, 10.0, 10.0]), np.ones(4))
    (2.5, 0.0)
    """
    n = x.shape[0]
    # The node's totals, with the targets centred at their weighted mean
    # (chapter 3: the sums of squares of raw targets cancel catastrophically).
    total, mean = 0.0, 0.0
    for i in range(n):
        total += w[i]
        mean += w[i] * y[i]
    mean /= total
    s1, s2 = 0.0, 0.0
    for i in range(n):
        d = y[i] - mean
        s1 += w[i] * d
        s2 += w[i] * d * d
    # The scan: row i crosses to the left, then positions i | i + 1 are scored.
    w_left, s1_left, s2_left = 0.0, 0.0, 0.0
    best_score, best_threshold = np.inf, np.nan
    for i in range(n - 1):
        d = y[i] - mean
        w_left += w[i]
        s1_left += w[i] * d
        s2_left += w[i] * d * d
        if x[i] == x[i + 1]:
            continue  # a threshold never separates equal values
        w_right, s1_right, s2_right = total - w_left, s1 - s1_left, s2 - s2_left
        # Each child's impurity, S2/W - (S1/W)^2, clipped at 0 as the package does.
        i_left = max(s2_left / w_left - (s1_left / w_left) ** 2, 0.0)
        i_right = max(s2_right / w_right - (s1_right / w_right) ** 2, 0.0)
        score = (w_left * i_left + w_right * i_right) / total
        if score < best_score:
            threshold = x[i] / 2.0 + x[i + 1] / 2.0
            if threshold >= x[i + 1]:  # the midpoint rounded onto the upper value
                threshold = x[i]
            best_score, best_threshold = score, threshold
    return best_threshold, best_score


def first_call_seconds() -> tuple[float, int]:
    """Seconds of the first call of :func:`squared_error_scan` here, and cache hits.

    The chapter runs it in a fresh process: with ``cache=True`` the first call
    loads the machine code that an earlier process compiled (one hit), unless
    the cache directory (``NUMBA_CACHE_DIR``) holds none (no hit: it compiles).
    """
    x = np.sort(np.random.default_rng(0).normal(size=1_000))
    start = time.perf_counter()
    squared_error_scan(x, x, np.ones(1_000))
    seconds = time.perf_counter() - start
    return seconds, sum(squared_error_scan.stats.cache_hits.values())
