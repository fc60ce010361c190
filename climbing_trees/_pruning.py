"""Pruning a grown tree: cost-complexity pruning, best-first truncation, and CV.

Chapter 8 of the book ("Pruning") explains this module.  CART grows a large
tree, then cuts it back (Breiman et al. 1984, ch. 3 and 10).  Everything here
works on the flat arrays of a fitted :class:`~climbing_trees.Tree`, whatever
builder grew it and whatever its splits test (thresholds or sets of levels):

* :func:`node_risk` gives each node's risk ``R(t)``, its share of the
  training weight times its impurity (scikit-learn's ``ccp_alpha``) or times
  its misclassification rate (Breiman's and rpart's).
* :func:`weakest_links` prunes the weakest link, the internal node ``t`` with
  the smallest ``g(t) = (R(t) - R(T_t)) / (|T_t| - 1)``, again and again until
  only the root is left, and records each step; :func:`cost_complexity_path`
  reports it as scikit-learn does and :func:`ccp_subtree` stops it at a given
  ``alpha``.
* :func:`best_first_subtree` keeps the splits with the largest weighted
  impurity decrease, parents first, up to a number of leaves
  (``max_leaf_nodes``).
* :func:`prune` turns any such choice of nodes into a new :class:`Tree`, its
  ids in depth-first preorder and every per-node array kept consistent.
* :func:`select_ccp_alpha` chooses ``alpha`` by cross-validation, with
  Breiman's one-standard-error rule.
"""

from __future__ import annotations

import dataclasses
import heapq
import math

import numpy as np
import pandas as pd
from sklearn.base import clone, is_classifier
from sklearn.metrics import check_scoring
from sklearn.model_selection import check_cv
from sklearn.utils import Bunch

from ._category_sets import select, select_sides
from ._tree import TREE_LEAF, TREE_UNDEFINED, Tree
from ._validation import power_of_two_scale

#: The kinds of node risk :func:`node_risk` knows.
RISKS = ("impurity", "misclassification")


def node_risk(tree: Tree, risk: str = "impurity") -> np.ndarray:
    """Risk ``R(t)`` of every node if it were a leaf, as a share of the root's weight.

    ``R(t) = W_t / W * I(t)``, where ``W_t`` is the node's training weight and
    ``W`` the root's.  ``I(t)`` is the node's impurity (``risk="impurity"``,
    scikit-learn's definition for ``ccp_alpha``), or its weighted
    misclassification rate ``1 - max_k p_k(t)`` (``risk="misclassification"``,
    Breiman et al. 1984, section 3.3, and rpart's ``method="class"``), which
    needs a classification tree (``value`` holds class proportions).

    The risk of a subtree is the sum of the risks of its leaves; for a
    classification tree with ``risk="misclassification"`` it is the weighted
    training error.

    Parameters
    ----------
    tree : Tree
        A fitted tree (``estimator.tree_``, or :func:`climbing_trees.grow_tree`'s).
    risk : {"impurity", "misclassification"}, default="impurity"
        What ``I(t)`` measures.

    Returns
    -------
    ndarray of shape (node_count,)
        ``R(t)`` of every node.

    Examples
    --------
    Six rows, the tree splits at 1.5, 3.5 and 4.5 (node 2 holds rows 2 to 5):

    >>> from climbing_trees import grow_tree, one_hot
    >>> X = np.arange(6.0).reshape(-1, 1)
    >>> Y = one_hot(np.array([0, 0, 1, 1, 0, 1]), 2)
    >>> tree = grow_tree(X, Y, np.ones(6), criterion="gini")
    >>> node_risk(tree).tolist()[:3]   # 6/6 * 0.5, 2/6 * 0, 4/6 * 0.375
    [0.5, 0.0, 0.25]
    >>> node_risk(tree, "misclassification").tolist()[:3]   # one row of four wrong
    [0.5, 0.0, 0.16666666666666666]
    """
    if risk not in RISKS:
        raise ValueError(f"risk={risk!r} is not supported; use one of {RISKS}.")
    # The share W_t / W first: it lies in [0, 1] whatever the scale of the weights.
    # (scikit-learn computes W_t * I(t) / W, which underflows to 0 with subnormal
    # weights and overflows with huge ones; at ordinary scales the two differ in the
    # last bit.)
    share = tree.weighted_n_node_samples / tree.weighted_n_node_samples[0]
    if risk == "impurity":
        return share * tree.impurity
    # Several outputs: the mean of the outputs' misclassification rates.
    return share * (1.0 - tree.value.max(axis=2).mean(axis=1))


def _parents(tree: Tree) -> np.ndarray:
    """Parent id of every node (-1 for the root)."""
    parent = np.full(tree.node_count, -1, dtype=np.intp)
    internal = np.flatnonzero(tree.children_left != TREE_LEAF)
    parent[tree.children_left[internal]] = internal
    parent[tree.children_right[internal]] = internal
    return parent


def link_strength(r_node, r_branch, n_leaves):
    """``g(t) = (R(t) - R(T_t)) / (|T_t| - 1)``, clipped at 0: the one rule for ``g``.

    A split never raises the risk: each child's own fit (its class
    proportions or majority, its mean or median) does at least as well on its
    rows as the parent's, so ``g`` is never negative.  Rounding can leave
    ``R(t) - R(T_t)`` a hair below 0 (``-1e-17``) when a split gains nothing.
    Clipping (``-0.0`` included) makes every path alpha a valid ``ccp_alpha``
    (a negative one is refused) and puts such branches first, at alpha 0, in
    id order.  Works on floats (the heap of :func:`weakest_links`, where a
    numpy call per value would cost half its time) and on arrays
    (:func:`weakest_links_scan`), with the same rule.
    """
    g = (r_node - r_branch) / (n_leaves - 1)
    if isinstance(g, np.ndarray):
        return np.where(g <= 0.0, 0.0, g)
    return 0.0 if g <= 0.0 else g


