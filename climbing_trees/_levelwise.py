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

from ._criteria import CLASSIFICATION_CRITERIA, impurity_from_statistics
from ._growth import grow_tree
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
    is_categorical: np.ndarray | None = None,
    n_categories: np.ndarray | None = None,
    categorical_split: str = "auto",
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
    is_categorical, n_categories, categorical_split
        Categorical features, as in :func:`grow_tree`.  Trees with categorical
        features are grown by :func:`grow_tree` itself.

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
    >>> X = np.array([[0.0, 3.0], [1.0, 2.0], [2.0, 1.0], [3.0, 0.0]])
    >>> Y = np.array([[1.0], [1.0], [5.0], [7.0]])
    >>> fast = grow_tree_levelwise(X, Y, np.ones(4), criterion="squared_error")
    >>> slow = grow_tree(X, Y, np.ones(4), criterion="squared_error")
    >>> fast.threshold.tolist() == slow.threshold.tolist()
    True
    """
    if is_categorical is not None and np.any(is_categorical):
        return grow_tree(
            X,
            Y,
            sample_weight,
            criterion=criterion,
            max_depth=max_depth,
            min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf,
            min_impurity_decrease=min_impurity_decrease,
            is_categorical=is_categorical,
            n_categories=n_categories,
            categorical_split=categorical_split,
        )
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    w = np.asarray(sample_weight, dtype=float)
    n, d = X.shape
    regression = criterion not in CLASSIFICATION_CRITERIA
    depth_limit = np.inf if max_depth is None else max_depth
    W = float(w.sum())
    eps = np.finfo(float).eps
    # With unit weights, a prefix's total weight is its row count (exactly).
    unit = bool(np.all(w == 1.0))

    # Transposed features with one extra column: padding points at row n.
    Xt = np.empty((d, n + 1))
    Xt[:, :n] = X.T
    Xt[:, n] = -np.inf  # padding: never above its left neighbour
    # rows[j] (j < d): the level's rows, node by node, sorted by feature j.
    # rows[d]: the same rows node by node in index order (the order grow_tree
    # keeps).  The extra last column is the padding row n.
    rows = np.empty((d + 1, n + 1), dtype=np.intp)
    rows[:d, :n], has_ties = _presort(Xt[:, :n])
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
        if regression:
            pure = _is_pure(Y_rows, w_rows, node_of_pos, starts, n_nodes)
        else:  # one-hot rows: pure when at most one class has positive weight
            pure = np.count_nonzero(node_stats > 0, axis=1) <= 1

        searchable = (
            (depth < depth_limit)
            & (sizes >= min_samples_split)
            & (sizes >= 2 * min_samples_leaf)
            & ~pure
        )
        feature = np.full(n_nodes, TREE_UNDEFINED, dtype=np.intp)
        threshold = np.full(n_nodes, float(TREE_UNDEFINED))
        if searchable.any() and d:
            # Per-row statistics as flat columns, padded with a zero at row n.
            cols = np.zeros((phi.shape[1], n + 1))
            cols[:, index_rows] = phi.T
            best_f, best_t, best_s = _best_splits(
                rows,
                Xt,
                has_ties,
                cols,
                unit,
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


def _presort(Xt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Stable argsort of every row of ``Xt`` (one per feature), and which rows have ties.

    numpy's default sort is several times faster than its stable sort; the
    two agree when a feature has no repeated value, so only features with
    ties are sorted again stably (ties then keep the row order, as in
    ``grow_tree``).
    """
    order = np.argsort(Xt, axis=1)
    values = np.take_along_axis(Xt, order, axis=1)
    has_ties = (values[:, 1:] == values[:, :-1]).any(axis=1)
    if has_ties.any():
        order[has_ties] = np.argsort(Xt[has_ties], axis=1, kind="stable")
    return order, has_ties


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
    :func:`climbing_trees.impurity_from_statistics`, so the same bits.
    """
    if criterion == "squared_error":
        total, s1, s2 = parts
        mean = s1 / total
        return total, np.maximum(s2 / total - mean * mean, 0.0)
    total = _sum_last(parts)
    p = [part / total for part in parts]
    if criterion == "gini":
        return total, 1.0 - _sum_last([q**2 for q in p])
    return total, -_sum_last([q * np.log2(np.where(q > 0, q, 1.0)) for q in p])


def _xlogx(a: np.ndarray) -> np.ndarray:
    """``a * log2(a)`` with ``0 log 0 = 0``."""
    out = np.zeros_like(a)
    np.log2(a, out=out, where=a > 0)
    out *= a
    return out


def _gains(left, stats, w_left, w_right, criterion):
    """Split *gains*: ``const - W_t * score`` for every candidate, bigger is better.

    Cheaper forms of the scores of :func:`climbing_trees.impurity_from_statistics`
    (chapter 8 derives them); the constant is ``W_t`` for Gini, 0 for entropy
    and the node's sum of squares for squared error.  ``left`` holds the
    prefix sums of the statistic columns (class counts, or weighted sum of
    centred targets), ``stats`` the node's totals.
    """
    if criterion == "squared_error":
        s1_left = left[0]
        gain = s1_left * s1_left
        gain /= w_left
        s1_right = np.subtract(stats[1], s1_left)
        s1_right *= s1_right
        s1_right /= w_right
        gain += s1_right
        return gain
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
        return sq_left
    # Entropy: W_L H_L = W_L log2 W_L - sum_k c_k log2 c_k (same for the right).
    gain = -_xlogx(np.asarray(w_left, dtype=float)) - _xlogx(np.asarray(w_right, dtype=float))
    for total, part in zip(stats, left, strict=True):
        gain = gain + _xlogx(part)
        gain += _xlogx(np.subtract(total, part))
    return gain


def _best_splits(
    rows,
    Xt,
    has_ties,
    cols,
    unit,
    starts,
    sizes,
    searchable,
    node_stats,
    impurity,
    criterion,
    min_samples_leaf,
):
    """Best (feature, threshold, score) of every searchable node of a level.

    Returns ``feature = -1`` (and score ``inf``) for nodes without an allowed
    split.  Candidates are ranked by :func:`_gains`; each node's winner is
    then scored again with exactly the arithmetic of ``grow_tree``.
    """
    n_nodes = sizes.size
    d, width = Xt.shape
    dummy = rows.shape[1] - 1
    regression = criterion == "squared_error"
    best_f = np.full(n_nodes, -1, dtype=np.intp)
    best_t = np.full(n_nodes, np.nan)
    best_s = np.full(n_nodes, np.inf)
    Xflat = Xt.ravel()
    tied = np.flatnonzero(has_ties)
    x_offset = (tied * width)[None, :, None]
    # Columns scanned: class counts (all but the last with unit weights, whose
    # count is the row count minus the others), or the centred weighted target.
    scanned = cols[1:2] if regression else (cols[:-1] if unit else cols)
    candidates = np.flatnonzero(searchable)
    for nodes in _size_classes(sizes[candidates], d):
        nodes = candidates[nodes]
        c = len(nodes)
        m = sizes[nodes]
        L = int(m.max())
        offset = np.arange(L)
        pos = np.where(offset < m[:, None], starts[nodes, None] + offset, dummy)
        # Rows of each node sorted by each feature, shape (nodes, features, L).
        idx = rows[:d, pos].transpose(1, 0, 2)
        left_idx = idx[:, :, :-1]
        i = offset[:-1]
        stats = node_stats[nodes].T[:, :, None, None]  # (columns, c, 1, 1)
        w_node = stats[0] if regression else _sum_last(list(stats))
        # Positions the row counts allow (min_samples_leaf each side; this also
        # rules out the last position and the padding): 0 there, -inf elsewhere.
        high = m - min_samples_leaf - 1
        penalty = np.where((i >= min_samples_leaf - 1) & (i <= high[:, None]), 0.0, -np.inf)
        # The segmented prefix sums: each block row restarts at zero.
        if unit:
            w_left = i + 1.0  # total weight of a prefix = its row count
        elif regression:
            w_left = np.cumsum(cols[0].take(left_idx), axis=-1)
        left = [np.cumsum(col.take(left_idx), axis=-1) for col in scanned]
        if not regression and unit:
            shape = (c, d, L - 1)
            left.append(w_left - _sum_last(left) if left else np.broadcast_to(w_left, shape))
        elif not regression:
            w_left = _sum_last(left)
        w_right = w_node - w_left
        empty = None
        if unit:
            w_right = np.maximum(w_right, 0.5)  # only refused positions are clamped
        else:
            # A side without weight is refused; give it weight 1 so no 0/0 appears.
            empty = (w_left <= 0) | (w_right <= 0)
            w_left = np.where(w_left > 0, w_left, 1.0)
            w_right = np.where(w_right > 0, w_right, 1.0)
        gains = _gains(left, stats, w_left, w_right, criterion)
        gains += penalty[:, None, :]
        if empty is not None:
            np.putmask(gains, empty, -np.inf)
        if tied.size:
            # A threshold never separates equal values (features with ties only).
            xs = Xflat.take(idx[:, tied] + x_offset)
            equal = xs[:, :, :-1] >= xs[:, :, 1:]
            if tied.size == d:
                np.putmask(gains, equal, -np.inf)
            else:
                part = gains[:, tied]
                np.putmask(part, equal, -np.inf)
                gains[:, tied] = part
        # A node's candidates in tie-break order: by feature, then position.
        flat = gains.reshape(c, -1)
        best = flat.max(axis=1)
        found = np.isfinite(best)
        w_t = w_node.ravel()
        const = {"gini": w_t, "squared_error": stats[-1].ravel()}.get(criterion, 0.0)
        best_score = (const - best) / w_t
        tol = TIE_RTOL * np.maximum(np.abs(impurity[nodes]), np.abs(best_score)) * w_t
        first = np.argmax(flat >= (best - tol)[:, None], axis=1)
        j, k = np.divmod(first, L - 1)
        block = np.arange(c)
        lower = Xflat[j * width + idx[block, j, k]]
        upper = Xflat[j * width + idx[block, j, k + 1]]
        # Score each winner again with grow_tree's formula from exact prefix sums
        # (same order of additions), so min_impurity_decrease sees the same number.
        slices = idx[block, j, :-1]
        win_left = [np.cumsum(col.take(slices), axis=-1)[block, k] for col in cols]
        win_right = [s[:, 0, 0] - part for s, part in zip(stats, win_left, strict=True)]
        with np.errstate(invalid="ignore", divide="ignore"):
            wl, il = _impurity(win_left, criterion)
            wr, ir = _impurity(win_right, criterion)
            total = _impurity([s[:, 0, 0] for s in stats], criterion)[0]
            score = (wl * il + wr * ir) / total
        nodes, j, lower, upper, score = (a[found] for a in (nodes, j, lower, upper, score))
        best_f[nodes] = j
        best_t[nodes] = midpoint_threshold(lower, upper)
        best_s[nodes] = score
    return best_f, best_t, best_s


def _partition(rows, Xt, node_of_pos, starts, sizes, split, feature, threshold):
    """Stable partition of every order: split nodes' rows into their children.

    Rows of nodes that became leaves leave the arrays.  The next level lists
    the left children of the split nodes, in the parents' order, then their
    right children: ``[left_0, left_1, ..., right_0, right_1, ...]``.
    """
    n_orders = rows.shape[0]
    d = n_orders - 1
    m = int(sizes.sum())
    index_rows = rows[d, :m]
    # Each row's fate: goes left, goes right, or stays in a leaf (neither).
    keep = split[node_of_pos]
    kept_rows = np.compress(keep, index_rows)
    kept_node = np.compress(keep, node_of_pos)
    go_left = Xt[feature[kept_node], kept_rows] <= threshold[kept_node]
    to_left = np.zeros(Xt.shape[1], dtype=bool)
    to_left[kept_rows] = go_left
    n_left = np.bincount(kept_node, weights=go_left, minlength=sizes.size)[split]
    n_left = n_left.astype(np.intp)
    child_sizes = np.concatenate([n_left, sizes[split] - n_left])
    # Stable partition: boolean selection keeps the order, and every order has
    # the same number of left (right) rows, so the selections stay rectangular.
    current = rows[:, :m]
    left_mask = to_left.take(current)
    right_mask = ~left_mask
    right_mask &= keep
    flat = current.ravel()  # np.compress on flat arrays is much faster than a[mask]
    lefts = np.compress(left_mask.ravel(), flat).reshape(n_orders, -1)
    rights = np.compress(right_mask.ravel(), flat).reshape(n_orders, -1)
    pad = np.full((n_orders, 1), Xt.shape[1] - 1, dtype=rows.dtype)
    new_rows = np.concatenate(
        [
            lefts,
            rights,
            pad,  # the last column stays the padding row n
        ],
        axis=1,
    )
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
            n_split = int(split.sum())
            left[split] = base[li + 1] + np.arange(n_split)
            right[split] = base[li + 1] + n_split + np.arange(n_split)
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
