"""Compact storage of categorical split sets, and vectorised membership tests.

Chapter 7 of the book ("Optimal partitioning", section "High cardinality")
explains this module.

A categorical node sends a set of levels left.  Written as one boolean per
level (the row :func:`climbing_trees.categories_left_row` builds, ``max_levels
+ 1`` entries with the last one for unseen codes), a tree costs
``node_count x (max_levels + 1)`` bytes: 615 MiB for 32,000 nodes and 20,000
levels.  But such a row is mostly one repeated value.  Every level that no
training row of the node carried (absent at the node, or unseen at fit) goes
the same way, to the heavier child; only the levels *present* at the node can
differ from it, and the present levels of all the nodes of one depth are at
most the number of rows.  So a node stores

* ``categories_unseen_left[node]``: the side of unseen and absent levels (the
  last entry of the row), and
* the sorted codes of the levels that go the *other* way, as the slice
  ``categories_levels[categories_start[node]:categories_stop[node]]`` of one
  shared ``int32`` array.

Numerical nodes and leaves have an empty slice and ``False``.  The slices are
stored in node order (``categories_start`` is the running total of the slice
lengths), so two trees with the same sets have the same arrays.

Membership is one ``np.searchsorted``: the key ``node * 2**32 + code`` of every
stored level, in node order and then code order, is one sorted array; a row
at ``node`` with code ``c`` looks up its own key, and goes to the side
opposite ``categories_unseen_left[node]`` exactly when it finds it
(:func:`goes_left`).  A tree whose categorical rows are small enough routes
through a table of them instead, built when first needed and never stored
(:class:`SetRouter`).

A categorical *surrogate* (chapter 9) has three kinds of levels: those it
sends left, those it sends right, and all the others (absent from the node's
labelled rows, or unseen at fit), which it cannot place.  It is stored as two
sets of this format, one for each side, with "not listed" as their unseen
side: set ``2 * slot`` lists the levels sent left and ``2 * slot + 1`` those
sent right, where ``slot = node * max_surrogates + rank``
(:func:`pack_sides`, :class:`SideRouter`, :func:`select_sides`).  Only the
levels present at the node are stored, so these too grow with the rows, not
with ``node_count x levels``.
"""

from __future__ import annotations

import numpy as np

#: dtype of the shared array of level codes.
LEVEL_DTYPE = np.int32


def unseen_goes_left(weight_left, weight_right):
    """Where unseen (and absent) levels go: to the heavier child, right on a tie."""
    return np.asarray(weight_left) > np.asarray(weight_right)


def encode_pairs(pair_node, pair_level, pair_left, unseen_left, n_levels=None):
    """The compact sets of many nodes: the (node, level) pairs stored.

    ``pair_left[i]`` says whether level ``pair_level[i]`` goes left at node
    ``pair_node[i]``, and ``unseen_left[node]`` where the node's unseen and
    absent levels go (:func:`unseen_goes_left`).  A pair is stored when its
    side differs from its node's unseen side; codes from ``n_levels`` on are
    never stored (they route as unseen).  Returns ``(set_node, set_level)``,
    in the input's order.  Both builders call it: the level-wise builder on
    the present pairs of a depth, ``grow_tree`` on one node (:func:`encode_row`).

    >>> encode_pairs(np.array([0, 0, 1]), np.array([2, 5, 2]),
    ...              np.array([True, False, False]), np.array([False, True]))
    (array([0, 1]), array([2, 2]))
    """
    listed = np.asarray(pair_left) != np.asarray(unseen_left)[pair_node]
    if n_levels is not None:
        listed &= np.asarray(pair_level) < n_levels
    return pair_node[listed], pair_level[listed]


def encode_row(row: np.ndarray) -> tuple[bool, np.ndarray]:
    """``(unseen_left, levels)`` of one ``categories_left`` row (:func:`encode_pairs`).

    ``levels`` are the codes whose entry differs from the last entry (the
    side of unseen levels), in increasing order.

    >>> encode_row(np.array([True, False, True, True]))
    (True, array([1], dtype=int32))
    >>> encode_row(np.array([False, True, False, False]))
    (False, array([1], dtype=int32))
    """
    row = np.asarray(row, dtype=bool)
    codes = np.arange(len(row) - 1, dtype=LEVEL_DTYPE)
    one_node = np.zeros(len(codes), dtype=np.intp)
    _, levels = encode_pairs(one_node, codes, row[:-1], row[-1:])
    return bool(row[-1]), levels


def pack(node_of_level: np.ndarray, levels: np.ndarray, node_count: int):
    """``(start, stop, levels)`` of the levels of each node, stored in node order.

    ``node_of_level[i]`` is the node of ``levels[i]``; within a node the
    levels must be distinct.  The result lists the nodes' levels by node id,
    each node's in increasing order.

    >>> start, stop, levels = pack(np.array([2, 0, 2]), np.array([7, 5, 3]), 3)
    >>> start.tolist(), stop.tolist(), levels.tolist()
    ([0, 1, 1], [1, 1, 3], [5, 3, 7])
    """
    node_of_level = np.asarray(node_of_level, dtype=np.int64)
    levels = np.asarray(levels, dtype=np.int64)
    order = np.lexsort((levels, node_of_level))
    counts = np.bincount(node_of_level, minlength=node_count)
    stop = np.cumsum(counts).astype(np.intp)
    start = stop - counts
    return start, stop, levels[order].astype(LEVEL_DTYPE)


