"""The sorted orders of the rows: presorted once, partitioned level by level."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._libm import log


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
    key = np.floor(log(np.maximum(sizes, 1)) / math.log(1.25)).astype(np.intp)
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


#: Features with more equal neighbours than this share (in the sorted column)
#: have the positions between equal values refused before the choice; the
#: others are checked at the chosen positions only (see :func:`_best_splits`).
_FEW_TIES = 1 / 32


#: Largest block of (node, feature, position) cells processed in one go.
_CHUNK_CELLS = 1 << 15


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


@dataclass
class MissingCells:
    """Every missing value of the numerical features once: its ``feature`` and
    ``row``, feature by feature and each feature's rows in increasing order."""

    feature: np.ndarray
    row: np.ndarray


def _missing_sums(cells: MissingCells, rows, column, n_columns, cols, sizes):
    """Per node of the level and feature with missing values: its missing rows'
    count and, per statistic column, their sum.

    ``cells`` lists every missing value once (:class:`MissingCells`); the
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
    node = node_of_row.take(cells.row)
    here = node < n_nodes
    if not here.all():
        cells.feature, cells.row = cells.feature[here], cells.row[here]
        node = node[here]
    key = node * n_columns + column.take(cells.feature)
    size = n_nodes * n_columns
    count = np.bincount(key, minlength=size).reshape(n_nodes, n_columns)
    rows_missing = cells.row
    sums = [
        np.bincount(key, weights=col.take(rows_missing), minlength=size).reshape(n_nodes, n_columns)
        for col in cols
    ]
    return count, sums


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


class Orders:
    """The level's rows sorted by every numerical feature, node by node.

    As LightGBM's ``DataPartition``: one partitioned index array behind a few
    methods.  ``rows[j]`` (``j < d_num``) lists the level's rows, node by node,
    sorted by numerical feature ``j``; ``rows[n_sorted]`` the same rows node by
    node in index order (the order grow_tree keeps).  The last column holds
    the padding row n, and so does the position after the level's rows.  The
    random splitter scans no sorted order: it keeps the index order only.
    Row ids are int32 when they fit (half the memory).  ``tie_share`` and
    ``has_missing`` describe each numerical feature; ``missing_cells``
    (:class:`MissingCells`, or None) lists the missing cells for the
    prefix-sum search (:meth:`missing_sums`).
    """

    def __init__(self, fit):
        """Presort every numerical feature of ``fit`` (a :class:`FitData`) once."""
        X, num_features, n = fit.X, fit.num_features, fit.n
        d_num = len(num_features)
        n_sorted = 0 if fit.random_splitter else d_num
        row_dtype = np.int32 if n < np.iinfo(np.int32).max else np.intp
        rows = np.empty((n_sorted + 1, n + 1), dtype=row_dtype)
        tie_share = np.zeros(d_num)
        has_missing = np.zeros(d_num, dtype=bool)  # per numerical feature
        missing_cells = []  # (numerical feature, row) of each missing value
        # A few features at a time (_CHUNK_CELLS values): small temporaries.
        step = max(1, _CHUNK_CELLS // max(n, 1))
        for first in range(0, d_num, step):
            chunk = slice(first, min(first + step, d_num))
            # One feature per row.
            Xt = np.ascontiguousarray(X[:, num_features[chunk]].T)
            nan = np.isnan(Xt)
            has_missing[chunk] = nan.any(axis=1)
            # The missing cells, feature by feature and rows in increasing order, for
            # the prefix-sum search (the random splitter and absolute error read X).
            if has_missing[chunk].any() and not (fit.random_splitter or fit.absolute):
                feature, row = np.nonzero(nan)
                feature = (feature + first).astype(np.int32)
                missing_cells.append((feature, row.astype(row_dtype)))
            if n_sorted:
                rows[chunk, :n], tie_share[chunk] = _presort_runs(Xt)
            del Xt, nan
        cells = None  # where X is missing (MissingCells), if the search reads it
        if missing_cells:
            cells = MissingCells(
                np.concatenate([feature for feature, _ in missing_cells]),
                np.concatenate([row for _, row in missing_cells]),
            )
        rows[n_sorted, :n] = np.arange(n)
        rows[:, n] = n
        self.rows, self.n_sorted = rows, n_sorted
        self.tie_share, self.has_missing = tie_share, has_missing
        self.missing_cells = cells

    def block_positions(self, starts, sizes, L: int) -> np.ndarray:
        """Positions of a block's nodes' rows in every order, padded: (nodes, L).

        The node starting at ``starts[k]`` with ``sizes[k]`` rows, then the
        padding row's position (the last column) up to ``L``.
        """
        offset = np.arange(L)
        pad = self.rows.shape[1] - 1
        return np.where(offset < sizes[:, None], starts[:, None] + offset, pad)

    def block_rows(self, positions, features) -> np.ndarray:
        """The rows at ``positions`` (:meth:`block_positions`) of ``features``' orders.

        ``features`` per node (nodes,) gives (nodes, L); per node and slot
        (nodes, f) gives (nodes, f, L): each node's rows sorted by each feature.
        """
        flat, stride = self.rows.ravel(), self.rows.shape[1]
        if np.ndim(features) == 1:
            return flat.take(positions + (features * stride)[:, None])
        return flat.take(positions[:, None, :] + (features * stride)[:, :, None])

    def missing_sums(self, column, n_columns, cols, sizes):
        """The level's missing rows' count and sums per node and feature.

        See :func:`_missing_sums`.
        """
        cells, rows = self.missing_cells, self.rows
        return _missing_sums(cells, rows, column, n_columns, cols, sizes)

    def index_rows(self, m: int) -> np.ndarray:
        """The level's ``m`` rows, node by node, in index order."""
        return self.rows[self.n_sorted, :m]

    def partition(self, kept_rows, kept_node, go_left, sizes, split) -> np.ndarray:
        """Move the split nodes' rows into their children (:func:`_partition`)."""
        return _partition(self.rows, kept_rows, kept_node, go_left, sizes, split)
