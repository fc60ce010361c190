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

#: ``children_left``/``children_right`` value of a leaf.
TREE_LEAF = -1
#: ``feature``/``threshold`` value of a leaf.
TREE_UNDEFINED = -2


@dataclass(eq=False)
class Tree:
    """A fitted binary tree stored as arrays.

    Attributes
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
        node (chapter 10, scikit-learn's name): the direction learned at fit
        when the node had missing values for its feature, else the child
        with more training rows (the right one on equal counts).  False at
        leaves and categorical nodes (a missing level is a level).  Defaults
        to that count rule at every numerical node.
    surrogate_feature, surrogate_threshold, surrogate_below_left : ndarray
        Surrogate splits (``missing_values="surrogate"``, chapter 10), shape
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

    :mod:`climbing_trees._categorical` describes the format of categorical
    splits, and :mod:`climbing_trees._category_sets` their compact storage.
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
            inner = (self.children_left != TREE_LEAF) & ~np.isnan(self.threshold)
            n = self.n_node_samples
            bigger = n[self.children_left] > n[self.children_right]
            self.missing_go_to_left = inner & bigger
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
        cached = self.__dict__.get("_surrogate_router_cache")
        if cached is not None and all(a is b for a, b in zip(cached[0], sources, strict=True)):
            return cached[1]
        categorical = (self.surrogate_feature >= 0) & np.isnan(self.surrogate_threshold)
        slots = np.flatnonzero(categorical.ravel())
        router = SideRouter(*self._surrogate_sets(), self.categories_width, slots)
        self.__dict__["_surrogate_router_cache"] = (sources, router)
        return router

    def _router(self) -> SetRouter:
        """The :class:`SetRouter` of the categorical nodes, built on first use and kept.

        Rebuilt when one of the arrays it comes from has been replaced, like
        :meth:`flat_tables`.
        """
        sources = (self.threshold, self.children_left, *self._sets())
        cached = self.__dict__.get("_router_cache")
        if cached is not None and all(a is b for a, b in zip(cached[0], sources, strict=True)):
            return cached[1]
        router = SetRouter(
            *self._sets(), self.categories_width, np.flatnonzero(self.is_categorical_split)
        )
        self.__dict__["_router_cache"] = (sources, router)
        return router

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

    def _goes_left(self, nodes: np.ndarray, x: np.ndarray, X=None, rows=None) -> np.ndarray:
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
        X = np.asarray(X, dtype=float)
        node = np.zeros(len(X), dtype=np.intp)
        active = np.arange(len(X))
        while active.size:
            current = node[active]
            internal = self.children_left[current] != TREE_LEAF
            active, current = active[internal], current[internal]
            go_left = self._goes_left(current, X[active, self.feature[current]], X, active)
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

        X = np.asarray(X, dtype=float)
        n = len(X)
        rows, nodes = [np.arange(n)], [np.zeros(n, dtype=np.intp)]
        active, current = rows[0], nodes[0]
        while active.size:
            internal = self.children_left[current] != TREE_LEAF
            active, current = active[internal], current[internal]
            go_left = self._goes_left(current, X[active, self.feature[current]], X, active)
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
        X = np.asarray(X, dtype=float)
        for i, row in enumerate(X.tolist()):
            node = 0
            while left[node] != TREE_LEAF:
                x, t = row[feature[node]], threshold[node]
                if t == t and x != x and surrogates:  # missing: surrogates, then default
                    go_left = bool(self._missing_left(np.array([node]), X[i : i + 1])[0])
                elif t == t and x != x:  # missing: the node's direction
                    go_left = missing_left[node]
                elif t == t:
                    go_left = x <= t
                else:  # NaN threshold: a categorical node (chapter 6)
                    go_left = self._code_goes_left(node, x)
                node = left[node] if go_left else right[node]
            leaves.append(node)
        return np.array(leaves, dtype=np.intp)

    def apply_flat(self, X: np.ndarray) -> np.ndarray:
        """Leaf id reached by each row of ``X``: :meth:`apply` on flat lookup tables.

        Chapter 8 of the book ("Growing trees fast") explains it.  Node ``t``
        becomes position ``2 t`` of tables twice as long as the tree: the
        feature and threshold of ``t`` sit there, and the next position is
        ``next[2 t + 1]`` when ``x <= threshold`` (left) and ``next[2 t]``
        otherwise.  Leaves lead to themselves, so all rows can take the same
        step, seven numpy calls on flat arrays that write into buffers made
        once.  Every few steps, rows that reached a leaf are set aside once
        they are the majority; a small ``X`` skips that bookkeeping and just
        takes ``max_depth`` steps.  The tables are built once per tree
        (:meth:`flat_tables`).

        Examples
        --------
        >>> from climbing_trees import grow_tree
        >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
        >>> tree = grow_tree(X, X, np.ones(4), criterion="squared_error")
        >>> tree.apply_flat(X).tolist()
        [2, 3, 5, 6]
        """
        X = np.ascontiguousarray(X, dtype=float)
        n, d = X.shape
        tables = self.flat_tables()
        # Blocks of about 4 MB of X: every step reads one value per row at a
        # random column, and a block that fits in the cache makes that cheap.
        block = max(1024, (1 << 22) // (8 * max(d, 1)))
        if n <= block:
            return self._descend(X, tables)
        return np.concatenate([self._descend(X[i : i + block], tables) for i in range(0, n, block)])

    def flat_tables(self) -> tuple:
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
        cached = self.__dict__.get("_flat_cache")
        if cached is not None and all(a is b for a, b in zip(cached[0], sources, strict=True)):
            return cached[1]
        leaf = self.children_left == TREE_LEAF
        at_leaf = np.repeat(leaf, 2)
        # Filled in place, without temporaries of the tables' size (big trees).
        next_pos = np.empty(2 * self.node_count, dtype=np.intp)
        next_pos[0::2] = self.children_right
        next_pos[1::2] = self.children_left
        leaves = np.flatnonzero(leaf)
        next_pos[2 * leaves] = leaves
        next_pos[2 * leaves + 1] = leaves
        next_pos *= 2
        del leaves
        feature = np.repeat(self.feature, 2).astype(np.intp, copy=False)
        feature[at_leaf] = 0
        threshold = np.repeat(self.threshold, 2)
        threshold[at_leaf] = np.inf
        categorical = np.repeat(~leaf & np.isnan(self.threshold), 2)
        categorical = categorical if categorical.any() else None
        # Depth of the tree, one level at a time (ids are not ordered by depth).
        depth, level = 0, np.zeros(1, dtype=np.intp)
        while True:
            level = level[~leaf[level]]
            if not level.size:
                break
            level = np.concatenate([self.children_left[level], self.children_right[level]])
            depth += 1
        router = self._router() if categorical is not None else None
        missing_left = np.repeat(self.missing_go_to_left, 2)
        tables = (next_pos, feature, threshold, at_leaf, categorical, router, depth, missing_left)
        self.__dict__["_flat_cache"] = (sources, tables)
        return tables

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        # Rebuilt on demand: pickles hold only the arrays.
        state.pop("_flat_cache", None)
        state.pop("_router_cache", None)
        state.pop("_surrogate_router_cache", None)
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

    def _descend(self, X: np.ndarray, tables: tuple) -> np.ndarray:
        """The loop of :meth:`apply_flat` on one block of rows."""
        next_pos, feature, threshold, at_leaf, categorical, router, depth, missing_left = tables
        n, d = X.shape
        has_missing = bool(np.isnan(X).any())  # one pass; none: no extra work per step
        surrogates = self.has_surrogates
        flat = X.ravel()
        rows = np.arange(n)
        base = rows * d
        pos = np.zeros(n, dtype=np.intp)  # 2 * (current node) of each row
        leaves = np.empty(n, dtype=np.intp)
        index, x = np.empty(n, dtype=np.intp), np.empty(n)
        t, go_left = np.empty(n), np.empty(n, dtype=bool)
        small = n <= 2048  # few rows: setting finished rows aside costs more than it saves
        step, m = 0, n
        # mode="clip" lets take write straight into its output (indices are in range anyway).
        while m and (step < depth or not small):
            i, xs, ts, g = index[:m], x[:m], t[:m], go_left[:m]
            feature.take(pos, out=i, mode="clip")
            np.add(base, i, out=i)
            flat.take(i, out=xs, mode="clip")
            threshold.take(pos, out=ts, mode="clip")
            np.less_equal(xs, ts, out=g)  # False wherever the threshold is NaN
            if has_missing:  # a NaN x goes its node's learned way (or its surrogates')
                nan = np.flatnonzero(np.isnan(xs))
                if surrogates and nan.size:
                    g[nan] = self._missing_left(pos[nan] // 2, X[rows[nan]])
                else:
                    g[nan] = missing_left.take(pos[nan])
            if categorical is not None:
                cat = np.flatnonzero(categorical.take(pos))
                g[cat] = router.goes_left(pos[cat] // 2, xs[cat])
            np.add(pos, g, out=pos)
            next_pos.take(pos, out=pos, mode="clip")
            step += 1
            if not small and (step % 3 == 0 or step >= depth):
                done = at_leaf.take(pos)
                n_done = np.count_nonzero(done)
                if 2 * n_done > m or step >= depth:
                    leaves[rows[done]] = pos[done]
                    keep = ~done
                    rows, base, pos = rows[keep], base[keep], pos[keep]
                    m = pos.size
        if small:
            return pos // 2
        return leaves // 2

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Value of the leaf reached by each row, shape ``(n_rows, n_values)``."""
        return self.value[self.apply_flat(X), 0, :]

    def compute_feature_importances(self, n_features: int) -> np.ndarray:
        """Total weighted impurity decrease brought by each feature, normalised.

        The decrease at a node ``t`` is ``W_t I_t - W_left I_left -
        W_right I_right``.  Importances sum to 1 unless the tree is a single
        leaf, when they are all 0 (as in scikit-learn).
        """
        internal = np.flatnonzero(self.children_left != TREE_LEAF)
        left = self.children_left[internal]
        right = self.children_right[internal]
        w, imp = self.weighted_n_node_samples, self.impurity
        decrease = w[internal] * imp[internal] - w[left] * imp[left] - w[right] * imp[right]
        importances = np.bincount(
            self.feature[internal], weights=decrease, minlength=n_features
        ).astype(float)
        total = importances.sum()
        return importances / total if total > 0 else importances
