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

Finally the nodes, numbered level by level (breadth first), are renumbered in
depth-first preorder so the :class:`Tree` equals ``grow_tree``'s.
"""

from __future__ import annotations

import numpy as np

from ._criteria import CLASSIFICATION_CRITERIA, impurity_from_statistics, total_weight
from ._ties import TIE_RTOL, midpoint_threshold
from ._tree import TREE_LEAF, TREE_UNDEFINED, Tree


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
) -> Tree:
    """Grow a tree level by level; the result equals :func:`grow_tree`'s.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    Y : ndarray of shape (n_samples, n_values)
        One-hot labels for classification, a target column for regression.
    sample_weight : ndarray of shape (n_samples,)
    criterion : {"gini", "entropy", "log_loss", "squared_error"}
    max_depth, min_samples_split, min_samples_leaf, min_impurity_decrease
        The stopping rules of :func:`grow_tree`, with the same meaning.

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
    ``O(d n log n + d n depth)`` in all.

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
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    w = np.asarray(sample_weight, dtype=float)
    n, d = X.shape
    regression = criterion not in CLASSIFICATION_CRITERIA
    depth_limit = np.inf if max_depth is None else max_depth
    W = float(w.sum())
    eps = np.finfo(float).eps

    # Transposed features with one extra column: padding points at row n.
    Xt = np.empty((d, n + 1))
    Xt[:, :n] = X.T
    Xt[:, n] = np.inf
    # rows[j] (j < d): the level's rows, node by node, sorted by feature j.
    # rows[d]: the same rows node by node in index order (the order grow_tree
    # keeps).  The extra last column is the padding row n.
    rows = np.empty((d + 1, n + 1), dtype=np.intp)
    if d:
        rows[:d, :n] = np.argsort(X, axis=0, kind="stable").T
    rows[d, :n] = np.arange(n)
    rows[:, n] = n
    sizes = np.array([n], dtype=np.intp)  # rows of each node of the level

    levels = []  # per level: dict of per-node arrays
    depth = 0
    while sizes.size:
        n_nodes = sizes.size
        m = int(sizes.sum())
        starts = np.zeros(n_nodes, dtype=np.intp)
        np.cumsum(sizes[:-1], out=starts[1:])
        node_of_pos = np.repeat(np.arange(n_nodes), sizes)
        index_rows = rows[d, :m]

        # Node summaries from the rows in index order (as grow_tree sums them).
        w_rows = w[index_rows]
        Y_rows = Y[index_rows]
        w_node = np.bincount(node_of_pos, weights=w_rows, minlength=n_nodes)
        value = _segment_sum(w_rows[:, None] * Y_rows, node_of_pos, n_nodes) / w_node[:, None]
        if regression:
            yc = Y_rows[:, 0] - value[node_of_pos, 0]
            phi = np.stack([w_rows, w_rows * yc, w_rows * yc * yc], axis=1)
        else:
            phi = Y_rows * w_rows[:, None]
        node_stats = _segment_sum(phi, node_of_pos, n_nodes)
        impurity = impurity_from_statistics(node_stats, criterion)
        pure = _is_pure(Y_rows, w_rows, node_of_pos, starts, n_nodes)

        searchable = (
            (depth < depth_limit)
            & (sizes >= min_samples_split)
            & (sizes >= 2 * min_samples_leaf)
            & ~pure
        )
        feature = np.full(n_nodes, TREE_UNDEFINED, dtype=np.intp)
        threshold = np.full(n_nodes, float(TREE_UNDEFINED))
        if searchable.any() and d:
            phi_full = np.zeros((n + 1, phi.shape[1]))
            phi_full[index_rows] = phi
            best_f, best_t, best_s = _best_splits(
                rows,
                Xt,
                phi_full,
                starts,
                sizes,
                searchable,
                node_stats,
                impurity,
                criterion,
                min_samples_leaf,
            )
            improvement = w_node / W * (impurity - best_s)
            split = (best_f >= 0) & (improvement + eps >= min_impurity_decrease)
            feature[split] = best_f[split]
            threshold[split] = best_t[split]
        else:
            split = np.zeros(n_nodes, dtype=bool)

        levels.append(
            {
                "feature": feature,
                "threshold": threshold,
                "value": value,
                "impurity": impurity,
                "n": sizes,
                "w": w_node,
                "split": split,
            }
        )
        if not split.any():
            break
        rows, sizes = _partition(rows, Xt, node_of_pos, starts, sizes, split, feature, threshold)
        depth += 1
    return _preorder_tree(levels)


