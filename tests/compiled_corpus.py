"""A corpus of compiled trees (:func:`climbing_trees.grow_tree_compiled`), saved as hashes.

Every problem is made from its seed in code (no data files) and grown by
the compiled depth-first builder directly, or by an estimator (extra trees
and random forests of a few trees) that grows its trees with it: gini,
entropy, squared error and Poisson; unit, float and zero weights; NaN
(missing values learned); two outputs; ``max_features``; both splitters;
``min_samples_leaf``, ``max_depth`` and the other stopping rules;
``monotonic_cst``; ``X`` as float64 and float32, C order, Fortran order or
a strided view; ties; a few problems large enough for deep trees.  For each
problem the corpus stores a sha256 of every array of the fitted
:class:`climbing_trees.Tree` (``tests/levelwise_corpus.py``'s hashes), in
``tests/corpus/compiled_trees.json``.  A change that should not change any
tree (a faster loop) must leave every hash as it is; ``tests/test_corpora.py``
checks it.

    python tests/compiled_corpus.py --write   # record today's trees
    python tests/compiled_corpus.py --check   # compare, name what differs
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from levelwise_corpus import (
    KINDS,
    features,
    hashes_of,
    layout,
    stacked_targets,
    targets,
    tree_hashes,
    weights,
)
from levelwise_corpus import main as corpus_main

import climbing_trees as ct
from climbing_trees._compiled import grow_tree_compiled
from climbing_trees._criteria import output_criterion
from climbing_trees._random import RandomSplits

PATH = Path(__file__).parent / "corpus" / "compiled_trees.json"

CLASSIFICATION = ["gini", "entropy"]
REGRESSION = ["squared_error", "poisson"]
CRITERIA = CLASSIFICATION + REGRESSION
STOPPING = [
    {},
    {"max_depth": 3},
    {"min_samples_leaf": 3},
    {"min_samples_split": 9},
    {"min_samples_leaf": 5, "max_depth": 6},
    {"min_impurity_decrease": 0.005},
    {"min_weight_leaf": 2.5},
    {},
]


def direct_problem(seed: int):
    """One problem for :func:`grow_tree_compiled`, from its seed: (X, Y, w, kwargs)."""
    rng = np.random.default_rng(30_000 + seed)
    criterion = CRITERIA[seed % len(CRITERIA)]
    classifier = criterion in CLASSIFICATION
    big = seed % 19 == 0
    n = int(rng.integers(2000, 6000)) if big else int(rng.integers(2, 300))
    d = int(rng.integers(2, 12)) if big else int(rng.integers(1, 9))
    kind = KINDS[(seed // 4) % len(KINDS)]
    X, _ = features(rng, n, d, kind, 0, 2)
    constrained = seed % 11 == 4 and d > 1
    n_outputs = 1 if constrained or rng.random() < 0.8 else 2
    n_classes = 2 if constrained else int(rng.integers(2, 5))
    ys = [targets(rng, n, criterion, kind != "normal", n_classes) for _ in range(n_outputs)]
    Y, widths = stacked_targets(ys, classifier, 2 if constrained else 1)
    w = weights(rng, n, ["unit", "float", "zeros"][seed % 3])
    kwargs = dict(STOPPING[int(rng.integers(len(STOPPING)))])
    kwargs["criterion"] = output_criterion(criterion, widths)
    if seed % 4 != 3:  # mostly random: the splitters' draws, three quarters random thresholds
        splitter = "best" if seed % 4 == 2 else "random"
        k = int(rng.integers(1, d + 1))
        kwargs["random_splits"] = RandomSplits(k, splitter, int(rng.integers(2**32)))
    if constrained:
        cst = rng.integers(-1, 2, size=d)
        cst[0] = 1 if cst[0] == 0 else cst[0]
        kwargs["monotonic_cst"] = cst
        if criterion == "poisson":
            kwargs["criterion"] = "squared_error"
    if seed % 7 == 2:  # float32 X: the values the builder reads are float32's
        X = X.astype(np.float32)
    return layout(X, seed), Y, w, kwargs


def special_problem(name: str):
    """The benchmark's shapes, smaller: deep trees of many nodes of every size."""
    rng = np.random.default_rng(len(name))
    n, d = 12_000, 8
    X = rng.normal(size=(n, d))
    if name == "random-regression":
        y = X[:, 0] * X[:, 1] + np.sin(X[:, 2]) + rng.normal(size=n)
        return X, y[:, None], np.ones(n), {
            "criterion": "squared_error", "random_splits": RandomSplits(d, "random", 3),
        }  # fmt: skip
    if name == "random-sqrt-missing":
        X[rng.random((n, d)) < 0.1] = np.nan
        y = rng.integers(0, 3, size=n)
        return X, ct.one_hot(y, 3), rng.uniform(0.5, 2.0, size=n), {
            "criterion": "gini", "random_splits": RandomSplits(3, "random", 5),
        }  # fmt: skip
    if name == "best-sqrt":
        y = X[:, 0] - X[:, 3] + rng.normal(size=n)
        return X, y[:, None], np.ones(n), {
            "criterion": "squared_error", "random_splits": RandomSplits(3, "best", 7),
        }  # fmt: skip
    if name == "best-entropy-ties":
        X = np.round(X, 1)
        y = (X[:, 0] + X[:, 1] > 0).astype(int)
        return X, ct.one_hot(y, 2), np.ones(n), {"criterion": "entropy", "min_samples_leaf": 2}
    raise KeyError(name)


