"""Randomised trees: max_features, splitter="random", random_state (climbing_trees._random)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_equivalent, assert_same_tree
from sklearn.datasets import load_diabetes
from test_levelwise import make_problem

import climbing_trees as ct
from climbing_trees._levelwise import grow_tree_levelwise
from climbing_trees._random import (
    RandomSplits,
    draw_features,
    feature_ranges,
    narrow_ranges,
    random_level_sets,
    random_thresholds,
    resolve_max_features,
    uniforms,
)

CRITERIA = ["gini", "entropy", "squared_error", "poisson"]


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("criterion", CRITERIA)
@pytest.mark.parametrize("weights", ["unit", "float", "zeros"])
@pytest.mark.parametrize("splitter", ["best", "random"])
@pytest.mark.parametrize("max_features", [1, 2, 5])
def test_builders_draw_alike(seed, criterion, weights, splitter, max_features):
    X, Y, w = make_problem(seed, criterion, weights=weights, ties=seed % 2 == 0)
    spec = RandomSplits(min(max_features, X.shape[1]), splitter, 1000 + seed)
    slow = ct.grow_tree(X, Y, w, criterion=criterion, random_splits=spec)
    fast = grow_tree_levelwise(X, Y, w, criterion=criterion, random_splits=spec)
    assert_equivalent(fast, slow)


def mixed_problem(seed, criterion):
    """Two numerical and two categorical columns (level codes), 3 classes or a target."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 200))
    X = np.column_stack(
        [
            rng.normal(size=n),
            rng.integers(0, 7, size=n),
            rng.integers(0, 3, size=n).astype(float),
            rng.integers(0, 12, size=n),
        ]
    ).astype(float)
    is_categorical = np.array([False, True, False, True])
    if criterion in ("gini", "entropy"):
        Y = ct.one_hot((X[:, 1] % 3 + (X[:, 0] > 0)).astype(int) % 3, 3)
    else:
        Y = (X[:, 1] + rng.poisson(2.0, size=n))[:, None]
    return X, Y, rng.uniform(0.2, 2.0, size=n), is_categorical


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("criterion", CRITERIA)
@pytest.mark.parametrize("splitter", ["best", "random"])
@pytest.mark.parametrize("min_samples_level", [1, 6])
def test_builders_draw_alike_with_categorical_features(
    seed, criterion, splitter, min_samples_level
):
    X, Y, w, is_categorical = mixed_problem(seed, criterion)
    params = {
        "criterion": criterion,
        "is_categorical": is_categorical,
        "n_categories": np.array([0, 7, 0, 12]),
        "min_samples_level": min_samples_level,
        "random_splits": RandomSplits(2, splitter, seed),
        "min_samples_leaf": 2,
    }
    assert_equivalent(grow_tree_levelwise(X, Y, w, **params), ct.grow_tree(X, Y, w, **params))


def fitted(splitter="best", max_features=None, random_state=0, criterion="squared_error"):
    X, y = load_diabetes(return_X_y=True)
    model = ct.DecisionTreeRegressor(
        criterion=criterion,
        splitter=splitter,
        max_features=max_features,
        random_state=random_state,
        min_samples_leaf=5,
    )
    return model.fit(X, y), X


@pytest.mark.parametrize("splitter, max_features", [("best", "sqrt"), ("random", None)])
def test_same_seed_same_tree(splitter, max_features):
    a, _ = fitted(splitter, max_features, 7)
    b, _ = fitted(splitter, max_features, 7)
    c, _ = fitted(splitter, max_features, 8)
    assert_same_tree(a.tree_, b.tree_)
    assert a.tree_.node_count != c.tree_.node_count or not np.array_equal(
        a.tree_.threshold, c.tree_.threshold
    )


