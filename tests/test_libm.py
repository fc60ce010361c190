"""Trees do not depend on how numpy rounds a logarithm (principle 4 of the guide).

numpy's float64 ``log``, ``log2`` and ``exp`` call the C library on most CPUs
and vectorised code where the CPU has AVX-512; the two differ in the last bit
of some results.  Entropy, log loss and Poisson trees, and boosting's losses,
take their logarithms and exponentials from :mod:`climbing_trees._libm`
instead, which calls the C library everywhere.

Three kinds of test guard that:

- a scan of the package's sources for numpy's (and scipy's) logarithms and
  exponentials, outside the places where they decide nothing;
- the other CPU, played: numpy's functions replaced by ones whose every
  result is one unit in the last place off (written through ``out=`` too),
  under which each function that takes a logarithm, each loss, the corpus
  trees that differed between CPUs and a set of estimators that grow
  through the numpy builders keep every bit;
- ``_libm``'s own values, equal to :mod:`math`'s, on any shape and dtype.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import hist_corpus
import levelwise_corpus
import numba
import numpy as np
import pytest

import climbing_trees as ct
from climbing_trees import _criteria, _libm
from climbing_trees import _gradient_boosting as gb
from climbing_trees import _hist_gradient_boosting as hgb
from climbing_trees._levelwise import _gains

PACKAGE = Path(ct.__file__).parent

# The corpus entries that differed between an AVX-512 CPU and one without, when
# the builders took their logarithms through numpy (entropy, log loss, Poisson).
HIST_SEEDS = [37, 92, 127, 139, 184, 207, 216, 226, 272, 389]
LEVELWISE_SEEDS = [112, 146, 205, 268, 272]


def play_other_cpu(monkeypatch):
    """numpy's log, log2 and exp (and kin), each finite result moved one unit in the
    last place, in the array returned and in an ``out=`` array alike."""

    def nudged(ufunc):
        def call(x, *args, **kwargs):
            result = ufunc(x, *args, **kwargs)
            moved = np.where(np.isfinite(result), np.nextafter(result, np.inf), result)
            if kwargs.get("out") is not None:  # written in place: move it there
                np.copyto(result, moved, where=kwargs.get("where", True))
                return result
            return moved[()] if np.ndim(result) == 0 else moved

        return call

    for name in ("log", "log2", "log10", "log1p", "exp", "exp2", "expm1"):
        monkeypatch.setattr(np, name, nudged(getattr(np, name)))


@pytest.fixture
def other_cpu(monkeypatch):
    play_other_cpu(monkeypatch)


def same_bits(a, b) -> bool:
    """Whether two results (arrays, numbers or tuples of them) have the same bits."""
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same_bits(x, y) for x, y in zip(a, b, strict=True))
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def test_the_nudge_reaches_numpy(other_cpu):
    x = np.array([0.3, 7.0])
    assert not np.array_equal(np.log(x), _libm.log(x))
    out = np.zeros(2)
    np.log2(x, out=out, where=x > 0)
    assert not np.array_equal(out, _libm.log2(x))


# --- no logarithm through numpy -------------------------------------------------------

#: numpy's and scipy's functions that round by CPU, as a call in the source.
FORBIDDEN = re.compile(
    r"\bnp\.(log|log2|log10|log1p|exp|exp2|expm1|power|float_power)\("
    r"|\b(logsumexp|gmean|xlogy|entr|rel_entr|kl_div)\b"
)
#: Where numpy's may stay: compiled code (numba calls the C library), outputs no
#: tree reads, scikit-learn's own max_features expression, and the benchmark.
ALLOWED = re.compile(
    r"return \[?np\.log\((proba|p|self\.predict_proba\(X\))\)"  # predict_log_proba
    r"|# scikit-learn's own expression"
    r"|``|as ``scipy|\(``scipy|scipy's ``|scikit-learn's HalfMultinomialLoss"  # prose
)
SKIPPED = {"_libm.py", "_benchmark.py", "_categorical_study.py"}


def test_no_builder_or_loss_takes_numpys_logarithm():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name in SKIPPED or path.parent.name == "_compiled":
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if FORBIDDEN.search(line) and not ALLOWED.search(line):
                found.append(f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}")
    assert not found, "use climbing_trees._libm instead:\n" + "\n".join(found)


def test_the_scan_finds_a_numpy_logarithm():
    assert FORBIDDEN.search("    logs = np.log2(np.where(p > 0, p, 1.0))")
    assert FORBIDDEN.search("from scipy.special import expit, logsumexp")
    assert not FORBIDDEN.search("    logs = log2(np.where(p > 0, p, 1.0))")


# --- the other CPU, function by function -------------------------------------------

RNG = np.random.default_rng(7)
P = RNG.dirichlet(np.ones(3), size=500)
P[:20, 0] = 0.0  # 0 log 0
COUNTS = RNG.poisson(2.0, size=(500, 1)).astype(float)
STATS = _criteria.node_statistics(COUNTS, RNG.uniform(0.5, 2.0, 500), "poisson")
PARTS = [RNG.uniform(0.0, 5.0, 300) for _ in range(3)]


def _calls():
    w = RNG.uniform(0.5, 2.0, 300)
    yield "entropy", lambda: _criteria.entropy(P)
    yield "xlogy", lambda: _criteria._xlogy(COUNTS[:, 0], COUNTS[:, 0] / 2.0)
    yield "node_statistics", lambda: _criteria.node_statistics(COUNTS, np.ones(500), "poisson")
    yield "poisson_impurity", lambda: _criteria.poisson_impurity(*STATS[:50].T)
    yield "poisson_deviance", lambda: _criteria.poisson_deviance(COUNTS[:, 0])
    yield "impurity entropy", lambda: _criteria.impurity_from_statistics(P * 9, "entropy")
    yield "impurity poisson", lambda: _criteria.impurity_from_statistics(STATS, "poisson")
    for criterion in ("entropy", "log_loss"):
        yield f"_gains._impurity {criterion}", lambda c=criterion: _gains._impurity(PARTS, c)
        left = [part / 2 for part in PARTS]
        yield f"_gains._gains {criterion}", lambda c=criterion, left=left: _gains._gains(
            left, PARTS, sum(left), sum(PARTS) - sum(left), c
        )
    raw1 = RNG.normal(size=(300, 1)) * 3
    raw3 = RNG.normal(size=(300, 3)) * 3
    binary, classes = (RNG.random(300) < 0.4).astype(float), RNG.integers(0, 3, 300)
    positive = RNG.gamma(2.0, size=300)
    proba = RNG.dirichlet(np.ones(3), size=300)
    for loss in (gb._BinomialLogLoss(), gb._ExponentialLoss()):
        name = type(loss).__name__
        yield f"gb {name} link", lambda loss=loss: loss.link(proba[:, :1])
        yield f"gb {name} gradient", lambda loss=loss: loss.negative_gradient(binary, raw1)
        yield f"gb {name} pointwise", lambda loss=loss: loss.pointwise(binary, raw1)
        yield f"gb {name} proba", lambda loss=loss: loss.proba(raw1)
    multi = gb._MultinomialLogLoss(3)
    yield "gb multinomial link", lambda: multi.link(proba)
    yield "gb multinomial gradient", lambda: multi.negative_gradient(classes, raw3)
    yield "gb multinomial pointwise", lambda: multi.pointwise(classes, raw3)
    yield "gb multinomial proba", lambda: multi.proba(raw3)
    targets = {"_Gamma": positive, "_Poisson": np.round(positive), "_BinomialLogLoss": binary}
    for loss in (hgb._Gamma(), hgb._Poisson(), hgb._BinomialLogLoss(), hgb._MultinomialLogLoss(3)):
        name = type(loss).__name__
        y, raw = (classes, raw3) if name == "_MultinomialLogLoss" else (targets[name], raw1)
        yield f"hgb {name} baseline", lambda loss=loss, y=y: loss.baseline(y, w)
        yield f"hgb {name} gradient", lambda loss=loss, y=y, raw=raw: loss.gradient_hessian(y, raw)
        yield f"hgb {name} pointwise", lambda loss=loss, y=y, raw=raw: loss.pointwise(y, raw)
        if hasattr(loss, "proba"):
            yield f"hgb {name} proba", lambda loss=loss, raw=raw: loss.proba(raw)


CALLS = dict(_calls())


@pytest.mark.parametrize("name", sorted(CALLS))
def test_each_function_keeps_its_bits(name, monkeypatch):
    plain = CALLS[name]()
    play_other_cpu(monkeypatch)
    assert same_bits(CALLS[name](), plain)


@pytest.mark.parametrize("n_classes", range(2, 8))
def test_multinomial_loss_is_scikit_learns_below_eight_classes(n_classes):
    from sklearn._loss.loss import HalfMultinomialLoss

    rng = np.random.default_rng(n_classes)
    raw = rng.normal(size=(2000, n_classes)) * 4
    y = rng.integers(0, n_classes, size=2000)
    theirs = HalfMultinomialLoss(n_classes=n_classes).loss(y.astype(float), raw)
    for ours in (gb._MultinomialLogLoss(n_classes), hgb._MultinomialLogLoss(n_classes)):
        assert ours.pointwise(y, raw).tobytes() == theirs.tobytes()


# --- the other CPU, whole trees and models ------------------------------------------


@pytest.mark.parametrize("seed", HIST_SEEDS)
def test_histogram_trees_keep_their_bits(seed, monkeypatch):
    plain = hist_corpus.fitted_hashes(*hist_corpus.problem(seed))
    play_other_cpu(monkeypatch)
    assert hist_corpus.fitted_hashes(*hist_corpus.problem(seed)) == plain


@pytest.mark.parametrize("seed", LEVELWISE_SEEDS)
def test_levelwise_trees_keep_their_bits(seed, monkeypatch):
    plain = levelwise_corpus.tree_hashes(levelwise_corpus.grow_direct(seed))
    play_other_cpu(monkeypatch)
    assert levelwise_corpus.tree_hashes(levelwise_corpus.grow_direct(seed)) == plain


def _data(n=600, seed=3):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 4)), 1)
    X[:, 0] = rng.integers(0, 6, size=n)  # a categorical column where asked
    classes = np.digitize(X[:, 1] + X[:, 2] * X[:, 3] + rng.normal(size=n), [-0.5, 0.5])
    counts = rng.poisson(np.exp(0.3 * X[:, 0] - 1 + 0.3 * X[:, 3]))
    holes = X.copy()
    holes[rng.random(X.shape) < 0.15] = np.nan
    holes[:, 0] = X[:, 0]
    return X, holes, classes, counts.astype(float), rng.uniform(0.5, 2.0, n)


# Estimators that grow through the numpy builders (categorical features, surrogates,
# fractional rows) or boost with exponentials, and what of each is compared.
ESTIMATORS = {
    "categorical entropy": (lambda: ct.DecisionTreeClassifier(
        criterion="entropy", categorical_features=[0]), "classes"),
    "categorical poisson": (lambda: ct.DecisionTreeRegressor(
        criterion="poisson", categorical_features=[0], min_samples_leaf=3), "counts"),
    "surrogate entropy": (lambda: ct.DecisionTreeClassifier(
        criterion="entropy", missing_values="surrogate"), "classes"),
    "fractional entropy": (lambda: ct.DecisionTreeClassifier(
        criterion="log_loss", missing_values="fractional", max_depth=6), "classes"),
    "fractional poisson": (lambda: ct.DecisionTreeRegressor(
        criterion="poisson", missing_values="fractional", max_depth=6), "counts"),
    "gb binary": (lambda: ct.GradientBoostingClassifier(
        n_estimators=5, max_depth=3, random_state=0), "binary"),
    "gb three classes": (lambda: ct.GradientBoostingClassifier(
        n_estimators=5, max_depth=3, random_state=0), "classes"),
    "gb exponential": (lambda: ct.GradientBoostingClassifier(
        loss="exponential", n_estimators=5), "binary"),
    "hgb binary": (lambda: ct.HistGradientBoostingClassifier(max_iter=5), "binary"),
    "hgb three classes, early stopping": (lambda: ct.HistGradientBoostingClassifier(
        max_iter=30, early_stopping=True, n_iter_no_change=3, random_state=0), "classes"),
    "hgb poisson": (lambda: ct.HistGradientBoostingRegressor(
        loss="poisson", max_iter=5), "counts"),
    "hgb gamma": (lambda: ct.HistGradientBoostingRegressor(
        loss="gamma", max_iter=5), "positive"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_estimators_keep_their_bits(name, monkeypatch):
    make, target = ESTIMATORS[name]
    X, holes, classes, counts, w = _data()
    y = {"classes": classes, "binary": (classes > 0).astype(int), "counts": counts,
         "positive": counts + 1}[target]  # fmt: skip
    X = holes if "surrogate" in name or "fractional" in name else X

    def outputs():
        model = make().fit(X, y, sample_weight=w)
        out = [model.predict_proba(X) if hasattr(model, "predict_proba") else model.predict(X)]
        if hasattr(model, "tree_"):
            out += [model.tree_.impurity, model.tree_.threshold]
        for fitted in ("train_score_", "validation_score_", "n_iter_"):
            out.append(getattr(model, fitted, None))
        return tuple(np.asarray(v) for v in out)

    plain = outputs()
    play_other_cpu(monkeypatch)
    assert same_bits(outputs(), plain)


@pytest.mark.parametrize("criterion", ["entropy", "poisson"])
def test_grow_tree_keeps_its_bits(criterion, monkeypatch):
    X, _, classes, counts, w = _data(300)
    Y = ct.one_hot(classes, 3) if criterion == "entropy" else counts[:, None]

    def grown():
        tree = ct.grow_tree(X, Y, w, criterion=criterion, min_samples_leaf=2)
        return levelwise_corpus.tree_hashes(tree)

    plain = grown()
    play_other_cpu(monkeypatch)
    assert grown() == plain


# --- _libm's own values -------------------------------------------------------------

VALUES = np.concatenate([
    np.random.default_rng(0).uniform(0.0, 1.0, 2000),
    np.random.default_rng(1).lognormal(0.0, 20.0, 2000),
    [0.0, -0.0, 1.0, 2.0, 5e-324, 1e-310, 1e308, np.inf, -1.0, np.nan],
])  # fmt: skip


@pytest.mark.parametrize(
    ("ours", "reference"),
    [(_libm.log, math.log), (_libm.log2, math.log2), (_libm.exp, math.exp)],
)
def test_each_value_is_the_c_librarys(ours, reference):
    def expected(v):
        try:
            return reference(v)
        except ValueError:  # math refuses log(0) and log(-1): numpy's -inf and nan
            return -math.inf if v == 0 else math.nan
        except OverflowError:
            return math.inf

    values = -VALUES if reference is math.exp else VALUES
    got = ours(values.reshape(-1, 2)).ravel()  # any shape, element by element
    want = np.array([expected(v) for v in values])
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(got[~nan].view(np.int64), want[~nan].view(np.int64))  # every bit


@pytest.mark.parametrize(
    "x",
    [
        2.5, np.float64(2.5), np.array(2.5), [0.5, 4.0], np.arange(1, 7).reshape(2, 3),
        np.linspace(1, 9, 12).reshape(3, 4).T, np.linspace(1, 9, 12)[::-3],
        np.array([0.5, 8.0], dtype=">f8"), np.array([0.5, 8.0], dtype=np.float32),
        np.empty((0, 3)),
    ],
)  # fmt: skip
def test_any_shape_and_dtype_as_numpy(x):
    for ours, numpys in ((_libm.log, np.log), (_libm.log2, np.log2), (_libm.exp, np.exp)):
        got, want = ours(x), numpys(np.asarray(x, dtype=np.float64))
        assert isinstance(got, np.ndarray) and got.dtype == np.float64
        assert got.shape == np.shape(x)
        np.testing.assert_array_equal(got, want)


def test_numba_does_not_vectorise_with_svml():
    # Intel's SVML (the icc_rt package) would round the loops' values otherwise.
    assert not numba.config.USING_SVML
