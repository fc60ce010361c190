"""Pruning (chapter 8): scikit-learn, enumeration and rpart as oracles."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from conftest import SET_FIELDS, assert_equivalent, random_problem
from sklearn import tree as sk
from sklearn.model_selection import GridSearchCV, KFold
from test_sklearn_agreement import same_partition, sklearn_stable_fit

import climbing_trees as ct
from climbing_trees._pruning import _distinct_alphas, _landing_nodes
from climbing_trees._rpart import exact_cptable, reference_fit, tree_from_rpart_frame

# ---------------------------------------------------------------- scikit-learn's path

PATH_CASES = [
    ("breast_cancer", ct.DecisionTreeClassifier, sk.DecisionTreeClassifier, {}),
    (
        "breast_cancer",
        ct.DecisionTreeClassifier,
        sk.DecisionTreeClassifier,
        {"criterion": "entropy"},
    ),
    ("diabetes", ct.DecisionTreeRegressor, sk.DecisionTreeRegressor, {"min_samples_leaf": 10}),
    (
        "diabetes",
        ct.DecisionTreeRegressor,
        sk.DecisionTreeRegressor,
        {"max_depth": 6, "min_samples_leaf": 5},
    ),
    ("synthetic", ct.DecisionTreeRegressor, sk.DecisionTreeRegressor, {"min_samples_leaf": 5}),
]


@pytest.fixture(scope="module")
def datasets(breast_cancer, diabetes, synthetic_regression):
    X, y = synthetic_regression
    return {"breast_cancer": breast_cancer, "diabetes": diabetes, "synthetic": (X[:4000], y[:4000])}


def _ids(case):
    return f"{case[0]}-{case[3]}"


@pytest.mark.parametrize("case", PATH_CASES, ids=_ids)
def test_path_equals_sklearn(datasets, case):
    name, Ours, Theirs, params = case
    X, y = datasets[name]
    ours = Ours(**params).cost_complexity_pruning_path(X, y)
    theirs = Theirs(random_state=0, **params).cost_complexity_pruning_path(X, y)
    assert set(ours) == {"ccp_alphas", "impurities"}
    assert len(ours.ccp_alphas) == len(theirs.ccp_alphas) > 10
    assert ours.ccp_alphas[0] == 0.0
    # Alphas are differences of sums of node risks: relative to the path's scale.
    scale = theirs.impurities[-1]
    np.testing.assert_allclose(ours.ccp_alphas, theirs.ccp_alphas, rtol=1e-12, atol=1e-13 * scale)
    np.testing.assert_allclose(ours.impurities, theirs.impurities, rtol=1e-12, atol=1e-14 * scale)


@pytest.mark.parametrize("case", PATH_CASES, ids=_ids)
def test_pruned_trees_equal_sklearn_between_path_points(datasets, case):
    name, Ours, Theirs, params = case
    X, y = datasets[name]
    alphas = Theirs(random_state=0, **params).cost_complexity_pruning_path(X, y).ccp_alphas
    between = np.sqrt(alphas[1:-1] * alphas[2:])  # strictly inside each interval
    between = between[:: max(1, len(between) // 8)]
    compared = 0
    for alpha in between:
        ours = Ours(ccp_alpha=alpha, **params).fit(X, y)
        theirs = Theirs(ccp_alpha=alpha, random_state=0, **params).fit(X, y)
        assert ours.get_n_leaves() == theirs.get_n_leaves()
        # Deep breast_cancer trees hold equal-gain splits that scikit-learn breaks at
        # random; the partition is compared where its own seeds agree.
        fits = [Theirs(ccp_alpha=alpha, random_state=s, **params).fit(X, y) for s in (1, 2)]
        if not all(same_partition(theirs.apply(X), f.apply(X)) for f in fits):
            continue
        compared += 1
        assert same_partition(ours.apply(X), theirs.apply(X))
        np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-12, atol=1e-12)
        if hasattr(theirs, "predict_proba"):
            np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-12)
    assert compared >= 3


def test_shared_alphas_are_repeated_like_sklearn():
    """Two identical branches share one alpha: one path row per collapsed node."""
    X = np.array([[0.0], [1.0], [2.0], [3.0], [10.0], [11.0], [12.0], [13.0]])
    y = np.array([0, 1, 0, 0, 2, 3, 2, 2])  # the same pattern of counts twice
    ours = ct.DecisionTreeClassifier().cost_complexity_pruning_path(X, y)
    theirs = sk.DecisionTreeClassifier().cost_complexity_pruning_path(X, y)
    np.testing.assert_array_equal(theirs.ccp_alphas, [0.0, 0.09375, 0.09375, 0.3125])
    np.testing.assert_array_equal(ours.ccp_alphas, theirs.ccp_alphas)
    np.testing.assert_array_equal(ours.impurities, theirs.impurities)
    # Equal alphas: the lower id goes first, as in scikit-learn's scan.
    links = ct.weakest_links(ct.DecisionTreeClassifier().fit(X, y).tree_)
    assert links.nodes[0] < links.nodes[1] and links.alphas[0] == links.alphas[1]
    # Pruning at the shared alpha collapses both nodes.
    assert ct.DecisionTreeClassifier(ccp_alpha=0.09375).fit(X, y).get_n_leaves() == 2


# ------------------------------------------------------------ oracle by enumeration


def _subtrees(tree, node=0):
    """Every pruned subtree of the branch at ``node``: (frozenset of kept nodes)."""
    if tree.children_left[node] == ct.TREE_LEAF:
        return [frozenset([node])]
    out = [frozenset([node])]
    for a in _subtrees(tree, tree.children_left[node]):
        for b in _subtrees(tree, tree.children_right[node]):
            out.append(frozenset([node]) | a | b)
    return out


def _small_trees():
    for seed in range(8):
        rng = np.random.default_rng(seed)
        n = 60
        X = rng.normal(size=(n, 2))
        if seed % 2:
            y = rng.integers(0, 3, size=n)
            Y, criterion = ct.one_hot(y, 3), "gini"
        else:
            y = X[:, 0] + rng.normal(size=n)
            Y, criterion = y[:, None], "squared_error"
        if seed % 4 == 3:  # a categorical column too
            X[:, 1] = rng.integers(0, 5, size=n)
            is_cat = np.array([False, True])
        else:
            is_cat = None
        w = rng.uniform(0.5, 2.0, size=n)
        full = ct.grow_tree(X, Y, w, criterion=criterion, is_categorical=is_cat)
        tree = ct.prune(full, ct.best_first_subtree(full, 12))
        yield seed, tree, criterion


@pytest.mark.parametrize(("seed", "tree", "criterion"), list(_small_trees()), ids=lambda v: "")
def test_pruned_tree_is_the_smallest_minimiser(seed, tree, criterion):
    kinds = ["impurity"] + (["misclassification"] if criterion == "gini" else [])
    for kind in kinds:
        risk = ct.node_risk(tree, kind)
        leaf_of = tree.children_left == ct.TREE_LEAF
        candidates = []
        for nodes in _subtrees(tree):
            nodes_arr = np.array(sorted(nodes))
            # A kept node is a leaf of the subtree when its children are not kept.
            is_leaf = np.array(
                [leaf_of[t] or tree.children_left[t] not in nodes for t in nodes_arr]
            )
            candidates.append((nodes, risk[nodes_arr[is_leaf]].sum(), int(is_leaf.sum())))
        path = ct.cost_complexity_path(tree, risk).ccp_alphas
        alphas = np.unique(np.concatenate([path[1:], np.sqrt(path[1:-1] * path[2:]), [1.0]]))
        for alpha in alphas[alphas > 0]:
            costs = np.array([r + alpha * k for _, r, k in candidates])
            best = costs.min()
            tol = 1e-12 * max(1.0, abs(best))
            minimisers = [
                c for c, cost in zip(candidates, costs, strict=True) if cost <= best + tol
            ]
            smallest = min(minimisers, key=lambda c: c[2])
            assert sum(c[2] == smallest[2] for c in minimisers) == 1  # unique smallest
            inside = ct.ccp_subtree(tree, alpha, risk)
            assert frozenset(np.flatnonzero(inside).tolist()) == smallest[0], (kind, alpha)


@pytest.mark.parametrize(("seed", "tree", "criterion"), list(_small_trees()), ids=lambda v: "")
def test_path_is_nested(seed, tree, criterion):
    path = ct.cost_complexity_path(tree).ccp_alphas
    previous = np.ones(tree.node_count, dtype=bool)
    for alpha in np.unique(path):
        inside = ct.ccp_subtree(tree, alpha)
        assert not np.any(inside & ~previous)  # a pruned subtree of the one before
        previous = inside
    assert previous.sum() == 1  # the last one is the root alone


HEAP_CASES = [(PATH_CASES[0], "impurity"), (PATH_CASES[0], "misclassification")] + [
    (case, "impurity") for case in PATH_CASES[2::2]
]


@pytest.mark.parametrize(("case", "kind"), HEAP_CASES, ids=lambda v: str(v)[:40])
def test_heap_and_scan_give_the_same_steps(datasets, case, kind):
    name, Ours, _, params = case
    X, y = datasets[name]
    tree = Ours(**params).fit(X, y).tree_
    risk = ct.node_risk(tree, kind)
    heap, scan = ct.weakest_links(tree, risk), ct.weakest_links_scan(tree, risk)
    for key in ("nodes", "alphas", "risks", "n_leaves"):
        np.testing.assert_array_equal(heap[key], scan[key], err_msg=key)
    middle = heap.alphas[len(heap.alphas) // 2]
    stopped = ct.weakest_links(tree, risk, max_alpha=middle)
    assert np.all(stopped.alphas <= middle) and len(stopped.alphas) > len(heap.alphas) // 2


# ------------------------------------------------------------------ prune itself


@pytest.mark.parametrize("missing_values", ["learn", "surrogate"])
def test_prune_keeps_every_array_consistent(mixed_frame, missing_values):
    X, _, y = mixed_frame
    model = ct.DecisionTreeRegressor(min_samples_leaf=3, missing_values=missing_values)
    model.fit(X, y)
    tree = model.tree_
    assert tree.is_categorical_split.any()
    surrogates = missing_values == "surrogate"
    # With surrogates, some are categorical (the frame's colour, size, shape).
    assert len(tree.surrogate_categories_levels) > 0 if surrogates else True
    inside = ct.ccp_subtree(tree, ct.cost_complexity_path(tree).ccp_alphas[-4])
    pruned = ct.prune(tree, inside)
    kept = np.flatnonzero(inside)
    sets = set(SET_FIELDS)
    for field in dataclasses.fields(ct.Tree):
        if field.name in ("children_left", "children_right", "feature", "threshold"):
            continue
        if field.name in sets:
            continue  # the compact categorical sets (of splits, of surrogates): below
        if field.name in ("missing_go_to_left", "surrogate_below_left"):
            # Per-node routing: kept at internal nodes, cleared at the new leaves.
            internal = pruned.children_left != ct.TREE_LEAF
            np.testing.assert_array_equal(
                getattr(pruned, field.name)[internal],
                getattr(tree, field.name)[kept][internal],
            )
            assert not getattr(pruned, field.name)[~internal].any()
        elif field.name in ("surrogate_feature", "surrogate_threshold"):
            internal = pruned.children_left != ct.TREE_LEAF
            np.testing.assert_array_equal(
                getattr(pruned, field.name)[internal],
                getattr(tree, field.name)[kept][internal],
            )
            assert (pruned.surrogate_feature[~internal] == -1).all()
            assert np.isnan(pruned.surrogate_threshold[~internal]).all()
        else:
            np.testing.assert_array_equal(
                getattr(pruned, field.name), getattr(tree, field.name)[kept]
            )
    # The categorical sets, read through the dense view: kept at internal nodes,
    # gone at the new leaves.
    internal = pruned.children_left != ct.TREE_LEAF
    np.testing.assert_array_equal(
        pruned.categories_left[internal], tree.categories_left[kept][internal]
    )
    assert not pruned.categories_left[~internal].any()
    # Re-packed: the shared array holds the kept nodes' levels only, in node order.
    lengths = pruned.categories_stop - pruned.categories_start
    assert lengths.sum() == len(pruned.categories_levels) < len(tree.categories_levels)
    np.testing.assert_array_equal(pruned.categories_start, np.cumsum(lengths) - lengths)
    assert not lengths[~internal].any()
    # The same for the surrogates' level lists (left and right of each rank).
    np.testing.assert_array_equal(
        pruned.surrogate_levels[internal], tree.surrogate_levels[kept][internal]
    )
    assert not pruned.surrogate_levels[~internal].any()
    lengths = pruned.surrogate_categories_stop - pruned.surrogate_categories_start
    assert lengths.sum() == len(pruned.surrogate_categories_levels)
    if surrogates:
        assert len(pruned.surrogate_categories_levels) < len(tree.surrogate_categories_levels)
    running = np.cumsum(lengths.ravel()) - lengths.ravel()
    np.testing.assert_array_equal(pruned.surrogate_categories_start.ravel(), running)
    assert not lengths[~internal].any()
    # Preorder ids: every child id is larger than its parent's, left subtree first.
    internal = np.flatnonzero(pruned.children_left != ct.TREE_LEAF)
    np.testing.assert_array_equal(pruned.children_left[internal], internal + 1)
    assert np.all(pruned.children_right[internal] > pruned.children_left[internal])
    leaves = pruned.children_left == ct.TREE_LEAF
    assert np.all(pruned.feature[leaves] == ct.TREE_UNDEFINED)
    # A row lands in the kept ancestor of the leaf it reached in the full tree.
    full_leaf, pruned_leaf = tree.apply(model._validate_X_predict(X)), None
    pruned_leaf = pruned.apply(model._validate_X_predict(X))
    assert same_partition(pruned_leaf, pruned_leaf)
    np.testing.assert_array_equal(pruned.value[pruned_leaf], tree.value[kept[pruned_leaf]])
    assert np.all(kept[pruned_leaf] <= full_leaf)


def test_prune_rejects_a_set_that_is_not_a_subtree():
    X = np.arange(8.0)[:, None]
    tree = ct.grow_tree(X, X, np.ones(8), criterion="squared_error")
    inside = np.ones(tree.node_count, dtype=bool)
    inside[tree.children_left[0]] = False  # one child without the other
    with pytest.raises(ValueError, match="pruned subtree"):
        ct.prune(tree, inside)


def test_landing_nodes_equal_predictions_of_pruned_trees(diabetes):
    X, y = diabetes
    model = ct.DecisionTreeRegressor(min_samples_leaf=5).fit(X[:300], y[:300])
    links = ct.weakest_links(model.tree_)
    alphas = np.array([0.0, 1.0, 10.0, 100.0, 1e4])
    landing = _landing_nodes(model.tree_, links, X[300:], alphas)
    for k, alpha in enumerate(alphas):
        pruned = ct.DecisionTreeRegressor(min_samples_leaf=5, ccp_alpha=alpha).fit(X[:300], y[:300])
        np.testing.assert_allclose(model.tree_.value[landing[k], 0, 0], pruned.predict(X[300:]))


# ---------------------------------------------------------------- max_leaf_nodes


@pytest.mark.parametrize("max_leaf_nodes", [2, 3, 5, 8, 17, 64, 500])
@pytest.mark.parametrize(
    "params", [{}, {"min_samples_leaf": 5, "min_impurity_decrease": 1e-4}], ids=str
)
def test_max_leaf_nodes_equals_sklearn(synthetic_regression, max_leaf_nodes, params):
    X, y = synthetic_regression
    X, y = X[:5000], y[:5000]
    ours = ct.DecisionTreeRegressor(max_leaf_nodes=max_leaf_nodes, **params).fit(X, y)
    theirs = sklearn_stable_fit(
        sk.DecisionTreeRegressor, X, y, max_leaf_nodes=max_leaf_nodes, **params
    )
    assert ours.get_n_leaves() == theirs.get_n_leaves() == max_leaf_nodes
    assert same_partition(ours.apply(X), theirs.apply(X))
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("max_leaf_nodes", [2, 3, 4])  # from 5 on, a gain tie
def test_max_leaf_nodes_classifier_equals_sklearn(breast_cancer, max_leaf_nodes):
    X, y = breast_cancer
    ours = ct.DecisionTreeClassifier(max_leaf_nodes=max_leaf_nodes, max_depth=4).fit(X, y)
    theirs = sklearn_stable_fit(
        sk.DecisionTreeClassifier, X, y, max_leaf_nodes=max_leaf_nodes, max_depth=4
    )
    assert same_partition(ours.apply(X), theirs.apply(X))
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-12)


def test_max_leaf_nodes_is_the_full_tree_with_its_top_splits(diabetes):
    """Keep the splits of the full tree in decreasing order of decrease, parents first."""
    X, y = diabetes
    full = ct.DecisionTreeRegressor(min_samples_leaf=10).fit(X, y).tree_
    w, imp = full.weighted_n_node_samples, full.impurity
    left, right = full.children_left, full.children_right
    for k in (2, 3, 6, 12, 20):
        # Independent construction: at each step, scan the whole frontier for the best.
        kept, frontier = [], [0]
        while frontier and len(kept) < k - 1:
            dec = [
                w[t] * imp[t] - w[left[t]] * imp[left[t]] - w[right[t]] * imp[right[t]]
                for t in frontier
            ]
            t = frontier.pop(int(np.argmax(dec)))
            kept.append(t)
            frontier += [c for c in (left[t], right[t]) if left[c] != ct.TREE_LEAF]
        model = ct.DecisionTreeRegressor(min_samples_leaf=10, max_leaf_nodes=k).fit(X, y)
        internal = model.tree_.children_left != ct.TREE_LEAF
        # The kept splits are exactly these: same (feature, threshold) pairs.
        ours = sorted(
            zip(model.tree_.feature[internal], model.tree_.threshold[internal], strict=True)
        )
        expected = sorted(zip(full.feature[kept], full.threshold[kept], strict=True))
        assert ours == expected
        assert model.get_n_leaves() == k


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("criterion", ["gini", "squared_error"])
def test_bounded_levelwise_growth_cuts_to_the_same_tree(seed, criterion):
    """Growing level by level with BestFirstBound skips nodes, never a kept split.

    Tied feature values make equal decreases common, the case the bound must
    not count."""
    X, Y, w = random_problem(seed, criterion, weighted=seed % 2 == 1)
    full = ct.grow_tree(X, Y, w, criterion=criterion)
    for max_leaf_nodes in (2, 3, 4, 6, 10):
        bounded = ct.grow_tree_levelwise(
            X, Y, w, criterion=criterion, max_leaf_nodes=max_leaf_nodes
        )
        assert_equivalent(
            ct.prune(bounded, ct.best_first_subtree(bounded, max_leaf_nodes)),
            ct.prune(full, ct.best_first_subtree(full, max_leaf_nodes)),
        )


def test_bounded_levelwise_growth_skips_most_of_the_tree(synthetic_regression):
    X, y = synthetic_regression
    Y, w = y[:, None], np.ones(len(y))
    full = ct.grow_tree_levelwise(X, Y, w, criterion="squared_error")
    bounded = ct.grow_tree_levelwise(X, Y, w, criterion="squared_error", max_leaf_nodes=16)
    assert bounded.node_count < full.node_count / 10
    assert_equivalent(
        ct.prune(bounded, ct.best_first_subtree(bounded, 16)),
        ct.prune(full, ct.best_first_subtree(full, 16)),
    )


def test_max_leaf_nodes_with_ccp_alpha_prunes_the_best_first_tree(diabetes):
    X, y = diabetes
    params = {"min_samples_leaf": 10, "max_leaf_nodes": 12}
    alpha = sk.DecisionTreeRegressor(**params).cost_complexity_pruning_path(X, y).ccp_alphas[6]
    alpha *= 1.001
    ours = ct.DecisionTreeRegressor(ccp_alpha=alpha, **params).fit(X, y)
    theirs = sk.DecisionTreeRegressor(ccp_alpha=alpha, **params).fit(X, y)
    assert ours.get_n_leaves() == theirs.get_n_leaves() < 12
    assert same_partition(ours.apply(X), theirs.apply(X))


# ----------------------------------------------------------- misclassification risk


def test_misclassification_path_is_the_training_error(breast_cancer):
    X, y = breast_cancer
    model = ct.DecisionTreeClassifier(ccp_risk="misclassification", max_depth=5)
    path = model.cost_complexity_pruning_path(X, y)
    assert path.impurities[-1] == pytest.approx(min(np.mean(y), 1 - np.mean(y)))
    for alpha in np.sqrt(path.ccp_alphas[1:-1] * path.ccp_alphas[2:])[::2]:
        fitted = ct.DecisionTreeClassifier(
            ccp_risk="misclassification", max_depth=5, ccp_alpha=alpha
        ).fit(X, y)
        k = np.searchsorted(path.ccp_alphas, alpha, side="right") - 1
        assert 1 - fitted.score(X, y) == pytest.approx(path.impurities[k], abs=1e-12)


def test_impurity_and_misclassification_paths_differ(breast_cancer):
    X, y = breast_cancer
    a = ct.DecisionTreeClassifier(max_depth=5).cost_complexity_pruning_path(X, y)
    b = ct.DecisionTreeClassifier(
        max_depth=5, ccp_risk="misclassification"
    ).cost_complexity_pruning_path(X, y)
    assert len(a.ccp_alphas) != len(b.ccp_alphas) or not np.allclose(a.ccp_alphas, b.ccp_alphas)
    # Misclassification counts a split that leaves the majority unchanged as worthless.
    assert np.any(b.ccp_alphas[1:] < 1e-12) and not np.any(a.ccp_alphas[1:] < 1e-12)


# rpart's trees and cptables on climbing_trees._rpart.pruning_problem(seed), from the
# committed reference files (tests/test_reference_files.py reruns rpart where R is
# installed and checks that the files are its output).


@pytest.mark.parametrize("seed", [6, 8, 11])
def test_exact_cptable_equals_rpart_where_rpart_is_exact(seed):
    frame, cptable = reference_fit(seed)
    tree, risk = tree_from_rpart_frame(frame)
    ours = exact_cptable(tree, risk)
    np.testing.assert_allclose(ours["CP"], cptable["CP"], rtol=1e-9)
    np.testing.assert_array_equal(ours["nsplit"], cptable["nsplit"])
    np.testing.assert_allclose(ours["rel error"], cptable["rel error"], rtol=1e-9)


def test_rpart_cptable_is_not_the_exact_sequence():
    """rpart works complexities out while growing; on this tree its table is not optimal."""
    frame, cptable = reference_fit(1)
    tree, risk = tree_from_rpart_frame(frame)
    ours = exact_cptable(tree, risk)
    assert len(ours) != len(cptable) or not np.allclose(ours["CP"], cptable["CP"])

    def cost(table, cp):
        """R(T) + cp |T| of the subtree the table assigns to cp (risks scaled, root = 1)."""
        row = table[table["CP"] <= cp].iloc[0]  # rows run from the largest CP down
        return row["rel error"] + cp * (row["nsplit"] + 1)

    cps = np.linspace(1e-4, cptable["CP"].iloc[0], 400)
    ours_cost = np.array([cost(ours, cp) for cp in cps])
    rpart_cost = np.array([cost(cptable, cp) for cp in cps])
    assert np.all(ours_cost <= rpart_cost + 1e-12)  # never worse
    assert np.any(ours_cost < rpart_cost - 1e-6)  # and strictly better somewhere


# ---------------------------------------------------------------- select_ccp_alpha


def test_select_ccp_alpha_on_pure_noise_keeps_the_root():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(300, 4))
    alpha, table = ct.select_ccp_alpha(ct.DecisionTreeRegressor(), X, rng.normal(size=300), cv=5)
    assert (
        ct.DecisionTreeRegressor(ccp_alpha=alpha).fit(X, rng.normal(size=300)).get_n_leaves() >= 1
    )
    assert table.loc[table.chosen, "n_leaves"].item() == 1
    y = (rng.uniform(size=300) < 0.3).astype(int)
    for risk in ("impurity", "misclassification"):
        est = ct.DecisionTreeClassifier(ccp_risk=risk)
        alpha, table = ct.select_ccp_alpha(est, X, y, cv=5)
        assert table.loc[table.chosen, "n_leaves"].item() == 1
        assert est.set_params(ccp_alpha=alpha).fit(X, y).get_n_leaves() == 1


@pytest.mark.parametrize("rule", ["1se", "min"])
def test_select_ccp_alpha_finds_a_two_split_signal(rule):
    rng = np.random.default_rng(1)
    n = 400
    X = rng.uniform(size=(n, 5))
    signal = np.where(X[:, 0] <= 0.5, 0.0, np.where(X[:, 1] <= 0.5, 2.0, 4.0))
    y = signal + rng.normal(size=n)
    alpha, table = ct.select_ccp_alpha(ct.DecisionTreeRegressor(), X, y, cv=10, rule=rule)
    model = ct.DecisionTreeRegressor(ccp_alpha=alpha).fit(X, y)
    assert model.get_n_leaves() == 3
    assert set(model.tree_.feature[model.tree_.feature >= 0]) == {0, 1}
    assert table.loc[table.chosen, "n_leaves"].item() == 3


@pytest.mark.parametrize("seed", range(6))
def test_one_se_never_picks_a_larger_tree_than_min(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    a_1se, t_1se = ct.select_ccp_alpha(ct.DecisionTreeClassifier(), X, y, cv=5)
    a_min, t_min = ct.select_ccp_alpha(ct.DecisionTreeClassifier(), X, y, cv=5, rule="min")
    pd.testing.assert_frame_equal(t_1se.drop(columns="chosen"), t_min.drop(columns="chosen"))
    assert a_1se >= a_min
    assert t_1se.loc[t_1se.chosen, "n_leaves"].item() <= t_min.loc[t_min.chosen, "n_leaves"].item()
    best = t_min.cv_loss.min()
    chosen = t_1se[t_1se.chosen].iloc[0]
    assert chosen.cv_loss <= best + t_min.loc[t_min.cv_loss.idxmin(), "cv_se"] + 1e-15


def test_select_ccp_alpha_table_and_candidates(diabetes):
    X, y = diabetes
    est = ct.DecisionTreeRegressor(min_samples_leaf=10)
    alpha, table = ct.select_ccp_alpha(est, X, y, cv=KFold(5, shuffle=True, random_state=0))
    path = est.cost_complexity_pruning_path(X, y)
    np.testing.assert_allclose(table.alpha, np.unique(path.ccp_alphas))
    assert list(table.columns) == [
        "alpha",
        "alpha_over_root_risk",
        "cv_alpha",
        "n_leaves",
        "pruning_risk",
        "cv_loss",
        "cv_se",
        "chosen",
    ]
    a = table.alpha.to_numpy()
    # rpart's rule: the geometric mean of the ends of each subtree's interval ...
    np.testing.assert_allclose(table.cv_alpha[:-1], np.sqrt(a[:-1] * a[1:]))
    assert table.cv_alpha.iloc[0] == 0.0  # the grown tree of each fold
    # ... and the root alone "close to infinity": here infinity itself.
    assert table.cv_alpha.iloc[-1] == np.inf
    assert table.n_leaves.iloc[-1] == 1 and np.all(np.diff(table.n_leaves) < 0)
    np.testing.assert_allclose(table.alpha_over_root_risk, a / path.impurities[-1])
    # The training risk of each subtree: the path's, from the grown tree to the root.
    risks = table.pruning_risk.to_numpy()
    assert risks[0] == path.impurities[0] and risks[-1] == path.impurities[-1]
    assert np.all(np.diff(risks) > 0) and set(risks) <= set(path.impurities)
    # Each finite cv_alpha gives the row's tree when fitted on all the data.
    for _, row in table.iloc[:-1:5].iterrows():
        fitted = ct.DecisionTreeRegressor(min_samples_leaf=10, ccp_alpha=row.cv_alpha)
        assert fitted.fit(X, y).get_n_leaves() == row.n_leaves
    assert alpha == table.loc[table.chosen, "cv_alpha"].item()


def _root_held_out_loss(y, cv, classifier):
    """Held-out error of the one-leaf tree of each fold, computed directly."""
    loss = np.zeros(len(y))
    for train, test in cv.split(np.zeros((len(y), 1)), y):
        if classifier:
            values, counts = np.unique(y[train], return_counts=True)
            loss[test] = y[test] != values[np.argmax(counts)]
        else:
            loss[test] = (y[test] - y[train].mean()) ** 2
    return loss.mean()


def test_root_row_is_the_held_out_error_of_the_root(breast_cancer, diabetes):
    """The one-leaf row was cross-validated at a_K, where a fold whose own root split
    has a larger g keeps it (breast_cancer: 0.1968 instead of 0.3726)."""
    from sklearn.model_selection import StratifiedKFold

    X, y = breast_cancer
    alpha, table = ct.select_ccp_alpha(ct.DecisionTreeClassifier(), X, y, cv=10)
    root = _root_held_out_loss(y, StratifiedKFold(10), classifier=True)
    assert root == pytest.approx(212 / 569)
    assert table.cv_loss.iloc[-1] == pytest.approx(root, rel=1e-12)
    # With a scorer: every fold's root, scored by accuracy (the loss is minus its mean).
    _, scored = ct.select_ccp_alpha(ct.DecisionTreeClassifier(), X, y, cv=10, scoring="accuracy")
    accuracy = [np.mean(y[test] == 1) for _, test in StratifiedKFold(10).split(X, y)]
    assert scored.cv_loss.iloc[-1] == pytest.approx(-np.mean(accuracy), rel=1e-12)
    X, y = diabetes
    cv = KFold(5, shuffle=True, random_state=0)
    _, table = ct.select_ccp_alpha(ct.DecisionTreeRegressor(), X, y, cv=cv)
    root = _root_held_out_loss(y, cv, classifier=False)
    assert table.cv_loss.iloc[-1] == pytest.approx(root, rel=1e-12)


def test_choosing_the_root_returns_an_alpha_that_fits_the_root():
    """When the root is chosen, its cv_alpha is inf; the alpha returned is a_K."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(200, 3))
    y = rng.normal(size=200)
    alpha, table = ct.select_ccp_alpha(ct.DecisionTreeRegressor(), X, y, cv=5)
    assert table.chosen.iloc[-1] and table.cv_alpha.iloc[-1] == np.inf
    assert alpha == table.alpha.iloc[-1]
    assert ct.DecisionTreeRegressor(ccp_alpha=alpha).fit(X, y).get_n_leaves() == 1
    # Without any split, the one row is the root: ccp_alpha=0 fits it.
    alpha, table = ct.select_ccp_alpha(ct.DecisionTreeRegressor(), X, np.ones(200), cv=5)
    assert len(table) == 1 and alpha == 0.0 and table.cv_loss.iloc[0] == 0.0