def weakest_links(
    tree: Tree,
    risk: np.ndarray | None = None,
    max_alpha: float = np.inf,
) -> Bunch:
    """The weakest-link pruning sequence of ``tree``, one collapsed node per step.

    Every internal node ``t`` has ``g(t) = (R(t) - R(T_t)) / (|T_t| - 1)``:
    the risk that collapsing its branch ``T_t`` into a leaf adds, per leaf
    removed (:func:`link_strength`, never below 0).  Each step collapses the
    node with the smallest ``g`` (the lowest id among equal ones), updates
    ``R(T_s)`` and ``|T_s|`` of its ancestors, and records that ``g`` as the
    step's alpha, until the root is a leaf (Breiman et al. 1984, section
    10.2).  Nodes that share one alpha are collapsed in successive steps that
    record the same alpha, as in scikit-learn's ``ccp_pruning_path``.

    Parameters
    ----------
    tree : Tree
    risk : ndarray of shape (node_count,), optional
        ``R(t)`` of every node; :func:`node_risk` ``(tree, "impurity")`` by default.
    max_alpha : float, default=inf
        Stop before the first step whose alpha is above this.

    Returns
    -------
    Bunch with
        nodes : ndarray of int
            The node collapsed at each step (ids of ``tree``).
        alphas : ndarray of float
            ``g`` of that node when it was collapsed.
        risks : ndarray of float, one longer
            ``R(T)`` of the whole tree before the first step and after each one.
        n_leaves : ndarray of int, one longer
            Its number of leaves, before the first step and after each one.

    Notes
    -----
    The ``g`` of every internal node waits in a heap keyed by ``(g, id)``.
    Collapsing a node changes ``g`` only for its ancestors: their new values
    are pushed, and an entry whose value is no longer the node's (or whose
    node has left the tree) is skipped when it comes out.  A step costs
    ``O(depth log node_count)`` instead of the ``O(node_count)`` scan of
    :func:`weakest_links_scan`, which gives the same steps bit for bit.  The
    arithmetic follows scikit-learn's: ``R(T_t)`` starts as the sum of leaf
    risks in increasing leaf id order, and a collapse adds ``R(t) - R(T_t)``
    to each ancestor.

    Examples
    --------
    Node 2's branch goes first (``g = 0.25 / 2``), then the root's:

    >>> from climbing_trees import grow_tree, one_hot
    >>> X = np.arange(6.0).reshape(-1, 1)
    >>> Y = one_hot(np.array([0, 0, 1, 1, 0, 1]), 2)
    >>> tree = grow_tree(X, Y, np.ones(6), criterion="gini")
    >>> links = weakest_links(tree)
    >>> links.nodes.tolist(), links.alphas.tolist(), links.n_leaves.tolist()
    ([2, 0], [0.125, 0.25], [4, 2, 1])
    """
    r_node = node_risk(tree) if risk is None else np.asarray(risk, dtype=float)
    parent = _parents(tree).tolist()
    is_leaf = tree.children_left == TREE_LEAF
    r = r_node.tolist()
    branch, count = _branch_risks(r_node, parent, is_leaf)
    size = _branch_sizes(tree)
    internal = np.flatnonzero(~is_leaf).tolist()
    g = [np.inf] * tree.node_count
    for t in internal:
        g[t] = link_strength(r[t], branch[t], count[t])
    heap = [(g[t], t) for t in internal]
    heapq.heapify(heap)
    # Collapsed, or inside a collapsed branch.
    gone = np.zeros(tree.node_count, dtype=bool)
    nodes, alphas, risks, leaves = [], [], [branch[0]], [max(1, count[0])]
    while heap:
        g_t, t = heapq.heappop(heap)
        if gone[t] or g_t != g[t]:
            continue  # a stale entry
        if g_t > max_alpha:
            break
        nodes.append(t)
        alphas.append(g_t)
        gone[t : t + size[t]] = True
        removed, r_diff = count[t] - 1, r[t] - branch[t]
        count[t], branch[t] = 0, r[t]
        node = parent[t]
        while node != -1:
            count[node] -= removed
            branch[node] += r_diff
            g[node] = link_strength(r[node], branch[node], count[node])
            heapq.heappush(heap, (g[node], node))
            node = parent[node]
        risks.append(branch[0])
        leaves.append(max(1, count[0]))
    return Bunch(
        nodes=np.array(nodes, dtype=np.intp),
        alphas=np.array(alphas, dtype=float),
        risks=np.array(risks, dtype=float),
        n_leaves=np.array(leaves, dtype=np.intp),
    )


def _branch_risks(
    r_node: np.ndarray,
    parent: list,
    is_leaf: np.ndarray,
) -> tuple[list, list]:
    """``R(T_t)`` and ``|T_t|`` of every branch, as lists (0 leaves counted at a leaf).

    Each leaf's risk bubbles up to its ancestors, leaves in increasing id
    order: the order of scikit-learn's sums.
    """
    r = r_node.tolist()
    branch = [x if leaf else 0.0 for x, leaf in zip(r, is_leaf.tolist(), strict=True)]
    count = [0] * len(r)
    for leaf in np.flatnonzero(is_leaf).tolist():
        x = r[leaf]
        node = parent[leaf]
        while node != -1:
            branch[node] += x
            count[node] += 1
            node = parent[node]
    return branch, count


