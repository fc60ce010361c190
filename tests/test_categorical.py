"""Categorical splits: searches against brute force, growth, the estimators, export.

Chapters 6 and 7 of the book explain what is tested here.
"""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import assert_same_fitted_state

import climbing_trees as ct
from climbing_trees._categorical import CATEGORICAL_SEARCHES

N_PROBLEMS = 300
REL = 1e-12


def categorical_problem(seed: int, criterion: str, n_classes: int = 2):
    """A random weighted problem: one column of codes with 2 to 10 levels.

    Levels have their own response (class probabilities or mean), so the best
    partition is not trivial; some levels may be missing from the sample.
    """
    rng = np.random.default_rng(seed)
    k = 2 + seed % 9
    n = int(rng.integers(k, 8 * k))
    codes = rng.integers(0, k, size=n)
    w = rng.uniform(0.1, 3.0, size=n)
    if criterion == "squared_error":
        Y = (rng.normal(size=k)[codes] + rng.normal(size=n))[:, None]
    elif criterion == "poisson":  # counts with a mean per level; some levels all zero
        Y = rng.poisson(rng.gamma(1.0, 2.0, size=k)[codes]).astype(float)[:, None]
        Y[0] += 1.0  # a positive sum
    else:
        probs = rng.dirichlet(np.ones(n_classes), size=k)[codes]
        labels = (rng.uniform(size=(n, 1)) > probs.cumsum(axis=1)).sum(axis=1)
        Y = ct.one_hot(np.minimum(labels, n_classes - 1), n_classes)
    return codes, Y, w


def reference_score(codes, Y, w, criterion, levels_left) -> float:
    """Score of a partition recomputed from the rows, without level statistics."""
    left = np.isin(codes, levels_left)
    impurity = ct.node_impurity
    if criterion == "poisson":  # the definition, sum w y log(y / mean) / W, row by row
        impurity = lambda Y, w, criterion: ct.poisson_deviance(Y[:, 0], w)  # noqa: E731
    parts = [w[side].sum() * impurity(Y[side], w[side], criterion) for side in (left, ~left)]
    return sum(parts) / w.sum()


def assert_scores_equal(a: float, b: float) -> None:
    assert a == pytest.approx(b, rel=REL, abs=1e-14)


# --- the searches ---------------------------------------------------------------------------


@pytest.mark.parametrize("criterion", ["gini", "entropy", "squared_error", "poisson"])
@pytest.mark.parametrize("seed", range(N_PROBLEMS))
def test_partition_reaches_brute_force_optimum(seed, criterion):
    codes, Y, w = categorical_problem(seed, criterion)
    best = ct.brute_force_categorical_split(codes, Y, w, criterion)
    found = ct.partition_split(codes, Y, w, criterion)
    if best is None:
        assert found is None
        return
    assert_scores_equal(found.score, best.score)
    assert_scores_equal(found.score, reference_score(codes, Y, w, criterion, found.levels_left))


@pytest.mark.parametrize("criterion", ["gini", "entropy", "squared_error"])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("seed", range(0, N_PROBLEMS, 3))
def test_one_vs_rest_matches_brute_force_over_single_levels(seed, criterion, n_classes):
    codes, Y, w = categorical_problem(seed, criterion, n_classes)
    best = ct.brute_force_categorical_split(codes, Y, w, criterion, one_level_sides=True)
    found = ct.one_vs_rest_split(codes, Y, w, criterion)
    if best is None:
        assert found is None
        return
    assert len(found.levels_left) == 1
    assert_scores_equal(found.score, best.score)
    assert_scores_equal(found.score, reference_score(codes, Y, w, criterion, found.levels_left))


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("n_classes", [3, 4, 5])
@pytest.mark.parametrize("seed", range(0, N_PROBLEMS, 3))
def test_multiclass_heuristic_never_worse_than_one_vs_rest(seed, criterion, n_classes):
    codes, Y, w = categorical_problem(seed, criterion, n_classes)
    auto = ct.auto_split(codes, Y, w, criterion)
    ovr = ct.one_vs_rest_split(codes, Y, w, criterion)
    best = ct.brute_force_categorical_split(codes, Y, w, criterion)
    if best is None:
        assert auto is None and ovr is None
        return
    tol = REL * abs(best.score) + 1e-14
    assert best.score - tol <= auto.score <= ovr.score + tol
    assert_scores_equal(auto.score, reference_score(codes, Y, w, criterion, auto.levels_left))


