"""The histogram search (``splitter="hist"``): binned rows and per-bin sums, level by level.

Two pieces for :func:`grow_tree_levelwise`: :class:`BinnedRows`, the rows
object of a histogram fit (the binned codes of the numerical features, and
the level's rows node by node in index order, partitioned as
:class:`~climbing_trees._levelwise._orders.Orders` partitions its orders), and
:class:`Histograms`, the search.  Each level the search sums, for every node
that may split, its statistics per (feature, bin) as exact integers
(:mod:`climbing_trees._histograms`); of two siblings only the smaller one is
summed from its rows, the other is the parent's histogram minus it.  It then
scans the bins in order, candidates and tie rule as the exact search's
(:mod:`climbing_trees._missing`, :mod:`climbing_trees._ties`): a candidate
after each non-empty bin, missing rows right, then (where the node has any)
left; the first within the tie tolerance of the best wins, by feature, then
missing right before left, then bin.  The gains are
:func:`~climbing_trees._levelwise._gains._block_gains`' own, on the bins'
prefix sums (converted back to floats).

Thresholds: where a feature has one bin per value
(:func:`climbing_trees._binning.fit_bins`), the split after bin ``b`` gets the
exact splitter's threshold, :func:`~climbing_trees._ties.midpoint_threshold`
of ``b``'s value and the next non-empty bin's value in the node; elsewhere
the bin's upper edge (``x <= edge`` exactly when the code is ``<= b``).
So where every feature has at most ``max_bins`` distinct values, and the
fixed point holds the statistics exactly (:mod:`climbing_trees._histograms`),
the tree is the exact splitter's.
"""

from __future__ import annotations

import dataclasses
from contextvars import ContextVar

import numpy as np

from .._binning import Bins, fit_bins
from .._criteria import (
    CLASSIFICATION_CRITERIA,
    n_outputs,
    output_mean,
    output_widths,
)
from .._histograms import (
    fixed_point_exponent,
    from_fixed_point,
    node_histograms,
    sibling_histograms,
    to_fixed_point,
)
from .._missing import candidate_bounds, missing_goes_left
from .._ties import (
    choose_best_gains,
    constant_features,
    gain_tolerance,
    leaf_weight,
    midpoint_threshold,
)
from ._gains import _block_gains, _sum_last, _Totals
from ._histogram_kernels import _partition_index, _squared_scan, _squared_summaries
from ._searches import CategoricalSets, NumericalSearch
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

    def index_rows(self, m: int) -> np.ndarray:
        """The level's ``m`` rows, node by node, in index order."""
        return self.index[0, :m]

    def histograms(self, level: Level, stats, width: int, parent_hist) -> np.ndarray:
        """The level's histograms (:meth:`Histograms.level_histograms`): every node's
        at the root, then the smaller child of each pair summed, the other subtracted."""
        if parent_hist is None or level.depth == 0:
            return node_histograms(
                self.codes, level.index_rows, level.starts, level.sizes,
                np.arange(level.n_nodes), stats, width,
            )  # fmt: skip
        parents = np.flatnonzero(self.last_split)
        return sibling_histograms(
            self.codes, level.index_rows, level.starts, level.sizes, stats, parent_hist, parents
        )

    def partition(self, kept_rows, kept_node, go_left, sizes, split) -> np.ndarray:
        """Move the split nodes' rows into their children: :func:`_partition`'s order
        (left children in their parents' order, then right children; stable), one pass."""
        self.last_split = split
        n_left = np.bincount(kept_node, weights=go_left, minlength=sizes.size)[split]
        n_left = n_left.astype(np.intp)
        child_sizes = np.concatenate([n_left, sizes[split] - n_left])
        _partition_index(self.index[0], int(sizes.sum()), kept_rows, go_left, int(n_left.sum()))
        return child_sizes