def test_random_state_objects():
    a, _ = fitted("random", None, np.random.RandomState(3))
    b, _ = fitted("random", None, np.random.RandomState(3))
    assert_same_tree(a.tree_, b.tree_)
    g, _ = fitted("random", None, np.random.default_rng(3))
    h, _ = fitted("random", None, np.random.default_rng(3))
    assert_same_tree(g.tree_, h.tree_)
    # One RandomState shared by two fits is advanced: two different trees.
    shared = np.random.RandomState(5)
    first, X = fitted("random", None, shared)
    second, _ = fitted("random", None, shared)
    assert not np.array_equal(first.predict(X), second.predict(X))
    # None draws from numpy's global generator.
    np.random.seed(11)  # noqa: NPY002 (random_state=None means the global generator)
    u, _ = fitted("random", None, None)
    np.random.seed(11)  # noqa: NPY002 (random_state=None means the global generator)
    v, _ = fitted("random", None, None)
    assert_same_tree(u.tree_, v.tree_)


@pytest.mark.parametrize("random_state", [None, 0, 123, np.random.RandomState(1)])
def test_no_randomness_keeps_the_deterministic_tree(random_state):
    plain, X = fitted(random_state=None)
    other, _ = fitted(random_state=random_state)
    assert_same_tree(plain.tree_, other.tree_)
    also, _ = fitted(max_features=1.0, random_state=random_state)
    assert_same_tree(plain.tree_, also.tree_)


def test_root_feature_is_drawn_uniformly():
    """max_features=1: the root's feature is the one drawn, uniform over the features."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    y = X.sum(axis=1) + 0.1 * rng.normal(size=300)
    roots = [
        ct.DecisionTreeRegressor(max_features=1, max_depth=1, random_state=s)
        .fit(X, y)
        .tree_.feature[0]
        for s in range(500)
    ]
    counts = np.bincount(roots, minlength=5)
    # Expected 100 each; the binomial standard deviation is about 9.
    assert np.all((counts > 60) & (counts < 140)), counts


def test_feature_draw_distribution():
    """scikit-learn's rule: the non-constant features among the first k of a random order.

    Constant features count towards k; only when all of the first k are
    constant does the node take the first non-constant feature after them.
    """
    n_nodes = 20_000
    keys = np.arange(n_nodes, dtype=np.uint64) * np.uint64(7919)
    constant = np.zeros((n_nodes, 7), dtype=bool)
    constant[:, [1, 4]] = True
    mask = draw_features(keys, constant, 3)
    assert not mask[:, [1, 4]].any()
    # Each feature is among the first 3 of 7 with probability 3/7; the number of
    # constant features among them is hypergeometric: 0, 1 or 2 of the 2.
    searched = mask.sum(axis=1)
    expected = np.array([0, 5, 20, 10]) / 35  # C(2, c) C(5, 3 - c) / C(7, 3) for c = 2, 1, 0
    np.testing.assert_allclose(np.bincount(searched, minlength=4) / n_nodes, expected,
                               atol=0.015)  # fmt: skip
    free = mask[:, [0, 2, 3, 5, 6]]
    np.testing.assert_allclose(free.mean(axis=0), 3 / 7, atol=0.02)  # sd about 0.0035
    # Pairs: together with probability (3/7)(2/6) = 1/7, as for a uniform order.
    together = (free[:, :, None] & free[:, None, :]).mean(axis=0)[np.triu_indices(5, 1)]
    np.testing.assert_allclose(together, 1 / 7, atol=0.015)
    # Five constant features of seven, k = 2: the first two are both constant
    # with probability C(5, 2) / C(7, 2) = 10/21, and then the node draws on to
    # the first non-constant one, so each of the two is searched with
    # probability 2/7 + (10/21) / 2 = 11/21 and the node always searches one.
    few = np.ones((n_nodes, 7), dtype=bool)
    few[:, [2, 5]] = False
    mask = draw_features(keys, few, 2)
    assert np.all(mask.sum(axis=1) >= 1) and not mask[few].any()
    np.testing.assert_allclose(mask[:, [2, 5]].mean(axis=0), 11 / 21, atol=0.02)
    np.testing.assert_allclose(mask[:, [2, 5]].all(axis=1).mean(), 1 / 21, atol=0.01)
    # Every feature constant: nothing to search; k >= d: every non-constant one.
    assert not draw_features(keys[:5], np.ones((5, 7), dtype=bool), 2).any()
    assert np.array_equal(draw_features(keys[:5], constant[:5], 7), ~constant[:5])


def constant_columns_problem(n=400, seed=0):
    """x0 strong, x1 weaker, x2 weak, and seven constant columns (float32-exact)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3))
    y = (x @ [1.0, 0.5, 0.25] + 0.1 * rng.normal(size=n) > 0).astype(int)
    X = np.column_stack([x, np.full((n, 7), 3.0)])
    return X.astype(np.float32).astype(np.float64), y


