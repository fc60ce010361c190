"""The node buffers of a fit, and the Tree they become (nodes renumbered in preorder)."""

from __future__ import annotations

import math
import mmap

import numpy as np

from .._category_sets import pack
from .._criteria import (
    value_by_output,
)
from .._tree import TREE_LEAF, Tree

#: Node buffers from this many bytes on are memory maps (see :func:`_lazy_empty`).
_LAZY_BYTES = 1 << 20


#: Nodes the buffers start with when the system refuses room for the largest
#: tree the fit could grow; they double as the tree grows.
_FALLBACK_CAPACITY = 1 << 16


def _node_buffers(capacity: int, n_values: int) -> dict:
    """Empty buffers for ``capacity`` nodes' arrays (:func:`_lazy_empty`)."""
    return {
        "feature": _lazy_empty(capacity, np.intp),
        "threshold": _lazy_empty(capacity, float),
        "value": _lazy_empty((capacity, n_values), float),
        "impurity": _lazy_empty(capacity, float),
        "n": _lazy_empty(capacity, np.intp),
        "w": _lazy_empty(capacity, float),
        "split": _lazy_empty(capacity, bool),
        "unseen_left": _lazy_empty(capacity, bool),
        "missing_go_to_left": _lazy_empty(capacity, bool),
    }


def _resized(buffer: np.ndarray, capacity: int) -> np.ndarray:
    """A buffer of ``capacity`` entries that starts with ``buffer``'s."""
    out = _lazy_empty((capacity,) + buffer.shape[1:], buffer.dtype)
    out[: len(buffer)] = buffer
    return out


def _lazy_empty(shape, dtype) -> np.ndarray:
    """An uninitialised array whose memory the system gives only where it is written.

    An anonymous memory map (from 1 MiB on): untouched pages take no memory,
    and all of it goes back to the system when the array is freed (memory
    that ``malloc`` hands out may be recycled, hence resident, or backed by
    huge pages).
    """
    shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(k) for k in shape)
    dtype = np.dtype(dtype)
    count = math.prod(shape)
    if count * dtype.itemsize < _LAZY_BYTES:  # small: not worth a system call
        return np.empty(shape, dtype=dtype)
    size = count * dtype.itemsize
    # Private: a child process forked after the fit gets its own copy of a page
    # it writes, so it never changes the parent's tree (a shared map would).
    flags = {"flags": mmap.MAP_PRIVATE} if hasattr(mmap, "MAP_PRIVATE") else {}
    return np.frombuffer(mmap.mmap(-1, size, **flags), dtype=dtype).reshape(shape)


def _preorder_tree(
    nodes: dict, level_sizes: list, set_nodes: list, set_levels: list, width: int, criterion=""
) -> Tree:
    """Assemble the Tree, renumbering nodes from level order to preorder.

    ``nodes`` holds the nodes' arrays level after level (``level_sizes``
    nodes each); ``set_nodes`` and ``set_levels`` the categorical sets of
    each level.  The buffers of ``nodes`` are emptied as the Tree's arrays
    are made.
    """
    total = int(sum(level_sizes))
    base = np.cumsum([0] + level_sizes)
    # The split nodes of each level, in level-order ids.  Their children make
    # the next level: the left children first, in order, then the right ones.
    split = nodes.pop("split")
    parents = [
        base[li] + np.flatnonzero(split[base[li] : base[li + 1]])
        for li in range(len(level_sizes) - 1)
    ]
    del split
    n_split = [len(here) for here in parents]

    def children(li):
        """The level-order ids of the left and right children of level ``li``'s parents."""
        first, k = base[li + 1], n_split[li]
        return slice(first, first + k), slice(first + k, first + 2 * k)

    # Subtree sizes, bottom-up one level at a time.
    subtree = np.ones(total, dtype=np.intp)
    for li in range(len(parents) - 1, -1, -1):
        left, right = children(li)
        subtree[parents[li]] += subtree[left] + subtree[right]
    # Preorder ids, top-down: left child right after its parent, right child
    # after the left child's subtree.
    pre = np.zeros(total, dtype=np.intp)
    children_left = np.full(total, TREE_LEAF, dtype=np.intp)
    children_right = np.full(total, TREE_LEAF, dtype=np.intp)
    for li, here in enumerate(parents):
        left, right = children(li)
        pre[left] = pre[here] + 1
        pre[right] = pre[left] + subtree[left]
        children_left[pre[here]] = pre[left]
        children_right[pre[here]] = pre[right]
    del subtree, parents

    def arrange(key):
        # In preorder.  A buffer not much longer than the tree becomes the
        # Tree's array, reordered in place: the Tree takes no memory of its own.
        buffer = nodes.pop(key)
        out = buffer[:total]
        if 2 * total < len(buffer):  # a small tree: an array of its own size
            result = np.empty_like(out)
            result[pre] = out
            return result
        out[pre] = out.copy()
        return out

    # Categorical sets: level-order node ids to preorder, then packed by node.
    set_nodes, set_levels = np.concatenate(set_nodes), np.concatenate(set_levels)
    # Without categorical splits, the Tree's own empty sets (lazily zero pages).
    start = stop = packed = None
    if set_nodes.size:
        start, stop, packed = pack(pre[set_nodes], set_levels, total)
    names = {
        "feature": "feature",
        "threshold": "threshold",
        "value": "value",
        "impurity": "impurity",
        "n_node_samples": "n",
        "weighted_n_node_samples": "w",
        "categories_unseen_left": "unseen_left",
        "missing_go_to_left": "missing_go_to_left",
    }
    arrays = {name: arrange(key) for name, key in names.items()}
    arrays["value"] = value_by_output(arrays["value"], criterion)
    return Tree(
        children_left=children_left,
        children_right=children_right,
        **arrays,
        categories_start=start,
        categories_stop=stop,
        categories_levels=packed,
        categories_width=width,
    )


