"""The state of a level-wise fit in three pieces: the fit, a level, a level's winners.

:class:`FitData` holds what stays fixed for the whole fit (the data, read in
place, the options and the kinds of features), as one frozen object;
:class:`Level` one depth's nodes (sizes, rows, statistics, impurity, values,
draws); :class:`LevelSplits` each node's winner (feature, threshold, score,
missing side, categorical sets), what every search returns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .._criteria import (
    CLASSIFICATION_CRITERIA,
    centring_means,
    impurity_from_statistics,
    n_outputs,
    node_statistics,
    segment_means,
    segment_ranges,
    segment_sums,
)
from .._exact_weights import fit_exponent, fixed_weights, leaf_minimum, too_light
from .._growth import check_training_rows
from .._monotonic import builder_constraints, value_statistics
from .._random import RandomSplits
from .._ties import choose_best_rows
from .._tree import TREE_UNDEFINED
from ._absolute import _absolute_error_summaries
from ._draws import Draws
from ._histogram_kernels import _node_fixed_weights, _node_weights
from ._orders import _in_place


@dataclass(frozen=True)
class FitData:
    """What a fit holds fixed: the data, the options and the kinds of features.

    ``X`` is read in place (:func:`_in_place`: ``X[i, j]`` is
    ``X_flat[i * row_step + j * column_step]``).  ``unit``: unit weights, so a
    prefix's weight is its row count; ``row_class``: with unit weights and one
    output's classes, each row's class (the padding row n: none).
    ``class_cols``: classification's per-row statistics as flat columns, padded
    with a zero at row n; ``X_by_feature``: every feature by row, padded at
    row n with -inf, for the random draws and absolute error.  ``summaries``:
    how :func:`level_of` summarises a level's nodes, chosen once
    (:func:`summaries_for`).

    Frozen means its fields are never reassigned, not that their contents are
    immutable: the arrays are the caller's or built once here and only read,
    ``codes`` is a dict (each categorical feature's integer codes by row,
    filled once by :func:`fit_data`), and ``min_samples_leaf`` may be a
    :class:`climbing_trees._ties.LeafMinimum`, an ``int`` that also carries
    the weight every leaf keeps (``min_weight_leaf``).
    """

    X: np.ndarray
    X_flat: np.ndarray
    row_step: int
    column_step: int
    Y: np.ndarray
    w: np.ndarray
    criterion: str
    depth_limit: float
    min_samples_split: int
    min_samples_leaf: int
    min_impurity_decrease: float
    min_weight_leaf: float
    num_features: np.ndarray
    cat_features: np.ndarray
    n_categories: np.ndarray
    width: int  # max_levels + 1
    codes: dict
    categorical_split: str
    min_samples_level: int
    max_categorical_candidates: int
    random_splits: RandomSplits | None
    unit: bool
    row_class: np.ndarray | None
    class_cols: np.ndarray | None
    X_by_feature: np.ndarray | None
    q_col: np.ndarray | None  # the weights in exact fixed point (_exact_weights), padded with 0
    summaries: Callable  # summaries_for(criterion): how level_of summarises a level's nodes
    # Monotonic constraints (climbing_trees._monotonic): each column's, in the
    # builders' sign, and each row's [w y, w] (y: the first value column), padded
    # with zeros at row n; None without constraints.
    monotonic_cst: np.ndarray | None = None
    value_cols: np.ndarray | None = None
    # False: level_of makes no per-row node numbers and weights (a histogram fit
    # of squared error, whose summaries and searches read neither; see level_of).
    level_rows: bool = True

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]

    @property
    def regression(self) -> bool:
        return self.criterion not in CLASSIFICATION_CRITERIA

    @property
    def absolute(self) -> bool:
        return self.criterion == "absolute_error"

    @property
    def random_splitter(self) -> bool:
        return self.random_splits is not None and self.random_splits.splitter == "random"


def fit_data(
    X,
    Y,
    sample_weight,
    criterion: str,
    *,
    max_depth: int | None,
    min_samples_leaf: int,
    min_weight_leaf: float,
    is_categorical: np.ndarray | None,
    n_categories: np.ndarray | None,
    **options,
) -> FitData:
    """The :class:`FitData` of :func:`grow_tree_levelwise`'s arguments.

    ``options``: ``min_samples_split``, ``min_impurity_decrease``,
    ``categorical_split``, ``min_samples_level``, ``max_categorical_candidates``
    and ``random_splits``, kept as they are; ``fixed_weight_column=False``
    leaves ``q_col`` None (the searches of a histogram fit without categorical
    features read no fixed-point weight by row; :func:`node_fixed_weights`
    sums them from the weights); ``by_feature=False`` leaves ``X_by_feature``
    None (a histogram fit whose rows live elsewhere, which give the random draws
    their ranges: :data:`~climbing_trees._levelwise._binned_rows.ROWS_SOURCE`).
    """
    check_training_rows(X)
    # Read in place: a C- or Fortran-ordered float array (a DataFrame's float
    # columns arrive Fortran-ordered) is not copied; other layouts and types are
    # copied once here.
    X, X_flat, row_step, column_step = _in_place(X)
    Y = np.asarray(Y, dtype=float)
    w = np.asarray(sample_weight, dtype=float)
    n, d = X.shape
    regression = criterion not in CLASSIFICATION_CRITERIA
    # With unit weights, a prefix's total weight is its row count (exactly).
    # (Not for several classification outputs: the count then stands for the
    # last class column of one output only; see _block_gains.)
    several = n_outputs(criterion) > 1
    unit = bool(np.all(w == 1.0)) and min_weight_leaf == 0 and not (several and not regression)
    # Weights compared with bounds are summed in exact fixed point (_exact_weights).
    min_samples_leaf = leaf_minimum(min_samples_leaf, min_weight_leaf, w)
    q_col = None
    if options.pop("fixed_weight_column", True):
        q_col = np.zeros(n + 1)
        q_col[:n] = fixed_weights(w, min_samples_leaf)
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
    # The random draws and the absolute-error search read every feature by row
    # (a transposed copy, padded at row n with -inf: never above its left
    # neighbour); the other searches read X in place.
    X_by_feature = None
    by_feature = options.pop("by_feature", True)
    if by_feature and (options["random_splits"] is not None or criterion == "absolute_error"):
        X_by_feature = np.empty((d, n + 1))
        X_by_feature[:, :n] = X.T
        X_by_feature[:, n] = -np.inf
    # Classification: a row's statistics (its weighted one-hot row) are the same
    # at every level, so their flat columns (padded with a zero at row n) are
    # made once; regression centres them at each node's mean, level by level.
    class_cols = None
    if not regression:
        class_cols = np.zeros((Y.shape[1], n + 1))
        class_cols[:, :n] = node_statistics(Y, w, criterion).T
    # Monotonic constraints: the builders' sign, and the statistics of a node's value.
    monotonic_cst, value_cols = options.pop("monotonic_cst", None), None
    if monotonic_cst is not None:
        monotonic_cst = builder_constraints(np.asarray(monotonic_cst, np.int8), not regression)
        value_cols = np.zeros((2, n + 1))
        value_cols[:, :n] = value_statistics(Y, w).T
    return FitData(
        monotonic_cst=monotonic_cst, value_cols=value_cols,
        X=X, X_flat=X_flat, row_step=row_step, column_step=column_step, Y=Y, w=w,
        criterion=criterion, depth_limit=np.inf if max_depth is None else max_depth,
        min_samples_leaf=min_samples_leaf, min_weight_leaf=min_weight_leaf,
        num_features=num_features, cat_features=cat_features, n_categories=n_categories,
        width=width, codes=codes, unit=unit,
        row_class=row_class, class_cols=class_cols, X_by_feature=X_by_feature, q_col=q_col,
        summaries=summaries_for(criterion), **options,
    )  # fmt: skip


@dataclass
class Level:
    """One depth's nodes: their rows (node by node), statistics and the searches' inputs.

    ``sizes``, ``starts``: each node's rows and its first position;
    ``node_of_pos``: the node of each position; ``index_rows``: the rows node
    by node in index order (as ``grow_tree`` keeps them); ``w_rows``,
    ``w_node``: their weights and each node's; ``phi``: the per-row
    statistics where a search reads them by row; ``ranks``, ``shifted``:
    absolute error's (:func:`_absolute_error_summaries`); ``searchable``:
    nodes that may split; ``draws``: their random draws, if any.
    """

    depth: int
    sizes: np.ndarray
    starts: np.ndarray
    node_of_pos: np.ndarray
    index_rows: np.ndarray
    w_rows: np.ndarray
    w_node: np.ndarray
    value: np.ndarray
    impurity: np.ndarray
    pure: np.ndarray
    keys: np.ndarray | None = None
    node_stats: np.ndarray | None = None
    phi: np.ndarray | None = None
    ranks: np.ndarray | None = None
    shifted: np.ndarray | None = None
    searchable: np.ndarray | None = None
    draws: Draws | None = None  # the level's random draws (_draws.Draws)
    # Monotonic constraints (_bounds): the nodes' bounds and sums of [w y, w].
    lower: np.ndarray | None = None
    upper: np.ndarray | None = None
    value_totals: np.ndarray | None = None

    @property
    def n_nodes(self) -> int:
        return self.sizes.size

    def positions_nodes(self) -> np.ndarray:
        """``node_of_pos``, made here for a level that keeps none (``fit.level_rows``)."""
        if self.node_of_pos is not None:
            return self.node_of_pos
        return np.repeat(np.arange(self.n_nodes), self.sizes)


def level_of(fit: FitData, index_rows, sizes, keys, depth: int) -> Level:
    """The :class:`Level` of nodes of ``sizes`` whose rows are ``index_rows``.

    Without ``fit.level_rows`` the level keeps no ``node_of_pos`` and
    ``w_rows`` (None: two numbers per row less): each node's weight is then
    summed from its rows by :func:`_node_weights`, the same additions in the
    same order as ``bincount``'s.
    """
    n_nodes = sizes.size
    starts = np.zeros(n_nodes, dtype=np.intp)
    np.cumsum(sizes[:-1], out=starts[1:])
    node_of_pos = w_rows = None
    if fit.level_rows:
        node_of_pos = np.repeat(np.arange(n_nodes), sizes)
        # Node summaries from the rows in index order (as grow_tree sums them).
        w_rows = fit.w.take(index_rows)
        w_node = np.bincount(node_of_pos, weights=w_rows, minlength=n_nodes)
    else:
        w_node = _node_weights(fit.w, index_rows, starts, sizes)
    summaries = fit.summaries(fit, index_rows, w_rows, node_of_pos, starts, sizes, w_node)
    return Level(
        depth, sizes, starts, node_of_pos, index_rows, w_rows, w_node, keys=keys, **summaries
    )


def summaries_for(criterion):
    """The function that summarises a level's nodes for ``criterion``: chosen once per fit.

    Each takes ``(fit, index_rows, w_rows, node_of_pos, starts, sizes, w_node)`` and
    returns the :class:`Level` fields it fills: ``value``, ``impurity``,
    ``pure`` and the per-row inputs its searches read.
    """
    if criterion == "absolute_error":
        return _absolute_summaries
    if criterion not in CLASSIFICATION_CRITERIA:
        return _regression_summaries
    return _class_summaries


def _absolute_summaries(fit, index_rows, w_rows, node_of_pos, starts, sizes, w_node) -> dict:
    """Absolute error: medians, ranks and shifted targets (:mod:`climbing_trees._wavelet`)."""
    Y_rows = fit.Y.take(index_rows, axis=0)  # take: several times faster than Y[index_rows]
    lo, hi = segment_ranges(Y_rows, w_rows, starts)  # each column's, per node
    value, impurity, ranks, shifted = _absolute_error_summaries(
        Y_rows, w_rows, node_of_pos, starts, sizes, w_node
    )
    return {"value": value, "impurity": impurity, "pure": _pure(lo, hi), "ranks": ranks,
            "shifted": shifted}  # fmt: skip


def _regression_summaries(fit, index_rows, w_rows, node_of_pos, starts, sizes, w_node) -> dict:
    """Squared error and Poisson deviance: means, per-row statistics and their sums."""
    n_nodes, criterion = sizes.size, fit.criterion
    Y_rows = fit.Y.take(index_rows, axis=0)  # take: several times faster than Y[index_rows]
    lo, hi = segment_ranges(Y_rows, w_rows, starts)  # each column's, per node
    value = segment_means(Y_rows, w_rows, node_of_pos, n_nodes, w_node)
    # Squared error centres each node's targets at its mean, as grow_tree does.
    phi = Y_rows
    if criterion == "squared_error":
        phi = Y_rows - centring_means(value, lo, hi).take(node_of_pos, axis=0)
    phi = node_statistics(phi, w_rows, criterion)
    node_stats = segment_sums(phi.T, node_of_pos, n_nodes)
    impurity = impurity_from_statistics(node_stats, criterion)
    return {"value": value, "impurity": impurity, "pure": _pure(lo, hi),
            "node_stats": node_stats, "phi": phi}  # fmt: skip


def _pure(lo, hi) -> np.ndarray:
    """Pure: every column constant over the rows of positive weight (a node
    without positive weight has lo = inf > hi = -inf: pure too)."""
    return np.all(lo >= hi, axis=1)


def _class_summaries(fit, index_rows, w_rows, node_of_pos, starts, sizes, w_node) -> dict:
    """Classification: the statistics are the weighted one-hot rows; their sums give the value."""
    n_nodes, criterion = sizes.size, fit.criterion
    columns = (col.take(index_rows) for col in fit.class_cols)  # no copy of them all
    node_stats = segment_sums(columns, node_of_pos, n_nodes)
    value = node_stats / w_node[:, None]
    impurity = impurity_from_statistics(node_stats, criterion)
    phi = None  # by row: only the categorical and random searches read it
    if fit.cat_features.size or fit.random_splitter:
        phi = fit.class_cols.T.take(index_rows, axis=0)
    # One-hot rows: pure when at most one class has positive weight (each
    # output's block has a class of positive weight).
    pure = np.count_nonzero(node_stats > 0, axis=1) <= n_outputs(criterion)
    return {"value": value, "impurity": impurity, "pure": pure, "node_stats": node_stats,
            "phi": phi}  # fmt: skip


def may_split(fit: FitData, level: Level) -> np.ndarray:
    """The nodes the stopping rules let a search try to split."""
    return (
        (level.depth < fit.depth_limit)
        & (level.sizes >= fit.min_samples_split)
        & (level.sizes >= 2 * fit.min_samples_leaf)
        & ~too_light(node_fixed_weights(fit, level), fit.min_samples_leaf)
        & ~level.pure
    )


def node_fixed_weights(fit: FitData, level: Level) -> np.ndarray:
    """Each node's weight in exact fixed point (integers: any order of additions)."""
    if fit.q_col is None:  # from the weights, row by row (_node_fixed_weights)
        k = fit_exponent(fit.min_samples_leaf, fit.w)
        return _node_fixed_weights(fit.w, k, level.index_rows, level.starts, level.sizes)
    q = fit.q_col.take(level.index_rows)
    return np.bincount(level.node_of_pos, weights=q, minlength=level.sizes.size)