def optimum_hit_rates(criterion: str, n_classes: int) -> dict[str, float]:
    """Fraction of random problems (3+ levels) where each search reaches the optimum."""
    hits = {name: 0 for name in CATEGORICAL_SEARCHES}
    n = 0
    for seed in range(N_PROBLEMS):
        codes, Y, w = categorical_problem(seed, criterion, n_classes)
        best = ct.brute_force_categorical_split(codes, Y, w, criterion)
        if best is None or len(np.unique(codes)) < 3:
            continue
        n += 1
        for name, search in CATEGORICAL_SEARCHES.items():
            score = search(codes, Y, w, criterion).score
            hits[name] += score <= best.score + REL * abs(best.score) + 1e-14
    return {name: h / n for name, h in hits.items()}


@pytest.mark.parametrize("n_classes", [3, 4])
def test_multiclass_heuristic_hits_the_optimum_more_often_than_one_vs_rest(n_classes):
    rates = optimum_hit_rates("gini", n_classes)
    print(f"optimum hit rate, gini, {n_classes} classes: {rates}")
    assert rates["auto"] >= rates["partition"]
    assert rates["auto"] > rates["one_vs_rest"]


@pytest.mark.parametrize("search", list(CATEGORICAL_SEARCHES.values()))
@pytest.mark.parametrize("min_samples_leaf", [2, 4, 7])
@pytest.mark.parametrize("seed", range(40))
def test_min_samples_leaf_counts_rows_of_whole_sides(seed, search, min_samples_leaf):
    codes, Y, w = categorical_problem(seed, "gini")
    found = search(codes, Y, w, "gini", min_samples_leaf)
    best = ct.brute_force_categorical_split(codes, Y, w, "gini", min_samples_leaf)
    if found is None:
        return
    n_left = np.isin(codes, found.levels_left).sum()
    assert min(n_left, len(codes) - n_left) >= min_samples_leaf
    assert best is not None and best.score <= found.score + 1e-12


def test_min_samples_leaf_does_not_apply_to_single_levels():
    # Every level has 1 row; a side of 3 single-row levels is allowed with min_samples_leaf=3.
    codes = np.arange(6)
    Y = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.2]])
    for search in [ct.partition_split, ct.auto_split, ct.brute_force_categorical_split]:
        split = search(codes, Y, np.ones(6), "squared_error", 3)
        assert split is not None and set(split.levels_left) in ({0, 1, 2}, {3, 4, 5})
    # One-vs-rest puts a single row on one side, which min_samples_leaf=3 forbids.
    assert ct.one_vs_rest_split(codes, Y, np.ones(6), "squared_error", 3) is None


def test_fewer_than_two_levels_give_no_split():
    Y = ct.one_hot(np.array([0, 1, 0]), 2)
    for search in CATEGORICAL_SEARCHES.values():
        assert search(np.array([4, 4, 4]), Y, np.ones(3), "gini") is None


def test_zero_weight_side_is_not_a_split():
    # Level 1 carries only zero weight: separating it changes nothing and is not allowed.
    codes = np.array([0, 0, 1])
    Y = ct.one_hot(np.array([0, 1, 1]), 2)
    w = np.array([1.0, 1.0, 0.0])
    for search in [*CATEGORICAL_SEARCHES.values(), ct.brute_force_categorical_split]:
        assert search(codes, Y, w, "gini") is None


def test_one_vs_rest_ties_go_to_the_lowest_code():
    # Levels 1 and 3 are mirror images: both single-level splits score the same.
    codes = np.array([0, 0, 1, 1, 2, 2, 3, 3])
    Y = np.array([[0.0], [0.0], [1.0], [1.0], [0.0], [0.0], [-1.0], [-1.0]])
    assert ct.one_vs_rest_split(codes, Y, np.ones(8), "squared_error").levels_left == (1,)


def test_partition_left_side_holds_the_lowest_mean_response():
    codes = np.array([0, 1, 2, 3, 0, 1, 2, 3])
    Y = np.array([[5.0], [1.0], [6.0], [2.0]] * 2)
    split = ct.partition_split(codes, Y, np.ones(8), "squared_error")
    assert split.levels_left == (1, 3)


