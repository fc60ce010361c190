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


@pytest.fixture(scope="module")
def client():
    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    with Client(cluster) as client:
        yield client
    cluster.close()


def assert_same_bits(a: ct.Tree, b: ct.Tree) -> None:
    """Every array of the two trees, bit for bit (NaN where NaN)."""
    for name in TREE_ARRAYS:
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
    ("gini", False, False),
    ("entropy", True, True),
    ("log_loss", True, False),
    ("squared_error", True, True),
    ("squared_error", False, False),
    ("squared_error", False, True),
    ("poisson", True, True),
]


FIXTURE = [HealthCheck.function_scoped_fixture]


@pytest.mark.parametrize(("criterion", "missing", "weighted"), CASES)
@settings(max_examples=4, deadline=None, suppress_health_check=FIXTURE)
@given(data=st.data())
def test_same_tree_for_any_chunking(client, criterion, missing, weighted, data):
    seed = data.draw(st.integers(0, 2**16), label="seed")
    X, y, w = _problem(seed, criterion, missing=missing, weighted=weighted)
    chunks = data.draw(chunkings(len(X)), label="chunks")
    classifier = criterion in ("gini", "entropy", "log_loss")
    Estimator = ct.DecisionTreeClassifier if classifier else ct.DecisionTreeRegressor
    options = {"criterion": criterion, "splitter": "hist", "max_depth": 6, "max_bins": 16}
    memory = Estimator(**options).fit(X, y, sample_weight=w)
    Xd = da.from_array(X, chunks=(chunks, X.shape[1]))
    yd = da.from_array(y, chunks=(chunks,))
    wd = None if w is None else da.from_array(w, chunks=(chunks,))
    on_dask = Estimator(**options).fit(Xd, yd, sample_weight=wd)
    assert memory.tree_.node_count > 7  # a real tree
    assert_same_bits(on_dask.tree_, memory.tree_)
    if classifier:
        np.testing.assert_array_equal(on_dask.classes_, memory.classes_)


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
    """Not a dask.array (a bag here; a dask DataFrame alike): a clear error."""
    import dask.bag as db

    X, y, _ = _problem(1, "squared_error", missing=False, weighted=False, n=100)
    rows = db.from_sequence(list(X), npartitions=3)
    with pytest.raises(TypeError, match="to_dask_array"):
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


@pytest.mark.parametrize("Forest", [ct.RandomForestRegressor, ct.ExtraTreesRegressor])
def test_forests_refuse_dask_arrays_instead_of_computing_them(client, Forest):
    X, y, _ = _problem(3, "squared_error", missing=False, weighted=False, n=100)
    with pytest.raises(TypeError, match="DecisionTreeRegressor"):
        Forest(n_estimators=2).fit(da.from_array(X, chunks=(30, 4)), y)


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
    # Two rounds a level (histograms, then routing), four to set up: check,
    # keep, sample, bin.
    assert report["rounds"] == 4 + 2 * len(levels)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"splitter": "best"}, "splitter='hist'"),
        ({"criterion": "absolute_error"}, "medians"),
        ({"missing_values": "surrogate"}, "missing_values='learn'"),
        ({"max_features": 2}, "max_features=None"),
        ({"categorical_features": [0]}, "encode the categories"),
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


def test_infinite_values_are_refused(client):
    X, y, _ = _problem(1, "squared_error", missing=False, weighted=False, n=100)
    X[7, 2] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        ct.DecisionTreeRegressor(splitter="hist").fit(da.from_array(X, chunks=(30, 4)), y)


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
            pid = client.run(os.getpid, workers=[victim])[victim]
            os.kill(pid, signal.SIGKILL)
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
    again = ct.DecisionTreeRegressor(splitter="hist", max_depth=6).fit(Xd, y)
    assert_same_bits(again.tree_, tree.tree_)
