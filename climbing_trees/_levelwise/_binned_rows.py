"""The rows object of a histogram fit (``splitter="hist"``): binned codes, each node's rows.

:class:`BinnedRows` holds the binned codes of the numerical features and the
level's rows node by node in index order; it sums the histograms the
search's plan asks for (:meth:`BinnedRows.built_histograms`) and partitions
the rows.  :data:`ROWS_SOURCE` lets another rows object stand in for it for
one fit (a Dask fit's, whose codes live on its workers:
:mod:`climbing_trees._dask`).
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import NamedTuple

import numpy as np

from .._binning import Bins, fit_bins
from .._histograms import sum_histograms
from ._histogram_kernels import _partition_index, _route_partition, _route_rows
from ._state import FitData, Level, LevelSplits

#: Makes a histogram fit's rows object, ``(fit, max_bins, random_state) -> rows``:
#: None for :func:`binned_rows` (in memory); a Dask fit's rows live on its workers
#: (:mod:`climbing_trees._dask` sets it for the length of one fit).
ROWS_SOURCE: ContextVar = ContextVar("ROWS_SOURCE", default=None)


class BinnedRows:
    """The rows of a histogram fit: codes of the numerical features, and each node's rows.

    ``codes`` (n, d_num), uint8 (uint16 above 255 bins), C order: a row's
    codes side by side, as the histogram kernel reads them.  The level's rows
    are kept node by node in index order (one order, not one per feature:
    nothing is sorted), the padding row ``n`` after them.  ``last_split``:
    the nodes of the level just partitioned that split (the search pairs the
    next level's children with their parents' histograms by it).
    """

    rows = None  # no sorted orders: the random draws read each node's rows
    local_codes = True  # the codes are here: small nodes can be searched from their rows

    def __init__(self, fit: FitData, bins: Bins, X_num: np.ndarray | None = None):
        n = fit.n
        if X_num is None:
            X_num = _numerical_columns(fit)
        self.bins = bins
        self.codes = bins.codes(X_num)
        # Present values' codes stay below missing_bin: that code is NaN's only.
        self.has_missing = (self.codes == bins.missing_bin).any(axis=0)
        self.index = row_index(n)
        self.last_split = None
        self.fit = fit
        # Each column of X: its place among the numerical features (-1: categorical).
        self.num_position = np.full(fit.d, -1, dtype=np.intp)
        self.num_position[fit.num_features] = np.arange(fit.num_features.size)

    def index_rows(self, m: int) -> np.ndarray:
        """The level's ``m`` rows, node by node, in index order."""
        return self.index[0, :m]

    def built_histograms(self, level: Level, nodes: np.ndarray, stats, out) -> None:
        """Sum the histograms of ``nodes`` from their rows into ``out`` (one row each):
        :meth:`Histograms.built_histograms`, which of them the plan decides."""
        sum_histograms(self.codes, level.index_rows, level.starts, level.sizes, nodes,
                       stats, out)  # fmt: skip

    def routes(self, level: Level, made: LevelSplits, split: np.ndarray):
        """Where the split nodes' rows go, as :meth:`partition` reads it: the loop's
        ``_routes`` (rows, nodes, sides) for categorical splits, else a
        :class:`CodeRoutes` and two None (:meth:`partition` routes the rows from
        the codes as it moves them; :meth:`routed` lists them as ``_routes`` does).

        Each split ``x <= t`` is ``code <= c`` on the feature's codes
        (:meth:`~climbing_trees._binning.Bins.code_cuts`), so the rows go where
        ``_routes`` sends them.  Categorical splits (sets) go through ``_routes``.
        """
        fit = self.fit
        nodes = np.flatnonzero(split)
        column = self.num_position[made.feature[nodes]]
        cut = np.zeros(nodes.size, dtype=np.intp)
        for j in np.unique(column):
            here = column == j
            cuts = None if j < 0 else self.bins.code_cuts(j, made.threshold[nodes[here]])
            if cuts is None:  # a categorical split (sets): the loop's own routes
                from ._grow import _routes  # here: _grow imports this module

                return _routes(fit, level, made, split)
            cut[here] = cuts
        per_node = np.zeros((2, split.size), dtype=np.intp)
        per_node[:, nodes] = column, cut
        return CodeRoutes(level.starts, level.sizes, per_node[0], per_node[1],
                          made.missing_left), None, None  # fmt: skip

    def routed(self, routes: CodeRoutes, split: np.ndarray):
        """The rows, nodes and sides of ``routes`` (compiled: :func:`_route_rows`), as
        ``_routes`` lists them; before :meth:`partition` moves the rows."""
        m = int(routes.starts[-1] + routes.sizes[-1])
        return _route_rows(
            self.index[0, :m], routes.starts, routes.sizes, split, routes.column,
            routes.cut, routes.missing_left, self.codes, self.bins.missing_bin,
        )  # fmt: skip

    def partition(self, kept_rows, kept_node, go_left, sizes, split) -> np.ndarray:
        """Move the split nodes' rows into their children: :func:`_partition`'s order
        (left children in their parents' order, then right children; stable), one pass.
        ``kept_rows``: the split nodes' rows in index order, as ``_routes`` lists them,
        or a :class:`CodeRoutes` (:meth:`routes`): then the rows are routed from
        their codes in the same pass (:func:`_route_partition`)."""
        self.last_split = split
        if isinstance(kept_rows, CodeRoutes):
            r = kept_rows
            n_left = _route_partition(
                self.index[0], r.starts, r.sizes, split, r.column, r.cut, r.missing_left,
                self.codes, self.bins.missing_bin,
            )  # fmt: skip
        else:
            n_left = _partition_index(self.index[0], kept_rows, kept_node, go_left, sizes.size)
        n_left = n_left[split]
        return np.concatenate([n_left, sizes[split] - n_left])


class CodeRoutes(NamedTuple):
    """How a level's numerical splits send rows, node by node: the feature's column
    among the codes and the last code that goes left (:meth:`BinnedRows.routes`),
    and the side of missing values; ``starts``, ``sizes``: the level's nodes."""

    starts: np.ndarray
    sizes: np.ndarray
    column: np.ndarray
    cut: np.ndarray
    missing_left: np.ndarray


def row_index(n: int) -> np.ndarray:
    """Rows ``0 .. n - 1`` in index order, then the padding row ``n``: shape (1, n + 1)."""
    row_dtype = np.int32 if n < np.iinfo(np.int32).max else np.intp
    return np.arange(n + 1, dtype=row_dtype).reshape(1, n + 1)  # no int64 temporary


def _numerical_columns(fit: FitData) -> np.ndarray:
    """``fit.X``'s numerical columns: ``X`` itself (no copy) when every column is one."""
    if np.array_equal(fit.num_features, np.arange(fit.d)):
        return fit.X
    return fit.X[:, fit.num_features]


def binned_rows(fit: FitData, max_bins: int, random_state) -> BinnedRows:
    """Bin ``fit``'s numerical features (:func:`fit_bins`) into a :class:`BinnedRows`."""
    X_num = _numerical_columns(fit)
    return BinnedRows(fit, fit_bins(X_num, max_bins, random_state), X_num)
