"""Histogram trees (``splitter="hist"``): binning, exact integer histograms, the same trees.

Where every feature has at most ``max_bins`` distinct values, a histogram
tree is the exact splitter's tree (structure and thresholds bit for bit);
the bins are scikit-learn's ``_BinMapper``'s; the histograms are integers, so
sibling subtraction, row order and chunking leave no residue.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import assert_equivalent
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.ensemble._hist_gradient_boosting.binning import _BinMapper

import climbing_trees as ct
from climbing_trees._binning import SUBSAMPLE, check_max_bins, feature_edges, fit_bins
from climbing_trees._criteria import one_hot, output_criterion
from climbing_trees._histograms import (
    fixed_point_exponent,
    node_histograms,
    sibling_histograms,
    to_fixed_point,
)
from climbing_trees._levelwise import grow_tree_levelwise
from climbing_trees._ties import midpoint_threshold

HYPOTHESIS = settings(
    max_examples=25, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)


# --- binning ---------------------------------------------------------------------------


def _sklearn_edges(X, max_bins, random_state=0):
    mapper = _BinMapper(n_bins=max_bins + 1, random_state=random_state).fit(X)
    return mapper


@pytest.mark.parametrize("max_bins", [3, 16, 255])
def test_edges_are_bin_mappers(max_bins):
    """Midpoints (few values) and quantiles (many values): _BinMapper's edges, exactly."""
    rng = np.random.default_rng(0)
    n = 3000
    X = np.column_stack(
        [
            rng.integers(0, 3, n),  # fewer values than bins
            rng.integers(0, 40, n),  # fewer or more, depending on max_bins
            rng.normal(size=n),  # quantiles
            rng.exponential(size=n).round(2),  # ties, quantiles
        ]
    ).astype(float)
    X[rng.random(X.shape) < 0.1] = np.nan
    mapper = _sklearn_edges(X, max_bins)
    bins = fit_bins(X, max_bins)
    for j in range(X.shape[1]):
        np.testing.assert_array_equal(bins.edges[j], mapper.bin_thresholds_[j], err_msg=str(j))
    codes = bins.codes(X)
    theirs = mapper.transform(X)
    present = ~np.isnan(X)
    np.testing.assert_array_equal(codes[present], theirs[present])
    assert (codes[~present] == bins.missing_bin).all()
    assert codes.dtype == np.uint8


def test_subsample_is_bin_mappers():
    """Above 200,000 rows the quantiles come from the same subsample as _BinMapper's."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(SUBSAMPLE + 5_000, 1))
    mapper = _sklearn_edges(X, 255, random_state=7)
    bins = fit_bins(X, 255, random_state=7)
    np.testing.assert_array_equal(bins.edges[0], mapper.bin_thresholds_[0])
    other = fit_bins(X, 255, random_state=8)  # another subsample: other edges
    assert not np.array_equal(other.edges[0], bins.edges[0])


def test_codes_dtype_and_one_bin_per_value():
    """uint16 above 255 bins; a feature with few values: its bin holds one value exactly."""
    a = 1.0
    b = np.nextafter(a, 2.0)  # the midpoint rounds onto b: codes from values, not midpoints
    x = np.array([a, b, b, a, 3.0, np.nan])
    edges, values = feature_edges(x, 255)
    assert values.tolist() == [a, b, 3.0]
    bins = fit_bins(x[:, None], 300)
    codes = bins.codes(x[:, None])
    assert codes.dtype == np.uint16
    assert codes[:, 0].tolist() == [0, 1, 1, 0, 2, bins.missing_bin]


@HYPOTHESIS
@given(
    seed=st.integers(0, 2**32 - 1),
    max_bins=st.integers(2, 300),
    spread=st.sampled_from([1e-300, 1.0, 1e300]),
)
def test_codes_are_searchsorted(seed, max_bins, spread):
    """The compiled codes (a cell table, then a search) are numpy's searchsorted's."""
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.standard_cauchy(500) * spread, [np.inf, -np.inf, 0.0, np.nan]])
    x = np.concatenate([x, rng.choice(x, 100)])  # ties
    bins = fit_bins(x[:, None], max_bins)
    cuts = bins.values[0] if bins.values[0] is not None else bins.edges[0]
    expected = np.searchsorted(cuts, x, side="left")
    expected[np.isnan(x)] = bins.missing_bin
    np.testing.assert_array_equal(bins.codes(x[:, None])[:, 0], expected)


@pytest.mark.parametrize("bad", [1, 0, 65_536, 2.5, True, "255"])
def test_max_bins_is_checked(bad):
    with pytest.raises(ValueError, match="max_bins"):
        check_max_bins(bad)
    X, y = np.arange(8.0)[:, None], np.arange(8.0)
    with pytest.raises(ValueError, match="max_bins"):
        ct.DecisionTreeRegressor(splitter="hist", max_bins=bad).fit(X, y)


# --- exact integer histograms ----------------------------------------------------------


def test_fixed_point_bound():
    """Every subset sum, and a difference of two, fits in int64."""
    rng = np.random.default_rng(2)
    v = rng.normal(size=1000) * 1e30
    q = to_fixed_point(v, fixed_point_exponent(v))
    assert np.abs(q).astype(float).sum() < 2.0**62 + 1000
    w = np.array([0.1, 0.2, 0.3])  # a float residue where integers leave none
    assert w.sum() - w[:2].sum() != w[2]
    q = to_fixed_point(w, fixed_point_exponent(w))
    assert q.sum() - q[:2].sum() == q[2]


def test_fixed_point_exponent_ignores_row_order():
    """Near a power of two, numpy's sum in two orders can straddle it; k must not."""
    rng = np.random.default_rng(0)
    for _ in range(300):
        n = int(rng.integers(3, 40))
        v = rng.random(n)
        v = v / v.sum() * 4.0
        exponents = {fixed_point_exponent(v[rng.permutation(n)]) for _ in range(8)}
        assert len(exponents) == 1, v.tolist()
    # the exact sum of these six values is just below 4, numpy's can round to 4
    v = np.array([0.7697395786401985, 1.145584825949142, 0.2728517032955499,
                  0.5974531183959995, 0.0968315720139049, 1.117539201705205])
    exact = math.fsum(v.tolist())
    assert fixed_point_exponent(v[::-1]) == 62 - math.frexp(exact)[1]


