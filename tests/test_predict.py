"""The fast prediction path: flat tables kept on the tree, validation shortcut, blocks."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import climbing_trees as ct


def _data(n, d, seed, categorical=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).round(2)
    if categorical:
        X[:, 0] = rng.integers(0, 6, size=n)
    y = X[:, 1] + (X[:, 0] % 3) + rng.normal(size=n)
    return X, y


@pytest.mark.parametrize("categorical", [False, True])
@pytest.mark.parametrize(("n", "d"), [(50, 3), (3000, 4), (6000, 300)])
def test_apply_flat_equals_apply_small_large_and_blocked(n, d, categorical):
    # 50 rows: the path without bookkeeping; 3000: rows set aside; 6000 x 300: several blocks.
    X, y = _data(n, d, seed=n + d, categorical=categorical)
    model = ct.DecisionTreeRegressor(
        min_samples_leaf=2, categorical_features=[0] if categorical else None
    ).fit(X, y)
    X_new, _ = _data(n, d, seed=n + d + 1, categorical=categorical)
    X_new[:5, 0] = 17 if categorical else X_new[:5, 0]  # unseen levels
    np.testing.assert_array_equal(model.tree_.apply_flat(X_new), model.tree_.apply(X_new))
    np.testing.assert_array_equal(model.apply(X_new), model.tree_.apply_rowwise(X_new))
    # Fortran order (a DataFrame's values): each block copied to C order.
    X_fortran = np.asfortranarray(X_new)
    np.testing.assert_array_equal(model.tree_.apply_flat(X_fortran), model.apply(X_new))


def test_flat_tables_of_a_tree_whose_ids_are_not_in_preorder():
    # The tables find each node's depth from the root down, not from id order:
    # the same tree under shuffled ids (root kept at 0) gets the same depth,
    # the same setting-aside schedule and the same leaves.
    from dataclasses import replace

    from climbing_trees._tree import TREE_LEAF, set_aside_steps

    X, y = _data(3000, 4, seed=5)
    tree = ct.DecisionTreeRegressor(min_samples_leaf=3).fit(X, y).tree_
    N = tree.node_count
    new_id = np.concatenate([[0], 1 + np.random.default_rng(0).permutation(N - 1)])
    old_id = np.argsort(new_id)  # the old id of each new id

    def moved(children):
        children = children[old_id]
        return np.where(children == TREE_LEAF, TREE_LEAF, new_id[children])

    shuffled = replace(
        tree,
        children_left=moved(tree.children_left),
        children_right=moved(tree.children_right),
        **{
            name: getattr(tree, name)[old_id]
            for name in ("feature", "threshold", "value", "impurity", "n_node_samples",
                         "weighted_n_node_samples", "missing_go_to_left")
        },
    )  # fmt: skip
    assert not np.all(shuffled.children_left[shuffled.children_left > 0] > np.flatnonzero(
        shuffled.children_left > 0))  # some child before its parent  # fmt: skip
    depths = tree.node_depths()  # preorder ids: one pass
    leaf = tree.children_left == TREE_LEAF
    finished = np.bincount(depths[leaf], weights=tree.n_node_samples[leaf])
    tables = shuffled.flat_tables()
    assert tables.depth == tree.max_depth == len(finished) - 1
    assert tables.set_aside == frozenset(set_aside_steps(finished).tolist())
    assert tables.set_aside == tree.flat_tables().set_aside
    X_new, _ = _data(3000, 4, seed=6)
    np.testing.assert_array_equal(shuffled.apply_flat(X_new), new_id[tree.apply(X_new)])
    np.testing.assert_array_equal(shuffled.apply_flat(X_new), shuffled.apply(X_new))


def test_pickles_and_copies_drop_what_the_tree_keeps_and_predict_the_same():
    X, y = _data(300, 4, seed=0, categorical=True)
    X[::7, 1] = np.nan
    model = ct.DecisionTreeRegressor(categorical_features=[0], missing_values="surrogate")
    model.fit(X, y)
    tree = model.tree_
    assert "_flat_cache" in vars(tree)  # built at fit
    tree._router()  # the routers too
    tree._surrogate_router()
    kept = {"_flat_cache", "_router_cache", "_surrogate_router_cache"}
    for other in (
        pickle.loads(pickle.dumps(model)).tree_,
        copy.copy(tree),
        copy.deepcopy(tree),
    ):
        # Exactly the kept objects are left out, and built again on use.
        assert set(vars(tree)) - set(vars(other)) == kept
        np.testing.assert_array_equal(other.predict(X), tree.predict(X))
        np.testing.assert_array_equal(other.apply_flat(X), tree.apply(X))


def test_replacing_an_array_rebuilds_the_tables():
    X, y = _data(300, 4, seed=1)
    tree = ct.DecisionTreeRegressor(max_depth=3).fit(X, y).tree_
    before = tree.apply_flat(X)
    tree.threshold = np.where(np.isnan(tree.threshold), np.nan, tree.threshold + 1.0)
    after = tree.apply_flat(X)
    np.testing.assert_array_equal(after, tree.apply(X))
    assert not np.array_equal(after, before)


@pytest.mark.parametrize("Estimator", [ct.DecisionTreeClassifier, ct.DecisionTreeRegressor])
def test_plain_float_arrays_and_other_inputs_predict_the_same(Estimator):
    # A finite float64 array takes the validation shortcut; a list or an int
    # array takes the full checks.  Both must give identical outputs.
    X, y = _data(200, 3, seed=2)
    X = np.round(X * 10)
    target = y > 0 if Estimator is ct.DecisionTreeClassifier else y
    model = Estimator(max_depth=4).fit(X, target)
    for method in ["predict", "apply"] + (
        ["predict_proba"] if Estimator is ct.DecisionTreeClassifier else []
    ):
        fast = getattr(model, method)(X)
        np.testing.assert_array_equal(fast, getattr(model, method)(X.tolist()))
        np.testing.assert_array_equal(fast, getattr(model, method)(X.astype(np.int64)))


@pytest.mark.parametrize("bad", [np.inf, -np.inf])
def test_the_shortcut_still_rejects_infinity(bad):
    X, y = _data(100, 3, seed=3)
    model = ct.DecisionTreeRegressor().fit(X, y)
    X_bad = X.copy()
    X_bad[7, 1] = bad
    with pytest.raises(ValueError, match="(?i)inf"):
        model.predict(X_bad)
    X_bad[8, 2] = np.nan  # a missing value next to the infinity: still refused
    with pytest.raises(ValueError, match="(?i)inf"):
        model.predict(X_bad)


def test_the_shortcut_lets_missing_values_through():
    X, y = _data(100, 3, seed=3)
    model = ct.DecisionTreeRegressor().fit(X, y)
    X_missing = X.copy()
    X_missing[7, 1] = np.nan
    np.testing.assert_array_equal(
        model.predict(X_missing),
        model.predict(X_missing.tolist()),  # fast and full paths
    )


def test_the_shortcut_keeps_huge_finite_values():
    # Their sum overflows to inf; the values themselves are finite and valid.
    X, y = _data(100, 3, seed=4)
    model = ct.DecisionTreeRegressor().fit(X, y)
    X_big = np.full((4, 3), 1e308)
    np.testing.assert_array_equal(model.predict(X_big), model.predict(X_big.tolist()))


@pytest.mark.parametrize(
    "levels",
    [
        [0.0, 1.5, -2.0, 7.0],  # floats
        [3, 0, 11, -4],  # Python ints
        [0, 2.5, 9, -0.0],  # mixed ints and floats, a negative zero
        [True, False],  # booleans: the shortcut declines them
        ["a", "b", "c"],  # strings: likewise
        [2**60, 1, 2],  # an int that no float equals: likewise
    ],
)
def test_numeric_levels_shortcut_matches_the_general_encoding(levels):
    rng = np.random.default_rng(5)
    n = 400
    codes = rng.integers(0, len(levels), size=n)
    X_fit = np.empty((n, 2), dtype=object)
    X_fit[:, 0] = [levels[c] for c in codes]
    X_fit[:, 1] = rng.normal(size=n).round(1)
    y = codes + X_fit[:, 1].astype(float) + rng.normal(size=n)
    model = ct.DecisionTreeRegressor(categorical_features=[0], min_samples_leaf=3).fit(X_fit, y)
    # Float rows holding fitted levels, values never seen, and near misses.
    candidates = [float(v) for v in levels if not isinstance(v, str)] + [0.5, 1.0, -7.0, 1e9]
    X_new = np.column_stack([rng.choice(candidates, size=n), rng.normal(size=n)])
    fast = model.predict(X_new)  # float64 array: the shortcut when it applies
    general = model.predict(X_new.astype(object))  # object array: encode_categorical
    np.testing.assert_array_equal(fast, general)
    np.testing.assert_array_equal(model.apply(X_new), model.apply(X_new.astype(object)))


def test_numeric_levels_shortcut_keeps_a_pandas_category_order():
    # Levels in the category order (not sorted): codes are positions in that order.
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(6)
    n = 300
    order = [5.0, -1.0, 3.0, 0.0]
    values = rng.choice(order, size=n)
    X_fit = pd.DataFrame({0: pd.Categorical(values, categories=order), 1: rng.normal(size=n)})
    y = 3 * (values == 3.0) + 2 * (values == -1.0) + rng.normal(size=n)
    model = ct.DecisionTreeRegressor(min_samples_leaf=3).fit(X_fit, y)
    assert model.categories_[0].tolist() == order
    X_new = np.column_stack([rng.choice(order + [2.0], size=n), rng.normal(size=n)])
    np.testing.assert_array_equal(model.apply(X_new), model.apply(X_new.astype(object)))


@pytest.mark.parametrize("bad", [np.inf, np.nan])
def test_values_checked_block_by_block(bad):
    # 9,000 x 300: three blocks of rows, each checked just before its descent.
    X, y = _data(9000, 300, seed=7)
    model = ct.DecisionTreeRegressor(max_depth=6).fit(X[:500], y[:500])
    X_bad = X.copy()
    # In the last block only: infinity in a column the tree may not read, NaN in one it reads.
    X_bad[-1, 299 if np.isinf(bad) else 1] = bad
    if np.isinf(bad):
        with pytest.raises(ValueError, match="(?i)inf"):
            model.predict(X_bad)
    else:
        expected = model.tree_.apply_rowwise(X_bad)
        np.testing.assert_array_equal(model.apply(X_bad), expected)
        np.testing.assert_array_equal(model.tree_.apply_flat(X_bad), expected)


def test_has_missing_may_be_a_function_of_each_block():
    X, y = _data(9000, 300, seed=8)
    X[4500, 1] = np.nan
    tree = ct.DecisionTreeRegressor(max_depth=5).fit(X[:600], y[:600]).tree_
    blocks = []

    def look(block):
        blocks.append(len(block))
        return bool(np.isnan(block).any())

    leaves = tree.apply_flat(X, has_missing=look)
    assert len(blocks) > 1 and sum(blocks) == len(X)
    np.testing.assert_array_equal(leaves, tree.apply_rowwise(X))


@pytest.mark.parametrize("missing_values", ["learn", "surrogate"])
def test_apply_flat_reads_any_layout_block_by_block(missing_values):
    """C order, Fortran order (a DataFrame's values), strided columns and rows,
    over three blocks, with NaN, a categorical feature and maybe surrogates."""
    rng = np.random.default_rng(11)
    X, y = _data(30000, 40, seed=11, categorical=True)  # 3 blocks
    X[:, 1:][rng.random((30000, 39)) < 0.05] = np.nan
    model = ct.DecisionTreeRegressor(
        max_depth=8, categorical_features=[0], missing_values=missing_values
    ).fit(X[:600], np.nan_to_num(y[:600]))
    tree = model.tree_
    assert np.isnan(tree.threshold[tree.children_left >= 0]).any()  # a categorical node
    assert (tree.surrogate_feature >= 0).any() == (missing_values == "surrogate")
    expected = tree.apply(X)
    np.testing.assert_array_equal(tree.apply_rowwise(X[::100]), expected[::100])
    taller = np.repeat(X, 2, axis=0)
    layouts = [X, np.asfortranarray(X), np.repeat(X, 2, axis=1)[:, ::2], taller[::2]]
    blocks = []

    def look(block):
        blocks.append(len(block))
        return bool(np.isnan(block).any())

    for Z in layouts:
        for has_missing in (None, True, look):
            np.testing.assert_array_equal(tree.apply_flat(Z, has_missing=has_missing), expected)
    assert blocks == [10000] * 3 * len(layouts)


@pytest.mark.parametrize("read_by", ["split", "surrogate"])
def test_too_few_columns_raise_a_clear_error(read_by):
    # Below the root, the flat index row * d + f of a narrower X would read the
    # next row's values without a word; a surrogate would raise an IndexError.
    rng = np.random.default_rng(9)
    x, z = rng.normal(size=(2, 300))
    if read_by == "split":  # column 0 at the root, column 3 below it
        X = np.column_stack([x, rng.normal(size=(300, 2)), z])
        y, params = 10.0 * (x > 0) + (z > 0), {"max_depth": 2}
    else:  # column 0 at the root, column 3 its surrogate
        X = np.column_stack([x, rng.normal(size=(300, 2)), x + 0.1 * z])
        X[:30, 0] = np.nan
        y, params = 1.0 * (x > 0), {"max_depth": 1, "missing_values": "surrogate"}
    tree = ct.DecisionTreeRegressor(**params).fit(X, y).tree_
    assert tree.feature[0] == 0
    assert tree.feature.max() == (3 if read_by == "split" else 0)
    assert tree.surrogate_feature.max(initial=-1) == (-1 if read_by == "split" else 3)
    for method in (tree.apply_flat, tree.predict):
        with pytest.raises(ValueError, match="X has 3 columns, but the tree reads column 3"):
            method(X[:, :3])
    wider = np.hstack([X, X])  # columns past the last one read are ignored, as by apply
    np.testing.assert_array_equal(tree.apply_flat(wider), tree.apply(X))


@pytest.mark.parametrize("categorical", [False, True])
def test_a_float_dataframe_named_as_at_fit_skips_validation_and_predicts_the_same(
    monkeypatch, categorical
):
    """A DataFrame of float64 columns with the fitted names, in order, is read as
    its values (the validation shortcut); any other frame takes the full checks."""
    import warnings

    import pandas as pd

    import climbing_trees._classes as classes

    X, y = _data(400, 4, seed=5, categorical=categorical)
    X[::7, 2] = np.nan
    names = ["a", "b", "c", "d"]
    frame = pd.DataFrame({name: X[:, j] for j, name in enumerate(names)})
    model = ct.DecisionTreeRegressor(
        max_depth=6, categorical_features=["a"] if categorical else None
    ).fit(frame, y)
    expected = model.tree_.apply(X)

    calls = []
    full = classes.validate_data
    monkeypatch.setattr(classes, "validate_data", lambda *a, **k: calls.append(1) or full(*a, **k))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning about feature names either
        np.testing.assert_array_equal(model.apply(frame), expected)
        np.testing.assert_array_equal(model.predict(frame), model.tree_.value[expected, 0, 0])
    assert not calls  # the shortcut
    # A float32 column, or the columns reordered: the full checks.
    np.testing.assert_array_equal(model.apply(frame.astype({"d": "float32"})), expected)
    assert calls
    with pytest.raises(ValueError, match="feature names should match"):
        model.predict(frame[["b", "a", "c", "d"]])
    # Infinity: the usual message, from the full checks.
    bad = frame.copy()
    bad.iloc[3, 1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        model.predict(bad)
    # Names that only compare equal (numpy.str_), an array, or a frame given to a
    # model fitted on an array: scikit-learn's warnings, from the full checks.
    numpy_names = frame.set_axis(pd.Index([np.str_(n) for n in names], dtype=object), axis=1)
    for model_, X_ in [(model, numpy_names), (model, X)]:
        with pytest.warns(UserWarning, match="does not have valid feature names"):
            np.testing.assert_array_equal(model_.apply(X_), expected)
    unnamed = ct.DecisionTreeRegressor(max_depth=6).fit(X, y)
    with pytest.warns(UserWarning, match="fitted without feature names"):
        np.testing.assert_array_equal(unnamed.apply(frame), unnamed.apply(X))


@pytest.mark.parametrize("seed", range(12))
def test_the_compiled_descent_reaches_the_numpy_steps_leaves(seed):
    """apply_flat(compiled=True) (descend_rows, four rows on their way at a time)
    reaches the leaves of the numpy steps and of the node-by-node apply: deep and
    shallow trees, missing values in training and prediction, a single leaf."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(1, 400)), int(rng.integers(1, 7))
    X = rng.integers(0, 8, size=(n, d)).astype(float)
    X[rng.random((n, d)) < 0.1] = np.nan
    y = rng.integers(0, 3, size=n)
    depth = [None, 1, 3][seed % 3]
    model = ct.DecisionTreeClassifier(max_depth=depth, random_state=seed).fit(X, y)
    X_new = rng.integers(-1, 9, size=(int(rng.integers(1, 300)), d)).astype(float)
    X_new[rng.random(X_new.shape) < 0.2] = np.nan
    tree = model.tree_
    compiled = tree.apply_flat(X_new, compiled=True)
    np.testing.assert_array_equal(compiled, tree.apply_flat(X_new))
    np.testing.assert_array_equal(compiled, tree.apply(X_new))
    np.testing.assert_array_equal(model.apply(X_new), compiled)


@pytest.mark.parametrize("n_new", [1, 2, 3, 4, 5, 257])
def test_the_compiled_descent_with_fewer_rows_than_places(n_new):
    """descend_rows keeps four rows on their way: fewer rows than that, exactly as
    many, one more, and many, reach the leaves of the node-by-node apply."""
    rng = np.random.default_rng(n_new)
    X = rng.normal(size=(300, 3))
    y = X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=300)
    tree = ct.DecisionTreeRegressor().fit(X, y).tree_
    X_new = rng.normal(size=(n_new, 3))
    X_new[rng.random(X_new.shape) < 0.1] = np.nan
    np.testing.assert_array_equal(tree.apply_flat(X_new, compiled=True), tree.apply(X_new))
