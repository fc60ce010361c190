"""The loop: grow a tree level by level."""

from __future__ import annotations

import numpy as np

from .._categorical import (
    MAX_CATEGORICAL_CANDIDATES,
)
from .._category_sets import SetRouter
from .._criteria import (
    CLASSIFICATION_CRITERIA,
    STATISTICS_CRITERIA,
    centring_means,
    impurity_from_statistics,
    n_outputs,
    node_statistics,
    segment_means,
    segment_ranges,
    segment_sums,
)
from .._growth import check_training_rows
from .._pruning import BestFirstBound
from .._random import (
    RandomSplits,
    child_keys,
)
from .._ties import (
    LeafMinimum,
    enough_decrease,
)
from .._tree import TREE_UNDEFINED, Tree
from . import _orders
from ._absolute import _absolute_error_splits, _absolute_error_summaries, levelwise_absolute_error
from ._categorical_search import _mixed_splits
from ._draws import _node_draws
from ._nodes import _FALLBACK_CAPACITY, _node_buffers, _preorder_tree, _resized
from ._orders import _in_place, _partition, _presort_runs
from ._prefix import _best_splits
from ._thresholds import _random_numeric_splits


def grow_tree_levelwise(
    X: np.ndarray,
    Y: np.ndarray,
    sample_weight: np.ndarray,
    *,
    criterion: str,
    max_depth: int | None = None,
    min_samples_split: int = 2,
    min_samples_leaf: int = 1,
    min_impurity_decrease: float = 0.0,
    is_categorical: np.ndarray | None = None,
    n_categories: np.ndarray | None = None,
    categorical_split: str = "auto",
    min_samples_level: int = 1,
    max_categorical_candidates: int = MAX_CATEGORICAL_CANDIDATES,
    min_weight_leaf: float = 0.0,
    random_splits: RandomSplits | None = None,
    max_leaf_nodes: int | None = None,
) -> Tree:
    """Grow a tree level by level; the result equals :func:`grow_tree`'s.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    Y : ndarray of shape (n_samples, n_values)
        One-hot labels for classification, a target column for regression.
    sample_weight : ndarray of shape (n_samples,)
    criterion : {"gini", "entropy", "log_loss", "squared_error", "poisson", "absolute_error"}
        ``"absolute_error"`` has no prefix sums: every node's and feature's
        candidates are scored through a wavelet matrix
        (:func:`climbing_trees.split_absolute_errors`), on numerical features
        with the best splitter only (:func:`levelwise_absolute_error`).
    max_depth, min_samples_split, min_samples_leaf, min_impurity_decrease, \
    min_weight_leaf
        The stopping rules of :func:`grow_tree`, with the same meaning.
    is_categorical, n_categories, categorical_split, min_samples_level, \
    max_categorical_candidates
        Categorical features (level codes in ``X``), as in :func:`grow_tree`;
        :mod:`climbing_trees._categorical` describes the format.
    random_splits : RandomSplits, optional
        Random feature subsets and thresholds, drawn per node from its key
        as in :func:`grow_tree` (:mod:`climbing_trees._random`).
    max_leaf_nodes : int, optional
        The tree will be cut back by :func:`climbing_trees.best_first_subtree`
        to this many leaves: nodes whose parent's split that cut surely
        removes are left unsearched (:class:`climbing_trees._pruning.BestFirstBound`).
        The grown tree is then smaller than :func:`grow_tree`'s, and the two
        agree after the cut.

    Returns
    -------
    Tree
        Node for node the tree :func:`grow_tree` returns (ids in depth-first
        preorder); floating-point values agree to rounding.

    Notes
    -----
    Python code runs a bounded number of times per level (a few times more
    when the level's nodes have very different sizes, one padded block per
    size class), never once per node or per row.  The numpy work per level
    is proportional to ``n_features`` times the number of rows still in
    nodes that may split, plus one sort of each feature at the start:
    ``O(d n log n + d n depth)`` in all.  With ``max_features``, the scan
    of a node reads only its drawn features (the partition still moves all
    ``d`` orders), and the random splitter reads a feature only at the rows
    of the nodes that drew it (:func:`_random_numeric_splits`).  One
    exception: a categorical feature with three or more classes is searched
    node by node with
    ``grow_tree``'s own function (:func:`climbing_trees.auto_split`'s exact
    search, or, with ``"partition"``, the eigenvector that orders the levels,
    whose sign is fixed by its largest entry, which a different rounding
    could flip).

    Examples
    --------
    >>> from climbing_trees import grow_tree
    >>> X = np.array([[0.0, 3.0], [1.0, 2.0], [2.0, 1.0], [3.0, 0.0]])
    >>> Y = np.array([[1.0], [1.0], [5.0], [7.0]])
    >>> fast = grow_tree_levelwise(X, Y, np.ones(4), criterion="squared_error")
    >>> slow = grow_tree(X, Y, np.ones(4), criterion="squared_error")
    >>> fast.threshold.tolist() == slow.threshold.tolist()
    True
    """
    absolute = criterion == "absolute_error"
    if criterion not in STATISTICS_CRITERIA and not absolute:
        raise ValueError(
            f"grow_tree_levelwise does not support criterion={criterion!r}, which has no "
            "sufficient statistics; grow the tree with grow_tree instead."
        )
    if absolute and not levelwise_absolute_error(is_categorical, random_splits):
        raise ValueError(
            "grow_tree_levelwise searches criterion='absolute_error' on numerical "
            "features with splitter='best' only; grow this tree with grow_tree instead."
        )
    check_training_rows(X)
    # Read in place: a C- or Fortran-ordered float array (a DataFrame's float
    # columns arrive Fortran-ordered) is not copied; other layouts and types are
    # copied once here.
    X, X_flat, row_step, column_step = _in_place(X)
    Y = np.asarray(Y, dtype=float)
    w = np.asarray(sample_weight, dtype=float)
    n, d = X.shape
    regression = criterion not in CLASSIFICATION_CRITERIA
    depth_limit = np.inf if max_depth is None else max_depth
    W = float(w.sum())
    # With unit weights, a prefix's total weight is its row count (exactly).
    # (Not for several classification outputs: the count then stands for the
    # last class column of one output only; see _block_gains.)
    several = n_outputs(criterion) > 1
    unit = bool(np.all(w == 1.0)) and min_weight_leaf == 0 and not (several and not regression)
    if min_weight_leaf > 0:
        min_samples_leaf = LeafMinimum(min_samples_leaf, min_weight_leaf)
    categorical = np.zeros(d, bool) if is_categorical is None else is_categorical
    categorical = np.asarray(categorical, dtype=bool)
    cat_features, num_features = np.flatnonzero(categorical), np.flatnonzero(~categorical)
    if n_categories is None:
        n_categories = np.zeros(d, dtype=np.intp)
        for j in cat_features:
            n_categories[j] = int(X[:, j].max()) + 1 if n else 0
    width = int(max(np.max(n_categories, initial=0), 0)) + 1  # max_levels + 1
    codes = {j: X[:, j].astype(np.intp) for j in cat_features}
    row_class = None  # unit weights, one output's classes: each row's class
    if unit and not regression and n_outputs(criterion) == 1:
        row_class = np.append(Y.argmax(axis=1), Y.shape[1])  # the padding row: no class

    # rows[j] (j < d_num): the level's rows, node by node, sorted by numerical
    # feature j.  rows[d_num]: the same rows node by node in index order (the
    # order grow_tree keeps).  The last column holds the padding row n, and
    # so does the position after the level's rows.  The random splitter scans
    # no sorted order: it keeps the index order only.  Row ids are int32 when
    # they fit (half the memory).
    d_num = len(num_features)
    random_splitter = random_splits is not None and random_splits.splitter == "random"
    n_sorted = 0 if random_splitter else d_num
    row_dtype = np.int32 if n < np.iinfo(np.int32).max else np.intp
    rows = np.empty((n_sorted + 1, n + 1), dtype=row_dtype)
    tie_share = np.zeros(d_num)
    has_missing = np.zeros(d_num, dtype=bool)  # per numerical feature
    missing_cells = []  # (numerical feature, row) of each missing value
    # A few features at a time (_CHUNK_CELLS values), so the temporaries stay small.
    step = max(1, _orders._CHUNK_CELLS // max(n, 1))
    for first in range(0, d_num, step):
        chunk = slice(first, min(first + step, d_num))
        Xt = np.ascontiguousarray(X[:, num_features[chunk]].T)  # one feature per row
        nan = np.isnan(Xt)
        has_missing[chunk] = nan.any(axis=1)
        # The missing cells, feature by feature and rows in increasing order, for
        # the prefix-sum search (the random splitter and absolute error read X).
        if has_missing[chunk].any() and not (random_splitter or absolute):
            feature, row = np.nonzero(nan)
            missing_cells.append(((feature + first).astype(np.int32), row.astype(row_dtype)))
        if n_sorted:
            rows[chunk, :n], tie_share[chunk] = _presort_runs(Xt)
        del Xt, nan
    if missing_cells:
        missing_cells = {
            "feature": np.concatenate([feature for feature, _ in missing_cells]),
            "row": np.concatenate([row for _, row in missing_cells]),
        }
    rows[n_sorted, :n] = np.arange(n)
    rows[:, n] = n
    # The random draws and the absolute-error search read every feature by row
    # (a transposed copy, padded at row n with -inf: never above its left
    # neighbour); the other searches read X in place.
    X_by_feature = None
    if random_splits is not None or absolute:
        X_by_feature = np.empty((d, n + 1))
        X_by_feature[:, :n] = X.T
        X_by_feature[:, n] = -np.inf
    sizes = np.array([n], dtype=np.intp)  # rows of each node of the level
    keys = None if random_splits is None else random_splits.root_keys()  # per node

    bound = None if max_leaf_nodes is None else BestFirstBound(max_leaf_nodes)
    # The nodes' arrays, level after level (breadth first): one buffer per
    # array, long enough for any tree this fit can grow (each leaf holds at
    # least min_samples_leaf rows, so a binary tree has at most
    # 2 n / min_samples_leaf - 1 nodes), so that no per-level pieces are left
    # to assemble.  Memory is taken only where a buffer is written.
    capacity = max(2 * (n // max(int(min_samples_leaf), 1)) - 1, 1)
    if max_depth is not None and max_depth < 62:
        capacity = min(capacity, 2 ** (int(max_depth) + 1) - 1)
    try:
        nodes = _node_buffers(capacity, Y.shape[1])
    except (OSError, MemoryError, ValueError):  # the system refuses so large a reservation
        capacity = min(capacity, _FALLBACK_CAPACITY)  # then grown as needed
        nodes = _node_buffers(capacity, Y.shape[1])
    # Classification: a row's statistics (its weighted one-hot row) are the same
    # at every level, so their flat columns (padded with a zero at row n) are
    # made once; regression centres them at each node's mean, level by level.
    class_cols = None
    if not regression:
        class_cols = np.zeros((Y.shape[1], n + 1))
        class_cols[:, :n] = node_statistics(Y, w, criterion).T
    level_sizes = []  # nodes of each level
    set_nodes, set_levels = [], []  # categorical sets, per level (node ids of the buffers)
    depth = 0
    while sizes.size:
        n_nodes = sizes.size
        m = int(sizes.sum())
        starts = np.zeros(n_nodes, dtype=np.intp)
        np.cumsum(sizes[:-1], out=starts[1:])
        node_of_pos = np.repeat(np.arange(n_nodes), sizes)
        index_rows = rows[n_sorted, :m]

        # Node summaries from the rows in index order (as grow_tree sums them).
        w_rows = w.take(index_rows)
        w_node = np.bincount(node_of_pos, weights=w_rows, minlength=n_nodes)
        if regression:  # take: several times faster than Y[index_rows]
            Y_rows = Y.take(index_rows, axis=0)
            lo, hi = segment_ranges(Y_rows, w_rows, starts)  # each column's, per node
        if absolute:  # medians, ranks and shifted targets (climbing_trees._wavelet)
            value, impurity, ranks, shifted = _absolute_error_summaries(
                Y_rows, w_rows, node_of_pos, starts, sizes, w_node
            )
            phi = None  # no sufficient statistics
        elif regression:
            value = segment_means(Y_rows, w_rows, node_of_pos, n_nodes, w_node)
            # Squared error centres each node's targets at its mean, as grow_tree does.
            phi = Y_rows
            if criterion == "squared_error":
                phi = Y_rows - centring_means(value, lo, hi).take(node_of_pos, axis=0)
            phi = node_statistics(phi, w_rows, criterion)
            node_stats = segment_sums(phi.T, node_of_pos, n_nodes)
            impurity = impurity_from_statistics(node_stats, criterion)
        else:  # the statistics are the weighted one-hot rows: their sums give the value
            columns = (col.take(index_rows) for col in class_cols)  # no copy of them all
            node_stats = segment_sums(columns, node_of_pos, n_nodes)
            value = node_stats / w_node[:, None]
            impurity = impurity_from_statistics(node_stats, criterion)
            phi = None  # by row: only the categorical and random searches read it
            if cat_features.size or random_splitter:
                phi = class_cols.T.take(index_rows, axis=0)
        if regression:
            # Pure: every column constant over the rows of positive weight (a node
            # without positive weight has lo = inf > hi = -inf: pure too).
            pure = np.all(lo >= hi, axis=1)
            del Y_rows  # per-row arrays are freed as soon as they are used (memory)
        else:  # one-hot rows: pure when at most one class has positive weight
            # (each output's block has a class of positive weight)
            pure = np.count_nonzero(node_stats > 0, axis=1) <= n_outputs(criterion)

        searchable = (
            (depth < depth_limit)
            & (sizes >= min_samples_split)
            & (sizes >= 2 * min_samples_leaf)
            & (w_node >= 2 * min_weight_leaf)
            & ~pure
        )
        if bound is not None and depth:  # splits best-first growth surely cuts
            last = slice(sum(level_sizes[:-1]), sum(level_sizes))  # the previous level
            w_last, impurity_last = nodes["w"][last], nodes["impurity"][last]
            split_last = nodes["split"][last]
            searchable &= bound.update(w_last, impurity_last, split_last, w_node, impurity)
        feature = np.full(n_nodes, TREE_UNDEFINED, dtype=np.intp)
        threshold = np.full(n_nodes, float(TREE_UNDEFINED))
        # Categorical sets, compact: where unseen levels go, and the (node, level)
        # pairs that go the other way, sorted (see climbing_trees._category_sets).
        unseen_left = np.zeros(n_nodes, dtype=bool)
        set_node = set_level = np.zeros(0, dtype=np.intp)
        split = np.zeros(n_nodes, dtype=bool)
        missing_left = np.zeros(n_nodes, dtype=bool)
        if searchable.any() and d:
            best_f = np.full(n_nodes, -1, dtype=np.intp)
            best_t = np.full(n_nodes, np.nan)
            best_s = np.full(n_nodes, np.inf)
            best_m = np.zeros(n_nodes, dtype=bool)
            draws = None
            if random_splits is not None:
                draws = _node_draws(
                    random_splits,
                    keys,
                    X_by_feature,
                    None if random_splitter else rows,
                    index_rows,
                    starts,
                    sizes,
                    node_of_pos,
                    num_features,
                    has_missing,
                    searchable,
                )
            if d_num and draws is not None and draws["random"]:
                best_f, best_t, best_s, best_m = _random_numeric_splits(
                    draws,
                    X_by_feature,
                    num_features,
                    has_missing,
                    index_rows,
                    phi,
                    w_rows,
                    node_of_pos,
                    node_stats,
                    sizes,
                    impurity,
                    searchable,
                    criterion,
                    min_samples_leaf,
                )
            elif d_num and absolute:
                best_f, best_t, best_s, best_m = _absolute_error_splits(
                    rows,
                    X_by_feature,
                    has_missing,
                    ranks,
                    shifted,
                    w,
                    index_rows,
                    starts,
                    sizes,
                    searchable,
                    impurity,
                    n_outputs(criterion),
                    min_samples_leaf,
                    draws,
                )
            elif d_num:
                # Per-row statistics as flat columns, padded with a zero at row n.
                cols = class_cols
                if regression:
                    cols = np.zeros((phi.shape[1], n + 1))
                    cols[:, index_rows] = phi.T
                    if not cat_features.size:
                        phi = None  # cols holds the same numbers: free phi during the search
                best_f, best_t, best_s, best_m = _best_splits(
                    rows,
                    X,
                    num_features,
                    tie_share,
                    has_missing,
                    cols,
                    unit,
                    starts,
                    sizes,
                    searchable,
                    node_stats,
                    impurity,
                    criterion,
                    min_samples_leaf,
                    draws,
                    row_class,
                    missing_cells,
                )
                del cols
            if d_num:
                best_f = np.where(best_f >= 0, num_features[np.maximum(best_f, 0)], -1)
            if cat_features.size:
                best_f, best_t, best_s, (unseen_left, set_node, set_level) = _mixed_splits(
                    best_f,
                    best_t,
                    best_s,
                    codes,
                    cat_features,
                    n_categories,
                    index_rows,
                    node_of_pos,
                    phi,
                    searchable,
                    impurity,
                    criterion,
                    min_samples_leaf,
                    categorical_split,
                    min_samples_level,
                    max_categorical_candidates,
                    draws,
                )
            with np.errstate(invalid="ignore"):  # 0 * inf: a node without weight or split
                enough = enough_decrease(w_node, W, impurity, best_s, min_impurity_decrease)
            split = (best_f >= 0) & enough
            feature[split] = best_f[split]
            threshold[split] = best_t[split]
            unseen_left &= split
            keep = split[set_node]
            set_node, set_level = set_node[keep], set_level[keep]
            # A categorical winner has threshold NaN: its missing level is a level.
            missing_left = split & best_m & ~np.isnan(best_t)

        base = sum(level_sizes)
        if base + n_nodes > capacity:  # only after a refused reservation: grow
            capacity = max(2 * capacity, base + n_nodes)
            nodes = {name: _resized(buffer, capacity) for name, buffer in nodes.items()}
        level_sizes.append(n_nodes)
        for name, array in (
            ("feature", feature),
            ("threshold", threshold),
            ("value", value),
            ("impurity", impurity),
            ("n", sizes),
            ("w", w_node),
            ("split", split),
            ("unseen_left", unseen_left),
            ("missing_go_to_left", missing_left),
        ):
            nodes[name][base : base + n_nodes] = array
        set_nodes.append(base + set_node)
        set_levels.append(set_level)
        del phi, w_rows
        if not split.any():
            break
        # Which way each row of a split node goes: x <= threshold, or membership
        # of its level in the node's set (the threshold is NaN at categorical nodes).
        keep = split[node_of_pos]
        kept_rows = np.compress(keep, index_rows)
        kept_node = np.compress(keep, node_of_pos)
        kept_feature = feature[kept_node]
        x = X_flat.take(kept_rows.astype(np.intp) * row_step + kept_feature * column_step)
        kept_threshold = threshold.take(kept_node)
        go_left = x <= kept_threshold
        nan = np.flatnonzero(np.isnan(x))  # missing: the node's learned direction
        if nan.size:
            go_left[nan] = missing_left[kept_node[nan]]
        if cat_features.size:
            i = np.flatnonzero(np.isnan(kept_threshold))
            n_listed = np.bincount(set_node, minlength=n_nodes)
            stop = np.cumsum(n_listed)
            router = SetRouter(
                unseen_left, stop - n_listed, stop, set_level, width, np.unique(kept_node[i])
            )
            go_left[i] = router.goes_left(kept_node[i], x[i])
        sizes = _partition(rows, kept_rows, kept_node, go_left, sizes, split)
        del keep, kept_rows, kept_node, kept_feature, x, kept_threshold, go_left
        if not sizes.all():  # a split the search chose always leaves rows on each side
            raise RuntimeError(
                "grow_tree_levelwise routed every row of a node to one side; this is a "
                "bug in climbing_trees: please report it with the data that shows it."
            )
        if keys is not None:  # the next level: left children, then right children
            keys = np.concatenate([child_keys(keys[split], True), child_keys(keys[split], False)])
        depth += 1
    del rows, codes, X_by_feature, class_cols  # the tree's arrays come next
    return _preorder_tree(nodes, level_sizes, set_nodes, set_levels, width, criterion)
