"""Misclassification costs (``loss_matrix``) and priors, against rpart and brute force.

rpart's output is read from the committed reference files
(``climbing_trees/rpart_reference/costs_*.csv``); tests/test_reference_files.py
makes them again where R is installed.
"""

from __future__ import annotations

import numpy as np
import pytest

from climbing_trees import DecisionTreeClassifier, node_risk
from climbing_trees._costs import (
    altered_prior_factors,
    check_loss_matrix,
    least_cost_classes,
    prior_class_weight,
)
from climbing_trees._rpart import (
    COST_SEEDS,
    COST_SURROGATE_SEEDS,
    compare_with_rpart_frame,
    cost_problem,
    cost_surrogate_problem,
    costs_model,
    reference_costs,
    reference_costs_surrogates,
)
from climbing_trees._tree import TREE_LEAF


def noisy_problem(seed: int, n_classes: int = 3, n: int = 300):
    """Classes cut from a noisy score on three features, unequal sizes."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    score = X[:, 0] + np.sin(2 * X[:, 1]) + 0.7 * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1] ** 0.8))
    return X, y, rng.uniform(0.5, 2.0, size=n)


def random_loss(seed: int, k: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    L = rng.choice([0.0, 0.5, 1.0, 2.0, 5.0], size=(k, k))
    np.fill_diagonal(L, 0.0)
    L[L.sum(axis=1) == 0, :] = 1.0
    np.fill_diagonal(L, 0.0)
    return L


# ------------------------------------------------------------------ validation


@pytest.mark.parametrize(
    "loss, message",
    [
        (
            [[0, 1], [1, 0]],
            r"shape \(2, 2\), but y has 3 classes \[0, 1, 2\]: pass a \(3, 3\)",
        ),
        (np.ones(3), r"shape \(3,\), but y has 3 classes"),
        ([[0, 1, 1], [1, 0, 1], [1, 1, 1]], "non-zero diagonal; .* set L\\[i, i\\] = 0"),
        ([[0, -1, 1], [1, 0, 1], [1, 1, 0]], "negative entries; costs must be >= 0"),
        ([[0, np.nan, 1], [1, 0, 1], [1, 1, 0]], "NaN or infinity"),
        ([[0, 0, 0], [1, 0, 1], [1, 1, 0]], r"rows \[0\] are all zero: .* positive cost"),
        ([["a", "b", "c"]] * 3, "square array of numbers"),
    ],
)
def test_bad_loss_matrix_is_refused_with_the_fix(loss, message):
    X, y, _ = noisy_problem(0)
    with pytest.raises(ValueError, match=message):
        DecisionTreeClassifier(loss_matrix=loss).fit(X, y)


def test_one_class_with_a_loss_matrix():
    """A single class (a 1 x 1 loss [[0]]) fits and predicts it, as without a loss."""
    X, _, _ = noisy_problem(0)
    model = DecisionTreeClassifier(loss_matrix=[[0.0]]).fit(X, np.zeros(len(X)))
    assert set(model.predict(X)) == {0} and np.all(model.predict_proba(X) == 1)


def test_loss_matrix_needs_one_output():
    X, y, _ = noisy_problem(0)
    Y = np.column_stack([y, y])
    with pytest.raises(ValueError, match="needs y with one output, but y has 2"):
        DecisionTreeClassifier(loss_matrix=[[0, 1], [1, 0]]).fit(X, Y)


def test_failed_fit_keeps_the_previous_model():
    X, y, _ = noisy_problem(0)
    model = DecisionTreeClassifier(max_depth=2).fit(X, y)
    before = model.predict(X)
    model.set_params(loss_matrix=[[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="shape"):
        model.fit(X, y)
    np.testing.assert_array_equal(model.predict(X), before)


# ------------------------------------------------------------------ rpart


@pytest.mark.parametrize("seed", COST_SEEDS)
def test_same_tree_as_rpart(seed):
    """rpart's tree node by node: splits, rows, least-cost class and risk."""
    problem = cost_problem(seed)
    frame, _ = reference_costs(seed)
    model = costs_model(problem)
    counts = compare_with_rpart_frame(model, frame, problem["X"], problem["y"], problem["w"])
    if counts["tied"]:
        # Two splits send the same weight of every class each way: rpart's rounding
        # picks one, the package's tie rule another, and the subtrees below differ.
        # Every node above and beside it agrees.
        assert counts["class"] == counts["nodes"], counts
        assert counts["split"] + counts["tied"] >= counts["nodes"] - 2, counts
    else:
        assert counts["same_tree"], counts