class NodeArrays:
    """The nodes' arrays, level after level (breadth first), and the Tree they become.

    One buffer per array, long enough for any tree this fit can grow (each
    leaf holds at least min_samples_leaf rows, so a binary tree has at most
    2 n / min_samples_leaf - 1 nodes), so that no per-level pieces are left
    to assemble.  Memory is taken only where a buffer is written.
    """

    def __init__(self, n: int, min_samples_leaf: int, max_depth, n_values: int):
        capacity = max(2 * (n // max(int(min_samples_leaf), 1)) - 1, 1)
        if max_depth is not None and max_depth < 62:
            capacity = min(capacity, 2 ** (int(max_depth) + 1) - 1)
        try:
            buffers = _node_buffers(capacity, n_values)
        except (OSError, MemoryError, ValueError):  # the system refuses so large a reservation
            capacity = min(capacity, _FALLBACK_CAPACITY)  # then grown as needed
            buffers = _node_buffers(capacity, n_values)
        self.buffers, self.capacity = buffers, capacity
        self.level_sizes = []  # nodes of each level
        self.set_nodes, self.set_levels = [], []  # categorical sets, per level (buffer ids)

    def last_level(self, name: str) -> np.ndarray:
        """The array ``name`` of the level stored last."""
        return self.buffers[name][sum(self.level_sizes[:-1]) : sum(self.level_sizes)]

    def store(self, level, made, split) -> None:
        """Append a level: its nodes' summaries and the splits ``made`` (where ``split``)."""
        n_nodes = level.n_nodes
        base = sum(self.level_sizes)
        if base + n_nodes > self.capacity:  # only after a refused reservation: grow
            self.capacity = max(2 * self.capacity, base + n_nodes)
            self.buffers = {
                name: _resized(buffer, self.capacity) for name, buffer in self.buffers.items()
            }
        self.level_sizes.append(n_nodes)
        for name, array in (
            ("feature", made.feature),
            ("threshold", made.threshold),
            ("value", level.value),
            ("impurity", level.impurity),
            ("n", level.sizes),
            ("w", level.w_node),
            ("split", split),
            ("unseen_left", made.unseen_left),
            ("missing_go_to_left", made.missing_left),
        ):
            self.buffers[name][base : base + n_nodes] = array
        self.set_nodes.append(base + made.set_node)
        self.set_levels.append(made.set_level)

    def tree(self, width: int, criterion: str) -> Tree:
        """The Tree, nodes in preorder (:func:`_preorder_tree`); the buffers go to it."""
        buffers, self.buffers = self.buffers, None
        return _preorder_tree(
            buffers, self.level_sizes, self.set_nodes, self.set_levels, width, criterion
        )