def weakest_links_scan(tree: Tree, risk: np.ndarray | None = None) -> Bunch:
    """:func:`weakest_links` written plainly: each step scans every internal node.

    The same steps, bit for bit, as :func:`weakest_links`.  Each step
    computes ``g`` of every remaining internal node (numpy, ``O(node_count)``)
    and walks up the collapsed node's ancestors: ``O(node_count * n_steps)``
    in all, like scikit-learn's loop, which makes a 40,000-node tree take
    seconds.  The tests use it as the oracle of the heap version.

    Parameters
    ----------
    tree : Tree
        A fitted tree (``estimator.tree_``, or :func:`climbing_trees.grow_tree`'s).
    risk : ndarray of shape (node_count,), optional
        ``R(t)`` of every node; :func:`node_risk` ``(tree, "impurity")`` by default.

    Returns
    -------
    Bunch
        ``nodes``, ``alphas``, ``risks`` and ``n_leaves``, as in :func:`weakest_links`.

    Examples
    --------
    >>> from climbing_trees import grow_tree, one_hot
    >>> X = np.arange(6.0).reshape(-1, 1)
    >>> Y = one_hot(np.array([0, 0, 1, 1, 0, 1]), 2)
    >>> tree = grow_tree(X, Y, np.ones(6), criterion="gini")
    >>> scan = weakest_links_scan(tree)
    >>> scan.nodes.tolist(), scan.alphas.tolist(), scan.risks.tolist()
    ([2, 0], [0.125, 0.25], [0.0, 0.25, 0.5])
    """
    r_node = node_risk(tree) if risk is None else np.asarray(risk, dtype=float)
    n = tree.node_count
    parent_list = _parents(tree).tolist()
    is_leaf = tree.children_left == TREE_LEAF
    # R(T_t) and |T_t| of every branch: each leaf's risk bubbles up to its ancestors,
    # leaves in increasing id order (the order of scikit-learn's sums).
    branch, count = _branch_risks(r_node, parent_list, is_leaf)
    r_branch, n_leaves = np.array(branch), np.array(count, dtype=np.intp)
    candidate = ~is_leaf
    nodes, alphas, risks = [], [], [float(r_branch[0])]
    leaves = [max(1, int(n_leaves[0]))]
    g = np.full(n, np.inf)
    size = _branch_sizes(tree)
    while candidate[0]:
        g.fill(np.inf)
        g[candidate] = link_strength(
            r_node[candidate],
            r_branch[candidate],
            n_leaves[candidate],
        )
        t = int(np.argmin(g))  # the first of equal minima: lowest id
        nodes.append(t)
        alphas.append(float(g[t]))
        # Collapse t: no node of its branch (ids t .. t + size - 1) is a candidate now.
        candidate[t : t + size[t]] = False
        removed = n_leaves[t] - 1
        r_diff = r_node[t] - r_branch[t]
        n_leaves[t] = 0
        r_branch[t] = r_node[t]
        node = parent_list[t]
        while node != -1:
            n_leaves[node] -= removed
            r_branch[node] += r_diff
            node = parent_list[node]
        risks.append(float(r_branch[0]))
        leaves.append(max(1, int(n_leaves[0])))
    return Bunch(
        nodes=np.array(nodes, dtype=np.intp),
        alphas=np.array(alphas, dtype=float),
        risks=np.array(risks, dtype=float),
        n_leaves=np.array(leaves, dtype=np.intp),
    )


def cost_complexity_path(tree: Tree, risk: np.ndarray | None = None) -> Bunch:
    """The pruning path of ``tree`` as scikit-learn reports it.

    Returns a :class:`sklearn.utils.Bunch` with ``ccp_alphas`` (0, then the
    alpha of each weakest-link step, :func:`weakest_links`) and
    ``impurities`` (the total leaf risk ``R(T)`` of the tree at each of those
    alphas; with ``risk="misclassification"`` risks, the weighted training
    error).  The last row is the root alone.

    Parameters
    ----------
    tree : Tree
        A fitted tree (``estimator.tree_``, or :func:`climbing_trees.grow_tree`'s).
    risk : ndarray of shape (node_count,), optional
        ``R(t)`` of every node; :func:`node_risk` ``(tree, "impurity")`` by default.

    Returns
    -------
    Bunch
        ``ccp_alphas`` and ``impurities``, arrays of one length.

    Examples
    --------
    >>> from climbing_trees import grow_tree, one_hot
    >>> X = np.arange(6.0).reshape(-1, 1)
    >>> Y = one_hot(np.array([0, 0, 1, 1, 0, 1]), 2)
    >>> tree = grow_tree(X, Y, np.ones(6), criterion="gini")
    >>> path = cost_complexity_path(tree)
    >>> path.ccp_alphas.tolist(), path.impurities.tolist()
    ([0.0, 0.125, 0.25], [0.0, 0.25, 0.5])
    """
    links = weakest_links(tree, risk)
    return Bunch(
        ccp_alphas=np.concatenate([[0.0], links.alphas]),
        impurities=links.risks,
    )


def subtree_mask(tree: Tree, collapsed) -> np.ndarray:
    """Nodes of ``tree`` that remain once each node in ``collapsed`` becomes a leaf.

    Ids are in depth-first preorder, so a node's branch is the contiguous
    run of ids from the node to the end of its branch.

    Parameters
    ----------
    tree : Tree
        A fitted tree (``estimator.tree_``, or :func:`climbing_trees.grow_tree`'s).
    collapsed : array-like of int
        Ids of the nodes to turn into leaves.

    Returns
    -------
    ndarray of bool of shape (node_count,)
        True for the nodes that remain, for :func:`prune`.

    Examples
    --------
    >>> from climbing_trees import grow_tree, one_hot
    >>> X = np.arange(6.0).reshape(-1, 1)
    >>> Y = one_hot(np.array([0, 0, 1, 1, 0, 1]), 2)
    >>> tree = grow_tree(X, Y, np.ones(6), criterion="gini")
    >>> subtree_mask(tree, [2]).tolist()   # node 2's branch is ids 3 to 6
    [True, True, True, False, False, False, False]
    """
    inside = np.ones(tree.node_count, dtype=bool)
    size = _branch_sizes(tree)
    for t in np.asarray(collapsed, dtype=np.intp).tolist():
        inside[t + 1 : t + size[t]] = False
    return inside


