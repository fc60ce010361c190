"""The package's rules as scalar numba functions, for the compiled builder.

Each function here is a scalar port of a numpy rule written once elsewhere
(principle 3: the rule is the numpy one; this is its compiled twin).  The
constants are imported from the rule modules, never retyped, and
``tests/test_compiled_rules.py`` pins every port equal to its numpy rule on
many random inputs (hashes bit for bit, thresholds bit for bit, booleans
exactly):

=============================  ==================================================
port                           numpy rule
=============================  ==================================================
:func:`mix`                    :func:`climbing_trees._random._mix`
:func:`child_key`              :func:`climbing_trees._random.child_keys`
:func:`uniform`                :func:`climbing_trees._random.pair_uniforms`
:func:`random_threshold`       :func:`climbing_trees._random.random_thresholds`
:func:`narrow_range`           :func:`climbing_trees._random.narrow_ranges`
:func:`midpoint`               :func:`climbing_trees._ties.midpoint_threshold`
:func:`tie_tolerance`          :func:`climbing_trees._ties.tie_tolerance`
:func:`enough_decrease`        :func:`climbing_trees._ties.enough_decrease`
:func:`bounds`                 :func:`climbing_trees._missing.candidate_bounds`
:func:`missing_left_of`        :func:`climbing_trees._missing.missing_goes_left`
:func:`refused_side`           :func:`climbing_trees._exact_weights.refused_sides`
:func:`allowed_split`          :func:`climbing_trees._monotonic.allowed_splits`
:func:`child_bounds`           :func:`climbing_trees._monotonic.children_bounds`
:func:`clip_value_row`         :func:`climbing_trees._monotonic.clip_value_rows`
=============================  ==================================================
"""

from __future__ import annotations

import numba
import numpy as np

from .._random import _GOLDEN, _LEFT, _MASK, _RIGHT, FEATURE_THRESHOLD
from .._ties import TIE_RTOL

_C1 = np.uint64(0xBF58476D1CE4E5B9)
_C2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
_ONE = np.uint64(1)
_GOLDEN64 = np.uint64(_GOLDEN)
_LEFT64, _RIGHT64 = np.uint64(_LEFT), np.uint64(_RIGHT)
#: Each stream's salt, ``stream * _GOLDEN`` modulo 2**64 (streams 0 to 7).
STREAM_SALTS = np.array([(s * _GOLDEN) & _MASK for s in range(8)], dtype=np.uint64)
_FEATURE_THRESHOLD = np.float32(FEATURE_THRESHOLD)
_TIE_RTOL = float(TIE_RTOL)

jit = numba.njit(cache=True, nogil=True)


@jit
def mix(z):
    """SplitMix64's finaliser on one uint64 (:func:`climbing_trees._random._mix`)."""
    z = (z ^ (z >> _S30)) * _C1
    z = (z ^ (z >> _S27)) * _C2
    return z ^ (z >> _S31)


@jit
def child_key(key, left):
    """The key of a node's left (or right) child (:func:`climbing_trees._random.child_keys`)."""
    return mix(key + (_LEFT64 if left else _RIGHT64))


@jit
def uniform(key, stream, index):
    """Draw ``index`` of stream ``stream`` of a node's ``key``, in [0, 1).

    :func:`climbing_trees._random.pair_uniforms` with offset 0, for one key.
    """
    base = mix(key ^ STREAM_SALTS[stream])
    z = mix(base + (np.uint64(index) + _ONE) * _GOLDEN64)
    return np.float64(z >> _S11) * 2.0**-53


@jit
def random_threshold(u, lo, hi):
    """``lo * (1 - u) + hi * u`` kept in ``[lo, hi)``, ``lo`` where it lands on ``hi``.

    :func:`climbing_trees._random.random_thresholds` for one node and feature.
    """
    t = min(max(lo * (1.0 - u) + hi * u, lo), hi)
    return lo if t >= hi else t


