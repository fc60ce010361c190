"""Binning: each numerical feature mapped once to small integer codes (``splitter="hist"``).

The rule is scikit-learn's ``_BinMapper`` (``sklearn/ensemble/_hist_gradient_boosting/
binning.py``): a feature with at most ``max_bins`` distinct values gets one bin
per value, its edges the midpoints between neighbouring values; any other
feature gets ``max_bins`` bins whose edges are quantiles (numpy's
``"averaged_inverted_cdf"``) of at most ``subsample`` rows drawn with
replacement from ``random_state``.  Duplicate edges are merged.  Missing
values (NaN) get one more bin, the same code for every feature: the largest
number of bins of present values among the features (scikit-learn's is
``max_bins`` whatever the features hold; ours keeps histograms no wider
than the features need).

A row with value ``x`` lands in bin ``b`` when ``edges[b - 1] < x <= edges[b]``,
so the edges are real thresholds: a histogram tree's split "bin <= b" is the
split ``x <= edges[b]``, and the fitted tree is an ordinary
:class:`climbing_trees.Tree` (``predict`` needs no binning).  Where a feature
has one bin per value, the codes come from the values themselves (not from
the rounded midpoints), so a bin holds exactly one value and the histogram
search can place each threshold at the exact splitter's midpoint
(:func:`climbing_trees._ties.midpoint_threshold`) of two values.

Codes are ``uint8`` up to 255 bins (the missing bin is code 255), ``uint16``
above, and ``max_bins`` is at most 65,535.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

#: Rows from which quantile edges are computed at most (scikit-learn's default).
SUBSAMPLE = 200_000

#: Largest ``max_bins`` (uint16 codes, the missing bin included).
MAX_BINS_LIMIT = 65_535

#: scikit-learn clips edges to this (``common.ALMOST_INF``): an edge is never +inf.
ALMOST_INF = 1e300


def check_max_bins(max_bins) -> int:
    """``max_bins`` as an int, or a clear error."""
    import numbers

    if (
        not isinstance(max_bins, numbers.Integral)
        or isinstance(max_bins, bool)
        or not 2 <= max_bins <= MAX_BINS_LIMIT
    ):
        raise ValueError(
            f"max_bins={max_bins!r} is invalid; use an int from 2 to {MAX_BINS_LIMIT:,} "
            "(the bins of present values; missing values get one bin more)."
        )
    return int(max_bins)


def code_dtype(max_bins: int):
    """uint8 while the missing bin's code ``max_bins`` fits, else uint16."""
    return np.uint8 if max_bins <= 255 else np.uint16


def feature_edges(
    column: np.ndarray,
    max_bins: int,
) -> tuple[np.ndarray, np.ndarray | None]:
    """The bin edges of one column (NaN ignored); its distinct values if one bin each.

    ``edges`` are scikit-learn's ``bin_thresholds_`` for the column; ``values``
    is the sorted distinct values when there are at most ``max_bins`` of them
    (bin ``b`` holds ``values[b]`` only), else None.

    >>> edges, values = feature_edges(np.array([3.0, 1.0, np.nan, 1.0, 2.0]), 255)
    >>> edges.tolist(), values.tolist()
    ([1.5, 2.5], [1.0, 2.0, 3.0])
    >>> edges, values = feature_edges(np.arange(8.0), 4)
    >>> edges.tolist(), values is None
    ([1.5, 3.5, 5.5], True)
    """
    column = np.asarray(column, dtype=float)
    column = np.sort(column[~np.isnan(column)])
    distinct = column[np.r_[True, column[1:] != column[:-1]]] if column.size else column
    if len(distinct) <= max_bins:
        edges = (distinct[:-1] + distinct[1:]) * 0.5  # scikit-learn's midpoints
        values = distinct
    else:
        percentiles = np.linspace(0, 100, num=max_bins + 1)[1:-1]
        with np.errstate(invalid="ignore"):  # infinite values: inf - inf between them
            edges = np.percentile(column, percentiles, method="averaged_inverted_cdf")
        edges = np.unique(edges[~np.isnan(edges)])
        values = None
    np.clip(edges, a_min=None, a_max=ALMOST_INF, out=edges)
    return edges, values


