"""Surrogate splits (CART, rpart): ``missing_values="surrogate"`` (chapter 9)."""

from __future__ import annotations

import dataclasses
import itertools
import pickle
import tracemalloc

import numpy as np
import pandas as pd
import pytest
from conftest import assert_same_tree
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import sparse

import climbing_trees as ct
from climbing_trees import _category_sets
from climbing_trees._rpart import reference_surrogate_predict, surrogate_classes
from climbing_trees._rpart import surrogate_problem as correlated_problem
from climbing_trees._surrogates import GOES_LEFT, GOES_RIGHT, best_surrogate


def route_row(tree, x, majority_left=None, node=0):
    """One row down the tree, written plainly: the independent router of these tests.

    Returns the node where the row stops.  Rows that no surrogate places go
    left where ``majority_left[node]`` (the package's rule: the heavier side
    of the rows the primary placed, which the caller computes); without it,
    rpart's ``predict`` rule: the child with more training rows, and None
    where rpart would stop the row at an internal node (equal counts).
    """
    while tree.children_left[node] >= 0:
        f, t = tree.feature[node], tree.threshold[node]
        left = None
        if np.isnan(t):  # a categorical primary: its levels (a missing level is a level)
            code = int(x[f]) if 0 <= x[f] < tree.categories_width - 1 else -1  # -1: unseen
            left = tree.categories_left_row(node)[code]
        elif not np.isnan(x[f]):
            left = x[f] <= t
        else:
            for rank in range(tree.surrogate_feature.shape[1]):
                g = tree.surrogate_feature[node, rank]
                if g < 0 or np.isnan(x[g]):
                    continue
                s = tree.surrogate_threshold[node, rank]
                if np.isnan(s):  # its lists of levels sent left and right
                    start = tree.surrogate_categories_start[node, rank]
                    stop = tree.surrogate_categories_stop[node, rank]
                    listed = tree.surrogate_categories_levels
                    if int(x[g]) in listed[start[0] : stop[0]].tolist():
                        left = True
                    elif int(x[g]) in listed[start[1] : stop[1]].tolist():
                        left = False
                    else:
                        continue  # a level it cannot place
                else:
                    left = (x[g] <= s) == tree.surrogate_below_left[node, rank]
                break
            if left is None:
                if majority_left is not None:
                    left = bool(majority_left[node])
                else:
                    n_left = tree.n_node_samples[tree.children_left[node]]
                    n_right = tree.n_node_samples[tree.children_right[node]]
                    if n_left == n_right:
                        return None
                    left = n_left > n_right
        node = tree.children_left[node] if left else tree.children_right[node]
    return node


@pytest.mark.parametrize("categorical", [False, True], ids=["numerical", "categorical"])
@pytest.mark.parametrize("method", ["anova", "class"], ids=["regression", "gini"])
def test_predictions_equal_rparts(categorical, method):
    # rpart's predictions (rpart_surrogate_predict) on these problems come from the
    # committed reference files; tests/test_reference_files.py reruns rpart where
    # R is installed and checks that the files are its output.
    # The categorical column has no missing value: the package makes a missing
    # category a level even with surrogates, where rpart would use surrogates.
    for seed in range(15):
        X, y, w, X_test, params = correlated_problem(seed, categorical=categorical)
        cat = [X.shape[1] - 1] if categorical else None
        if method == "class":  # three classes cut from the target
            y = surrogate_classes(y)
            Model = ct.DecisionTreeClassifier
        else:
            Model = ct.DecisionTreeRegressor
        ours = Model(missing_values="surrogate", categorical_features=cat, **params)
        ours.fit(X, y, sample_weight=w)
        rows = np.vstack([X, X_test])
        theirs = reference_surrogate_predict(seed, categorical, method)
        assert theirs.shape[0] == len(rows)
        # A row that no surrogate places goes to the heavier side of the primary's
        # rows here (rpart's rule while growing), to the child with more training
        # rows in rpart's predict, which stops the row where both children hold as
        # many.  Leave out the rows where the two rules part.
        tree = ours.tree_
        mine = tree.missing_go_to_left
        kept = np.array([route_row(tree, r) == route_row(tree, r, mine) for r in rows])
        if categorical:
            # A categorical primary sends a level it did not see at the node to the
            # heavier side (this package's rule for unseen levels); rpart treats it
            # as missing.  Leave out rows meeting such a level.
            j = X.shape[1] - 1
            seen = tree.decision_path(X).T @ np.eye(5)[X[:, j].astype(int)] > 0
            visits = tree.decision_path(rows).toarray().astype(bool)
            at_cat = np.isnan(tree.threshold) & (tree.children_left >= 0)
            unseen = ~seen[:, rows[:, j].astype(int)].T & at_cat & visits
            kept &= ~unseen.any(axis=1)
        # Both cases are rare: on these problems (280 to 500 rows each, weights
        # from 0.5 to 2) at most 10 rows meet either (seed 6: 10 of 377 rows, where
        # a node's heavier side holds fewer rows).
        assert (~kept).sum() <= 10
        got = ours.predict_proba(rows) if method == "class" else ours.predict(rows)
        np.testing.assert_allclose(got[kept], theirs[kept], rtol=1e-9, atol=1e-12)