@jit
def narrow_range(lo, hi):
    """scikit-learn's constant range, ``hi <= lo + 1e-7`` in float32, and in
    float64 where a value overflows float32 (:func:`climbing_trees._ties.narrow_ranges`)."""
    lo32, hi32 = np.float32(lo), np.float32(hi)
    if np.isinf(lo32) or np.isinf(hi32):
        return hi <= lo + np.float64(_FEATURE_THRESHOLD)
    return hi32 <= lo32 + _FEATURE_THRESHOLD


@jit
def midpoint(lower, upper):
    """Threshold between distinct neighbours (:func:`climbing_trees._ties.midpoint_threshold`)."""
    mid = lower / 2.0 + upper / 2.0
    if mid >= upper or not np.isfinite(mid):
        return lower
    return mid


@jit
def tie_tolerance(reference, score):
    """How far apart two scores may be and still count as equal
    (:func:`climbing_trees._ties.tie_tolerance`)."""
    return _TIE_RTOL * max(abs(reference), abs(score))


@jit
def enough_decrease(node_weight, total_weight, impurity, score, min_impurity_decrease):
    """The ``min_impurity_decrease`` test (:func:`climbing_trees._ties.enough_decrease`)."""
    share = node_weight / total_weight
    decrease = share * (impurity - score)
    allowance = _TIE_RTOL * share * abs(impurity)
    return decrease + allowance >= min_impurity_decrease


@jit
def bounds(n_present, n_missing, min_samples_leaf, missing_left):
    """Allowed positions ``lo <= i <= hi`` (:func:`climbing_trees._missing.candidate_bounds`)."""
    has_missing = 1 if n_missing > 0 else 0
    most = n_present + n_missing - min_samples_leaf - 1
    if missing_left:
        lo = max(min_samples_leaf - 1 - n_missing, 0)
        hi = min(n_present - 2, most - n_missing) if has_missing else -1
    else:
        lo = max(min_samples_leaf - 1, 0)
        hi = min(n_present - 2 + has_missing, most)
    return lo, hi


@jit
def missing_left_of(n_missing, missing_left, n_left, n_rows):
    """``missing_go_to_left`` of a split (:func:`climbing_trees._missing.missing_goes_left`)."""
    if n_missing > 0:
        return missing_left
    return n_left > n_rows - n_left


@jit
def refused_side(q_left, q_right, low):
    """A side without weight or lighter than ``low``, in exact fixed point
    (:func:`climbing_trees._exact_weights.refused_sides`)."""
    return q_left <= 0.0 or q_right <= 0.0 or q_left < low or q_right < low


@jit
def allowed_split(cst, value_left, value_right, lower, upper):
    """Rule 1 of monotonic constraints: may a split with these children's values
    be made at a node of bounds ``[lower, upper]``
    (:func:`climbing_trees._monotonic.allowed_splits`)."""
    if cst == 0:
        return True
    within = (
        value_left >= lower
        and value_right >= lower
        and value_left <= upper
        and value_right <= upper
    )
    return within and (value_left - value_right) * cst <= 0.0


@jit
def child_bounds(cst, lower, upper, value_left, value_right):
    """Rule 2: the children's bounds ``(left_lower, left_upper, right_lower, right_upper)``
    (:func:`climbing_trees._monotonic.children_bounds`, means: not medians)."""
    if cst == 0:
        return lower, upper, lower, upper
    middle = value_left / 2.0 + value_right / 2.0
    if cst > 0:
        return lower, middle, middle, upper
    return middle, upper, lower, middle


@jit
def clip_value_row(value_row, lower, upper, classifier):
    """Rule 3, in place: a node's first value within its bounds, and a classifier's
    second proportion one minus the first
    (:func:`climbing_trees._monotonic.clip_value_rows`)."""
    value_row[0] = min(max(value_row[0], lower), upper)
    if classifier:
        value_row[1] = 1.0 - value_row[0]