@dataclass(frozen=True)
class Bins:
    """The bins of every feature: ``edges[j]`` and (one bin per value) ``values[j]``.

    ``missing_bin`` is the code of NaN for every feature: the largest number
    of bins of present values among the features, so a histogram keeps
    ``missing_bin + 1`` codes per feature.
    """

    edges: list
    values: list
    max_bins: int

    @property
    def missing_bin(self) -> int:
        return int(self.n_bins.max(initial=1))

    @property
    def n_bins(self) -> np.ndarray:
        """Bins of present values, per feature."""
        return np.array([len(e) + 1 for e in self.edges], dtype=np.intp)

    def codes(self, X: np.ndarray) -> np.ndarray:
        """The codes of ``X`` (n, d), C order, uint8 (uint16 above 255 bins).

        One bin per value: the value's place among ``values[j]``; else the
        first edge ``>= x`` (``edges[b - 1] < x <= edges[b]``): either way
        ``numpy.searchsorted(..., side="left")``, compiled (:func:`_code_column`).
        """
        X = np.asarray(X, dtype=float)
        n, d = X.shape
        out = np.empty((n, d), dtype=code_dtype(self.max_bins))
        for j in range(d):
            cuts = self.values[j] if self.values[j] is not None else self.edges[j]
            cuts = np.ascontiguousarray(cuts, dtype=float)
            _code_column(X[:, j], cuts, *_cell_table(cuts), self.missing_bin, out, j)
        return out

    def code_cuts(self, j: int, thresholds: np.ndarray) -> np.ndarray | None:
        """Codes ``c`` with ``x <= t`` exactly when ``code(x) <= c``, for every present
        ``x`` of feature ``j`` and each threshold ``t``; None if a threshold has none.

        One bin per value: bin ``b`` holds ``values[b]``, so ``c`` is the last
        value ``<= t``, whatever ``t``.  Quantile bins: a threshold that is an
        edge, ``edges[c]``, or ``+inf`` (every present value; the histogram
        search places no other), since ``code(x) <= c`` means ``x <= edges[c]``.

        >>> bins = fit_bins(np.array([[0.0], [1.0], [3.0]]))
        >>> bins.code_cuts(0, np.array([0.5, 2.0, np.inf])).tolist()
        [0, 1, 2]
        """
        t = np.asarray(thresholds, dtype=float)
        if self.values[j] is not None:
            return np.searchsorted(self.values[j], t, side="right") - 1
        edges = self.edges[j]
        cut = np.searchsorted(edges, t, side="left")
        exact = np.isposinf(t) | (edges[np.minimum(cut, len(edges) - 1)] == t)
        return cut if exact.all() else None


def _cell_table(cuts: np.ndarray):
    """A lookup table over ``4 len(cuts)`` equal cells between the first and last cut:
    ``table[c]`` cuts lie below cell ``c``'s start.  (A value's code then lies
    between its cell's two entries: one or two comparisons instead of eight.)"""
    m = len(cuts)
    lo, hi = (float(cuts[0]), float(cuts[-1])) if m else (0.0, 0.0)
    k = 4 * max(m, 1)
    scale = k / (hi - lo) if np.isfinite(hi - lo) and hi > lo else 0.0
    starts = lo + np.arange(k + 1) / scale if scale else np.full(k + 1, lo)
    table = np.searchsorted(cuts, starts, side="left")
    return np.append(table, m).astype(np.intp), lo, scale


@numba.njit(cache=True, nogil=True)
def _code_column(x, cuts, table, lo, scale, missing_bin, out, j):
    """``out[i, j]``: the number of ``cuts`` below ``x[i]`` (NaN: ``missing_bin``).

    The value's cell in :func:`_cell_table` bounds the answer; a binary search
    between the bounds, then a step either way, make it exact whatever the
    rounding of the cell's index.
    """
    m = cuts.size
    last = table.size - 2
    for i in range(x.size):
        v = x[i]
        if np.isnan(v):
            out[i, j] = missing_bin
            continue
        if m == 0 or v <= cuts[0]:
            out[i, j] = 0
            continue
        if v > cuts[m - 1]:
            out[i, j] = m
            continue
        c = min(max(int((v - lo) * scale), 0), last)
        a, b = table[c], table[c + 1]
        while b - a > 1:  # several cuts in the cell
            mid = (a + b) // 2
            if cuts[mid - 1] < v:
                a = mid
            else:
                b = mid
        code = a
        while code > 0 and cuts[code - 1] >= v:
            code -= 1
        while code < m and cuts[code] < v:
            code += 1
        out[i, j] = code


