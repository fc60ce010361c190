"""The fitted tree as plain arrays, and vectorised traversal.

Chapter 5 of the book ("Training and inference") explains this module.

A fitted tree is a handful of parallel arrays indexed by node id, named as
scikit-learn names them in ``sklearn.tree._tree.Tree``, so that a reader who
knows one knows the other and tests can compare trees array by array.  Node 0
is the root; ids follow a depth-first preorder (a node, then its whole left
subtree, then its right subtree).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ._category_sets import (
    LEVEL_DTYPE,
    SetRouter,
    SideRouter,
    dense_rows,
    dense_sides,
    pack,
    pack_sides,
)
from ._missing import missing_goes_left
from ._validation import densified, power_of_two_scale

#: ``children_left``/``children_right`` value of a leaf.
TREE_LEAF = -1
#: ``feature``/``threshold`` value of a leaf.
TREE_UNDEFINED = -2


class FlatTables(NamedTuple):
    """The lookup tables of :meth:`Tree.apply_flat` (see there)."""

    #: ``next_code[2 s + go_left]``: code of the child of the node in slot ``s``.
    next_code: np.ndarray
    #: ``threshold[2 s]`` (and ``2 s + 1``): its threshold (inf at leaves).
    threshold: np.ndarray
    #: ``missing_left[s]``: where a row missing its feature goes (``missing_go_to_left``).
    missing_left: np.ndarray
    #: ``node[s]``: its node id (int32 when the ids fit, else intp).
    node: np.ndarray
    #: ``b`` and ``2**b - 1``: a code is ``(2 s) << b | feature``.  Both 0-d
    #: arrays, which numpy combines with arrays faster than Python ints.
    shift: np.ndarray
    mask: np.ndarray
    #: Code of the root, where every row starts.
    root: int
    #: Codes from this one on are leaves.
    first_leaf: int
    #: Longest root-to-leaf path: after that many steps every row is at its leaf.
    depth: int
    #: Columns ``X`` needs: one more than the largest feature a split or surrogate reads.
    n_columns: int
    #: The steps after which to set finished rows aside (:func:`set_aside_steps`).
    set_aside: frozenset
    #: Routes rows at categorical nodes; None when the tree has none.
    router: SetRouter | None


#: Costs of :meth:`Tree.apply_flat`, in units of one row taking one step
#: (a few nanoseconds): setting finished rows aside costs a fixed amount (a
#: few numpy calls) plus a copy of every active row's state.
SET_ASIDE_FIXED = 3000
SET_ASIDE_PER_ROW = 0.5

#: :meth:`Tree.apply_flat` descends ``X`` in blocks of about this many bytes, or
#: this many rows when that is more.
BLOCK_BYTES = 1 << 22
BLOCK_ROWS = 1 << 12

#: What a :class:`Tree` builds on first use and keeps (:meth:`Tree._kept`):
#: rebuilt when needed, never pickled.
_KEPT = ("_flat_cache", "_router_cache", "_surrogate_router_cache")


def set_aside_cost(n_active: float, n_rows: int = 1) -> float:
    """Cost of setting finished rows aside, in row-steps, per row of ``n_rows``.

    :data:`SET_ASIDE_FIXED`, plus :data:`SET_ASIDE_PER_ROW` per row still in
    the arrays: ``set_aside_cost(m)`` is the cost among ``m`` active rows, and
    ``set_aside_cost(share, n_rows)`` the cost per row when a share of
    ``n_rows`` rows is active.

    >>> set_aside_cost(10_000), set_aside_cost(0.5, n_rows=1000)
    (8000.0, 3.25)
    """
    return SET_ASIDE_FIXED / n_rows + SET_ASIDE_PER_ROW * n_active


def set_aside_steps(finished: np.ndarray, n_rows: int = 1 << 15) -> np.ndarray:
    """The steps after which :meth:`Tree.apply_flat` sets finished rows aside.

    ``finished[k]`` is the number of training rows whose leaf is at depth
    ``k``, for ``k = 0 .. depth``.  Rows to predict are expected to finish in
    the same proportions; in a block of ``n_rows`` of them, each step costs
    one unit per row still in the arrays, finished or not, and setting
    finished rows aside costs :func:`set_aside_cost`.  Dynamic programming
    over the step of the next setting aside gives the cheapest schedule
    (``depth`` is at most a few dozen).  The schedule changes the time only,
    never the leaves found.

    Half the rows finish at depth 2, the others at depth 6: set the first
    half aside after step 2.  Few finish early: not worth it.

    >>> set_aside_steps(np.array([0, 0, 50, 0, 0, 0, 50])).tolist()
    [2]
    >>> set_aside_steps(np.array([0, 0, 1, 0, 0, 0, 99])).tolist()
    []
    """
    finished = [float(f) for f in finished]
    depth, total = len(finished) - 1, sum(finished)
    if total <= 0:  # no counts: every depth alike
        finished, total = [1.0] * (depth + 1), depth + 1.0
    active, done = [], 0.0  # active[k]: share of the rows still moving after step k
    for f in finished:
        done += f
        active.append(1 - done / total)
    # cost[j]: the cheapest way on after setting aside at step j (plain Python:
    # a few hundred numbers), after[j]: the next setting aside on it (depth: none).
    cost, after = [0.0] * (depth + 1), [depth] * (depth + 1)
    for j in range(depth - 1, -1, -1):
        cost[j] = (depth - j) * active[j]  # never again: every step with these rows
        fixed = set_aside_cost(active[j], n_rows)
        for k in range(j + 1, depth):
            option = (k - j) * active[j] + fixed + cost[k]
            if option < cost[j]:
                cost[j], after[j] = option, k
    steps, j = [], 0
    while after[j] < depth:
        j = after[j]
        steps.append(j)
    return np.array(steps, dtype=np.intp)


@dataclass(eq=False)
class Tree:
    """A fitted binary tree stored as arrays.

    The builders make it (an estimator's ``tree_``); pruning and prediction
    read it.  Each parameter is kept as the attribute of that name, with
    scikit-learn's names and meanings, so the two compare array by array.

    Parameters
    ----------
    children_left, children_right : ndarray of int
        Child ids of each node; ``TREE_LEAF`` (-1) for leaves.
    feature : ndarray of int
        Feature tested at each internal node; ``TREE_UNDEFINED`` for leaves.
    threshold : ndarray of float
        Rows with ``x[feature] <= threshold`` go left.
    value : ndarray of shape (node_count, 1, n_values)
        Prediction at each node: weighted class proportions, or the weighted
        mean target (as in scikit-learn >= 1.4).
    impurity : ndarray of float
        Criterion value of each node.
    n_node_samples : ndarray of int
        Number of training rows that reached each node.
    weighted_n_node_samples : ndarray of float
        Total sample weight that reached each node.
    categories_unseen_left, categories_start, categories_stop : ndarray
        Categorical splits (chapter 6), stored compactly (chapter 7, "High
        cardinality"; :mod:`climbing_trees._category_sets`).  A categorical
        node has ``threshold`` NaN.  Levels unseen at fit (code -1) and levels
        absent from the node's training rows go left when
        ``categories_unseen_left[node]`` is True; the levels listed in
        ``categories_levels[categories_start[node]:categories_stop[node]]``
        go the other way.  Other nodes: False and an empty slice.  Left as
        ``None``, ``categories_start`` and ``categories_stop`` become read-only
        zeros that take no memory (a tree without categorical splits).
    categories_levels : ndarray of int32
        The listed levels of all nodes, node after node, each node's sorted.
    categories_width : int
        ``max_levels + 1``: the length of a :attr:`categories_left` row.
    missing_go_to_left : ndarray of bool
        Where a row whose feature is missing (NaN) goes at each numerical
        node (chapter 9, scikit-learn's name): the direction learned at fit
        when the node had missing values for its feature, else the child
        with more training rows (the right one on equal counts).  In a
        surrogate tree, where rows that no surrogate places go: the heavier
        side of the rows the primary split placed, as while growing
        (:func:`climbing_trees._surrogates.majority_goes_left`).  False at
        leaves and categorical nodes (a missing level is a level).  Defaults
        to the count rule at every numerical node.
    surrogate_feature, surrogate_threshold, surrogate_below_left : ndarray
        Surrogate splits (``missing_values="surrogate"``, chapter 9), shape
        ``(node_count, max_surrogates)``, best first; feature -1 where a
        node has fewer.  A row missing its node's feature takes the first
        surrogate that can place it, then ``missing_go_to_left``.  Numerical
        surrogates send ``x <= threshold`` left when ``surrogate_below_left``
        (right otherwise); categorical ones have threshold NaN and use the
        three arrays below.  :mod:`climbing_trees._surrogates` describes
        them.  Zero columns (the default) when the tree has none.
    surrogate_categories_start, surrogate_categories_stop : ndarray of int
        Categorical surrogates, stored compactly like the categorical splits
        (:func:`climbing_trees._category_sets.pack_sides`), shape
        ``(node_count, max_surrogates, 2)``: the surrogate of rank ``r`` at
        ``node`` sends left the levels
        ``surrogate_categories_levels[start[node, r, 0]:stop[node, r, 0]]``
        and right those of ``[start[node, r, 1]:stop[node, r, 1]]``; it
        cannot place any other level (nor an unseen one).  Empty slices
        elsewhere.  :attr:`surrogate_levels` builds the dense table.
    surrogate_categories_levels : ndarray of int32
        The listed levels of all categorical surrogates, slot after slot
        (``node * max_surrogates + rank``), left list then right list, each
        sorted.  Its length is at most twice the number of (node, level)
        pairs present in the training rows, whatever the number of levels.
    missing_left_fraction : ndarray of float
        C4.5's fractional missing values (``missing_values="fractional"``,
        chapter 9, :mod:`climbing_trees._fractional`): at each numerical
        node, the left child's share ``p`` of the training weight of the
        rows whose feature is present there; a row missing it goes left with
        ``p`` of its weight and right with ``1 - p``, and :meth:`predict`
        mixes the leaves it reaches.  NaN at leaves and categorical nodes,
        and everywhere in a tree grown otherwise (left as ``None``: read-only
        NaN that take no memory).  :meth:`apply` and :meth:`decision_path`
        follow ``missing_go_to_left`` (``p > 1/2``), one path per row.

    Attributes
    ----------
    node_count, n_leaves, max_depth : int
        Nodes, leaves, and the depth of the deepest leaf (the root alone: 0).

    Notes
    -----
    :mod:`climbing_trees._categorical` describes the format of categorical
    splits, and :mod:`climbing_trees._category_sets` their compact storage.

    Examples
    --------
    A stump by hand: ``x <= 2.5`` goes to leaf 1 (class 0), the rest to leaf 2.
    A row missing ``x`` goes right: the children hold equal counts, and the
    default ``missing_go_to_left`` then picks the right one.

    >>> tree = Tree(
    ...     children_left=np.array([1, -1, -1]),
    ...     children_right=np.array([2, -1, -1]),
    ...     feature=np.array([0, -2, -2]),
    ...     threshold=np.array([2.5, -2.0, -2.0]),
    ...     value=np.array([[[0.5, 0.5]], [[1.0, 0.0]], [[0.0, 1.0]]]),
    ...     impurity=np.array([0.5, 0.0, 0.0]),
    ...     n_node_samples=np.array([4, 2, 2]),
    ...     weighted_n_node_samples=np.array([4.0, 2.0, 2.0]),
    ... )
    >>> tree.node_count, tree.n_leaves, tree.max_depth
    (3, 2, 1)
    >>> tree.apply(np.array([[1.0], [3.0], [np.nan]])).tolist()
    [1, 2, 2]
    """

    children_left: np.ndarray
    children_right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    value: np.ndarray
    impurity: np.ndarray
    n_node_samples: np.ndarray
    weighted_n_node_samples: np.ndarray
    categories_unseen_left: np.ndarray | None = None
    categories_start: np.ndarray | None = None
    categories_stop: np.ndarray | None = None
    categories_levels: np.ndarray | None = None
    categories_width: int = 1
    missing_go_to_left: np.ndarray | None = None
    surrogate_feature: np.ndarray | None = None
    surrogate_threshold: np.ndarray | None = None
    surrogate_below_left: np.ndarray | None = None
    surrogate_categories_start: np.ndarray | None = None
    surrogate_categories_stop: np.ndarray | None = None
    surrogate_categories_levels: np.ndarray | None = None
    missing_left_fraction: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.categories_unseen_left is None:
            self.categories_unseen_left = np.zeros(self.node_count, dtype=bool)
        if self.categories_start is None:
            # No categorical split: every slice is empty.  Read-only zeros that
            # take no memory (a big tree would spend 16 bytes per node on them).
            zeros = np.broadcast_to(np.zeros(1, dtype=np.intp), (self.node_count,))
            self.categories_start = self.categories_stop = zeros
        if self.categories_levels is None:
            self.categories_levels = np.zeros(0, dtype=LEVEL_DTYPE)
        self.categories_width = int(self.categories_width)
        self._default_missing_fields()

    def _default_missing_fields(self) -> None:
        """Fill the missing-value arrays left as None (trees grown without them)."""
        if self.missing_go_to_left is None:
            # No missing rows at fit: missing values go where missing_goes_left says.
            inner = (self.children_left != TREE_LEAF) & ~np.isnan(self.threshold)
            n_left = self.n_node_samples[self.children_left]
            n_rows = n_left + self.n_node_samples[self.children_right]
            self.missing_go_to_left = inner & missing_goes_left(0, False, n_left, n_rows)
        if self.surrogate_feature is None:
            self.surrogate_feature = np.full((self.node_count, 0), -1, dtype=np.intp)
        k = self.surrogate_feature.shape[1]
        if self.surrogate_threshold is None:
            self.surrogate_threshold = np.full((self.node_count, k), np.nan)
        if self.surrogate_below_left is None:
            self.surrogate_below_left = np.zeros((self.node_count, k), dtype=bool)
        if self.surrogate_categories_start is None:
            empty = np.zeros((self.node_count, k, 2), dtype=np.intp)
            self.surrogate_categories_start, self.surrogate_categories_stop = empty, empty.copy()
        if self.surrogate_categories_levels is None:
            self.surrogate_categories_levels = np.zeros(0, dtype=LEVEL_DTYPE)
        if self.missing_left_fraction is None:  # not fractional: NaN, no memory
            nan = np.full(1, np.nan)
            self.missing_left_fraction = np.broadcast_to(nan, (self.node_count,))

    @property
    def is_fractional(self) -> bool:
        """Whether a node sends missing values both ways (C4.5's fractions, chapter 9)."""
        return bool(np.isfinite(self.missing_left_fraction).any())

    @property
    def categories_left(self) -> np.ndarray:
        """Bool array ``(node_count, max_levels + 1)``: True where a level goes left.

        Entry ``[node, c]`` says whether code ``c`` goes left at a categorical
        node; the last column is for unseen codes (code -1).  Rows of other
        nodes are all False.  Built from the compact arrays on each access
        (``node_count x (max_levels + 1)`` bytes); :meth:`categories_left_row`
        builds one row.
        """
        return dense_rows(*self._sets(), self.categories_width)

    def categories_left_row(self, node: int) -> np.ndarray:
        """The row of :attr:`categories_left` of one node (bool, ``max_levels + 1``)."""
        return dense_rows(*self._sets(), self.categories_width, nodes=[node])[0]

    def _sets(self) -> tuple:
        return (
            self.categories_unseen_left,
            self.categories_start,
            self.categories_stop,
            self.categories_levels,
        )

    @property
    def surrogate_levels(self) -> np.ndarray:
        """Int8 array ``(node_count, max_surrogates, max_levels + 1)``: categorical surrogates.

        Entry ``[node, rank, c]`` is 1 (:data:`~climbing_trees._surrogates.GOES_LEFT`)
        where that surrogate sends code ``c`` left, 2 where it sends it right,
        0 where it cannot place it; the last column is for unseen codes (0).
        Built from the compact arrays on each access, like
        :attr:`categories_left`, at a cost of ``node_count x max_surrogates x
        (max_levels + 1)`` bytes.
        """
        k = self.surrogate_feature.shape[1]
        states = dense_sides(*self._surrogate_sets(), self.categories_width)
        return states.reshape(self.node_count, k, self.categories_width)

    def _surrogate_sets(self) -> tuple:
        return (
            self.surrogate_categories_start,
            self.surrogate_categories_stop,
            self.surrogate_categories_levels,
        )

    def _surrogate_router(self) -> SideRouter:
        """The :class:`SideRouter` of the categorical surrogates, built on first use.

        Kept, and rebuilt when one of the arrays it comes from has been replaced.
        """
        sources = (self.surrogate_feature, self.surrogate_threshold, *self._surrogate_sets())

        def build():
            categorical = (self.surrogate_feature >= 0) & np.isnan(self.surrogate_threshold)
            slots = np.flatnonzero(categorical.ravel())
            return SideRouter(*self._surrogate_sets(), self.categories_width, slots)

        return self._kept("_surrogate_router_cache", sources, build)

    def _router(self) -> SetRouter:
        """The :class:`SetRouter` of the categorical nodes, built on first use and kept.

        Rebuilt when one of the arrays it comes from has been replaced, like
        :meth:`flat_tables`.
        """
        sources = (self.threshold, self.children_left, *self._sets())

        def build():
            categorical = np.flatnonzero(self.is_categorical_split)
            return SetRouter(*self._sets(), self.categories_width, categorical)

        return self._kept("_router_cache", sources, build)

    def _kept(self, name: str, sources: tuple, build):
        """``build()``, kept under ``name`` and built again only when one of the
        arrays in ``sources`` has been replaced by another array (a change in
        place is not seen).  Pickles leave the kept objects out (:data:`_KEPT`).
        """
        kept = self.__dict__.get(name)
        if kept is not None and all(a is b for a, b in zip(kept[0], sources, strict=True)):
            return kept[1]
        value = build()
        self.__dict__[name] = (sources, value)
        return value

    def _missing_left(self, nodes: np.ndarray, X_rows: np.ndarray) -> np.ndarray:
        """Where rows missing their node's feature go: surrogates, then the default.

        ``X_rows`` holds the full rows (every feature), one per entry of ``nodes``.
        A Python loop over surrogate ranks (at most ``max_surrogates``), not rows.
        """
        go_left = self.missing_go_to_left[nodes].copy()
        todo = np.arange(len(nodes))
        k = self.surrogate_feature.shape[1]
        for rank in range(k):
            if not todo.size:
                break
            f = self.surrogate_feature[nodes[todo], rank]
            usable = f >= 0
            todo, f = todo[usable], f[usable]
            x = X_rows[todo, f]
            t = self.surrogate_threshold[nodes[todo], rank]
            categorical = np.isnan(t)
            side = np.where(
                (x <= t) == self.surrogate_below_left[nodes[todo], rank], 1, -1
            )  # numerical; NaN x is handled below
            side[np.isnan(x)] = 0
            if categorical.any():  # 1 left, -1 right, 0 cannot place (compact sets)
                slots = nodes[todo[categorical]] * k + rank
                side[categorical] = self._surrogate_router().side(slots, x[categorical])
            placed = side != 0
            go_left[todo[placed]] = side[placed] > 0
            todo = todo[~placed]
        return go_left

    @property
    def has_surrogates(self) -> bool:
        """Whether some node has a surrogate split."""
        return bool((self.surrogate_feature >= 0).any())

    @property
    def is_categorical_split(self) -> np.ndarray:
        """True at internal nodes that split a categorical feature (threshold NaN)."""
        return (self.children_left != TREE_LEAF) & np.isnan(self.threshold)

    def _goes_left(
        self, nodes: np.ndarray, x: np.ndarray, X=None, rows=None
    ) -> np.ndarray:
        """Whether values ``x`` at internal ``nodes`` go left: ``<=`` or set membership.

        A missing ``x`` follows the node's surrogates (which read the full
        rows ``X[rows]``, only then), then ``missing_go_to_left``.
        """
        go_left = x <= self.threshold[nodes]  # False wherever the threshold is NaN
        missing = np.isnan(x)  # a missing value follows its node's direction
        if missing.any():
            if X is not None and self.has_surrogates:
                go_left[missing] = self._missing_left(nodes[missing], X[rows[missing]])
            else:
                go_left[missing] = self.missing_go_to_left[nodes[missing]]
        categorical = np.isnan(self.threshold[nodes])
        if categorical.any():
            router = self._router()  # the lookup in categories_left, kept compact
            go_left[categorical] = router.goes_left(nodes[categorical], x[categorical])
        return go_left

    def _code_goes_left(self, node: int, code: float) -> bool:
        """Whether a row with level ``code`` goes left at categorical ``node``.

        One entry of :attr:`categories_left`, read from the compact arrays
        (chapter 7): the node's listed levels go against its unseen side.
        """
        start, stop = self.categories_start[node], self.categories_stop[node]
        listed = 0 <= code < self.categories_width - 1
        listed = listed and int(code) in self.categories_levels[start:stop].tolist()
        return bool(self.categories_unseen_left[node]) != listed

    @property
    def node_count(self) -> int:
        """Number of nodes, leaves included."""
        return len(self.children_left)

    # scikit-learn's descriptive attributes of its Tree, for code that reads them.
    @property
    def capacity(self) -> int:
        """Nodes the arrays hold: ``node_count`` (scikit-learn allocates ahead)."""
        return self.node_count

    @property
    def n_outputs(self) -> int:
        """Number of outputs (the second axis of ``value``)."""
        return int(self.value.shape[1])

    @property
    def max_n_classes(self) -> int:
        """Largest number of classes of an output (1 for regression)."""
        return int(self.value.shape[2])

    @property
    def n_classes(self) -> np.ndarray:
        """Classes of each output (1 for regression), as scikit-learn's ``Tree``.

        The estimator sets it after ``fit``; otherwise every output is taken to
        have ``max_n_classes`` classes.
        """
        known = self.__dict__.get("_n_classes")
        if known is not None:
            return known
        return np.full(self.n_outputs, self.max_n_classes, dtype=np.intp)

    @n_classes.setter
    def n_classes(self, value) -> None:
        self.__dict__["_n_classes"] = np.asarray(value, dtype=np.intp).reshape(-1)

    @property
    def n_features(self) -> int | None:
        """Number of features of the training ``X`` (set by the estimator after ``fit``)."""
        return self.__dict__.get("_n_features")

    @n_features.setter
    def n_features(self, value: int) -> None:
        self.__dict__["_n_features"] = int(value)

    @property
    def n_leaves(self) -> int:
        """Number of leaves."""
        return int(np.sum(self.children_left == TREE_LEAF))

    @property
    def max_depth(self) -> int:
        """Length of the longest root-to-leaf path (a lone root has depth 0)."""
        return int(self.node_depths().max())

    def node_depths(self) -> np.ndarray:
        """Depth of every node.  Preorder ids put each parent before its children."""
        depth = np.zeros(self.node_count, dtype=np.intp)
        internal = np.flatnonzero(self.children_left != TREE_LEAF)
        for node in internal:  # parents come first, so one pass suffices
            depth[self.children_left[node]] = depth[node] + 1
            depth[self.children_right[node]] = depth[node] + 1
        return depth

    def apply(self, X: np.ndarray) -> np.ndarray:
        """Leaf id reached by each row of ``X``.

        All rows descend together, one level per iteration: the Python loop
        runs ``max_depth`` times, never once per row.
        """
        X = np.asarray(densified(X), dtype=float)
        node = np.zeros(len(X), dtype=np.intp)
        active = np.arange(len(X))
        while active.size:
            current = node[active]
            internal = self.children_left[current] != TREE_LEAF
            active, current = active[internal], current[internal]
            go_left = self._goes_left(
                current, X[active, self.feature[current]], X, active
            )
            node[active] = np.where(
                go_left, self.children_left[current], self.children_right[current]
            )
        return node

    def decision_path(self, X: np.ndarray):
        """Nodes visited by each row of ``X``, as a sparse indicator matrix.

        Row ``i`` of the result has a 1 in column ``t`` when row ``i`` of
        ``X`` passes through node ``t`` on its way from the root to its leaf,
        as in scikit-learn's ``decision_path``: a CSR matrix of shape
        ``(n_rows, node_count)`` with int64 entries, column indices in
        visiting order (preorder ids grow along any root-to-leaf path).
        Like :meth:`apply`, all rows descend together, one level per step.

        Examples
        --------
        >>> from climbing_trees import grow_tree
        >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
        >>> tree = grow_tree(X, X, np.ones(4), criterion="squared_error")
        >>> tree.decision_path(X[:1]).toarray().tolist()
        [[1, 1, 1, 0, 0, 0, 0]]
        """
        from scipy import sparse
        from sklearn import get_config

        X = np.asarray(densified(X), dtype=float)
        n = len(X)
        rows, nodes = [np.arange(n)], [np.zeros(n, dtype=np.intp)]
        active, current = rows[0], nodes[0]
        while active.size:
            internal = self.children_left[current] != TREE_LEAF
            active, current = active[internal], current[internal]
            go_left = self._goes_left(
                current, X[active, self.feature[current]], X, active
            )
            current = np.where(go_left, self.children_left[current], self.children_right[current])
            rows.append(active)
            nodes.append(current)
        rows, nodes = np.concatenate(rows), np.concatenate(nodes)
        order = np.lexsort((nodes, rows))  # by row, then along the path
        indptr = np.zeros(n + 1, dtype=np.intp)
        np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
        indices = nodes[order].astype(np.intp)
        data = np.ones(len(indices), dtype=np.intp)
        shape = (n, self.node_count)
        # scikit-learn's configuration chooses between its two sparse types.
        if get_config().get("sparse_interface", "spmatrix") == "sparray":
            out = sparse.csr_array((data, indices, indptr), shape=shape)
        else:
            out = sparse.csr_matrix((data, indices, indptr), shape=shape)
        out.indices, out.indptr = indices, indptr  # keep int64 indices, as scikit-learn
        return out

    def apply_rowwise(self, X: np.ndarray) -> np.ndarray:
        """Leaf id reached by each row of ``X``, following one row at a time.

        The textbook traversal: start at the root, go left when
        ``x[feature] <= threshold`` and right otherwise, stop at a leaf, then
        start again with the next row.  It returns exactly what :meth:`apply`
        returns; chapter 5 of the book times the two against each other.  The
        Python loop runs once per row *and* level, which is why :meth:`apply`
        exists.

        Examples
        --------
        >>> from climbing_trees import grow_tree
        >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
        >>> tree = grow_tree(X, X, np.ones(4), criterion="squared_error")
        >>> tree.apply_rowwise(X).tolist()
        [2, 3, 5, 6]
        >>> np.array_equal(tree.apply_rowwise(X), tree.apply(X))
        True
        """
        # Plain Python lists: scalar look-ups in them are faster than in numpy arrays.
        left, right = self.children_left.tolist(), self.children_right.tolist()
        feature, threshold = self.feature.tolist(), self.threshold.tolist()
        missing_left = self.missing_go_to_left.tolist()
        surrogates = self.has_surrogates
        leaves = []
        X = np.asarray(densified(X), dtype=float)
        for i, row in enumerate(X.tolist()):
            node = 0
            while left[node] != TREE_LEAF:
                x, t = row[feature[node]], threshold[node]
                if t == t and x != x and surrogates:  # missing: surrogates, default
                    here = np.array([node])
                    go_left = bool(self._missing_left(here, X[i : i + 1])[0])
                elif t == t and x != x:  # missing: the node's direction
                    go_left = missing_left[node]
                elif t == t:
                    go_left = x <= t
                else:  # NaN threshold: a categorical node (chapter 6)
                    go_left = self._code_goes_left(node, x)
                node = left[node] if go_left else right[node]
            leaves.append(node)
        return np.array(leaves, dtype=np.intp)

    def apply_flat(
        self, X: np.ndarray, has_missing: bool | None = None, compiled: bool = False
    ) -> np.ndarray:
        """Leaf id reached by each row of ``X``: :meth:`apply` on flat lookup tables.

        Chapter 11 of the book ("Growing trees fast") explains it.  Internal
        nodes take the slots ``0, 1, ...`` in id order, and leaves the slots
        after them.  Each row carries one integer, the *code* of the node it
        is at: ``(2 s) << b | f`` for the node in slot ``s`` testing feature
        ``f``, where ``b`` is the number of bits of the largest feature index.
        So ``code & (2**b - 1)`` is the feature to read, at the flat index
        ``row * n_features + f`` of ``X``, and ``code >> b`` is ``2 s``, the
        position of the node's threshold in tables twice as long as the tree;
        the next code is ``next_code[2 s + 1]`` when ``x <= threshold`` (left)
        and ``next_code[2 s]`` otherwise.  Leaves lead to themselves, so all
        rows take the same step: eight numpy calls on flat arrays made once,
        three of them gathers (the first step, where every row is at the root,
        reads one column of ``X``).  Leaves have the largest codes, so one
        comparison finds the rows that reached one; they keep stepping in place
        until they are set aside, after the steps that :func:`set_aside_steps`
        picks from the depths where the training rows ended.  Rows are
        processed in blocks of about 4 MB of ``X`` (at least 4,096 rows).  The
        tables are built once per tree (:meth:`flat_tables`).

        ``has_missing`` says whether ``X`` may hold NaN; ``None`` looks (one
        pass over each block).  ``False`` skips the missing-value handling of
        every step: pass it only when ``X`` has no NaN.  It may also be a
        function, called on each block of rows just before its descent and
        returning whether that block may hold NaN: the estimators check the
        values of ``X`` there, so that the descent finds the block in the cache.

        ``compiled=True`` (the estimators' predict) takes the same steps on the
        same tables in compiled code, a few rows at a time
        (:func:`climbing_trees._compiled._tables.descend_rows`), where no
        categorical node or surrogate is involved: the same leaves, without a
        numpy call per step.

        Examples
        --------
        >>> from climbing_trees import grow_tree
        >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
        >>> tree = grow_tree(X, X, np.ones(4), criterion="squared_error")
        >>> tree.apply_flat(X).tolist()
        [2, 3, 5, 6]
        """
        X = np.asarray(densified(X), dtype=float)
        n, d = X.shape
        tables = self.flat_tables()
        if d < tables.n_columns:  # the flat index would read the next row's values
            raise ValueError(
                f"X has {d} columns, but the tree reads column {tables.n_columns - 1}: "
                "pass the columns the tree was grown on, in the same order."
            )
        # Blocks of X: every step reads one value per row at a random column,
        # and a block that fits in the cache makes that cheap; but each block
        # pays the numpy calls of every step, so a block has many rows too.
        n_blocks = max(1, -(-n // max(BLOCK_ROWS, BLOCK_BYTES // (8 * max(d, 1)))))
        block = max(1, -(-n // n_blocks))  # rows per block, the blocks of equal size
        # Work arrays made once, for the largest block: 2 * slot, code, x, t, go_left.
        work = (np.empty(block, dtype=np.intp), np.empty(block, dtype=np.intp))
        work += (np.empty(block), np.empty(block), np.empty(block, dtype=bool))
        surrogates = self.has_surrogates
        if compiled:
            from ._compiled._tables import descend_rows  # compiled: imported on first use
        leaves = np.empty(n, dtype=np.intp)
        for start in range(0, n, block):
            # A block of rows of a C-ordered X is read in place; of another layout
            # (a DataFrame's values are in Fortran order), copied to C order.
            part = np.ascontiguousarray(X[start : start + block])
            if callable(has_missing):  # the caller looks, at the block just read
                missing = bool(has_missing(part))
            else:
                missing = bool(np.isnan(part).any()) if has_missing is None else has_missing
            if compiled and tables.router is None and not (missing and surrogates):
                found = descend_rows(
                    part, tables.next_code, tables.threshold, tables.missing_left,
                    tables.node, int(tables.shift), int(tables.mask), tables.root,
                    tables.first_leaf,
                )  # fmt: skip
            else:
                found = self._descend(part, tables, missing, work)
            if n_blocks == 1:
                return found
            leaves[start : start + block] = found
        return leaves

    def flat_tables(self) -> FlatTables:
        """The lookup tables of :meth:`apply_flat`, built on first use and kept.

        They are rebuilt whenever one of the arrays they come from has been
        replaced by another array (not when it was changed in place).
        """
        sources = (
            self.children_left,
            self.children_right,
            self.feature,
            self.threshold,
            *self._sets(),
            self.missing_go_to_left,
            self.surrogate_feature,
        )
        return self._kept("_flat_cache", sources, self._build_flat_tables)

    def _build_flat_tables(self) -> FlatTables:
        """The tables of :meth:`flat_tables`, built in a few compiled passes over the
        nodes (:func:`climbing_trees._compiled._tables.flat_codes`)."""
        from ._compiled._tables import flat_codes  # compiled: imported on first use

        N = self.node_count
        left = np.ascontiguousarray(self.children_left, dtype=np.intp)
        node = np.empty(N, dtype=np.int32 if N < 2**31 else np.intp)  # of each slot
        next_code, threshold, shift, largest, n_internal, categorical, finished = flat_codes(
            left,
            np.ascontiguousarray(self.children_right, dtype=np.intp),
            np.ascontiguousarray(self.feature, dtype=np.intp),
            np.ascontiguousarray(self.threshold, dtype=np.float64),
            np.ascontiguousarray(self.n_node_samples, dtype=np.intp),
            node,
        )
        # The training rows that end at each depth; the last is the tree's depth.
        set_aside = frozenset(set_aside_steps(finished).tolist())
        read = max(largest, self.surrogate_feature.max(initial=-1))
        return FlatTables(
            next_code=next_code,
            threshold=threshold,
            missing_left=self.missing_go_to_left.take(node),
            node=node,
            shift=np.array(shift),
            mask=np.array((1 << shift) - 1),
            root=int(self.feature[0]) if n_internal else 0,  # slot 0: the root
            first_leaf=(2 * n_internal) << shift,
            depth=len(finished) - 1,
            n_columns=int(read) + 1,
            set_aside=set_aside,
            router=self._router() if categorical else None,
        )

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        # Rebuilt on demand: pickles hold only the arrays.
        for name in _KEPT:
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict) -> None:
        dense = state.pop("categories_left", None)
        states = state.pop("surrogate_levels", None)
        self.__dict__.update(state)
        if dense is not None:
            # Pickled before the sets were stored compactly: one row per node.
            dense = np.asarray(dense, dtype=bool)
            unseen_left = dense[:, -1].copy()
            owner, levels = np.nonzero(dense[:, :-1] != unseen_left[:, None])
            start, stop, levels = pack(owner, levels, len(dense))
            self.categories_unseen_left, self.categories_levels = unseen_left, levels
            self.categories_start, self.categories_stop = start, stop
            self.categories_width = dense.shape[1]
        for name in (
            "missing_go_to_left",
            "surrogate_feature",
            "surrogate_threshold",
            "surrogate_below_left",
            "surrogate_categories_start",
            "surrogate_categories_stop",
            "surrogate_categories_levels",
            "missing_left_fraction",
        ):
            self.__dict__.setdefault(name, None)  # pickled before missing values
        if states is not None:
            # Pickled before categorical surrogates were stored compactly: one
            # int8 row per node and rank (1 left, 2 right, 0 cannot place).
            states = np.asarray(states)
            n_slots, n_levels = states.shape[0] * states.shape[1], states.shape[2] - 1
            rows = states[:, :, :-1].reshape(n_slots, n_levels)
            slot, level = np.nonzero(rows)
            start, stop, levels = pack_sides(slot, level, rows[slot, level] == 1, len(rows))
            shape = (*states.shape[:2], 2)
            self.surrogate_categories_start = start.reshape(shape)
            self.surrogate_categories_stop = stop.reshape(shape)
            self.surrogate_categories_levels = levels
        self._default_missing_fields()

    def _descend(
        self, X: np.ndarray, tables: FlatTables, has_missing: bool, work: tuple
    ) -> np.ndarray:
        """The loop of :meth:`apply_flat` on one block of rows, in arrays ``work``."""
        n, d = X.shape
        flat = X.ravel()
        surrogates = has_missing and self.has_surrogates
        if len(work[0]) != n:
            work = tuple(w[:n] for w in work)
        at, code, x, t, go_left = work
        a, xs, ts, g = at, x, t, go_left  # the first m entries of each array
        rows = None  # the rows still descending, when some have been set aside
        base = np.arange(0, n * d, d)  # flat index of each row's first value
        code.fill(tables.root)  # every row starts at the root
        leaf_code = code  # until rows are set aside
        shift, mask = tables.shift, tables.mask
        threshold, next_code = tables.threshold, tables.next_code
        depth, set_aside, router = tables.depth, tables.set_aside, tables.router
        step, m = 0, n
        # mode="clip" lets take write straight into its output (the indices are
        # in range anyway).
        while m and step < depth:
            if step == 0:  # every row is at the root: one column of X, one threshold
                a.fill(0)
                ts.fill(threshold[0])
                np.copyto(xs, X[:, tables.root & int(mask)])
            else:
                np.right_shift(code, shift, out=a)  # 2 * slot
                threshold.take(a, out=ts, mode="clip")
                np.bitwise_and(code, mask, out=code)  # the feature (the slot is in a)
                np.add(code, base, out=code)
                flat.take(code, out=xs, mode="clip")
            np.less_equal(xs, ts, out=g)  # False wherever the threshold is NaN
            if has_missing:  # a NaN x goes its node's learned way (or its surrogates')
                nan = np.flatnonzero(np.isnan(xs))
                if surrogates and nan.size:
                    at_rows = nan if rows is None else rows[nan]
                    nodes = tables.node.take(a[nan] >> 1)
                    g[nan] = self._missing_left(nodes, X[at_rows])
                else:
                    g[nan] = tables.missing_left.take(a[nan] >> 1)
            if router is not None:  # NaN threshold: a categorical node
                cat = np.flatnonzero(np.isnan(ts))
                g[cat] = router.goes_left(tables.node.take(a[cat] >> 1), xs[cat])
            np.add(a, g, out=a)
            next_code.take(a, out=code, mode="clip")
            step += 1
            # Rows at a leaf keep stepping in place until they are set aside, at
            # the steps planned, unless even all rows finished could not pay for it.
            if step not in set_aside:
                continue
            cost = set_aside_cost(m)
            if m * (depth - step) <= cost:
                continue
            done = np.greater_equal(code, tables.first_leaf, out=g)
            if np.count_nonzero(done) * (depth - step) > cost:
                if rows is None:
                    leaf_code = code.copy()
                else:
                    leaf_code[rows] = code  # the others are overwritten later
                keep = np.flatnonzero(~done)
                m = keep.size
                rows = keep if rows is None else rows.take(keep)
                base, code = base.take(keep), code.take(keep)
                a, xs, ts, g = at[:m], x[:m], t[:m], go_left[:m]
        if rows is not None:
            leaf_code[rows] = code
        return tables.node.take(leaf_code >> (shift + 1)).astype(np.intp, copy=False)

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Value of the leaf reached by each row, shape ``(n_rows, n_values)``.

        In a fractional tree (:attr:`is_fractional`), the weighted mixture of
        the leaves reached (:func:`climbing_trees._fractional.mixed_values`).
        """
        if self.is_fractional:
            from ._fractional import mixed_values  # _fractional reads this module

            return mixed_values(self, X)[:, 0, :]
        return self.value[self.apply_flat(X), 0, :]

    def compute_feature_importances(self, n_features: int) -> np.ndarray:
        """Total weighted impurity decrease brought by each feature, normalised.

        The decrease at a node ``t`` is ``W_t I_t - W_left I_left -
        W_right I_right``.  Importances lie in [0, 1] and sum to 1 unless no
        split decreases the impurity (a single leaf, for example), when they
        are all 0 (as in scikit-learn).

        A split never increases the impurity, so a decrease that rounds below
        0 (a split whose gain is lost in the rounding of the impurities, as
        with targets near 1e149 that differ in their last digits) counts as 0:
        otherwise a total near 0 would divide into values outside [0, 1].
        The weights and the impurities are first divided by powers of two
        (exact), so huge weights and impurities (1e300 each) do not overflow.
        """
        internal = np.flatnonzero(self.children_left != TREE_LEAF)
        left = self.children_left[internal]
        right = self.children_right[internal]
        w = power_of_two_scale(self.weighted_n_node_samples)[0]
        imp = power_of_two_scale(np.maximum(self.impurity, 0.0))[0]
        decrease = (
            w[internal] * imp[internal] - w[left] * imp[left] - w[right] * imp[right]
        )
        decrease = np.maximum(decrease, 0.0)
        importances = np.bincount(
            self.feature[internal], weights=decrease, minlength=n_features
        ).astype(float)
        total = importances.sum()
        return importances / total if total > 0 else importances