@HYPOTHESIS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 60), power=st.integers(-40, 40))
def test_sum_exponent_is_the_exact_sums(seed, n, power):
    """The exponent of the exactly rounded sum (``math.fsum``'s), whatever the order,
    also where numpy's sum straddles a power of two; the fit's weight exponent is the
    one ``math.fsum`` gives (it is taken from numpy's sum where that decides it)."""
    from climbing_trees._exact_weights import WEIGHT_BITS, weight_exponent
    from climbing_trees._histograms import sum_exponent

    rng = np.random.default_rng(seed)
    v = rng.random(n) * rng.choice([1.0, 1e-3, 1e3], n)
    v = v / math.fsum(v.tolist()) * 2.0**power  # near a power of two
    v[rng.random(n) < 0.2] = 0.0
    exact = math.fsum(v.tolist())
    expected = math.frexp(exact)[1] if exact > 0 else None
    for order in (v, v[::-1], v[rng.permutation(n)]):
        assert sum_exponent(order) == expected
        assert weight_exponent(order) == (0 if expected is None else WEIGHT_BITS - expected)


def _random_level(rng, n=300, d=3, n_split=4, width=6):
    codes = rng.integers(0, width, (n, d)).astype(np.uint8)
    stats = rng.integers(-(2**40), 2**40, (n, 2)).astype(np.int64)
    rows = rng.permutation(n).astype(np.int32)
    cuts = np.sort(rng.choice(np.arange(1, n), 2 * n_split - 1, replace=False))
    sizes = np.diff(np.concatenate([[0], cuts, [n]])).astype(np.intp)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
    return codes, stats, rows, starts, sizes


def test_sibling_subtraction_is_exact():
    """Parent minus the smaller child equals the larger child summed from its rows."""
    rng = np.random.default_rng(3)
    codes, stats, rows, starts, sizes = _random_level(rng)
    n_split, width = sizes.size // 2, 6
    direct = node_histograms(codes, rows, starts, sizes, np.arange(sizes.size), stats, width)
    parents = direct[:n_split] + direct[n_split:]  # a parent: its two children's rows
    parents = np.concatenate([parents[:1] * 0, parents])  # one that did not split first
    derived = sibling_histograms(
        codes, rows, starts, sizes, stats, parents, np.arange(1, n_split + 1)
    )
    np.testing.assert_array_equal(derived, direct)
    assert direct[..., 0].sum() == rows.size * codes.shape[1]


@HYPOTHESIS
@given(seed=st.integers(0, 2**32 - 1), n_chunks=st.integers(1, 6))
def test_histograms_free_of_row_order_and_chunking(seed, n_chunks):
    """Integers: any order of the rows, any chunking of the sums, the same histogram."""
    rng = np.random.default_rng(seed)
    codes, stats, rows, _, _ = _random_level(rng)
    whole = node_histograms(
        codes, rows, np.array([0]), np.array([rows.size]), np.array([0]), stats, 6
    )
    shuffled = rng.permutation(rows)
    cuts = np.sort(rng.choice(np.arange(1, rows.size), n_chunks - 1, replace=False))
    sizes = np.diff(np.concatenate([[0], cuts, [rows.size]])).astype(np.intp)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
    parts = node_histograms(codes, shuffled, starts, sizes, np.arange(n_chunks), stats, 6)
    np.testing.assert_array_equal(parts.sum(axis=0), whole[0])


# --- the same tree as the exact splitter -----------------------------------------------


def _problem(seed, criterion, *, weighted, missing, n_outputs=1, n=400, d=4, levels=12):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, (n, d)).astype(float)
    X[:, 1] *= 0.1  # values that are not whole numbers
    if missing:
        X[rng.random(X.shape) < 0.15] = np.nan
    if criterion in ("gini", "entropy", "log_loss"):
        blocks = [one_hot(rng.integers(0, 3, n), 3) for _ in range(n_outputs)]
        Y = np.hstack(blocks)
        layout = output_criterion(criterion, [3] * n_outputs)
    else:
        if criterion == "poisson":
            Y = rng.poisson(2.0, (n, n_outputs)).astype(float)
        else:
            Y = rng.normal(size=(n, n_outputs)) + X[:, :1] * (X[:, :1] > 5)
            Y = np.nan_to_num(Y)
        layout = output_criterion(criterion, [1] * n_outputs)
    w = rng.integers(1, 5, n) * 0.37 if weighted else np.ones(n)
    return X, Y, w, layout