def _segment_sum(A: np.ndarray, segment: np.ndarray, n_segments: int) -> np.ndarray:
    """Column sums of ``A`` per segment, adding rows one by one in order."""
    return np.stack(
        [np.bincount(segment, weights=A[:, c], minlength=n_segments) for c in range(A.shape[1])],
        axis=1,
    )


def _is_pure(Y_rows, w_rows, node_of_pos, starts, n_nodes) -> np.ndarray:
    """Per node: do all rows with positive weight share one label?"""
    positive = w_rows > 0
    lo = np.where(positive[:, None], Y_rows, np.inf)
    hi = np.where(positive[:, None], Y_rows, -np.inf)
    lo = np.minimum.reduceat(lo, starts, axis=0)
    hi = np.maximum.reduceat(hi, starts, axis=0)
    # A node without positive weight has lo=inf > hi=-inf: pure too.
    return np.all(lo >= hi, axis=1)


def _size_classes(sizes: np.ndarray) -> list[np.ndarray]:
    """Group nodes whose sizes share a power of two (so padding at most doubles)."""
    key = np.ceil(np.log2(np.maximum(sizes, 2))).astype(np.intp)
    order = np.argsort(key, kind="stable")
    bounds = np.flatnonzero(np.diff(key[order])) + 1
    return np.split(order, bounds)


def _best_splits(
    rows,
    Xt,
    phi_full,
    starts,
    sizes,
    searchable,
    node_stats,
    impurity,
    criterion,
    min_samples_leaf,
):
    """Best (feature, threshold, score) of every searchable node of a level."""
    n_nodes = sizes.size
    d = Xt.shape[0]
    dummy = rows.shape[1] - 1
    best_f = np.full(n_nodes, -1, dtype=np.intp)
    best_t = np.full(n_nodes, np.nan)
    best_s = np.full(n_nodes, np.inf)
    candidates = np.flatnonzero(searchable)
    for group in _size_classes(sizes[candidates]):
        nodes = candidates[group]
        m = sizes[nodes]
        L = int(m.max())
        offset = np.arange(L)
        inside = offset < m[:, None]  # (c, L)
        pos = np.where(inside, starts[nodes, None] + offset, dummy)
        # Rows of each node of the group, sorted by each feature: (d, c, L).
        idx = rows[:d, pos.ravel()].reshape(d, len(nodes), L)
        xs = np.take_along_axis(Xt, idx.reshape(d, -1), axis=1).reshape(idx.shape)
        # The segmented prefix sum: it restarts at every node (axis 1).
        left = np.cumsum(phi_full[idx[:, :, :-1]], axis=2)
        right = node_stats[nodes][None, :, None, :] - left
        total = total_weight(node_stats[nodes], criterion)[None, :, None]
        w_left = total_weight(left, criterion)
        w_right = total_weight(right, criterion)
        with np.errstate(invalid="ignore", divide="ignore"):
            scores = (
                w_left * impurity_from_statistics(left, criterion)
                + w_right * impurity_from_statistics(right, criterion)
            ) / total
        i = offset[:-1]
        allowed = (
            (xs[:, :, :-1] < xs[:, :, 1:])
            & (i >= min_samples_leaf - 1)
            & (i <= m[:, None] - min_samples_leaf - 1)
            & (w_left > 0)
            & (w_right > 0)
        )
        scores = np.where(allowed, scores, np.inf)
        # Candidates of a node in tie-break order: by feature, then position.
        flat = scores.transpose(1, 0, 2).reshape(len(nodes), -1)
        best = flat.min(axis=1)
        found = np.isfinite(best)
        tol = TIE_RTOL * np.maximum(np.abs(impurity[nodes]), np.abs(best))
        first = np.argmax(flat <= (best + tol)[:, None], axis=1)
        j, k = np.divmod(first, L - 1)
        c = np.arange(len(nodes))
        lower, upper = xs[j, c, k], xs[j, c, k + 1]
        nodes, j, lower, upper, best = (a[found] for a in (nodes, j, lower, upper, best))
        best_f[nodes] = j
        best_t[nodes] = midpoint_threshold(lower, upper)
        best_s[nodes] = best
    return best_f, best_t, best_s