def test_select_ccp_alpha_cv_risk_matches_refits(diabetes):
    """The per-fold shortcut (one tree, every alpha) equals fitting each alpha anew."""
    X, y = diabetes
    est = ct.DecisionTreeRegressor(min_samples_leaf=20)
    cv = KFold(4, shuffle=True, random_state=1)
    _, table = ct.select_ccp_alpha(est, X, y, cv=cv)
    for _, row in table.iloc[:-1:4].iterrows():
        errors = np.zeros(len(y))
        for train, test in cv.split(X):
            model = ct.DecisionTreeRegressor(min_samples_leaf=20, ccp_alpha=row.cv_alpha)
            errors[test] = (model.fit(X[train], y[train]).predict(X[test]) - y[test]) ** 2
        assert row.cv_loss == pytest.approx(errors.mean(), rel=1e-12)
        assert row.cv_se == pytest.approx(errors.std() / np.sqrt(len(y)), rel=1e-9)


def test_select_ccp_alpha_with_a_scorer_and_a_categorical_frame():
    from palmerpenguins import load_penguins

    penguins = load_penguins().dropna()
    X = penguins.drop(columns=["species", "year"])
    y = penguins["species"]
    alpha, table = ct.select_ccp_alpha(ct.DecisionTreeClassifier(), X, y, cv=5, scoring="accuracy")
    _, default = ct.select_ccp_alpha(ct.DecisionTreeClassifier(), X, y, cv=5)
    # Accuracy is 1 - misclassification: the same risks, averaged by fold.
    np.testing.assert_allclose(table.cv_loss + 1, default.cv_loss, atol=0.02)
    model = ct.DecisionTreeClassifier(ccp_alpha=alpha).fit(X, y)
    assert model.get_n_leaves() == table.loc[table.chosen, "n_leaves"].item()


