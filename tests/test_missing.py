"""Missing values in numerical features: scikit-learn's learned direction (chapter 9)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from conftest import as_float32_exact, assert_equivalent, random_problem
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn import tree as sk
from sklearn.base import clone

import climbing_trees as ct

CRITERIA = ["gini", "entropy", "squared_error", "poisson"]
SEARCHES = [ct.incremental_best_split, ct.prefix_sum_best_split]


def with_holes(X, seed, rate):
    """``X`` with a fraction ``rate`` of its values set to NaN at random."""
    X = X.copy()
    X[np.random.default_rng(seed).random(X.shape) < rate] = np.nan
    return X


@pytest.mark.parametrize("criterion", CRITERIA)
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("min_samples_leaf", [1, 3])
def test_fast_searches_match_naive_with_missing_values(criterion, weighted, min_samples_leaf):
    found = learned = 0
    for seed in range(60):
        X, Y, w = random_problem(seed, criterion, weighted=weighted)
        X = with_holes(X, seed, 0.1 + 0.4 * (seed % 3) / 2)
        expected = ct.naive_best_split(X, Y, w, criterion, min_samples_leaf)
        for search in SEARCHES:
            got = search(X, Y, w, criterion, min_samples_leaf)
            if expected is None:
                assert got is None
                continue
            assert got[:2] == expected[:2], search.__name__
            assert got.missing_go_to_left == expected.missing_go_to_left
            assert got.score == pytest.approx(expected.score, rel=1e-9, abs=1e-12)
        if expected is not None:
            found += 1
            learned += bool(np.isnan(X[:, expected.feature]).any())
    assert found > 30 and learned > 10


@pytest.mark.parametrize(
    "search", [ct.running_median_best_split, ct.wavelet_best_split], ids=lambda f: f.__name__
)
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_absolute_error_searches_match_naive_with_missing_values(search, weighted):
    found = 0
    for seed in range(40):
        X, Y, w = random_problem(seed, "squared_error", weighted=weighted)
        X = with_holes(X, seed, 0.3)
        msl = 1 + seed % 3
        expected = ct.naive_best_split(X, Y, w, "absolute_error", msl)
        got = search(X, Y, w, "absolute_error", msl)
        if expected is None:
            assert got is None
            continue
        found += 1
        assert got[:2] == expected[:2] and got[3] == expected[3]
        assert got.score == pytest.approx(expected.score, rel=1e-9, abs=1e-12)
    assert found > 20


def test_candidates_and_their_order():
    # Missing right (thresholds up), then present | missing (inf), then missing left.
    c = ct.column_candidates(np.array([2.0, np.nan, 1.0, 3.0, np.nan]))
    assert c.threshold.tolist() == [1.5, 2.5, np.inf, 1.5, 2.5]
    assert c.missing_left.tolist() == [False, False, False, True, True]
    assert c.missing.tolist() == [1, 4] and c.order.tolist() == [2, 0, 3]
    # No missing value: the stored direction is the child with more rows (right on ties).
    c = ct.column_candidates(np.array([1.0, 2.0, 3.0, 4.0, 5.0]))
    assert c.go_left.tolist() == [False, False, True, True]
    # Constant present values still offer "present against missing".
    c = ct.column_candidates(np.array([1.0, 1.0, np.nan]))
    assert c.threshold.tolist() == [np.inf]
    # A column without any value offers nothing.
    assert ct.column_candidates(np.array([np.nan, np.nan])).position.size == 0
    # min_samples_leaf counts the missing rows on their side.
    c = ct.column_candidates(np.array([1.0, 2.0, 3.0, np.nan]), min_samples_leaf=2)
    assert list(zip(c.threshold.tolist(), c.missing_left.tolist(), strict=True)) == [
        (2.5, False),
        (1.5, True),
    ]


def test_tie_between_directions_goes_to_missing_right():
    # At 2.5 the present halves {0, 0} and {10, 10} weigh the same and the missing
    # row's 5 lies midway between their means: either side gains the same impurity.
    X = np.array([[1.0], [2.0], [np.nan], [3.0], [4.0]])
    Y = np.array([[0.0], [0.0], [5.0], [10.0], [10.0]])
    w = np.ones(5)
    x = X[:, 0]

    def score(missing_left):
        left = np.where(np.isnan(x), missing_left, x <= 2.5)
        return sum(
            side.sum() * ct.node_impurity(Y[side], w[side], "squared_error")
            for side in (left, ~left)
        )

    assert score(False) == score(True)  # a real tie, to the last bit
    # The first candidate of equal scores (missing right) wins everywhere.
    split = ct.naive_best_split(X, Y, w, "squared_error")
    assert (split.threshold, split.missing_go_to_left) == (2.5, False)
    assert split.score == pytest.approx(score(False) / 5, rel=1e-12)
    for search in SEARCHES:
        assert search(X, Y, w, "squared_error") == split
    for builder in [ct.grow_tree, ct.grow_tree_levelwise]:
        tree = builder(X, Y, w, criterion="squared_error", max_depth=1)
        assert (tree.threshold[0], bool(tree.missing_go_to_left[0])) == (2.5, False)
    theirs = sk.DecisionTreeRegressor(max_depth=1).fit(X, Y[:, 0]).tree_
    assert (theirs.threshold[0], bool(theirs.missing_go_to_left[0])) == (2.5, False)


def test_missing_against_present_split():
    # The target is told by whether x is missing: the inf threshold wins.
    X = np.array([[1.0], [2.0], [3.0], [np.nan], [np.nan]])
    Y = np.array([[0.0], [0.0], [0.0], [9.0], [9.0]])
    for search in [ct.naive_best_split, *SEARCHES]:
        split = search(X, Y, np.ones(5), "squared_error")
        assert split.threshold == np.inf and not split.missing_go_to_left
        assert split.score == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("criterion", CRITERIA)
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_builders_equal_with_missing_values(criterion, weighted):
    for seed in range(25):
        X, Y, w = random_problem(seed, criterion, weighted=weighted, n_levels=6)
        X = with_holes(X, seed, [0.05, 0.2, 0.5][seed % 3])
        params = [{}, {"min_samples_leaf": 2}, {"max_depth": 3, "min_samples_split": 5}]
        p = params[seed % 3]
        slow = ct.grow_tree(X, Y, w, criterion=criterion, **p)
        fast = ct.grow_tree_levelwise(X, Y, w, criterion=criterion, **p)
        assert_equivalent(fast, slow)
        # The flat, level-wise and row-by-row traversals agree, NaN included.
        Xt = np.random.default_rng(seed).integers(0, 6, (50, X.shape[1])).astype(float)
        Xt = with_holes(Xt, seed, 0.3)
        leaves = slow.apply(Xt)
        np.testing.assert_array_equal(slow.apply_flat(Xt), leaves)
        np.testing.assert_array_equal(slow.apply_rowwise(Xt), leaves)


def test_builders_equal_on_a_larger_problem_with_mixed_columns():
    rng = np.random.default_rng(3)
    n = 3000
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 4, n), rng.normal(size=n)])
    Y = ct.one_hot((X[:, 0] + X[:, 1] > 1).astype(int), 2)
    X = with_holes(X, 4, 0.25)
    X[:, 1] = np.where(np.isnan(X[:, 1]), 4, X[:, 1])  # categorical codes: no NaN
    is_cat = np.array([False, True, False])
    for criterion in ["gini", "entropy"]:
        slow = ct.grow_tree(X, Y, np.ones(n), criterion=criterion, is_categorical=is_cat)
        fast = ct.grow_tree_levelwise(X, Y, np.ones(n), criterion=criterion, is_categorical=is_cat)
        assert_equivalent(fast, slow)
        assert slow.missing_go_to_left[~np.isnan(slow.threshold)].any()
        assert not slow.missing_go_to_left[np.isnan(slow.threshold)].any()


# --- scikit-learn is the oracle on tie-free data ------------------------------------------


def problem(seed, criterion, rate, depends_on_target, n=400, d=5):
    """Continuous features (float32-exact), a target, and NaN at ``rate``.

    Missing completely at random, or more often where the target is large.
    """
    rng = np.random.default_rng(seed)
    X = as_float32_exact(rng.normal(size=(n, d)))
    signal = X[:, 0] + X[:, 1] * X[:, 2]
    if criterion in ("gini", "entropy", "log_loss"):
        y = (signal + 0.5 * rng.normal(size=n) > 0).astype(int) + (X[:, 3] > 1)
    elif criterion == "poisson":
        # Counts from 1: scikit-learn 1.9 can pick a Poisson split whose right child
        # has no positive target when missing rows go left, then refuses the node.
        y = 1 + rng.poisson(np.exp(0.5 * signal))
    else:
        y = signal + 0.3 * rng.normal(size=n)
    if depends_on_target:
        p = rate * (0.5 + (y > np.median(y)))[:, None]
    else:
        p = rate
    X[rng.random((n, d)) < p] = np.nan
    return X, y


def sklearn_tie_free(estimator_cls, X, y, sample_weight, **params):
    """scikit-learn's tree, or None when its features depend on random_state (ties)."""
    fits = [
        estimator_cls(random_state=seed, **params).fit(X, y, sample_weight=sample_weight)
        for seed in range(8)
    ]
    first = fits[0].tree_
    for other in fits[1:]:
        if not (
            np.array_equal(first.feature, other.tree_.feature)
            and np.array_equal(first.threshold, other.tree_.threshold)
        ):
            return None
    return fits[0]


