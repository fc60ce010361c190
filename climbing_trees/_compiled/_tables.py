"""Compiled helpers of the per-tree work around the builder's loop.

- :func:`flat_codes`: the arrays of :meth:`climbing_trees._tree.Tree.flat_tables`
  (predict's lookup tables) in a few compiled passes over the nodes, instead of a dozen
  numpy calls and a level-by-level walk (a 12,000-node tree's tables: about
  1.1 ms in numpy, a quarter of that now), so that a forest's trees build them cheaply
  in its threads.
- :class:`ForestRows`: what a forest's trees would each find again in the
  forest's rows: every feature's presorted rows, cut down to the rows a tree
  keeps by :func:`kept_orders` instead of sorted again, and the class codes.
- :func:`descend_rows`: the estimators' predict, the steps of
  :meth:`climbing_trees._tree.Tree.apply_flat` on the same tables, four rows
  on their way at once, each place taking the next row when its row reaches a
  leaf (100,000 x 20 classification at full depth: the descent takes about
  0.65x the time of scikit-learn's ``apply``; when four rows instead waited
  for the deepest of them, 0.98x).
"""

from __future__ import annotations

import threading
from typing import NamedTuple

import numpy as np

from .._levelwise._orders import _in_place
from .._tree import TREE_LEAF
from ._grow import _class_codes, _presorted
from ._rules import jit


@jit
def flat_codes(left, right, feature, threshold, n_node_samples, node):
    """Fill ``node`` (each slot's node id: internal nodes, then leaves, each in id
    order) and return ``next_code``, the doubled ``threshold``, ``shift``
    (the bit length of the largest feature of an internal node, at least 0),
    that largest feature (-1 without one), the number of internal nodes,
    whether a threshold of an internal node is NaN (a categorical split) and
    ``finished`` (the training rows whose leaf is at each depth, for the
    nodes reached from the root).

    The codes are those of :meth:`climbing_trees._tree.Tree.apply_flat`:
    ``(2 s) << shift | feature`` for the internal node in slot ``s``,
    ``(2 s) << shift`` for a leaf.
    """
    N = left.shape[0]
    n_internal = 0
    largest = -1
    for i in range(N):
        if left[i] != TREE_LEAF:
            n_internal += 1
            if feature[i] > largest:
                largest = feature[i]
    shift = 0
    while (1 << shift) <= largest:  # int(max(largest, 0)).bit_length()
        shift += 1
    code = np.empty(N, dtype=np.intp)
    s_in, s_leaf = 0, n_internal
    for i in range(N):
        if left[i] != TREE_LEAF:
            node[s_in] = i
            code[i] = ((2 * s_in) << shift) | feature[i]
            s_in += 1
        else:
            node[s_leaf] = i
            code[i] = (2 * s_leaf) << shift
            s_leaf += 1
    next_code = np.empty(2 * N, dtype=np.intp)
    doubled = np.empty(2 * N)
    categorical = False
    for s in range(N):
        i = node[s]
        if s < n_internal:
            next_code[2 * s] = code[right[i]]
            next_code[2 * s + 1] = code[left[i]]
            t = threshold[i]
            if np.isnan(t):
                categorical = True
            doubled[2 * s] = t
            doubled[2 * s + 1] = t
        else:
            next_code[2 * s] = code[i]
            next_code[2 * s + 1] = code[i]
            doubled[2 * s] = np.inf
            doubled[2 * s + 1] = np.inf
    # Depths from the root down (ids need not be ordered by depth): a stack.
    depth = np.zeros(N, dtype=np.intp)
    stack = np.empty(N + 1, dtype=np.intp)
    finished = np.zeros(N + 1, dtype=np.int64)
    deepest = 0
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        i = stack[top]
        if depth[i] > deepest:
            deepest = depth[i]
        if left[i] == TREE_LEAF:
            finished[depth[i]] += n_node_samples[i]
        else:
            if top + 2 > stack.shape[0]:
                raise ValueError("the children arrays do not describe a tree")
            depth[left[i]] = depth[i] + 1
            depth[right[i]] = depth[i] + 1
            stack[top] = left[i]
            stack[top + 1] = right[i]
            top += 2
    finished = finished[: deepest + 1].copy()
    return next_code, doubled, shift, largest, n_internal, categorical, finished


@jit
def kept_orders(order, ranks, keep):
    """The rows of ``order`` (each row: all rows sorted by one feature) that
    ``keep`` marks, renumbered as the rows of ``X[keep]``: the orders a stable
    sort of ``X[keep]`` gives, since ties stay in the order of the row indices;
    and their ``ranks`` (:func:`._grow._value_ranks`), cut down with them.  The
    ranks of the kept rows are no longer consecutive, but they order and tie
    the values as the kept rows' own ranks would, which is all the scan reads."""
    n = keep.shape[0]
    renumber = np.empty(n, dtype=np.int32)
    m = 0
    for i in range(n):
        renumber[i] = m
        if keep[i]:
            m += 1
    out = np.empty((order.shape[0], m), dtype=np.int32)
    out_ranks = np.empty((order.shape[0], m), dtype=np.int32)
    for j in range(order.shape[0]):
        k = 0
        for p in range(n):
            i = order[j, p]
            if keep[i]:
                out[j, k] = renumber[i]
                out_ranks[j, k] = ranks[j, p]
                k += 1
    return out, out_ranks