@pytest.mark.parametrize("splitter", ["best", "random"])
def test_root_features_are_drawn_as_in_sklearn(splitter):
    """Constant columns count towards max_features: root frequencies equal sklearn's.

    With three informative and seven constant columns and max_features=2, a
    rule that skipped constant columns would always search x0 and x1 and split
    on x0; scikit-learn searches the informative columns among two drawn ones.
    """
    from sklearn.tree import DecisionTreeClassifier as SkTree

    X, y = constant_columns_problem()
    n_seeds = 600
    params = {"max_features": 2, "max_depth": 1, "splitter": splitter}
    ours = [ct.DecisionTreeClassifier(**params, random_state=s).fit(X, y) for s in range(n_seeds)]
    theirs = [SkTree(**params, random_state=s).fit(X, y) for s in range(n_seeds)]
    ours = np.bincount([m.tree_.feature[0] for m in ours], minlength=10)
    theirs = np.bincount([m.tree_.feature[0] for m in theirs], minlength=10)
    assert ours[3:].sum() == theirs[3:].sum() == 0
    p = theirs / n_seeds
    sd = np.sqrt(n_seeds * p * (1 - p) + 1.0)  # +1: no zero width
    assert np.all(np.abs(ours - theirs) <= 5 * sd), (ours, theirs)
    # Not all x0: x1 and x2 win the nodes that did not draw x0 (and x2 some).
    assert ours[1] > 0.2 * n_seeds and ours[2] > 0.05 * n_seeds


def test_constant_rule_is_sklearns_feature_threshold():
    """A range of at most 1e-7 (in float32, as scikit-learn compares) is constant."""
    X = np.array([[0.0, 0.0, 1.0, 5.0], [1e-7, 2e-7, 1 + 2**-23, np.nan]])
    _, _, _, constant = feature_ranges(X, np.zeros(1, dtype=np.intp))
    # Column 3's one present value is not constant: a value is missing.
    assert constant.tolist() == [[True, False, True, False]]
    assert narrow_ranges(np.array([-1e308]), np.array([1e308])).tolist() == [False]
    # A tree whose only varying column spans 1e-8 stays a leaf under randomness.
    rng = np.random.default_rng(0)
    X = np.column_stack([np.full(50, 1.0), 1 + 1e-8 * rng.random(50)])
    y = (X[:, 1] > np.median(X[:, 1])).astype(int)
    model = ct.DecisionTreeClassifier(max_features=1, random_state=0).fit(X, y)
    assert model.tree_.node_count == 1


def test_uniforms_are_uniform_and_independent_of_the_batch():
    keys = np.arange(50_000, dtype=np.uint64)
    u = uniforms(keys, 2, 2)
    hist = np.histogram(u[:, 0], bins=10, range=(0, 1))[0]
    assert np.all(np.abs(hist - 5000) < 400), hist
    assert abs(np.corrcoef(u[:, 0], u[:, 1])[0, 1]) < 0.02
    np.testing.assert_array_equal(uniforms(keys[17:18], 2, 2), u[17:18])


def node_ranges(model, X):
    """Smallest and largest training value of each node's split feature."""
    t = model.tree_
    path = model.decision_path(X).toarray().astype(bool)
    inner = np.flatnonzero(t.children_left != ct.TREE_LEAF)
    lo = np.array([X[path[:, i], t.feature[i]].min() for i in inner])
    hi = np.array([X[path[:, i], t.feature[i]].max() for i in inner])
    return inner, lo, hi


