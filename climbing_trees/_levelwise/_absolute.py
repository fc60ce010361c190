"""Absolute error: every node's candidates through a wavelet matrix."""

from __future__ import annotations

import numpy as np

from .._criteria import n_outputs
from .._exact_weights import refused_sides
from .._missing import allowed_candidates, missing_goes_left
from .._ties import (
    choose_best_rows,
    constant_features,
    midpoint_threshold,
)
from .._wavelet import absolute_error_scores, node_medians, split_absolute_errors
from ._gains import _store
from ._orders import _size_classes


def _absolute_error_summaries(Y_rows, w_rows, node_of_pos, starts, sizes, w_node):
    """Value, impurity, ranks and shifted targets of a level's nodes (absolute error).

    ``ranks[:, k]`` is each row's rank by output ``k`` in its node (ties by
    row index, :func:`climbing_trees.node_ranks`), and ``shifted[:, k]`` its
    target less the node's middle value (the row of rank ``sizes[i] // 2``), as
    :func:`climbing_trees.wavelet_best_split` shifts it.  The value is each
    output's :func:`climbing_trees.weighted_median`, the impurity the mean
    over outputs of ``sum w |y - median| / W``.
    """
    n_rows, k_out = Y_rows.shape
    n_nodes = len(sizes)
    value = np.empty((n_nodes, k_out))
    ranks = np.empty((n_rows, k_out), dtype=np.intp)
    shifted = np.empty((n_rows, k_out))
    error = np.zeros(n_nodes)
    for k in range(k_out):
        y = Y_rows[:, k]
        order = np.lexsort((y, node_of_pos))  # stable: ties keep the index order
        ranks[order, k] = np.arange(n_rows) - np.repeat(starts, sizes)
        value[:, k] = node_medians(y[order], w_rows[order], starts, sizes)
        middle = y[order[starts + sizes // 2]]
        shifted[:, k] = y - middle[node_of_pos]
        deviation = w_rows * np.abs(y - value[node_of_pos, k])
        error += np.bincount(node_of_pos, weights=deviation, minlength=n_nodes)
    with np.errstate(invalid="ignore", divide="ignore"):
        impurity = error / k_out / w_node
    return value, impurity, ranks, shifted


def _absolute_error_splits(fit, orders, level, winners):
    """Best (feature, threshold, score, missing_go_to_left) of every node, absolute error.

    ``fit``, ``orders`` and ``level``: :mod:`._state` and :class:`._orders.Orders`.

    Every node's scans, one per feature (its rows sorted, missing rows last,
    padded to the block's length) and, for features with missing values, one
    with the missing rows first, go through
    :func:`climbing_trees.split_absolute_errors` together, block by block of
    similar sizes.  The scans are those of
    :func:`climbing_trees.wavelet_best_split`, the same function scores them
    and the padding changes no bit, so each candidate's score is the one
    ``grow_tree`` computes; the candidates and their tie-break order are
    those of :func:`climbing_trees.column_candidates`.
    """
    X_by_feature, has_missing = fit.X_by_feature, orders.has_missing
    ranks, shifted, w, index_rows = level.ranks, level.shifted, fit.w, level.index_rows
    starts, sizes, searchable, draws = level.starts, level.sizes, level.searchable, level.draws
    impurity, k_out, msl = level.impurity, n_outputs(fit.criterion), fit.min_samples_leaf
    d, width = X_by_feature.shape
    n = width - 1  # the padding row
    # Per row (row n: padding, weight 0 and value 0): ranks and shifted targets.
    rank_of = np.zeros((k_out, n + 1), dtype=np.intp)
    rank_of[:, index_rows] = ranks.T
    y_of = np.zeros((k_out, n + 1))
    y_of[:, index_rows] = shifted.T
    w_of = np.zeros(n + 1)
    w_of[index_rows] = w[index_rows]
    Xflat = X_by_feature.ravel()
    with_missing = np.flatnonzero(has_missing)
    lo = max(int(msl) - 1, 0)
    candidates = np.flatnonzero(searchable)
    passes = 2 if with_missing.size else 1
    for nodes in _size_classes(sizes[candidates], d * passes):
        nodes = candidates[nodes]
        c, m = len(nodes), sizes[nodes]
        L = int(m.max())
        q = np.arange(L)
        pos = orders.block_positions(starts[nodes], m, L)
        idx = orders.block_rows(pos, np.broadcast_to(np.arange(d), (c, d)))  # (c, d, L)
        xs = Xflat.take(idx + (np.arange(d) * width)[None, :, None])
        n_missing = np.isnan(xs).sum(axis=-1)  # (c, d)
        n_present = m[:, None] - n_missing
        scans = [idx]
        if with_missing.size:  # the missing rows first, then the present ones
            nm, n_p = n_missing[:, with_missing, None], n_present[:, with_missing, None]
            source = np.where(q < nm, n_p + q, np.where(q < m[:, None, None], q - nm, q))
            scans.append(np.take_along_axis(idx[:, with_missing], source, axis=-1))
        scans = np.concatenate(scans, axis=1).reshape(-1, L)
        positions = np.arange(lo, max(L - int(msl), lo))
        left = right = 0.0
        for k in range(k_out):
            scan_ranks = np.where(scans == n, q, rank_of[k].take(scans))
            args = (scan_ranks, y_of[k].take(scans), w_of.take(scans))
            l_k, r_k, cumulative = split_absolute_errors(*args, positions)
            left, right = left + l_k, right + r_k
        total = cumulative[:, -1:].real
        w_left = cumulative[:, positions + 1].real
        scores = absolute_error_scores(left, right, k_out, total)
        # The refusal rule on exact fixed-point weights (_exact_weights; padding: 0).
        q_cum = np.cumsum(fit.q_col.take(scans), axis=1)
        q_left, q_total = q_cum[:, positions], q_cum[:, -1:]
        scores[refused_sides(q_left, q_total - q_left, msl)] = np.inf
        scores[(w_left <= 0) | (total - w_left <= 0)] = np.inf
        scores = scores.reshape(c, -1, len(positions))
        # Allowed candidates of each scan (column_candidates' list).
        p = positions
        x_here, x_next = xs[..., p], xs[..., np.minimum(p + 1, L - 1)]
        nm, n_p = n_missing[..., None], n_present[..., None]
        right = allowed_candidates(p, n_p, nm, msl, False, x_here < x_next)
        score_all = np.full((c, d, passes, len(p)), np.inf)
        score_all[:, :, 0] = np.where(right, scores[:, :d], np.inf)
        if passes == 2:  # missing left: p = nm + the last present row on the left
            nm, n_p = n_missing[:, with_missing, None], n_present[:, with_missing, None]
            present = p - nm
            at = np.clip(present, 0, L - 1)
            x_sub = xs[:, with_missing]
            x_here = np.take_along_axis(x_sub, at, axis=-1)
            x_next = np.take_along_axis(x_sub, np.minimum(at + 1, L - 1), axis=-1)
            ok = allowed_candidates(present, n_p, nm, msl, True, x_here < x_next)
            score_all[:, with_missing, 1] = np.where(ok, scores[:, d:], np.inf)
        if draws is not None:  # features a node did not draw: refused
            score_all[~draws.num_mask[nodes]] = np.inf
        # Features constant at the node (rule 6 of climbing_trees._ties): refused.
        last = np.take_along_axis(xs, np.maximum(n_present - 1, 0)[..., None], axis=-1)[..., 0]
        score_all[constant_features(xs[..., 0], last, n_missing > 0)] = np.inf
        flat = score_all.reshape(c, -1)
        best, first = choose_best_rows(flat, impurity[nodes])
        found = np.isfinite(best)
        j, rest = np.divmod(first, passes * len(p))
        missing_left, i = np.divmod(rest, len(p))
        missing_left = missing_left.astype(bool)
        block = np.arange(c)
        nm = n_missing[block, j]
        cut = p[i] - np.where(missing_left, nm, 0)  # the last present row on the left
        lower = xs[block, j, np.clip(cut, 0, L - 1)]
        upper = xs[block, j, np.clip(cut + 1, 0, L - 1)]
        threshold = np.where(np.isnan(upper), np.inf, midpoint_threshold(lower, upper))
        n_left = p[i] + 1
        direction = missing_goes_left(nm, missing_left, n_left, m)
        _store(winners, found, nodes, j, threshold, best, direction)
    return winners