def gather(start: np.ndarray, stop: np.ndarray, levels: np.ndarray):
    """``(node_of_level, level)`` of every stored level, nodes in id order."""
    lengths = np.asarray(stop) - np.asarray(start)
    nodes = np.repeat(np.arange(len(lengths)), lengths)
    # Position of each entry: its node's start plus its rank within the node.
    first = np.cumsum(lengths) - lengths
    index = np.asarray(start)[nodes] + (np.arange(len(nodes)) - first[nodes])
    return nodes, np.asarray(levels)[index]


def membership_keys(start, stop, levels) -> np.ndarray:
    """Sorted ``node * 2**32 + code`` of every stored level (see the module notes)."""
    nodes, codes = gather(start, stop, levels)
    return (nodes.astype(np.int64) << 32) + codes.astype(np.int64)


def goes_left(keys, unseen_left, nodes, x, n_levels) -> np.ndarray:
    """Whether codes ``x`` (floats) at categorical ``nodes`` go left: search ``keys``.

    ``keys`` are the sorted keys of :func:`membership_keys`.  A code outside
    ``0 .. n_levels - 1`` (unseen at fit: -1) is never stored, so it follows
    ``unseen_left``.
    """
    nodes = np.asarray(nodes, dtype=np.int64)
    inside = (x >= 0) & (x < n_levels)
    codes = np.where(inside, x, -1).astype(np.int64)
    query = (nodes << 32) + codes
    if keys.size:
        position = np.minimum(np.searchsorted(keys, query), keys.size - 1)
        found = keys[position] == query
    else:
        found = np.zeros(query.shape, dtype=bool)
    return np.asarray(unseen_left)[nodes] != found


#: Largest number of (node, level) entries of the table :class:`SetRouter`
#: builds to route rows; past it, it searches the sorted keys instead.
TABLE_ENTRIES = 1 << 24


class SetRouter:
    """Which way codes go at categorical nodes, for many rows at once.

    Built once per tree (and once per depth while growing).  When the rows of
    the categorical ``nodes`` fit in :data:`TABLE_ENTRIES` booleans, it keeps
    them as a table and a lookup is one fancy index.  Otherwise it keeps the
    sorted keys ``node * 2**32 + code`` of the stored levels
    (:func:`membership_keys`): a row at ``node`` with code ``c`` searches for
    its key and goes against ``unseen_left[node]`` exactly when it finds it.
    Either way memory follows the stored levels, or is bounded; the answers
    are the same.
    """

    def __init__(self, unseen_left, start, stop, levels, width: int, nodes: np.ndarray):
        self.unseen_left = np.asarray(unseen_left, dtype=bool)
        self.n_levels = int(width) - 1
        nodes = np.asarray(nodes, dtype=np.intp)
        self.table = self.row_of = self.keys = None
        if len(nodes) * int(width) <= TABLE_ENTRIES:
            self.row_of = np.zeros(len(self.unseen_left), dtype=np.intp)
            self.row_of[nodes] = np.arange(len(nodes))
            sets = (self.unseen_left, start, stop, levels)
            self.table = dense_rows(*sets, int(width), nodes)
        else:
            self.keys = membership_keys(start, stop, levels)

    def goes_left(self, nodes: np.ndarray, x: np.ndarray) -> np.ndarray:
        """Whether codes ``x`` (floats) at categorical ``nodes`` go left.

        A code outside ``0 .. n_levels - 1`` (unseen at fit: -1) is never
        stored, so it follows ``unseen_left``.
        """
        inside = (x >= 0) & (x < self.n_levels)
        if self.table is not None:
            codes = np.where(inside, x, -1).astype(np.intp)  # -1: the last column
            return self.table[self.row_of[nodes], codes]
        return goes_left(self.keys, self.unseen_left, nodes, x, self.n_levels)


def dense_rows(unseen_left, start, stop, levels, width: int, nodes=None) -> np.ndarray:
    """The ``categories_left`` rows (bool, ``width = max_levels + 1``) of ``nodes``.

    ``nodes=None``: every node.  Costs ``len(nodes) x width`` bytes, which is
    why trees do not store them.
    """
    unseen_left = np.asarray(unseen_left, dtype=bool)
    nodes = np.arange(len(unseen_left)) if nodes is None else np.atleast_1d(nodes)
    rows = np.repeat(unseen_left[nodes][:, None], width, axis=1)
    sub_start, sub_stop = np.asarray(start)[nodes], np.asarray(stop)[nodes]
    owner, codes = gather(sub_start, sub_stop, levels)
    rows[owner, codes] = ~rows[owner, codes]
    return rows