# Leaves of a few rows invite exact ties (two features cutting off the same extreme
# rows), which scikit-learn breaks at random: every setting keeps leaves of 5+ rows.
STOPPING = [
    {"max_depth": 3, "min_samples_leaf": 5},
    {"max_depth": 5, "min_samples_leaf": 8},
    {"max_depth": 6, "min_samples_split": 30, "min_samples_leaf": 5},
    {"max_depth": 6, "min_impurity_decrease": 0.003, "min_samples_leaf": 6},
]


@pytest.mark.parametrize(
    "criterion", ["gini", "entropy", "log_loss", "squared_error", "poisson", "absolute_error"]
)
@pytest.mark.parametrize("depends_on_target", [False, True], ids=["mcar", "on-target"])
def test_same_trees_as_sklearn_with_missing_values(criterion, depends_on_target):
    classifier = criterion in ("gini", "entropy", "log_loss")
    ours_cls = ct.DecisionTreeClassifier if classifier else ct.DecisionTreeRegressor
    theirs_cls = sk.DecisionTreeClassifier if classifier else sk.DecisionTreeRegressor
    compared = 0
    for k, rate in enumerate([0.05, 0.2, 0.35, 0.5]):
        seed = 100 * k + len(criterion) + 7 * depends_on_target
        X, y = problem(seed, criterion, rate, depends_on_target)
        rng = np.random.default_rng(seed)
        w = rng.uniform(0.5, 2.0, size=len(y)) if k % 2 else None
        params = {"criterion": criterion, **STOPPING[k]}
        theirs = sklearn_tie_free(theirs_cls, X, y, w, **params)
        if theirs is None:
            continue
        ours = ours_cls(**params).fit(X, y, sample_weight=w)
        a, b = ours.tree_, theirs.tree_
        np.testing.assert_array_equal(a.feature, b.feature)
        np.testing.assert_array_equal(a.children_left, b.children_left)
        np.testing.assert_array_equal(a.n_node_samples, b.n_node_samples)
        np.testing.assert_array_equal(a.missing_go_to_left, b.missing_go_to_left.astype(bool))
        np.testing.assert_allclose(a.threshold, b.threshold, rtol=1e-6)
        # Held-out rows with holes, a row missing everything, and a feature missing
        # only at predict time.
        Xt = with_holes(as_float32_exact(rng.normal(size=(300, X.shape[1]))), seed, 0.3)
        Xt[0] = np.nan
        for data in (X, Xt):
            np.testing.assert_allclose(ours.predict(data), theirs.predict(data), rtol=1e-9)
            np.testing.assert_array_equal(ours.apply(data), theirs.apply(data))
            if classifier:
                np.testing.assert_allclose(
                    ours.predict_proba(data), theirs.predict_proba(data), atol=1e-12
                )
        compared += 1
    assert compared >= 2