def row_index(n: int) -> np.ndarray:
    """Rows ``0 .. n - 1`` in index order, then the padding row ``n``: shape (1, n + 1)."""
    row_dtype = np.int32 if n < np.iinfo(np.int32).max else np.intp
    index = np.empty((1, n + 1), dtype=row_dtype)
    index[0, :n] = np.arange(n)
    index[0, n] = n
    return index


def _numerical_columns(fit: FitData) -> np.ndarray:
    """``fit.X``'s numerical columns: ``X`` itself (no copy) when every column is one."""
    if np.array_equal(fit.num_features, np.arange(fit.d)):
        return fit.X
    return fit.X[:, fit.num_features]


def binned_rows(fit: FitData, max_bins: int, random_state) -> BinnedRows:
    """Bin ``fit``'s numerical features (:func:`fit_bins`) into a :class:`BinnedRows`."""
    X_num = _numerical_columns(fit)
    return BinnedRows(fit, fit_bins(X_num, max_bins, random_state), X_num)


class _Columns:
    """The fit's per-row statistics as int64 fixed point, and how to read their sums.

    Columns (after the row count, which the histogram keeps itself):
    classification: each class's weight (unit weights and one output: its
    indicator); squared error: the weight (unless unit) and each output's
    weighted target less the root's mean ``centre`` (so sums stay small);
    Poisson: the weight (unless unit), each output's ``w y``, ``w y log y`` and
    positive-target indicator.  One exponent per column (:func:`fixed_point_exponent`).
    """

    def __init__(self, fit: FitData):
        criterion, Y, w = fit.criterion, fit.Y, fit.w
        self.criterion, self.unit = criterion, fit.unit
        columns = []  # (float values, exponent or None for integers)
        if criterion in CLASSIFICATION_CRITERIA:
            weighted = Y * w[:, None]
            k = 0 if fit.unit else fixed_point_exponent(weighted)
            columns = [(weighted[:, c], k) for c in range(Y.shape[1])]
            self.kind = "class"
        else:
            k_out = n_outputs(criterion)
            y = Y[:, :k_out]
            if not fit.unit:
                columns.append((w, fixed_point_exponent(w)))
            if criterion == "squared_error":
                self.centre = (w @ y) / w.sum() if w.sum() > 0 else np.zeros(k_out)
                for o in range(k_out):
                    v = w * (y[:, o] - self.centre[o])
                    columns.append((v, fixed_point_exponent(v)))
                self.kind = "squared"
            else:  # Poisson
                with np.errstate(divide="ignore", invalid="ignore"):
                    ylogy = np.where(y > 0, y * np.log(np.where(y > 0, y, 1.0)), 0.0)
                for block in (w[:, None] * y, w[:, None] * ylogy):
                    for o in range(k_out):
                        columns.append((block[:, o], fixed_point_exponent(block[:, o])))
                positive = ((y > 0) & (w[:, None] > 0)).astype(np.int64)
                for o in range(k_out):
                    columns.append((positive[:, o], 0))
                self.kind = "poisson"
            self.k_out = k_out
        self.exponents = [k for _, k in columns]
        stats = np.empty((fit.n, len(columns)), dtype=np.int64)
        for c, (values, k) in enumerate(columns):
            stats[:, c] = to_fixed_point(values, k)
        self.stats = stats

    def layout(self, sums: np.ndarray, totals: np.ndarray) -> list:
        """Float sums in the layout of the level's node statistics (last axis: columns).

        ``sums`` (..., 1 + columns) int64, ``totals`` the node's own (broadcast
        against ``sums``): squared error centres each output's sum at the
        node's mean, ``S - (S_node / W_node) W``.  The squares are not summed
        (``None``): the scan does not read them.
        """
        floats = [from_fixed_point(sums[..., 1 + c], k) for c, k in enumerate(self.exponents)]
        count = sums[..., 0].astype(float)
        if self.kind == "class":
            return floats
        weight = count if self.unit else floats[0]
        rest = floats if self.unit else floats[1:]
        if self.kind == "poisson":
            return [weight, *rest]
        node = self.layout_totals(totals)
        centred = []
        for o, s in enumerate(rest):
            mean = node[1 + o] / node[0]
            centred.append(s - mean * weight)
        return [weight, *centred] + [None] * self.k_out

    def layout_totals(self, totals: np.ndarray) -> list:
        """The node totals' floats (uncentred), in the layout of :meth:`layout`."""
        floats = [from_fixed_point(totals[..., 1 + c], k) for c, k in enumerate(self.exponents)]
        if self.kind == "class":
            return floats
        weight = totals[..., 0].astype(float) if self.unit else floats[0]
        return [weight, *(floats if self.unit else floats[1:])]