def test_gridsearch_over_ccp_alpha():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 3))
    y = X[:, 0] + rng.normal(size=200)
    search = GridSearchCV(ct.DecisionTreeRegressor(), {"ccp_alpha": [0.0, 0.01, 0.1]}, cv=3).fit(
        X, y
    )
    assert search.best_params_["ccp_alpha"] in (0.0, 0.01, 0.1)


def test_distinct_alphas_groups_rounding_twins():
    alphas = np.array([0.1, 0.1 * (1 + 1e-13), 0.2, 0.19999999999999998, 0.5])
    values, last = _distinct_alphas(alphas, scale=1.0)
    np.testing.assert_allclose(values, [0.0, 0.1, 0.2, 0.5], rtol=1e-12)
    np.testing.assert_array_equal(last, [0, 2, 4, 5])
    # A zero alpha that rounding left a hair above 0: the grown tree, then the zero row.
    values, last = _distinct_alphas(np.array([2.4e-17, 0.1]), scale=1.0)
    np.testing.assert_array_equal(values, [0.0, 2.4e-17, 0.1])
    np.testing.assert_array_equal(last, [0, 1, 2])


# ------------------------------------------------------------------------- errors


@pytest.mark.parametrize("Estimator", [ct.DecisionTreeClassifier, ct.DecisionTreeRegressor])
@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"ccp_alpha": -0.1}, "ccp_alpha=-0.1 is invalid"),
        ({"ccp_alpha": np.inf}, "ccp_alpha=inf is invalid"),
        ({"ccp_alpha": np.nan}, "ccp_alpha=nan is invalid"),
        ({"ccp_alpha": "0.1"}, "ccp_alpha='0.1' is invalid"),
        ({"max_leaf_nodes": 1}, "max_leaf_nodes=1 is invalid"),
        ({"max_leaf_nodes": 2.5}, "max_leaf_nodes=2.5 is invalid"),
    ],
)
def test_bad_pruning_parameters_raise(Estimator, params, match):
    X = np.arange(10.0)[:, None]
    y = np.arange(10) % 2
    with pytest.raises(ValueError, match=match):
        Estimator(**params).fit(X, y)