@pytest.mark.parametrize("criterion", ["gini", "entropy", "log_loss", "squared_error", "poisson"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("missing", [False, True])
@pytest.mark.parametrize("n_outputs", [1, 2])
def test_same_tree_as_exact_splitter(criterion, weighted, missing, n_outputs):
    X, Y, w, layout = _problem(
        11, criterion, weighted=weighted, missing=missing, n_outputs=n_outputs
    )
    exact = grow_tree_levelwise(X, Y, w, criterion=layout, max_depth=7)
    hist = grow_tree_levelwise(X, Y, w, criterion=layout, max_depth=7, max_bins=255)
    assert exact.node_count > 20
    assert_equivalent(hist, exact)


def test_squared_error_summaries_have_the_exact_bits():
    """The compiled level summaries of squared error add as the exact fit does: the
    values and impurities of the two trees are equal bit for bit, not to rounding."""
    X, Y, w, layout = _problem(12, "squared_error", weighted=True, missing=True, n_outputs=2)
    Y = Y * 1e3 + 1e6  # sums whose rounding depends on the order of the additions
    exact = grow_tree_levelwise(X, Y, w, criterion=layout, max_depth=6)
    hist = grow_tree_levelwise(X, Y, w, criterion=layout, max_depth=6, max_bins=255)
    assert_equivalent(hist, exact)
    np.testing.assert_array_equal(hist.value, exact.value)
    np.testing.assert_array_equal(hist.impurity, exact.impurity)


@pytest.mark.parametrize(
    "options",
    [
        {"min_samples_leaf": 7},
        {"min_weight_fraction_leaf": 0.03},
        {"min_impurity_decrease": 0.002},
        {"max_depth": 3},
        {"max_features": 2, "random_state": 5},
        {"max_leaf_nodes": 9},
        {"min_samples_split": 30},
    ],
)
@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_estimators_same_tree(options, kind):
    """The estimators' hist trees, options included, are their exact trees."""
    rng = np.random.default_rng(4)
    X = rng.integers(0, 30, (500, 5)).astype(float)
    X[rng.random(X.shape) < 0.1] = np.nan
    if kind == "classifier":
        y, model = rng.integers(0, 3, 500), ct.DecisionTreeClassifier
    else:
        y, model = rng.normal(size=500) + (X[:, 0] > 10), ct.DecisionTreeRegressor
    w = rng.integers(1, 4, 500).astype(float)
    options = {"max_depth": 8, **options}
    exact = model(**options).fit(X, y, sample_weight=w)
    hist = model(splitter="hist", **options).fit(X, y, sample_weight=w)
    assert exact.tree_.node_count > 4
    assert_equivalent(hist.tree_, exact.tree_)
    np.testing.assert_array_equal(hist.predict(X), exact.predict(X))


def test_thresholds_are_exact_midpoints_of_the_node():
    """Between adjacent floats the threshold is the lower value (midpoint_threshold), and a
    threshold skips the bins empty in the node: the midpoint of the values present."""
    a = 1.0
    b = np.nextafter(a, 2.0)
    # a | b splits the root, whose range is wide: a node holding only a and b
    # would be constant (rule 6 of _ties) and never split.
    x = np.array([a, a, b, b, 5.0, 5.0, 9.0, 9.0, 9.0])
    y = np.array([0.0, 0.0, 7.0, 7.0, 7.0, 7.0, 3.0, 3.0, 3.0])
    X = x[:, None]
    exact = ct.DecisionTreeRegressor().fit(X, y)
    hist = ct.DecisionTreeRegressor(splitter="hist").fit(X, y)
    assert_equivalent(hist.tree_, exact.tree_)
    assert a in hist.tree_.threshold.tolist()  # midpoint_threshold(a, b) == a
    assert float(midpoint_threshold(a, b)) == a


def test_quantile_thresholds_are_bin_edges():
    """More values than bins: every threshold is an edge of its feature, and predict
    (on thresholds) sends each training row where its codes sent it."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(2000, 3))
    y = X[:, 0] + np.sin(3 * X[:, 1]) + rng.normal(scale=0.1, size=2000)
    hist = ct.DecisionTreeRegressor(splitter="hist", max_bins=16, max_depth=6).fit(X, y)
    exact = ct.DecisionTreeRegressor(max_depth=6).fit(X, y)
    bins = fit_bins(X, 16)
    tree = hist.tree_
    inner = tree.children_left >= 0
    for j, t in zip(tree.feature[inner], tree.threshold[inner], strict=True):
        assert t in bins.edges[j].tolist()
    assert not np.array_equal(tree.threshold, exact.tree_.threshold)  # other trees
    assert hist.score(X, y) > 0.8
    # the leaves of the training rows: as the fit routed them (n_node_samples)
    leaves = hist.apply(X)
    counts = np.bincount(leaves, minlength=tree.node_count)
    np.testing.assert_array_equal(counts[tree.children_left < 0],
                                  tree.n_node_samples[tree.children_left < 0])  # fmt: skip


@HYPOTHESIS
@given(seed=st.integers(0, 2**32 - 1), criterion=st.sampled_from(["gini", "squared_error"]))
def test_row_order_does_not_change_the_tree(seed, criterion):
    """Permuting the rows grows the same histogram tree (ties broken by bins, not rows)."""
    X, Y, w, layout = _problem(seed, criterion, weighted=True, missing=True, n=150, levels=6)
    perm = np.random.default_rng(seed).permutation(len(X))
    a = grow_tree_levelwise(X, Y, w, criterion=layout, max_depth=5, max_bins=255)
    b = grow_tree_levelwise(X[perm], Y[perm], w[perm], criterion=layout, max_depth=5,
                            max_bins=255)  # fmt: skip
    assert_equivalent(a, b)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"criterion": "absolute_error"}, "criterion='absolute_error'"),
        ({"missing_values": "surrogate"}, "surrogate"),
        ({"missing_values": "fractional"}, "fractional"),
    ],
)
def test_refused_options(options, message):
    X, y = np.arange(10.0)[:, None], np.arange(10.0)
    with pytest.raises(ValueError, match=message):
        ct.DecisionTreeRegressor(splitter="hist", **options).fit(X, y)


@pytest.mark.parametrize("criterion", ["squared_error", "poisson", "gini", "entropy"])
def test_categorical_features_same_tree(mixed_frame, criterion):
    """Categorical features are searched from the rows, as with splitter="best"; with
    the numerical ones binned (every one with at most max_bins values) the tree is the same."""
    X, _, y = mixed_frame
    X = X.copy()
    X["x"] = X["x"].round(1)  # at most max_bins values
    X.loc[X.index[::7], "x"] = np.nan
    if criterion == "poisson":
        y = np.abs(np.round(y))
    elif criterion in ("gini", "entropy"):
        y = np.digitize(y, np.quantile(y, [0.33, 0.66]))
    model = ct.DecisionTreeRegressor if criterion in ("squared_error", "poisson") else (
        ct.DecisionTreeClassifier
    )
    exact = model(criterion=criterion, max_depth=6).fit(X, y)
    hist = model(criterion=criterion, max_depth=6, splitter="hist", max_bins=64).fit(X, y)
    assert np.isnan(exact.tree_.threshold[exact.tree_.children_left >= 0]).any()  # sets
    assert_equivalent(hist.tree_, exact.tree_)


def test_splitter_error_names_hist():
    with pytest.raises(ValueError, match="'hist'"):
        ct.DecisionTreeRegressor(splitter="histogram").fit(np.ones((4, 1)), np.arange(4.0))


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("options", [{}, {"min_samples_leaf": 4}, {"min_weight_leaf": 3.0}])
def test_compiled_squared_choice_is_the_numpy_choice(monkeypatch, weighted, options):
    """The compiled squared-error scan picks, level by level, the candidate and gain
    (bit for bit) that the numpy gains of every candidate and choose_best_gains pick."""
    from climbing_trees._levelwise import _histogram_search as hs
    from climbing_trees._ties import choose_best_gains

    compiled = hs.Histograms.squared_choice
    checked = []

    def both(self, hist, at, draws, tie):
        best, first = compiled(self, hist, at, draws, tie)
        gains = self.gains(hist[at], self.level, self.nodes)
        expected_best, expected_first = choose_best_gains(gains.reshape(at.size, -1), *tie)
        np.testing.assert_array_equal(best, expected_best)
        found = np.isfinite(best)
        np.testing.assert_array_equal(first[found], expected_first[found])
        checked.append(int(found.sum()))
        return best, first

    search_block = hs.Histograms.search_block

    def remember(self, level, hist, at, nodes, bin_code, splits):
        self.level, self.nodes = level, nodes
        return search_block(self, level, hist, at, nodes, bin_code, splits)

    monkeypatch.setattr(hs.Histograms, "squared_choice", both)
    monkeypatch.setattr(hs.Histograms, "search_block", remember)
    X, Y, w, layout = _problem(13, "squared_error", weighted=weighted, missing=True)
    grow_tree_levelwise(X, Y, w, criterion=layout, max_depth=6, max_bins=255, **options)
    assert sum(checked) > 20


def _numpy_class_choice(self, hist, at, drawn, reference):
    """The classification choice before the compiled scan: every candidate's numpy gain
    (:meth:`Histograms.gains`) and ``choose_best_gains``, as a score."""
    from climbing_trees._ties import choose_best_gains

    level, nodes = self.level, self.nodes
    w_t = self.node_weights(hist, at)
    const = w_t if self.fit.criterion == "gini" else 0.0
    gains = self.gains(hist[at], level, nodes)
    gains[~drawn] = -np.inf
    best, first = choose_best_gains(gains.reshape(at.size, -1), const, w_t, reference)
    return np.where(np.isfinite(best), (const - best) / w_t, np.inf), first


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("n_classes", [2, 5])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("missing", [False, True])
@pytest.mark.parametrize("n_outputs", [1, 2])
def test_compiled_class_scan_is_the_numpy_search(monkeypatch, criterion, n_classes, weighted,
                                                 missing, n_outputs):  # fmt: skip
    """The compiled classification scan (the compiled builder's gains, near list and
    children_score) grows the tree the numpy gains of every candidate grew, array by
    array, on random data with quantile bins (more values than bins), node by node
    from bins and from rows; and each level's winners agree (scores to rounding)."""
    from climbing_trees._levelwise import _histogram_search as hs

    rng = np.random.default_rng(31 + n_classes)
    n, d = 1500, 4
    X = rng.normal(size=(n, d))
    X[:, 1] = np.round(X[:, 1] * 3)  # ties: few values, one bin each
    if missing:
        X[rng.random(X.shape) < 0.1] = np.nan
    labels = [(rng.integers(0, n_classes, n) + (X[:, o] > 0) * (o + 1)) % n_classes
              for o in range(n_outputs)]  # fmt: skip
    Y = np.hstack([one_hot(code, n_classes) for code in labels])
    layout = output_criterion(criterion, [n_classes] * n_outputs)
    w = rng.integers(1, 4, n) * 0.3 if weighted else np.ones(n)
    options = {"criterion": layout, "max_bins": 32, "min_samples_leaf": 2}
    compiled = grow_tree_levelwise(X, Y, w, **options)
    search_block, class_choice, checked = hs.Histograms.search_block, hs.Histograms.class_choice, []

    def remember(self, level, hist, at, nodes, bin_code, splits):
        self.level, self.nodes = level, nodes
        return search_block(self, level, hist, at, nodes, bin_code, splits)

    def both(self, hist, at, drawn, reference):
        score, first = class_choice(self, hist, at, drawn, reference)
        expected, expected_first = _numpy_class_choice(self, hist, at, drawn, reference)
        found = np.isfinite(expected)
        np.testing.assert_array_equal(np.isfinite(score), found)
        np.testing.assert_array_equal(first[found], expected_first[found])
        np.testing.assert_allclose(score[found], expected[found], rtol=1e-12, atol=1e-15)
        checked.append(int(found.sum()))
        return score, first

    monkeypatch.setattr(hs.Histograms, "search_block", remember)
    monkeypatch.setattr(hs.Histograms, "class_choice", both)
    both_ways = grow_tree_levelwise(X, Y, w, **options)
    monkeypatch.setattr(hs.Histograms, "class_choice", _numpy_class_choice)
    numpy_tree = grow_tree_levelwise(X, Y, w, **options)
    assert compiled.node_count > 100 and sum(checked) > 100
    assert_equivalent(compiled, numpy_tree)
    np.testing.assert_array_equal(compiled.threshold, numpy_tree.threshold)
    assert_equivalent(both_ways, numpy_tree)


@pytest.mark.parametrize(
    "Ensemble",
    [ct.RandomForestRegressor, ct.RandomForestClassifier, ct.GradientBoostingRegressor,
     ct.GradientBoostingClassifier],
)  # fmt: skip
def test_ensembles_pass_the_splitter(Ensemble):
    """Forests and boosting hand splitter="hist" and max_bins to their trees, which then
    equal the exact ones where the bins suffice."""
    rng = np.random.default_rng(6)
    X = rng.integers(0, 25, (300, 4)).astype(float)
    y = X[:, 0] + rng.normal(size=300)
    if "Classifier" in Ensemble.__name__:
        y = (y > np.median(y)).astype(int)
    options = {"n_estimators": 4, "random_state": 0, "max_depth": 4}
    exact = Ensemble(**options).fit(X, y)
    hist = Ensemble(splitter="hist", max_bins=32, **options).fit(X, y)
    trees = np.ravel(hist.estimators_)
    assert all(t.splitter == "hist" and t.max_bins == 32 for t in trees)
    for mine, theirs in zip(trees, np.ravel(exact.estimators_), strict=True):
        assert_equivalent(mine.tree_, theirs.tree_)
    few = Ensemble(splitter="hist", max_bins=4, **options).fit(X, y)  # the bins decide
    assert not all(
        np.array_equal(a.tree_.threshold, b.tree_.threshold)
        for a, b in zip(np.ravel(few.estimators_), trees, strict=True)
    )


@pytest.mark.parametrize("max_bins", [8, 255])
@pytest.mark.parametrize("missing", [False, True])
def test_routes_from_codes_are_the_loops_routes(monkeypatch, max_bins, missing):
    """Routing by codes (``code <= c``, Bins.code_cuts) sends every row of every split
    where the loop's ``_routes`` (``x <= threshold`` on X) sends it: quantile bins
    (thresholds on edges), one bin per value (midpoints), missing values, +inf."""
    from climbing_trees._levelwise import _grow
    from climbing_trees._levelwise._binned_rows import BinnedRows, CodeRoutes

    routes, partition, checked = BinnedRows.routes, BinnedRows.partition, []

    def both(self, level, made, split):
        got = routes(self, level, made, split)
        assert isinstance(got[0], CodeRoutes)  # numerical splits: routed by codes
        listed = self.routed(got[0], split)
        expected = _grow._routes(self.fit, level, made, split)
        for mine, theirs in zip(listed, expected, strict=True):
            np.testing.assert_array_equal(mine, theirs)
        checked.append(listed)
        return got

    def one_pass_as_two(self, kept_rows, kept_node, go_left, sizes, split):
        """The one-pass partition moves the rows as the listed routes' partition."""
        index = self.index.copy()
        child_sizes = partition(self, *checked[-1], sizes, split)
        two_passes, self.index = self.index, index
        assert np.array_equal(partition(self, kept_rows, kept_node, go_left, sizes, split),
                              child_sizes)  # fmt: skip
        assert np.array_equal(self.index, two_passes)
        return child_sizes

    monkeypatch.setattr(BinnedRows, "routes", both)
    monkeypatch.setattr(BinnedRows, "partition", one_pass_as_two)
    X, Y, w, layout = _problem(25, "squared_error", weighted=True, missing=missing, n=2000,
                               levels=300)  # fmt: skip
    X[:, 2] = np.round(X[:, 2] / 50)  # few values: one bin each
    tree = grow_tree_levelwise(X, Y, w, criterion=layout, max_bins=max_bins)
    assert len(checked) > 5 and sum(routed[0].size for routed in checked) > 2000
    assert np.isinf(tree.threshold).any() or not missing


def test_code_cuts_route_as_thresholds():
    """``x <= t`` exactly when ``code(x) <= code_cuts(t)``, for every value and the
    thresholds a histogram tree places; None for a threshold inside a quantile bin."""
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.normal(size=3000), rng.integers(0, 9, 3000) * 0.3])
    bins = fit_bins(X, 32)
    codes = bins.codes(X)
    for j in range(2):
        places = bins.edges[j] if bins.values[j] is None else bins.values[j]
        t = np.append(places, np.inf)
        if bins.values[j] is not None:
            t = np.append(t, (places[:-1] + places[1:]) / 2)  # midpoints
        cut = bins.code_cuts(j, t)
        np.testing.assert_array_equal(codes[:, j, None] <= cut, X[:, j, None] <= t)
    assert bins.code_cuts(0, np.array([bins.edges[0][3] + 1e-9])) is None


