"""Compiled helpers of the per-tree work around the builder's loop.

- :func:`flat_codes`: the arrays of :meth:`climbing_trees._tree.Tree.flat_tables`
  (predict's lookup tables) in a few compiled passes over the nodes, instead of a dozen
  numpy calls and a level-by-level walk (a 12,000-node tree's tables: about
  1.1 ms in numpy, a quarter of that now), so that a forest's trees build them cheaply
  in its threads.
"""

from __future__ import annotations

import numpy as np

from .._tree import TREE_LEAF
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
