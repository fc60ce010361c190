"""A corpus of level-wise trees, saved as hashes, to pin the builder bit for bit.

Every problem is made from its seed in code (no data files): the level-wise
builder (:func:`climbing_trees.grow_tree_levelwise`) grows it directly, or an
estimator grows it through the builder it picks.  For each problem and each
array of the fitted :class:`climbing_trees.Tree` the corpus stores a sha256
of the array's dtype, shape and bytes, in ``tests/corpus/levelwise_trees.json``.
A change that should not change any tree (a refactoring) must leave every
hash as it is; ``tests/test_corpora.py`` checks it.

    python tests/levelwise_corpus.py --write   # record today's trees
    python tests/levelwise_corpus.py --check   # compare, name what differs
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

import climbing_trees as ct
from climbing_trees._criteria import output_criterion
from climbing_trees._levelwise import grow_tree_levelwise
from climbing_trees._random import RandomSplits

PATH = Path(__file__).parent / "corpus" / "levelwise_trees.json"

CLASSIFICATION = ["gini", "entropy", "log_loss"]
REGRESSION = ["squared_error", "poisson", "absolute_error"]
CRITERIA = CLASSIFICATION + REGRESSION
STOPPING = [
    {},
    {"max_depth": 2},
    {"max_depth": 4},
    {"min_samples_split": 9},
    {"min_samples_leaf": 3},
    {"min_samples_leaf": 4, "max_depth": 5},
    {"min_impurity_decrease": 0.01},
    {"min_weight_leaf": 2.5},
    {"max_leaf_nodes": 5},
    {"min_samples_split": 4, "min_samples_leaf": 2, "min_impurity_decrease": 0.001},
]


KINDS = ["normal", "ties", "few", "missing", "some", "rare"]


def array_hash(value) -> str:
    """sha256 of an array's dtype, shape and bytes (a scalar as a 0-d array)."""
    a = np.ascontiguousarray(np.asarray(value))
    digest = hashlib.sha256(f"{a.dtype.str}{a.shape}".encode())
    digest.update(a.tobytes())
    return digest.hexdigest()[:16]


def tree_hashes(tree: ct.Tree) -> dict[str, str]:
    """Every field of the Tree (the dataclass's arrays and width), hashed."""
    return {f.name: array_hash(getattr(tree, f.name)) for f in dataclasses.fields(tree)}


# --- problems ------------------------------------------------------------------------------


def targets(rng, n: int, criterion: str, ties: bool, n_classes: int):
    """A target of ``n`` rows for ``criterion``: labels, amounts or counts."""
    if criterion in CLASSIFICATION:
        return rng.integers(0, n_classes, size=n)
    if criterion == "poisson":
        y = rng.poisson(1.0, size=n) if ties else rng.gamma(2.0, 3.0, size=n)
        y = np.where(rng.random(n) < 0.3, 0.0, y).astype(float)
        y[0] += 1.0  # a positive target (row 0 has positive weight)
        return y
    if ties:
        return rng.integers(0, 4, size=n).astype(float)
    return rng.normal(size=n) * 10 + 3


