"""Logarithms and exponentials of arrays that round alike on every CPU.

numpy computes ``log``, ``log2`` and ``exp`` of float64 arrays with the C
library's functions on most CPUs, but with vectorised code where the CPU has
AVX-512 (``numpy.show_runtime()`` lists the extensions it found): numpy's own
kernels for ``log`` and ``exp``, Intel's SVML for ``log2``.  The same
dispatch covers ``log1p``, ``expm1``, ``log10``, ``exp2``, ``power`` (but
for the exponents 2 and 0.5) and the trigonometric functions.  All are
accurate to about one unit in the last place; they do not round alike.  A
tree's impurities, and through near-ties its splits, would then depend on
the CPU it was grown on, which the package promises they do not (the
guide's principle 4).

These functions call the C library's scalar ``log``, ``log2`` and ``exp``
for every element, from a loop compiled by numba: the functions that
Python's :mod:`math` and the compiled builder (:mod:`climbing_trees._compiled`)
call.  Every builder and boosting loss that takes a logarithm or an
exponential of an array takes it here; ``tests/test_libm.py`` checks that
none calls numpy's (or scipy's ``logsumexp``, ``gmean``, ``xlogy``).
numpy's ``logaddexp`` and scipy's ``expit`` and ``logit`` stay: they call the
C library's scalar functions themselves.

Where the guarantee stops: the bits are the C library's.  glibc (2.28 and
later) computes them from one source on x86-64 CPUs with FMA and on ARM64,
so they agree there; another C library (macOS, Windows, musl) or an older
glibc may round a few values differently.  numba would vectorise the loop
with Intel's SVML if the ``icc_rt`` package were installed;
``tests/test_libm.py`` checks that it is not.

Chapter 1 (the entropy) and the appendix "Floating-point details" explain
this module.
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
    """``kernel`` on every element of ``x`` as float64: an array of ``x``'s shape
    (0-d for a scalar), float64 whatever ``x``'s dtype.  No floating-point
    warning is raised (overflow gives ``inf``, ``log(0)`` ``-inf``)."""
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


def xlog2x(a) -> np.ndarray:
    """``a * log2(a)`` of each element, with ``0 log 0 = 0`` (entropy's terms).

    >>> xlog2x(np.array([0.0, 0.5, 1.0, 2.0])).tolist()
    [0.0, -0.5, 0.0, 2.0]
    """
    a = np.asarray(a, dtype=np.float64)
    out = log2(np.where(a > 0, a, 1.0))
    out *= a
    return out


def logsumexp_rows(raw: np.ndarray) -> np.ndarray:
    """``log sum_k exp(raw[i, k])`` of each row, shifted by its maximum against overflow.

    For fewer than 8 columns, the same bits as scikit-learn's
    ``HalfMultinomialLoss`` (numpy adds 8 or more terms of a row in another
    order); scipy's ``logsumexp`` rounds otherwise (``log1p`` of the others).

    >>> logsumexp_rows(np.array([[0.0, 0.0], [1000.0, 1000.0]])).round(6).tolist()
    [0.693147, 1000.693147]
    """
    top = raw.max(axis=1)
    return log(exp(raw - top[:, None]).sum(axis=1)) + top


def softmax_rows(raw: np.ndarray) -> np.ndarray:
    """``exp(raw[i, k]) / sum_j exp(raw[i, j])`` of each row, shifted by its maximum.

    >>> softmax_rows(np.array([[0.0, 0.0]])).tolist()
    [[0.5, 0.5]]
    """
    z = exp(raw - raw.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)