def test_compiled_partition_is_the_numpy_partition():
    """BinnedRows' one-pass partition moves the rows as Orders' stable partition does."""
    from climbing_trees._levelwise._histogram_kernels import _partition_index
    from climbing_trees._levelwise._orders import _partition

    rng = np.random.default_rng(7)
    n = 500
    sizes = np.array([120, 80, 200, 100])
    index = np.append(rng.permutation(n), n).astype(np.int32)[None, :]
    split = np.array([True, False, True, True])
    node = np.repeat(np.arange(4), sizes)
    keep = split[node]
    kept_rows, kept_node = index[0, :n][keep], node[keep]
    go_left = rng.random(kept_rows.size) < 0.4
    expected = index.copy()
    child_sizes = _partition(expected, kept_rows, kept_node, go_left, sizes, split)
    mine = index.copy()
    n_left = _partition_index(mine[0], kept_rows, kept_node, go_left, sizes.size)
    m = int(child_sizes.sum())
    np.testing.assert_array_equal(mine[0, : m + 1], expected[0, : m + 1])
    np.testing.assert_array_equal(np.concatenate([n_left[split], sizes[split] - n_left[split]]),
                                  child_sizes)  # fmt: skip


@pytest.mark.parametrize("criterion", ["squared_error", "poisson", "gini"])
def test_hist_never_splits_an_almost_constant_feature(criterion):
    """Rule 6 of _ties (scikit-learn's FEATURE_THRESHOLD): a feature whose values
    span 1e-8 is constant for splitter="hist" as for "best" (the same tree)."""
    rng = np.random.default_rng(3)
    X = np.c_[1 + rng.integers(0, 2, 300) * 1e-8, rng.integers(0, 40, 300)]
    signal = X[:, 0] > 1
    if criterion == "gini":
        y = (signal ^ (rng.random(300) < 0.1)).astype(int)
        model = ct.DecisionTreeClassifier
    else:
        y = 1 + 3 * signal + rng.random(300)
        model = ct.DecisionTreeRegressor
    hist = model(criterion=criterion, splitter="hist", max_depth=3).fit(X, y).tree_
    best = model(criterion=criterion, max_depth=3).fit(X, y).tree_
    assert not np.any(hist.feature == 0)
    assert_equivalent(hist, best)


