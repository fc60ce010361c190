"""Histogram gradient boosting against scikit-learn's and LightGBM, one thread each.

``python -m benchmarks --boosting`` prints, for a 200,000 x 20 regression, a
200,000 x 20 binary classification (``make_regression`` /
``make_classification``, 50,000 more rows held out), the same with 10 % of
the values missing, digits (10 classes, 450 rows held out), and a
100,000-row regression on 3 categorical features of 20, 100 and 500
levels with 10 % NaN and 5 numerical ones (25,000 rows held out), 100
iterations with the same parameters (31 leaves, 20 rows per leaf, learning rate 0.1, 255 bins, no
L2, no early stopping), each library's fit time (wall clock and CPU time of
the process, binning included) and held-out loss (mean squared error, log
loss), per data seed, the median ratios to scikit-learn's, and the spread
of the held-out loss over the seeds (mean, sd, min, max per library, and
the mean paired difference to scikit-learn's).  OpenMP and BLAS are limited
to one thread (threadpoolctl); LightGBM gets ``num_threads=1``.

The categorical case: climbing_trees and LightGBM split the three
categorical features natively (LightGBM with ``categorical_feature`` and
its own categorical defaults, ``cat_smooth=10``, ``max_cat_threshold=32``,
``min_data_per_group=100``); scikit-learn refuses a categorical feature of
more than ``max_bins`` (255) levels, so it gets the 20- and 100-level ones
as categorical and the 500-level one as its numeric codes (ordinal).
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
    "categorical": "100,000 rows (+25,000 held out), 3 categorical features of 20, 100, "
    "500 levels (10% NaN) and 5 numerical ones; scikit-learn: the 500-level one as codes",
}

#: The categorical case: levels of its categorical features (the first columns).
CATEGORICAL_LEVELS = (20, 100, 500)


def _categorical_data(seed: int):
    """Categorical columns (integer codes, unequal frequencies, 10 % NaN), numerical
    ones, a target from each level's effect, the numerical features and noise."""
    rng = np.random.default_rng(seed)
    n = 125_000
    columns, y = [], np.zeros(n)
    for k in CATEGORICAL_LEVELS:
        codes = rng.choice(k, size=n, p=rng.dirichlet(np.ones(k)))
        y += np.r_[rng.normal(size=k), 0.5][codes] * 2.0
        column = codes.astype(float)
        missing = rng.random(n) < 0.1
        column[missing] = np.nan
        y[missing] += 1.0  # missing means something
        columns.append(column)
    numerical = rng.normal(size=(n, 5))
    y += numerical @ rng.normal(size=5) + np.sin(2 * numerical[:, 0]) + rng.normal(size=n)
    X = np.column_stack([*columns, numerical])
    return X[:100_000], y[:100_000], X[100_000:], y[100_000:]


def _data(kind: str, seed: int):
    n = N_TRAIN + N_TEST
    if kind == "categorical":
        return _categorical_data(seed)
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
    if kind == "categorical":
        native = list(range(len(CATEGORICAL_LEVELS)))
        return {
            "climbing_trees": climbing_trees.HistGradientBoostingRegressor(
                categorical_features=native, **common
            ),
            "scikit-learn (500 levels as codes)": ensemble.HistGradientBoostingRegressor(
                categorical_features=[j for j, k in enumerate(CATEGORICAL_LEVELS) if k <= 255],
                **common,
            ),
            "lightgbm": lightgbm.LGBMRegressor(**lgbm),
        }
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


def _fit_params(kind: str, library: str) -> dict:
    """LightGBM takes its categorical features at fit."""
    if kind == "categorical" and library == "lightgbm":
        return {"categorical_feature": list(range(len(CATEGORICAL_LEVELS)))}
    return {}


def _held_out_loss(kind: str, model, X, y) -> float:
    if kind in ("regression", "categorical"):
        return mean_squared_error(y, model.predict(X))
    return log_loss(y, model.predict_proba(X))


def boosting_table(seeds=(0,), cases=None) -> pd.DataFrame:
    """One row per case, seed and library: fit seconds (wall, CPU) and held-out loss."""
    from threadpoolctl import threadpool_limits

    rows = []
    with threadpool_limits(1):
        for kind in cases or CASES:
            models = _models(kind)
            X, y, _, _ = _data(kind, 0)
            for library, model in models.items():  # imports and compilation, paid before
                params = _fit_params(kind, library)
                model.set_params(**_short(model)).fit(X[:3000], y[:3000], **params)
            models = _models(kind)
            for seed in seeds:
                X, y, X_test, y_test = _data(kind, seed)
                for library, model in models.items():
                    wall, cpu = time.perf_counter(), time.process_time()
                    model.fit(X, y, **_fit_params(kind, library))
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
    reference = median[median.index.get_level_values("library").str.startswith("scikit-learn")]
    reference = reference.droplevel("library")
    out = median.copy()
    for column in ("fit wall (s)", "fit cpu (s)", "held-out loss"):
        out[column + " / sklearn"] = (
            median[column]
            / reference[column].reindex(median.index.get_level_values("case")).to_numpy()
        )
    return out.reset_index()


def spread(table: pd.DataFrame) -> pd.DataFrame:
    """Per case and library, the held-out loss over the seeds: mean, sd, min, max, and
    the mean and sd of its paired difference to scikit-learn's on the same seed."""
    loss = table.pivot_table(index=["case", "seed"], columns="library",
                             values="held-out loss", sort=False)  # fmt: skip
    rows = []
    for case, block in loss.groupby(level="case", sort=False):
        block = block.dropna(axis=1, how="all")
        sklearn = block[[c for c in block.columns if c.startswith("scikit-learn")][0]]
        for library in block.columns:
            values, paired = block[library], block[library] - sklearn
            rows.append({"case": case, "library": library, "seeds": len(values),
                         "loss mean": values.mean(), "loss sd": values.std(ddof=1),
                         "loss min": values.min(), "loss max": values.max(),
                         "minus sklearn, mean": paired.mean(),
                         "minus sklearn, sd": paired.std(ddof=1)})  # fmt: skip
    return pd.DataFrame(rows)


def run_boosting(repeats: int, cases=None) -> None:
    seeds = tuple(range(repeats))
    table = boosting_table(seeds, cases)
    print("Histogram gradient boosting; cases:")
    for name in cases or CASES:
        print(f"  {name}: {CASES[name]}")
    print(f"{N_ITER} iterations, 31 leaves, min 20 rows per leaf, learning rate 0.1, 255 bins,")
    print("no early stopping; one thread each (threadpoolctl, LightGBM num_threads=1);")
    print("binning included.  Held-out loss: mean squared error / log loss.")
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.to_string(index=False, float_format=lambda x: f"{x:.6g}"))
        print(f"Medians over {len(seeds)} seed(s) and ratios to scikit-learn's:")
        print(ratios(table).to_string(index=False, float_format=lambda x: f"{x:.6g}"))
        print(f"Held-out loss over {len(seeds)} seed(s) (sd: n - 1):")
        print(spread(table).to_string(index=False, float_format=lambda x: f"{x:.6g}"))
