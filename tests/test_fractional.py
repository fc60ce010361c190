"""C4.5's fractional missing values (``missing_values="fractional"``, chapter 9).

The package's trees are checked against a slow, independent implementation
written here: recursive, one dict per node, plain Python loops over
thresholds, nothing imported from the package.  The rule it implements
(``climbing_trees._fractional``, Quinlan 1993): each feature is searched on
the node's rows where it is present; features compete by the absolute
weighted impurity decrease among those rows (C4.5's gain times the known
fraction ``F``); a row missing the chosen feature goes down both children
with ``p`` and ``1 - p`` of its weight, ``p`` the left share of the present
rows' weight; predictions mix the leaves reached.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.base import clone

from climbing_trees import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    export_graphviz,
    export_text,
    grow_tree,
    plot_tree,
)
from climbing_trees._fractional import fractional_children, leaf_weights, left_share

# --- The oracle: recursive, dict-based, independent of the package. ---------


def impurity(Y, w, criterion):
    """Impurity of rows ``Y`` (one-hot or one target column) weighted by ``w``."""
    W = w.sum()
    if criterion == "squared_error":
        mean = (w * Y[:, 0]).sum() / W
        return (w * (Y[:, 0] - mean) ** 2).sum() / W
    p = (w[:, None] * Y).sum(axis=0) / W
    if criterion == "gini":
        return 1.0 - (p**2).sum()
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


def value(Y, w, criterion):
    return (w[:, None] * Y).sum(axis=0) / w.sum()


def best_split(X, Y, w, criterion, min_samples_leaf):
    """``(feature, threshold, decrease)`` with the largest present-row decrease.

    Lowest feature, then lowest threshold, among decreases equal to 1e-9.
    """
    best = None
    for j in range(X.shape[1]):
        present = ~np.isnan(X[:, j])
        if present.sum() < 2 * min_samples_leaf:
            continue
        x, Yp, wp = X[present, j], Y[present], w[present]
        base = wp.sum() * impurity(Yp, wp, criterion)
        values = sorted(set(x.tolist()))
        for a, b in zip(values[:-1], values[1:], strict=True):
            t = a / 2 + b / 2
            left = x <= t
            if left.sum() < min_samples_leaf or (~left).sum() < min_samples_leaf:
                continue
            wl, wr = wp[left], wp[~left]
            dec = base
            dec -= wl.sum() * impurity(Yp[left], wl, criterion)
            dec -= wr.sum() * impurity(Yp[~left], wr, criterion)
            if best is None or dec > best[2] + 1e-9 * max(abs(best[2]), 1e-300):
                best = (j, t, dec)
    return best


def oracle_grow(X, Y, w, criterion, max_depth, min_samples_leaf, depth=0):
    node = {
        "n": len(X),
        "w": w.sum(),
        "value": value(Y, w, criterion),
        "impurity": impurity(Y, w, criterion),
    }
    pure = all((Y[i] == Y[0]).all() for i in range(len(Y)))
    if depth == max_depth or len(X) < 2 * min_samples_leaf or pure:
        return node
    split = best_split(X, Y, w, criterion, min_samples_leaf)
    if split is None or not split[2] > 1e-12 * w.sum() * node["impurity"]:
        return node
    j, t, _ = split
    x = X[:, j]
    present = ~np.isnan(x)
    w_left = sum(w[i] for i in range(len(x)) if present[i] and x[i] <= t)
    w_right = sum(w[i] for i in range(len(x)) if present[i] and x[i] > t)
    p = w_left / (w_left + w_right)
    children = []
    for side, share in (("left", p), ("right", 1 - p)):
        keep, weights = [], []
        for i in range(len(x)):
            if not present[i]:
                if share > 0:
                    keep.append(i)
                    weights.append(w[i] * share)
            elif (x[i] <= t) == (side == "left"):
                keep.append(i)
                weights.append(w[i])
        keep = np.array(keep)
        children.append(
            oracle_grow(
                X[keep], Y[keep], np.array(weights), criterion, max_depth,
                min_samples_leaf, depth + 1,
            )
        )  # fmt: skip
    node.update(feature=j, threshold=t, p=p, left=children[0], right=children[1])
    return node


def oracle_predict(node, x):
    if "feature" not in node:
        return node["value"]
    v = x[node["feature"]]
    if np.isnan(v):
        return node["p"] * oracle_predict(node["left"], x) + (1 - node["p"]) * oracle_predict(
            node["right"], x
        )
    return oracle_predict(node["left"] if v <= node["threshold"] else node["right"], x)


def preorder(node):
    """The oracle's nodes, depth-first, left child first (the package's ids)."""
    out = [node]
    if "feature" in node:
        out += preorder(node["left"]) + preorder(node["right"])
    return out


# --- Problems --------------------------------------------------------------


def problem(seed, task, n=120, d=4, missing=0.2, weighted=True):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    signal = X[:, 0] + 0.7 * X[:, 1] - 0.5 * X[:, 2] + 0.5 * rng.normal(size=n)
    X[rng.random(X.shape) < missing] = np.nan
    w = rng.uniform(0.5, 2.0, size=n) if weighted else np.ones(n)
    if task == "classification":
        y = np.digitize(signal, [-0.7, 0.7])  # three classes
    else:
        y = signal
    return X, y, w


def encoded(y, task):
    if task == "classification":
        return np.eye(int(y.max()) + 1)[y]
    return y[:, None].astype(float)


CASES = [
    ("classification", "gini", True),
    ("classification", "entropy", True),
    ("classification", "gini", False),
    ("regression", "squared_error", True),
    ("regression", "squared_error", False),
]


@pytest.mark.parametrize("task, criterion, weighted", CASES)
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("missing", [0.1, 0.4])
def test_same_tree_and_predictions_as_the_oracle(task, criterion, weighted, seed, missing):
    X, y, w = problem(seed, task, missing=missing, weighted=weighted)
    Y = encoded(y, task)
    max_depth, msl = 4, 3
    root = oracle_grow(X, Y, w, criterion, max_depth, msl)
    nodes = preorder(root)
    tree = grow_tree(
        X, Y, w, criterion=criterion, max_depth=max_depth, min_samples_leaf=msl,
        min_samples_split=2 * msl, missing_values="fractional",
    )  # fmt: skip
    assert tree.node_count == len(nodes)
    for t, node in enumerate(nodes):
        assert tree.n_node_samples[t] == node["n"]
        np.testing.assert_allclose(tree.weighted_n_node_samples[t], node["w"], rtol=1e-12)
        np.testing.assert_allclose(tree.value[t, 0], node["value"], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(tree.impurity[t], node["impurity"], rtol=1e-9, atol=1e-12)
        if "feature" in node:
            assert tree.feature[t] == node["feature"]
            assert tree.threshold[t] == node["threshold"]
            np.testing.assert_allclose(tree.missing_left_fraction[t], node["p"], rtol=1e-12)
        else:
            assert tree.children_left[t] == -1
            assert np.isnan(tree.missing_left_fraction[t])
    # The estimators grow the same tree and predict the mixture the oracle predicts.
    if task == "classification":
        est = DecisionTreeClassifier(criterion=criterion, max_depth=max_depth)
    else:
        est = DecisionTreeRegressor(max_depth=max_depth)
    est.set_params(min_samples_leaf=msl, missing_values="fractional")
    est.fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(est.tree_.threshold, tree.threshold)
    X_new, _, _ = problem(seed + 100, task, n=60, missing=0.3)
    expected = np.array([oracle_predict(root, x) for x in X_new])
    if task == "classification":
        np.testing.assert_allclose(est.predict_proba(X_new), expected, rtol=1e-9, atol=1e-12)
        np.testing.assert_array_equal(est.predict(X_new), np.argmax(expected, axis=1))
    else:
        np.testing.assert_allclose(est.predict(X_new), expected[:, 0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(tree.predict(X_new), expected, rtol=1e-9, atol=1e-12)


def test_the_leaves_weights_sum_to_the_total_and_each_row_to_one():
    X, y, w = problem(0, "classification", n=300, missing=0.3)
    est = DecisionTreeClassifier(missing_values="fractional", max_depth=5).fit(X, y, w)
    tree = est.tree_
    leaves = tree.children_left == -1
    np.testing.assert_allclose(tree.weighted_n_node_samples[leaves].sum(), w.sum())
    weights = leaf_weights(tree, X)
    np.testing.assert_allclose(np.asarray(weights.sum(axis=1)).ravel(), 1.0)
    assert weights.nnz > len(X)  # rows with missing values reach several leaves
    assert tree.n_node_samples[leaves].sum() > len(X)


def test_the_split_is_scored_by_the_known_fraction():
    """C4.5's F: a feature missing in half the rows needs twice the decrease per row.

    Feature 0 separates the classes perfectly where present (half the rows);
    feature 1 separates 70 % of them on every row.  Among present rows feature
    0's gain is 0.5 (the whole Gini), feature 1's 0.5 - 0.42 = 0.08 (per row of
    the node); times F = 1/2 for feature 0 that is 0.25 > 0.08, so 0 wins; with
    feature 0 present in 10 % of the rows, 0.05 < 0.08 and feature 1 wins.
    """
    rng = np.random.default_rng(1)
    n = 1000
    y = np.arange(n) % 2
    noisy = np.where(rng.random(n) < 0.7, y, 1 - y).astype(float)
    for known, winner in ((0.5, 0), (0.1, 1)):
        x0 = y.astype(float)
        x0[rng.random(n) >= known] = np.nan
        X = np.column_stack([x0, noisy])
        est = DecisionTreeClassifier(missing_values="fractional", max_depth=1).fit(X, y)
        assert est.tree_.feature[0] == winner


def test_fractional_children_and_left_share():
    x = np.array([1.0, 2.0, np.nan, 4.0, np.nan])
    w = np.array([1.0, 1.0, 2.0, 2.0, 4.0])
    assert left_share(x, 3.0, w) == 0.5
    (left, w_left), (right, w_right), p = fractional_children(x, 3.0, w)
    assert p == 0.5
    assert left.tolist() == [True, True, True, False, True]
    assert w_left.tolist() == [1.0, 1.0, 1.0, 2.0]
    assert right.tolist() == [False, False, True, True, True]
    assert w_right.tolist() == [1.0, 2.0, 2.0]
    # A share of 1: missing rows enter the left child only.
    (left, _), (right, w_right), p = fractional_children(x, 9.0, w)
    assert p == 1.0 and not right.any() and len(w_right) == 0


def test_share_does_not_depend_on_row_order():
    rng = np.random.default_rng(3)
    x = rng.normal(size=1000)
    x[::7] = np.nan
    w = rng.uniform(0, 1e6, size=1000)
    order = rng.permutation(1000)
    assert left_share(x, 0.1, w) == left_share(x[order], 0.1, w[order])


def test_rows_without_missing_values_predict_their_leaf():
    X, y, w = problem(2, "regression", n=200, missing=0.2)
    est = DecisionTreeRegressor(missing_values="fractional", max_depth=4).fit(X, y, w)
    complete = ~np.isnan(X).any(axis=1)
    leaves = est.apply(X[complete])
    np.testing.assert_array_equal(est.predict(X[complete]), est.tree_.value[leaves, 0, 0])


def test_apply_and_decision_path_follow_the_larger_share():
    X, y, w = problem(4, "classification", n=200, missing=0.3)
    est = DecisionTreeClassifier(missing_values="fractional", max_depth=4).fit(X, y, w)
    tree = est.tree_
    internal = tree.children_left != -1
    np.testing.assert_array_equal(
        tree.missing_go_to_left[internal], tree.missing_left_fraction[internal] > 0.5
    )
    leaves = est.apply(X)
    weights = leaf_weights(tree, X)
    # The leaf apply gives is always one the mixture reaches.
    assert np.all(np.asarray(weights[np.arange(len(X)), leaves]).ravel() > 0)
    path = est.decision_path(X)
    assert np.all(path[np.arange(len(X)), leaves] == 1)


def test_classifier_and_regressor_other_options():
    """Multi-output, categorical columns, max_features, losses and pruning still fit."""
    X, y, w = problem(5, "classification", n=200, missing=0.3)
    est = DecisionTreeClassifier(missing_values="fractional", max_features=2, random_state=0)
    assert est.fit(X, y, w).predict_proba(X).shape == (200, 3)
    L = np.array([[0, 1, 5], [1, 0, 1], [5, 1, 0]])
    est = DecisionTreeClassifier(missing_values="fractional", loss_matrix=L, max_depth=3)
    proba = est.fit(X, y).predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    Y2 = np.column_stack([y, y[::-1]])
    est = DecisionTreeClassifier(missing_values="fractional", max_depth=3).fit(X, Y2)
    assert est.predict(X).shape == (200, 2)
    assert [p.shape for p in est.predict_proba(X)] == [(200, 3), (200, 3)]
    r = DecisionTreeRegressor(missing_values="fractional", max_depth=3)
    assert r.fit(X, np.column_stack([y, 2.0 * y])).predict(X).shape == (200, 2)
    import pandas as pd

    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": pd.Categorical(y % 2)})
    est = DecisionTreeRegressor(missing_values="fractional", max_depth=3)
    est.fit(frame, y.astype(float))
    assert np.isfinite(est.predict(frame)).all()


def test_cost_complexity_pruning_of_a_fractional_tree():
    X, y, w = problem(6, "classification", n=300, missing=0.3)
    # A depth limit: grown to purity, every missing row enters both subtrees of
    # every split on its feature, and the tree grows far larger than without.
    full = DecisionTreeClassifier(missing_values="fractional", max_depth=5).fit(X, y, w)
    path = full.cost_complexity_pruning_path(X, y, sample_weight=w)
    assert np.all(np.diff(path.ccp_alphas) >= 0) and np.all(np.diff(path.impurities) >= -1e-12)
    alpha = path.ccp_alphas[len(path.ccp_alphas) // 2]
    pruned = clone(full).set_params(ccp_alpha=alpha).fit(X, y, w)
    assert 1 < pruned.tree_.node_count < full.tree_.node_count
    tree = pruned.tree_
    leaves = tree.children_left == -1
    assert np.isnan(tree.missing_left_fraction[leaves]).all()
    assert np.isfinite(tree.missing_left_fraction[~leaves]).all()
    np.testing.assert_allclose(pruned.predict_proba(X).sum(axis=1), 1.0)
    # max_leaf_nodes cuts the fractional tree back as well.
    small = DecisionTreeClassifier(missing_values="fractional", max_leaf_nodes=4).fit(X, y, w)
    assert small.get_n_leaves() == 4 and small.tree_.is_fractional


def test_export_pickle_and_plot_of_a_fractional_tree():
    import matplotlib

    matplotlib.use("Agg")
    X, y, w = problem(7, "classification", n=200, missing=0.3)
    est = DecisionTreeClassifier(missing_values="fractional", max_depth=3).fit(X, y, w)
    text = export_text(est)
    assert "feature_0" in text and text.count("class:") == est.get_n_leaves()
    dot = export_graphviz(est)
    assert dot.startswith("digraph") and dot.count("->") == est.tree_.node_count - 1
    assert len(plot_tree(est)) > 0
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.predict_proba(X), est.predict_proba(X))
    assert again.tree_.is_fractional


def test_other_trees_are_not_fractional():
    X, y, w = problem(8, "classification", n=100, missing=0.2)
    for option in ("learn", "surrogate"):
        est = DecisionTreeClassifier(missing_values=option, max_depth=3).fit(X, y)
        assert not est.tree_.is_fractional
        np.testing.assert_array_equal(est.predict_proba(X), est.tree_.value[est.apply(X), 0, :])


def test_bad_input_is_refused_as_with_the_other_rules():
    X, y, _ = problem(9, "classification", n=50)
    est = DecisionTreeClassifier(missing_values="fractional")
    with pytest.raises(ValueError, match="missing_values='fractionl'.*'fractional'"):
        DecisionTreeClassifier(missing_values="fractionl").fit(X, y)
    y_nan = y.astype(float)
    y_nan[0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        DecisionTreeRegressor(missing_values="fractional").fit(X, y_nan)
    with pytest.raises(ValueError, match="NaN"):
        est.fit(X, y, sample_weight=np.r_[np.nan, np.ones(49)])
    X_inf = X.copy()
    X_inf[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        est.fit(X_inf, y)
    est.fit(X, y)
    with pytest.raises(ValueError, match="infinity"):
        est.predict(X_inf)
    with pytest.raises(ValueError, match="features"):
        est.predict_proba(X[:, :2])