def test_ties_are_the_exception():
    """All but at most one of the reference problems grow exactly rpart's tree."""
    same = 0
    for seed in COST_SEEDS:
        problem = cost_problem(seed)
        frame, _ = reference_costs(seed)
        counts = compare_with_rpart_frame(
            costs_model(problem), frame, problem["X"], problem["y"], problem["w"]
        )
        same += counts["same_tree"]
    assert same >= len(COST_SEEDS) - 1


@pytest.mark.parametrize("seed", COST_SEEDS)
def test_same_predictions_as_rpart(seed):
    """rpart's classes and probabilities for the problem's new rows (trees without ties)."""
    problem = cost_problem(seed)
    frame, pred = reference_costs(seed)
    model = costs_model(problem)
    counts = compare_with_rpart_frame(model, frame, problem["X"], problem["y"], problem["w"])
    if counts["tied"]:
        pytest.skip("a tied split: the subtrees below it differ (test_same_tree_as_rpart)")
    np.testing.assert_array_equal(model.predict(problem["X_test"]), pred["class"] - 1)
    proba = pred.drop(columns="class").to_numpy()
    np.testing.assert_allclose(model.predict_proba(problem["X_test"]), proba, atol=1e-12)


def test_reference_problems_cover_both_class_counts_and_kinds():
    kinds = {
        (len(np.unique(cost_problem(s)["y"])), cost_problem(s)["loss"] is not None)
        for s in COST_SEEDS
    }
    assert kinds == {(2, True), (2, False), (3, True), (3, False)}


def test_comparison_sees_a_different_tree():
    """The node-by-node comparison fails on a tree rpart did not grow."""
    problem = cost_problem(0)
    frame, _ = reference_costs(0)
    other = dict(problem, loss=None)
    counts = compare_with_rpart_frame(
        costs_model(other), frame, problem["X"], problem["y"], problem["w"]
    )
    assert not counts["same_tree"]


# ------------------------------------------- rpart: loss matrix with surrogates


@pytest.mark.parametrize("seed", COST_SURROGATE_SEEDS)
def test_same_surrogate_tree_as_rpart(seed):
    """Loss matrix, NaN and surrogates: rpart's tree, predictions and importance.

    rpart searches surrogates with the case weights and the primary split with
    the altered priors; searched with the altered weights, the surrogates'
    thresholds, the rows they route and ``adj`` differ.
    """
    problem = cost_surrogate_problem(seed)
    frame, pred, importance = reference_costs_surrogates(seed)
    model = costs_model(problem)
    counts = compare_with_rpart_frame(model, frame, problem["X"], problem["y"], problem["w"])
    assert counts["same_tree"], counts
    np.testing.assert_array_equal(model.predict(problem["X_test"]), pred["class"] - 1)
    proba = pred.drop(columns="class").to_numpy()
    np.testing.assert_allclose(model.predict_proba(problem["X_test"]), proba, atol=1e-12)
    ours = model.surrogate_importances_
    np.testing.assert_allclose(ours[importance.index], importance.to_numpy(), rtol=1e-9)
    others = np.setdiff1d(np.arange(len(ours)), importance.index)
    np.testing.assert_array_equal(ours[others], 0.0)


def test_surrogate_reference_problems_have_missing_values_and_surrogates():
    """Every problem misses values, and its tree keeps surrogates."""
    for seed in COST_SURROGATE_SEEDS:
        problem = cost_surrogate_problem(seed)
        assert np.isnan(problem["X"]).any() and np.isnan(problem["X_test"]).any()
        assert (costs_model(problem).tree_.surrogate_feature >= 0).any()


