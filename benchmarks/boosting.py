"""Histogram gradient boosting against scikit-learn's and LightGBM, one thread each.

``python -m benchmarks --boosting`` prints, for a 200,000 x 20 regression, a
200,000 x 20 binary classification (``make_regression`` /
``make_classification``, 50,000 more rows held out), the same with 10 % of
the values missing, and digits (10 classes, 450 rows held out), 100
iterations with the same parameters (31 leaves, 20 rows per leaf, learning rate 0.1, 255 bins, no
L2, no early stopping), each library's fit time (wall clock and CPU time of
the process, binning included) and held-out loss (mean squared error, log
loss), per data seed, and the median ratios to scikit-learn's.  OpenMP and
BLAS are limited to one thread (threadpoolctl); LightGBM gets
``num_threads=1``.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from sklearn.datasets import make_classification, make_regression
from sklearn.metrics import log_loss, mean_squared_error

N_TRAIN, N_TEST, N_FEATURES, N_ITER = 200_000, 50_000, 20, 100


#: The cases: name -> (task, description).
CASES = {
    "regression": "make_regression 200,000 x 20 (+50,000 held out)",
    "binary": "make_classification 200,000 x 20 (+50,000 held out)",
    "binary, 10% NaN": "the binary case with 10% of the values missing at random",
    "digits": "scikit-learn's digits, 10 classes, 1,347 rows (+450 held out)",
}


def _data(kind: str, seed: int):
    n = N_TRAIN + N_TEST
    if kind == "digits":
        from sklearn.datasets import load_digits
        from sklearn.model_selection import train_test_split

        X, y = load_digits(return_X_y=True)
        X, X_test, y, y_test = train_test_split(X, y, test_size=450, random_state=seed)
        return X, y, X_test, y_test
    if kind == "binary, 10% NaN":
        X, y, X_test, y_test = _data("binary", seed)
        rng = np.random.default_rng(seed)
        X, X_test = X.copy(), X_test.copy()
        X[rng.random(X.shape) < 0.1] = np.nan
        X_test[rng.random(X_test.shape) < 0.1] = np.nan
        return X, y, X_test, y_test
    if kind == "regression":
        X, y = make_regression(n, N_FEATURES, n_informative=10, noise=10.0, random_state=seed)
    else:
        X, y = make_classification(n, N_FEATURES, n_informative=10, random_state=seed)
    return X[:N_TRAIN], y[:N_TRAIN], X[N_TRAIN:], y[N_TRAIN:]


def _models(kind: str) -> dict:
    """The three libraries with the same parameters."""
    import lightgbm
    from sklearn import ensemble

    import climbing_trees

    common = dict(max_iter=N_ITER, learning_rate=0.1, max_leaf_nodes=31, min_samples_leaf=20,
                  l2_regularization=0.0, max_bins=255, early_stopping=False)  # fmt: skip
    lgbm = dict(n_estimators=N_ITER, learning_rate=0.1, num_leaves=31, min_child_samples=20,
                min_child_weight=1e-3, reg_lambda=0.0, max_bin=255, num_threads=1,
                verbose=-1)  # fmt: skip
    if kind == "regression":
        return {
            "climbing_trees": climbing_trees.HistGradientBoostingRegressor(**common),
            "scikit-learn": ensemble.HistGradientBoostingRegressor(**common),
            "lightgbm": lightgbm.LGBMRegressor(**lgbm),
        }
    return {
        "climbing_trees": climbing_trees.HistGradientBoostingClassifier(**common),
        "scikit-learn": ensemble.HistGradientBoostingClassifier(**common),
        "lightgbm": lightgbm.LGBMClassifier(**lgbm),
    }


def _held_out_loss(kind: str, model, X, y) -> float:
    if kind == "regression":
        return mean_squared_error(y, model.predict(X))
    return log_loss(y, model.predict_proba(X))


def boosting_table(seeds=(0,)) -> pd.DataFrame:
    """One row per case, seed and library: fit seconds (wall, CPU) and held-out loss."""
    from threadpoolctl import threadpool_limits

    rows = []
    with threadpool_limits(1):
        for kind in CASES:
            models = _models(kind)
            X, y, _, _ = _data(kind, 0)
            for model in models.values():  # imports and compilation, paid before
                model.set_params(**_short(model)).fit(X[:3000], y[:3000])
            models = _models(kind)
            for seed in seeds:
                X, y, X_test, y_test = _data(kind, seed)
                for library, model in models.items():
                    wall, cpu = time.perf_counter(), time.process_time()
                    model.fit(X, y)
                    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                    loss = _held_out_loss(kind, model, X_test, y_test)
                    rows.append({"case": kind, "seed": seed, "library": library,
                                 "fit wall (s)": wall, "fit cpu (s)": cpu,
                                 "held-out loss": loss})  # fmt: skip
    return pd.DataFrame(rows)


def _short(model) -> dict:
    return {"n_estimators": 2} if "n_estimators" in model.get_params() else {"max_iter": 2}


def ratios(table: pd.DataFrame) -> pd.DataFrame:
    """Per case and library: median time and loss, and their ratios to scikit-learn's."""
    median = table.groupby(["case", "library"], sort=False).median(numeric_only=True)
    median = median.drop(columns="seed")
    reference = median.xs("scikit-learn", level="library")
    out = median.copy()
    for column in ("fit wall (s)", "fit cpu (s)", "held-out loss"):
        out[column + " / sklearn"] = (
            median[column]
            / reference[column].reindex(median.index.get_level_values("case")).to_numpy()
        )
    return out.reset_index()


def run_boosting(repeats: int) -> None:
    seeds = tuple(range(repeats))
    table = boosting_table(seeds)
    print("Histogram gradient boosting; cases:")
    for name, description in CASES.items():
        print(f"  {name}: {description}")
    print(f"{N_ITER} iterations, 31 leaves, min 20 rows per leaf, learning rate 0.1, 255 bins,")
    print("no early stopping; one thread each (threadpoolctl, LightGBM num_threads=1);")
    print("binning included.  Held-out loss: mean squared error / log loss.")
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.to_string(index=False, float_format=lambda x: f"{x:.6g}"))
        print(f"Medians over {len(seeds)} seed(s) and ratios to scikit-learn's:")
        print(ratios(table).to_string(index=False, float_format=lambda x: f"{x:.6g}"))