def test_categorical_surrogates_are_used():
    X, y, w, X_test, params = correlated_problem(1, n=400, categorical=True, rate=0.3)
    model = ct.DecisionTreeRegressor(
        missing_values="surrogate", categorical_features=[X.shape[1] - 1], max_depth=3
    ).fit(X, y, sample_weight=w)
    t = model.tree_
    used = t.surrogate_feature == X.shape[1] - 1
    assert used.any()
    assert np.isnan(t.surrogate_threshold[used]).all()


def test_surrogate_search_against_brute_force():
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(200):
        n = int(rng.integers(6, 30))
        x = np.round(rng.normal(size=n), 1)
        x[rng.random(n) < 0.2] = np.nan
        label = rng.choice([1, -1, 0], size=n, p=[0.4, 0.4, 0.2])
        if not (label != 0).any():
            continue
        w = rng.uniform(0.5, 2.0, size=n)
        w[rng.random(n) < 0.15] = 0.0  # grow_tree can receive rows of weight 0
        if not w[label != 0].sum():
            continue
        found = best_surrogate(x, label, w)
        t_left, t_right = w[label > 0].sum(), w[label < 0].sum()
        total = t_left + t_right
        # Brute force: every threshold between present values, both orientations,
        # at least two labelled rows of positive weight on each side (rpart's rule).
        best = max(t_left, t_right)
        values = np.unique(x[~np.isnan(x)])
        for a, b in itertools.pairwise(values):
            cut = (a + b) / 2
            below = (x < cut) & (label != 0)
            above = (x > cut) & (label != 0)
            if (below & (w > 0)).sum() < 2 or (above & (w > 0)).sum() < 2:
                continue
            right_below = w[below & (label < 0)].sum() + w[above & (label > 0)].sum()
            left_below = w[below & (label > 0)].sum() + w[above & (label < 0)].sum()
            best = max(best, right_below, left_below)
        majority = max(t_left, t_right) / total
        adjusted = (best / total - majority) / (1 - majority) if majority < 1 else 0.0
        if found is None:
            assert adjusted <= 1e-10
            continue
        checked += 1
        assert found.agreement == pytest.approx(best / total, rel=1e-12)
        # The split does what its agreement says.
        side = np.where((x <= found.threshold) == found.below_left, 1, -1)
        agree = w[(label != 0) & ~np.isnan(x) & (side == label)].sum()
        assert agree / total == pytest.approx(found.agreement, rel=1e-12)
    assert checked > 50


