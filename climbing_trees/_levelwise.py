"""Level-wise growth: every node of a depth is split at once, in numpy.

Chapter 8 of the book ("Growing trees fast") explains this module.

:func:`climbing_trees.grow_tree` visits one node at a time, so its Python
overhead grows with the number of nodes.  :func:`grow_tree_levelwise` builds
the same tree (the same arrays, node for node) but pays the overhead once per
*level* of the tree:

1. **Presorting.**  Every feature is sorted once, at the root.  The array
   ``order[j]`` lists the rows by increasing ``X[:, j]``.
2. **Partitioned orders.**  At every level, ``order[j]`` holds the rows of
   each node of the level in one contiguous *segment*, still sorted by
   feature ``j``.  Splitting a node keeps this true with a *stable
   partition*: each segment becomes its left rows then its right rows, each
   in their old relative order.  No feature is ever sorted again.
3. **Segmented prefix sums.**  A prefix sum that restarts at each segment
   gives the left child's statistics of every candidate threshold, of every
   node and every feature, in one numpy call.  Segments of similar length are
   padded into one rectangle, so the prefix sum restarts exactly at each node
   and the numbers are the ones the depth-first search computes.
4. **Vectorised choice.**  Scores of all candidates are computed together,
   and each node takes its winner under the tie rule of
   :func:`climbing_trees.choose_best`.
5. **Missing values** (chapter 10).  NaN sorts last, so a node's rows
   missing feature ``j`` end its segment of ``order[j]``.  Their number and
   summed statistics per node come from the list of missing cells, made once
   (:func:`_missing_sums`); a second scan adds
   those sums to every left child (missing rows left), and the position
   between the present and the missing rows is the split "missing alone on
   the right".  The candidates and their order are those of
   :func:`climbing_trees.column_candidates`.
6. **Categorical features.**  One sort finds the (node, level) pairs
   present at the level, and one ``bincount`` over them gives the level
   statistics of all its nodes, so memory follows the rows, never nodes
   times levels; nodes with similar numbers of present levels are padded
   into one block, and the sorted-scan and one-vs-rest candidates of
   :mod:`climbing_trees._categorical` are scored block by block.  The
   winners' sets stay compact (:mod:`climbing_trees._category_sets`).

Finally the nodes, numbered level by level (breadth first), are renumbered in
depth-first preorder so the :class:`Tree` equals ``grow_tree``'s.
"""

from __future__ import annotations

import math
import mmap

import numpy as np

from ._categorical import (
    MAX_CATEGORICAL_CANDIDATES,
    _auto,
    _one_vs_rest,
    _principal_component_key,
    expand_pooled,
    pool_rare_pairs,
)
from ._categorical import _partition as _partition_search
from ._category_sets import SetRouter, encode_pairs, pack, unseen_goes_left
from ._criteria import (
    CLASSIFICATION_CRITERIA,
    STATISTICS_CRITERIA,
    centring_means,
    impurity_from_statistics,
    n_outputs,
    node_statistics,
    output_mean,
    output_widths,
    poisson_impurity,
    segment_means,
    segment_ranges,
    segment_sums,
    total_weight,
    value_by_output,
)
from ._growth import check_training_rows
from ._pruning import BestFirstBound
from ._random import (
    RandomSplits,
    child_keys,
    constant_features,
    draw_features,
    draw_order,
    feature_ranges,
    missing_directions,
    missing_sides,
    pair_set_scores,
    random_pair_sets,
    random_thresholds,
    threshold_below,
    threshold_scores,
    threshold_sides,
)
from ._ties import (
    TIE_RTOL,
    LeafMinimum,
    enough_decrease,
    leaf_weight,
    midpoint_threshold,
    refused_weights,
)
from ._tree import TREE_LEAF, TREE_UNDEFINED, Tree
from ._wavelet import absolute_error_scores, node_medians, split_absolute_errors


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
    step = max(1, _CHUNK_CELLS // max(n, 1))
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


#: Node buffers from this many bytes on are memory maps (see :func:`_lazy_empty`).
_LAZY_BYTES = 1 << 20

#: Nodes the buffers start with when the system refuses room for the largest
#: tree the fit could grow; they double as the tree grows.
_FALLBACK_CAPACITY = 1 << 16


def _node_buffers(capacity: int, n_values: int) -> dict:
    """Empty buffers for ``capacity`` nodes' arrays (:func:`_lazy_empty`)."""
    return {
        "feature": _lazy_empty(capacity, np.intp),
        "threshold": _lazy_empty(capacity, float),
        "value": _lazy_empty((capacity, n_values), float),
        "impurity": _lazy_empty(capacity, float),
        "n": _lazy_empty(capacity, np.intp),
        "w": _lazy_empty(capacity, float),
        "split": _lazy_empty(capacity, bool),
        "unseen_left": _lazy_empty(capacity, bool),
        "missing_go_to_left": _lazy_empty(capacity, bool),
    }


def _resized(buffer: np.ndarray, capacity: int) -> np.ndarray:
    """A buffer of ``capacity`` entries that starts with ``buffer``'s."""
    out = _lazy_empty((capacity,) + buffer.shape[1:], buffer.dtype)
    out[: len(buffer)] = buffer
    return out


def _lazy_empty(shape, dtype) -> np.ndarray:
    """An uninitialised array whose memory the system gives only where it is written.

    An anonymous memory map (from 1 MiB on): untouched pages take no memory,
    and all of it goes back to the system when the array is freed (memory
    that ``malloc`` hands out may be recycled, hence resident, or backed by
    huge pages).
    """
    shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(k) for k in shape)
    dtype = np.dtype(dtype)
    count = math.prod(shape)
    if count * dtype.itemsize < _LAZY_BYTES:  # small: not worth a system call
        return np.empty(shape, dtype=dtype)
    size = count * dtype.itemsize
    # Private: a child process forked after the fit gets its own copy of a page
    # it writes, so it never changes the parent's tree (a shared map would).
    flags = {"flags": mmap.MAP_PRIVATE} if hasattr(mmap, "MAP_PRIVATE") else {}
    return np.frombuffer(mmap.mmap(-1, size, **flags), dtype=dtype).reshape(shape)


def _node_draws(spec, keys, X_by_feature, rows, index_rows, starts, sizes, node_of_pos,
                num_features, has_missing, searchable) -> dict:  # fmt: skip
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
    n_nodes, d = len(starts), len(X_by_feature)
    random = spec.splitter == "random"
    drawing = np.flatnonzero(searchable)
    node_keys = keys[drawing]
    k = spec.max_features
    values = {}  # features read at every row of the level
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
        ranges = _needed_ranges(
            X_by_feature, needed, index_rows, starts, sizes, node_of_pos, values
        )
        lo, hi, missing = ranges
        constant = constant_features(lo[drawing], hi[drawing], missing[drawing])
        stuck = drawing[(constant | ~needed[drawing]).all(axis=1)]
        if stuck.size and not needed[stuck].all():  # first k constant: draw on, all ranges
            more = np.zeros((n_nodes, d), dtype=bool)
            more[stuck] = ~needed[stuck]
            extra = _needed_ranges(X_by_feature, more, index_rows, starts, sizes, node_of_pos, {})
            for known, new in zip(ranges, extra, strict=True):
                known[more] = new[more]
            constant = constant_features(lo[drawing], hi[drawing], missing[drawing])
    mask = np.zeros((n_nodes, d), dtype=bool)
    mask[drawing] = draw_features(node_keys, constant, k)
    draws = {"mask": mask, "num_mask": mask[:, num_features], "keys": keys, "random": random}
    if random:
        t = np.full((n_nodes, len(num_features)), np.nan)
        t[drawing] = random_thresholds(node_keys, lo[drawing], hi[drawing])[:, num_features]
        side = np.zeros(t.shape, dtype=bool)  # without missing values the coins decide nothing
        if has_missing.any():
            side[drawing] = missing_sides(node_keys, d)[:, num_features]
        draws["thresholds"] = t
        draws["missing"] = missing[:, num_features]
        draws["missing_left"] = side
        draws["values"] = values
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