def test_partition_sort_ties_go_to_the_lowest_code():
    # Levels 0 and 2 have the same mean: the order is 0, 2, then 1.
    codes = np.array([0, 1, 2, 0, 1, 2])
    Y = ct.one_hot(np.array([0, 1, 0, 1, 1, 1]), 2)
    stats, counts = ct.level_statistics(codes, Y, np.ones(6), "gini")
    assert ct.level_order(stats, counts, "gini").tolist() == [0, 2, 1]


def test_principal_component_order_is_exact_with_two_classes_present():
    # Three class columns but only classes 0 and 2 occur: the PCA order sorts by proportion.
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 6, size=80)
    labels = np.where(rng.uniform(size=80) < np.linspace(0.1, 0.9, 6)[codes], 2, 0)
    Y = ct.one_hot(labels, 3)
    w = rng.uniform(0.5, 2.0, size=80)
    best = ct.brute_force_categorical_split(codes, Y, w, "gini")
    assert_scores_equal(ct.partition_split(codes, Y, w, "gini").score, best.score)


def test_level_statistics_add_up_to_the_node():
    codes, Y, w = categorical_problem(7, "squared_error")
    stats, counts = ct.level_statistics(codes, Y, w, "squared_error")
    assert counts.sum() == len(codes)
    assert stats[:, 0].sum() == pytest.approx(w.sum())
    assert stats[:, 1].sum() == pytest.approx(0.0, abs=1e-12)  # centred at the node mean


def test_categories_left_row_sends_unseen_codes_to_the_heavier_child():
    present = np.array([True, True, False, True])
    heavy_right = ct.categories_left_row((0,), present, 1.0, 2.0, 6)
    heavy_left = ct.categories_left_row((0,), present, 2.0, 1.0, 6)
    equal = ct.categories_left_row((0,), present, 2.0, 2.0, 6)
    assert heavy_right.tolist() == [True, False, False, False, False, False]
    assert heavy_left.tolist() == [True, False, True, False, True, True]
    assert equal.tolist() == heavy_right.tolist()


# --- growing trees --------------------------------------------------------------------------


def mixed_matrix(seed: int, n: int = 200, k: int = 6):
    """Float matrix: a numerical column, then two categorical code columns."""
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, k, size=n), rng.integers(0, 3, size=n)
    x = rng.normal(size=n)
    y = rng.normal(size=k)[a] + (b == 1) + 0.5 * x + 0.3 * rng.normal(size=n)
    X = np.column_stack([x, a, b]).astype(float)
    return X, y, np.array([False, True, True]), np.array([0, k, 3])


def test_numerical_only_trees_are_unchanged_by_the_categorical_arguments():
    X, y, _, _ = mixed_matrix(0)
    w = np.ones(len(y))
    plain = ct.grow_tree(X, y[:, None], w, criterion="squared_error", max_depth=4)
    flagged = ct.grow_tree(
        X, y[:, None], w, criterion="squared_error", max_depth=4,
        is_categorical=np.zeros(3, bool), n_categories=np.zeros(3, int),
    )  # fmt: skip
    for name in ["children_left", "feature", "threshold", "value", "categories_left"]:
        np.testing.assert_array_equal(getattr(plain, name), getattr(flagged, name))
    assert not plain.is_categorical_split.any()


@pytest.mark.parametrize("method", list(CATEGORICAL_SEARCHES))
def test_grown_tree_stores_sets_and_routes_by_membership(method):
    X, y, mask, n_cat = mixed_matrix(1)
    tree = ct.grow_tree(
        X, y[:, None], np.ones(len(y)), criterion="squared_error", max_depth=5,
        is_categorical=mask, n_categories=n_cat, categorical_split=method,
    )  # fmt: skip
    cat_nodes = np.flatnonzero(tree.is_categorical_split)
    assert cat_nodes.size and np.all(mask[tree.feature[cat_nodes]])
    assert tree.categories_left.shape == (tree.node_count, n_cat.max() + 1)
    assert not tree.categories_left[~tree.is_categorical_split].any()
    # Each training row reaches the leaf whose rows it was counted in.
    leaves = tree.apply(X)
    counts = np.bincount(leaves, minlength=tree.node_count)
    is_leaf = tree.children_left == ct.TREE_LEAF
    np.testing.assert_array_equal(counts[is_leaf], tree.n_node_samples[is_leaf])
    np.testing.assert_array_equal(leaves, tree.apply_rowwise(X))


