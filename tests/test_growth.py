"""Greedy growth, stopping rules, weights, labels and export."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import random_problem
from sklearn.datasets import load_iris, load_wine

import climbing_trees as ct

SEARCHES = [ct.naive_best_split, ct.incremental_best_split, ct.prefix_sum_best_split]


def tree_arrays(tree: ct.Tree) -> dict:
    return {
        name: getattr(tree, name)
        for name in ["children_left", "children_right", "feature", "threshold", "n_node_samples"]
    }


@pytest.mark.parametrize("criterion", ["gini", "entropy", "squared_error"])
@pytest.mark.parametrize("seed", range(8))
def test_every_search_grows_the_same_tree(criterion, seed):
    X, Y, w = random_problem(seed, criterion, weighted=seed % 2 == 1, n_levels=6)
    trees = [
        ct.grow_tree(X, Y, w, criterion=criterion, min_samples_leaf=1 + seed % 3, find_split=f)
        for f in SEARCHES
    ]
    for other in trees[1:]:
        for name, array in tree_arrays(trees[0]).items():
            np.testing.assert_array_equal(array, getattr(other, name), err_msg=name)
        np.testing.assert_allclose(trees[0].value, other.value, rtol=1e-12)


@pytest.mark.parametrize("min_samples_leaf", [1, 4, 13])
def test_every_leaf_respects_min_samples_leaf(diabetes, min_samples_leaf):
    X, y = diabetes
    model = ct.DecisionTreeRegressor(min_samples_leaf=min_samples_leaf).fit(X, y)
    leaves = model.tree_.children_left == ct.TREE_LEAF
    assert model.tree_.n_node_samples[leaves].min() >= min_samples_leaf
    counts = np.bincount(model.apply(X))
    assert counts[counts > 0].min() >= min_samples_leaf


def test_min_samples_split_and_max_depth(diabetes):
    X, y = diabetes
    model = ct.DecisionTreeRegressor(min_samples_split=30).fit(X, y)
    tree = model.tree_
    internal = tree.children_left != ct.TREE_LEAF
    assert tree.n_node_samples[internal].min() >= 30
    assert ct.DecisionTreeRegressor(max_depth=3).fit(X, y).get_depth() == 3


def test_min_impurity_decrease_uses_weighted_definition(diabetes):
    X, y = diabetes
    threshold = 50.0
    tree = ct.DecisionTreeRegressor(min_impurity_decrease=threshold).fit(X, y).tree_
    W = tree.weighted_n_node_samples[0]
    for node in np.flatnonzero(tree.children_left != ct.TREE_LEAF):
        left, right = tree.children_left[node], tree.children_right[node]
        w, imp = tree.weighted_n_node_samples, tree.impurity
        decrease = (w[node] * imp[node] - w[left] * imp[left] - w[right] * imp[right]) / W
        assert decrease >= threshold - 1e-9
    # and it does stop: the unconstrained tree is much larger
    assert tree.node_count < ct.DecisionTreeRegressor().fit(X, y).tree_.node_count


def test_xor_needs_a_zero_gain_split():
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]] * 5)
    y = np.array([0, 1, 1, 0] * 5)
    assert ct.DecisionTreeClassifier().fit(X, y).score(X, y) == 1.0
    stopped = ct.DecisionTreeClassifier(min_impurity_decrease=1e-3).fit(X, y)
    assert stopped.get_n_leaves() == 1


def test_pure_nodes_are_leaves():
    X = np.arange(10.0)[:, None]
    model = ct.DecisionTreeRegressor().fit(X, np.full(10, 0.1))
    assert model.tree_.node_count == 1
    y = np.array([0] * 5 + [1] * 5)
    model = ct.DecisionTreeClassifier().fit(X, y)
    assert model.tree_.node_count == 3


@pytest.mark.parametrize("estimator", [ct.DecisionTreeClassifier, ct.DecisionTreeRegressor])
def test_integer_weights_equal_repeated_rows(estimator):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 3))
    y = (
        rng.integers(0, 3, size=80)
        if estimator is ct.DecisionTreeClassifier
        else rng.normal(size=80)
    )
    w = rng.integers(0, 4, size=80)
    weighted = estimator().fit(X, y, sample_weight=w)
    repeated = estimator().fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(weighted.predict(X), repeated.predict(X))
    if estimator is ct.DecisionTreeClassifier:
        np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X))


def test_leaf_values_use_the_weights():
    X = np.array([[0.0], [0.0], [1.0]])
    model = ct.DecisionTreeRegressor().fit(X, [1.0, 4.0, 9.0], sample_weight=[2.0, 1.0, 1.0])
    assert model.predict([[0.0]])[0] == pytest.approx(2.0)
    clf = ct.DecisionTreeClassifier(max_depth=1).fit(
        np.zeros((3, 1)), ["a", "b", "b"], sample_weight=[3.0, 1.0, 1.0]
    )
    np.testing.assert_allclose(clf.predict_proba([[0.0]]), [[0.6, 0.4]])


def test_string_labels_round_trip():
    X, y = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"], dtype=object)[y]
    model = ct.DecisionTreeClassifier(max_depth=3).fit(X, names)
    assert list(model.classes_) == ["setosa", "versicolor", "virginica"]
    pred = model.predict(X)
    assert set(pred) <= set(model.classes_)
    np.testing.assert_array_equal(
        pred, model.classes_[ct.DecisionTreeClassifier(max_depth=3).fit(X, y).predict(X)]
    )


def test_predict_breaks_probability_ties_by_lowest_class_index():
    X = np.zeros((4, 1))
    model = ct.DecisionTreeClassifier().fit(X, ["b", "a", "b", "a"])
    np.testing.assert_allclose(model.predict_proba(X[:1]), [[0.5, 0.5]])
    assert model.predict(X[:1])[0] == "a"


def test_predict_proba_columns_follow_classes():
    X, y = load_wine(return_X_y=True)
    labels = np.array([30, 10, 20])[y]
    model = ct.DecisionTreeClassifier(max_depth=2).fit(X, labels)
    proba = model.predict_proba(X)
    np.testing.assert_array_equal(model.classes_, [10, 20, 30])
    np.testing.assert_array_equal(model.classes_[proba.argmax(axis=1)], model.predict(X))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_dataframe_input_records_feature_names():
    import pandas as pd

    X, y = load_wine(return_X_y=True, as_frame=True)
    model = ct.DecisionTreeClassifier(max_depth=2).fit(X, y)
    np.testing.assert_array_equal(model.feature_names_in_, X.columns)
    assert model.n_features_in_ == 13
    assert str(X.columns[model.tree_.feature[0]]) in ct.export_text(model)
    assert isinstance(X, pd.DataFrame)


def test_feature_importances_sum_to_one(diabetes):
    X, y = diabetes
    importances = ct.DecisionTreeRegressor(max_depth=4).fit(X, y).feature_importances_
    assert importances.shape == (10,)
    assert importances.sum() == pytest.approx(1.0)
    assert (importances >= 0).all()


def test_export_text_and_plot_tree():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    X, y = load_iris(return_X_y=True)
    model = ct.DecisionTreeClassifier(max_depth=2).fit(X, y)
    text = ct.export_text(model, feature_names=["sl", "sw", "pl", "pw"])
    assert text.splitlines()[0] == "|--- pl <= 2.45"
    assert text.count("class:") == model.get_n_leaves()
    fig, ax = plt.subplots()
    boxes = ct.plot_tree(model, ax=ax)
    assert len(boxes) == model.tree_.node_count + 2  # and the root's True/False labels
    plt.close(fig)
    with pytest.raises(ValueError, match="feature_names has 2 names"):
        ct.export_text(model, feature_names=["a", "b"])


def test_apply_matches_a_row_by_row_walk(diabetes):
    X, y = diabetes
    tree = ct.DecisionTreeRegressor(max_depth=6).fit(X, y).tree_
    expected = []
    for row in X:
        node = 0
        while tree.children_left[node] != ct.TREE_LEAF:
            go_left = row[tree.feature[node]] <= tree.threshold[node]
            node = tree.children_left[node] if go_left else tree.children_right[node]
        expected.append(node)
    np.testing.assert_array_equal(tree.apply(X), expected)


def test_version():
    assert isinstance(ct.__version__, str) and ct.__version__.count(".") == 2
