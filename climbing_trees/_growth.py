"""Greedy, depth-first growth of a tree with stopping rules.

Chapter 2 of the book ("The naive split search and greedy growth") explains
this module.  CART grows a tree greedily: find the best split of a node, send
its rows to two children, and repeat on each child until a stopping rule says
the node is a leaf (Breiman et al. 1984, ch. 2).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ._categorical import (
    MAX_CATEGORICAL_CANDIDATES,
    CategoricalSplit,
    best_categorical_split,
    categories_left_row,
)
from ._category_sets import encode_row, pack, pack_sides
from ._criteria import (
    CLASSIFICATION_CRITERIA,
    node_impurity,
    node_value,
    value_by_output,
)
from ._exact_weights import fixed_weights, leaf_minimum, too_light
from ._fractional import fractional_children
from ._incremental import prefix_sum_best_split
from ._monotonic import (
    NodeConstraints,
    builder_constraints,
    check_constrained_fit,
    child_bounds,
    child_values,
    clip_values,
)
from ._naive import Split
from ._random import RandomSplits, child_keys, random_node_split
from ._surrogates import best_present_split, route_with_surrogates
from ._ties import best_of, enough_decrease
from ._tree import TREE_LEAF, TREE_UNDEFINED, Tree
from ._wavelet import wavelet_best_split

SplitFinder = Callable[[np.ndarray, np.ndarray, np.ndarray, str, int], "Split | None"]


def check_training_rows(X) -> None:
    """Both builders need a row to grow a tree from (the estimators check first)."""
    if len(X) == 0:
        raise ValueError("X has no rows to grow a tree from; pass at least one row.")


def grow_tree(
    X: np.ndarray,
    Y: np.ndarray,
    sample_weight: np.ndarray,
    *,
    criterion: str,
    max_depth: int | None = None,
    min_samples_split: int = 2,
    min_samples_leaf: int = 1,
    min_impurity_decrease: float = 0.0,
    find_split: SplitFinder | None = None,
    is_categorical: np.ndarray | None = None,
    n_categories: np.ndarray | None = None,
    categorical_split: str = "auto",
    min_samples_level: int = 1,
    max_categorical_candidates: int = MAX_CATEGORICAL_CANDIDATES,
    missing_values: str = "learn",
    max_surrogates: int = 5,
    min_weight_leaf: float = 0.0,
    random_splits: RandomSplits | None = None,
    surrogate_weight: np.ndarray | None = None,
    monotonic_cst: np.ndarray | None = None,
) -> Tree:
    """Grow a tree depth first and return it as a :class:`Tree`.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        NaN in a numerical column is a missing value (chapter 9): each split
        learns where such rows go (:mod:`climbing_trees._missing`).
    Y : ndarray of shape (n_samples, n_values)
        One-hot labels for classification, a target column for regression;
        with several outputs, their blocks side by side.
    sample_weight : ndarray of shape (n_samples,)
        Weights of the rows.
    criterion : {"gini", "entropy", "log_loss", "squared_error", "poisson", "absolute_error"}
        For several outputs, an :class:`climbing_trees.OutputLayout` naming
        the criterion and each output's number of columns in ``Y``
        (:func:`climbing_trees.output_criterion`); the tree's ``value`` then
        has one row per output.
    max_depth : int or None
        A node at this depth is a leaf.  ``None``: no limit.
    min_samples_split : int
        A node with fewer rows is a leaf.
    min_samples_leaf : int
        Every leaf keeps at least this many rows.  A candidate split that
        would leave fewer on either side is skipped, and the search goes on
        with the other candidates.
    min_impurity_decrease : float
        A split is made only if ``W_t / W * (I_t - score) >= min_impurity_decrease``,
        where ``W`` is the total training weight (scikit-learn's definition),
        up to a rounding allowance relative to ``W_t / W * I_t``
        (:func:`climbing_trees.enough_decrease`).
    find_split : callable, optional
        The split search: :func:`naive_best_split`, :func:`incremental_best_split`
        or :func:`prefix_sum_best_split` (all give the same tree).  It sees
        the numerical columns only.  Defaults to :func:`prefix_sum_best_split`,
        and to :func:`wavelet_best_split` for ``"absolute_error"``, whose
        medians have no prefix sums (:func:`default_split_search`).
    is_categorical : ndarray of bool of shape (n_features,), optional
        Which columns are categorical; they hold level codes ``0, 1, ...`` as
        floats.  ``None``: every column is numerical.
    n_categories : ndarray of int of shape (n_features,), optional
        Number of levels of each categorical column (0 for numerical ones);
        defaults to the largest code seen plus one.
    categorical_split : {"auto", "one_vs_rest", "partition"}
        Search for categorical columns (chapters 6 and 7); see
        :mod:`climbing_trees._categorical`, which also describes how the tree
        stores a categorical split and where unseen levels go.
    min_samples_level : int
        At each node, levels of a categorical column with fewer rows than this
        are pooled into one group that goes to one side
        (:func:`climbing_trees.pool_rare_levels`); 1 pools nothing.
    max_categorical_candidates : int
        With ``categorical_split="auto"`` and three or more classes, the most
        candidate partitions the exact search may score per feature and node
        (:func:`climbing_trees.multiclass_plan`); past it a heuristic runs.
    missing_values : {"learn", "surrogate", "fractional"}
        How NaN in numerical columns is handled (chapter 9): ``"learn"``,
        scikit-learn's learned direction (:mod:`climbing_trees._missing`);
        ``"surrogate"``, CART's surrogate splits
        (:mod:`climbing_trees._surrogates`); ``"fractional"``, C4.5's
        fractional rows (:mod:`climbing_trees._fractional`): a row missing
        the split feature goes down both children with shares of its weight,
        so each node carries its rows' weights, not ``sample_weight[rows]``.
    max_surrogates : int
        With ``"surrogate"``: the most surrogates kept per node.
    surrogate_weight : ndarray of shape (n_samples,) or None
        With ``"surrogate"``: the weights of the surrogate search, of its
        agreement and of the majority rule for rows no surrogate places;
        ``None``, ``sample_weight``.  rpart's ``surrogate.c`` counts the case
        weights there, not the altered priors of a loss matrix (chapter 10),
        which only the primary split's improvement sees.
    min_weight_leaf : float
        Every leaf keeps at least this much sample weight (scikit-learn's
        ``min_weight_fraction_leaf`` times the total weight): a node lighter
        than twice it is a leaf, and a candidate leaving less on either side
        is refused (:class:`climbing_trees._ties.LeafMinimum`).
    random_splits : RandomSplits, optional
        A random feature subset per node and/or random thresholds
        (``max_features``, ``splitter="random"``); every node draws from its
        own key, so :func:`grow_tree_levelwise` draws the same
        (:mod:`climbing_trees._random`).  ``None``: the deterministic search.
    monotonic_cst : ndarray of int of shape (n_features,), optional
        Monotonic constraints (chapter 5, :mod:`climbing_trees._monotonic`):
        1, the value never decreases along the feature; -1, never increases;
        0, free.  The value is the regression mean (median for absolute
        error) or, with two classes, the second class's proportion.
        Candidates that break a constraint are refused, bounds pass down the
        tree and every node's value is clipped to its bounds, as in
        scikit-learn.  Every criterion, with two classes for classification,
        one output, numerical constrained features, ``missing_values="learn"``
        and the default ``find_split``; anything else raises ``ValueError``.

    Returns
    -------
    Tree
        The grown tree, node ids in depth-first preorder.

    Notes
    -----
    A node is a leaf when any of these hold: it is at ``max_depth``; it has
    fewer than ``min_samples_split`` or fewer than ``2 * min_samples_leaf``
    rows; it is pure (all its rows with positive weight share one label); no
    allowed split exists; or the best split decreases impurity by less than
    ``min_impurity_decrease``.  Node ids are assigned in depth-first preorder,
    left child first, as in scikit-learn.

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> Y = np.array([[1.0], [1.0], [5.0], [5.0]])
    >>> tree = grow_tree(X, Y, np.ones(4), criterion="squared_error")
    >>> tree.node_count, float(tree.threshold[0]), tree.value[1:, 0, 0].tolist()
    (3, 1.5, [1.0, 5.0])
    """
    check_training_rows(X)
    if find_split is None:
        find_split = default_split_search(criterion)
    # Weights are compared with bounds in exact fixed point (_exact_weights).
    min_samples_leaf = leaf_minimum(min_samples_leaf, min_weight_leaf, sample_weight)
    classifier = criterion in CLASSIFICATION_CRITERIA
    cst = None
    if monotonic_cst is not None:
        monotonic_cst = check_constrained_fit(
            monotonic_cst, criterion, Y, is_categorical, missing_values, find_split,
            X.shape[1],
        )  # fmt: skip
    if monotonic_cst is not None:
        cst = builder_constraints(monotonic_cst, classifier)
    search = NodeSearch(
        X,
        criterion,
        min_samples_leaf,
        find_split,
        is_categorical,
        n_categories,
        categorical_split,
        min_samples_level,
        max_categorical_candidates,
        random_splits,
        cst,
    )
    depth_limit = np.inf if max_depth is None else max_depth
    W = float(sample_weight.sum())
    nodes: list[dict] = []
    fractional = missing_values == "fractional"
    # Each stack entry: (row indices, their weights, depth, parent id, is it the
    # left child?, key, the node's bounds for monotonic constraints).  The weights
    # are sample_weight[rows] but in fractional trees, where a row missing a split
    # feature reaches both children.
    root_key = np.uint64(0 if random_splits is None else random_splits.key)
    stack: list[tuple[np.ndarray, np.ndarray, int, int, bool, np.uint64, tuple]] = [
        (np.arange(len(X)), sample_weight, 0, -1, True, root_key, (-np.inf, np.inf))
    ]
    while stack:
        rows, w_t, depth, parent, is_left, key, bounds = stack.pop()
        node_id = len(nodes)
        if parent >= 0:
            nodes[parent]["left" if is_left else "right"] = node_id
        Y_t = Y[rows]
        impurity = node_impurity(Y_t, w_t, criterion)
        node = {
            "left": TREE_LEAF,
            "right": TREE_LEAF,
            "feature": TREE_UNDEFINED,
            "threshold": float(TREE_UNDEFINED),
            "value": node_value(Y_t, w_t, criterion),
            "impurity": impurity,
            "n": len(rows),
            "w": float(w_t.sum()),
            "categories_left": None,
            "missing_go_to_left": False,
            "fraction": np.nan,
        }
        if cst is not None:  # rule 3 of _monotonic: the value within the bounds
            node["value"] = clip_values(node["value"], *bounds, classifier)
        nodes.append(node)
        if (
            depth >= depth_limit
            or len(rows) < min_samples_split
            or len(rows) < 2 * min_samples_leaf
            or too_light(fixed_weights(w_t, min_samples_leaf).sum(), min_samples_leaf)
            or is_pure(Y_t, w_t)
        ):
            continue
        if missing_values in ("surrogate", "fractional"):  # on the present rows
            split = best_present_split(search, rows, Y_t, w_t, impurity, key)
        else:
            split = search.best_split(rows, Y_t, w_t, impurity, key, bounds)
        if split is None or not enough_decrease(
            node["w"], W, impurity, split.score, min_impurity_decrease
        ):
            continue
        node["feature"] = split.feature
        node["threshold"], goes_left, node["categories_left"] = search.route(
            rows, split, w_t
        )
        node["missing_go_to_left"] = bool(getattr(split, "missing_go_to_left", False))
        if missing_values == "surrogate" and not isinstance(split, CategoricalSplit):
            # Rows no surrogate places go to the heavier side of the primary's rows,
            # at fit and, through missing_go_to_left, at predict (majority_goes_left).
            goes_left, node["surrogates"], node["missing_go_to_left"] = (
                route_with_surrogates(
                    search.X[rows],
                    split,
                    w_t if surrogate_weight is None else surrogate_weight[rows],
                    max_surrogates,
                    search.categorical,
                    search.n_categories,
                )
            )
        left, right = (goes_left, w_t[goes_left]), (~goes_left, w_t[~goes_left])
        if fractional and not isinstance(split, CategoricalSplit):
            # C4.5: a row missing the feature goes both ways, by the present rows'
            # shares.
            left, right, node["fraction"] = fractional_children(
                search.X[rows, split.feature], split.threshold, w_t
            )
            node["missing_go_to_left"] = (
                node["fraction"] > 0.5
            )  # apply's heaviest branch
        side_bounds = {True: bounds, False: bounds}
        if cst is not None:  # rule 2 of _monotonic: the children's bounds
            values = child_values(Y_t, w_t, goes_left, criterion)
            medians = criterion == "absolute_error"
            side_bounds[True], side_bounds[False] = child_bounds(
                cst[split.feature], *bounds, *values, medians
            )
        # Push the right child first so that the left child is numbered next.
        for (side, w_side), is_left in ((right, False), (left, True)):
            child = (
                rows[side],
                w_side,
                depth + 1,
                node_id,
                is_left,
                child_keys(key, is_left),
            )
            stack.append((*child, side_bounds[is_left]))
    k = max_surrogates if missing_values == "surrogate" else 0
    return _assemble(nodes, search.width, k, criterion, fractional)


def default_split_search(criterion: str) -> SplitFinder:
    """The numerical split search ``grow_tree`` uses for ``criterion`` by default.

    >>> default_split_search("gini").__name__
    'prefix_sum_best_split'
    >>> default_split_search("absolute_error").__name__
    'wavelet_best_split'
    """
    if criterion == "absolute_error":
        return wavelet_best_split
    return prefix_sum_best_split


def _assemble(
    nodes: list[dict],
    width: int,
    max_surrogates: int = 0,
    criterion: str = "",
    fractional: bool = False,
) -> Tree:
    """The :class:`Tree` of a list of node dicts (ids in list order).

    A categorical node's set arrives compact, ``(unseen_left, levels)``
    (:func:`climbing_trees._category_sets.encode_row`), and is packed here;
    so are the level lists of categorical surrogates
    (:func:`climbing_trees._category_sets.pack_sides`).
    """
    sets = [
        (i, n["categories_left"]) for i, n in enumerate(nodes) if n["categories_left"]
    ]
    unseen_left = np.zeros(len(nodes), dtype=bool)
    unseen_left[[i for i, s in sets if s[0]]] = True
    owners = [np.full(len(s[1]), i) for i, s in sets]
    levels = [s[1] for _, s in sets]
    start, stop, levels = pack(
        np.concatenate(owners) if sets else np.zeros(0, np.intp),
        np.concatenate(levels) if sets else np.zeros(0, np.intp),
        len(nodes),
    )
    k = max_surrogates
    s_feature = np.full((len(nodes), k), -1, dtype=np.intp)
    s_threshold = np.full((len(nodes), k), np.nan)
    s_below_left = np.zeros((len(nodes), k), dtype=bool)
    s_slot, s_level, s_left = [], [], []  # categorical surrogates: (slot, level, side)
    for i, n in enumerate(nodes):
        for rank, s in enumerate(n.get("surrogates", ())):
            s_feature[i, rank], s_threshold[i, rank] = s.feature, s.threshold
            s_below_left[i, rank] = s.below_left
            if s.levels is not None:
                for goes_left, codes in zip((True, False), s.levels, strict=True):
                    codes = codes[codes < width - 1]  # others route as unseen anyway
                    s_slot.append(np.full(len(codes), i * k + rank))
                    s_level.append(codes)
                    s_left.append(np.full(len(codes), goes_left))
    s_start, s_stop, s_levels = pack_sides(
        np.concatenate(s_slot) if s_slot else np.zeros(0, np.intp),
        np.concatenate(s_level) if s_slot else np.zeros(0, np.intp),
        np.concatenate(s_left) if s_slot else np.zeros(0, bool),
        len(nodes) * k,
    )
    return Tree(
        children_left=np.array([n["left"] for n in nodes], dtype=np.intp),
        children_right=np.array([n["right"] for n in nodes], dtype=np.intp),
        feature=np.array([n["feature"] for n in nodes], dtype=np.intp),
        threshold=np.array([n["threshold"] for n in nodes], dtype=float),
        value=value_by_output(
            np.array([n["value"] for n in nodes], dtype=float), criterion
        ),
        impurity=np.array([n["impurity"] for n in nodes], dtype=float),
        n_node_samples=np.array([n["n"] for n in nodes], dtype=np.intp),
        weighted_n_node_samples=np.array([n["w"] for n in nodes], dtype=float),
        categories_unseen_left=unseen_left,
        categories_start=start,
        categories_stop=stop,
        categories_levels=levels,
        categories_width=width,
        missing_go_to_left=np.array(
            [n["missing_go_to_left"] for n in nodes], dtype=bool
        ),
        # No surrogates: the Tree's default (empty) arrays, as grow_tree_levelwise's.
        surrogate_feature=s_feature if k else None,
        surrogate_threshold=s_threshold if k else None,
        surrogate_below_left=s_below_left if k else None,
        surrogate_categories_start=s_start.reshape(len(nodes), k, 2) if k else None,
        surrogate_categories_stop=s_stop.reshape(len(nodes), k, 2) if k else None,
        surrogate_categories_levels=s_levels if k else None,
        missing_left_fraction=np.array([n["fraction"] for n in nodes])
        if fractional
        else None,
    )


class NodeSearch:
    """The split search at one node of :func:`grow_tree`, numerical and categorical.

    Numerical columns go to ``find_split``; categorical columns (chapter 6) to
    :func:`climbing_trees.best_categorical_split`.  Of the two winners the one
    with the lower score wins, the lower feature index on equal scores (the
    tie rule of :func:`climbing_trees.choose_best`).
    """

    def __init__(
        self,
        X,
        criterion,
        min_samples_leaf,
        find_split,
        is_categorical,
        n_categories,
        method,
        min_samples_level=1,
        max_categorical_candidates=MAX_CATEGORICAL_CANDIDATES,
        random_splits=None,
        monotonic_cst=None,
    ):
        self.random = random_splits
        self.monotonic_cst = monotonic_cst  # the builders' sign (_monotonic)
        self.bounds = (-np.inf, np.inf)  # the node's, set by best_split
        self.X, self.criterion, self.min_samples_leaf = X, criterion, min_samples_leaf
        self.find_split, self.method = find_split, method
        self.min_samples_level = min_samples_level
        self.max_categorical_candidates = max_categorical_candidates
        categorical = (
            np.zeros(X.shape[1], bool) if is_categorical is None else is_categorical
        )
        categorical = np.asarray(categorical, dtype=bool)
        self.categorical = categorical
        self.cat_features = np.flatnonzero(categorical)
        self.num_features = np.flatnonzero(~categorical)
        if n_categories is None:
            n_categories = np.zeros(X.shape[1], dtype=np.intp)
            for j in self.cat_features:
                n_categories[j] = int(X[:, j].max()) + 1 if len(X) else 0
        self.n_categories = n_categories
        self.width = int(max(np.max(n_categories, initial=0), 0)) + 1  # max_levels + 1

    def best_split(
        self, rows, Y, w, impurity, key=0, bounds=(-np.inf, np.inf)
    ) -> Split | CategoricalSplit | None:
        """The winning split of the node holding ``rows`` (its random ``key``, its
        ``bounds`` for monotonic constraints), or ``None``."""
        X, criterion, msl = self.X[rows], self.criterion, self.min_samples_leaf
        self.bounds = bounds
        if self.random is not None:
            return random_node_split(self, X, Y, w, impurity, key)
        if not self.cat_features.size:
            return self.numeric_split(X, Y, w, self.constraints(slice(None)))
        splits = []
        if self.num_features.size:
            monotonic = self.constraints(self.num_features)
            split = self.numeric_split(X[:, self.num_features], Y, w, monotonic)
            if split is not None:
                splits.append(
                    split._replace(feature=int(self.num_features[split.feature]))
                )
        split = best_categorical_split(
            X,
            Y,
            w,
            criterion,
            msl,
            self.cat_features,
            self.method,
            self.min_samples_level,
            self.max_categorical_candidates,
        )
        if split is not None:
            splits.append(split)
        return best_of(splits, impurity)

    def constraints(self, columns) -> NodeConstraints | None:
        """The node's monotonic constraints for the searched ``columns`` (or ``None``)."""
        if self.monotonic_cst is None or not self.monotonic_cst[columns].any():
            return None
        return NodeConstraints(self.monotonic_cst[columns], *self.bounds)

    def numeric_split(self, X, Y, w, monotonic=None) -> Split | None:
        """``find_split`` on numerical columns ``X``, under ``monotonic`` if given."""
        if monotonic is None:
            return self.find_split(X, Y, w, self.criterion, self.min_samples_leaf)
        return self.find_split(
            X, Y, w, self.criterion, self.min_samples_leaf, monotonic
        )

    def route(self, rows, split, w):
        """``(threshold, goes_left, set)`` of a split of ``rows``.

        A numerical split sends ``x <= threshold`` left, and a missing ``x``
        the way of ``split.missing_go_to_left``; it has no set.  A
        categorical split has threshold NaN and its
        :func:`climbing_trees.categories_left_row` (unseen levels go to the
        heavier side) in compact form, ``(unseen_left, levels)``
        (:func:`climbing_trees._category_sets.encode_row`), so that the tree
        keeps no row of ``max_levels + 1`` entries per node.
        """
        x = self.X[rows, split.feature]
        if not isinstance(split, CategoricalSplit):
            goes_left = np.where(
                np.isnan(x), split.missing_go_to_left, x <= split.threshold
            )
            return split.threshold, goes_left, None
        codes = x.astype(np.intp)
        goes_left = np.isin(codes, split.levels_left)
        present = np.bincount(codes, minlength=self.width - 1) > 0
        weights = w[goes_left].sum(), w[~goes_left].sum()
        row = categories_left_row(split.levels_left, present, *weights, self.width)
        return np.nan, goes_left, encode_row(row)


def is_pure(Y: np.ndarray, sample_weight: np.ndarray) -> bool:
    """True when every row with positive weight has the same label.

    Parameters
    ----------
    Y : ndarray of shape (n_samples, n_columns)
        The node's one-hot labels or targets.
    sample_weight : ndarray of shape (n_samples,)
        Rows of zero weight are ignored.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_pure(np.array([[1.0, 0.0], [1.0, 0.0]]), np.ones(2))
    True
    >>> is_pure(np.array([[2.0], [3.0]]), np.array([1.0, 0.0]))
    True
    """
    Y = Y[sample_weight > 0]
    return bool(len(Y) == 0 or np.all(Y == Y[0]))