def _random_numeric_splits(draws, X_by_feature, num_features, has_missing, index_rows, phi, w_rows,
                           node_of_pos, node_stats, sizes, impurity, searchable, criterion,
                           msl):  # fmt: skip
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
    n_nodes, n_num = len(sizes), len(num_features)
    searched = draws["num_mask"] & searchable[:, None]
    left = np.zeros((n_nodes, n_num, phi.shape[1]))
    n_left = np.zeros((n_nodes, n_num), dtype=np.intp)
    positive_left = np.zeros((n_nodes, n_num), dtype=np.intp)
    stats = np.ascontiguousarray(phi.T)  # one row per statistic
    t, side = draws["thresholds"], draws["missing_left"]
    t_by_feature, side_by_feature = np.ascontiguousarray(t.T), np.ascontiguousarray(side.T)
    # Features read at every row (the other nodes' scores are refused).
    dense = _most_rows(searched, sizes)
    for jj in np.flatnonzero(searched.any(axis=0) & ~dense):
        positions = np.flatnonzero(searched[node_of_pos, jj])
        node = node_of_pos[positions]
        x = X_by_feature[num_features[jj]].take(index_rows[positions])
        t_rows = t_by_feature[jj].take(node)
        below = x <= t_rows
        if has_missing[jj]:
            below = threshold_below(x, t_rows, side_by_feature[jj].take(node))
        sides = threshold_sides(below[None], stats[:, positions], w_rows[positions], node, n_nodes)
        left[:, jj], n_left[:, jj], positive_left[:, jj] = (a[:, 0] for a in sides)
    dense = np.flatnonzero(dense)
    if dense.size:
        features = num_features[dense]
        values = draws["values"]
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
    scores[node, feature] = threshold_scores(
        left[node, feature][:, None],
        n_left[node, feature][:, None],
        positive_left[node, feature][:, None],
        node_stats[node],
        sizes[node],
        n_positive[node],
        criterion,
        msl,
    )[:, 0]
    best = scores.min(axis=1)
    tol = TIE_RTOL * np.maximum(np.abs(impurity), np.abs(best))
    first = np.argmax(scores <= (best + tol)[:, None], axis=1)
    found = np.isfinite(best)
    nodes = np.arange(n_nodes)
    threshold = t[nodes, first]
    direction = missing_directions(draws["missing"], side, n_left, sizes)
    return (
        np.where(found, first, -1),
        np.where(found, threshold, np.nan),
        np.where(found, best, np.inf),
        found & direction[nodes, first],
    )


def levelwise_absolute_error(is_categorical, random_splits) -> bool:
    """Whether :func:`grow_tree_levelwise` grows an absolute-error tree with these options.

    Numerical features with the best splitter: their candidates go through
    :func:`climbing_trees.split_absolute_errors` level by level.  Categorical
    features (scored node by node from their rows) and random thresholds are
    left to :func:`climbing_trees.grow_tree`.
    """
    categorical = is_categorical is not None and bool(np.any(is_categorical))
    random_splitter = random_splits is not None and random_splits.splitter == "random"
    return not categorical and not random_splitter


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


def _absolute_error_splits(rows, X_by_feature, has_missing, ranks, shifted, w, index_rows, starts,
                           sizes, searchable, impurity, k_out, msl, draws=None):  # fmt: skip
    """Best (feature, threshold, score, missing_go_to_left) of every node, absolute error.

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
    n_nodes = sizes.size
    d, width = X_by_feature.shape
    n = width - 1  # the padding row
    best_f = np.full(n_nodes, -1, dtype=np.intp)
    best_t = np.full(n_nodes, np.nan)
    best_s = np.full(n_nodes, np.inf)
    best_m = np.zeros(n_nodes, dtype=bool)
    # Per row (row n: padding, weight 0 and value 0): ranks and shifted targets.
    rank_of = np.zeros((k_out, n + 1), dtype=np.intp)
    rank_of[:, index_rows] = ranks.T
    y_of = np.zeros((k_out, n + 1))
    y_of[:, index_rows] = shifted.T
    w_of = np.zeros(n + 1)
    w_of[index_rows] = w[index_rows]
    Xflat = X_by_feature.ravel()
    with_missing = np.flatnonzero(has_missing)
    order_offset = (np.arange(d) * rows.shape[1])[None, :, None]
    lo = max(int(msl) - 1, 0)
    candidates = np.flatnonzero(searchable)
    passes = 2 if with_missing.size else 1
    for nodes in _size_classes(sizes[candidates], d * passes):
        nodes = candidates[nodes]
        c, m = len(nodes), sizes[nodes]
        L = int(m.max())
        q = np.arange(L)
        pos = np.where(q < m[:, None], starts[nodes, None] + q, rows.shape[1] - 1)
        idx = rows.ravel().take(pos[:, None, :] + order_offset)  # (c, d, L)
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
        scores[refused_weights(w_left, total - w_left, msl)] = np.inf
        scores = scores.reshape(c, -1, len(positions))
        # Allowed candidates of each scan (as column_candidates lists them).
        p = positions
        n_left_ok = (p + 1 >= msl) & (m[:, None, None] - p - 1 >= msl)
        x_here, x_next = xs[..., p], xs[..., np.minimum(p + 1, L - 1)]
        nm, n_p = n_missing[..., None], n_present[..., None]
        right_pass = (p < n_p - 1) & (x_here < x_next) | (p == n_p - 1) & (nm > 0)
        allowed = np.zeros(scores.shape, dtype=bool)
        allowed[:, :d] = right_pass & n_left_ok
        score_all = np.full((c, d, passes, len(p)), np.inf)
        score_all[:, :, 0] = np.where(allowed[:, :d], scores[:, :d], np.inf)
        if passes == 2:  # missing left: p = nm + the last present row on the left
            nm, n_p = n_missing[:, with_missing, None], n_present[:, with_missing, None]
            present = p - nm
            at = np.clip(present, 0, L - 1)
            x_sub = xs[:, with_missing]
            x_here = np.take_along_axis(x_sub, at, axis=-1)
            x_next = np.take_along_axis(x_sub, np.minimum(at + 1, L - 1), axis=-1)
            ok = (nm > 0) & (present >= 0) & (present < n_p - 1) & (x_here < x_next)
            ok &= n_left_ok
            score_all[:, with_missing, 1] = np.where(ok, scores[:, d:], np.inf)
        if draws is not None:  # features a node did not draw: refused
            score_all[~draws["num_mask"][nodes]] = np.inf
        flat = score_all.reshape(c, -1)
        best = flat.min(axis=1)
        found = np.isfinite(best)
        tol = TIE_RTOL * np.maximum(np.abs(impurity[nodes]), np.abs(best))
        first = np.argmax(flat <= (best + tol)[:, None], axis=1)
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
        direction = np.where(nm > 0, missing_left, n_left > m - n_left)
        winners = (best_f, best_t, best_s, best_m)
        _store(winners, found, nodes, j, threshold, best, direction)
    return best_f, best_t, best_s, best_m


def _store(winners, found, nodes, *values) -> None:
    """Write the found nodes' (feature, threshold, score, missing side) into ``winners``."""
    for array, value in zip(winners, values, strict=True):
        array[nodes[found]] = value[found]