@pytest.mark.parametrize("criterion", ["squared_error", "absolute_error", "poisson"])
def test_random_thresholds_lie_in_the_node_range(criterion):
    model, X = fitted("random", None, 3, criterion)
    inner, lo, hi = node_ranges(model, X)
    threshold = model.tree_.threshold[inner]
    assert np.all((threshold >= lo) & (threshold < hi))
    # Random thresholds are not midpoints between neighbouring values.
    best, _ = fitted("best", None, 3, criterion)
    assert not np.isin(threshold, best.tree_.threshold).all()


def test_random_categorical_sets_split_the_present_levels():
    keys = np.arange(3000, dtype=np.uint64)
    present = np.random.default_rng(0).random((3000, 6)) < 0.6
    present[:, :2] = True
    left = random_level_sets(keys, 4, present)
    assert not (left & ~present).any()
    assert np.all(left.any(axis=1))
    assert np.all((present & ~left).any(axis=1))
    # Each present level goes left about half of the time.
    np.testing.assert_allclose(left[:, :2].mean(axis=0), 0.5, atol=0.05)


def test_random_splitter_with_categorical_features(penguins):
    X, y = penguins.drop(columns="species"), penguins["species"]
    model = ct.DecisionTreeClassifier(splitter="random", random_state=0).fit(X, y)
    categorical = np.isnan(model.tree_.threshold) & (model.tree_.children_left >= 0)
    assert categorical.any()
    assert model.score(X, y) == 1.0  # grown to purity
    again = ct.DecisionTreeClassifier(splitter="random", random_state=0).fit(X, y)
    assert_same_tree(model.tree_, again.tree_)


def test_estimator_builders_agree_with_randomness():
    """The classifier (level-wise) equals grow_tree with the same draws."""
    X, y = load_diabetes(return_X_y=True)
    labels = np.digitize(y, [100, 200])
    model = ct.DecisionTreeClassifier(max_features="sqrt", splitter="random", random_state=4)
    model.fit(X, labels)
    spec = RandomSplits(resolve_max_features("sqrt", X.shape[1]), "random", 0)
    seeded = np.random.RandomState(4)
    high, low = seeded.randint(0, 2**31, size=2)
    spec = RandomSplits(spec.max_features, "random", (int(high) << 31) | int(low))
    slow = ct.grow_tree(
        X, ct.one_hot(labels, 3), np.ones(len(y)), criterion="gini", random_splits=spec
    )
    assert_equivalent(model.tree_, slow)


@pytest.mark.parametrize("max_features", [0, 11, -1, 0.0, 1.5, np.nan, "auto", "sqrtt", True, [2]])
def test_bad_max_features(max_features):
    X, y = load_diabetes(return_X_y=True)
    model = ct.DecisionTreeRegressor(max_depth=1).fit(X, y)
    before = model.tree_
    with pytest.raises(ValueError, match="max_features=.* is invalid"):
        model.set_params(max_features=max_features).fit(X, y)
    assert model.tree_ is before


@pytest.mark.parametrize("splitter", ["Random", "", None, 1])
def test_bad_splitter(splitter):
    X, y = load_diabetes(return_X_y=True)
    with pytest.raises(ValueError, match="splitter=.* is invalid; use 'best'"):
        ct.DecisionTreeRegressor(splitter=splitter).fit(X, y)


@pytest.mark.parametrize("random_state", ["0", -1, 2**40, 1.5, True, object()])
def test_bad_random_state(random_state):
    X, y = load_diabetes(return_X_y=True)
    with pytest.raises(ValueError, match="random_state=.* is invalid"):
        ct.DecisionTreeClassifier(random_state=random_state).fit(X, y > 150)


@pytest.mark.parametrize(
    "max_features, expected", [(None, 10), (4, 4), (0.35, 3), ("sqrt", 3), ("log2", 3), (0.01, 1)]
)
def test_max_features_resolution_is_sklearns(max_features, expected):
    from sklearn.tree import DecisionTreeRegressor

    X, y = load_diabetes(return_X_y=True)
    theirs = DecisionTreeRegressor(max_features=max_features, max_depth=1).fit(X, y)
    ours = ct.DecisionTreeRegressor(max_features=max_features, max_depth=1).fit(X, y)
    assert resolve_max_features(max_features, 10) == expected == theirs.max_features_
    assert ours.max_features_ == expected


