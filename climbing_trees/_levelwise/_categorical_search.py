"""Categorical features: level statistics of the (node, level) pairs present, searched by block."""

from __future__ import annotations

import numpy as np

from .._categorical import (
    MAX_CATEGORICAL_CANDIDATES,
    _auto,
    _one_vs_rest,
    auto_candidate_lists,
    expand_pooled,
    level_order_keys,
    multiclass_beyond_scan,
    pool_rare_pairs,
)
from .._categorical import _partition as _partition_search
from .._category_sets import encode_pairs, unseen_goes_left
from .._criteria import (
    CLASSIFICATION_CRITERIA,
    n_outputs,
    total_weight,
)
from .._random import (
    pair_set_scores,
    random_pair_sets,
)
from .._ties import (
    choose_best_rows,
    leaf_weight,
    refused_weights,
)
from ._gains import _impurity
from ._orders import _size_classes
from ._state import LevelSplits


def _feature_candidates(level, j, n_levels, feature_splits):
    """Each node's best split of categorical feature ``j``, as a :class:`LevelSplits`.

    ``feature_splits(j, n_levels)`` returns what :func:`_categorical_splits`
    returns (each node's winner by the categorical searches' own tie rule).
    A node that may not split, or did not draw ``j``, has score ``inf`` and
    feature -1.  Unseen (and absent) levels go to the heavier side; the
    present levels that go the other way are stored, compact
    (:mod:`climbing_trees._category_sets`).
    """
    score, pair_node, pair_level, pair_left, w_left, w_right = feature_splits(j, n_levels)
    score = np.where(level.searchable, score, np.inf)
    if level.draws is not None:
        score = np.where(level.draws.mask[:, j], score, np.inf)
    unseen_left = unseen_goes_left(w_left, w_right)
    set_node, set_level = encode_pairs(pair_node, pair_level, pair_left, unseen_left, n_levels)
    return LevelSplits(
        np.where(np.isfinite(score), j, -1), np.full(level.n_nodes, np.nan), score,
        np.zeros(level.n_nodes, dtype=bool), unseen_left, set_node, set_level,
    )  # fmt: skip