def test_rows_of_weight_zero_do_not_count_toward_two_each_way():
    # At 2.5 the surrogate would agree fully, but one of its two rows below weighs 0.
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    label = np.array([1, 1, -1, -1, -1, -1])
    w = np.array([1.0, 0.0, 1.0, 1.0, 1.0, 1.0])
    assert best_surrogate(x, label, np.ones(6)).threshold == 2.5
    assert best_surrogate(x, label, w) is None  # 3.5 only ties the majority rule
    # rpart's categorical count, as it computes it, needs 2 rows sent against their
    # label: here the two right-labelled rows of level 0, one of which weighs 0.
    codes = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0])
    label = np.array([1, 1, 1, -1, -1, -1, -1, -1, -1])
    w = np.array([1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0])
    assert best_surrogate(codes, label, np.ones(9), True, 2) is not None
    assert best_surrogate(codes, label, w, True, 2) is None


def test_categorical_surrogate_against_brute_force():
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(100):
        n = int(rng.integers(8, 40))
        codes = rng.integers(0, 4, size=n).astype(float)
        label = rng.choice([1, -1, 0], size=n, p=[0.45, 0.45, 0.1])
        w = rng.uniform(0.5, 2.0, size=n)
        found = best_surrogate(codes, label, w, categorical=True, n_levels=4)
        total = w[label != 0].sum()
        best = 0.0
        for sides in itertools.product([1, -1], repeat=4):
            side = np.array(sides)[codes.astype(int)]
            best = max(best, w[(label != 0) & (side == label)].sum())
        if found is not None:
            checked += 1
            assert found.agreement == pytest.approx(best / total, rel=1e-12)
    assert checked > 30


def test_routing_and_prediction_against_a_plain_router():
    for seed in range(10):
        X, y, w, X_test, params = correlated_problem(seed, categorical=seed % 2 == 1)
        cat = [X.shape[1] - 1] if seed % 2 else None
        model = ct.DecisionTreeRegressor(
            missing_values="surrogate", categorical_features=cat, **params
        ).fit(X, y, sample_weight=w)
        tree = model.tree_
        # Training rows: route them plainly, with the growing-time default.
        heavier = np.zeros(tree.node_count, dtype=bool)
        counts = np.zeros(tree.node_count, dtype=int)
        stack = [(0, np.arange(len(X)))]
        while stack:
            node, rows = stack.pop()
            counts[node] = len(rows)
            if tree.children_left[node] < 0:
                continue
            x = X[rows, tree.feature[node]]
            present = ~np.isnan(x) & ~np.isnan(tree.threshold[node])
            goes = x <= tree.threshold[node]
            heavier[node] = w[rows][present & goes].sum() > w[rows][present & ~goes].sum()
            one, majority = _one_level(tree, node), [heavier[node], False, False]
            # One step of route_row from this node.
            left = [route_row(one, X[r], majority) == 1 for r in rows]
            left = np.array(left, dtype=bool)
            stack.append((tree.children_right[node], rows[~left]))
            stack.append((tree.children_left[node], rows[left]))
        np.testing.assert_array_equal(counts, tree.n_node_samples)
        # The tree keeps the side where the training rows went, for prediction.
        numerical = (tree.children_left >= 0) & ~np.isnan(tree.threshold)
        np.testing.assert_array_equal(tree.missing_go_to_left[numerical], heavier[numerical])
        # New rows: every traversal agrees with the plain router.
        rows = np.vstack([X, X_test])
        expected = [route_row(tree, r, heavier) for r in rows]
        leaves = tree.apply(rows)
        np.testing.assert_array_equal(leaves, expected)
        np.testing.assert_array_equal(tree.apply_flat(rows), leaves)
        np.testing.assert_array_equal(tree.apply_rowwise(rows), leaves)
        path = tree.decision_path(rows)
        np.testing.assert_array_equal(path[np.arange(len(rows)), leaves].A1, 1)


