"""A histogram tree fitted on Dask equals the in-memory one, bit for bit, for any chunking.

One small LocalCluster (2 process workers, 1 thread each) serves the whole module.
"""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest

pytest.importorskip("dask.array", reason="dask is an optional extra: pip install '.[dask]'")
pytest.importorskip("distributed", reason="distributed is an optional extra: '.[dask]'")

import dask.array as da  # noqa: E402
import pandas as pd  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import climbing_trees as ct  # noqa: E402
from climbing_trees import _dask  # noqa: E402
from climbing_trees._binning import SUBSAMPLE, fit_bins  # noqa: E402

TREE_ARRAYS = [
    "children_left", "children_right", "feature", "threshold", "value", "impurity",
    "n_node_samples", "weighted_n_node_samples", "missing_go_to_left",
]  # fmt: skip


CATEGORY_ARRAYS = [
    "categories_unseen_left", "categories_start", "categories_stop", "categories_levels",
]  # fmt: skip


@pytest.fixture(scope="module")
def client():
    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    with Client(cluster) as client:
        yield client
    cluster.close()


def assert_same_bits(a: ct.Tree, b: ct.Tree) -> None:
    """Every array of the two trees, bit for bit (NaN where NaN), categorical sets too."""
    assert a.categories_width == b.categories_width
    for name in TREE_ARRAYS + CATEGORY_ARRAYS:
        x, y = np.asarray(getattr(a, name)), np.asarray(getattr(b, name))
        assert x.shape == y.shape, name
        assert x.tobytes() == y.tobytes(), name


def _problem(seed, criterion, *, missing, weighted, n=600, d=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, 1] = rng.integers(0, 7, n) * 0.1  # few values: one bin per value
    X[:, 2] = np.round(X[:, 2], 1)
    if missing:
        X[rng.random(X.shape) < 0.15] = np.nan
    Z = np.nan_to_num(X)
    signal = Z[:, 0] + Z[:, 1] * (Z[:, 2] > 0)
    if criterion in ("gini", "entropy", "log_loss"):
        y = (signal + rng.normal(size=n) > 0.3).astype(int) + (signal > 1.5)
    elif criterion == "poisson":
        y = rng.poisson(np.exp(signal.clip(-3, 2))).astype(float)
    else:
        y = signal + rng.normal(size=n)
    w = None
    if weighted:  # weights of 0 remove rows; fractions test the fixed point
        w = rng.integers(0, 5, n) * 0.37
    return X, y, w


@st.composite
def chunkings(draw, n):
    """Row chunk sizes: 1 to 64 chunks of uneven sizes summing to ``n``."""
    k = draw(st.integers(1, 64))
    cuts = draw(st.lists(st.integers(1, n - 1), min_size=k - 1, max_size=k - 1, unique=True))
    edges = [0, *sorted(cuts), n]
    return tuple(b - a for a, b in zip(edges[:-1], edges[1:], strict=True))


CASES = [
    ("gini", False, False, None),
    ("entropy", True, True, None),
    ("log_loss", True, False, None),
    ("squared_error", True, True, None),
    ("squared_error", False, False, None),
    ("squared_error", False, True, None),
    ("poisson", True, True, None),
    # Random feature subsets, drawn per node from the ranges of its features.
    ("gini", True, True, "sqrt"),
    ("entropy", False, False, 1),
    ("squared_error", True, True, 2),
    ("squared_error", False, False, 0.5),
    ("poisson", True, False, 3),
]


FIXTURE = [HealthCheck.function_scoped_fixture]


@pytest.mark.parametrize(("criterion", "missing", "weighted", "max_features"), CASES)
@settings(max_examples=4, deadline=None, suppress_health_check=FIXTURE)
@given(data=st.data())
def test_same_tree_for_any_chunking(client, criterion, missing, weighted, max_features,
                                    data):  # fmt: skip
    seed = data.draw(st.integers(0, 2**16), label="seed")
    X, y, w = _problem(seed, criterion, missing=missing, weighted=weighted)
    chunks = data.draw(chunkings(len(X)), label="chunks")
    classifier = criterion in ("gini", "entropy", "log_loss")
    Estimator = ct.DecisionTreeClassifier if classifier else ct.DecisionTreeRegressor
    options = {"criterion": criterion, "splitter": "hist", "max_depth": 6, "max_bins": 16,
               "max_features": max_features, "random_state": seed}  # fmt: skip
    memory = Estimator(**options).fit(X, y, sample_weight=w)
    Xd = da.from_array(X, chunks=(chunks, X.shape[1]))
    yd = da.from_array(y, chunks=(chunks,))
    wd = None if w is None else da.from_array(w, chunks=(chunks,))
    on_dask = Estimator(**options).fit(Xd, yd, sample_weight=wd)
    assert memory.tree_.node_count > 7  # a real tree
    assert_same_bits(on_dask.tree_, memory.tree_)
    if classifier:
        np.testing.assert_array_equal(on_dask.classes_, memory.classes_)


def _categorical_problem(seed, criterion, *, missing, weighted, n=600):
    """``_problem``'s columns 0 to 2 and two categorical ones: column 3, seven levels
    (odd numbers among them: -2, 0.5, 1e9), column 4, thirty levels (more than
    ``max_bins``), both driving ``y``."""
    X, y, w = _problem(seed, criterion, missing=missing, weighted=weighted, n=n, d=3)
    rng = np.random.default_rng(seed + 1)
    few = np.array([-2.0, 0.0, 0.5, 1.0, 3.0, 7.0, 1e9])
    a = few[rng.integers(0, few.size, n)]
    b = rng.integers(0, 30, n).astype(float)
    effect_a = np.isin(a, [-2.0, 3.0, 1e9]) * 1.5
    effect_b = (b % 3 == 0) * 1.0 - (b % 5 == 1) * 0.8
    if criterion in ("gini", "entropy", "log_loss"):
        y = (y + (effect_a + effect_b + rng.normal(size=n) > 0.7)) % 3
    elif criterion == "poisson":
        y = y + rng.poisson(np.exp(effect_a + effect_b))
    else:
        y = y + 2 * effect_a + 2 * effect_b
    if missing:
        a[rng.random(n) < 0.1] = np.nan
        b[rng.random(n) < 0.1] = np.nan
    return np.column_stack([X, a, b]), y, w


