"""The random draws of a level's nodes: features searched, thresholds, missing sides."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._random import (
    constant_features,
    draw_features,
    draw_order,
    feature_ranges,
    missing_sides,
    random_thresholds,
)


@dataclass
class Draws:
    """A level's random draws, node by node (:func:`_node_draws`).

    ``mask``: the features each node searches, ``(nodes, d)``;
    ``num_mask`` its numerical features' columns; ``keys`` each node's
    random key.  With the random splitter, per node and numerical feature:
    the drawn ``thresholds``, whether the node has ``missing`` values, the
    side drawn for them (``missing_left``), and ``values``, the features read
    at every row of the level while drawing (``"features"``, ``"x"``).
    """

    mask: np.ndarray
    num_mask: np.ndarray
    keys: np.ndarray
    thresholds: np.ndarray | None = None
    missing: np.ndarray | None = None
    missing_left: np.ndarray | None = None
    values: dict | None = None


def _node_draws(fit, orders, level) -> Draws:
    """The random draws of every searchable node of a level (:mod:`climbing_trees._random`).

    The same functions of the same keys as in ``grow_tree``, for all nodes at
    once: ``mask`` (features searched, ``(nodes, d)``, none where the node
    is not ``searchable``: :func:`climbing_trees._random.draw_features`),
    and with the random splitter the numerical thresholds and the sides drawn
    for missing values.  ``X_by_feature[j]`` is feature ``j`` by row.

    The draws need each node's range of its features (constant features are
    not searched).  With sorted orders (``rows``) the ranges are read at the
    ends of the segments (:func:`_sorted_ranges`).  Otherwise they are
    computed from the rows (:func:`_needed_ranges`), and only for the features
    a node can draw: the first ``max_features`` of its order
    (:func:`climbing_trees._random.draw_order`), and all of them where those
    are all constant.  The other entries do not change
    :func:`climbing_trees._random.draw_features`'s answer.
    """
    spec, keys, X_by_feature = fit.random_splits, level.keys, fit.X_by_feature
    rows = None if fit.random_splitter else orders.rows  # the sorted orders, if kept
    index_rows, starts, sizes = level.index_rows, level.starts, level.sizes
    node_of_pos, searchable = level.node_of_pos, level.searchable
    num_features, has_missing = fit.num_features, orders.has_missing
    n_nodes, d = len(starts), fit.d
    random = spec.splitter == "random"
    drawing = np.flatnonzero(searchable)
    node_keys = keys[drawing]
    k = spec.max_features
    values = {}  # features read at every row of the level
    # Hook: rows kept elsewhere (a Dask fit's workers, climbing_trees._dask) give the
    # ranges themselves; in memory they are read from X_by_feature.
    remote = getattr(orders, "needed_ranges", None)

    def ranges_of(needed, values):
        if remote is not None:
            return remote(level, needed)
        return _needed_ranges(X_by_feature, needed, index_rows, starts, sizes, node_of_pos,
                              values)  # fmt: skip

    if rows is not None:  # every range: numerical ones from the sorted orders
        lo, hi, missing = _sorted_ranges(rows, starts, sizes, node_of_pos, has_missing,
                                         X_by_feature, num_features)  # fmt: skip
        if len(num_features) < d:  # and categorical ones from their rows
            needed = np.ones((n_nodes, d), dtype=bool)
            needed[:, num_features] = False
            ranges = _needed_ranges(X_by_feature, needed, index_rows, starts, sizes,
                                    node_of_pos, values)  # fmt: skip
            for known, numerical in zip(ranges, (lo, hi, missing), strict=True):
                known[:, num_features] = numerical
            lo, hi, missing = ranges
        constant = constant_features(lo[drawing], hi[drawing], missing[drawing])
    else:
        needed = np.zeros((n_nodes, d), dtype=bool)
        if k >= d:
            needed[drawing] = True
        else:
            needed[drawing[:, None], draw_order(node_keys, d)[:, :k]] = True
        ranges = ranges_of(needed, values)
        lo, hi, missing = ranges
        constant = constant_features(lo[drawing], hi[drawing], missing[drawing])
        stuck = drawing[(constant | ~needed[drawing]).all(axis=1)]
        if stuck.size and not needed[stuck].all():  # first k constant: draw on, all ranges
            more = np.zeros((n_nodes, d), dtype=bool)
            more[stuck] = ~needed[stuck]
            extra = ranges_of(more, {})
            for known, new in zip(ranges, extra, strict=True):
                known[more] = new[more]
            constant = constant_features(lo[drawing], hi[drawing], missing[drawing])
    mask = np.zeros((n_nodes, d), dtype=bool)
    mask[drawing] = draw_features(node_keys, constant, k)
    draws = Draws(mask, mask[:, num_features], keys)
    if random:
        t = np.full((n_nodes, len(num_features)), np.nan)
        t[drawing] = random_thresholds(node_keys, lo[drawing], hi[drawing])[:, num_features]
        side = np.zeros(t.shape, dtype=bool)  # without missing values the coins decide nothing
        if has_missing.any():
            side[drawing] = missing_sides(node_keys, lo[drawing], hi[drawing])[:, num_features]
        draws.thresholds, draws.missing_left, draws.values = t, side, values
        draws.missing = missing[:, num_features]
    return draws


def _needed_ranges(X_by_feature, needed, index_rows, starts, sizes, node_of_pos, values):
    """:func:`climbing_trees._random.feature_ranges` where ``needed`` (nodes, d), else NaN.

    Features whose nodes hold most of the level's rows are read at every row,
    all together, and kept in ``values`` (``"features"``, and ``"x"``: their
    values by position); each other feature over the rows of the nodes that
    need it only (:func:`_most_rows`).  Returns ``(lo, hi, missing)``, each
    ``(nodes, d)``.
    """
    n_nodes, d = needed.shape
    lo, hi = np.full((n_nodes, d), np.nan), np.full((n_nodes, d), np.nan)
    missing = np.zeros((n_nodes, d), dtype=bool)
    dense = _most_rows(needed, sizes)
    for j in np.flatnonzero(needed.any(axis=0) & ~dense):
        nodes = np.flatnonzero(needed[:, j])
        starts_j = np.cumsum(sizes[nodes]) - sizes[nodes]
        x = X_by_feature[j].take(index_rows[np.flatnonzero(needed[node_of_pos, j])])
        lo[nodes, j], hi[nodes, j], missing[nodes, j], _ = feature_ranges(x, starts_j)
    dense = np.flatnonzero(dense)
    if dense.size:
        every = dense.size == d
        x = (X_by_feature if every else X_by_feature[dense]).take(index_rows, axis=1)
        if every:
            lo, hi, missing, _ = feature_ranges(x, starts, axis=1)
        else:
            lo[:, dense], hi[:, dense], missing[:, dense], _ = feature_ranges(x, starts, axis=1)
        values["features"], values["x"] = dense, x
    return lo, hi, missing


def _most_rows(nodes, sizes):
    """Per column of the mask ``nodes`` ``(nodes, d)``: do its nodes hold most rows?

    Reading every row then costs little more than picking theirs out.
    """
    return 2 * (sizes @ nodes.astype(np.intp)) > sizes.sum()


def _sorted_ranges(rows, starts, sizes, node_of_pos, has_missing, X_by_feature, num_features):
    """Each node's smallest and largest present value of each numerical feature.

    ``rows[i]`` lists every node's rows by increasing ``X_by_feature[j]``
    (``j = num_features[i]``), missing values (NaN) last, so the range is
    read at the ends of the node's segment, skipping its missing rows:
    ``O(nodes d)`` instead of a pass over the rows (only features with
    missing values count theirs).  Returns ``(lo, hi, missing)`` as
    :func:`climbing_trees._random.feature_ranges`.
    """
    m = int(sizes.sum())
    n_missing = np.zeros((len(num_features), len(starts)), dtype=np.intp)
    for i in np.flatnonzero(has_missing):
        nan = np.isnan(X_by_feature[num_features[i]].take(rows[i, :m]))
        n_missing[i] = np.bincount(node_of_pos, weights=nan, minlength=len(starts))
    order = np.arange(len(num_features))[:, None] * rows.shape[1]  # rows[i] in rows.ravel()
    value = num_features[:, None] * X_by_feature.shape[1]  # X_by_feature[j] in its ravel()
    lo = X_by_feature.ravel().take(value + rows.ravel().take(order + starts))
    last = starts + sizes - 1 - n_missing  # the last present row (if any)
    hi = X_by_feature.ravel().take(value + rows.ravel().take(order + last))
    hi[n_missing == sizes] = np.nan
    return lo.T, hi.T, (n_missing > 0).T