def _branch_sizes(tree: Tree) -> np.ndarray:
    """Number of nodes in the branch rooted at each node (itself included)."""
    size = np.ones(tree.node_count, dtype=np.intp)
    left, right = tree.children_left.tolist(), tree.children_right.tolist()
    for t in range(tree.node_count - 1, -1, -1):  # children have larger ids
        if left[t] != TREE_LEAF:
            size[t] = 1 + size[left[t]] + size[right[t]]
    return size


def ccp_subtree(tree: Tree, alpha: float, risk: np.ndarray | None = None) -> np.ndarray:
    """Nodes of the smallest subtree of ``tree`` minimising ``R(T) + alpha |T|``.

    Collapses weakest links while their ``g`` is at most ``alpha`` (the rule
    of scikit-learn's ``ccp_alpha``).  By Breiman et al.'s theorem (1984,
    section 10.2) the result is the smallest minimising subtree, unique and
    nested in the subtrees of smaller alphas.  Returns a boolean mask over
    the nodes of ``tree``, for :func:`prune`.

    Parameters
    ----------
    tree : Tree
        A fitted tree (``estimator.tree_``, or :func:`climbing_trees.grow_tree`'s).
    alpha : float
        The complexity parameter, ``ccp_alpha``.
    risk : ndarray of shape (node_count,), optional
        ``R(t)`` of every node; :func:`node_risk` ``(tree, "impurity")`` by default.

    Returns
    -------
    ndarray of bool of shape (node_count,)

    Examples
    --------
    >>> from climbing_trees import grow_tree, one_hot
    >>> X = np.arange(6.0).reshape(-1, 1)
    >>> Y = one_hot(np.array([0, 0, 1, 1, 0, 1]), 2)
    >>> tree = grow_tree(X, Y, np.ones(6), criterion="gini")
    >>> ccp_subtree(tree, 0.1).tolist()   # below every alpha: the whole tree
    [True, True, True, True, True, True, True]
    >>> ccp_subtree(tree, 0.125).tolist()   # node 2's link goes at 0.125
    [True, True, True, False, False, False, False]
    """
    links = weakest_links(tree, risk, max_alpha=alpha)
    return subtree_mask(tree, links.nodes)


def best_first_subtree(tree: Tree, max_leaf_nodes: int) -> np.ndarray:
    """Nodes kept by best-first growth with at most ``max_leaf_nodes`` leaves.

    Starting from the root, repeatedly keep the split, among the internal
    nodes of ``tree`` whose parents are already kept, with the largest
    weighted impurity decrease ``W_t I_t - W_L I_L - W_R I_R`` (the lowest id
    among equal ones), until ``max_leaf_nodes - 1`` splits are kept or none
    is left.  Returns a boolean mask over the nodes of ``tree``, for
    :func:`prune`.

    Parameters
    ----------
    tree : Tree
        A fitted tree (``estimator.tree_``, or :func:`climbing_trees.grow_tree`'s).
    max_leaf_nodes : int
        The most leaves the subtree may have.

    Returns
    -------
    ndarray of bool of shape (node_count,)

    Notes
    -----
    scikit-learn's best-first builder expands, at each step, the frontier
    node whose best split decreases the weighted impurity most.  The best
    split of a node depends only on the node's rows (when every feature is
    searched and no two features give an equal best split; otherwise
    scikit-learn's random feature order, consumed in another node order by its
    two builders, can pick other splits), and the stopping rules
    (``max_depth``, ``min_samples_*``, ``min_impurity_decrease``, purity) only
    on the node and its split, so the candidate splits it meets are exactly
    the internal nodes of the full tree grown depth first with the same
    rules.  Its tree is therefore this truncation of the full tree (on data
    without equal decreases, where the order of equal ones could differ).

    Examples
    --------
    Three leaves keep the root's split and node 2's, the one below it:

    >>> from climbing_trees import grow_tree, one_hot
    >>> X = np.arange(6.0).reshape(-1, 1)
    >>> Y = one_hot(np.array([0, 0, 1, 1, 0, 1]), 2)
    >>> tree = grow_tree(X, Y, np.ones(6), criterion="gini")
    >>> best_first_subtree(tree, 3).tolist()
    [True, True, True, True, True, False, False]
    """
    left, right = tree.children_left, tree.children_right
    w, imp = tree.weighted_n_node_samples, tree.impurity
    # The weights over a power of two near the root's (exact: the same ranking),
    # so that W_t I_t cannot overflow with weights near 1e300.
    w = np.ldexp(w, -int(np.frexp(w[0])[1]))
    internal = left != TREE_LEAF
    decrease = np.zeros(tree.node_count)
    t = np.flatnonzero(internal)
    lt, rt = left[t], right[t]
    decrease[t] = split_decrease(w[t], imp[t], w[lt], imp[lt], w[rt], imp[rt])
    keep_split = np.zeros(tree.node_count, dtype=bool)
    frontier = [(-decrease[0], 0)] if internal[0] else []
    splits = 0
    while frontier and splits < max_leaf_nodes - 1:
        _, t = heapq.heappop(frontier)
        keep_split[t] = True
        splits += 1
        for child in (int(left[t]), int(right[t])):
            if internal[child]:
                heapq.heappush(frontier, (-decrease[child], child))
    # The kept splits, their children, and nothing else.
    inside = keep_split.copy()
    inside[0] = True
    inside[left[keep_split]] = True
    inside[right[keep_split]] = True
    return inside