def test_unseen_codes_go_to_the_heavier_child():
    # Root splits level 2 (weight 5) from levels 0, 1 (weight 2): unseen codes go right.
    X = np.array([[0.0], [1.0], [2.0], [2.0], [2.0], [2.0], [2.0]])
    y = np.array([[0.0], [0.0], [9.0], [9.0], [9.0], [9.0], [9.0]])
    tree = ct.grow_tree(
        X, y, np.ones(7), criterion="squared_error", max_depth=1,
        is_categorical=np.array([True]), n_categories=np.array([5]),
    )  # fmt: skip
    heavy = tree.value[tree.children_right[0], 0, 0]
    assert tree.weighted_n_node_samples[tree.children_right[0]] == 5
    unseen = np.array([[-1.0], [3.0], [4.0], [17.0]])
    np.testing.assert_array_equal(tree.predict(unseen)[:, 0], heavy)
    np.testing.assert_array_equal(tree.apply(unseen), tree.apply_rowwise(unseen))
    # Equal weights: right.
    w = np.array([2.5, 2.5, 1.0, 1.0, 1.0, 1.0, 1.0])
    tree = ct.grow_tree(
        X, y, w, criterion="squared_error", max_depth=1,
        is_categorical=np.array([True]), n_categories=np.array([5]),
    )  # fmt: skip
    assert tree.apply(np.array([[-1.0]]))[0] == tree.children_right[0]


def test_min_samples_leaf_holds_in_categorical_trees():
    X, y, mask, n_cat = mixed_matrix(2, n=150, k=12)
    for msl in [3, 10, 25]:
        tree = ct.grow_tree(
            X[:, 1:], y[:, None], np.ones(len(y)), criterion="squared_error",
            min_samples_leaf=msl, is_categorical=mask[1:], n_categories=n_cat[1:],
        )  # fmt: skip
        leaves = tree.children_left == ct.TREE_LEAF
        assert tree.n_node_samples[leaves].min() >= msl


def test_min_impurity_decrease_holds_for_categorical_splits():
    X, y, mask, n_cat = mixed_matrix(3)
    w = np.ones(len(y))
    kwargs = dict(criterion="squared_error", is_categorical=mask, n_categories=n_cat)
    tree = ct.grow_tree(X, y[:, None], w, min_impurity_decrease=0.05, **kwargs)
    internal = np.flatnonzero(tree.children_left != ct.TREE_LEAF)
    left, right = tree.children_left[internal], tree.children_right[internal]
    wn, imp = tree.weighted_n_node_samples, tree.impurity
    decrease = wn[internal] * imp[internal] - wn[left] * imp[left] - wn[right] * imp[right]
    assert np.all(decrease / w.sum() >= 0.05 - 1e-12)
    assert tree.is_categorical_split.any()


def leaf_groups(tree: ct.Tree, X: np.ndarray) -> set[frozenset[int]]:
    leaves = tree.apply(X)
    return {frozenset(np.flatnonzero(leaves == leaf).tolist()) for leaf in np.unique(leaves)}


@pytest.mark.parametrize("max_depth", [1, 2, 3, 5, None])
@pytest.mark.parametrize("seed", range(5))
def test_one_vs_rest_grows_the_one_hot_tree(seed, max_depth):
    rng = np.random.default_rng(seed)
    n, ks = 120, [5, 4]
    codes = np.column_stack([rng.integers(0, k, size=n) for k in ks])
    y = rng.normal(size=(n, 1))  # continuous: no tied scores
    w = rng.uniform(0.5, 2.0, size=n)
    one_hot = np.hstack([ct.one_hot(codes[:, j], k) for j, k in enumerate(ks)])
    native = ct.grow_tree(
        codes.astype(float), y, w, criterion="squared_error", max_depth=max_depth,
        is_categorical=np.array([True, True]), n_categories=np.array(ks),
        categorical_split="one_vs_rest",
    )  # fmt: skip
    encoded = ct.grow_tree(one_hot, y, w, criterion="squared_error", max_depth=max_depth)
    assert leaf_groups(native, codes.astype(float)) == leaf_groups(encoded, one_hot)

    def loss(tree, X):
        return np.sum(w * (y[:, 0] - tree.predict(X)[:, 0]) ** 2)

    assert loss(native, codes.astype(float)) == pytest.approx(loss(encoded, one_hot), rel=1e-12)
    assert native.node_count == encoded.node_count


# --- the estimators -------------------------------------------------------------------------

ESTIMATORS = [ct.DecisionTreeClassifier, ct.DecisionTreeRegressor]


