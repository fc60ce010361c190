"""Timing climbing_trees against scikit-learn: the benchmark suite and the scaling run.

Chapter 11 of the book ("Growing trees fast") runs this module on small sizes;
``python -m benchmarks`` (at the repository root) runs it on the full suite.

Both libraries are timed alternately in one process, so that a burst of load
on the machine hits both, and each time reported is a median over repeats.
"""

from __future__ import annotations

import ctypes
import gc
import json
import os
import pickle
import resource
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn import tree as sklearn_tree
from sklearn.datasets import (
    load_breast_cancer,
    load_diabetes,
    load_digits,
    load_iris,
    load_wine,
    make_classification,
)

from ._classes import DecisionTreeClassifier, DecisionTreeRegressor
from ._compiled._rules import jit


@dataclass
class Case:
    """One benchmark problem: data, task and the hyperparameters of both trees.

    ``categorical`` lists the columns of ``X`` that hold level codes; scikit-learn
    then gets those columns one-hot encoded (``X_sklearn``).
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    task: str  # "classification" or "regression"
    params: dict = field(default_factory=dict)
    categorical: list[int] = field(default_factory=list)

    @property
    def X_sklearn(self) -> np.ndarray:
        if not self.categorical:
            return self.X
        numeric = np.delete(self.X, self.categorical, axis=1)
        onehots = [
            (self.X[:, [j]] == np.unique(self.X[:, j])).astype(float) for j in self.categorical
        ]
        return np.hstack([numeric, *onehots])

    def ours(self, random_state: int = 0):
        """A fresh climbing_trees estimator for this case."""
        Estimator = (
            DecisionTreeClassifier if self.task == "classification" else DecisionTreeRegressor
        )
        extra = {"categorical_features": self.categorical} if self.categorical else {}
        return Estimator(**self.params, **extra, random_state=random_state)

    def sklearn(self, random_state: int = 0):
        """A fresh scikit-learn estimator with the same hyperparameters."""
        Estimator = (
            sklearn_tree.DecisionTreeClassifier
            if self.task == "classification"
            else sklearn_tree.DecisionTreeRegressor
        )
        return Estimator(**self.params, random_state=random_state)


def as_float32(X) -> np.ndarray:
    """Round to float32 and back: the values scikit-learn's trees see.

    Comparisons with scikit-learn round first, so that both libraries see one X.
    """
    return np.asarray(X, dtype=np.float32).astype(np.float64)


def synthetic_regression(n: int, d: int = 8, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Continuous features and a noisy nonlinear target (no ties)."""
    rng = np.random.default_rng(seed)
    X = as_float32(rng.normal(size=(n, d)))
    y = np.sin(3 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=n)
    return X, y


