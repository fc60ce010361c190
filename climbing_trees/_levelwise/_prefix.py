"""The search by segmented prefix sums over the sorted orders (numerical features)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .._criteria import (
    CLASSIFICATION_CRITERIA,
    n_outputs,
    output_mean,
    output_widths,
)
from .._missing import allowed_candidates, candidate_bounds, missing_goes_left
from .._ties import (
    choose_best_gains,
    first_within,
    gain_tolerance,
    midpoint_threshold,
)
from . import _orders
from ._bounds import refuse_monotonic
from ._gains import (
    _block_gains,
    _fixed_sides,
    _impurity,
    _prefix_sums,
    _refuse_constant,
    _refuse_equal,
    _run_gains,
    _store,
    _sum_last,
    _Totals,
)
from ._orders import _feature_reader, _size_classes


@dataclass
class _Scan:
    """What every block of a level's prefix-sum search reads: the fit's constants,
    set once (:func:`_scan_settings`), then each level's own fields (``replace``)."""

    fit: object  # FitData
    d: int
    values: object  # the reader of X's values (_feature_reader)
    tie_share: np.ndarray
    has_missing: np.ndarray
    has_ties: np.ndarray
    refused_first: np.ndarray  # ties refused before the choice
    checked_after: np.ndarray  # a few ties, checked at the chosen positions
    passes: int  # missing rows right, then (features with missing values) left
    scan: slice  # the statistic columns scanned
    weighted: bool
    row_class: np.ndarray | None
    column: np.ndarray | None  # each feature's column in the missing rows' tables
    with_missing: np.ndarray  # the features with missing values
    # The level's own:
    level: object = None  # Level
    cols: list | None = None
    orders: object = None  # Orders
    needed: set | None = None  # the columns whose missing rows' sums the scan reads
    missing_count: np.ndarray | None = None
    missing_sums: list | None = None
    n_drawn: np.ndarray | None = None
    slot_features: np.ndarray | None = None


def _scan_settings(fit, orders) -> _Scan:
    """The fit's constant part of every level's :class:`_Scan`, computed once."""
    criterion, unit = fit.criterion, fit.unit
    tie_share, has_missing = orders.tie_share, orders.has_missing
    d = len(fit.num_features)
    regression = criterion not in CLASSIFICATION_CRITERIA
    has_ties = tie_share > 0
    refused_first = tie_share > _orders._FEW_TIES  # ties refused before the choice
    passes = 2 if has_missing.any() else 1  # missing rows right, then left
    # Columns scanned: class counts (all but the last with unit weights, whose
    # count is the row count minus the others), or the centred weighted target,
    # or (Poisson) the weighted target and the count of positive targets.
    k_out = n_outputs(criterion)
    if criterion == "poisson":
        scan = slice(1, None)
    else:  # squared error: each output's centred sum (columns 1..K)
        scan = slice(1, 1 + k_out) if regression else (slice(0, -1) if unit else slice(None))
    # Unit weights, one output's classes: counts are whole numbers, so tied
    # features may be summed run by run (see _run_gains).
    row_class = fit.row_class
    if passes == 2 or not has_ties.any():
        row_class = None
    with_missing = np.flatnonzero(has_missing)
    column = None
    if with_missing.size:
        # Each feature's column in the missing rows' tables (features without
        # missing values: column 0, never read where they count).
        column = np.zeros(d, dtype=np.intp)
        column[with_missing] = np.arange(with_missing.size)
    return _Scan(
        fit=fit,
        d=d,
        values=_feature_reader(fit.X, fit.num_features),
        tie_share=tie_share,
        has_missing=has_missing,
        has_ties=has_ties,
        refused_first=refused_first,
        checked_after=has_ties & ~refused_first,
        passes=passes,
        scan=scan,
        weighted=regression and not unit,
        row_class=row_class,
        column=column,
        with_missing=with_missing,
    )