class Histograms(NumericalSearch):
    """Every bin boundary of every numerical feature, scored from exact integer histograms.

    Keeps the histograms of the level it searched, so that the next level's
    larger children are their parents' minus their smaller siblings.
    """

    def __init__(self, fit: FitData, rows: BinnedRows):
        super().__init__(fit, rows)
        self.columns = _Columns(fit)
        bins = rows.bins
        # Bins of present values: codes 0 .. width - 2; missing: the last column.
        self.width = bins.missing_bin + 1
        self.hist = None  # the last level's histograms, one per node (None: not kept)

    def level_histograms(self, level: Level) -> np.ndarray:
        """Every node's histogram (nodes that need none: zeros), summed or subtracted."""
        # Hook: the rows object sums them (BinnedRows in memory, a Dask fit's rows
        # on its workers: climbing_trees._dask).
        self.hist = self.orders.histograms(level, self.columns.stats, self.width, self.hist)
        return self.hist

    def winners(self, level: Level, splits: LevelSplits) -> LevelSplits:
        fit = self.fit
        hist = self.level_histograms(level)
        draws = level.draws
        nodes = np.flatnonzero(level.searchable)
        if draws is not None:
            nodes = nodes[draws.num_mask[nodes].any(axis=1)]
        if not nodes.size:
            return splits
        criterion, k_out = fit.criterion, n_outputs(fit.criterion)
        w_t = self.node_weights(hist, nodes)
        const = 0.0
        if criterion == "gini":
            const = w_t
        elif criterion == "squared_error":
            squares = [s for s in level.node_stats[nodes].T[1 + k_out :]]
            const = output_mean(_sum_last(squares), criterion)
        tie = (const, w_t, level.impurity[nodes])
        searched = ~self.constant(hist, nodes)  # rule 6 of _ties
        if draws is not None:
            searched &= draws.num_mask[nodes]
        if criterion == "squared_error" and k_out == 1:
            best, first = self.squared_choice(hist, nodes, searched, tie)
        else:
            gains = self.gains(hist[nodes], level, nodes)
            gains[~searched] = -np.inf
            best, first = choose_best_gains(gains.reshape(nodes.size, -1), *tie)
        d, B = hist.shape[1], hist.shape[2] - 1
        j, side, b = np.unravel_index(first, (d, 2, B))
        # The winners' features: their counts by bin, present and missing.
        counts = hist[nodes, j, :, 0]  # (c, B + 1)
        nonempty = counts[:, :-1] > 0
        block = np.arange(nodes.size)
        count = np.cumsum(counts[:, :-1], axis=1)
        n_p, nm = count[:, -1], counts[:, -1]
        n_b = count[block, b]
        goes_left = side.astype(bool)
        n_left = n_b + np.where(goes_left, nm, 0)
        threshold = self.thresholds(j, b, nonempty, n_b == n_p)
        score = (const - best) / w_t  # the gain's score (gain_tolerance's relation)
        direction = missing_goes_left(nm, goes_left, n_left, level.sizes[nodes])
        found = np.isfinite(best)
        at = nodes[found]
        splits.feature[at] = j[found]
        splits.threshold[at] = threshold[found]
        splits.score[at] = score[found]
        splits.missing_left[at] = direction[found]
        return splits

    def node_weights(self, hist, nodes) -> np.ndarray:
        """Each node's weight from its histogram (feature 0's bins, missing included)."""
        totals = hist[nodes, 0].sum(axis=1)  # (c, 1 + columns)
        layout = self.columns.layout_totals(totals)
        if self.columns.kind == "class":
            first_width = output_widths(self.fit.criterion, len(layout))[0]
            return _sum_last(layout[:first_width])
        return layout[0]

    def constant(self, hist, nodes) -> np.ndarray:
        """The (node, feature) pairs that are constant at the node, ``(c, d)``.

        Rule 6 of :mod:`climbing_trees._ties` (:func:`constant_features`): no
        present value, or a range within ``FEATURE_THRESHOLD`` and none
        missing.  The range is read from the values of the node's first and
        last non-empty bins where each bin holds one value (then it is the
        exact splitter's range); a feature binned by quantiles knows its
        node's range only to the bins, and counts as constant only without a
        present value (one non-empty bin has no candidate anyway).
        """
        counts = hist[nodes, :, :, 0]  # (c, d, B + 1)
        present, missing = counts[:, :, :-1] > 0, counts[:, :, -1] > 0
        B = present.shape[2]
        first = np.argmax(present, axis=2)
        last = B - 1 - np.argmax(present[:, :, ::-1], axis=2)
        lo, hi = np.zeros(first.shape), np.ones(first.shape)  # quantile bins: wide
        for j, values in enumerate(self.orders.bins.values):
            if values is not None and len(values):  # none: no present value (NaN below)
                top = len(values) - 1
                lo[:, j] = values[np.minimum(first[:, j], top)]
                hi[:, j] = values[np.minimum(last[:, j], top)]
        lo[~present.any(axis=2)] = np.nan
        return constant_features(lo, hi, missing)

    def squared_choice(self, hist, nodes, drawn, tie):
        """Squared error, one output: :meth:`gains`' numbers and choice, compiled.

        The same operations in the same order (:func:`_squared_gain`), without
        the level's arrays of every candidate: one pass finds each node's best
        gain, a second its first candidate within the tie tolerance.  ``drawn``:
        the (node, feature) pairs searched."""
        fit, columns = self.fit, self.columns
        exponents = columns.exponents
        k_w = -1 if fit.unit else exponents[0]
        k_s = exponents[-1]
        msl = fit.min_samples_leaf
        low = leaf_weight(msl)
        best = _squared_scan(hist, nodes, drawn, int(msl), low, k_w, k_s, None)
        tol = np.zeros(nodes.size)
        finite = np.isfinite(best)
        if finite.any():
            const, w_t, impurity = tie
            tol[finite] = gain_tolerance(best[finite], const if np.ndim(const) == 0
                                         else const[finite], w_t[finite],
                                         impurity[finite])  # fmt: skip
        first = _squared_scan(hist, nodes, drawn, int(msl), low, k_w, k_s, best - tol)
        return best, first.astype(np.intp)

    def gains(self, H, level: Level, nodes) -> np.ndarray:
        """Every candidate's gain, ``(c, d, passes, B)`` (by feature, side, bin), ``-inf``
        where refused: :func:`_block_gains` on the bins' prefix sums."""
        fit, columns = self.fit, self.columns
        criterion, msl = fit.criterion, fit.min_samples_leaf
        present, missing = H[:, :, :-1], H[:, :, -1]
        cum = np.cumsum(present, axis=2)  # exact: integers
        node_totals = cum[:, 0, -1] + missing[:, 0]  # (c, 1 + columns), any feature
        count = cum[..., 0]  # (c, d, B)
        n_present = count[:, :, -1:]
        n_missing = missing[:, :, None, 0]
        nonempty = present[..., 0] > 0
        position = count - 1
        # Node statistics: from the histograms (so each side's weight is a
        # difference of exact sums), squares from the level (the tie constant).
        totals_b = node_totals[:, None, None, :]
        total_layout = columns.layout_totals(node_totals)
        stats_cols = list(level.node_stats[nodes].T)
        for c, part in enumerate(total_layout):
            stats_cols[c] = part
        if columns.kind == "squared":
            for o in range(columns.k_out):
                stats_cols[1 + o] = np.zeros(nodes.size)  # centred at the node's mean
        stats = np.stack(stats_cols)[:, :, None, None]
        regression = criterion not in CLASSIFICATION_CRITERIA
        first_width = output_widths(criterion, len(stats))[0]
        w_node = stats[0] if regression else _sum_last(list(stats[:first_width]))
        k_out = n_outputs(criterion)
        if criterion == "poisson":
            scan = slice(1, None)
        elif regression:
            scan = slice(1, 1 + k_out)
        else:
            scan = slice(0, -1) if fit.unit else slice(None)
        totals = _Totals(None, scan, fit.unit, stats, w_node, criterion, msl)
        weighted = regression and not fit.unit
        left_layout = columns.layout(cum, totals_b)
        prefix = (left_layout[scan], left_layout[0] if weighted else None)
        passes = []
        for goes_left in (False, True):
            lo, hi = candidate_bounds(n_present, n_missing, msl, goes_left)
            allowed = nonempty & (position >= lo) & (position <= hi)
            penalty = np.where(allowed, 0.0, -np.inf)
            with np.errstate(invalid="ignore", divide="ignore"):
                if not goes_left:
                    gains = _block_gains(prefix, position, totals, penalty)
                else:
                    extra = columns.layout(missing[:, :, None, :], totals_b)
                    gains = _block_gains(prefix, position, totals, penalty, extra, n_missing)
            gains[~allowed] = -np.inf
            passes.append(gains)
        return np.stack(passes, axis=2)

    def thresholds(self, j, b, nonempty, last) -> np.ndarray:
        """Each winner's threshold: after bin ``b`` of feature ``j`` (``nonempty``: the
        node's non-empty bins of ``j``; ``last``: ``b`` holds the last present rows)."""
        bins = self.orders.bins
        out = np.empty(j.size)
        B = nonempty.shape[1]
        after = np.arange(B)[None, :] > b[:, None]
        upper = np.argmax(nonempty & after, axis=1)  # the next non-empty bin
        for t in range(j.size):
            feature = int(j[t])
            if last[t]:  # present left, missing right
                out[t] = np.inf
            elif bins.values[feature] is not None:
                values = bins.values[feature]
                out[t] = midpoint_threshold(values[b[t]], values[upper[t]])
            else:
                out[t] = bins.edges[feature][b[t]]
        return out