# --- randomness with missing values (chapter 9 meets "From one tree to many") ----


def with_holes(X, seed, rate, columns=None):
    """``X`` with a fraction ``rate`` of the values of ``columns`` (all) set to NaN."""
    X = X.copy()
    holes = np.random.default_rng(seed).random(X.shape) < rate
    if columns is not None:
        holes[:, np.setdiff1d(np.arange(X.shape[1]), columns)] = False
    X[holes] = np.nan
    return X


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("criterion", CRITERIA)
@pytest.mark.parametrize("splitter", ["best", "random"])
@pytest.mark.parametrize("max_features", [1, 2, 5])
def test_builders_draw_alike_with_missing_values(seed, criterion, splitter, max_features):
    weights = ["unit", "float", "zeros"][seed % 3]
    X, Y, w = make_problem(seed, criterion, weights=weights, ties=seed % 2 == 0)
    X = with_holes(X, seed, [0.05, 0.3, 0.6][seed % 3])
    d = X.shape[1]
    if d > 1 and seed % 4 == 0:  # present values all equal, some missing: not constant
        X[:, 0] = np.where(np.isnan(X[:, 0]), np.nan, 1.5)
    if d > 2 and seed % 5 == 0:  # nothing present: constant
        X[:, 1] = np.nan
    spec = RandomSplits(min(max_features, d), splitter, 2000 + seed)
    params = {"criterion": criterion, "random_splits": spec}
    if seed % 3 == 1:
        params |= {"min_samples_leaf": 2, "min_weight_leaf": 0.1 * w.sum()}
    slow = ct.grow_tree(X, Y, w, **params)
    fast = grow_tree_levelwise(X, Y, w, **params)
    assert_equivalent(fast, slow)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("criterion", CRITERIA)
@pytest.mark.parametrize("splitter", ["best", "random"])
def test_builders_draw_alike_with_missing_and_categorical_values(seed, criterion, splitter):
    X, Y, w, is_categorical = mixed_problem(seed, criterion)
    X = with_holes(X, seed, 0.25, columns=[0, 2])  # categorical codes have no NaN
    params = {
        "criterion": criterion,
        "is_categorical": is_categorical,
        "n_categories": np.array([0, 7, 0, 12]),
        "min_samples_level": 1 + 5 * (seed % 2),
        "random_splits": RandomSplits(2, splitter, seed),
    }
    slow = ct.grow_tree(X, Y, w, **params)
    assert_equivalent(grow_tree_levelwise(X, Y, w, **params), slow)


def holey_diabetes(rate=0.3, seed=0):
    X, y = load_diabetes(return_X_y=True)
    return with_holes(X, seed, rate), y


def node_rows(model, X):
    """Per inner node: the boolean mask of the training rows that reached it."""
    t = model.tree_
    path = model.decision_path(X).toarray().astype(bool)
    return {i: path[:, i] for i in np.flatnonzero(t.children_left != ct.TREE_LEAF)}, path


@pytest.mark.parametrize("max_features", [None, 3])
def test_random_thresholds_with_missing_values(max_features):
    """Thresholds inside each node's present range; missing rows follow a drawn side.

    scikit-learn's rule (1.6+): the threshold is drawn between the node's
    smallest and largest present value, and the missing rows go to a side
    drawn at random; where a node had no missing value of its feature, the
    stored direction is the child with more rows.
    """
    X, y = holey_diabetes()
    model = ct.DecisionTreeRegressor(
        splitter="random", max_features=max_features, random_state=5, min_samples_leaf=3
    ).fit(X, y)
    t = model.tree_
    rows, path = node_rows(model, X)
    sides = []
    for i, here in rows.items():
        x = X[here, t.feature[i]]
        present = x[~np.isnan(x)]
        lo, hi = present.min(), present.max()
        assert lo <= t.threshold[i] and (t.threshold[i] < hi or lo == hi)
        missing = np.isnan(x)
        if missing.any():
            went_left = path[np.flatnonzero(here)[missing], t.children_left[i]]
            assert np.all(went_left == t.missing_go_to_left[i])
            sides.append(t.missing_go_to_left[i])
        else:
            n_left, n_right = (
                t.n_node_samples[t.children_left[i]],
                t.n_node_samples[t.children_right[i]],
            )
            assert t.missing_go_to_left[i] == (n_left > n_right)
    # A fair coin per node: both sides, in roughly equal numbers (about 80 nodes).
    assert len(sides) > 40
    assert 0.25 < np.mean(sides) < 0.75