CATEGORICAL_CASES = [
    ("gini", False, False, "auto", None),
    ("entropy", True, True, "auto", None),
    ("log_loss", True, False, "partition", None),
    ("gini", True, True, "one_vs_rest", None),
    ("squared_error", True, True, "auto", None),
    ("squared_error", False, False, "one_vs_rest", None),
    ("poisson", True, True, "auto", None),
    ("gini", True, True, "auto", "sqrt"),  # subsets drawn among both kinds of feature
    ("squared_error", True, True, "auto", 3),
]


@pytest.mark.parametrize(("criterion", "missing", "weighted", "split", "max_features"),
                         CATEGORICAL_CASES)  # fmt: skip
@settings(max_examples=3, deadline=None, suppress_health_check=FIXTURE)
@given(data=st.data())
def test_same_categorical_tree_for_any_chunking(client, criterion, missing, weighted, split,
                                                max_features, data):  # fmt: skip
    """Categorical features (levels collected over the shards, NaN a level, weights,
    every criterion and categorical search): the in-memory tree, bit for bit."""
    seed = data.draw(st.integers(0, 2**16), label="seed")
    X, y, w = _categorical_problem(seed, criterion, missing=missing, weighted=weighted)
    chunks = data.draw(chunkings(len(X)), label="chunks")
    classifier = criterion in ("gini", "entropy", "log_loss")
    Estimator = ct.DecisionTreeClassifier if classifier else ct.DecisionTreeRegressor
    options = {"criterion": criterion, "splitter": "hist", "max_depth": 6, "max_bins": 16,
               "categorical_features": [3, 4], "categorical_split": split,
               "max_features": max_features, "random_state": seed}  # fmt: skip
    memory = Estimator(**options).fit(X, y, sample_weight=w)
    Xd = da.from_array(X, chunks=(chunks, X.shape[1]))
    on_dask = Estimator(**options).fit(Xd, da.from_array(y, chunks=(chunks,)), w)
    assert memory.tree_.node_count > 7  # a real tree
    assert np.isnan(memory.tree_.threshold[memory.tree_.feature >= 3]).any()  # sets
    assert_same_bits(on_dask.tree_, memory.tree_)
    np.testing.assert_array_equal(on_dask.is_categorical_, memory.is_categorical_)
    for ours, theirs in zip(on_dask.categories_, memory.categories_, strict=True):
        assert (ours is None) == (theirs is None)
        if ours is not None:
            assert ours.dtype == theirs.dtype == object
            assert pd.isna(ours).tolist() == pd.isna(theirs).tolist()
            assert [v for v in ours if not pd.isna(v)] == [v for v in theirs if not pd.isna(v)]
    np.testing.assert_array_equal(on_dask.predict(X), memory.predict(X))
    np.testing.assert_array_equal(on_dask.predict(Xd).compute(), memory.predict(X))


def test_categorical_rounds_are_reported_and_inf_is_a_level(client):
    """Two set-up rounds more (levels, codes), the codes counted as received; ``inf``
    in a categorical column is a level, as in memory (refused in a numerical one)."""
    X, y, _ = _categorical_problem(5, "squared_error", missing=True, weighted=False)
    X[::50, 4] = np.inf
    options = {"splitter": "hist", "max_depth": 5, "categorical_features": [3, 4]}
    memory = ct.DecisionTreeRegressor(**options).fit(X, y)
    tree = ct.DecisionTreeRegressor(**options).fit(da.from_array(X, chunks=(70, 5)), y)
    assert_same_bits(tree.tree_, memory.tree_)
    assert np.isinf(tree.categories_[4][-2]) and pd.isna(tree.categories_[4][-1])
    report = tree.fit_report_
    assert report["setup_rounds"] == 5  # load, levels, codes, sample, bin
    assert report["rounds"] == 5 + sum(level["rounds"] for level in report["levels"])
    assert report["bytes"] >= len(X) * 2  # a byte a row and categorical column
    X[3, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        ct.DecisionTreeRegressor(**options).fit(da.from_array(X, chunks=(70, 5)), y)


def test_only_categorical_columns(client):
    """No numerical column: the client holds every code and grows the tree in memory."""
    X, y, w = _categorical_problem(6, "gini", missing=True, weighted=True)
    X = X[:, 3:]
    options = {"splitter": "hist", "max_depth": 5, "categorical_features": [True, True]}
    memory = ct.DecisionTreeClassifier(**options).fit(X, y, sample_weight=w)
    tree = ct.DecisionTreeClassifier(**options)
    tree.fit(da.from_array(X, chunks=(45, 2)), y, da.from_array(w, chunks=45))
    assert memory.tree_.node_count > 7
    assert_same_bits(tree.tree_, memory.tree_)
    assert tree.fit_report_["levels"] == []  # no histogram round


def _frame_problem(seed, n=700):
    """A pandas frame of every kind of column a dask DataFrame fit takes: floats with NaN,
    a category (text levels in their own order, one unused, NaN), ints, bools."""
    rng = np.random.default_rng(seed)
    islands = pd.Categorical(
        rng.choice(["Biscoe", "Dream", "Torgersen", "Zed"], n),
        categories=["Zed", "Torgersen", "Unused", "Dream", "Biscoe"],
    )
    frame = pd.DataFrame({
        "x": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n)),
        "island": islands,
        "k": rng.integers(0, 6, n),
        "flag": rng.random(n) < 0.4,
    })  # fmt: skip
    frame.loc[rng.random(n) < 0.1, "island"] = np.nan
    signal = (
        np.nan_to_num(frame["x"].to_numpy())
        + 2.0 * (frame["island"] == "Dream")
        - 1.5 * (frame["island"] == "Zed")
        + frame["flag"]
        + 0.4 * (frame["k"] % 3)
    )
    return frame, signal.to_numpy() + rng.normal(size=n)