class ForestRows:
    """What every tree of a forest would otherwise find again in the forest's rows.

    A forest's trees grow on the same validated ``X`` and ``Y``, each on the
    rows its bootstrap keeps (its rows of weight 0 removed).  The compiled
    builder sorts each feature's rows once per tree when it presorts
    (:func:`._grow._presorted`; 20,000 x 20: about 25 ms, a third of a random
    forest's tree) and reads each row's class from the one-hot ``Y``
    (:func:`._grow._class_codes`).  Here both are done once for the forest,
    on first use (thread-safe), and each tree gets its rows' part
    (:meth:`for_tree`): the same arrays, so the same trees.

    Memory: the forest's orders and ranks (``8 n d`` bytes, int32) stay for
    the whole fit, beside each growing tree's own cut-down copies (one per
    thread at a time); not yet measured against scikit-learn's forests.
    """

    def __init__(self, X: np.ndarray, Y: np.ndarray):
        self._X, self._Y = X, Y
        self._lock = threading.Lock()
        self._orders = None
        self._codes = {}

    def for_tree(self, keep: np.ndarray | None) -> TreeRows:
        """The part of the rows ``keep`` marks (``None``: every row)."""
        return TreeRows(self, keep)

    def sorted_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """Every feature's rows sorted and their values' ranks (``_presorted``),
        sorted on the first call."""
        with self._lock:
            if self._orders is None:
                X, flat, row_step, column_step = _in_place(self._X)
                self._orders = _presorted(X, flat, row_step, column_step)
        return self._orders

    def class_codes(self, offsets: np.ndarray) -> np.ndarray:
        """Each row's class in each output (``_class_codes(Y, offsets)``, which
        refuses a ``Y`` that is not one-hot), found on the first call."""
        key = tuple(offsets.tolist())
        with self._lock:
            if key not in self._codes:
                self._codes[key] = _class_codes(self._Y, offsets)
        return self._codes[key]


class TreeRows(NamedTuple):
    """A tree's part of :class:`ForestRows`: what :func:`grow_tree_compiled` takes
    as ``forest_rows`` for the rows ``X[keep]`` (``keep`` None: every row)."""

    forest: ForestRows
    keep: np.ndarray | None

    def orders(self) -> tuple[np.ndarray, np.ndarray]:
        """The orders of ``_presorted(X[keep])`` and ranks that order and tie the
        values as its ranks do, new arrays (the builder partitions them in place)."""
        order, ranks = self.forest.sorted_rows()
        if self.keep is None:
            return order.copy(), ranks.copy()
        return kept_orders(order, ranks, self.keep)

    def class_codes(self, offsets: np.ndarray) -> np.ndarray:
        """``_class_codes(Y[keep], offsets)``."""
        codes = self.forest.class_codes(offsets)
        return codes if self.keep is None else codes[self.keep]


#: Rows that :func:`descend_rows` walks down together, a step each in turn.
DESCENT_GROUP = 4


@jit
def descend_rows(X, next_code, threshold, missing_left, node, shift, mask, root, first_leaf):
    """The leaf id of each row of the C-ordered block ``X``: the steps of
    :meth:`climbing_trees._tree.Tree.apply_flat` on its tables, in compiled code.

    Each row starts at ``root``'s code; from a code, ``a = code >> shift``
    (twice the slot) and the feature ``code & mask``; the row goes left
    (``next_code[a + 1]``) when its value is at most ``threshold[a]`` or,
    where the value is missing, when the slot's ``missing_left`` says so.
    :data:`DESCENT_GROUP` rows are on their way at once, a step each in
    turn, so that the reads of one row's step wait while the others' run (a
    row at a time, each step would wait for the last one's reads).  A row
    that reaches a leaf hands its place to the next row, so no place waits
    for the deepest row of its group.  Trees without categorical nodes, and
    rows without surrogates to consult, only (the others take the numpy
    steps).  The same comparisons as the numpy steps, so the same leaves.
    """
    n = X.shape[0]
    out = np.empty(n, dtype=np.intp)
    codes = np.empty(DESCENT_GROUP, dtype=np.intp)
    rows = np.full(DESCENT_GROUP, -1, dtype=np.intp)  # -1: a place with no row
    following = min(DESCENT_GROUP, n)  # the next row to start
    for r in range(following):
        rows[r] = r
        codes[r] = root
    on_the_way = following
    while on_the_way > 0:
        for r in range(DESCENT_GROUP):
            row = rows[r]
            if row < 0:
                continue
            code = codes[r]
            a = code >> shift
            x = X[row, code & mask]
            left = (x <= threshold[a]) | (np.isnan(x) & missing_left[a >> 1])
            code = next_code[a + (1 if left else 0)]
            codes[r] = code
            if code >= first_leaf:  # at a leaf: the place takes the next row
                out[row] = node[code >> (shift + 1)]
                if following < n:
                    rows[r] = following
                    codes[r] = root
                    following += 1
                else:
                    rows[r] = -1
                    on_the_way -= 1
    return out