def split_decrease(w, impurity, w_left, impurity_left, w_right, impurity_right):
    """Weighted impurity decrease ``W_t I_t - W_L I_L - W_R I_R`` of splits: the
    priority of best-first growth (one formula, so every caller ranks alike)."""
    return w * impurity - w_left * impurity_left - w_right * impurity_right


class BestFirstBound:
    """Which nodes' splits best-first growth with ``max_leaf_nodes`` leaves never keeps.

    :func:`best_first_subtree` cuts a fully grown tree back; a builder that
    grows level by level can skip most of that growth.  Call :meth:`update`
    once per level, with the split nodes of the previous level and their
    children; it returns, for each child, whether the child's own split could
    be kept.  A child whose split cannot be kept need not be searched: growing
    it as a leaf leaves ``best_first_subtree``'s choice unchanged.

    The bound.  Best-first growth keeps, at each step, the split of largest
    :func:`split_decrease` among those whose parent is kept.  Let ``p(M)`` be the
    smallest decrease on the path from the root to a split node ``M`` (``M``
    included).  Every ``M`` with ``p(M) > g`` is kept before a split ``P`` of
    decrease ``g``: until then some ancestor of ``M`` (or ``M``) waits in the
    frontier with a larger decrease.  A child of ``P`` comes after ``P`` too,
    so it can be kept only if ``count + 1 < max_leaf_nodes - 1``, where
    ``count`` is the number of known splits with ``p(M) > g``.  Equal
    decreases are not counted (their order depends on node ids), so the bound
    never cuts a split that could be kept.

    >>> bound = BestFirstBound(max_leaf_nodes=3)
    >>> w, impurity = np.array([4.0]), np.array([1.0])
    >>> kids_w, kids_impurity = np.full(2, 2.0), np.full(2, 0.5)
    >>> bound.update(w, impurity, np.array([True]), kids_w, kids_impurity).tolist()
    [True, True]
    >>> BestFirstBound(2).update(w, impurity, np.array([True]), np.full(2, 2.0),
    ...                          np.full(2, 0.5)).tolist()  # one split: the root's
    [False, False]
    """

    def __init__(self, max_leaf_nodes: int):
        self.budget = max_leaf_nodes - 1  # splits best-first growth keeps
        self.path_min = np.array([np.inf])  # per node of the current level
        self.known = np.zeros(0)  # p(M) of every split node so far, sorted

    def update(self, w, impurity, split, w_children, impurity_children) -> np.ndarray:
        """Whether each child's split could be kept (children ordered as the
        level-wise builder orders them: left children of the split nodes, then
        right children)."""
        n = int(split.sum())
        w_l, w_r = w_children[:n], w_children[n:]
        i_l, i_r = impurity_children[:n], impurity_children[n:]
        decrease = split_decrease(w[split], impurity[split], w_l, i_l, w_r, i_r)
        # A NaN decrease has no place in the order: never counted as kept first.
        path_min = np.minimum(self.path_min[split], decrease)
        path_min[np.isnan(decrease)] = -np.inf
        self.known = np.sort(np.concatenate([self.known, path_min]))
        # Known splits with p(M) > decrease: all kept before the parent.
        before = self.known.size - np.searchsorted(self.known, decrease, side="right")
        may_keep = ~(before + 1 >= self.budget)  # a NaN decrease: not ruled out
        self.path_min = np.concatenate([path_min, path_min])
        return np.concatenate([may_keep, may_keep])