@pytest.mark.parametrize("npartitions", [1, 7, 33])
@pytest.mark.parametrize("categorical_features", ["auto", ["island", "k"]])
def test_a_dask_dataframe_fits_the_in_memory_tree(client, npartitions, categorical_features):
    """Category (known), bool and listed int columns are categorical as in a pandas
    fit: the same tree, levels and names; predict on the dask DataFrame is lazy."""
    import dask.dataframe as dd

    frame, y = _frame_problem(npartitions)
    w = np.random.default_rng(1).integers(0, 4, len(frame)) * 0.5
    for Estimator, target in [(ct.DecisionTreeRegressor, y), (ct.DecisionTreeClassifier,
                                                               (y > 0.5).astype(int))]:  # fmt: skip
        options = {"splitter": "hist", "max_depth": 6, "max_bins": 8,
                   "categorical_features": categorical_features}  # fmt: skip
        memory = Estimator(**options).fit(frame, target, sample_weight=w)
        Xd = dd.from_pandas(frame, npartitions=npartitions)
        on_dask = Estimator(**options).fit(Xd, dd.from_pandas(pd.Series(target),
                                                              npartitions=3), w)  # fmt: skip
        assert np.isnan(memory.tree_.threshold[memory.tree_.feature == 1]).any()  # sets
        assert_same_bits(on_dask.tree_, memory.tree_)
        assert list(on_dask.feature_names_in_) == list(memory.feature_names_in_)
        np.testing.assert_array_equal(on_dask.is_categorical_, memory.is_categorical_)
        for ours, theirs in zip(on_dask.categories_, memory.categories_, strict=True):
            assert (ours is None) == (theirs is None)
            if ours is not None:
                assert [type(v) for v in ours] == [type(v) for v in theirs]
                assert pd.isna(ours).tolist() == pd.isna(theirs).tolist()
                assert [v for v in ours if not pd.isna(v)] == [v for v in theirs
                                                                if not pd.isna(v)]  # fmt: skip
        methods = ["predict", "apply"] + (["predict_proba"] if Estimator is
                                          ct.DecisionTreeClassifier else [])  # fmt: skip
        for method in methods:
            lazy = getattr(on_dask, method)(Xd)
            assert isinstance(lazy, da.Array)
            np.testing.assert_array_equal(lazy.compute(), getattr(memory, method)(frame))
        path = on_dask.decision_path(Xd)
        assert (path != memory.decision_path(frame)).nnz == 0
        report = on_dask.fit_report_  # the frame travels inside the graph: counted
        assert report["graph_bytes"] >= frame.memory_usage(deep=True).sum()
        n_cat = int(memory.is_categorical_.sum())
        assert report["setup_rounds"] == 6  # load, levels, codes, keep, sample, bin
        assert report["bytes"] >= len(frame) * n_cat  # a byte a row and categorical column


def test_a_dask_dataframe_with_unknown_categories_or_text_is_refused(client):
    import dask.dataframe as dd

    frame, y = _frame_problem(2, n=200)
    tree = ct.DecisionTreeRegressor(splitter="hist", max_depth=3).fit(frame, y)
    before = tree.tree_.threshold.copy()
    text = frame.assign(island=frame["island"].astype(object).astype(str))
    unknown = dd.from_pandas(text, npartitions=3).astype({"island": "category"})
    assert not unknown["island"].cat.known
    with pytest.raises(ValueError, match=r"categorize\(columns=\['island'\]\).*cat\.as_known"):
        tree.fit(unknown, y)
    with pytest.raises(ValueError, match=r"categorize\(columns=\['island'\]\).*as_known"):
        tree.fit(dd.from_pandas(text, npartitions=3), y)
    np.testing.assert_array_equal(tree.tree_.threshold, before)  # kept
    # (Under a distributed client, .cat.as_known() of a text category leaves it unknown
    # with pandas 3 here; categorize() finds the levels.)
    known = unknown.categorize(columns=["island"])
    on_dask = ct.DecisionTreeRegressor(splitter="hist", max_depth=3).fit(known, y)
    memory = ct.DecisionTreeRegressor(splitter="hist", max_depth=3).fit(
        text.astype({"island": "category"}), y
    )
    assert_same_bits(on_dask.tree_, memory.tree_)


@pytest.mark.parametrize(
    ("Estimator", "options"),
    [
        (ct.DecisionTreeRegressor, {"max_leaf_nodes": 9, "min_samples_leaf": 5}),
        (ct.DecisionTreeRegressor, {"min_impurity_decrease": 0.01, "ccp_alpha": 0.001}),
        (ct.DecisionTreeClassifier, {"class_weight": "balanced", "min_samples_split": 30}),
        (ct.DecisionTreeClassifier, {"min_weight_fraction_leaf": 0.02, "max_bins": 7}),
    ],
)
def test_stopping_and_pruning_options(client, Estimator, options):
    classifier = Estimator is ct.DecisionTreeClassifier
    X, y, w = _problem(9, "gini" if classifier else "squared_error", missing=True,
                       weighted=True)  # fmt: skip
    options = {"splitter": "hist", "max_depth": 7, **options}
    memory = Estimator(**options).fit(X, y, sample_weight=w)
    chunks = (17, 200, 3, 380)
    on_dask = Estimator(**options).fit(da.from_array(X, chunks=(chunks, 4)), y, w)
    assert memory.tree_.node_count > 3
    assert_same_bits(on_dask.tree_, memory.tree_)


def test_several_outputs(client):
    X, y, w = _problem(11, "squared_error", missing=True, weighted=True)
    Y = np.column_stack([y, np.sin(3 * y)])
    options = {"splitter": "hist", "max_depth": 6}
    memory = ct.DecisionTreeRegressor(**options).fit(X, Y, sample_weight=w)
    on_dask = ct.DecisionTreeRegressor(**options).fit(
        da.from_array(X, chunks=(50, 4)), da.from_array(Y, chunks=(50, 2)), w
    )
    assert_same_bits(on_dask.tree_, memory.tree_)


def test_other_dask_collections_are_refused_with_the_way_to_pass_them(client):
    """Neither a dask.array nor a dask DataFrame (a bag here): a clear error."""
    import dask.bag as db

    X, y, _ = _problem(1, "squared_error", missing=False, weighted=False, n=100)
    rows = db.from_sequence(list(X), npartitions=3)
    with pytest.raises(TypeError, match="dask.array or a dask DataFrame"):
        ct.DecisionTreeRegressor(splitter="hist").fit(rows, y)


def test_a_refit_on_dask_keeps_no_attribute_of_the_former_fit(client):
    """A DataFrame fit leaves feature names; a Dask refit has none, so none stays."""
    import pandas as pd

    X, y, _ = _problem(2, "squared_error", missing=False, weighted=False, n=100)
    tree = ct.DecisionTreeRegressor(splitter="hist", max_depth=3)
    tree.fit(pd.DataFrame(X, columns=list("abcd")), y)
    assert hasattr(tree, "feature_names_in_")
    tree.fit(da.from_array(X, chunks=(30, 4)), y)
    assert not hasattr(tree, "feature_names_in_")
    memory = ct.DecisionTreeRegressor(splitter="hist", max_depth=3).fit(X, y)
    fitted = {k for k in vars(tree) if k.endswith("_") and not k.startswith("__")}
    assert fitted == {k for k in vars(memory) if k.endswith("_")} | {"fit_report_"}