def _one_level(tree, node):
    """A copy of ``tree`` cut below ``node``'s children, renumbered: node -> 0, kids 1, 2."""
    levels = tree.categories_levels[tree.categories_start[node] : tree.categories_stop[node]]
    one = ct.Tree(
        children_left=np.array([1, -1, -1]),
        children_right=np.array([2, -1, -1]),
        feature=np.array([tree.feature[node], -2, -2]),
        threshold=np.array([tree.threshold[node], -2.0, -2.0]),
        value=np.zeros((3, 1, 1)),
        impurity=np.zeros(3),
        n_node_samples=np.array([0, 0, 0]),
        weighted_n_node_samples=np.zeros(3),
        categories_unseen_left=np.array([tree.categories_unseen_left[node], False, False]),
        categories_start=np.array([0, len(levels), len(levels)]),
        categories_stop=np.full(3, len(levels)),
        categories_levels=levels,
        categories_width=tree.categories_width,
        surrogate_feature=tree.surrogate_feature[[node, node, node]],
        surrogate_threshold=tree.surrogate_threshold[[node, node, node]],
        surrogate_below_left=tree.surrogate_below_left[[node, node, node]],
        # Slices of the shared array: the three nodes point at the same lists.
        surrogate_categories_start=tree.surrogate_categories_start[[node, node, node]],
        surrogate_categories_stop=tree.surrogate_categories_stop[[node, node, node]],
        surrogate_categories_levels=tree.surrogate_categories_levels,
    )
    return one


def test_primary_split_is_chosen_on_present_rows_with_rescaling():
    # Feature 0 separates the target perfectly where present but is missing in 70 %
    # of the rows; feature 1 is complete and separates it a little less well.
    rng = np.random.default_rng(2)
    n = 400
    y = rng.integers(0, 2, n).astype(float)
    x0 = y + 0.01 * rng.normal(size=n)
    x1 = np.where(rng.random(n) < 0.85, y, 1 - y) + 0.01 * rng.normal(size=n)
    X = np.column_stack([x0, x1])
    X[rng.random(n) < 0.7, 0] = np.nan
    model = ct.DecisionTreeRegressor(missing_values="surrogate", max_depth=1).fit(X, y)

    # Present-row decreases, in absolute weight: x0 wins per row, x1 in total.
    def decrease(j):
        present = ~np.isnan(X[:, j])
        xp, yp = X[present, j], y[present]
        left = xp <= 0.5
        return len(yp) * yp.var() - left.sum() * yp[left].var() - (~left).sum() * yp[~left].var()

    assert decrease(1) > decrease(0)
    assert model.tree_.feature[0] == 1
    # x0 cannot be a surrogate: present in 30 % of the rows, it agrees with the
    # primary on less weight than the majority rule does.
    assert model.tree_.surrogate_feature[0, 0] == -1
    # Per present row, x0 decreases the impurity more: without the rescaling it would win.
    assert decrease(0) / (~np.isnan(X[:, 0])).sum() > decrease(1) / n


def test_surrogate_trees_export_pickle_prune_and_validate():
    X, y, w, X_test, params = correlated_problem(3, n=300, rate=0.3)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    model = ct.DecisionTreeRegressor(missing_values="surrogate", max_depth=3).fit(frame, y)
    text = ct.export_text(model)
    assert "[surrogates: x" in text
    again = pickle.loads(pickle.dumps(model))
    assert_same_tree(again.tree_, model.tree_)
    pruned = ct.DecisionTreeRegressor(missing_values="surrogate", ccp_alpha=0.05).fit(frame, y)
    t = pruned.tree_
    assert (t.surrogate_feature[t.children_left < 0] == -1).all()
    assert (t.surrogate_feature[t.children_left >= 0, 0] >= 0).any()
    with pytest.raises(ValueError, match="missing_values='both'"):
        ct.DecisionTreeRegressor(missing_values="both").fit(X, y)
    with pytest.raises(ValueError, match="max_surrogates=-1"):
        ct.DecisionTreeRegressor(missing_values="surrogate", max_surrogates=-1).fit(X, y)
    none = ct.DecisionTreeRegressor(missing_values="surrogate", max_surrogates=0).fit(X, y)
    assert none.tree_.surrogate_feature.shape[1] == 0
    clf = ct.DecisionTreeClassifier(missing_values="surrogate", max_depth=3).fit(X, y > 0)
    assert clf.score(X, y > 0) > 0.7