def test_feature_missing_only_at_predict_time_follows_the_bigger_child():
    rng = np.random.default_rng(0)
    X = as_float32_exact(rng.normal(size=(200, 3)))
    y = X[:, 0] + 0.1 * X[:, 1]
    ours = ct.DecisionTreeRegressor(max_depth=4).fit(X, y)
    theirs = sk.DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, y)
    t = ours.tree_
    inner = t.children_left >= 0
    n = t.n_node_samples
    bigger = n[t.children_left[inner]] > n[t.children_right[inner]]
    np.testing.assert_array_equal(t.missing_go_to_left[inner], bigger)
    Xt = X.copy()
    Xt[::3, 0] = np.nan
    Xt[1] = np.nan
    np.testing.assert_allclose(ours.predict(Xt), theirs.predict(Xt))


# --- the estimators ------------------------------------------------------------------------


def test_validation_still_refuses_infinity_and_nan_in_y_and_weights():
    X = np.array([[1.0], [np.nan], [3.0], [4.0]])
    y = np.array([0.0, 1.0, 1.0, 0.0])
    ct.DecisionTreeRegressor().fit(X, y)  # NaN in X is fine
    with pytest.raises(ValueError, match="infinity"):
        ct.DecisionTreeRegressor().fit(np.array([[1.0], [np.inf], [3.0], [4.0]]), y)
    with pytest.raises(ValueError, match="NaN"):
        ct.DecisionTreeRegressor().fit(X, np.array([0.0, np.nan, 1.0, 0.0]))
    with pytest.raises(ValueError, match="NaN"):
        ct.DecisionTreeClassifier().fit(X, np.array([0.0, np.nan, 1.0, 0.0]))
    with pytest.raises(ValueError, match="NaN"):
        ct.DecisionTreeRegressor().fit(X, y, sample_weight=[1.0, np.nan, 1.0, 1.0])
    model = ct.DecisionTreeRegressor().fit(X, y)
    with pytest.raises(ValueError, match="infinity"):
        model.predict(np.array([[np.inf]]))
    assert np.isfinite(model.predict(np.array([[np.nan]]))).all()