def _present_pairs(codes, node_of_pos, n_nodes, n_levels, phi):
    """The (node, level) pairs present at a level, with their statistics and rows.

    Picked out of a count of every cell when there are few cells per row,
    else found by one sort of the rows, so memory grows with the rows, never
    with nodes times levels.  Pairs come by node, then code.  Either way each
    pair's sums add its rows in index order, as grow_tree's ``bincount``
    does, so the bits are the same.  Returns ``(pair_node, pair_level,
    pair_stats, pair_counts)``.
    """
    n_levels = max(n_levels, int(codes.max()) + 1 if codes.size else 0)
    pair = node_of_pos.astype(np.int64) * n_levels + codes
    size = n_nodes * n_levels
    if size <= _DENSE_PAIRS_PER_ROW * len(pair) + _DENSE_PAIRS_MIN:
        # Few (node, level) cells for the rows: count all of them, keep those present.
        dense_counts = np.bincount(pair, minlength=size)
        keys = np.flatnonzero(dense_counts)
        sums = [
            np.bincount(pair, weights=phi[:, c], minlength=size)[keys] for c in range(phi.shape[1])
        ]
        pair_counts = dense_counts[keys]
    else:
        # Many levels: the pairs that occur, by one sort of the rows.
        keys, inverse = np.unique(pair, return_inverse=True)
        sums = [
            np.bincount(inverse, weights=phi[:, c], minlength=len(keys))
            for c in range(phi.shape[1])
        ]
        pair_counts = np.bincount(inverse, minlength=len(keys))
    pair_stats = np.stack(sums, axis=-1)
    pair_node = (keys // n_levels).astype(np.intp)
    pair_level = (keys % n_levels).astype(np.intp)
    return pair_node, pair_level, pair_stats, pair_counts


def _categorical_splits(fit, level, codes, n_levels):
    """Best split of one categorical feature (``codes``, by position) in every node of a level.

    The candidates and their order are those of
    :mod:`climbing_trees._categorical` (sorted scan and/or one-vs-rest), for
    all nodes at once.  Level statistics are ``bincount`` sums over the
    ``(node, level)`` pairs *present* at the level: picked out of a count of
    every cell when there are few cells per row, else found by one sort of
    the rows, so memory grows with the rows, never with nodes times levels.
    Nodes are then grouped by their number of present levels, and each group
    is searched as one padded block.  Returns the score of each node (``inf``
    if no candidate is allowed), the present pairs (node, level, sorted), the
    side of each pair in its node's winner (True: left), and the weights of
    both sides of each node's winner.  With ``"auto"`` and three or more
    classes, the nodes where
    :func:`climbing_trees._categorical.multiclass_beyond_scan` says the search
    goes past the scan call grow_tree's search
    (:func:`climbing_trees.auto_split`'s exact search) one by one; with
    Poisson deviance or several outputs every block is searched node by node
    (:func:`_categorical_block_by_node`).
    """
    node_of_pos, n_nodes, phi = level.node_of_pos, level.n_nodes, level.phi
    searchable, criterion, msl = level.searchable, fit.criterion, fit.min_samples_leaf
    method, min_level = fit.categorical_split, fit.min_samples_level
    max_candidates = fit.max_categorical_candidates
    pair_node, pair_level, pair_stats, pair_counts = _present_pairs(
        codes, node_of_pos, n_nodes, n_levels, phi
    )
    n_pairs = len(pair_node)
    stats, counts, group = pool_rare_pairs(pair_stats, pair_counts, pair_node, n_nodes, min_level)
    # The pairs searched (after pooling), still by node then code.
    searched = np.flatnonzero(counts > 0)
    s_node, s_level = pair_node[searched], pair_level[searched]
    s_stats, s_counts = stats[searched], counts[searched]
    n_present = np.bincount(s_node, minlength=n_nodes)
    s_start = np.cumsum(n_present) - n_present
    best = np.full(n_nodes, np.inf)
    s_left = np.zeros(len(searched), dtype=bool)
    w_left, w_right = np.zeros(n_nodes), np.zeros(n_nodes)
    candidates = np.flatnonzero(searchable & (n_present >= 2))
    several = n_outputs(criterion) > 1
    if (
        method == "auto"
        and criterion in CLASSIFICATION_CRITERIA
        and phi.shape[1] > 2
        and not several
    ):
        # Three or more classes: where multiclass_plan goes past the scan
        # (multiclass_beyond_scan), grow_tree's own search node by node,
        # on the same level statistics cut to the same width (its largest code).
        class_sums = np.stack(
            [
                np.bincount(s_node, weights=s_stats[:, c], minlength=n_nodes)
                for c in range(phi.shape[1])
            ],
            axis=1,
        )
        n_classes = (class_sums > 0).sum(axis=1)
        beyond = multiclass_beyond_scan(n_classes[candidates], n_present[candidates])
        searched_alone, candidates = candidates[beyond], candidates[~beyond]
        # The largest code present at each node (before pooling): its last pair.
        last_pair = np.cumsum(np.bincount(pair_node, minlength=n_nodes)) - 1
        for node in searched_alone:
            width = int(pair_level[last_pair[node]]) + 1
            here = slice(s_start[node], s_start[node] + n_present[node])
            node_stats = np.zeros((width, phi.shape[1]))
            node_stats[s_level[here]] = s_stats[here]
            node_counts = np.zeros(width, dtype=counts.dtype)
            node_counts[s_level[here]] = s_counts[here]
            split = _auto(node_stats, node_counts, criterion, msl, max_candidates)
            if split is None:
                continue
            left = np.zeros(width, dtype=bool)
            left[list(split.levels_left)] = True
            best[node] = split.score
            w_left[node] = total_weight(node_stats[left].sum(axis=0), criterion)
            w_right[node] = total_weight(node_stats[~left].sum(axis=0), criterion)
            s_left[here] = left[s_level[here]]
    groups = _size_classes(n_present[candidates], phi.shape[1]) if candidates.size else []
    for group_nodes in groups:
        nodes = candidates[group_nodes]
        width = int(n_present[nodes].max())
        # Present levels first, in code order; then padding (zero statistics).
        offset = np.arange(width)
        valid = offset < n_present[nodes][:, None]
        positions = (s_start[nodes][:, None] + offset)[valid]
        block_stats = np.zeros((len(nodes), width, phi.shape[1]))
        block_stats[valid] = s_stats[positions]
        block_counts = np.zeros((len(nodes), width), dtype=counts.dtype)
        block_counts[valid] = s_counts[positions]
        by_node = criterion == "poisson" or several
        block = _categorical_block_by_node if by_node else _categorical_block
        score, left, wl, wr = block(
            block_stats, block_counts, criterion, msl, method, max_candidates
        )
        best[nodes], w_left[nodes], w_right[nodes] = score, wl, wr
        s_left[positions] = left[valid]
    pair_left = np.zeros(n_pairs, dtype=bool)
    pair_left[searched] = s_left
    pair_left = expand_pooled(pair_left, group)
    return best, pair_node, pair_level, pair_left, w_left, w_right


#: Level statistics are summed over every (node, level) cell of a depth when
#: there are at most this many cells per row (plus _DENSE_PAIRS_MIN), over the
#: cells that occur otherwise: memory stays a few times that of the rows.
_DENSE_PAIRS_PER_ROW = 4


_DENSE_PAIRS_MIN = 1 << 16


def _random_categorical_splits(fit, level, codes, n_levels, j):
    """One random left set of categorical feature ``j`` in every node of a level.

    The (node, level) pairs present, found by one sort of the rows, their
    statistics, pooled as in :func:`_categorical_splits`, then
    :func:`climbing_trees._random.random_pair_sets` and
    :func:`climbing_trees._random.pair_set_scores`, the functions
    ``grow_tree`` calls.  Memory follows the rows, never nodes times levels.
    Returns what :func:`_categorical_splits` returns.
    """
    node_of_pos, n_nodes, phi = level.node_of_pos, level.n_nodes, level.phi
    searchable, criterion, msl = level.searchable, fit.criterion, fit.min_samples_leaf
    min_level, keys = fit.min_samples_level, level.draws.keys
    pair_node, pair_level, pair_stats, pair_counts = _present_pairs(
        codes, node_of_pos, n_nodes, n_levels, phi
    )
    stats, counts, group = pool_rare_pairs(pair_stats, pair_counts, pair_node, n_nodes, min_level)
    searched = np.flatnonzero(counts > 0)
    s_node = pair_node[searched]
    s_left = random_pair_sets(keys, s_node, pair_level[searched], j)
    score, w_left, w_right = pair_set_scores(
        stats[searched], counts[searched], s_node, s_left, n_nodes, criterion, msl
    )
    n_searched = np.bincount(s_node, minlength=n_nodes)
    score = np.where(searchable & (n_searched >= 2), score, np.inf)
    pair_left = np.zeros(len(pair_node), dtype=bool)
    pair_left[searched] = s_left
    pair_left = expand_pooled(pair_left, group)  # pooled levels follow their group
    return score, pair_node, pair_level, pair_left, w_left, w_right


def _categorical_block_by_node(
    level_stats, counts, criterion, msl, method, max_candidates=MAX_CATEGORICAL_CANDIDATES
):
    """:func:`_categorical_block` node by node, with grow_tree's own searches.

    For Poisson deviance, whose exact scan adds a scan per level when some
    levels have only zero targets (``_candidates_zero_levels``), and for
    several outputs (whose ``"auto"`` search may enumerate every partition):
    a Python loop over the block's nodes, calling the search ``grow_tree``
    calls on the same level statistics, so the same split comes out.
    """
    search = {"auto": _auto, "one_vs_rest": _one_vs_rest, "partition": _partition_search}
    search = search[method]
    n_nodes, n_levels = counts.shape
    best = np.full(n_nodes, np.inf)
    masks = np.zeros((n_nodes, n_levels), dtype=bool)
    w_left, w_right = np.zeros(n_nodes), np.zeros(n_nodes)
    for node in range(n_nodes):
        args = (max_candidates,) if method == "auto" else ()
        split = search(level_stats[node], counts[node], criterion, msl, *args)
        if split is None:
            continue
        best[node] = split.score
        masks[node, list(split.levels_left)] = True
        if criterion not in CLASSIFICATION_CRITERIA:
            w_left[node] = level_stats[node, masks[node], 0].sum()
            w_right[node] = level_stats[node, ~masks[node], 0].sum()
        else:
            w_left[node] = total_weight(level_stats[node, masks[node]].sum(axis=0), criterion)
            w_right[node] = total_weight(level_stats[node, ~masks[node]].sum(axis=0), criterion)
    return best, masks, w_left, w_right


def _categorical_block(level_stats, counts, criterion, msl, method, max_candidates=None):
    """Best categorical split of a block of nodes, levels in columns.

    ``level_stats`` has shape ``(nodes, levels, statistics)``: the present
    levels of each node in increasing code order, then padding (absent levels,
    all zero).  Returns each node's best score, the block columns sent left,
    and the weights of both sides.
    """
    n_nodes, n_levels = counts.shape
    present = counts > 0
    n_present = present.sum(axis=1)
    node_sum = level_stats.sum(axis=1)  # the node's statistics, summed level by level
    node_columns = [c[:, None] for c in node_sum.T]
    total, parent = _impurity(node_columns, criterion)
    n_total = counts.sum(axis=1)[:, None]

    candidates = []  # (score, levels-left mask, w_left, w_right) blocks, in tie order
    classes = level_stats.shape[-1]
    # The candidate lists of grow_tree's search for this method, in tie order.
    lists = auto_candidate_lists(criterion, classes) if method == "auto" else (method,)
    if "scan" in lists or "partition" in lists:
        # grow_tree's level order, node by node; with three or more classes an
        # eigenvector per node, whose sign near-equal entries make sensitive
        # to rounding: the same function on the same statistics keeps the order.
        key = level_order_keys(level_stats, counts, criterion)
        level_ids = np.broadcast_to(np.arange(n_levels), (n_nodes, n_levels))
        node_ids = np.broadcast_to(np.arange(n_nodes)[:, None], (n_nodes, n_levels))
        order = (
            np.lexsort(
                (level_ids.ravel(), key.ravel(), ~present.ravel(), node_ids.ravel())
            ).reshape(n_nodes, n_levels)
            - (np.arange(n_nodes) * n_levels)[:, None]
        )
        sorted_stats = np.take_along_axis(level_stats, order[:, :, None], axis=1)
        left = np.cumsum(sorted_stats, axis=1)[:, :-1]
        right = np.cumsum(sorted_stats[:, ::-1], axis=1)[:, ::-1][:, 1:]
        n_left = np.cumsum(np.take_along_axis(counts, order, axis=1), axis=1)[:, :-1]
        position = np.arange(n_levels - 1)
        valid = position < (n_present - 1)[:, None]
        # Candidate i sends the first i + 1 levels of the order left.
        rank = np.empty_like(order)
        np.put_along_axis(rank, order, np.arange(n_levels)[None, :], axis=1)
        candidates.append((left, right, n_left, valid, lambda nodes, i: rank[nodes] <= i[:, None]))
    if "one_vs_rest" in lists:
        left = level_stats
        right = node_sum[:, None, :] - level_stats
        candidates.append(
            (left, right, counts, present, lambda nodes, c: np.arange(n_levels) == c[:, None])
        )
    if not candidates:
        none = np.zeros((n_nodes, n_levels), dtype=bool)
        return np.full(n_nodes, np.inf), none, np.zeros(n_nodes), np.zeros(n_nodes)

    all_scores, all_wl, all_wr = [], [], []
    for left, right, n_left, valid, _ in candidates:
        with np.errstate(divide="ignore", invalid="ignore"):
            w_left, imp_left = _impurity(list(np.moveaxis(left, -1, 0)), criterion)
            w_right, imp_right = _impurity(list(np.moveaxis(right, -1, 0)), criterion)
            score = (w_left * imp_left + w_right * imp_right) / total
        allowed = valid & (n_left >= msl) & (n_total - n_left >= msl) & (w_left > 0) & (w_right > 0)
        if leaf_weight(msl) > 0:  # min_weight_fraction_leaf
            allowed &= ~refused_weights(w_left, w_right, msl)
        all_scores.append(np.where(allowed, score, np.inf))
        all_wl.append(w_left)
        all_wr.append(w_right)
    scores = np.concatenate(all_scores, axis=1)
    best, first = choose_best_rows(scores, parent[:, 0])
    nodes = np.arange(n_nodes)
    # The winner's left set, from the block of candidates it belongs to.
    masks = np.zeros((n_nodes, n_levels), dtype=bool)
    offset = 0
    for block, (_, _, _, _, left_set) in zip(all_scores, candidates, strict=True):
        inside = (first >= offset) & (first < offset + block.shape[1])
        masks[inside] = left_set(nodes[inside], first[inside] - offset)
        offset += block.shape[1]
    w_left = np.concatenate(all_wl, axis=1)[nodes, first]
    w_right = np.concatenate(all_wr, axis=1)[nodes, first]
    return best, masks, w_left, w_right