@pytest.mark.parametrize(
    ("Forest", "options"),
    [
        (ct.RandomForestRegressor, {"oob_score": True}),
        (ct.ExtraTreesRegressor, {"bootstrap": True, "max_samples": 0.7}),
        (ct.RandomForestClassifier, {"class_weight": "balanced_subsample"}),
        (ct.ExtraTreesClassifier, {}),
    ],
)
def test_a_forest_on_dask_grows_the_in_memory_trees_on_the_workers(
    client, monkeypatch, Forest, options
):
    """Each tree grows in memory on a worker, with the in-memory forest's seeds and
    weights: the same trees, bit for bit, and the same out-of-bag estimates."""
    classifier = Forest in (ct.RandomForestClassifier, ct.ExtraTreesClassifier)
    X, y, w = _problem(3, "gini" if classifier else "squared_error", missing=True,
                       weighted=True, n=300)  # fmt: skip
    options = {"n_estimators": 5, "max_depth": 5, "random_state": 4, **options}
    memory = Forest(**options).fit(X, y, sample_weight=w)

    def not_here(*args, **kwargs):
        raise AssertionError("a tree grown on the client")

    # The workers are other processes: their trees still grow.
    monkeypatch.setattr(ct.DecisionTreeRegressor, "_grow", not_here)
    monkeypatch.setattr(ct.DecisionTreeClassifier, "_grow", not_here)
    on_dask = Forest(**options).fit(da.from_array(X, chunks=(70, 4)), y, w)
    assert len(on_dask.estimators_) == 5
    for ours, theirs in zip(on_dask.estimators_, memory.estimators_, strict=True):
        assert ours.random_state == theirs.random_state
        assert_same_bits(ours.tree_, theirs.tree_)
    np.testing.assert_array_equal(on_dask.predict(X), memory.predict(X))
    if options.get("oob_score"):
        assert on_dask.oob_score_ == memory.oob_score_


def test_a_forest_of_other_trees_refuses_data_larger_than_a_worker(client, monkeypatch):
    """Over FOREST_SHARE of a worker's memory, trees grow over the cluster, which only
    histogram trees do: any other splitter is refused, the error naming
    splitter='hist' (X is not computed, nothing is loaded)."""
    X, y, _ = _problem(3, "squared_error", missing=False, weighted=False, n=100)
    monkeypatch.setattr(_dask, "FOREST_SHARE", 1e-9)
    monkeypatch.setattr(da.Array, "compute", lambda *a, **k: pytest.fail("computed"))
    monkeypatch.setattr(_dask, "_shards", lambda *a, **k: pytest.fail("loaded"))
    for Forest in (ct.RandomForestRegressor, ct.ExtraTreesClassifier):
        with pytest.raises(ValueError, match=r"splitter='hist'"):
            Forest(n_estimators=2).fit(da.from_array(X, chunks=(30, 4)), y > 0)
    with pytest.raises(ValueError, match="medians"):  # what histogram trees cannot sum
        ct.RandomForestRegressor(n_estimators=2, splitter="hist",
                                 criterion="absolute_error").fit(
            da.from_array(X, chunks=(30, 4)), y)  # fmt: skip


def _assert_same_forest(on_dask, memory) -> None:
    """Tree by tree, bit for bit; the same out-of-bag estimates, bit for bit."""
    assert len(on_dask.estimators_) == len(memory.estimators_)
    for ours, theirs in zip(on_dask.estimators_, memory.estimators_, strict=True):
        assert ours.random_state == theirs.random_state
        assert_same_bits(ours.tree_, theirs.tree_)
    for name in ("oob_score_", "oob_prediction_", "oob_decision_function_"):
        assert hasattr(on_dask, name) == hasattr(memory, name), name
        if hasattr(memory, name):
            ours, theirs = np.asarray(getattr(on_dask, name)), np.asarray(getattr(memory, name))
            assert ours.tobytes() == theirs.tobytes(), name


FOREST_CASES = [
    (ct.RandomForestRegressor, "squared_error", {"oob_score": True}),
    (ct.RandomForestRegressor, "poisson", {"max_samples": 0.6, "max_features": 2}),
    (ct.ExtraTreesRegressor, "squared_error", {"bootstrap": True, "oob_score": True}),
    (ct.ExtraTreesRegressor, "squared_error", {}),  # no bootstrap: every tree all rows
    (ct.RandomForestClassifier, "gini", {"oob_score": True,
                                         "class_weight": "balanced_subsample"}),
    (ct.RandomForestClassifier, "entropy", {"max_samples": 0.7, "class_weight": "balanced",
                                            "oob_score": True}),
    (ct.ExtraTreesClassifier, "gini", {"bootstrap": False, "class_weight": {0: 1.0, 2: 3.0}}),
]


@pytest.mark.parametrize(("Forest", "criterion", "options"), FOREST_CASES)
def test_a_forest_over_the_cluster_is_the_in_memory_forest(
    client, monkeypatch, Forest, criterion, options
):
    """X over FOREST_SHARE of a worker: each tree grows over the cluster as a histogram
    tree, with the in-memory forest's seeds and weights (bootstrap counts times sample
    and class weights): the same trees, bit for bit (NaN, weights, max_features'
    subsets), and the same out-of-bag estimates, summed on the workers; X is never
    computed on the client, and is loaded once."""
    X, y, w = _problem(3, criterion, missing=True, weighted=True, n=300)
    options = {"n_estimators": 4, "max_depth": 5, "random_state": 4, "splitter": "hist",
               "max_bins": 32, "criterion": criterion, **options}  # fmt: skip
    memory = Forest(**options).fit(X, y, sample_weight=w)
    monkeypatch.setattr(_dask, "FOREST_SHARE", 1e-9)
    monkeypatch.setattr(da.Array, "compute", lambda *a, **k: pytest.fail("computed"))
    loads = []
    shards = _dask._shards
    monkeypatch.setattr(_dask, "_shards", lambda *a: loads.append(1) or shards(*a))
    on_dask = Forest(**options).fit(da.from_array(X, chunks=(70, 4)), y, w)
    assert loads == [1]  # X loaded onto the workers once, for every tree
    _assert_same_forest(on_dask, memory)
    report = on_dask.fit_report_
    assert report["trees"] == len(report["tree_reports"]) == 4
    oob = report["oob"]  # the out-of-bag round: None without oob_score
    assert (oob is None) == (not options.get("oob_score"))
    assert report["rounds"] == report["setup"]["rounds"] + (oob is not None) + sum(
        r["rounds"] for r in report["tree_reports"]
    )
    if oob is not None:  # X's blocks, computed again from the graph that carries X
        assert oob["sent_bytes"] > X.nbytes and oob["bytes"] > 0
        assert report["sent_bytes"] == report["setup"]["sent_bytes"] + oob["sent_bytes"] + sum(
            r["sent_bytes"] for r in report["tree_reports"]
        )
    assert report["setup"]["setup_rounds"] == 1 + 4  # the load, then a fork per tree
    assert report["seconds"] > 0
    assert _no_shard_left(client)