# ------------------------------------------------------------------ compact storage


def high_cardinality_problem(seed=0, n=8000, n_levels=5000):
    """Feature 0 numerical with 30 % missing, feature 1 a categorical of ``n_levels``
    levels whose per-level effect is feature 0's mean: a good categorical surrogate."""
    rng = np.random.default_rng(seed)
    code = rng.integers(0, n_levels, n)
    x = rng.normal(size=n_levels)[code] + 0.3 * rng.normal(size=n)
    y = x + 0.5 * rng.normal(size=n)
    X = np.column_stack([x, code.astype(float)])
    X[rng.random(n) < 0.3, 0] = np.nan
    return X, y


def tree_bytes(tree):
    """Bytes of every array a fitted tree stores (its dataclass fields)."""
    return sum(np.asarray(getattr(tree, f.name)).nbytes for f in dataclasses.fields(ct.Tree))


def test_categorical_surrogates_do_not_store_nodes_times_levels():
    """5,000 levels: one byte per node, rank and level would be about 5 kB per node."""
    X, y = high_cardinality_problem()
    model = ct.DecisionTreeRegressor(
        missing_values="surrogate", categorical_features=[1], min_samples_leaf=5
    )
    tracemalloc.start()
    try:
        model.fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    tree = model.tree_
    k = tree.surrogate_feature.shape[1]
    dense = tree.node_count * k * tree.categories_width  # bytes of one int8 per entry
    assert (tree.surrogate_feature == 1).sum() > 100  # many categorical surrogates
    # The (node, level) pairs of the training rows: what a node can list.
    codes = X[:, 1].astype(np.intp)
    onehot = sparse.csr_matrix((np.ones(len(X)), (np.arange(len(X)), codes)))
    present = int(((tree.decision_path(X).T @ onehot) > 0).sum())
    assert len(tree.surrogate_categories_levels) <= k * present
    # A constant per node, and 4 bytes per listed level: nothing of size levels.
    assert tree_bytes(tree) <= 400 * tree.node_count + 4 * (1 + k) * present
    assert tree_bytes(tree) < dense / 8  # less than one bit per node, rank and level
    assert peak < dense / 4  # growing the tree never held the dense table either
    # The pickle is small too, and the surrogates route as before it.
    again = pickle.loads(pickle.dumps(model))
    assert_same_tree(again.tree_, tree)
    assert len(pickle.dumps(tree)) < dense / 8


@pytest.mark.parametrize("route_by", ["table", "search"])
def test_high_cardinality_surrogates_route_like_the_plain_router(route_by, monkeypatch):
    """Routing through a table of rows, or (forced) the search of sorted keys."""
    if route_by == "search":
        monkeypatch.setattr(_category_sets, "TABLE_ENTRIES", 0)
    X, y = high_cardinality_problem(1, n=3000)
    model = ct.DecisionTreeRegressor(
        missing_values="surrogate", categorical_features=[1], min_samples_leaf=5
    ).fit(X, y)
    tree = model.tree_
    assert (tree.surrogate_feature == 1).any()
    rng = np.random.default_rng(1)
    rows = X[rng.choice(len(X), 600)].copy()
    rows[:, 0] = np.nan  # every row follows the surrogates
    rows[:100, 1] = rng.integers(0, 6000, 100)  # levels absent at nodes, or unseen
    rows = model._validate_X_predict(rows)  # the codes the tree reads (unseen: -1)
    assert (rows[:, 1] == -1).any()
    expected = [route_row(tree, r) for r in rows]
    leaves = tree.apply_flat(rows)
    for got, want in zip(leaves, expected, strict=True):
        if want is not None:
            assert got == want
    np.testing.assert_array_equal(tree.apply(rows), leaves)
    np.testing.assert_array_equal(tree.apply_rowwise(rows[:100]), leaves[:100])