def test_reference_costs_surrogates_refuses_unknown_seeds():
    with pytest.raises(ValueError, match="the reference files hold seeds"):
        reference_costs_surrogates(max(COST_SURROGATE_SEEDS) + 1)


# ------------------------------------------------------------------ brute force


def _leaf_rows(model, X):
    leaves = model.apply(X)
    return {leaf: np.flatnonzero(leaves == leaf) for leaf in np.unique(leaves)}


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n_classes", [2, 3, 4])
def test_leaf_class_is_the_least_expected_cost(seed, n_classes):
    """Each leaf's class minimises the weighted cost of its training rows (loops)."""
    X, y, w = noisy_problem(seed, n_classes)
    L = random_loss(seed, n_classes)
    model = DecisionTreeClassifier(max_depth=3, loss_matrix=L).fit(X, y, sample_weight=w)
    predicted = model.predict(X)
    for rows in _leaf_rows(model, X).values():
        costs = []
        for k in range(n_classes):
            costs.append(sum(w[i] * L[y[i], k] for i in rows))
        best = min(costs)
        expected = next(k for k in range(n_classes) if costs[k] <= best * (1 + 1e-12))
        assert set(predicted[rows]) == {expected}
        # predict_proba: the leaf's weighted class proportions, unaltered by the costs.
        share = np.bincount(y[rows], weights=w[rows], minlength=n_classes)
        np.testing.assert_allclose(model.predict_proba(X[rows[:1]])[0], share / share.sum())


@pytest.mark.parametrize("seed", range(4))
def test_predict_is_least_cost_of_predict_proba(seed):
    X, y, w = noisy_problem(seed, 3)
    L = random_loss(seed + 10, 3)
    model = DecisionTreeClassifier(max_depth=4, loss_matrix=L).fit(X, y, sample_weight=w)
    proba = model.predict_proba(X)
    np.testing.assert_array_equal(model.predict(X), least_cost_classes(proba, L))


def test_costs_change_the_decision():
    """A costly class is predicted where it is not the most probable."""
    X, y, _ = noisy_problem(1, 2)
    L = np.array([[0.0, 1.0], [8.0, 0.0]])  # missing a 1 costs 8
    plain = DecisionTreeClassifier(max_depth=3).fit(X, y)
    costly = DecisionTreeClassifier(max_depth=3, loss_matrix=L).fit(X, y)
    assert (costly.predict(X) == 1).sum() > (plain.predict(X) == 1).sum()
    assert np.any(costly.predict(X) != costly.predict_proba(X).argmax(axis=1))


def test_splitting_is_by_altered_priors():
    """The tree with costs is the tree with class weights c_i = sum_j L[i, j]."""
    X, y, w = noisy_problem(2, 3)
    L = random_loss(3, 3)
    costly = DecisionTreeClassifier(max_depth=4, loss_matrix=L).fit(X, y, sample_weight=w)
    c = L.sum(axis=1)
    weighted = DecisionTreeClassifier(max_depth=4, class_weight=dict(enumerate(c)))
    weighted.fit(X, y, sample_weight=w)
    for name in ("children_left", "feature", "n_node_samples"):
        np.testing.assert_array_equal(getattr(costly.tree_, name), getattr(weighted.tree_, name))
    np.testing.assert_allclose(costly.tree_.threshold, weighted.tree_.threshold)
    np.testing.assert_allclose(costly.tree_.value, weighted.tree_.value, rtol=1e-12)
    # The factors keep the total weight: the root weighs what the rows weigh.
    assert costly.tree_.weighted_n_node_samples[0] == pytest.approx(w.sum(), rel=1e-12)


def test_altered_priors_formula():
    """pi'_i = c_i pi_i / sum_k c_k pi_k, and f = pi' / pi."""
    L = check_loss_matrix([[0, 2, 2], [1, 0, 0], [3, 3, 0]], 3)
    totals = np.array([10.0, 30.0, 60.0])
    pi = totals / totals.sum()
    c = np.array([4.0, 1.0, 6.0])
    altered = c * pi / np.sum(c * pi)
    np.testing.assert_allclose(altered_prior_factors(L, totals), altered / pi, rtol=1e-15)