def prune(tree: Tree, inside: np.ndarray) -> Tree:
    """A new :class:`Tree` made of the nodes of ``tree`` where ``inside`` is True.

    ``inside`` must describe a pruned subtree: the root is in it, and an
    internal node's two children are both in it or both out of it (then the
    node becomes a leaf, and every node of its branch must be out).  Kept
    nodes keep their order, so ids stay in depth-first preorder; a node that
    becomes a leaf keeps its ``value``, ``impurity`` and sample counts (every
    node stores them) and loses its test (``feature``, ``threshold`` and its
    categorical set and surrogates).  Every other per-node array is indexed
    the same way; the shared arrays of categorical levels (of splits and of
    surrogates) are re-packed for the kept nodes
    (:func:`climbing_trees._category_sets.select` and
    :func:`~climbing_trees._category_sets.select_sides`), so a pruned tree
    stores no level of a removed node.

    Parameters
    ----------
    tree : Tree
        A fitted tree.
    inside : ndarray of bool of shape (node_count,)
        The nodes to keep (:func:`ccp_subtree`, :func:`best_first_subtree`).

    Returns
    -------
    Tree

    Raises
    ------
    ValueError
        When ``inside`` does not describe a pruned subtree.

    Examples
    --------
    >>> from climbing_trees import grow_tree, one_hot
    >>> X = np.arange(6.0).reshape(-1, 1)
    >>> Y = one_hot(np.array([0, 0, 1, 1, 0, 1]), 2)
    >>> tree = grow_tree(X, Y, np.ones(6), criterion="gini")
    >>> small = prune(tree, ccp_subtree(tree, 0.125))
    >>> small.node_count, small.threshold.tolist()
    (3, [1.5, -2.0, -2.0])
    """
    inside = np.asarray(inside, dtype=bool)
    left, right = tree.children_left, tree.children_right
    internal = np.flatnonzero(left != TREE_LEAF)
    kids_in = inside[left[internal]]
    if (
        inside.shape != (tree.node_count,)
        or not inside[0]
        or np.any(kids_in != inside[right[internal]])
        or np.any(kids_in & ~inside[internal])
    ):
        raise ValueError("inside does not describe a pruned subtree of tree.")
    new_id = np.cumsum(inside) - 1
    becomes_leaf = np.zeros(tree.node_count, dtype=bool)
    becomes_leaf[internal[~kids_in]] = True
    fields = {}
    # Set by select / select_sides below, or not indexed by node: not copied here.
    repacked = {
        "categories_unseen_left",
        "categories_start",
        "categories_stop",
        "categories_levels",
        "categories_width",
        "surrogate_categories_start",
        "surrogate_categories_stop",
        "surrogate_categories_levels",
    }
    for f in dataclasses.fields(Tree):
        if f.name not in repacked:
            fields[f.name] = np.asarray(getattr(tree, f.name))[inside].copy()
    leaf = becomes_leaf[inside] | (left[inside] == TREE_LEAF)
    sets = select(*tree._sets(), inside, leaf)
    names = (
        "categories_unseen_left",
        "categories_start",
        "categories_stop",
        "categories_levels",
    )
    fields.update(zip(names, sets, strict=True))
    fields["categories_width"] = tree.categories_width
    sides = select_sides(*tree._surrogate_sets(), inside, leaf)
    names = ("surrogate_categories_start", "surrogate_categories_stop")
    fields.update(zip((*names, "surrogate_categories_levels"), sides, strict=True))
    new_left = np.where(leaf, TREE_LEAF, new_id[left[inside]])
    new_right = np.where(leaf, TREE_LEAF, new_id[right[inside]])
    fields["children_left"] = new_left.astype(left.dtype)
    fields["children_right"] = new_right.astype(right.dtype)
    fields["feature"][leaf] = TREE_UNDEFINED
    fields["threshold"][leaf] = TREE_UNDEFINED
    fields["missing_go_to_left"][leaf] = False  # a leaf sends nothing anywhere
    fields["surrogate_feature"][leaf] = -1
    fields["surrogate_threshold"][leaf] = np.nan
    fields["surrogate_below_left"][leaf] = False
    fields["missing_left_fraction"][leaf] = np.nan  # a leaf splits no weight
    return Tree(**fields)