def features(rng, n: int, d: int, kind: str, n_cat: int, n_levels: int):
    """``X`` with ``n_cat`` categorical columns first (codes), then numerical ones."""
    if kind == "ties":
        X = rng.integers(0, int(rng.integers(2, 6)), size=(n, d)).astype(float)
    elif kind == "few":  # many equal neighbours: runs, pixels, ratings
        X = rng.integers(0, 3, size=(n, d)).astype(float)
    elif kind == "some":  # ties, yet many distinct values
        X = rng.integers(0, max(2, n // 3), size=(n, d)).astype(float)
    elif kind == "rare":  # a few equal neighbours (rounding)
        X = np.round(rng.normal(size=(n, d)), 3)
    else:
        X = rng.normal(size=(n, d))
    if kind == "missing" or rng.random() < 0.25:
        X[rng.random((n, d)) < rng.uniform(0.05, 0.4)] = np.nan
        if d > 1:
            X[: n // 2, d - 1] = np.nan  # a column missing in whole nodes
    if d > 2 and rng.random() < 0.3:
        X[:, 1] = 1.5  # a constant column
    is_categorical = np.zeros(d, dtype=bool)
    is_categorical[:n_cat] = True
    for j in range(n_cat):
        levels = max(2, int(rng.integers(2, n_levels + 1)))
        X[:, j] = rng.integers(0, levels, size=n)
    return X, is_categorical


def stacked_targets(ys, classifier: bool, least: int = 1):
    """The outputs ``ys`` as the builders take them: one-hot blocks of at least ``least``
    classes each (classifiers) or one column each; and each output's width."""
    if classifier:
        blocks = [ct.one_hot(y, max(int(y.max()) + 1, least)) for y in ys]
        return np.hstack(blocks), [b.shape[1] for b in blocks]
    return np.column_stack(ys), [1] * len(ys)


def hashes_of(problems: dict, names=None) -> dict:
    """Each problem's hashes (``problems``: name to a function returning them), all
    problems or those named."""
    return {name: problems[name]() for name in (names or problems)}


def weights(rng, n: int, kind: str):
    if kind == "unit":
        return np.ones(n)
    w = rng.uniform(0.1, 3.0, size=n)
    if kind == "zeros":
        w *= rng.random(n) < 0.7
    w[0] = 1.0
    return w


def direct_problem(seed: int):
    """One problem for :func:`grow_tree_levelwise`, from its seed: (X, Y, w, kwargs)."""
    rng = np.random.default_rng(seed)
    criterion = CRITERIA[seed % len(CRITERIA)]
    big = seed % 17 == 0
    n = int(rng.integers(1500, 4000)) if big else int(rng.integers(2, 260))
    d = int(rng.integers(6, 16)) if big else int(rng.integers(1, 7))
    kind = KINDS[(seed // 6) % len(KINDS)]
    absolute = criterion == "absolute_error"
    n_cat = 0
    if not absolute and rng.random() < 0.35:
        n_cat = int(rng.integers(1, min(d, 3) + 1))
    n_levels = 300 if rng.random() < 0.15 else int(rng.integers(2, 12))
    X, is_categorical = features(rng, n, d, kind, n_cat, n_levels)
    n_outputs = 2 if rng.random() < 0.2 else 1
    n_classes = int(rng.integers(2, 10 if seed % 5 == 0 else 5))
    ys = [targets(rng, n, criterion, kind != "normal", n_classes) for _ in range(n_outputs)]
    Y, widths = stacked_targets(ys, criterion in CLASSIFICATION)
    w = weights(rng, n, ["unit", "float", "zeros"][seed % 3])
    kwargs = dict(STOPPING[int(rng.integers(len(STOPPING)))])
    kwargs["criterion"] = output_criterion(criterion, widths)
    if n_cat:
        kwargs["is_categorical"] = is_categorical
        kwargs["categorical_split"] = ["auto", "one_vs_rest", "partition"][seed % 3]
        if rng.random() < 0.3:
            kwargs["min_samples_level"] = int(rng.integers(2, 6))
        if rng.random() < 0.2:
            kwargs["max_categorical_candidates"] = 4
    draw = rng.random()
    if draw < 0.3:  # random feature subsets and, unless absolute error, thresholds
        splitter = "best" if absolute or rng.random() < 0.5 else "random"
        k = int(rng.integers(1, d + 1))
        kwargs["random_splits"] = RandomSplits(k, splitter, int(rng.integers(2**32)))
    return layout(X, seed), Y, w, kwargs


def layout(X, seed: int):
    """``X`` in C order, Fortran order or as a strided view (copied by the builder)."""
    if seed % 5 == 1:
        return np.asfortranarray(X)
    if seed % 5 == 2:
        wide = np.zeros((X.shape[0], 2 * X.shape[1]))
        wide[:, ::2] = X
        return wide[:, ::2]
    return X


def special_problem(name: str):
    """Problems large enough for the builder's paths that small data never takes."""
    rng = np.random.default_rng(len(name))
    if name == "many-rows":  # position pieces in the prefix sums; node buffers as maps
        n = 70_000
        X = np.column_stack([rng.normal(size=n), rng.integers(0, 50, size=n)])
        y = (X[:, 0] + rng.normal(size=n) > 0).astype(int)
        kwargs = {"criterion": "gini", "min_impurity_decrease": 0.01}
        return X, ct.one_hot(y, 2), np.ones(n), kwargs
    if name == "many-levels":  # (node, level) pairs found by a sort, not counted
        n = 4000
        X = np.column_stack([rng.integers(0, 5000, size=n), rng.normal(size=(n, 2))])
        y = X[:, 1] + (X[:, 0] % 7) + rng.normal(size=n)
        kwargs = {"criterion": "squared_error", "max_depth": 9}
        kwargs["is_categorical"] = np.array([True, False, False])
        return X.astype(float), y[:, None], np.ones(n), kwargs
    if name == "many-features-drawn":  # a few features at a time, with draws
        n, d = 3000, 20
        X = np.round(rng.normal(size=(n, d)), 5)  # a few ties in each feature
        y = rng.integers(0, 3, size=n)
        kwargs = {"criterion": "entropy", "random_splits": RandomSplits(12, "best", 11)}
        return X, ct.one_hot(y, 3), rng.uniform(0.5, 2.0, size=n), kwargs
    raise KeyError(name)


SPECIAL = ["many-rows", "many-levels", "many-features-drawn"]


def grow_special(name: str) -> ct.Tree:
    X, Y, w, kwargs = special_problem(name)
    return grow_tree_levelwise(X, Y, w, **kwargs)


def grow_direct(seed: int) -> ct.Tree:
    X, Y, w, kwargs = direct_problem(seed)
    return grow_tree_levelwise(X, Y, w, **kwargs)


ESTIMATOR_OPTIONS = [
    {},
    {"max_depth": 3},
    {"min_samples_leaf": 3},
    {"min_weight_fraction_leaf": 0.05},
    {"max_leaf_nodes": 6},
    {"ccp_alpha": 0.01},
    {"splitter": "random", "random_state": 3},
    {"max_features": 2, "random_state": 5},
    {"max_features": 0.5, "splitter": "random", "random_state": 7},
    {"min_impurity_decrease": 0.005, "max_leaf_nodes": 9},
]


def estimator_problem(seed: int):
    """One estimator and its training set, from the seed: (estimator, X, y, weight)."""
    rng = np.random.default_rng(10_000 + seed)
    classifier = seed % 2 == 0
    criterion = (CLASSIFICATION if classifier else REGRESSION)[(seed // 2) % 3]
    n, d = int(rng.integers(10, 300)), int(rng.integers(2, 7))
    kind = KINDS[(seed // 6) % len(KINDS)]
    n_cat = int(rng.integers(1, 3)) if rng.random() < 0.35 else 0
    X, is_categorical = features(rng, n, d, kind, n_cat, 8)
    n_outputs = 2 if rng.random() < 0.2 else 1
    ys = [targets(rng, n, criterion, kind != "normal", 3) for _ in range(n_outputs)]
    y = ys[0] if n_outputs == 1 else np.column_stack(ys)
    options = dict(ESTIMATOR_OPTIONS[seed % len(ESTIMATOR_OPTIONS)])
    if criterion == "absolute_error" and n_cat:  # a categorical column: depth first
        n_cat = 0
        X[:, is_categorical] += 0.5
    options["categorical_features"] = list(range(n_cat)) if n_cat else None
    if classifier and rng.random() < 0.3:
        options["class_weight"] = "balanced" if n_outputs == 1 else None
    weight = None if rng.random() < 0.5 else weights(rng, n, ["float", "zeros"][seed % 2])
    Model = ct.DecisionTreeClassifier if classifier else ct.DecisionTreeRegressor
    return Model(criterion=criterion, **options), X, y, weight


def grow_estimator(seed: int) -> ct.Tree:
    model, X, y, weight = estimator_problem(seed)
    with levelwise_for_compiled():
        return model.fit(X, y, sample_weight=weight).tree_


@contextlib.contextmanager
def levelwise_for_compiled():
    """Estimators grow with ``grow_tree_levelwise`` where ``builder_for`` names
    ``grow_tree_compiled``: the corpus pins the level-wise builder, and the
    compiled one is compared with ``grow_tree`` in ``tests/test_compiled.py``."""
    import climbing_trees._classes as classes

    real = classes.builder_for

    def builder_for(criterion, is_categorical, random_splits, missing_values, max_leaf_nodes,
                    max_surrogates=None, **options):  # fmt: skip
        builder, extra = real(criterion, is_categorical, random_splits, missing_values,
                              max_leaf_nodes, max_surrogates, **options)  # fmt: skip
        if builder is ct.grow_tree_compiled:
            extra = {} if max_leaf_nodes is None else {"max_leaf_nodes": max_leaf_nodes}
            return grow_tree_levelwise, extra
        return builder, extra

    classes.builder_for = builder_for
    try:
        yield
    finally:
        classes.builder_for = real


N_DIRECT, N_ESTIMATOR = 300, 120


def problems() -> dict:
    """Every problem of the corpus by name: a function that grows its tree."""
    out = {}
    for seed in range(N_DIRECT):
        out[f"direct-{seed}"] = lambda seed=seed: grow_direct(seed)
    for name in SPECIAL:
        out[f"special-{name}"] = lambda name=name: grow_special(name)
    for seed in range(N_ESTIMATOR):
        out[f"estimator-{seed}"] = lambda seed=seed: grow_estimator(seed)
    return out


def hashes(names=None) -> dict:
    """Each problem's tree hashes (all problems, or those named)."""
    grow = problems()
    return {name: tree_hashes(grow[name]()) for name in (names or grow)}


def differences(saved: dict, now: dict) -> list[str]:
    """``problem: array`` for every hash that differs (or is missing)."""
    out = []
    for name in sorted(set(saved) | set(now)):
        if name not in saved or name not in now:
            out.append(f"{name}: only in {'the saved corpus' if name in saved else 'now'}")
            continue
        for array in sorted(set(saved[name]) | set(now[name])):
            if saved[name].get(array) != now[name].get(array):
                out.append(f"{name}: {array}")
    return out


def main(argv, path=PATH, hashes=hashes, doc=__doc__) -> int:
    """``--write`` the corpus's hashes to ``path``, or ``--check`` them (a corpus
    module passes its own ``path``, ``hashes`` and ``doc``)."""
    if argv[1:] == ["--write"]:
        path.parent.mkdir(exist_ok=True)
        found = hashes()
        lines = [f"{json.dumps(name)}: {json.dumps(found[name])}" for name in sorted(found)]
        path.write_text("{\n" + ",\n".join(lines) + "\n}\n")  # a problem per line
        print(f"wrote {path}")
        return 0
    if argv[1:] == ["--check"]:
        found = differences(json.loads(path.read_text()), hashes())
        print("\n".join(found) or "the same trees")
        return 1 if found else 0
    print(doc)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