def target(Estimator, mixed_frame):
    return mixed_frame[1] if Estimator is ct.DecisionTreeClassifier else mixed_frame[2]


def test_auto_detects_category_str_object_and_bool_columns(mixed_frame):
    X, y, _ = mixed_frame
    model = ct.DecisionTreeClassifier(max_depth=3).fit(X, y)
    assert model.is_categorical_.tolist() == [False, False, True, True, True, True]
    assert model.categories_[0] is None and model.categories_[1] is None
    assert model.categories_[3].tolist() == ["L", "M", "S"]  # sorted levels
    assert model.categories_[5].tolist() == [False, True]
    assert model.tree_.is_categorical_split.any()


def test_category_dtype_keeps_its_category_order():
    X = pd.DataFrame({"c": pd.Categorical(["lo", "hi", "mid", "lo"], ["lo", "mid", "hi", "x"])})
    model = ct.DecisionTreeRegressor().fit(X, [0.0, 2.0, 1.0, 0.0])
    assert model.categories_[0].tolist() == ["lo", "mid", "hi"]  # unobserved "x" dropped


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize("split", ["auto", "one_vs_rest", "partition"])
def test_mixed_frame_fits_and_predicts_unseen_levels(Estimator, split, mixed_frame):
    X, y = mixed_frame[0], target(Estimator, mixed_frame)
    model = Estimator(max_depth=4, categorical_split=split).fit(X, y)
    new = X.head(4).copy()
    new["colour"] = pd.Categorical(["purple", "red", "gold", "blue"])
    new["size"] = pd.Series(["XL", "S", "XXL", "M"], dtype="str")
    new["shape"] = pd.Series(["hexagon", "star", 3, ("a", 1)], dtype=object)
    prediction = model.predict(new)
    assert prediction.shape == (4,)
    if Estimator is ct.DecisionTreeClassifier:
        assert set(prediction) <= set(model.classes_)
        np.testing.assert_allclose(model.predict_proba(new).sum(axis=1), 1.0)
    np.testing.assert_array_equal(model.apply(new), model.tree_.apply_rowwise(
        ct.encode_categorical(new, categories=model.categories_)[0].to_numpy()
    ))  # fmt: skip


def test_unseen_level_at_predict_goes_to_the_heavier_child():
    X = pd.DataFrame({"c": ["a"] * 2 + ["b"] * 5 + ["c"] * 1})
    y = [0.0, 0.0, 9.0, 9.0, 9.0, 9.0, 9.0, 0.0]
    model = ct.DecisionTreeRegressor(max_depth=1).fit(X, y)
    tree = model.tree_
    heavier = tree.children_right[0]
    if tree.weighted_n_node_samples[tree.children_left[0]] > tree.weighted_n_node_samples[heavier]:
        heavier = tree.children_left[0]
    assert model.apply(pd.DataFrame({"c": ["zzz"]}))[0] == heavier
    assert model.predict(pd.DataFrame({"c": ["zzz"]}))[0] == tree.value[heavier, 0, 0] == 9.0


@pytest.mark.parametrize(
    "spec",
    [["colour", "size", "shape", "flag"], [2, 3, 4, 5], [False, False, True, True, True, True]],
)
def test_explicit_categorical_features_match_auto(spec, mixed_frame):
    X, y, _ = mixed_frame
    auto = ct.DecisionTreeClassifier(max_depth=4).fit(X, y)
    explicit = ct.DecisionTreeClassifier(max_depth=4, categorical_features=spec).fit(X, y)
    np.testing.assert_array_equal(auto.predict(X), explicit.predict(X))
    np.testing.assert_array_equal(auto.tree_.categories_left, explicit.tree_.categories_left)


def test_integer_column_declared_categorical(mixed_frame):
    X, _, y = mixed_frame
    model = ct.DecisionTreeRegressor(max_depth=3, categorical_features=["count"]).fit(
        X[["count"]], y
    )
    assert model.categories_[0].tolist() == list(range(10))
    assert model.tree_.is_categorical_split[0]


def test_numpy_object_array_with_text_column():
    rng = np.random.default_rng(0)
    words = rng.choice(["ab", "cd", "ef"], size=60)
    X = np.empty((60, 2), dtype=object)
    X[:, 0], X[:, 1] = rng.normal(size=60), words
    y = (words == "cd").astype(int)
    for spec in ["auto", [1], [False, True]]:
        model = ct.DecisionTreeClassifier(categorical_features=spec).fit(X, y)
        assert model.is_categorical_.tolist() == [False, True]
        assert model.score(X, y) == 1.0
        assert model.get_depth() == 1