def select_ccp_alpha(
    estimator,
    X,
    y,
    *,
    cv=10,
    rule: str = "1se",
    scoring=None,
    sample_weight=None,
) -> tuple[float, pd.DataFrame]:
    """Choose ``ccp_alpha`` by cross-validation, as CART and rpart do.

    The estimator (with its other parameters) is fitted on all of ``(X, y)``
    and its pruning path computed: distinct values ``0 = a_0 < a_1 < ... < a_K``,
    the subtree ``T_k`` being optimal for ``a_k <= alpha < a_{k+1}`` and ``T_K``
    the root alone.  Each subtree gets one alpha at which every fold's tree is
    pruned (``cv_alpha``), as in Breiman et al. (1984, section 11.5) and rpart
    (``src/xval.c``):

    * ``T_k`` for ``k < K``: the geometric mean ``sqrt(a_k a_{k+1})`` of the ends
      of its interval.  rpart's ``cptable`` lists the smallest tree first, and
      ``src/xval.c`` gives each row after the first
      ``sqrt(cplist->cp * cplist->forward->cp)``, where ``cplist`` is the row
      before it (the next smaller tree, CP ``a_{k+1}``) and ``cplist->forward``
      the row itself (CP ``a_k``), both CPs being alphas over the root's risk.
      For ``T_0`` the mean is 0, each fold's grown tree.  When some branches gain
      nothing (``a_1`` is 0 to rounding, ``T_1`` the smallest tree at alpha 0),
      ``T_1`` gets ``sqrt(max(a_1, 1e-300) a_2)``, a positive alpha below ``a_2``.
    * The root ``T_K``: ``inf``, so every fold's tree is cut to its root and the
      row is the root's held-out error.  rpart uses ``10 a_K`` ("close enough to
      infinity"); any finite alpha leaves a split in a fold whose own root has a
      larger ``g``.

    The risks are shares of the root's weight, in the whole data and in each
    fold, so one alpha serves all folds (rpart, whose risks are sums, rescales
    its CPs by each fold's weight).  In each fold of ``cv`` the tree is grown
    once on the training part, pruned to every ``cv_alpha``, and scored on the
    held-out part.

    Parameters
    ----------
    estimator : DecisionTreeClassifier or DecisionTreeRegressor
        Unfitted or fitted; it is cloned.  Its ``ccp_alpha`` is ignored and
        its ``ccp_risk`` (classifier) defines the path.
    X, y : training data (a DataFrame with categorical columns is fine)
    cv : int, cross-validation generator or iterable, default=10
        Passed to :func:`sklearn.model_selection.check_cv` (stratified folds
        for a classifier when ``cv`` is an int).
    rule : {"1se", "min"}, default="1se"
        ``"min"``: the subtree with the smallest ``cv_loss`` (the smallest tree
        among equal ones).  ``"1se"``: the smallest tree whose ``cv_loss`` is at
        most the minimum plus that minimum's standard error (Breiman et al.
        1984, section 3.4.3); never a larger tree than ``"min"``.
    scoring : None, str or callable, default=None
        ``None``: the loss is the held-out misclassification rate (classifier)
        or squared error (regressor), averaged over all held-out rows
        (weighted by ``sample_weight``), with standard error
        ``sqrt(var(loss) / N)`` over rows, as in CART and rpart; no pruned
        tree is built (each held-out row's path through a fold's tree gives
        its leaf at every alpha).  Otherwise a scikit-learn scorer, called on
        each pruned tree of each fold: the loss is minus the mean of the fold
        scores and its standard error ``std(fold scores) / sqrt(n_folds)``.
    sample_weight : array-like of shape (n_samples,), optional

    Returns
    -------
    alpha : float
        ``ccp_alpha`` of the chosen subtree: ``estimator.set_params(ccp_alpha=alpha)``
        fitted on ``(X, y)`` gives it.  Its ``cv_alpha``, except for the root,
        where it is ``a_K`` (the estimators refuse an infinite ``ccp_alpha``).
    table : pandas.DataFrame
        One row per subtree of the path, largest tree first, like rpart's
        ``cptable``, with columns

        * ``alpha``: ``a_k``, in the units of ``pruning_risk``;
        * ``alpha_over_root_risk``: ``a_k / R(root)`` (rpart's CP when the
          pruning risk is the misclassification rate);
        * ``cv_alpha``: the alpha every fold's tree is pruned to;
        * ``n_leaves``: leaves of ``T_k``;
        * ``pruning_risk``: ``R(T_k)`` on the training rows, in the risk that
          defines the path (weighted impurity, or misclassification rate with
          ``ccp_risk="misclassification"``);
        * ``cv_loss``, ``cv_se``: the held-out loss (misclassification rate,
          squared error, or minus the score) and its standard error;
        * ``chosen``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from climbing_trees import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> model = DecisionTreeClassifier(random_state=0)
    >>> alpha, table = select_ccp_alpha(model, X, y, cv=5)
    >>> table.n_leaves.tolist()
    [9, 7, 5, 4, 3, 2, 1]
    >>> table.n_leaves[table.chosen].tolist(), round(alpha, 4)
    ([5], 0.0108)
    """
    if rule not in ("1se", "min"):
        raise ValueError(f"rule={rule!r} is not supported; use '1se' or 'min'.")
    full = clone(estimator).set_params(ccp_alpha=0.0)
    full.fit(X, y, sample_weight=sample_weight)
    links = weakest_links(full.tree_, full._node_risk(full.tree_))
    distinct, last = _distinct_alphas(links.alphas, links.risks[-1])
    leaves_k, risk_k = links.n_leaves[last], links.risks[last]
    candidates = _cv_alphas(distinct, links.risks[-1])
    y_cv = np.asarray(y)
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=float)
    classifier = is_classifier(estimator)
    splitter = check_cv(cv, y_cv, classifier=classifier)
    scorer = None if scoring is None else check_scoring(estimator, scoring=scoring)
    n = len(y_cv)
    losses = np.zeros((len(candidates), n))
    fold_scores = []
    for train, test in splitter.split(np.zeros((n, 1)), y_cv):
        model = clone(estimator).set_params(ccp_alpha=0.0)
        w_train = None if w is None else w[train]
        model.fit(_take(X, train), y_cv[train], sample_weight=w_train)
        fold_links = weakest_links(model.tree_, model._node_risk(model.tree_))
        X_test = _take(X, test)
        if scorer is not None:
            # The fitted copy records a finite ccp_alpha (its tree is the pruned one).
            largest = float(fold_links.alphas.max()) if len(fold_links.alphas) else 0.0
            fold_scores.append(
                [
                    scorer(
                        model._with_tree(
                            _prune_by_links(model.tree_, fold_links, a), min(a, largest)
                        ),
                        X_test,
                        y_cv[test],
                    )
                    for a in candidates
                ]
            )
            continue
        # The leaf each held-out row reaches in every pruned tree, without building
        # them.
        landing = _landing_nodes(
            model.tree_, fold_links, model._validate_X_predict(X_test), candidates
        )
        value = model.tree_.value
        y_test = y_cv[test].reshape(len(test), -1)  # one column per output
        if classifier:  # several outputs: the mean of the outputs' errors
            classes = [model.classes_] if y_cv.ndim == 1 else model.classes_
            wrong = [
                c[np.argmax(value[:, k, : len(c)], axis=1)][landing] != y_test[:, k]
                for k, c in enumerate(classes)
            ]
            losses[:, test] = sum(wrong) / len(wrong)
        else:
            losses[:, test] = ((value[landing, :, 0] - y_test) ** 2).mean(axis=-1)
    if scorer is None:
        cv_loss, cv_se = _weighted_mean_and_se(losses, w)
    else:
        # (candidates, folds): the loss is minus the score.
        risks = -np.array(fold_scores).T
        cv_loss = risks.mean(axis=1)
        k = risks.shape[1]
        if k > 1:
            cv_se = risks.std(axis=1, ddof=1) / np.sqrt(k)
        else:
            cv_se = np.zeros_like(cv_loss)
    best = _argmin_last(cv_loss)
    if rule == "min":
        chosen = best
    else:
        ok = np.flatnonzero(cv_loss <= cv_loss[best] + cv_se[best])
        chosen = int(ok.max())
    root_risk = float(links.risks[-1])
    table = pd.DataFrame(
        {
            "alpha": distinct,
            "alpha_over_root_risk": distinct / root_risk if root_risk > 0 else np.nan,
            "cv_alpha": candidates,
            "n_leaves": leaves_k.astype(int),
            "pruning_risk": risk_k,
            "cv_loss": cv_loss,
            "cv_se": cv_se,
            "chosen": np.arange(len(distinct)) == chosen,
        }
    )
    alpha = distinct[-1] if chosen == len(distinct) - 1 else candidates[chosen]
    return float(alpha), table