def test_warm_start_over_the_cluster(client, monkeypatch):
    """warm_start over the cluster: the trees kept and the new ones are the in-memory
    forest's, out of bag over all of them; no tree more loads nothing."""
    X, y, w = _problem(5, "squared_error", missing=True, weighted=True, n=300)
    options = {"n_estimators": 4, "max_depth": 4, "random_state": 1, "splitter": "hist",
               "oob_score": True}  # fmt: skip
    memory = ct.RandomForestRegressor(**options).fit(X, y, sample_weight=w)
    monkeypatch.setattr(_dask, "FOREST_SHARE", 1e-9)
    Xd = da.from_array(X, chunks=(70, 4))
    forest = ct.RandomForestRegressor(**{**options, "n_estimators": 2, "warm_start": True})
    forest.fit(Xd, y, w).set_params(n_estimators=4).fit(Xd, y, w)
    _assert_same_forest(forest, memory)
    assert forest.fit_report_["trees"] == 2  # this fit's trees
    monkeypatch.setattr(_dask, "_shards", lambda *a, **k: pytest.fail("loaded"))
    report = forest.fit_report_
    with pytest.warns(UserWarning, match="without increasing n_estimators"):
        forest.fit(Xd, y, w)
    _assert_same_forest(forest, memory)
    assert forest.fit_report_ is report  # nothing changed: the report stays


@settings(max_examples=4, deadline=None, suppress_health_check=FIXTURE)
@given(data=st.data())
def test_a_forest_over_the_cluster_for_any_chunking(client, data):
    """Random chunkings: the in-memory forest, out-of-bag estimates included."""
    seed = data.draw(st.integers(0, 2**16), label="seed")
    X, y, w = _problem(seed, "gini", missing=True, weighted=True, n=400)
    chunks = data.draw(chunkings(len(X)), label="chunks")
    options = {"n_estimators": 3, "max_depth": 4, "random_state": seed, "splitter": "hist",
               "max_bins": 16, "oob_score": True}  # fmt: skip
    memory = ct.RandomForestClassifier(**options).fit(X, y, sample_weight=w)
    share = _dask.FOREST_SHARE
    try:
        _dask.FOREST_SHARE = 1e-9
        Xd = da.from_array(X, chunks=(chunks, X.shape[1]))
        on_dask = ct.RandomForestClassifier(**options).fit(Xd, y, w)
    finally:
        _dask.FOREST_SHARE = share
    _assert_same_forest(on_dask, memory)


@pytest.mark.parametrize(
    ("share", "splitter"),
    [(1e-9, "hist"), (0.25, "hist"), (0.25, None)],  # over the cluster, on workers
)
def test_a_forest_on_a_dask_dataframe(client, monkeypatch, share, splitter):
    """A dask DataFrame (category with known categories, bool and int columns, NaN):
    the forest fitted on the pandas frame, on both routes (in memory on the workers,
    any splitter), out of bag included."""
    import dask.dataframe as dd

    frame, y = _frame_problem(7)
    w = np.random.default_rng(1).integers(0, 4, len(frame)) * 0.5
    options = {"n_estimators": 3, "max_depth": 5, "random_state": 2, "splitter": splitter,
               "max_bins": 8, "oob_score": True, "max_features": 0.5}  # fmt: skip
    memory = ct.RandomForestRegressor(**options).fit(frame, y, sample_weight=w)
    monkeypatch.setattr(_dask, "FOREST_SHARE", share)
    on_dask = ct.RandomForestRegressor(**options).fit(dd.from_pandas(frame, npartitions=7),
                                                      y, w)  # fmt: skip
    _assert_same_forest(on_dask, memory)
    assert list(on_dask.feature_names_in_) == list(memory.feature_names_in_)
    np.testing.assert_array_equal(on_dask.predict(frame), memory.predict(frame))
    assert hasattr(on_dask, "fit_report_") == (share < 1e-3)


def test_beyond_the_subsample_the_same_rows_bin(client):
    """Above 200,000 rows the bins come from the rows the in-memory fit draws."""
    rng = np.random.default_rng(5)
    n = SUBSAMPLE + 1_000
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 9, n) * 1.0])
    y = X[:, 0] + X[:, 1] + rng.normal(size=n)
    options = {"splitter": "hist", "max_depth": 3, "max_bins": 64, "random_state": 7}
    memory = ct.DecisionTreeRegressor(**options).fit(X, y)
    chunks = (50_000, 1, 100_000, n - 150_001)
    on_dask = ct.DecisionTreeRegressor(**options).fit(da.from_array(X, chunks=(chunks, 2)), y)
    assert_same_bits(on_dask.tree_, memory.tree_)
    other = ct.DecisionTreeRegressor(**{**options, "random_state": 8}).fit(X, y)
    assert not np.array_equal(other.tree_.threshold, memory.tree_.threshold)  # drawn rows


def test_predict_is_lazy_and_equal(client):
    X, y, _ = _problem(3, "gini", missing=True, weighted=False)
    Xd = da.from_array(X, chunks=(100, 4))
    tree = ct.DecisionTreeClassifier(splitter="hist", max_depth=5).fit(Xd, y)
    for method in ("predict", "predict_proba"):
        lazy = getattr(tree, method)(Xd)
        assert isinstance(lazy, da.Array)
        np.testing.assert_array_equal(lazy.compute(), getattr(tree, method)(X))
    reg = ct.DecisionTreeRegressor(splitter="hist", max_depth=5).fit(Xd, y * 1.5)
    np.testing.assert_array_equal(reg.predict(Xd).compute(), reg.predict(X))


