"""The loop: grow a tree level by level, one level's nodes at once."""

from __future__ import annotations

import numpy as np

from .._categorical import MAX_CATEGORICAL_CANDIDATES
from .._category_sets import SetRouter
from .._pruning import BestFirstBound
from .._random import RandomSplits, child_keys
from .._ties import enough_decrease
from .._tree import Tree
from ._binned_rows import ROWS_SOURCE
from ._bounds import LevelBounds, check_constraints
from ._draws import _node_draws
from ._histogram_search import histogram_searches
from ._nodes import NodeArrays
from ._orders import Orders
from ._searches import searches_for
from ._state import FitData, Level, LevelSplits, fit_data, level_of, may_split
from ._support import levelwise_refusal


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
    max_bins: int | None = None,
    bin_random_state=None,
    monotonic_cst: np.ndarray | None = None,
) -> Tree:
    """Grow a tree level by level; the result equals :func:`grow_tree`'s.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        NaN in a numerical column is a missing value, as in :func:`grow_tree`.
    Y : ndarray of shape (n_samples, n_values)
        One-hot labels for classification, a target column for regression.
    sample_weight : ndarray of shape (n_samples,)
        Weights of the rows.
    criterion : {"gini", "entropy", "log_loss", "squared_error", "poisson", \
    "absolute_error"}
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
    max_bins : int, optional
        Grow a histogram tree (``splitter="hist"``): numerical features
        binned into at most ``max_bins`` bins (quantiles of at most 200,000
        rows drawn from ``bin_random_state``), searched by
        :class:`~climbing_trees._levelwise._histogram_search.Histograms`.
        Where every feature has at most ``max_bins`` distinct values and
        the fixed point holds the statistics exactly
        (:mod:`climbing_trees._histograms`), the tree is the one grown
        without.
    bin_random_state : None, int or RandomState, optional
        With ``max_bins``: draws the rows whose quantiles give the bins, when
        there are more than 200,000 (:func:`climbing_trees._binning.fit_bins`).
    monotonic_cst : ndarray of int of shape (n_features,), optional
        Monotonic constraints, as in :func:`grow_tree`
        (:mod:`climbing_trees._monotonic`): the searches refuse the candidates
        that break them, and each level's bounds and clipped values come from
        :class:`~climbing_trees._levelwise._bounds.LevelBounds`.  Not with
        absolute error (:func:`levelwise_refusal`).

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
    of the nodes that drew it (:func:`_random_numeric_splits`).

    Categorical features are searched by padded blocks of nodes, with these
    exceptions, where a Python loop over the nodes calls ``grow_tree``'s own
    function on the same level statistics: Poisson deviance and several
    outputs, at every node (:func:`_categorical_block_by_node`); with
    ``"auto"`` and three or more classes, only the nodes where
    :func:`climbing_trees._categorical.multiclass_beyond_scan` says the search
    goes past the scan (three classes of positive weight, four present
    levels): :func:`climbing_trees.auto_split`'s exact search.  With three or
    more classes the eigenvector that orders each node's levels, whose sign is
    fixed by its largest entry (a different rounding could flip it), also
    comes node by node from :func:`climbing_trees._categorical.level_order_keys`.

    Which options this builder grows, and which the estimators leave to
    :func:`climbing_trees.grow_tree`, is said in one place:
    :func:`climbing_trees._levelwise._support.builder_for`.

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
    refusal = levelwise_refusal(
        criterion, is_categorical, random_splits, monotonic_cst=monotonic_cst
    )
    if refusal is not None:
        raise ValueError(refusal)
    if monotonic_cst is not None:
        monotonic_cst = check_constraints(
            monotonic_cst, criterion, Y, is_categorical, max_bins, np.shape(X)[-1]
        )
    fit = fit_data(
        X, Y, sample_weight, criterion, max_depth=max_depth,
        min_samples_leaf=min_samples_leaf, min_weight_leaf=min_weight_leaf,
        is_categorical=is_categorical, n_categories=n_categories,
        random_splits=random_splits, min_samples_split=min_samples_split,
        min_impurity_decrease=min_impurity_decrease,
        categorical_split=categorical_split, min_samples_level=min_samples_level,
        max_categorical_candidates=max_categorical_candidates,
        monotonic_cst=monotonic_cst,
        # Histograms without categorical features read no fixed-point weight by row.
        fixed_weight_column=max_bins is None or bool(np.any(is_categorical)),
        # Rows kept elsewhere (a Dask fit's workers) give the draws their ranges: no
        # copy of X by feature (the client's X is a placeholder).
        by_feature=max_bins is None or ROWS_SOURCE.get() is None,
    )  # fmt: skip
    if max_bins is None:
        orders = Orders(fit)  # every numerical feature sorted once, at the root
        searches = searches_for(fit, orders)  # the variants, chosen once
    else:  # binned once instead (splitter="hist")
        fit, orders, searches = histogram_searches(fit, max_bins, bin_random_state)
    nodes = NodeArrays(fit.n, fit.min_samples_leaf, max_depth, fit.Y.shape[1])
    monotonic = LevelBounds.of(fit)  # monotonic constraints' bounds (or None)
    bound = None if max_leaf_nodes is None else BestFirstBound(max_leaf_nodes)
    W = float(fit.w.sum())
    sizes = np.array([fit.n], dtype=np.intp)  # rows of each node of the level
    keys = None if random_splits is None else random_splits.root_keys()  # per node
    depth = 0
    while sizes.size:
        level = level_of(fit, orders.index_rows(int(sizes.sum())), sizes, keys, depth)
        if monotonic is not None:  # the level's bounds, its values clipped
            monotonic.enter(level)
        level.searchable = may_split(fit, level)
        if bound is not None and depth:  # splits best-first growth surely cuts
            last = [nodes.last_level(name) for name in ("w", "impurity", "split")]
            level.searchable &= bound.update(*last, level.w_node, level.impurity)
        found = LevelSplits.none(level.n_nodes)
        if level.searchable.any() and fit.d:
            if random_splits is not None:
                level.draws = _node_draws(fit, orders, level)
            candidates = [c for search in searches for c in search.search(level)]
            found = LevelSplits.best_of(candidates, level.impurity)  # one choice
        with np.errstate(invalid="ignore"):  # 0 * inf: a node without weight or split
            enough = enough_decrease(
                level.w_node, W, level.impurity, found.score, fit.min_impurity_decrease
            )
        split = (found.feature >= 0) & enough
        made = found.made(split)
        nodes.store(level, made, split)
        if not split.any():
            break
        if monotonic is not None:
            monotonic.leave(made.feature, split)
        # Hook: rows kept elsewhere (a Dask fit's workers, climbing_trees._dask) route
        # themselves; in memory, _routes reads X here.
        remote = getattr(orders, "routes", None)
        if remote is not None:
            routes = remote(level, made, split)
        else:
            routes = _routes(fit, level, made, split)
        level = None  # its per-row arrays: freed before the next level's are made
        sizes = orders.partition(*routes, sizes, split)
        del routes  # likewise
        if not sizes.all():  # a split the search chose always leaves rows on each side
            raise RuntimeError(
                "grow_tree_levelwise routed every row of a node to one side; this is a "
                "bug in climbing_trees: please report it with the data that shows it."
            )
        if keys is not None:  # the next level: left children, then right children
            parents = keys[split]
            keys = np.concatenate([child_keys(parents, side) for side in (True, False)])
        depth += 1
    del orders, level  # the tree's arrays come next
    return nodes.tree(fit.width, fit.criterion)


def _routes(fit: FitData, level: Level, made: LevelSplits, split: np.ndarray):
    """The rows of split nodes, their nodes, and which way each goes.

    ``x <= threshold``, the learned direction where ``x`` is missing, or the
    membership of its level in the node's set (the threshold is NaN at
    categorical nodes).
    """
    node_of_pos = level.positions_nodes()
    keep = split[node_of_pos]
    kept_rows = np.compress(keep, level.index_rows)
    kept_node = np.compress(keep, node_of_pos)
    del keep
    # X[row, feature] through the flat view; in place, one row-sized temporary at a time
    index = kept_rows.astype(np.intp)
    index *= fit.row_step
    step = made.feature.take(kept_node)
    step *= fit.column_step
    index += step
    del step
    x = fit.X_flat.take(index)
    del index
    go_left = numeric_goes_left(x, made.threshold.take(kept_node), made.missing_left, kept_node)
    if fit.cat_features.size:
        sets = (made.unseen_left, made.set_node, made.set_level)
        set_goes_left(made.threshold, sets, fit.width, kept_node, x, go_left)
    return kept_rows, kept_node, go_left


def set_goes_left(threshold, sets, width: int, node, x, go_left) -> None:
    """Overwrite ``go_left`` at the rows of categorical nodes (threshold NaN): whether
    their level codes ``x`` are in their ``node``'s set.  ``sets``: the level's
    ``(unseen_left, set_node, set_level)`` (:class:`LevelSplits`); the one rule of
    every row router of a level (in memory, and a Dask worker's rows)."""
    unseen_left, set_node, set_level = sets
    i = np.flatnonzero(np.isnan(threshold).take(node))
    n_listed = np.bincount(set_node, minlength=threshold.size)
    stop = np.cumsum(n_listed)
    router = SetRouter(unseen_left, stop - n_listed, stop, set_level, width, np.unique(node[i]))
    go_left[i] = router.goes_left(node[i], x[i])


def numeric_goes_left(x, threshold, missing_left, node) -> np.ndarray:
    """Which rows go left at a numerical split: ``x <= threshold``, and where ``x`` is
    missing the learned direction of the row's ``node`` (``missing_left[node]``)."""
    go_left = x <= threshold
    nan = np.flatnonzero(np.isnan(x))  # missing: the node's learned direction
    if nan.size:
        go_left[nan] = missing_left[node[nan]]
    return go_left