def test_allow_nan_tag_pickle_clone_importances_and_decision_path():
    X, y = problem(5, "gini", 0.3, False)
    model = ct.DecisionTreeClassifier(max_depth=4).fit(X, y)
    assert model.__sklearn_tags__().input_tags.allow_nan
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    np.testing.assert_array_equal(clone(model).fit(X, y).predict(X), model.predict(X))
    importances = model.feature_importances_
    assert importances.sum() == pytest.approx(1.0)
    path = model.decision_path(X)
    leaves = model.apply(X)
    np.testing.assert_array_equal(path[np.arange(len(X)), leaves].A1, 1)
    np.testing.assert_array_equal(path.sum(axis=1).A1, model.tree_.node_depths()[leaves] + 1)


def test_pruning_keeps_missing_directions():
    X, y = problem(8, "squared_error", 0.3, True)
    full = ct.DecisionTreeRegressor().fit(X, y).tree_
    inside = ct.ccp_subtree(full, 0.02)
    pruned = ct.prune(full, inside)
    stays_inner = inside & (full.children_left >= 0)
    stays_inner[stays_inner] = pruned.children_left[np.cumsum(inside)[stays_inner] - 1] >= 0
    assert stays_inner.sum() >= 3
    kept = np.cumsum(inside)[stays_inner] - 1
    np.testing.assert_array_equal(
        pruned.missing_go_to_left[kept], full.missing_go_to_left[stays_inner]
    )
    assert not pruned.missing_go_to_left[pruned.children_left < 0].any()
    # The estimators prune the same way, and agree with scikit-learn's pruned trees.
    for params in [{"ccp_alpha": 0.02}, {"max_leaf_nodes": 9}]:
        params["min_samples_leaf"] = 5
        ours = ct.DecisionTreeRegressor(**params).fit(X, y)
        theirs = sklearn_tie_free(sk.DecisionTreeRegressor, X, y, None, **params)
        # Node ids differ (scikit-learn numbers best-first trees in growth order):
        # compare what the trees do, on training rows and on new rows with holes.
        assert ours.get_n_leaves() == theirs.get_n_leaves()
        Xt = with_holes(X[::-1], 1, 0.2)
        np.testing.assert_allclose(ours.predict(Xt), theirs.predict(Xt), rtol=1e-9)