def fit_bins(X: np.ndarray, max_bins: int = 255, random_state=None) -> Bins:
    """The :class:`Bins` of ``X``'s columns, scikit-learn's rule.

    Quantiles come from at most :data:`SUBSAMPLE` rows drawn with replacement
    by ``numpy.random.RandomState(random_state).choice``, as ``_BinMapper``
    draws them without weights.  Sample weights are not used (scikit-learn
    weighs its quantiles): the bins are those of the rows, so on a feature
    with more than ``max_bins`` values a weight of 2 and a repeated row can
    bin differently.  (Rows of weight 0 are removed by the estimators first.)

    >>> bins = fit_bins(np.array([[0.0, 5.0], [1.0, np.nan], [1.0, 7.0]]))
    >>> [e.tolist() for e in bins.edges], bins.codes(np.array([[1.0, np.nan]])).tolist()
    ([[0.5], [6.0]], [[1, 2]])
    """
    max_bins = check_max_bins(max_bins)
    X = np.asarray(X, dtype=float)
    drawn = subsample_rows(X.shape[0], random_state)
    if drawn is None:
        return bins_of_sample(X, max_bins)

    def distinct(j):  # the whole column's present values, if at most max_bins
        full = np.unique(X[:, j][~np.isnan(X[:, j])])
        return full if len(full) <= max_bins else None

    return bins_of_sample(X.take(drawn, axis=0), max_bins, distinct)


def subsample_rows(n: int, random_state) -> np.ndarray | None:
    """The rows whose quantiles bin the features: None (every row) up to
    :data:`SUBSAMPLE` rows, else :data:`SUBSAMPLE` row numbers drawn with
    replacement by ``numpy.random.RandomState(random_state).choice``.  They
    depend on ``n`` and ``random_state`` only (a Dask fit draws the same ones)."""
    if n <= SUBSAMPLE:
        return None
    rng = random_state
    if not isinstance(rng, np.random.RandomState):
        rng = np.random.RandomState(random_state)
    return rng.choice(n, SUBSAMPLE, replace=True)


def bins_of_sample(sample: np.ndarray, max_bins: int, distinct=None) -> Bins:
    """The :class:`Bins` of a (sub)sample's columns: :func:`fit_bins`' rule.

    ``distinct(j)``: for a subsample, the whole column ``j``'s sorted distinct
    present values if there are at most ``max_bins`` of them, else None (the
    subsample may miss values: one bin per value only if the whole column has
    at most ``max_bins`` of them); None when the sample is every row.
    """
    edges, values = [], []
    for j in range(sample.shape[1]):
        e, v = feature_edges(sample[:, j], max_bins)
        if v is not None and distinct is not None:
            full = distinct(j)
            # feature_edges of the distinct values are the whole column's.
            e, v = feature_edges(full, max_bins) if full is not None else (e, None)
        edges.append(e)
        values.append(v)
    return Bins(edges, values, max_bins)


class FlatBins:
    """Every feature's bin values and edges end to end, to read them for many
    (node, feature) pairs at once: ``values[value_start[j] + b]`` is
    ``bins.values[j][b]`` and ``edges[edge_start[j] + b]`` is ``bins.edges[j][b]``.
    ``by_value[j]``: feature ``j`` has one bin per value (its ``values`` is not
    None).  One padding entry ends each array, so that the start of a feature
    without entries can be read (and ignored)."""

    def __init__(self, bins):
        values = [np.zeros(0) if v is None else np.asarray(v, dtype=float)
                  for v in bins.values]  # fmt: skip
        edges = [np.asarray(e, dtype=float) for e in bins.edges]
        self.by_value = np.array([v is not None for v in bins.values], dtype=bool)
        self.n_values = np.array([len(v) for v in values], dtype=np.intp)
        self.value_start = np.concatenate([[0], np.cumsum(self.n_values)[:-1]]).astype(np.intp)
        self.edge_start = np.concatenate(
            [[0], np.cumsum([len(e) for e in edges])[:-1]]
        ).astype(np.intp)
        self.values = np.concatenate([*values, [0.0]])
        self.edges = np.concatenate([*edges, [0.0]])

    def bin_values(self, bin_index: np.ndarray, default: float) -> np.ndarray:
        """``bins.values[j][clip(bin_index[:, j], 0, top)]`` for each feature ``j`` with
        values (``(c, d)``), ``default`` for the others (quantile bins, or none)."""
        top = np.maximum(self.n_values - 1, 0)
        at = self.value_start + np.clip(bin_index, 0, top)
        return np.where(self.n_values > 0, self.values[at], default)