def select(unseen_left, start, stop, levels, kept: np.ndarray, cleared: np.ndarray):
    """The compact sets of the nodes ``kept`` (bool mask), re-packed in node order.

    ``cleared`` (a mask over the kept nodes) marks nodes that lose their test
    (pruned to leaves): their set becomes empty.  Used by
    :func:`climbing_trees.prune`.
    """
    unseen = np.asarray(unseen_left, dtype=bool)[kept] & ~cleared
    sub_start = np.where(cleared, 0, np.asarray(start)[kept])
    sub_stop = np.where(cleared, 0, np.asarray(stop)[kept])
    nodes, codes = gather(sub_start, sub_stop, levels)
    new_start, new_stop, new_levels = pack(nodes, codes, len(unseen))
    return unseen, new_start, new_stop, new_levels


# Three-state sets: categorical surrogates (chapter 9; see the module notes).


def pack_sides(slot: np.ndarray, levels: np.ndarray, left: np.ndarray, slot_count: int):
    """``(start, stop, levels)`` of three-state sets: levels sent left, sent right.

    ``levels[i]`` goes left at ``slot[i]`` when ``left[i]``, else right; every
    other code cannot be placed there.  ``start`` and ``stop`` have shape
    ``(slot_count, 2)``: ``levels[start[s, 0]:stop[s, 0]]`` are the codes slot
    ``s`` sends left, ``[start[s, 1]:stop[s, 1]]`` those it sends right, each
    sorted (the sets ``2 s`` and ``2 s + 1`` of :func:`pack`).

    >>> start, stop, levels = pack_sides(np.array([1, 1, 1]), np.array([4, 0, 2]),
    ...                                  np.array([False, True, True]), 2)
    >>> start.tolist(), stop.tolist(), levels.tolist()
    ([[0, 0], [0, 2]], [[0, 0], [2, 3]], [0, 2, 4])
    """
    half = 2 * np.asarray(slot, dtype=np.int64) + ~np.asarray(left, dtype=bool)
    start, stop, levels = pack(half, levels, 2 * int(slot_count))
    return start.reshape(-1, 2), stop.reshape(-1, 2), levels


def dense_sides(start, stop, levels, width: int) -> np.ndarray:
    """The three-state rows (int8, ``width`` codes) of every slot: 1 left, 2 right, 0.

    The last entry (unseen codes) is 0.  Costs ``slots x width`` bytes, which
    is why trees do not store them.
    """
    start, stop = np.asarray(start), np.asarray(stop)
    flat = (np.zeros(start.size, dtype=bool), start.ravel(), stop.ravel(), levels)
    rows = dense_rows(*flat, int(width)).astype(np.int8)
    return rows[0::2] + 2 * rows[1::2]


def select_sides(start, stop, levels, kept: np.ndarray, cleared: np.ndarray):
    """The three-state sets of the kept nodes, re-packed (:func:`select`, twice per slot).

    ``start`` and ``stop`` have shape ``(node_count, max_surrogates, 2)``;
    ``kept`` (bool, per node) and ``cleared`` (per kept node) as in
    :func:`select`.  Returns ``(start, stop, levels)``.
    """
    shape = np.shape(start)
    per_set = shape[1] * shape[2]
    kept_sets = np.repeat(np.asarray(kept, dtype=bool), per_set)
    cleared_sets = np.repeat(np.asarray(cleared, dtype=bool), per_set)
    flat = np.asarray(start).ravel(), np.asarray(stop).ravel(), levels
    none = np.zeros(kept_sets.size, dtype=bool)
    _, new_start, new_stop, new_levels = select(none, *flat, kept_sets, cleared_sets)
    new_shape = (int(np.count_nonzero(kept)), *shape[1:])
    return new_start.reshape(new_shape), new_stop.reshape(new_shape), new_levels


class SideRouter:
    """Where three-state sets send codes, for many rows at once.

    One :class:`SetRouter` over the sets ``2 s`` (left) and ``2 s + 1``
    (right) of the ``slots`` to be queried (all of them by default), whose
    unseen side is "not listed": a code goes left when slot ``s``'s left set
    lists it, right when its right set does, and cannot be placed otherwise.
    """

    def __init__(self, start, stop, levels, width: int, slots=None):
        start, stop = np.asarray(start), np.asarray(stop)
        n_sets = start.size
        slots = np.arange(n_sets // 2) if slots is None else np.asarray(slots, dtype=np.intp)
        sets = np.column_stack([2 * slots, 2 * slots + 1]).ravel()
        listed = (np.zeros(n_sets, dtype=bool), start.ravel(), stop.ravel(), levels)
        self.router = SetRouter(*listed, width, sets)

    def side(self, slots: np.ndarray, x: np.ndarray) -> np.ndarray:
        """Per code ``x`` (float) at ``slots``: 1 sent left, -1 right, 0 cannot place."""
        slots = np.asarray(slots, dtype=np.intp)
        left = self.router.goes_left(2 * slots, x)
        right = self.router.goes_left(2 * slots + 1, x)
        return left.astype(np.int8) - right.astype(np.int8)