def test_hashable_levels_of_mixed_types():
    X = pd.DataFrame({"c": pd.Series([1, "a", (2, 3), 1, "a", (2, 3)], dtype=object)})
    model = ct.DecisionTreeRegressor().fit(X, [0.0, 5.0, 9.0, 0.0, 5.0, 9.0])
    np.testing.assert_array_equal(model.predict(X), [0.0, 5.0, 9.0, 0.0, 5.0, 9.0])


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize("missing", [np.nan, None])
def test_missing_values_in_categorical_column_are_a_level(Estimator, missing, mixed_frame):
    # Chapter 9: a missing level is one more level (tests/test_missing.py has more).
    X, y = mixed_frame[0].copy(), target(Estimator, mixed_frame)
    X["shape"] = X["shape"].astype(object)
    X.loc[3, "shape"] = missing
    model = Estimator().fit(X, y)
    assert np.isnan(model.categories_[X.columns.get_loc("shape")][-1])
    # A model fitted without missing levels sends them where unseen levels go.
    model = Estimator(max_depth=2).fit(mixed_frame[0], y)
    unseen = X.copy()
    unseen.loc[3, "shape"] = "never seen"
    np.testing.assert_array_equal(model.apply(X), model.apply(unseen))


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"categorical_split": "exhaustive"}, "categorical_split='exhaustive'"),
        ({"categorical_features": ["nope"]}, "'nope', which is not a column"),
        ({"categorical_features": [17]}, "index 17"),
        ({"categorical_features": [True, False]}, "boolean mask of length 2"),
    ],
)
def test_bad_categorical_parameters_raise(params, match, mixed_frame):
    X, y, _ = mixed_frame
    with pytest.raises(ValueError, match=match):
        ct.DecisionTreeClassifier(**params).fit(X, y)


def test_text_declared_numerical_raises(mixed_frame):
    X, y, _ = mixed_frame
    with pytest.raises(ValueError, match="'shape'.*categorical_features"):
        ct.DecisionTreeClassifier(categorical_features=["colour", "size", "flag"]).fit(X, y)


def test_partition_fits_training_data_at_least_as_well_as_one_vs_rest(mixed_frame):
    X, _, y = mixed_frame
    losses = {}
    for split in ["one_vs_rest", "partition"]:
        model = ct.DecisionTreeRegressor(max_depth=1, categorical_split=split)
        model.fit(X[["colour", "shape"]], y)
        losses[split] = np.mean((model.predict(X[["colour", "shape"]]) - y) ** 2)
    assert losses["partition"] <= losses["one_vs_rest"]


def leaf_loss(model, X, y) -> float:
    """Training loss: weighted impurity summed over the leaves."""
    tree = model.tree_
    leaves = tree.children_left == ct.TREE_LEAF
    return float(np.sum(tree.weighted_n_node_samples[leaves] * tree.impurity[leaves]))


def test_penguins_one_vs_rest_equals_one_hot_at_full_depth(penguins):
    X = penguins[["island", "sex", "bill_length_mm", "flipper_length_mm"]]
    y = penguins["species"]
    native = ct.DecisionTreeClassifier(categorical_split="one_vs_rest").fit(X, y)
    one_hot = pd.get_dummies(X, dtype=float)
    encoded = ct.DecisionTreeClassifier().fit(one_hot, y)
    assert encoded.is_categorical_.sum() == 0
    assert leaf_loss(native, X, y) == pytest.approx(leaf_loss(encoded, one_hot, y), abs=1e-9)


def test_export_text_and_plot_tree_show_level_sets(penguins):
    X, y = penguins[["island", "sex"]], penguins["species"]
    model = ct.DecisionTreeClassifier(max_depth=2).fit(X, y)
    text = ct.export_text(model)
    assert "island in {" in text and "<unseen>}" in text
    left = {
        c
        for c in model.categories_[0]
        if model.tree_.categories_left[0, list(model.categories_[0]).index(c)]
    }
    assert text.splitlines()[0] == "|--- island in {" + ", ".join(sorted(left)) + (
        ", <unseen>}" if model.tree_.categories_left[0, -1] else "}"
    )
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    labels = [t.get_text() for t in ct.plot_tree(model, ax=ax)]
    plt.close(fig)
    assert any(label.startswith("island in {") for label in labels)


