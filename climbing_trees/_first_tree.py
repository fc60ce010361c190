"""A first decision tree in one page: a node, the naive search, recursion, predict.

Chapter 2 of the book ("The naive split search and greedy growth") opens with
this module.  It is the whole of CART's growth phase with nothing else: no
sample weights, two stopping rules (``max_depth``, ``min_samples_split``),
nodes as linked objects, recursion instead of a stack.  The rest of the book
hardens it into :func:`climbing_trees.grow_tree`, and the tests check that both
grow the same tree (same tests, same leaf values) where the first tree's
simplifications do not matter: unit weights and no ties that rounding could
break differently.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Node:
    """A leaf (``value`` only) or an internal node (a test, two children).

    Parameters
    ----------
    value : ndarray
        The node's prediction: class proportions or the mean target.
    feature, threshold : int, float
        The test ``x[feature] <= threshold`` (left); -1 and NaN in a leaf.
    left, right : Node or None
        The children; ``None`` in a leaf.

    Examples
    --------
    >>> leaf = Node(value=np.array([2.0]))
    >>> leaf.left is None, leaf.feature
    (True, -1)
    """

    value: np.ndarray  # mean row of Y: class proportions or mean target
    feature: int = -1  # the test: x[feature] <= threshold goes left
    threshold: float = np.nan
    left: Node | None = None
    right: Node | None = None


def first_impurity(Y: np.ndarray, criterion: str) -> float:
    """Gini impurity of one-hot rows ``Y``, or the variance of a target.

    Parameters
    ----------
    Y : ndarray of shape (n_samples, n_columns)
        One-hot labels (``"gini"``) or a target column (``"squared_error"``).
    criterion : {"gini", "squared_error"}

    Returns
    -------
    float

    Examples
    --------
    >>> first_impurity(np.array([[1.0, 0.0], [0.0, 1.0]]), "gini")
    0.5
    """
    if criterion == "gini":
        p = Y.mean(axis=0)  # class proportions
        return 1.0 - float(np.sum(p**2))
    return float(np.var(Y[:, 0]))  # "squared_error"


def first_best_split(X: np.ndarray, Y: np.ndarray, criterion: str):
    """``(feature, threshold)`` leaving the least impurity, or ``None``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    Y : ndarray of shape (n_samples, n_columns)
        One-hot labels or a target column.
    criterion : {"gini", "squared_error"}

    Returns
    -------
    tuple of (int, float) or None
        ``None`` when every feature is constant.

    Examples
    --------
    >>> X = np.array([[0.0, 5.0], [1.0, 5.0], [2.0, 6.0]])
    >>> first_best_split(X, np.array([[1.0], [1.0], [4.0]]), "squared_error")
    (0, 1.5)
    """
    best, best_score = None, np.inf
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])  # sorted distinct values
        for threshold in (values[:-1] + values[1:]) / 2:  # one per gap
            left = X[:, j] <= threshold
            n_left, n_right = left.sum(), (~left).sum()
            score = (
                n_left * first_impurity(Y[left], criterion)
                + n_right * first_impurity(Y[~left], criterion)
            ) / len(Y)
            if score < best_score:  # strict: the first of equal scores wins
                best, best_score = (j, float(threshold)), score
    return best


def grow_first_tree(
    X,
    Y,
    criterion="gini",
    max_depth=None,
    min_samples_split=2,
    depth=0,
):
    """Grow a tree on ``X`` and one-hot ``Y`` (or a target column).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    Y : ndarray of shape (n_samples, n_columns)
        One-hot labels or a target column.
    criterion : {"gini", "squared_error"}
    max_depth : int or None
        Nodes at this depth become leaves.
    min_samples_split : int
        Nodes with fewer rows become leaves.
    depth : int
        Depth of this node (the recursion's counter).

    Returns
    -------
    Node
        The root of the grown tree.

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> Y = np.array([[1.0], [1.0], [5.0], [5.0]])
    >>> root = grow_first_tree(X, Y, "squared_error")
    >>> root.threshold, root.left.value.tolist(), root.right.value.tolist()
    (1.5, [1.0], [5.0])
    """
    node = Node(value=Y.mean(axis=0))
    too_deep = max_depth is not None and depth >= max_depth
    if too_deep or len(Y) < min_samples_split:
        return node  # a stopping rule makes this node a leaf
    if np.all(Y == Y[0]):
        return node  # pure: nothing left to separate
    split = first_best_split(X, Y, criterion)
    if split is None:
        return node  # every feature is constant here
    node.feature, node.threshold = split
    left = X[:, node.feature] <= node.threshold
    rules = (criterion, max_depth, min_samples_split, depth + 1)
    node.left = grow_first_tree(X[left], Y[left], *rules)
    node.right = grow_first_tree(X[~left], Y[~left], *rules)
    return node


def predict_first_tree(node: Node, X: np.ndarray) -> np.ndarray:
    """The leaf value of each row of ``X``: walk down from the root.

    Parameters
    ----------
    node : Node
        The root of a tree from :func:`grow_first_tree`.
    X : ndarray of shape (n_samples, n_features)

    Returns
    -------
    ndarray of shape (n_samples, n_columns)

    Examples
    --------
    >>> X, Y = np.array([[0.0], [1.0]]), np.array([[2.0], [4.0]])
    >>> predict_first_tree(grow_first_tree(X, Y, "squared_error"), X).tolist()
    [[2.0], [4.0]]
    """
    out = []
    for x in X:
        leaf = node
        while leaf.left is not None:
            go_left = x[leaf.feature] <= leaf.threshold
            leaf = leaf.left if go_left else leaf.right
        out.append(leaf.value)
    return np.array(out)