def test_dense_view_of_surrogate_levels_matches_the_lists():
    X, y, w, X_test, params = correlated_problem(1, n=400, categorical=True, rate=0.3)
    model = ct.DecisionTreeRegressor(
        missing_values="surrogate", categorical_features=[X.shape[1] - 1], max_depth=4
    )
    tree = model.fit(X, y, sample_weight=w).tree_
    states = tree.surrogate_levels
    k = tree.surrogate_feature.shape[1]
    assert states.shape == (tree.node_count, k, tree.categories_width)
    listed = tree.surrogate_categories_levels
    for node, rank in itertools.product(range(tree.node_count), range(k)):
        start = tree.surrogate_categories_start[node, rank]
        stop = tree.surrogate_categories_stop[node, rank]
        left, right = listed[start[0] : stop[0]], listed[start[1] : stop[1]]
        assert np.all(np.diff(left) > 0) and np.all(np.diff(right) > 0)  # sorted
        np.testing.assert_array_equal(np.flatnonzero(states[node, rank] == GOES_LEFT), left)
        np.testing.assert_array_equal(np.flatnonzero(states[node, rank] == GOES_RIGHT), right)
        if np.isnan(tree.surrogate_threshold[node, rank]) and left.size:
            assert tree.surrogate_feature[node, rank] == X.shape[1] - 1
    assert (states > 0).any()
    # Slices in slot order, left before right: the running total of their lengths.
    lengths = (tree.surrogate_categories_stop - tree.surrogate_categories_start).ravel()
    np.testing.assert_array_equal(
        tree.surrogate_categories_start.ravel(), np.cumsum(lengths) - lengths
    )


def test_a_tree_pickled_with_dense_surrogate_levels_loads_compact():
    X, y, w, X_test, params = correlated_problem(5, n=300, categorical=True, rate=0.3)
    model = ct.DecisionTreeRegressor(
        missing_values="surrogate", categorical_features=[X.shape[1] - 1], max_depth=4
    ).fit(X, y, sample_weight=w)
    tree = model.tree_
    assert (tree.surrogate_levels > 0).any()
    # The state such a tree had: the int8 table in place of the compact arrays.
    state = tree.__getstate__()
    for name in ("start", "stop", "levels"):
        del state[f"surrogate_categories_{name}"]
    state["surrogate_levels"] = tree.surrogate_levels
    old = ct.Tree.__new__(ct.Tree)
    old.__setstate__(state)
    assert_same_tree(old, tree)
    rows = np.vstack([X, X_test])
    np.testing.assert_array_equal(old.apply_flat(rows), tree.apply_flat(rows))


# --- rows that no surrogate places: one rule at fit and at predict -----------------------


def test_rows_no_surrogate_places_go_where_the_tree_sends_them_at_predict():
    # Rows 0-1 weigh 10 each and go left; rows 2-4 go right: the right child has
    # more rows, the left one more weight.  The row missing x has no surrogate
    # (x is the only feature): it goes to the heavier side while growing, and the
    # tree must send it there at predict time too.
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [np.nan]])
    y = np.array([0, 0, 1, 1, 1, 0])
    w = np.array([10.0, 10, 1, 1, 1, 1])
    model = ct.DecisionTreeClassifier(missing_values="surrogate", max_depth=1)
    tree = model.fit(X, y, sample_weight=w).tree_
    np.testing.assert_array_equal(tree.n_node_samples, [6, 3, 3])
    assert tree.missing_go_to_left[0]
    leaves = model.apply(X)
    np.testing.assert_array_equal(np.bincount(leaves, minlength=3)[1:], [3, 3])
    np.testing.assert_array_equal(np.bincount(leaves, weights=w, minlength=3)[1:], [21, 3])
    # The leaf value counts the missing row's class 0 on the left.
    np.testing.assert_allclose(tree.value[1, 0], [1.0, 0.0])
    assert model.predict([[np.nan]])[0] == 0


