"""C4.5's fractional missing values (Quinlan 1993, ch. 3), chapter 9's third answer.

With ``missing_values="fractional"`` a row missing the feature of a
numerical split goes down *both* branches, its weight multiplied by each
branch's share of the node's training weight of the rows where that feature
is present; at fit, and again at predict, where a row's prediction is the
weighted mixture of the leaves it reaches.  The rule, written once here:

1. **Choosing the split.**  Each feature is searched on the node's rows
   where it is present (:func:`climbing_trees._surrogates.best_present_split`,
   the surrogate trees' search), and features compete by the *absolute*
   weighted impurity decrease among those rows, ``W_p I_p - W_L I_L - W_R I_R``.
   Divided by the node's weight ``W_t`` this is ``F * (I_p - (W_L I_L + W_R
   I_R) / W_p)`` with ``F = W_p / W_t`` the node's fraction of weight whose
   value is known: C4.5's gain of a test with unknown outcomes, "the
   apparent gain ... multiplied by F" (Quinlan 1993, section 3.1, p. 28),
   with CART's impurities (Gini, entropy, squared error, ...) in place of
   C4.5's information and no gain ratio.  A missing row counts with its
   current (possibly already fractional) weight in ``W_t``, not in the
   search; ``min_samples_leaf`` counts present rows on each side.
2. **Routing** (:func:`fractional_children`).  Present rows follow the
   split.  A missing row goes left with weight ``w * p`` and right with
   weight ``w * (1 - p)``, where ``p = W_L / (W_L + W_R)`` is the left
   share of the present rows' weight at the node (C4.5's "probability of
   outcome", the sum of the weights of the rows known to take it over the
   sum of those of known outcome, Quinlan 1993, p. 30).  The sums are
   correctly rounded (:func:`math.fsum`), so ``p`` does not depend on the
   order of the rows.  A row whose share is 0 does not enter that child.
   Weight is conserved: the leaves' weights sum to the root's.
3. **The nodes** hold the rows that reached them with their fractional
   weights: ``value``, ``impurity`` and ``weighted_n_node_samples`` use
   those weights, and ``n_node_samples`` counts each row that reached the
   node (with any positive share) once.
4. **Prediction** (:func:`leaf_weights`): a row missing a node's feature
   descends both children with ``p`` and ``1 - p`` of its weight, so each
   row ends as weights over leaves summing to 1, and ``predict_proba`` /
   ``predict`` of a regressor are the weighted mixture of those leaves'
   values (a classifier predicts the most probable class of the mixture).
   The tree stores ``p`` as ``missing_left_fraction`` (NaN at leaves and
   categorical nodes; missing values of a categorical feature are a level).

Size: a row missing a split's feature enters both subtrees, and keeps a
(small) weight in nodes it would otherwise have left, so such nodes are
rarely pure; grown without limits, a fractional tree can have many times
the nodes of a tree grown with ``"learn"`` on the same rows.  Row counts
(``min_samples_leaf``, ``min_samples_split``) count every row present at a
node, however small its share; C4.5 counts weights instead, which the
package's ``min_weight_fraction_leaf`` does.  Bound the tree (``max_depth``,
``min_weight_fraction_leaf``, ``ccp_alpha``).

``apply`` and ``decision_path`` give one leaf per row: at a node whose
feature the row misses they follow the larger share (``missing_go_to_left``
is ``p > 1/2``; right on equal shares), the heaviest branch at each step.
So for a row with missing values ``value[apply(x)]`` is one leaf of the
mixture, not the prediction.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import sparse

from ._tree import TREE_LEAF


def left_share(x: np.ndarray, threshold: float, w: np.ndarray) -> float:
    """``p``: the left branch's share of the weight of the rows where ``x`` is present.

    >>> x, w = np.array([1.0, 2.0, np.nan, 5.0]), np.array([1.0, 2.0, 9.0, 1.0])
    >>> left_share(x, 3.0, w)
    0.75
    """
    present = ~np.isnan(x)
    left = math.fsum(w[present & (x <= threshold)])
    right = math.fsum(w[present & ~(x <= threshold)])
    return left / (left + right)


def fractional_children(x: np.ndarray, threshold: float, w: np.ndarray):
    """The two children of a node's rows under a numerical split, and ``p``.

    ``x`` holds the split feature of the node's rows (NaN: missing), ``w``
    their (fractional) weights.  Returns ``((left, w_left), (right, w_right),
    p)``: boolean masks over the node's rows and the weights the selected
    rows carry into each child; a missing row is in both, with ``w * p`` and
    ``w * (1 - p)`` (in neither where its share is 0).

    >>> (l, wl), (r, wr), p = fractional_children(
    ...     np.array([1.0, np.nan, 5.0]), 3.0, np.array([3.0, 2.0, 1.0]))
    >>> l.tolist(), wl.tolist(), r.tolist(), wr.tolist(), p
    ([True, True, False], [3.0, 1.5], [False, True, True], [0.5, 1.0], 0.75)
    """
    p = left_share(x, threshold, w)
    missing = np.isnan(x)
    below = x <= threshold  # False where missing
    left = below | (missing & (p > 0))
    right = (~below & ~missing) | (missing & (p < 1))
    w_left = np.where(missing, w * p, w)[left]
    w_right = np.where(missing, w * (1 - p), w)[right]
    return (left, w_left), (right, w_right), p


def leaf_weights(tree, X: np.ndarray):
    """Each row's weights over the leaves of a fractional ``tree``, a CSR matrix.

    Shape ``(n_rows, node_count)``; row ``i`` sums to 1.  All rows descend
    together, one level per step; a row missing a numerical node's feature
    becomes two entries, ``p`` and ``1 - p`` of its weight (entries of
    weight 0 are dropped).  Present values, categorical levels and trees
    without fractions route as :meth:`Tree.apply` does.
    """
    X = np.asarray(X, dtype=float)
    n = len(X)
    row, node, weight = np.arange(n), np.zeros(n, dtype=np.intp), np.ones(n)
    done = [(row[:0], node[:0], weight[:0])]
    fraction = tree.missing_left_fraction
    while row.size:
        leaf = tree.children_left[node] == TREE_LEAF
        done.append((row[leaf], node[leaf], weight[leaf]))
        row, node, weight = row[~leaf], node[~leaf], weight[~leaf]
        x = X[row, tree.feature[node]]
        p = fraction[node]
        split = np.isnan(x) & ~np.isnan(p)  # missing at a fractional node: both ways
        go_left = tree._goes_left(node, x)  # present values and categorical levels
        one = ~split
        left, right = tree.children_left[node], tree.children_right[node]
        to_l, to_r = split & (p > 0), split & (p < 1)  # a share of 0 enters no child
        row = np.concatenate([row[one], row[to_l], row[to_r]])
        node = np.concatenate(
            [np.where(go_left[one], left[one], right[one]), left[to_l], right[to_r]]
        )
        parts = [weight[one], weight[to_l] * p[to_l], weight[to_r] * (1 - p[to_r])]
        weight = np.concatenate(parts)
    rows, nodes, weights = (np.concatenate(a) for a in zip(*done, strict=True))
    return sparse.csr_matrix((weights, (rows, nodes)), shape=(n, tree.node_count))


def mix(weights, node_values: np.ndarray) -> np.ndarray:
    """Rows' mixtures of per-node arrays: ``weights`` from :func:`leaf_weights`.

    ``node_values`` has one entry per node (any trailing shape); the result
    one per row, each the weighted sum of its leaves' entries.
    """
    flat = node_values.reshape(len(node_values), -1)
    return np.asarray(weights @ flat).reshape(weights.shape[0], *node_values.shape[1:])


def mixed_values(tree, X: np.ndarray) -> np.ndarray:
    """The weighted mixture of the leaf values each row of ``X`` reaches.

    Shape ``(n_rows, n_outputs, n_values)``, as ``tree.value`` taken at
    ``apply(X)`` would be; equal to it for rows that miss no split feature.
    """
    return mix(leaf_weights(tree, X), tree.value)


__all__ = ["fractional_children", "leaf_weights", "left_share", "mix", "mixed_values"]