# ------------------------------------------------------------------ pruning


@pytest.mark.parametrize("seed", range(4))
def test_pruning_risk_is_the_loss(seed):
    """R(T) of the pruning path: the training cost of the leaves' classes, per unit weight."""
    X, y, w = noisy_problem(seed, 3)
    L = random_loss(seed + 20, 3)
    params = {"max_depth": 5, "loss_matrix": L, "ccp_risk": "misclassification"}
    model = DecisionTreeClassifier(**params).fit(X, y, sample_weight=w)
    cost = sum(w[i] * L[y[i], k] for i, k in enumerate(model.predict(X))) / w.sum()
    path = model.cost_complexity_pruning_path(X, y, sample_weight=w)
    assert path.impurities[0] == pytest.approx(cost, rel=1e-12)
    assert len(path.ccp_alphas) > 2
    # Pruned at each of the path's alphas: R(T) is the pruned tree's training cost,
    # computed from its predictions and L alone, and it never beats the full tree's.
    for alpha, impurity in zip(path.ccp_alphas[1:], path.impurities[1:], strict=True):
        pruned = DecisionTreeClassifier(**params, ccp_alpha=alpha).fit(X, y, sample_weight=w)
        pruned_cost = float(np.sum(w * L[y, pruned.predict(X)]) / w.sum())
        assert impurity == pytest.approx(pruned_cost, rel=1e-9)
        assert pruned_cost >= cost - 1e-12


def _tree_arrays(model):
    t = model.tree_
    return [t.children_left, t.feature, t.threshold, t.value, t.missing_go_to_left]


@pytest.mark.parametrize("missing_values", ["learn", "surrogate"])
def test_loss_matrix_with_missing_values_and_categorical_features(missing_values):
    """NaN and a categorical column: predict is the least-cost class of predict_proba,
    the primary splits are those of the altered priors, and (``"learn"``) the tree
    is the one grown with the altered priors' factors as row weights."""
    X, y, w = noisy_problem(7, 3)
    rng = np.random.default_rng(7)
    X[:, 2] = X[:, 0] + 0.3 * rng.normal(size=len(y))  # a surrogate of x0
    X = np.column_stack([X, (y + rng.integers(0, 3, size=len(y))) % 5])  # categorical
    X[:, :3][rng.uniform(size=(len(X), 3)) < 0.2] = np.nan
    X[rng.uniform(size=len(X)) < 0.1, 3] = np.nan
    L = random_loss(8, 3)
    params = {
        "max_depth": 4,
        "min_samples_leaf": 5,
        "missing_values": missing_values,
        "categorical_features": [3],
    }
    model = DecisionTreeClassifier(**params, loss_matrix=L).fit(X, y, sample_weight=w)
    proba = model.predict_proba(X)
    np.testing.assert_array_equal(model.predict(X), least_cost_classes(proba, L))
    f = altered_prior_factors(check_loss_matrix(L, 3), np.bincount(y, weights=w))
    by_rows = DecisionTreeClassifier(**params).fit(X, y, sample_weight=w * f[y])
    assert model.tree_.feature[0] == by_rows.tree_.feature[0] >= 0
    np.testing.assert_allclose(model.tree_.threshold[0], by_rows.tree_.threshold[0], rtol=1e-12)
    if missing_values == "learn":
        for ours, theirs in zip(_tree_arrays(model), _tree_arrays(by_rows), strict=True):
            np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    else:  # surrogates of the case weights: the surrogate features may differ
        assert (model.tree_.surrogate_feature >= 0).any()