@st.composite
def surrogate_problem(draw):
    """Up to 40 rows, 1-3 numerical features (many NaN), maybe a categorical one."""
    n = draw(st.integers(4, 40))
    d = draw(st.integers(1, 3))
    cells = st.one_of(st.integers(0, 5).map(float), st.just(np.nan))
    X = np.array(draw(st.lists(cells, min_size=n * d, max_size=n * d))).reshape(n, d)
    if draw(st.booleans()):  # a complete categorical column: surrogates of its own kind
        codes = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
        X = np.column_stack([X, np.array(codes, dtype=float)])
    # Weights spread over four orders of magnitude, so that the heavier side and
    # the side with more rows often differ.
    weights = st.sampled_from([0.0, 0.1, 1.0, 3.0, 100.0])
    w = np.array(draw(st.lists(weights, min_size=n, max_size=n)))
    w[0] = 1.0  # at least one row counts
    y = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    regression = draw(st.booleans())
    max_depth = draw(st.integers(1, 4))
    max_surrogates = draw(st.integers(0, 2))
    return X, y, w, regression, max_depth, max_surrogates


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(surrogate_problem())
def test_routing_the_training_rows_reproduces_every_node(problem):
    X, y, w, regression, max_depth, max_surrogates = problem
    cat = [X.shape[1] - 1] if X.shape[1] > 1 and not np.isnan(X[:, -1]).any() else None
    Model = ct.DecisionTreeRegressor if regression else ct.DecisionTreeClassifier
    model = Model(
        missing_values="surrogate",
        max_depth=max_depth,
        max_surrogates=max_surrogates,
        categorical_features=cat,
    ).fit(X, y, sample_weight=w)
    tree = model.tree_
    # Rows of weight zero take no part in the fit (nor in the stored counts).
    Xp, yp, wp = X[w > 0], y[w > 0], w[w > 0]
    path = model.decision_path(Xp).toarray().astype(bool)  # rows x nodes
    np.testing.assert_array_equal(path.sum(axis=0), tree.n_node_samples)
    np.testing.assert_allclose(wp @ path, tree.weighted_n_node_samples, rtol=1e-12)
    for node in range(tree.node_count):
        rows = path[:, node]
        if regression:
            expected = [np.average(yp[rows], weights=wp[rows])]
        else:
            mass = np.array([wp[rows & (yp == c)].sum() for c in model.classes_])
            expected = mass / mass.sum()
        np.testing.assert_allclose(tree.value[node, 0], expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize(
    "a", [np.nextafter(1.0, 2.0), np.nextafter(1.6e308, 2e308)], ids=["rounds-up", "near-max"]
)
def test_surrogate_threshold_lies_between_its_two_values(a):
    # The midpoint of two adjacent floats can round onto the upper one, and
    # (a + b) / 2 overflows near the largest float: the threshold follows the
    # package's rule (climbing_trees._ties.midpoint_threshold), a <= t < b.
    b = np.nextafter(a, np.inf)
    x = np.array([a, a, b, b])
    label = np.array([1, 1, -1, -1])
    with np.errstate(all="raise"):
        found = best_surrogate(x, label, np.ones(4))
    assert a <= found.threshold < b
    side = ct._surrogates.surrogate_goes_left(found, x)
    np.testing.assert_array_equal(side, label)
    assert found.agreement == 1.0


def test_surrogates_of_sides_that_weigh_1e300_times_apart():
    # One side of the primary weighs 1e300 times the other: 1 - majority rounds
    # to 0, which divided the adjusted agreement by zero.
    x = np.array([0.0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    codes = np.array([0.0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    label = np.array([1, 1, 1, -1, -1, -1, -1, -1, 1, 1])
    w = np.where(label > 0, 1.0, 1e-300)
    with np.errstate(all="raise"):
        for found in (best_surrogate(x, label, w), best_surrogate(codes, label, w, True, 2)):
            assert found is None or found.adjusted > 0