def test_a_feature_with_no_present_value_is_constant():
    """A column missing in every row has no bin of present values: constant (rule 6),
    as for splitter="best", whose tree hist grows."""
    rng = np.random.default_rng(4)
    X = np.c_[np.full(60, np.nan), rng.integers(0, 9, 60)]
    y = X[:, 1] + rng.random(60)
    hist = ct.DecisionTreeRegressor(splitter="hist", max_depth=3).fit(X, y).tree_
    best = ct.DecisionTreeRegressor(max_depth=3).fit(X, y).tree_
    assert_equivalent(hist, best)
    alone = ct.DecisionTreeRegressor(splitter="hist").fit(X[:, :1], y).tree_
    assert alone.node_count == 1


# --- full depth: histograms only where searched, small nodes from their rows -----------


@pytest.mark.parametrize("criterion", ["gini", "entropy", "squared_error", "poisson"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("missing", [False, True])
def test_full_depth_same_tree_as_exact_splitter(request, criterion, weighted, missing):
    """At full depth most nodes are small and searched from their rows (compact
    histograms); the tree is still the exact splitter's, array by array."""
    if (criterion, weighted, missing) == ("squared_error", False, False):
        # A known bug, open: on a CPU without AVX-512 (an AMD EPYC, OpenBLAS's
        # Haswell kernel) the histogram search breaks an exact tie by rounding
        # (node 85: two rows, impurity 6.2e-7, that features 0 and 2 both separate;
        # it takes 2, the exact splitter and grow_tree 0).  Where it passes, it
        # passes.
        request.applymarker(pytest.mark.xfail(reason="tie broken by rounding", strict=False))
    X, Y, w, layout = _problem(
        21, criterion, weighted=weighted, missing=missing, n=1500, d=3, levels=40
    )
    exact = grow_tree_levelwise(X, Y, w, criterion=layout)
    hist = grow_tree_levelwise(X, Y, w, criterion=layout, max_bins=255)
    assert exact.max_depth > 10
    assert_equivalent(hist, exact)


@pytest.mark.parametrize("criterion", ["gini", "squared_error", "poisson"])
@pytest.mark.parametrize("max_bins", [8, 255])
def test_row_search_bound_does_not_change_the_tree(monkeypatch, criterion, max_bins):
    """Searching every node from its bins, every node from its rows, or the small ones
    from their rows: the same histograms (integers), so the same tree, also where
    quantile bins (more values than bins) make it differ from the exact splitter's."""
    from climbing_trees._levelwise import _histogram_plan as plans

    X, Y, w, layout = _problem(22, criterion, weighted=True, missing=True, n=1200,
                               levels=400)  # fmt: skip
    trees = []
    for bound in (0, 16, plans.ROW_SEARCH_MAX, 10**9):
        monkeypatch.setattr(plans, "ROW_SEARCH_MAX", bound)
        trees.append(grow_tree_levelwise(X, Y, w, criterion=layout, max_bins=max_bins))
    assert trees[0].node_count > 100
    for tree in trees[1:]:
        assert_equivalent(tree, trees[0])
        np.testing.assert_array_equal(tree.threshold, trees[0].threshold)


@HYPOTHESIS
@given(seed=st.integers(0, 2**32 - 1), width=st.integers(2, 40))
def test_compact_histograms_are_the_dense_ones_without_empty_bins(seed, width):
    """A node's compact histogram: its non-empty present bins in code order, packed to
    the left, their codes, and the missing bin last; the same sums as node_histograms."""
    from climbing_trees._histograms import compact_histograms

    rng = np.random.default_rng(seed)
    codes, stats, rows, starts, sizes = _random_level(rng, n=120, width=width)
    missing_bin = width - 1
    nodes = np.arange(sizes.size)
    dense = node_histograms(codes, rows, starts, sizes, nodes, stats, width)
    compact, bin_code = compact_histograms(
        codes, rows, starts, sizes, nodes, stats, missing_bin, int(sizes.max()) + 1
    )
    for t in nodes:
        for j in range(codes.shape[1]):
            present = np.flatnonzero(dense[t, j, :-1, 0])
            k = present.size
            np.testing.assert_array_equal(bin_code[t, j, :k], present)
            assert (bin_code[t, j, k:] == -1).all()
            np.testing.assert_array_equal(compact[t, j, :k], dense[t, j, present])
            assert not compact[t, j, k:-1].any()
            np.testing.assert_array_equal(compact[t, j, -1], dense[t, j, -1])


def test_histograms_only_for_searched_nodes(monkeypatch):
    """Full depth: a level's histograms are those of the searched nodes with more than
    ROW_SEARCH_MAX rows and of the siblings their subtractions need, no other (every
    node had one, and the parents' block stayed alive with the children's)."""
    from climbing_trees._levelwise import _histogram_plan as plans

    X, Y, w, layout = _problem(23, "squared_error", weighted=False, missing=True, n=3000,
                               levels=300)  # fmt: skip
    seen = []
    plan_histograms = plans.plan_histograms

    def check(sizes, searched, parent_slot, row_search_max, n_bins):
        plan = plan_histograms(sizes, searched, parent_slot, row_search_max, n_bins)
        big = sizes > row_search_max
        np.testing.assert_array_equal(plan.dense, np.flatnonzero(searched & big))
        np.testing.assert_array_equal(plan.compact, np.flatnonzero(searched & ~big))
        n = sizes.size
        np.testing.assert_array_equal(plan.sibling, (plan.derived + n // 2) % n)
        assert (parent_slot[plan.derived] >= 0).all()
        built = np.union1d(plan.dense, plan.sibling)
        assert np.union1d(plan.summed, plan.derived).tolist() == built.tolist()
        assert np.intersect1d(plan.summed, plan.derived).size == 0
        seen.append((n, built.size, plan.derived.size))
        return plan

    monkeypatch.setattr(plans, "plan_histograms", check)
    grow_tree_levelwise(X, Y, w, criterion=layout, max_bins=255)
    assert len(seen) > 15
    assert sum(built for _, built, _ in seen) < sum(n for n, _, _ in seen) / 4
    assert sum(derived for _, _, derived in seen) > 0


@pytest.mark.parametrize("criterion", ["gini", "squared_error"])
def test_last_level_in_parts_same_tree(monkeypatch, criterion):
    """The last level that may split is not kept: its histograms are made and searched
    a few pairs of siblings at a time (at most SEARCH_CELLS cells), the same tree."""
    from climbing_trees._levelwise import _histogram_plan as plans
    from climbing_trees._levelwise import _histogram_search as hs

    X, Y, w, layout = _problem(24, criterion, weighted=True, missing=True, n=4000,
                               levels=200)  # fmt: skip
    whole = grow_tree_levelwise(X, Y, w, criterion=layout, max_bins=255, max_depth=7)
    blocks = []
    level_histograms = hs.Histograms.level_histograms

    def record(self, level, plan):
        hist = level_histograms(self, level, plan)
        assert hist.shape[0] == plan.summed.size + plan.derived.size
        blocks.append((level.depth, hist.shape[0]))
        return hist

    monkeypatch.setattr(hs.Histograms, "level_histograms", record)
    per_block = 6  # nodes: three pairs of siblings
    monkeypatch.setattr(plans, "SEARCH_CELLS", per_block * X.shape[1] * 256)
    monkeypatch.setattr(plans, "ROW_SEARCH_MAX", 8)
    parts = grow_tree_levelwise(X, Y, w, criterion=layout, max_bins=255, max_depth=7)
    assert_equivalent(parts, whole)
    np.testing.assert_array_equal(parts.threshold, whole.threshold)
    last = [size for depth, size in blocks if depth == 6]
    assert len(last) > 3 and max(last) <= per_block
    assert max(size for depth, size in blocks if depth == 5) > per_block  # kept whole


def test_a_level_without_row_arrays_has_the_same_node_weights():
    """A histogram fit of squared error keeps no node number and weight per row
    (``FitData.level_rows``) nor a fixed-point weight column (``q_col``): the node
    weights summed from the rows are ``bincount``'s bit for bit, and the fixed-point
    node weights the column's."""
    import dataclasses

    from climbing_trees._levelwise._histogram_kernels import _squared_summaries
    from climbing_trees._levelwise._state import fit_data, level_of, node_fixed_weights

    rng = np.random.default_rng(5)
    n = 3000
    X, Y = rng.normal(size=(n, 3)), rng.normal(size=(n, 1))
    w = rng.uniform(0.1, 3.0, size=n) / 7
    options = dict(max_depth=None, min_samples_leaf=1, min_weight_leaf=0.0, is_categorical=None,
                   n_categories=None, random_splits=None, min_samples_split=2,
                   min_impurity_decrease=0.0, categorical_split="auto", min_samples_level=1,
                   max_categorical_candidates=32)  # fmt: skip
    rows = fit_data(X, Y, w, "squared_error", **options)
    light = dataclasses.replace(
        fit_data(X, Y, w, "squared_error", fixed_weight_column=False, **options),
        level_rows=False, summaries=_squared_summaries,  # as histogram_searches sets them
    )
    assert light.q_col is None and rows.q_col is not None
    index = rng.permutation(n).astype(np.int32)
    sizes = np.array([1, 700, 299, 2000])
    full, bare = level_of(rows, index, sizes, None, 1), level_of(light, index, sizes, None, 1)
    assert bare.node_of_pos is None and bare.w_rows is None
    np.testing.assert_array_equal(bare.w_node, full.w_node)
    np.testing.assert_array_equal(bare.positions_nodes(), full.node_of_pos)
    np.testing.assert_array_equal(node_fixed_weights(light, bare), node_fixed_weights(rows, full))


def test_unit_weights_are_not_an_array_of_ones(monkeypatch):
    """Without sample_weight a histogram fit reads one value for every row (a read-only
    view of stride 0, unit_weights), and grows the tree of explicit unit weights."""
    from climbing_trees._levelwise import _grow

    rng = np.random.default_rng(2)
    X = rng.normal(size=(2000, 4))
    y = X[:, 0] * X[:, 1] + rng.normal(size=2000)
    seen, real = [], _grow.fit_data

    def spy(X, Y, sample_weight, *args, **kwargs):
        seen.append(np.asarray(sample_weight).strides)
        return real(X, Y, sample_weight, *args, **kwargs)

    monkeypatch.setattr(_grow, "fit_data", spy)
    implicit = ct.DecisionTreeRegressor(splitter="hist", max_depth=6).fit(X, y)
    explicit = ct.DecisionTreeRegressor(splitter="hist", max_depth=6)
    explicit.fit(X, y, sample_weight=np.ones(2000))
    weighted = ct.DecisionTreeRegressor(splitter="hist", max_depth=6)
    weighted.fit(X, y, sample_weight=np.full(2000, 3.0))  # scaled to 1.5: an array
    assert seen == [(0,), (0,), (8,)]
    np.testing.assert_array_equal(implicit.tree_.threshold, explicit.tree_.threshold)
    np.testing.assert_array_equal(implicit.tree_.value, explicit.tree_.value)
    np.testing.assert_array_equal(implicit.tree_.threshold, weighted.tree_.threshold)
