"""The random splitter's search: one drawn threshold per node and feature."""

from __future__ import annotations

import numpy as np

from .._monotonic import allowed_splits, ratio_values
from .._random import (
    missing_directions,
    threshold_below,
    threshold_scores,
    threshold_sides,
)
from .._ties import (
    choose_best_rows,
)
from ._draws import _most_rows


def _random_numeric_splits(fit, orders, level):
    """The winner of each node's drawn thresholds (``splitter="random"``).

    One candidate per node and drawn feature, scored by the functions
    ``grow_tree`` calls (:func:`climbing_trees._random.threshold_below`,
    :func:`climbing_trees._random.threshold_sides` and
    :func:`climbing_trees._random.threshold_scores`), then the tie rule of
    :func:`climbing_trees.choose_best` along each node's features.  Each
    feature reads only the rows of the nodes that drew it (unless they hold
    most rows, :func:`_most_rows`).  Returns feature
    (among the numerical ones), threshold, score and ``missing_go_to_left``
    (:func:`climbing_trees._random.missing_directions`: the drawn side where
    the node has missing values, else the child with more rows).
    """
    draws, X_by_feature, num_features = level.draws, fit.X_by_feature, fit.num_features
    has_missing, index_rows, phi = orders.has_missing, level.index_rows, level.phi
    w_rows, node_of_pos, node_stats = level.w_rows, level.node_of_pos, level.node_stats
    sizes, impurity, searchable = level.sizes, level.impurity, level.searchable
    criterion, msl = fit.criterion, fit.min_samples_leaf
    n_nodes, n_num = len(sizes), len(num_features)
    searched = draws.num_mask & searchable[:, None]
    # One row per statistic, then the weights in exact fixed point (the refusal rule).
    q_rows = fit.q_col.take(index_rows)
    stats = np.ascontiguousarray(np.vstack([phi.T, q_rows[None]]))
    left = np.zeros((n_nodes, n_num, len(stats)))
    n_left = np.zeros((n_nodes, n_num), dtype=np.intp)
    positive_left = np.zeros((n_nodes, n_num), dtype=np.intp)
    t, side = draws.thresholds, draws.missing_left
    t_by_feature, side_by_feature = np.ascontiguousarray(t.T), np.ascontiguousarray(side.T)
    # Features read at every row (the other nodes' scores are refused).
    dense = _most_rows(searched, sizes)
    for jj in np.flatnonzero(searched.any(axis=0) & ~dense):
        positions = np.flatnonzero(searched[node_of_pos, jj])
        node = node_of_pos[positions]
        below = _rows_below(fit, orders, level, jj, positions)
        sides = threshold_sides(below[None], stats[:, positions], w_rows[positions], node, n_nodes)
        left[:, jj], n_left[:, jj], positive_left[:, jj] = (a[:, 0] for a in sides)
    dense = np.flatnonzero(dense)
    if dense.size:
        features = num_features[dense]
        values = draws.values
        if list(features) == list(values.get("features", [])):
            x = values["x"]  # read for the ranges
        else:
            x = X_by_feature[features].take(index_rows, axis=1)
        t_rows = t_by_feature[dense].take(node_of_pos, axis=1)
        below = x <= t_rows
        if has_missing[dense].any():
            below = threshold_below(x, t_rows, side_by_feature[dense].take(node_of_pos, axis=1))
        sides = threshold_sides(below, stats, w_rows, node_of_pos, n_nodes)
        if dense.size == n_num:
            left, n_left, positive_left = sides
        else:
            left[:, dense], n_left[:, dense], positive_left[:, dense] = sides
    n_positive = np.bincount(node_of_pos, weights=w_rows > 0, minlength=n_nodes)
    # Scored where searched only: one (node, feature) candidate per row.
    node, feature = np.nonzero(searched)
    scores = np.full(searched.shape, np.inf)
    q_node = np.bincount(node_of_pos, weights=q_rows, minlength=n_nodes)
    scores[node, feature] = threshold_scores(
        left[node, feature][:, None, :-1],
        n_left[node, feature][:, None],
        positive_left[node, feature][:, None],
        node_stats[node],
        sizes[node],
        n_positive[node],
        criterion,
        msl,
        q_left=left[node, feature][:, None, -1],
        q_node=q_node[node],
    )[:, 0]
    _refuse_monotonic(fit, orders, level, searched, scores)
    best, first = choose_best_rows(scores, impurity)
    found = np.isfinite(best)
    nodes = np.arange(n_nodes)
    threshold = t[nodes, first]
    direction = missing_directions(draws.missing, side, n_left, sizes)
    return (
        np.where(found, first, -1),
        np.where(found, threshold, np.nan),
        np.where(found, best, np.inf),
        found & direction[nodes, first],
    )


def _rows_below(fit, orders, level, jj, positions) -> np.ndarray:
    """Whether each of the level's rows at ``positions`` goes left on its node's drawn
    threshold of numerical feature ``jj`` (missing: the drawn side)."""
    draws, node = level.draws, level.node_of_pos[positions]
    x = fit.X_by_feature[fit.num_features[jj]].take(level.index_rows[positions])
    t_rows = draws.thresholds[:, jj].take(node)
    if orders.has_missing[jj]:
        return threshold_below(x, t_rows, draws.missing_left[:, jj].take(node))
    return x <= t_rows


def _refuse_monotonic(fit, orders, level, searched, scores) -> None:
    """Refuse (score ``inf``) the drawn thresholds that break a monotonic constraint.

    Rule 1 of :mod:`climbing_trees._monotonic`
    (:func:`climbing_trees._monotonic.allowed_splits`) on each side's own
    value, its rows' ``[w y, w]`` (``fit.value_cols``) summed in index order
    (one ``bincount`` over (node, side) cells), as ``grow_tree``'s random
    splitter takes them (:func:`climbing_trees._monotonic.child_values`).
    """
    if fit.monotonic_cst is None:
        return
    cst = fit.monotonic_cst[fit.num_features]
    n_nodes = level.n_nodes
    for jj in np.flatnonzero(searched.any(axis=0) & (cst != 0)):
        positions = np.flatnonzero(searched[level.node_of_pos, jj])
        bins = 2 * level.node_of_pos[positions] + _rows_below(fit, orders, level, jj, positions)
        rows = level.index_rows[positions]
        sums = [
            np.bincount(bins, weights=col.take(rows), minlength=2 * n_nodes)
            for col in fit.value_cols
        ]
        right, left = (ratio_values(np.stack(sums, axis=-1)[side::2]) for side in (0, 1))
        with np.errstate(invalid="ignore"):
            ok = allowed_splits(cst[jj], left, right, level.lower, level.upper)
        scores[searched[:, jj] & ~ok, jj] = np.inf