@dataclass
class LevelSplits:
    """Each node's winner: what every search returns.

    ``feature`` -1 (score ``inf``) where no split is allowed; ``threshold``
    NaN at categorical splits; ``missing_left``: ``missing_go_to_left``.
    Categorical sets are compact (:mod:`climbing_trees._category_sets`):
    where unseen levels go, and the (node, level) pairs that go the other
    way, sorted.
    """

    feature: np.ndarray
    threshold: np.ndarray
    score: np.ndarray
    missing_left: np.ndarray
    unseen_left: np.ndarray
    set_node: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    set_level: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))

    @classmethod
    def none(cls, n_nodes: int) -> LevelSplits:
        """No node split (yet)."""
        return cls(
            np.full(n_nodes, -1, dtype=np.intp),
            np.full(n_nodes, np.nan),
            np.full(n_nodes, np.inf),
            np.zeros(n_nodes, dtype=bool),
            np.zeros(n_nodes, dtype=bool),
        )

    @classmethod
    def best_of(cls, candidates: list[LevelSplits], impurity) -> LevelSplits:
        """Each node's winner among the searches' candidates: one choice over all.

        As in ``grow_tree``: the first candidate by feature index whose score
        is within the tie tolerance of the best (:func:`choose_best_rows`),
        one comparison over every candidate, never pairwise, so near ties
        cannot chain.  Each search hands in its winners (the numerical search
        one, chosen among the numerical features by the scan's own order; a
        categorical search one per feature).
        """
        if len(candidates) == 1:
            return candidates[0]
        present = np.stack([c.feature >= 0 for c in candidates], axis=1)
        features = np.stack([c.feature for c in candidates], axis=1)
        features = np.where(present, features, np.iinfo(np.intp).max)  # sorts last
        scores = np.stack([c.score for c in candidates], axis=1)
        scores = np.where(present, scores, np.inf)
        by_feature = np.argsort(features, axis=1, kind="stable")
        scores = np.take_along_axis(scores, by_feature, axis=1)
        best, first = choose_best_rows(scores, impurity)
        nodes = np.arange(len(impurity))
        found = np.isfinite(best)
        choice = by_feature[nodes, first]  # which search's candidate won
        pick = [choice == c for c in range(len(candidates))]
        threshold = np.select(pick, [c.threshold for c in candidates])
        missing_left = np.select(pick, [c.missing_left for c in candidates])
        unseen_left = found & np.select(pick, [c.unseen_left for c in candidates])
        set_node, set_level = [], []
        for chosen, c in zip(pick, candidates, strict=True):
            keep = (chosen & found)[c.set_node]
            set_node.append(c.set_node[keep])
            set_level.append(c.set_level[keep])
        set_node, set_level = np.concatenate(set_node), np.concatenate(set_level)
        order = np.lexsort((set_level, set_node))
        feature = np.where(found, features[nodes, by_feature[nodes, first]], -1)
        score = np.where(found, scores[nodes, first], np.inf)  # as grow_tree
        return cls(
            feature, threshold, score, missing_left, unseen_left,
            set_node[order], set_level[order],
        )  # fmt: skip

    def made(self, split: np.ndarray) -> LevelSplits:
        """The splits that are made (``split``), in the Tree's form: feature and
        threshold undefined elsewhere, and no missing side or set there."""
        feature = np.full(split.size, TREE_UNDEFINED, dtype=np.intp)
        threshold = np.full(split.size, float(TREE_UNDEFINED))
        feature[split] = self.feature[split]
        threshold[split] = self.threshold[split]
        keep = split[self.set_node]
        # A categorical winner has threshold NaN: its missing level is a level.
        missing_left = split & self.missing_left & ~np.isnan(self.threshold)
        return LevelSplits(
            feature, threshold, self.score, missing_left, self.unseen_left & split,
            self.set_node[keep], self.set_level[keep],
        )  # fmt: skip