def test_plot_tree_shortens_long_level_sets():
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 40, size=400)
    X = pd.DataFrame({"c": pd.Series([f"L{c:02d}" for c in codes], dtype="str")})
    y = rng.normal(size=40)[codes]
    model = ct.DecisionTreeRegressor(max_depth=1).fit(X, y)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    root = ct.plot_tree(model, ax=ax)[0].get_text()
    plt.close(fig)
    assert "more" in root and root.count(",") <= 8
    assert "more" not in ct.export_text(model)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_pickle_round_trip_keeps_categorical_splits(Estimator, mixed_frame):
    X, y = mixed_frame[0], target(Estimator, mixed_frame)
    model = Estimator(max_depth=5).fit(X, y)
    clone = pickle.loads(pickle.dumps(model))
    new = X.copy()
    new["colour"] = pd.Categorical(["purple"] * len(X))
    for data in (X, new):
        np.testing.assert_array_equal(model.predict(data), clone.predict(data))
    np.testing.assert_array_equal(model.tree_.categories_left, clone.tree_.categories_left)


def test_numerical_frame_is_untouched(mixed_frame):
    X, _, y = mixed_frame
    numbers = X[["x", "count"]]
    frame = ct.DecisionTreeRegressor(max_depth=4).fit(numbers, y)
    array = ct.DecisionTreeRegressor(max_depth=4).fit(numbers.to_numpy(dtype=float), y)
    np.testing.assert_array_equal(frame.tree_.threshold, array.tree_.threshold)
    assert not frame.is_categorical_.any() and frame.tree_.categories_left.shape[1] == 1


def test_export_text_leaves_out_levels_sent_away_by_an_ancestor(penguins):
    X, y = penguins[["island"]], penguins["species"]
    model = ct.DecisionTreeClassifier(categorical_split="one_vs_rest").fit(X, y)
    lines = ct.export_text(model).splitlines()
    root_left = lines[0].removeprefix("|--- island in {").rstrip("}").split(", ")
    nested = [line for line in lines[1:] if "island in" in line and line.startswith("|   ")]
    assert nested  # the one-vs-rest tree splits island twice
    for line in nested:
        levels = set(line.split("{")[1].rstrip("}").split(", "))
        assert levels.isdisjoint(set(root_left) - {"<unseen>"}) or levels <= set(root_left)


def test_encode_without_categorical_columns_returns_x_itself(monkeypatch):
    """Nothing categorical at fit: an array or frame of the fitted width is returned
    as it is, without being read column by column; another shape gets the result of
    the general path (a mask of None tells it apart)."""
    import climbing_trees._categorical_encoding as categorical

    categories = [None] * 3
    X = np.ones((4, 3))
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    read = categorical._columns
    monkeypatch.setattr(categorical, "_columns", lambda X: pytest.fail("read by column"))
    for given in (X, frame):
        out, mask, levels = ct.encode_categorical(given, categories=categories)
        assert out is given and mask.tolist() == [False] * 3 and levels is categories
    monkeypatch.setattr(categorical, "_columns", read)
    assert (
        ct.encode_categorical([[1.0, 2.0, 3.0]], categories=categories)[1].tolist() == [False] * 3
    )
    for given, expected in [(X[:, :2], (None, categories)), (np.ones(3), (None, None))]:
        out, *rest = ct.encode_categorical(given, categories=categories)
        assert out is given and rest == list(expected)
    assert ct.encode_categorical(frame[["a", "b"]], categories=categories)[1] is None


# --- what "auto" will not guess, and predicting with the wrong kind of values ---------------


def stray_text_ages(kind: str):
    """Ages with one "?" among them: as Python objects, or as text (read from a CSV file)."""
    ages = [23 + (7 * i) % 40 for i in range(40)]
    values = [str(a) for a in ages] if kind == "text" else list(ages)
    values[5] = "?"
    return pd.DataFrame({"age": pd.Series(values, dtype=object), "x": np.arange(40.0)})