def test_apply_is_lazy_and_decision_path_chunk_by_chunk(client, monkeypatch):
    """apply: a lazy dask array; decision_path: the in-memory matrix, without X ever
    computed on the client; score: the in-memory score."""
    X, y, _ = _problem(4, "gini", missing=True, weighted=False)
    Xd = da.from_array(X, chunks=(70, 4))
    tree = ct.DecisionTreeClassifier(splitter="hist", max_depth=5).fit(Xd, y)
    leaves = tree.apply(Xd)
    assert isinstance(leaves, da.Array)
    np.testing.assert_array_equal(leaves.compute(), tree.apply(X))
    assert tree.score(Xd, y) == tree.score(X, y)

    def no_whole_X(*args, **kwargs):
        raise AssertionError("X computed on the client")

    monkeypatch.setattr(da.Array, "__array__", no_whole_X)
    path = tree.decision_path(Xd)
    assert (path != tree.decision_path(X)).nnz == 0
    assert path.shape == (len(X), tree.tree_.node_count)


def test_fit_report_counts_the_histogram_bytes(client):
    """Bytes of a level = workers x built nodes x features x (bins + 1) x columns x 8."""
    X, y, _ = _problem(4, "squared_error", missing=False, weighted=False, n=2_000)
    tree = ct.DecisionTreeRegressor(splitter="hist", max_depth=5, max_bins=32)
    tree.fit(da.from_array(X, chunks=(300, 4)), y)
    report = tree.fit_report_
    levels = report["levels"]
    assert len(levels) == tree.get_depth()  # the leaves' level is not searched
    width = fit_bins(X, 32).missing_bin + 1
    columns = 2  # the row count and the centred target (unit weights)
    for level in levels:
        expected = report["workers"] * level["built_nodes"] * X.shape[1] * width * columns * 8
        assert level["histogram_bytes"] == expected
        assert level["bytes"] > level["histogram_bytes"]  # and the routing bits
    assert levels[0]["built_nodes"] == 1 and levels[1]["built_nodes"] == 1
    # Two rounds a level (histograms, then routing), three to set up: load, sample,
    # bin (no zero weight: no round to drop rows).
    assert report["setup_rounds"] == 3
    assert report["rounds"] == 3 + 2 * len(levels)
    # Sent to the workers: the first level carries each row's statistic once.
    assert levels[0]["sent_bytes"] >= len(X) * (columns - 1) * 8
    assert report["sent_bytes"] >= sum(level["sent_bytes"] for level in levels)


def _node_depths(tree: ct.Tree) -> np.ndarray:
    depth = np.zeros(tree.node_count, dtype=int)
    for node in range(tree.node_count):  # children come after their parents
        for child in (tree.children_left[node], tree.children_right[node]):
            if child >= 0:
                depth[child] = depth[node] + 1
    return depth


def test_a_last_level_summed_in_parts_counts_its_rounds(client, monkeypatch):
    """A last level too wide for one block is summed a few pairs at a time, one round
    each, and the report counts them (a small block stands for a wide X)."""
    from climbing_trees._levelwise import _histogram_plan as plans

    X, y, w = _problem(6, "squared_error", missing=True, weighted=True, n=3_000)
    options = {"splitter": "hist", "max_depth": 6, "max_bins": 16}
    width = 17
    monkeypatch.setattr(plans, "SEARCH_CELLS", X.shape[1] * width * 4)  # 2 pairs a block
    memory = ct.DecisionTreeRegressor(**options).fit(X, y, sample_weight=w)
    tree = ct.DecisionTreeRegressor(**options).fit(da.from_array(X, chunks=(700, 4)), y, w)
    assert_same_bits(tree.tree_, memory.tree_)
    report = tree.fit_report_
    last = report["levels"][-1]
    assert last["depth"] == 5 == tree.get_depth() - 1
    n_nodes = int((_node_depths(tree.tree_) == last["depth"]).sum())
    assert n_nodes > 4
    assert last["rounds"] == -(-n_nodes // 4) + 1  # pairs two at a time, then routing
    assert report["setup_rounds"] == 4  # load, keep (zero weights), sample, bin
    assert report["rounds"] == report["setup_rounds"] + sum(
        level["rounds"] for level in report["levels"]
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"splitter": "best"}, "splitter='hist'"),
        ({"criterion": "absolute_error"}, "medians"),
        ({"missing_values": "surrogate"}, "missing_values='learn'"),
        ({"splitter": "random"}, "splitter='random' draws"),
        ({"monotonic_cst": [1, 0, 0, 0]}, "monotonic_cst=None"),
    ],
)
def test_refused_options_name_the_alternative(client, options, message):
    X, y, _ = _problem(1, "squared_error", missing=False, weighted=False, n=100)
    tree = ct.DecisionTreeRegressor(splitter="hist").fit(X, y)  # a previous model
    before = tree.tree_.threshold.copy()
    tree.set_params(**options)
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        tree.fit(da.from_array(X, chunks=(30, 4)), y)
    np.testing.assert_array_equal(tree.tree_.threshold, before)  # kept


@pytest.mark.parametrize("max_features", [None, 1.0, 4])
def test_all_features_are_not_a_random_subset(client, max_features):
    """max_features covering every feature draws nothing: accepted, the same tree."""
    X, y, _ = _problem(8, "squared_error", missing=True, weighted=False, n=300)
    options = {"splitter": "hist", "max_depth": 5, "max_features": max_features}
    memory = ct.DecisionTreeRegressor(**options).fit(X, y)
    on_dask = ct.DecisionTreeRegressor(**options).fit(da.from_array(X, chunks=(70, 4)), y)
    assert_same_bits(on_dask.tree_, memory.tree_)


def test_random_feature_subsets_read_no_feature_on_the_client(client, monkeypatch):
    """max_features on Dask: the workers give each node's ranges, so the client makes
    no copy of X by feature (its X is a placeholder) and never reads one."""
    from climbing_trees._levelwise import _draws, _grow

    X, y, _ = _problem(8, "squared_error", missing=True, weighted=False, n=300)
    options = {"splitter": "hist", "max_depth": 5, "max_features": 2, "random_state": 1}
    memory = ct.DecisionTreeRegressor(**options).fit(X, y)
    made = []
    fit_data = _grow.fit_data
    monkeypatch.setattr(_grow, "fit_data", lambda *a, **k: made.append(fit_data(*a, **k))
                        or made[-1])  # fmt: skip
    monkeypatch.setattr(_draws, "_needed_ranges", lambda *a: pytest.fail("read on the client"))
    on_dask = ct.DecisionTreeRegressor(**options).fit(da.from_array(X, chunks=(70, 4)), y)
    assert made and all(fit.X_by_feature is None for fit in made)
    assert_same_bits(on_dask.tree_, memory.tree_)


def test_infinite_values_are_refused(client):
    X, y, _ = _problem(1, "squared_error", missing=False, weighted=False, n=100)
    X[7, 2] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        ct.DecisionTreeRegressor(splitter="hist").fit(da.from_array(X, chunks=(30, 4)), y)