@pytest.mark.parametrize("splitter", ["best", "random"])
def test_constant_features_ignore_missing_values(splitter):
    """scikit-learn's constant rule: no present value, or equal ones and none missing."""
    rng = np.random.default_rng(0)
    n = 200
    informative = rng.normal(size=n)
    y = (informative > 0).astype(int)
    # Column 0 has no present value: it never takes one of the max_features=1 draws.
    X = np.column_stack([np.full(n, np.nan), informative])
    for seed in range(10):
        model = ct.DecisionTreeClassifier(
            max_features=1, splitter=splitter, random_state=seed, max_depth=1
        ).fit(X, y)
        assert model.tree_.feature[0] == 1
    # Column 0's present values are equal, but some are missing: it counts, and
    # splits present against missing (the random splitter too: no coin sends the
    # missing rows left with every present row); column 1 is constant, never drawn.
    X = np.column_stack([np.where(y == 1, np.nan, 1.0), np.full(n, 2.0)])
    for seed in range(20):
        model = ct.DecisionTreeClassifier(
            max_features=1, splitter=splitter, random_state=seed, max_depth=1
        ).fit(X, y)
        t = model.tree_
        assert t.feature[0] == 0 and not t.missing_go_to_left[0]
        assert t.threshold[0] == (np.inf if splitter == "best" else 1.0)
        assert model.score(X, y) == 1.0


@pytest.mark.parametrize("splitter", ["best", "random"])
def test_surrogate_trees_draw_from_the_node_keys(splitter):
    """missing_values="surrogate" with randomness: drawn features, present-range thresholds."""
    X, y = holey_diabetes()
    Y, w = y[:, None], np.ones(len(y))
    spec = RandomSplits(2, splitter, 12345)
    tree = ct.grow_tree(
        X, Y, w, criterion="squared_error", missing_values="surrogate", random_splits=spec,
        min_samples_leaf=5,
    )  # fmt: skip
    # The root searches the two features its key draws; a random threshold is the draw.
    keys = spec.root_keys()
    lo, hi, _, _ = feature_ranges(X, np.zeros(1, dtype=np.intp))
    drawn = np.flatnonzero(draw_features(keys, narrow_ranges(lo, hi), 2)[0])
    assert tree.feature[0] in drawn
    if splitter == "random":
        assert tree.threshold[0] == random_thresholds(keys, lo, hi)[0, tree.feature[0]]
    assert (tree.surrogate_feature >= 0).any()
    # Reproducible from the key, and another key grows another tree.
    params = {"missing_values": "surrogate", "min_samples_leaf": 5}
    again = ct.grow_tree(X, Y, w, criterion="squared_error", random_splits=spec, **params)
    assert_same_tree(tree, again)
    other = ct.grow_tree(
        X, Y, w, criterion="squared_error", random_splits=RandomSplits(2, splitter, 1), **params
    )
    assert not np.array_equal(tree.threshold, other.threshold, equal_nan=True)
    # Every random threshold lies strictly inside its node's present range.
    model = ct.DecisionTreeRegressor(
        missing_values="surrogate", splitter=splitter, max_features=2, random_state=3,
        min_samples_leaf=5,
    ).fit(X, y)  # fmt: skip
    rows, _ = node_rows(model, X)
    for i, here in rows.items():
        x = X[here, model.tree_.feature[i]]
        present = x[~np.isnan(x)]
        assert present.min() <= model.tree_.threshold[i] < present.max()