def test_ccp_risk_errors():
    X = np.arange(10.0)[:, None]
    y = np.arange(10) % 2
    with pytest.raises(ValueError, match="ccp_risk='error' is not supported"):
        ct.DecisionTreeClassifier(ccp_risk="error").fit(X, y)
    with pytest.raises(TypeError, match="ccp_risk"):
        ct.DecisionTreeRegressor(ccp_risk="misclassification")
    with pytest.raises(ValueError, match="Invalid parameter 'ccp_risk'"):
        ct.DecisionTreeRegressor().set_params(ccp_risk="misclassification")


def test_failed_fit_keeps_the_previous_model():
    X = np.arange(10.0)[:, None]
    y = np.arange(10) % 2
    model = ct.DecisionTreeClassifier(ccp_alpha=0.01).fit(X, y)
    before = model.tree_
    with pytest.raises(ValueError):
        model.set_params(ccp_alpha=-1).fit(X, y)
    assert model.tree_ is before


def test_select_ccp_alpha_rejects_an_unknown_rule():
    with pytest.raises(ValueError, match="rule='2se' is not supported"):
        ct.select_ccp_alpha(ct.DecisionTreeRegressor(), np.zeros((10, 1)), np.zeros(10), rule="2se")


# ------------------------------------------------- rounding and extreme weights (issue 24)