def _best_splits(fit, orders, level, cols, settings, winners):
    """Best split of every searchable node, written into ``winners`` (a ``LevelSplits``).

    ``orders.rows`` holds the level's sorted orders (:class:`Orders`),
    ``fit.X`` the data (C or Fortran order, read in place), ``cols`` the
    statistics of every row as flat columns.  With random ``level.draws``
    (:func:`_node_draws`) only the drawn features are searched (the random
    splitter has its own :func:`_random_numeric_splits`).  ``fit.row_class``
    (unit weights, one output's classes) holds each row's class (the padding
    row: the number of classes); tied features are then scored run by run
    (:func:`_run_gains`).  Each block of nodes of similar sizes is one
    :class:`_Block`.

    ``settings`` holds what no level changes (:func:`_scan_settings`).
    Returns ``winners``, ``feature`` among the numerical features, ``-1``
    (score ``inf``) for nodes without an allowed split.  Candidates are
    ranked by :func:`_gains`; each node's winner is then scored again with
    exactly the arithmetic of ``grow_tree``.  Features
    with missing values (``orders.has_missing``) get the second scan, missing rows
    left, of :func:`climbing_trees.column_candidates`; ``orders.missing_sums``
    counts and sums the level's missing rows.

    Memory: a block of nodes goes through its features a few at a time, as
    many as ``_CHUNK_CELLS`` cells allow but at least one, and the prefix sums
    through positions in pieces of at most ``_CHUNK_CELLS`` cells, each going
    on from the previous piece's last sums (the same additions).  So the
    temporaries of a block hold about ``max(_CHUNK_CELLS, c L)`` cells for
    ``c`` nodes of up to ``L`` rows (the gains, row ids and values of one
    feature of the block), not ``c L d``.  Each *group* (a node's feature and
    pass) keeps only its best gain and its first position within the tie
    tolerance of that best.  A node takes the first group within the
    tolerance of its best; where that group's own best is lower (a near tie
    between features, rare), its first position within the node's tolerance
    is found from its gains again.

    A position between two equal values cannot split.  Features with many
    such positions (``orders.tie_share``, from :func:`_presort_runs`) have them
    refused before the choice.  For features with a few, only each group's
    maximum and first position are checked, and the groups where one of
    them sits between equal values choose again with those positions
    refused: the same choice, without comparing every pair of neighbours.
    """
    d, with_missing = settings.d, settings.with_missing
    sizes, searchable, draws = level.sizes, level.searchable, level.draws
    n_nodes = sizes.size
    missing_count = missing_sums = None
    if with_missing.size:
        missing_count, missing_sums = orders.missing_sums(
            settings.column, with_missing.size, cols, sizes
        )
    # The features each node searches, in increasing order: every numerical
    # feature, or (random draws) the drawn ones, then padding up to the block's
    # largest number of drawn features.  The scan runs over these *slots*.
    if draws is None:
        n_drawn = np.full(n_nodes, d)
    else:
        drawn = draws.num_mask
        n_drawn = drawn.sum(axis=1)
    candidates = np.flatnonzero(searchable & (n_drawn > 0))
    if not candidates.size:
        return winners
    slots = int(n_drawn[candidates].max())
    slot_features = None
    if draws is not None:  # slot_features[node, s]: the node's s-th drawn feature
        node, feature = np.nonzero(drawn)  # by node, then feature
        slot = np.arange(len(node)) - (np.cumsum(n_drawn) - n_drawn)[node]
        slot_features = np.zeros((n_nodes, int(n_drawn.max())), dtype=np.intp)  # padding: 0
        slot_features[node, slot] = feature
    shared = replace(
        settings,
        level=level,
        cols=cols,
        orders=orders,
        needed=set(range(len(cols))[settings.scan]) | ({0} if settings.weighted else set()),
        missing_count=missing_count,
        missing_sums=missing_sums,
        n_drawn=n_drawn,
        slot_features=slot_features,
    )
    for nodes in _size_classes(sizes[candidates], slots * settings.passes):
        _Block(shared, candidates[nodes]).store(winners)
    return winners