def _cv_alphas(distinct: np.ndarray, root_risk: float) -> np.ndarray:
    """The alpha each fold's tree is pruned to, per distinct path value (see
    :func:`select_ccp_alpha`): geometric means of consecutive values, ``inf`` for
    the root."""
    candidates = np.concatenate([np.sqrt(distinct[:-1] * distinct[1:]), [np.inf]])
    if len(distinct) > 2 and distinct[1] <= 1e-12 * root_risk:
        # The zero-alpha links (to rounding): a candidate just above them.
        candidates[1] = np.sqrt(max(distinct[1], 1e-300) * distinct[2])
    return candidates


def _weighted_mean_and_se(
    losses: np.ndarray,
    sample_weight,
) -> tuple[np.ndarray, np.ndarray]:
    """Mean of each row of ``losses`` over the held-out rows and its standard error.

    Weighted by ``sample_weight``, first divided by a power of two (exact) that
    brings the largest into [1, 2), so that subnormal or huge weights neither
    underflow nor overflow, and summed exactly (``math.fsum``): the result does
    not depend on the order of the rows or on BLAS.
    """
    n = losses.shape[1]
    if sample_weight is None:
        weights = np.ones(n)
    else:
        weights, _ = power_of_two_scale(np.asarray(sample_weight, dtype=float))
    total = math.fsum(weights)
    mean = np.array([math.fsum(row) for row in losses * weights]) / total
    squares = weights * (losses - mean[:, None]) ** 2
    var = np.array([math.fsum(row) for row in squares]) / total
    return mean, np.sqrt(var / n)


def _distinct_alphas(alphas: np.ndarray, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of a pruning path, and the last step of each.

    The last steps index the rows of ``risks`` and ``n_leaves``.  The path's
    alphas with a 0 in front; rounding can leave an alpha a hair below the one
    before it, so their running maximum is used (pruning to an alpha stops at
    the first larger one, so it sees the same order).  Alphas within a
    relative 1e-10 of each other, or within ``1e-12 * scale`` (pass the root's
    risk), are equal up to rounding (the same ``g`` summed in another order)
    and form one value.  The grown tree always has a row of its own: when some
    splits do not lower the risk at all, the first two values are (about) 0,
    the grown tree (``ccp_alpha=0`` keeps it) and the tree without those
    splits.
    """
    path = np.maximum.accumulate(np.concatenate([[0.0], alphas]))  # alphas are >= 0
    new = np.r_[True, path[1:] > path[:-1] * (1 + 1e-10) + 1e-12 * scale]
    if len(path) > 1:
        new[1] = True
    starts = np.flatnonzero(new)
    last = np.r_[starts[1:] - 1, len(path) - 1]
    return path[last], last


def _collapse_alphas(tree: Tree, links: Bunch) -> np.ndarray:
    """The alpha from which each node is a leaf of the pruned tree.

    ``-inf`` for the leaves of ``tree``, the (running maximum) alpha of the
    step that collapsed a node, and ``inf`` for a node never collapsed itself
    (an ancestor was collapsed first).  At ``alpha``, a row lands in the
    first node of its path from the root whose value is at most ``alpha``.
    """
    c = np.where(tree.children_left == TREE_LEAF, -np.inf, np.inf)
    c[links.nodes] = np.maximum.accumulate(links.alphas) if len(links.alphas) else []
    return c


def _decision_paths(tree: Tree, X: np.ndarray) -> np.ndarray:
    """Node ids on each row's path from the root, shape (n_rows, depth + 1).

    A path shorter than the longest is padded with its leaf.
    """
    node = np.zeros(len(X), dtype=np.intp)
    path = [node]
    while True:
        internal = tree.children_left[node] != TREE_LEAF
        if not internal.any():
            return np.stack(path, axis=1)
        node = node.copy()
        rows, current = np.flatnonzero(internal), node[internal]
        go_left = tree._goes_left(current, X[rows, tree.feature[current]])
        left, right = tree.children_left[current], tree.children_right[current]
        node[rows] = np.where(go_left, left, right)
        path.append(node)


def _landing_nodes(
    tree: Tree,
    links: Bunch,
    X: np.ndarray,
    alphas: np.ndarray,
) -> np.ndarray:
    """The leaf each row reaches in the tree pruned to each alpha.

    Shape (len(alphas), n_rows).
    """
    paths = _decision_paths(tree, X)
    c = _collapse_alphas(tree, links)[paths]  # (n_rows, depth + 1)
    out = np.empty((len(alphas), len(X)), dtype=np.intp)
    rows = np.arange(len(X))
    for k, a in enumerate(alphas):
        if a == 0.0:  # ccp_alpha=0 keeps the grown tree
            out[k] = paths[:, -1]
        else:
            out[k] = paths[rows, np.argmax(c <= a, axis=1)]
    return out


def _argmin_last(values: np.ndarray) -> int:
    """Index of the minimum; the last among equal ones (the smallest tree)."""
    return int(len(values) - 1 - np.argmin(values[::-1]))


def _take(X, rows):
    return X.iloc[rows] if hasattr(X, "iloc") else np.asarray(X)[rows]


def _prune_by_links(tree: Tree, links: Bunch, alpha: float) -> Tree:
    """:func:`ccp_subtree` then :func:`prune`, reusing a weakest-link sequence."""
    if alpha == 0.0:
        return tree
    above = np.flatnonzero(links.alphas > alpha)
    n_steps = above[0] if above.size else len(links.alphas)
    return prune(tree, subtree_mask(tree, links.nodes[:n_steps]))


__all__ = [
    "RISKS",
    "best_first_subtree",
    "ccp_subtree",
    "cost_complexity_path",
    "node_risk",
    "prune",
    "select_ccp_alpha",
    "subtree_mask",
    "weakest_links",
    "weakest_links_scan",
]