def _partition(rows, Xt, node_of_pos, starts, sizes, split, feature, threshold):
    """Stable partition of every order: split nodes' rows into their children.

    Rows of nodes that became leaves leave the arrays.  Child segments follow
    the parents' order, left child before right child.
    """
    n_orders = rows.shape[0]
    dummy = Xt.shape[1] - 1  # the padding row's id, n
    d = n_orders - 1
    m = int(sizes.sum())
    index_rows = rows[d, :m]
    go_left_row = np.zeros(dummy + 1, dtype=bool)
    node_f = feature[node_of_pos]
    keep = split[node_of_pos]
    go_left_row[index_rows[keep]] = (
        Xt[node_f[keep], index_rows[keep]] <= threshold[node_of_pos][keep]
    )
    n_left = np.bincount(node_of_pos, weights=go_left_row[index_rows], minlength=sizes.size)
    n_left = n_left.astype(np.intp)[split]
    n_right = sizes[split] - n_left
    child_sizes = np.stack([n_left, n_right], axis=1).ravel()
    # Where each split node's children start in the next level.
    kept = rows[:, :m][:, keep]
    parent = node_of_pos[keep]
    rank = np.cumsum(split) - 1  # parent's index among split nodes
    child_start = np.zeros(child_sizes.size, dtype=np.intp)
    np.cumsum(child_sizes[:-1], out=child_start[1:])
    left_start = child_start[0::2][rank[parent]]
    right_start = child_start[1::2][rank[parent]]
    seg_start = np.cumsum(np.concatenate([[0], sizes[split]]))[rank[parent]]
    go = go_left_row[kept]  # (n_orders, m_kept)
    # Left rows before this position within the segment (exclusive count).
    left_before = np.cumsum(go, axis=1) - go
    left_before -= left_before[:, seg_start]  # restart the count at each segment
    offset_in_seg = np.arange(kept.shape[1]) - seg_start
    new_pos = np.where(go, left_start + left_before, right_start + (offset_in_seg - left_before))
    m_new = kept.shape[1]
    new_rows = np.empty((n_orders, m_new + 1), dtype=np.intp)
    np.put_along_axis(new_rows, new_pos, kept, axis=1)
    new_rows[:, m_new] = dummy
    return new_rows, child_sizes


def _preorder_tree(levels: list[dict]) -> Tree:
    """Assemble the Tree, renumbering nodes from level order to preorder."""
    counts = [lv["n"].size for lv in levels]
    base = np.cumsum([0] + counts)
    # Children in level-order ids.
    lefts, rights = [], []
    for li, lv in enumerate(levels):
        split = lv["split"]
        left = np.full(split.size, TREE_LEAF, dtype=np.intp)
        right = np.full(split.size, TREE_LEAF, dtype=np.intp)
        if li + 1 < len(levels):
            first_child = base[li + 1] + 2 * np.arange(int(split.sum()))
            left[split] = first_child
            right[split] = first_child + 1
        lefts.append(left)
        rights.append(right)
    left = np.concatenate(lefts)
    right = np.concatenate(rights)
    total = int(base[-1])
    # Subtree sizes, bottom-up one level at a time.
    subtree = np.ones(total, dtype=np.intp)
    for li in range(len(levels) - 1, -1, -1):
        ids = np.arange(base[li], base[li + 1])
        inner = ids[left[ids] != TREE_LEAF]
        subtree[inner] += subtree[left[inner]] + subtree[right[inner]]
    # Preorder ids, top-down: left child right after its parent.
    pre = np.zeros(total, dtype=np.intp)
    for li in range(len(levels)):
        ids = np.arange(base[li], base[li + 1])
        inner = ids[left[ids] != TREE_LEAF]
        pre[left[inner]] = pre[inner] + 1
        pre[right[inner]] = pre[inner] + 1 + subtree[left[inner]]

    def arrange(key, dtype):
        out = np.concatenate([lv[key] for lv in levels]).astype(dtype)
        result = np.empty_like(out)
        result[pre] = out
        return result

    children_left = np.full(total, TREE_LEAF, dtype=np.intp)
    children_right = np.full(total, TREE_LEAF, dtype=np.intp)
    inner = left != TREE_LEAF
    children_left[pre[inner]] = pre[left[inner]]
    children_right[pre[inner]] = pre[right[inner]]
    value = arrange("value", float)
    return Tree(
        children_left=children_left,
        children_right=children_right,
        feature=arrange("feature", np.intp),
        threshold=arrange("threshold", float),
        value=value[:, None, :],
        impurity=arrange("impurity", float),
        n_node_samples=arrange("n", np.intp),
        weighted_n_node_samples=arrange("w", float),
    )