def test_export_text_and_plot_tree_with_missing_values():
    X, y = problem(9, "gini", 0.3, False)
    params = {"max_depth": 3, "min_samples_leaf": 5}
    ours = ct.DecisionTreeClassifier(**params).fit(X, y)
    theirs = sklearn_tie_free(sk.DecisionTreeClassifier, X, y, None, **params)
    assert ct.export_text(ours) == sk.export_text(theirs)  # the same characters
    # A "present against missing" split reads as a threshold of inf.
    Xm = X.copy()
    Xm[: len(y) // 3, 4] = np.nan
    target = np.isnan(Xm[:, 4]).astype(int)
    model = ct.DecisionTreeClassifier(max_depth=1).fit(Xm, target)
    assert model.tree_.threshold[0] == np.inf
    assert "feature_4 <= inf" in ct.export_text(model)
    import matplotlib

    matplotlib.use("Agg")
    boxes = ct.plot_tree(model)
    assert len(boxes) == 5  # three nodes and the True/False labels of the root's edges
    assert boxes[0].get_text().startswith("x[4] <= inf\n")


# --- missing values in categorical columns: one more level ---------------------------------


def categorical_frame(seed, n=400):
    import pandas as pd

    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue", "black"], size=n).astype(object)
    size = rng.choice(["S", "M", "L"], size=n).astype(object)
    flag = (rng.random(n) < 0.5).astype(object)
    x = as_float32_exact(rng.normal(size=n))
    w_missing = rng.random(n) < 0.25
    signal = np.isin(colour, ["red", "black"]) + 1.5 * w_missing + (size == "L") + 0.5 * x
    y = signal + 0.3 * rng.normal(size=n)
    colour[w_missing] = None
    size[rng.random(n) < 0.15] = np.nan
    flag[rng.random(n) < 0.1] = pd.NA
    X = pd.DataFrame(
        {
            "colour": pd.Categorical(colour),
            "size": pd.Series(size, dtype=object),
            "flag": pd.Series(flag, dtype=object),
            "x": x,
        }
    )
    return X, y


def test_missing_category_is_one_more_level():
    X, y = categorical_frame(1)
    model = ct.DecisionTreeRegressor(max_depth=4, min_samples_leaf=5).fit(X, y)
    assert [len(c) for c in model.categories_[:3]] == [5, 4, 3]
    assert all(isinstance(c[-1], float) and np.isnan(c[-1]) for c in model.categories_[:3])
    # Filling the holes with a new level that sorts last gives the very same tree.
    filled = X.copy()
    filled["colour"] = filled["colour"].cat.add_categories("zz").fillna("zz")
    filled["size"] = filled["size"].fillna("zz")
    filled["flag"] = filled["flag"].astype(object).where(filled["flag"].notna(), "zz")
    other = ct.DecisionTreeRegressor(max_depth=4, min_samples_leaf=5).fit(filled, y)
    for name in ["feature", "children_left", "categories_left", "threshold"]:
        np.testing.assert_array_equal(getattr(model.tree_, name), getattr(other.tree_, name))
    np.testing.assert_array_equal(model.predict(X), other.predict(filled))
    # The colour split that matters sends the missing level with red and black's side.
    root = model.tree_
    assert root.feature[0] == 0


def test_missing_level_split_matches_brute_force():
    from itertools import combinations

    X, y = categorical_frame(2, n=120)
    model = ct.DecisionTreeRegressor(max_depth=1, categorical_split="partition").fit(
        X[["colour"]], y
    )
    codes = ct.encode_categorical(X[["colour"]])[0]["colour"].to_numpy().astype(int)
    best = np.inf
    for size in range(1, 5):
        for left in combinations(range(5), size):
            go = np.isin(codes, left)
            if go.all() or not go.any():
                continue
            score = go.sum() * np.var(y[go]) + (~go).sum() * np.var(y[~go])
            best = min(best, score)
    t = model.tree_
    got = t.n_node_samples[1] * t.impurity[1] + t.n_node_samples[2] * t.impurity[2]
    assert got == pytest.approx(best, rel=1e-12)


def test_missing_category_unseen_at_fit_goes_to_the_heavier_side():
    import pandas as pd

    X, y = categorical_frame(3)
    X = X.dropna(subset=["size"])
    y = y[X.index]
    model = ct.DecisionTreeRegressor(max_depth=1).fit(X[["size"]].reset_index(drop=True), y)
    t = model.tree_
    heavier_left = t.weighted_n_node_samples[1] > t.weighted_n_node_samples[2]
    leaf = model.apply(pd.DataFrame({"size": pd.Series([None], dtype=object)}))[0]
    assert leaf == (1 if heavier_left else 2)


# --- properties (hypothesis) ---------------------------------------------------------------


PROPERTY_SETTINGS = settings(
    max_examples=50,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@st.composite
def holey_problem(draw):
    """Up to 30 rows of 1-3 features with a few values each, some of them missing."""
    n = draw(st.integers(4, 30))
    d = draw(st.integers(1, 3))
    cells = st.one_of(st.integers(0, 4).map(float), st.just(np.nan))
    X = np.array(draw(st.lists(cells, min_size=n * d, max_size=n * d))).reshape(n, d)
    y = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    criterion = draw(st.sampled_from(["gini", "entropy", "squared_error", "absolute_error"]))
    return X, y, criterion


def _fit(X, y, criterion, **params):
    cls = (
        ct.DecisionTreeClassifier if criterion in ("gini", "entropy") else ct.DecisionTreeRegressor
    )
    return cls(criterion=criterion, **params).fit(X, y)


@PROPERTY_SETTINGS
@given(holey_problem(), st.randoms(use_true_random=False))
def test_row_order_does_not_change_the_tree(problem, random):
    X, y, criterion = problem
    perm = np.array(random.sample(range(len(y)), len(y)))
    a = _fit(X, y, criterion).tree_
    b = _fit(X[perm], y[perm], criterion).tree_
    for name in ["feature", "threshold", "children_left", "n_node_samples"]:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    np.testing.assert_array_equal(a.missing_go_to_left, b.missing_go_to_left)
    np.testing.assert_allclose(a.value, b.value, rtol=1e-12, atol=1e-12)


@PROPERTY_SETTINGS
@given(holey_problem())
def test_a_column_never_missing_splits_as_without_missing_values(problem):
    X, y, criterion = problem
    X[:, 0] = np.nan_to_num(X[:, 0], nan=2.5)  # column 0 is never missing
    tree = _fit(X, y, criterion).tree_
    inner = (tree.children_left >= 0) & (tree.feature == 0)
    n = tree.n_node_samples
    # Its nodes have finite thresholds between two present values, and missing
    # values at predict time go to the child with more training rows.
    assert np.all(np.isfinite(tree.threshold[inner]))
    bigger = n[tree.children_left[inner]] > n[tree.children_right[inner]]
    np.testing.assert_array_equal(tree.missing_go_to_left[inner], bigger)
    # Without any missing value the tree is the one the search without the
    # missing-value candidates builds: the same as scanning thresholds only.
    complete = np.nan_to_num(X, nan=-1.0)
    for j in range(X.shape[1]):
        c = ct.column_candidates(complete[:, j])
        values = np.unique(complete[:, j])
        np.testing.assert_array_equal(c.threshold, (values[:-1] + values[1:]) / 2)
        assert not c.missing_left.any()


def test_missing_level_in_str_string_and_boolean_columns():
    import pandas as pd

    X = pd.DataFrame(
        {
            "s": pd.Series(["a", None, "b", np.nan, "a", "b"] * 5, dtype="str"),
            "t": pd.Series(["a", pd.NA, "b", pd.NA, "a", "b"] * 5, dtype="string"),
            "b": pd.Series([True, None, False, None, False, True] * 5, dtype="boolean"),
        }
    )
    y = np.tile([1.0, 9.0, 2.0, 9.0, 1.0, 2.0], 5)
    model = ct.DecisionTreeRegressor().fit(X, y)
    assert model.is_categorical_.all()
    for levels in model.categories_:
        assert len(levels) == 3 and np.isnan(levels[-1])
    # The missing rows (target 9) are told apart by their missing level alone.
    np.testing.assert_allclose(model.predict(X), y)
