"""Fuzzing: fit on hundreds of randomly generated, often hostile, datasets.

Each dataset mixes column types (float, int, bool, datetime, text, pandas
``category``, pandas ``str``), odd shapes (one row, one column, many
columns, duplicated rows and column names), extreme values (+-1e308, the
smallest subnormal 5e-324, neighbouring floats from ``np.nextafter``), huge
and tiny sample weights and, sometimes, NaN or bad targets.  Every fit must
either

* work: predictions of the right shape and type, probabilities that sum to
  1, finite regression predictions, leaf ids of real leaves; or
* raise ``ValueError`` / ``TypeError`` whose message says how to fix the
  problem (one of the fragments in ``FIXES``).

Nothing else: no other exception, and no ``RuntimeWarning`` (overflow,
invalid operation) inside the package, which the test turns into errors.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from climbing_trees import (
    TREE_LEAF,
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    export_graphviz,
)
from climbing_trees._validation import _HINTS, power_of_two_scale

N_DATASETS = 300

#: The "how to fix it" part of every error the estimators may raise on bad data.
FIXES = [hint for _, hint in _HINTS] + [
    "use DecisionTreeClassifier",  # regressor given labels
    "rescale y",  # |y| > 1e150
    "drop or impute those rows",  # NaN/inf in the regressor's y
    "weights must be >= 0",
    "use finite weights",
    "give at least one row a positive weight",
    "pass one weight per row",
    "Use '.toarray()'",
    "reshape(-1, 1)",  # 1-D X (scikit-learn's message)
    "must convert them all to strings",  # mixed column-name types (scikit-learn)
    "divide every weight by the same constant",  # weights summing past the largest float
    # categorical features (chapter 6)
    "to treat it as categorical",
    'make "missing" a level of its own',
    "must be hashable",
    'pass "auto", None, a boolean mask',  # a categorical_features name not in X
]

#: Whether the estimators take ``categorical_features`` (chapter 6).  Without
#: it, text columns must be rejected with a clear message.
CATEGORICAL = "categorical_features" in DecisionTreeClassifier().get_params()

TINY = 5e-324  # the smallest positive (subnormal) float
HUGE = np.finfo(float).max


# ---------------------------------------------------------------- generators


def float_column(rng: np.random.Generator, n: int) -> np.ndarray:
    kind = rng.choice(["normal", "extreme", "nextafter", "tiny", "constant", "integers"])
    if kind == "normal":
        return rng.normal(size=n) * 10.0 ** rng.integers(-5, 6)
    if kind == "extreme":  # the whole float range, both signs
        pool = np.array([-HUGE, -1e308, -1e300, -1.0, -TINY, 0.0, TINY, 1.0, 1e300, 1e308, HUGE])
        return rng.choice(pool, size=n)
    if kind == "nextafter":  # values one ulp apart
        base = rng.choice([0.0, 1.0, -3.5, 1e308, -1e-300, TINY])
        up = np.nextafter(base, np.inf)
        down = np.nextafter(base, -np.inf)
        return rng.choice(np.array([down, base, up]), size=n)
    if kind == "tiny":
        return rng.choice(np.array([0.0, TINY, 2 * TINY, 1e-310, 1e-300]), size=n)
    if kind == "constant":
        return np.full(n, rng.normal())
    return rng.integers(-3, 4, size=n).astype(float)


def column(rng: np.random.Generator, n: int, kind: str) -> pd.Series | np.ndarray:
    if kind == "float":
        return float_column(rng, n)
    if kind == "int":
        if rng.random() < 0.2:  # the ends of int64: not exactly representable as floats
            info = np.iinfo(np.int64)
            return rng.choice(np.array([info.min, -1, 0, 1, info.max]), size=n)
        return rng.integers(-1000, 1000, size=n)
    if kind == "bool":
        return rng.random(n) < 0.5
    if kind == "datetime":
        return pd.Series(pd.to_datetime("2024-01-01") + pd.to_timedelta(rng.integers(0, 9, n), "D"))
    levels = np.array(["red", "green", "blue", "", "ünïcode", "1.5"], dtype=object)
    values = rng.choice(levels[: rng.integers(1, len(levels) + 1)], size=n)
    if kind == "object":
        return values
    if kind == "category":
        return pd.Series(pd.Categorical(values))
    return pd.Series(values, dtype="str")  # pandas' string dtype


def make_case(seed: int) -> dict:
    """One random fuzzing case: data, weights, hyperparameters, container."""
    rng = np.random.default_rng(seed)
    task = "classifier" if rng.random() < 0.5 else "regressor"
    n = int(rng.choice([1, 2, 3, rng.integers(4, 40), rng.integers(40, 120)]))
    d = int(rng.choice([1, 2, rng.integers(3, 6), rng.integers(30, 60)]))
    numeric_only = rng.random() < 0.6
    kinds = ["float", "int", "bool", "datetime"]
    p = [0.6, 0.15, 0.15, 0.1]
    if not numeric_only:
        kinds += ["object", "category", "str"]
        p = [0.35, 0.1, 0.1, 0.05, 0.15, 0.15, 0.1]
    columns = {f"x{j}": column(rng, n, rng.choice(kinds, p=p)) for j in range(d)}
    X = pd.DataFrame(columns)
    if n > 1 and rng.random() < 0.2:  # duplicated rows
        X = X.iloc[rng.integers(0, n, size=n)].reset_index(drop=True)
    if rng.random() < 0.1:  # a missing value somewhere
        j = int(rng.integers(d))
        if X.iloc[:, j].dtype.kind in "iub":  # these dtypes cannot hold NaN
            X[X.columns[j]] = X.iloc[:, j].astype(float if rng.random() < 0.5 else object)
        X.iloc[int(rng.integers(n)), j] = np.nan

    if task == "classifier":
        pools = [
            np.array([0, 1, 2]),
            np.array(["yes", "no"], dtype=object),
            np.array([True, False]),
            np.array([-1.5, 2.0]),
        ]
        y = rng.choice(pools[rng.integers(len(pools))], size=n)
        if rng.random() < 0.05:  # a continuous target: rejected
            y = rng.normal(size=n)
    else:
        scale = 10.0 ** rng.choice([-300, -5, 0, 5, 100, 150])
        y = rng.normal(size=n) * scale
        if rng.random() < 0.05:
            y = rng.choice(np.array([0.0, 1e150, -1e150]), size=n)  # at the limit
        if rng.random() < 0.05:
            y = y.astype(object)
            y[0] = "oops"  # text in a numeric target: rejected

    weight_kind = rng.choice(["none", "uniform", "huge", "tiny", "integers", "mixed", "bad"])
    if weight_kind == "none":
        w = None
    elif weight_kind == "uniform":
        w = rng.uniform(0.1, 10.0, size=n)
    elif weight_kind == "huge":
        w = rng.uniform(0.5, 1.0, size=n) * 1e300
    elif weight_kind == "tiny":
        w = rng.choice(np.array([TINY, 2 * TINY, 1e-310]), size=n)
    elif weight_kind == "integers":
        w = rng.integers(0, 4, size=n).astype(float)
    elif weight_kind == "mixed":
        w = rng.choice(np.array([0.0, TINY, 1e-300, 1.0, 1e300]), size=n)
    else:
        bad = [np.zeros(n), -np.ones(n), np.full(n, np.nan), np.ones(n + 1)]
        w = bad[rng.integers(len(bad))]

    def pick(options):  # rng.choice would turn a mixed list into numpy scalars
        return options[rng.integers(len(options))]

    params = {
        "max_depth": pick([None, 1, 3]),
        "min_samples_leaf": pick([1, 2, 0.2]),
        "min_samples_split": pick([2, 5, 0.5]),
        "min_impurity_decrease": pick([0.0, 0.0, 1e-3]),
    }
    if task == "classifier":
        params["criterion"] = pick(["gini", "entropy", "log_loss"])
    text = [j for j in range(d) if X.iloc[:, j].dtype.kind not in "iufbM"]
    if CATEGORICAL:
        params["categorical_split"] = pick(["auto", "one_vs_rest", "partition"])
        choice = pick(["auto", "auto", None, "names", "indices", "mask", "numbers-too"])
        if choice in ("auto", None):
            params["categorical_features"] = choice
        elif choice == "names":
            params["categorical_features"] = [X.columns[j] for j in text]
        elif choice == "indices":
            params["categorical_features"] = text
        elif choice == "mask":
            params["categorical_features"] = [j in text for j in range(d)]
        else:  # numeric columns (extreme floats included) used as levels
            params["categorical_features"] = sorted(set(text) | {int(rng.integers(d))})
    # Missing values, best-first growth and random splits, drawn from a generator of
    # their own so that the cases above stay the same.
    more = np.random.default_rng([seed, 1])
    params["missing_values"] = ["learn", "surrogate"][int(more.random() < 0.3)]
    params["max_leaf_nodes"] = [None, None, 4][int(more.integers(3))]
    if more.random() < 0.2:
        params["splitter"] = "random"
        params["random_state"] = 0
    as_array = rng.random() < 0.3
    if as_array and isinstance(params.get("categorical_features"), list):
        if params["categorical_features"] and isinstance(params["categorical_features"][0], str):
            params["categorical_features"] = text  # an array has no names: use indices
    X = X.to_numpy() if as_array else X
    if not as_array and d > 1 and rng.random() < 0.03:
        X.columns = ["same name"] * d
    return {"task": task, "X": X, "y": y, "w": w, "params": params, "text_columns": text}


# ---------------------------------------------------------------- the test


def fit_strictly(model, X, y, w):
    """Fit and predict with floating-point trouble raised as an error.

    numpy's overflow, invalid-value and division warnings become errors,
    except where the package silences them on purpose with ``np.errstate``
    (an inner ``errstate`` wins), and so does any other ``RuntimeWarning``.
    """
    with (
        warnings.catch_warnings(),
        np.errstate(over="raise", invalid="raise", divide="raise", under="ignore"),
    ):
        warnings.simplefilter("error", RuntimeWarning)
        model.fit(X, y, sample_weight=w)
        out = {"predict": model.predict(X), "apply": model.apply(X)}
        if hasattr(model, "predict_proba"):
            out["predict_proba"] = model.predict_proba(X)
        out["importances"] = model.feature_importances_
        out["graphviz"] = export_graphviz(model)
    return out


def check_outputs(model, X, y, w, out):
    n = len(X)
    tree = model.tree_
    assert out["predict"].shape == (n,)
    assert out["apply"].shape == (n,)
    assert np.all(tree.children_left[out["apply"]] == TREE_LEAF)
    # The training rows that count (positive weight after the exact rescaling)
    # reach the leaves that hold them: the same rule routes them at fit and predict.
    counted = np.ones(n, bool) if w is None else power_of_two_scale(np.asarray(w))[0] > 0
    reached = np.bincount(out["apply"][counted], minlength=tree.node_count)
    leaves = tree.children_left == TREE_LEAF
    np.testing.assert_array_equal(reached[leaves], tree.n_node_samples[leaves])
    importances = out["importances"]
    assert np.all((importances >= 0) & (importances <= 1))
    assert importances.sum() == 0 or abs(importances.sum() - 1) < 1e-9
    assert "-9223372036854775808" not in out["graphviz"]
    assert np.all(np.isfinite(tree.weighted_n_node_samples))
    assert np.all(np.isfinite(tree.impurity)) and np.all(tree.impurity >= 0)
    internal = tree.children_left != TREE_LEAF
    assert not np.any(np.isinf(tree.threshold[internal]))
    if isinstance(model, DecisionTreeClassifier):
        proba = out["predict_proba"]
        assert proba.shape == (n, len(model.classes_))
        assert np.all(np.isfinite(proba)) and np.all(proba >= 0)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
        assert out["predict"].dtype == model.classes_.dtype
        assert set(out["predict"].tolist()) <= set(np.asarray(y).tolist())
    else:
        assert out["predict"].dtype == np.float64
        assert np.all(np.isfinite(out["predict"]))
        y = np.asarray(y, dtype=float)
        # Leaf values are weighted means, so they lie within the targets' range (up to
        # rounding; 1e-300 allows for w * y products that fall among the subnormals).
        tol = 1e-12 * np.abs(y).max() + 1e-300
        assert np.all(out["predict"] >= y.min() - tol)
        assert np.all(out["predict"] <= y.max() + tol)


@pytest.mark.parametrize("seed", range(N_DATASETS))
def test_fit_works_or_fails_clearly(seed):
    case = make_case(seed)
    Estimator = DecisionTreeClassifier if case["task"] == "classifier" else DecisionTreeRegressor
    model = Estimator(**case["params"])
    try:
        out = fit_strictly(model, case["X"], case["y"], case["w"])
    except (ValueError, TypeError) as exc:
        message = str(exc)
        assert any(fix in message for fix in FIXES), f"unclear error: {message!r}"
        return
    check_outputs(model, case["X"], case["y"], case["w"], out)
    # (Without categorical_features, a text column fits only when every level reads
    # as a number, such as "1.5".)
    if case["text_columns"] and case["params"].get("categorical_features") is not None:
        assert np.all(model.is_categorical_[case["text_columns"]])
        check_unseen_levels(model, case["X"], case["text_columns"])


def check_unseen_levels(model, X, text_columns):
    """Predicting rows whose text columns hold a level never seen at fit still works."""
    X_new = X.copy()
    for j in text_columns:
        if isinstance(X_new, pd.DataFrame):
            X_new[X_new.columns[j]] = pd.Series(["never seen"] * len(X_new), dtype=object)
        else:
            X_new[:, j] = "never seen"
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        predictions = model.predict(X_new)
    assert predictions.shape == (len(X_new),)
    assert np.all(model.tree_.children_left[model.apply(X_new)] == TREE_LEAF)


# ---------------------------------------------------------------- predict-time fuzzing


def perturb(rng: np.random.Generator, X, how: str):
    """A hostile variant of the training ``X`` for ``predict``; returns (X_new, rows)."""
    frame = pd.DataFrame(X) if not isinstance(X, pd.DataFrame) else X
    rows = np.arange(len(frame))
    if how == "rows":  # a shuffled subset, down to a single row
        rows = rng.permutation(len(frame))[: int(rng.integers(1, len(frame) + 1))]
        new = frame.iloc[rows]
    else:
        new = frame.copy()
        numeric = [j for j in range(new.shape[1]) if new.iloc[:, j].dtype.kind in "fi"]
        j = int(rng.choice(numeric)) if numeric else None
        if how == "extreme" and j is not None:
            new[new.columns[j]] = rng.choice(
                np.array([-HUGE, -1e308, -TINY, 0.0, TINY, np.nextafter(1.0, 2.0), HUGE]),
                size=len(new),
            )
        elif how == "nan" and j is not None:
            new[new.columns[j]] = new.iloc[:, j].astype(float)
            new.iloc[int(rng.integers(len(new))), j] = np.nan
        elif how == "drop-column":
            new = new.drop(columns=new.columns[int(rng.integers(new.shape[1]))])
    if not isinstance(X, pd.DataFrame):
        new = new.to_numpy()
    return new, rows


# Dropping the only column of a DataFrame leaves no names: scikit-learn warns, then raises.
@pytest.mark.filterwarnings("ignore:X does not have valid feature names:UserWarning")
@pytest.mark.parametrize("seed", range(N_DATASETS, N_DATASETS + 100))
def test_predict_works_or_fails_clearly(seed):
    case = make_case(seed)
    Estimator = DecisionTreeClassifier if case["task"] == "classifier" else DecisionTreeRegressor
    model = Estimator(**case["params"])
    try:
        out = fit_strictly(model, case["X"], case["y"], case["w"])
    except (ValueError, TypeError) as exc:
        assert any(fix in str(exc) for fix in FIXES), f"unclear error: {exc}"
        return
    rng = np.random.default_rng(seed)
    how = str(rng.choice(["rows", "extreme", "nan", "drop-column"]))
    X_new, rows = perturb(rng, case["X"], how)
    tree_before = model.tree_
    try:
        with (
            warnings.catch_warnings(),
            np.errstate(over="raise", invalid="raise", divide="raise", under="ignore"),
        ):
            warnings.simplefilter("error", RuntimeWarning)
            predictions = model.predict(X_new)
    except (ValueError, TypeError) as exc:
        assert how in ("nan", "drop-column"), f"{how}: {exc}"
        assert any(fix in str(exc) for fix in FIXES), f"unclear error: {exc}"
    else:
        assert how != "drop-column"
        assert predictions.shape == (len(X_new),)
        if how == "rows":  # a row's prediction does not depend on the other rows
            np.testing.assert_array_equal(predictions, out["predict"][rows])
    assert model.tree_ is tree_before
