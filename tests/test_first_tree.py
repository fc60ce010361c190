"""The first tree of chapter 2 grows the same tree as ``grow_tree``.

``grow_first_tree`` has no weights and two stopping rules; on unit weights and
data whose candidate scores have no near-ties, it must agree with the package's
builder node for node: same tests, same leaf values, same predictions.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris, load_wine

import climbing_trees as ct
from climbing_trees import Node, first_best_split, grow_first_tree, predict_first_tree


def preorder(node: Node) -> list[Node]:
    """Nodes in depth-first preorder, left child first (``grow_tree``'s ids)."""
    if node.left is None:
        return [node]
    return [node, *preorder(node.left), *preorder(node.right)]


def assert_same_tree(root: Node, tree: ct.Tree) -> None:
    nodes = preorder(root)
    assert len(nodes) == tree.node_count
    ids = {id(n): i for i, n in enumerate(nodes)}
    leaf = [n.left is None for n in nodes]
    left = [ct.TREE_LEAF if n.left is None else ids[id(n.left)] for n in nodes]
    right = [ct.TREE_LEAF if n.right is None else ids[id(n.right)] for n in nodes]
    np.testing.assert_array_equal(tree.children_left, left)
    np.testing.assert_array_equal(tree.children_right, right)
    feature = [ct.TREE_UNDEFINED if n.left is None else n.feature for n in nodes]
    np.testing.assert_array_equal(tree.feature, feature)
    internal = ~np.array(leaf)
    threshold = np.array([n.threshold for n in nodes])
    np.testing.assert_array_equal(tree.threshold[internal], threshold[internal])
    value = np.array([n.value for n in nodes])
    np.testing.assert_allclose(tree.value[:, 0, :], value, rtol=1e-12, atol=1e-12)


def continuous_problem(seed: int, criterion: str, n: int = 120, d: int = 3):
    """Continuous features and targets: no two candidates score alike."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    signal = np.sin(2 * X[:, 0]) + X[:, 1] * (X[:, 2] > 0)
    if criterion == "squared_error":
        return X, (signal + 0.3 * rng.normal(size=n))[:, None]
    labels = np.digitize(signal + 0.3 * rng.normal(size=n), [-0.5, 0.5])
    return X, ct.one_hot(labels, 3)


def dataset(name: str):
    loader = {"iris": load_iris, "wine": load_wine, "breast_cancer": load_breast_cancer}[name]
    X, y = loader(return_X_y=True)
    return X, ct.one_hot(y, y.max() + 1)


RULES = [
    {},
    {"max_depth": 0},
    {"max_depth": 1},
    {"max_depth": 3},
    {"min_samples_split": 10},
    {"max_depth": 4, "min_samples_split": 25},
]


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("criterion", ["gini", "squared_error"])
@pytest.mark.parametrize("seed", range(4))
def test_same_tree_as_grow_tree_on_continuous_data(seed, criterion, rules):
    X, Y = continuous_problem(seed, criterion)
    root = grow_first_tree(X, Y, criterion, **rules)
    tree = ct.grow_tree(X, Y, np.ones(len(X)), criterion=criterion, **rules)
    assert_same_tree(root, tree)
    np.testing.assert_allclose(predict_first_tree(root, X), tree.predict(X), rtol=1e-12, atol=1e-12)
    X_new = continuous_problem(seed + 100, criterion)[0]
    np.testing.assert_allclose(
        predict_first_tree(root, X_new), tree.predict(X_new), rtol=1e-12, atol=1e-12
    )


BUNDLED = [("iris", r) for r in RULES] + [("wine", r) for r in RULES]
BUNDLED += [("breast_cancer", {"max_depth": 3}), ("breast_cancer", {"min_samples_split": 40})]


@pytest.mark.parametrize(("name", "rules"), BUNDLED)
def test_same_tree_as_grow_tree_on_bundled_data(name, rules):
    """Repeated feature values: candidates lie between distinct values in both."""
    X, Y = dataset(name)
    root = grow_first_tree(X, Y, "gini", **rules)
    tree = ct.grow_tree(X, Y, np.ones(len(X)), criterion="gini", **rules)
    assert_same_tree(root, tree)


@pytest.mark.parametrize("max_depth", [2, 4])
def test_same_regression_tree_on_diabetes(max_depth):
    X, y = load_diabetes(return_X_y=True)
    Y = y[:, None].astype(float)
    root = grow_first_tree(X, Y, "squared_error", max_depth=max_depth)
    tree = ct.grow_tree(X, Y, np.ones(len(X)), criterion="squared_error", max_depth=max_depth)
    assert_same_tree(root, tree)


def test_best_split_matches_naive_search():
    X, Y = continuous_problem(7, "gini", n=60)
    split = ct.naive_best_split(X, Y, np.ones(len(X)), "gini")
    assert first_best_split(X, Y, "gini") == (split.feature, split.threshold)


def test_leaves_and_stopping_rules():
    X, Y = continuous_problem(3, "squared_error", n=50)
    assert grow_first_tree(X, Y, "squared_error", max_depth=0).left is None
    assert grow_first_tree(X, Y, "squared_error", min_samples_split=51).left is None
    constant = grow_first_tree(np.zeros((5, 2)), np.arange(5.0)[:, None], "squared_error")
    assert constant.left is None and constant.value.tolist() == [2.0]
    pure = grow_first_tree(X[:4], np.ones((4, 1)), "squared_error")
    assert pure.left is None
    root = grow_first_tree(X, Y, "squared_error")
    leaves = [n for n in preorder(root) if n.left is None]
    # Grown until pure: every training row is predicted exactly (distinct rows).
    np.testing.assert_allclose(predict_first_tree(root, X), Y)
    assert len(leaves) == len(X)