def _presort_runs(Xt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Stable argsort of every row of ``Xt``, and the share of its neighbours that are equal.

    numpy's default sort is several times faster than its stable sort on
    distinct values; the two agree when a feature has no repeated value.
    Where a feature has ties, the row ids within each run of equal values are
    put back in increasing order (the order a stable sort keeps, as in
    ``grow_tree``): by a stable sort where the feature has few distinct values
    (pixels, ratings: there it is quick), else by sorting a key made of run
    number and row id.  NaN sorts last, and the missing values of a feature
    count as one run; when they are its only ties, just that run is sorted.
    The ties reported are those among present values (a threshold never
    falls inside the missing run anyway).
    """
    order = np.argsort(Xt, axis=1)
    values = np.take_along_axis(Xt, order, axis=1)
    new_value = values[:, 1:] != values[:, :-1]
    nan = np.isnan(values)
    n_missing = nan.sum(axis=1)
    if n_missing.any():  # NaN != NaN, yet missing values form one run of equal values
        new_value &= ~(nan[:, 1:] & nan[:, :-1])
    tie = ~new_value & ~nan[:, 1:]  # equal neighbours among present values
    n = Xt.shape[1]
    tie_share = tie.sum(axis=1) / max(n - 1, 1)
    has_ties = tie_share > 0
    few_values = has_ties & (4 * new_value.sum(axis=1) < n)  # few distinct values
    if few_values.any():  # a stable sort is quick on them
        order[few_values] = np.argsort(Xt[few_values], axis=1, kind="stable")
    many = (tie_share > _FEW_TIES) & ~few_values
    if many.any():
        # Put the row ids in increasing order within each run of equal values:
        # sort by (run number, row id), a unique integer key.
        run = np.zeros((int(many.sum()), n), dtype=np.intp)
        np.cumsum(new_value[many], axis=1, out=run[:, 1:])
        key = run * n + order[many]
        order[many] = np.take_along_axis(order[many], np.argsort(key, axis=1), axis=1)
    few = np.flatnonzero(has_ties & ~many & ~few_values)
    if few.size:  # sort only the positions inside runs, by (feature, value, row id)
        inside = np.zeros((few.size, n), dtype=bool)
        inside[:, 1:] = ~new_value[few]
        inside[:, :-1] |= ~new_value[few]
        feature, position = np.nonzero(inside)
        feature = few[feature]
        rows = order[feature, position]
        order[feature, position] = rows[np.lexsort((rows, values[feature, position], feature))]
    for j in np.flatnonzero(~has_ties & (n_missing > 1)):  # only the missing run
        order[j, n - n_missing[j] :].sort()
    return order, tie_share


def _size_classes(sizes: np.ndarray, d: int, slack: int = 8192) -> list[np.ndarray]:
    """Group node indices into blocks padded to a common length.

    Nodes are binned by size (bins grow by 25%), largest first; a bin joins
    the current block while the block's padding stays under ``slack`` cells
    (a block costs about as much Python time as that many cells of numpy
    work), so tiny nodes share one block and big ones waste at most a quarter.
    """
    if (len(sizes) * int(sizes.max()) - int(sizes.sum())) * d <= slack:
        return [np.arange(len(sizes))]  # one block wastes little: skip the binning
    key = np.floor(np.log(np.maximum(sizes, 1)) / np.log(1.25)).astype(np.intp)
    order = np.argsort(-key, kind="stable")
    bounds = np.flatnonzero(np.diff(key[order])) + 1
    groups: list[list[np.ndarray]] = []
    length = wasted = 0
    for members in np.split(order, bounds):
        member_sizes = sizes[members]
        waste = (length * len(members) - int(member_sizes.sum())) * d
        if groups and wasted + waste <= slack:
            groups[-1].append(members)
            wasted += waste
        else:
            groups.append([members])
            length, wasted = int(member_sizes.max()), 0
    return [np.sort(np.concatenate(g)) for g in groups]


def _sum_last(parts: list) -> np.ndarray:
    """``np.stack(parts, -1).sum(-1)`` with numpy's rounding, without the stack.

    numpy sums fewer than 8 numbers along the last axis from left to right;
    from 8 on it sums pairwise, so the stacked form is kept there.
    """
    if len(parts) >= 8:
        return np.stack(np.broadcast_arrays(*parts), axis=-1).sum(axis=-1)
    out = parts[0]
    for part in parts[1:]:
        out = out + part
    return out


def _impurity(parts: list, criterion: str):
    """(total weight, impurity) from statistics given column by column.

    The same operations in the same order as
    :func:`climbing_trees.impurity_from_statistics`, so the same bits (with
    several outputs, that function itself on the stacked columns).
    """
    if n_outputs(criterion) > 1:
        stats = np.stack(np.broadcast_arrays(*parts), axis=-1)
        return total_weight(stats, criterion), impurity_from_statistics(stats, criterion)
    if criterion == "squared_error":
        total, s1, s2 = parts
        mean = s1 / total
        return total, np.maximum(s2 / total - mean * mean, 0.0)
    if criterion == "poisson":
        return parts[0], poisson_impurity(*parts)
    total = _sum_last(parts)
    p = [part / total for part in parts]
    if criterion == "gini":
        return total, 1.0 - _sum_last([q**2 for q in p])
    return total, 0.0 - _sum_last([q * np.log2(np.where(q > 0, q, 1.0)) for q in p])


def _xlogx(a: np.ndarray) -> np.ndarray:
    """``a * log2(a)`` with ``0 log 0 = 0``."""
    out = np.zeros_like(a)
    np.log2(a, out=out, where=a > 0)
    out *= a
    return out


def _gains(left, stats, w_left, w_right, criterion):
    """Split *gains*: ``const - W_t * score`` for every candidate, bigger is better.

    Cheaper forms of the scores of :func:`climbing_trees.impurity_from_statistics`
    (chapter 8 derives them); the constant is ``W_t`` for Gini, 0 for entropy,
    the node's sum of squares for squared error, and 0 for Poisson deviance,
    whose gain is minus the score times ``W_t``.  ``left`` holds the prefix
    sums of the statistic columns (class counts; the weighted sum of centred
    targets; or, for Poisson, all columns but the weight), ``stats`` the
    node's totals.

    Several outputs average the outputs' impurities, so the same forms hold
    with the per-output sums divided by the number of outputs ``K``: Gini's
    and entropy's class terms run over every output's classes, squared
    error's over every output's centred sum (its constant is the mean of the
    outputs' sums of squares).  Poisson deviance with several outputs is
    scored as with one, by ``grow_tree``'s own formula: the mean over outputs
    of :func:`climbing_trees.impurity_from_statistics`, from every column
    but the weight.
    """
    k = n_outputs(criterion)
    if k > 1 and criterion == "poisson":
        full = [w_left, *left]
        stacked = np.stack(np.broadcast_arrays(*full), axis=-1)
        totals = np.stack(np.broadcast_arrays(*stats), axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            gain = w_left * impurity_from_statistics(stacked, criterion)
            gain += w_right * impurity_from_statistics(totals - stacked, criterion)
        # Not finite: a refused candidate (Poisson), or a padding position whose
        # side weighs a rounding error; both are refused (gain -inf).
        np.putmask(gain, ~np.isfinite(gain), np.inf)
        return np.negative(gain, out=gain)
    if criterion == "poisson":
        # No cheaper form: W_L I_L = T_L - S_L log(S_L / W_L) is a difference of
        # numbers much larger than itself in near-pure nodes, so its rounding
        # noise can exceed the tie tolerance.  The gain is then grow_tree's own
        # score (times -W_t), from the same prefix sums, so both builders see
        # the same noise and pick the same split.  A side without a positive
        # target has infinite impurity: refused.
        right = [np.subtract(total, part) for total, part in zip(stats[1:], left, strict=True)]
        with np.errstate(invalid="ignore"):
            gain = w_left * poisson_impurity(w_left, *left)
            gain += w_right * poisson_impurity(w_right, *right)
        # NaN: a side whose sum of targets rounds to zero or below (a tiny target
        # lost in S - S_left).  grow_tree's choose_best skips such a score; so here.
        np.putmask(gain, np.isnan(gain), np.inf)
        return np.negative(gain, out=gain)
    if criterion == "squared_error":
        gain = None
        for output, s1_left in enumerate(left):  # one centred sum per output
            part = s1_left * s1_left
            part /= w_left
            s1_right = np.subtract(stats[1 + output], s1_left)
            s1_right *= s1_right
            s1_right /= w_right
            part += s1_right
            gain = part if gain is None else np.add(gain, part, out=gain)
        return output_mean(gain, criterion)
    if criterion == "gini":
        sq_left = sq_right = None
        for total, part in zip(stats, left, strict=True):
            right = np.subtract(total, part)
            right *= right
            sq_left = part * part if sq_left is None else np.add(sq_left, part * part, out=sq_left)
            sq_right = right if sq_right is None else np.add(sq_right, right, out=sq_right)
        sq_left /= w_left
        sq_right /= w_right
        sq_left += sq_right
        return output_mean(sq_left, criterion)
    # Entropy: W_L H_L = W_L log2 W_L - sum_k c_k log2 c_k (same for the right).
    gain = -_xlogx(np.asarray(w_left, dtype=float)) - _xlogx(np.asarray(w_right, dtype=float))
    if k > 1:  # the class terms of every output, averaged
        classes = None
        for total, part in zip(stats, left, strict=True):
            term = _xlogx(part)
            term += _xlogx(np.subtract(total, part))
            classes = term if classes is None else np.add(classes, term, out=classes)
        return gain + output_mean(classes, criterion)
    for total, part in zip(stats, left, strict=True):
        gain = gain + _xlogx(part)
        gain += _xlogx(np.subtract(total, part))
    return gain


#: Features with more equal neighbours than this share (in the sorted column)
#: have the positions between equal values refused before the choice; the
#: others are checked at the chosen positions only (see :func:`_best_splits`).
_FEW_TIES = 1 / 32

#: Largest block of (node, feature, position) cells processed in one go.
_CHUNK_CELLS = 1 << 15


def _prefix_sums(left_idx, cols, scan, weighted, carry=None):
    """The segmented prefix sums of a block: each block row restarts at zero.

    One array per column ``cols[scan]`` over the rows ``left_idx`` (shape
    ``(c, features, positions)``), and the weights' (``cols[0]``) when
    ``weighted``, else None.  ``carry`` (the last sums of the previous
    positions, in the same form) continues a block cut into pieces: it is
    added to the first value, so the sums are added in the same order.
    """
    carried, carried_weight = carry if carry is not None else (None, None)

    def running(col, start):
        values = col.take(left_idx)
        if start is not None:
            values[..., 0] += start
        return np.cumsum(values, axis=-1)

    weights = running(cols[0], carried_weight) if weighted else None
    columns = cols[scan]
    starts = carried if carried is not None else [None] * len(columns)
    return [running(col, start) for col, start in zip(columns, starts, strict=True)], weights


def _block_gains(
    prefix,
    i,
    scan,
    unit,
    stats,
    w_node,
    penalty,
    criterion,
    msl=1,
    missing=None,
    n_missing=0,
):
    """Gains of every candidate of a block (some of its features), -inf if refused.

    ``prefix`` holds the block's segmented prefix sums (:func:`_prefix_sums`)
    of the statistic columns scanned (``scan``), each ``(c, features,
    positions)``, at the positions ``i``.  ``penalty`` is 0 where the row
    counts allow a candidate and -inf elsewhere; a side without weight, or
    lighter than ``leaf_weight(msl)`` (``min_weight_fraction_leaf``), is
    refused too.  With ``missing`` (the missing rows' sums, one
    ``(c, features, 1)`` array per statistic column) and their count
    ``n_missing``, the missing rows join every left child.
    """
    regression = criterion not in CLASSIFICATION_CRITERIA
    left, w_left = list(prefix[0]), prefix[1]
    if unit:
        w_left = i + 1.0 + n_missing  # total weight of a prefix = its row count
    elif regression and missing is not None:
        w_left = w_left + missing[0]
    if missing is not None:
        left = [part + extra for part, extra in zip(left, missing[scan], strict=True)]
    if not regression and unit:
        # The last class's count: the prefix's rows minus the others' counts,
        # whole numbers, so any order of additions gives the same bits.
        left.append(np.broadcast_to(w_left, left[0].shape) - sum(left))
    elif not regression:  # one output's class counts (the first's) sum to the weight
        w_left = _sum_last(left[: output_widths(criterion, len(left))[0]])
    w_right = w_node - w_left
    empty = None
    if unit:
        w_right = np.maximum(w_right, 0.5)  # only refused positions are clamped
    else:
        # A side without weight is refused; give it weight 1 so no 0/0 appears.
        empty = refused_weights(w_left, w_right, msl)  # min_weight_leaf too
        w_left = np.where(w_left > 0, w_left, 1.0)
        w_right = np.where(w_right > 0, w_right, 1.0)
    gains = _gains(left, stats, w_left, w_right, criterion)
    gains += penalty
    if empty is not None:
        np.putmask(gains, empty, -np.inf)
    return gains


def _run_gains(idx, ends, row_class, penalty, args, criterion, msl):
    """Gains of a block of tied features, scored at the ends of runs only; or None.

    A threshold never falls inside a run of equal values, so only the
    positions ``p`` where ``x[p] < x[p + 1]`` (``ends``) are candidates.  With
    unit weights and one output's classes, the class counts of the prefix
    ending at each of them come from counting each run's rows by class (one
    ``bincount``) and summing runs: whole numbers, so exactly the row-by-row
    prefix sums.  On features with few distinct values (pixels, ratings) this
    scores a few candidates per node instead of every row.  Returns gains of
    shape ``idx.shape[:2] + (L - 1,)``, ``-inf`` off the ends, or None when
    the runs are too many for counting to pay.
    """
    c, f, L = idx.shape
    cols, scan, unit, stats, w_node = args
    n_classes = len(cols)
    run = np.zeros((c, f, L), dtype=np.intp)  # ends before each position
    np.cumsum(ends, axis=-1, out=run[:, :, 1:])
    n_ends = run[:, :, -1:]  # per (node, feature)
    first = np.cumsum(n_ends) - n_ends.ravel()  # each (node, feature)'s first run
    E = int(n_ends.sum())  # runs that end where a threshold may fall
    if 2 * E > c * f * L:  # most positions end a run: scanning every row costs less
        return None
    gains = np.full((c, f, L - 1), -np.inf)
    if E == 0:
        return gains
    # The runs of the block numbered one after the other (the rows after a
    # (node, feature)'s last end: number E, not counted), and their rows by
    # class (class n_classes: the padding row).
    number = np.where(run < n_ends, first.reshape(c, f, 1) + run, E)
    key = number * (n_classes + 1) + row_class.take(idx)
    counts = np.bincount(key.ravel(), minlength=(E + 1) * (n_classes + 1))
    running = np.zeros((n_classes + 1, E + 1), dtype=np.intp)
    np.cumsum(counts.reshape(E + 1, n_classes + 1)[:E].T, axis=1, out=running[:, 1:])
    # np.nonzero lists the ends run by run, in the numbering above.
    ci, fi, p = np.nonzero(ends)
    # A prefix's counts: the running counts minus those before its (node, feature).
    prefix = (running[:, 1:] - running[:, first[ci * f + fi]]).astype(float)
    left = [part.reshape(1, 1, E) for part in prefix[:n_classes][scan]]
    part = _block_gains(
        (left, None),
        p.reshape(1, 1, E),
        scan,
        unit,
        stats[:, ci].reshape(len(stats), 1, 1, E),
        w_node[ci].reshape(1, 1, E),
        penalty[ci, 0, p].reshape(1, 1, E),
        criterion,
        msl,
    )
    gains[ci, fi, p] = part.ravel()
    return gains


def _in_place(X):
    """``X`` as floats, its elements in memory order (a flat view) and the steps
    between its rows and between its columns in that view.

    C- and Fortran-ordered float arrays are read in place; any other layout
    or type is copied once, to C order.  ``X[i, j]`` is
    ``flat[i * row_step + j * column_step]``.

    >>> X = np.asfortranarray(np.arange(6.0).reshape(3, 2))
    >>> X, flat, row_step, column_step = _in_place(X)
    >>> float(flat[2 * row_step + 1 * column_step]), bool(np.shares_memory(flat, X))
    (5.0, True)
    """
    X = np.asarray(X, dtype=float)
    if not (X.flags.c_contiguous or X.flags.f_contiguous):
        X = np.ascontiguousarray(X)
    flat = X.ravel(order="K")  # a view: the memory order of either layout
    n, d = X.shape
    if X.flags.c_contiguous:
        return X, flat, d, 1
    return X, flat, 1, n


def _feature_reader(X, num_features):
    """``values(row_ids, j)``: ``X[row_ids, num_features[j]]`` (broadcast), read in place.

    ``X`` is C- or Fortran-ordered (:func:`_in_place`).  The padding row (id
    ``n``) reads some element of ``X`` (``mode="clip"`` keeps its index in
    range), the same one at every padding position of a feature, maybe NaN; it
    only ever sits at positions that cannot split.
    """
    _, X_flat, row_step, column_step = _in_place(X)
    offset = np.asarray(num_features, dtype=np.intp) * column_step

    def values(row_ids, j):
        index = np.multiply(row_ids, row_step, dtype=np.intp)
        return X_flat.take(index + offset[j], mode="clip")

    return values


def _missing_sums(cells, rows, column, n_columns, cols, sizes):
    """Per node of the level and feature with missing values: its missing rows'
    count and, per statistic column, their sum.

    ``cells`` lists every missing value once (``"feature"``, ``"row"``),
    feature by feature and each feature's rows in increasing order; the
    feature's column in the result is ``column[feature]`` (of ``n_columns``).
    Rows are added one by one in increasing row id (``bincount`` in that
    order), the order in which they end the node's segment of the feature's
    sorted order, so the sums are those of the prefix scans.  The cells of
    rows no longer in the tree's growing nodes are dropped from ``cells``, in
    place: the next levels' rows are among this level's.
    """
    n_nodes = sizes.size
    node_of_row = np.full(rows.shape[1], n_nodes, dtype=np.intp)  # n_nodes: not here
    node_of_row[rows[-1, : int(sizes.sum())]] = np.repeat(np.arange(n_nodes), sizes)
    node = node_of_row.take(cells["row"])
    here = node < n_nodes
    if not here.all():
        cells["feature"], cells["row"] = cells["feature"][here], cells["row"][here]
        node = node[here]
    key = node * n_columns + column.take(cells["feature"])
    size = n_nodes * n_columns
    count = np.bincount(key, minlength=size).reshape(n_nodes, n_columns)
    rows_missing = cells["row"]
    sums = [
        np.bincount(key, weights=col.take(rows_missing), minlength=size).reshape(n_nodes, n_columns)
        for col in cols
    ]
    return count, sums


def _best_splits(
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
    draws=None,
    row_class=None,
    missing_cells=None,
):
    """Best (feature, threshold, score, missing_go_to_left) of every searchable node.

    ``rows`` holds the level's sorted orders (:func:`grow_tree_levelwise`),
    ``X`` the data (C or Fortran order, read in place) and ``num_features`` its
    numerical columns.  With random ``draws`` (:func:`_node_draws`) only the
    drawn features are searched (the random splitter has its own
    :func:`_random_numeric_splits`).  ``row_class`` (unit weights, one
    output's classes) holds each row's class (the padding row: the number of
    classes); tied features are then scored run by run (:func:`_run_gains`).

    Returns ``feature = -1`` (and score ``inf``) for nodes without an allowed
    split.  Candidates are ranked by :func:`_gains`; each node's winner is
    then scored again with exactly the arithmetic of ``grow_tree``.  Features
    with missing values (``has_missing``) get the second scan, missing rows
    left, of :func:`climbing_trees.column_candidates`; ``missing_cells``
    lists where X is missing (:func:`_missing_sums`).

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
    such positions (``tie_share``, from :func:`_presort_runs`) have them
    refused before the choice.  For features with a few, only each group's
    maximum and first position are checked, and the groups where one of
    them sits between equal values choose again with those positions
    refused: the same choice, without comparing every pair of neighbours.
    """
    n_nodes = sizes.size
    d = len(num_features)
    stride = rows.shape[1]
    pad = stride - 1  # the padding row n, in the last column of every order
    regression = criterion not in CLASSIFICATION_CRITERIA
    best_f = np.full(n_nodes, -1, dtype=np.intp)
    best_t = np.full(n_nodes, np.nan)
    best_s = np.full(n_nodes, np.inf)
    best_m = np.zeros(n_nodes, dtype=bool)
    orders = rows.ravel()
    values = _feature_reader(X, num_features)
    has_ties = tie_share > 0
    refused_first = tie_share > _FEW_TIES  # ties refused before the choice
    checked_after = has_ties & ~refused_first
    passes = 2 if has_missing.any() else 1  # missing rows right, then left
    # Columns scanned: class counts (all but the last with unit weights, whose
    # count is the row count minus the others), or the centred weighted target,
    # or (Poisson) the weighted target and the count of positive targets.
    k_out = n_outputs(criterion)
    if criterion == "poisson":
        scan = slice(1, None)
    else:  # squared error: each output's centred sum (columns 1..K)
        scan = slice(1, 1 + k_out) if regression else (slice(0, -1) if unit else slice(None))
    needed = set(range(len(cols))[scan]) | ({0} if regression and not unit else set())
    weighted = regression and not unit
    # Unit weights, one output's classes: counts are whole numbers, so tied
    # features may be summed run by run (see _run_gains).
    if passes == 2 or not has_ties.any():
        row_class = None
    with_missing = np.flatnonzero(has_missing)
    if with_missing.size:
        # Each feature's column in the missing rows' tables (features without
        # missing values: column 0, never read where they count).
        column = np.zeros(d, dtype=np.intp)
        column[with_missing] = np.arange(with_missing.size)
        missing_count, missing_sums = _missing_sums(
            missing_cells, rows, column, with_missing.size, cols, sizes
        )
    # The features each node searches, in increasing order: every numerical
    # feature, or (random draws) the drawn ones, then padding up to the block's
    # largest number of drawn features.  The scan runs over these *slots*.
    if draws is None:
        n_drawn = np.full(n_nodes, d)
    else:
        drawn = draws["num_mask"]
        n_drawn = drawn.sum(axis=1)
    candidates = np.flatnonzero(searchable & (n_drawn > 0))
    if not candidates.size:
        return best_f, best_t, best_s, best_m
    slots = int(n_drawn[candidates].max())
    if draws is not None:  # slot_features[node, s]: the node's s-th drawn feature
        node, feature = np.nonzero(drawn)  # by node, then feature
        slot = np.arange(len(node)) - (np.cumsum(n_drawn) - n_drawn)[node]
        slot_features = np.zeros((n_nodes, int(n_drawn.max())), dtype=np.intp)  # padding: 0
        slot_features[node, slot] = feature

    def search(nodes):
        """The winners of one block of nodes (of similar sizes), stored in place."""
        c = len(nodes)
        block = np.arange(c)
        m = sizes[nodes]
        L = int(m.max())
        if draws is None:
            feat = np.broadcast_to(np.arange(d), (c, d))
        else:
            feat = slot_features[nodes, : int(n_drawn[nodes].max())]
        n_slots = feat.shape[1]
        offset = np.arange(L)
        # Positions in the orders of each node's rows, then of the padding: (nodes, L).
        pos = np.where(offset < m[:, None], starts[nodes, None] + offset, pad)
        i = offset[:-1]
        stats = node_stats[nodes].T[:, :, None, None]  # (columns, c, 1, 1)
        first_width = output_widths(criterion, len(stats))[0]
        w_node = stats[0] if regression else _sum_last(list(stats[:first_width]))
        # Positions the row counts allow (min_samples_leaf each side; this also
        # rules out the last position and the padding): 0 there, -inf elsewhere.
        high = m - min_samples_leaf - 1
        penalty = np.where((i >= min_samples_leaf - 1) & (i <= high[:, None]), 0.0, -np.inf)
        penalty = penalty[:, None, :]
        # Missing rows end each segment: their count and summed statistics per
        # (node, slot).
        n_missing = np.zeros((c, n_slots), dtype=np.intp)
        # Only the columns the scan reads (the winners get all of theirs below).
        missing = [np.zeros((c, n_slots)) if k in needed else None for k in range(len(cols))]
        if passes == 2:
            counted = has_missing[feat]  # slots whose feature has missing values
            at = (np.broadcast_to(nodes[:, None], feat.shape)[counted], column[feat[counted]])
            n_missing[counted] = missing_count[at]
            for k in needed:
                missing[k][counted] = missing_sums[k][at]
        n_present = m[:, None] - n_missing
        args = (cols, scan, unit, stats, w_node)
        # The tie rule of grow_tree: the first candidate within the tolerance of
        # the best, relative to the node and to the score (see _lowest_allowed).
        w_t = w_node.ravel()
        const = 0.0
        if criterion == "gini":
            const = w_t
        elif criterion == "squared_error":  # the mean of the outputs' sums of squares
            const = output_mean(_sum_last([s.ravel() for s in stats[1 + k_out :]]), criterion)
        node_impurity = impurity[nodes]

        def lowest_allowed(gain, which=block):
            """The lowest gain within the tie tolerance of ``gain`` (first axis: ``which``)."""
            here = const[which] if np.ndim(const) else const
            return _lowest_allowed(gain, here, w_t[which], node_impurity[which])

        def tie_choice(flat, which=block):
            """:func:`_tie_choice` for the nodes ``which`` (rows of ``flat``)."""
            here = const[which] if np.ndim(const) else const
            return _tie_choice(flat, here, w_t[which], node_impurity[which])

        def gains_of(s, refuse):
            """Gains of the slots ``s`` (a slice): ``(c, f, passes, L - 1)``, and the
            rows sorted by their features ``(c, f, L)``.  Positions between equal
            values are refused on the features where ``refuse`` holds."""
            fs = feat[:, s]
            f = fs.shape[1]
            idx = orders.take(pos[:, None, :] + (fs * stride)[:, :, None])
            # Runs pay where most neighbours are equal: tried only where they are
            # over all the rows (a node's rows, a sample of them, usually alike).
            if row_class is not None and has_ties[fs].all() and tie_share[fs].mean() >= 0.5:
                xs = values(idx, fs[:, :, None])
                part = _run_gains(
                    idx, xs[..., :-1] < xs[..., 1:], row_class, penalty, args, criterion,
                    min_samples_leaf,
                )  # fmt: skip
                if part is not None:
                    return part[:, :, None], idx
            # Positions go through in pieces of at most _CHUNK_CELLS cells too;
            # each piece's prefix sums go on from the previous piece's last ones.
            piece = max(1, _CHUNK_CELLS // (c * f))
            gains = None  # one piece and one pass: its gains are all the gains
            if passes == 2 or piece < L - 1:
                gains = np.empty((c, f, passes, L - 1))
            nm, n_p = n_missing[:, s, None], n_present[:, s, None]
            extra = [None if a is None else a[:, s, None] for a in missing]
            # Missing left: the positions with at least one present row on each side
            # and min_samples_leaf rows per side (missing rows join the left one),
            # lo <= i <= hi; none where the feature has no missing row in the node.
            lo = min_samples_leaf - 1 - nm
            hi = np.where(nm > 0, n_p - 1 - max(min_samples_leaf, 1), -1)
            carry = None
            for start in range(0, L - 1, piece):
                at = slice(start, min(start + piece, L - 1))
                # Contiguous intp row ids make the gathers fast.
                prefix = _prefix_sums(idx[:, :, at].astype(np.intp), cols, scan, weighted, carry)
                weights = None if prefix[1] is None else prefix[1][..., -1]
                carry = ([p[..., -1] for p in prefix[0]], weights)
                i_at = i[at]
                part = _block_gains(
                    prefix, i_at, *args[1:], penalty[..., at], criterion, min_samples_leaf
                )
                if gains is None:
                    gains = part[:, :, None]
                    break
                gains[:, :, 0, at] = part
                if passes == 1:
                    continue
                # Missing right: the last candidate is "present left, missing right".
                np.copyto(gains[:, :, 0, at], -np.inf, where=i_at >= n_p)
                if not nm.any():
                    gains[:, :, 1, at] = -np.inf
                    continue
                # Missing left: n_missing more rows on the left of every candidate.
                allowed = i_at >= lo
                allowed &= i_at <= hi
                gains[:, :, 1, at] = _block_gains(
                    prefix,
                    i_at,
                    *args[1:],
                    np.where(allowed, 0.0, -np.inf),
                    criterion,
                    min_samples_leaf,
                    extra,
                    nm,
                )
            # A threshold never separates equal values (features with many ties).
            _refuse_equal(gains, refuse[fs], idx, fs, values)
            return gains, idx

        def group_choice(s):
            """Each group's best gain and first position within its tolerance, slots ``s``."""
            gains, idx = gains_of(s, refused_first)
            best = gains.max(axis=-1)  # (c, f, passes)
            first = np.argmax(gains >= lowest_allowed(best)[..., None], axis=-1)
            fs = feat[:, s]
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
                    _refuse_equal(
                        sub[:, None], True, idx[again][:, None], fs[again][:, None], values
                    )
                    best[again] = sub.max(axis=-1)
                    which = np.nonzero(again)[0]
                    near = sub >= lowest_allowed(best[again], which)[..., None]
                    first[again] = np.argmax(near, axis=-1)
            return best, first

        def direct_choice(unused):
            """Each node's winning group and position, from all its gains at once.

            Features with a few ties: only each node's maximum and winner are
            checked, and the nodes where one of them sits between equal values
            choose again with those positions refused.
            """
            gains, idx = gains_of(slice(None), refused_first)
            if draws is not None:
                gains[unused] = -np.inf
            flat = gains.reshape(c, -1)
            best, first = tie_choice(flat)
            if checked_after[feat].any():
                between = np.zeros(c, dtype=bool)
                for position in (flat.argmax(axis=1), first):
                    s_, k_ = position // (passes * (L - 1)), position % (L - 1)
                    j_ = feat[block, s_]
                    x_k = values(idx[block, s_, k_], j_)
                    between |= checked_after[j_] & (x_k >= values(idx[block, s_, k_ + 1], j_))
                again = np.flatnonzero(between & np.isfinite(best))
                if again.size:
                    sub = gains[again]
                    _refuse_equal(sub, checked_after[feat[again]], idx[again], feat[again], values)
                    best[again], first[again] = tie_choice(sub.reshape(again.size, -1), again)
            return best, *np.divmod(first, L - 1)

        # A node's candidates in tie-break order: by slot, then missing right
        # before missing left, then position.
        unused = np.arange(n_slots) >= n_drawn[nodes, None]  # padding slots (draws)
        step = max(1, _CHUNK_CELLS // (c * L * passes))
        if step >= n_slots:  # one chunk: all the candidates at once, the direct rule
            best, group, k = direct_choice(unused)
        else:  # a few slots at a time, each group keeping its best
            group_best = np.empty((c, n_slots, passes))
            group_first = np.empty((c, n_slots, passes), dtype=np.intp)
            for first_slot in range(0, n_slots, step):
                s = slice(first_slot, min(first_slot + step, n_slots))
                group_best[:, s], group_first[:, s] = group_choice(s)
            if draws is not None:
                group_best[unused] = -np.inf  # both passes
            flat = group_best.reshape(c, -1)
            best, group = tie_choice(flat)
            k = group_first.reshape(c, -1)[block, group]
            # Rare: the chosen group's own best is lower than the node's (a near
            # tie between features): its first position within the node's
            # tolerance, from its gains again, every tie refused.
            again = np.isfinite(best) & (flat[block, group] < best)
            for s in np.unique(group[again] // passes):
                redo = np.flatnonzero(again & (group // passes == s))
                gains, _ = gains_of(slice(s, s + 1), has_ties)
                gains = gains[redo, 0, group[redo] % passes]
                k[redo] = np.argmax(gains >= lowest_allowed(best[redo], redo)[:, None], axis=1)
        found = np.isfinite(best)
        slot, goes_left = np.divmod(group, passes)
        goes_left = goes_left.astype(bool)
        j = feat[block, slot]
        # The winners' rows, sorted by their feature: (c, L).
        rows_j = orders.take(pos + (j * stride)[:, None])
        lower = values(rows_j[block, k], j)
        upper = values(rows_j[block, k + 1], j)
        nm = n_missing[block, slot]
        # Score each winner again with grow_tree's formula from exact prefix sums
        # (same order of additions), so min_impurity_decrease sees the same number.
        # A bincount adds each winner's first k + 1 rows one by one, in order.
        win_rows = rows_j[:, :-1][i <= k[:, None]]
        owner = np.repeat(block, k + 1)
        win_left = [np.bincount(owner, weights=col.take(win_rows), minlength=c) for col in cols]
        if passes == 2:  # the winners' missing sums, every column, if they go left
            at = (nodes, column[j])  # goes_left: j has missing values
            win_left = [
                np.where(goes_left, part + sums[at], part)
                for part, sums in zip(win_left, missing_sums, strict=True)
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
        direction = np.where(nm > 0, goes_left, n_left > m - n_left)
        winners = (best_f, best_t, best_s, best_m)
        _store(winners, found, nodes, j, threshold, score, direction)

    for nodes in _size_classes(sizes[candidates], slots * passes):
        search(candidates[nodes])
    return best_f, best_t, best_s, best_m


def _refuse_equal(gains, refuse, idx, features, values) -> None:
    """Refuse (gain ``-inf``) the positions between two equal values, in place.

    ``gains`` is ``(c, f, passes, L - 1)``, ``idx`` the rows sorted by the
    ``features`` ``(c, f)`` it scores, and ``refuse`` (per (node, feature), or
    True) says where to look.
    """
    refuse = np.broadcast_to(refuse, features.shape)
    if not refuse.any():
        return
    if refuse.all():
        xs = values(idx, features[:, :, None])
        np.copyto(gains, -np.inf, where=(xs[..., :-1] >= xs[..., 1:])[:, :, None])
        return
    xs = values(idx[refuse], features[refuse][:, None])
    sub = gains[refuse]  # (groups, passes, L - 1)
    np.copyto(sub, -np.inf, where=(xs[:, :-1] >= xs[:, 1:])[:, None])
    gains[refuse] = sub


def _lowest_allowed(gain, const, w_t, impurity):
    """The lowest gain within the tie tolerance of ``gain``, node by node (first axis).

    ``const - gain`` over ``w_t`` is the score (:func:`_gains`); the
    tolerance is relative to the node's ``impurity`` and to that score, as in
    :func:`climbing_trees.choose_best`.
    """
    shape = (-1,) + (1,) * (np.ndim(gain) - 1)
    w_t = np.reshape(w_t, shape)
    score = (np.reshape(const, shape) if np.ndim(const) else const) - gain
    score /= w_t
    tol = TIE_RTOL * np.maximum(np.abs(np.reshape(impurity, shape)), np.abs(score)) * w_t
    return gain - tol


def _tie_choice(flat, const, w_t, impurity):
    """Each node's best gain, and its first candidate within the tie tolerance of it.

    ``flat`` holds a node's gains per row in tie-break order
    (:func:`_lowest_allowed`).
    """
    best = flat.max(axis=1)
    return best, np.argmax(flat >= _lowest_allowed(best, const, w_t, impurity)[:, None], axis=1)


def _mixed_splits(
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
    method,
    min_samples_level,
    max_candidates,
    draws=None,
):
    """Add the categorical features to the numerical winners of a level's nodes.

    As in ``grow_tree``: each categorical feature's best split (by its own
    tie rule), then the first of the numerical winner and those splits, by
    feature index, whose score is within the tie tolerance of the best.
    Returns feature, threshold (NaN at categorical splits), score and the
    compact sets of the winners (:mod:`climbing_trees._category_sets`):
    ``(unseen_left, set_node, set_level)``, where unseen levels go and the
    (node, level) pairs that go the other way, sorted by node and level.
    """
    n_nodes = len(impurity)
    features = [np.where(best_f >= 0, best_f, np.iinfo(np.intp).max)]
    scores = [np.where(best_f >= 0, best_s, np.inf)]
    sets = []
    for j in cat_features:
        n_levels = int(n_categories[j])
        if draws is not None and draws["random"]:
            score, pair_node, pair_level, pair_left, w_left, w_right = _random_categorical_splits(
                codes[j][index_rows],
                node_of_pos,
                n_nodes,
                n_levels,
                phi,
                searchable,
                criterion,
                min_samples_leaf,
                min_samples_level,
                draws["keys"],
                j,
            )
        else:
            score, pair_node, pair_level, pair_left, w_left, w_right = _categorical_splits(
                codes[j][index_rows],
                node_of_pos,
                n_nodes,
                n_levels,
                phi,
                searchable,
                criterion,
                min_samples_leaf,
                method,
                min_samples_level,
                max_candidates,
            )
        score = np.where(searchable, score, np.inf)
        if draws is not None:
            score = np.where(draws["mask"][:, j], score, np.inf)
        features.append(np.where(np.isfinite(score), j, np.iinfo(np.intp).max))
        scores.append(score)
        # Unseen (and absent) levels go to the heavier side; the present levels
        # that go the other way are stored.
        unseen_left = unseen_goes_left(w_left, w_right)
        stored = encode_pairs(pair_node, pair_level, pair_left, unseen_left, n_levels)
        sets.append((unseen_left, *stored))
    features = np.stack(features, axis=1)
    scores = np.stack(scores, axis=1)
    by_feature = np.argsort(features, axis=1, kind="stable")
    features = np.take_along_axis(features, by_feature, axis=1)
    scores = np.take_along_axis(scores, by_feature, axis=1)
    best = scores.min(axis=1)
    tol = TIE_RTOL * np.maximum(np.abs(impurity), np.abs(best))
    first = np.argmax(scores <= (best + tol)[:, None], axis=1)
    nodes = np.arange(n_nodes)
    found = np.isfinite(best)
    choice = by_feature[nodes, first]  # 0: numerical, 1 + c: categorical feature c
    feature = np.where(found, features[nodes, first], -1)
    threshold = np.where(choice == 0, best_t, np.nan)
    categorical = found & (choice > 0)
    unseen_left = np.zeros(n_nodes, dtype=bool)
    set_node, set_level = [np.zeros(0, dtype=np.intp)], [np.zeros(0, dtype=np.intp)]
    for c, (unseen, pair_node, pair_level) in enumerate(sets):
        chosen = categorical & (choice == c + 1)
        unseen_left |= unseen & chosen
        keep = chosen[pair_node]
        set_node.append(pair_node[keep])
        set_level.append(pair_level[keep])
    set_node, set_level = np.concatenate(set_node), np.concatenate(set_level)
    order = np.lexsort((set_level, set_node))
    chosen_sets = (unseen_left, set_node[order], set_level[order])
    return feature, threshold, np.where(found, best, np.inf), chosen_sets


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


def _categorical_splits(
    codes,
    node_of_pos,
    n_nodes,
    n_levels,
    phi,
    searchable,
    criterion,
    msl,
    method,
    min_level,
    max_candidates=MAX_CATEGORICAL_CANDIDATES,
):
    """Best split of one categorical feature in every node of a level.

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
    classes each node calls grow_tree's search
    (:func:`climbing_trees.auto_split`'s exact search) instead.
    """
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
        # Three or more classes: where multiclass_plan goes past the scan (3+
        # classes and 4+ levels present), grow_tree's own search node by node,
        # on the same level statistics cut to the same width (its largest code).
        class_sums = np.stack(
            [
                np.bincount(s_node, weights=s_stats[:, c], minlength=n_nodes)
                for c in range(phi.shape[1])
            ],
            axis=1,
        )
        n_classes = (class_sums > 0).sum(axis=1)
        beyond = (n_classes[candidates] >= 3) & (n_present[candidates] >= 4)
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


def _random_categorical_splits(
    codes, node_of_pos, n_nodes, n_levels, phi, searchable, criterion, msl, min_level, keys, j
):
    """One random left set of categorical feature ``j`` in every node of a level.

    The (node, level) pairs present, found by one sort of the rows, their
    statistics, pooled as in :func:`_categorical_splits`, then
    :func:`climbing_trees._random.random_pair_sets` and
    :func:`climbing_trees._random.pair_set_scores`, the functions
    ``grow_tree`` calls.  Memory follows the rows, never nodes times levels.
    Returns what :func:`_categorical_splits` returns.
    """
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
    regression = criterion not in CLASSIFICATION_CRITERIA
    node_sum = level_stats.sum(axis=1)  # the node's statistics, summed level by level
    columns = list(np.moveaxis(level_stats, -1, 0))
    w_level = columns[0] if regression else _sum_last(columns)
    node_columns = [c[:, None] for c in node_sum.T]
    total, parent = _impurity(node_columns, criterion)
    n_total = counts.sum(axis=1)[:, None]

    candidates = []  # (score, levels-left mask, w_left, w_right) blocks, in tie order
    classes = level_stats.shape[-1]
    scan = method in ("partition", "auto")
    one_vs_rest = method == "one_vs_rest" or (method == "auto" and not regression and classes > 2)
    if scan:
        with np.errstate(divide="ignore", invalid="ignore"):
            if regression:
                key = columns[1] / w_level
            elif classes <= 2:
                key = columns[-1] / w_level
            else:
                # Three or more classes: an eigenvector per node.  Its sign is
                # fixed by its largest entry, so near-equal entries make it
                # sensitive to rounding; calling grow_tree's own function on
                # the same level statistics keeps the very same order.
                key = np.full((n_nodes, n_levels), np.nan)
                for node in np.flatnonzero(n_present >= 2):
                    here = np.flatnonzero(present[node])
                    stats_here = level_stats[node, here]
                    key[node, here] = _principal_component_key(
                        stats_here, total_weight(stats_here, criterion)
                    )
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
    if one_vs_rest:
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
    best = scores.min(axis=1)
    tol = TIE_RTOL * np.maximum(np.abs(parent[:, 0]), np.abs(best))
    first = np.argmax(scores <= (best + tol)[:, None], axis=1)
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


def _partition(rows, kept_rows, kept_node, go_left, sizes, split):
    """Stable partition of every order, in place: split nodes' rows into their children.

    ``kept_rows`` are the rows of split nodes (``kept_node`` their nodes) and
    ``go_left`` says where each goes.  Rows of nodes that became leaves leave
    the orders.  The next level lists the left children of the split nodes, in
    the parents' order, then their right children:
    ``[left_0, left_1, ..., right_0, right_1, ...]``, and the padding row
    after them.  Returns the children's sizes.
    """
    m = int(sizes.sum())
    pad_row = rows.shape[1] - 1  # row id n, the padding
    to_left = np.zeros(pad_row + 1, dtype=bool)
    to_left[kept_rows] = go_left
    is_kept = np.zeros(pad_row + 1, dtype=bool)
    is_kept[kept_rows] = True
    n_left = np.bincount(kept_node, weights=go_left, minlength=sizes.size)[split]
    n_left = n_left.astype(np.intp)
    child_sizes = np.concatenate([n_left, sizes[split] - n_left])
    lefts_end = int(n_left.sum())
    rights_end = int(child_sizes.sum())
    # Stable partition: boolean selection keeps the order, and every order has
    # the same number of left (right) rows, so the selections stay rectangular.
    # A few orders at a time (_CHUNK_CELLS cells), so the temporaries stay small.
    step = max(1, _CHUNK_CELLS // max(m, 1))
    for first in range(0, rows.shape[0], step):
        current = rows[first : first + step, :m]
        left_mask = to_left.take(current)
        right_mask = is_kept.take(current)
        right_mask &= ~left_mask
        # np.compress on flat arrays is much faster than a[mask]
        flat = current.ravel()
        lefts = np.compress(left_mask.ravel(), flat).reshape(len(current), -1)
        rights = np.compress(right_mask.ravel(), flat).reshape(len(current), -1)
        current[:, :lefts_end] = lefts
        current[:, lefts_end:rights_end] = rights
    rows[:, rights_end] = pad_row  # the padding, after the next level's rows
    return child_sizes


def _preorder_tree(
    nodes: dict, level_sizes: list, set_nodes: list, set_levels: list, width: int, criterion=""
) -> Tree:
    """Assemble the Tree, renumbering nodes from level order to preorder.

    ``nodes`` holds the nodes' arrays level after level (``level_sizes``
    nodes each); ``set_nodes`` and ``set_levels`` the categorical sets of
    each level.  The buffers of ``nodes`` are emptied as the Tree's arrays
    are made.
    """
    total = int(sum(level_sizes))
    base = np.cumsum([0] + level_sizes)
    # The split nodes of each level, in level-order ids.  Their children make
    # the next level: the left children first, in order, then the right ones.
    split = nodes.pop("split")
    parents = [
        base[li] + np.flatnonzero(split[base[li] : base[li + 1]])
        for li in range(len(level_sizes) - 1)
    ]
    del split
    n_split = [len(here) for here in parents]

    def children(li):
        """The level-order ids of the left and right children of level ``li``'s parents."""
        first, k = base[li + 1], n_split[li]
        return slice(first, first + k), slice(first + k, first + 2 * k)

    # Subtree sizes, bottom-up one level at a time.
    subtree = np.ones(total, dtype=np.intp)
    for li in range(len(parents) - 1, -1, -1):
        left, right = children(li)
        subtree[parents[li]] += subtree[left] + subtree[right]
    # Preorder ids, top-down: left child right after its parent, right child
    # after the left child's subtree.
    pre = np.zeros(total, dtype=np.intp)
    children_left = np.full(total, TREE_LEAF, dtype=np.intp)
    children_right = np.full(total, TREE_LEAF, dtype=np.intp)
    for li, here in enumerate(parents):
        left, right = children(li)
        pre[left] = pre[here] + 1
        pre[right] = pre[left] + subtree[left]
        children_left[pre[here]] = pre[left]
        children_right[pre[here]] = pre[right]
    del subtree, parents

    def arrange(key):
        # In preorder.  A buffer not much longer than the tree becomes the
        # Tree's array, reordered in place: the Tree takes no memory of its own.
        buffer = nodes.pop(key)
        out = buffer[:total]
        if 2 * total < len(buffer):  # a small tree: an array of its own size
            result = np.empty_like(out)
            result[pre] = out
            return result
        out[pre] = out.copy()
        return out

    # Categorical sets: level-order node ids to preorder, then packed by node.
    set_nodes, set_levels = np.concatenate(set_nodes), np.concatenate(set_levels)
    # Without categorical splits, the Tree's own empty sets (lazily zero pages).
    start = stop = packed = None
    if set_nodes.size:
        start, stop, packed = pack(pre[set_nodes], set_levels, total)
    names = {
        "feature": "feature",
        "threshold": "threshold",
        "value": "value",
        "impurity": "impurity",
        "n_node_samples": "n",
        "weighted_n_node_samples": "w",
        "categories_unseen_left": "unseen_left",
        "missing_go_to_left": "missing_go_to_left",
    }
    arrays = {name: arrange(key) for name, key in names.items()}
    arrays["value"] = value_by_output(arrays["value"], criterion)
    return Tree(
        children_left=children_left,
        children_right=children_right,
        **arrays,
        categories_start=start,
        categories_stop=stop,
        categories_levels=packed,
        categories_width=width,
    )