# Nine weighted rows whose absolute-error path has a g that rounds to -1.4e-17.
NEGATIVE_G = (
    np.array([[2, 1], [1, 1], [2, 0], [2, 0], [0, 1], [2, 2], [2, 2], [2, 1], [0, 2]], float),
    np.array([0.7, 0.2, 0.2, 0.1, 0.1, 0.7, 1000.0, 0.1, 1000.0]),
    np.array([0.7, 0.7, 0.3, 0.1, 1 / 3, 1.0, 1.0, 0.7, 1 / 3]),
)


def test_path_alphas_are_never_negative():
    """Rounding can make R(t) - R(T_t) a hair negative; g is clipped at 0, in one place,
    so every path alpha is a valid ``ccp_alpha`` (the estimator refuses negatives)."""
    X, y, w = NEGATIVE_G
    est = ct.DecisionTreeRegressor(criterion="absolute_error")
    tree = ct.DecisionTreeRegressor(criterion="absolute_error").fit(X, y, sample_weight=w).tree_
    assert tree.n_leaves > 3
    path = est.cost_complexity_pruning_path(X, y, sample_weight=w)
    assert path.ccp_alphas.min() == 0.0  # some g is 0 (to rounding): no alpha below it
    links = ct.weakest_links(tree)
    for key in ("nodes", "alphas", "risks"):
        np.testing.assert_array_equal(links[key], ct.weakest_links_scan(tree)[key])
    assert np.all(links.alphas >= 0)
    for alpha in path.ccp_alphas:
        fitted = est.set_params(ccp_alpha=alpha).fit(X, y, sample_weight=w)
        assert fitted.get_n_leaves() >= 1
    # A tiny positive alpha collapses every zero-gain branch: T(0), the smallest
    # minimiser, which ccp_alpha=0 (the grown tree) is not.
    zero_steps = int((links.alphas == 0.0).sum())
    assert zero_steps >= 1 and np.all(links.alphas[:zero_steps] == 0.0)
    t0 = est.set_params(ccp_alpha=1e-300).fit(X, y, sample_weight=w)
    assert t0.get_n_leaves() == links.n_leaves[zero_steps] < tree.n_leaves


