"""A corpus of histogram trees (``splitter="hist"``), saved as hashes, to pin them bit for bit.

Every problem is made from its seed in code (no data files) and fitted by
``DecisionTreeClassifier`` or ``DecisionTreeRegressor`` with
``splitter="hist"``: gini, entropy, log_loss, squared error and Poisson;
unit, float and zero weights; NaN; several outputs; categorical features;
``max_bins`` from 2 to 300 (uint16 codes); ``max_features``; stopping rules;
``X`` as float64 and as float32, C or Fortran order; a few problems large
enough for sibling subtraction, the row search's blocks and the quantile
subsample.  For each problem the corpus stores a sha256 of every array of
the fitted :class:`climbing_trees.Tree` (``tests/levelwise_corpus.py``'s
hashes) and of the predictions on rows of the training ``X``'s dtype, in
``tests/corpus/hist_trees.json``.  A change that should not change any tree
(less memory, a faster loop) must leave every hash as it is;
``tests/test_corpora.py`` checks it.

    python tests/hist_corpus.py --write   # record today's trees
    python tests/hist_corpus.py --check   # compare, name what differs
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from levelwise_corpus import (
    KINDS,
    array_hash,
    features,
    hashes_of,
    targets,
    tree_hashes,
    weights,
)
from levelwise_corpus import main as corpus_main

import climbing_trees as ct

PATH = Path(__file__).parent / "corpus" / "hist_trees.json"

CLASSIFICATION = ["gini", "entropy", "log_loss"]
REGRESSION = ["squared_error", "poisson"]
CRITERIA = CLASSIFICATION + REGRESSION
MAX_BINS = [255, 2, 3, 7, 16, 64, 300]
OPTIONS = [
    {},
    {"max_depth": 3},
    {"min_samples_leaf": 3},
    {"min_samples_split": 9, "max_depth": 6},
    {"min_weight_fraction_leaf": 0.05},
    {"min_impurity_decrease": 0.005},
    {"max_leaf_nodes": 6},
    {"max_features": 2, "random_state": 5},
    {"max_features": 0.5, "random_state": 7},
    {"ccp_alpha": 0.01},
]


def problem(seed: int):
    """One estimator, its training set and the rows it predicts, from the seed."""
    rng = np.random.default_rng(20_000 + seed)
    criterion = CRITERIA[seed % len(CRITERIA)]
    classifier = criterion in CLASSIFICATION
    big = seed % 23 == 0
    n = int(rng.integers(3000, 9000)) if big else int(rng.integers(10, 400))
    d = int(rng.integers(2, 9))
    kind = KINDS[(seed // 5) % len(KINDS)]
    n_cat = int(rng.integers(1, 3)) if rng.random() < 0.25 and d > 2 else 0
    X, is_categorical = features(rng, n + 50, d, kind, n_cat, 8)
    n_outputs = 2 if rng.random() < 0.2 else 1
    ys = [targets(rng, n, criterion, kind != "normal", int(rng.integers(2, 5)))
          for _ in range(n_outputs)]  # fmt: skip
    y = ys[0] if n_outputs == 1 else np.column_stack(ys)
    options = dict(OPTIONS[seed % len(OPTIONS)])
    options["max_bins"] = MAX_BINS[(seed // 3) % len(MAX_BINS)]
    options["categorical_features"] = list(range(n_cat)) if n_cat else None
    if classifier and n_outputs == 1 and rng.random() < 0.2:
        options["class_weight"] = "balanced"
    weight = None if rng.random() < 0.5 else weights(rng, n, ["float", "zeros"][seed % 2])
    if seed % 4 == 3:  # float32 X: the values the estimator sees are float32's
        X = X.astype(np.float32)
    if seed % 7 == 5:
        X = np.asfortranarray(X)
    Model = ct.DecisionTreeClassifier if classifier else ct.DecisionTreeRegressor
    model = Model(criterion=criterion, splitter="hist", **options)
    return model, X[:n], y, weight, X[n:]


def special_problem(name: str):
    """Problems on paths that small data never takes."""
    rng = np.random.default_rng(len(name))
    if name == "subsample":  # more rows than the quantiles' subsample, float32
        n = 210_000
        X = rng.normal(size=(n, 3)).astype(np.float32)
        X[rng.random(n) < 0.1, 2] = np.nan
        y = X[:, 0] * X[:, 1] + np.sin(3 * X[:, 2].astype(float)) + rng.normal(size=n)
        model = ct.DecisionTreeRegressor(splitter="hist", max_depth=8, random_state=0)
        return model, X, np.nan_to_num(y), None, X[:500]
    if name == "deep-weighted":  # many levels: compact searches, subtraction, weights
        n = 40_000
        X = np.round(rng.normal(size=(n, 5)), 2)
        y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=n) > 0).astype(int)
        model = ct.DecisionTreeClassifier(splitter="hist", min_samples_leaf=2)
        return model, X, y, rng.uniform(0.5, 2.0, size=n), X[:500]
    if name == "three-classes":  # full depth, gini, the exact splitter's benchmark shape
        n = 20_000
        X = rng.normal(size=(n, 8))
        y = np.digitize(X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=n), [-0.5, 0.5])
        model = ct.DecisionTreeClassifier(splitter="hist", criterion="gini")
        return model, X, y, None, X[:500]
    raise KeyError(name)


SPECIAL = ["subsample", "deep-weighted", "three-classes"]
N_PROBLEMS = 420


def fitted_hashes(model, X, y, weight, X_test) -> dict[str, str]:
    """The fitted tree's hashes, and its predictions' on ``X_test``."""
    model.fit(X, y, sample_weight=weight)
    out = tree_hashes(model.tree_)
    out["predict"] = array_hash(model.predict(X_test))
    return out


def problems() -> dict:
    """Every problem of the corpus by name: a function that returns its hashes."""
    out = {}
    for seed in range(N_PROBLEMS):
        out[f"hist-{seed}"] = lambda seed=seed: fitted_hashes(*problem(seed))
    for name in SPECIAL:
        out[f"special-{name}"] = lambda name=name: fitted_hashes(*special_problem(name))
    return out


def hashes(names=None) -> dict:
    return hashes_of(problems(), names)


def main(argv) -> int:
    return corpus_main(argv, PATH, hashes, __doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