@pytest.mark.parametrize("missing_values", ["learn", "surrogate"])
def test_integer_weights_are_duplicated_rows_under_a_loss(missing_values):
    """sample_weight=k gives the tree of the row repeated k times, with a loss matrix."""
    X, y, _ = noisy_problem(9, 3, n=150)
    rng = np.random.default_rng(9)
    X[rng.uniform(size=X.shape) < 0.1] = np.nan
    k = rng.integers(1, 4, size=len(y))
    L = random_loss(10, 3)
    params = {"max_depth": 4, "loss_matrix": L, "missing_values": missing_values}
    weighted = DecisionTreeClassifier(**params).fit(X, y, sample_weight=k.astype(float))
    repeated = DecisionTreeClassifier(**params).fit(np.repeat(X, k, axis=0), np.repeat(y, k))
    for ours, theirs in zip(_tree_arrays(weighted), _tree_arrays(repeated), strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    np.testing.assert_array_equal(weighted.predict(X), repeated.predict(X))
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X))
    if missing_values == "surrogate":
        np.testing.assert_array_equal(
            weighted.tree_.surrogate_feature, repeated.tree_.surrogate_feature
        )
        np.testing.assert_allclose(
            weighted.surrogate_importances_, repeated.surrogate_importances_, rtol=1e-9
        )


def test_loss_changes_the_pruned_tree():
    X, y, w = noisy_problem(5, 2)
    L = np.array([[0.0, 1.0], [6.0, 0.0]])
    plain = DecisionTreeClassifier(ccp_risk="misclassification", ccp_alpha=0.01)
    costly = DecisionTreeClassifier(ccp_risk="misclassification", ccp_alpha=0.01, loss_matrix=L)
    assert plain.fit(X, y, w).get_n_leaves() != costly.fit(X, y, w).get_n_leaves()


# ------------------------------------------------------------------ uniform loss


@pytest.mark.parametrize("n_classes", [2, 3])
def test_zero_one_loss_is_no_loss(n_classes):
    """L = 1 - I: the same tree, predictions, probabilities and pruning path, bit for bit."""
    X, y, w = noisy_problem(7, n_classes)
    L = 1.0 - np.eye(n_classes)
    kw = {"max_depth": 5, "ccp_risk": "misclassification"}
    plain = DecisionTreeClassifier(**kw).fit(X, y, sample_weight=w)
    costly = DecisionTreeClassifier(**kw, loss_matrix=L).fit(X, y, sample_weight=w)
    for name in ("children_left", "feature", "threshold", "value", "impurity"):
        np.testing.assert_array_equal(getattr(costly.tree_, name), getattr(plain.tree_, name))
    np.testing.assert_array_equal(costly.predict(X), plain.predict(X))
    np.testing.assert_array_equal(costly.predict_proba(X), plain.predict_proba(X))
    a = plain.cost_complexity_pruning_path(X, y, sample_weight=w)
    b = costly.cost_complexity_pruning_path(X, y, sample_weight=w)
    np.testing.assert_array_equal(a.ccp_alphas, b.ccp_alphas)
    np.testing.assert_array_equal(a.impurities, b.impurities)


def test_uniform_loss_scales_only_the_risk():
    """L = 4 (1 - I): the same tree and predictions; the pruning risk times 4."""
    X, y, w = noisy_problem(8, 3)
    kw = {"max_depth": 5, "ccp_risk": "misclassification"}
    plain = DecisionTreeClassifier(**kw).fit(X, y, sample_weight=w)
    costly = DecisionTreeClassifier(**kw, loss_matrix=4 * (1 - np.eye(3))).fit(X, y, w)
    np.testing.assert_array_equal(costly.predict(X), plain.predict(X))
    np.testing.assert_array_equal(costly.tree_.value, plain.tree_.value)
    np.testing.assert_array_equal(
        costly._node_risk(costly.tree_), 4 * node_risk(plain.tree_, "misclassification")
    )


# ------------------------------------------------------------------ priors


def test_prior_class_weight_sets_the_priors():
    X, y, w = noisy_problem(3, 3)
    prior = [0.5, 0.25, 0.25]
    model = DecisionTreeClassifier(max_depth=1, class_weight=prior_class_weight(y, prior, w))
    model.fit(X, y, sample_weight=w)
    np.testing.assert_allclose(model.tree_.value[0, 0], prior, rtol=1e-12)