def histogram_searches(fit: FitData, max_bins: int, random_state) -> tuple:
    """The fit, rows object and searches of a histogram fit (:class:`Histograms`).

    Squared error's level summaries come from :func:`_squared_summaries` (the
    same sums in the same order as the exact fit's, compiled, without the
    per-row statistics that only the exact search reads).  Categorical features
    are searched as with ``splitter="best"``, from the level's rows
    (:class:`~climbing_trees._levelwise._searches.CategoricalSets`): not binned."""
    if fit.absolute or fit.random_splitter:
        raise ValueError(
            "splitter='hist' scores criteria with sufficient statistics (gini, entropy, "
            "log_loss, squared_error, poisson); use splitter='best' for this criterion."
        )
    if fit.criterion == "squared_error" and not fit.cat_features.size:
        fit = dataclasses.replace(fit, summaries=_squared_summaries)
    # Hook: where the binned rows come from (a Dask fit sets ROWS_SOURCE to its own).
    rows = (ROWS_SOURCE.get() or binned_rows)(fit, max_bins, random_state)
    searches = [Histograms(fit, rows)] if fit.num_features.size else []
    if fit.cat_features.size:  # from the level's rows, as with splitter="best"
        searches.append(CategoricalSets(fit, rows))
    return fit, rows, searches