@pytest.mark.parametrize("kind", ["objects", "text"])
def test_auto_refuses_numbers_with_stray_text(kind):
    X = stray_text_ages(kind)
    y = np.arange(40.0)
    model = ct.DecisionTreeRegressor().fit(X.assign(age=np.arange(40.0)), y)
    before = copy.deepcopy(model)
    with pytest.raises(ValueError, match="Column 'age' of X holds numbers") as info:
        model.fit(X, y)
    message = str(info.value)
    assert "'?'" in message and "pandas.to_numeric" in message
    assert "categorical_features" in message
    assert_same_fitted_state(model, before)  # a failed fit keeps the previous model
    # Declared, the column is categorical; declared numerical, it is not a number.
    declared = ct.DecisionTreeRegressor(categorical_features=["age"]).fit(X, y)
    assert declared.is_categorical_.tolist() == [True, False]
    with pytest.raises(ValueError, match="could not convert string to float: '\\?'"):
        ct.DecisionTreeRegressor(categorical_features=None).fit(X, y)
    # The same column in an array of objects.
    with pytest.raises(ValueError, match="Column 0 of X holds numbers"):
        ct.DecisionTreeRegressor().fit(X.to_numpy(dtype=object), y)


def test_numbers_stored_as_objects_in_a_frame_stay_numerical():
    """As in an array of objects: a column of numbers (and missing values) is numerical."""
    ages = pd.Series([23, 45, None, 31, 60, 38], dtype=object)
    X, y = pd.DataFrame({"age": ages}), np.array([0.0, 1.0, 0.0, 0.0, 1.0, 1.0])
    model = ct.DecisionTreeRegressor().fit(X, y)
    assert model.is_categorical_.tolist() == [False]
    as_floats = ct.DecisionTreeRegressor().fit(X.astype(float), y)
    new = pd.DataFrame({"age": [30.0, 50.0, 70.0]})
    np.testing.assert_array_equal(model.predict(new), as_floats.predict(new))


def test_auto_refuses_only_mostly_numbers():
    """Numbers with some text are refused; text alone, or text with a few numbers, is not."""
    y = [0.0, 1.0, 2.0, 0.0, 3.0]
    for values in (["10", "20", "30", "10", "40"], ["blue", "green", "1.5", "", "blue"]):
        X = pd.DataFrame({"c": pd.Series(values, dtype=object)})
        assert ct.DecisionTreeRegressor().fit(X, y).is_categorical_.all()
    X = pd.DataFrame({"c": pd.Series([1, 2.5, "n/a", 1, 7], dtype=object)})
    with pytest.raises(ValueError, match="holds numbers .1, 2.5, 7. and some other values"):
        ct.DecisionTreeRegressor().fit(X, y)
    assert ct.DecisionTreeRegressor(categorical_features=[0]).fit(X, y).is_categorical_.all()


def test_predicting_with_codes_of_text_levels_warns(penguins):
    X, y = penguins.drop(columns="species"), penguins["species"]
    model = ct.DecisionTreeClassifier(max_depth=3).fit(X, y)
    codes = X.copy()
    codes["island"] = X["island"].map({"Biscoe": 0, "Dream": 1, "Torgersen": 2})
    with pytest.warns(UserWarning, match="Column 'island' holds numbers") as record:
        model.predict(codes)
    assert "Biscoe" in str(record[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.predict(X)  # the levels themselves: no warning
        model.predict(X.head(1).assign(island="Atlantis"))  # one unseen level among many rows
        model.predict(X.assign(island=np.where(np.arange(len(X)) == 0, "Atlantis", X["island"])))
    lower = X.assign(island=X["island"].str.lower())
    with pytest.warns(UserWarning, match="No value of column 'island' matches"):
        model.predict(lower)


def test_predicting_numeric_levels_that_match_none_warns():
    """The fast path of numeric levels warns as the general one does."""
    X = np.column_stack([np.tile([1.0, 2.0, 3.0], 10), np.arange(30.0)])
    y = np.tile([0.0, 5.0, 9.0], 10)
    model = ct.DecisionTreeRegressor(categorical_features=[0]).fit(X, y)
    with pytest.warns(UserWarning, match="No value of column 0 matches"):
        model.predict(np.column_stack([np.full(4, 7.0), np.arange(4.0)]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.predict(np.column_stack([[7.0, 1.0, np.nan], np.arange(3.0)]))


def test_categorical_features_docstring_says_missing_values_are_a_level():
    for Estimator in ESTIMATORS + [ct.RandomForestClassifier]:
        doc = " ".join((Estimator.__doc__ or "").split())
        assert "missing values raise" not in doc
    doc = " ".join(ct.DecisionTreeClassifier.__doc__.split())
    assert "Missing values (NaN, None, pd.NA) are a level of their own" in doc