def synthetic_categorical(n: int, n_levels: int = 50, d: int = 4, seed: int = 0):
    """Column 0 holds codes of ``n_levels`` levels with random effects; the rest numerical."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_levels, size=n)
    effects = rng.normal(size=n_levels)
    numeric = as_float32(rng.normal(size=(n, d)))
    y = effects[codes] + numeric[:, 0] + 0.5 * rng.normal(size=n)
    return np.column_stack([codes.astype(float), numeric]), y


def with_missing(X: np.ndarray, rate: float = 0.2, seed: int = 0) -> np.ndarray:
    """``X`` with a fraction ``rate`` of its values replaced by NaN, completely at random."""
    X = X.copy()
    X[np.random.default_rng(seed).random(X.shape) < rate] = np.nan
    return X


def benchmark_cases(
    scale: float = 1.0,
    categorical: bool = True,
    pruning: bool = False,
    criteria: bool = False,
    missing: bool = False,
    randomised: bool = False,
    outputs: bool = False,
    small: bool = False,
    wide: bool = False,
) -> list[Case]:
    """The suite of issue 5; ``scale`` shrinks the synthetic sets (the book uses < 1).

    ``pruning`` adds the cases of chapter 8: ``ccp_alpha`` from the middle of
    scikit-learn's pruning path of the synthetic regression, and
    ``max_leaf_nodes=64`` on the synthetic regression and classification.
    With ``criteria``, two more cases: absolute error (5,000 rows at scale 1)
    and Poisson deviance on counts, both ``max_depth=8, min_samples_leaf=16``.
    With ``missing``, the synthetic regression and classification with 20 % of
    their values missing completely at random (chapter 9), against
    scikit-learn's own support for missing values.
    With ``randomised``, the trees of "From one tree to many":
    ``max_features="sqrt"`` on the synthetic regression and classification
    (random forests' trees), and ``splitter="random"`` on the synthetic
    regression (extra trees').  The two libraries draw differently, so their
    trees differ, and so does the work of one seed's tree from another's:
    :func:`time_case` fits repeat ``k`` with ``random_state=k``, so that each
    median is over several draws of each library's trees and the ratios
    compare the cost of equally random trees.
    With ``outputs``, two outputs (``y`` of shape ``(n, 2)``): the synthetic
    regression with a second noisy target, and the synthetic classification
    with a second label, both ``max_depth=8, min_samples_leaf=16``.
    With ``small``, three small classification sets bundled with scikit-learn at
    full depth: iris (150 rows), wine (178) and digits (1,797 rows, 64 features,
    10 classes), where fixed costs per level and per call dominate.
    With ``wide``, a 20,000 x 100 synthetic regression at ``max_depth=10``.
    """
    X_bc, y_bc = load_breast_cancer(return_X_y=True)
    X_db, y_db = load_diabetes(return_X_y=True)
    X_reg, y_reg = synthetic_regression(int(20_000 * scale))
    n_clf = int(100_000 * scale)
    X_clf, y_clf = make_classification(n_clf, 20, n_informative=10, n_classes=3, random_state=0)
    cases = [
        Case("breast_cancer", as_float32(X_bc), y_bc, "classification"),
        Case("diabetes", as_float32(X_db), y_db, "regression", {"max_depth": 8}),
        Case("regression", X_reg, y_reg, "regression", {"max_depth": 8, "min_samples_leaf": 16}),
        Case("regression", X_reg, y_reg, "regression"),
        Case("classification", as_float32(X_clf), y_clf, "classification"),
    ]
    if small:
        for load in (load_iris, load_wine, load_digits):
            X_s, y_s = load(return_X_y=True)
            name = load.__name__.removeprefix("load_")
            cases.append(Case(name, as_float32(X_s), y_s, "classification"))
    if wide:
        X_wide, y_wide = synthetic_regression(int(20_000 * scale), d=100, seed=3)
        cases.append(Case("wide regression", X_wide, y_wide, "regression", {"max_depth": 10}))
    if categorical:
        X_cat, y_cat = synthetic_categorical(int(100_000 * scale))
        cases.append(Case("categorical", X_cat, y_cat, "regression", categorical=[0]))
    if pruning:
        path = sklearn_tree.DecisionTreeRegressor(random_state=0).cost_complexity_pruning_path(
            X_reg, y_reg
        )
        alpha = float(path.ccp_alphas[len(path.ccp_alphas) // 2])
        X_clf32 = as_float32(X_clf)
        cases += [
            Case("regression", X_reg, y_reg, "regression", {"ccp_alpha": alpha}),
            Case("regression", X_reg, y_reg, "regression", {"max_leaf_nodes": 64}),
            Case("classification", X_clf32, y_clf, "classification", {"max_leaf_nodes": 64}),
        ]
    if criteria:
        # Criteria beyond squared error.  Absolute error gets fewer rows: its
        # medians cost O(log n) passes per level (climbing_trees._wavelet).
        n_abs = int(5_000 * scale)
        deep = {"max_depth": 8, "min_samples_leaf": 16}
        counts = np.random.default_rng(1).poisson(np.exp(0.5 * X_reg[:, 0] + 0.3 * X_reg[:, 1]))
        cases += [
            Case(
                "absolute_error",
                X_reg[:n_abs],
                y_reg[:n_abs],
                "regression",
                {"criterion": "absolute_error", **deep},
            ),
            Case(
                "poisson",
                X_reg,
                counts.astype(float),
                "regression",
                {"criterion": "poisson", **deep},
            ),
        ]
    if missing:
        cases += [
            Case("missing 20%", with_missing(X_reg), y_reg, "regression"),
            Case(
                "missing 20%",
                with_missing(as_float32(X_clf)),
                y_clf,
                "classification",
                {"max_depth": 12},
            ),
        ]
    if randomised:
        X_clf32 = as_float32(X_clf)
        cases += [
            Case("regression", X_reg, y_reg, "regression", {"max_features": "sqrt"}),
            Case("classification", X_clf32, y_clf, "classification", {"max_features": "sqrt"}),
            Case("regression", X_reg, y_reg, "regression", {"splitter": "random"}),
        ]
    if outputs:
        deep = {"max_depth": 8, "min_samples_leaf": 16}
        rng = np.random.default_rng(2)
        second = np.cos(2 * X_reg[:, 3]) + X_reg[:, 4] + 0.5 * rng.normal(size=len(X_reg))
        label = (X_clf[:, 0] + X_clf[:, 1] + rng.normal(size=n_clf) > 0).astype(int)
        cases += [
            Case("two outputs", X_reg, np.column_stack([y_reg, second]), "regression", deep),
            Case(
                "two outputs",
                as_float32(X_clf),
                np.column_stack([y_clf, label]),
                "classification",
                deep,
            ),
        ]
    return cases


def best_time(fn: Callable, *args, repeat: int = 5, budget: float = 0.3) -> float:
    """Fastest of up to ``repeat`` runs of ``fn(*args)``, in seconds.

    Runs at least once, and stops early once the runs so far took ``budget``
    seconds, so slow calls are timed once and quick ones several times.  The
    fastest run is the one least disturbed by other work on the machine.  The
    chapters time their cells with it.

    >>> best_time(sum, [1, 2, 3], repeat=3) >= 0
    True
    """
    times = [_elapsed(fn, *args)]
    while len(times) < repeat and sum(times) < budget:
        times.append(_elapsed(fn, *args))
    return min(times)


def _elapsed(fn: Callable, *args) -> float:
    """Wall-clock seconds of one call ``fn(*args)``."""
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def time_case(case: Case, repeats: int = 5) -> dict:
    """Median fit and predict times of both libraries, run alternately.

    Repeat ``k`` fits both libraries with ``random_state=k``.  Where the
    trees are random (``max_features``, ``splitter="random"``), the medians
    are then over as many draws of each library's trees as there are
    repeats, not over one tree each: at 20,000 x 8 with
    ``max_features="sqrt"``, the rows of the split nodes summed (the work)
    range from 469,000 to 638,000 over scikit-learn's first three seeds.
    """
    times: dict[str, list[float]] = {k: [] for k in ("ours_fit", "sk_fit", "ours_pred", "sk_pred")}
    X_sk = case.X_sklearn
    for seed in range(repeats):
        ours, theirs = case.ours(seed), case.sklearn(seed)
        # Each library predicts right after its own fit, so neither finds the
        # caches filled (or emptied) by the other.
        times["ours_fit"].append(_elapsed(ours.fit, case.X, case.y))
        times["ours_pred"].append(_elapsed(ours.predict, case.X))
        times["sk_fit"].append(_elapsed(theirs.fit, X_sk, case.y))
        times["sk_pred"].append(_elapsed(theirs.predict, X_sk))
    med = {k: float(np.median(v)) for k, v in times.items()}
    params = ", ".join(f"{k}={v}" for k, v in case.params.items()) or "full depth"
    if case.categorical:
        params += ", 50 levels (sklearn: one-hot)"
    return {
        "case": case.name,
        "n": case.X.shape[0],
        "d": case.X.shape[1],
        "params": params,
        "our fit (s)": med["ours_fit"],
        "sklearn fit (s)": med["sk_fit"],
        "fit ratio": med["ours_fit"] / med["sk_fit"],
        "our predict (s)": med["ours_pred"],
        "sklearn predict (s)": med["sk_pred"],
        "predict ratio": med["ours_pred"] / med["sk_pred"],
    }


def benchmark_table(cases: list[Case], repeats: int = 5) -> pd.DataFrame:
    """One row per case (see :func:`time_case`), after one untimed warm-up run."""
    time_case(cases[0], repeats=1)  # first calls pay for imports and caches
    return pd.DataFrame([time_case(case, repeats) for case in cases])


#: The forests of the benchmark's forest section (one name in both libraries).
FOREST_KINDS = ("RandomForestClassifier", "ExtraTreesClassifier")


def forest_data(scale: float = 1.0) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The forest section's data: digits (1,797 x 64, 10 classes) and a 20,000 x 20
    classification (3 classes), in float32 values as both libraries read them."""
    X_d, y_d = load_digits(return_X_y=True)
    n = int(20_000 * scale)
    X_c, y_c = make_classification(n, 20, n_informative=10, n_classes=3, random_state=0)
    return {"digits": (as_float32(X_d), y_d), f"{n:,} x 20": (as_float32(X_c), y_c)}


def time_forest(kind: str, X, y, n_jobs: int, n_estimators: int = 100, repeats: int = 3):
    """Median wall-clock fit times of both libraries' forest ``kind``, run alternately."""
    from sklearn import ensemble as sklearn_ensemble

    from . import _ensemble

    ours_class, theirs_class = getattr(_ensemble, kind), getattr(sklearn_ensemble, kind)
    params = {"n_estimators": n_estimators, "n_jobs": n_jobs, "random_state": 0}
    ours, theirs = [], []
    for _ in range(repeats):
        ours.append(_elapsed(ours_class(**params).fit, X, y))
        theirs.append(_elapsed(theirs_class(**params).fit, X, y))
    return float(np.median(ours)), float(np.median(theirs))


def forest_table(
    n_estimators: int = 100, repeats: int = 3, scale: float = 1.0, n_jobs=(1, -1)
) -> pd.DataFrame:
    """The forest section: random forests and extra trees of ``n_estimators`` trees
    on :func:`forest_data`, at each ``n_jobs`` (threads), after one warm-up fit each."""
    rows = []
    for data, (X, y) in forest_data(scale).items():
        for kind in FOREST_KINDS:
            time_forest(kind, X, y, 1, n_estimators=2, repeats=1)  # warm-up
            for jobs in n_jobs:
                ours, theirs = time_forest(kind, X, y, jobs, n_estimators, repeats)
                rows.append({
                    "forest": kind, "data": data, "trees": n_estimators, "n_jobs": jobs,
                    "our fit (s)": ours, "sklearn fit (s)": theirs, "fit ratio": ours / theirs,
                })  # fmt: skip
    return pd.DataFrame(rows)


def scaling(
    sizes: list[int],
    builders: dict[str, Callable[[np.ndarray, np.ndarray], object]],
    repeats: int = 3,
    d: int = 8,
) -> pd.DataFrame:
    """Median fit time of each builder on synthetic regression sets of each size.

    ``builders`` maps a name to ``fit(X, y)``; they run alternately.  Returns a
    long table with columns ``builder``, ``n`` and ``seconds``.
    """
    rows = []
    X, y = synthetic_regression(min(sizes), d)
    for fit in builders.values():  # warm-up: first calls pay for imports and caches
        fit(X, y)
    for n in sizes:
        X, y = synthetic_regression(n, d)
        times: dict[str, list[float]] = {name: [] for name in builders}
        for _ in range(repeats):
            for name, fit in builders.items():
                times[name].append(_elapsed(fit, X, y))
        rows += [
            {"builder": name, "n": n, "seconds": float(np.median(t))} for name, t in times.items()
        ]
    return pd.DataFrame(rows)


def fitted_exponent(n: np.ndarray, seconds: np.ndarray) -> float:
    """Slope of ``log(seconds)`` against ``log(n)``: time grows like ``n**slope``.

    >>> round(fitted_exponent(np.array([10, 100, 1000]), np.array([1.0, 10.0, 100.0])), 6)
    1.0
    """
    return float(np.polyfit(np.log(n), np.log(seconds), 1)[0])


def peak_memory(fn: Callable[[], object]) -> int:
    """Peak bytes allocated (numpy arrays included) while ``fn`` runs, via tracemalloc.

    tracemalloc sees Python objects and numpy arrays, not memory that compiled
    code takes with ``malloc`` (scikit-learn's Cython trees) nor memory maps
    (the node buffers of :func:`climbing_trees.grow_tree_levelwise`): the
    figures are lower bounds.  :func:`fit_memory` measures resident memory.
    """
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def arrays_at_peak(fn: Callable[[], object], package: str = "climbing_trees") -> dict:
    """What is allocated at the peak of ``fn()``'s traced memory, by the line of the
    package that made it: where a fit's memory goes.

    Two runs of ``fn``: the first gives tracemalloc's peak; the second takes a
    snapshot whenever the traced memory reaches a new high at a Python call or
    return (``sys.setprofile``) and keeps the last, so a temporary that lives
    inside one numpy call is seen only through its caller's peak.  Each
    allocation alive in that snapshot is charged to the innermost frame of
    ``package`` in its traceback.  Like :func:`peak_memory` it sees numpy's
    arrays, not the buffers compiled code takes itself (numba's ``np.empty``).
    Returns ``{"peak": bytes, "seen": bytes, "lines": {file:line: bytes}}``.
    """
    tracemalloc.start()
    try:
        fn()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    state = {"seen": 0, "snapshot": None}

    def hook(frame, event, arg):
        now = tracemalloc.get_traced_memory()[0]
        if now > state["seen"]:
            state["seen"] = now
            state["snapshot"] = tracemalloc.take_snapshot()

    tracemalloc.start(40)
    sys.setprofile(hook)
    try:
        fn()
    finally:
        sys.setprofile(None)
        tracemalloc.stop()
    lines: dict[str, int] = {}
    snapshot = state["snapshot"]
    for trace in snapshot.traces if snapshot is not None else []:
        frames = [f for f in trace.traceback if f"/{package}/" in f.filename]
        where = "elsewhere"
        if frames:
            inner = frames[-1]  # tracebacks run from the oldest frame to the newest
            where = f"{inner.filename.split(f'/{package}/')[-1]}:{inner.lineno}"
        lines[where] = lines.get(where, 0) + trace.size
    return {"peak": peak, "seen": state["seen"], "lines": lines}


#: The cases of :func:`fit_memory`: the 1,000,000 x 8 synthetic regression
#: (its X as an array, and as a DataFrame of columns, as ``pd.read_csv`` makes
#: one, and the first fit of a fresh process: no fit before it), and the
#: full-depth classification and the categorical case of the suite.
FIT_MEMORY_CASES = (
    "regression 1,000,000",
    "regression 1,000,000, DataFrame",
    "regression 1,000,000, first fit",
    "classification",
    "categorical",
)


def fit_memory_case(name: str) -> Case:
    """The case ``name`` of :data:`FIT_MEMORY_CASES`, full depth, as in the suite.

    The DataFrame case holds the same numbers as the array case.
    """
    if name.startswith("regression 1,000,000"):
        X, y = synthetic_regression(1_000_000)
        return Case("regression", X, y, "regression")
    cases = [c for c in benchmark_cases() if c.name == name and not c.params]
    if len(cases) != 1:
        raise ValueError(f"unknown case {name!r}; use one of {FIT_MEMORY_CASES}")
    return cases[0]


def fit_memory(name: str, library: str) -> dict:
    """Peak extra memory of one fit, measured in a fresh process.

    The child process builds the case (:func:`fit_memory_case`), imports both
    libraries and fits both once on a few rows (so that neither pays for
    imports or caches during the measured fit; not in the case ``"...,
    first fit"``, where the measured fit is the process's first, as a user's
    is: climbing_trees' then includes numba's start, :func:`numba_start`),
    collects garbage, then reads
    its resident size from ``/proc/self/statm`` just before the fit of
    ``library`` (``"climbing_trees"`` or ``"scikit-learn"``), after handing
    free heap memory back to the system (``malloc_trim``).  The kernel's
    high-water mark of the process's resident memory (``VmHWM``,
    :func:`_peak_resident_bytes`) is reset to the current size first
    (``/proc/self/clear_refs``), so that building the data does not count.
    The extra memory is the high-water mark after the fit minus the size
    before it: every allocation counts, numpy's as well as the ``malloc`` of
    scikit-learn's Cython code.  Linux only.
    """
    return _in_fresh_process(f"_fit_memory_child({name!r}, {library!r})")


def _in_fresh_process(call: str) -> dict:
    """The JSON-able result of ``call`` (a function of this module) in a new Python."""
    code = (
        "import json\n"
        "import climbing_trees._benchmark as benchmark\n"
        f"print(json.dumps(benchmark.{call}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _resident_bytes() -> int:
    """The current resident size of this process (Linux)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _release_free_memory() -> None:
    """Hand memory that is free but still resident back to the system (glibc).

    Freed blocks of the C heap stay resident until ``malloc_trim``; without
    it the size before a fit would count memory that the fit then reuses.
    """
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (AttributeError, OSError):  # not glibc: nothing to release
        pass


def _peak_resident_bytes() -> int:
    """The high-water mark of this process's resident memory (Linux).

    ``VmHWM`` of ``/proc/self/status``: this process's own, which
    :func:`_reset_high_water_mark` resets.  Not ``ru_maxrss``: Linux starts a
    new program's ``ru_maxrss`` at its parent's peak, so a child launched from
    a big process (a notebook's kernel) would report the parent's peak.
    """
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux


def _reset_high_water_mark() -> bool:
    """Set the kernel's peak resident size to the current one (Linux 4.0 and later)."""
    try:
        with open("/proc/self/clear_refs", "w") as clear_refs:
            clear_refs.write("5")
        return True
    except OSError:
        return False


def _fit_memory_child(name: str, library: str) -> dict:
    """The measurement of :func:`fit_memory`, run inside the child process."""
    np.seterr(all="ignore")
    case = fit_memory_case(name)
    ours = library == "climbing_trees"
    X = case.X if ours else case.X_sklearn
    y = case.y
    X_bytes = X.nbytes
    if name.endswith("DataFrame"):  # one float block, column by column: Fortran order
        X = pd.DataFrame({f"x{j}": X[:, j] for j in range(X.shape[1])})
    if not name.endswith("first fit"):  # one fit of each on a few rows: paid before
        case.ours().fit(case.X[:200], y[:200])
        case.sklearn().fit(case.X_sklearn[:200], y[:200])
    if name.endswith("DataFrame"):  # and on a few rows of the frame
        (case.ours() if ours else case.sklearn()).fit(X.iloc[:200], y[:200])
    model = case.ours() if ours else case.sklearn()
    del case
    gc.collect()
    _release_free_memory()
    reset = _reset_high_water_mark()
    before = _resident_bytes()
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    peak = _peak_resident_bytes()
    return {
        "extra": peak - before,
        "before": before,
        "X": X_bytes,
        "seconds": seconds,
        "nodes": int(model.tree_.node_count),
        "reset": reset,
    }


@jit
def _sum_compiled(values):
    """The sum of ``values``, compiled: :func:`numba_start`'s first call."""
    total = 0.0
    for value in values:
        total += value
    return total


def numba_start() -> int:
    """Bytes of resident memory that numba takes at the first call of a compiled
    function in a fresh process (its compiler's start, whatever the function: here
    a sum of ten numbers, cached on disk), measured as :func:`fit_memory` measures."""
    return _in_fresh_process("_numba_start_child()")["extra"]


def _numba_start_child() -> dict:
    """The measurement of :func:`numba_start`, run inside the child process."""
    gc.collect()
    _release_free_memory()
    _reset_high_water_mark()
    before = _resident_bytes()
    _sum_compiled(np.ones(10))
    return {"extra": _peak_resident_bytes() - before}


def memory_case(n: int, n_levels: int, min_samples_leaf: int = 5) -> dict:
    """Fit a high-cardinality regression tree in a fresh process; time, memory, sizes.

    The child process builds :func:`synthetic_categorical` data with one
    categorical column of ``n_levels`` levels and one numerical column, fits
    ``DecisionTreeRegressor(min_samples_leaf=min_samples_leaf)`` at full
    depth, and reports the fit time, the node count, the bytes of the tree's
    categorical sets, the pickle size of the estimator and the peak resident
    memory of the whole process (:func:`_peak_resident_bytes`, so the
    interpreter, numpy and the data are included).  A fresh process per case keeps one case's peak
    from hiding another's.
    """
    return _in_fresh_process(f"_memory_child({n}, {n_levels}, {min_samples_leaf})")


def _memory_child(n: int, n_levels: int, min_samples_leaf: int) -> dict:
    """The measurement of :func:`memory_case`, run inside the child process."""
    X, y = synthetic_categorical(n, n_levels, d=1)
    before = _peak_resident_bytes()
    model = DecisionTreeRegressor(min_samples_leaf=min_samples_leaf, categorical_features=[0])
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    peak = _peak_resident_bytes()
    tree = model.tree_
    sets = sum(
        np.asarray(value).nbytes
        for name, value in vars(tree).items()
        if name.startswith("categories") and isinstance(value, np.ndarray)
    )
    return {
        "rows": n,
        "levels": n_levels,
        "fit (s)": seconds,
        "nodes": int(tree.node_count),
        "sets (MiB)": sets / 2**20,
        "pickle (MiB)": len(pickle.dumps(model)) / 2**20,
        "peak memory (MiB)": peak / 2**20,
        "before fit (MiB)": before / 2**20,
    }


# --- histogram trees (splitter="hist") against LightGBM and HistGradientBoosting ------


def hist_fitters(depth: int, exact: bool = True) -> dict:
    """One regression tree of ``max_depth=depth`` per library, each on one thread.

    ``"hist"``: ``DecisionTreeRegressor(splitter="hist")`` (255 bins);
    ``"exact"``: the package's exact splitter; ``"lightgbm"``: one boosting
    round of ``LGBMRegressor`` set to grow one plain least-squares tree
    (``learning_rate=1``, ``num_leaves=2**depth``, no minimum child size,
    weight, gain or regularisation, 255 bins from 200,000 rows, one thread);
    ``"hgb"``: ``HistGradientBoostingRegressor(max_iter=1)`` likewise (no
    leaf-count limit, no early stopping, 255 bins).  Both boosters fit the
    residuals of the mean (one tree, the same splits as a regression tree up
    to their gain rules).  OpenMP threads are limited to one by the caller
    (:func:`hist_timings`).  Each function fits and returns its model.
    """
    import lightgbm
    from sklearn.ensemble import HistGradientBoostingRegressor

    fitters = {
        "hist": lambda X, y: DecisionTreeRegressor(splitter="hist", max_depth=depth).fit(X, y),
        "lightgbm": lambda X, y: lightgbm.LGBMRegressor(
            n_estimators=1, num_leaves=2**depth, max_depth=depth, learning_rate=1.0,
            min_child_samples=1, min_child_weight=0.0, min_split_gain=0.0, reg_lambda=0.0,
            max_bin=255, subsample_for_bin=200_000, num_threads=1, verbose=-1,
        ).fit(X, y),
        "hgb": lambda X, y: HistGradientBoostingRegressor(
            max_iter=1, max_depth=depth, max_leaf_nodes=None, min_samples_leaf=1,
            learning_rate=1.0, l2_regularization=0.0, early_stopping=False, max_bins=255,
        ).fit(X, y),
    }  # fmt: skip
    if exact:
        fitters["exact"] = lambda X, y: DecisionTreeRegressor(max_depth=depth).fit(X, y)
    return fitters


def hist_timings(n: int = 1_000_000, depths=(8, 12), repeats: int = 3, exact: bool = True):
    """Fit seconds (binning included) of :func:`hist_fitters` on ``synthetic_regression(n)``.

    The best of ``repeats`` runs, the libraries alternating; OpenMP and BLAS
    threads limited to one (threadpoolctl), LightGBM's ``num_threads=1``.
    Returns a DataFrame: depth, library, seconds, and the ratios of ours to
    LightGBM's and HistGradientBoosting's.
    """
    from threadpoolctl import threadpool_limits

    X, y = synthetic_regression(n)
    rows = []
    with threadpool_limits(1):
        for depth in depths:
            fitters = hist_fitters(depth, exact=exact)
            for fit in fitters.values():  # imports, compilation and caches, paid before
                fit(X[:2000], y[:2000])
            seconds = {name: [] for name in fitters}
            for _ in range(repeats):
                for name, fit in fitters.items():
                    seconds[name].append(_elapsed(fit, X, y))
            best = {name: min(times) for name, times in seconds.items()}
            rows.append({"depth": depth, **{f"{k} (s)": v for k, v in best.items()},
                         "hist / lightgbm": best["hist"] / best["lightgbm"],
                         "hist / hgb": best["hist"] / best["hgb"]})  # fmt: skip
            if exact:
                rows[-1]["exact / hist"] = best["exact"] / best["hist"]
    return pd.DataFrame(rows)


def hist_memory(library: str, n: int = 1_000_000, depth: int = 8) -> dict:
    """Peak extra resident memory of one fit of :func:`hist_fitters`' ``library``,
    in a fresh process (as :func:`fit_memory` measures it)."""
    return _in_fresh_process(f"_hist_memory_child({library!r}, {n}, {depth})")


def _hist_memory_child(library: str, n: int, depth: int) -> dict:
    """The measurement of :func:`hist_memory`, run inside the child process."""
    from threadpoolctl import threadpool_limits

    np.seterr(all="ignore")
    X, y = synthetic_regression(n)
    with threadpool_limits(1):
        fit = hist_fitters(depth, exact=True)[library]
        fit(X[:2000], y[:2000])
        gc.collect()
        _release_free_memory()
        reset = _reset_high_water_mark()
        before = _resident_bytes()
        start = time.perf_counter()
        fit(X, y)
        seconds = time.perf_counter() - start
        peak = _peak_resident_bytes()
    return {"extra": peak - before, "X": X.nbytes, "seconds": seconds, "reset": reset}