@pytest.mark.parametrize("scale", [2.0**-1074, 2.0**-1060, 2.0**1000])
@pytest.mark.parametrize(
    "params",
    [
        ("classifier", {}),
        ("classifier", {"ccp_risk": "misclassification"}),
        ("regressor", {}),
    ],
    ids=lambda p: f"{p[0]}-{p[1]}",
)
def test_path_of_extreme_weights_is_the_path_of_their_ratios(scale, params):
    """Subnormal weights made risks underflow (``W_t * I(t)`` before dividing by ``W``)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(60, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=60) > 0.5).astype(int)
    k = rng.integers(1, 5, size=60).astype(float)
    kind, kw = params
    Est = ct.DecisionTreeClassifier if kind == "classifier" else ct.DecisionTreeRegressor
    target = y if kind == "classifier" else y.astype(float)
    unit = Est(**kw).cost_complexity_pruning_path(X, target, sample_weight=k)
    tiny = Est(**kw).cost_complexity_pruning_path(X, target, sample_weight=k * scale)
    assert unit.impurities[-1] > 0.1
    np.testing.assert_array_equal(tiny.ccp_alphas, unit.ccp_alphas)
    np.testing.assert_array_equal(tiny.impurities, unit.impurities)
    cv = KFold(3, shuffle=True, random_state=0)
    a_unit, t_unit = ct.select_ccp_alpha(Est(**kw), X, target, cv=cv, sample_weight=k)
    a_tiny, t_tiny = ct.select_ccp_alpha(Est(**kw), X, target, cv=cv, sample_weight=k * scale)
    assert a_tiny == a_unit
    pd.testing.assert_frame_equal(t_tiny, t_unit)
