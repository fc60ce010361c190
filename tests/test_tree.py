"""The fitted tree as arrays: traversal, depths, leaves and importances."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import tree as sk

import climbing_trees as ct
from climbing_trees import TREE_LEAF, TREE_UNDEFINED, Tree


def hand_built_tree() -> Tree:
    """Root tests x0 <= 0.5; its right child tests x1 <= 2.0.

    Node ids (preorder): 0 root, 1 left leaf, 2 right internal, 3 and 4 leaves.
    """
    return Tree(
        children_left=np.array([1, TREE_LEAF, 3, TREE_LEAF, TREE_LEAF]),
        children_right=np.array([2, TREE_LEAF, 4, TREE_LEAF, TREE_LEAF]),
        feature=np.array([0, TREE_UNDEFINED, 1, TREE_UNDEFINED, TREE_UNDEFINED]),
        threshold=np.array([0.5, TREE_UNDEFINED, 2.0, TREE_UNDEFINED, TREE_UNDEFINED]),
        value=np.array([[[6.0]], [[1.0]], [[8.5]], [[7.0]], [[10.0]]]),
        impurity=np.array([10.0, 0.0, 2.25, 0.0, 0.0]),
        n_node_samples=np.array([4, 1, 3, 2, 1]),
        weighted_n_node_samples=np.array([5.0, 1.0, 4.0, 2.0, 2.0]),
    )


@pytest.mark.parametrize("method", ["apply", "apply_rowwise"])
def test_hand_built_tree_routes_rows(method):
    tree = hand_built_tree()
    X = np.array([[0.0, 9.0], [0.5, 9.0], [0.6, 2.0], [0.6, 2.1], [1e9, -1e9]])
    # x == threshold goes left: (0.5, .) to leaf 1 and (., 2.0) to leaf 3.
    np.testing.assert_array_equal(getattr(tree, method)(X), [1, 1, 3, 4, 3])


def test_hand_built_tree_shape_and_importances():
    tree = hand_built_tree()
    assert (tree.node_count, tree.n_leaves, tree.max_depth) == (5, 3, 2)
    np.testing.assert_array_equal(tree.node_depths(), [0, 1, 1, 2, 2])
    # Decreases W_t I_t - W_L I_L - W_R I_R: root 5*10 - 1*0 - 4*2.25 = 41 on x0,
    # node 2: 4*2.25 - 0 - 0 = 9 on x1; x2 is never used.
    np.testing.assert_allclose(tree.compute_feature_importances(3), [41 / 50, 9 / 50, 0.0])
    np.testing.assert_array_equal(tree.predict(np.array([[0.6, 5.0]])), [[10.0]])


@pytest.mark.parametrize("max_depth", [1, 3, None])
@pytest.mark.parametrize(
    "dataset, estimator",
    [("breast_cancer", ct.DecisionTreeClassifier), ("diabetes", ct.DecisionTreeRegressor)],
)
def test_apply_rowwise_matches_apply(request, dataset, estimator, max_depth):
    X, y = request.getfixturevalue(dataset)
    tree = estimator(max_depth=max_depth).fit(X, y).tree_
    # Unseen rows too: shuffled columns land in every corner of the tree.
    X_new = np.vstack([X, np.random.default_rng(0).permutation(X.ravel()).reshape(X.shape)])
    np.testing.assert_array_equal(tree.apply_rowwise(X_new), tree.apply(X_new))


def test_apply_reaches_leaves_and_predict_reads_them(diabetes):
    X, y = diabetes
    tree = ct.DecisionTreeRegressor(max_depth=4).fit(X, y).tree_
    leaves = tree.apply(X)
    assert np.all(tree.children_left[leaves] == TREE_LEAF)
    np.testing.assert_array_equal(
        np.bincount(leaves, minlength=tree.node_count)[leaves], tree.n_node_samples[leaves]
    )
    np.testing.assert_array_equal(tree.predict(X), tree.value[leaves, 0, :])


@pytest.mark.parametrize("max_depth", [2, 5, None])
def test_depths_and_leaves_match_sklearn(diabetes, max_depth):
    # Node depths, leaf count and depth depend only on the tree's shape, which
    # agrees with scikit-learn whenever its predictions do (checked first).
    X, y = diabetes
    ours = ct.DecisionTreeRegressor(max_depth=max_depth, min_samples_leaf=10).fit(X, y)
    theirs = sk.DecisionTreeRegressor(max_depth=max_depth, min_samples_leaf=10, random_state=0)
    theirs.fit(X, y)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    np.testing.assert_array_equal(ours.tree_.node_depths(), theirs.tree_.compute_node_depths() - 1)
    assert ours.tree_.n_leaves == theirs.get_n_leaves()
    assert ours.tree_.max_depth == theirs.get_depth()


@pytest.mark.parametrize("method", ["apply", "apply_rowwise"])
def test_single_leaf_tree(method):
    X = np.arange(12.0).reshape(6, 2)
    tree = ct.DecisionTreeRegressor().fit(X, np.full(6, 3.0)).tree_
    assert (tree.node_count, tree.n_leaves, tree.max_depth) == (1, 1, 0)
    np.testing.assert_array_equal(getattr(tree, method)(X), np.zeros(6))
    np.testing.assert_array_equal(tree.compute_feature_importances(2), [0.0, 0.0])