class _Block:
    """One block of nodes of similar sizes: their gains, choice and winners.

    The nodes' rows, sorted by each slot's feature, padded to the block's
    largest node ``L``; the positions the row counts allow; the missing rows'
    counts and sums per (node, slot); and the tie rule of ``grow_tree``: the
    first candidate within the tolerance of the best, relative to the node and
    to the score (:func:`climbing_trees._ties.choose_best_gains`).
    """

    def __init__(self, shared: _Scan, nodes):
        self.shared, self.nodes = shared, nodes
        fit, level, draws = shared.fit, shared.level, shared.level.draws
        criterion, min_samples_leaf = fit.criterion, fit.min_samples_leaf
        c = len(nodes)
        self.c, self.block = c, np.arange(c)
        m = self.m = level.sizes[nodes]
        L = self.L = int(m.max())
        if draws is None:
            feat = np.broadcast_to(np.arange(shared.d), (c, shared.d))
        else:
            feat = shared.slot_features[nodes, : int(shared.n_drawn[nodes].max())]
        self.feat, n_slots = feat, feat.shape[1]
        offset = np.arange(L)
        # Positions in the orders of each node's rows, then of the padding: (nodes, L).
        self.pos = shared.orders.block_positions(level.starts[nodes], m, L)
        i = self.i = offset[:-1]
        stats = self.stats = level.node_stats[nodes].T[:, :, None, None]  # (columns, c, 1, 1)
        first_width = output_widths(criterion, len(stats))[0]
        w_node = stats[0] if shared.fit.regression else _sum_last(list(stats[:first_width]))
        # Positions the row counts allow (min_samples_leaf each side; this also
        # rules out the last position and the padding): 0 there, -inf elsewhere.
        # Missing rows are refused their positions in scanned_gains.
        allowed = allowed_candidates(i, m[:, None], 0, min_samples_leaf, False)
        penalty = np.where(allowed, 0.0, -np.inf)
        self.penalty = penalty[:, None, :]
        self.missing_rows(n_slots)
        self.totals = _Totals(
            shared.cols, shared.scan, fit.unit, stats, w_node, criterion, min_samples_leaf
        )
        # The tie rule of grow_tree: the first candidate within the tolerance of
        # the best, relative to the node and to the score (see choose_best_gains).
        self.w_t = w_node.ravel()
        self.const = 0.0
        if criterion == "gini":
            self.const = self.w_t
        elif criterion == "squared_error":  # the mean of the outputs' sums of squares
            sums = [s.ravel() for s in stats[1 + n_outputs(criterion) :]]
            self.const = output_mean(_sum_last(sums), criterion)
        self.node_impurity = level.impurity[nodes]

    def missing_rows(self, n_slots):
        """Missing rows end each segment: their count and summed statistics per
        (node, slot), and the rows present."""
        shared, c, nodes, feat = self.shared, self.c, self.nodes, self.feat
        n_missing = np.zeros((c, n_slots), dtype=np.intp)
        # Only the columns the scan reads (the winners get all of theirs below).
        needed = shared.needed
        missing = [np.zeros((c, n_slots)) if k in needed else None for k in range(len(shared.cols))]
        if shared.passes == 2:
            counted = shared.has_missing[feat]  # slots whose feature has missing values
            at = (
                np.broadcast_to(nodes[:, None], feat.shape)[counted],
                shared.column[feat[counted]],
            )
            n_missing[counted] = shared.missing_count[at]
            for k in needed:
                missing[k][counted] = shared.missing_sums[k][at]
        self.n_missing, self.missing = n_missing, missing
        self.n_present = self.m[:, None] - n_missing
        if shared.passes == 2:
            # The candidates of column_candidates, each pass, as position bounds
            # per (node, slot); equal values are refused apart.  Missing right:
            # the last is "present left, missing right" (the lowest position is
            # the same in every node); missing left: n_missing more rows on the
            # left of each.
            msl = shared.fit.min_samples_leaf
            lo, self.hi_right = candidate_bounds(self.n_present, n_missing, msl, False)
            self.lo_right = int(lo)
            self.left_bounds = candidate_bounds(self.n_present, n_missing, msl, True)

    def tolerance(self, gain, which=None):
        """The tie tolerance of ``gain`` in gain units (first axis: the nodes ``which``)."""
        which = self.block if which is None else which
        here = self.const[which] if np.ndim(self.const) else self.const
        return gain_tolerance(gain, here, self.w_t[which], self.node_impurity[which])

    def first_within(self, gains, best, which=None):
        """The first of ``gains`` (last axis) within the tie tolerance of ``best``."""
        return first_within(gains, best, self.tolerance(best, which), larger_is_better=True)

    def tie_choice(self, flat, which=None):
        """:func:`choose_best_gains` for the nodes ``which`` (rows of ``flat``)."""
        which = self.block if which is None else which
        here = self.const[which] if np.ndim(self.const) else self.const
        return choose_best_gains(flat, here, self.w_t[which], self.node_impurity[which])

    def gains_of(self, s, refuse):
        """Gains of the slots ``s`` (a slice): ``(c, f, passes, L - 1)``, and the
        rows sorted by their features ``(c, f, L)``.  Positions between equal
        values are refused on the features where ``refuse`` holds."""
        shared = self.shared
        fs = self.feat[:, s]
        idx = shared.orders.block_rows(self.pos, fs)
        # Runs pay where most neighbours are equal: tried only where they are
        # over all the rows (a node's rows, a sample of them, usually alike).
        tie_share = shared.tie_share
        if (
            shared.row_class is not None
            and shared.has_ties[fs].all()
            and tie_share[fs].mean() >= 0.5
        ):
            xs = shared.values(idx, fs[:, :, None])
            part = _run_gains(
                idx, xs[..., :-1] < xs[..., 1:], shared.row_class, self.penalty, self.totals
            )
            if part is not None:
                gains = part[:, :, None]
                counts = self.n_present[:, s], self.n_missing[:, s]
                _refuse_constant(gains, idx, fs, *counts, shared.values)
                return refuse_monotonic(self, gains, idx, s)  # constraints (_bounds)
        gains = self.scanned_gains(s, idx)
        # A threshold never separates equal values (features with many ties).
        _refuse_equal(gains, refuse[fs], idx, fs, shared.values)
        # Nor splits a feature constant at the node (rule 6 of climbing_trees._ties).
        _refuse_constant(gains, idx, fs, self.n_present[:, s], self.n_missing[:, s], shared.values)
        return refuse_monotonic(self, gains, idx, s)  # constraints (_bounds)

    def scanned_gains(self, s, idx):
        """Gains of the slots ``s`` from the prefix sums over ``idx``, in pieces."""
        shared, c, L, i, penalty = self.shared, self.c, self.L, self.i, self.penalty
        passes, cols, scan, totals = shared.passes, shared.cols, shared.scan, self.totals
        f = idx.shape[1]
        # Positions go through in pieces of at most _CHUNK_CELLS cells too;
        # each piece's prefix sums go on from the previous piece's last ones.
        piece = max(1, _orders._CHUNK_CELLS // (c * f))
        gains = None  # one piece and one pass: its gains are all the gains
        if passes == 2 or piece < L - 1:
            gains = np.empty((c, f, passes, L - 1))
        nm = self.n_missing[:, s, None]
        if passes == 2:  # the candidates' bounds (missing_rows)
            lo_r, hi_r = self.lo_right, self.hi_right[:, s, None]
            lo_l, hi_l = (bound[:, s, None] for bound in self.left_bounds)
        extra = [None if a is None else a[:, s, None] for a in self.missing]
        q = _fixed_sides(shared.fit, idx, self.n_present[:, s])  # exact weights (or None)
        carry = None
        for start in range(0, L - 1, piece):
            at = slice(start, min(start + piece, L - 1))
            # Contiguous intp row ids make the gathers fast.
            prefix = _prefix_sums(idx[:, :, at].astype(np.intp), cols, scan, shared.weighted, carry)
            weights = None if prefix[1] is None else prefix[1][..., -1]
            carry = ([p[..., -1] for p in prefix[0]], weights)
            i_at = i[at]
            part = _block_gains(prefix, i_at, totals, penalty[..., at], fixed=q, at=at)
            if gains is None:
                gains = part[:, :, None]
                break
            gains[:, :, 0, at] = part
            if passes == 1:
                continue
            # Full-size masks cost per cell: one comparison a bound, in place.
            np.copyto(gains[:, :, 0, at], -np.inf, where=i_at > hi_r)
            if lo_r > start:
                gains[:, :, 0, start:lo_r] = -np.inf
            if not nm.any():
                gains[:, :, 1, at] = -np.inf
                continue
            allowed = i_at >= lo_l
            allowed &= i_at <= hi_l
            penalty_left = np.where(allowed, 0.0, -np.inf)
            gains[:, :, 1, at] = _block_gains(prefix, i_at, totals, penalty_left, extra, nm, q, at)
        return gains

    def group_choice(self, s):
        """Each group's best gain and first position within its tolerance, slots ``s``."""
        shared = self.shared
        values, checked_after = shared.values, shared.checked_after
        gains, idx = self.gains_of(s, shared.refused_first)
        best = gains.max(axis=-1)  # (c, f, passes)
        first = self.first_within(gains, best)
        fs = self.feat[:, s]
        check = checked_after[fs][:, :, None] & np.isfinite(best)
        if check.any():
            # Groups whose maximum or first position sits between equal values
            # (features with a few ties) choose again with those refused.
            cc, ff, _ = np.nonzero(check)
            between = np.zeros(best.shape, dtype=bool)
            for position in (gains.argmax(axis=-1), first):
                k = position[check]
                x_k = values(idx[cc, ff, k], fs[cc, ff])
                between[check] |= x_k >= values(idx[cc, ff, k + 1], fs[cc, ff])
            again = between.any(axis=-1)  # (c, f): both passes again
            if again.any():
                sub = gains[again]  # (groups, passes, L - 1)
                _refuse_equal(sub[:, None], True, idx[again][:, None], fs[again][:, None], values)
                best[again] = sub.max(axis=-1)
                first[again] = self.first_within(sub, best[again], np.nonzero(again)[0])
        return best, first

    def direct_choice(self, unused):
        """Each node's winning group and position, from all its gains at once.

        Features with a few ties: only each node's maximum and winner are
        checked, and the nodes where one of them sits between equal values
        choose again with those positions refused.
        """
        shared, block, feat, L = self.shared, self.block, self.feat, self.L
        values, checked_after, passes = shared.values, shared.checked_after, shared.passes
        gains, idx = self.gains_of(slice(None), shared.refused_first)
        if shared.level.draws is not None:
            gains[unused] = -np.inf
        flat = gains.reshape(self.c, -1)
        best, first = self.tie_choice(flat)
        if checked_after[feat].any():
            between = np.zeros(self.c, dtype=bool)
            for position in (flat.argmax(axis=1), first):
                s_, k_ = position // (passes * (L - 1)), position % (L - 1)
                j_ = feat[block, s_]
                x_k = values(idx[block, s_, k_], j_)
                between |= checked_after[j_] & (x_k >= values(idx[block, s_, k_ + 1], j_))
            again = np.flatnonzero(between & np.isfinite(best))
            if again.size:
                sub = gains[again]
                _refuse_equal(sub, checked_after[feat[again]], idx[again], feat[again], values)
                best[again], first[again] = self.tie_choice(sub.reshape(again.size, -1), again)
        return best, *np.divmod(first, L - 1)

    def choose(self):
        """Each node's best gain, winning group (slot and pass) and position.

        A node's candidates in tie-break order: by slot, then missing right
        before missing left, then position.
        """
        shared, c, block, passes = self.shared, self.c, self.block, self.shared.passes
        n_slots = self.feat.shape[1]
        unused = np.arange(n_slots) >= shared.n_drawn[self.nodes, None]  # padding slots (draws)
        step = max(1, _orders._CHUNK_CELLS // (c * self.L * passes))
        if step >= n_slots:  # one chunk: all the candidates at once, the direct rule
            return self.direct_choice(unused)
        # A few slots at a time, each group keeping its best.
        group_best = np.empty((c, n_slots, passes))
        group_first = np.empty((c, n_slots, passes), dtype=np.intp)
        for first_slot in range(0, n_slots, step):
            s = slice(first_slot, min(first_slot + step, n_slots))
            group_best[:, s], group_first[:, s] = self.group_choice(s)
        if shared.level.draws is not None:
            group_best[unused] = -np.inf  # both passes
        flat = group_best.reshape(c, -1)
        best, group = self.tie_choice(flat)
        k = group_first.reshape(c, -1)[block, group]
        # Rare: the chosen group's own best is lower than the node's (a near
        # tie between features): its first position within the node's
        # tolerance, from its gains again, every tie refused.
        again = np.isfinite(best) & (flat[block, group] < best)
        for s in np.unique(group[again] // passes):
            redo = np.flatnonzero(again & (group // passes == s))
            gains, _ = self.gains_of(slice(s, s + 1), shared.has_ties)
            gains = gains[redo, 0, group[redo] % passes]
            k[redo] = self.first_within(gains, best[redo], redo)
        return best, group, k

    def store(self, winners) -> None:
        """Choose each node's winner, score it as ``grow_tree`` does, store it in ``winners``."""
        shared, block, nodes, i, m = self.shared, self.block, self.nodes, self.i, self.m
        cols, stats, values, passes = shared.cols, self.stats, shared.values, shared.passes
        criterion = shared.fit.criterion
        best, group, k = self.choose()
        found = np.isfinite(best)
        slot, goes_left = np.divmod(group, passes)
        goes_left = goes_left.astype(bool)
        j = self.feat[block, slot]
        # The winners' rows, sorted by their feature: (c, L).
        rows_j = shared.orders.block_rows(self.pos, j)
        lower = values(rows_j[block, k], j)
        upper = values(rows_j[block, k + 1], j)
        nm = self.n_missing[block, slot]
        # Score each winner again with grow_tree's formula from exact prefix sums
        # (same order of additions), so min_impurity_decrease sees the same number.
        # A bincount adds each winner's first k + 1 rows one by one, in order.
        win_rows = rows_j[:, :-1][i <= k[:, None]]
        owner = np.repeat(block, k + 1)
        win_left = [
            np.bincount(owner, weights=col.take(win_rows), minlength=self.c) for col in cols
        ]
        if passes == 2:  # the winners' missing sums, every column, if they go left
            at = (nodes, shared.column[j])  # goes_left: j has missing values
            win_left = [
                np.where(goes_left, part + sums[at], part)
                for part, sums in zip(win_left, shared.missing_sums, strict=True)
            ]
        win_right = [s[:, 0, 0] - part for s, part in zip(stats, win_left, strict=True)]
        with np.errstate(invalid="ignore", divide="ignore"):
            wl, il = _impurity(win_left, criterion)
            wr, ir = _impurity(win_right, criterion)
            total = _impurity([s[:, 0, 0] for s in stats], criterion)[0]
            score = (wl * il + wr * ir) / total
        threshold = np.where(np.isnan(upper), np.inf, midpoint_threshold(lower, upper))
        # Where missing values go: learned, or (none here) the child with more rows.
        n_left = k + 1 + np.where(goes_left, nm, 0)
        direction = missing_goes_left(nm, goes_left, n_left, m)
        _store(winners, found, nodes, j, threshold, score, direction)