def test_prior_class_weight_refuses_bad_priors():
    with pytest.raises(ValueError, match="2 non-negative values that sum to 1"):
        prior_class_weight([0, 1, 1], [0.5, 0.6])


def test_prior_class_weight_refuses_a_class_without_weight():
    """A class of no training weight cannot be given a positive prior (no inf weight)."""
    with pytest.raises(ValueError, match=r"classes \['b'\] have a prior > 0 but no training"):
        prior_class_weight(["a", "b", "b"], [0.5, 0.5], [1.0, 0.0, 0.0])
    weights = prior_class_weight(["a", "b", "b"], [1.0, 0.0], [1.0, 0.0, 0.0])
    assert weights == {"a": 1.0, "b": 0.0}


def test_drawings_show_the_class_predict_gives():
    """export_text and export_graphviz name each leaf's least-cost class (with three
    classes it is not always the largest proportion of tree_.value)."""
    from climbing_trees import export_graphviz, export_text

    X, y, _ = noisy_problem(4, 3)
    L = [[0, 1, 10], [1, 0, 1], [1, 1, 0]]
    model = DecisionTreeClassifier(max_depth=4, loss_matrix=L).fit(X, y)
    leaves = np.flatnonzero(model.tree_.children_left == TREE_LEAF)
    shown = [
        int(line.rsplit(" ", 1)[1]) for line in export_text(model).splitlines() if "class:" in line
    ]
    value = model.tree_.value[leaves, 0]
    expected = model._costs_.node_classes(value)
    assert shown == expected.tolist() and shown != value.argmax(axis=1).tolist()
    dot = export_graphviz(model, class_names=["a", "b", "c"])
    nodes = model._costs_.node_classes(model.tree_.value[:, 0])
    assert dot.count("class = c") == int(np.sum(nodes == 2))


def test_drawings_show_the_proportions_predict_proba_gives():
    """Next to the least-cost class the drawings show predict_proba's proportions and
    the class weights under the priors, not the altered priors of tree_.value."""
    from climbing_trees import export_graphviz, export_text

    X, y, w = noisy_problem(4, 3)
    L = np.array([[0, 1, 10], [1, 0, 1], [1, 1, 0]], float)
    model = DecisionTreeClassifier(max_depth=1, loss_matrix=L).fit(X, y, sample_weight=w)
    left = model.tree_.children_left[0]
    proba = model.predict_proba(X[model.apply(X) == left][:1])[0]
    assert not np.allclose(proba, model.tree_.value[left, 0])  # the priors were altered
    dot = export_graphviz(model, proportion=True, precision=3)
    assert "value = [" + ", ".join(f"{p:.3f}".rstrip("0") for p in proba) + "]" in dot
    rows = model.apply(X) == left
    weights = [np.sum(w[rows & (y == k)]) for k in range(3)]
    dot = export_graphviz(model, precision=2)
    assert "value = [" + ", ".join(str(np.round(v, 2)) for v in weights) + "]" in dot
    text = export_text(model, show_weights=True, decimals=2)
    assert "weights: [" + ", ".join(f"{v:.2f}" for v in weights) + "] class:" in text


@pytest.mark.parametrize("seed", COST_SEEDS)
def test_cost_reference_is_of_its_problem(seed):
    """rpart's root holds the problem's rows and weight; one prediction per new row."""
    problem = cost_problem(seed)
    frame, pred = reference_costs(seed)
    root = frame.iloc[0]
    assert root["node"] == 1 and root["n"] == len(problem["y"])
    assert root["wt"] == pytest.approx(problem["w"].sum(), rel=1e-12)
    assert len(pred) == len(problem["X_test"])
    n_classes = len(np.unique(problem["y"]))
    np.testing.assert_allclose(pred.drop(columns="class").sum(axis=1), 1, rtol=1e-12)
    assert pred.shape[1] == 1 + n_classes


def test_reference_costs_refuses_unknown_seeds():
    with pytest.raises(ValueError, match="hold seeds"):
        reference_costs(max(COST_SEEDS) + 1)
