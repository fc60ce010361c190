"""The histogram search (``splitter="hist"``): binned rows and per-bin sums, level by level.

Two pieces for :func:`grow_tree_levelwise`: :class:`BinnedRows`
(:mod:`~climbing_trees._levelwise._binned_rows`), the rows object of a
histogram fit (the binned codes of the numerical features, and
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
prefix sums (converted back to floats); squared error with one output scans
them compiled (:func:`_squared_scan`, the same numbers), and classification
is scanned compiled as :func:`climbing_trees.grow_tree_compiled` chooses
(:func:`_class_scan`: its gains, near list and ``children_score``).

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

import numpy as np

from .._binning import FlatBins
from .._compiled._scores import CRITERION_CODES
from .._criteria import (
    CLASSIFICATION_CRITERIA,
    _xlogy,
    n_outputs,
    output_mean,
    output_widths,
)
from .._histograms import (
    compact_histograms,
    fixed_point_exponent,
    from_fixed_point,
    subtract_siblings,
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
from . import _histogram_plan as plans
from ._binned_rows import ROWS_SOURCE, BinnedRows, binned_rows
from ._gains import _block_gains, _sum_last, _Totals
from ._histogram_kernels import _class_scan, _present_span, _squared_scan, _squared_summaries
from ._searches import CategoricalSets, NumericalSearch
from ._state import FitData, Level, LevelSplits

#: Rows converted to fixed point at a time (:class:`_Columns`).
CHUNK_ROWS = 1 << 16


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
                # w @ y from an array (unit weights may arrive as a view of one
                # value, which numpy would sum in another order).
                dense = np.ascontiguousarray(w)
                self.centre = (dense @ y) / w.sum() if w.sum() > 0 else np.zeros(k_out)
                del dense
                for o in range(k_out):
                    v = y[:, o] - self.centre[o]
                    v *= w  # w * (y - centre), one array
                    columns.append((v, fixed_point_exponent(v)))
                self.kind = "squared"
            else:  # Poisson
                ylogy = _xlogy(y, y)  # node_statistics' y log y
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
            for start in range(0, fit.n, CHUNK_ROWS):  # no temporaries of n rows
                stop = start + CHUNK_ROWS
                stats[start:stop, c] = to_fixed_point(values[start:stop], k)
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

    Per level (:meth:`winners`): which nodes get built histograms
    (:func:`~._histogram_plan.plan_histograms`), their sums from rows (:meth:`built_histograms`),
    the siblings by subtraction (:meth:`level_histograms`,
    :func:`subtract_siblings`), then the search (:meth:`search_block`) of the
    large nodes from their histograms and of the small ones from their rows
    (:func:`compact_histograms`).  The level's histograms are kept for the
    next level's subtractions only while the next level may split (else they
    are made and searched a part at a time), and the parents' are dropped as
    soon as the level's are made.
    """

    def __init__(self, fit: FitData, rows: BinnedRows, row_search_max: int | None = None,
                 columns: _Columns | None = None):  # fmt: skip
        super().__init__(fit, rows)
        self.columns = _Columns(fit) if columns is None else columns
        bins = rows.bins
        # Bins of present values: codes 0 .. width - 2; missing: the last column.
        self.width = bins.missing_bin + 1
        self.row_search_max = plans.ROW_SEARCH_MAX if row_search_max is None else row_search_max
        if not rows.local_codes:  # no rows here to search from: every node from its bins
            self.row_search_max = 0  # (the same tree: any choice gives the same sums)
        self.d = len(bins.edges)  # binned (numerical) features
        self.hist = None  # the last level's block of histograms (None: not kept)
        self.slot = None  # each node of the last level: its row in self.hist, -1 none
        self.flat = FlatBins(bins)

    def searched(self, level: Level) -> np.ndarray:
        """The nodes the search tries: may split, and (random draws) drew a numerical feature."""
        searched = level.searchable.copy()
        if level.draws is not None:
            searched &= level.draws.num_mask.any(axis=1)
        return searched

    def parent_slots(self, level: Level) -> np.ndarray:
        """Each node's parent's row in the kept block (-1: none kept, or the root)."""
        if self.hist is None or level.depth == 0:
            return np.full(level.n_nodes, -1, dtype=np.intp)
        parents = np.flatnonzero(self.orders.last_split)  # left children, then right
        return np.tile(self.slot[parents], 2)

    def built_histograms(self, level: Level, nodes: np.ndarray, out: np.ndarray) -> None:
        """Sum the histograms of ``nodes`` from their rows into ``out`` (one row each)."""
        # Hook: the rows object sums them (BinnedRows in memory, a Dask fit's rows
        # on its workers: climbing_trees._dask).
        self.orders.built_histograms(level, nodes, self.columns.stats, out)

    def level_histograms(self, level: Level, plan: plans.HistogramPlan) -> np.ndarray:
        """The block of ``plan``'s histograms (rows: :meth:`HistogramPlan.slots`): the
        summed ones from rows, then the derived ones from the parents' block."""
        n_summed = plan.summed.size
        shape = (n_summed + plan.derived.size, self.d, self.width,
                 self.columns.stats.shape[1] + 1)  # fmt: skip
        hist = np.empty(shape, dtype=np.int64)
        self.built_histograms(level, plan.summed, hist[:n_summed])
        if plan.derived.size:
            slot = plan.slots()
            subtract_siblings(self.hist, plan.parent_slot, hist, slot[plan.sibling],
                              slot[plan.derived])  # fmt: skip
        return hist

    def winners(self, level: Level, splits: LevelSplits) -> LevelSplits:
        plan = plans.plan_histograms(level.sizes, self.searched(level), self.parent_slots(level),
                               self.row_search_max, self.width)  # fmt: skip
        d = self.d
        per_block = plans.SEARCH_CELLS // (d * self.width)
        keep = level.depth + 1 < self.fit.depth_limit  # the next level may split
        parts = [plan] if keep else [plan.part(nodes) for nodes in plans.pairs(level, per_block)]
        for part in parts:
            hist = self.level_histograms(level, part)
            slot = part.slots()
            for nodes in plans.chunks(part.dense, per_block):
                self.search_block(level, hist, slot[nodes], nodes, None, splits)
        self.hist, self.slot = (hist, slot) if keep else (None, None)  # parents dropped
        del hist, parts
        for nodes in self.compact_blocks(level, plan.compact):
            width = int(level.sizes[nodes].max()) + 1  # more than a node's present codes
            block, bin_code = compact_histograms(
                self.orders.codes, level.index_rows, level.starts, level.sizes, nodes,
                self.columns.stats, self.orders.bins.missing_bin, width,
            )  # fmt: skip
            self.search_block(level, block, np.arange(nodes.size), nodes, bin_code, splits)
        return splits

    def compact_blocks(self, level: Level, nodes: np.ndarray) -> list:
        """``nodes`` (searched from their rows) in blocks of sizes within a factor of two
        of each other (little padding), of at most about ``SEARCH_CELLS`` cells each."""
        if not nodes.size:
            return []
        sizes = level.sizes[nodes]
        size_class = np.frexp(sizes.astype(float))[1]  # 2**(e-1) <= size < 2**e
        order = np.argsort(size_class, kind="stable")
        nodes, sizes, size_class = nodes[order], sizes[order], size_class[order]
        cells = 2.0**size_class * self.d  # per node, padded
        part = np.zeros(nodes.size, dtype=np.int64)
        for e in np.unique(size_class):  # a few size classes
            here = size_class == e
            part[here] = (np.cumsum(cells[here]) - 1) // plans.SEARCH_CELLS
        key = size_class.astype(np.int64) * (nodes.size + 1) + part
        cuts = np.flatnonzero(np.diff(key)) + 1
        return np.split(nodes, cuts)

    def search_block(self, level: Level, hist, at, nodes, bin_code, splits: LevelSplits):
        """Write the winners of ``nodes`` into ``splits``: node ``nodes[i]``'s histogram is
        ``hist[at[i]]``, its column ``b`` the bin ``bin_code[i, j, b]`` of feature ``j``
        (``bin_code`` None: column ``b`` is bin ``b``)."""
        fit = self.fit
        draws = level.draws
        criterion, k_out = fit.criterion, n_outputs(fit.criterion)
        w_t = self.node_weights(hist, at)
        const = 0.0
        if criterion == "gini":
            const = w_t
        elif criterion == "squared_error":
            squares = [s for s in level.node_stats[nodes].T[1 + k_out :]]
            const = output_mean(_sum_last(squares), criterion)
        tie = (const, w_t, level.impurity[nodes])
        searched = ~self.constant(hist, at, bin_code)  # rule 6 of _ties
        if draws is not None:
            searched &= draws.num_mask[nodes]
        if criterion == "squared_error" and k_out == 1:
            best, first = self.squared_choice(hist, at, searched, tie)
        elif self.columns.kind == "class":
            score, first = self.class_choice(hist, at, searched, level.impurity[nodes])
            best = np.where(np.isfinite(score), score, -np.inf)  # found: finite
        else:
            gains = self.gains(hist[at], level, nodes)
            gains[~searched] = -np.inf
            best, first = choose_best_gains(gains.reshape(nodes.size, -1), *tie)
        if self.columns.kind != "class":
            score = (const - best) / w_t  # the gain's score (gain_tolerance's relation)
        d, B = hist.shape[1], hist.shape[2] - 1
        j, side, b = np.unravel_index(first, (d, 2, B))
        # The winners' features: their counts by bin, present and missing.
        counts = hist[at, j, :, 0]  # (c, B + 1)
        nonempty = counts[:, :-1] > 0
        block = np.arange(nodes.size)
        count = np.cumsum(counts[:, :-1], axis=1)
        n_p, nm = count[:, -1], counts[:, -1]
        n_b = count[block, b]
        goes_left = side.astype(bool)
        n_left = n_b + np.where(goes_left, nm, 0)
        after = np.arange(B)[None, :] > b[:, None]
        upper = np.argmax(nonempty & after, axis=1)  # the next non-empty bin
        if bin_code is not None:
            b, upper = bin_code[block, j, b], bin_code[block, j, upper]
        direction = missing_goes_left(nm, goes_left, n_left, level.sizes[nodes])
        found = np.isfinite(best)
        at_found = nodes[found]
        splits.feature[at_found] = j[found]
        splits.threshold[at_found] = self.thresholds(
            j[found], b[found], upper[found], (n_b == n_p)[found]
        )
        splits.score[at_found] = score[found]
        splits.missing_left[at_found] = direction[found]

    def node_weights(self, hist, at) -> np.ndarray:
        """Each node's weight from its histogram ``hist[at[i]]`` (feature 0's bins,
        missing included)."""
        totals = hist[at, 0].sum(axis=1)  # (c, 1 + columns)
        layout = self.columns.layout_totals(totals)
        if self.columns.kind == "class":
            first_width = output_widths(self.fit.criterion, len(layout))[0]
            return _sum_last(layout[:first_width])
        return layout[0]

    def constant(self, hist, at, bin_code=None) -> np.ndarray:
        """The (node, feature) pairs that are constant at the node, ``(c, d)``.

        Rule 6 of :mod:`climbing_trees._ties` (:func:`constant_features`): no
        present value, or a range within ``FEATURE_THRESHOLD`` and none
        missing.  The range is read from the values of the node's first and
        last non-empty bins where each bin holds one value (then it is the
        exact splitter's range); a feature binned by quantiles knows its
        node's range only to the bins, and counts as constant only without a
        present value (one non-empty bin has no candidate anyway).  ``hist[at[i]]``
        and ``bin_code``: as in :meth:`search_block`.
        """
        first, last, present, missing = _present_span(hist, at)  # columns with rows
        if bin_code is not None:  # columns to bins (none present: -1, NaN below)
            first = np.take_along_axis(bin_code, first[..., None], axis=2)[..., 0]
            last = np.take_along_axis(bin_code, last[..., None], axis=2)[..., 0]
        # Quantile bins: wide (0, 1); one bin per value: the values of those bins.
        lo = self.flat.bin_values(first, 0.0)
        hi = self.flat.bin_values(last, 1.0)
        lo[~present] = np.nan  # no present value
        return constant_features(lo, hi, missing)

    def squared_choice(self, hist, at, drawn, tie):
        """Squared error, one output: :meth:`gains`' numbers and choice, compiled.

        The same operations in the same order (:func:`_squared_gain`), without
        the level's arrays of every candidate: one pass finds each node's best
        gain, a second its first candidate within the tie tolerance.  ``hist[at[i]]``:
        node ``i``'s histogram; ``drawn``: the (node, feature) pairs searched."""
        fit, columns = self.fit, self.columns
        exponents = columns.exponents
        k_w = -1 if fit.unit else exponents[0]
        k_s = exponents[-1]
        msl = fit.min_samples_leaf
        low = leaf_weight(msl)
        best = _squared_scan(hist, at, drawn, int(msl), low, k_w, k_s, None)
        tol = np.zeros(at.size)
        finite = np.isfinite(best)
        if finite.any():
            const, w_t, impurity = tie
            tol[finite] = gain_tolerance(best[finite], const if np.ndim(const) == 0
                                         else const[finite], w_t[finite],
                                         impurity[finite])  # fmt: skip
        first = _squared_scan(hist, at, drawn, int(msl), low, k_w, k_s, best - tol)
        return best, first.astype(np.intp)

    def class_choice(self, hist, at, drawn, reference):
        """Classification: each node's score and candidate (flat over feature, side, bin),
        chosen as the compiled exact builder chooses (:func:`_class_scan`).  ``hist[at[i]]``:
        node ``i``'s histogram; ``drawn``: the (node, feature) pairs searched;
        ``reference``: the nodes' impurities (the tie tolerance's)."""
        fit = self.fit
        criterion = fit.criterion
        widths = output_widths(criterion, hist.shape[3] - 1)
        offsets = np.concatenate([[0], np.cumsum(widths)]).astype(np.int64)
        return _class_scan(
            hist, at, drawn, int(self.columns.exponents[0]), offsets, n_outputs(criterion),
            CRITERION_CODES[str(criterion)], int(fit.min_samples_leaf),
            leaf_weight(fit.min_samples_leaf), np.ascontiguousarray(reference, dtype=float),
        )  # fmt: skip

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

    def thresholds(self, j, b, upper, last) -> np.ndarray:
        """Each winner's threshold: after bin ``b`` of feature ``j`` (``upper``: the node's
        next non-empty bin of ``j``; ``last``: ``b`` holds the last present rows)."""
        flat = self.flat
        out = np.full(j.size, np.inf)  # after the last present bin: present left, missing right
        at = np.flatnonzero(~last)
        j, b, upper = j[at], b[at], upper[at]
        by_value = flat.by_value[j]
        lower = flat.values[flat.value_start[j] + np.where(by_value, b, 0)]
        above = flat.values[flat.value_start[j] + np.where(by_value, upper, 0)]
        edge = flat.edges[flat.edge_start[j] + np.where(by_value, 0, b)]
        out[at] = np.where(by_value, midpoint_threshold(lower, above), edge)
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
        # Its level summaries and the histogram search read no node number or
        # weight by row (the random draws of max_features do).
        fit = dataclasses.replace(fit, summaries=_squared_summaries,
                                  level_rows=fit.random_splits is not None)  # fmt: skip
    # The statistics first: their temporaries are freed before the codes are made.
    columns = _Columns(fit) if fit.num_features.size else None
    # Hook: where the binned rows come from (a Dask fit sets ROWS_SOURCE to its own).
    rows = (ROWS_SOURCE.get() or binned_rows)(fit, max_bins, random_state)
    searches = [Histograms(fit, rows, columns=columns)] if fit.num_features.size else []
    if fit.cat_features.size:  # from the level's rows, as with splitter="best"
        searches.append(CategoricalSets(fit, rows))
    return fit, rows, searches
