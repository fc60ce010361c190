"""Logarithms and exponentials of arrays that round alike on every CPU.

numpy computes ``log``, ``log2`` and ``exp`` of float64 arrays with the C
library's functions on most CPUs, but with its own vectorised versions
where the CPU has AVX-512 (``numpy.show_runtime()`` lists the extensions it
found).  Both are accurate to about one unit in the last place; they do not
round alike.  A tree's impurities, and through near-ties its splits, would
then depend on the CPU it was grown on, which the package promises they do
not (the guide's principle 4).

These functions call the C library's scalar ``log``, ``log2`` and ``exp``
for every element, from a loop compiled by numba, the same functions that
Python's :mod:`math` and the compiled builder (:mod:`climbing_trees._compiled`)
call.  Every builder that takes a logarithm of an array takes it here.

The guarantee is the C library's: glibc's functions give the same bits on
every x86-64 CPU with FMA and on ARM64.  numba would vectorise the loop
with Intel's SVML only if the ``icc_rt`` package were installed;
``tests/test_libm.py`` fails then, as it fails if anything here stops
agreeing with :mod:`math`.
"""

from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def _log_into(x, out):
    for i in range(x.size):
        out[i] = math.log(x[i])


@numba.njit(cache=True, nogil=True)
def _log2_into(x, out):
    for i in range(x.size):
        out[i] = math.log2(x[i])


@numba.njit(cache=True, nogil=True)
def _exp_into(x, out):
    for i in range(x.size):
        out[i] = math.exp(x[i])


def _elementwise(kernel, x) -> np.ndarray:
    values = np.asarray(x, dtype=np.float64)
    flat = np.ascontiguousarray(values).reshape(-1)
    out = np.empty_like(flat)
    kernel(flat, out)
    return out.reshape(values.shape)


def log(x) -> np.ndarray:
    """The natural logarithm of each element, as :func:`math.log` gives it.

    ``log(0)`` is ``-inf`` and a negative value's is NaN, as in numpy, with no
    warning.

    >>> log(np.array([1.0, np.e, 0.0])).tolist()
    [0.0, 1.0, -inf]
    """
    return _elementwise(_log_into, x)


def log2(x) -> np.ndarray:
    """The base-2 logarithm of each element, as :func:`math.log2` gives it.

    >>> log2(np.array([[1.0, 8.0], [0.5, 0.0]])).tolist()
    [[0.0, 3.0], [-1.0, -inf]]
    """
    return _elementwise(_log2_into, x)


def exp(x) -> np.ndarray:
    """``e`` to the power of each element, as :func:`math.exp` gives it.

    >>> exp(np.array([0.0, -np.inf])).tolist()
    [1.0, 0.0]
    """
    return _elementwise(_exp_into, x)