SPECIAL = ["random-regression", "random-sqrt-missing", "best-sqrt", "best-entropy-ties"]


def grow_direct(seed: int) -> ct.Tree:
    X, Y, w, kwargs = direct_problem(seed)
    return grow_tree_compiled(X, Y, w, **kwargs)


def grow_special(name: str) -> ct.Tree:
    X, Y, w, kwargs = special_problem(name)
    return grow_tree_compiled(X, Y, w, **kwargs)


def forest_problem(seed: int):
    """A forest of three trees through the estimators (which pick the compiled builder)."""
    rng = np.random.default_rng(40_000 + seed)
    classifier = seed % 2 == 0
    n, d = int(rng.integers(50, 600)), int(rng.integers(2, 10))
    X, _ = features(rng, n, d, KINDS[seed % len(KINDS)], 0, 2)
    criterion = CLASSIFICATION[seed // 2 % 2] if classifier else REGRESSION[seed // 2 % 2]
    y = targets(rng, n, criterion, seed % 3 == 0, 3)
    Model = {
        (True, True): ct.ExtraTreesClassifier, (True, False): ct.RandomForestClassifier,
        (False, True): ct.ExtraTreesRegressor, (False, False): ct.RandomForestRegressor,
    }[classifier, seed % 3 != 2]  # fmt: skip
    model = Model(n_estimators=3, criterion=criterion, random_state=seed,
                  max_features=[None, "sqrt", 0.5][seed % 3])  # fmt: skip
    weight = None if seed % 4 < 2 else weights(rng, n, "zeros")
    return model, X, y, weight


def grow_forest(seed: int) -> list[ct.Tree]:
    model, X, y, weight = forest_problem(seed)
    return [tree.tree_ for tree in model.fit(X, y, sample_weight=weight).estimators_]


N_DIRECT, N_FOREST = 360, 24


def problems() -> dict:
    """Every problem of the corpus by name: a function that returns its hashes."""
    out = {}
    for seed in range(N_DIRECT):
        out[f"direct-{seed}"] = lambda seed=seed: tree_hashes(grow_direct(seed))
    for name in SPECIAL:
        out[f"special-{name}"] = lambda name=name: tree_hashes(grow_special(name))
    for seed in range(N_FOREST):
        out[f"forest-{seed}"] = lambda seed=seed: {
            f"{i}-{array}": h
            for i, tree in enumerate(grow_forest(seed))
            for array, h in tree_hashes(tree).items()
        }
    return out


def hashes(names=None) -> dict:
    return hashes_of(problems(), names)


def main(argv) -> int:
    return corpus_main(argv, PATH, hashes, __doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