def _kill(client, victim) -> None:
    """SIGKILL the worker process at ``victim`` (its nanny starts another)."""
    pid = client.run(os.getpid, workers=[victim])[victim]
    os.kill(pid, signal.SIGKILL)


def _no_shard_left(client) -> bool:
    return all(not keys for keys in client.run(_dask.held_shards).values())


def test_a_lost_worker_fails_the_fit_clearly(client, monkeypatch):
    """Kill a worker between two levels: a clear error, the previous model kept."""
    X, y, _ = _problem(2, "squared_error", missing=True, weighted=False, n=2_000)
    Xd = da.from_array(X, chunks=(250, 4))
    tree = ct.DecisionTreeRegressor(splitter="hist", max_depth=6).fit(X, y)
    before = tree.tree_.threshold.copy()
    routes = _dask.RemoteRows.routes

    def kill_at_depth_two(self, level, made, split):
        if level.depth == 2:
            victim = self.cluster.workers[0]
            _kill(client, victim)
            deadline = time.monotonic() + 30
            while victim in client.scheduler_info()["workers"]:
                assert time.monotonic() < deadline
                time.sleep(0.05)
        return routes(self, level, made, split)

    monkeypatch.setattr(_dask.RemoteRows, "routes", kill_at_depth_two)
    with pytest.raises(RuntimeError, match="worker .* was lost"):
        tree.fit(Xd, y)
    np.testing.assert_array_equal(tree.tree_.threshold, before)
    monkeypatch.undo()
    client.wait_for_workers(2, timeout=60)  # the nanny restarts it
    assert _no_shard_left(client)  # the other worker dropped its shard
    again = ct.DecisionTreeRegressor(splitter="hist", max_depth=6).fit(Xd, y)
    assert_same_bits(again.tree_, tree.tree_)


def test_a_worker_killed_during_a_round_fails_the_fit_clearly(client, monkeypatch):
    """Kill a worker while a level's round runs (level 2's routing, just submitted):
    its task never completes (or the next round's never starts, pinned to a worker
    that is gone); the fit fails clearly instead of waiting for ever."""
    rng = np.random.default_rng(3)
    n = 5_000
    X = rng.normal(size=(n, 8))
    y = X[:, 0] + np.sin(X[:, 1]) + rng.normal(size=n)
    Xd = da.from_array(X, chunks=(n // 5, 8))
    tree = ct.DecisionTreeRegressor(splitter="hist", max_depth=2).fit(X, y)
    before = tree.tree_.threshold.copy()
    gather = _dask._Cluster.gather
    killed = []

    def kill_in_the_round(self, tasks):
        if len(self.report["levels"]) == 3 and not killed:
            killed.append(self.workers[-1])  # level 2's routing round, just submitted
            _kill(client, self.workers[-1])
        return gather(self, tasks)

    monkeypatch.setattr(_dask._Cluster, "gather", kill_in_the_round)
    with pytest.raises(RuntimeError, match="worker .* was lost"):
        ct.DecisionTreeRegressor(splitter="hist", max_depth=8).fit(Xd, y)
    assert killed
    monkeypatch.undo()
    np.testing.assert_array_equal(tree.tree_.threshold, before)
    client.wait_for_workers(2, timeout=60)
    deadline = time.monotonic() + 30
    while killed[0] in client.scheduler_info()["workers"]:  # gone for the next test
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert _no_shard_left(client)


def test_a_worker_killed_during_a_forest_fit_fails_it_clearly(client, monkeypatch):
    """A worker killed while the second tree grows over the cluster: the forest's fit
    fails with the clear error, the previous forest is kept, and no shard (nor fork)
    stays on the workers."""
    X, y, _ = _problem(2, "squared_error", missing=True, weighted=False, n=2_000)
    Xd = da.from_array(X, chunks=(250, 4))
    options = {"n_estimators": 3, "max_depth": 5, "splitter": "hist", "random_state": 0}
    forest = ct.RandomForestRegressor(**options).fit(X, y)
    before = [tree.tree_.threshold.copy() for tree in forest.estimators_]
    monkeypatch.setattr(_dask, "FOREST_SHARE", 1e-9)
    routes = _dask.RemoteRows.routes
    killed = []

    def kill_in_the_second_tree(self, level, made, split):
        if level.depth == 1:
            started.append(self.cluster.fit_id)  # each tree: its own fork of the shards
            if len(set(started)) == 2 and not killed:
                killed.append(self.cluster.workers[0])
                _kill(client, killed[0])
                deadline = time.monotonic() + 30
                while killed[0] in client.scheduler_info()["workers"]:
                    assert time.monotonic() < deadline
                    time.sleep(0.05)
        return routes(self, level, made, split)

    started = []
    monkeypatch.setattr(_dask.RemoteRows, "routes", kill_in_the_second_tree)
    with pytest.raises(RuntimeError, match="worker .* was lost"):
        forest.fit(Xd, y)
    assert killed
    for tree, threshold in zip(forest.estimators_, before, strict=True):
        np.testing.assert_array_equal(tree.tree_.threshold, threshold)
    monkeypatch.undo()
    client.wait_for_workers(2, timeout=60)  # the nanny restarts it
    assert _no_shard_left(client)


def test_a_shard_still_loading_when_its_fit_fails_is_dropped(client, monkeypatch):
    """A fit interrupted while its shards load (Ctrl-C, or a worker lost) releases
    the fit at once; the loads still running then keep nothing, instead of leaving
    their shards on the workers for good."""

    def slow_shards(dask_worker):  # each shard takes a second to build
        from climbing_trees import _dask as module

        init = module._Shard.__init__

        def slow(self, *blocks):
            module.loading = "started"
            time.sleep(1.0)
            init(self, *blocks)
            module.loading = "built"

        module._Shard.__init__, module.unpatched_init = slow, init
        module.loading = None

    def loading(dask_worker):
        from climbing_trees import _dask as module

        return module.loading

    def restore(dask_worker):
        from climbing_trees import _dask as module

        module._Shard.__init__ = module.unpatched_init

    X, y, _ = _problem(7, "squared_error", missing=False, weighted=False, n=400)

    def interrupt_while_loading(self, tasks):
        deadline = time.monotonic() + 30
        while set(client.run(loading).values()) != {"started"}:  # both are loading
            assert time.monotonic() < deadline
            time.sleep(0.02)
        self.client.cancel(tasks)
        raise KeyboardInterrupt

    client.run(slow_shards)
    try:
        monkeypatch.setattr(_dask._Cluster, "gather", interrupt_while_loading)
        with pytest.raises(KeyboardInterrupt):
            ct.DecisionTreeRegressor(splitter="hist").fit(da.from_array(X, chunks=90), y)
        monkeypatch.undo()
        deadline = time.monotonic() + 30
        while set(client.run(loading).values()) != {"built"}:  # both loads ended
            assert time.monotonic() < deadline
            time.sleep(0.02)
        time.sleep(0.2)  # from a shard built to its registering: a few statements
        assert _no_shard_left(client)
    finally:
        client.run(restore)


def test_a_worker_paused_for_memory_fails_the_fit_clearly(client, monkeypatch):
    """A worker paused for memory runs no task, and a shard's tasks cannot run on
    another worker: past PAUSED_SECONDS the fit fails and says why and what to do."""
    from distributed.core import Status

    def pause(dask_worker):  # as the memory monitor does, which is kept out of it
        dask_worker.unpatched_pause = dask_worker.memory_manager.memory_pause_fraction
        dask_worker.memory_manager.memory_pause_fraction = False
        dask_worker.status = Status.paused

    def resume(dask_worker):
        dask_worker.status = Status.running
        dask_worker.memory_manager.memory_pause_fraction = dask_worker.unpatched_pause

    X, y, _ = _problem(8, "squared_error", missing=False, weighted=False, n=400)
    tree = ct.DecisionTreeRegressor(splitter="hist", max_depth=3).fit(X, y)
    before = tree.tree_.threshold.copy()
    paused = sorted(client.scheduler_info()["workers"])[-1]
    monkeypatch.setattr(_dask, "PAUSED_SECONDS", 1.0)
    client.run(pause, workers=[paused])
    try:
        with pytest.raises(RuntimeError, match="paused .* more memory .* add workers"):
            tree.fit(da.from_array(X, chunks=90), y)
    finally:
        client.run(resume, workers=[paused])
    np.testing.assert_array_equal(tree.tree_.threshold, before)
    assert _no_shard_left(client)
    again = ct.DecisionTreeRegressor(splitter="hist", max_depth=3).fit(
        da.from_array(X, chunks=90), y
    )  # the worker runs again
    assert_same_bits(again.tree_, tree.tree_)


def test_the_report_counts_x_sent_inside_its_graph(client):
    """X made by da.from_array on the client travels with its graph: counted as sent;
    X made on the workers sends nothing of itself."""
    X, y, _ = _problem(9, "squared_error", missing=False, weighted=False, n=1_000)
    tree = ct.DecisionTreeRegressor(splitter="hist", max_depth=3)
    report = tree.fit(da.from_array(X, chunks=(170, 4)), y).fit_report_
    assert report["graph_bytes"] == X.nbytes
    levels = sum(level["sent_bytes"] for level in report["levels"])
    assert report["sent_bytes"] >= levels + X.nbytes
    Xw = da.random.default_rng(1).normal(size=(1_000, 4), chunks=(250, 4))
    assert tree.fit(Xw, y).fit_report_["graph_bytes"] == 0


def test_a_round_asks_the_scheduler_for_its_workers(client):
    """client.scheduler_info() returns the client's cache, which a periodic refresh
    overwrites with one that lists no worker: read at the wrong moment, every worker
    looks lost.  A round's watch asks the scheduler (the refresh made frequent)."""
    import dask

    class Running:
        def done(self):
            return False

    with dask.config.set({"distributed.client.scheduler-info-interval": "5ms"}):
        fast = Client(client.scheduler.address, set_as_default=False)
    try:
        workers = sorted(client.scheduler_info()["workers"])
        cluster = _dask._Cluster(fast, "watch", workers, np.zeros(2), np.ones(2))
        for _ in range(300):
            cluster.watch([Running(), Running()], {})  # raises LOST if none is seen
        assert sorted(_dask._workers(fast)) == workers
    finally:
        fast.close()


def test_a_shard_is_sized_by_its_arrays():
    from dask.sizeof import sizeof

    _dask.register_sizeof()  # as each worker does when it loads a shard
    shard = _dask._Shard(np.zeros((1_000, 8)))
    assert sizeof(shard) >= 64_000


def test_no_shard_stays_on_the_workers(client):
    """A fit, and a fit refused on the workers' answer (infinity), leave nothing."""
    X, y, _ = _problem(5, "squared_error", missing=True, weighted=True, n=500)
    ct.DecisionTreeRegressor(splitter="hist", max_depth=4).fit(da.from_array(X, chunks=90), y)
    assert _no_shard_left(client)
    X[3, 1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        ct.DecisionTreeRegressor(splitter="hist").fit(da.from_array(X, chunks=(90, 4)), y)
    assert _no_shard_left(client)


SPILL = {  # every managed value goes to disk at once, and nothing pauses or kills
    "distributed.worker.memory.target": False,
    "distributed.worker.memory.spill": 0.05,
    "distributed.worker.memory.pause": False,
    "distributed.worker.memory.terminate": False,
    "distributed.worker.memory.monitor-interval": "1ms",
}


def test_workers_that_spill_to_disk_fit_the_same_tree():
    """Workers above their spill threshold write Dask's data to disk while the rounds
    run; the shards are not Dask data, so the fit neither breaks nor changes."""
    import dask

    rng = np.random.default_rng(7)
    n = 50_000
    X = rng.normal(size=(n, 4))
    X[rng.random(X.shape) < 0.05] = np.nan
    y = np.nan_to_num(X[:, 0]) + np.sin(np.nan_to_num(X[:, 1])) + rng.normal(size=n)
    w = rng.integers(0, 4, n) * 0.5
    options = {"splitter": "hist", "max_depth": 6}
    memory = ct.DecisionTreeRegressor(**options).fit(X, y, sample_weight=w)
    with dask.config.set(SPILL):
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                               memory_limit="500MB", dashboard_address=":0")  # fmt: skip
    try:
        with Client(cluster) as spilling:
            Xd = da.from_array(X, chunks=((1_000, 9_000, 30_000, n - 40_000), 4))
            tree = ct.DecisionTreeRegressor(**options).fit(Xd, y, sample_weight=w)
            assert_same_bits(tree.tree_, memory.tree_)
            writes = spilling.run(
                lambda dask_worker: dask_worker.data.cumulative_metrics[("disk-write", "count")]
            )
            assert all(count > 0 for count in writes.values())  # they did spill
    finally:
        cluster.close()
